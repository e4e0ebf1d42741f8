// The protocol between streamscope-cli and whoever runs it (the desktop app, scripts): exit codes, error
// kinds and the names of the JSON progress lines' events and fields (docs/cli-protocol.md). One
// header, Qt-free, used by the CLI that speaks it, the app's run controller that reads it and the app's
// headless export that exits with its codes, so that the three cannot drift apart.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "engine/model/errors.h"

namespace streamscope::engine::protocol {

enum ExitCode : int {
    ExitOk = 0,
    ExitInternal = 1, // an unexpected error (a bug)
    ExitUsage = 2, // unknown option, missing argument
    ExitInvalidInput = 3, // ErrorKind::InvalidInput
    ExitIo = 4, // ErrorKind::Io
    ExitNoGpu = 5, // ErrorKind::NoGpu
    ExitCuda = 6, // ErrorKind::Cuda
    ExitOutOfMemory = 7, // ErrorKind::OutOfMemory
    ExitTimeLimit = 8, // ErrorKind::TimeLimit: the run passed its time limit and was ended
    ExitCancelled = 130, // ErrorKind::Cancelled (SIGINT, SIGTERM): 128 + SIGINT, as shells report it
};

// Every error kind, for loops that must cover them all (the protocol test does).
inline constexpr std::array<ErrorKind, 7> kErrorKinds = {
    ErrorKind::InvalidInput, ErrorKind::Io,        ErrorKind::NoGpu,    ErrorKind::Cuda,
    ErrorKind::OutOfMemory,  ErrorKind::Cancelled, ErrorKind::TimeLimit};

constexpr ExitCode exitCodeOf(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::InvalidInput: return ExitInvalidInput;
    case ErrorKind::Io: return ExitIo;
    case ErrorKind::NoGpu: return ExitNoGpu;
    case ErrorKind::Cuda: return ExitCuda;
    case ErrorKind::OutOfMemory: return ExitOutOfMemory;
    case ErrorKind::Cancelled: return ExitCancelled;
    case ErrorKind::TimeLimit: return ExitTimeLimit;
    }
    return ExitInternal;
}

// The error kind an exit code stands for; none for 0, 1, 2 and codes the protocol does not define.
constexpr std::optional<ErrorKind> errorKindOfExitCode(int code)
{
    for (ErrorKind kind : kErrorKinds)
        if (exitCodeOf(kind) == code)
            return kind;
    return std::nullopt;
}

// The "kind" of an {"event":"error"} line.
inline constexpr std::string_view kInternalKindName = "internal";

constexpr std::string_view kindName(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::InvalidInput: return "invalid_input";
    case ErrorKind::Io: return "io";
    case ErrorKind::NoGpu: return "no_gpu";
    case ErrorKind::Cuda: return "cuda";
    case ErrorKind::OutOfMemory: return "out_of_memory";
    case ErrorKind::Cancelled: return "cancelled";
    case ErrorKind::TimeLimit: return "time_limit";
    }
    return kInternalKindName;
}

// None for "internal" and for kinds a later version may add.
constexpr std::optional<ErrorKind> errorKindFromName(std::string_view name)
{
    for (ErrorKind kind : kErrorKinds)
        if (kindName(kind) == name)
            return kind;
    return std::nullopt;
}

// Events: one JSON object per line on standard output with --progress json.
namespace event {
inline constexpr std::string_view kStart = "start"; // run: workload, file, device, warmup, repetitions, ops;
                                                    // compare: command, variants (labels)
inline constexpr std::string_view kDevice = "device"; // index, name, cc
inline constexpr std::string_view kProgress = "progress"; // phase, repetition, total, message; compare adds
                                                          // variant, variants, label, fraction
inline constexpr std::string_view kDone = "done"; // output, ops, makespan_ns_median | variants
inline constexpr std::string_view kError = "error"; // kind, exit_code, message
} // namespace event

// Fields of those lines.
namespace field {
inline constexpr std::string_view kEvent = "event";
inline constexpr std::string_view kCommand = "command";
inline constexpr std::string_view kWorkload = "workload";
inline constexpr std::string_view kFile = "file";
inline constexpr std::string_view kDevice = "device";
inline constexpr std::string_view kIndex = "index";
inline constexpr std::string_view kName = "name";
inline constexpr std::string_view kComputeCapability = "cc";
inline constexpr std::string_view kWarmup = "warmup";
inline constexpr std::string_view kRepetitions = "repetitions";
inline constexpr std::string_view kOps = "ops";
inline constexpr std::string_view kPhase = "phase";
inline constexpr std::string_view kRepetition = "repetition";
inline constexpr std::string_view kTotal = "total";
inline constexpr std::string_view kMessage = "message";
inline constexpr std::string_view kVariant = "variant";
inline constexpr std::string_view kVariants = "variants";
inline constexpr std::string_view kLabel = "label";
inline constexpr std::string_view kFraction = "fraction";
inline constexpr std::string_view kOutput = "output";
inline constexpr std::string_view kMakespanMedian = "makespan_ns_median";
inline constexpr std::string_view kKind = "kind";
inline constexpr std::string_view kExitCode = "exit_code";
} // namespace field

} // namespace streamscope::engine::protocol
