// Benchmark (d): what does CUPTI's activity tracing cost by itself on this GPU, with StreamScope out of
// the way? bench_overhead measures the engine; this measures the floor under it. The overlap preset's
// pipeline written out in plain CUDA (16 MiB of pinned memory in 4 chunks on 4 streams, each chunk copied
// in, a 60 us spin kernel, copied out, issued depth-first), held behind a host flag until the whole
// repetition is queued (nvbandwidth's method, as the runner does), and timed from one start event to the
// last stream's end event. Every configuration runs in the same process, alternated in rounds:
//   plain                      nothing added
//   events (no timing)         an event after every op, created with cudaEventDisableTiming
//   events                     a timing event after every op (what stream-ready costs, as the runner shares them)
//   CUPTI kernels              CONCURRENT_KERNEL records only
//   CUPTI copies               MEMCPY records only
//   CUPTI kernels + copies     what execution timing needs
//   CUPTI as StreamScope       the kinds the runner enables (+ runtime API, correlation, memset, sync, peer)
//   CUPTI as StreamScope + events  the runner's default: execution, stream-ready and the event error
//   ... and the same with the events untimed, or only after the copies, or only after the kernels
// Kernel queued/submitted timestamps must be chosen before CUDA starts: --latency on|off (default on, as
// the runner). Each figure is the median span of its rounds; the ratio is against `plain` of the same
// run. Then pageable copies of 1-64 MiB each way, timed on the host from the call to completion, with
// CUPTI's tracing off and on, alternating, and without CUPTI with the CPU's caches evicted before each copy. This
// benchmark has no target of its own: it says whether bench_overhead's <= 2 % is within reach of any CUPTI-timed tool
// on this GPU. What it measured must have happened, though: exit 1 when CUPTI dropped records, or when a CUPTI
// configuration got fewer records than the kernels and copies it traced (the hold kernel and the four spin kernels,
// the eight copies of every repetition); 0 otherwise; 5 without a usable GPU. See bench/NOTES.md.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <cupti.h>

#include "bench/bench_common.h"
#include "bench/bench_cuda.h"
#include "engine/run/clock_calibration.h"
#include "engine/run/cuda_check.h"
#include "engine/run/cuda_raii.h"
#include "kernels/kernels.cuh"

using namespace streamscope;
using namespace streamscope::engine;

namespace {

constexpr int kChunks = 4;
constexpr int kStreams = 4;
constexpr std::uint64_t kBytes = 16ull << 20;
constexpr std::int64_t kKernelNs = 60'000;
constexpr int kBlocks = 64;
constexpr int kThreads = 256;

void cuptiCheck(CUptiResult r, const char *call)
{
    if (r == CUPTI_SUCCESS)
        return;
    const char *text = nullptr;
    cuptiGetResultString(r, &text);
    throw Error(ErrorKind::Cuda, std::string(call) + " failed: " + (text ? text : "unknown CUPTI error"));
}
#define CUPTI_CHECK(call) cuptiCheck((call), #call)

// Counted in CUPTI's completion callback, which CUPTI's worker thread may run as well as a flush.
std::atomic<std::size_t> g_records{0};
volatile unsigned g_sink = 0; // keeps the eviction sweep
void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size, size_t *maxRecords)
{
    *size = std::size_t(4) << 20;
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, *size));
    *maxRecords = 0;
}
void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t *buffer, size_t, size_t validSize)
{
    CUpti_Activity *record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS)
        ++g_records;
    std::free(buffer);
}

// Which ops get an event recorded after them.
enum class Marks { None, AllUntimed, All, AfterCopies, AfterKernels };

struct Config {
    const char *name;
    std::vector<CUpti_ActivityKind> kinds;
    Marks events = Marks::None;
    std::vector<double> spans{};
    std::size_t records = 0;
};

const std::vector<CUpti_ActivityKind> kStreamScopeKinds = {
    CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMCPY2,           CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION}; // as engine/run/runner_cupti.cpp

class Pipeline {
public:
    Pipeline() :
        m_host(BufferKind::Pinned, kBytes, "bench_cupti_cost: host buffer"),
        m_device(BufferKind::Device, kBytes, "bench_cupti_cost: device buffer"),
        m_flag(BufferKind::Pinned, 2 * sizeof(int), "bench_cupti_cost: hold flag and time-out word"),
        m_control(cudaStreamNonBlocking, 0, "bench_cupti_cost: control stream"),
        m_start(cudaEventDefault, "bench_cupti_cost: start event")
    {
        std::memset(m_host.get(), 1, kBytes);
        for (int i = 0; i < kStreams; ++i) {
            m_streams.emplace_back(cudaStreamNonBlocking, 0, "bench_cupti_cost: stream");
            m_ends.emplace_back(cudaEventDefault, "bench_cupti_cost: end event");
        }
        for (int i = 0; i < 3 * kChunks; ++i) {
            m_timed.emplace_back(cudaEventDefault, "bench_cupti_cost: op event");
            m_untimed.emplace_back(cudaEventDisableTiming, "bench_cupti_cost: op event (no timing)");
        }
        m_cycles = calibrate();
    }

    std::int64_t cycles() const { return m_cycles; }

    double run(Marks marks) // one held repetition; its span in ns
    {
        const char *context = "bench_cupti_cost: repetition";
        volatile int *flag = static_cast<volatile int *>(m_flag.get());
        flag[0] = 0;
        flag[1] = 0;
        // A 1 s time-out: never reached unless the host stalls; then the repetition reads long, and says so.
        STREAMSCOPE_CUDA_CHECK(context,
                               kernels::launchHold(flag, const_cast<int *>(flag + 1), 1'000'000'000, m_control.get()));
        STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(m_start.get(), m_control.get()));
        for (const cuda::Stream &s : m_streams)
            STREAMSCOPE_CUDA_CHECK(context, cudaStreamWaitEvent(s.get(), m_start.get(), 0));
        const std::uint64_t chunk = kBytes / kChunks;
        int next = 0;
        auto mark = [&](cudaStream_t s, bool afterCopy) {
            if (marks == Marks::None || (marks == Marks::AfterCopies && !afterCopy)
                || (marks == Marks::AfterKernels && afterCopy))
                return;
            cudaEvent_t e = (marks == Marks::AllUntimed ? m_untimed : m_timed)[std::size_t(next++)].get();
            STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(e, s));
        };
        for (int c = 0; c < kChunks; ++c) {
            cudaStream_t s = m_streams[std::size_t(c % kStreams)].get();
            STREAMSCOPE_CUDA_CHECK(context, cudaMemcpyAsync(m_device.bytesAt(c * chunk), m_host.bytesAt(c * chunk),
                                                            chunk, cudaMemcpyHostToDevice, s));
            mark(s, true);
            STREAMSCOPE_CUDA_CHECK(context, kernels::launchSpin(m_cycles, kBlocks, kThreads, s));
            mark(s, false);
            STREAMSCOPE_CUDA_CHECK(context, cudaMemcpyAsync(m_host.bytesAt(c * chunk), m_device.bytesAt(c * chunk),
                                                            chunk, cudaMemcpyDeviceToHost, s));
            mark(s, true);
        }
        for (std::size_t i = 0; i < m_streams.size(); ++i)
            STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(m_ends[i].get(), m_streams[i].get()));
        flag[0] = 1; // release: the GPU starts only now, with everything queued
        STREAMSCOPE_CUDA_CHECK(context, cudaDeviceSynchronize());
        if (flag[1] != 0)
            std::fprintf(stderr, "bench_cupti_cost: a hold timed out (the host stalled for 1 s)\n");
        return bench::spanToLastEnd(context, m_start.get(), m_ends);
    }

private:
    // The spin kernel's clock rate from the slope between a short and a long spin (their fixed cost
    // cancels), as the runner calibrates; then the cycles for 60 us.
    std::int64_t calibrate()
    {
        const char *context = "bench_cupti_cost: calibration";
        cuda::Event a(cudaEventDefault, "bench_cupti_cost: calibration event");
        cuda::Event b(cudaEventDefault, "bench_cupti_cost: calibration event");
        auto timeSpin = [&](std::int64_t cycles) {
            double best = 1e300;
            for (int i = 0; i < 5; ++i) {
                STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(a.get(), m_control.get()));
                STREAMSCOPE_CUDA_CHECK(context, kernels::launchSpin(cycles, kBlocks, kThreads, m_control.get()));
                STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(b.get(), m_control.get()));
                STREAMSCOPE_CUDA_CHECK(context, cudaEventSynchronize(b.get()));
                float ms = 0;
                STREAMSCOPE_CUDA_CHECK(context, cudaEventElapsedTime(&ms, a.get(), b.get()));
                best = std::min(best, double(ms) * 1e6);
            }
            return best;
        };
        constexpr std::int64_t shortCycles = 100'000, longCycles = 2'000'000;
        const double rate = clockRateFromSlope(shortCycles, timeSpin(shortCycles), longCycles, timeSpin(longCycles));
        if (rate <= 0)
            throw Error(ErrorKind::Cuda, "bench_cupti_cost: the spin kernel's clock rate could not be measured");
        return std::int64_t(double(kKernelNs) * 1e-9 * rate);
    }

    cuda::Buffer m_host, m_device, m_flag;
    cuda::Stream m_control;
    std::vector<cuda::Stream> m_streams;
    cuda::Event m_start;
    std::vector<cuda::Event> m_ends, m_timed, m_untimed;
    std::int64_t m_cycles = 0;
};

// A pageable copy as its user waits for it: the host call (the CPU stages the data through the driver's
// pinned buffer there) and the DMA after it, timed on the host from the call to the stream's completion.
// Median GB/s of `reps` copies after 2 warm-ups.
// With `evict`, a 256 MiB read sweep through other memory before each copy takes its data out of the
// CPU's caches, as a program's other work between two copies does.
double pageableGBs(cuda::Buffer &host, cuda::Buffer &device, std::uint64_t bytes, bool h2d, int reps,
                   cudaStream_t stream, std::vector<unsigned char> *evict = nullptr)
{
    const char *context = "bench_cupti_cost: pageable copy";
    std::vector<double> gbs;
    for (int i = 0; i < reps + 2; ++i) {
        if (evict) { // read only: no dirty lines left to be written back during the timed copy
            unsigned sum = 0;
            for (std::size_t k = 0; k < evict->size(); k += 64)
                sum += (*evict)[k];
            g_sink = g_sink + sum;
        }
        const auto t0 = std::chrono::steady_clock::now();
        STREAMSCOPE_CUDA_CHECK(context,
                               cudaMemcpyAsync(h2d ? device.get() : host.get(), h2d ? host.get() : device.get(), bytes,
                                               h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, stream));
        STREAMSCOPE_CUDA_CHECK(context, cudaStreamSynchronize(stream));
        const double ns =
            double(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
        if (i >= 2)
            gbs.push_back(double(bytes) / ns);
    }
    return bench::median(gbs);
}

} // namespace

int main(int argc, char **argv)
{
    // --latency on|off before the common arguments (CUPTI needs it before CUDA starts).
    bool latency = true;
    std::vector<char *> rest{argv[0]};
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--latency") == 0 && i + 1 < argc) {
            latency = std::strcmp(argv[++i], "off") != 0;
            continue;
        }
        rest.push_back(argv[i]);
    }
    const bench::Args args = bench::parseArgs(int(rest.size()), rest.data(), "bench_cupti_cost");
    try {
        const int reps = args.reps > 0 ? args.reps : 20;
        constexpr int kRounds = 7;
        try {
            CUPTI_CHECK(cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted));
            if (latency)
                CUPTI_CHECK(cuptiActivityEnableLatencyTimestamps(1));
        } catch (const Error &e) {
            // CUPTI fails first where there is no driver or no GPU: say so as the other benchmarks do (exit 5).
            int count = 0;
            if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
                throw Error(ErrorKind::NoGpu, std::string("no usable GPU (") + e.what() + ")");
            throw;
        }
        STREAMSCOPE_CUDA_CHECK("bench_cupti_cost: starting CUDA", cudaFree(nullptr));
        cudaDeviceProp prop{};
        STREAMSCOPE_CUDA_CHECK("bench_cupti_cost: cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, 0));
        int driver = 0;
        STREAMSCOPE_CUDA_CHECK("bench_cupti_cost: cudaDriverGetVersion", cudaDriverGetVersion(&driver));

        Pipeline pipeline;
        std::vector<Config> configs = {
            {"plain", {}, Marks::None},
            {"events (no timing)", {}, Marks::AllUntimed},
            {"events", {}, Marks::All},
            {"CUPTI kernels", {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL}, Marks::None},
            {"CUPTI copies", {CUPTI_ACTIVITY_KIND_MEMCPY}, Marks::None},
            {"CUPTI kernels + copies",
             {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY},
             Marks::None},
            {"CUPTI as StreamScope", kStreamScopeKinds, Marks::None},
            {"CUPTI as StreamScope + events", kStreamScopeKinds, Marks::All},
            {"  ... events (no timing)", kStreamScopeKinds, Marks::AllUntimed},
            {"  ... events after copies only", kStreamScopeKinds, Marks::AfterCopies},
            {"  ... events after kernels only", kStreamScopeKinds, Marks::AfterKernels},
        };
        for (int round = 0; round < kRounds; ++round) {
            for (Config &c : configs) {
                for (CUpti_ActivityKind k : c.kinds)
                    CUPTI_CHECK(cuptiActivityEnable(k));
                const std::size_t before = g_records;
                for (int i = 0; i < 2 + reps; ++i) { // two warm-ups, as the runner's default
                    const double span = pipeline.run(c.events);
                    if (i >= 2)
                        c.spans.push_back(span);
                    CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
                }
                for (CUpti_ActivityKind k : c.kinds)
                    CUPTI_CHECK(cuptiActivityDisable(k));
                CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
                c.records += g_records - before;
            }
        }
        std::size_t dropped = 0;
        CUPTI_CHECK(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped));
        // The records each configuration must have had at least: per repetition (warm-ups included) one per
        // kernel (the hold kernel and a spin per chunk) where kernels are traced, one per copy (H2D and D2H
        // per chunk) where copies are.
        auto expectedRecords = [&](const Config &c) {
            auto traced = [&](CUpti_ActivityKind k) {
                return std::find(c.kinds.begin(), c.kinds.end(), k) != c.kinds.end();
            };
            const std::size_t perRepetition = (traced(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ? 1 + kChunks : 0)
                                              + (traced(CUPTI_ACTIVITY_KIND_MEMCPY) ? 2 * kChunks : 0);
            return perRepetition * std::size_t(2 + reps) * std::size_t(kRounds);
        };
        std::vector<std::string> problems;
        if (dropped > 0)
            problems.push_back("CUPTI dropped " + std::to_string(dropped) + " records");
        for (const Config &c : configs)
            if (c.records < expectedRecords(c))
                problems.push_back(std::string(c.name) + ": " + std::to_string(c.records) + " records of at least "
                                   + std::to_string(expectedRecords(c)) + " traced kernels and copies");

        const double plain = bench::median(configs.front().spans);
        std::printf("%s, driver %d, kernel latency timestamps %s; %d rounds x %d repetitions, spin %lld cycles\n",
                    prop.name, driver, latency ? "on" : "off", kRounds, reps, (long long)pipeline.cycles());
        std::printf("%-32s %10s %10s %10s %9s %9s\n", "", "median us", "min us", "max us", "vs plain", "records");
        nlohmann::json rows = nlohmann::json::array();
        for (const Config &c : configs) {
            const double m = bench::median(c.spans);
            const double above = plain > 0 ? (m - plain) / plain : 0;
            std::printf("%-32s %10.1f %10.1f %10.1f %+8.2f%% %9zu\n", c.name, m / 1e3, bench::minOf(c.spans) / 1e3,
                        bench::maxOf(c.spans) / 1e3, above * 100, c.records);
            rows.push_back({{"config", c.name},
                            {"median_ns", m},
                            {"min_ns", bench::minOf(c.spans)},
                            {"max_ns", bench::maxOf(c.spans)},
                            {"above_plain", above},
                            {"records", c.records}});
        }
        const auto both = std::find_if(configs.begin(), configs.end(),
                                       [](const Config &c) { return std::string(c.name) == "CUPTI kernels + copies"; });
        const double floor = both == configs.end() ? 0 : (bench::median(both->spans) - plain) / plain;
        std::printf(
            "\nCUPTI's own floor (kernels + copies) %+.2f%%: bench_overhead's <= 2%% target is %s on this GPU\n",
            floor * 100, floor <= 0.02 ? "within reach" : "below what CUPTI alone costs");
        for (const std::string &p : problems)
            std::printf("NOT MEASURED: %s\n", p.c_str());
        // Pageable copies (bench_engine_bandwidth's rows below 0.98): what CUPTI's tracing does to them in
        // plain CUDA, plain and traced alternating in rounds, the median of the rounds' medians.
        constexpr int kPageableRounds = 5;
        constexpr int kPageableReps = 10;
        std::printf("\npageable copies, host call to completion (%d rounds x %d copies):\n", kPageableRounds,
                    kPageableReps);
        std::printf("%-4s %9s %12s %14s %7s %22s\n", "dir", "size", "plain GB/s", "CUPTI GB/s", "ratio",
                    "plain, caches evicted");
        nlohmann::json pageableRows = nlohmann::json::array();
        {
            constexpr std::uint64_t kMaxBytes = 64ull << 20;
            cuda::Buffer host(BufferKind::Pageable, kMaxBytes, "bench_cupti_cost: pageable host buffer");
            cuda::Buffer device(BufferKind::Device, kMaxBytes, "bench_cupti_cost: device buffer for pageable copies");
            cuda::Stream stream(cudaStreamNonBlocking, 0, "bench_cupti_cost: pageable copy stream");
            std::vector<unsigned char> other(std::size_t(256) << 20, 0);
            for (const bool h2d : {true, false}) {
                for (const std::uint64_t mib : {1ull, 4ull, 16ull, 64ull}) {
                    const std::uint64_t bytes = mib << 20;
                    std::vector<double> plainRounds, tracedRounds, evictedRounds;
                    for (int round = 0; round < kPageableRounds; ++round) {
                        plainRounds.push_back(pageableGBs(host, device, bytes, h2d, kPageableReps, stream.get()));
                        for (CUpti_ActivityKind k : kStreamScopeKinds)
                            CUPTI_CHECK(cuptiActivityEnable(k));
                        tracedRounds.push_back(pageableGBs(host, device, bytes, h2d, kPageableReps, stream.get()));
                        for (CUpti_ActivityKind k : kStreamScopeKinds)
                            CUPTI_CHECK(cuptiActivityDisable(k));
                        CUPTI_CHECK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
                        evictedRounds.push_back(
                            pageableGBs(host, device, bytes, h2d, kPageableReps, stream.get(), &other));
                    }
                    const double p = bench::median(plainRounds), t = bench::median(tracedRounds),
                                 ev = bench::median(evictedRounds);
                    std::printf("%-4s %5llu MiB %12.2f %14.2f %7.3f %22.2f\n", h2d ? "h2d" : "d2h",
                                (unsigned long long)mib, p, t, p > 0 ? t / p : 0, ev);
                    pageableRows.push_back({{"direction", h2d ? "h2d" : "d2h"},
                                            {"bytes", bytes},
                                            {"plain_GBs", p},
                                            {"cupti_GBs", t},
                                            {"plain_rounds_GBs", plainRounds},
                                            {"cupti_rounds_GBs", tracedRounds},
                                            {"plain_caches_evicted_GBs", ev}});
                }
            }
        }
        bench::writeResults(args.out, {{"benchmark", "bench_cupti_cost"},
                                       {"pageable", pageableRows},
                                       {"device", {{"name", prop.name}, {"driver", driver}}},
                                       {"latency_timestamps", latency},
                                       {"rounds", kRounds},
                                       {"repetitions", reps},
                                       {"configs", rows},
                                       {"cupti_floor", floor},
                                       {"dropped_records", dropped},
                                       {"problems", problems},
                                       {"pass", problems.empty()}});
        if (!problems.empty())
            std::printf("FAIL: what this benchmark measured did not all happen (above)\n");
        return problems.empty() ? 0 : 1;
    } catch (const Error &e) {
        std::fprintf(stderr, "bench_cupti_cost: %s\n", e.what());
        return e.kind() == ErrorKind::NoGpu ? 5 : 1;
    }
}
