// Tests of the runner's set-up plan without a GPU: the devices a run uses, the memory check against
// given free memory, peer access between the devices, the default streams each thread ends on, and the
// plan of every op (its device, thread, memory, events, pairing), with the errors a workload that cannot
// run as written gets.
#include <QtTest>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model/errors.h"
#include "engine/run/issue_threads.h"
#include "engine/run/run_plan.h"
#include "engine/workload/workload.h"
#include "engine/workload/workload_parser.h"

using namespace streamscope::engine;

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

DeviceInfo device(int index, std::uint64_t total = 80 * kGiB)
{
    DeviceInfo d;
    d.index = index;
    d.name = "GPU " + std::to_string(index);
    d.ccMajor = 9;
    d.totalMemBytes = total;
    return d;
}

std::function<HostMemory()> host(std::uint64_t available)
{
    return [available] { return HostMemory{available, "MemAvailable in /proc/meminfo"}; };
}

// The message of the Error `f` throws, and its kind; "no error" where it throws none.
template <typename F> QByteArray failure(F f, ErrorKind expected)
{
    try {
        f();
    } catch (const Error &e) {
        return e.kind() == expected ? QByteArray(e.what()) : "wrong kind: " + QByteArray(e.what());
    }
    return "no error";
}

// Two GPUs, two threads, a peer copy each way, an event one thread records and the other waits for.
const char *kTwoGpus = R"({
  "version": 2, "name": "two", "repetitions": 1,
  "buffers": [
    {"name": "a", "kind": "device", "bytes": "64 MiB", "device": 0},
    {"name": "b", "kind": "device", "bytes": "64 MiB", "device": 1},
    {"name": "h", "kind": "pinned", "bytes": "4 MiB"}
  ],
  "streams": [
    {"name": "s0", "device": 0, "ops": [
      {"op": "copy", "src": "h", "dst": "a", "bytes": "4 MiB"},
      {"op": "record", "event": "done"},
      {"op": "copy", "name": "0 to 1", "src": "a", "dst": "b", "peer": true}
    ]},
    {"name": "s1", "device": 1, "ops": [
      {"op": "wait", "event": "done"},
      {"op": "copy", "name": "1 to 0", "src": "b", "dst": "a", "peer": true},
      {"op": "sync", "target": "stream", "stream": "s0"}
    ]}
  ],
  "threads": [
    {"name": "t0", "device": 0, "streams": ["s0"]},
    {"name": "t1", "device": 1, "streams": ["s1"]}
  ]
})";

Workload oneStream(const std::string &ops, const std::string &buffers)
{
    return parseWorkload(R"({"version": 1, "name": "w", "repetitions": 1, "buffers": [)" + buffers
                         + R"(], "streams": [{"name": "s0", "ops": [)" + ops + "]}]}");
}

} // namespace

class TestRunPlan : public QObject {
    Q_OBJECT

private slots:
    void devices()
    {
        const Workload w = parseWorkload(kTwoGpus);
        const DevicePlan plan = planDevices(w, -1, {device(0), device(1)});
        QCOMPARE(plan.primary, 0);
        QCOMPARE(plan.used, (std::vector<int>{0, 1}));
        // One GPU: the workload's second device does not exist, and the message lists what the host has.
        const QByteArray missing = failure([&] { planDevices(w, -1, {device(0)}); }, ErrorKind::InvalidInput);
        QVERIFY2(missing.contains("workload 'two' uses device 1, which does not exist: this host has 1 CUDA device: "
                                  "0 'GPU 0' (cc 9.0, 80 GiB)"),
                 missing);
    }

    void memoryOnEachDevice()
    {
        const Workload w = parseWorkload(kTwoGpus);
        const Workload on0 = buffersOn(w, -1, 0, true), on1 = buffersOn(w, -1, 1, false);
        QCOMPARE(on0.buffers.size(), std::size_t(2)); // 'a' and the host buffer
        QCOMPARE(on0.buffers[0].name, std::string("a"));
        QCOMPARE(on0.buffers[1].name, std::string("h"));
        QCOMPARE(on1.buffers.size(), std::size_t(1));
        QCOMPARE(on1.buffers[0].name, std::string("b"));
        // --device replaces the workload's default device, not a device a buffer names.
        QCOMPARE(buffersOn(w, 1, 1, false).buffers.size(), std::size_t(1));
        Workload defaults = w;
        defaults.buffers[0].device = -1;
        QCOMPARE(buffersOn(defaults, 1, 1, false).buffers.size(), std::size_t(2));
    }

    void memoryCheck()
    {
        const Workload w = oneStream(R"({"op": "kernel", "duration": "1 us"})",
                                     R"({"name": "big", "kind": "device", "bytes": "40 GiB"},
                                        {"name": "small", "kind": "device", "bytes": "1 GiB"},
                                        {"name": "m", "kind": "managed", "bytes": "2 GiB"},
                                        {"name": "h", "kind": "pinned", "bytes": "8 GiB"})");
        // Fits: 43 GiB of device and managed memory in 80 GiB free, 10 GiB of host memory in 64.
        checkMemoryFits(w, device(0), true, 80 * kGiB, 80 * kGiB, host(64 * kGiB));
        // The device has 30 GiB free: the 40 GiB buffer alone does not fit, and is named.
        QByteArray m = failure([&] { checkMemoryFits(w, device(0), true, 30 * kGiB, 80 * kGiB, host(64 * kGiB)); },
                               ErrorKind::OutOfMemory);
        QVERIFY2(m.contains("buffer 'big' (device, 40 GiB) does not fit in device memory: device 0 'GPU 0' has "
                            "30 GiB free of 80 GiB (256 MiB kept free for the CUDA runtime)"),
                 m);
        // 42 GiB free: each fits, together they do not; the largest are listed, largest first.
        m = failure([&] { checkMemoryFits(w, device(0), true, 42 * kGiB, 80 * kGiB, host(64 * kGiB)); },
                    ErrorKind::OutOfMemory);
        QVERIFY2(m.contains("workload 'w' does not fit in device memory: its buffers 'big' (device, 40 GiB), 'm' "
                            "(managed, 2 GiB), 'small' (device, 1 GiB) need 43 GiB (device 41 GiB + managed 2 GiB)"),
                 m);
        // The pre-check off: only managed memory is checked, and it fits.
        checkMemoryFits(w, device(0), false, 42 * kGiB, 80 * kGiB, host(64 * kGiB));
        // Managed memory beyond the free memory is refused even with the pre-check off.
        m = failure([&] { checkMemoryFits(w, device(0), false, kGiB, 80 * kGiB, host(64 * kGiB)); },
                    ErrorKind::OutOfMemory);
        QVERIFY2(m.contains("managed buffers 'm' (managed, 2 GiB) need 2 GiB, more than the device has free"), m);
        // The host: 8 GiB pinned + 2 GiB managed against 9 GiB available; then the pinned buffer alone.
        m = failure([&] { checkMemoryFits(w, device(0), true, 80 * kGiB, 80 * kGiB, host(9 * kGiB)); },
                    ErrorKind::OutOfMemory);
        QVERIFY2(m.contains("need 10 GiB (pageable, pinned and registered 8 GiB + managed 2 GiB) but the host has "
                            "9 GiB available (MemAvailable in /proc/meminfo)"),
                 m);
        m = failure([&] { checkMemoryFits(w, device(0), true, 80 * kGiB, 80 * kGiB, host(7 * kGiB)); },
                    ErrorKind::OutOfMemory);
        QVERIFY2(m.contains("buffer 'h' (pinned, 8 GiB) does not fit in host memory"), m);
        // A host that cannot say what it has (0) is not checked; nor is it asked when the device refuses.
        checkMemoryFits(w, device(0), true, 80 * kGiB, 80 * kGiB, host(0));
        bool asked = false;
        failure(
            [&] {
                checkMemoryFits(w, device(0), true, kGiB * 30, 80 * kGiB, [&] {
                    asked = true;
                    return HostMemory{};
                });
            },
            ErrorKind::OutOfMemory);
        QVERIFY(!asked);
    }

    void bufferSizesSaturate()
    {
        QCOMPARE(addBytes(1, 2), std::uint64_t(3));
        QCOMPARE(addBytes(~0ull - 1, 5), ~0ull);
        Workload w = oneStream(R"({"op": "kernel", "duration": "1 us"})",
                               R"({"name": "x", "kind": "device", "bytes": "1 MiB"})");
        w.buffers[0].bytes = 1ull << 63;
        w.buffers.push_back(w.buffers[0]);
        w.buffers.back().name = "y";
        QVERIFY(failure([&] { checkMemoryFits(w, device(0), true, ~0ull, ~0ull, host(0)); }, ErrorKind::OutOfMemory)
                    .contains("does not fit in device memory"));
    }

    void peerAccess()
    {
        Workload w = parseWorkload(kTwoGpus);
        const auto all = [](int, int) { return true; };
        PeerAccessPlan plan = planPeerAccess(w, {0, 1}, all);
        QVERIFY(plan.enable);
        QCOMPARE(plan.pairs, (std::vector<std::pair<int, int>>{{0, 1}, {1, 0}}));
        QCOMPARE(plan.metadata, std::string("on: peer copies go directly between the GPUs "
                                            "(cudaDeviceEnablePeerAccess; 0->1 yes, 1->0 yes)"));
        // One direction cannot: refused while peer access is on, staged by the driver when it is off.
        const auto oneWay = [](int a, int) { return a == 0; };
        const QByteArray m = failure([&] { planPeerAccess(w, {0, 1}, oneWay); }, ErrorKind::InvalidInput);
        QVERIFY2(m.contains("device pairs 1->0 cannot access each other (cudaDeviceCanAccessPeer; the topology: "
                            "0->1 yes, 1->0 no)"),
                 m);
        w.peerAccess = PeerAccess::Off;
        plan = planPeerAccess(w, {0, 1}, oneWay);
        QVERIFY(!plan.enable);
        QCOMPARE(plan.pairs.size(), std::size_t(2));
        QVERIFY(plan.metadata.starts_with("off: the driver stages peer copies through host memory"));
        // One device: nothing to ask.
        plan = planPeerAccess(w, {0}, [](int, int) -> bool { throw std::logic_error("asked"); });
        QVERIFY(plan.pairs.empty());
        QCOMPARE(plan.metadata, std::string("one device"));

        std::vector<PeerLink> links(3);
        links[0] = {0, 1, true};
        links[1] = {1, 0, false};
        links[2] = {0, 2, true};
        w.peerAccess = PeerAccess::On;
        markPeerAccess(links, w, {0, 1});
        QVERIFY(links[0].accessEnabled);
        QVERIFY(!links[1].accessEnabled); // not supported
        QVERIFY(!links[2].accessEnabled); // device 2 is not used
        w.peerAccess = PeerAccess::Off;
        markPeerAccess(links, w, {0, 1});
        QVERIFY(!links[0].accessEnabled);
    }

    void defaultStreams()
    {
        const Workload two = parseWorkload(kTwoGpus);
        QCOMPARE(defaultStreamDevices(two, 0, -1), std::vector<int>{0});
        QCOMPARE(defaultStreamDevices(two, 1, -1), std::vector<int>{1});
        // --device replaces the default device only: s1 names device 1.
        QCOMPARE(defaultStreamDevices(two, 1, 3), std::vector<int>{1});
        // A thread that drives no stream ends on its own device's default stream.
        Workload w = two;
        w.streams[1].thread = 0;
        QCOMPARE(defaultStreamDevices(w, 0, -1), (std::vector<int>{0, 1}));
        QCOMPARE(defaultStreamDevices(w, 1, -1), std::vector<int>{1});
    }

    void opsOfTwoThreads()
    {
        const Workload w = parseWorkload(kTwoGpus);
        std::vector<PeerLink> links = {{0, 1, true}, {1, 0, true}};
        markPeerAccess(links, w, {0, 1});
        Trace trace;
        const std::vector<PlannedOp> ops = planOps(w, links, {}, trace);
        QCOMPARE(ops.size(), std::size_t(6));
        // The schedule: thread 0's ops, then thread 1's.
        QCOMPARE(ops[0].context, std::string("stream 's0' op 0 (/streams/0/ops/0, line 10): H2D 4 MiB pinned"));
        QVERIFY(ops[0].kind == OpKind::CopyH2D);
        QCOMPARE(ops[0].srcBuffer->name, std::string("h"));
        QCOMPARE(ops[0].dstBuffer->name, std::string("a"));
        QVERIFY(ops[0].srcMem == MemKind::Pinned);
        QCOMPARE(ops[0].bytes, 4 * kMiB);
        QVERIFY(ops[0].instrumented);
        QVERIFY(!ops[0].onDefaultStream);
        QCOMPARE(trace.strings.at(ops[0].nameId), ops[0].name);

        const PlannedOp &peer = ops[2];
        QCOMPARE(peer.name, std::string("0 to 1"));
        QVERIFY(peer.kind == OpKind::CopyP2P);
        QCOMPARE(peer.srcDevice, 0);
        QCOMPARE(peer.dstDevice, 1);
        QVERIFY(!peer.stagedPeer);
        QCOMPARE(peer.bytes, 64 * kMiB); // a peer copy without bytes copies the whole buffer

        const PlannedOp &wait = ops[3];
        QCOMPARE(wait.thread, 1);
        QCOMPARE(wait.device, 1);
        QCOMPARE(wait.pairedRecord, 1);
        QVERIFY(wait.crossThread);
        QVERIFY(ops[1].pairedRecord < 0);

        const PlannedOp &sync = ops[5];
        QVERIFY(sync.hostOnly);
        QVERIFY(!sync.instrumented);
        QCOMPARE(sync.syncStream, 0);

        QCOMPARE(issueSchedule(ops, 2), (std::vector<std::vector<std::size_t>>{{0, 1, 2}, {3, 4, 5}}));

        // The record each op starts from when its thread issues it.
        const OpRecord copy = issuedRecord(ops[0], 0, 0);
        QCOMPARE(copy.nameId, ops[0].nameId);
        QVERIFY(copy.kind == OpKind::CopyH2D);
        QVERIFY(copy.api == CopyApi::Async);
        QCOMPARE(copy.bytes, 4 * kMiB);
        QCOMPARE(copy.stream, 0);
        QCOMPARE(copy.opIndex, 0);
        QCOMPARE(copy.srcDevice, std::int8_t(-1));
        QCOMPARE(copy.gpuStartNs, kNoTime);
        const OpRecord peerRecord = issuedRecord(peer, 2, 0);
        QCOMPARE(peerRecord.srcDevice, std::int8_t(0));
        QCOMPARE(peerRecord.dstDevice, std::int8_t(1));
        QVERIFY(!(peerRecord.flags & OpFlagStagedPeer));
        const OpRecord syncRecord = issuedRecord(sync, 5, 1);
        QCOMPARE(syncRecord.stream, -1); // host-only: no stream
        QCOMPARE(syncRecord.hostThread, 1);
        QVERIFY(syncRecord.api == CopyApi::None);

        // Without peer access the peer copies are staged by the driver; uninstrumented runs have no events.
        for (PeerLink &l : links)
            l.accessEnabled = false;
        OpPlanOptions options;
        options.instrument = false;
        Trace again;
        const std::vector<PlannedOp> staged = planOps(w, links, options, again);
        QVERIFY(staged[2].stagedPeer);
        QVERIFY(issuedRecord(staged[2], 2, 0).flags & OpFlagStagedPeer);
        QVERIFY(staged[4].stagedPeer);
        QVERIFY(!staged[0].instrumented);
    }

    void bufferOps()
    {
        const Workload w = oneStream(R"({"op": "memset", "buffer": "d", "bytes": "1 MiB", "offset": "1 MiB"},
                                        {"op": "kernel", "type": "memory", "buffer": "d"},
                                        {"op": "copy", "src": "p", "dst": "d", "bytes": "1 MiB", "api": "sync"},
                                        {"op": "host", "duration": "10 us"})",
                                     R"({"name": "d", "kind": "device", "bytes": "4 MiB"},
                                        {"name": "p", "kind": "pageable", "bytes": "1 MiB"})");
        Trace trace;
        const std::vector<PlannedOp> ops = planOps(w, {}, {}, trace);
        QCOMPARE(ops[0].targetBuffer->name, std::string("d"));
        QCOMPARE(ops[0].targetOffset, kMiB);
        QCOMPARE(ops[0].bytes, kMiB);
        QVERIFY(ops[0].dstMem == MemKind::Device);
        QCOMPARE(ops[1].bytes, 4 * kMiB); // no bytes: the whole buffer from its offset
        QVERIFY(ops[2].onDefaultStream); // cudaMemcpy runs on the default stream
        QVERIFY(ops[2].srcMem == MemKind::Pageable);
        QVERIFY(ops[3].hostOnly);
        QVERIFY(!ops[3].instrumented);
    }

    // A kernel launched with PDL and the GPU op before it on its stream go without their events under CUPTI (an
    // event recorded between them would keep the kernel from starting early); timed by events they keep them,
    // and the metadata says PDL could not act. Another stream's ops, and host ops, keep theirs.
    void pdlKernelsGoWithoutEvents()
    {
        const Workload w = parseWorkload(R"({"version": 1, "name": "p", "repetitions": 1, "issueOrder": "stream-order",
          "buffers": [{"name": "d", "kind": "device", "bytes": "1 MiB"}],
          "streams": [
            {"name": "a", "ops": [
              {"op": "memset", "buffer": "d"},
              {"op": "kernel", "duration": "1 us"},
              {"op": "kernel", "duration": "1 us", "pdl": true},
              {"op": "host", "duration": "1 us"},
              {"op": "kernel", "type": "memory", "buffer": "d", "pdl": true},
              {"op": "kernel", "duration": "1 us"},
              {"op": "kernel", "duration": "1 us"}
            ]},
            {"name": "b", "ops": [{"op": "kernel", "duration": "1 us", "pdl": true}, {"op": "kernel", "duration": "1 us"}]}
          ]})");
        Trace trace;
        const std::vector<PlannedOp> ops = planOps(w, {}, {}, trace);
        std::vector<bool> instrumented;
        for (const PlannedOp &op : ops)
            instrumented.push_back(op.instrumented);
        // a: memset, kernel (before a PDL kernel), PDL kernel, host, PDL memory kernel, kernel, kernel; b: PDL
        // kernel (first on its stream), kernel.
        QCOMPARE(instrumented, (std::vector<bool>{true, false, false, false, false, true, true, false, true}));
        QVERIFY((issuedRecord(ops[2], 2, 0).flags & OpFlagPdl) != 0);
        QVERIFY((issuedRecord(ops[4], 4, 0).flags & OpFlagPdl) != 0);
        QVERIFY((issuedRecord(ops[1], 1, 0).flags & OpFlagPdl) == 0);

        std::vector<DeviceInfo> devices = {device(0)};
        const std::string cupti = describePdl(ops, false, devices);
        QVERIFY2(cupti.find("3 kernels launched with programmatic dependent launch") == 0, cupti.c_str());
        QVERIFY2(cupti.find("without timing events") != std::string::npos, cupti.c_str());
        devices[0].ccMajor = 8;
        devices[0].ccMinor = 6;
        const std::string older = describePdl(ops, false, devices);
        QVERIFY2(older.find("GPU 0 (compute capability 8.6) has no PDL") != std::string::npos, older.c_str());

        OpPlanOptions events;
        events.timedByEvents = true;
        Trace trace2;
        const std::vector<PlannedOp> timedByEvents = planOps(w, {}, events, trace2);
        for (const PlannedOp &op : timedByEvents)
            QCOMPARE(op.instrumented, !op.hostOnly);
        const std::string text = describePdl(timedByEvents, true, devices);
        QVERIFY2(text.find("PDL changed nothing here") != std::string::npos, text.c_str());
        QCOMPARE(describePdl(planOps(oneStream(R"({"op": "kernel", "duration": "1 us"})", ""), {}, {}, trace2), false,
                             devices),
                 std::string());
        // "pdl": false: launched without, timed as with (the pdl axis's off, compared with its on).
        // (The plan points into its workload: kept alive while the plan is read.)
        const Workload withOff =
            oneStream(R"({"op": "kernel", "duration": "1 us"}, {"op": "kernel", "duration": "1 us", "pdl": false},
                         {"op": "kernel", "duration": "1 us"})",
                      "");
        const std::vector<PlannedOp> off = planOps(withOff, {}, {}, trace2);
        QVERIFY(!off[0].instrumented && !off[1].instrumented && off[2].instrumented);
        QVERIFY((issuedRecord(off[1], 1, 0).flags & OpFlagPdl) == 0);
        const std::string without = describePdl(off, false, devices);
        QVERIFY2(without.find("1 kernel with \"pdl\": false") == 0, without.c_str());
    }

    // GEMMs: no buffer of the workload's; their operands (one set per shape and dtype on a device) and a
    // cuBLAS workspace per stream are the runner's, and count in the memory check; fp8 needs cc 8.9.
    void gemms()
    {
        const Workload w = parseWorkload(R"({"version": 2, "name": "g", "repetitions": 1, "streams": [
            {"name": "a", "device": 0, "ops": [
              {"op": "kernel", "type": "gemm", "m": 4096, "n": 4096, "k": 4096, "repeat": 3},
              {"op": "kernel", "type": "gemm", "m": 1024, "n": 2048, "k": 512, "dtype": "fp8"}]},
            {"name": "b", "device": 0, "ops": [
              {"op": "kernel", "type": "gemm", "m": 4096, "n": 4096, "k": 4096}]},
            {"name": "c", "device": 1, "ops": [{"op": "kernel", "duration": "1 us"}]}]})");
        const std::vector<BufferSpec> on0 = gemmBuffers(w, -1, 0);
        QCOMPARE(on0.size(), std::size_t(4)); // two shapes, two streams' workspaces
        QCOMPARE(on0[0].name, std::string("GEMM operands of GEMM 4096x4096x4096 bf16"));
        QCOMPARE(on0[0].bytes, 3 * 4096ull * 4096 * 2);
        QCOMPARE(on0[1].bytes, 1024ull * 512 + 512ull * 2048 + 1024ull * 2048 * 2);
        QCOMPARE(on0[2].name, std::string("cuBLAS workspace of stream 'a'"));
        QCOMPARE(on0[3].bytes, kGemmWorkspaceBytes);
        QVERIFY(gemmBuffers(w, -1, 1).empty());
        QCOMPARE(buffersOn(w, -1, 0, true).buffers.size(), std::size_t(4));
        // The memory check counts them: 96 MiB of operands do not fit in 100 MiB.
        const QByteArray full = failure(
            [&] {
                checkMemoryFits(buffersOn(w, -1, 0, true), device(0, 100 * kMiB), true, 100 * kMiB, 100 * kMiB,
                                host(kGiB));
            },
            ErrorKind::OutOfMemory);
        QVERIFY2(full.contains("GEMM operands of GEMM 4096x4096x4096 bf16"), full);
        // The plan: arithmetic and what it is, no bytes (a GEMM has no buffer of the workload's).
        Trace trace;
        const std::vector<PlannedOp> ops = planOps(w, {}, {}, trace);
        QCOMPARE(ops[0].flops, 2ull * 4096 * 4096 * 4096);
        QCOMPARE(trace.string(ops[0].workId), std::string("GEMM 4096x4096x4096 bf16"));
        QCOMPARE(ops[0].bytes, std::uint64_t(0));
        QVERIFY(ops[0].targetBuffer == nullptr);
        QVERIFY(ops[0].kind == OpKind::Kernel);
        const auto c = std::find_if(ops.begin(), ops.end(), [&](const PlannedOp &p) { return p.stream == 2; });
        QCOMPARE(c->flops, std::uint64_t(0));
        QCOMPARE(c->workId, kNoString);
        // fp8 on an Ampere GPU (cc 8.0) is refused naming the op; Hopper runs it.
        DeviceInfo ampere = device(0);
        ampere.ccMajor = 8;
        const QByteArray fp8 = failure([&] { planDevices(w, -1, {ampere, device(1)}); }, ErrorKind::InvalidInput);
        QVERIFY2(fp8.contains("stream 'a' op 3") && fp8.contains("fp8 GEMM needs compute capability 8.9")
                     && fp8.contains("has 8.0"),
                 fp8);
        QCOMPARE(planDevices(w, -1, {device(0), device(1)}).used, (std::vector<int>{0, 1}));
    }

    // Collectives: the communicator is every GPU with collectives, ranks in device order; the runner's send
    // and receive buffers (the largest each GPU's collectives need) count in the memory check; the plan has
    // each op's rank, its root or peer as a rank, and nccl-tests' bus bytes.
    void collectives()
    {
        const Workload w = parseWorkload(R"({"version": 2, "name": "c", "repetitions": 1, "streams": [
            {"name": "a", "device": 1, "ops": [
              {"op": "collective", "type": "allreduce", "bytes": "64 MiB"},
              {"op": "collective", "type": "allgather", "bytes": "256 MiB"},
              {"op": "collective", "type": "broadcast", "bytes": "1 MiB", "root": 3},
              {"op": "collective", "type": "send", "peer": 3, "bytes": "2 MiB"}]},
            {"name": "b", "device": 3, "ops": [
              {"op": "collective", "type": "allreduce", "bytes": "64 MiB"},
              {"op": "collective", "type": "allgather", "bytes": "256 MiB"},
              {"op": "collective", "type": "broadcast", "bytes": "1 MiB", "root": 3},
              {"op": "collective", "type": "recv", "peer": 1, "bytes": "2 MiB"}]}],
            "threads": [{"name": "t1", "device": 1, "streams": ["a"]}, {"name": "t3", "device": 3, "streams": ["b"]}]})");
        QCOMPARE(w.collectiveDevices(), (std::vector<int>{1, 3}));
        const std::vector<BufferSpec> on1 = collectiveBuffers(w, -1, 1);
        QCOMPARE(on1.size(), std::size_t(2));
        QCOMPARE(on1[0].name, std::string("the collectives' send buffer"));
        QCOMPARE(on1[0].bytes, 128ull * kMiB); // the all-gather's part (256 / 2), above the all-reduce's 64
        QCOMPARE(on1[1].bytes, 256ull * kMiB); // the all-gather's whole result
        QVERIFY(collectiveBuffers(w, -1, 0).empty());
        // Symmetric windows are the same size on every rank: both buffers as large as the larger.
        Workload symmetric = w;
        symmetric.nccl.symmetric = true;
        const CollectiveBytes both = collectiveBytes(symmetric, -1, 1);
        QCOMPARE(both.send, 256ull * kMiB);
        QCOMPARE(both.recv, 256ull * kMiB);
        QCOMPARE(collectiveBuffers(symmetric, -1, 1)[0].bytes, 256ull * kMiB);
        QVERIFY(collectiveBuffers(symmetric, -1, 0).empty());
        // One rank's part (run --ranks): its op on the process's GPU 0 is still rank 1 of the whole
        // communicator of GPUs 1 and 3, whose roots and peers keep their workload numbering.
        Workload part = w;
        part.rankOf.rank = 3;
        part.rankOf.ranks = 4;
        part.rankOf.communicator = {1, 3};
        part.streams.erase(part.streams.begin());
        part.streams[0].device = 0;
        part.threads = {{"t3", 0, IssueOrder::RoundRobin, {0}, "", 0}};
        buildSchedule(part);
        QCOMPARE(part.communicatorSize(), 2);
        Trace partTrace;
        const std::vector<PlannedOp> mine = planOps(part, {}, {}, partTrace);
        QCOMPARE(mine.size(), std::size_t(4));
        QCOMPARE(mine[0].rank, 1);
        QCOMPARE(mine[0].ranks, 2);
        QCOMPARE(mine[2].peerRank, 1); // the broadcast's root, GPU 3: this rank
        QCOMPARE(mine[3].peerRank, 0); // the receive's peer, GPU 1
        QCOMPARE(mine[1].busBytes, 128ull * kMiB); // over the whole communicator's 2 ranks
        QCOMPARE(collectiveBytes(part, -1, 0).send, 128ull * kMiB);
        const QByteArray full = failure(
            [&] {
                checkMemoryFits(buffersOn(w, -1, 1, true), device(1, 300 * kMiB), true, 300 * kMiB, 300 * kMiB,
                                host(kGiB));
            },
            ErrorKind::OutOfMemory);
        QVERIFY2(full.contains("the collectives' send buffer"), full);
        Trace trace;
        const std::vector<PlannedOp> ops = planOps(w, {}, {}, trace);
        QCOMPARE(ops.size(), std::size_t(8));
        QVERIFY(ops[0].kind == OpKind::Collective);
        QVERIFY(ops[0].library() && !ops[0].hostOnly);
        QCOMPARE(ops[0].ranks, 2);
        QCOMPARE(ops[0].rank, 0); // GPU 1
        QCOMPARE(ops[4].rank, 1); // GPU 3
        QCOMPARE(ops[0].bytes, 64ull * kMiB);
        QCOMPARE(ops[0].busBytes, 64ull * kMiB); // 2(n-1)/n = 1 for two GPUs
        QCOMPARE(ops[1].busBytes, 128ull * kMiB); // (n-1)/n
        QCOMPARE(trace.string(ops[0].workId), std::string("ncclAllReduce 64 MiB bf16 over 2 GPUs"));
        QCOMPARE(ops[2].peerRank, 1); // root GPU 3 is rank 1
        QCOMPARE(ops[3].peerRank, 1); // the send's peer, GPU 3
        QCOMPARE(ops[7].peerRank, 0); // the receive's, GPU 1
        QVERIFY(ops[0].targetBuffer == nullptr && ops[0].srcBuffer == nullptr);
        // The CLI's --device folds both GPUs onto one: a communicator of one rank.
        Trace folded;
        const Workload one = parseWorkload(R"({"version": 2, "name": "c", "streams": [
            {"name": "a", "device": 0, "ops": [{"op": "collective", "type": "allreduce", "bytes": "1 MiB"}]}]})");
        const std::vector<PlannedOp> single = planOps(one, {}, {}, folded);
        QCOMPARE(single[0].ranks, 1);
        QCOMPARE(single[0].busBytes, std::uint64_t(1)); // none moves; kept above 0 so that it stays a library op
        // --device 1 moves a stream that names no device onto the other one's GPU: two threads would drive one
        // rank, refused before the run.
        const Workload movable = parseWorkload(R"({"version": 2, "name": "m", "streams": [
            {"name": "a", "ops": [{"op": "collective", "type": "allreduce", "bytes": "1 MiB"}]},
            {"name": "b", "device": 1, "ops": [{"op": "collective", "type": "allreduce", "bytes": "1 MiB"}]}],
            "threads": [{"name": "t0", "streams": ["a"]}, {"name": "t1", "device": 1, "streams": ["b"]}]})");
        QCOMPARE(planDevices(movable, -1, {device(0), device(1)}).used, (std::vector<int>{0, 1}));
        const QByteArray oneGpu = failure(
            [&] {
                planDevices(movable, 1, {device(0), device(1)});
            },
            ErrorKind::InvalidInput);
        QVERIFY2(oneGpu.contains("threads 't0' and 't1' both issue collectives on device 1 (--device 1"), oneGpu);
    }

    // What the parser would have refused, in a workload changed after parsing (as the app's editor and the
    // experiments build them): the plan refuses it too, naming the op.
    void refusals()
    {
        const Workload valid = oneStream(R"({"op": "copy", "src": "h", "dst": "d", "bytes": "1 MiB"},
                                            {"op": "memset", "buffer": "d", "bytes": "1 MiB", "offset": "1 MiB"},
                                            {"op": "kernel", "duration": "1 us"})",
                                         R"({"name": "d", "kind": "device", "bytes": "4 MiB"},
                                            {"name": "h", "kind": "pinned", "bytes": "1 MiB"})");
        const auto refused = [&](const std::function<void(Workload &)> &change) {
            Workload w = valid;
            change(w);
            Trace trace;
            return failure([&] { planOps(w, {}, {}, trace); }, ErrorKind::InvalidInput);
        };
        QByteArray m = refused([](Workload &w) { w.streams[0].ops[0].bytes = 2 * kMiB; });
        QVERIFY2(m.contains("stream 's0' op 0 (/streams/0/ops/0, line 2): H2D 1 MiB pinned: the copy runs past the "
                            "end of 'h'"),
                 m);
        m = refused([](Workload &w) { w.streams[0].ops[1].dstOffset = 4 * kMiB; });
        QVERIFY2(m.contains("stream 's0' op 1 (/streams/0/ops/1, line 3): memset 1 MiB: offset 4194304 is past the "
                            "end of buffer 'd'"),
                 m);
        m = refused([](Workload &w) { w.streams[0].ops[1].bytes = 4 * kMiB; });
        QVERIFY2(m.contains(": 4 MiB at offset 1048576 runs past the end of buffer 'd' (4 MiB)"), m);
        m = refused([](Workload &w) { w.streams[0].ops[2].kernelType = KernelType::Hang; });
        QVERIFY2(m.contains("op 2 (/streams/0/ops/2, line 4): kernel 1 µs: a hang kernel never ends, and only the end "
                            "of its process stops it: give the run a time limit"),
                 m);
        m = refused([](Workload &w) { w.streams[0].ops[1].buffer = "gone"; });
        QVERIFY2(m.contains(": no buffer named 'gone'"), m);
    }

    void refusalsOfWorkloadsBuiltInCode()
    {
        Workload w = oneStream(R"({"op": "kernel", "type": "hang"})", "");
        OpPlanOptions limited;
        limited.timeLimitNs = 1'000'000'000;
        Trace trace;
        QCOMPARE(planOps(w, {}, limited, trace).size(), std::size_t(1)); // a time limit: it may run
        w.streams[0].ops.push_back(w.streams[0].ops[0]);
        QVERIFY(failure([&] { planOps(w, {}, limited, trace); }, ErrorKind::InvalidInput)
                    .contains("the schedule lists 1 ops but the streams hold 2 (call buildSchedule"));
        buildSchedule(w);
        w.schedule[1].op = 7;
        QVERIFY(failure([&] { planOps(w, {}, limited, trace); }, ErrorKind::InvalidInput)
                    .contains("workload 'w': schedule entry 1 names no op"));
        // A wait whose event nobody records before it, and a memset of a buffer that does not exist.
        Workload wait = oneStream(R"({"op": "memset", "buffer": "d", "bytes": "1 MiB"})",
                                  R"({"name": "d", "kind": "device", "bytes": "4 MiB"})");
        OpSpec waitOp;
        waitOp.type = OpType::EventWait;
        waitOp.event = "never";
        wait.streams[0].ops.push_back(waitOp);
        buildSchedule(wait);
        QVERIFY(failure([&] { planOps(wait, {}, {}, trace); }, ErrorKind::InvalidInput)
                    .contains("event 'never' is not recorded before this wait"));
    }
};

QTEST_GUILESS_MAIN(TestRunPlan)
#include "tst_run_plan.moc"
