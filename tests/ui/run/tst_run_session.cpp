// Tests of ui::RunSession with fake CLIs (/bin/sh scripts): the workload text reaches the child, a
// finished run comes back as a trace with its run name, a comparison as a file and a window name, an
// unreadable result and a missing GPU as failures with their titles, and a run under way refuses another.
#include <QFile>
#include <QSignalSpy>
#include <QtTest>

#include "ui/run/run_session.h"

using namespace streamscope;

class TestRunSession : public QObject {
    Q_OBJECT

private:
    // The fake CLI gets the real one's arguments: `run W -o OUT --progress json` ($2 = W, $4 = OUT) or
    // `compare W --vary V... -o OUT ...` (OUT follows -o).
    static void useScript(ui::RunSession &session, const QString &script)
    {
        session.controller()->setProgram(QStringLiteral("/bin/sh"),
                                         {QStringLiteral("-c"), script, QStringLiteral("sh")});
    }
    static QString example() { return QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/overlap.sstrace"); }

private slots:
    void runComesBackAsANamedTrace()
    {
        QVERIFY2(QFile::exists(example()), qPrintable(example() + " is missing from the checkout"));
        ui::RunSession session;
        // The child checks that it was given the editor's text, then "records" the example trace.
        useScript(session, QStringLiteral("grep -q 'marker-7731' \"$2\" || exit 3; cp '%1' \"$4\"; "
                                          "printf '{\"event\":\"done\",\"output\":\"%s\",\"ops\":12}' \"$4\"")
                               .arg(example()));
        QSignalSpy ready(&session, &ui::RunSession::traceReady);
        QSignalSpy failed(&session, &ui::RunSession::failed);
        QVERIFY(session.whyNotRunnable().isEmpty());
        QString error;
        QVERIFY2(
            session.run(QStringLiteral("{\"name\": \"x\" /* marker-7731 */}"), QStringLiteral("mine.json"), &error),
            qPrintable(error));
        QVERIFY(session.whyNotRunnable().contains(QStringLiteral("in progress")));
        QVERIFY(!session.run(QStringLiteral("{}"), QStringLiteral("again.json"), &error)); // one at a time
        QVERIFY(error.contains(QStringLiteral("in progress")));
        QVERIFY(ready.wait(15000));
        QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));
        const auto trace = ready.first().at(0).value<std::shared_ptr<const engine::Trace>>();
        QVERIFY(trace);
        QVERIFY(trace->opCount() > 0);
        // The recording's own title wins over the editor's file name; the run number follows.
        QCOMPARE(ready.first().at(1).toString(),
                 QStringLiteral("%1 (run 1, not saved)").arg(QString::fromStdString(trace->title)));
        const QString path = ready.first().at(2).toString();
        QVERIFY(path.endsWith(QStringLiteral("run-1.sstrace")));
        QVERIFY(session.ownsFile(path)); // not a recent file: the folder goes with the session
        QVERIFY(!session.ownsFile(example()));
        QCOMPARE(session.runCount(), 1);
        QVERIFY(session.whyNotRunnable().isEmpty());
    }

    void unreadableResultIsAFailure()
    {
        ui::RunSession session;
        useScript(session, QStringLiteral("echo 'not a trace' > \"$4\"; "
                                          "printf '{\"event\":\"done\",\"output\":\"%s\",\"ops\":1}' \"$4\""));
        QSignalSpy ready(&session, &ui::RunSession::traceReady);
        QSignalSpy failed(&session, &ui::RunSession::failed);
        QString error;
        QVERIFY(session.run(QStringLiteral("{}"), QStringLiteral("w.json"), &error));
        QVERIFY(failed.wait(15000));
        QCOMPARE(ready.count(), 0);
        QCOMPARE(failed.first().at(0).toString(), QStringLiteral("The run finished but its trace could not be read"));
        QVERIFY2(failed.first().at(1).toString().contains(QStringLiteral("run-1.sstrace")),
                 qPrintable(failed.first().at(1).toString()));
    }

    void noGpuStopsFurtherRuns()
    {
        ui::RunSession session;
        useScript(session,
                  QStringLiteral("echo '{\"event\":\"error\",\"kind\":\"no_gpu\",\"message\":\"no CUDA device\"}';"
                                 " exit 5"));
        QSignalSpy gpu(&session, &ui::RunSession::gpuChanged);
        QSignalSpy failed(&session, &ui::RunSession::failed);
        QString error;
        QVERIFY(session.run(QStringLiteral("{}"), QStringLiteral("w.json"), &error));
        QVERIFY(failed.wait(15000));
        QCOMPARE(gpu.count(), 1);
        QCOMPARE(gpu.first().at(0).toBool(), false);
        QVERIFY(gpu.first().at(1).toString().contains(QStringLiteral("no CUDA device")));
        QVERIFY(!session.gpuUsable());
        QVERIFY(session.whyNotRunnable().contains(QStringLiteral("no usable GPU")));
        QVERIFY(!session.run(QStringLiteral("{}"), QStringLiteral("w.json"), &error));
        QVERIFY(error.contains(QStringLiteral("no usable GPU")));
        QCOMPARE(session.runCount(), 1); // the refused run wrote nothing
    }

    void comparisonComesBackAsAFileAndAName()
    {
        ui::RunSession session;
        // Writes the comparison where -o says and reports it.
        useScript(session, QStringLiteral("while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done; "
                                          "echo '{}' > \"$out\"; "
                                          "printf '{\"event\":\"done\",\"output\":\"%s\",\"ops\":1}' \"$out\""));
        QSignalSpy ready(&session, &ui::RunSession::comparisonReady);
        QSignalSpy failed(&session, &ui::RunSession::failed);
        QString error;
        QVERIFY(session.run(QStringLiteral("{}"), QStringLiteral("first.json"), &error)); // run 1 fails to read: fine
        QVERIFY(failed.wait(15000));
        QVERIFY(session.compare(QStringLiteral("{}"), QStringLiteral("overlap.json"), {QStringLiteral("streams=1,4")},
                                2, 0, &error));
        QVERIFY(ready.wait(15000));
        QVERIFY(ready.first().at(0).toString().endsWith(QStringLiteral("comparison-2.sscompare")));
        QCOMPARE(ready.first().at(1).toString(), QStringLiteral("overlap comparison 2"));
        QVERIFY(session.ownsFile(ready.first().at(0).toString()));
    }

    void cancelStopsARunningChild()
    {
        ui::RunSession session;
        QVERIFY(!session.cancel()); // nothing running
        useScript(session,
                  QStringLiteral("echo '{\"event\":\"start\",\"workload\":\"w\",\"repetitions\":1,\"ops\":1}'; "
                                 "sleep 30"));
        session.controller()->setCancelGracePeriod(500);
        QSignalSpy failed(&session, &ui::RunSession::failed);
        QString error;
        QVERIFY(session.run(QStringLiteral("{}"), QStringLiteral("w.json"), &error));
        QTRY_COMPARE_WITH_TIMEOUT(session.controller()->state(), ui::RunController::State::Running, 5000);
        QVERIFY(session.cancel());
        QVERIFY(failed.wait(15000));
        QCOMPARE(failed.first().at(0).toString(), ui::failureTitle(ui::RunFailureKind::Cancelled));
        QVERIFY(session.gpuUsable()); // a cancel says nothing about the GPU
    }
};

QTEST_MAIN(TestRunSession)
#include "tst_run_session.moc"
