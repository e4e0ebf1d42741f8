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
    std::uint64_t h2dBytes = 0, d2hBytes = 0, d2dBytes = 0;
    std::uint64_t copyBytes = 0; // every copy on its streams, peer copies included
};

// One entry per device of streamDevices(), in that order; empty when the trace has fewer than two
// devices (a single-GPU trace is summarised as a whole) or the repetition does not exist.
std::vector<DeviceStats> deviceStats(const Trace &trace, int repetition);

} // namespace streamscope::engine
