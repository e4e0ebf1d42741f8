// Analysis of a trace: per op, per stream, per repetition, and across repetitions (median, min, max).
// Pure functions over engine::Trace; the CLI summary table and the GUI summary panel both show these.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/analysis/device_stats.h"
#include "engine/analysis/op_intervals.h"
#include "engine/model/op_kinds.h"
#include "engine/model/trace.h"

namespace streamscope::engine {

// Median, min and max of a set of samples (every repetition is kept; summaries show the spread).
struct Spread {
    double median = 0;
    double min = 0;
    double max = 0;
    int count = 0;
};
Spread spreadOf(std::vector<double> samples);

struct StreamStats {
    int stream = -1;
    int ops = 0;
    std::int64_t busyNs = 0; // union of the stream's GPU intervals
    double busyFraction = 0; // busyNs / makespan
};

// Unified memory in one repetition, from the driver's records (all zero where none were recorded).
struct UnifiedMemoryStats {
    std::uint64_t h2dBytes = 0, d2hBytes = 0;
    int h2dMigrations = 0, d2hMigrations = 0;
    std::int64_t h2dBusyNs = 0, d2hBusyNs = 0; // union of the migrations in each direction
    double h2dGBs = 0, d2hGBs = 0; // bytes over that union
    int gpuFaultGroups = 0;
    std::uint64_t gpuPageFaults = 0; // faults, summed over the groups
    std::int64_t gpuFaultNs = 0; // union of the groups, from the driver taking them to the replay
    int cpuPageFaults = 0;
    int thrashing = 0, throttling = 0, remoteMaps = 0;

    bool any() const;
};
// Over every activity of `rep`, or only over those of op `op` (an index into rep.ops) when op >= 0.
UnifiedMemoryStats unifiedMemoryStats(const Repetition &rep, int op = -1);

struct RepetitionStats {
    int repetition = 0;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::int64_t makespanNs = 0; // first host call or GPU start to last GPU end or host return
    std::int64_t gpuSpanNs = 0; // first GPU start to last GPU end
    // With several GPUs, each GPU is counted on its own (a copy on one GPU beside a kernel on another is no
    // overlap; two GPUs' H2D copies at once are two links busy) and the busy times below are summed.
    std::int64_t concurrentNs = 0; // time with >= 2 GPU ops active on one GPU (any streams; a union, not summed)
    std::int64_t h2dBusyNs = 0; // union of H2D copies (per GPU, summed: link-time)
    std::int64_t d2hBusyNs = 0; // union of D2H copies (likewise)
    std::int64_t computeBusyNs = 0; // union of kernels and memsets (likewise)
    std::int64_t copyComputeOverlapNs = 0; // time with a copy and a kernel both active on one GPU
    double overlapFraction = 0; // copyComputeOverlapNs / sum over GPUs of min(copy busy, compute busy)
    std::int64_t idealBoundNs =
        0; // the busiest resource (a GPU's H2D, D2H or SMs, a peer direction): everything overlapped
    double efficiency = 0; // idealBound / makespan
    std::uint64_t h2dBytes = 0, d2hBytes = 0, d2dBytes = 0, p2pBytes = 0; // p2pBytes: copies between GPUs
    double h2dGBs = 0, d2hGBs = 0, d2dGBs = 0, p2pGBs = 0; // bytes over the busy time of each direction (per link)
    std::int64_t hostCallNs = 0; // time the host thread spent inside API calls
    std::int64_t hostBlockedNs = 0; // the part of that spent in blocking calls
    std::vector<StreamStats> streams; // one per Trace::streams entry
    UnifiedMemoryStats unifiedMemory;
    std::vector<DeviceStats> devices; // per GPU, where the streams are on several (deviceStats)
    std::vector<PeerLinkStats> peerLinks; // per direction that carried peer copies (peerLinkStats)
};

RepetitionStats analyzeRepetition(const Trace &trace, int repetition);

struct TraceSummary {
    std::vector<RepetitionStats> repetitions;
    Spread makespanNs, gpuSpanNs, concurrentNs, overlapFraction, idealBoundNs, efficiency;
    Spread h2dGBs, d2hGBs, d2dGBs, p2pGBs, hostCallNs, hostBlockedNs;
    std::vector<Spread> streamBusyFraction; // per stream
    // Unified memory, over the repetitions that recorded any (count 0 where none did).
    Spread umH2DBytes, umD2HBytes, umH2DGBs, umD2HGBs, umGpuPageFaults, umGpuFaultNs;
    int medianRepetition = 0; // the repetition whose makespan is the median
};

TraceSummary summarize(const Trace &trace);

// Piecewise-constant counts of active ops per engine class over one repetition: the derived lanes.
// With device >= 0, only the ops on that device's streams (a trace of several GPUs: one profile each).
struct ActivityStep {
    std::int64_t timeNs = 0; // from here to the next step's time
    int h2d = 0, d2h = 0, compute = 0, other = 0;
};
std::vector<ActivityStep> activityProfile(const Trace &trace, int repetition, int device = -1);

// Piecewise-constant achieved bandwidth (sum of the GB/s of active copies) per direction; device as above.
struct BandwidthStep {
    std::int64_t timeNs = 0;
    double h2dGBs = 0, d2hGBs = 0;
};
std::vector<BandwidthStep> bandwidthProfile(const Trace &trace, int repetition, int device = -1);

// Length of the union of [start, end) intervals (they need not be sorted).
// How wrong event timing would have been, per op kind, in a trace that has both (CUPTI-timed runs keep
// the event pair as stream-ready..event end): the event pair's duration minus the execution's, and that
// as a share of the execution; and the queued time that events count as execution.
struct EventTimingError {
    OpKind kind = OpKind::Other;
    Spread excessNs; // event duration - execution duration
    Spread excessFraction; // excessNs / execution duration
    Spread queuedNs; // OpRecord::queuedDurationNs
};
std::vector<EventTimingError> eventTimingErrors(const Trace &trace);

} // namespace streamscope::engine
