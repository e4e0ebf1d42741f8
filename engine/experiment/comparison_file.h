// A comparison: the variants of one experiment (a base workload and the axes it was varied along)
// with every repetition of every variant's run, and its file (.sscompare, versioned JSON, format
// "streamscope-comparison" version 1, documented in docs/comparisons.md). `streamscope-cli compare`
// writes it; the GUI opens it later. Each variant's native trace is embedded, or referenced by a
// path relative to the comparison file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/analysis/verdict.h"
#include "engine/formats/trace_io.h" // kComparisonFormatName
#include "engine/model/trace.h"
#include "engine/workload/variation_axes.h"

namespace streamscope::engine {

inline constexpr int kComparisonFormatVersion = 1;

struct VariantResult {
    std::string label;
    std::vector<AxisSetting> settings;
    Trace trace;
    // When not empty, the file holds this path (relative to the comparison file's folder) instead
    // of the embedded trace, and reading loads the trace from it.
    std::string traceFile;
    // Why the variant did not run, naming it and what failed ("variant 2 of 2 (launch=graph): ... : the capture
    // failed: ..."); empty where it ran. A failed variant has no trace; the others ran all the same.
    std::string failed;
};

struct Comparison {
    int formatVersion = kComparisonFormatVersion;
    std::string title; // the base workload's name
    std::string workloadFile; // where the base workload was read from
    std::string baseWorkloadJson; // the base workload's text as given
    std::vector<AxisValues> axes; // in the order the --vary options were given
    int warmup = -1; // -1: each variant's workload decided
    int repetitions = -1;
    std::string toolVersion;
    std::string createdUtc;
    std::vector<VariantResult> variants; // the grid, first axis varying slowest
};

std::string toComparisonJson(const Comparison &comparison);
// Throws Error{InvalidInput} naming the file and the JSON path; referenced traces are loaded
// relative to baseDir (Error{Io} when one cannot be read).
Comparison fromComparisonJson(std::string_view text, const std::string &fileName = "<comparison>",
                              const std::string &baseDir = ".");
// Atomic (engine/util/file_util.h). Throws Error{Io}, or Error{InvalidInput} naming the file when a text
// in it cannot be JSON (not UTF-8); the file is then left as it was.
void writeComparison(const Comparison &comparison, const std::string &path);
Comparison readComparison(const std::string &path);

// What the comparison table shows for one variant.
struct VariantSummary {
    std::string label;
    TraceSummary summary;
    Verdict vsFirst; // the makespan against the first variant's that ran (compareSpreads)
    std::string failed; // VariantResult::failed: no summary, no verdict
};
std::vector<VariantSummary> summarizeComparison(const Comparison &comparison);

} // namespace streamscope::engine
