// Per-device figures (see device_stats.h).
#include "engine/analysis/device_stats.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include "engine/analysis/copy_bytes.h"
#include "engine/analysis/op_intervals.h"
#include "engine/analysis/transfer_edges.h"

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
        Intervals busy, kernels, copies, h2d, d2h;
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
        if (opKindInfo(op.kind).lane == ActivityLane::Compute)
            work[d].kernels.emplace_back(op.gpuStartNs, op.gpuEndNs);
        if (isCopy(op.kind)) {
            work[d].copies.emplace_back(op.gpuStartNs, op.gpuEndNs);
            s.copyBytes = saturatingAdd(s.copyBytes, op.bytes);
        }
        addCopyBytes(s, op.kind, op.bytes);
        // Its own host link's bandwidth, per direction.
        if (const ByteBucket bucket = opKindInfo(op.kind).bytes; bucket == ByteBucket::H2D)
            work[d].h2d.emplace_back(op.transferStartNs(), op.transferEndNs());
        else if (bucket == ByteBucket::D2H)
            work[d].d2h.emplace_back(op.transferStartNs(), op.transferEndNs());
    }
    const auto [lo, hi] = trace.extent(repetition);
    const std::int64_t makespan = saturatingSub(hi, lo);
    for (std::size_t d = 0; d < out.size(); ++d) {
        out[d].busyNs = unionLength(std::move(work[d].busy));
        out[d].kernelNs = unionLength(std::move(work[d].kernels));
        out[d].copyNs = unionLength(std::move(work[d].copies));
        const std::int64_t h2dNs = unionLength(std::move(work[d].h2d)), d2hNs = unionLength(std::move(work[d].d2h));
        out[d].h2dGBs = h2dNs > 0 ? static_cast<double>(out[d].h2dBytes) / static_cast<double>(h2dNs) : 0.0;
        out[d].d2hGBs = d2hNs > 0 ? static_cast<double>(out[d].d2hBytes) / static_cast<double>(d2hNs) : 0.0;
        out[d].busyFraction = makespan > 0 ? static_cast<double>(out[d].busyNs) / static_cast<double>(makespan) : 0.0;
    }
    return out;
}

const PeerLink *findPeerLink(const Trace &trace, int src, int dst)
{
    for (const PeerLink &l : trace.peerLinks)
        if (l.src == src && l.dst == dst)
            return &l;
    return nullptr;
}

std::vector<PeerLinkStats> peerLinkStats(const Trace &trace, int repetition)
{
    std::vector<PeerLinkStats> out;
    if (repetition < 0 || static_cast<std::size_t>(repetition) >= trace.repetitions.size())
        return out;
    std::map<std::pair<int, int>, std::vector<std::pair<std::int64_t, std::int64_t>>> intervals;
    std::map<std::pair<int, int>, PeerLinkStats> links;
    for (const OpRecord &op : trace.repetitions[static_cast<std::size_t>(repetition)].ops) {
        if (op.kind != OpKind::CopyP2P || !op.hasGpu())
            continue;
        const std::pair<int, int> key{op.srcDevice, op.dstDevice};
        PeerLinkStats &l = links[key];
        ++l.copies;
        l.staged = l.staged || op.stagedPeer();
        l.bytes = saturatingAdd(l.bytes, op.bytes);
        intervals[key].emplace_back(op.transferStartNs(), op.transferEndNs());
    }
    for (auto &[key, l] : links) {
        l.src = key.first;
        l.dst = key.second;
        l.busyNs = unionLength(std::move(intervals[key]));
        l.gbs = l.busyNs > 0 ? static_cast<double>(l.bytes) / static_cast<double>(l.busyNs) : 0.0;
        if (l.staged) {
            // Down one GPU's host link and up the other's: the slower of the two bounds it.
            const auto hostLink = [&](int d) {
                return d >= 0 && static_cast<std::size_t>(d) < trace.devices.size()
                           ? trace.devices[static_cast<std::size_t>(d)].linkPeakGBs
                           : 0.0;
            };
            const double a = hostLink(l.src), b = hostLink(l.dst);
            l.peakGBs = a > 0 && b > 0 ? std::min(a, b) : 0.0;
            l.link = LinkType::Pcie;
        } else if (const PeerLink *link = findPeerLink(trace, l.src, l.dst)) {
            l.peakGBs = link->peakGBps;
            l.link = link->link;
        }
        out.push_back(l);
    }
    return out;
}

std::vector<PeerRateStep> peerLinkProfile(const Trace &trace, int repetition, int src, int dst)
{
    std::vector<PeerRateStep> steps;
    if (repetition < 0 || static_cast<std::size_t>(repetition) >= trace.repetitions.size())
        return steps;
    const auto edges = transferEdges(trace.repetitions[static_cast<std::size_t>(repetition)].ops,
                                     [&](const OpRecord &op) -> std::optional<int> {
                                         if (op.kind != OpKind::CopyP2P || op.srcDevice != src || op.dstDevice != dst)
                                             return std::nullopt;
                                         return 0; // one link, one tag
                                     });
    double current = 0;
    for (const auto &e : edges) {
        current += e.delta * e.gbs;
        if (std::abs(current) < 1e-9)
            current = 0;
        if (!steps.empty() && steps.back().timeNs == e.t)
            steps.back().gbs = current;
        else
            steps.push_back({e.t, current});
    }
    return steps;
}

} // namespace streamscope::engine
