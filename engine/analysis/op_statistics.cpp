// Per-op statistics over repetitions (see op_statistics.h).
#include "engine/analysis/op_statistics.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

namespace streamscope::engine {

namespace {

// One op of one repetition, addressed compactly: its statistics index (opIndex, else its position), its
// repetition and its position there. 16 bytes per op, where a map of per-op sample vectors took about 190
// (3M Kineto kernels: 1.08 GB for the CLI's table of 40 rows, #24).
struct OpRef {
    int index;
    std::uint32_t repetition;
    std::uint64_t position;
};

// Every op of the trace, ordered by index, then repetition, then position (the order samples were taken in).
std::vector<OpRef> sortedRefs(const Trace &trace)
{
    std::vector<OpRef> refs;
    refs.reserve(trace.opCount());
    for (std::size_t r = 0; r < trace.repetitions.size(); ++r) {
        const Repetition &rep = trace.repetitions[r];
        for (std::size_t position = 0; position < rep.ops.size(); ++position) {
            const int opIndex = rep.ops[position].opIndex;
            refs.push_back({opIndex >= 0 ? opIndex : int(position), static_cast<std::uint32_t>(r), position});
        }
    }
    // Already in order for a trace of one repetition whose ops are in index order (every imported one).
    const auto before = [](const OpRef &a, const OpRef &b) {
        return a.index != b.index             ? a.index < b.index
               : a.repetition != b.repetition ? a.repetition < b.repetition
                                              : a.position < b.position;
    };
    if (!std::is_sorted(refs.begin(), refs.end(), before))
        std::sort(refs.begin(), refs.end(), before);
    return refs;
}

} // namespace

namespace {

// The statistics of the first `limit` ops (by index) that were measured in at least `minRepetitions`
// repetitions; *total (when given): how many such ops there are.
std::vector<OpStatistics> statisticsOf(const Trace &trace, std::size_t limit, std::size_t *total,
                                       std::size_t minRepetitions)
{
    const std::vector<OpRef> refs = sortedRefs(trace);
    // [begin, end) of each op's refs, counted first so that the result is allocated once (a vector that
    // doubles as it grows held twice its 176 bytes a row at its peak).
    std::vector<std::pair<std::size_t, std::size_t>> groups;
    std::size_t counted = 0;
    for (std::size_t i = 0; i < refs.size();) {
        std::size_t end = i + 1;
        while (end < refs.size() && refs[end].index == refs[i].index)
            ++end;
        if (end - i >= minRepetitions && counted++ < limit)
            groups.emplace_back(i, end);
        i = end;
    }
    if (total)
        *total = counted;
    std::vector<std::int64_t> origins(trace.repetitions.size());
    for (std::size_t r = 0; r < origins.size(); ++r)
        origins[r] = trace.extent(int(r)).first;
    std::vector<OpStatistics> out;
    out.reserve(groups.size());
    std::vector<double> start, gpu, host, gbs, queued; // one op's samples, reused
    for (const auto &[i, end] : groups) {
        start.clear();
        gpu.clear();
        host.clear();
        gbs.clear();
        queued.clear();
        const OpRecord *first = nullptr;
        for (std::size_t k = i; k < end; ++k) {
            const Repetition &rep = trace.repetitions[refs[k].repetition];
            const OpRecord &op = rep.ops[refs[k].position];
            if (!first)
                first = &op;
            const std::int64_t t0 = op.hasGpu() ? op.gpuStartNs : op.hostStartNs;
            if (t0 != kNoTime)
                start.push_back(double(t0 - origins[refs[k].repetition]));
            if (op.hasGpu())
                gpu.push_back(double(op.gpuDurationNs()));
            if (op.hasHost())
                host.push_back(double(op.hostDurationNs()));
            if (op.gbPerSecond() > 0)
                gbs.push_back(op.gbPerSecond());
            // A prefetch: what its migrations moved over its execution (their span), where recorded.
            if (op.kind == OpKind::Prefetch && op.gpuDurationNs() > 0) {
                const UnifiedMemoryStats um = unifiedMemoryStats(rep, int(refs[k].position));
                if (um.h2dBytes + um.d2hBytes > 0)
                    gbs.push_back(double(um.h2dBytes + um.d2hBytes) / double(op.gpuDurationNs()));
            }
            if (op.hasGpu() && op.readyToRunNs() != kNoTime)
                queued.push_back(double(op.queuedDurationNs()));
        }
        out.push_back(
            {refs[i].index, first, spreadOf(start), spreadOf(gpu), spreadOf(host), spreadOf(gbs), spreadOf(queued)});
    }
    return out;
}

} // namespace

std::vector<OpStatistics> opStatistics(const Trace &trace, std::size_t limit, std::size_t *total)
{
    return statisticsOf(trace, limit, total, 1);
}

std::vector<OpStatistics> opStatistics(const Trace &trace)
{
    return statisticsOf(trace, std::numeric_limits<std::size_t>::max(), nullptr, 1);
}

std::vector<OpStatistics> repeatedOpStatistics(const Trace &trace)
{
    return statisticsOf(trace, std::numeric_limits<std::size_t>::max(), nullptr, 2);
}

} // namespace streamscope::engine
