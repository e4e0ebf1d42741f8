// Benchmark (#27): does an all-reduce through the engine reach the bus bandwidth of a plain NCCL program's?
// For sizes from 64 MiB to 1 GiB (bf16, sum, every GPU of the host up to 8), the engine's median bus
// bandwidth over the all-reduces of a workload with one host thread and one stream per GPU (each
// all-reduce's execution as CUPTI recorded it: the span of what NCCL launched for the call) against a
// plain loop written as nccl-tests writes it in one process (-t 1 -g N: one thread, every GPU's
// ncclAllReduce in one group, kCallsPerRep back to back between an event pair per GPU, the slowest
// GPU's time divided by the count). Bus bandwidth is nccl-tests' busbw: size x 2(n-1)/n over the time.
// Rounds alternate engine and plain; the ratio is the median of the rounds' paired ratios.
// Target: engine / plain >= 0.97 from 64 MiB. Also checked: nothing above the NVLink's per-direction
// peak where the topology knows it (a bandwidth above the link is a timing bug).
// Exit 0 when every row meets the target, 1 when one misses it, 5 without two GPUs or without NCCL.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#include "bench/bench_common.h"
#include "engine/run/cuda_check.h"
#include "engine/run/cuda_raii.h"
#include "engine/run/runner.h"
#include "engine/run/topology.h"
#include "engine/workload/workload.h"

using namespace streamscope;
using namespace streamscope::engine;

namespace {

constexpr int kRounds = 5;
constexpr int kCallsPerRep = 10; // back to back on each GPU's stream
constexpr double kTarget = 0.97;

void checkNccl(ncclResult_t r, const char *what)
{
    if (r != ncclSuccess)
        throw Error(ErrorKind::Cuda, std::string(what) + ": " + ncclGetErrorString(r));
}

// The engine: a thread and a stream per GPU, kCallsPerRep all-reduces each; the median bus GB/s.
double engineBusGbs(int gpus, std::uint64_t bytes, int reps)
{
    Workload w;
    w.version = 2;
    w.name = "all-reduce";
    for (int g = 0; g < gpus; ++g) {
        StreamSpec s;
        s.name = "comm" + std::to_string(g);
        s.device = g;
        s.thread = g;
        OpSpec op;
        op.type = OpType::Collective;
        op.collective.type = CollectiveType::AllReduce;
        op.collective.dtype = CollectiveDtype::Bf16;
        op.bytes = bytes;
        s.ops.assign(kCallsPerRep, op);
        w.streams.push_back(s);
        ThreadSpec t;
        t.name = "rank" + std::to_string(g);
        t.device = g;
        t.streams = {g};
        w.threads.push_back(t);
    }
    w.warmup = 2;
    w.repetitions = reps;
    buildSchedule(w);
    const Trace t = runWorkload(w, {});
    if (t.timing != TimingSource::Cupti)
        throw Error(ErrorKind::Cuda, "the run was not timed by CUPTI: " + t.timingNote);
    std::vector<double> rates;
    for (const Repetition &r : t.repetitions)
        for (const KernelLaunch &l : r.kernelLaunches)
            if (l.busBytes > 0)
                rates.push_back(l.busGbPerSecond(r.ops.at(std::size_t(l.op)).gpuDurationNs()));
    return bench::median(rates);
}

// The plain program, as nccl-tests runs it with one thread driving every GPU.
double plainBusGbs(int gpus, std::uint64_t bytes, int reps)
{
    const char *context = "plain ncclAllReduce loop";
    std::vector<ncclComm_t> comms(std::size_t(gpus), nullptr);
    std::vector<int> devs;
    for (int g = 0; g < gpus; ++g)
        devs.push_back(g);
    checkNccl(ncclCommInitAll(comms.data(), gpus, devs.data()), "ncclCommInitAll");
    std::vector<cuda::Buffer> send, recv;
    std::vector<cuda::Stream> streams;
    std::vector<cuda::Event> starts, ends;
    for (int g = 0; g < gpus; ++g) {
        STREAMSCOPE_CUDA_CHECK(context, cudaSetDevice(g));
        send.emplace_back(BufferKind::Device, bytes, "plain send");
        recv.emplace_back(BufferKind::Device, bytes, "plain recv");
        streams.emplace_back(cudaStreamNonBlocking, 0, context);
        starts.emplace_back(cudaEventDefault, context);
        ends.emplace_back(cudaEventDefault, context);
    }
    const std::size_t count = bytes / 2;
    std::vector<double> rates;
    for (int rep = 0; rep < reps + 2; ++rep) {
        for (int g = 0; g < gpus; ++g) {
            STREAMSCOPE_CUDA_CHECK(context, cudaSetDevice(g));
            STREAMSCOPE_CUDA_CHECK(context,
                                   cudaEventRecord(starts[std::size_t(g)].get(), streams[std::size_t(g)].get()));
        }
        for (int i = 0; i < kCallsPerRep; ++i) {
            checkNccl(ncclGroupStart(), "ncclGroupStart");
            for (int g = 0; g < gpus; ++g)
                checkNccl(ncclAllReduce(send[std::size_t(g)].get(), recv[std::size_t(g)].get(), count, ncclBfloat16,
                                        ncclSum, comms[std::size_t(g)], streams[std::size_t(g)].get()),
                          "ncclAllReduce");
            checkNccl(ncclGroupEnd(), "ncclGroupEnd");
        }
        float slowest = 0;
        for (int g = 0; g < gpus; ++g) {
            STREAMSCOPE_CUDA_CHECK(context, cudaSetDevice(g));
            STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(ends[std::size_t(g)].get(), streams[std::size_t(g)].get()));
            STREAMSCOPE_CUDA_CHECK(context, cudaEventSynchronize(ends[std::size_t(g)].get()));
            float ms = 0;
            STREAMSCOPE_CUDA_CHECK(context,
                                   cudaEventElapsedTime(&ms, starts[std::size_t(g)].get(), ends[std::size_t(g)].get()));
            slowest = std::max(slowest, ms);
        }
        if (rep >= 2) { // two warm-ups, as the engine's
            const double seconds = double(slowest) / 1e3 / kCallsPerRep;
            rates.push_back(double(busBytes(CollectiveType::AllReduce, bytes, gpus)) / seconds / 1e9);
        }
    }
    for (ncclComm_t c : comms)
        ncclCommDestroy(c);
    STREAMSCOPE_CUDA_CHECK(context, cudaSetDevice(0));
    return bench::median(rates);
}

} // namespace

int main(int argc, char **argv)
{
    const bench::Args args = bench::parseArgs(argc, argv, "bench_nccl");
    try {
        const std::vector<DeviceInfo> devices = listDevices();
        if (devices.size() < 2) {
            std::fprintf(stderr, "bench_nccl: needs 2 GPUs; this host has %zu\n", devices.size());
            return 5;
        }
        const int gpus = int(std::min<std::size_t>(devices.size(), 8));
        int version = 0;
        ncclGetVersion(&version);
        double linkPeak = 0;
        for (const PeerLink &l : queryPeerLinks(devices))
            if (l.src == 0 && l.dst == 1)
                linkPeak = l.peakGBps;
        std::printf("%d x %s, NCCL %d, GPU 0 -> 1 link peak %.0f GB/s\n\n", gpus, devices[0].name.c_str(), version,
                    linkPeak);
        std::printf("%10s %15s %15s %7s  %s\n", "size", "engine bus GB/s", "plain bus GB/s", "ratio", "target");
        const int reps = args.reps > 0 ? args.reps : 5;
        nlohmann::json rows = nlohmann::json::array();
        bool ok = true;
        for (const std::uint64_t mib : {64ull, 256ull, 1024ull}) {
            const std::uint64_t bytes = mib << 20;
            bench::PairedRounds rounds;
            for (int round = 0; round < kRounds; ++round) {
                double e = 0, p = 0;
                bench::alternated(
                    round, [&] { e = engineBusGbs(gpus, bytes, reps); }, [&] { p = plainBusGbs(gpus, bytes, reps); });
                rounds.add(e, p);
            }
            const double engine = rounds.engineMedian(), plain = rounds.plainMedian(), ratio = rounds.ratio();
            const bool belowPeak = linkPeak <= 0 || engine <= 1.02 * linkPeak;
            const bool pass = ratio >= kTarget && belowPeak;
            ok = ok && pass;
            std::printf("%6llu MiB %15.1f %15.1f %7.3f  %s\n", static_cast<unsigned long long>(mib), engine, plain,
                        ratio,
                        !belowPeak ? "ABOVE THE LINK"
                        : pass     ? ">= 0.97 ok"
                                   : ">= 0.97 MISSED");
            rows.push_back({{"bytes", bytes},
                            {"gpus", gpus},
                            {"calls_per_rep", kCallsPerRep},
                            {"reps", reps},
                            {"engine_rounds_bus_GBs", rounds.engine},
                            {"plain_rounds_bus_GBs", rounds.plain},
                            {"round_ratios", rounds.ratios},
                            {"engine_bus_GBs", engine},
                            {"plain_bus_GBs", plain},
                            {"ratio", ratio},
                            {"link_peak_GBs", linkPeak},
                            {"pass", pass}});
        }
        nlohmann::json results = {{"benchmark", "bench_nccl"},
                                  {"target", "engine / plain NCCL all-reduce bus bandwidth >= 0.97 from 64 MiB"},
                                  {"device", devices[0].name},
                                  {"nccl_version", version},
                                  {"pass", ok},
                                  {"rows", rows}};
        bench::writeResults(args.out, results);
        std::printf("%s\n", ok ? "PASS" : "FAIL: some rows missed the target");
        return ok ? 0 : 1;
    } catch (const Error &e) {
        std::fprintf(stderr, "bench_nccl: %s\n", e.what());
        return e.kind() == ErrorKind::NoGpu ? 5 : 1;
    }
}
