// The one rule that turns two spreads of samples into a verdict: when their min..max ranges overlap,
// the difference is within the run-to-run noise and no winner is called. The comparison table of
// `streamscope-cli compare`, the trace diff and the GUI's comparison view all call compareSpreads().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/analysis/analysis.h"

namespace streamscope::engine {

enum class VerdictKind : std::uint8_t {
    Faster, // the candidate's whole range lies below the baseline's
    Slower, // the candidate's whole range lies above the baseline's
    Noise, // the ranges overlap: the medians differ by less than the spread
    Unknown, // a side has no samples, or a median that is not positive (no ratio)
};

struct Verdict {
    VerdictKind kind = VerdictKind::Unknown;
    double ratio = 0; // baseline median / candidate median: 2.0 = the candidate takes half the time
    double deltaNs = 0; // candidate median - baseline median
};

// For quantities where less is better (times). Ranges that touch count as overlapping.
Verdict compareSpreads(const Spread &baseline, const Spread &candidate);

std::string_view toString(VerdictKind kind); // "faster" | "slower" | "noise" | "unknown"
// "1.85x faster", "1.20x slower", "noise (1.02x)", "-" for Unknown.
std::string describe(const Verdict &verdict);

} // namespace streamscope::engine
