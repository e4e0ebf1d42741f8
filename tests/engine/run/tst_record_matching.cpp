// Tests of CUPTI record matching without a GPU, fed synthetic records: execution records tied to their op
// by external id (several records of one call, other repetitions, the runner's own work), ops whose record
// never came, CUDA event records that replace the anchor's mapping or are refused, unified-memory records
// tied to the op that touches their pages, a prefetch timed by its migrations, lost unified-memory records,
// staged peer copies, the fall-back to events and the metadata a run's records leave.
#include <QtTest>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/run/record_matching.h"
#include "engine/workload/workload.h"
#include "engine/workload/workload_parser.h"

using namespace streamscope::engine;

namespace {

constexpr std::uint32_t kSeq = 7;
constexpr std::uint64_t kMiB = 1ull << 20;

// Stream 0: H2D, kernel, memset. Stream 1: a prefetch of the managed buffer, then a kernel on it.
const char *kWorkload = R"({"version": 1, "name": "w", "repetitions": 1,
  "buffers": [{"name": "h", "kind": "pinned", "bytes": "16 MiB"}, {"name": "d", "kind": "device", "bytes": "16 MiB"},
              {"name": "m", "kind": "managed", "bytes": "8 MiB"}],
  "streams": [
    {"name": "s0", "ops": [{"op": "copy", "src": "h", "dst": "d", "bytes": "16 MiB"}, {"op": "kernel", "duration": "1 ms"},
                           {"op": "memset", "buffer": "d", "bytes": "1 MiB"}]},
    {"name": "s1", "ops": [{"op": "prefetch", "buffer": "m", "location": 0},
                           {"op": "kernel", "type": "memory", "buffer": "m"}]}
  ]})";

cupti::GpuRecord execution(cupti::GpuRecord::Kind kind, std::size_t op, std::int64_t start, std::int64_t end,
                           std::uint32_t seq = kSeq)
{
    cupti::GpuRecord g;
    g.kind = kind;
    g.externalId = opExternalId(seq, op);
    g.correlationId = 100 + std::uint32_t(op);
    g.startNs = start;
    g.endNs = end;
    return g;
}

// A repetition of `ops` with their kinds and nothing timed yet, and the records' context where every op ran.
Repetition untimed(const std::vector<PlannedOp> &ops)
{
    Repetition rep;
    rep.ops.resize(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i)
        rep.ops[i].kind = ops[i].kind;
    return rep;
}

RepetitionRecords everyOpRan(const std::vector<PlannedOp> &ops)
{
    RepetitionRecords context;
    context.repSeq = kSeq;
    context.inRun.assign(ops.size(), true);
    context.events.resize(ops.size());
    return context;
}

cupti::GpuRecord migration(std::uint64_t address, std::uint64_t bytes, std::int64_t start, std::int64_t end,
                           ActivityDetail detail = ActivityDetail::Prefetch)
{
    cupti::GpuRecord g;
    g.kind = cupti::GpuRecord::Kind::UnifiedMemory;
    g.activity = ActivityKind::MigrationH2D;
    g.detail = detail;
    g.address = address;
    g.value = bytes;
    g.startNs = start;
    g.endNs = end;
    return g;
}

struct Fixture {
    Workload workload = parseWorkload(kWorkload);
    Trace trace;
    std::vector<PlannedOp> ops;
    // Where the buffers lie: h at 1 GiB, d at 2 GiB, m at 3 GiB.
    static constexpr std::uint64_t h = 1ull << 30, d = 2ull << 30, m = 3ull << 30;

    Fixture() { ops = planOps(workload, {}, {}, trace); }

    RecordMatcher matcher() const
    {
        std::vector<OpMemory> memory(ops.size());
        memory[copy] = {0, h, d};
        memory[prefetch] = {m, 0, 0};
        memory[memoryKernel] = {m, 0, 0};
        memory[memset] = {d, 0, 0};
        return RecordMatcher(ops, memory, {{h, 16 * kMiB}, {d, 16 * kMiB}, {m, 8 * kMiB}});
    }

    // The schedule is round-robin: s0 op 0, s1 op 0, s0 op 1, s1 op 1, s0 op 2.
    static constexpr std::size_t copy = 0, prefetch = 1, kernel = 2, memoryKernel = 3, memset = 4;

    // A repetition whose ops the events timed: op i from (i + 1) * 1000 to (i + 1) * 1000 + 500.
    Repetition eventTimed() const
    {
        Repetition rep;
        rep.ops.resize(ops.size());
        for (std::size_t i = 0; i < ops.size(); ++i) {
            OpRecord &r = rep.ops[i];
            r.kind = ops[i].kind;
            r.hostStartNs = std::int64_t(i + 1) * 1000 - 300;
            r.hostEndNs = r.hostStartNs + 100;
            r.readyNs = r.gpuStartNs = std::int64_t(i + 1) * 1000;
            r.eventEndNs = r.gpuEndNs = r.readyNs + 500;
        }
        return rep;
    }

    RepetitionRecords context(bool unifiedMemory = false) const
    {
        RepetitionRecords c;
        c.repSeq = kSeq;
        c.repStartNs = 500;
        c.unifiedMemory = unifiedMemory;
        c.inRun.assign(ops.size(), true);
        c.events.resize(ops.size());
        return c;
    }
};

} // namespace

class TestRecordMatching : public QObject {
    Q_OBJECT

private slots:
    void ids()
    {
        QCOMPARE(opExternalId(3, 0), (3ull << 32) | 1);
        QCOMPARE(eventExternalId(3, 5), kEventRecordTag | (3ull << 32) | 5);
        QVERIFY(expectsRecord(OpKind::CopyH2D));
        QVERIFY(expectsRecord(OpKind::CopyP2P));
        QVERIFY(expectsRecord(OpKind::Kernel));
        QVERIFY(expectsRecord(OpKind::Memset));
        QVERIFY(expectsRecord(OpKind::Collective)); // what NCCL launched for the call
        QVERIFY(!expectsRecord(OpKind::Prefetch));
        QVERIFY(!expectsRecord(OpKind::EventWait));
    }

    void executionByExternalId()
    {
        Fixture f;
        Repetition rep = f.eventTimed();
        cupti::Batch batch;
        // The copy split in two by the driver: its span. The kernel with its latency timestamps.
        batch.records.push_back(execution(cupti::GpuRecord::Kind::Memcpy, Fixture::copy, 1100, 1200));
        batch.records.back().srcKind = MemKind::Pinned;
        batch.records.back().dstKind = MemKind::Device;
        batch.records.back().channel = 3;
        batch.records.push_back(execution(cupti::GpuRecord::Kind::Memcpy, Fixture::copy, 1250, 1400));
        batch.records.back().srcKind = MemKind::Pinned;
        batch.records.back().dstKind = MemKind::Device;
        cupti::GpuRecord k = execution(cupti::GpuRecord::Kind::Kernel, Fixture::kernel, 3100, 3300);
        k.queuedNs = 2900;
        k.submittedNs = 3000;
        k.channelType = ChannelType::Compute;
        batch.records.push_back(k);
        // Another repetition's record of the memset, the runner's own kernel (id 1), and an op index past
        // the end: none of them is the memset's.
        batch.records.push_back(execution(cupti::GpuRecord::Kind::Memset, Fixture::memset, 9000, 9100, kSeq - 1));
        batch.records.push_back(execution(cupti::GpuRecord::Kind::Kernel, 0, 50, 60, 0));
        batch.records.push_back(execution(cupti::GpuRecord::Kind::Kernel, 99, 50, 60));
        std::map<std::string, std::string> md;
        const MatchResult result = f.matcher().apply(rep, batch, f.context(), md);

        const OpRecord &copy = rep.ops[Fixture::copy];
        QCOMPARE(copy.gpuStartNs, std::int64_t(1100));
        QCOMPARE(copy.gpuEndNs, std::int64_t(1400));
        QVERIFY(copy.driverSrcMem == MemKind::Pinned);
        QCOMPARE(copy.correlation, std::uint32_t(100));
        QCOMPARE(copy.channel, std::int16_t(-1)); // the last record's
        const OpRecord &kernel = rep.ops[Fixture::kernel];
        QCOMPARE(kernel.gpuStartNs, std::int64_t(3100));
        const KernelLaunch *launch = rep.launchOf(Fixture::kernel); // the latency timestamps: its launch's
        QVERIFY(launch);
        QCOMPARE(launch->queuedNs, std::int64_t(2900));
        QCOMPARE(launch->submittedNs, std::int64_t(3000));
        QCOMPARE(rep.kernelLaunches.size(), std::size_t(1));
        QVERIFY(kernel.channelType == ChannelType::Compute);
        // The memset got no record of its own: it keeps its events and is flagged; the memory kernel too.
        QCOMPARE(result.missingRecords, 2);
        QCOMPARE(rep.ops[Fixture::memset].gpuStartNs, std::int64_t(5000));
        QVERIFY(rep.ops[Fixture::memset].flags & OpFlagEventTimed);
        QVERIFY(rep.ops[Fixture::memoryKernel].flags & OpFlagEventTimed);
        // A prefetch expects no record.
        QVERIFY(!(rep.ops[Fixture::prefetch].flags & OpFlagEventTimed));
        QVERIFY(!(copy.flags & OpFlagEventTimed));
        QVERIFY(!result.eventsFromCupti.at(0)); // no event of theirs came

        // In a solo run the ops of the other part did not run: they miss nothing.
        Repetition solo = f.eventTimed();
        RepetitionRecords alone = f.context();
        alone.inRun = {true, false, true, false, true};
        QCOMPARE(f.matcher().apply(solo, batch, alone, md).missingRecords, 1);
    }

    // Graph mode: a record's graph node names the op (the runner's map of CUPTI's node ids, cloned nodes included),
    // whatever correlation CUPTI gave it (on an H200, an earlier cudaEventRecord's, or none): a record of the
    // repetition's graph is one that started in it. A node that is no op's, a record that started before the
    // repetition (an earlier one's), and a record of no node with no id of this repetition's, are nobody's.
    void graphRecordsFindTheirOpsByNode()
    {
        Fixture f;
        Repetition rep = f.eventTimed();
        const std::unordered_map<std::uint64_t, std::int32_t> nodes = {
            {(2ull << 32) | 0, std::int32_t(Fixture::copy)},
            {(2ull << 32) | 1, std::int32_t(Fixture::kernel)},
            {(2ull << 32) | 2, std::int32_t(Fixture::memset)},
            {(2ull << 32) | 3, std::int32_t(Fixture::memoryKernel)}};
        const auto node = [](cupti::GpuRecord::Kind kind, std::uint64_t id, std::int64_t start, std::int64_t end,
                             std::uint32_t seq = kSeq) {
            cupti::GpuRecord g = execution(kind, 0, start, end);
            g.externalId = opExternalId(seq, 999); // no op's: CUPTI's correlation for a node is not its op's
            g.graphNodeId = id;
            return g;
        };
        cupti::Batch batch;
        batch.records.push_back(node(cupti::GpuRecord::Kind::Memcpy, (2ull << 32) | 0, 1100, 1400));
        batch.records.push_back(node(cupti::GpuRecord::Kind::Kernel, (2ull << 32) | 1, 3100, 3300));
        batch.records.push_back(node(cupti::GpuRecord::Kind::Memset, (2ull << 32) | 2, 5100, 5150));
        batch.records.back().externalId = eventExternalId(kSeq - 1, 2); // as CUPTI has it: another call's
        batch.records.push_back(node(cupti::GpuRecord::Kind::Kernel, (2ull << 32) | 3, 500, 600, kSeq - 1));
        batch.records.push_back(node(cupti::GpuRecord::Kind::Kernel, (2ull << 32) | 9, 1500, 1600));
        batch.records.push_back(node(cupti::GpuRecord::Kind::Kernel, 0, 1700, 1800));
        batch.records.back().externalId = 0;
        RepetitionRecords context = f.context();
        context.repStartNs = 1000;
        context.graphNodes = &nodes;
        std::map<std::string, std::string> md;
        const MatchResult result = f.matcher().apply(rep, batch, context, md);
        QCOMPARE(rep.ops[Fixture::copy].gpuStartNs, std::int64_t(1100));
        QCOMPARE(rep.ops[Fixture::copy].gpuEndNs, std::int64_t(1400));
        QCOMPARE(rep.ops[Fixture::kernel].gpuStartNs, std::int64_t(3100));
        QCOMPARE(rep.ops[Fixture::memset].gpuEndNs, std::int64_t(5150));
        // The memory kernel's only record started before the repetition: it keeps its events and says so.
        QCOMPARE(result.missingRecords, 1);
        QVERIFY(rep.ops[Fixture::memoryKernel].flags & OpFlagEventTimed);
        QVERIFY(!(rep.ops[Fixture::kernel].flags & OpFlagEventTimed));

        // Without the map (stream mode), the records' ids are no op's: nothing is matched.
        Repetition streams = f.eventTimed();
        QCOMPARE(f.matcher().apply(streams, batch, f.context(), md).missingRecords, 4);
        QCOMPARE(streams.ops[Fixture::kernel].gpuStartNs, std::int64_t(3000));
    }

    void eventMoments()
    {
        Fixture f;
        Repetition rep = f.eventTimed();
        RepetitionRecords c = f.context();
        // Each op has its own begin and end event; the runner logged them in order.
        std::vector<int> handles(2 * f.ops.size());
        for (std::size_t i = 0; i < f.ops.size(); ++i) {
            c.events[i] = {&handles[2 * i], &handles[2 * i + 1]};
            c.eventLog.push_back(&handles[2 * i]);
            c.eventLog.push_back(&handles[2 * i + 1]);
        }
        cupti::Batch batch;
        // CUPTI's moments are 2 us after the anchor's mapping, for every event.
        for (std::size_t place = 1; place <= c.eventLog.size(); ++place) {
            cupti::GpuRecord g;
            g.kind = cupti::GpuRecord::Kind::Event;
            g.externalId = eventExternalId(kSeq, place);
            const std::size_t op = (place - 1) / 2;
            g.startNs = g.endNs = std::int64_t(op + 1) * 1000 + ((place - 1) % 2 ? 500 : 0) + 2000;
            batch.records.push_back(g);
        }
        batch.records.push_back(execution(cupti::GpuRecord::Kind::Kernel, Fixture::kernel, 5100, 5300));
        std::map<std::string, std::string> md;
        MatchResult result = f.matcher().apply(rep, batch, c, md);
        QCOMPARE(result.eventsFromCupti.size(), std::size_t(1));
        QVERIFY(result.eventsFromCupti.at(0));
        QCOMPARE(rep.ops[Fixture::copy].readyNs, std::int64_t(3000));
        QCOMPARE(rep.ops[Fixture::copy].eventEndNs, std::int64_t(3500));
        // Execution: CUPTI's record where there is one, else the event pair on CUPTI's clock.
        QCOMPARE(rep.ops[Fixture::kernel].gpuStartNs, std::int64_t(5100));
        QCOMPARE(rep.ops[Fixture::memset].gpuStartNs, std::int64_t(7000));
        QVERIFY(md.empty());

        // One event missing: the device is not whole, that op keeps the anchor's times.
        Repetition partial = f.eventTimed();
        cupti::Batch fewer = batch;
        fewer.records.erase(fewer.records.begin()); // the copy's begin
        result = f.matcher().apply(partial, fewer, c, md);
        QVERIFY(!result.eventsFromCupti.at(0));
        QCOMPARE(partial.ops[Fixture::copy].readyNs, std::int64_t(1000));
        QCOMPARE(partial.ops[Fixture::memset].readyNs, std::int64_t(7000));

        // Moments 80 us off the anchor's mapping: CUPTI's conversion is not trusted, and the trace says so.
        Repetition far = f.eventTimed();
        cupti::Batch off = batch;
        for (cupti::GpuRecord &g : off.records)
            if (g.kind == cupti::GpuRecord::Kind::Event)
                g.startNs += 78'000;
        result = f.matcher().apply(far, off, c, md);
        QVERIFY(!result.eventsFromCupti.at(0));
        QCOMPARE(far.ops[Fixture::copy].readyNs, std::int64_t(1000));
        QCOMPARE(md.at("clock_events_refused.device0"),
                 std::string("CUPTI's event timestamps differed from the anchor's mapping by 80000 ns (median): the "
                             "anchor was kept"));

        // Records of another repetition are not this one's.
        Repetition other = f.eventTimed();
        RepetitionRecords later = c;
        later.repSeq = kSeq + 1;
        std::map<std::string, std::string> none;
        QVERIFY(!f.matcher().apply(other, batch, later, none).eventsFromCupti.at(0));
        QCOMPARE(other.ops[Fixture::copy].readyNs, std::int64_t(1000));
    }

    void unifiedMemory()
    {
        Fixture f;
        Repetition rep = f.eventTimed();
        cupti::Batch batch;
        // The prefetch (op 1, 2000..2500) moves the whole 8 MiB in two migrations; the memory kernel (op 3,
        // 4000..4500) migrates a page on demand after a fault group; the runner's own move back to the host
        // before the repetition (100 us before it began) belongs to no op and is left out.
        batch.records.push_back(migration(Fixture::m, 4 * kMiB, 2100, 2200));
        batch.records.push_back(migration(Fixture::m + 4 * kMiB, 4 * kMiB, 2250, 2400));
        cupti::GpuRecord fault = migration(Fixture::m + 4096, 1, 4100, 4100);
        fault.activity = ActivityKind::GpuPageFaults;
        batch.records.push_back(fault);
        batch.records.push_back(migration(Fixture::m, 65536, 4150, 4200, ActivityDetail::Coherence));
        batch.records.push_back(migration(Fixture::m, 8 * kMiB, -100'000, -90'000));
        // A synchronisation record tied by its id.
        cupti::GpuRecord sync = execution(cupti::GpuRecord::Kind::Synchronization, Fixture::memset, 6000, 6100);
        sync.activity = ActivityKind::Synchronization;
        sync.detail = ActivityDetail::StreamSynchronize;
        batch.records.push_back(sync);
        std::map<std::string, std::string> md;
        const MatchResult result = f.matcher().apply(rep, batch, f.context(/*unifiedMemory=*/true), md);
        QCOMPARE(result.unifiedMemoryRecords, std::uint64_t(5));
        QVERIFY(!result.unifiedMemoryLost);
        QCOMPARE(rep.activities.size(), std::size_t(5));
        QCOMPARE(rep.activities[0].op, int(Fixture::prefetch));
        QCOMPARE(rep.activities[1].op, int(Fixture::prefetch));
        QCOMPARE(rep.activities[2].op, int(Fixture::memoryKernel)); // the fault group
        QCOMPARE(rep.activities[3].op, int(Fixture::memoryKernel));
        QCOMPARE(rep.activities[4].op, int(Fixture::memset));
        QVERIFY(rep.activities[4].kind == ActivityKind::Synchronization);
        // The prefetch's execution is its migrations' span.
        QCOMPARE(rep.ops[Fixture::prefetch].gpuStartNs, std::int64_t(2100));
        QCOMPARE(rep.ops[Fixture::prefetch].gpuEndNs, std::int64_t(2400));

        // CUPTI lost the fault groups: migrations on demand without them.
        Repetition noFaults = f.eventTimed();
        cupti::Batch lost = batch;
        lost.records.erase(lost.records.begin() + 2);
        QVERIFY(f.matcher().apply(noFaults, lost, f.context(true), md).unifiedMemoryLost);
        // CUPTI lost most of the prefetch's migrations (3 of 8 MiB came; a large page at either end is allowed for).
        Repetition half = f.eventTimed();
        cupti::Batch part = batch;
        part.records.erase(part.records.begin() + 1);
        part.records[0].value = 3 * kMiB;
        QVERIFY(f.matcher().apply(half, part, f.context(true), md).unifiedMemoryLost);
        // Where the tracer collects no unified-memory records, nothing is judged lost.
        Repetition off = f.eventTimed();
        QVERIFY(!f.matcher().apply(off, part, f.context(false), md).unifiedMemoryLost);
    }

    void batchHelpers()
    {
        cupti::Batch batch;
        batch.records.push_back(migration(1, 1, 100, 200));
        batch.records.push_back(migration(1, 1, 900, 950));
        batch.records.push_back(execution(cupti::GpuRecord::Kind::Kernel, 0, 10, 20));
        QCOMPARE(lateUnifiedMemoryRecords(batch, 500), std::uint64_t(1));
        QCOMPARE(lateUnifiedMemoryRecords(batch, 50), std::uint64_t(0));

        cupti::Batch spins;
        for (const std::int64_t ns : {640, 700, 600, 2000, 650}) {
            cupti::GpuRecord g;
            g.kind = cupti::GpuRecord::Kind::Kernel;
            g.externalId = 1;
            g.startNs = 1000;
            g.endNs = 1000 + ns;
            spins.records.push_back(g);
        }
        spins.records.push_back(execution(cupti::GpuRecord::Kind::Kernel, 5, 0, 100)); // another id
        QCOMPARE(medianKernelNs(spins, 1).value(), 650.0);
        QVERIFY(!medianKernelNs(spins, 2).has_value());
    }

    void stagedPeerAndFallBack()
    {
        OpRecord r;
        r.kind = OpKind::CopyP2P;
        r.flags = OpFlagStagedPeer;
        r.hostStartNs = 1000;
        r.readyNs = 800;
        r.eventEndNs = 5000;
        r.gpuStartNs = 2000; // a fragment CUPTI recorded
        r.gpuEndNs = 2020;
        timeStagedPeer(r);
        QCOMPARE(r.gpuStartNs, std::int64_t(1000)); // the later of the call's start and stream-ready
        QCOMPARE(r.gpuEndNs, std::int64_t(5000));
        OpRecord direct = r;
        direct.flags = 0;
        direct.gpuStartNs = 2000;
        timeStagedPeer(direct);
        QCOMPARE(direct.gpuStartNs, std::int64_t(2000)); // not staged: untouched

        Repetition rep;
        rep.ops.resize(2);
        rep.ops[0].readyNs = 10;
        rep.ops[0].eventEndNs = 20;
        rep.ops[0].gpuStartNs = 12;
        rep.ops[0].gpuEndNs = 18;
        rep.ops[1].hostStartNs = 5; // host-only: no events
        OpPiece piece; // CUPTI's record of op 0, which the events no longer bound
        piece.op = 0;
        piece.startNs = 12;
        piece.endNs = 18;
        rep.opPieces = {piece};
        useEventExecution(rep);
        QVERIFY(rep.opPieces.empty());
        QCOMPARE(rep.ops[0].gpuStartNs, std::int64_t(10));
        QCOMPARE(rep.ops[0].gpuEndNs, std::int64_t(20));
        QCOMPARE(rep.ops[1].gpuStartNs, kNoTime);
    }

    // A GEMM's call runs the kernels cuBLAS chose: the op spans them, and its KernelLaunch names them in the
    // order they ran, with the longest one's launch and the GEMM's arithmetic. Other kernels get none.
    void libraryKernels()
    {
        const Workload w = parseWorkload(R"({"version": 1, "name": "g", "repetitions": 1, "streams": [
            {"name": "s", "ops": [{"op": "kernel", "duration": "1 us"},
                                  {"op": "kernel", "type": "gemm", "m": 64, "n": 32, "k": 16},
                                  {"op": "kernel", "type": "gemm", "m": 8, "n": 8, "k": 8, "dtype": "fp16"}]}]})");
        Trace trace;
        const std::vector<PlannedOp> ops = planOps(w, {}, {}, trace);
        const RecordMatcher matcher(ops, std::vector<OpMemory>(ops.size()), {});
        Repetition rep = untimed(ops);
        cupti::Batch batch;
        auto kernel = [&](std::size_t op, std::int64_t start, std::int64_t end, const char *name, std::uint32_t gridX) {
            cupti::GpuRecord g = execution(cupti::GpuRecord::Kind::Kernel, op, start, end);
            g.name = name;
            g.grid[0] = gridX;
            g.grid[1] = g.grid[2] = 1;
            g.block[0] = 128;
            g.block[1] = g.block[2] = 1;
            g.registersPerThread = 168;
            g.staticSharedBytes = 0;
            g.dynamicSharedBytes = 200 * 1024;
            batch.records.push_back(g);
        };
        kernel(0, 100, 200, "spin", 1);
        // Op 1: a split-K GEMM and its reduction, delivered out of order; op 2: one kernel.
        kernel(1, 1500, 1600, "splitKreduce_kernel", 4);
        kernel(1, 1000, 1450, "nvjet_tst_128x64", 132);
        batch.records.back().queuedNs = 900; // its latency timestamps make its launch first: one launch per op
        batch.records.back().submittedNs = 950;
        kernel(2, 2000, 2100, "sm90_xmma_gemm_f16", 8);
        const RepetitionRecords context = everyOpRan(ops);
        std::map<std::string, std::string> metadata;
        matcher.apply(rep, batch, context, metadata, [&](std::string_view n) { return trace.intern(n); });
        QCOMPARE(rep.ops[1].gpuStartNs, std::int64_t(1000));
        QCOMPARE(rep.ops[1].gpuEndNs, std::int64_t(1600));
        QCOMPARE(rep.kernelLaunches.size(), std::size_t(2)); // not the spin kernel
        const KernelLaunch *gemm = rep.launchOf(1);
        QVERIFY(gemm);
        QCOMPARE(trace.string(gemm->fullNameId), std::string("nvjet_tst_128x64 + splitKreduce_kernel"));
        QCOMPARE(gemm->grid[0], 132u); // the longest kernel's
        QCOMPARE(gemm->registersPerThread, 168);
        QCOMPARE(gemm->sharedBytes, std::int64_t(200 * 1024));
        QCOMPARE(gemm->flops, std::uint64_t(0)); // the plan's arithmetic comes with addKernelWork
        QCOMPARE(gemm->queuedNs, std::int64_t(900));
        QCOMPARE(gemm->submittedNs, std::int64_t(950));
        // Its pieces: the two kernels in the order they ran, with the gap between them; the one-kernel GEMM and
        // the spin kernel are their one kernel, and have none.
        const auto pieces = rep.piecesOf(1);
        QCOMPARE(pieces.size(), std::size_t(2));
        QCOMPARE(pieces[0].startNs, std::int64_t(1000));
        QCOMPARE(pieces[0].endNs, std::int64_t(1450));
        QCOMPARE(trace.string(pieces[0].nameId), std::string("nvjet_tst_128x64"));
        QCOMPARE(pieces[1].startNs, std::int64_t(1500));
        QCOMPARE(trace.string(pieces[1].nameId), std::string("splitKreduce_kernel"));
        QVERIFY(pieces[1].kind == PieceKind::Kernel);
        QVERIFY(rep.piecesOf(0).empty());
        QVERIFY(rep.piecesOf(2).empty());
        QCOMPARE(rep.opPieces.size(), std::size_t(2));
        // Without an interner the names are not kept.
        Repetition unnamed;
        unnamed.ops = rep.ops;
        matcher.apply(unnamed, batch, context, metadata);
        QCOMPARE(unnamed.launchOf(1)->fullNameId, kNoString);

        addKernelWork(rep, ops);
        QCOMPARE(rep.launchOf(1)->flops, std::uint64_t(2 * 64 * 32 * 16));
        QCOMPARE(trace.string(rep.launchOf(1)->workId), std::string("GEMM 64x32x16 bf16"));
        QCOMPARE(trace.string(rep.launchOf(2)->workId), std::string("GEMM 8x8x8 fp16"));
        QVERIFY(!rep.launchOf(0));
        // Timed by events (no records): the arithmetic alone, for ops that ran; sorted by op.
        Repetition events;
        events.ops = rep.ops;
        events.ops[1].gpuStartNs = events.ops[1].gpuEndNs = kNoTime; // did not run (a solo part's round)
        addKernelWork(events, ops);
        QCOMPARE(events.kernelLaunches.size(), std::size_t(1));
        QCOMPARE(events.kernelLaunches[0].op, 2);
        QCOMPARE(events.kernelLaunches[0].flops, std::uint64_t(2 * 8 * 8 * 8));
        QVERIFY(!events.kernelLaunches[0].hasGrid());
        // Its rate: 1,024 operations in 100 ns.
        QCOMPARE(events.kernelLaunches[0].teraflopsPerSecond(100), 1024.0 / 100 / 1e3);
    }

    // A collective's call runs NCCL's kernel (or, for a copy-engine collective, copies): the op spans what
    // the call launched whatever its name, and its launch carries the bus bytes and what it is.
    void collectiveRecords()
    {
        const Workload w = parseWorkload(R"({"version": 2, "name": "c", "repetitions": 1, "streams": [
            {"name": "a", "device": 0, "ops": [{"op": "collective", "type": "allreduce", "bytes": "8 MiB"},
                                               {"op": "collective", "type": "allgather", "bytes": "8 MiB"}]},
            {"name": "b", "device": 1, "ops": [{"op": "collective", "type": "allreduce", "bytes": "8 MiB"},
                                               {"op": "collective", "type": "allgather", "bytes": "8 MiB"}]}],
            "threads": [{"name": "t0", "device": 0, "streams": ["a"]}, {"name": "t1", "device": 1, "streams": ["b"]}]})");
        Trace trace;
        const std::vector<PlannedOp> ops = planOps(w, {}, {}, trace);
        const RecordMatcher matcher(ops, std::vector<OpMemory>(ops.size()), {});
        Repetition rep = untimed(ops);
        cupti::Batch batch;
        cupti::GpuRecord k = execution(cupti::GpuRecord::Kind::Kernel, 0, 1000, 1800);
        k.name = "_Z40ncclDevKernel_AllReduce_Sum_bf16_RING_LL24ncclDevKernelArgsStorageILm4096EE"; // as CUPTI gives it
        batch.records.push_back(k);
        // Op 1 on GPU 0: a copy-engine all-gather, two peer memcpys on copy channels and no kernel at all.
        for (const auto &[start, end] : {std::pair{2100, 2500}, std::pair{2000, 2300}}) { // delivered out of order
            cupti::GpuRecord c = execution(cupti::GpuRecord::Kind::Memcpy, 1, start, end);
            c.bytes = 4u << 20;
            c.channel = 7;
            c.channelType = ChannelType::AsyncCopy;
            c.srcDeviceId = 0;
            c.dstDeviceId = 1;
            batch.records.push_back(c);
        }
        k = execution(cupti::GpuRecord::Kind::Kernel, 2, 1010, 1790);
        k.name = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";
        batch.records.push_back(k);
        batch.records.push_back(execution(cupti::GpuRecord::Kind::Memcpy, 3, 2010, 2490));
        const RepetitionRecords context = everyOpRan(ops);
        std::map<std::string, std::string> metadata;
        const MatchResult result =
            matcher.apply(rep, batch, context, metadata, [&](std::string_view n) { return trace.intern(n); });
        QCOMPARE(result.missingRecords, 0);
        QCOMPARE(rep.ops[1].gpuStartNs, std::int64_t(2000));
        QCOMPARE(rep.ops[1].gpuEndNs, std::int64_t(2500)); // the span of its copies
        QVERIFY(!rep.ops[1].executionFromEvents());
        // Its pieces are the copies it ran, tied to the call whatever they are; GPU 1's all-gather ran as one
        // copy, which is a piece too (it is not the kernel a collective's kind suggests). The all-reduces ran
        // as their one kernel: no pieces.
        const auto copies = rep.piecesOf(1);
        QCOMPARE(copies.size(), std::size_t(2));
        QVERIFY(copies[0].kind == PieceKind::Copy);
        QCOMPARE(copies[0].bytes, std::uint64_t(4) << 20);
        QVERIFY(copies[0].channelType == ChannelType::AsyncCopy);
        QCOMPARE(copies[0].srcDevice, std::int16_t(0));
        QCOMPARE(copies[0].dstDevice, std::int16_t(1));
        QCOMPARE(copies[1].startNs, std::int64_t(2100));
        QCOMPARE(copies[1].endNs, std::int64_t(2500));
        QCOMPARE(rep.piecesOf(3).size(), std::size_t(1));
        QVERIFY(rep.piecesOf(0).empty());
        QVERIFY(rep.piecesOf(2).empty());
        // Demangled, as people read it.
        QCOMPARE(trace.string(rep.launchOf(0)->fullNameId),
                 std::string("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
        addKernelWork(rep, ops);
        for (int i = 0; i < 4; ++i) {
            const KernelLaunch *l = rep.launchOf(i);
            QVERIFY(l);
            QCOMPARE(l->flops, std::uint64_t(0));
        }
        QCOMPARE(rep.launchOf(0)->busBytes, 8ull << 20);
        QCOMPARE(rep.launchOf(1)->busBytes, 4ull << 20); // an all-gather's (n-1)/n
        QCOMPARE(trace.string(rep.launchOf(1)->workId), std::string("ncclAllGather 8 MiB bf16 over 2 GPUs"));
        // 8 MiB in 800 ns: 10.49 GB/s.
        QCOMPARE(rep.launchOf(0)->busGbPerSecond(800), double(8 << 20) / 800);
    }

    void metadata()
    {
        Trace trace;
        trace.repetitions.resize(2);
        RecordCounts counts;
        describeRecords(trace, counts, "CUPTI 13", /*unifiedMemoryOn=*/true);
        QCOMPARE(trace.metadata.at("cupti"), std::string("CUPTI 13"));
        QCOMPARE(trace.metadata.at("unified_memory_records"),
                 std::string("enabled, but CUPTI delivered none in this run"));
        QVERIFY(trace.timingNote.empty());

        Trace full;
        counts.unifiedMemoryRecords = 10;
        counts.unifiedMemoryRetries = 2;
        counts.unifiedMemoryIncomplete = {0, 3};
        counts.incompleteUnifiedMemoryRecords = 4;
        counts.lateUnifiedMemoryRecords = 1;
        describeRecords(full, counts, "CUPTI 13", true);
        QVERIFY(!full.metadata.count("unified_memory_records"));
        QVERIFY(full.metadata.at("unified_memory_retries").starts_with("2 repetitions ran again"));
        QCOMPARE(full.metadata.at("unified_memory_incomplete_repetitions"),
                 std::string("repetitions 1, 4 lack part of their unified-memory records after 5 attempts each "
                             "(CUPTI lost them)"));
        QCOMPARE(full.timingNote, full.metadata.at("unified_memory_incomplete_repetitions"));
        QVERIFY(full.metadata.at("unified_memory_incomplete_records").starts_with("4 unified-memory records"));
        QVERIFY(full.metadata.at("unified_memory_late_records").starts_with("1 unified-memory records"));

        Trace missing;
        RecordCounts some;
        some.missingRecords = 3;
        describeRecords(missing, some, "CUPTI 13", false);
        QCOMPARE(missing.metadata.at("cupti_missing_records"), std::string("3"));
        QCOMPARE(missing.timingNote,
                 std::string("3 ops had no CUPTI record and keep their event timing (flagged event-timed)"));
    }
};

QTEST_GUILESS_MAIN(TestRecordMatching)
#include "tst_record_matching.moc"
