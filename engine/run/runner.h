// The runner: executes a Workload on a CUDA device and records every op of every repetition.
// Built from runner_cuda.cu when the CUDA toolkit is present, from runner_nocuda.cpp otherwise
// (then every entry point throws Error{NoGpu} saying the build has no CUDA).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/trace.h"
#include "engine/workload/workload.h"

namespace streamscope::engine {

// What times the GPU part of each op (see TimingSource in trace.h).
enum class TimingMode { Cupti, Events };

struct RunOptions {
    int device = -1; // -1: the workload's device
    int repetitions = -1; // -1: the workload's
    int warmup = -1; // -1: the workload's
    bool instrument = true; // CUDA event pairs per op; off only for the overhead benchmark
    bool nvtx = true; // NVTX ranges per op and stream names
    // Cupti: execution from CUPTI activity records, stream-ready from events; falls back to Events,
    // saying why in Trace::timingNote, where CUPTI cannot be enabled or fails during the run.
    TimingMode timing = TimingMode::Cupti;
    // With CUPTI: also each kernel's queued and submitted timestamps (launch latency). On by default:
    // they cost about 1.3 % of the overlap lesson's makespan on an H200 (bench_overhead), but without
    // them CUPTI slowed pageable copies of 4 MiB and more by a further 20-27 % there (measured twice,
    // alternating; the cause is inside CUPTI), and the bandwidth lesson is the one that measures those.
    // Workloads with managed memory go without them: with them CUPTI lost unified-memory records.
    bool kernelLatency = true;
};

std::string_view toString(TimingMode mode);
std::optional<TimingMode> timingModeFromString(std::string_view s);

struct RunProgress {
    enum class Phase { Preparing, Calibrating, Warmup, Measuring, Done };
    Phase phase = Phase::Preparing;
    int repetition = 0; // 0-based within the phase
    int total = 0; // repetitions in the phase
    std::string message;
};

using ProgressCallback = std::function<void(const RunProgress &)>;

// True when this build has the CUDA runner.
bool runnerHasCuda();
// Every CUDA device with its properties. Throws Error{NoGpu} with the reason (no driver, no device,
// built without CUDA).
std::vector<DeviceInfo> listDevices();
// Runs the workload. Throws Error (Cuda, OutOfMemory, NoGpu, InvalidInput, Cancelled); everything
// allocated is released before it returns or throws. `cancel` may be null.
Trace runWorkload(const Workload &workload, const RunOptions &options, const ProgressCallback &progress = {},
                  const std::atomic<bool> *cancel = nullptr);

std::string_view toString(RunProgress::Phase phase);

} // namespace streamscope::engine
