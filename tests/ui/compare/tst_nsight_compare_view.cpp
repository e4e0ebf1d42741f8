// Tests of the Nsight comparison view and of the main window's File > Export trace and File > Compare
// with Nsight Systems: the two delta models under QAbstractItemModelTester with rows equal to
// engine::compareWithNsight on the real overlap capture (H200), both files opened by the view, the two
// timelines aligned on the first GPU start and zoomed together, failures reported without a crash,
// and every export format written and read back. Set STREAMSCOPE_UPDATE_SCREENSHOTS=1 to rewrite
// docs/screenshots/nsight-compare-overlap.png.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QFile>
#include <QImage>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>

#include "app/gui/main_window.h"
#include "engine/analysis/nsight_compare.h"
#include "engine/formats/trace_io.h"
#include "tests/ui/test_traces.h"
#include "ui/compare/diff_view.h"
#include "ui/compare/nsight_compare_view.h"
#include "ui/compare/nsight_summary_model.h"
#include "ui/compare/op_delta_model.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

using namespace streamscope;

namespace {

QString fixture(const char *name)
{
    return QStringLiteral(STREAMSCOPE_SOURCE_DIR "/tests/engine/fixtures/nsys-streamscope/") + QLatin1String(name);
}

qint64 firstGpuStartRelative(const ui::TimelineView &view)
{
    const engine::Trace &trace = *view.trace();
    qint64 first = std::numeric_limits<qint64>::max();
    for (const auto &op : trace.repetitions[std::size_t(view.repetition())].ops)
        if (op.hasGpu())
            first = std::min<qint64>(first, op.gpuStartNs);
    return first - view.laneModel()->originNs();
}

} // namespace

class TestNsightCompareView : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("StreamScopeTest"));
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFile::exists(fixture("overlap.sqlite")), "the Nsight fixtures are missing");
    }

    void modelsMatchTheEngine()
    {
        const engine::Trace own = engine::loadTrace(fixture("overlap.sstrace").toStdString());
        const engine::Trace nsight = engine::loadTrace(fixture("overlap.sqlite").toStdString());
        const engine::NsightComparison expected = engine::compareWithNsight(own, nsight);
        QCOMPARE(int(expected.ops.size()), 12); // 4 streams x H2D, kernel, D2H

        ui::NsightCompareView view;
        QAbstractItemModelTester deltaTester(view.deltaModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester summaryTester(view.summaryModel(),
                                               QAbstractItemModelTester::FailureReportingMode::QtTest);
        QString error;
        QVERIFY2(view.openFiles(fixture("overlap.sstrace"), fixture("overlap.sqlite"), &error), qPrintable(error));

        const ui::OpDeltaModel *model = view.deltaModel();
        QCOMPARE(model->rowCount(), int(expected.ops.size()));
        QCOMPARE(model->matchedRows(), int(expected.ops.size()));
        QCOMPARE(model->sideA(), QStringLiteral("StreamScope"));
        QCOMPARE(model->sideB(), QStringLiteral("Nsight"));
        QCOMPARE(model->headerData(ui::OpDeltaModel::DurationBColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Duration Nsight"));
        // The diff's own columns have nothing here and are hidden; the Nsight comparison's are shown.
        const QTableView *table = view.deltaTable();
        for (int column : {ui::OpDeltaModel::StartAColumn, ui::OpDeltaModel::VerdictColumn,
                           ui::OpDeltaModel::GBsAColumn, ui::OpDeltaModel::GBsBColumn}) {
            QVERIFY(!model->hasColumn(column));
            QVERIFY(table->isColumnHidden(column));
        }
        for (int column : {ui::OpDeltaModel::SamplesColumn, ui::OpDeltaModel::DurationDeltaPctColumn,
                           ui::OpDeltaModel::StartDeltaColumn, ui::OpDeltaModel::KindColumn}) {
            QVERIFY(model->hasColumn(column));
            QVERIFY(!table->isColumnHidden(column));
        }
        for (int row = 0; row < model->rowCount(); ++row) {
            const engine::NsightOpDelta &e = expected.ops[std::size_t(row)];
            auto cell = [&](int column, int role) { return model->data(model->index(row, column), role); };
            QCOMPARE(cell(ui::OpDeltaModel::StreamColumn, Qt::DisplayRole).toString(), QString::fromStdString(e.lane));
            QCOMPARE(cell(ui::OpDeltaModel::NameAColumn, Qt::DisplayRole).toString(), QString::fromStdString(e.name));
            QCOMPARE(cell(ui::OpDeltaModel::NameBColumn, Qt::DisplayRole).toString(),
                     QString::fromStdString(e.nsightName));
            QCOMPARE(cell(ui::OpDeltaModel::MatchColumn, Qt::DisplayRole).toString(), QStringLiteral("name"));
            QCOMPARE(cell(ui::OpDeltaModel::SamplesColumn, Qt::DisplayRole).toInt(), 10);
            QCOMPARE(cell(ui::OpDeltaModel::DurationAColumn, ui::OpDeltaModel::SortRole).toDouble(), e.ownDurationNs);
            QCOMPARE(cell(ui::OpDeltaModel::DurationBColumn, ui::OpDeltaModel::SortRole).toDouble(),
                     e.nsightDurationNs);
            QCOMPARE(cell(ui::OpDeltaModel::DurationDeltaColumn, ui::OpDeltaModel::SortRole).toDouble(),
                     e.durationDeltaNs);
            QCOMPARE(cell(ui::OpDeltaModel::StartDeltaColumn, ui::OpDeltaModel::SortRole).toDouble(), e.startDeltaNs);
            // Events include the queueing, so every op reads longer with them: the sign is shown.
            QVERIFY(e.durationDeltaNs < 0);
            QVERIFY(cell(ui::OpDeltaModel::DurationDeltaColumn, Qt::DisplayRole).toString().startsWith(u'-'));
        }
        // The first row is stream0's H2D, queued behind other streams' copies: -134.70 µs in docs/nsight.md.
        QCOMPARE(model->data(model->index(0, ui::OpDeltaModel::DurationDeltaColumn)).toString(),
                 QStringLiteral("-135 µs"));
        const double pct = 100.0 * expected.ops[0].durationDeltaNs / expected.ops[0].ownDurationNs;
        QCOMPARE(model->data(model->index(0, ui::OpDeltaModel::DurationDeltaPctColumn)).toString(),
                 QStringLiteral("%1 %").arg(pct, 0, 'f', 1));

        const ui::NsightSummaryModel *summary = view.summaryModel();
        QCOMPARE(summary->rowCount(), int(expected.kinds.size()) + 1);
        for (int row = 0; row < summary->rowCount(); ++row) {
            const engine::NsightDeltaSummary &e =
                row < int(expected.kinds.size()) ? expected.kinds[std::size_t(row)] : expected.overall;
            auto cell = [&](int column) {
                return summary->data(summary->index(row, column), ui::NsightSummaryModel::SortRole);
            };
            QCOMPARE(cell(ui::NsightSummaryModel::KindColumn).toString(), QString::fromStdString(e.label));
            QCOMPARE(cell(ui::NsightSummaryModel::SamplesColumn).toInt(), e.samples);
            QCOMPARE(cell(ui::NsightSummaryModel::MedianDurationDeltaColumn).toDouble(), e.medianAbsDurationDeltaNs);
            QCOMPARE(cell(ui::NsightSummaryModel::MaxDurationDeltaColumn).toDouble(), e.maxAbsDurationDeltaNs);
            QCOMPARE(cell(ui::NsightSummaryModel::MedianStartDeltaColumn).toDouble(), e.medianAbsStartDeltaNs);
        }
        QCOMPARE(summary->data(summary->index(summary->rowCount() - 1, 0)).toString(), QStringLiteral("all"));
        QCOMPARE(summary->data(summary->index(summary->rowCount() - 1, ui::NsightSummaryModel::SamplesColumn)).toInt(),
                 120);
        QVERIFY(view.headline().contains(QStringLiteral("120 op instances matched")));
    }

    void timelinesAlignedAndZoomedTogether()
    {
        ui::NsightCompareView view;
        view.resize(1600, 1000);
        QString error;
        QVERIFY2(view.openFiles(fixture("overlap.sstrace"), fixture("overlap.sqlite"), &error), qPrintable(error));
        ui::TimelineView *own = view.ownTimeline();
        ui::TimelineView *nsight = view.nsightTimeline();
        QVERIFY(own->trace() && nsight->trace());
        QVERIFY(nsight->trace()->source == engine::TraceSource::NsysSqlite);
        QCOMPARE(own->repetition(), 0);
        QCOMPARE(view.nsightRepetition(), 0);
        // The repetition box counts from 1, as the summary and the CLI do, and moves both timelines.
        auto *box = view.findChild<QSpinBox *>();
        QVERIFY(box);
        QCOMPARE(box->value(), 1);
        QCOMPARE(box->text(), QStringLiteral("repetition 1 of 10"));
        box->setValue(5);
        QCOMPARE(view.repetition(), 4);
        QCOMPARE(own->repetition(), 4);
        view.setRepetition(0);
        QCOMPARE(box->value(), 1);

        // The offset maps the StreamScope repetition's first GPU start onto Nsight's.
        QCOMPARE(firstGpuStartRelative(*own) + view.alignmentOffsetNs(), firstGpuStartRelative(*nsight));
        // One zoom for both (no mirroring): the Nsight view shows it at the alignment offset.
        QCOMPARE(nsight->zoom(), own->zoom());
        const qint64 offset = view.alignmentOffsetNs();
        QCOMPARE(nsight->zoomOffsetNs(), offset);
        QCOMPARE(nsight->windowStartNs(), own->windowStartNs() + offset);
        QCOMPARE(nsight->windowEndNs() - nsight->windowStartNs(), own->windowEndNs() - own->windowStartNs());

        // Zoom and pan: both follow, still aligned.
        const qint64 anchor = firstGpuStartRelative(*own) + 100'000;
        own->zoom()->setWindow(anchor, anchor + 200'000);
        QCOMPARE(own->windowStartNs(), anchor);
        QCOMPARE(nsight->windowStartNs(), anchor + offset);
        QCOMPARE(nsight->windowEndNs(), anchor + 200'000 + offset);
        // Keys in the Nsight view move both (its own time goes through the offset).
        nsight->setFocus();
        QTest::keyClick(nsight, Qt::Key_Right);
        QVERIFY(own->windowStartNs() > anchor);
        QCOMPARE(nsight->windowStartNs(), own->windowStartNs() + offset);
        QTest::keyClick(nsight, Qt::Key_Equal); // zoom in, anchored in the Nsight view's own time
        QVERIFY(own->windowEndNs() - own->windowStartNs() < 200'000);
        QCOMPARE(nsight->windowEndNs() - nsight->windowStartNs(), own->windowEndNs() - own->windowStartNs());
        QCOMPARE(nsight->windowStartNs(), own->windowStartNs() + offset);

        // Another repetition: both views follow and stay aligned.
        view.setRepetition(3);
        QCOMPARE(own->repetition(), 3);
        QCOMPARE(nsight->repetition(), 3);
        QCOMPARE(nsight->trace()->repetitions[3].index, own->trace()->repetitions[3].index);
        QCOMPARE(firstGpuStartRelative(*own) + view.alignmentOffsetNs(), firstGpuStartRelative(*nsight));
        QCOMPARE(nsight->windowStartNs(), own->windowStartNs() + view.alignmentOffsetNs());
    }

    void tableRowSelectsTheOpInBothTimelines()
    {
        ui::NsightCompareView view;
        view.resize(1600, 1000);
        QString error;
        QVERIFY(view.openFiles(fixture("sync-vs-async.sstrace"), fixture("sync-vs-async.sqlite"), &error));
        const auto &ops = view.comparison().ops;
        for (int row = 0; row < int(ops.size()); ++row) {
            QVERIFY2(view.selectSlot(row), qPrintable(QString::fromStdString(ops[std::size_t(row)].name)));
            const auto own = view.ownTimeline()->selectedOp();
            const auto nsight = view.nsightTimeline()->selectedOp();
            QVERIFY(own.isValid() && nsight.isValid());
            const engine::Trace &ownTrace = *view.ownTimeline()->trace();
            const engine::Trace &nsightTrace = *view.nsightTimeline()->trace();
            QCOMPARE(ownTrace.name(ownTrace.repetitions[std::size_t(own.repetition)].ops[std::size_t(own.op)]),
                     ops[std::size_t(row)].name);
            QCOMPARE(
                nsightTrace.name(nsightTrace.repetitions[std::size_t(nsight.repetition)].ops[std::size_t(nsight.op)]),
                ops[std::size_t(row)].nsightName);
        }
        // A click in the table does the same (row 1: the synchronous copy Nsight saw on the default stream).
        const QModelIndex index = view.deltaTable()->model()->index(1, 0);
        view.deltaTable()->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect);
        const auto own = view.ownTimeline()->selectedOp();
        QCOMPARE(
            view.ownTimeline()->trace()->name(view.ownTimeline()->trace()->repetitions[0].ops[std::size_t(own.op)]),
            ops[1].name);
        QVERIFY(ops[1].nsightLane != ops[1].lane);
    }

    void failuresLeaveTheViewWorking()
    {
        ui::NsightCompareView view;
        QString error;
        QVERIFY(view.openFiles(fixture("overlap.sstrace"), fixture("overlap.sqlite"), &error));
        const QString missing = m_dir.filePath(QStringLiteral("no-such.sqlite"));
        QVERIFY(!view.openFiles(fixture("overlap.sstrace"), missing, &error));
        QVERIFY2(error.contains(QStringLiteral("no-such.sqlite")), qPrintable(error));
        // What was shown stays shown.
        QCOMPARE(view.deltaModel()->rowCount(), 12);
        QVERIFY(view.ownTimeline()->trace());

        // A trace without repetitions cannot be paired: the engine's message comes back.
        auto empty = std::make_shared<engine::Trace>();
        QVERIFY(!view.setTraces(empty, view.nsightTimeline()->trace(), QStringLiteral("empty"),
                                QStringLiteral("overlap.sqlite"), &error));
        QVERIFY(!error.isEmpty());
        QCOMPARE(view.deltaModel()->rowCount(), 12);
    }

    void screenshot()
    {
        ui::NsightCompareView view;
        QString error;
        QVERIFY(view.openFiles(fixture("overlap.sstrace"), fixture("overlap.sqlite"), &error));
        view.resize(1920, 1080);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QImage image = view.grab().toImage();
        QCOMPARE(image.size(), QSize(1920, 1080) * view.devicePixelRatioF());
        // Not a blank picture: the timelines and tables drew something in many colours.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 7)
            for (int x = 0; x < image.width(); x += 7)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
        const QString path = qEnvironmentVariableIntValue("STREAMSCOPE_UPDATE_SCREENSHOTS")
                                 ? QStringLiteral(STREAMSCOPE_SOURCE_DIR "/docs/screenshots/nsight-compare-overlap.png")
                                 : m_dir.filePath(QStringLiteral("nsight-compare-overlap.png"));
        QVERIFY(image.save(path));
    }

    void mainWindowExportsEveryFormat()
    {
        gui::MainWindow window;
        QString error;
        QVERIFY(!window.exportTrace(m_dir.filePath(QStringLiteral("none.json")), &error));
        QVERIFY(error.contains(QStringLiteral("no trace")));

        const std::shared_ptr<engine::Trace> trace = test::makePipelineTrace(3);
        window.showTrace(trace, QStringLiteral("pipeline"));

        const QString native = m_dir.filePath(QStringLiteral("out.sstrace"));
        QVERIFY2(window.exportTrace(native, &error), qPrintable(error));
        QCOMPARE(engine::loadTrace(native.toStdString()).opCount(), trace->opCount());

        const QString chrome = m_dir.filePath(QStringLiteral("out.json"));
        QVERIFY2(window.exportTrace(chrome, &error), qPrintable(error));
        QFile chromeFile(chrome);
        QVERIFY(chromeFile.open(QIODevice::ReadOnly));
        const QByteArray chromeText = chromeFile.readAll();
        QVERIFY(chromeText.contains("\"traceEvents\""));
        QCOMPARE(int(engine::detectFileKindOfContent(
                     std::string_view(chromeText.constData(), std::size_t(chromeText.size())), chrome.toStdString())),
                 int(engine::FileKind::ChromeJson));
        QCOMPARE(engine::loadTrace(chrome.toStdString()).opCount(), trace->opCount());

        const QString csv = m_dir.filePath(QStringLiteral("out.csv"));
        QVERIFY2(window.exportTrace(csv, &error), qPrintable(error));
        QFile csvFile(csv);
        QVERIFY(csvFile.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csvFile.readAll().trimmed().split('\n');
        QCOMPARE(qsizetype(lines.size()), qsizetype(trace->opCount()) + 1); // header + one row per op

        QVERIFY(!window.exportTrace(m_dir.filePath(QStringLiteral("out.txt")), &error));
        QVERIFY2(error.contains(QStringLiteral("unknown export format")), qPrintable(error));
        QVERIFY(!window.exportTrace(m_dir.filePath(QStringLiteral("missing-dir/out.json")), &error));
        QVERIFY2(error.contains(QStringLiteral("missing-dir")), qPrintable(error));
    }

    void mainWindowComparesTheShownTrace()
    {
        gui::MainWindow window;
        QVERIFY(window.openFile(fixture("overlap.sstrace")));
        QString error;
        ui::NsightCompareView *view = window.compareWithNsight(fixture("overlap.sqlite"), {}, &error);
        QVERIFY2(view, qPrintable(error));
        QVERIFY(view->isWindow());
        QCOMPARE(view->ownTimeline()->trace(), window.trace());
        QCOMPARE(view->deltaModel()->rowCount(), 12);
        view->close(); // deletes itself

        // Both files given (no trace shown) work too; a bad Nsight file is an error, not a window.
        gui::MainWindow empty;
        view = empty.compareWithNsight(fixture("sync-vs-async.sqlite"), fixture("sync-vs-async.sstrace"), &error);
        QVERIFY2(view, qPrintable(error));
        QCOMPARE(view->comparison().matchedAcrossStreams, 5);
        QVERIFY(!window.compareWithNsight(m_dir.filePath(QStringLiteral("nothing.sqlite")), {}, &error));
        QVERIFY(error.contains(QStringLiteral("nothing.sqlite")));
    }
};

QTEST_MAIN(TestNsightCompareView)
#include "tst_nsight_compare_view.moc"
