// Each workload op over every repetition: the one per-op statistics call. The same op in each
// repetition is the one with the same OpRecord::opIndex (its position in the repetition when a trace has
// none). The CLI's op table and the app's details panel read these.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/model/trace.h"

namespace streamscope::engine {

struct OpStatistics {
    int index = 0; // opIndex, or the position in its repetition
    const OpRecord *first = nullptr; // the op in the first repetition that has it (name, kind, stream, bytes)
    Spread startNs; // start (GPU, else host call) from its repetition's start
    Spread gpuNs; // execution
    Spread hostNs; // the host call
    Spread gbPerSecond; // achieved GB/s: copies, and a prefetch by the bytes its migrations moved
    Spread queuedNs; // queued before execution (where stream-ready is known)
};

// Sorted by index. The pointers point into `trace`.
std::vector<OpStatistics> opStatistics(const Trace &trace);
// The first `limit` of them (by index) and, in *total (when given), how many there are: the CLI's table
// shows 40 of a trace's millions. Beside what it returns it takes 32 bytes per op of the trace.
std::vector<OpStatistics> opStatistics(const Trace &trace, std::size_t limit, std::size_t *total);
// Only the ops measured in two or more repetitions: what can be said of how repeatable a measurement is
// (the window's details). A trace of one repetition has none, however many ops it holds.
std::vector<OpStatistics> repeatedOpStatistics(const Trace &trace);

} // namespace streamscope::engine
