// Host ranges in rows, and ops tied to the range they were launched in: what every importer (and the
// native reader) calls once a repetition's ranges and ops are in place. See HostRange in trace.h.
#pragma once

#include "engine/model/trace.h"

namespace streamscope::engine {

// Sorts rep.hostRanges by start (the longer first where two start together, so an enclosing range comes
// before what it holds), gives each its row under its thread (HostRange::depth) and ties each op with a
// host call to the innermost range around the call's start on its thread (OpRecord::hostRange).
//  - depth: the lowest row of the thread that is free at the range's start (a row is free once its last
//    range ended, end <= start). For ranges that nest (NVTX push/pop, Kineto's events) that is the nesting
//    depth; ranges that cross (NVTX start/end) still never share a row with one they overlap.
//  - hostRange: of the thread's ranges with start <= t <= end (t the start of the host call), the one that
//    started last; -1 when none.
// O(n log n) in ranges and ops: one sweep per thread with a heap of busy rows and a stack of open ranges
// (a file of 100k nested ranges must not take quadratic time, #13).
void layoutHostRanges(Repetition &rep);

// The number of rows each host thread's ranges take (max depth + 1), indexed by thread + 1 (slot 0: ranges
// of no known thread); threadCount is Trace::hostThreads.size().
std::vector<int> hostRangeRows(const Repetition &rep, std::size_t threadCount);

} // namespace streamscope::engine
