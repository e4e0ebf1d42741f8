// Benchmark (#27): does a GEMM through the engine run as fast as a plain cuBLAS program's? For each dtype
// (fp32, tf32, fp16, bf16; fp8 listed without a baseline: cublasGemmEx has no fp8) and square shapes of
// 4096 and 8192, the engine's median TFLOP/s over the GEMMs of a one-stream workload (each GEMM's
// execution as CUPTI recorded it) against a plain loop of cublasGemmEx on the same shape in the same
// process (the same back-to-back GEMMs, an event pair around the whole batch, divided by their count, so
// that the events cost nothing). cublasGemmEx picks its algorithm its own way, so this also checks that
// the engine's cuBLASLt heuristic choice is no worse than what a program gets by default. Rounds alternate
// engine and plain; the ratio is the median of the rounds' paired ratios.
// Target: engine / plain >= 0.98 for every judged row. Also checked: no figure above the GPU's dense
// tensor peak where it is known (Hopper and Ampere), since a rate above the hardware is a timing bug.
// Exit 0 when every judged row meets the target, 1 when one misses it, 5 without a usable GPU.
#include <cstdio>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "bench/bench_common.h"
#include "engine/run/cuda_check.h"
#include "engine/run/cuda_raii.h"
#include "engine/run/runner.h"
#include "engine/run/topology.h"
#include "engine/workload/workload.h"
#include "kernels/kernels.cuh"

using namespace streamscope;
using namespace streamscope::engine;

namespace {

constexpr int kRounds = 5;
constexpr int kGemmsPerRep = 20; // back to back on one stream
constexpr double kTarget = 0.98;

void checkCublas(cublasStatus_t status, const char *what)
{
    if (status != CUBLAS_STATUS_SUCCESS)
        throw Error(ErrorKind::Cuda, std::string(what) + ": " + cublasGetStatusString(status));
}

// The engine: one stream of kGemmsPerRep GEMMs, CUPTI-timed; the median TFLOP/s over every GEMM.
double engineTflops(int n, GemmDtype dtype, int reps)
{
    Workload w;
    w.name = "gemm";
    StreamSpec s;
    s.name = "math";
    OpSpec op;
    op.type = OpType::Kernel;
    op.kernelType = KernelType::Gemm;
    op.gemm = {n, n, n, dtype};
    s.ops.assign(kGemmsPerRep, op);
    w.streams = {s};
    w.warmup = 2;
    w.repetitions = reps;
    buildSchedule(w);
    const Trace t = runWorkload(w, {});
    if (t.timing != TimingSource::Cupti)
        throw Error(ErrorKind::Cuda, "the run was not timed by CUPTI: " + t.timingNote);
    std::vector<double> rates;
    for (const Repetition &r : t.repetitions)
        for (const KernelLaunch &l : r.kernelLaunches)
            rates.push_back(l.teraflopsPerSecond(r.ops.at(std::size_t(l.op)).gpuDurationNs()));
    return bench::median(rates);
}

// The plain program: cublasGemmEx on the same TN layout, kGemmsPerRep back to back between two events.
double plainTflops(int n, GemmDtype dtype, int reps)
{
    const char *context = "plain cublasGemmEx loop";
    cudaDataType_t type = CUDA_R_32F;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    kernels::FillType fill = kernels::FillType::Fp32;
    switch (dtype) {
    case GemmDtype::Fp32: break;
    case GemmDtype::Tf32: compute = CUBLAS_COMPUTE_32F_FAST_TF32; break;
    case GemmDtype::Fp16:
        type = CUDA_R_16F;
        fill = kernels::FillType::Fp16;
        break;
    case GemmDtype::Bf16:
        type = CUDA_R_16BF;
        fill = kernels::FillType::Bf16;
        break;
    case GemmDtype::Fp8: return 0;
    }
    const std::uint64_t elements = std::uint64_t(n) * std::uint64_t(n);
    const std::uint64_t bytes = elements * elementBytes(dtype, false);
    cuda::Buffer a(BufferKind::Device, bytes, "plain A"), b(BufferKind::Device, bytes, "plain B"),
        c(BufferKind::Device, bytes, "plain C");
    STREAMSCOPE_CUDA_CHECK(context, kernels::launchFillRandom(a.get(), elements, fill, 1, nullptr));
    STREAMSCOPE_CUDA_CHECK(context, kernels::launchFillRandom(b.get(), elements, fill, 2, nullptr));
    STREAMSCOPE_CUDA_CHECK(context, cudaDeviceSynchronize());
    cuda::Stream stream(cudaStreamNonBlocking, 0, context);
    cublasHandle_t handle = nullptr;
    checkCublas(cublasCreate(&handle), "cublasCreate");
    checkCublas(cublasSetStream(handle, stream.get()), "cublasSetStream");
    const float alpha = 1, beta = 0;
    auto gemm = [&] {
        checkCublas(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &alpha, a.get(), type, n, b.get(), type, n,
                                 &beta, c.get(), type, n, compute, CUBLAS_GEMM_DEFAULT),
                    "cublasGemmEx");
    };
    cuda::Event start(cudaEventDefault, context), end(cudaEventDefault, context);
    std::vector<double> rates;
    for (int rep = 0; rep < reps + 2; ++rep) {
        STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(start.get(), stream.get()));
        for (int i = 0; i < kGemmsPerRep; ++i)
            gemm();
        STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(end.get(), stream.get()));
        STREAMSCOPE_CUDA_CHECK(context, cudaEventSynchronize(end.get()));
        float ms = 0;
        STREAMSCOPE_CUDA_CHECK(context, cudaEventElapsedTime(&ms, start.get(), end.get()));
        if (rep >= 2) // two warm-ups, as the engine's
            rates.push_back(2.0 * double(n) * n * n * kGemmsPerRep / (double(ms) * 1e9));
    }
    cublasDestroy(handle);
    return bench::median(rates);
}

} // namespace

int main(int argc, char **argv)
{
    const bench::Args args = bench::parseArgs(argc, argv, "bench_gemm");
    try {
        const std::vector<DeviceInfo> devices = listDevices();
        const DeviceInfo &d = devices.at(0);
        std::printf("device 0: %s (cc %d.%d, %d SMs, %d MHz)\n\n", d.name.c_str(), d.ccMajor, d.ccMinor, d.smCount,
                    d.smClockKHz / 1000);
        std::printf("%-5s %6s %13s %13s %7s %10s  %s\n", "dtype", "n", "engine TF/s", "plain TF/s", "ratio",
                    "peak TF/s", "target");
        const int reps = args.reps > 0 ? args.reps : 5;
        nlohmann::json rows = nlohmann::json::array();
        bool ok = true;
        std::vector<GemmDtype> dtypes = {GemmDtype::Fp32, GemmDtype::Tf32, GemmDtype::Fp16, GemmDtype::Bf16};
        if (d.ccMajor * 10 + d.ccMinor >= 89)
            dtypes.push_back(GemmDtype::Fp8);
        for (const GemmDtype dtype : dtypes) {
            for (const int n : {4096, 8192}) {
                bench::PairedRounds rounds;
                for (int round = 0; round < kRounds; ++round) {
                    double e = 0, p = 0;
                    bench::alternated(
                        round, [&] { e = engineTflops(n, dtype, reps); }, [&] { p = plainTflops(n, dtype, reps); });
                    rounds.add(e, p);
                }
                const double engine = rounds.engineMedian(), plain = rounds.plainMedian(), ratio = rounds.ratio();
                const double peak = gemmPeakTflops(d, dtype);
                const bool judged = !rounds.ratios.empty();
                const bool belowPeak = peak <= 0 || (engine <= peak && plain <= peak);
                const bool pass = (!judged || ratio >= kTarget) && belowPeak;
                ok = ok && pass;
                std::printf("%-5s %6d %13.1f %13.1f %7.3f %10.0f  %s\n", std::string(toString(dtype)).c_str(), n,
                            engine, plain, ratio, peak,
                            !belowPeak ? "ABOVE THE PEAK"
                            : !judged  ? "- (no plain cublasGemmEx for fp8)"
                            : pass     ? ">= 0.98 ok"
                                       : ">= 0.98 MISSED");
                rows.push_back({{"dtype", toString(dtype)},
                                {"n", n},
                                {"gemms_per_rep", kGemmsPerRep},
                                {"reps", reps},
                                {"engine_rounds_TFLOPs", rounds.engine},
                                {"plain_rounds_TFLOPs", rounds.plain},
                                {"round_ratios", rounds.ratios},
                                {"engine_TFLOPs", engine},
                                {"plain_TFLOPs", plain},
                                {"ratio", ratio},
                                {"peak_TFLOPs", peak},
                                {"judged", judged},
                                {"pass", pass}});
            }
        }
        nlohmann::json results = {{"benchmark", "bench_gemm"},
                                  {"target", "engine / plain cublasGemmEx >= 0.98; nothing above the peak"},
                                  {"device", d.name},
                                  {"pass", ok},
                                  {"rows", rows}};
        bench::writeResults(args.out, results);
        std::printf("%s\n", ok ? "PASS" : "FAIL: some rows missed the target");
        return ok ? 0 : 1;
    } catch (const Error &e) {
        std::fprintf(stderr, "bench_gemm: %s\n", e.what());
        return e.kind() == ErrorKind::NoGpu ? 5 : 1;
    }
}
