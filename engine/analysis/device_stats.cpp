// Per-device figures (see device_stats.h).
#include "engine/analysis/device_stats.h"

#include <algorithm>
#include <utility>

#include "engine/analysis/analysis.h"

namespace streamscope::engine {

int deviceOf(const Trace &trace, const OpRecord &op)
{
    return op.stream >= 0 && static_cast<std::size_t>(op.stream) < trace.streams.size()
               ? trace.streams[static_cast<std::size_t>(op.stream)].device
               : -1;
}

std::vector<int> streamDevices(const Trace &trace)
{
    std::vector<int> devices;
    for (const StreamInfo &s : trace.streams)
        devices.push_back(s.device);
    std::sort(devices.begin(), devices.end());
    devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
    return devices;
}

std::vector<DeviceStats> deviceStats(const Trace &trace, int repetition)
{
    std::vector<DeviceStats> out;
    const std::vector<int> devices = streamDevices(trace);
    if (devices.size() < 2 || repetition < 0 || static_cast<std::size_t>(repetition) >= trace.repetitions.size())
        return out;
    using Intervals = std::vector<std::pair<std::int64_t, std::int64_t>>;
    struct Work {
        Intervals busy, kernels, copies;
    };
    std::vector<Work> work(devices.size());
    out.resize(devices.size());
    for (std::size_t d = 0; d < devices.size(); ++d)
        out[d].device = devices[d];
    for (const OpRecord &op : trace.repetitions[static_cast<std::size_t>(repetition)].ops) {
        if (!op.hasGpu() || engineClassOf(op) == EngineClass::None)
            continue;
        const auto it = std::lower_bound(devices.begin(), devices.end(), deviceOf(trace, op));
        if (it == devices.end() || *it != deviceOf(trace, op))
            continue;
        const auto d = static_cast<std::size_t>(it - devices.begin());
        DeviceStats &s = out[d];
        ++s.ops;
        work[d].busy.emplace_back(op.gpuStartNs, op.gpuEndNs);
        if (op.kind == OpKind::Kernel || op.kind == OpKind::Memset)
            work[d].kernels.emplace_back(op.gpuStartNs, op.gpuEndNs);
        if (isCopy(op.kind)) {
            work[d].copies.emplace_back(op.gpuStartNs, op.gpuEndNs);
            s.copyBytes = saturatingAdd(s.copyBytes, op.bytes);
        }
        switch (op.kind) {
        case OpKind::CopyH2D: s.h2dBytes = saturatingAdd(s.h2dBytes, op.bytes); break;
        case OpKind::CopyD2H: s.d2hBytes = saturatingAdd(s.d2hBytes, op.bytes); break;
        case OpKind::CopyD2D: s.d2dBytes = saturatingAdd(s.d2dBytes, op.bytes); break;
        default: break;
        }
    }
    const auto [lo, hi] = trace.extent(repetition);
    const std::int64_t makespan = saturatingSub(hi, lo);
    for (std::size_t d = 0; d < out.size(); ++d) {
        out[d].busyNs = unionLength(std::move(work[d].busy));
        out[d].kernelNs = unionLength(std::move(work[d].kernels));
        out[d].copyNs = unionLength(std::move(work[d].copies));
        out[d].busyFraction = makespan > 0 ? static_cast<double>(out[d].busyNs) / static_cast<double>(makespan) : 0.0;
    }
    return out;
}

} // namespace streamscope::engine
