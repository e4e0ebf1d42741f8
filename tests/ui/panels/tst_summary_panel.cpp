// Tests of the summary, details and op-table views over a synthetic trace: models under
// QAbstractItemModelTester, numbers checked against hand-computed values, and the repetition selector.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

#include <map>

#include "engine/analysis/analysis.h"
#include "tests/engine/trace_fixture.h"
#include "tests/ui/test_traces.h"
#include "ui/panels/details_panel.h"
#include "ui/panels/op_table_model.h"
#include "ui/panels/summary_model.h"
#include "ui/panels/summary_panel.h"

using namespace streamscope;

class TestSummaryPanel : public QObject {
    Q_OBJECT

private:
    static int rowOf(const QAbstractItemModel &model, const QString &label)
    {
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.index(r, 0).data().toString() == label)
                return r;
        return -1;
    }

private slots:
    void summaryModelUnderTester()
    {
        ui::SummaryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setTrace(test::makePipelineTrace(3));
        QVERIFY(model.rowCount() > 8);
        model.setRepetition(2);
        model.setRepetition(99); // clamped
        QCOMPARE(model.repetition(), 2);
        model.setTrace(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void summaryNumbers()
    {
        auto trace = test::makePipelineTrace(3);
        ui::SummaryModel model;
        model.setTrace(trace);
        const engine::TraceSummary summary = engine::summarize(*trace);
        // The model starts on the median repetition.
        QCOMPARE(model.repetition(), summary.medianRepetition);

        const int makespan = rowOf(model, QStringLiteral("Makespan"));
        QVERIFY(makespan >= 0);
        auto raw = [&](int row, int column) {
            return model.index(row, column).data(ui::SummaryModel::RawValueRole).toDouble();
        };
        // Per repetition the makespan grows by 10 us: min is repetition 0, max repetition 2.
        QCOMPARE(raw(makespan, ui::SummaryModel::MinColumn), double(summary.repetitions[0].makespanNs));
        QCOMPARE(raw(makespan, ui::SummaryModel::MaxColumn), double(summary.repetitions[2].makespanNs));
        QCOMPARE(raw(makespan, ui::SummaryModel::MedianColumn), summary.makespanNs.median);
        QVERIFY(raw(makespan, ui::SummaryModel::MinColumn) < raw(makespan, ui::SummaryModel::MaxColumn));
        model.setRepetition(0);
        QCOMPARE(raw(makespan, ui::SummaryModel::RepetitionColumn), double(summary.repetitions[0].makespanNs));
        QCOMPARE(model.headerData(ui::SummaryModel::RepetitionColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Rep. 1"));

        // Two 1 MiB copies per direction per repetition.
        const int h2dBytes = rowOf(model, QStringLiteral("H2D bytes"));
        QVERIFY(h2dBytes >= 0);
        QCOMPARE(raw(h2dBytes, ui::SummaryModel::MedianColumn), double(2 << 20));
        QCOMPARE(model.index(h2dBytes, ui::SummaryModel::MedianColumn).data().toString(), QStringLiteral("2 MiB"));
        // The workload has no D2D copy: no row for it.
        QCOMPARE(rowOf(model, QStringLiteral("D2D bytes")), -1);
        // One busy row per stream, named after it.
        QVERIFY(rowOf(model, QStringLiteral("Busy: copy0")) >= 0);
        QVERIFY(rowOf(model, QStringLiteral("Busy: copy1")) >= 0);
        const int efficiency = rowOf(model, QStringLiteral("Efficiency"));
        QVERIFY(
            model.index(efficiency, ui::SummaryModel::MedianColumn).data().toString().endsWith(QStringLiteral(" %")));
    }

    void repetitionSelector()
    {
        ui::SummaryPanel panel;
        QSignalSpy selected(&panel, &ui::SummaryPanel::repetitionSelected);
        panel.setTrace(test::makePipelineTrace(3));
        QCOMPARE(panel.repetitionSelector()->count(), 3);
        QCOMPARE(panel.repetitionSelector()->currentIndex(), panel.medianRepetition());
        QVERIFY(panel.repetitionSelector()->currentText().endsWith(QStringLiteral("(median)")));
        QCOMPARE(selected.count(), 0); // loading a trace is not a user choice
        const int other = panel.medianRepetition() == 0 ? 2 : 0;
        panel.repetitionSelector()->setCurrentIndex(other);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.first().first().toInt(), other);
        QCOMPARE(panel.repetition(), other);
        auto *table = panel.findChild<QTableView *>(QStringLiteral("summaryTable"));
        QVERIFY(table);
        QVERIFY(!table->isColumnHidden(ui::SummaryModel::MedianColumn));
        // One repetition: no Median, Min and Max repeating it.
        panel.setTrace(test::makePipelineTrace(1));
        for (const int column :
             {int(ui::SummaryModel::MedianColumn), int(ui::SummaryModel::MinColumn), int(ui::SummaryModel::MaxColumn)})
            QVERIFY(table->isColumnHidden(column));
        QVERIFY(!table->isColumnHidden(ui::SummaryModel::RepetitionColumn));
        // With an even count the median lies between two repetitions: the one chosen is the nearest.
        panel.setTrace(test::makePipelineTrace(4));
        QVERIFY(panel.repetitionSelector()->currentText().endsWith(QStringLiteral("(nearest the median)")));
        QVERIFY(panel.repetitionSelector()->currentText().contains(QStringLiteral(" of 4 ")));
        panel.setTrace(nullptr);
        QVERIFY(!panel.repetitionSelector()->isEnabled());
    }

    // The key figures (presentation mode's strip, exported slides): on one GPU the bandwidth of each copy
    // direction; with two, each GPU's host link and each peer link, against its peak.
    void keyFigures()
    {
        ui::SummaryModel one;
        one.setTrace(test::makePipelineTrace(3));
        QStringList names;
        for (const auto &figure : one.keyFigures())
            names << figure.name;
        QVERIFY2(names.startsWith(QStringLiteral("Makespan")), qPrintable(names.join(QLatin1Char('|'))));
        QVERIFY(names.contains(QStringLiteral("H2D bandwidth")) && names.contains(QStringLiteral("D2H bandwidth")));
        QVERIFY(names.endsWith(QStringLiteral("Host blocked")));

        ui::SummaryModel two;
        two.setTrace(std::make_shared<const engine::Trace>(test::twoGpuTrace()));
        std::map<QString, QString> values, notes;
        for (const auto &figure : two.keyFigures()) {
            values[figure.name] = figure.value;
            notes[figure.name] = figure.note;
        }
        // Peer copies: 20 MB and 10 MB at 200 GB/s over NVLink's 450.
        for (const char *link : {"P2P GPU 0\u21921 bandwidth", "P2P GPU 1\u21920 bandwidth"}) {
            QCOMPARE(values[QString::fromUtf8(link)], QStringLiteral("200 GB/s"));
            QCOMPARE(notes[QString::fromUtf8(link)], QStringLiteral("44.4 % of NVLink peak"));
        }
        // Each GPU's own host link: A (5 MB in 100 µs) up to GPU 0, F down from GPU 1.
        QCOMPARE(values[QStringLiteral("GPU 0 H2D bandwidth")], QStringLiteral("50 GB/s"));
        QCOMPARE(values[QStringLiteral("GPU 1 D2H bandwidth")], QStringLiteral("50 GB/s"));
        QVERIFY(!values.count(QStringLiteral("GPU 1 H2D bandwidth"))); // GPU 1 copied nothing up
        QCOMPARE(two.keyFiguresText().count(QStringLiteral(" · ")), int(values.size()) - 1);

        // Presentation mode's strip shows them.
        ui::SummaryPanel panel;
        panel.setTrace(std::make_shared<const engine::Trace>(test::twoGpuTrace()));
        panel.setCompact(true);
        const QString strip = panel.stripText();
        QVERIFY2(strip.contains(QStringLiteral("P2P GPU 0\u21921 bandwidth 200 GB/s (44.4 % of NVLink peak)")),
                 qPrintable(strip));
        QVERIFY2(strip.contains(QStringLiteral("GPU 1 D2H bandwidth 50 GB/s")), qPrintable(strip));
    }

    void opTableModel()
    {
        ui::OpTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTrace(test::makePipelineTrace(2), 1);
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(model.index(0, ui::OpTableModel::StreamColumn).data().toString(), QStringLiteral("copy0"));
        QCOMPARE(model.index(0, ui::OpTableModel::NameColumn).data().toString(), QStringLiteral("H2D 1 MiB pinned"));
        // Times are relative to the repetition's start (its first host call, 5 us before the first copy).
        QCOMPARE(model.index(0, ui::OpTableModel::StartColumn).data(ui::OpTableModel::SortRole).toLongLong(), 5000);
        QCOMPARE(model.index(0, ui::OpTableModel::DurationColumn).data(ui::OpTableModel::SortRole).toLongLong(), 50000);
        const double gbs =
            model.index(0, ui::OpTableModel::BandwidthColumn).data(ui::OpTableModel::SortRole).toDouble();
        QVERIFY(qAbs(gbs - (1 << 20) / 50000.0) < 1e-6);
        // A kernel has no bandwidth.
        QVERIFY(model.index(1, ui::OpTableModel::BandwidthColumn).data().isNull());
        model.setRepetition(0);
        QCOMPARE(model.repetition(), 0);
        model.setTrace(nullptr, 0);
        QCOMPARE(model.rowCount(), 0);
    }

    void detailsPanel()
    {
        ui::DetailsPanel panel;
        panel.setTrace(test::makePipelineTrace(3));
        QVERIFY(panel.plainText().contains(QStringLiteral("Click an operation")));
        panel.showOp(0, 2); // the first D2H copy
        const QString text = panel.plainText();
        QVERIFY2(text.contains(QStringLiteral("D2H 1 MiB pinned")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("copy0")));
        QVERIFY(text.contains(QStringLiteral("cudaMemcpyAsync")));
        QVERIFY(text.contains(QStringLiteral("1 MiB")));
        // The same op over 3 repetitions: 60, 70 and 80 us.
        QVERIFY2(text.contains(QStringLiteral("over 3 repetitions")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("min 60 µs")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("max 80 µs")), qPrintable(text));
        panel.showOp(0, 999);
        QVERIFY(panel.plainText().contains(QStringLiteral("Click an operation")));

        // A GEMM's kernel: the kernels cuBLAS chose, and its work with the rate over its 100 us.
        auto gemm = test::makePipelineTrace(1);
        engine::KernelLaunch l;
        l.op = 1; // "compute 100 us"
        l.flops = 2ull * 4096 * 4096 * 4096;
        l.workId = gemm->intern("GEMM 4096x4096x4096 bf16");
        l.fullNameId = gemm->intern("nvjet_sm90_tst_256x128");
        gemm->repetitions[0].kernelLaunches = {l};
        panel.setTrace(gemm);
        panel.showOp(0, 1);
        const QString work = panel.plainText();
        QVERIFY2(work.contains(QStringLiteral("nvjet_sm90_tst_256x128")), qPrintable(work));
        QVERIFY2(work.contains(QStringLiteral("GEMM 4096x4096x4096 bf16: 137 GFLOP at 1")), qPrintable(work));
        QVERIFY2(work.contains(QStringLiteral("374.4 TFLOP/s")), qPrintable(work)); // 137.4 GFLOP in 100 us
    }
};

QTEST_MAIN(TestSummaryPanel)
#include "tst_summary_panel.moc"
