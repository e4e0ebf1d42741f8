// The workload model: buffers, streams and their operations, as a user describes them in a workload
// file (JSON, format version 1, documented in docs/workload-format.md). Parsing and validation live in
// workload_parser.h; the runner executes Workload::schedule in order from one host thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/op_vocabulary.h"

namespace streamscope::engine {

inline constexpr int kWorkloadFormatVersion = 1;
inline constexpr int kMaxWarmup = 100; // warm-up rounds a workload (or --warmup) may ask for
inline constexpr int kMaxRepetitions = 1000; // measured rounds

enum class BufferKind : std::uint8_t { Pageable, Pinned, Registered, Managed, Device };

struct BufferSpec {
    std::string name;
    BufferKind kind = BufferKind::Device;
    std::uint64_t bytes = 0;
};

enum class StreamFlags : std::uint8_t { Default, NonBlocking };

enum class DefaultStreamMode : std::uint8_t { Legacy, PerThread };

// The order in which the host issues the ops of different streams.
//  RoundRobin: op 0 of every stream, then op 1 of every stream, ... (breadth-first)
//  StreamOrder: every op of stream 0, then every op of stream 1, ... (depth-first)
enum class IssueOrder : std::uint8_t { RoundRobin, StreamOrder };

enum class OpType : std::uint8_t {
    Copy,
    Kernel,
    Memset,
    EventRecord,
    EventWait,
    Sync,
    Prefetch,
    Advise,
    Attach,
    HostWork,
};

enum class CopyDirection : std::uint8_t { H2D, D2H, D2D, H2H };
// Hang and Fault are for lessons and tests of faults: a kernel that never ends (a run needs a time
// limit to run it) and one that writes through a bad pointer (an illegal address, a sticky error).
enum class KernelType : std::uint8_t { Compute, Memory, Hang, Fault };
enum class SyncTarget : std::uint8_t { Stream, Event, Device };
enum class AdviseKind : std::uint8_t {
    SetReadMostly,
    UnsetReadMostly,
    SetPreferredLocation,
    UnsetPreferredLocation,
    SetAccessedBy,
    UnsetAccessedBy,
};
enum class AttachKind : std::uint8_t { Global, Host, Single };

struct OpSpec {
    OpType type = OpType::Kernel;
    std::string name; // display name; generated from the fields when the file gives none
    std::string jsonPath; // where it came from, e.g. /streams/1/ops/3 (for error messages)
    int line = 0; // 1-based line in the workload file, 0 = unknown

    // Copy
    CopyDirection direction = CopyDirection::H2D;
    CopyApi api = CopyApi::Async;
    std::string src, dst; // buffer names
    std::uint64_t srcOffset = 0, dstOffset = 0;
    std::uint64_t bytes = 0; // copy, memset, memory kernel, prefetch, advise: bytes touched

    // Kernel
    KernelType kernelType = KernelType::Compute;
    std::int64_t durationNs = 0; // compute kernel target duration
    std::string buffer; // memory kernel / memset / prefetch / advise / attach target
    int blocks = 1;
    int threadsPerBlock = 128;

    // Memset
    int value = 0;

    // Events: record names an event, wait names the event another stream recorded
    std::string event;

    // Sync
    SyncTarget syncTarget = SyncTarget::Stream;
    std::string syncStream; // for SyncTarget::Stream: empty = this op's stream

    // Prefetch / advise location: -1 = host (cudaCpuDeviceId), otherwise a device index
    int location = 0;
    AdviseKind advise = AdviseKind::SetReadMostly;
    AttachKind attach = AttachKind::Single;

    // Host work: keep the CPU busy this long
    std::int64_t hostNs = 0;
};

struct StreamSpec {
    std::string name;
    StreamFlags flags = StreamFlags::NonBlocking;
    int priority = 0;
    bool useDefaultStream = false; // issue on the default stream (legacy or per-thread) instead of a new one
    std::vector<OpSpec> ops; // repeats already expanded
};

struct ScheduledOp {
    int stream = 0; // index into Workload::streams
    int op = 0; // index into StreamSpec::ops
};

// The one figure a lesson asks to look at: a caption ("H2D copies run one after another: staircase")
// and which ops show it (every part given must match; none given: the caption alone). The app outlines
// those ops on the timeline with the caption beside them.
struct KeyFigure {
    std::string caption; // empty: the lesson names no key figure
    std::string kind; // an op kind ("h2d", "d2h", "kernel", ...; engine::opKindFromString), or empty
    std::string name; // a part of the ops' names (case-insensitive), or empty
    std::string lane; // a stream's name, exactly, or empty
    bool operator==(const KeyFigure &) const = default;
};

struct Workload {
    int version = kWorkloadFormatVersion;
    std::string name;
    std::string description; // "what to look for": shown beside the lesson
    // The lesson's own comparison: --vary options ("memory=pageable,pinned"), each checked by
    // parseVaryOption, in grid order. `compare` with no --vary and the GUI's experiment dialog start from it.
    std::vector<std::string> compare;
    KeyFigure keyFigure; // "keyFigure": what the lesson's picture shows, highlighted by the app
    int device = 0;
    DefaultStreamMode defaultStream = DefaultStreamMode::Legacy;
    // Hardware queues (CUDA_DEVICE_MAX_CONNECTIONS, 1..32) the device gives this run's streams; 0 leaves
    // CUDA's default (8). Set before CUDA starts in the process, so a run in a fresh process honours it.
    int maxConnections = 0;
    IssueOrder issueOrder = IssueOrder::RoundRobin;
    int warmup = 1;
    int repetitions = 5;
    // The longest the run may take (ns), from start to its last repetition; 0: no limit. A run past it is
    // ended (ErrorKind::TimeLimit): a kernel that never ends can only be ended with its process.
    std::int64_t timeLimitNs = 0;
    std::vector<BufferSpec> buffers;
    std::vector<StreamSpec> streams;
    // The host's issue order over all ops. Filled by the parser (from issueOrder, or directly by a
    // pipeline generator) and always a permutation of every (stream, op).
    std::vector<ScheduledOp> schedule;

    const BufferSpec *findBuffer(const std::string &name) const;
    int findStream(const std::string &name) const; // -1 if none
    std::size_t opCount() const;
    // Device memory (device + managed buffers) and host memory (pageable/pinned/registered) needed.
    std::uint64_t deviceBytes() const;
    std::uint64_t managedBytes() const;
    std::uint64_t hostBytes() const;
};

std::string_view toString(BufferKind kind);
std::string_view toString(OpType type);
std::string_view toString(CopyDirection dir);
std::string_view toString(AdviseKind kind);
std::string_view toString(AttachKind kind);
MemKind memKindOf(BufferKind kind);
OpKind opKindOf(const OpSpec &op);
// A short display name such as "H2D 16 MiB pinned" or "compute 1 ms", for ops that have none.
std::string describe(const OpSpec &op, const Workload &workload);
// Rebuild Workload::schedule from Workload::issueOrder.
void buildSchedule(Workload &workload);

} // namespace streamscope::engine
