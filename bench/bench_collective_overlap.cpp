// Benchmark (#27): the price of overlap of an all-reduce beside GEMMs, against a hand-written program. The
// lesson allreduce-beside-gemm.json (per GPU, three bf16 GEMMs of 8192^3 on a compute stream and a 1 GiB
// all-reduce on a communication stream, on two GPUs) run by the engine with solo baselines, against a plain
// program in the same process that runs the same calls (cublasGemmEx, ncclAllReduce) from one thread, as
// nccl-tests drives several GPUs, and times them by event pairs: the GEMMs alone, the all-reduce alone, then
// together, issued in the engine's order (the first GEMM, the all-reduce, the other two). Together the
// all-reduce cannot start before the first GEMM ends (that GEMM holds every SM), so its execution is timed
// from the first GEMM's end event to its own end event. (A plain program that made the all-reduce's stream
// wait for that event instead changed the order: the second GEMM, next on its own stream, took the SMs first
// and the all-reduce ran beside the third alone.)
// The figures compared, per GPU: the all-reduce's slowdown and the slowdown of the GEMMs that ran beside it
// (the second and third), each the median mixed over the median alone.
// The plain program's durations are its kernels' as CUPTI records them (the engine's are too): its own event
// pairs cannot tell when the all-reduce started beside the first GEMM (its kernel takes SMs as that GEMM's
// last blocks drain, before the GEMM's end event), and are printed beside for comparison.
// Target: each engine slowdown within 3 points of the plain program's.
// Exit 0 when the targets are met, 1 when one is missed, 5 without two GPUs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include "bench/bench_common.h"
#include "engine/analysis/interference.h"
#include "engine/run/cuda_check.h"
#include "engine/run/cuda_raii.h"
#include "engine/run/runner.h"
#include "engine/run/runner_cupti.h"
#include "engine/run/topology.h"
#include "engine/workload/workload.h"
#include "engine/workload/workload_parser.h"
#include "kernels/kernels.cuh"

using namespace streamscope;
using namespace streamscope::engine;

namespace {

constexpr int kGpus = 2;
constexpr int kN = 8192;
constexpr std::uint64_t kAllReduceBytes = 1ull << 30;
constexpr double kTargetPoints = 3.0;

void checkNccl(ncclResult_t r, const char *what)
{
    if (r != ncclSuccess)
        throw Error(ErrorKind::Cuda, std::string(what) + ": " + ncclGetErrorString(r));
}

void checkCublas(cublasStatus_t s, const char *what)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        throw Error(ErrorKind::Cuda, std::string(what) + ": " + cublasGetStatusString(s));
}

// Per GPU: the GEMMs' slowdowns beside the all-reduce (the second and third GEMM together) and the
// all-reduce's.
struct Slowdowns {
    double gemm[kGpus] = {};
    double allReduce[kGpus] = {};
};

Slowdowns engineSlowdowns(const std::string &workloadFile, int reps)
{
    Workload w = loadWorkloadFile(workloadFile);
    w.repetitions = reps;
    RunOptions options;
    options.solo = true;
    const Trace t = runWorkload(w, options);
    if (t.timing != TimingSource::Cupti)
        throw Error(ErrorKind::Cuda, "the run was not timed by CUPTI: " + t.timingNote);
    const InterferenceReport report = analyzeInterference(t);
    if (!report.known)
        throw Error(ErrorKind::Cuda, "no solo baselines: " + report.why);
    Slowdowns s;
    std::vector<double> gemm[kGpus];
    int gemmsSeen[kGpus] = {};
    const Repetition &rep = t.repetitions.at(0);
    for (const OpSlowdown &o : report.ops) { // in op order: each GPU's GEMMs in their stream's order
        const OpRecord &r = rep.ops.at(std::size_t(o.op));
        const int gpu = t.streams.at(std::size_t(r.stream)).device;
        if (gpu < 0 || gpu >= kGpus)
            continue;
        if (r.kind == OpKind::Collective)
            s.allReduce[gpu] = o.slowdown;
        else if (r.kind == OpKind::Kernel && gemmsSeen[gpu]++ >= 1) // the second and third: beside the all-reduce
            gemm[gpu].push_back(o.slowdown);
    }
    for (int g = 0; g < kGpus; ++g)
        s.gemm[g] = bench::median(gemm[g]);
    return s;
}

// The plain program: one thread, both GPUs, the same calls.
class Plain {
public:
    Plain()
    {
        const char *context = "plain GEMM + all-reduce program";
        int devs[kGpus] = {0, 1};
        checkNccl(ncclCommInitAll(m_comms, kGpus, devs), "ncclCommInitAll");
        const std::uint64_t elements = std::uint64_t(kN) * kN;
        for (int g = 0; g < kGpus; ++g) {
            STREAMSCOPE_CUDA_CHECK(context, cudaSetDevice(g));
            Gpu &d = m_gpu[g];
            d.a = cuda::Buffer(BufferKind::Device, elements * 2, "plain A");
            d.b = cuda::Buffer(BufferKind::Device, elements * 2, "plain B");
            d.c = cuda::Buffer(BufferKind::Device, elements * 2, "plain C");
            STREAMSCOPE_CUDA_CHECK(context,
                                   kernels::launchFillRandom(d.a.get(), elements, kernels::FillType::Bf16, 1, nullptr));
            STREAMSCOPE_CUDA_CHECK(context,
                                   kernels::launchFillRandom(d.b.get(), elements, kernels::FillType::Bf16, 2, nullptr));
            d.send = cuda::Buffer(BufferKind::Device, kAllReduceBytes, "plain send");
            d.recv = cuda::Buffer(BufferKind::Device, kAllReduceBytes, "plain recv");
            d.compute = cuda::Stream(cudaStreamNonBlocking, 0, context);
            d.comm = cuda::Stream(cudaStreamNonBlocking, 0, context);
            for (auto &e : d.gemmEvents)
                e = cuda::Event(cudaEventDefault, context);
            d.arBegin = cuda::Event(cudaEventDefault, context);
            d.arEnd = cuda::Event(cudaEventDefault, context);
            checkCublas(cublasCreate(&d.handle), "cublasCreate");
            checkCublas(cublasSetStream(d.handle, d.compute.get()), "cublasSetStream");
            STREAMSCOPE_CUDA_CHECK(context, cudaDeviceSynchronize());
        }
    }
    ~Plain()
    {
        for (int g = 0; g < kGpus; ++g) {
            cudaSetDevice(g);
            cublasDestroy(m_gpu[g].handle);
            ncclCommDestroy(m_comms[g]);
        }
        cudaSetDevice(0);
    }
    Plain(const Plain &) = delete;
    Plain &operator=(const Plain &) = delete;

    // One repetition: the GEMMs and/or the all-reduce; durations in ms per GPU (GEMMs 0..2, all-reduce), from
    // the event pairs, or with `cupti` from the kernels' records (what Nsight Systems would show of it).
    void run(bool gemms, bool allReduce, std::vector<double> (&gemmMs)[kGpus][3], std::vector<double> (&arMs)[kGpus],
             bool cupti)
    {
        const char *context = "plain GEMM + all-reduce program";
        std::unique_ptr<cupti::Tracer> tracer;
        if (cupti) {
            std::string why;
            tracer = cupti::Tracer::start(why, false);
            if (!tracer)
                throw Error(ErrorKind::Cuda, "CUPTI could not trace the plain program: " + why);
        }
        for (int g = 0; g < kGpus; ++g) { // the first GEMM
            STREAMSCOPE_CUDA_CHECK(context, cudaSetDevice(g));
            if (gemms) {
                record(m_gpu[g].gemmEvents[0], m_gpu[g].compute);
                gemm(g);
                record(m_gpu[g].gemmEvents[1], m_gpu[g].compute);
            }
        }
        if (allReduce) {
            checkNccl(ncclGroupStart(), "ncclGroupStart");
            for (int g = 0; g < kGpus; ++g) {
                STREAMSCOPE_CUDA_CHECK(context, cudaSetDevice(g));
                Gpu &d = m_gpu[g];
                record(d.arBegin, d.comm);
                checkNccl(ncclAllReduce(d.send.get(), d.recv.get(), kAllReduceBytes / 2, ncclBfloat16, ncclSum,
                                        m_comms[g], d.comm.get()),
                          "ncclAllReduce");
            }
            checkNccl(ncclGroupEnd(), "ncclGroupEnd");
            // After the group's end, which launches the kernels: an event recorded inside the group would be
            // queued before them.
            for (int g = 0; g < kGpus; ++g) {
                STREAMSCOPE_CUDA_CHECK(context, cudaSetDevice(g));
                record(m_gpu[g].arEnd, m_gpu[g].comm);
            }
        }
        for (int g = 0; g < kGpus; ++g) { // the second and third
            STREAMSCOPE_CUDA_CHECK(context, cudaSetDevice(g));
            if (gemms)
                for (int i = 1; i < 3; ++i) {
                    gemm(g);
                    record(m_gpu[g].gemmEvents[i + 1], m_gpu[g].compute);
                }
        }
        for (int g = 0; g < kGpus; ++g) {
            STREAMSCOPE_CUDA_CHECK(context, cudaSetDevice(g));
            STREAMSCOPE_CUDA_CHECK(context, cudaDeviceSynchronize());
        }
        if (tracer) {
            kernelTimes(*tracer, gemms, allReduce, gemmMs, arMs);
            STREAMSCOPE_CUDA_CHECK(context, cudaSetDevice(0));
            return;
        }
        for (int g = 0; g < kGpus; ++g) {
            Gpu &d = m_gpu[g];
            if (gemms)
                for (int i = 0; i < 3; ++i)
                    gemmMs[g][i].push_back(elapsed(d.gemmEvents[i], d.gemmEvents[i + 1]));
            // Issued while the first GEMM holds every SM, the all-reduce starts when that GEMM ends (the engine's
            // records show it starting there): its execution beside the GEMMs runs from the first GEMM's end.
            if (allReduce)
                arMs[g].push_back(gemms ? elapsed(d.gemmEvents[1], d.arEnd) : elapsed(d.arBegin, d.arEnd));
        }
        STREAMSCOPE_CUDA_CHECK(context, cudaSetDevice(0));
    }

private:
    // Each GPU's kernels in the order they started: cuBLAS's (the GEMMs) and NCCL's (the all-reduce).
    static void kernelTimes(cupti::Tracer &tracer, bool gemms, bool allReduce, std::vector<double> (&gemmMs)[kGpus][3],
                            std::vector<double> (&arMs)[kGpus])
    {
        cupti::Batch batch;
        std::string why;
        if (!tracer.flush(batch, why))
            throw Error(ErrorKind::Cuda, "CUPTI's records of the plain program: " + why);
        std::vector<const cupti::GpuRecord *> kernels;
        for (const cupti::GpuRecord &g : batch.records)
            if (g.kind == cupti::GpuRecord::Kind::Kernel && g.deviceId >= 0 && g.deviceId < kGpus && g.name)
                kernels.push_back(&g);
        std::sort(kernels.begin(), kernels.end(), [](auto *a, auto *b) { return a->startNs < b->startNs; });
        for (int g = 0; g < kGpus; ++g) {
            std::vector<double> gemm;
            double ar = -1;
            for (const cupti::GpuRecord *k : kernels) {
                if (k->deviceId != g)
                    continue;
                const double ms = double(k->endNs - k->startNs) / 1e6;
                if (std::string_view(k->name).find("ncclDevKernel") != std::string_view::npos)
                    ar = ms;
                else
                    gemm.push_back(ms);
            }
            if ((gemms && gemm.size() != 3) || (allReduce && ar < 0))
                throw Error(ErrorKind::Cuda, "GPU " + std::to_string(g) + " ran " + std::to_string(gemm.size())
                                                 + " GEMM kernels (3 expected) and " + (ar < 0 ? "no" : "an")
                                                 + " NCCL kernel: this comparison assumes one kernel per call");
            for (std::size_t i = 0; gemms && i < 3; ++i)
                gemmMs[g][i].push_back(gemm[i]);
            if (allReduce)
                arMs[g].push_back(ar);
        }
    }

    struct Gpu {
        cuda::Buffer a, b, c, send, recv;
        cuda::Stream compute, comm;
        cuda::Event gemmEvents[4];
        cuda::Event arBegin, arEnd;
        cublasHandle_t handle = nullptr;
    };

    void gemm(int g)
    {
        const float alpha = 1, beta = 0;
        Gpu &d = m_gpu[g];
        checkCublas(cublasGemmEx(d.handle, CUBLAS_OP_T, CUBLAS_OP_N, kN, kN, kN, &alpha, d.a.get(), CUDA_R_16BF, kN,
                                 d.b.get(), CUDA_R_16BF, kN, &beta, d.c.get(), CUDA_R_16BF, kN, CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT),
                    "cublasGemmEx");
    }
    static void record(cuda::Event &e, cuda::Stream &s)
    {
        STREAMSCOPE_CUDA_CHECK("plain program", cudaEventRecord(e.get(), s.get()));
    }
    static double elapsed(cuda::Event &a, cuda::Event &b)
    {
        float ms = 0;
        STREAMSCOPE_CUDA_CHECK("plain program", cudaEventElapsedTime(&ms, a.get(), b.get()));
        return ms;
    }

    ncclComm_t m_comms[kGpus] = {};
    Gpu m_gpu[kGpus];
};

Slowdowns plainSlowdowns(Plain &plain, int reps, bool cupti)
{
    std::vector<double> aloneGemm[kGpus][3], aloneAr[kGpus], mixedGemm[kGpus][3], mixedAr[kGpus];
    std::vector<double> unusedGemm[kGpus][3], unusedAr[kGpus];
    for (int warm = 0; warm < 2; ++warm)
        plain.run(true, true, unusedGemm, unusedAr, false);
    for (int r = 0; r < reps; ++r) { // rounds as the engine's: the mix, then each part alone
        plain.run(true, true, mixedGemm, mixedAr, cupti);
        plain.run(true, false, aloneGemm, unusedAr, cupti);
        plain.run(false, true, unusedGemm, aloneAr, cupti);
    }
    Slowdowns s;
    for (int g = 0; g < kGpus; ++g) {
        // Each GEMM against itself alone, as the engine's per-op slowdowns; the median of the two.
        const double second = bench::median(mixedGemm[g][1]) / bench::median(aloneGemm[g][1]);
        const double third = bench::median(mixedGemm[g][2]) / bench::median(aloneGemm[g][2]);
        s.gemm[g] = bench::median(std::vector<double>{second, third});
        s.allReduce[g] = bench::median(mixedAr[g]) / bench::median(aloneAr[g]);
        std::printf(
            "  plain (%s), GPU %d: GEMMs 2 and 3 alone %.3f / %.3f ms, beside %.3f / %.3f ms; all-reduce alone %.3f "
            "ms, beside %.3f ms\n",
            cupti ? "CUPTI" : "events", g, bench::median(aloneGemm[g][1]), bench::median(aloneGemm[g][2]),
            bench::median(mixedGemm[g][1]), bench::median(mixedGemm[g][2]), bench::median(aloneAr[g]),
            bench::median(mixedAr[g]));
    }
    return s;
}

double points(double slowdown)
{
    return (slowdown - 1.0) * 100.0;
}

} // namespace

int main(int argc, char **argv)
{
    const bench::Args args =
        bench::parseArgs(argc, argv, "bench_collective_overlap", "resources/workloads/allreduce-beside-gemm.json");
    try {
        const std::vector<DeviceInfo> devices = listDevices();
        if (devices.size() < kGpus) {
            std::fprintf(stderr, "bench_collective_overlap: needs 2 GPUs; this host has %zu\n", devices.size());
            return 5;
        }
        const int reps = args.reps > 0 ? args.reps : 5;
        std::printf("%s x2, %s, %d repetitions per side and round\n\n", devices[0].name.c_str(), args.workload.c_str(),
                    reps);
        std::vector<double> engineGemm[kGpus], engineAr[kGpus], plainGemm[kGpus], plainAr[kGpus];
        Plain plain;
        for (int round = 0; round < 3; ++round) {
            Slowdowns e, p;
            bench::alternated(
                round, [&] { e = engineSlowdowns(args.workload, reps); },
                [&] { p = plainSlowdowns(plain, reps, true); });
            for (int g = 0; g < kGpus; ++g) {
                engineGemm[g].push_back(e.gemm[g]);
                engineAr[g].push_back(e.allReduce[g]);
                plainGemm[g].push_back(p.gemm[g]);
                plainAr[g].push_back(p.allReduce[g]);
            }
        }
        // The plain program's own event pairs, for comparison: they cannot tell when the all-reduce started.
        const Slowdowns events = plainSlowdowns(plain, reps, false);
        std::printf("%-5s %-22s %10s %13s %9s  %-16s %13s\n", "GPU", "op", "engine", "plain (CUPTI)", "points",
                    "target", "plain (events)");
        bool ok = true;
        nlohmann::json rows = nlohmann::json::array();
        for (int g = 0; g < kGpus; ++g)
            for (const auto &[what, engine, plainRounds, byEvents] :
                 {std::tuple<const char *, std::vector<double> &, std::vector<double> &, double>{
                      "GEMMs beside it", engineGemm[g], plainGemm[g], events.gemm[g]},
                  {"all-reduce 1 GiB", engineAr[g], plainAr[g], events.allReduce[g]}}) {
                const double e = points(bench::median(engine)), p = points(bench::median(plainRounds));
                const bool pass = std::abs(e - p) <= kTargetPoints;
                ok = ok && pass;
                std::printf("%-5d %-22s %+9.1f%% %+12.1f%% %+9.1f  %-16s %+12.1f%%\n", g, what, e, p, e - p,
                            pass ? "within 3 ok" : "within 3 MISSED", points(byEvents));
                std::vector<double> ep, pp;
                for (double v : engine)
                    ep.push_back(points(v));
                for (double v : plainRounds)
                    pp.push_back(points(v));
                rows.push_back({{"gpu", g},
                                {"op", what},
                                {"engine_rounds_percent", ep},
                                {"plain_rounds_percent", pp},
                                {"engine_percent", e},
                                {"plain_percent", p},
                                {"plain_events_percent", points(byEvents)},
                                {"pass", pass}});
            }
        nlohmann::json results = {{"benchmark", "bench_collective_overlap"},
                                  {"target", "each slowdown within 3 points of the hand-written program's"},
                                  {"device", devices[0].name},
                                  {"pass", ok},
                                  {"rows", rows}};
        bench::writeResults(args.out, results);
        std::printf("%s\n", ok ? "PASS" : "FAIL: some rows missed the target");
        return ok ? 0 : 1;
    } catch (const Error &e) {
        std::fprintf(stderr, "bench_collective_overlap: %s\n", e.what());
        return e.kind() == ErrorKind::NoGpu ? 5 : 1;
    }
}
