// Per-op statistics over repetitions (see op_statistics.h).
#include "engine/analysis/op_statistics.h"

#include <algorithm>
#include <cstdint>
#include <limits>

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

std::vector<OpStatistics> opStatistics(const Trace &trace, std::size_t limit, std::size_t *total)
{
    const std::vector<OpRef> refs = sortedRefs(trace);
    std::vector<std::int64_t> origins(trace.repetitions.size());
    for (std::size_t r = 0; r < origins.size(); ++r)
        origins[r] = trace.extent(int(r)).first;
    std::vector<OpStatistics> out;
    std::size_t groups = 0;
    std::vector<double> start, gpu, host, gbs, queued; // one op's samples, reused
    for (std::size_t i = 0; i < refs.size();) {
        std::size_t end = i + 1;
        while (end < refs.size() && refs[end].index == refs[i].index)
            ++end;
        if (groups++ >= limit) { // counted, not computed
            i = end;
            continue;
        }
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
        i = end;
    }
    if (total)
        *total = groups;
    return out;
}

std::vector<OpStatistics> opStatistics(const Trace &trace)
{
    return opStatistics(trace, std::numeric_limits<std::size_t>::max(), nullptr);
}

} // namespace streamscope::engine
