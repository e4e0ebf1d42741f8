// LaneModel: the lanes of one repetition as flat sorted arrays (Qt Creator's TimelineModel style, no
// QObject per op). Stream lanes hold GPU intervals, host-thread lanes hold API calls; both are sorted by
// start with a running maximum of the ends, so the slice visible in a window is found by two binary
// searches. Derived lanes hold step functions: H2D / D2H / compute active counts (engine::activityProfile)
// and achieved bandwidth per direction (engine::bandwidthProfile) with the link's peak, per GPU where the
// trace has several, and per direction between two GPUs for peer copies. Host ranges (NVTX,
// Kineto's CPU ops) are rows under their thread's lane, one per depth; on demand (LaneOptions), a thin row
// above each stream projects onto its ops the NVTX range each was launched in, as Nsight Systems does.
// Times are nanoseconds relative to originNs() (the repetition's first host call or GPU start).
#pragma once

#include <QString>
#include <QtGlobal>

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/model/trace.h"

namespace streamscope::engine {
struct InterferenceReport;
} // namespace streamscope::engine

namespace streamscope::ui {

// CopyEngine: the copies one hardware copy channel ran (CUPTI names it) when it ran the copies of
// several streams, drawn as intervals like a stream: what shared a channel.
// Migration / PageFaults: the driver's unified-memory records (Repetition::activities): page
// migrations, coloured by direction, and GPU page-fault groups. Their intervals index activities, not
// ops (see Lane::intervals).
enum class LaneKind : std::uint8_t {
    HostThread,
    Stream,
    H2DActivity,
    D2HActivity,
    D2DActivity, // device-to-device and peer copies
    ComputeActivity,
    Bandwidth,
    CopyEngine,
    Migration,
    PageFaults,
    HostRanges, // one depth of one host thread's ranges (intervals index Repetition::hostRanges)
    NvtxProjection, // above a stream: its ops, each drawn as the range it was launched in (intervals index ops)
    PeerLink // one direction between two GPUs: the achieved GB/s of its peer copies against the link's peak
};

// The colour of a host range on the range rows and projection rows, by its name (IntervalLane::styles
// holds it there): one of 16, the same for the same name everywhere.
std::uint8_t rangeColorIndex(std::uint32_t nameId);
inline constexpr int kRangeColorCount = 16;

// Lanes whose intervals are host ranges rather than ops.
inline bool isRangeLane(LaneKind kind)
{
    return kind == LaneKind::HostRanges;
}

// Lanes whose intervals are driver activities rather than ops.
inline bool isActivityLane(LaneKind kind)
{
    return kind == LaneKind::Migration || kind == LaneKind::PageFaults;
}
// Lanes drawn as bars (intervals), as opposed to step functions.
inline bool isIntervalLane(LaneKind kind)
{
    return kind == LaneKind::HostThread || kind == LaneKind::Stream || kind == LaneKind::CopyEngine
           || isActivityLane(kind) || kind == LaneKind::HostRanges || kind == LaneKind::NvtxProjection;
}

// Intervals of one stream or host thread, sorted by start.
struct IntervalLane {
    std::vector<qint64> starts;
    std::vector<qint64> ends;
    // maxEnds[i] = max(ends[0..i]): non-decreasing, so it can be searched. Left empty when the intervals
    // do not overlap (every stream and host thread of a run): then ends is already non-decreasing and
    // serves instead, which saves 8 bytes per op.
    std::vector<qint64> maxEnds;
    std::vector<qint32> ops; // index into Repetition::ops
    // Per interval: OpKind in the low bits, kBlockingBit for a blocking host call. Painting folds
    // thousands of ops per frame by kind; reading the kind here avoids a cache miss into the trace each.
    std::vector<std::uint8_t> styles;
    static constexpr std::uint8_t kBlockingBit = 0x80;
    static constexpr std::uint8_t kKindMask = 0x7f;

    std::size_t size() const { return starts.size(); }
    const std::vector<qint64> &runningMaxEnds() const { return maxEnds.empty() ? ends : maxEnds; }
    qint64 maxEnd(std::size_t i) const { return maxEnds.empty() ? ends[i] : maxEnds[i]; }
    // [first, last) of the intervals that intersect [startNs, endNs).
    std::pair<std::size_t, std::size_t> visible(qint64 startNs, qint64 endNs) const;
};

// Puts a lane's arrays in start order and keeps a running max of the ends where intervals overlap
// (lane_model.cpp); call once the intervals are in.
void finishIntervals(IntervalLane &lane);

// A piecewise-constant function: values[i] holds from times[i] to times[i + 1] (the last one to the end
// of the repetition). Consecutive equal values are merged.
struct StepSeries {
    std::vector<qint64> times;
    std::vector<float> values;
    float maxValue = 0;
    // Min and max of values over aligned blocks of kBlock and kBlock * kBlock steps, so the min/max over
    // the steps that fall in one pixel column costs O(kBlock + steps / kBlock^2), not O(steps), when a
    // million steps share 2000 columns. About 0.3 bytes per step.
    static constexpr std::size_t kBlock = 32;
    std::vector<float> blockMin, blockMax, superMin, superMax;

    std::size_t size() const { return times.size(); }
    // Builds the block summaries; call after the last step was added.
    void finish();
    // Min and max of values[first, last) (first < last <= size()).
    void minMax(std::size_t first, std::size_t last, float &lo, float &hi) const;
    // Index of the step in force at ns (-1 before the first step).
    std::ptrdiff_t indexAt(qint64 ns) const;
    float valueAt(qint64 ns) const;
};

struct Lane {
    LaneKind kind = LaneKind::Stream;
    int source = -1; // stream or host-thread index in the trace (-1: unknown thread / derived lane)
    int depth = 0; // HostRanges: the row under the thread (0 = outermost)
    // A derived lane (activity, bandwidth, copy channel) of one GPU in a trace whose streams are on
    // several: that device; -1 for a lane over the whole trace (every derived lane of a single-GPU trace).
    int device = -1;
    double peakGBs = 0; // Bandwidth, PeerLink: the link's theoretical peak per direction, drawn dashed; 0 = unknown
    int peerSrc = -1, peerDst = -1; // PeerLink: the two GPUs (-1, -1: copies whose devices were not recorded)
    bool peerStaged = false; // PeerLink: staged through host memory (no peer access); peakGBs is the host link's
    QString title; // "copy0", "host thread 1", "H2D copies", ...
    QString subtitle; // "prio -1 · non-blocking", "12 calls", "peak 3 active", ...
    IntervalLane intervals; // HostThread, Stream, CopyEngine; Migration and PageFaults (ops = activity indexes)
    // Stream lanes of a trace that times execution (CUPTI, a profiler): [ready to run, execution start)
    // of each op that queued, drawn apart from execution. Empty for event-timed traces.
    IntervalLane queued;
    // Stream lanes of a trace with solo baselines (run --solo): per op that ran slower in the mix than alone,
    // from where it would have ended alone (its start + its median execution alone) to where it ended. The
    // painter marks that point in the bar and tints the rest: the part the other ops cost it.
    IntervalLane slowed;
    // Stream lanes: the pieces of ops that ran as several GPU records (engine::OpPiece: a GEMM's kernels, a
    // collective's kernels or copies), drawn in a band along the bottom of their op's bar. ops: the op each
    // belongs to; styles: the OpKind whose colour it takes (kernel, peer or device copy, memset).
    IntervalLane pieces;
    StepSeries counts; // *Activity: number of active ops; Bandwidth: H2D GB/s; PeerLink: GB/s
    StepSeries d2hBandwidth; // Bandwidth: D2H GB/s
};

// What the lanes show beyond the trace's own lanes.
struct LaneOptions {
    bool projectNvtx = false; // a row above each stream with the NVTX range each op was launched in
    bool operator==(const LaneOptions &) const = default;
};

class LaneModel {
public:
    // Rows of host ranges per thread at most; deeper ranges are counted in the last row's subtitle.
    static constexpr int kMaxRangeRows = 32;

    // Throws engine::Error{InvalidInput} when repetition is not an index into trace.repetitions.
    // The trace must outlive the model. interference: the trace's solo-baseline analysis where the caller
    // has it (a TraceDocument's), for the slowed segments; null: analysed here when the trace has solo baselines.
    LaneModel(const engine::Trace &trace, int repetition, LaneOptions options = {},
              const engine::InterferenceReport *interference = nullptr);
    const LaneOptions &options() const { return m_options; }

    const engine::Trace &trace() const { return *m_trace; }
    int repetition() const { return m_repetition; }
    const engine::Repetition &rep() const { return m_trace->repetitions[std::size_t(m_repetition)]; }
    const engine::OpRecord &op(int index) const { return rep().ops[std::size_t(index)]; }
    int opCount() const { return int(rep().ops.size()); }

    qint64 originNs() const { return m_originNs; }
    qint64 durationNs() const { return m_durationNs; } // extent is [0, durationNs)
    double linkPeakGBs() const { return m_linkPeakGBs; } // the highest host link peak of the trace's GPUs
    // The devices of the trace's streams, ascending, when there are two or more (then every derived lane
    // is built once per device, Lane::device); empty for a single-GPU trace.
    const std::vector<int> &devices() const { return m_devices; }

    int laneCount() const { return int(m_lanes.size()); }
    const Lane &lane(int index) const { return m_lanes[std::size_t(index)]; }
    const std::vector<Lane> &lanes() const { return m_lanes; }
    // Lane showing a stream / host thread (-1 for the unknown thread), or -1 when there is none.
    int streamLane(int stream) const;
    int hostLane(int hostThread) const;

    // The op of an interval lane whose interval contains ns, or else the nearest one within toleranceNs;
    // -1 when none. On an activity lane: the op the activity belongs to (the faulting kernel, the prefetch).
    int opAt(int lane, qint64 ns, qint64 toleranceNs) const;
    // On an activity lane, the activity (index into rep().activities) under ns as opAt finds it; else -1.
    int activityAt(int lane, qint64 ns, qint64 toleranceNs) const;
    // The host range (index into rep().hostRanges) under ns: on a range row the range itself, on an NVTX
    // projection row the range of the op there; else -1.
    int rangeAt(int lane, qint64 ns, qint64 toleranceNs) const;
    // The lane of a host range (its thread's row at its depth), -1 when it is not drawn.
    int rangeLane(int range) const;
    // Op kinds present in this repetition, in OpKind order (for the legend).
    const std::vector<engine::OpKind> &kindsPresent() const { return m_kinds; }
    // Bytes held by the lane arrays (not counting the trace).
    std::size_t memoryBytes() const;

    // Relative start/end of an op's GPU part / host call (kNoTime-safe: only call when present).
    qint64 gpuStart(const engine::OpRecord &o) const { return o.gpuStartNs - m_originNs; }
    qint64 gpuEnd(const engine::OpRecord &o) const { return o.gpuEndNs - m_originNs; }
    qint64 hostStart(const engine::OpRecord &o) const { return o.hostStartNs - m_originNs; }
    qint64 hostEnd(const engine::OpRecord &o) const { return o.hostEndNs - m_originNs; }

private:
    void buildIntervalLanes(const engine::InterferenceReport *interference);
    // The derived lanes of one device (device >= 0) or of the whole trace (-1, with the unified-memory
    // lanes among them).
    void buildDerivedLanes(const std::vector<engine::ActivityStep> &activity,
                           const std::vector<engine::BandwidthStep> &bandwidth, int device);
    void buildActivityLanes();
    // A PeerLink lane per direction that carried peer copies (engine::peerLinkStats), below the rest.
    void buildPeerLinkLanes();
    // Host range rows under their threads and, with LaneOptions::projectNvtx, a projection row above each
    // stream; then the stream and host lane indexes again (lane_model_ranges.cpp).
    void buildRangeLanes();
    // The entry of an interval lane under ns: contained, else the nearest within the tolerance; -1 when none.
    int intervalAt(int lane, qint64 ns, qint64 toleranceNs, qint64 &distance) const;

    const engine::Trace *m_trace;
    int m_repetition;
    LaneOptions m_options;
    qint64 m_originNs = 0;
    qint64 m_durationNs = 0;
    double m_linkPeakGBs = 0;
    std::vector<int> m_devices;
    std::vector<Lane> m_lanes;
    std::vector<Lane> m_channelLanes; // CopyEngine lanes, built with the interval lanes, placed among the derived ones
    std::vector<int> m_streamLane; // stream index -> lane
    std::vector<int> m_hostLane; // host thread index + 1 -> lane (slot 0: unknown thread)
    std::vector<engine::OpKind> m_kinds;
    std::vector<int> m_rangeRowLane; // host thread index + 1 -> the lane of its depth-0 range row, -1 none
    std::vector<int> m_rangeRows; // host thread index + 1 -> range rows drawn
};

} // namespace streamscope::ui
