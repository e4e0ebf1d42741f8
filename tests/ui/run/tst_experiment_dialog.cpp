// Tests of ui::ExperimentDialog on the bundled lessons: it starts from the workload's own comparison,
// offers only the axes the workload has something for, counts the grid as the CLI will, and shows a
// value or combination the CLI would refuse in place, with Run disabled.
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QtTest>

#include "engine/util/file_util.h"
#include "ui/run/experiment_dialog.h"

using streamscope::engine::Axis;
using streamscope::ui::ExperimentDialog;

namespace {

QString preset(const char *name)
{
    return QString::fromStdString(
        streamscope::engine::readFile(std::string(STREAMSCOPE_SOURCE_DIR "/resources/workloads/") + name));
}

QPushButton *runButton(ExperimentDialog &dialog)
{
    return dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
}

} // namespace

class TestExperimentDialog : public QObject {
    Q_OBJECT

private slots:
    void overlapLessonStartsFromItsAxes()
    {
        ExperimentDialog dialog(preset("overlap.json"), QStringLiteral("overlap.json"));
        QVERIFY2(dialog.canRun(), qPrintable(dialog.problem()));
        QCOMPARE(dialog.varyOptions(), QStringList({QStringLiteral("chunks=8"), QStringLiteral("streams=1, 2, 4, 8"),
                                                    QStringLiteral("order=depth-first, breadth-first")}));
        QCOMPARE(dialog.variantCount(), 8);
        QCOMPARE(runButton(dialog)->text(), QStringLiteral("Run 8 variants"));
        QVERIFY(runButton(dialog)->isEnabled());
        // A pipeline has something for every axis but those of version 2 workloads (several GPUs), NCCL's
        // (collectives) and PDL (its kernels each follow a copy, not a kernel).
        for (Axis axis : ExperimentDialog::axes())
            QCOMPARE(dialog.axisAvailable(axis), axis != Axis::PeerAccess && axis != Axis::Devices
                                                     && axis != Axis::MaxCtas && axis != Axis::CtaPolicy
                                                     && axis != Axis::Pdl);
        // The all-reduce lesson starts from NCCL's thread-block budget.
        ExperimentDialog nccl(preset("allreduce-beside-gemm.json"), QStringLiteral("allreduce-beside-gemm.json"));
        QCOMPARE(nccl.varyOptions(), QStringList({QStringLiteral("maxCTAs=default, 4")}));
        QVERIFY(nccl.axisAvailable(Axis::MaxCtas));
        QVERIFY(nccl.axisAvailable(Axis::CtaPolicy));
        // Every axis's row fits a projector's 1280x720 with a title bar (teachers run it live).
        QVERIFY2(dialog.sizeHint().height() <= 680 && dialog.sizeHint().width() <= 1280,
                 qPrintable(QStringLiteral("%1x%2").arg(dialog.sizeHint().width()).arg(dialog.sizeHint().height())));
        // The copy-engine lesson from NCCL's CTA policy.
        ExperimentDialog ce(preset("copy-engine-collectives.json"), QStringLiteral("copy-engine-collectives.json"));
        QCOMPARE(ce.varyOptions(), QStringList({QStringLiteral("ctaPolicy=zero, default")}));
        auto *peerBox = dialog.findChild<QWidget *>(QStringLiteral("vary-peerAccess"));
        QVERIFY2(peerBox->toolTip().contains(QStringLiteral("version 1")), qPrintable(peerBox->toolTip()));
        QCOMPARE(dialog.repetitions(), -1);
        QCOMPARE(dialog.warmup(), -1);
        // Adding an axis multiplies the grid; it goes after the lesson's own axes.
        dialog.setAxis(Axis::Memory, true, QStringLiteral("pageable, pinned"));
        QCOMPARE(dialog.variantCount(), 16);
        QCOMPARE(dialog.varyOptions().first(), QStringLiteral("chunks=8"));
        QCOMPARE(dialog.varyOptions().last(), QStringLiteral("memory=pageable, pinned"));
        dialog.setRepetitions(3);
        dialog.setWarmup(0);
        QCOMPARE(dialog.repetitions(), 3);
        QCOMPARE(dialog.warmup(), 0);
        QVERIFY(dialog.findChild<QLabel *>(QStringLiteral("experimentStatus"))
                    ->text()
                    .contains(QStringLiteral("16 variants, 3 measured repetitions each")));
    }

    void axesWithoutAPipelineAreNotOffered()
    {
        ExperimentDialog dialog(preset("bandwidth.json"), QStringLiteral("bandwidth.json"));
        QVERIFY2(dialog.canRun(), qPrintable(dialog.problem()));
        QCOMPARE(dialog.varyOptions(), QStringList{QStringLiteral("memory=pageable, pinned")});
        QCOMPARE(dialog.variantCount(), 2);
        for (Axis axis : {Axis::Streams, Axis::Order, Axis::Chunks})
            QVERIFY(!dialog.axisAvailable(axis));
        for (Axis axis : {Axis::Memory, Axis::Api, Axis::Size})
            QVERIFY(dialog.axisAvailable(axis));
        // Checking an axis that is not offered changes nothing.
        dialog.setAxis(Axis::Streams, true, QStringLiteral("1, 2"));
        QVERIFY(!dialog.axisEnabled(Axis::Streams));
        QCOMPARE(dialog.variantCount(), 2);
        auto *streamsBox = dialog.findChild<QWidget *>(QStringLiteral("vary-streams"));
        QVERIFY(!streamsBox->isEnabled());
        QVERIFY2(streamsBox->toolTip().contains(QStringLiteral("pipeline")), qPrintable(streamsBox->toolTip()));
    }

    void badValueIsShownInPlace()
    {
        ExperimentDialog dialog(preset("sync-vs-async.json"), QStringLiteral("sync-vs-async.json"));
        QCOMPARE(dialog.varyOptions(), QStringList{QStringLiteral("api=sync, async")});
        QVERIFY(dialog.canRun());
        dialog.setAxis(Axis::Api, true, QStringLiteral("sync, fast"));
        QVERIFY(!dialog.canRun());
        QVERIFY2(dialog.problem().contains(QStringLiteral("\"fast\"")), qPrintable(dialog.problem()));
        QVERIFY(!runButton(dialog)->isEnabled());
        QVERIFY(dialog.findChild<QLineEdit *>(QStringLiteral("values-api"))
                    ->styleSheet()
                    .contains(QStringLiteral("border")));
        QCOMPARE(dialog.findChild<QLabel *>(QStringLiteral("experimentStatus"))->text(), dialog.problem());
        dialog.setAxis(Axis::Api, true, QStringLiteral("async"));
        QVERIFY(dialog.canRun());
        QVERIFY(dialog.findChild<QLineEdit *>(QStringLiteral("values-api"))->styleSheet().isEmpty());
        dialog.setAxis(Axis::Api, true, QStringLiteral("sync,,async"));
        QVERIFY(dialog.problem().contains(QStringLiteral("empty value")));
    }

    void impossibleCombinationNamesTheVariant()
    {
        ExperimentDialog dialog(preset("overlap.json"), QStringLiteral("overlap.json"));
        dialog.setAxis(Axis::Chunks, true, QStringLiteral("4"));
        QVERIFY(!dialog.canRun());
        QVERIFY2(dialog.problem().contains(QStringLiteral("streams=8"))
                     && dialog.problem().contains(QStringLiteral("/pipeline/streams")),
                 qPrintable(dialog.problem()));
        // Unchecking the stream axis leaves a grid that can run.
        dialog.setAxis(Axis::Streams, false, QString());
        QVERIFY2(dialog.canRun(), qPrintable(dialog.problem()));
        QCOMPARE(dialog.variantCount(), 2);
    }

    // The lessons of several threads and GPUs start from their own axes, which the dialog offers too.
    void versionTwoLessonsStartFromTheirAxes()
    {
        ExperimentDialog perThread(preset("per-thread-default-stream.json"),
                                   QStringLiteral("per-thread-default-stream.json"));
        QVERIFY2(perThread.canRun(), qPrintable(perThread.problem()));
        QCOMPARE(perThread.varyOptions(), QStringList{QStringLiteral("defaultStream=legacy, per-thread")});
        QCOMPARE(perThread.variantCount(), 2);
        QVERIFY(!perThread.axisAvailable(Axis::Devices)); // it names one GPU
        QVERIFY(perThread.axisAvailable(Axis::PeerAccess));

        ExperimentDialog peer(preset("peer-copies.json"), QStringLiteral("peer-copies.json"));
        QVERIFY2(peer.canRun(), qPrintable(peer.problem()));
        QCOMPARE(peer.varyOptions(), QStringList{QStringLiteral("peerAccess=on, off")});
        if (const QString out = qEnvironmentVariable("STREAMSCOPE_SCREENSHOT_DIR"); !out.isEmpty()) {
            peer.resize(peer.sizeHint().expandedTo(QSize(720, 0)));
            peer.grab().save(out + QStringLiteral("/experiment-dialog-peer-copies.png"));
        }
        QVERIFY(peer.axisAvailable(Axis::Devices));
        peer.setAxis(Axis::Devices, true, QStringLiteral("1, 2"));
        QCOMPARE(peer.variantCount(), 4);
        peer.setAxis(Axis::PeerAccess, true, QStringLiteral("on, sideways"));
        QVERIFY(!peer.canRun());
        QVERIFY2(peer.problem().contains(QStringLiteral("\"sideways\"")), qPrintable(peer.problem()));

        ExperimentDialog threads(preset("thread-per-gpu.json"), QStringLiteral("thread-per-gpu.json"));
        QCOMPARE(threads.varyOptions(), QStringList{QStringLiteral("devices=2, 1")});
        QVERIFY(threads.axisAvailable(Axis::Memory));
    }

    void workloadWithoutComparisonRunsAlone()
    {
        ExperimentDialog dialog(preset("concurrent-kernels.json"), QStringLiteral("concurrent-kernels.json"));
        QVERIFY(dialog.varyOptions().isEmpty());
        QCOMPARE(dialog.variantCount(), 1);
        QCOMPARE(runButton(dialog)->text(), QStringLiteral("Run"));
    }

    void invalidWorkloadSaysWhy()
    {
        ExperimentDialog dialog(
            QStringLiteral("{\"version\": 1, \"streams\": [{\"name\": \"s\", \"ops\": [{\"op\": \"kernal\"}]}]}"),
            QStringLiteral("broken.json"));
        QVERIFY(!dialog.canRun());
        QVERIFY2(dialog.problem().contains(QStringLiteral("broken.json"))
                     && dialog.problem().contains(QStringLiteral("kernal")),
                 qPrintable(dialog.problem()));
        QVERIFY(!runButton(dialog)->isEnabled());
    }
};

QTEST_MAIN(TestExperimentDialog)
#include "tst_experiment_dialog.moc"
