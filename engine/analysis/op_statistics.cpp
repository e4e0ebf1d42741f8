// Per-op statistics over repetitions (see op_statistics.h).
#include "engine/analysis/op_statistics.h"

#include <map>

namespace streamscope::engine {

std::vector<OpStatistics> opStatistics(const Trace &trace)
{
    struct Samples {
        const OpRecord *first = nullptr;
        std::vector<double> start, gpu, host, gbs, queued;
    };
    std::map<int, Samples> byIndex;
    for (std::size_t r = 0; r < trace.repetitions.size(); ++r) {
        const Repetition &rep = trace.repetitions[r];
        const std::int64_t origin = trace.extent(int(r)).first;
        for (std::size_t position = 0; position < rep.ops.size(); ++position) {
            const OpRecord &op = rep.ops[position];
            Samples &s = byIndex[op.opIndex >= 0 ? op.opIndex : int(position)];
            if (!s.first)
                s.first = &op;
            const std::int64_t t0 = op.hasGpu() ? op.gpuStartNs : op.hostStartNs;
            if (t0 != kNoTime)
                s.start.push_back(double(t0 - origin));
            if (op.hasGpu())
                s.gpu.push_back(double(op.gpuDurationNs()));
            if (op.hasHost())
                s.host.push_back(double(op.hostDurationNs()));
            if (op.gbPerSecond() > 0)
                s.gbs.push_back(op.gbPerSecond());
            // A prefetch: what its migrations moved over its execution (their span), where recorded.
            if (op.kind == OpKind::Prefetch && op.gpuDurationNs() > 0) {
                const UnifiedMemoryStats um = unifiedMemoryStats(rep, int(position));
                if (um.h2dBytes + um.d2hBytes > 0)
                    s.gbs.push_back(double(um.h2dBytes + um.d2hBytes) / double(op.gpuDurationNs()));
            }
            if (op.hasGpu() && op.readyToRunNs() != kNoTime)
                s.queued.push_back(double(op.queuedDurationNs()));
        }
    }
    std::vector<OpStatistics> out;
    out.reserve(byIndex.size());
    for (auto &[index, s] : byIndex)
        out.push_back({index, s.first, spreadOf(std::move(s.start)), spreadOf(std::move(s.gpu)),
                       spreadOf(std::move(s.host)), spreadOf(std::move(s.gbs)), spreadOf(std::move(s.queued))});
    return out;
}

} // namespace streamscope::engine
