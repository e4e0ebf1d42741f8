// The price of overlap (docs/measurement.md "The price of overlap"): for a run with solo baselines
// (Trace::solo, `run --solo`), how much running the parts side by side slowed each op, what the overlap
// saved against running the parts one after another, and what interference cost against perfect overlap.
// Every other tool intersects time spans and calls the intersection "hidden"; this compares the same ops
// run alone and together, in rounds that alternate, so drift hits both alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/model/trace.h"

namespace streamscope::engine {

// One op of the workload (an index into every repetition's ops), in the mix against alone.
struct OpSlowdown {
    int op = -1;
    Spread mixedNs; // its execution in the measured repetitions
    Spread soloNs; // its execution in its part's solo runs
    // Median mixed over median solo: 1.19 = 19 % slower beside the other parts; 0 where unknown.
    double slowdown = 0;
    // Per round, its execution in the mix over its execution alone right after: the ratio's spread.
    Spread roundRatio;
    // The op of another part that ran beside it longest (on its GPU, or on either GPU of a peer copy),
    // summed over the repetitions: an index into the repetitions' ops, -1 where none ran beside it.
    int culprit = -1;
    double culpritShare = 0; // the share of its mixed execution the culprit overlapped
    bool sameEngine = false; // the culprit is a copy in the same direction on the same GPU: they share a link
    bool known() const { return slowdown > 0; }
    // A change beyond the rounds' own noise: at least 1 %, and not inside the spread of the rounds' ratios
    // (where each round's mixed over alone crosses 1 over three rounds or more).
    bool beyondNoise() const
    {
        return known() && (slowdown - 1.0 >= 0.01 || 1.0 - slowdown >= 0.01)
               && !(roundRatio.count >= 3 && roundRatio.min <= 1.0 && roundRatio.max >= 1.0);
    }
};

// The accounting of one round: measured repetition `round` and every part alone after it.
struct OverlapRound {
    int round = 0;
    std::int64_t serialNs = 0; // the parts alone, one after another: the sum of their GPU spans
    std::int64_t idealNs = 0; // perfect overlap at no cost: the longest part alone (parts wait on none other)
    std::int64_t measuredNs = 0; // the measured repetition's GPU span
    std::int64_t savedNs() const { return serialNs - measuredNs; } // what overlapping saved
    std::int64_t costNs() const { return measuredNs - idealNs; } // what interference cost
    // The share of the possible saving (serial - ideal) that was realised; 0 where nothing could be saved.
    double realised() const { return serialNs > idealNs ? double(savedNs()) / double(serialNs - idealNs) : 0.0; }
};

struct InterferenceReport {
    bool known = false; // the trace has solo baselines for at least one complete round
    std::string why; // where unknown: why ("no solo baselines: run with --solo"); else what is missing, if any
    std::vector<OpSlowdown> ops; // one per op of a repetition, in its order
    std::vector<OverlapRound> rounds; // one per complete round, in round order
    std::vector<Spread> partSoloNs; // per part: its GPU span alone, over the rounds
    Spread serialNs, idealNs, measuredNs, savedNs, costNs, realised; // over the rounds
};

InterferenceReport analyzeInterference(const Trace &trace);

// "+19 % (1.55 ms → 1.85 ms alone → mixed), while "allreduce" (stream comm) ran beside it for 92 % of it";
// "within noise (...)" where the slowdown is inside the rounds' own spread; empty where unknown.
std::string describeSlowdown(const Trace &trace, const OpSlowdown &s);

// The GPU span of a set of ops: first GPU start to last GPU end, 0 where none ran on a GPU.
std::int64_t gpuSpanOf(const std::vector<OpRecord> &ops);

} // namespace streamscope::engine
