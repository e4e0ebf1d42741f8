// Benchmark (c): does the runner reproduce Mark Harris's overlap experiment ("How to Overlap Data
// Transfers in CUDA C/C++")? The overlap preset's pipeline, issued depth-first (his version 1) and
// breadth-first (version 2) by the engine, against his code written out by hand in plain CUDA in the
// same process: the same buffers, streams, chunk sizes and kernels, timed from one start event to the
// last stream's end event. Target: the engine's makespans within 5% of the hand-written ones.
// Exit status 1 when the target is missed. See bench/NOTES.md.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "bench/bench_common.h"
#include "bench/bench_cuda.h"
#include "engine/run/clock_calibration.h"
#include "engine/run/cuda_check.h"
#include "engine/run/cuda_raii.h"
#include "engine/run/runner.h"
#include "engine/workload/pipeline_generator.h"
#include "engine/workload/workload.h"
#include "engine/workload/workload_parser.h"
#include "kernels/kernels.cuh"

using namespace streamscope;
using namespace streamscope::engine;

namespace {

// The pipeline the preset describes, read back from its ops (it may have been written out op by op).
PipelineSpec pipelineOf(const Workload &w, const std::string &file)
{
    PipelineSpec spec;
    spec.chunks = 0;
    spec.totalBytes = 0;
    spec.streams = 0;
    const OpSpec *kernel = nullptr;
    for (const StreamSpec &s : w.streams) {
        if (s.ops.empty())
            continue;
        ++spec.streams;
        spec.flags = s.flags;
        for (const OpSpec &op : s.ops) {
            if (op.type == OpType::Copy && op.direction == CopyDirection::H2D) {
                ++spec.chunks;
                spec.totalBytes += op.bytes;
                spec.api = op.api;
                if (const BufferSpec *b = w.findBuffer(op.src))
                    spec.hostMemory = b->kind;
            } else if (op.type == OpType::Kernel && !kernel) {
                kernel = &op;
            }
        }
    }
    if (spec.chunks == 0 || !kernel)
        throw Error(ErrorKind::InvalidInput, file + ": not a copy/compute pipeline (it needs H2D copies and a kernel)");
    spec.kernelType = kernel->kernelType;
    spec.kernelNs = kernel->durationNs;
    spec.blocks = kernel->blocks;
    spec.threadsPerBlock = kernel->threadsPerBlock;
    return spec;
}

Workload pipelineWorkload(const Workload &preset, const PipelineSpec &spec, PipelineOrder order)
{
    Workload w;
    w.name = preset.name + (order == PipelineOrder::DepthFirst ? " V1" : " V2");
    w.device = preset.device;
    w.defaultStream = preset.defaultStream;
    PipelineSpec s = spec;
    s.order = order;
    generatePipeline(w, s);
    return w;
}

// Harris's code, by hand: chunk c on stream c % streams; V1 issues H2D, kernel, D2H per chunk, V2 every
// H2D, then every kernel, then every D2H; `sequential` is his one-stream baseline.
class HandWritten {
public:
    HandWritten(const PipelineSpec &spec, const Calibration &calibration) :
        m_spec(spec), m_host(spec.hostMemory, spec.totalBytes, "hand-written: host buffer"),
        m_device(BufferKind::Device, spec.totalBytes, "hand-written: device buffer"),
        m_start(cudaEventDefault, "hand-written: start event")
    {
        for (int i = 0; i < spec.streams; ++i) {
            m_streams.emplace_back(spec.flags == StreamFlags::NonBlocking ? cudaStreamNonBlocking : cudaStreamDefault,
                                   0, "hand-written: stream");
            m_ends.emplace_back(cudaEventDefault, "hand-written: end event");
        }
        // The same conversion from nanoseconds to clock64 cycles as the runner's.
        m_cycles = spinCyclesFor(spec.kernelNs, calibration);
    }

    double run(int variant) // 1, 2, or 0 = sequential; returns the makespan in ns
    {
        const char *context = "hand-written Harris code";
        const std::uint64_t chunk = m_spec.totalBytes / std::uint64_t(m_spec.chunks);
        STREAMSCOPE_CUDA_CHECK(context, cudaDeviceSynchronize());
        STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(m_start.get(), m_streams[0].get()));
        for (std::size_t i = 1; i < m_streams.size(); ++i)
            STREAMSCOPE_CUDA_CHECK(context, cudaStreamWaitEvent(m_streams[i].get(), m_start.get(), 0));

        auto h2d = [&](int c, cudaStream_t s) {
            STREAMSCOPE_CUDA_CHECK(context, cudaMemcpyAsync(m_device.bytesAt(c * chunk), m_host.bytesAt(c * chunk),
                                                            chunk, cudaMemcpyHostToDevice, s));
        };
        auto kernel = [&](int c, cudaStream_t s) {
            if (m_spec.kernelType == KernelType::Compute)
                STREAMSCOPE_CUDA_CHECK(context,
                                       kernels::launchSpin(m_cycles, m_spec.blocks, m_spec.threadsPerBlock, s));
            else
                STREAMSCOPE_CUDA_CHECK(context, kernels::launchMemory(m_device.bytesAt(c * chunk), chunk, m_spec.blocks,
                                                                      m_spec.threadsPerBlock, s));
        };
        auto d2h = [&](int c, cudaStream_t s) {
            STREAMSCOPE_CUDA_CHECK(context, cudaMemcpyAsync(m_host.bytesAt(c * chunk), m_device.bytesAt(c * chunk),
                                                            chunk, cudaMemcpyDeviceToHost, s));
        };
        auto streamOf = [&](int c) { return m_streams[std::size_t(c % m_spec.streams)].get(); };

        if (variant == 0) {
            for (int c = 0; c < m_spec.chunks; ++c)
                h2d(c, m_streams[0].get());
            for (int c = 0; c < m_spec.chunks; ++c)
                kernel(c, m_streams[0].get());
            for (int c = 0; c < m_spec.chunks; ++c)
                d2h(c, m_streams[0].get());
        } else if (variant == 1) {
            for (int c = 0; c < m_spec.chunks; ++c) {
                h2d(c, streamOf(c));
                kernel(c, streamOf(c));
                d2h(c, streamOf(c));
            }
        } else {
            for (int c = 0; c < m_spec.chunks; ++c)
                h2d(c, streamOf(c));
            for (int c = 0; c < m_spec.chunks; ++c)
                kernel(c, streamOf(c));
            for (int c = 0; c < m_spec.chunks; ++c)
                d2h(c, streamOf(c));
        }
        for (std::size_t i = 0; i < m_streams.size(); ++i)
            STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(m_ends[i].get(), m_streams[i].get()));
        STREAMSCOPE_CUDA_CHECK(context, cudaDeviceSynchronize());
        return bench::spanToLastEnd(context, m_start.get(), m_ends);
    }

private:
    PipelineSpec m_spec;
    cuda::Buffer m_host, m_device;
    std::vector<cuda::Stream> m_streams;
    cuda::Event m_start;
    std::vector<cuda::Event> m_ends;
    std::int64_t m_cycles = 0;
};

} // namespace

int main(int argc, char **argv)
{
    const bench::Args args = bench::parseArgs(argc, argv, "bench_harris", "resources/workloads/overlap.json");
    try {
        const Workload preset = loadWorkloadFile(args.workload);
        const PipelineSpec spec = pipelineOf(preset, args.workload);
        const int reps = args.reps > 0 ? args.reps : 20;
        constexpr int kRounds = 3;
        RunOptions options;
        options.repetitions = reps;
        options.warmup = 2;

        const Workload v1 = pipelineWorkload(preset, spec, PipelineOrder::DepthFirst);
        const Workload v2 = pipelineWorkload(preset, spec, PipelineOrder::BreadthFirst);

        std::vector<double> engineV1, engineV2, plainV1, plainV2, plainSeq;
        Trace last;
        for (int round = 0; round < kRounds; ++round) {
            Trace t1 = runWorkload(v1, options);
            for (double s : bench::repetitionSpans(t1))
                engineV1.push_back(s);
            const Trace t2 = runWorkload(v2, options);
            for (double s : bench::repetitionSpans(t2))
                engineV2.push_back(s);

            HandWritten plain(spec, t1.calibration);
            for (int i = 0; i < 2; ++i) { // warm-up, as the engine's
                plain.run(1);
                plain.run(2);
                plain.run(0);
            }
            for (int i = 0; i < reps; ++i) {
                plainV1.push_back(plain.run(1));
                plainV2.push_back(plain.run(2));
                plainSeq.push_back(plain.run(0));
            }
            last = std::move(t1);
        }

        const double e1 = bench::median(engineV1), e2 = bench::median(engineV2);
        const double p1 = bench::median(plainV1), p2 = bench::median(plainV2), ps = bench::median(plainSeq);
        const double r1 = e1 / p1, r2 = e2 / p2;
        const bool pass = std::abs(r1 - 1) <= 0.05 && std::abs(r2 - 1) <= 0.05;

        std::printf("workload %s (%s): %s in %d chunks on %d streams, %s host memory, kernel %s %lld ns x %d x %d\n",
                    preset.name.c_str(), args.workload.c_str(), std::to_string(spec.totalBytes).c_str(), spec.chunks,
                    spec.streams, std::string(toString(spec.hostMemory)).c_str(),
                    spec.kernelType == KernelType::Compute ? "compute" : "memory", (long long)spec.kernelNs,
                    spec.blocks, spec.threadsPerBlock);
        std::printf("%d rounds x %d repetitions; engine hold: %s\n\n", kRounds, reps, last.metadata["hold"].c_str());
        std::printf("%-26s %14s %14s %8s  %s\n", "", "engine ms", "hand ms", "ratio", "target");
        std::printf("%-26s %14s %14.3f %8s  %s\n", "sequential (one stream)", "-", ps / 1e6, "-", "-");
        std::printf("%-26s %14.3f %14.3f %8.3f  %s\n", "V1 depth-first", e1 / 1e6, p1 / 1e6, r1,
                    std::abs(r1 - 1) <= 0.05 ? "within 5% ok" : "within 5% MISSED");
        std::printf("%-26s %14.3f %14.3f %8.3f  %s\n", "V2 breadth-first", e2 / 1e6, p2 / 1e6, r2,
                    std::abs(r2 - 1) <= 0.05 ? "within 5% ok" : "within 5% MISSED");

        auto stats = [](const std::vector<double> &v) {
            return nlohmann::json{
                {"median", bench::median(v)}, {"min", bench::minOf(v)}, {"max", bench::maxOf(v)}, {"n", v.size()}};
        };
        const nlohmann::json results = {{"benchmark", "bench_harris"},
                                        {"workload", args.workload},
                                        {"device", bench::deviceJson(last)},
                                        {"total_bytes", spec.totalBytes},
                                        {"chunks", spec.chunks},
                                        {"streams", spec.streams},
                                        {"hold", last.metadata["hold"]},
                                        {"engine_v1_ns", stats(engineV1)},
                                        {"engine_v2_ns", stats(engineV2)},
                                        {"hand_v1_ns", stats(plainV1)},
                                        {"hand_v2_ns", stats(plainV2)},
                                        {"hand_sequential_ns", stats(plainSeq)},
                                        {"ratio_v1", r1},
                                        {"ratio_v2", r2},
                                        {"target", "engine / hand-written within 5% for V1 and V2"},
                                        {"pass", pass}};
        bench::writeResults(args.out, results);
        std::printf("%s\n", pass ? "PASS" : "FAIL");
        return pass ? 0 : 1;
    } catch (const Error &e) {
        std::fprintf(stderr, "bench_harris: %s\n", e.what());
        return e.kind() == ErrorKind::NoGpu ? 5 : 1;
    }
}
