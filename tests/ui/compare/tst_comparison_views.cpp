// Tests of the comparison views: the delta table, makespan chart, bandwidth-vs-size chart, stacked
// timelines, the comparison window and the trace diff view. Models run under QAbstractItemModelTester;
// chart series are checked against numbers computed here from the data (medians, min/max); the real
// comparisons recorded on an H200 (resources/examples/comparisons) are opened and, when
// STREAMSCOPE_SCREENSHOT_DIR is set, the window is saved there at 1920x1080 (docs/screenshots).
#include <QAbstractItemModelTester>
#include <QBarSet>
#include <QDir>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QLayout>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <map>

#include "app/gui/main_window.h"
#include "engine/analysis/analysis.h"
#include "engine/experiment/comparison_file.h"
#include "engine/experiment/harris_reference.h"
#include "tests/engine/trace_fixture.h"
#include "ui/compare/bandwidth_size_chart.h"
#include "ui/compare/comparison_table_model.h"
#include "ui/compare/comparison_window.h"
#include "ui/compare/diff_view.h"
#include "ui/compare/makespan_chart.h"
#include "ui/compare/op_delta_model.h"
#include "ui/compare/stream_delta_model.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/stacked_timelines.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

using namespace streamscope;

namespace {

QString examplePath(const char *name)
{
    return QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/comparisons/%1.sscompare")
        .arg(QLatin1String(name));
}

engine::VariantSummary summaryWith(const char *label, double medianNs, double minNs, double maxNs)
{
    engine::VariantSummary v;
    v.label = label;
    v.summary.makespanNs = {medianNs, minNs, maxNs, 5};
    return v;
}

// B: the hand-made trace with the kernel 100 us longer in every repetition and one more op on s1.
engine::Trace changedHandTrace()
{
    test::TraceBuilder b(test::handTrace(3));
    b.onStream(1).onThread(0);
    for (int r = 0; r < 3; ++r) {
        engine::Repetition &rep = b.trace().repetitions[std::size_t(r)];
        for (engine::OpRecord &op : rep.ops)
            if (b.trace().name(op) == "B: kernel")
                op.gpuEndNs += 100'000;
        const std::int64_t end = rep.ops.back().gpuEndNs;
        b.onRepetition(r).memset(end, end + 5'000).named("E: memset").host(end, end + 1'000);
    }
    return b.build();
}

// The texts of a chart that Qt Charts cut to fit (its titles, legend entries and axis labels end in "..."
// when they do not fit their room), and those of the chart's own text items.
QStringList elidedChartTexts(QChartView *view)
{
    QStringList cut;
    for (QGraphicsItem *item : view->scene()->items()) {
        if (!item->isVisible())
            continue;
        QString text;
        if (auto *rich = dynamic_cast<QGraphicsTextItem *>(item))
            text = rich->toPlainText();
        else if (auto *simple = dynamic_cast<QGraphicsSimpleTextItem *>(item))
            text = simple->text();
        if (text.contains(QStringLiteral("...")) || text.contains(QChar(0x2026)))
            cut << text;
    }
    return cut;
}

} // namespace

class TestComparisonViews : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // The main window keeps recent files in QSettings: keep the developer's out of it.
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("StreamScopeTest"));
        QApplication::setApplicationName(QStringLiteral("tst_comparison_views"));
        QSettings().clear();
    }

    void mainWindowOpensComparisonsInTheirWindow()
    {
        gui::MainWindow main;
        QVERIFY(main.findChildren<ui::ComparisonWindow *>().isEmpty());
        QVERIFY2(main.openFile(examplePath("bandwidth")), qPrintable(main.lastError()));
        const auto windows = main.findChildren<ui::ComparisonWindow *>();
        QCOMPARE(windows.size(), 1);
        QVERIFY(windows.front()->isVisible());
        QVERIFY(windows.front()->testAttribute(Qt::WA_DeleteOnClose));
        QCOMPARE(windows.front()->comparison().variants.size(), std::size_t(2));
        QVERIFY(!main.trace()); // the main window's timeline is left as it was

        QTemporaryDir dir;
        const QString broken = dir.filePath(QStringLiteral("broken.sscompare"));
        QFile f(broken);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not json");
        f.close();
        QVERIFY(!main.openFile(broken));
        QVERIFY2(main.lastError().contains(QStringLiteral("broken.sscompare")), qPrintable(main.lastError()));
        QCOMPARE(main.findChildren<ui::ComparisonWindow *>().size(), 1);
    }

    // Presentation mode and the dark palette reach the comparison window: larger type, the timelines'
    // own modes, and charts drawn light on dark (background, title and the whiskers' near-black pen).
    void presentationAndDarkModes()
    {
        gui::MainWindow main;
        QVERIFY2(main.openFile(examplePath("overlap")), qPrintable(main.lastError()));
        ui::ComparisonWindow *w = main.lastComparison();
        QVERIFY(w);
        w->resize(1600, 1000);
        const qreal normal = w->font().pointSizeF();
        main.setPresentationMode(true);
        QVERIFY(w->presentationMode());
        QVERIFY(w->font().pointSizeF() > normal * 1.3);
        for (int i = 0; i < w->timelines()->count(); ++i)
            QVERIFY(w->timelines()->view(i)->presentationMode());
        QVERIFY(w->makespanChart()->chart()->titleFont().pointSizeF() > QApplication::font().pointSizeF() * 1.3);

        // The probe: (30, 30) is in the chart's top-left margin, outside the plot area (checked) and left
        // of the centred title, where only the chart's background is painted.
        const QPoint background(30, 30);
        QVERIFY(!w->makespanChart()->chart()->plotArea().contains(background));
        QImage light = w->makespanChart()->grab().toImage();
        QVERIFY(QColor(light.pixel(background)).lightnessF() > 0.8);
        main.setDarkTheme(true);
        QVERIFY(w->darkPalette());
        for (int i = 0; i < w->timelines()->count(); ++i)
            QVERIFY(w->timelines()->view(i)->darkPalette());
        const QImage dark = w->makespanChart()->grab().toImage();
        QVERIFY2(QColor(dark.pixel(background)).lightnessF() < 0.25, qPrintable(QColor(dark.pixel(background)).name()));
        QVERIFY(w->makespanChart()->chart()->titleBrush().color().lightnessF() > 0.8);
        for (QAbstractSeries *series : w->makespanChart()->chart()->series())
            if (auto *line = qobject_cast<QLineSeries *>(series))
                QVERIFY2(line->pen().color().lightnessF() > 0.5, qPrintable(line->pen().color().name()));
        // A comparison opened later starts in the window's modes; turning them off restores the type.
        QVERIFY(main.openFile(examplePath("bandwidth")));
        QVERIFY(main.lastComparison()->presentationMode() && main.lastComparison()->darkPalette());
        // Every curve of the bandwidth chart legible on dark (the pinned D2H curve was a dark blue on it),
        // each H2D/D2H pair still two shades, and the light theme's colours back when it returns.
        std::vector<QColor> darkColors;
        for (QAbstractSeries *series : main.lastComparison()->bandwidthChart()->chart()->series())
            if (auto *line = qobject_cast<QLineSeries *>(series)) {
                QVERIFY2(line->pen().color().lightnessF() >= 0.5,
                         qPrintable(line->name() + QStringLiteral(": ") + line->pen().color().name()));
                darkColors.push_back(line->pen().color());
            }
        QVERIFY(darkColors.size() >= 5); // four curves and the link's peak
        // Each pair (H2D, then D2H built darker) stays two shades, in the same order.
        QVERIFY2(darkColors[0].lightnessF() > darkColors[1].lightnessF() + 0.05,
                 qPrintable(darkColors[0].name() + QStringLiteral(" / ") + darkColors[1].name()));
        QVERIFY2(darkColors[2].lightnessF() > darkColors[3].lightnessF() + 0.05,
                 qPrintable(darkColors[2].name() + QStringLiteral(" / ") + darkColors[3].name()));
        const QColor pinnedD2hDark = darkColors.size() > 3 ? darkColors[3] : QColor();
        main.setDarkTheme(false);
        main.setPresentationMode(false);
        QCOMPARE(w->font().pointSizeF(), normal);
        std::vector<QColor> lightColors;
        for (QAbstractSeries *series : main.lastComparison()->bandwidthChart()->chart()->series())
            if (auto *line = qobject_cast<QLineSeries *>(series))
                lightColors.push_back(line->pen().color());
        QCOMPARE(lightColors.size(), darkColors.size());
        QVERIFY(lightColors[3] != pinnedD2hDark);
        QVERIFY2(lightColors.back().lightnessF() < 0.3, qPrintable(lightColors.back().name())); // the peak: dark
        QVERIFY(QColor(w->makespanChart()->grab().toImage().pixel(background)).lightnessF() > 0.8);
    }

    void tableModelOnRealComparison()
    {
        const engine::Comparison c = engine::readComparison(examplePath("overlap").toStdString());
        const auto summaries = engine::summarizeComparison(c);
        ui::ComparisonTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSummaries(summaries);
        QCOMPARE(model.rowCount(), int(c.variants.size()));
        QCOMPARE(model.columnCount(), int(ui::ComparisonTableModel::ColumnCount));
        for (int r = 0; r < model.rowCount(); ++r) {
            const auto &s = summaries[std::size_t(r)];
            QCOMPARE(model.index(r, ui::ComparisonTableModel::MakespanColumn)
                         .data(ui::ComparisonTableModel::SortRole)
                         .toDouble(),
                     s.summary.makespanNs.median);
            QCOMPARE(model.index(r, ui::ComparisonTableModel::OverlapColumn)
                         .data(ui::ComparisonTableModel::SortRole)
                         .toDouble(),
                     s.summary.overlapFraction.median);
            const QString verdict = model.index(r, ui::ComparisonTableModel::VerdictColumn).data().toString();
            QCOMPARE(verdict,
                     r == 0 ? QStringLiteral("baseline") : QString::fromStdString(engine::describe(s.vsFirst)));
        }
        model.setSummaries({});
        QCOMPARE(model.rowCount(), 0);
    }

    // A variant that failed (a capture that failed at run time, say): its row says so and why, and it has no
    // timeline and no bar; the first variant that ran is the baseline.
    void failedVariantIsARowThatSaysWhy()
    {
        engine::Comparison c = engine::readComparison(examplePath("pdl-chain").toStdString());
        QCOMPARE(int(c.variants.size()), 2);
        c.variants[0].trace = engine::Trace();
        c.variants[0].failed = "variant 1 of 2 (pdl=off): stream 'chain' op 3: the capture failed: "
                               "cudaErrorStreamCaptureInvalidated";
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("failed.sscompare"));
        engine::writeComparison(c, path.toStdString());
        ui::ComparisonWindow window;
        QString error;
        QVERIFY2(window.openFile(path, &error), qPrintable(error));
        QCOMPARE(window.timelines()->count(), 1);
        QCOMPARE(window.makespanChart()->categories().size(), 1);
        const ui::ComparisonTableModel *model = window.tableModel();
        QCOMPARE(model->rowCount(), 2);
        QCOMPARE(model->index(0, ui::ComparisonTableModel::MakespanColumn).data().toString(), QStringLiteral("failed"));
        QVERIFY(model->index(0, ui::ComparisonTableModel::VerdictColumn)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("variant 1 of 2 (pdl=off)")));
        QCOMPARE(model->index(0, ui::ComparisonTableModel::VerdictColumn).data(Qt::ToolTipRole).toString(),
                 QString::fromStdString(c.variants[0].failed));
        QCOMPARE(model->index(1, ui::ComparisonTableModel::VerdictColumn).data().toString(),
                 QStringLiteral("baseline"));
    }

    void makespanBarsAreMediansAndWhiskersMinMax()
    {
        // Baseline 10 ms [9, 11]; 5 ms [4.5, 5.5] is faster; 10.5 ms [10, 12] overlaps: noise.
        std::vector<engine::VariantSummary> s = {summaryWith("a", 10e6, 9e6, 11e6), summaryWith("b", 5e6, 4.5e6, 5.5e6),
                                                 summaryWith("c", 10.5e6, 10e6, 12e6)};
        for (std::size_t i = 1; i < s.size(); ++i)
            s[i].vsFirst = engine::compareSpreads(s[0].summary.makespanNs, s[i].summary.makespanNs);
        QVERIFY(s[1].vsFirst.kind == engine::VerdictKind::Faster);
        QVERIFY(s[2].vsFirst.kind == engine::VerdictKind::Noise);

        ui::MakespanChart chart;
        chart.setSummaries(s);
        QCOMPARE(chart.unitName(), QStringLiteral("ms"));
        QCOMPARE(chart.categories().size(), 3);
        for (int i = 0; i < 3; ++i) {
            const auto &m = s[std::size_t(i)].summary.makespanNs;
            QCOMPARE(chart.barValue(i) * chart.unitNs(), m.median);
            const auto [lo, hi] = chart.whisker(i);
            QCOMPARE(lo * chart.unitNs(), m.min);
            QCOMPARE(hi * chart.unitNs(), m.max);
        }
        // The noise variant's bar sits in the "noise" set, not in "faster" or "slower".
        QBarSet *noiseSet = nullptr;
        QBarSet *fasterSet = nullptr;
        for (QBarSet *set : chart.bars()->barSets()) {
            if (set->label().startsWith(QStringLiteral("noise")))
                noiseSet = set;
            if (set->label().startsWith(QStringLiteral("faster")))
                fasterSet = set;
        }
        QVERIFY(noiseSet && fasterSet);
        QCOMPARE(noiseSet->at(2), 10.5);
        QCOMPARE(noiseSet->at(1), 0.0);
        QCOMPARE(fasterSet->at(1), 5.0);
        QCOMPARE(fasterSet->at(2), 0.0);
        QCOMPARE(chart.categories(), (QStringList{"a", "b", "c"}));
        QCOMPARE(chart.annotations().at(0), QStringLiteral("10 ms\nbaseline"));
        QCOMPARE(chart.annotations().at(1), QStringLiteral("5 ms\n2.00x faster"));
        QVERIFY(chart.annotations().at(2).contains(QStringLiteral("noise")));
    }

    void makespanChartOnRealComparison()
    {
        const engine::Comparison c = engine::readComparison(examplePath("sync-vs-async").toStdString());
        const auto summaries = engine::summarizeComparison(c);
        ui::MakespanChart chart;
        chart.setSummaries(summaries);
        for (int i = 0; i < int(summaries.size()); ++i) {
            const auto &m = summaries[std::size_t(i)].summary.makespanNs;
            QVERIFY(m.count > 1);
            QVERIFY(qAbs(chart.barValue(i) * chart.unitNs() - m.median) < 1e-6 * m.median);
            QVERIFY(qAbs(chart.whisker(i).first * chart.unitNs() - m.min) < 1e-6 * m.median);
            QVERIFY(qAbs(chart.whisker(i).second * chart.unitNs() - m.max) < 1e-6 * m.median);
        }
    }

    void bandwidthPointsAreMediansPerSize()
    {
        const engine::Comparison c = engine::readComparison(examplePath("bandwidth").toStdString());
        std::vector<const engine::Trace *> traces;
        for (const auto &v : c.variants)
            traces.push_back(&v.trace);
        ui::BandwidthSizeChart chart;
        chart.setTraces(traces);
        QVERIFY(chart.hasData());

        // Recompute here, by hand from each record's times (not with OpRecord::gbPerSecond, which the chart
        // uses): (host memory, direction, bytes) -> GB/s of every repetition. A pinned copy moves its bytes
        // during its execution; a pageable one is staged by the CPU inside its call, so its bytes were in
        // flight for no less than its execution and no more than the union of its call and its execution:
        // the chart's median lies between the medians of those two.
        using Key = std::tuple<engine::MemKind, engine::OpKind, std::uint64_t>;
        std::map<Key, std::vector<double>> overExecution, overCallAndExecution;
        for (const engine::Trace *t : traces)
            for (const auto &rep : t->repetitions)
                for (const auto &op : rep.ops)
                    if ((op.kind == engine::OpKind::CopyH2D || op.kind == engine::OpKind::CopyD2H) && op.hasGpu()) {
                        const Key key{op.kind == engine::OpKind::CopyH2D ? op.srcMem : op.dstMem, op.kind, op.bytes};
                        const double bytes = double(op.bytes);
                        overExecution[key].push_back(bytes / double(op.gpuEndNs - op.gpuStartNs));
                        QVERIFY(op.hasHost());
                        const std::int64_t start = std::min(op.gpuStartNs, op.hostStartNs);
                        const std::int64_t end = std::max(op.gpuEndNs, op.hostEndNs);
                        overCallAndExecution[key].push_back(bytes / double(end - start));
                    }
        std::size_t points = 0;
        bool sawPageableH2D = false, sawPinnedD2H = false;
        for (int i = 0; i < int(chart.curves().size()); ++i) {
            const auto &curve = chart.curves()[std::size_t(i)];
            sawPageableH2D |=
                curve.hostMemory == engine::MemKind::Pageable && curve.direction == engine::OpKind::CopyH2D;
            sawPinnedD2H |= curve.hostMemory == engine::MemKind::Pinned && curve.direction == engine::OpKind::CopyD2H;
            QLineSeries *series = chart.series(i);
            QVERIFY(series);
            QCOMPARE(series->name(), ui::BandwidthSizeChart::curveName(curve));
            QCOMPARE(series->count(), int(curve.points.size()));
            for (int p = 0; p < series->count(); ++p) {
                const auto [bytes, gbs] = curve.points[std::size_t(p)];
                const Key key{curve.hostMemory, curve.direction, bytes};
                const double fastest = engine::spreadOf(overExecution.at(key)).median;
                if (curve.hostMemory == engine::MemKind::Pageable) {
                    const double slowest = engine::spreadOf(overCallAndExecution.at(key)).median;
                    QVERIFY2(gbs >= slowest * (1 - 1e-12) && gbs <= fastest * (1 + 1e-12),
                             qPrintable(QStringLiteral("%1 B: %2 GB/s, not within %3 .. %4")
                                            .arg(bytes)
                                            .arg(gbs)
                                            .arg(slowest)
                                            .arg(fastest)));
                } else {
                    QCOMPARE(gbs, fastest);
                }
                QCOMPARE(series->at(p), QPointF(ui::BandwidthSizeChart::sizeToX(bytes), gbs));
                if (p > 0)
                    QVERIFY(series->at(p).x() > series->at(p - 1).x());
                ++points;
            }
        }
        QVERIFY(sawPageableH2D);
        QVERIFY(sawPinnedD2H);
        QCOMPARE(points, overExecution.size());
        // The sweep covers 4 KiB .. 256 MiB.
        QCOMPARE(chart.curves().front().points.front().first, std::uint64_t(4096));
        QCOMPARE(chart.curves().front().points.back().first, std::uint64_t(256) << 20);
        QCOMPARE(chart.linkPeakGBs(), c.variants.front().trace.devices.front().linkPeakGBs);
        QVERIFY(chart.linkPeakGBs() > 0);
    }

    void stackedTimelinesShareOneWindow()
    {
        const engine::Comparison c = engine::readComparison(examplePath("sync-vs-async").toStdString());
        ui::StackedTimelines stacked;
        stacked.resize(1200, 800);
        std::vector<ui::StackedTimelines::Entry> entries;
        qint64 longest = 0;
        for (const auto &v : c.variants) {
            auto trace = std::make_shared<const engine::Trace>(v.trace);
            const auto [start, end] = trace->extent(0);
            longest = std::max<qint64>(longest, end - start);
            entries.push_back({QString::fromStdString(v.label), trace, 0});
        }
        stacked.setEntries(std::move(entries));
        QCOMPARE(stacked.count(), 2);
        QVERIFY(stacked.extentNs() > 0);
        QCOMPARE(stacked.extentNs(),
                 stacked.view(0)->laneModel()->durationNs() > stacked.view(1)->laneModel()->durationNs()
                     ? stacked.view(0)->laneModel()->durationNs()
                     : stacked.view(1)->laneModel()->durationNs());
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(stacked.view(i)->zoom()->extentEnd(), stacked.extentNs());
            QCOMPARE(stacked.view(i)->zoom()->windowEnd(), stacked.extentNs());
        }
        // Zoom the second, pan it: the first follows; then zoom the first: the second follows.
        // One zoom that every timeline follows (no mirroring).
        for (int i = 0; i < stacked.count(); ++i)
            QCOMPARE(stacked.view(i)->zoom(), stacked.zoom());
        ui::ZoomControl *z1 = stacked.view(1)->zoom();
        z1->zoomAt(stacked.extentNs() / 3, 4.0);
        z1->pan(stacked.extentNs() / 20);
        QVERIFY(z1->windowDuration() < stacked.extentNs() / 2);
        QCOMPARE(stacked.view(0)->zoom()->windowStart(), z1->windowStart());
        QCOMPARE(stacked.view(0)->zoom()->windowEnd(), z1->windowEnd());
        stacked.view(0)->zoom()->zoomAt(stacked.extentNs() / 2, 0.5);
        QCOMPARE(z1->windowStart(), stacked.view(0)->zoom()->windowStart());
        QCOMPARE(z1->windowEnd(), stacked.view(0)->zoom()->windowEnd());
        stacked.fitAll();
        QCOMPARE(z1->windowStart(), qint64(0));
        QCOMPARE(z1->windowEnd(), stacked.extentNs());

        // Setting new entries replaces the rows (no leftovers in the layout).
        std::vector<ui::StackedTimelines::Entry> one;
        one.push_back({QStringLiteral("only"), std::make_shared<const engine::Trace>(c.variants.front().trace), 0});
        stacked.setEntries(std::move(one));
        QCOMPARE(stacked.count(), 1);
        QCOMPARE(stacked.findChildren<ui::TimelineView *>().size(), 1);
        QCOMPARE(stacked.layout()->count(), 2); // the row and the closing stretch
    }

    void diffModelsOnHandMadeTraces()
    {
        const engine::Trace a = test::handTrace(3);
        const engine::Trace b = changedHandTrace();
        ui::DiffView view;
        QAbstractItemModelTester opTester(view.opModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester streamTester(view.streamModel(),
                                              QAbstractItemModelTester::FailureReportingMode::QtTest);
        view.setTraces(a, b, QStringLiteral("a.sstrace"), QStringLiteral("b.sstrace"));

        ui::OpDeltaModel *ops = view.opModel();
        QCOMPARE(ops->matchedRows(), 4);
        QCOMPARE(ops->rowCount(), 5); // 4 matched + the memset only in B
        auto cell = [&](int row, int column) { return ops->index(row, column).data().toString(); };
        QStringList namesA;
        for (int r = 0; r < 4; ++r) {
            namesA << cell(r, ui::OpDeltaModel::NameAColumn);
            QCOMPARE(cell(r, ui::OpDeltaModel::NameAColumn), cell(r, ui::OpDeltaModel::NameBColumn));
            QCOMPARE(cell(r, ui::OpDeltaModel::MatchColumn), QStringLiteral("name"));
        }
        QCOMPARE(namesA, (QStringList{"A: H2D 1 MB", "B: kernel", "C: H2D 1 MB", "D: D2H 2 MB"}));
        // The kernel: durations 200/400/600 us in A, 300/500/700 us in B -> +100 us, ranges overlap.
        QCOMPARE(ops->index(1, ui::OpDeltaModel::DurationDeltaColumn).data(ui::OpDeltaModel::SortRole).toDouble(),
                 100'000.0);
        QCOMPARE(cell(1, ui::OpDeltaModel::DurationDeltaColumn), QStringLiteral("+100 µs"));
        QVERIFY(cell(1, ui::OpDeltaModel::VerdictColumn).startsWith(QStringLiteral("noise")));
        // The H2D copies did not change.
        QCOMPARE(ops->index(0, ui::OpDeltaModel::DurationDeltaColumn).data(ui::OpDeltaModel::SortRole).toDouble(), 0.0);
        QCOMPARE(cell(0, ui::OpDeltaModel::GBsAColumn), cell(0, ui::OpDeltaModel::GBsBColumn));
        QCOMPARE(cell(4, ui::OpDeltaModel::MatchColumn), QStringLiteral("only in B"));
        QCOMPARE(cell(4, ui::OpDeltaModel::NameBColumn), QStringLiteral("E: memset"));
        QVERIFY(cell(4, ui::OpDeltaModel::NameAColumn).isEmpty());
        QVERIFY(cell(4, ui::OpDeltaModel::DurationAColumn).isEmpty()); // the side without the op stays empty
        QVERIFY(!cell(4, ui::OpDeltaModel::DurationBColumn).isEmpty());
        // A diff has no per-repetition pairing: the repetitions column is hidden, its own columns shown.
        QVERIFY(!ops->hasColumn(ui::OpDeltaModel::SamplesColumn));
        QVERIFY(view.opTable()->isColumnHidden(ui::OpDeltaModel::SamplesColumn));
        for (int column : {ui::OpDeltaModel::StartAColumn, ui::OpDeltaModel::VerdictColumn,
                           ui::OpDeltaModel::GBsAColumn, ui::OpDeltaModel::DurationDeltaPctColumn})
            QVERIFY(!view.opTable()->isColumnHidden(column));
        // The kernel: +100 us over A's median 400 us.
        QCOMPARE(cell(1, ui::OpDeltaModel::DurationDeltaPctColumn), QStringLiteral("+25.0 %"));
        QCOMPARE(ops->headerData(ui::OpDeltaModel::VerdictColumn, Qt::Horizontal).toString(), QStringLiteral("B vs A"));

        ui::DiffStreamModel *streams = view.streamModel();
        QCOMPARE(streams->rowCount(), 2);
        QCOMPARE(streams->index(0, ui::DiffStreamModel::StreamAColumn).data().toString(), QStringLiteral("s0"));
        QCOMPARE(streams->index(1, ui::DiffStreamModel::OpsAColumn).data().toInt(), 2);
        QCOMPARE(streams->index(1, ui::DiffStreamModel::OpsBColumn).data().toInt(), 3);

        QCOMPARE(view.diff().summary.matched, 4);
        QCOMPARE(view.diff().summary.unmatchedB, 1);
        QVERIFY2(view.summary().contains(QStringLiteral("4 ops matched")), qPrintable(view.summary()));
        QVERIFY2(view.summary().contains(QStringLiteral("1 only in B")), qPrintable(view.summary()));
    }

    void diffViewOpensFilesAndNamesFailures()
    {
        QTemporaryDir dir;
        ui::DiffView view;
        QString error;
        const QString missing = dir.filePath(QStringLiteral("missing.sstrace"));
        QVERIFY(!view.openFiles(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/overlap.sstrace"), missing,
                                &error));
        QVERIFY2(error.contains(QStringLiteral("missing.sstrace")), qPrintable(error));
        QVERIFY(view.openFiles(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/overlap-sequential.sstrace"),
                               QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/overlap.sstrace"), &error));
        QVERIFY(view.opModel()->rowCount() > 0);
        QVERIFY(view.diff().summary.makespan.kind != engine::VerdictKind::Unknown);
        const QString shots = qEnvironmentVariable("STREAMSCOPE_SCREENSHOT_DIR");
        if (!shots.isEmpty()) {
            view.resize(1920, 1080);
            view.show();
            QVERIFY(QTest::qWaitForWindowExposed(&view));
            QVERIFY(view.grab().toImage().save(shots + QStringLiteral("/comparison-diff.png")));
        }
    }

    void shortLabelsDropConstantAxes()
    {
        const engine::Comparison c = engine::readComparison(examplePath("overlap").toStdString());
        const auto labels = ui::ComparisonWindow::shortLabels(c);
        QCOMPARE(labels.size(), c.variants.size());
        QCOMPARE(labels.front(), QStringLiteral("streams=1, order=depth-first"));
        QVERIFY(ui::ComparisonWindow::isOverlapExperiment(c));
        QVERIFY(
            !ui::ComparisonWindow::isOverlapExperiment(engine::readComparison(examplePath("bandwidth").toStdString())));
    }

    void harrisBesideTheUsersRun()
    {
        const engine::Comparison c = engine::readComparison(examplePath("overlap").toStdString());
        const auto summaries = engine::summarizeComparison(c);
        const QString html = ui::ComparisonWindow::harrisHtml(c, summaries);
        for (const auto &r : engine::harrisResults()) {
            QVERIFY(html.contains(QString::fromUtf8(r.device.data(), qsizetype(r.device.size()))));
            QVERIFY(html.contains(QString::number(r.breadthFirstMs, 'f', 2)));
        }
        QVERIFY(html.contains(QString::fromStdString(c.variants.front().trace.devices.front().name)));
        // The user's streams=4 pair: both medians in ms.
        QVERIFY(html.contains(QStringLiteral("streams=4")));
        QVERIFY(html.contains(QString::number(summaries[4].summary.makespanNs.median / 1e6, 'f', 2)));
        QVERIFY(html.contains(QString::number(summaries[5].summary.makespanNs.median / 1e6, 'f', 2)));
    }

    void comparisonWindowOnExamples_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("harris");
        QTest::addColumn<bool>("bandwidthFirst");
        QTest::newRow("bandwidth") << QStringLiteral("bandwidth") << false << true;
        QTest::newRow("sync-vs-async") << QStringLiteral("sync-vs-async") << false << false;
        QTest::newRow("overlap") << QStringLiteral("overlap") << true << false;
    }

    void comparisonWindowOnExamples()
    {
        QFETCH(QString, name);
        QFETCH(bool, harris);
        QFETCH(bool, bandwidthFirst);
        ui::ComparisonWindow window;
        QString error;
        QVERIFY2(window.openFile(examplePath(name.toUtf8().constData()), &error), qPrintable(error));
        const engine::Comparison &c = window.comparison();
        QCOMPARE(window.timelines()->count(), int(c.variants.size()));
        QCOMPARE(window.tableModel()->rowCount(), int(c.variants.size()));
        QCOMPARE(window.makespanChart()->categories().size(), int(c.variants.size()));
        QTabWidget *tabs = window.tabs();
        QCOMPARE(tabs->isTabVisible(2), harris);
        QCOMPARE(tabs->currentWidget() == window.bandwidthChart(), bandwidthFirst);
        for (int i = 0; i < window.timelines()->count(); ++i)
            QVERIFY(window.timelines()->label(i)->text().contains(QStringLiteral("median makespan")));

        // Laid out at 1920x1080 without being shown, as headless exports are: a shown window is kept inside
        // its screen (800x600 here; tst_comparison_window checks that).
        window.resize(1920, 1080);
        const QImage image = window.grab().toImage();
        QCOMPARE(image.size(), QSize(1920, 1080) * image.devicePixelRatio());
        const QString dir = qEnvironmentVariable("STREAMSCOPE_SCREENSHOT_DIR");
        if (!dir.isEmpty()) {
            QVERIFY(image.save(QStringLiteral("%1/comparison-%2.png").arg(dir, name)));
            if (harris) {
                tabs->setCurrentIndex(2);
                QVERIFY(window.grab().toImage().save(QStringLiteral("%1/comparison-%2-harris.png").arg(dir, name)));
            }
        }

        QTemporaryDir out;
        QVERIFY(window.exportCurrentChart(out.filePath(QStringLiteral("chart.svg")), QSize(800, 500), &error));
        QFile svg(out.filePath(QStringLiteral("chart.svg")));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        QVERIFY(svg.readAll().contains("<svg"));
        QVERIFY(window.exportTimelines(out.filePath(QStringLiteral("timelines.png")), QSize(1000, 600), &error));
        QCOMPARE(QImage(out.filePath(QStringLiteral("timelines.png"))).size(), QSize(1000, 600));
        QVERIFY(!window.exportTimelines(out.filePath(QStringLiteral("timelines.bmp")), QSize(100, 100), &error));
        QVERIFY(error.contains(QStringLiteral("bmp")));
    }

    // Nothing in the charts is cut, at 1280x720 and 1920x1080, at the desk's type and presentation mode's:
    // the bandwidth chart's legend ("pageable…", "pinned H…" left H2D and D2H apart), its size labels
    // ("16 …") and title were. The labels under the bars share one type. With STREAMSCOPE_SCREENSHOT_DIR each
    // chart is saved there.
    void chartTextsFitTheWindow_data()
    {
        QTest::addColumn<QString>("name");
        for (const char *name : {"bandwidth", "overlap", "sync-vs-async", "hyperq"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    void chartTextsFitTheWindow()
    {
        QFETCH(QString, name);
        ui::ComparisonWindow window;
        QString error;
        QVERIFY2(window.openFile(examplePath(name.toUtf8().constData()), &error), qPrintable(error));
        const QString dir = qEnvironmentVariable("STREAMSCOPE_SCREENSHOT_DIR");
        for (const bool presentation : {false, true}) {
            window.setPresentationMode(presentation);
            for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
                window.resize(size);
                for (QChartView *chart : {static_cast<QChartView *>(window.makespanChart()),
                                          static_cast<QChartView *>(window.bandwidthChart())}) {
                    window.tabs()->setCurrentWidget(chart);
                    // Laid out at its size, the charts' own layout requests (posted) handled, as a shown
                    // window's are: the size labels follow the plot's width.
                    window.grab();
                    for (int i = 0; i < 3; ++i) {
                        QCoreApplication::processEvents();
                        window.grab();
                    }
                    const QImage image = window.grab().toImage();
                    const QString where =
                        QStringLiteral("%1 %2x%3%4 %5")
                            .arg(name)
                            .arg(size.width())
                            .arg(size.height())
                            .arg(presentation ? QStringLiteral(" presentation") : QString(), chart->chart()->title());
                    const QStringList cut = elidedChartTexts(chart);
                    QVERIFY2(cut.isEmpty(), qPrintable(where + QStringLiteral(": ") + cut.join(QStringLiteral(" | "))));
                    if (!dir.isEmpty())
                        QVERIFY(image.save(QStringLiteral("%1/chart-%2-%3-%4x%5%6.png")
                                               .arg(dir, name)
                                               .arg(chart == window.bandwidthChart() ? "bandwidth" : "makespan")
                                               .arg(size.width())
                                               .arg(size.height())
                                               .arg(presentation ? "-presentation" : "")));
                }
                ui::MakespanChart *bars = window.makespanChart();
                for (int i = 1; i < bars->categories().size(); ++i)
                    QCOMPARE(bars->drawnLabelFont(i), bars->drawnLabelFont(0));
            }
        }
        // Every size measured is labelled where the room allows it, or every second, third... one: the
        // labels are sizes ("16 MiB"), and there is at least one (overlap's single chunk size had none).
        const QStringList sizes = window.bandwidthChart()->sizeLabels();
        QVERIFY2(!window.bandwidthChart()->hasData() || !sizes.isEmpty(), qPrintable(name));
        for (const QString &label : sizes)
            QVERIFY2(label.endsWith(QLatin1String("B")), qPrintable(label));

        // The check sees a text cut as Qt cuts it.
        auto *cutText = new QGraphicsSimpleTextItem(QStringLiteral("16 ..."), window.bandwidthChart()->chart());
        QCOMPARE(elidedChartTexts(window.bandwidthChart()), QStringList{QStringLiteral("16 ...")});
        delete cutText;
    }

    // No lane of a bundled comparison is named for a memory kind that its copies do not use: the bandwidth
    // preset named its streams "pageable" and "pinned", and its memory axis made both one kind (the lane
    // "pinned" carried "H2D 256 MiB pageable" in the memory=pageable variant).
    void laneNamesAgreeWithTheirCopies()
    {
        const QDir dir(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/comparisons"));
        const QStringList files = dir.entryList({QStringLiteral("*.sscompare")});
        QVERIFY(files.size() >= 4);
        for (const QString &file : files) {
            const engine::Comparison c = engine::readComparison(dir.filePath(file).toStdString());
            for (const auto &v : c.variants)
                for (const auto &rep : v.trace.repetitions)
                    for (const auto &op : rep.ops) {
                        if ((op.kind != engine::OpKind::CopyH2D && op.kind != engine::OpKind::CopyD2H) || op.stream < 0)
                            continue;
                        const std::string &lane = v.trace.streams[std::size_t(op.stream)].name;
                        const engine::MemKind host = op.kind == engine::OpKind::CopyH2D ? op.srcMem : op.dstMem;
                        for (const engine::MemKind kind : {engine::MemKind::Pageable, engine::MemKind::Pinned,
                                                           engine::MemKind::Registered, engine::MemKind::Managed})
                            QVERIFY2(
                                lane != engine::toString(kind) || host == kind,
                                qPrintable(QStringLiteral("%1, %2: lane '%3' carries %4")
                                               .arg(file, QString::fromStdString(v.label), QString::fromStdString(lane),
                                                    QString::fromStdString(v.trace.name(op)))));
                    }
        }
    }

    void comparisonWindowReportsBadFiles()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.sscompare"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"streamscope-comparison\", \"version\": 1, \"variants\": 3}");
        f.close();
        ui::ComparisonWindow window;
        QString error;
        QVERIFY(!window.openFile(path, &error));
        QVERIFY2(error.contains(QStringLiteral("broken.sscompare")), qPrintable(error));

        // One window, one comparison after another: the second replaces the first everywhere, and the
        // failed open above left nothing behind.
        QVERIFY(window.openFile(examplePath("overlap"), &error));
        QCOMPARE(window.timelines()->count(), 8);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openFile(examplePath("bandwidth"), &error));
        QCOMPARE(window.timelines()->count(), 2);
        QCOMPARE(window.tableModel()->rowCount(), 2);
        QCOMPARE(window.makespanChart()->categories(), (QStringList{"pageable", "pinned"}));
        QVERIFY(!window.tabs()->isTabVisible(2));
        QVERIFY(!window.grab().isNull());
    }
};

QTEST_MAIN(TestComparisonViews)
#include "tst_comparison_views.moc"
