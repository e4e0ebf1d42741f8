// Figures per GPU of a trace that ran on several: which device each op ran on, and per device its busy
// time, kernel and copy time and bytes copied. The summary (summary_metrics.h) reports them when a
// trace's streams are on more than one device; the timeline builds its per-device lanes from the same
// deviceOf().
#pragma once

#include <cstdint>
#include <vector>

#include "engine/model/trace.h"

namespace streamscope::engine {

// The device an op ran on: its stream's (Trace::streams[op.stream].device); -1 for an op without a stream.
int deviceOf(const Trace &trace, const OpRecord &op);

// The devices the trace's streams are on, ascending, each once. Two or more: a multi-GPU trace.
std::vector<int> streamDevices(const Trace &trace);

struct DeviceStats {
    int device = -1;
    int ops = 0; // ops with GPU time on its streams
    std::int64_t busyNs = 0; // union of its GPU intervals
    double busyFraction = 0; // busyNs over the repetition's makespan
    std::int64_t kernelNs = 0; // union of its kernels and memsets
    std::int64_t copyNs = 0; // union of its copies (every direction)
    // Per direction (addCopyBytes). p2pBytes: the peer copies issued on its streams; the summary reports
    // peer copies per direction between two GPUs instead (peerLinkStats).
    std::uint64_t h2dBytes = 0, d2hBytes = 0, d2dBytes = 0, p2pBytes = 0;
    std::uint64_t copyBytes = 0; // every copy on its streams, peer copies included
    // Over its own host link: its H2D (D2H) bytes over the union of their transfer intervals, 0 for none.
    double h2dGBs = 0, d2hGBs = 0;
};

// One entry per device of streamDevices(), in that order; empty when the trace has fewer than two
// devices (a single-GPU trace is summarised as a whole) or the repetition does not exist.
std::vector<DeviceStats> deviceStats(const Trace &trace, int repetition);

// The peer copies (OpKind::CopyP2P) of one direction between two GPUs: src -> dst as the copies
// recorded them (OpRecord::srcDevice/dstDevice; -1 -> -1 for copies whose devices were not recorded,
// as Kineto's), with the link's peak where Trace::peerLinks has it.
struct PeerLinkStats {
    int src = -1;
    int dst = -1;
    int copies = 0;
    std::uint64_t bytes = 0;
    std::int64_t busyNs = 0; // union of the copies' transfer intervals
    double gbs = 0; // bytes over busyNs: the achieved bandwidth
    double peakGBs = 0; // the link's theoretical per-direction peak, 0 = unknown
    LinkType link = LinkType::Unknown;
    // Staged through host memory (OpRecord::stagedPeer): the copies crossed both GPUs' host links, so the
    // link and peak are those (PCIe, the slower of the two), whatever joins the GPUs.
    bool staged = false;
    double peakFraction() const { return peakGBs > 0 ? gbs / peakGBs : 0; }
};

// The recorded link from src to dst, or nullptr.
const PeerLink *findPeerLink(const Trace &trace, int src, int dst);

// One entry per direction that carried a peer copy in the repetition, ordered by (src, dst).
std::vector<PeerLinkStats> peerLinkStats(const Trace &trace, int repetition);

// Piecewise-constant achieved bandwidth of one direction's peer copies: the sum of the GB/s of those
// in flight (as bandwidthProfile sums a host link's copies), from timeNs to the next step.
struct PeerRateStep {
    std::int64_t timeNs = 0;
    double gbs = 0;
};
std::vector<PeerRateStep> peerLinkProfile(const Trace &trace, int repetition, int src, int dst);

} // namespace streamscope::engine
