// Small hand-made traces whose analysis was worked out by hand (see tst_analysis.cpp), made with the one
// TraceBuilder (tests/common/trace_builder.h); shared by the engine, ui and app tests.
#pragma once

#include "engine/model/trace.h"
#include "tests/common/trace_builder.h"

namespace streamscope::test {

// Repetition r is the base repetition with every time scaled by (r + 1), starting at r * 10 ms.
//   A: H2D  s0 GPU [0,100) us  1 MB  host [0,2)
//   B: kern s0 GPU [100,300)        host [2,4)
//   C: H2D  s1 GPU [150,250)  1 MB  host [4,6)
//   D: D2H  s1 GPU [250,350)  2 MB  host [6,352)   (a blocking copy)
inline engine::Trace handTrace(int repetitions = 3)
{
    using engine::MemKind;
    using engine::OpKind;
    TraceBuilder b;
    b.title("hand-made")
        .stream({"s0", 0, 1, 0, true, false})
        .stream({"s1", 0, 2, 0, true, false})
        .thread("main", 42)
        .device("Test GPU", 9, 63.0);
    for (int r = 0; r < repetitions; ++r) {
        b.repetition();
        const std::int64_t k = r + 1;
        const std::int64_t base = r * 10'000;
        auto op = [&](const char *n, OpKind kind, int s, std::int64_t g0, std::int64_t g1, std::int64_t h0,
                      std::int64_t h1, std::uint64_t bytes) {
            const auto ns = [&](std::int64_t us) { return (base + us * k) * 1000; };
            b.onStream(s)
                .op(kind, ns(g0), ns(g1), bytes)
                .named(n)
                .host(ns(h0), ns(h1))
                .memory(kind == OpKind::CopyD2H ? MemKind::Device : MemKind::Pinned,
                        kind == OpKind::CopyD2H ? MemKind::Pinned : MemKind::Device)
                .api(kind == OpKind::Kernel ? engine::CopyApi::None : engine::CopyApi::Async);
        };
        op("A: H2D 1 MB", OpKind::CopyH2D, 0, 0, 100, 0, 2, 1'000'000);
        op("B: kernel", OpKind::Kernel, 0, 100, 300, 2, 4, 0);
        op("C: H2D 1 MB", OpKind::CopyH2D, 1, 150, 250, 4, 6, 1'000'000);
        op("D: D2H 2 MB", OpKind::CopyD2H, 1, 250, 350, 6, 352, 2'000'000);
    }
    return b.build();
}

// handTrace with pieces (engine::OpPiece): op B (the kernel) ran as two kernels with a gap between them, op D
// (the D2H copy) as one copy on a copy engine, in every repetition.
inline engine::Trace withPieces(engine::Trace t)
{
    for (auto &rep : t.repetitions) {
        const auto &b = rep.ops[1];
        const std::int64_t d = b.gpuEndNs - b.gpuStartNs;
        engine::OpPiece first;
        first.op = 1;
        first.startNs = b.gpuStartNs;
        first.endNs = b.gpuStartNs + d * 2 / 5;
        first.nameId = t.intern("nvjet_tst_128x64");
        first.channel = 5;
        first.channelType = engine::ChannelType::Compute;
        engine::OpPiece second = first;
        second.startNs = b.gpuStartNs + d / 2;
        second.endNs = b.gpuEndNs;
        second.nameId = t.intern("splitKreduce_kernel");
        engine::OpPiece copy;
        copy.op = 3;
        copy.kind = engine::PieceKind::Copy;
        copy.startNs = rep.ops[3].gpuStartNs;
        copy.endNs = rep.ops[3].gpuEndNs;
        copy.bytes = rep.ops[3].bytes;
        copy.channel = 12;
        copy.channelType = engine::ChannelType::AsyncCopy;
        copy.srcDevice = 0;
        copy.dstDevice = 1;
        rep.opPieces = {first, second, copy};
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
    using engine::MemKind;
    using engine::OpKind;
    TraceBuilder b;
    b.title("two GPUs");
    for (int d = 0; d < 2; ++d) {
        b.device("NVIDIA H100 80GB HBM3", 9, 63.0);
        b.trace().devices.back().smCount = 132;
    }
    b.stream({"gpu0 copy", 0, 1, 0, true, false})
        .stream({"gpu0 compute", 0, 2, 0, true, false})
        .stream({"gpu1 compute", 1, 3, 0, true, false})
        .stream({"gpu1 copy", 1, 4, 0, true, false})
        .thread("worker gpu0", 11)
        .thread("worker gpu1", 12);
    for (int d = 0; d < 2; ++d)
        b.trace().peerLinks.push_back(makePeerLink(d, 1 - d, engine::LinkType::NvLink, 18, 450.0, true, 0, true));
    auto op = [&](const char *n, OpKind kind, int stream, int thread, std::int64_t g0, std::int64_t g1, std::int64_t h0,
                  std::uint64_t bytes) {
        b.onStream(stream)
            .onThread(thread)
            .op(kind, g0 * 1000, g1 * 1000, bytes)
            .named(n)
            .host(h0 * 1000, (h0 + 2) * 1000);
        b.api(kind == OpKind::Kernel ? engine::CopyApi::None : engine::CopyApi::Async);
        if (kind == OpKind::CopyH2D) {
            b.memory(MemKind::Pinned, MemKind::Device);
        } else if (kind == OpKind::CopyD2H) {
            b.memory(MemKind::Device, MemKind::Pinned);
        } else if (kind == OpKind::CopyP2P) {
            const int src = b.trace().streams[std::size_t(stream)].device;
            b.memory(MemKind::Device, MemKind::Device);
            b.last().srcDevice = std::int8_t(src);
            b.last().dstDevice = std::int8_t(1 - src);
        }
    };
    op("A: H2D 5 MB", OpKind::CopyH2D, 0, 0, 0, 100, 0, 5'000'000);
    op("B: kernel", OpKind::Kernel, 1, 0, 100, 300, 2, 0);
    op("C: P2P 20 MB", OpKind::CopyP2P, 0, 0, 300, 400, 4, 20'000'000);
    op("D: kernel", OpKind::Kernel, 2, 1, 400, 600, 6, 0);
    op("E: P2P 10 MB", OpKind::CopyP2P, 3, 1, 600, 650, 8, 10'000'000);
    op("F: D2H 5 MB", OpKind::CopyD2H, 3, 1, 650, 750, 10, 5'000'000);
    return b.build();
}

} // namespace streamscope::test
