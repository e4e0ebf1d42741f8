// Benchmark (c): does the runner reproduce Mark Harris's overlap experiment ("How to Overlap Data
// Transfers in CUDA C/C++")? The overlap preset's pipeline, issued depth-first (his version 1) and
// breadth-first (version 2) by the engine, against his code written out by hand in plain CUDA in the
// same process: the same buffers, streams, chunk sizes and kernels, timed from one start event to the
// last stream's end event. The hand-written side calibrates its spin kernel itself (its own event-timed
// measurement and arithmetic, nothing of the engine's clock_calibration), so that an error in the
// engine's calibration shows as a ratio off 1 instead of hitting both sides alike.
// Target: the engine's makespans within 5% of the hand-written ones.
// Exit 0 when the target is met, 1 when it is missed, 5 without a usable GPU. See bench/NOTES.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "bench/bench_common.h"
#include "bench/bench_cuda.h"
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

// The hand-written side's own calibration of the spin kernel: event pairs around spins of two cycle
// counts (about 0.1 and 2 ms at the device's nominal clock) on one stream, each queued behind a 200 us
// spin of one block so that the GPU finds the events and the kernel waiting (the launch is not timed),
// after a 50 ms spin that brings the clocks up; median of 9 each. The line through the two gives the
// nanoseconds per cycle (the slope) and the fixed cost of a spin (the intercept).
struct HandCalibration {
    double nsPerCycle = 0;
    double fixedNs = 0;
    std::int64_t cyclesFor(std::int64_t ns) const
    {
        return double(ns) <= fixedNs ? 0 : std::int64_t(std::llround((double(ns) - fixedNs) / nsPerCycle));
    }
};

HandCalibration calibrateByHand(int blocks, int threadsPerBlock)
{
    const char *context = "hand-written calibration";
    int device = 0, khz = 0;
    STREAMSCOPE_CUDA_CHECK(context, cudaGetDevice(&device));
    STREAMSCOPE_CUDA_CHECK(context, cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
    if (khz <= 0)
        throw Error(ErrorKind::Cuda, std::string(context) + ": the device reports no clock rate");
    const double nominalHz = double(khz) * 1e3;
    auto cycles = [&](double seconds) { return std::int64_t(nominalHz * seconds); };
    cuda::Stream stream(cudaStreamNonBlocking, 0, context);
    cuda::Event begin(cudaEventDefault, context), end(cudaEventDefault, context);
    STREAMSCOPE_CUDA_CHECK(context, kernels::launchSpin(cycles(50e-3), blocks, threadsPerBlock, stream.get()));
    STREAMSCOPE_CUDA_CHECK(context, cudaStreamSynchronize(stream.get()));
    auto timed = [&](std::int64_t spin) {
        std::vector<double> ns;
        for (int i = 0; i < 10; ++i) {
            STREAMSCOPE_CUDA_CHECK(context, kernels::launchSpin(cycles(200e-6), 1, 32, stream.get()));
            STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(begin.get(), stream.get()));
            STREAMSCOPE_CUDA_CHECK(context, kernels::launchSpin(spin, blocks, threadsPerBlock, stream.get()));
            STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(end.get(), stream.get()));
            STREAMSCOPE_CUDA_CHECK(context, cudaEventSynchronize(end.get()));
            float ms = 0;
            STREAMSCOPE_CUDA_CHECK(context, cudaEventElapsedTime(&ms, begin.get(), end.get()));
            if (i > 0) // the first is a warm-up
                ns.push_back(double(ms) * 1e6);
        }
        return bench::median(ns);
    };
    const std::int64_t shortCycles = cycles(100e-6), longCycles = cycles(2e-3);
    const double shortNs = timed(shortCycles), longNs = timed(longCycles);
    HandCalibration c;
    c.nsPerCycle = (longNs - shortNs) / double(longCycles - shortCycles);
    c.fixedNs = shortNs - c.nsPerCycle * double(shortCycles);
    if (!(c.nsPerCycle > 0))
        throw Error(ErrorKind::Cuda, std::string(context) + ": a spin of " + std::to_string(longCycles)
                                         + " cycles was not longer than one of " + std::to_string(shortCycles));
    return c;
}

// Harris's code, by hand: chunk c on stream c % streams; V1 issues H2D, kernel, D2H per chunk, V2 every
// H2D, then every kernel, then every D2H; `sequential` is his one-stream baseline.
class HandWritten {
public:
    HandWritten(const PipelineSpec &spec, const HandCalibration &calibration) :
        m_spec(spec), m_host(spec.hostMemory, spec.totalBytes, "hand-written: host buffer"),
        m_device(BufferKind::Device, spec.totalBytes, "hand-written: device buffer"),
        m_start(cudaEventDefault, "hand-written: start event")
    {
        for (int i = 0; i < spec.streams; ++i) {
            m_streams.emplace_back(spec.flags == StreamFlags::NonBlocking ? cudaStreamNonBlocking : cudaStreamDefault,
                                   0, "hand-written: stream");
            m_ends.emplace_back(cudaEventDefault, "hand-written: end event");
        }
        // Its own calibration's cycles for the kernel's duration (not the runner's).
        m_cycles = calibration.cyclesFor(spec.kernelNs);
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
        HandCalibration calibration;
        for (int round = 0; round < kRounds; ++round) {
            Trace t1 = runWorkload(v1, options);
            for (double s : bench::repetitionSpans(t1))
                engineV1.push_back(s);
            const Trace t2 = runWorkload(v2, options);
            for (double s : bench::repetitionSpans(t2))
                engineV2.push_back(s);

            if (spec.kernelType == KernelType::Compute)
                calibration = calibrateByHand(spec.blocks, spec.threadsPerBlock); // each round, as the engine's run
            HandWritten plain(spec, calibration);
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
        std::printf("%d rounds x %d repetitions; engine hold: %s\n", kRounds, reps, last.metadata["hold"].c_str());
        if (spec.kernelType == KernelType::Compute)
            std::printf("spin kernel of %lld ns: engine %.4f GHz, overhead %.0f ns; hand-written (its own, last round) "
                        "%.4f GHz, fixed cost %.0f ns, %lld cycles\n",
                        (long long)spec.kernelNs, last.calibration.smClockHz / 1e9, last.calibration.spinOverheadNs,
                        1 / calibration.nsPerCycle, calibration.fixedNs,
                        (long long)calibration.cyclesFor(spec.kernelNs));
        std::printf("\n");
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
        const nlohmann::json results = {
            {"benchmark", "bench_harris"},
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
            {"engine_calibration",
             {{"sm_clock_hz", last.calibration.smClockHz}, {"spin_overhead_ns", last.calibration.spinOverheadNs}}},
            {"hand_calibration",
             {{"sm_clock_hz", calibration.nsPerCycle > 0 ? 1e9 / calibration.nsPerCycle : 0.0},
              {"fixed_ns", calibration.fixedNs}}},
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
