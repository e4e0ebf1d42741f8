// Benchmark (b): what does instrumenting every op cost? The overlap preset's GPU makespan as every real
// run times it (CUPTI activity records, an event pair and an NVTX range per op) against the same work with
// none of it (then only one start event and one end event per stream time the repetition), and with the
// events and NVTX but not CUPTI (--timing events), to tell the two costs apart.
// Both figures are the same measurement (start event to the last stream's end event), alternated in
// rounds so that clock drift hits both alike. Target: <= 2% when every GPU op of the workload asks for
// >= 50 us: a compute kernel's requested duration, an H2D or D2H copy's bytes over the host link's peak
// (the least it can last). Decided from the workload and the device, never from the measured ops, so a
// timing bug that shortens them cannot switch the target off.
// Exit 0 when the target is met, 1 when it is missed, 3 when it cannot be judged (an op with no requested
// duration or the link's peak unknown: nothing is measured), 5 without a usable GPU. See bench/NOTES.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "engine/run/runner.h"
#include "engine/workload/workload.h"
#include "engine/workload/workload_parser.h"

using namespace streamscope;
using namespace streamscope::engine;

namespace {

// The least any GPU op of `w` asks to last, in ns: a compute kernel its requested duration, an H2D or
// D2H copy its bytes over its device's host link peak (no copy can be faster). Where an op asks for no
// duration (a memset, a memory kernel, a device or peer copy) or the link's peak is unknown, `why` says
// so and the result is 0: the target cannot be judged for this workload.
double requestedFloorNs(const Workload &w, const std::vector<DeviceInfo> &devices, std::string &why)
{
    double floor = std::numeric_limits<double>::infinity();
    for (const StreamSpec &s : w.streams) {
        const int device = s.device >= 0 ? s.device : w.device;
        for (const OpSpec &op : s.ops) {
            const std::string what = "stream '" + s.name + "' op " + op.jsonPath;
            if (op.type == OpType::Kernel && op.kernelType == KernelType::Compute) {
                floor = std::min(floor, double(op.durationNs));
            } else if (op.type == OpType::Copy
                       && (op.direction == CopyDirection::H2D || op.direction == CopyDirection::D2H)) {
                const double peak =
                    device >= 0 && device < int(devices.size()) ? devices[std::size_t(device)].linkPeakGBs : 0;
                if (peak <= 0) {
                    why = what + ": the host link's peak of device " + std::to_string(device) + " is unknown";
                    return 0;
                }
                floor = std::min(floor, double(op.bytes) / peak); // bytes / (GB/s) = ns
            } else if (op.type == OpType::Kernel || op.type == OpType::Copy || op.type == OpType::Memset
                       || op.type == OpType::Prefetch) {
                why = what + ": a GPU op that asks for no duration";
                return 0;
            }
        }
    }
    if (!std::isfinite(floor)) {
        why = "the workload has no GPU op";
        return 0;
    }
    return floor;
}

} // namespace

int main(int argc, char **argv)
{
    const bench::Args args = bench::parseArgs(argc, argv, "bench_overhead", "resources/workloads/overlap.json");
    try {
        const Workload w = loadWorkloadFile(args.workload);
        const int reps = args.reps > 0 ? args.reps : 20;
        constexpr int kRounds = 5;
        constexpr double kFloorNs = 50'000;

        // Whether the target applies, before anything is measured.
        std::string notJudged;
        const double floorNs = requestedFloorNs(w, listDevices(), notJudged);
        if (notJudged.empty() && floorNs < kFloorNs) {
            char text[96];
            std::snprintf(text, sizeof text, "the shortest GPU op asks for %.1f us, under 50 us", floorNs / 1e3);
            notJudged = text;
        }
        if (!notJudged.empty()) {
            std::printf("SKIPPED: the 2 %% target cannot be judged on %s: %s; nothing measured\n",
                        args.workload.c_str(), notJudged.c_str());
            bench::writeResults(args.out, {{"benchmark", "bench_overhead"},
                                           {"workload", args.workload},
                                           {"skipped", notJudged},
                                           {"requested_floor_ns", floorNs}});
            return 3;
        }

        RunOptions instrumented;
        instrumented.repetitions = reps;
        instrumented.warmup = 2;
        RunOptions plain = instrumented;
        plain.instrument = false;
        plain.nvtx = false;
        plain.timing = TimingMode::Events;
        // CUPTI's records alone, without the per-op events that give stream-ready: what CUPTI itself costs.
        RunOptions cuptiAlone = plain;
        cuptiAlone.timing = TimingMode::Cupti;
        std::vector<double> cuptiSpans;
        // ... and without the kernels' queued/submitted timestamps (RunOptions::kernelLatency).
        RunOptions cuptiLean = cuptiAlone;
        cuptiLean.kernelLatency = false;
        std::vector<double> leanSpans;
        // The same instrumentation timed by events alone: what CUPTI adds on top of the event pairs.
        RunOptions eventsOnly = instrumented;
        eventsOnly.timing = TimingMode::Events;
        std::vector<double> eventSpans;

        std::vector<double> withSpans, withoutSpans, opDurations;
        Trace last;
        for (int round = 0; round < kRounds; ++round) {
            Trace a = runWorkload(w, instrumented);
            for (double s : bench::repetitionSpans(a))
                withSpans.push_back(s);
            for (const Repetition &r : a.repetitions)
                for (const OpRecord &op : r.ops)
                    if (op.hasGpu() && isGpuWork(op.kind))
                        opDurations.push_back(double(op.gpuDurationNs()));
            for (auto [options, spans] : {std::pair{&plain, &withoutSpans}, std::pair{&eventsOnly, &eventSpans},
                                          std::pair{&cuptiAlone, &cuptiSpans}, std::pair{&cuptiLean, &leanSpans}})
                for (double s : bench::repetitionSpans(runWorkload(w, *options)))
                    spans->push_back(s);
            last = std::move(a);
        }

        const double with = bench::median(withSpans);
        const double without = bench::median(withoutSpans);
        const double overhead = without > 0 ? (with - without) / without : 0;
        const double shortestOp = bench::minOf(opDurations);
        const double medianOp = bench::median(opDurations);
        const bool pass = overhead <= 0.02;

        std::printf("workload %s (%s), %d rounds x %d repetitions, hold: %s\n", w.name.c_str(), args.workload.c_str(),
                    kRounds, reps, last.metadata["hold"].c_str());
        std::printf("GPU ops: the shortest asks for %.1f us (compute kernels' durations, copies' bytes over the link's "
                    "peak); measured: shortest %.1f us, median %.1f us\n\n",
                    floorNs / 1e3, shortestOp / 1e3, medianOp / 1e3);
        std::printf("%-34s %12s %12s %12s\n", "", "median us", "min us", "max us");
        auto row = [](const std::string &label, const std::vector<double> &spans) {
            std::printf("%-34s %12.1f %12.1f %12.1f\n", label.c_str(), bench::median(spans) / 1e3,
                        bench::minOf(spans) / 1e3, bench::maxOf(spans) / 1e3);
        };
        row("CUPTI + events + NVTX per op (" + std::string(toString(last.timing)) + ")", withSpans);
        row("events + NVTX per op", eventSpans);
        row("CUPTI alone (no per-op events)", cuptiSpans);
        row("CUPTI alone, no latency timestamps", leanSpans);
        row("one event pair per repetition", withoutSpans);
        const double events = bench::median(eventSpans);
        const double cupti = bench::median(cuptiSpans);
        const double lean = bench::median(leanSpans);
        auto above = [](double value, double base) { return base > 0 ? (value - base) / base * 100 : 0.0; }; // per cent
        std::printf(
            "\nevents alone %+.2f%%; CUPTI on top of them %+.2f%%%s\n", above(events, without), above(with, events),
            last.metadata.count("cupti") && last.metadata.at("cupti").find("queued/submitted") != std::string::npos
                ? " (kernel latency timestamps on)"
                : " (kernel latency timestamps off)");
        std::printf("CUPTI alone %+.2f%%, without latency timestamps %+.2f%%\n", above(cupti, without),
                    above(lean, without));
        std::printf("overhead %+.2f%% (target <= 2%% %s)\n", overhead * 100, pass ? "met" : "MISSED");

        auto spanJson = [](const std::vector<double> &spans) {
            return nlohmann::json{
                {"median", bench::median(spans)}, {"min", bench::minOf(spans)}, {"max", bench::maxOf(spans)}};
        };
        const nlohmann::json results = {{"benchmark", "bench_overhead"},
                                        {"workload", args.workload},
                                        {"device", bench::deviceJson(last)},
                                        {"rounds", kRounds},
                                        {"repetitions", reps},
                                        {"hold", last.metadata["hold"]},
                                        {"instrumented_span_ns", spanJson(withSpans)},
                                        {"plain_span_ns", spanJson(withoutSpans)},
                                        {"events_span_ns", spanJson(eventSpans)},
                                        {"cupti_alone_no_latency_span_ns", spanJson(leanSpans)},
                                        {"cupti_alone_span_ns", spanJson(cuptiSpans)},
                                        {"timing", std::string(toString(last.timing))},
                                        {"requested_floor_ns", floorNs},
                                        {"shortest_op_ns", shortestOp},
                                        {"median_op_ns", medianOp},
                                        {"overhead", overhead},
                                        {"target", "overhead <= 0.02; judged when every GPU op asks for >= 50 us"},
                                        {"pass", pass}};
        bench::writeResults(args.out, results);
        return pass ? 0 : 1;
    } catch (const Error &e) {
        std::fprintf(stderr, "bench_overhead: %s\n", e.what());
        return e.kind() == ErrorKind::NoGpu ? 5 : 1;
    }
}
