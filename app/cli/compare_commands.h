// `streamscope-cli compare` (run a workload's variants and compare them, or show a saved
// comparison) and `streamscope-cli diff` (any two traces). Each returns the process exit code
// (docs/cli-protocol.md); docs/comparisons.md describes both.
#pragma once

#include <atomic>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace streamscope::cli {

struct CompareArgs {
    std::string input; // a workload, or a .sscompare file to show again
    std::vector<std::string> vary; // "memory=pageable,pinned", in the order given
    std::string output; // the .sscompare to write; empty: none
    std::optional<int> device, repetitions, warmup;
    std::string progress = "none"; // none | json
    bool nvtx = true;
    std::string timing = "cupti"; // cupti | events
};

struct DiffArgs {
    std::string a, b;
    std::string statistic = "per-op-median"; // per-op-median | median-repetition
    bool normalizeNames = false; // engine::normalizeOpName on both sides
    int opRows = 40;
};

int cmdCompare(const CompareArgs &args, const std::atomic<bool> &cancel, std::ostream &out, std::ostream &err);
int cmdDiff(const DiffArgs &args, std::ostream &out, std::ostream &err);

} // namespace streamscope::cli
