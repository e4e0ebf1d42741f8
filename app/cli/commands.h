// The subcommands of streamscope-cli. Each returns the process exit code (engine/run/cli_protocol.h) and
// writes its human output to `out` and its errors to `err`.
#pragma once

#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "engine/run/cli_protocol.h"

namespace streamscope::engine {
struct Trace;
struct Workload;
} // namespace streamscope::engine

namespace streamscope::cli {

// Exit codes: the protocol's (ExitOk, ExitUsage, ...).
using engine::protocol::ExitCode;
using enum engine::protocol::ExitCode;

struct RunArgs {
    std::string workload;
    std::string output;
    std::string format = "native"; // native | csv
    std::string progress = "none"; // none | json
    std::optional<int> device, repetitions, warmup;
    bool nvtx = true;
    std::string timing = "cupti"; // cupti | events
    bool kernelLatency = true; // CUPTI: kernels' queued/submitted timestamps too (RunOptions)
    bool solo = false; // solo baselines: each part alone after each repetition (RunOptions::solo)
    int opRows = 40;
    std::string timeLimit; // --time-limit DURATION ("30 s", "500ms"); empty: the workload's timeLimit
    bool ranks = false; // one process per rank under MPI (ranks_command.h)
    bool measureClocks = false; // --ranks: apply the measured clock offsets even where the ranks share a clock
};

// --time-limit's value in nanoseconds: a duration with a unit, as workload files write them ("30 s",
// "1.5 min" is not one; "90 s" is). None, with *why, for anything else (a bare number has no unit).
std::optional<std::int64_t> parseTimeLimit(const std::string &text, std::string *why);

int cmdDevices(bool json, std::ostream &out, std::ostream &err);
int cmdValidate(const std::vector<std::string> &files, std::ostream &out, std::ostream &err);
int cmdRun(const RunArgs &args, const std::atomic<bool> &cancel, std::ostream &out, std::ostream &err);
// What run does with its finished trace, in one process or as ranks: the workload and its file recorded in it,
// written to --output (native or CSV, atomically), and its summary printed to `human`.
void finishRun(engine::Trace &trace, const engine::Workload &workload, const RunArgs &args, std::ostream &human);
int cmdSummary(const std::string &trace, int opRows, std::ostream &out, std::ostream &err);
// One op of a trace, as engine::describeOp() describes it (the app's tooltip and details panel).
int cmdDescribe(const std::string &trace, int repetition, int op, std::ostream &out, std::ostream &err);
int cmdExport(const std::string &input, const std::string &format, const std::string &output, std::ostream &out,
              std::ostream &err);

} // namespace streamscope::cli
