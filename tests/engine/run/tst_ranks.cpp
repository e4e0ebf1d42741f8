// Tests of what the ranks of a job agree on without a GPU or MPI (engine/run/ranks.h): each rank's clock
// offset from round trips (the shortest one's midpoint, to within half of it; 0 where the ranks share a
// clock, with the measurement kept), and one trace of the whole workload from each rank's part: every time
// on rank 0's clock, streams and issue order as the workload has them, each rank's GPU and threads its own,
// the names and launch details carried over, and what each rank recorded differently in the metadata.
#include <QtTest>

#include <string>
#include <vector>

#include "engine/model/errors.h"
#include "engine/run/ranks.h"
#include "engine/workload/rank_part.h"
#include "engine/workload/solo_parts.h"
#include "engine/workload/workload_parser.h"
#include "tests/common/trace_builder.h"

using namespace streamscope::engine;
using streamscope::test::TraceBuilder;

namespace {

// GPU r: a compute stream (one kernel) and a communication stream (one all-reduce), each driven by thread tr.
const char *kWorkload = R"({"version": 2, "name": "two ranks",
  "streams": [
    {"name": "gpu0 compute", "device": 0, "ops": [{"op": "kernel", "duration": "10 us"}]},
    {"name": "gpu0 comm", "device": 0, "ops": [{"op": "collective", "type": "allreduce", "bytes": "1 MiB"}]},
    {"name": "gpu1 compute", "device": 1, "ops": [{"op": "kernel", "duration": "10 us"}]},
    {"name": "gpu1 comm", "device": 1, "ops": [{"op": "collective", "type": "allreduce", "bytes": "1 MiB"}]}
  ],
  "threads": [
    {"name": "t0", "device": 0, "streams": ["gpu0 compute", "gpu0 comm"]},
    {"name": "t1", "device": 1, "streams": ["gpu1 compute", "gpu1 comm"]}
  ]})";

// Rank `rank`'s trace of its part as the runner writes it: its streams in its part's order, on its process's
// GPU `local`, one thread, the ops in its part's issue order at `base` + 100 ns apart on its host's clock
// (`origin`: its first anchor, which the merge must not use), the collective with a launch record naming its
// work.
RankTrace rankTrace(const Workload &w, int rank, int local, std::int64_t origin, std::int64_t base,
                    std::int64_t clockOffset, int repetitions = 1)
{
    const RankPart part = rankPart(w, rank, 2, local);
    TraceBuilder b;
    DeviceInfo other, mine;
    other.index = local == 0 ? 1 : 0;
    other.name = "another GPU of the host";
    mine.index = local;
    mine.name = "GPU of rank " + std::to_string(rank);
    mine.pciBusId = "0000:0" + std::to_string(rank) + ":00.0";
    b.device(other).device(mine);
    for (const StreamSpec &s : part.workload.streams)
        b.stream(s.name, local);
    b.thread("t" + std::to_string(rank), 4000 + std::uint64_t(rank));
    for (int r = 0; r < repetitions; ++r) {
        b.repetition();
        for (std::size_t i = 0; i < part.workload.schedule.size(); ++i) {
            const ScheduledOp &at = part.workload.schedule[i];
            const OpSpec &spec = part.workload.streams[std::size_t(at.stream)].ops[std::size_t(at.op)];
            const std::int64_t t = base + std::int64_t(i) * 100 + r * 10'000;
            b.onStream(at.stream)
                .op(spec.type == OpType::Collective ? OpKind::Collective : OpKind::Kernel, t, t + 50)
                .host(t - 20, t - 10)
                .named(spec.type == OpType::Collective ? "allreduce" : "kernel")
                .opIndex(int(i));
        }
    }
    Trace t = b.build();
    t.calibration.gpuToHostOffsetNs = origin;
    t.metadata["timing"] = "cupti";
    t.metadata["hold"] = rank == 0 ? "no" : "no: a rank's own reason";
    for (Repetition &rep : t.repetitions)
        for (std::size_t i = 0; i < rep.ops.size(); ++i)
            if (rep.ops[i].kind == OpKind::Collective) {
                KernelLaunch k;
                k.op = std::int32_t(i);
                k.workId = t.intern("ncclAllReduce 1 MiB bf16 over 2 GPUs");
                k.busBytes = 1 << 20;
                k.queuedNs = rep.ops[i].gpuStartNs - 5;
                rep.kernelLaunches.push_back(k);
            }
    RankTrace rt;
    rt.trace = std::move(t);
    rt.host = rank == 0 ? "node-a" : "node-b";
    rt.pid = 900 + rank;
    rt.localDevice = local;
    rt.clock.offsetNs = clockOffset;
    rt.clock.errorNs = 40;
    rt.clock.samples = 64;
    return rt;
}

} // namespace

class TestRanks : public QObject {
    Q_OBJECT

private slots:
    void theShortestRoundTripGivesTheOffset()
    {
        // The rank's clock runs 5000 ns ahead; each answer is read somewhere inside its trip.
        const std::vector<ClockSample> samples = {
            {1000, 1000 + 5000 + 900, 2000}, // a 1000 ns trip, read late in it
            {3000, 3000 + 5000 + 30, 3100}, // 100 ns: the best
            {4000, 4000 + 5000 + 10, 4600},
        };
        const ClockOffset c = estimateClockOffset(samples, false);
        QCOMPARE(c.samples, 3);
        QCOMPARE(c.errorNs, std::int64_t(50));
        QCOMPARE(c.offsetNs, std::int64_t(5000 + 30 - 50));
        QVERIFY(std::abs(c.offsetNs - 5000) <= c.errorNs);
        QCOMPARE(c.measuredNs, c.offsetNs);
        QVERIFY(!c.sameClock);
    }

    void oneClockIsZeroWithTheMeasurementKept()
    {
        const ClockOffset c = estimateClockOffset({{100, 160, 200}, {300, 390, 500}}, true);
        QVERIFY(c.sameClock);
        QCOMPARE(c.offsetNs, std::int64_t(0));
        QCOMPARE(c.errorNs, std::int64_t(0));
        QCOMPARE(c.measuredNs, std::int64_t(10)); // 160 - (100 + 50)
        QCOMPARE(c.measuredErrorNs, std::int64_t(50));
    }

    void badSamplesAreRefused()
    {
        QVERIFY_THROWS_EXCEPTION(Error, estimateClockOffset({}, false));
        try {
            estimateClockOffset({{500, 0, 400}}, false);
            QFAIL("a trip that ends before it began was accepted");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find("ended before it began") != std::string::npos, e.what());
        }
    }

    void theRanksTracesBecomeOne()
    {
        const Workload w = parseWorkload(kWorkload, "w.json");
        // Rank 0 on GPU 0 of node-a; rank 1 on GPU 0 of node-b (multi-node: both are their machine's GPU 0),
        // whose clock is 500 ns ahead; their first anchors (the calibration's offsets) 3 us apart.
        std::vector<RankTrace> ranks;
        ranks.push_back(rankTrace(w, 0, 0, 1'000'000, 1000, 0));
        ranks.push_back(rankTrace(w, 1, 0, 1'003'000, 3100, 500));
        const Trace m = mergeRankTraces(w, std::move(ranks));

        QCOMPARE(m.streams.size(), std::size_t(4));
        for (std::size_t s = 0; s < 4; ++s) {
            QCOMPARE(m.streams[s].name, w.streams[s].name);
            QCOMPARE(m.streams[s].device, int(s / 2));
        }
        QCOMPARE(m.devices.size(), std::size_t(2));
        QCOMPARE(m.devices[0].index, 0);
        QCOMPARE(m.devices[1].index, 1);
        QCOMPARE(m.devices[1].name, std::string("GPU of rank 1"));
        QCOMPARE(m.hostThreads.size(), std::size_t(2));
        QCOMPARE(m.hostThreads[1].name, std::string("rank 1 \u00b7 t1"));
        QCOMPARE(m.hostThreads[1].processId, std::int64_t(901));
        QVERIFY(m.hostThreads[0].processId != m.hostThreads[1].processId);

        QCOMPARE(m.repetitions.size(), std::size_t(1));
        const Repetition &rep = m.repetitions[0];
        QCOMPARE(rep.ops.size(), w.schedule.size());
        for (std::size_t i = 0; i < rep.ops.size(); ++i) {
            const OpRecord &op = rep.ops[i];
            QCOMPARE(op.opIndex, std::int32_t(i));
            QCOMPARE(op.stream, w.schedule[i].stream); // the op is where the workload's issue order has it
            QCOMPARE(m.name(op), std::string(op.kind == OpKind::Collective ? "allreduce" : "kernel"));
            QCOMPARE(m.hostThreads[std::size_t(op.hostThread)].name.substr(0, 6),
                     "rank " + std::to_string(op.stream / 2));
        }
        // Rank 1's first op ran at 3,100 on its clock: 2,600 on rank 0's.
        const RankPart part1 = rankPart(w, 1, 2, 0);
        const OpRecord &first1 = rep.ops[std::size_t(part1.schedule[0])];
        QCOMPARE(first1.gpuStartNs, std::int64_t(2600));
        QCOMPARE(first1.gpuEndNs, std::int64_t(2650));
        QCOMPARE(first1.hostStartNs, std::int64_t(2580));
        // Rank 0's are as they were.
        const RankPart part0 = rankPart(w, 0, 2, 0);
        QCOMPARE(rep.ops[std::size_t(part0.schedule[0])].gpuStartNs, std::int64_t(1000));
        // The collectives' launch records: one per rank, on their ops, sorted, their work named.
        QCOMPARE(rep.kernelLaunches.size(), std::size_t(2));
        QVERIFY(rep.kernelLaunches[0].op < rep.kernelLaunches[1].op);
        for (const KernelLaunch &k : rep.kernelLaunches) {
            QVERIFY(rep.ops[std::size_t(k.op)].kind == OpKind::Collective);
            QCOMPARE(m.string(k.workId), std::string("ncclAllReduce 1 MiB bf16 over 2 GPUs"));
            QCOMPARE(k.queuedNs, rep.ops[std::size_t(k.op)].gpuStartNs - 5);
        }
        // Where each rank ran, its clock, and what it recorded differently.
        QCOMPARE(m.metadata.at("ranks"), std::string("2 processes: rank 0 on node-a GPU 0, rank 1 on node-b GPU 0"));
        QCOMPARE(m.metadata.at("rank1.clock_offset_ns"), std::string("500"));
        QCOMPARE(m.metadata.at("rank1.clock_error_ns"), std::string("40"));
        QCOMPARE(m.metadata.at("rank1.gpu"), std::string("0 (0000:01:00.0)"));
        QCOMPARE(m.metadata.at("rank1.hold"), std::string("no: a rank's own reason"));
        QVERIFY(!m.metadata.count("rank1.timing"));
        QCOMPARE(m.metadata.at("devices"), std::string("0,1"));
    }

    void onlyTheRepetitionsEveryRankMeasuredAreKept()
    {
        const Workload w = parseWorkload(kWorkload, "w.json");
        std::vector<RankTrace> ranks;
        ranks.push_back(rankTrace(w, 0, 0, 0, 1000, 0, 3));
        ranks.push_back(rankTrace(w, 1, 1, 0, 1000, 0, 2));
        const Trace m = mergeRankTraces(w, std::move(ranks));
        QCOMPARE(m.repetitions.size(), std::size_t(2));
        QVERIFY(m.metadata.count("rank0.repetitions_left_out"));
        QCOMPARE(m.repetitions[1].ops[0].gpuStartNs, std::int64_t(11'000));
    }

    void soloRoundsOfEveryRankBecomeOne()
    {
        const Workload w = parseWorkload(kWorkload, "w.json");
        std::vector<RankTrace> ranks;
        for (int r = 0; r < 2; ++r) {
            RankTrace t = rankTrace(w, r, r, 0, 1000, r == 1 ? 300 : 0);
            const RankPart part = rankPart(w, r, 2, r);
            const SoloParts parts = soloParts(part.workload);
            QCOMPARE(parts.names, (std::vector<std::string>{"gpu0 compute", "gpu0 comm", "gpu1 compute", "gpu1 comm"}));
            t.trace.solo.parts = parts.names;
            t.trace.solo.streamPart = parts.streamPart;
            // After the one repetition each part alone: the rank's own op of it, or nothing.
            for (int p = 0; p < 4; ++p) {
                SoloRun run;
                run.part = p;
                run.round = 0;
                for (std::size_t i = 0; i < part.workload.schedule.size(); ++i)
                    if (parts.opPart[i] == p) {
                        OpRecord op = t.trace.repetitions[0].ops[i];
                        op.gpuStartNs += 50'000;
                        op.gpuEndNs += 50'000;
                        run.ops.push_back(op);
                    }
                t.trace.solo.runs.push_back(run);
            }
            ranks.push_back(std::move(t));
        }
        const Trace m = mergeRankTraces(w, std::move(ranks));
        QCOMPARE(m.solo.parts.size(), std::size_t(4));
        QCOMPARE(m.solo.streamPart, (std::vector<std::int32_t>{0, 1, 2, 3}));
        QCOMPARE(m.solo.runs.size(), std::size_t(4));
        for (const SoloRun &run : m.solo.runs) {
            QCOMPARE(run.ops.size(), std::size_t(1));
            const OpRecord &op = run.ops[0];
            QCOMPARE(op.stream, run.part); // each part is one stream here
            QCOMPARE(op.opIndex, std::int32_t(run.part == 0 ? 0 : run.part == 1 ? 1 : run.part == 2 ? 2 : 3));
            // As the op of the mix, 50 us later: on rank 0's clock for both ranks.
            QCOMPARE(op.gpuStartNs, m.repetitions[0].ops[std::size_t(op.opIndex)].gpuStartNs + 50'000);
        }
        QVERIFY(m.solo.missing.empty());
    }

    void theMachinesLinksBetweenTheRanksGpus()
    {
        std::vector<PeerLink> host;
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
                if (a != b) {
                    PeerLink l;
                    l.src = a;
                    l.dst = b;
                    l.link = LinkType::NvLink;
                    l.accessSupported = true;
                    l.accessEnabled = true;
                    l.peakGBps = 100.0 * a + b; // which pair it was
                    host.push_back(l);
                }
        const std::vector<PeerLink> links = rankLinks(host, {2, 0});
        QCOMPARE(links.size(), std::size_t(2));
        QCOMPARE(links[0].src, 0);
        QCOMPARE(links[0].dst, 1);
        QCOMPARE(links[0].peakGBps, 200.0); // host GPU 2 -> GPU 0
        QCOMPARE(links[1].peakGBps, 2.0); // host GPU 0 -> GPU 2
        QVERIFY(!links[0].accessEnabled && links[0].accessSupported);
        QVERIFY(rankLinks(host, {1}).empty());
    }

    void aTraceOfAnotherWorkloadIsRefused()
    {
        const Workload w = parseWorkload(kWorkload, "w.json");
        std::vector<RankTrace> ranks;
        ranks.push_back(rankTrace(w, 0, 0, 0, 1000, 0));
        ranks.push_back(rankTrace(w, 1, 1, 0, 1000, 0));
        ranks[1].trace.repetitions[0].ops.pop_back();
        try {
            mergeRankTraces(w, std::move(ranks));
            QFAIL("a rank's trace with an op missing was merged");
        } catch (const Error &e) {
            QVERIFY(e.kind() == ErrorKind::InvalidInput);
            QVERIFY2(std::string(e.what()).find("rank 1's trace has 1 ops in repetition 0, but its part of the "
                                                "workload has 2")
                         != std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestRanks)
#include "tst_ranks.moc"
