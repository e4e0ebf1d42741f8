// Experiments: one base workload run as a grid of variants (host memory kind, copy API, stream
// count, issue order, chunk count, transfer size), each with its warm-up and every repetition kept,
// collected into a Comparison (comparison_file.h). Variants are made by editing the base workload's
// JSON and parsing the result again with parseWorkload, so every variant is validated like a file
// and an impossible combination is reported with the variant named.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/experiment/comparison_file.h"
#include "engine/run/runner.h"
#include "engine/workload/workload.h"

namespace streamscope::engine {

inline constexpr int kMaxExperimentVariants = 1000;

struct ExperimentSpec {
    std::string workloadText; // the base workload (JSON; comments allowed as in workload files)
    std::string workloadFile; // where it came from, for messages and the comparison file
    std::vector<AxisValues> axes; // in the order the --vary options were given
};

struct Variant {
    int index = 0;
    std::string label; // variantLabel(settings)
    std::vector<AxisSetting> settings; // one per axis, in axis order
    std::string workloadJson; // the base with the settings applied, as parsed
    Workload workload;
};

// The cartesian product of the axes, the first axis varying slowest. No axes: the base alone.
// Throws WorkloadError when the base is invalid, and Error{InvalidInput} naming the variant when an
// axis cannot apply (streams/order/chunks without a "pipeline", memory without host buffers, api or
// size without copies) or when parseWorkload refuses the edited workload (its issues are listed).
std::vector<Variant> expandVariants(const ExperimentSpec &spec);

// The base workload's JSON with one variant's settings applied (what expandVariants parses).
std::string applySettings(const ExperimentSpec &spec, const std::vector<AxisSetting> &settings);

struct ExperimentProgress {
    int variant = 0; // 0-based
    int variantCount = 0;
    std::string label;
    RunProgress run; // the current variant's own progress
    double fraction = 0; // 0..1 over the whole experiment (warm-up and measured repetitions)
};
using ExperimentProgressCallback = std::function<void(const ExperimentProgress &)>;

// engine::runWorkload in the CLI; tests pass a stand-in. The engine library does not link the
// runner, so the caller chooses.
using WorkloadRunner =
    std::function<Trace(const Workload &, const RunOptions &, const ProgressCallback &, const std::atomic<bool> *)>;

// Runs every variant in grid order with the same options. Throws what the runner throws; Cuda and
// OutOfMemory errors are prefixed with the variant ("variant 3 of 4 (memory=pageable): ..."); NoGpu
// and Cancelled pass unchanged. `cancel` is also checked between variants.
Comparison runExperiment(const ExperimentSpec &spec, const std::vector<Variant> &variants, const RunOptions &options,
                         const WorkloadRunner &runner, const ExperimentProgressCallback &progress = {},
                         const std::atomic<bool> *cancel = nullptr);

} // namespace streamscope::engine
