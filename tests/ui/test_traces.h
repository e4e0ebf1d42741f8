// Small synthetic traces for the UI tests: two streams running the classic H2D -> kernel -> D2H chunks,
// with known times so that the tests can check numbers (makespan, bytes, GB/s) exactly.
#pragma once

#include <memory>

#include "engine/model/trace.h"

namespace streamscope::test {

// repetitions repetitions; repetition r is (r + 1) * 10 us longer at the end so makespans differ and the
// median is repetition (repetitions - 1) / 2 when sorted by makespan.
inline std::shared_ptr<engine::Trace> makePipelineTrace(int repetitions = 3)
{
    auto trace = std::make_shared<engine::Trace>();
    trace->title = "pipeline-test";
    trace->toolVersion = "test";
    trace->workloadJson =
        R"({"name":"pipeline-test","description":"Look for the copies of one stream overlapping the kernel of the other."})";
    engine::DeviceInfo device;
    device.name = "Test GPU";
    device.ccMajor = 9;
    trace->devices.push_back(device);
    trace->streams.push_back({"copy0", 0, 1, 0, true, false});
    trace->streams.push_back({"copy1", 0, 2, 0, true, false});
    trace->hostThreads.push_back({"main", 1});
    const std::uint32_t h2d = trace->intern("H2D 1 MiB pinned");
    const std::uint32_t kernel = trace->intern("compute 100 us");
    const std::uint32_t d2h = trace->intern("D2H 1 MiB pinned");
    const std::int64_t base = 1'000'000'000;
    for (int r = 0; r < repetitions; ++r) {
        engine::Repetition rep;
        rep.index = r;
        const std::int64_t t0 = base + std::int64_t(r) * 10'000'000;
        int opIndex = 0;
        for (int s = 0; s < 2; ++s) {
            const std::int64_t start = t0 + s * 60'000;
            auto add = [&](engine::OpKind kind, std::uint32_t name, std::int64_t begin, std::int64_t end,
                           std::uint64_t bytes) {
                engine::OpRecord op;
                op.kind = kind;
                op.nameId = name;
                op.stream = s;
                op.hostThread = 0;
                op.opIndex = opIndex++;
                op.gpuStartNs = begin;
                op.gpuEndNs = end;
                op.hostStartNs = begin - 5'000;
                op.hostEndNs = begin - 3'000;
                op.bytes = bytes;
                if (engine::isCopy(kind)) {
                    op.api = engine::CopyApi::Async;
                    op.srcMem = kind == engine::OpKind::CopyH2D ? engine::MemKind::Pinned : engine::MemKind::Device;
                    op.dstMem = kind == engine::OpKind::CopyH2D ? engine::MemKind::Device : engine::MemKind::Pinned;
                }
                rep.ops.push_back(op);
            };
            // 1 MiB in 50 us = 20.97 GB/s.
            add(engine::OpKind::CopyH2D, h2d, start, start + 50'000, 1 << 20);
            add(engine::OpKind::Kernel, kernel, start + 50'000, start + 150'000, 0);
            add(engine::OpKind::CopyD2H, d2h, start + 150'000, start + 200'000 + (r + 1) * 10'000, 1 << 20);
        }
        trace->repetitions.push_back(std::move(rep));
    }
    engine::rebuildStringIndex(*trace);
    return trace;
}

} // namespace streamscope::test
