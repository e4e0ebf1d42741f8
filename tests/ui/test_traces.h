// Small synthetic traces for the UI tests: two streams running the classic H2D -> kernel -> D2H chunks,
// with known times so that the tests can check numbers (makespan, bytes, GB/s) exactly.
#pragma once

#include <memory>

#include "engine/model/trace.h"
#include "tests/common/trace_builder.h"

namespace streamscope::test {

// repetitions repetitions; repetition r is (r + 1) * 10 us longer at the end so makespans differ and the
// median is repetition (repetitions - 1) / 2 when sorted by makespan.
inline std::shared_ptr<engine::Trace> makePipelineTrace(int repetitions = 3)
{
    using engine::MemKind;
    using engine::OpKind;
    TraceBuilder b;
    b.title("pipeline-test").device("Test GPU", 9);
    b.trace().toolVersion = "test";
    b.trace().workloadJson =
        R"({"name":"pipeline-test","description":"Look for the copies of one stream overlapping the kernel of the other."})";
    b.stream({"copy0", 0, 1, 0, true, false}).stream({"copy1", 0, 2, 0, true, false}).thread("main", 1);
    const std::int64_t base = 1'000'000'000;
    for (int r = 0; r < repetitions; ++r) {
        b.repetition();
        const std::int64_t t0 = base + std::int64_t(r) * 10'000'000;
        for (int s = 0; s < 2; ++s) {
            const std::int64_t start = t0 + s * 60'000;
            auto add = [&](OpKind kind, const char *name, std::int64_t begin, std::int64_t end, std::uint64_t bytes) {
                b.onStream(s).op(kind, begin, end, bytes).named(name).host(begin - 5'000, begin - 3'000);
                if (engine::isCopy(kind))
                    b.api(engine::CopyApi::Async)
                        .memory(kind == OpKind::CopyH2D ? MemKind::Pinned : MemKind::Device,
                                kind == OpKind::CopyH2D ? MemKind::Device : MemKind::Pinned);
            };
            // 1 MiB in 50 us = 20.97 GB/s.
            add(OpKind::CopyH2D, "H2D 1 MiB pinned", start, start + 50'000, 1_MiB);
            add(OpKind::Kernel, "compute 100 us", start + 50'000, start + 150'000, 0);
            add(OpKind::CopyD2H, "D2H 1 MiB pinned", start + 150'000, start + 200'000 + (r + 1) * 10'000, 1_MiB);
        }
    }
    return b.buildShared();
}

} // namespace streamscope::test
