// Tests of ui::RunController: the real CLI's no-GPU path, and fake children (via /bin/sh) that report
// progress, succeed, fail, crash, print garbage, or ignore Cancel.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "engine/experiment/comparison_file.h"
#include "engine/formats/native_format.h"
#include "engine/workload/workload_parser.h"
#include "ui/run/run_controller.h"

namespace streamscope::ui {
// QCOMPARE prints failures through an ADL-found toString.
char *toString(RunFailureKind kind)
{
    return qstrdup(qPrintable(streamscope::ui::failureTitle(kind)));
}
} // namespace streamscope::ui

namespace engine = streamscope::engine;
using streamscope::ui::RunController;
using streamscope::ui::RunFailure;
using streamscope::ui::RunFailureKind;

class TestRunController : public QObject {
    Q_OBJECT

private:
    // The overlap lesson's comparison axes (chunks=8, streams=1,2,4,8, order=depth-first,breadth-first),
    // written out by hand: the first axis varies slowest.
    static QStringList overlapLessonLabels()
    {
        QStringList labels;
        for (const char *streams : {"1", "2", "4", "8"})
            for (const char *order : {"depth-first", "breadth-first"})
                labels << QStringLiteral("chunks=8, streams=%1, order=%2")
                              .arg(QLatin1String(streams), QLatin1String(order));
        return labels;
    }

    // A comparison of the overlap lesson holds `labels`' variants in that order, each its own pipeline:
    // chunks=8 (24 ops: H2D, kernel, D2H per chunk, every one timed on the GPU) on its stream count,
    // `repetitions` each, every (streams, order) once.
    static void checkOverlapComparison(const engine::Comparison &c, const QStringList &labels, int repetitions)
    {
        QCOMPARE(int(c.variants.size()), int(labels.size()));
        std::set<std::pair<std::string, std::string>> grid;
        for (std::size_t i = 0; i < c.variants.size(); ++i) {
            const engine::VariantResult &v = c.variants[i];
            QCOMPARE(QString::fromStdString(v.label), labels.at(qsizetype(i)));
            std::map<engine::Axis, std::string> setting;
            for (const engine::AxisSetting &a : v.settings)
                setting[a.axis] = a.value;
            QCOMPARE(setting[engine::Axis::Chunks], std::string("8"));
            QVERIFY(grid.emplace(setting[engine::Axis::Streams], setting[engine::Axis::Order]).second);
            QCOMPARE(int(v.trace.repetitions.size()), repetitions);
            QCOMPARE(int(v.trace.streams.size()), std::stoi(setting[engine::Axis::Streams]));
            for (const engine::Repetition &r : v.trace.repetitions) {
                QCOMPARE(r.ops.size(), std::size_t(24));
                int h2d = 0, kernels = 0, d2h = 0;
                for (const engine::OpRecord &op : r.ops) {
                    QVERIFY2(op.hasGpu(), v.label.c_str());
                    h2d += op.kind == engine::OpKind::CopyH2D;
                    kernels += op.kind == engine::OpKind::Kernel;
                    d2h += op.kind == engine::OpKind::CopyD2H;
                }
                QVERIFY2(h2d == 8 && kernels == 8 && d2h == 8, v.label.c_str());
            }
        }
        QCOMPARE(grid.size(), c.variants.size());
    }

    // A fake CLI: `sh -c SCRIPT sh run W -o OUT --progress json`, so $1 = run, $2 = W, $4 = OUT.
    static void useScript(RunController &controller, const QString &script)
    {
        controller.setProgram(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), script, QStringLiteral("sh")});
    }
    static RunFailure waitForFailure(QSignalSpy &failed, int timeoutMs = 15000)
    {
        if (failed.isEmpty())
            failed.wait(timeoutMs);
        if (failed.isEmpty())
            return {RunFailureKind::Internal, -999, QStringLiteral("no runFailed signal")};
        return failed.first().first().value<RunFailure>();
    }

private slots:
    void successfulRunReportsProgressAndOutput()
    {
        RunController controller;
        useScript(
            controller,
            QStringLiteral(
                "echo '{\"event\":\"start\",\"workload\":\"overlap\",\"repetitions\":2,\"ops\":4}';"
                "echo '{\"event\":\"device\",\"index\":0,\"name\":\"Fake GPU\",\"cc\":\"9.0\"}';"
                "echo '{\"event\":\"progress\",\"phase\":\"measuring\",\"repetition\":0,\"total\":2,\"message\":\"\"}';"
                "echo '{\"event\":\"brand_new_event\",\"x\":1}';"
                "echo "
                "'{\"event\":\"progress\",\"phase\":\"measuring\",\"repetition\":1,\"total\":2,\"message\":\"\","
                "\"extra\":true}';"
                "printf '{\"event\":\"done\",\"output\":\"%s\",\"ops\":8}' \"$4\"; exit 0"));
        QSignalSpy started(&controller, &RunController::runStarted);
        QSignalSpy device(&controller, &RunController::deviceReported);
        QSignalSpy progress(&controller, &RunController::progressChanged);
        QSignalSpy finished(&controller, &RunController::runFinished);
        QSignalSpy failed(&controller, &RunController::runFailed);
        QVERIFY(controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/out.sstrace")));
        QVERIFY(controller.isBusy());
        QVERIFY(finished.wait(15000));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.first().first().toString(), QStringLiteral("/tmp/out.sstrace"));
        QCOMPARE(started.count(), 1);
        QCOMPARE(started.first().at(0).toString(), QStringLiteral("overlap"));
        QCOMPARE(started.first().at(1).toInt(), 2);
        QCOMPARE(device.count(), 1);
        QCOMPARE(device.first().at(0).toString(), QStringLiteral("Fake GPU"));
        // start + two measuring steps; the last measuring step is close to done and percentages grow.
        QCOMPARE(progress.count(), 3);
        QVERIFY(progress.at(1).first().toInt() < progress.at(2).first().toInt());
        QVERIFY(progress.at(2).first().toInt() >= 95);
        QVERIFY(progress.at(2).at(1).toString().contains(QStringLiteral("2/2")));
        QCOMPARE(controller.state(), RunController::State::Idle);
    }

    void errorEventGivesKindAndMessage()
    {
        RunController controller;
        useScript(controller,
                  QStringLiteral("echo '{\"event\":\"error\",\"kind\":\"cuda\",\"exit_code\":6,\"message\":\"stream "
                                 "copy0 op 3: cudaErrorLaunchFailure\"}';"
                                 "exit 6"));
        QSignalSpy failed(&controller, &RunController::runFailed);
        QSignalSpy finished(&controller, &RunController::runFinished);
        controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/o.sstrace"));
        const RunFailure failure = waitForFailure(failed);
        QCOMPARE(failure.kind, RunFailureKind::Cuda);
        QCOMPARE(failure.exitCode, 6);
        QVERIFY(failure.message.contains(QStringLiteral("op 3")));
        QCOMPARE(finished.count(), 0);
        QCOMPARE(failed.count(), 1);
    }

    void exitCodeWithoutEventUsesStderr_data()
    {
        QTest::addColumn<int>("code");
        QTest::addColumn<RunFailureKind>("kind");
        QTest::newRow("invalid input") << 3 << RunFailureKind::InvalidInput;
        QTest::newRow("io") << 4 << RunFailureKind::Io;
        QTest::newRow("no gpu") << 5 << RunFailureKind::NoGpu;
        QTest::newRow("oom") << 7 << RunFailureKind::OutOfMemory;
        QTest::newRow("internal") << 1 << RunFailureKind::Internal;
    }
    void exitCodeWithoutEventUsesStderr()
    {
        QFETCH(int, code);
        QFETCH(RunFailureKind, kind);
        RunController controller;
        useScript(controller, QStringLiteral("echo 'w.json:3: something precise' >&2; exit %1").arg(code));
        QSignalSpy failed(&controller, &RunController::runFailed);
        controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/o.sstrace"));
        const RunFailure failure = waitForFailure(failed);
        QCOMPARE(failure.kind, kind);
        QCOMPARE(failure.exitCode, code);
        QVERIFY2(failure.message.contains(QStringLiteral("something precise")), qPrintable(failure.message));
    }

    void garbageOutputIsAProtocolError()
    {
        RunController controller;
        // Garbage, then a hang: the controller must end the child itself rather than wait 30 s.
        useScript(controller, QStringLiteral("echo 'Segmentation fault (core dumped) lol'; sleep 30"));
        QSignalSpy failed(&controller, &RunController::runFailed);
        QElapsedTimer clock;
        clock.start();
        controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/o.sstrace"));
        const RunFailure failure = waitForFailure(failed);
        QCOMPARE(failure.kind, RunFailureKind::ProtocolError);
        QVERIFY2(failure.message.contains(QStringLiteral("Segmentation fault")), qPrintable(failure.message));
        QVERIFY(clock.elapsed() < 10000);
        QCOMPARE(controller.state(), RunController::State::Idle);
    }

    void jsonThatIsNotAnObjectIsAProtocolError()
    {
        RunController controller;
        useScript(controller, QStringLiteral("echo '[1,2,3]'; exit 0"));
        QSignalSpy failed(&controller, &RunController::runFailed);
        controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/o.sstrace"));
        QCOMPARE(waitForFailure(failed).kind, RunFailureKind::ProtocolError);
    }

    void successWithoutDoneIsAProtocolError()
    {
        RunController controller;
        useScript(controller, QStringLiteral("exit 0"));
        QSignalSpy failed(&controller, &RunController::runFailed);
        controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/o.sstrace"));
        QCOMPARE(waitForFailure(failed).kind, RunFailureKind::ProtocolError);
    }

    void crashIsReported()
    {
        RunController controller;
        useScript(controller, QStringLiteral("echo 'about to die' >&2; kill -SEGV $$"));
        QSignalSpy failed(&controller, &RunController::runFailed);
        controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/o.sstrace"));
        const RunFailure failure = waitForFailure(failed);
        QCOMPARE(failure.kind, RunFailureKind::Crashed);
        QVERIFY(failure.message.contains(QStringLiteral("about to die")));
    }

    void cancelTerminatesChild()
    {
        RunController controller;
        useScript(controller,
                  QStringLiteral(
                      "echo '{\"event\":\"start\",\"workload\":\"w\",\"repetitions\":5,\"ops\":1}'; exec sleep 30"));
        QSignalSpy started(&controller, &RunController::runStarted);
        QSignalSpy failed(&controller, &RunController::runFailed);
        QSignalSpy finished(&controller, &RunController::runFinished);
        QElapsedTimer clock;
        clock.start();
        controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/o.sstrace"));
        QVERIFY(started.wait(10000));
        controller.cancel();
        QCOMPARE(controller.state(), RunController::State::Cancelling);
        const RunFailure failure = waitForFailure(failed);
        QCOMPARE(failure.kind, RunFailureKind::Cancelled);
        QVERIFY(clock.elapsed() < 10000);
        QCOMPARE(finished.count(), 0);
        QCOMPARE(controller.state(), RunController::State::Idle);
    }

    void cancelKillsAChildThatIgnoresTerminate()
    {
        RunController controller;
        controller.setCancelGracePeriod(500);
        useScript(
            controller,
            QStringLiteral("trap '' TERM; echo '{\"event\":\"start\",\"workload\":\"w\",\"repetitions\":5,\"ops\":1}';"
                           "while :; do sleep 0.1; done"));
        QSignalSpy started(&controller, &RunController::runStarted);
        QSignalSpy failed(&controller, &RunController::runFailed);
        controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/o.sstrace"));
        QVERIFY(started.wait(10000));
        controller.cancel();
        const RunFailure failure = waitForFailure(failed);
        QCOMPARE(failure.kind, RunFailureKind::Killed);
        QVERIFY(failure.message.contains(QStringLiteral("killed")));
        // The controller is usable again afterwards.
        useScript(controller, QStringLiteral("printf '{\"event\":\"done\",\"output\":\"%s\"}\\n' \"$4\""));
        QSignalSpy finished(&controller, &RunController::runFinished);
        QVERIFY(controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/again.sstrace")));
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.first().first().toString(), QStringLiteral("/tmp/again.sstrace"));
    }

    void startWhileBusyIsRefused()
    {
        RunController controller;
        useScript(controller, QStringLiteral("exec sleep 30"));
        QVERIFY(controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/o.sstrace")));
        QSignalSpy failed(&controller, &RunController::runFailed);
        QVERIFY(!controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/o.sstrace")));
        QCOMPARE(failed.count(), 1);
        controller.cancel();
    }

    void missingProgramFailsToStart()
    {
        RunController controller;
        controller.setProgram(QStringLiteral("/nonexistent/streamscope-cli"));
        QSignalSpy failed(&controller, &RunController::runFailed);
        controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/o.sstrace"));
        const RunFailure failure = waitForFailure(failed);
        QCOMPARE(failure.kind, RunFailureKind::StartFailed);
        QVERIFY(failure.message.contains(QStringLiteral("/nonexistent/streamscope-cli")));
        QVERIFY(!controller.isBusy());
    }

    void fakeDeviceCheck_data()
    {
        QTest::addColumn<QString>("script");
        QTest::addColumn<bool>("usable");
        QTest::addColumn<QString>("messagePart");
        QTest::addColumn<int>("gpus");
        // `devices --json` writes one pretty-printed document over several lines, and may write it in
        // pieces: none of them is a progress line, and the check must not take one for a broken protocol
        // (it did: a first piece read before the child ended killed it, and the GPU counted as unusable).
        QTest::newRow("two gpus, written in pieces")
            << QStringLiteral("printf '{\n  \"devices\": [\n'; sleep 0.3; printf '{\"index\": 0, \"name\": "
                              "\"Fake\"}, {\"index\": 1, \"name\": \"Fake 2\"}],\n  \"peer_links\": []\n}\n'; "
                              "exit 0")
            << true << QStringLiteral("GPU 1: Fake 2") << 2;
        QTest::newRow("usable, list unreadable")
            << QStringLiteral("echo 'device 0: Fake' >&2; exit 0") << true << QStringLiteral("Fake") << -1;
        QTest::newRow("no gpu") << QStringLiteral("echo 'no CUDA-capable device is detected' >&2; exit 5") << false
                                << QStringLiteral("no CUDA-capable") << 0;
    }
    void fakeDeviceCheck()
    {
        QFETCH(QString, script);
        QFETCH(bool, usable);
        QFETCH(QString, messagePart);
        RunController controller;
        useScript(controller, script);
        QSignalSpy checked(&controller, &RunController::devicesChecked);
        controller.checkDevices();
        QVERIFY(checked.wait(10000));
        QCOMPARE(checked.first().at(0).toBool(), usable);
        QVERIFY2(checked.first().at(1).toString().contains(messagePart), qPrintable(checked.first().at(1).toString()));
        QFETCH(int, gpus);
        QCOMPARE(controller.gpuCount(), gpus);
    }

    // The real CLI on this machine: built without CUDA or without a device, it must say so (exit 5).
    // The timing chosen in the app reaches the child as --timing; the default (CUPTI) adds nothing.
    void timingReachesTheChild()
    {
        RunController controller;
        QCOMPARE(controller.timing(), QStringLiteral("cupti"));
        QTemporaryDir dir;
        const QString argsFile = dir.filePath(QStringLiteral("args"));
        useScript(controller,
                  QStringLiteral("printf '%s\\n' \"$@\" > '") + argsFile
                      + QStringLiteral("'; printf '{\"event\":\"done\",\"output\":\"%s\"}' \"$4\"; exit 0"));
        controller.setTiming(QStringLiteral("events"));
        QSignalSpy finished(&controller, &RunController::runFinished);
        QVERIFY(controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/t.sstrace")));
        QVERIFY(finished.wait(15000));
        QFile args(argsFile);
        QVERIFY(args.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(args.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts),
                 QStringList({"run", "w.json", "-o", "/tmp/t.sstrace", "--progress", "json", "--timing", "events"}));
        args.close();
        // Solo baselines, when asked for in the Run menu, reach it as --solo.
        controller.setSolo(true);
        QVERIFY(controller.start(QStringLiteral("w.json"), QStringLiteral("/tmp/t.sstrace")));
        QVERIFY(finished.wait(15000));
        QVERIFY(args.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(args.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts).last(),
                 QStringLiteral("--solo"));
    }

    // A comparison: the arguments reach the child as the CLI takes them, the start event's labels come
    // out as comparisonStarted, and progress follows the experiment's fraction, variant by variant.
    void comparisonReportsVariantsAndProgress()
    {
        RunController controller;
        QTemporaryDir dir;
        const QString argsFile = dir.filePath(QStringLiteral("args"));
        useScript(
            controller,
            QStringLiteral("printf '%s\\n' \"$@\" > '") + argsFile
                + QStringLiteral(
                    "';"
                    "echo "
                    "'{\"event\":\"start\",\"command\":\"compare\",\"workload\":\"overlap\",\"variants\":[\"streams="
                    "1\",\"streams=2\"]}';"
                    "echo "
                    "'{\"event\":\"progress\",\"variant\":0,\"variants\":2,\"label\":\"streams=1\",\"phase\":"
                    "\"preparing\",\"repetition\":0,\"total\":0,\"fraction\":0.0,\"message\":\"variant streams=1\"}';"
                    "echo "
                    "'{\"event\":\"progress\",\"variant\":0,\"variants\":2,\"label\":\"streams=1\",\"phase\":"
                    "\"measuring\",\"repetition\":2,\"total\":3,\"fraction\":0.5,\"message\":\"\"}';"
                    "echo "
                    "'{\"event\":\"progress\",\"variant\":1,\"variants\":2,\"label\":\"streams=2\",\"phase\":"
                    "\"measuring\",\"repetition\":2,\"total\":3,\"fraction\":1.0,\"message\":\"\"}';"
                    "for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done;"
                    "printf '{\"event\":\"done\",\"output\":\"%s\",\"variants\":2}' \"$out\"; exit 0"));
        QSignalSpy started(&controller, &RunController::comparisonStarted);
        QSignalSpy runStarted(&controller, &RunController::runStarted);
        QSignalSpy progress(&controller, &RunController::progressChanged);
        QSignalSpy finished(&controller, &RunController::runFinished);
        QSignalSpy failed(&controller, &RunController::runFailed);
        QVERIFY(controller.startComparison(QStringLiteral("w.json"),
                                           {QStringLiteral("streams=1,2"), QStringLiteral("order=depth-first")},
                                           QStringLiteral("/tmp/c.sscompare"), 3, 0));
        QCOMPARE(controller.job(), RunController::Job::Compare);
        QVERIFY(finished.wait(15000));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.first().first().toString(), QStringLiteral("/tmp/c.sscompare"));
        QFile args(argsFile);
        QVERIFY(args.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(args.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts),
                 QStringList({"compare", "w.json", "--vary", "streams=1,2", "--vary", "order=depth-first", "--repeat",
                              "3", "--warmup", "0", "-o", "/tmp/c.sscompare", "--progress", "json"}));
        QCOMPARE(runStarted.count(), 0);
        QCOMPARE(started.count(), 1);
        QCOMPARE(started.first().at(1).toStringList(), QStringList({"streams=1", "streams=2"}));
        QCOMPARE(progress.count(), 4); // start + three progress lines
        QCOMPARE(progress.at(1).first().toInt(), 1);
        QCOMPARE(progress.at(2).first().toInt(), 50);
        QCOMPARE(progress.at(3).first().toInt(), 99);
        QVERIFY2(progress.at(2).at(1).toString().startsWith(QStringLiteral("Variant 1/2 (streams=1): Measuring 3/3")),
                 qPrintable(progress.at(2).at(1).toString()));
        QVERIFY(progress.at(3).at(1).toString().startsWith(QStringLiteral("Variant 2/2 (streams=2)")));
        // Default repetitions and warm-up leave the workload's own: no --repeat, no --warmup.
        QVERIFY(controller.startComparison(QStringLiteral("w.json"), {}, QStringLiteral("/tmp/d.sscompare")));
        QVERIFY(finished.wait(15000));
        QVERIFY(args.seek(0));
        QCOMPARE(QString::fromUtf8(args.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts),
                 QStringList({"compare", "w.json", "-o", "/tmp/d.sscompare", "--progress", "json"}));
    }

    void cancelledComparisonSaysNothingWasWritten()
    {
        RunController controller;
        useScript(
            controller,
            QStringLiteral(
                "echo '{\"event\":\"start\",\"command\":\"compare\",\"workload\":\"w\",\"variants\":[\"a\",\"b\"]}'; "
                "exec sleep 30"));
        QSignalSpy started(&controller, &RunController::comparisonStarted);
        QSignalSpy failed(&controller, &RunController::runFailed);
        controller.startComparison(QStringLiteral("w.json"), {QStringLiteral("api=sync,async")},
                                   QStringLiteral("/tmp/c.sscompare"));
        QVERIFY(started.wait(10000));
        controller.cancel();
        const RunFailure failure = waitForFailure(failed);
        QCOMPARE(failure.kind, RunFailureKind::Cancelled);
        QVERIFY2(failure.message.contains(QStringLiteral("comparison was cancelled")), qPrintable(failure.message));
        QCOMPARE(controller.state(), RunController::State::Idle);
    }

    // The real CLI: the overlap lesson's comparison (1 repetition, no warm-up). Without a GPU it fails
    // with NoGpu and writes nothing; with one, the .sscompare holds the lesson's 8 variants.
    void realCliComparison()
    {
        const QString cli = QStringLiteral(STREAMSCOPE_CLI);
        if (!QFileInfo(cli).isExecutable())
            QSKIP("streamscope-cli is not built");
        const QString preset = QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads/overlap.json");
        QTemporaryDir dir;
        const QString output = dir.filePath(QStringLiteral("overlap.sscompare"));
        RunController controller;
        controller.setProgram(cli);
        QSignalSpy started(&controller, &RunController::comparisonStarted);
        QSignalSpy finished(&controller, &RunController::runFinished);
        QSignalSpy failed(&controller, &RunController::runFailed);
        QVERIFY(controller.startComparison(preset, {}, output, 1, 0));
        // Whichever comes first: without a GPU the failure is immediate.
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 300000);
        QCOMPARE(started.count(), 1);
        // The lesson's own axes: 4 stream counts x 2 orders, announced before anything runs.
        QCOMPARE(started.first().at(1).toStringList(), overlapLessonLabels());
        if (!failed.isEmpty()) {
            const RunFailure failure = failed.first().first().value<RunFailure>();
            QVERIFY2(failure.kind == RunFailureKind::NoGpu, qPrintable(failure.message + controller.standardError()));
            QVERIFY(!QFileInfo::exists(output));
            qInfo("no GPU: the comparison failed as it must (%s)", qPrintable(failure.message.left(80)));
            return;
        }
        QCOMPARE(finished.first().first().toString(), output);
        checkOverlapComparison(engine::readComparison(output.toStdString()), overlapLessonLabels(), 1);
        if (QTest::currentTestFailed())
            return;
        qInfo("a GPU ran the overlap lesson's 8 variants through the CLI");
    }

    // The checks realCliComparison makes of a GPU's comparison, on the one recorded on an H200: so that
    // they are known to pass on a real comparison, and to say something (8 variants of 24 GPU-timed ops).
    void recordedOverlapComparisonHasItsGrid()
    {
        const engine::Comparison c =
            engine::readComparison(STREAMSCOPE_SOURCE_DIR "/resources/examples/comparisons/overlap.sscompare");
        checkOverlapComparison(c, overlapLessonLabels(), 10); // the lesson's "repetitions": 10
    }

    void realCliWithoutGpu()
    {
        const QString cli = QStringLiteral(STREAMSCOPE_CLI);
        if (!QFileInfo(cli).isExecutable())
            QSKIP("streamscope-cli is not built");
        RunController probe;
        probe.setProgram(cli);
        QSignalSpy checked(&probe, &RunController::devicesChecked);
        probe.checkDevices();
        QVERIFY(checked.wait(30000));
        if (checked.first().at(0).toBool())
            QSKIP("a usable GPU is present: the no-GPU path cannot be exercised here");
        QVERIFY2(!checked.first().at(1).toString().isEmpty(), "the no-GPU message must say why");

        QTemporaryDir dir;
        const QString workload = dir.filePath(QStringLiteral("w.json"));
        QFile file(workload);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"version":1,"name":"t","buffers":[{"name":"d","kind":"device","bytes":1024}],
                      "streams":[{"name":"s0","ops":[{"op":"memset","buffer":"d","bytes":1024}]}]})");
        file.close();
        RunController controller;
        controller.setProgram(cli);
        QSignalSpy failed(&controller, &RunController::runFailed);
        QSignalSpy finished(&controller, &RunController::runFinished);
        controller.start(workload, dir.filePath(QStringLiteral("out.sstrace")));
        const RunFailure failure = waitForFailure(failed, 30000);
        QCOMPARE(finished.count(), 0);
        QVERIFY2(failure.kind == RunFailureKind::NoGpu, qPrintable(failure.message));
        QCOMPARE(failure.exitCode, 5);
        QVERIFY(!failure.message.isEmpty());
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("out.sstrace"))));
    }

    // On a GPU host: a real run of a preset through the CLI, with progress, gives a trace that loads.
    void realCliRunsAPresetOnTheGpu()
    {
        const QString cli = QStringLiteral(STREAMSCOPE_CLI);
        if (!QFileInfo(cli).isExecutable())
            QSKIP("streamscope-cli is not built");
        RunController probe;
        probe.setProgram(cli);
        QSignalSpy checked(&probe, &RunController::devicesChecked);
        probe.checkDevices();
        QVERIFY(checked.wait(60000));
        if (!checked.first().at(0).toBool())
            QSKIP("no usable GPU here");
        const QString preset = QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads/overlap.json");
        QVERIFY(QFileInfo::exists(preset));
        QTemporaryDir dir;
        const QString output = dir.filePath(QStringLiteral("overlap.sstrace"));
        RunController controller;
        controller.setProgram(cli);
        QSignalSpy progress(&controller, &RunController::progressChanged);
        QSignalSpy device(&controller, &RunController::deviceReported);
        QSignalSpy finished(&controller, &RunController::runFinished);
        QSignalSpy failed(&controller, &RunController::runFailed);
        QVERIFY(controller.start(preset, output));
        QVERIFY2(finished.wait(300000) || !failed.isEmpty(), "the run neither finished nor failed in 5 minutes");
        if (!failed.isEmpty())
            QFAIL(qPrintable(failed.first().first().value<RunFailure>().message + QStringLiteral("\n")
                             + controller.standardError()));
        QCOMPARE(finished.first().first().toString(), output);
        QCOMPARE(device.count(), 1);
        QVERIFY(progress.count() >= 3);
        QVERIFY(progress.last().first().toInt() >= 95);
        const engine::Trace trace = engine::readNativeTrace(output.toStdString());
        QVERIFY(!trace.repetitions.empty());
        QCOMPARE(trace.repetitions.front().ops.size(), engine::loadWorkloadFile(preset.toStdString()).opCount());
    }
};

QTEST_GUILESS_MAIN(TestRunController)
#include "tst_run_controller.moc"
