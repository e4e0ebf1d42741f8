// A small hand-made trace shared by the timeline tests: two streams and one host thread, with times
// chosen so that every lane has known ink at known times (and known gaps).
#pragma once

#include <cstdint>
#include <memory>

#include "engine/model/trace.h"

namespace streamscope::test {

// Absolute origin: the lanes must show times relative to the repetition start, not raw host time.
inline constexpr std::int64_t kOrigin = 1'000'000;

// op 0: H2D "h2d A"   stream 0 "copy"    GPU [20 µs, 120 µs)  host [0, 10 µs)      2 MB, 20 GB/s, async pageable
// op 1: kernel "kern B" stream 1 "compute" GPU [130 µs, 330 µs) host [12 µs, 15 µs)
// op 2: D2H "d2h C"   stream 0 "copy"    GPU [340 µs, 390 µs) host [16 µs, 400 µs)  1 MB, 20 GB/s, sync: blocking
// op 3: host sync "sync"                                    host [400 µs, 410 µs)  blocking
inline std::shared_ptr<engine::Trace> makeTimelineTrace()
{
    using namespace engine;
    auto trace = std::make_shared<Trace>();
    trace->title = "hand-made";
    DeviceInfo device;
    device.name = "Test GPU";
    device.linkPeakGBs = 25.0;
    trace->devices.push_back(device);
    StreamInfo copy;
    copy.name = "copy";
    copy.nonBlocking = true;
    StreamInfo compute;
    compute.name = "compute";
    compute.priority = -1;
    trace->streams = {copy, compute};
    trace->hostThreads.push_back(HostThreadInfo{"main", 42});

    Repetition rep;
    auto add = [&](OpKind kind, const char *name, int stream, std::int64_t gs, std::int64_t ge, std::int64_t hs,
                   std::int64_t he, std::uint64_t bytes) -> OpRecord & {
        OpRecord op;
        op.kind = kind;
        op.nameId = trace->intern(name);
        op.stream = stream;
        op.hostThread = 0;
        op.gpuStartNs = gs == kNoTime ? kNoTime : kOrigin + gs;
        op.gpuEndNs = ge == kNoTime ? kNoTime : kOrigin + ge;
        op.hostStartNs = kOrigin + hs;
        op.hostEndNs = kOrigin + he;
        op.bytes = bytes;
        op.opIndex = int(rep.ops.size());
        rep.ops.push_back(op);
        return rep.ops.back();
    };
    auto &h2d = add(OpKind::CopyH2D, "h2d A", 0, 20'000, 120'000, 0, 10'000, 2'000'000);
    h2d.srcMem = MemKind::Pinned;
    h2d.dstMem = MemKind::Device;
    h2d.api = CopyApi::Async;
    add(OpKind::Kernel, "kern B", 1, 130'000, 330'000, 12'000, 15'000, 0);
    auto &d2h = add(OpKind::CopyD2H, "d2h C", 0, 340'000, 390'000, 16'000, 400'000, 1'000'000);
    d2h.srcMem = MemKind::Device;
    d2h.dstMem = MemKind::Pinned;
    d2h.api = CopyApi::Sync;
    add(OpKind::HostSync, "sync", -1, kNoTime, kNoTime, 400'000, 410'000, 0);
    trace->repetitions.push_back(std::move(rep));
    return trace;
}

// Nested intervals on one stream, as imports have: until `endNs`, every `periodNs` an outer kernel
// `outerNs` long, with copies every `innerStepNs` from 1 µs into it up to `innerSpanNs` (their lengths
// drawn from `innerLength`). The ops get the next op indices in order.
template <class Rng, class Distribution>
inline void appendNestedRanges(engine::Repetition &rep, int stream, std::uint32_t outerName, std::uint32_t innerName,
                               std::int64_t endNs, std::int64_t periodNs, std::int64_t outerNs,
                               std::int64_t innerSpanNs, std::int64_t innerStepNs, Distribution &innerLength, Rng &rng)
{
    for (std::int64_t t = 0; t < endNs; t += periodNs) {
        engine::OpRecord outer;
        outer.stream = stream;
        outer.kind = engine::OpKind::Kernel;
        outer.nameId = outerName;
        outer.gpuStartNs = t;
        outer.gpuEndNs = t + outerNs;
        outer.opIndex = int(rep.ops.size());
        rep.ops.push_back(outer);
        for (std::int64_t u = t + 1'000; u < t + innerSpanNs; u += innerStepNs) {
            engine::OpRecord inner = outer;
            inner.kind = engine::OpKind::CopyH2D;
            inner.nameId = innerName;
            inner.gpuStartNs = u;
            inner.gpuEndNs = u + innerLength(rng);
            inner.opIndex = int(rep.ops.size());
            rep.ops.push_back(inner);
        }
    }
}

} // namespace streamscope::test
