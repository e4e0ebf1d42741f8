// Host range rows and NVTX projection rows of ui::LaneModel (lane_model_ranges.cpp): one row per depth
// right under the thread's lane, titled; threads with ranges but no calls; picking a range; the
// projection row above each stream on demand; the colours and labels they are painted with; and the
// real 2xH100 torchrun capture, whose python3 threads get their NVTX rows with the kernels' own names on
// the streams.
#include <QPainter>
#include <QtTest>

#include "engine/formats/nsys_import.h"
#include "engine/model/host_ranges.h"
#include "tests/ui/timeline/timeline_test_trace.h"
#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

using namespace streamscope::ui;
namespace engine = streamscope::engine;
using streamscope::test::kOrigin;

namespace {

// The hand-made timeline trace with NVTX ranges on "main": "step" [0, 405 µs) holding "forward"
// [0, 14 µs) (the H2D and the kernel were launched in it) and "backward" [15 µs, 405 µs) (the sync),
// which holds "loss" [16 µs, 20 µs) (the D2H); and a second thread "loader" that made no CUDA call but
// has a range "read batch".
std::shared_ptr<engine::Trace> traceWithRanges()
{
    auto trace = streamscope::test::makeTimelineTrace();
    trace->hostThreads.push_back({"loader", 43});
    auto &rep = trace->repetitions[0];
    auto range = [&](const char *name, int thread, std::int64_t startUs, std::int64_t endUs) {
        engine::HostRange h;
        h.nameId = trace->intern(name);
        h.hostThread = thread;
        h.startNs = kOrigin + startUs * 1000;
        h.endNs = kOrigin + endUs * 1000;
        rep.hostRanges.push_back(h);
    };
    range("step", 0, 0, 405);
    range("forward", 0, 0, 14);
    range("backward", 0, 15, 405);
    range("loss", 0, 16, 20);
    range("read batch", 1, 50, 300);
    engine::layoutHostRanges(rep);
    return trace;
}

QStringList titles(const LaneModel &model)
{
    QStringList out;
    for (const Lane &lane : model.lanes())
        out << lane.title;
    return out;
}

} // namespace

class TestLaneModelRanges : public QObject {
    Q_OBJECT

private slots:
    void rowsUnderTheirThread()
    {
        const auto trace = traceWithRanges();
        const LaneModel model(*trace, 0);
        QCOMPARE(titles(model).mid(0, 6),
                 (QStringList{"main", "NVTX", "NVTX · depth 1", "NVTX · depth 2", "loader · NVTX", "copy"}));
        QVERIFY(model.lane(1).kind == LaneKind::HostRanges);
        QCOMPARE(model.lane(1).source, 0);
        QCOMPARE(model.lane(2).depth, 1);
        QCOMPARE(model.lane(1).subtitle, QStringLiteral("4 ranges"));
        QCOMPARE(model.lane(4).source, 1); // the loader: no calls, so no lane of its own; its name on its row
        // The other lanes were found again where they moved.
        QCOMPARE(model.hostLane(0), 0);
        QCOMPARE(model.hostLane(1), -1);
        QCOMPARE(model.streamLane(0), 5);
        QCOMPARE(model.streamLane(1), 6);
        QVERIFY(model.lane(model.streamLane(1)).kind == LaneKind::Stream);

        // Row contents: relative times, the range index, the colour of the name.
        const IntervalLane &depth1 = model.lane(2).intervals;
        QCOMPARE(depth1.size(), std::size_t(2)); // forward, backward
        QCOMPARE(depth1.starts[1], 15'000);
        QCOMPARE(depth1.ends[1], 405'000);
        const auto &ranges = model.rep().hostRanges;
        QCOMPARE(trace->string(ranges[std::size_t(depth1.ops[1])].nameId), std::string("backward"));
        QCOMPARE(int(depth1.styles[1]), int(rangeColorIndex(ranges[std::size_t(depth1.ops[1])].nameId)));

        // Picking: a range row gives ranges, never ops.
        QCOMPARE(model.opAt(2, 100'000, 1000), -1);
        const int picked = model.rangeAt(2, 100'000, 1000);
        QVERIFY(picked >= 0);
        QCOMPARE(trace->string(ranges[std::size_t(picked)].nameId), std::string("backward"));
        QCOMPARE(model.rangeAt(3, 17'000, 100) >= 0, true);
        QCOMPARE(model.rangeAt(3, 100'000, 100), -1); // nothing at depth 2 there
        QCOMPARE(model.rangeAt(0, 5'000, 100), -1); // the host lane is not a range row
        QCOMPARE(model.rangeLane(picked), 2);
        // No projection unless asked.
        for (const Lane &lane : model.lanes())
            QVERIFY(lane.kind != LaneKind::NvtxProjection);
    }

    void deepRowsAreCapped()
    {
        auto trace = streamscope::test::makeTimelineTrace();
        auto &rep = trace->repetitions[0];
        for (int i = 0; i < LaneModel::kMaxRangeRows + 8; ++i) {
            engine::HostRange h;
            h.nameId = trace->intern("level " + std::to_string(i));
            h.hostThread = 0;
            h.startNs = kOrigin + i;
            h.endNs = kOrigin + 100'000 - i;
            rep.hostRanges.push_back(h);
        }
        engine::layoutHostRanges(rep);
        const LaneModel model(*trace, 0);
        int rows = 0;
        QString last;
        for (const Lane &lane : model.lanes())
            if (lane.kind == LaneKind::HostRanges) {
                ++rows;
                last = lane.subtitle;
            }
        QCOMPARE(rows, LaneModel::kMaxRangeRows);
        QCOMPARE(last, QStringLiteral("8 deeper ranges not drawn"));
    }

    void projectionAboveEachStream()
    {
        const auto trace = traceWithRanges();
        LaneOptions options;
        options.projectNvtx = true;
        const LaneModel model(*trace, 0, options);
        // copy's ops: the H2D (launched in "forward") and the D2H (in "loss"); compute's kernel (in "forward").
        const int copy = model.streamLane(0);
        QVERIFY(model.lane(copy - 1).kind == LaneKind::NvtxProjection);
        QCOMPARE(model.lane(copy - 1).source, 0);
        QCOMPARE(model.lane(copy - 1).title, QStringLiteral("NVTX (projected)"));
        QCOMPARE(model.lane(copy - 1).subtitle, QStringLiteral("2 of 2 ops"));
        const IntervalLane &p = model.lane(copy - 1).intervals;
        QCOMPARE(p.starts[0], 20'000); // over the op's GPU time
        QCOMPARE(p.ends[0], 120'000);
        // Picking on it: the op itself (to select it), and the range it was launched in.
        QCOMPARE(model.opAt(copy - 1, 50'000, 100), 0);
        const int range = model.rangeAt(copy - 1, 50'000, 100);
        QCOMPARE(trace->string(model.rep().hostRanges[std::size_t(range)].nameId), std::string("forward"));
        QCOMPARE(trace->string(model.rep().hostRanges[std::size_t(model.rangeAt(copy - 1, 350'000, 100))].nameId),
                 std::string("loss"));
        const int compute = model.streamLane(1);
        QVERIFY(model.lane(compute - 1).kind == LaneKind::NvtxProjection);
        QVERIFY(model.lane(compute).kind == LaneKind::Stream);
        // A trace without ranges gets no projection rows even when asked.
        const auto plain = streamscope::test::makeTimelineTrace();
        const LaneModel without(*plain, 0, options);
        QCOMPARE(without.laneCount(), LaneModel(*plain, 0).laneCount());
    }

    void paintedInTheNamesColour()
    {
        const auto trace = traceWithRanges();
        LaneOptions options;
        options.projectNvtx = true;
        const LaneModel model(*trace, 0, options);
        OpPalette palette;
        TimelinePainter painter;
        painter.setModel(&model);
        painter.setPalette(&palette);
        painter.setMetrics(TimelineMetrics::make(false, QFont()));
        QImage image(1400, 600, QImage::Format_ARGB32);
        image.fill(Qt::magenta);
        const TimelineLayout layout = painter.layout(image.rect());
        const TimeMapping mapping = TimelinePainter::mappingFor(layout, 0, model.durationNs());
        {
            QPainter p(&image);
            painter.paintAll(p, layout, mapping, TimelineOverlay{});
        }
        const auto &ranges = model.rep().hostRanges;
        auto colourAt = [&](int lane, qint64 ns) {
            const QRect r = layout.lanes[std::size_t(lane)];
            return image.pixelColor(int(std::floor(mapping.toX(ns))) + 2, r.top() + 2);
        };
        // "backward" on depth 1 at 300 µs, the loader's "read batch" at 200 µs, the projected "forward" over
        // the kernel at 200 µs: each in the colour of its name. (+2 px and 2 rows in: inside the bar's edge.)
        auto colourOf = [&](const char *name) {
            for (const auto &h : ranges)
                if (trace->string(h.nameId) == name)
                    return palette.rangeColor(rangeColorIndex(h.nameId));
            return QColor();
        };
        QCOMPARE(colourAt(2, 300'000).rgb(), colourOf("backward").rgb());
        QCOMPARE(colourAt(4, 200'000).rgb(), colourOf("read batch").rgb());
        QCOMPARE(colourAt(model.streamLane(1) - 1, 200'000).rgb(), colourOf("forward").rgb());
        // Nothing at depth 2 at 300 µs: the lane's background (or a grid line).
        const QRgb empty = colourAt(3, 300'000).rgb();
        QVERIFY2(empty == palette.laneBackground(3).rgb() || empty == palette.grid().rgb(),
                 qPrintable(QColor(empty).name()));
        // The name is written in the bar: some pixel of "backward"'s bar is not its fill.
        const QRect row = layout.lanes[2];
        int ink = 0;
        const QRgb fill = colourOf("backward").rgb();
        for (int x = int(mapping.toX(qint64(15'000))) + 2; x < int(mapping.toX(qint64(120'000))); ++x)
            ink += image.pixel(x, row.center().y()) != fill;
        QVERIFY2(ink > 20, qPrintable(QString::number(ink)));
    }

    void viewTogglesProjectionKeepingTheWindow()
    {
        TimelineView view;
        view.resize(1200, 500);
        view.setTrace(traceWithRanges(), 0);
        view.selectOp(1);
        view.zoom()->setWindow(10'000, 200'000);
        const int lanes = view.laneModel()->laneCount();
        view.setProjectNvtx(true);
        QCOMPARE(view.laneModel()->laneCount(), lanes + 2);
        QCOMPARE(view.zoom()->windowStart(), 10'000);
        QCOMPARE(view.zoom()->windowEnd(), 200'000);
        QCOMPARE(view.selectedOp().op, 1);
        QVERIFY(view.laneOptions().projectNvtx);
        view.setProjectNvtx(false);
        QCOMPARE(view.laneModel()->laneCount(), lanes);
        // A tooltip over a range row names the range; over an op, its NVTX range.
        const QString tip = view.rangeToolTipText(2);
        QVERIFY2(tip.startsWith(QStringLiteral("backward\nNVTX range on 'main' · depth 1")), qPrintable(tip));
        QVERIFY2(view.toolTipText(1).contains(QStringLiteral("NVTX range: forward")), qPrintable(view.toolTipText(1)));
    }

    void torchrunThreadsHaveNvtxRows()
    {
        const QString file =
            QStringLiteral(STREAMSCOPE_SHARED_DIR "/data/real-traces/nsys-2026.2.1_2xh100_torchrun_windowed.sqlite");
        if (!QFileInfo::exists(file))
            QSKIP("../shared/data/real-traces is not beside the checkout (CI has it)");
        const auto trace = engine::importNsysSqlite(file.toStdString());
        LaneOptions options;
        options.projectNvtx = true;
        const LaneModel model(trace, 0, options);
        // Each rank's python3 thread: its lane, then five NVTX rows.
        int python = 0;
        for (int i = 0; i < model.laneCount(); ++i) {
            const Lane &lane = model.lane(i);
            if (lane.kind != LaneKind::HostThread || lane.title != QStringLiteral("python3"))
                continue;
            ++python;
            for (int depth = 0; depth < 5; ++depth) {
                QVERIFY(model.lane(i + 1 + depth).kind == LaneKind::HostRanges);
                QCOMPARE(model.lane(i + 1 + depth).depth, depth);
                QCOMPARE(model.lane(i + 1 + depth).source, lane.source);
            }
            QVERIFY(model.lane(i + 6).kind != LaneKind::HostRanges);
        }
        QCOMPARE(python, 2);
        // The streams carry the kernels' own names, and their projection rows the ranges.
        int flash = 0, projected = 0;
        for (int s = 0; s < int(trace.streams.size()); ++s) {
            const int lane = model.streamLane(s);
            QVERIFY(model.lane(lane - 1).kind == LaneKind::NvtxProjection);
            for (const qint32 op : model.lane(lane).intervals.ops)
                flash += trace.name(model.op(op)) == "flash_fwd_kernel";
            projected += int(model.lane(lane - 1).intervals.size());
        }
        QCOMPARE(flash, 68);
        QVERIFY2(projected > 2000, qPrintable(QString::number(projected)));
    }
};

QTEST_MAIN(TestLaneModelRanges)
#include "tst_lane_model_ranges.moc"
