// Comparison of a StreamScope run with the Nsight Systems capture of the same run (imported with
// importNsysSqlite, which names ops after StreamScope's NVTX ranges and splits the "rep N" ranges into
// repetitions): ops matched per repetition and lane, per-op start and duration differences, and a
// summary per op kind. It answers "do StreamScope's CUDA-event timings agree with Nsight's?"
// (docs/nsight.md). trace_diff.h compares any two traces through per-op medians; this one pairs the
// same op of the same repetition, because both traces hold the very same executions.
#pragma once

#include <string>
#include <vector>

#include "engine/model/trace.h"

namespace streamscope::engine {

// One op slot (lane, name, occurrence in the lane) with its deltas over every compared repetition.
struct NsightOpDelta {
    std::string lane; // the stream's name, "host" for host-only ops
    std::string name; // StreamScope's name of the op
    std::string nsightName; // the imported name (differs only when matched by order)
    std::string nsightLane; // the lane Nsight saw it on (differs for a cudaMemcpy run on the default stream)
    // Why nsightLane differs from lane, where it does ("" where the lanes agree).
    std::string laneNote;
    OpKind kind = OpKind::Other;
    int occurrence = 0; // how many ops of this name come before it in the lane
    bool byOrder = false; // paired by position in the lane because no name matched
    int samples = 0; // repetitions where both sides have a time for it
    double ownDurationNs = 0; // medians over those repetitions
    double nsightDurationNs = 0;
    double durationDeltaNs = 0; // median of (Nsight - StreamScope)
    double startDeltaNs = 0; // median of (Nsight - StreamScope), each from its repetition's first GPU start
};

// Statistics of |delta| over every (op, repetition) pair of one kind, or of all kinds.
struct NsightDeltaSummary {
    std::string label; // toString(OpKind), or "all"
    int samples = 0;
    double medianAbsDurationDeltaNs = 0;
    double maxAbsDurationDeltaNs = 0;
    double medianAbsDurationDeltaPct = 0; // of StreamScope's duration
    double maxAbsDurationDeltaPct = 0;
    double medianAbsStartDeltaNs = 0;
    double maxAbsStartDeltaNs = 0;
};

struct NsightComparison {
    int repetitions = 0; // pairs of repetitions compared
    int matched = 0; // op slots paired (per repetition: slots x repetitions)
    int matchedByOrder = 0;
    int matchedAcrossStreams = 0; // same name, other lane: CUDA ran it on another stream (sync cudaMemcpy)
    int unmatchedOwn = 0; // op instances of the StreamScope trace with no partner
    int unmatchedNsight = 0;
    std::vector<NsightOpDelta> ops; // by lane, then position in the lane
    std::vector<NsightDeltaSummary> kinds; // in OpKind order, kinds that occur
    NsightDeltaSummary overall;
    // Agreement target: copies, kernels and memsets whose StreamScope median is at least 20 us agree
    // with Nsight's median within max(1 us, 2 %).
    int targetOps = 0;
    int targetMet = 0;
    std::vector<std::string> targetMisses; // "lane: name: 61.2 us vs 63.0 us (+2.9 %)"
};

// How the two traces relate. SameRun: Nsight captured the very run StreamScope recorded (events
// timing, since nsys holds CUPTI): deltas per op and repetition. SeparateRuns: two runs of the same
// workload (StreamScope timed by CUPTI alone, Nsight on another run): each op slot's median against the
// other's, one sample per slot.
enum class NsightPairing { SameRun, SeparateRuns };

// Repetitions are paired by Repetition::index when both traces hold the same indices, else by
// position. Within a pair, ops are grouped into lanes (GPU ops by stream name, host-only ops in
// "host") and matched by name and occurrence in the lane; leftovers then by name and occurrence in any
// lane (a synchronous cudaMemcpy runs on the legacy default stream, whatever stream the workload
// named); what is still left in a lane is paired in order. GPU ops
// compare GPU intervals, host-only ops their host calls. Throws Error{InvalidInput} when either trace
// has no repetitions.
NsightComparison compareWithNsight(const Trace &own, const Trace &nsight,
                                   NsightPairing pairing = NsightPairing::SameRun);

} // namespace streamscope::engine
