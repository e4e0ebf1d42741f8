// Tests of the lane tree (ui/timeline/lane_tree) and what the timeline does with it: grouping by process
// (or rank) and device on a hand-made trace and on the real 2xH100 torchrun and Kineto captures, labels
// that tell namesakes apart (and thread ids as the OS prints them), collapsing and expanding groups with
// a click, hiding, pinning and renaming lanes from the label's context menu (kept per document, for the
// session), and resizing the label column by dragging its edge.
#include <QAction>
#include <QDir>
#include <QMenu>
#include <QRegularExpression>
#include <QtTest>

#include <set>

#include "engine/formats/native_format.h"
#include "engine/formats/trace_io.h"
#include "tests/engine/trace_fixture.h"
#include "ui/document/trace_document.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/lane_tree.h"
#include "ui/timeline/timeline_view.h"
#include "view_geometry.h"

using namespace streamscope;
using ui::LaneGroup;
using ui::LaneKind;
using ui::LaneModel;
using ui::LaneRow;
using ui::LaneTree;

namespace {

QString realTrace(const char *file)
{
    return QStringLiteral(STREAMSCOPE_SHARED_DIR "/data/real-traces/") + QLatin1String(file);
}

#define REQUIRE_REAL_TRACE(path)                                                                                       \
    if (!QFileInfo::exists(path))                                                                                      \
        QSKIP("../shared/data/real-traces is not beside the checkout (CI has it): no real traces to test on");

std::shared_ptr<const engine::Trace> load(const QString &path)
{
    return std::make_shared<const engine::Trace>(engine::loadTrace(path.toStdString()));
}

// Two processes: pid 100 with three threads (two of them named alike) and streams on GPUs 0 and 1,
// pid 200 with one thread and one stream on GPU 1.
std::shared_ptr<engine::Trace> makeTwoProcessTrace()
{
    using namespace engine;
    auto t = std::make_shared<Trace>();
    t->title = "two processes";
    for (int d = 0; d < 2; ++d) {
        DeviceInfo device;
        device.index = d;
        device.name = "Test GPU";
        t->devices.push_back(device);
    }
    t->hostThreads = {HostThreadInfo{"python3", 100, 100}, HostThreadInfo{"pt_thread_pool", 101, 100},
                      HostThreadInfo{"pt_thread_pool", 102, 100}, HostThreadInfo{"python3", 200, 200}};
    StreamInfo s0, s1, s2;
    s0.name = "stream 7";
    s0.device = 0;
    s1.name = "stream 9";
    s1.device = 1;
    s2.name = "stream 7";
    s2.device = 1;
    t->streams = {s0, s1, s2};
    streamscope::test::TraceBuilder b(std::move(*t));
    auto add = [&](int stream, int thread, std::int64_t at) -> streamscope::test::TraceBuilder & {
        // GPU time from while its call still runs
        return b.onStream(stream).onThread(thread).op(OpKind::Kernel, at + 2, at + 100).named("k").host(at, at + 5);
    };
    add(0, 0, 0);
    add(1, 0, 200);
    add(2, 3, 400);
    // The pool threads issue only host work.
    b.onThread(1).hostOp(OpKind::Kernel, 600, 605).named("k");
    b.onThread(2).hostOp(OpKind::Kernel, 700, 705).named("k");
    return b.buildShared();
}

QStringList labels(const LaneTree &tree)
{
    QStringList out;
    for (int i = 0; i < tree.model().laneCount(); ++i)
        out << tree.uniqueLabel(i);
    return out;
}

QAction *findAction(QMenu *menu, const QString &prefix)
{
    for (QAction *a : menu->actions()) {
        if (a->text().startsWith(prefix))
            return a;
        if (a->menu())
            if (QAction *inner = findAction(a->menu(), prefix))
                return inner;
    }
    return nullptr;
}

int countLaneRows(const std::vector<LaneRow> &rows)
{
    return int(std::count_if(rows.begin(), rows.end(), [](const LaneRow &r) { return r.lane >= 0; }));
}

} // namespace

class TestLaneTree : public QObject {
    Q_OBJECT

private slots:
    void handMadeTwoProcesses()
    {
        const auto trace = makeTwoProcessTrace();
        const LaneModel model(*trace, 0);
        const LaneTree tree(model);
        // Two processes (by pid), each with a group per GPU it drives: the trace has two GPUs.
        QStringList keys;
        for (const LaneGroup &g : tree.groups())
            keys << g.key;
        QCOMPARE(keys, (QStringList{QStringLiteral("process:100"), QStringLiteral("device:0@100"),
                                    QStringLiteral("device:1@100"), QStringLiteral("process:200"),
                                    QStringLiteral("device:1@200")}));
        QCOMPARE(tree.group(1).title, QStringLiteral("GPU 0 · Test GPU"));
        QCOMPARE(tree.group(4).parent, 3);
        QCOMPARE(tree.group(0).title, QStringLiteral("python3 (pid 100)"));
        QCOMPARE(tree.group(0).subtitle, QStringLiteral("3 threads · 2 streams"));
        QCOMPARE(tree.group(1).parent, 0);
        QCOMPARE(tree.group(1).depth, 1);
        QCOMPARE(tree.group(3).subtitle, QStringLiteral("1 thread · 1 stream · GPU 1"));
        // Namesakes told apart: python3 by pid, the pool threads of one process by tid, "stream 7" by GPU.
        const QStringList l = labels(tree);
        QVERIFY2(l.contains(QStringLiteral("python3 · pid 100")), qPrintable(l.join(", ")));
        QVERIFY(l.contains(QStringLiteral("python3 · pid 200")));
        QVERIFY(l.contains(QStringLiteral("pt_thread_pool · tid 101")));
        QVERIFY(l.contains(QStringLiteral("pt_thread_pool · tid 102")));
        QVERIFY(l.contains(QStringLiteral("stream 7 · GPU 0")));
        QVERIFY(l.contains(QStringLiteral("stream 7 · GPU 1")));
        QCOMPARE(int(std::set<QString>(l.begin(), l.end()).size()), l.size());

        // Rows: process 100's threads, its device groups (each GPU's stream, then that GPU's compute
        // lane), process 200 and its GPU 1 group. GPU 1's derived lanes are in its first group only.
        const std::vector<LaneRow> rows = tree.rows({});
        QVERIFY(rows[0].isGroup() && rows[0].group == 0 && rows[0].depth == 0);
        for (int r = 1; r <= 3; ++r) {
            QCOMPARE(model.lane(rows[std::size_t(r)].lane).kind, LaneKind::HostThread);
            QCOMPARE(rows[std::size_t(r)].depth, 1);
        }
        QVERIFY(rows[4].isGroup() && rows[4].group == 1);
        QCOMPARE(rows[5].depth, 2);
        QCOMPARE(model.lane(rows[5].lane).source, 0);
        QCOMPARE(model.lane(rows[6].lane).kind, LaneKind::ComputeActivity);
        QCOMPARE(model.lane(rows[6].lane).device, 0);
        QCOMPARE(tree.laneKey(rows[6].lane), QStringLiteral("compute@gpu0"));
        QCOMPARE(tree.uniqueLabel(rows[6].lane), QStringLiteral("compute · GPU 0"));
        QVERIFY(rows[7].isGroup() && rows[7].group == 2);
        QCOMPARE(model.lane(rows[9].lane).kind, LaneKind::ComputeActivity);
        QCOMPARE(model.lane(rows[9].lane).device, 1);
        QVERIFY(rows[10].isGroup() && rows[10].group == 3);
        QVERIFY(rows[12].isGroup() && rows[12].group == 4);
        QCOMPARE(rows.back().lane, model.streamLane(2));
        QCOMPARE(countLaneRows(rows), model.laneCount());

        // Collapsed: one row for process 100; its busy time counts its five thread and stream lanes.
        ui::LaneViewState state;
        state.collapsed.insert(QStringLiteral("process:100"));
        const std::vector<LaneRow> folded = tree.rows(state);
        QCOMPARE(folded.size(), rows.size() - 9);
        QVERIFY(folded[0].isGroup() && folded[0].collapsed);
        QCOMPARE(tree.group(0).busyLanes, 5);
        QCOMPARE(tree.group(0).busy.maxValue, 2.0f); // thread 0's call and its op at [0, 5): both busy
        QVERIFY(tree.group(0).busyFraction > 0 && tree.group(0).busyFraction <= 1);

        // Hidden and pinned: a pinned lane comes first, hidden ones nowhere, and a group with every lane
        // hidden goes too.
        ui::LaneViewState arranged;
        arranged.pinned = {QStringLiteral("stream:2")};
        arranged.hidden = {QStringLiteral("thread:3")};
        const std::vector<LaneRow> pinned = tree.rows(arranged);
        QCOMPARE(pinned[0].lane, model.streamLane(2));
        QVERIFY(pinned[0].pinned);
        QCOMPARE(countLaneRows(pinned), model.laneCount() - 1);
        QVERIFY(
            std::none_of(pinned.begin(), pinned.end(), [](const LaneRow &r) { return r.isGroup() && r.group == 3; }));
        QCOMPARE(tree.hiddenLanes(arranged), std::vector<int>{model.hostLane(3)});
    }

    void singleProcessKeepsItsLanes()
    {
        // A run of StreamScope's own (no process ids, one GPU): no group, rows in model order.
        auto trace = makeTwoProcessTrace();
        for (auto &t : trace->hostThreads)
            t.processId = -1;
        for (auto &s : trace->streams)
            s.device = 0;
        const LaneModel model(*trace, 0);
        const LaneTree tree(model);
        QVERIFY(tree.groups().empty());
        const std::vector<LaneRow> rows = tree.rows({});
        QCOMPARE(int(rows.size()), model.laneCount());
        for (int i = 0; i < int(rows.size()); ++i)
            QCOMPARE(rows[std::size_t(i)].lane, i);
    }

    void twoGpusWithPeerCopies()
    {
        // A thread per GPU (no process ids: a run of StreamScope's own) and peer copies both ways: the
        // threads at the top as before, a group per GPU with its streams and derived lanes, and a lane
        // per direction of the peer link below.
        const auto trace = std::make_shared<const engine::Trace>(test::twoGpuTrace());
        const LaneModel model(*trace, 0);
        const LaneTree tree(model);
        QStringList keys;
        for (const LaneGroup &g : tree.groups())
            keys << g.key + QStringLiteral("=") + g.title;
        QCOMPARE(keys, (QStringList{QStringLiteral("device:0=GPU 0 · NVIDIA H100 80GB HBM3"),
                                    QStringLiteral("device:1=GPU 1 · NVIDIA H100 80GB HBM3")}));
        QStringList rows;
        for (const LaneRow &r : tree.rows({}))
            rows << (r.isGroup() ? QStringLiteral("[%1]").arg(tree.group(r.group).key)
                                 : QString(r.depth, QLatin1Char(' ')) + tree.uniqueLabel(r.lane));
        QCOMPARE(rows, (QStringList{QStringLiteral("worker gpu0"), QStringLiteral("worker gpu1"),
                                    QStringLiteral("[device:0]"), QStringLiteral(" gpu0 copy"),
                                    QStringLiteral(" gpu0 compute"), QStringLiteral(" H2D copies · GPU 0"),
                                    QStringLiteral(" compute · GPU 0"), QStringLiteral(" bandwidth · GPU 0"),
                                    QStringLiteral("[device:1]"), QStringLiteral(" gpu1 compute"),
                                    QStringLiteral(" gpu1 copy"), QStringLiteral(" D2H copies · GPU 1"),
                                    QStringLiteral(" compute · GPU 1"), QStringLiteral(" bandwidth · GPU 1"),
                                    QStringLiteral("P2P GPU 0\u21921"), QStringLiteral("P2P GPU 1\u21920")}));
        const int link = tree.laneByKey(QStringLiteral("p2p:0>1"));
        QVERIFY(link >= 0);
        QCOMPARE(model.lane(link).subtitle, QStringLiteral("GB/s · NVLink 450 · 19.1 MiB"));

        // Drawn: the peer link's lane shows its copy in the P2P colour below the dashed peak, at
        // 200 / 450 of the lane's scale; the label column names the GPUs' models.
        ui::TraceDocument document;
        document.setTrace(trace, QStringLiteral("two GPUs"), QString());
        ui::TimelineView view;
        view.resize(1280, 720);
        view.setDocument(&document);
        QImage image(view.size(), QImage::Format_RGB32);
        view.render(&image);
        const test::ViewGeometry g = test::viewGeometry(view, view.rect());
        int linkRow = -1;
        for (std::size_t r = 0; r < view.rows().size(); ++r)
            if (view.rows()[r].lane == link)
                linkRow = int(r);
        QVERIFY(linkRow >= 0);
        const QRect lane = g.layout.lanes[std::size_t(linkRow)];
        const int x = int(g.mapping.toX(qint64(350'000))); // C in flight
        int ink = 0;
        for (int y = lane.top() + 2; y < lane.bottom() - 2; ++y)
            ink += image.pixelColor(x, y) != image.pixelColor(int(g.mapping.toX(qint64(250'000))), y) ? 1 : 0;
        if (const QString out = qEnvironmentVariable("STREAMSCOPE_SCREENSHOT_DIR"); !out.isEmpty()) {
            image.save(out + QStringLiteral("/two-gpus-peer-copies-view.png"));
            engine::writeNativeTrace(*trace, (out + QStringLiteral("/two-gpus-peer-copies.sstrace")).toStdString());
        }
        // The bar reaches 200 / (450 * 1.08) of the lane's plot height, give or take the padding.
        const double expected = (lane.height() - 7) * 200.0 / (450.0 * 1.08);
        QVERIFY2(std::abs(ink - expected) <= 4,
                 qPrintable(QStringLiteral("ink %1 px, expected %2").arg(ink).arg(expected)));
    }

    void torchrunGroupsByProcess()
    {
        const QString path = realTrace("nsys-2026.2.1_2xh100_torchrun_windowed.sqlite");
        REQUIRE_REAL_TRACE(path);
        const auto trace = load(path);
        const LaneModel model(*trace, 0);
        const LaneTree tree(model);
        // Two ranks' python processes, each with its threads and a group for its GPU: the GPU's stream
        // and its derived lanes (copies, compute, bandwidth), none of them left trace-wide.
        QCOMPARE(model.devices(), (std::vector<int>{0, 1}));
        QCOMPARE(int(tree.groups().size()), 4);
        QStringList processKeys;
        for (const LaneGroup &g : tree.groups()) {
            if (g.level == LaneGroup::Level::Device)
                continue;
            processKeys << g.key;
            QVERIFY2(g.title.startsWith(QStringLiteral("python3 (pid ")), qPrintable(g.title));
            QCOMPARE(int(g.lanes.size()), 2); // the threads
            for (const int lane : g.lanes)
                QCOMPARE(model.lane(lane).kind, LaneKind::HostThread);
            QCOMPARE(int(g.children.size()), 1);
            const LaneGroup &gpu = tree.group(g.children[0]);
            QCOMPARE(gpu.level, LaneGroup::Level::Device);
            const int device = model.lane(gpu.lanes[0]).kind == LaneKind::Stream
                                   ? trace->streams[std::size_t(model.lane(gpu.lanes[0]).source)].device
                                   : -1;
            QCOMPARE(gpu.title, QStringLiteral("GPU %1").arg(device)); // the export names no model
            std::set<LaneKind> kinds;
            for (const int lane : gpu.lanes) {
                kinds.insert(model.lane(lane).kind);
                if (model.lane(lane).kind != LaneKind::Stream)
                    QCOMPARE(model.lane(lane).device, device);
            }
            QCOMPARE(kinds, (std::set<LaneKind>{LaneKind::Stream, LaneKind::H2DActivity, LaneKind::D2DActivity,
                                                LaneKind::ComputeActivity, LaneKind::Bandwidth}));
        }
        QCOMPARE(processKeys.size(), 2);
        QVERIFY(processKeys[0] < processKeys[1]); // by pid
        for (int i = 0; i < model.laneCount(); ++i)
            QVERIFY2(tree.groupOfLane(i) >= 0, qPrintable(tree.uniqueLabel(i)));
        const QStringList l = labels(tree);
        QCOMPARE(int(std::set<QString>(l.begin(), l.end()).size()), l.size());
        QCOMPARE(l.filter(QRegularExpression(QStringLiteral("^python3 · pid \\d+$"))).size(), 2);
        QCOMPARE(l.filter(QRegularExpression(QStringLiteral("^pt_nccl_watchdo?g · pid \\d+$"))).size(), 2);
        QCOMPARE(l.filter(QRegularExpression(QStringLiteral("^compute · GPU [01]$"))).size(), 2);
        // Each thread's NVTX rows are named by its process, not numbered.
        QCOMPARE(l.filter(QRegularExpression(QStringLiteral("^NVTX · pid \\d+$"))).size(), 2);
        QVERIFY2(l.filter(QRegularExpression(QStringLiteral("#\\d"))).isEmpty(), qPrintable(l.join(", ")));

        // At 1280x720 the 30-odd rows must shrink: every row still fits above the legend, and the open
        // groups' headers (a process, a GPU) keep the height of their bold title instead of being cut.
        ui::TraceDocument document;
        document.setTrace(trace, QStringLiteral("torchrun"), QString());
        ui::TimelineView view;
        view.resize(940, 410); // the timeline's share of a 1280x720 window
        view.setDocument(&document);
        const test::ViewGeometry g = test::viewGeometry(view, view.rect());
        const int titleHeight = QFontMetrics([&] {
                                    QFont bold = view.font();
                                    bold.setBold(true);
                                    return bold;
                                }())
                                    .height();
        int headers = 0;
        for (std::size_t r = 0; r < view.rows().size(); ++r) {
            const QRect lane = g.layout.lanes[r];
            QVERIFY2(lane.bottom() < g.layout.legend.top() || lane.isEmpty(),
                     qPrintable(QStringLiteral("row %1 ends at %2, below the legend at %3")
                                    .arg(r)
                                    .arg(lane.bottom())
                                    .arg(g.layout.legend.top())));
            if (view.rows()[r].isGroup() && !view.rows()[r].collapsed) {
                ++headers;
                QVERIFY2(lane.height() >= titleHeight,
                         qPrintable(QStringLiteral("group row %1: %2 px for a %3 px title")
                                        .arg(r)
                                        .arg(lane.height())
                                        .arg(titleHeight)));
            }
        }
        QCOMPARE(headers, 4);
    }

    void kinetoGroupsByRank_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("rank");
        QTest::addColumn<QString>("unsignedTid"); // a tid Kineto wrote negative, as the OS prints it
        QTest::newRow("rank0") << "kineto_a100-80gb_rank0_5streams.json.gz"
                               << "0"
                               << "3074426432";
        QTest::newRow("rank3") << "kineto_a100_rank3_4streams.json.gz"
                               << "3"
                               << "3265820224";
        QTest::newRow("simple") << "kineto_a100_simple_add_2streams.json.gz"
                                << "0"
                                << "";
    }

    void kinetoGroupsByRank()
    {
        QFETCH(QString, file);
        QFETCH(QString, rank);
        QFETCH(QString, unsignedTid);
        const QString path = realTrace(file.toUtf8().constData());
        REQUIRE_REAL_TRACE(path);
        const auto trace = load(path);
        const LaneModel model(*trace, 0);
        const LaneTree tree(model);
        // One process, named by its rank; every thread and stream in it, derived lanes below.
        QCOMPARE(int(tree.groups().size()), 1);
        const LaneGroup &g = tree.group(0);
        QVERIFY2(g.title.startsWith(QStringLiteral("rank %1 · ").arg(rank)), qPrintable(g.title));
        // Named by the program and its pid, as Linux names a process, not by Kineto's "thread N (name)".
        QVERIFY2(g.title.contains(QRegularExpression(QStringLiteral("^rank \\d+ · [^ ]+ \\(pid \\d+\\)$"))),
                 qPrintable(g.title));
        for (int i = 0; i < model.laneCount(); ++i) {
            const LaneKind kind = model.lane(i).kind;
            // A thread's rows of CPU ops and annotations go with the thread.
            QCOMPARE(tree.groupOfLane(i) == 0,
                     kind == LaneKind::HostThread || kind == LaneKind::Stream || kind == LaneKind::HostRanges);
        }
        const QStringList l = labels(tree);
        QCOMPARE(int(std::set<QString>(l.begin(), l.end()).size()), l.size());
        for (const QString &label : l)
            QVERIFY2(!label.contains(QRegularExpression(QStringLiteral("tid -\\d"))), qPrintable(label));
        if (!unsignedTid.isEmpty())
            QVERIFY2(l.filter(QStringLiteral("tid ") + unsignedTid).size() == 1, qPrintable(l.join(", ")));
    }

    void everyRealTraceHasUniqueLabels()
    {
        const QDir dir(QStringLiteral(STREAMSCOPE_SHARED_DIR "/data/real-traces"));
        if (!dir.exists())
            QSKIP("../shared/data/real-traces is not beside the checkout (CI has it): no real traces to test on");
        int checked = 0;
        for (const QString &file : dir.entryList({QStringLiteral("*.sqlite"), QStringLiteral("*.json.gz")})) {
            const auto trace = load(dir.filePath(file));
            const LaneModel model(*trace, 0);
            const LaneTree tree(model);
            const QStringList l = labels(tree);
            QVERIFY2(int(std::set<QString>(l.begin(), l.end()).size()) == l.size(),
                     qPrintable(file + QStringLiteral(": ") + l.join(QStringLiteral(", "))));
            ++checked;
        }
        QVERIFY(checked >= 10);
    }

    void collapseAndExpandWithAClick()
    {
        const QString path = realTrace("nsys-2026.2.1_2xh100_torchrun_windowed.sqlite");
        REQUIRE_REAL_TRACE(path);
        ui::TraceDocument document;
        document.setTrace(load(path), QStringLiteral("torchrun"), path);
        ui::TimelineView view;
        view.resize(1280, 720);
        view.setDocument(&document);
        const std::vector<LaneRow> open = view.rows();
        QVERIFY(open[0].isGroup() && !open[0].collapsed);
        const int lanesInGroup = int(view.laneTree()->group(open[0].group).allLanes.size());
        // Two threads and a stream, with the NVTX rows of its thread and its GPU's derived lanes.
        int placed = 0, derived = 0;
        for (const int lane : view.laneTree()->group(open[0].group).allLanes) {
            const LaneKind kind = view.laneModel()->lane(lane).kind;
            placed += kind == LaneKind::HostThread || kind == LaneKind::Stream ? 1 : 0;
            derived += view.laneModel()->lane(lane).device >= 0 ? 1 : 0;
        }
        QCOMPARE(placed, 3);
        QCOMPARE(derived, 4); // H2D and D2D copies, compute, bandwidth
        QVERIFY(lanesInGroup > placed);

        // A click on the header (its arrow) folds the group into one row.
        QTest::mouseClick(&view, Qt::LeftButton, {}, view.rowLabelRect(0).topLeft() + QPoint(10, 6));
        const std::vector<LaneRow> folded = view.rows();
        // Its rows go: every lane of it but the thread's NVTX rows that were folded into their outermost
        // (LaneTree::kOpenRangeRows), and its GPU group's header.
        int foldedAway = 0;
        for (std::size_t r = 1; r < open.size() && open[r].depth > open[0].depth; ++r)
            foldedAway += open[r].foldedRows;
        QCOMPARE(folded.size(), open.size() - std::size_t(lanesInGroup - foldedAway) - 1);
        QVERIFY(folded[0].isGroup() && folded[0].collapsed);
        QVERIFY(document.laneState().collapsed.count(QStringLiteral("process:144")) == 1);
        // The row shows the group's busy time: ink in the plot, in the pixels of the summary.
        QImage image(view.size(), QImage::Format_RGB32);
        view.render(&image);
        const test::ViewGeometry g = test::viewGeometry(view, view.rect());
        const QRect row = g.layout.lanes[0];
        std::set<QRgb> colours;
        for (int x = row.left(); x <= row.right(); x += 3)
            colours.insert(image.pixel(x, row.bottom() - 4));
        QVERIFY2(colours.size() >= 2, "the collapsed group's row shows no busy time");
        if (const QString out = qEnvironmentVariable("STREAMSCOPE_SCREENSHOT_DIR"); !out.isEmpty())
            image.save(out + QStringLiteral("/lane-tree-collapsed.png"));

        // A second view of the same document follows; a click again opens the group.
        ui::TimelineView other;
        other.resize(1280, 720);
        other.setDocument(&document);
        QCOMPARE(other.rows().size(), folded.size());
        QTest::mouseClick(&view, Qt::LeftButton, {}, view.rowLabelRect(0).topLeft() + QPoint(10, 6));
        QCOMPARE(view.rows().size(), open.size());
        QCOMPARE(other.rows().size(), open.size());
        // Collapse all from the lanes menu: one row per process, then the derived lanes.
        QMenu menu;
        view.fillLanesMenu(&menu);
        findAction(&menu, QStringLiteral("Collapse all"))->trigger();
        QCOMPARE(std::count_if(view.rows().begin(), view.rows().end(), [](const LaneRow &r) { return r.collapsed; }),
                 2);
    }

    // An NVTX-heavy capture at 1280x720 (#23 item 5): each thread's NVTX rows folded into their
    // outermost by default where there are more than LaneTree::kOpenRangeRows, every row at least a
    // readable height, the GPU stream in view without scrolling; a click on a thread's header unfolds its
    // rows (the view then scrolls), and with the rows scrolled the group's header stays at the top.
    void nvtxRowsFoldPerThread()
    {
        const QString path = realTrace("nsys-2025.1.1_h200_nvtx.sqlite");
        REQUIRE_REAL_TRACE(path);
        ui::TraceDocument document;
        document.setTrace(load(path), QStringLiteral("nvtx"), path);
        ui::TimelineView view;
        view.resize(1280, 720);
        view.setDocument(&document);
        const ui::LaneTree &tree = *view.laneTree();
        const ui::LaneModel &model = *view.laneModel();
        const std::vector<int> firsts = tree.rangeFirstLanes();
        QVERIFY(firsts.size() >= 8); // the main thread and the pool threads
        int folded = 0;
        for (const LaneRow &row : view.rows()) {
            if (row.fold == LaneRow::Fold::None)
                continue;
            const int count = tree.rangeRowCount(row.foldLane);
            QCOMPARE(row.fold == LaneRow::Fold::Folded, count > LaneTree::kOpenRangeRows);
            folded += row.fold == LaneRow::Fold::Folded;
        }
        QVERIFY(folded >= 6);
        // Rows of threads that made no CUDA call are told apart by their own thread ids, not numbered.
        for (const LaneRow &row : view.rows())
            if (row.lane >= 0)
                QVERIFY2(!tree.uniqueLabel(row.lane).contains(QStringLiteral(" #")),
                         qPrintable(tree.uniqueLabel(row.lane)));
        // The NVTX rows shown: the outermost of each folded thread, every row of an open one.
        int shownRanges = 0, expected = 0;
        for (const LaneRow &row : view.rows())
            shownRanges += row.lane >= 0 && model.lane(row.lane).kind == LaneKind::HostRanges;
        for (int i = 0; i < model.laneCount(); ++i)
            if (const int count = tree.rangeRowCount(i); count > 0)
                expected += tree.rangesFolded(i, document.laneState()) ? 1 : count;
        QCOMPARE(shownRanges, expected);
        QVERIFY(expected < 20);
        ui::TimelineLayout layout = view.currentLayout();
        for (const QRect &r : layout.lanes)
            QVERIFY2(r.height() >= view.metrics().readableLaneHeight, "a row below a readable height");
        int stream = -1;
        for (int i = 0; i < model.laneCount(); ++i)
            if (model.lane(i).kind == LaneKind::Stream)
                stream = i;
        QVERIFY(stream >= 0);
        const QRect streamRow = layout.lanes[std::size_t(layout.rowOf(stream))];
        QCOMPARE(layout.scrollY, 0);
        QVERIFY2(streamRow.top() >= layout.plot.top() && streamRow.bottom() <= layout.plot.bottom(),
                 "the GPU stream is below the fold");

        // A click on a folded thread's header shows all its rows; the fold is the document's.
        int at = -1;
        for (int r = 0; r < int(view.rows().size()); ++r)
            if (view.rows()[std::size_t(r)].fold == LaneRow::Fold::Folded) {
                at = r;
                break;
            }
        QVERIFY(at >= 0);
        const int first = view.rows()[std::size_t(at)].foldLane;
        const std::size_t before = view.rows().size();
        QTest::mouseClick(&view, Qt::LeftButton, {}, view.rowLabelRect(at).center());
        QCOMPARE(view.rows().size(), before + std::size_t(tree.rangeRowCount(first) - 1));
        QVERIFY(!tree.rangesFolded(first, document.laneState()));
        QTest::mouseClick(&view, Qt::LeftButton, {}, view.rowLabelRect(at).center());
        QCOMPARE(view.rows().size(), before);

        // Everything unfolded: far more rows than fit, at a readable height, scrolled.
        QMenu menu;
        view.fillLanesMenu(&menu);
        findAction(&menu, QStringLiteral("Unfold all NVTX"))->trigger();
        QVERIFY(view.rows().size() > before + 60);
        layout = view.currentLayout();
        QVERIFY(layout.maxScrollY > 0);
        for (const QRect &r : layout.lanes)
            QVERIFY(r.height() >= view.metrics().readableLaneHeight);
        // Scrolled into the group, its header stays on top, and a click there folds the group.
        QVERIFY(view.rows()[0].isGroup());
        view.setScrollY(layout.maxScrollY / 2);
        layout = view.currentLayout();
        QVERIFY(!layout.sticky.empty());
        QCOMPARE(layout.sticky[0].row, 0);
        QCOMPARE(layout.sticky[0].rect.top(), layout.plot.top());
        QCOMPARE(view.rowAt(QPoint(layout.plot.center().x(), layout.plot.top() + 2)), 0);
        if (const QString out = qEnvironmentVariable("STREAMSCOPE_SCREENSHOT_DIR"); !out.isEmpty())
            view.grab().save(out + QStringLiteral("/nvtx-scrolled.png"));
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(layout.headers.left() + 10, layout.plot.top() + 4));
        QVERIFY(view.rows()[0].collapsed);
        QCOMPARE(view.currentLayout().maxScrollY, 0);
    }

    void hidePinRenameFromTheContextMenu()
    {
        const QString path = realTrace("nsys-2026.2.1_2xh100_torchrun_windowed.sqlite");
        REQUIRE_REAL_TRACE(path);
        ui::TraceDocument document;
        document.setTrace(load(path), QStringLiteral("torchrun"), path);
        ui::TimelineView view;
        view.resize(1280, 720);
        view.setDocument(&document);
        const LaneTree *tree = view.laneTree();
        const std::vector<LaneRow> before = view.rows();
        const int row = 2; // process 144's second thread
        const int lane = before[row].lane;
        QVERIFY(lane >= 0);
        const QString label = tree->uniqueLabel(lane);

        // Hide.
        std::unique_ptr<QMenu> menu(view.createRowMenu(row));
        findAction(menu.get(), QStringLiteral("Hide '") + label)->trigger();
        QCOMPARE(view.rows().size(), before.size() - 1);
        QVERIFY(std::none_of(view.rows().begin(), view.rows().end(), [&](const LaneRow &r) { return r.lane == lane; }));
        // Listed to bring back, from the View menu's lanes submenu too.
        QMenu lanes;
        view.fillLanesMenu(&lanes);
        QVERIFY(findAction(&lanes, QStringLiteral("Hidden lanes (1)")));
        findAction(&lanes, QStringLiteral("Show '") + label)->trigger();
        QCOMPARE(view.rows().size(), before.size());

        // Pin to top: the stream of the second process goes first, marked pinned.
        const int stream = view.laneModel()->streamLane(1);
        int streamRow = -1;
        for (std::size_t r = 0; r < view.rows().size(); ++r)
            if (view.rows()[r].lane == stream)
                streamRow = int(r);
        QVERIFY(streamRow > 0);
        menu.reset(view.createRowMenu(streamRow));
        findAction(menu.get(), QStringLiteral("Pin to top"))->trigger();
        QCOMPARE(view.rows()[0].lane, stream);
        QVERIFY(view.rows()[0].pinned);
        QCOMPARE(view.rows().size(), before.size());
        menu.reset(view.createRowMenu(0));
        findAction(menu.get(), QStringLiteral("Unpin"))->trigger();
        QVERIFY(!view.rows()[0].pinned);

        // Rename (the dialog's result goes through renameLane); empty restores the label.
        view.laneArrangement().renameLane(lane, QStringLiteral("NCCL watchdog, rank 0"));
        QCOMPARE(tree->label(lane, view.laneArrangement().state()), QStringLiteral("NCCL watchdog, rank 0"));
        menu.reset(view.createRowMenu(row));
        QVERIFY(findAction(menu.get(), QStringLiteral("Hide 'NCCL watchdog, rank 0'")));
        QVERIFY(findAction(menu.get(), QStringLiteral("Restore the name")));

        // The arrangement is the document's, per trace file for the session: another file has its own,
        // and coming back finds it as it was.
        view.laneArrangement().setLaneHidden(lane, true);
        const ui::LaneViewState arranged = document.laneState();
        QCOMPARE(arranged.names.size(), std::size_t(1));
        document.setTrace(load(path), QStringLiteral("other"), path + QStringLiteral(".copy"));
        QVERIFY(document.laneState() == ui::LaneViewState{});
        QCOMPARE(view.rows().size(), before.size());
        document.setTrace(load(path), QStringLiteral("torchrun"), path);
        QVERIFY(document.laneState() == arranged);
        QCOMPARE(view.rows().size(), before.size() - 1);
        QCOMPARE(view.laneTree()->label(lane, view.laneArrangement().state()), QStringLiteral("NCCL watchdog, rank 0"));
    }

    void labelColumnResizesByItsEdge()
    {
        const QString path = realTrace("nsys-2026.2.1_2xh100_torchrun_windowed.sqlite");
        REQUIRE_REAL_TRACE(path);
        ui::TimelineView view;
        view.resize(1280, 720);
        view.setTrace(load(path));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // By default the column shows the labels whole (here they fit in a quarter of the width).
        const int start = view.labelWidth();
        QFontMetrics fm(view.font());
        for (int i = 0; i < view.laneModel()->laneCount(); ++i)
            QVERIFY2(fm.horizontalAdvance(view.laneTree()->uniqueLabel(i)) < start,
                     qPrintable(view.laneTree()->uniqueLabel(i)));
        // Drag the edge 120 px to the right: the column and the plot follow.
        const QPoint edge(start, view.rowLabelRect(1).center().y());
        QTest::mousePress(&view, Qt::LeftButton, {}, edge);
        QTest::mouseMove(&view, edge + QPoint(60, 0));
        QTest::mouseMove(&view, edge + QPoint(120, 0));
        QTest::mouseRelease(&view, Qt::LeftButton, {}, edge + QPoint(120, 0));
        QCOMPARE(view.labelWidth(), start + 120);
        QCOMPARE(test::viewGeometry(view, view.rect()).layout.plot.left(), start + 120);
        // And back, narrower than the labels: they are cut; a double-click on the edge fits them again.
        const QPoint moved(view.labelWidth(), edge.y());
        QTest::mousePress(&view, Qt::LeftButton, {}, moved);
        QTest::mouseMove(&view, moved - QPoint(200, 0));
        QTest::mouseRelease(&view, Qt::LeftButton, {}, moved - QPoint(200, 0));
        QCOMPARE(view.labelWidth(), start - 80);
        QTest::mouseDClick(&view, Qt::LeftButton, {}, QPoint(view.labelWidth(), edge.y()));
        for (int i = 0; i < view.laneModel()->laneCount(); ++i)
            QVERIFY(fm.horizontalAdvance(view.laneTree()->uniqueLabel(i)) < view.labelWidth());
        // The window's time range did not move while resizing.
        QCOMPARE(view.windowStartNs(), 0);
    }
};

QTEST_MAIN(TestLaneTree)
#include "tst_lane_tree.moc"
