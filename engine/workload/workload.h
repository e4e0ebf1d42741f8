// The workload model: buffers, streams and their operations, and the host threads that issue them, as a
// user describes them in a workload file (JSON, format version 2 or 1, documented in
// docs/workload-format.md). Parsing and validation live in workload_parser.h; the runner executes each
// thread's part of Workload::schedule in order, one host thread per workload thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/op_vocabulary.h"

namespace streamscope::engine {

// 2: devices on buffers and streams, named host threads with their own issue orders, peer copies and
//    peerAccess. 1 is still read: every buffer and stream on the workload's device, one host thread.
inline constexpr int kWorkloadFormatVersion = 2;
inline constexpr int kMaxDeviceIndex = 63; // a device index a workload may name (the runner checks the machine's)
inline constexpr int kMaxThreads = 64; // host threads of one workload
inline constexpr int kMaxWarmup = 100; // warm-up rounds a workload (or --warmup) may ask for
inline constexpr int kMaxRepetitions = 1000; // measured rounds

enum class BufferKind : std::uint8_t { Pageable, Pinned, Registered, Managed, Device };

struct BufferSpec {
    std::string name;
    BufferKind kind = BufferKind::Device;
    std::uint64_t bytes = 0;
    // The GPU of a device or managed buffer (cudaSetDevice before allocating it); -1: the workload's
    // device. Host buffers have none (always -1).
    int device = -1;
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
    Collective,
};

// P2P: between device buffers of two GPUs (cudaMemcpyPeerAsync); a version 2 workload only.
enum class CopyDirection : std::uint8_t { H2D, D2H, D2D, H2H, P2P };

// Whether peer access (cudaDeviceEnablePeerAccess) is enabled between the GPUs a workload uses: "on", the
// peer copies go directly over NVLink or PCIe; "off", the driver stages them through host memory.
enum class PeerAccess : std::uint8_t { On, Off };
// Hang and Fault are for lessons and tests of faults: a kernel that never ends (a run needs a time
// limit to run it) and one that writes through a bad pointer (an illegal address, a sticky error).
// Gemm: a matrix multiply through cuBLAS (cublasLtMatmul), on the tensor cores where its dtype uses them.
// What the workload layer knows of each type is its row in kernel_types.cpp (kernel_types.h).
enum class KernelType : std::uint8_t {
    Compute,
    Memory,
    Hang,
    Fault,
    Gemm,
    Empty, // does nothing: what a launch costs, alone (the launch-cost lessons' kernel)
    // New types go here, each with its row in kernel_types.cpp.
    Count // not a type: how many there are, which kernel_types.cpp checks its table against at compile time
};
// A GEMM's element type. Fp32 multiplies in full fp32 (no tensor cores); Tf32 reads fp32 and multiplies
// in TF32 on the tensor cores; Fp16 and Bf16 accumulate in fp32; Fp8 (E4M3 inputs, bf16 output) needs
// compute capability 8.9 or later.
enum class GemmDtype : std::uint8_t { Fp32, Tf32, Fp16, Bf16, Fp8 };
inline constexpr std::int64_t kMaxGemmDim = 131072; // m, n and k each

// C (m x n) = A (m x k) x B (k x n), with operands the runner allocates on the op's device and fills with
// random values once (shared by the GEMMs of one shape and dtype on a device).
struct GemmShape {
    // A kernel the editor turns into a GEMM starts as a square 4096 one in bf16.
    std::int32_t m = 4096, n = 4096, k = 4096;
    GemmDtype dtype = GemmDtype::Bf16;

    // Floating-point operations: 2mnk (a multiply and an add per term).
    std::uint64_t flops() const;
    // The bytes of A, B and C (what the GEMM reads and writes at least once).
    std::uint64_t operandBytes() const;
    bool operator==(const GemmShape &) const = default;
};
std::uint64_t elementBytes(GemmDtype dtype, bool output);
// A collective op (OpType::Collective): one call of NCCL's on each GPU of the workload's communicator (every
// GPU whose streams hold collectives), matched across the GPUs in each one's issue order, as a program's
// ranks make them. Send and Recv pair with the other GPU's Recv and Send (`peer`).
enum class CollectiveType : std::uint8_t { AllReduce, AllGather, ReduceScatter, Broadcast, AllToAll, Send, Recv };
enum class CollectiveDtype : std::uint8_t { Fp32, Fp16, Bf16, Int8 };
enum class ReduceOp : std::uint8_t { Sum, Prod, Min, Max, Avg };

struct CollectiveSpec {
    CollectiveType type = CollectiveType::AllReduce;
    CollectiveDtype dtype = CollectiveDtype::Bf16;
    ReduceOp reduce = ReduceOp::Sum; // all-reduce and reduce-scatter
    int root = -1; // a broadcast's root, as a device index (-1: the communicator's first GPU)
    int peer = -1; // a send's or receive's other GPU (device index)
    bool operator==(const CollectiveSpec &) const = default;
};
std::uint64_t elementBytes(CollectiveDtype dtype);
// Whether the type reduces (takes a "reduce" op): all-reduce and reduce-scatter.
bool reduces(CollectiveType type);
// The NCCL function a collective type calls ("ncclAllReduce").
std::string_view ncclFunction(CollectiveType type);
// The bytes that cross the links per rank for a collective of `bytes` (its size, as nccl-tests counts it)
// over `ranks` GPUs: nccl-tests' bus bandwidth numerator (size x 2(n-1)/n for an all-reduce, (n-1)/n for an
// all-gather, reduce-scatter or all-to-all, x1 for a broadcast, send or receive).
std::uint64_t busBytes(CollectiveType type, std::uint64_t bytes, int ranks);
// What a collective of `bytes` needs on each GPU: its send buffer and its receive buffer (nccl-tests' sizes:
// an all-gather sends bytes/n and receives bytes; a reduce-scatter sends bytes and receives bytes/n).
std::uint64_t collectiveSendBytes(CollectiveType type, std::uint64_t bytes, int ranks);
std::uint64_t collectiveRecvBytes(CollectiveType type, std::uint64_t bytes, int ranks);

// NCCL's settings for the workload's communicator (ncclConfig_t) and its environment: the knobs that decide
// how much of the GPU a collective takes beside compute. 0 / empty: NCCL's own default.
struct NcclSettings {
    int minCTAs = 0; // ncclConfig_t::minCTAs (1..64)
    int maxCTAs = 0; // ncclConfig_t::maxCTAs (1..64)
    std::string ctaPolicy; // ncclConfig_t::CTAPolicy: "default", "efficiency" or "zero"
    std::string algo; // NCCL_ALGO for the run's process ("Ring", "Tree", "NVLS", ...)
    std::string proto; // NCCL_PROTO ("LL", "LL128", "Simple")
    // The runner's send and receive buffers from ncclMemAlloc, registered as symmetric windows
    // (ncclCommWindowRegister, NCCL_WIN_COLL_SYMMETRIC, NCCL 2.27 and later): what NCCL's symmetric kernels and,
    // with ctaPolicy "zero" (NCCL 2.28), its copy-engine collectives need.
    bool symmetric = false;
    bool operator==(const NcclSettings &) const = default;
    bool empty() const { return *this == NcclSettings{}; }
};

// How the host launches a repetition's ops. Streams: one call per op, on its stream, as a program issues them.
// Graph: the ops captured once into a CUDA graph (stream capture across the workload's streams, forked from and
// joined to one origin), instantiated once before the first repetition, and launched with one cudaGraphLaunch
// per repetition; capture_check.h says what a graph can hold.
enum class LaunchMode : std::uint8_t { Streams, Graph };

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
    GemmShape gemm; // KernelType::Gemm
    // Programmatic dependent launch (KernelField::Pdl): launched with the programmatic stream serialisation
    // attribute, so that it may start before the kernel before it on its stream has ended; it waits for that
    // kernel's results in cudaGridDependencySynchronize.
    bool pdl = false;
    // "pdl" was given, true or false. A kernel with "pdl": false runs as one without, but is timed as a PDL kernel
    // is (no timing events beside it, run_plan.cpp), so that pdl=off and pdl=on compare like for like.
    bool pdlGiven = false;

    // Collective (its size in `bytes`, as nccl-tests counts it)
    CollectiveSpec collective;

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
    int device = -1; // the GPU it is created on; -1: the workload's device
    int thread = 0; // index into Workload::threads of the host thread that drives it (0 when implicit)
    StreamFlags flags = StreamFlags::NonBlocking;
    int priority = 0;
    bool useDefaultStream = false; // issue on the default stream (legacy or per-thread) instead of a new one
    // The part it belongs to when a run measures solo baselines (run --solo): streams of one part run
    // alone together; empty: the stream is a part of its own.
    std::string part;
    std::vector<OpSpec> ops; // repeats already expanded
};

struct ScheduledOp {
    int stream = 0; // index into Workload::streams
    int op = 0; // index into StreamSpec::ops
};

// A host thread of a version 2 workload: bound to its device (cudaSetDevice on that thread), it issues
// the ops of its streams in its own order. A version 1 workload (or a version 2 one without "threads")
// has one implicit thread, "main", on the workload's device, driving every stream.
struct ThreadSpec {
    std::string name;
    int device = -1; // -1: the workload's device
    IssueOrder issueOrder = IssueOrder::RoundRobin;
    std::vector<int> streams; // indices into Workload::streams, as the file lists them
    std::string jsonPath; // e.g. /threads/1 (for error messages)
    int line = 0;
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

// Set on one rank's part of a workload that runs as one process per rank (rank_part.h, `run --ranks`): the
// part holds one GPU's streams, but its collectives' communicator is the whole workload's.
struct RankOf {
    int rank = -1; // the process's rank: the workload's GPU its part came from; -1: a whole workload
    int ranks = 0; // the processes of the job
    std::vector<int> communicator; // the whole workload's collectiveDevices (workload GPUs, which are ranks)
    // The whole workload's solo parts (solo_parts.h), in its order: every rank runs each part's round, its
    // own streams of that part or nothing, so that the ranks' rounds stay together.
    std::vector<std::string> soloParts;
};

struct Workload {
    // The format it was read from (1 or 2). workloadToJson writes 2 where the workload uses anything of
    // version 2 (devices, threads, peer copies, peerAccess), this otherwise.
    int version = 1;
    std::string name;
    std::string description; // "what to look for": shown beside the lesson
    // The lesson's own comparison: --vary options ("memory=pageable,pinned"), each checked by
    // parseVaryOption, in grid order. `compare` with no --vary and the GUI's experiment dialog start from it.
    std::vector<std::string> compare;
    KeyFigure keyFigure; // "keyFigure": what the lesson's picture shows, highlighted by the app
    int device = 0; // the default device of buffers, streams and threads that name none
    PeerAccess peerAccess = PeerAccess::On;
    DefaultStreamMode defaultStream = DefaultStreamMode::Legacy;
    LaunchMode launch = LaunchMode::Streams; // "launch": each op's own call, or one CUDA graph per repetition
    // Hardware queues (CUDA_DEVICE_MAX_CONNECTIONS, 1..32) the device gives this run's streams; 0 leaves
    // CUDA's default (8). Set before CUDA starts in the process, so a run in a fresh process honours it.
    int maxConnections = 0;
    NcclSettings nccl; // "nccl": the collectives' communicator settings
    IssueOrder issueOrder = IssueOrder::RoundRobin;
    int warmup = 1;
    int repetitions = 5;
    // The longest the run may take (ns), from start to its last repetition; 0: no limit. A run past it is
    // ended (ErrorKind::TimeLimit): a kernel that never ends can only be ended with its process.
    std::int64_t timeLimitNs = 0;
    // Runs measure solo baselines by default (RunOptions::solo; `run --solo` asks for them for any
    // workload): the lesson is about the price of overlap.
    bool solo = false;
    std::vector<BufferSpec> buffers;
    std::vector<StreamSpec> streams;
    // The host threads; empty: one implicit thread driving every stream (every version 1 workload).
    std::vector<ThreadSpec> threads;
    // The host's issue order over all ops, thread by thread: every op of thread 0 in its order, then
    // every op of thread 1, ... Filled by the parser (from issueOrder, each thread's issueOrder or
    // schedule, or directly by a pipeline generator) and always a permutation of every (stream, op).
    std::vector<ScheduledOp> schedule;
    RankOf rankOf; // one rank's part of a workload (rank_part.h); not read from or written to a file

    const BufferSpec *findBuffer(const std::string &name) const;
    int findStream(const std::string &name) const; // -1 if none
    std::size_t opCount() const;
    // Device memory (device + managed buffers) and host memory (pageable/pinned/registered) needed.
    std::uint64_t deviceBytes() const;
    std::uint64_t managedBytes() const;
    std::uint64_t hostBytes() const;

    // What the -1 defaults resolve to: a buffer's, a stream's and a thread's device. `override` (>= 0,
    // the CLI's --device) replaces the workload's own device as the default.
    int bufferDevice(const BufferSpec &buffer, int override = -1) const;
    int streamDevice(int stream, int override = -1) const;
    int threadDevice(int thread, int override = -1) const;
    int threadCount() const { return threads.empty() ? 1 : static_cast<int>(threads.size()); }
    std::string threadName(int thread) const; // "main" for the implicit thread
    // The devices the workload uses (buffers, streams, threads), sorted.
    std::vector<int> usedDevices(int override = -1) const;
    // [begin, end) of each thread's part of `schedule` (threadCount() entries).
    std::vector<std::pair<std::size_t, std::size_t>> threadRanges() const;
    // The GPUs of the collectives' communicator: every device whose streams hold a collective, sorted (its
    // ranks, in order); empty where there is none.
    std::vector<int> collectiveDevices(int override = -1) const;
    // The ranks of the collectives' communicator: collectiveDevices' count, or the whole workload's for one
    // rank's part.
    int communicatorSize(int override = -1) const;
};

// What a wait (cudaStreamWaitEvent) or an event sync (cudaEventSynchronize) waits for: the one record op
// it pairs with, as an index into Workload::schedule (-1: none). In a thread, a wait pairs with the
// latest record of its event issued before it in that thread's order. A wait on an event that another
// thread records pairs by rank: the first such wait in a thread with that thread's first record of the
// event, the second with the second, and so on; waits beyond the records pair with the last one. Every
// other schedule entry gets -1.
std::vector<int> pairEventWaits(const Workload &workload);
// The first wait or event sync (in schedule order) whose record lies in another group than itself, as
// `groupOf` (a Workload::schedule index -> its group) says: its schedule index and its record's; none where
// every one pairs within its group. What cannot run apart (solo parts, ranks) is refused with it.
std::optional<std::pair<std::size_t, std::size_t>> firstWaitAcross(const Workload &workload,
                                                                   const std::function<int(std::size_t)> &groupOf);
// Where an op is, for messages: "stream 'copy0' op 3 (/streams/0/ops/3, line 12)".
std::string opLocation(const StreamSpec &stream, int opInStream);

std::string_view toString(BufferKind kind);
std::string_view toString(OpType type);
std::string_view toString(CopyDirection dir);
std::string_view toString(PeerAccess access);
std::string_view toString(LaunchMode mode);
std::string_view toString(AdviseKind kind);
std::string_view toString(AttachKind kind);
std::string_view toString(GemmDtype dtype);
std::string_view toString(CollectiveType type);
std::string_view toString(CollectiveDtype dtype);
std::string_view toString(ReduceOp op);
MemKind memKindOf(BufferKind kind);
OpKind opKindOf(const OpSpec &op);
// A short display name such as "H2D 16 MiB pinned" or "compute 1 ms", for ops that have none.
std::string describe(const OpSpec &op, const Workload &workload);
// A kernel op's: its type's row says (kernel_types.cpp).
std::string describeKernel(const OpSpec &op);
// Rebuild Workload::schedule from Workload::issueOrder (one thread) or from each thread's issueOrder.
// Threads with an explicit schedule keep their part only when called on a workload whose schedule
// already holds it; buildSchedule itself orders every thread by its issueOrder.
void buildSchedule(Workload &workload);
// One thread's issue order over the given streams, from an issue order.
std::vector<ScheduledOp> scheduleOf(const Workload &workload, const std::vector<int> &streams, IssueOrder order);

} // namespace streamscope::engine
