// Tests of ui::LaneModel: lane order and titles, sorted interval arrays with running max ends, the
// visible-slice search, picking, derived activity and bandwidth lanes (per GPU in a trace of two), and
// errors.
#include <QtTest>

#include "engine/model/errors.h"
#include "tests/engine/trace_fixture.h"
#include "tests/ui/timeline/timeline_test_trace.h"
#include "ui/timeline/lane_model.h"

using streamscope::ui::IntervalLane;
using streamscope::ui::LaneKind;
using streamscope::ui::LaneModel;
namespace engine = streamscope::engine;

class TestLaneModel : public QObject {
    Q_OBJECT

private slots:
    void lanesOfHandMadeTrace()
    {
        const auto trace = streamscope::test::makeTimelineTrace();
        const LaneModel model(*trace, 0);
        QCOMPARE(model.originNs(), streamscope::test::kOrigin);
        QCOMPARE(model.durationNs(), 410'000);
        QCOMPARE(model.linkPeakGBs(), 25.0);
        // host thread, 2 streams, H2D, D2H, compute, bandwidth
        QCOMPARE(model.laneCount(), 7);
        QVERIFY(model.lane(0).kind == LaneKind::HostThread);
        QCOMPARE(model.lane(0).title, QStringLiteral("main"));
        QVERIFY2(model.lane(0).subtitle.contains(QStringLiteral("4 calls")), qPrintable(model.lane(0).subtitle));
        QVERIFY2(model.lane(0).subtitle.contains(QStringLiteral("2 blocking")), qPrintable(model.lane(0).subtitle));
        QVERIFY(model.lane(1).kind == LaneKind::Stream);
        QCOMPARE(model.lane(1).title, QStringLiteral("copy"));
        QVERIFY(model.lane(1).subtitle.contains(QStringLiteral("non-blocking")));
        QVERIFY(model.lane(1).subtitle.contains(QStringLiteral("2 ops")));
        QCOMPARE(model.lane(2).title, QStringLiteral("compute"));
        QVERIFY(model.lane(2).subtitle.contains(QStringLiteral("prio -1")));
        QVERIFY(model.lane(3).kind == LaneKind::H2DActivity);
        QVERIFY(model.lane(4).kind == LaneKind::D2HActivity);
        QVERIFY(model.lane(5).kind == LaneKind::ComputeActivity);
        QVERIFY(model.lane(6).kind == LaneKind::Bandwidth);
        QCOMPARE(model.streamLane(0), 1);
        QCOMPARE(model.streamLane(1), 2);
        QCOMPARE(model.streamLane(2), -1);
        QCOMPARE(model.hostLane(0), 0);
        QCOMPARE(model.hostLane(-1), -1); // no op without a thread here

        // Stream "copy": ops 0 and 2, relative GPU times.
        const IntervalLane &copy = model.lane(1).intervals;
        QCOMPARE(copy.size(), std::size_t(2));
        QCOMPARE(copy.ops[0], 0);
        QCOMPARE(copy.ops[1], 2);
        QCOMPARE(copy.starts[0], 20'000);
        QCOMPARE(copy.ends[1], 390'000);
        QCOMPARE(copy.styles[0] & IntervalLane::kKindMask, int(engine::OpKind::CopyH2D));
        // Host lane: the blocking bit marks the sync memcpy and the host sync only.
        const IntervalLane &host = model.lane(0).intervals;
        QCOMPARE(host.size(), std::size_t(4));
        QCOMPARE(host.styles[0] & IntervalLane::kBlockingBit, 0);
        QCOMPARE(host.styles[2] & IntervalLane::kBlockingBit, int(IntervalLane::kBlockingBit));
        QCOMPARE(host.styles[3] & IntervalLane::kBlockingBit, int(IntervalLane::kBlockingBit));

        const auto &kinds = model.kindsPresent();
        QCOMPARE(kinds.size(), std::size_t(4));
        QVERIFY(kinds.front() == engine::OpKind::CopyH2D);
        QVERIFY(model.memoryBytes() > 0);
    }

    void derivedLanes()
    {
        const auto trace = streamscope::test::makeTimelineTrace();
        const LaneModel model(*trace, 0);
        const auto &h2d = model.lane(3).counts;
        QCOMPARE(h2d.valueAt(10'000), 0.0f);
        QCOMPARE(h2d.valueAt(20'000), 1.0f);
        QCOMPARE(h2d.valueAt(119'999), 1.0f);
        QCOMPARE(h2d.valueAt(120'000), 0.0f);
        QCOMPARE(h2d.maxValue, 1.0f);
        // Equal consecutive values are merged: one step up, one down.
        QCOMPARE(h2d.size(), std::size_t(2));
        const auto &compute = model.lane(5).counts;
        QCOMPARE(compute.valueAt(200'000), 1.0f);
        QCOMPARE(compute.valueAt(335'000), 0.0f);
        const auto &bw = model.lane(6);
        QCOMPARE(bw.counts.valueAt(50'000), 20.0f); // 2 MB in 100 µs
        QCOMPARE(bw.counts.valueAt(200'000), 0.0f);
        QCOMPARE(bw.d2hBandwidth.valueAt(350'000), 20.0f); // 1 MB in 50 µs
        QCOMPARE(bw.d2hBandwidth.valueAt(50'000), 0.0f);
        QCOMPARE(bw.counts.indexAt(-5), std::ptrdiff_t(-1));
    }

    void derivedLanesPerDevice()
    {
        // Two GPUs (trace_fixture.h): the derived lanes once per GPU, each counting only its own ops and
        // its bandwidth against its own host link; a single-GPU model has them once, trace-wide.
        engine::Trace trace = streamscope::test::twoGpuTrace();
        trace.devices[1].linkPeakGBs = 32.0; // a PCIe gen4 GPU beside a gen5 one
        const LaneModel model(trace, 0);
        QCOMPARE(model.devices(), (std::vector<int>{0, 1}));
        std::vector<std::pair<LaneKind, int>> derived;
        for (const auto &lane : model.lanes())
            if (lane.kind != LaneKind::HostThread && lane.kind != LaneKind::Stream)
                derived.emplace_back(lane.kind, lane.device);
        QCOMPARE(derived, (std::vector<std::pair<LaneKind, int>>{{LaneKind::H2DActivity, 0},
                                                                 {LaneKind::ComputeActivity, 0},
                                                                 {LaneKind::Bandwidth, 0},
                                                                 {LaneKind::D2HActivity, 1},
                                                                 {LaneKind::ComputeActivity, 1},
                                                                 {LaneKind::Bandwidth, 1},
                                                                 {LaneKind::PeerLink, -1},
                                                                 {LaneKind::PeerLink, -1}}));
        // A lane per direction of the peer link: its copies' GB/s against the link's peak.
        const auto &forward = model.lanes()[model.lanes().size() - 2];
        QCOMPARE(forward.title, QStringLiteral("P2P GPU 0\u21921"));
        QCOMPARE(forward.peerSrc, 0);
        QCOMPARE(forward.peerDst, 1);
        QCOMPARE(forward.peakGBs, 450.0);
        QCOMPARE(forward.counts.valueAt(299'999), 0.0f);
        QCOMPARE(forward.counts.valueAt(300'000), 200.0f); // 20 MB in 100 µs
        QCOMPARE(forward.counts.valueAt(400'000), 0.0f);
        QCOMPARE(model.lanes().back().counts.valueAt(620'000), 200.0f); // 10 MB in 50 µs, GPU 1 -> 0
        QCOMPARE(model.lanes().back().counts.valueAt(350'000), 0.0f);
        auto find = [&](LaneKind kind, int device) -> const streamscope::ui::Lane & {
            for (const auto &lane : model.lanes())
                if (lane.kind == kind && lane.device == device)
                    return lane;
            return model.lanes().front();
        };
        const auto &compute0 = find(LaneKind::ComputeActivity, 0).counts;
        QCOMPARE(compute0.valueAt(150'000), 1.0f); // B on GPU 0
        QCOMPARE(compute0.valueAt(500'000), 0.0f); // D is GPU 1's
        QCOMPARE(find(LaneKind::ComputeActivity, 1).counts.valueAt(500'000), 1.0f);
        QCOMPARE(find(LaneKind::Bandwidth, 0).counts.valueAt(50'000), 50.0f); // 5 MB in 100 µs
        QCOMPARE(find(LaneKind::Bandwidth, 0).d2hBandwidth.maxValue, 0.0f);
        QCOMPARE(find(LaneKind::Bandwidth, 1).d2hBandwidth.valueAt(700'000), 50.0f);
        QCOMPARE(find(LaneKind::Bandwidth, 0).peakGBs, 63.0);
        QCOMPARE(find(LaneKind::Bandwidth, 1).peakGBs, 32.0);
        QCOMPARE(find(LaneKind::Bandwidth, 1).subtitle, QStringLiteral("GB/s · link 32.0"));

        for (auto &s : trace.streams)
            s.device = 0;
        std::erase_if(trace.repetitions[0].ops,
                      [](const engine::OpRecord &o) { return o.kind == engine::OpKind::CopyP2P; });
        const LaneModel one(trace, 0);
        QVERIFY(one.devices().empty());
        for (const auto &lane : one.lanes())
            QCOMPARE(lane.device, -1);
        QCOMPARE(one.lanes().back().kind, LaneKind::Bandwidth);
        QCOMPARE(one.lanes().back().peakGBs, 63.0); // the fastest link of the trace
    }

    // A CUPTI-timed trace: an op that waited between ready and execution gets a queued segment in its
    // stream's lane, and the pointer on it picks the op. Event-timed: none (the wait is in the bar).
    // With solo baselines the stream lanes carry, per op slower than alone beyond the rounds' noise, the part
    // from where it would have ended alone to where it ended; the painter marks and tints it.
    void slowedSegmentsFromSoloBaselines()
    {
        streamscope::test::TraceBuilder b;
        b.stream({"mem", 0, 1, 0, true, false}).stream({"copy", 0, 2, 0, true, false}).thread("main", 1);
        b.device(engine::DeviceInfo{});
        engine::Trace &t = b.trace();
        t.solo.parts = {"mem", "copy"};
        t.solo.streamPart = {0, 1};
        const auto us = [](std::int64_t v) { return v * 1000; };
        for (int r = 0; r < 3; ++r) {
            const std::int64_t base = r * 10'000;
            b.repetition();
            b.onStream(0).kernel(us(base), us(base + 1200 + r)).named("kernel").host(us(base - 5), us(base - 4));
            const engine::OpRecord k = b.last();
            b.onStream(1).d2d(us(base + 100), us(base + 1100), 1 << 20).named("copy").host(us(base - 3), us(base - 2));
            const engine::OpRecord c = b.last();
            for (int part = 0; part < 2; ++part) {
                engine::SoloRun run;
                run.part = part;
                run.round = r;
                engine::OpRecord op = part == 0 ? k : c;
                op.gpuStartNs = (base + 5000) * 1000;
                op.gpuEndNs = op.gpuStartNs + 1'000'000 + (part == 0 ? 0 : 2'000 * (r - 1)); // the copy: noise
                run.ops = {op};
                t.solo.runs.push_back(run);
            }
        }
        const LaneModel model(t, 0);
        const IntervalLane *mem = nullptr, *copy = nullptr;
        for (int i = 0; i < model.laneCount(); ++i)
            if (model.lane(i).kind == LaneKind::Stream)
                (model.lane(i).title == QStringLiteral("mem") ? mem : copy) = &model.lane(i).slowed;
        QVERIFY(mem && copy);
        QCOMPARE(mem->size(), std::size_t(1));
        QCOMPARE(mem->starts[0],
                 qint64(1'005'000)); // its start (5 us after the host call that began the repetition) + 1 ms alone
        QCOMPARE(mem->ends[0], qint64(1'205'000));
        QCOMPARE(copy->size(), std::size_t(0)); // as fast as alone, within the rounds' spread
        t.solo = {};
        for (int i = 0; i < LaneModel(t, 0).laneCount(); ++i)
            QCOMPARE(LaneModel(t, 0).lane(i).slowed.size(), std::size_t(0));
    }

    // Pieces (engine::OpPiece) go on their op's stream lane, on the lane's axis, coloured by what they were:
    // a kernel, a copy between two GPUs, a copy within one.
    void piecesOnTheirStream()
    {
        const engine::Trace t = streamscope::test::withPieces(streamscope::test::handTrace(1));
        const LaneModel model(t, 0);
        const IntervalLane &s0 = model.lane(model.streamLane(0)).pieces; // op B's two kernels
        const IntervalLane &s1 = model.lane(model.streamLane(1)).pieces; // op D's copy, GPU 0 -> GPU 1
        QCOMPARE(s0.size(), std::size_t(2));
        QCOMPARE(s0.ops[0], 1);
        QCOMPARE(s0.starts[0], t.repetitions[0].opPieces[0].startNs - model.originNs());
        QCOMPARE(s0.ends[1], t.repetitions[0].ops[1].gpuEndNs - model.originNs());
        QVERIFY(engine::OpKind(s0.styles[0]) == engine::OpKind::Kernel);
        QCOMPARE(s1.size(), std::size_t(1));
        QVERIFY(engine::OpKind(s1.styles[0]) == engine::OpKind::CopyP2P);
        const engine::Trace plain = streamscope::test::handTrace(1);
        QCOMPARE(LaneModel(plain, 0).lane(model.streamLane(0)).pieces.size(), std::size_t(0));
    }

    void queuedSegments()
    {
        streamscope::test::TraceBuilder b;
        b.timing(engine::TimingSource::Cupti).stream(engine::StreamInfo{}).stream(engine::StreamInfo{});
        auto add = [&](int stream, qint64 ready, qint64 start, qint64 end) {
            b.onStream(stream).h2d(start, end, 1000).host(ready - 10, ready - 5).events(ready, engine::kNoTime);
        };
        add(0, 100, 100, 200); // ran at once
        add(1, 100, 200, 300); // queued 100..200 behind it
        engine::Trace trace = b.build();
        const LaneModel model(trace, 0);
        const int s0 = model.streamLane(0), s1 = model.streamLane(1);
        QCOMPARE(model.lane(s0).queued.size(), std::size_t(0));
        const IntervalLane &q = model.lane(s1).queued;
        QCOMPARE(q.size(), std::size_t(1));
        const qint64 origin = model.originNs(); // the first host call, at 90
        QCOMPARE(origin, 90);
        QCOMPARE(q.starts[0], 100 - origin); // ready to run (the later of stream-ready and host-call end)
        QCOMPARE(q.ends[0], 200 - origin); // execution start
        QCOMPARE(q.ops[0], 1);
        QCOMPARE(model.opAt(s1, 150 - origin, 0), 1); // on the queued segment
        QCOMPARE(model.opAt(s1, 250 - origin, 0), 1); // on the bar
        QCOMPARE(model.opAt(s0, 250 - origin, 0), -1);

        trace.timing = engine::TimingSource::Events;
        const LaneModel events(trace, 0);
        QCOMPARE(events.lane(events.streamLane(1)).queued.size(), std::size_t(0));
    }

    // A copy from pageable memory is staged through a pinned buffer by the CPU inside its host call, so
    // it is in flight from the call's start: the H2D counts and the bandwidth lane include the staging,
    // at bytes over the whole transfer (what a loop timed around the call measures), while its stream
    // bar stays the DMA that CUPTI timed.
    void stagedCopyIsInFlightFromItsHostCall()
    {
        engine::Trace trace = streamscope::test::TraceBuilder()
                                  .timing(engine::TimingSource::Cupti)
                                  .stream(engine::StreamInfo{})
                                  .h2d(800, 1000, 10'000) // the DMA that CUPTI saw
                                  .memory(engine::MemKind::Pageable, engine::MemKind::Device)
                                  .host(0, 900) // the CPU staged the bytes for 900 ns
                                  .build();
        QCOMPARE(trace.repetitions[0].ops[0].gbPerSecond(), 10.0); // 10 kB over 1000 ns, not over the 200 ns DMA
        const LaneModel model(trace, 0);
        const int stream = model.streamLane(0);
        QCOMPARE(model.lane(stream).intervals.starts[0], 800); // the bar: the DMA
        const auto &h2d = model.lane(stream + 1).counts;
        QCOMPARE(h2d.valueAt(100), 1.0f); // in flight while the CPU stages it
        QCOMPARE(h2d.valueAt(1000), 0.0f);
        QCOMPARE(model.lane(model.laneCount() - 1).counts.valueAt(500), 10.0f);
        // Pinned, the transfer is the DMA alone.
        trace.repetitions[0].ops[0].srcMem = engine::MemKind::Pinned;
        QCOMPARE(trace.repetitions[0].ops[0].gbPerSecond(), 50.0);
    }

    // Graph mode: the ops have no calls of their own; the thread that launched the graph still has its lane, with
    // the launch on a row under it, titled as a graph launch (not as CPU ops, and not a second time elsewhere).
    void graphLaunchUnderItsThread()
    {
        engine::Trace trace = streamscope::test::TraceBuilder()
                                  .timing(engine::TimingSource::Cupti)
                                  .thread("main")
                                  .stream("s0")
                                  .kernel(100, 200)
                                  .kernel(210, 300)
                                  .build();
        for (engine::OpRecord &op : trace.repetitions[0].ops) {
            op.hostStartNs = op.hostEndNs = engine::kNoTime;
            op.flags |= engine::OpFlagGraphNode;
        }
        engine::HostRange launch;
        launch.startNs = 0;
        launch.endNs = 50;
        launch.nameId = trace.intern("cudaGraphLaunch (2 nodes)");
        launch.hostThread = 0;
        launch.category = engine::HostRangeCategory::Launch;
        trace.repetitions[0].hostRanges.push_back(launch);
        const LaneModel model(trace, 0);
        QVERIFY(model.lane(0).kind == LaneKind::HostThread);
        QCOMPARE(model.lane(0).title, QStringLiteral("main"));
        QCOMPARE(model.lane(0).subtitle, QStringLiteral("its graph launches below"));
        QVERIFY(model.lane(1).kind == LaneKind::HostRanges);
        QCOMPARE(model.lane(1).title, QStringLiteral("graph launch"));
        QCOMPARE(model.lane(1).intervals.size(), std::size_t(1));
        int rangeRows = 0;
        for (int i = 0; i < model.laneCount(); ++i)
            rangeRows += model.lane(i).kind == LaneKind::HostRanges;
        QCOMPARE(rangeRows, 1);
        QVERIFY(model.lane(2).kind == LaneKind::Stream);
    }

    // A channel that ran the copies of several streams gets a lane under the D2H counts, holding them
    // all; a channel of one stream's copies does not (its lane would repeat the stream's).
    void copyEngineLanes()
    {
        streamscope::test::TraceBuilder b;
        b.timing(engine::TimingSource::Cupti).stream(engine::StreamInfo{}).stream(engine::StreamInfo{});
        auto add = [&](engine::OpKind kind, int stream, qint64 start, qint64 end, std::int16_t channel) {
            b.onStream(stream).op(kind, start, end, 1000).channel(channel, engine::ChannelType::AsyncCopy);
        };
        add(engine::OpKind::CopyH2D, 0, 0, 100, 7);
        add(engine::OpKind::CopyH2D, 1, 100, 200, 7);
        add(engine::OpKind::CopyD2H, 0, 150, 250, 9);
        engine::Trace trace = b.build();
        const LaneModel model(trace, 0);
        // 2 streams, H2D, D2H, channel 7 (two streams' copies), bandwidth (no compute: no compute lane);
        // channel 9 has one stream's
        QCOMPARE(model.laneCount(), 6);
        QVERIFY(model.lane(3).kind == LaneKind::D2HActivity);
        QVERIFY(model.lane(4).kind == LaneKind::CopyEngine);
        QCOMPARE(model.lane(4).title, QStringLiteral("copy channel 7"));
        QCOMPARE(model.lane(4).subtitle, QStringLiteral("H2D · 2 copies · 2 streams"));
        QCOMPARE(model.lane(4).intervals.ops, (std::vector<qint32>{0, 1}));
        QCOMPARE(model.opAt(4, 150, 0), 1);
        QVERIFY(model.lane(5).kind == LaneKind::Bandwidth);
        // Without channels (events, imports), no engine lanes.
        trace.repetitions[0].ops[0].channel = -1;
        trace.repetitions[0].ops[1].channel = -1;
        trace.repetitions[0].ops[2].channel = -1;
        QCOMPARE(LaneModel(trace, 0).laneCount(), 5);
    }

    void unifiedMemoryLanes()
    {
        streamscope::test::TraceBuilder b;
        b.timing(engine::TimingSource::Cupti).stream(engine::StreamInfo{}).kernel(1'000, 9'000);
        engine::Trace trace = b.build();
        engine::Repetition &rep = trace.repetitions[0];
        auto add = [&](engine::ActivityKind kind, qint64 start, qint64 end, std::uint64_t value, int op) {
            engine::ActivityRecord a;
            a.kind = kind;
            a.startNs = start;
            a.endNs = end;
            a.value = value;
            a.op = op;
            rep.activities.push_back(a);
        };
        add(engine::ActivityKind::GpuPageFaults, 1'500, 3'000, 40, 0);
        add(engine::ActivityKind::MigrationH2D, 2'000, 2'500, 2u << 20, 0);
        add(engine::ActivityKind::MigrationH2D, 2'600, 3'100, 2u << 20, 0);
        add(engine::ActivityKind::MigrationD2H, 10'000, 12'000, 4u << 20, -1);
        add(engine::ActivityKind::Synchronization, 100, 200, 0, -1); // not drawn: no lane for it
        const LaneModel model(trace, 0);
        // stream, compute, page migration, GPU page faults (no copies: no copy or bandwidth lanes)
        QCOMPARE(model.laneCount(), 4);
        QCOMPARE(model.durationNs(), qint64(12'000 - 100)); // the extent takes the records in
        const int migration = 2, faults = 3;
        QVERIFY(model.lane(migration).kind == LaneKind::Migration);
        QCOMPARE(model.lane(migration).subtitle, QStringLiteral("3 migrations · 4 MiB H2D · 4 MiB D2H"));
        QCOMPARE(model.lane(migration).intervals.ops, (std::vector<qint32>{1, 2, 3})); // activity indexes
        QCOMPARE(int(model.lane(migration).intervals.styles[0]), int(engine::OpKind::CopyH2D));
        QCOMPARE(int(model.lane(migration).intervals.styles[2]), int(engine::OpKind::CopyD2H));
        QVERIFY(model.lane(faults).kind == LaneKind::PageFaults);
        QCOMPARE(model.lane(faults).subtitle, QStringLiteral("40 faults in 1 group"));
        // Picking: the activity under the pointer, and the op it belongs to (none for the D2H one).
        const qint64 o = model.originNs();
        QCOMPARE(model.activityAt(migration, 2'700 - o, 0), 2);
        QCOMPARE(model.opAt(migration, 2'700 - o, 0), 0);
        QCOMPARE(model.activityAt(migration, 11'000 - o, 0), 3);
        QCOMPARE(model.opAt(migration, 11'000 - o, 0), -1);
        QCOMPARE(model.activityAt(faults, 2'000 - o, 0), 0);
        QCOMPARE(model.activityAt(0, 2'000 - o, 0), -1); // a stream lane has no activities
        // No records, no lanes.
        trace.repetitions[0].activities.clear();
        QCOMPARE(LaneModel(trace, 0).laneCount(), 2);
    }

    void overlappingCounts()
    {
        // Three H2D copies on three streams, overlapping: the count climbs to 3 and comes back.
        streamscope::test::TraceBuilder b;
        for (int s = 0; s < 3; ++s)
            b.stream(engine::StreamInfo{}).h2d(100 + 10 * s, 200 + 10 * s, 1000);
        const engine::Trace trace = b.build();
        const LaneModel model(trace, 0);
        QCOMPARE(model.laneCount(), 3 + 2); // no host lane (no host calls); H2D and bandwidth, nothing empty
        QVERIFY(model.lane(4).kind == LaneKind::Bandwidth);
        const auto &h2d = model.lane(3).counts;
        QCOMPARE(h2d.maxValue, 3.0f);
        QCOMPARE(h2d.valueAt(125 - 100), 3.0f);
        QCOMPARE(h2d.valueAt(205 - 100), 2.0f);
        QCOMPARE(h2d.valueAt(215 - 100), 1.0f);
        QCOMPARE(h2d.valueAt(221 - 100), 0.0f);
    }

    void sortsUnsortedImports()
    {
        // Imports may list ops in any order; the lane must come out sorted with a running max end.
        streamscope::test::TraceBuilder b;
        b.stream(engine::StreamInfo{});
        const std::vector<std::pair<int, int>> spans = {{500, 600}, {100, 900}, {300, 350}, {0, 50}, {950, 1000}};
        for (auto [s, e] : spans)
            b.kernel(s, e);
        const engine::Trace trace = b.build();
        const LaneModel model(trace, 0);
        const IntervalLane &lane = model.lane(0).intervals;
        QCOMPARE(lane.size(), spans.size());
        QVERIFY(std::is_sorted(lane.starts.begin(), lane.starts.end()));
        QVERIFY(std::is_sorted(lane.maxEnds.begin(), lane.maxEnds.end()));
        QCOMPARE(lane.maxEnds.size(), spans.size()); // overlapping: the running max is kept
        QCOMPARE(lane.ops[0], 3);
        QCOMPARE(lane.ops[1], 1);
        QCOMPARE(lane.maxEnd(2), 900); // {300,350} after {100,900}

        // The long op {100, 900} is visible in a window that starts after every later start.
        auto [first, last] = lane.visible(700, 800);
        bool sawLong = false;
        for (std::size_t k = first; k < last; ++k)
            sawLong = sawLong || lane.ops[k] == 1;
        QVERIFY(sawLong);
        std::tie(first, last) = lane.visible(60, 90); // a gap: nothing intersects
        for (std::size_t k = first; k < last; ++k)
            QVERIFY(!(lane.starts[k] < 90 && lane.ends[k] > 60));
        std::tie(first, last) = lane.visible(2000, 3000);
        QCOMPARE(first, last);

        // Picking prefers the shortest op containing the time, else the nearest within tolerance.
        QCOMPARE(model.opAt(0, 320, 0), 2);
        QCOMPARE(model.opAt(0, 700, 0), 1);
        QCOMPARE(model.opAt(0, 60, 5), -1);
        QCOMPARE(model.opAt(0, 60, 15), 3);
        QCOMPARE(model.opAt(0, 940, 15), 0 + 4); // {950, 1000} is op 4
        QCOMPARE(model.opAt(99, 0, 0), -1);
    }

    void visibleSlice_data()
    {
        QTest::addColumn<qint64>("from");
        QTest::addColumn<qint64>("to");
        QTest::addColumn<int>("count");
        QTest::newRow("all") << qint64(0) << qint64(1000) << 10;
        QTest::newRow("first op") << qint64(0) << qint64(5) << 1;
        QTest::newRow("touching end excluded") << qint64(10) << qint64(20) << 1; // [10,20) meets [0,10) only at 10
        QTest::newRow("middle") << qint64(35) << qint64(65) << 4;
        QTest::newRow("after") << qint64(200) << qint64(300) << 0;
    }
    void visibleSlice()
    {
        QFETCH(qint64, from);
        QFETCH(qint64, to);
        QFETCH(int, count);
        // Ten back-to-back ops of 10 ns: [0,10) [10,20) ... [90,100)
        streamscope::test::TraceBuilder b;
        b.stream(engine::StreamInfo{});
        for (int i = 0; i < 10; ++i)
            b.kernel(10 * i, 10 * i + 10);
        const engine::Trace trace = b.build();
        const LaneModel model(trace, 0);
        const auto &lane = model.lane(0).intervals;
        QVERIFY(lane.maxEnds.empty()); // back-to-back: ends serve as the running max, no extra array
        QCOMPARE(lane.maxEnd(9), 100);
        const auto [first, last] = lane.visible(from, to);
        int intersecting = 0;
        for (std::size_t k = first; k < last; ++k)
            if (lane.starts[k] < to && lane.ends[k] > from)
                ++intersecting;
        QCOMPARE(intersecting, count);
        // The slice holds no more than one op that does not intersect on each side.
        QVERIFY(int(last - first) <= count + 2);
    }

    void stepSeriesMinMax()
    {
        // A long series (several super-blocks and a ragged tail): the block summaries must give the same
        // min/max as a plain scan over any range.
        streamscope::ui::StepSeries s;
        const std::size_t n = 5000;
        for (std::size_t i = 0; i < n; ++i) {
            s.times.push_back(qint64(i) * 10);
            s.values.push_back(float((i * 7919) % 1000) / 10.0f);
        }
        s.finish();
        QCOMPARE(s.blockMin.size(), n / streamscope::ui::StepSeries::kBlock);
        QVERIFY(!s.superMin.empty());
        const std::vector<std::pair<std::size_t, std::size_t>> ranges = {
            {0, 1}, {0, 32}, {0, 5000}, {1, 4999}, {31, 33}, {100, 1200}, {1023, 3073}, {4090, 5000}, {17, 18}};
        for (auto [a, b] : ranges) {
            float lo = std::numeric_limits<float>::infinity(), hi = -lo;
            s.minMax(a, b, lo, hi);
            const auto [mn, mx] =
                std::minmax_element(s.values.begin() + std::ptrdiff_t(a), s.values.begin() + std::ptrdiff_t(b));
            QCOMPARE(lo, *mn);
            QCOMPARE(hi, *mx);
        }
    }

    void badRepetition()
    {
        const auto trace = streamscope::test::makeTimelineTrace();
        try {
            LaneModel model(*trace, 3);
            QFAIL("expected an error");
        } catch (const engine::Error &e) {
            QVERIFY(e.kind() == engine::ErrorKind::InvalidInput);
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("repetition 3")), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(engine::Error, LaneModel(*trace, -1));
    }

    void deviceToDeviceCopies()
    {
        // D2D copies (and peer copies, also CopyD2D) get a lane of their own, counted apart from compute.
        streamscope::test::TraceBuilder b;
        b.stream(engine::StreamInfo{}).stream(engine::StreamInfo{});
        b.onStream(0).d2d(0, 100, 4096);
        b.onStream(1).d2d(50, 150, 4096);
        b.onStream(0).kernel(200, 300);
        const engine::Trace trace = b.build();
        const LaneModel model(trace, 0);
        // 2 streams, D2D, compute (no H2D, D2H or bandwidth lane: nothing to show)
        QCOMPARE(model.laneCount(), 4);
        QVERIFY(model.lane(2).kind == LaneKind::D2DActivity);
        QCOMPARE(model.lane(2).title, QStringLiteral("D2D copies"));
        QCOMPARE(model.lane(2).subtitle, QStringLiteral("active: up to 2"));
        QCOMPARE(model.lane(2).counts.valueAt(75), 2.0f);
        QCOMPARE(model.lane(2).counts.valueAt(125), 1.0f);
        QCOMPARE(model.lane(2).counts.valueAt(175), 0.0f);
        QVERIFY(model.lane(3).kind == LaneKind::ComputeActivity);
        // The compute lane counts the kernel only, not the copies.
        QCOMPARE(model.lane(3).counts.maxValue, 1.0f);
        QCOMPARE(model.lane(3).counts.valueAt(75), 0.0f);
        QCOMPARE(model.lane(3).counts.valueAt(250), 1.0f);
    }

    void emptyRepetitionAndIdleStreams()
    {
        engine::Trace trace;
        trace.streams.resize(2);
        trace.repetitions.emplace_back();
        const LaneModel model(trace, 0);
        QCOMPARE(model.durationNs(), 1);
        QCOMPARE(model.laneCount(), 2); // idle streams still get lanes; empty derived lanes do not
        QCOMPARE(model.lane(0).title, QStringLiteral("stream 0"));
        QCOMPARE(model.lane(0).intervals.size(), std::size_t(0));
        QCOMPARE(model.opAt(0, 0, 100), -1);
    }

    void unknownHostThread()
    {
        const engine::Trace trace = streamscope::test::TraceBuilder().hostOp(engine::OpKind::HostWork, 0, 100).build();
        const LaneModel model(trace, 0);
        QVERIFY(model.lane(0).kind == LaneKind::HostThread);
        QCOMPARE(model.lane(0).title, QStringLiteral("host"));
        QCOMPARE(model.hostLane(-1), 0);
    }
};

QTEST_APPLESS_MAIN(TestLaneModel)
#include "tst_lane_model.moc"
