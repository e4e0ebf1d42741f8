// The runner: executes a Workload on a CUDA device and records every op of every repetition.
// Built from runner_cuda.cpp when the CUDA toolkit is present, from runner_nocuda.cpp otherwise
// (then every entry point throws Error{NoGpu} saying the build has no CUDA).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/errors.h"
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
    // Solo baselines (docs/measurement.md "The price of overlap"): after each measured repetition, each
    // part of the workload (StreamSpec::part; by default each stream) runs alone, its ops recorded in
    // Trace::solo. A workload whose parts wait on each other's events cannot run them alone: refused; one
    // with a single part runs without them (metadata "solo" says why). On
    // whatever this says where the workload asks for them (Workload::solo, its lessons on the price of overlap).
    bool solo = false;
    // Cupti: execution from CUPTI activity records, stream-ready from events; falls back to Events,
    // saying why in Trace::timingNote, where CUPTI cannot be enabled or fails during the run.
    TimingMode timing = TimingMode::Cupti;
    // With CUPTI: also each kernel's queued and submitted timestamps (launch latency). On by default:
    // they cost about 1.3 % of the overlap lesson's makespan on an H200 (bench_overhead), but without
    // them CUPTI slowed pageable copies of 4 MiB and more by a further 20-27 % there (measured twice,
    // alternating; the cause is inside CUPTI), and the bandwidth lesson is the one that measures those.
    // Workloads with managed memory go without them: with them CUPTI lost unified-memory records.
    bool kernelLatency = true;
    // The longest the run may take (ns): -1 the workload's timeLimit, 0 none. Past it the run stops with
    // Error{TimeLimit}; where its GPU work cannot end (a kernel that never ends), the process ends (below).
    std::int64_t timeLimitNs = -1;
    // Compare what the workload needs with the free device and host memory before allocating, and
    // refuse with the numbers. Off only for the fault tests, which must see an allocation itself fail
    // cleanly; managed memory is checked against the free device memory either way (asking for more
    // managed memory than the card has free can hang the GPU).
    bool checkMemoryFirst = true;
    // A run stopped (time limit, cancel) whose GPU work does not end, or whose host thread is blocked
    // inside a CUDA call, cannot be ended in the process: CUDA has no way to stop a running kernel. It is
    // abandoned: this reports the error (the CLI prints its JSON error line), then the process exits
    // with the error's exit code (cli_protocol.h). Without it the message goes to standard error.
    std::function<void(const Error &)> onAbandon;
    // One rank's part of a workload run as one process per rank (Workload::rankOf, ranks.h): the NCCL unique
    // id rank 0 made (newCommunicatorId) and every rank was sent, for the communicator its collectives join;
    // and what the ranks do together before each repetition (an MPI barrier), so that they start it together.
    std::string communicatorId;
    std::function<void()> beforeRepetition;
    // Called with the error the moment the run fails, before anything is released. A rank of a job ends the
    // job here (MPI_Abort): releasing a communicator whose peer is another process can wait for that peer
    // forever, and the other ranks wait on the GPU for this one.
    std::function<void(const Error &)> onError;
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
// What this build or machine lacks to run the workload's library ops, naming the first op that needs it:
// Error{InvalidInput} where the build left the library out (NCCL without nccl.h at configure), Error{Cuda}
// where the machine lacks it (libnccl.so.2); none where nothing is missing, or in a build without CUDA (which
// runs nothing). runWorkload refuses such a workload before it allocates anything; `validate` reports it.
std::optional<Error> missingLibraries(const Workload &workload);
// What a workload fixes for its whole process, and only before CUDA starts in it: its maxConnections
// (CUDA_DEVICE_MAX_CONNECTIONS, read once when CUDA creates its context). runWorkload applies it itself; a
// program that may start CUDA earlier (an MPI library that is CUDA-aware starts it in MPI_Init) calls this
// first. Error{InvalidInput} where an earlier run of the process fixed another value.
void applyProcessSettings(const Workload &workload);
// A new NCCL unique id (ncclGetUniqueId, its bytes) for the communicator of a job's ranks: made by rank 0 and
// sent to every rank (RunOptions::communicatorId). Throws Error as missingLibraries says.
std::string newCommunicatorId();
// Every CUDA device with its properties. Throws Error{NoGpu} with the reason (no driver, no device,
// built without CUDA).
std::vector<DeviceInfo> listDevices();
// Runs the workload. Throws Error (Cuda, OutOfMemory, NoGpu, InvalidInput, Cancelled, TimeLimit);
// everything allocated is released before it returns or throws, except where the run is abandoned
// (RunOptions::onAbandon), which ends the process. `cancel` may be null. After a sticky CUDA error (a
// kernel fault) CUDA cannot be used again in the process: later runs in it throw Error{Cuda} saying so.
Trace runWorkload(const Workload &workload, const RunOptions &options, const ProgressCallback &progress = {},
                  const std::atomic<bool> *cancel = nullptr);

std::string_view toString(RunProgress::Phase phase);

} // namespace streamscope::engine
