// rangeStatistics(): clip each op to the range, then per name, per lane, per copy direction, and a sweep
// over the GPU intervals for concurrency.
#include "engine/analysis/range_statistics.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "engine/analysis/analysis.h"
#include "engine/analysis/copy_bytes.h"
#include "engine/model/errors.h"
#include "engine/util/csv.h"
#include "engine/workload/pipeline_generator.h"

namespace streamscope::engine {

namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;

} // namespace

namespace {

// The statistics of [startNs, endNs); only the ops whose mask entry is set count, when a mask is given.
RangeStatistics statistics(const Trace &trace, int repetition, std::int64_t startNs, std::int64_t endNs,
                           const std::vector<bool> *mask)
{
    if (repetition < 0 || repetition >= static_cast<int>(trace.repetitions.size()))
        throw Error(ErrorKind::InvalidInput, "range statistics: repetition " + std::to_string(repetition)
                                                 + " does not exist (the trace has "
                                                 + std::to_string(trace.repetitions.size()) + ")");
    if (endNs <= startNs)
        throw Error(ErrorKind::InvalidInput, "range statistics: the range is empty (" + std::to_string(startNs)
                                                 + " ns to " + std::to_string(endNs) + " ns)");
    RangeStatistics s;
    s.startNs = startNs;
    s.endNs = endNs;
    const std::int64_t origin = trace.extent(repetition).first;
    const std::int64_t from = origin + startNs, to = origin + endNs;
    const auto length = static_cast<double>(endNs - startNs);
    const int streamCount = static_cast<int>(trace.streams.size());
    const int threadCount = static_cast<int>(trace.hostThreads.size());

    struct NameAcc {
        OpKind kind = OpKind::Other;
        int count = 0;
        std::int64_t total = 0, min = 0, max = 0;
    };
    std::map<std::string, NameAcc> names;
    std::vector<std::vector<Interval>> streamBusy(static_cast<std::size_t>(streamCount));
    std::vector<std::vector<Interval>> threadBusy(static_cast<std::size_t>(threadCount));
    std::vector<int> streamOps(static_cast<std::size_t>(streamCount), 0),
        threadOps(static_cast<std::size_t>(threadCount), 0);
    std::vector<Interval> copies, compute;
    std::vector<std::pair<std::int64_t, int>> edges; // GPU interval starts (+1) and ends (-1)

    const auto &ops = trace.repetitions[static_cast<std::size_t>(repetition)].ops;
    const auto counts = [&](const OpRecord &op) {
        return mask == nullptr || (*mask)[static_cast<std::size_t>(&op - ops.data())];
    };
    // Host threads: every call inside the range, whether or not its GPU part is (a blocking copy's call
    // holds the thread while the copy runs elsewhere).
    for (const OpRecord &op : ops) {
        if (!counts(op) || !op.hasHost() || op.hostThread < 0 || op.hostThread >= threadCount)
            continue;
        const std::int64_t lo = std::max(op.hostStartNs, from), hi = std::min(op.hostEndNs, to);
        if (hi > lo) {
            threadBusy[static_cast<std::size_t>(op.hostThread)].emplace_back(lo, hi);
            ++threadOps[static_cast<std::size_t>(op.hostThread)];
        }
    }
    for (const OpRecord &op : ops) {
        if (!counts(op))
            continue;
        const bool gpu = op.hasGpu();
        const std::int64_t a = gpu ? op.gpuStartNs : op.hostStartNs;
        const std::int64_t b = gpu ? op.gpuEndNs : op.hostEndNs;
        if (!gpu && !op.hasHost())
            continue;
        const std::int64_t lo = std::max(a, from), hi = std::min(b, to);
        // An op touching the range counts; an instant op (b == a) inside it counts with 0 ns.
        if (hi < lo || (hi == lo && (a < from || a >= to)))
            continue;
        const std::int64_t part = hi - lo;
        ++s.ops;
        // A pipeline's chunks are one stage each: "H2D 4 MiB pinned [c0]" .. "[c7]" are one row.
        NameAcc &n = names[std::string(withoutChunkTag(trace.name(op)))];
        if (n.count == 0) {
            n.kind = op.kind;
            n.min = n.max = part;
        }
        ++n.count;
        n.total += part;
        n.min = std::min(n.min, part);
        n.max = std::max(n.max, part);
        if (gpu && op.stream >= 0 && op.stream < streamCount) {
            streamBusy[static_cast<std::size_t>(op.stream)].emplace_back(lo, hi);
            ++streamOps[static_cast<std::size_t>(op.stream)];
        }
        if (!gpu)
            continue;
        const double fraction = b > a ? static_cast<double>(part) / static_cast<double>(b - a) : 0.0;
        addCopyBytes(s, op.kind, fraction * static_cast<double>(op.bytes));
        if (isCopy(op.kind))
            copies.emplace_back(lo, hi);
        else if (opKindInfo(op.kind).lane == ActivityLane::Compute)
            compute.emplace_back(lo, hi);
        if (part > 0) {
            edges.emplace_back(lo, +1);
            edges.emplace_back(hi, -1);
        }
    }

    for (const auto &[name, n] : names)
        s.names.push_back({name, n.kind, n.count, n.total, static_cast<double>(n.total) / n.count, n.min, n.max,
                           static_cast<double>(n.total) / length});
    std::stable_sort(s.names.begin(), s.names.end(),
                     [](const RangeNameStats &x, const RangeNameStats &y) { return x.totalNs > y.totalNs; });
    for (int i = 0; i < streamCount; ++i) {
        if (streamOps[static_cast<std::size_t>(i)] == 0)
            continue;
        const std::int64_t busy = unionLength(streamBusy[static_cast<std::size_t>(i)]);
        s.lanes.push_back({trace.streams[static_cast<std::size_t>(i)].name, false,
                           streamOps[static_cast<std::size_t>(i)], busy, static_cast<double>(busy) / length});
    }
    for (int i = 0; i < threadCount; ++i) {
        if (threadOps[static_cast<std::size_t>(i)] == 0)
            continue;
        const auto &t = trace.hostThreads[static_cast<std::size_t>(i)];
        const std::int64_t busy = unionLength(threadBusy[static_cast<std::size_t>(i)]);
        s.lanes.push_back({t.name.empty() ? "thread " + std::to_string(t.nativeId) : t.name, true,
                           threadOps[static_cast<std::size_t>(i)], busy, static_cast<double>(busy) / length});
    }
    const double seconds = length / 1e9;
    s.h2dGBs = s.h2dBytes / 1e9 / seconds;
    s.d2hGBs = s.d2hBytes / 1e9 / seconds;
    s.d2dGBs = s.d2dBytes / 1e9 / seconds;
    s.p2pGBs = s.p2pBytes / 1e9 / seconds;
    s.copyNs = unionLength(copies);
    s.computeNs = unionLength(compute);
    std::vector<Interval> both = copies;
    both.insert(both.end(), compute.begin(), compute.end());
    s.overlapNs = s.copyNs + s.computeNs - unionLength(std::move(both));

    // Ends before starts at the same instant: back-to-back ops are not concurrent.
    std::sort(edges.begin(), edges.end());
    int active = 0;
    std::int64_t since = 0;
    for (const auto &[t, delta] : edges) {
        if (active >= 2)
            s.concurrentNs += t - since;
        active += delta;
        since = t;
        s.maxConcurrent = std::max(s.maxConcurrent, active);
    }
    return s;
}

} // namespace

RangeStatistics rangeStatistics(const Trace &trace, int repetition, std::int64_t startNs, std::int64_t endNs)
{
    return statistics(trace, repetition, startNs, endNs, nullptr);
}

RangeStatistics selectionStatistics(const Trace &trace, int repetition, const std::vector<int> &selected)
{
    if (repetition < 0 || repetition >= static_cast<int>(trace.repetitions.size()))
        throw Error(ErrorKind::InvalidInput, "selection statistics: repetition " + std::to_string(repetition)
                                                 + " does not exist (the trace has "
                                                 + std::to_string(trace.repetitions.size()) + ")");
    const auto &ops = trace.repetitions[static_cast<std::size_t>(repetition)].ops;
    std::vector<bool> mask(ops.size(), false);
    std::int64_t first = 0, last = 0;
    bool any = false;
    int count = 0;
    for (const int index : selected) {
        if (index < 0 || index >= static_cast<int>(ops.size()))
            throw Error(ErrorKind::InvalidInput, "selection statistics: op " + std::to_string(index)
                                                     + " does not exist in repetition " + std::to_string(repetition)
                                                     + " (" + std::to_string(ops.size()) + " ops)");
        if (mask[static_cast<std::size_t>(index)])
            continue;
        mask[static_cast<std::size_t>(index)] = true;
        ++count;
        const OpRecord &op = ops[static_cast<std::size_t>(index)];
        for (const auto &[a, b] : {Interval{op.gpuStartNs, op.gpuEndNs}, Interval{op.hostStartNs, op.hostEndNs}}) {
            if (a == kNoTime || b == kNoTime)
                continue;
            first = any ? std::min(first, a) : a;
            last = any ? std::max(last, b) : b;
            any = true;
        }
    }
    if (!any || last <= first)
        throw Error(ErrorKind::InvalidInput,
                    "selection statistics: the " + std::to_string(count) + " selected ops take no time");
    const std::int64_t origin = trace.extent(repetition).first;
    RangeStatistics s = statistics(trace, repetition, first - origin, last - origin, &mask);
    s.selectedOps = count;
    return s;
}

std::string rangeStatisticsCsv(const RangeStatistics &s)
{
    std::ostringstream out;
    out << "section,name,kind,count,total_ns,mean_ns,min_ns,max_ns,share\n";
    for (const auto &n : s.names)
        out << "name," << csvField(n.name) << ',' << toString(n.kind) << ',' << n.count << ',' << n.totalNs << ','
            << static_cast<std::int64_t>(n.meanNs) << ',' << n.minNs << ',' << n.maxNs << ',' << n.share << '\n';
    for (const auto &l : s.lanes)
        out << "lane," << csvField(l.lane) << ',' << (l.host ? "host" : "stream") << ',' << l.ops << ',' << l.busyNs
            << ",,,," << l.busyFraction << '\n';
    out << "total," << (s.selectedOps > 0 ? "selection" : "range") << ",," << s.ops << ',' << s.lengthNs() << ",,,,\n";
    out << "total,h2d_bytes,,," << static_cast<std::int64_t>(s.h2dBytes) << ",,,," << s.h2dGBs << '\n';
    out << "total,d2h_bytes,,," << static_cast<std::int64_t>(s.d2hBytes) << ",,,," << s.d2hGBs << '\n';
    out << "total,d2d_bytes,,," << static_cast<std::int64_t>(s.d2dBytes) << ",,,," << s.d2dGBs << '\n';
    if (s.p2pBytes > 0) // copies between GPUs: a row only in traces that have them
        out << "total,p2p_bytes,,," << static_cast<std::int64_t>(s.p2pBytes) << ",,,," << s.p2pGBs << '\n';
    out << "total,copy_compute_overlap,,," << s.overlapNs << ",,,,\n";
    out << "total,concurrent,," << s.maxConcurrent << ',' << s.concurrentNs << ",,,,\n";
    return out.str();
}

} // namespace streamscope::engine
