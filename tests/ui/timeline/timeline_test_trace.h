// A small hand-made trace shared by the timeline tests: two streams and one host thread, with times
// chosen so that every lane has known ink at known times (and known gaps).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/model/trace.h"
#include "tests/common/trace_builder.h"

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
    StreamInfo copy;
    copy.name = "copy";
    copy.nonBlocking = true;
    StreamInfo compute;
    compute.name = "compute";
    compute.priority = -1;
    TraceBuilder b;
    b.title("hand-made").device("Test GPU", 0, 25.0).stream(copy).stream(compute).thread("main", 42);
    auto add = [&](OpKind kind, const char *name, int stream, std::int64_t gs, std::int64_t ge, std::int64_t hs,
                   std::int64_t he, std::uint64_t bytes) -> TraceBuilder & {
        return b.onStream(stream)
            .op(kind, kOrigin + gs, kOrigin + ge, bytes)
            .named(name)
            .host(kOrigin + hs, kOrigin + he);
    };
    add(OpKind::CopyH2D, "h2d A", 0, 20'000, 120'000, 0, 10'000, 2'000'000)
        .memory(MemKind::Pinned, MemKind::Device)
        .api(CopyApi::Async);
    add(OpKind::Kernel, "kern B", 1, 130'000, 330'000, 12'000, 15'000, 0);
    add(OpKind::CopyD2H, "d2h C", 0, 340'000, 390'000, 16'000, 400'000, 1'000'000)
        .memory(MemKind::Device, MemKind::Pinned)
        .api(CopyApi::Sync);
    b.onStream(-1).hostOp(OpKind::HostSync, kOrigin + 400'000, kOrigin + 410'000).named("sync");
    return b.buildShared();
}

// Nested intervals on one stream, as imports have: until `endNs`, every `periodNs` an outer kernel
// `outerNs` long, with copies every `innerStepNs` from 1 µs into it up to `innerSpanNs` (their lengths
// drawn from `innerLength`). The ops get the next op indices in order, and no host thread.
template <class Rng, class Distribution>
inline void appendNestedRanges(TraceBuilder &b, int stream, const std::string &outerName, const std::string &innerName,
                               std::int64_t endNs, std::int64_t periodNs, std::int64_t outerNs,
                               std::int64_t innerSpanNs, std::int64_t innerStepNs, Distribution &innerLength, Rng &rng)
{
    b.onStream(stream).onThread(-1);
    for (std::int64_t t = 0; t < endNs; t += periodNs) {
        b.kernel(t, t + outerNs).named(outerName);
        for (std::int64_t u = t + 1'000; u < t + innerSpanNs; u += innerStepNs)
            b.h2d(u, u + innerLength(rng), 0).named(innerName);
    }
}

} // namespace streamscope::test
