// What one op's intervals say on their own, and the length of a union of intervals: the pieces the
// repetition analysis (analysis.h) and the per-device figures (device_stats.h) both build on.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/model/op_kinds.h"
#include "engine/model/trace.h"

namespace streamscope::engine {

// Which engine of the GPU an op occupies, for the derived lanes and the ideal bound: its kind's (kOpKinds'
// engine column), None for an op without GPU time.
EngineClass engineClassOf(const OpRecord &op);

// An op's host call held the host thread for most of its GPU time (or it was a synchronisation).
bool isHostBlocking(const OpRecord &op);

// The total length covered by the intervals [first, second) (empty and reversed ones count nothing).
std::int64_t unionLength(std::vector<std::pair<std::int64_t, std::int64_t>> intervals);

} // namespace streamscope::engine
