// `streamscope-cli nsight-compare TRACE NSYS.sqlite`: how far StreamScope's CUDA-event timings of a
// run are from Nsight Systems' capture of the same run (engine/analysis/nsight_compare.h; docs/nsight.md).
#pragma once

#include <iosfwd>
#include <string>

namespace streamscope::cli {

struct NsightCompareArgs {
    std::string trace; // the .sstrace StreamScope wrote
    std::string nsys; // `nsys export --type sqlite` of the same run
    int opRows = 40; // rows of the per-op table (0: none)
    bool separateRuns = false; // Nsight captured another run of the workload: compare per-op medians
};

// Returns the process exit code (docs/cli-protocol.md).
int cmdNsightCompare(const NsightCompareArgs &args, std::ostream &out, std::ostream &err);

} // namespace streamscope::cli
