// Statistics of a time range of one repetition: what a developer asks of an area selected in the
// timeline (Perfetto's area selection, Nsight's statistics that follow the selection). Every op whose
// interval (GPU, else host call) touches the range counts, with only its part inside the range:
// per name the count, total, mean, min and max of those parts and their share of the range (a pipeline's
// chunks of one stage are one name: engine::withoutChunkTag); per lane the busy time (union of its ops'
// intervals); copy bytes per direction, prorated to the part of each copy inside the range, and the
// average rate over the range; copy/compute overlap and concurrency (time with two GPU ops or more at
// once, and the most at once).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/trace.h"

namespace streamscope::engine {

struct RangeNameStats {
    std::string name;
    OpKind kind = OpKind::Other;
    int count = 0;
    std::int64_t totalNs = 0; // the parts inside the range
    double meanNs = 0;
    std::int64_t minNs = 0, maxNs = 0;
    double share = 0; // totalNs / range length (may exceed 1 where ops of this name overlap)
};

struct RangeLaneStats {
    std::string lane; // a stream's name, or a host thread's
    bool host = false;
    int ops = 0;
    std::int64_t busyNs = 0; // union of the ops' intervals inside the range
    double busyFraction = 0;
};

struct RangeStatistics {
    std::int64_t startNs = 0, endNs = 0; // relative to the repetition's start (Trace::extent)
    int ops = 0;
    // 0 for a time range (every op touching it counts); N for the statistics of N selected ops, whose
    // range runs from the first one's start to the last one's end and counts only them.
    int selectedOps = 0;
    std::vector<RangeNameStats> names; // by total time, largest first
    std::vector<RangeLaneStats> lanes; // streams in trace order, then host threads
    double h2dBytes = 0, d2hBytes = 0, d2dBytes = 0, p2pBytes = 0; // prorated to the range
    double h2dGBs = 0, d2hGBs = 0, d2dGBs = 0, p2pGBs = 0; // bytes over the range's length
    std::int64_t copyNs = 0, computeNs = 0, overlapNs = 0; // unions inside the range; overlap = copy ∩ compute
    std::int64_t concurrentNs = 0; // two GPU ops or more at once
    int maxConcurrent = 0;
    std::int64_t lengthNs() const { return endNs - startNs; }
};

// Throws Error{InvalidInput} when the repetition does not exist or the range is empty.
RangeStatistics rangeStatistics(const Trace &trace, int repetition, std::int64_t startNs, std::int64_t endNs);

// The statistics of a set of ops of one repetition (indexes into its ops; a multiple selection): the
// range is their span, and only they count. Throws Error{InvalidInput} for an op that does not exist
// or a set with no time in it.
RangeStatistics selectionStatistics(const Trace &trace, int repetition, const std::vector<int> &ops);

// The statistics as CSV (RFC 4180): a "name" section, a "lane" section and a "total" section, each row
// starting with its section's name, times in nanoseconds.
std::string rangeStatisticsCsv(const RangeStatistics &statistics);

} // namespace streamscope::engine
