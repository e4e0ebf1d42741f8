// Diff of any two traces (native runs, Nsight Systems imports, Chrome imports): streams paired by
// name, ops aligned per stream by name and occurrence (with a fallback to order among copies and
// memsets of the same kind and size when names differ, e.g. copies another tool names), then
// per-op deltas (start from each trace's repetition start, duration, GB/s), per-stream deltas, the
// ops left unmatched, and a summary: the makespan with its noise verdict and how far starts and
// durations are apart. `streamscope-cli diff` prints it; comparing a run with its Nsight capture
// (docs/nsight.md) reads the summary's start and duration deltas.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/analysis/op_alignment.h"
#include "engine/analysis/verdict.h"
#include "engine/model/trace.h"

namespace streamscope::engine {

// Maps an op name to the name it is matched by (both traces' names go through it).
using NameNormalizer = std::function<std::string(std::string_view)>;

enum class DiffStatistic : std::uint8_t {
    PerOpMedian, // each op's start, duration and GB/s: the median over every repetition
    MedianRepetition, // the values of the repetition whose makespan is the median
};

struct DiffOptions {
    DiffStatistic statistic = DiffStatistic::PerOpMedian;
    NameNormalizer normalizeName; // empty: names as they are
    // Pair copies and memsets left over by name in order, per stream, kind and size (op_alignment.h);
    // kernels and API calls pair by name only.
    bool fallbackToOrder = true;
};

// One op as the diff sees it: an op slot of one stream of the reference repetition.
struct DiffOp {
    int stream = -1; // index into that trace's streams, -1 = host-only ops
    int position = 0; // the op's position in its stream (reference repetition)
    std::string name;
    OpKind kind = OpKind::Other;
    std::uint64_t bytes = 0; // a copy's or memset's size (reference repetition)
    Spread startNs; // from the repetition's start (Trace::extent): GPU start, else host start
    Spread durationNs; // GPU duration, else host call duration
    Spread gbPerSecond; // copies only (count 0 otherwise)
    bool hasTime = false;
};

struct OpDelta {
    std::string stream; // A's stream name (the pairing is in StreamPair)
    DiffOp a, b;
    MatchMethod method = MatchMethod::ByName;
    double startDeltaNs = 0; // b - a, medians
    double durationDeltaNs = 0;
    double gbpsDelta = 0; // 0 when either side moved no bytes
    Verdict duration; // compareSpreads(a.durationNs, b.durationNs)
};

struct StreamPair {
    int a = -1, b = -1; // indices into each trace's streams; -1 = absent from that trace
    std::string nameA, nameB;
    MatchMethod method = MatchMethod::ByName;
    int opsA = 0, opsB = 0; // ops in the reference repetition
    Spread busyA, busyB; // union of the stream's GPU intervals, per repetition
    Verdict busy; // compareSpreads(busyA, busyB)
};

struct UnmatchedOp {
    char side = 'A'; // 'A' or 'B'
    std::string stream; // that trace's stream name ("host" for host-only ops)
    DiffOp op;
};

struct DiffSummary {
    Spread makespanA, makespanB;
    Verdict makespan; // compareSpreads(makespanA, makespanB): "faster" = B is faster
    double makespanDeltaNs = 0; // B - A, medians
    int matched = 0, matchedByOrder = 0, unmatchedA = 0, unmatchedB = 0;
    int timed = 0; // matched ops with a time on both sides (the statistics below)
    double meanAbsStartDeltaNs = 0, medianAbsStartDeltaNs = 0, maxAbsStartDeltaNs = 0;
    double meanAbsDurationDeltaNs = 0, medianAbsDurationDeltaNs = 0, maxAbsDurationDeltaNs = 0;
};

struct TraceDiff {
    std::vector<StreamPair> streams;
    std::vector<OpDelta> ops; // by A's stream order, then position
    std::vector<UnmatchedOp> unmatched; // A's first, then B's
    DiffSummary summary;
};

// Throws Error{InvalidInput} when a trace has no repetitions.
TraceDiff diffTraces(const Trace &a, const Trace &b, const DiffOptions &options = {});

// A normaliser for comparing StreamScope's own names with imported ones: lower case, a trailing
// " [c3]"-style chunk tag and a "(...)" argument list removed, runs of spaces collapsed.
std::string normalizeOpName(std::string_view name);

} // namespace streamscope::engine
