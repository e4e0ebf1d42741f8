// A small hand-made trace whose analysis was worked out by hand (see tst_analysis.cpp).
// Shared by the engine tests; ui and app tests make their own.
#pragma once

#include "engine/model/trace.h"

namespace streamscope::test {

inline engine::OpRecord makeOp(engine::Trace &t, const char *name, engine::OpKind kind, int stream,
                               std::int64_t gpuStartUs, std::int64_t gpuEndUs, std::int64_t hostStartUs,
                               std::int64_t hostEndUs, std::uint64_t bytes = 0)
{
    engine::OpRecord op;
    op.nameId = t.intern(name);
    op.kind = kind;
    op.stream = stream;
    op.hostThread = 0;
    op.gpuStartNs = gpuStartUs * 1000;
    op.gpuEndNs = gpuEndUs * 1000;
    op.hostStartNs = hostStartUs * 1000;
    op.hostEndNs = hostEndUs * 1000;
    op.bytes = bytes;
    return op;
}

// Repetition r is the base repetition with every time scaled by (r + 1), starting at r * 10 ms.
//   A: H2D  s0 GPU [0,100) us  1 MB  host [0,2)
//   B: kern s0 GPU [100,300)        host [2,4)
//   C: H2D  s1 GPU [150,250)  1 MB  host [4,6)
//   D: D2H  s1 GPU [250,350)  2 MB  host [6,352)   (a blocking copy)
inline engine::Trace handTrace(int repetitions = 3)
{
    using engine::OpKind;
    engine::Trace t;
    t.title = "hand-made";
    t.streams = {{"s0", 0, 1, 0, true, false}, {"s1", 0, 2, 0, true, false}};
    t.hostThreads = {{"main", 42}};
    engine::DeviceInfo dev;
    dev.name = "Test GPU";
    dev.ccMajor = 9;
    dev.linkPeakGBs = 63.0;
    t.devices.push_back(dev);
    for (int r = 0; r < repetitions; ++r) {
        engine::Repetition rep;
        rep.index = r;
        const std::int64_t k = r + 1;
        const std::int64_t base = r * 10'000;
        auto op = [&](const char *n, OpKind kind, int s, std::int64_t g0, std::int64_t g1, std::int64_t h0,
                      std::int64_t h1, std::uint64_t bytes) {
            auto o = makeOp(t, n, kind, s, base + g0 * k, base + g1 * k, base + h0 * k, base + h1 * k, bytes);
            o.opIndex = static_cast<int>(rep.ops.size());
            o.srcMem = kind == OpKind::CopyD2H ? engine::MemKind::Device : engine::MemKind::Pinned;
            o.dstMem = kind == OpKind::CopyD2H ? engine::MemKind::Pinned : engine::MemKind::Device;
            o.api = kind == OpKind::Kernel ? engine::CopyApi::None : engine::CopyApi::Async;
            rep.ops.push_back(o);
        };
        op("A: H2D 1 MB", OpKind::CopyH2D, 0, 0, 100, 0, 2, 1'000'000);
        op("B: kernel", OpKind::Kernel, 0, 100, 300, 2, 4, 0);
        op("C: H2D 1 MB", OpKind::CopyH2D, 1, 150, 250, 4, 6, 1'000'000);
        op("D: D2H 2 MB", OpKind::CopyD2H, 1, 250, 350, 6, 352, 2'000'000);
        t.repetitions.push_back(std::move(rep));
    }
    return t;
}

} // namespace streamscope::test

namespace streamscope::test {

// A peer link src -> dst: peer access supported (and, with `enabled`, on for the run), its link, NVLink count
// and peak, as engine::queryPeerLinks fills it.
inline engine::PeerLink makePeerLink(int src, int dst, engine::LinkType type, int nvlinks, double peakGBps,
                                     bool supported = true, int rank = 0, bool enabled = false)
{
    engine::PeerLink l;
    l.src = src;
    l.dst = dst;
    l.accessSupported = supported;
    l.accessEnabled = enabled;
    l.link = type;
    l.performanceRank = rank;
    l.nvlinkCount = nvlinks;
    l.peakGBps = peakGBps;
    return l;
}

// Two GPUs, each driven by a host thread of its own (as a workload with a thread per device runs), with
// peer copies both ways over NVLink (450 GB/s per direction), one repetition. Times in µs; every figure
// of the per-device and per-link summary follows from this table:
//   A: H2D    s0 "gpu0 copy"    GPU 0 [0, 100)    5 MB (50 GB/s)            thread 0 host [0, 2)
//   B: kernel s1 "gpu0 compute" GPU 0 [100, 300)                            thread 0 host [2, 4)
//   C: P2P    s0 "gpu0 copy"    GPU 0 [300, 400)  20 MB GPU 0->1 (200 GB/s) thread 0 host [4, 6)
//   D: kernel s2 "gpu1 compute" GPU 1 [400, 600)                            thread 1 host [6, 8)
//   E: P2P    s3 "gpu1 copy"    GPU 1 [600, 650)  10 MB GPU 1->0 (200 GB/s) thread 1 host [8, 10)
//   F: D2H    s3 "gpu1 copy"    GPU 1 [650, 750)  5 MB (50 GB/s)            thread 1 host [10, 12)
// GPU 0: busy [0, 400) = 400 µs, kernels 200, copies 200, 25 MB. GPU 1: busy [400, 750) = 350 µs,
// kernels 200, copies 150, 15 MB. Link 0->1: 20 MB at 200 GB/s, 44.4 % of its peak; 1->0: 10 MB at
// 200 GB/s. Makespan 750 µs.
inline engine::Trace twoGpuTrace()
{
    using engine::OpKind;
    engine::Trace t;
    t.title = "two GPUs";
    for (int d = 0; d < 2; ++d) {
        engine::DeviceInfo dev;
        dev.index = d;
        dev.name = "NVIDIA H100 80GB HBM3";
        dev.ccMajor = 9;
        dev.smCount = 132;
        dev.linkPeakGBs = 63.0;
        t.devices.push_back(dev);
    }
    t.streams = {{"gpu0 copy", 0, 1, 0, true, false},
                 {"gpu0 compute", 0, 2, 0, true, false},
                 {"gpu1 compute", 1, 3, 0, true, false},
                 {"gpu1 copy", 1, 4, 0, true, false}};
    t.hostThreads = {{"worker gpu0", 11}, {"worker gpu1", 12}};
    for (int d = 0; d < 2; ++d)
        t.peerLinks.push_back(makePeerLink(d, 1 - d, engine::LinkType::NvLink, 18, 450.0, true, 0, true));
    engine::Repetition rep;
    auto op = [&](const char *n, OpKind kind, int stream, int thread, std::int64_t g0, std::int64_t g1, std::int64_t h0,
                  std::uint64_t bytes) {
        auto o = makeOp(t, n, kind, stream, g0, g1, h0, h0 + 2, bytes);
        o.hostThread = thread;
        o.opIndex = static_cast<int>(rep.ops.size());
        o.api = kind == OpKind::Kernel ? engine::CopyApi::None : engine::CopyApi::Async;
        if (kind == OpKind::CopyH2D) {
            o.srcMem = engine::MemKind::Pinned;
            o.dstMem = engine::MemKind::Device;
        } else if (kind == OpKind::CopyD2H) {
            o.srcMem = engine::MemKind::Device;
            o.dstMem = engine::MemKind::Pinned;
        } else if (kind == OpKind::CopyP2P) {
            o.srcMem = o.dstMem = engine::MemKind::Device;
            o.srcDevice = std::int8_t(t.streams[std::size_t(stream)].device);
            o.dstDevice = std::int8_t(1 - o.srcDevice);
        }
        rep.ops.push_back(o);
    };
    op("A: H2D 5 MB", OpKind::CopyH2D, 0, 0, 0, 100, 0, 5'000'000);
    op("B: kernel", OpKind::Kernel, 1, 0, 100, 300, 2, 0);
    op("C: P2P 20 MB", OpKind::CopyP2P, 0, 0, 300, 400, 4, 20'000'000);
    op("D: kernel", OpKind::Kernel, 2, 1, 400, 600, 6, 0);
    op("E: P2P 10 MB", OpKind::CopyP2P, 3, 1, 600, 650, 8, 10'000'000);
    op("F: D2H 5 MB", OpKind::CopyD2H, 3, 1, 650, 750, 10, 5'000'000);
    t.repetitions.push_back(std::move(rep));
    return t;
}

} // namespace streamscope::test
