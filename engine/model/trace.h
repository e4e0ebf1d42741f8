// The trace model: what a run (or an imported profile) recorded, as flat arrays.
// Everything here is plain data with no Qt and no CUDA, shared by the runner, the analysis, the
// importers/exporters, the CLI and the GUI. Times are nanoseconds on one host steady-clock axis.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/model/op_vocabulary.h"
#include "engine/model/saturating.h"

namespace streamscope::engine {

// 2: execution timed by CUPTI, with stream-ready, the event end, kernel queued/submitted, the channel
//    and the driver's memory kinds per op, and the trace's timing source. 1 is still read (events only).
// 3: per repetition, the driver's activity records: unified-memory migrations and page faults, and
//    synchronisation waits (ActivityRecord). 1 and 2 are still read (they have none).
// 4: per repetition, host ranges (NVTX, Kineto cpu_op / user_annotation / python_function) and kernel
//    launch details (grid, block, shared memory, registers). 1 to 3 are still read (they have none).
// 5: per op, the devices of a copy's two ends (src_device, dst_device: P2P copies), and in the header the
//    peer links between the devices (peer_links). 1 to 4 are still read.
// 6: kernel launches carry the kernel's arithmetic work (flops, and what the work is: "GEMM 8192x8192x8192
//    bf16"), where the source knows it. 1 to 5 are still read (they have none).
// 7: kernel launches carry a collective's bus bytes (bus_bytes). 1 to 6 are still read.
// 8: per repetition, the pieces of ops that ran as several GPU records (op_pieces: a library call's
//    kernels and copies, OpPiece). 1 to 7 are still read (they have none).
inline constexpr int kTraceFormatVersion = 8;
inline constexpr std::int64_t kNoTime = -1; // an op without a GPU part, or without a host call
inline constexpr std::uint32_t kNoString = 0xFFFFFFFFu; // a string index that names nothing

// The hardware channel that ran an op, as CUPTI reports it (CUpti_ChannelType).
enum class ChannelType : std::uint8_t { Unknown, Compute, AsyncCopy };

// What timed the GPU part of the ops of a trace.
//  - Cupti: execution as the GPU ran it (CUPTI activity records); stream-ready from CUDA events.
//  - Events: a CUDA event pair on the op's own stream: from when the stream reached the op to when it
//    finished, so time spent waiting for a busy copy engine, a shared hardware queue or a full GPU is
//    counted as execution. The fallback where CUPTI cannot be enabled, and every trace of format 1.
//  - Profiler: imported from a profiler's capture (Nsight Systems and Kineto record CUPTI executions).
enum class TimingSource : std::uint8_t { Events, Cupti, Profiler };

// What recorded a trace: StreamScope's own runner, an Nsight Systems SQLite export, or a Chrome/Kineto JSON
// trace of another tool (a Chrome export of StreamScope's own trace keeps the source it had).
enum class TraceSource : std::uint8_t { StreamScope, NsysSqlite, ChromeJson };

// Bit flags on an op (OpRecord::flags holds eight).
enum OpFlag : std::uint8_t {
    OpFlagNone = 0,
    OpFlagHostBlocking = 1u << 0, // the host call lasted at least as long as most of its GPU part
    OpFlagWarmup = 1u << 1,
    OpFlagImported = 1u << 2,
    OpFlagEventTimed = 1u << 3, // a CUPTI-timed trace's op whose record never came: execution from its events
    // A peer copy the driver staged through host memory (no peer access between its GPUs): a copy down to
    // the host and another up, of which CUPTI (and Nsight with it) records only two short fragments that
    // each claim all the bytes. Its execution is the interval the stream spent on it: from the later of
    // its call and stream-ready to its end event.
    OpFlagStagedPeer = 1u << 4,
    // Ran as a node of a CUDA graph (Workload::launch "graph"): its repetition's graph launch issued it, so it
    // has no host call of its own; the launch is a host range of category Launch on its thread.
    OpFlagGraphNode = 1u << 5,
    // A kernel launched with programmatic dependent launch (OpSpec::pdl): it could start before the kernel
    // before it on its stream ended (pdlOverlap in analysis says by how much).
    OpFlagPdl = 1u << 6,
};

std::string_view toString(ChannelType type);
std::string_view toString(TimingSource source);
std::optional<ChannelType> channelTypeFromString(std::string_view s);
std::optional<TimingSource> timingSourceFromString(std::string_view s);
std::string_view toString(TraceSource source); // "streamscope", "nsys-sqlite", "chrome-json"
std::optional<TraceSource> traceSourceFromString(std::string_view s);

// One operation of one repetition. Kept small and flat (96 bytes): a million of them must fit in ~100 MB.
// What only some kinds have lives in the repetition's side tables (a kernel's launch: KernelLaunch).
// Three intervals on one host steady-clock axis:
//  - host call: the API call that issued the op (hostStartNs..hostEndNs);
//  - stream-ready: when the op's stream reached it (readyNs, a CUDA event recorded just before it);
//  - execution: when the GPU ran it (gpuStartNs..gpuEndNs): CUPTI's record where the trace is timed by
//    CUPTI, the event pair otherwise (see TimingSource).
// Queued time, from the later of stream-ready and host-call end to execution start, is the op waiting
// for a copy engine, a hardware queue or room on the GPU: it is drawn apart, never as execution.
struct OpRecord {
    std::int64_t gpuStartNs = kNoTime; // execution (CUPTI, a profiler, or the event pair)
    std::int64_t gpuEndNs = kNoTime;
    std::int64_t hostStartNs = kNoTime; // the API call that issued the op, on the host thread
    std::int64_t hostEndNs = kNoTime;
    std::int64_t readyNs = kNoTime; // stream-ready: the event recorded on the op's stream before it
    std::int64_t eventEndNs = kNoTime; // the event recorded after it: what event timing calls its end
    std::uint64_t bytes = 0;
    std::uint64_t correlation = 0; // ties a host call to its GPU op (CUPTI or an importer); 0 = none
    std::uint32_t nameId = 0; // index into Trace::strings
    std::int32_t stream = -1; // index into Trace::streams, -1 for host-only ops
    std::int32_t hostThread = -1; // index into Trace::hostThreads, -1 when unknown
    std::int32_t opIndex = -1; // position of the op in the workload's issue order
    // The innermost host range (index into Repetition::hostRanges) around the start of its host call, on
    // the same thread: the NVTX range (or Kineto cpu_op) that launched it; -1 = none. Set by
    // layoutHostRanges (host_ranges.h), never stored in a file.
    std::int32_t hostRange = -1;
    std::int16_t channel = -1; // the hardware channel that ran it (CUPTI channelID, 0..32767), -1 unknown
    std::uint8_t flags = OpFlagNone;
    OpKind kind = OpKind::Other;
    MemKind srcMem = MemKind::None; // as the workload declared the buffers
    MemKind dstMem = MemKind::None;
    CopyApi api = CopyApi::None;
    ChannelType channelType = ChannelType::Unknown;
    MemKind driverSrcMem = MemKind::None; // as the driver saw them (CUPTI), None when not recorded
    MemKind driverDstMem = MemKind::None;
    // The devices of a copy's two ends (indexes as in Trace::devices), -1 = not recorded; always set for a
    // P2P copy. The op's own device is its stream's (Trace::streams[stream].device).
    std::int8_t srcDevice = -1;
    std::int8_t dstDevice = -1;

    // A channel id as OpRecord::channel holds it: -1 for one outside 0..32767 (none seen is above 100).
    static constexpr std::int16_t channelOf(std::int64_t id) { return id >= 0 && id <= 32767 ? std::int16_t(id) : -1; }

    bool hasGpu() const { return gpuStartNs != kNoTime && gpuEndNs != kNoTime; }
    bool hasHost() const { return hostStartNs != kNoTime && hostEndNs != kNoTime; }
    std::int64_t gpuDurationNs() const { return hasGpu() ? saturatingSub(gpuEndNs, gpuStartNs) : 0; }
    std::int64_t hostDurationNs() const { return hasHost() ? saturatingSub(hostEndNs, hostStartNs) : 0; }
    // When the op could have started: the later of stream-ready and the end of its host call (kNoTime
    // when neither is known).
    std::int64_t readyToRunNs() const;
    // Execution start minus readyToRunNs(), never negative; 0 when unknown.
    std::int64_t queuedDurationNs() const;
    // The event pair's duration where both events are known (readyNs..eventEndNs), else 0.
    std::int64_t eventDurationNs() const;
    // A copy from or to pageable host memory: the driver stages it through a pinned buffer with the CPU
    // inside the host call, so the transfer spans the host call as well as the DMA that CUPTI times.
    bool stagedThroughHost() const;
    // A peer copy staged through host memory by the driver (OpFlagStagedPeer).
    bool stagedPeer() const { return kind == OpKind::CopyP2P && (flags & OpFlagStagedPeer) != 0; }
    // Whether the execution interval came from the op's CUDA events rather than from the GPU's record
    // (in a CUPTI-timed trace): a record that never came, or a staged peer copy.
    bool executionFromEvents() const { return (flags & (OpFlagEventTimed | OpFlagStagedPeer)) != 0; }
    // The interval the bytes were in flight: execution, or for a staged copy the union of its host call
    // and its execution (what a hand-written loop timed with events around the call measures), from no
    // earlier than stream-ready where the stream reached the op while its call still ran (a stream-ready
    // within 5 µs is an event's latency; the cut ramps up to all of the wait at 10 µs): a staged copy's
    // call first waits for the work before it on its stream (a cudaMemcpy after a kernel holds the host
    // for the kernel), and that wait moves no bytes. An imported op's (OpFlagImported) is its execution:
    // the profiler's record of the DMA, whatever its call waited for.
    std::int64_t transferStartNs() const;
    std::int64_t transferEndNs() const;
    // Achieved bandwidth in GB/s (1e9 bytes per second) over the transfer interval; 0 when undefined.
    double gbPerSecond() const;
};
static_assert(sizeof(OpRecord) == 96, "OpRecord grew: a million of them must stay near 96 MB");

// A driver record that is not an op of its own (CUPTI's unified-memory counters and synchronisation
// records): the traffic and the faults behind managed memory, and how long a synchronisation call
// waited as the driver timed it.
enum class ActivityKind : std::uint8_t {
    MigrationH2D, // managed memory moved to the GPU (value: bytes)
    MigrationD2H, // managed memory moved to the host (value: bytes)
    GpuPageFaults, // a group of GPU page faults, from when the driver took it to the replay (value: faults)
    CpuPageFault, // a CPU page fault on managed memory (an instant)
    Thrashing, // pages bouncing between processors (an instant; value: bytes)
    Throttling, // the driver throttled a processor that thrashed
    RemoteMap, // pages mapped for remote access instead of migrated (an instant; value: bytes)
    Synchronization, // a synchronisation call's wait (detail: which call)
};

// What caused a migration, what access raised a fault, or which call a synchronisation was.
enum class ActivityDetail : std::uint8_t {
    Unknown,
    User, // migrations: an explicit request (cudaMemPrefetchAsync)
    Coherence, // migrations: a page fault needed the data (on-demand migration)
    Speculative, // migrations: the driver moved pages near a fault before they were touched
    Eviction, // migrations: the GPU's memory was full
    AccessCounters, // migrations: the access counters asked for it
    Read, // page faults: the access that faulted
    Write,
    Atomic,
    Prefetch, // page faults: raised by a prefetch
    EventSynchronize, // synchronisation: cudaEventSynchronize
    StreamWaitEvent, // cudaStreamWaitEvent
    StreamSynchronize, // cudaStreamSynchronize
    ContextSynchronize, // cudaDeviceSynchronize
};

struct ActivityRecord {
    std::int64_t startNs = kNoTime;
    std::int64_t endNs = kNoTime; // the start again for an instant
    std::uint64_t value = 0; // bytes, or faults in a fault group (see ActivityKind)
    std::uint64_t address = 0; // the virtual address of the pages (unified memory), 0 when none
    std::int32_t op = -1; // index into the repetition's ops of the op it belongs to, -1 when unknown
    ActivityKind kind = ActivityKind::MigrationH2D;
    ActivityDetail detail = ActivityDetail::Unknown;

    std::int64_t durationNs() const
    {
        return startNs != kNoTime && endNs > startNs ? saturatingSub(endNs, startNs) : 0;
    }
    bool isMigration() const { return kind == ActivityKind::MigrationH2D || kind == ActivityKind::MigrationD2H; }
};

std::string_view toString(ActivityKind kind);
std::string_view toString(ActivityDetail detail);
std::optional<ActivityKind> activityKindFromString(std::string_view s);
std::optional<ActivityDetail> activityDetailFromString(std::string_view s);

// Where a host range came from.
//  - Nvtx: an NVTX push/pop or start/end range (Nsight Systems, StreamScope's own runs);
//  - CpuOp, UserAnnotation, PythonFunction: the PyTorch profiler's (Kineto) events of those categories
//    (an aten operator, a record_function block, a Python call);
//  - Launch: a call that launched a whole repetition's work at once (StreamScope's graph mode: the
//    cudaGraphLaunch of the repetition's graph, whose ops are OpFlagGraphNode).
enum class HostRangeCategory : std::uint8_t { Nvtx, CpuOp, UserAnnotation, PythonFunction, Launch };

std::string_view toString(HostRangeCategory category);
std::optional<HostRangeCategory> hostRangeCategoryFromString(std::string_view s);

// A named interval of host time on one thread, nested with the others of its thread. Ranges are not ops:
// they take no GPU time and are drawn as rows under their thread. 40 bytes.
struct HostRange {
    std::int64_t startNs = kNoTime;
    std::int64_t endNs = kNoTime;
    std::uint32_t nameId = 0; // index into Trace::strings
    std::uint32_t domainId = kNoString; // Trace::strings: the NVTX domain; kNoString = the default domain or none
    std::int32_t hostThread = -1; // index into Trace::hostThreads, -1 when unknown
    std::int32_t depth = 0; // its row under the thread, 0 = outermost (layoutHostRanges sets it)
    HostRangeCategory category = HostRangeCategory::Nvtx;

    std::int64_t durationNs() const { return endNs > startNs ? endNs - startNs : 0; }
};

// How a kernel was launched, where the source recorded it (CUPTI's kernel record, Kineto's kernel args),
// and when the launch was queued and submitted (CUPTI's latency timestamps). Kept apart from OpRecord (a
// side table of the repetition, sorted by op): only kernels have it. The native file keeps the two
// latency timestamps in the op rows and the rest in its kernel_launches rows (hasDetails).
struct KernelLaunch {
    std::int32_t op = -1; // index into Repetition::ops
    std::uint32_t grid[3] = {0, 0, 0}; // blocks per grid, x y z; 0 = not recorded
    std::uint32_t block[3] = {0, 0, 0}; // threads per block, x y z; 0 = not recorded
    std::int32_t registersPerThread = -1; // -1 = not recorded
    std::int64_t sharedBytes = -1; // shared memory per block, static + dynamic; -1 = not recorded
    std::int32_t staticSharedBytes = -1; // -1 where the source gives only the total (Kineto)
    std::int32_t dynamicSharedBytes = -1;
    // Trace::strings: the demangled signature, where the op's name is shorter; for an op that ran several
    // kernels (a cuBLAS GEMM), their names in the order they ran, joined by " + ".
    std::uint32_t fullNameId = kNoString;
    std::uint32_t workId = kNoString; // Trace::strings: what its arithmetic is ("GEMM 8192x8192x8192 bf16")
    std::uint64_t flops = 0; // its floating-point operations (a GEMM's 2mnk); 0 = not known
    // A collective's bus bytes (nccl-tests' "busbw" numerator: its size times 2(n-1)/n for an all-reduce of n
    // ranks, (n-1)/n for an all-gather, reduce-scatter or all-to-all, 1 for a broadcast, send or receive), so
    // that the bus bandwidth compares with the links' peak whatever the collective; 0 = not a collective.
    std::uint64_t busBytes = 0;
    std::int64_t queuedNs = kNoTime; // launch queued / submitted to the GPU (CUPTI latency timestamps)
    std::int64_t submittedNs = kNoTime;

    // Anything recorded besides the latency timestamps.
    bool hasDetails() const;
    bool hasLatency() const { return queuedNs != kNoTime || submittedNs != kNoTime; }
    bool hasGrid() const { return grid[0] != 0 || grid[1] != 0 || grid[2] != 0; }
    bool hasBlock() const { return block[0] != 0 || block[1] != 0 || block[2] != 0; }
    std::uint64_t threads() const;
    // Achieved TFLOP/s over `durationNs` (10^12 operations per second); 0 where either is unknown.
    double teraflopsPerSecond(std::int64_t durationNs) const
    {
        return flops > 0 && durationNs > 0 ? double(flops) / double(durationNs) / 1e3 : 0.0;
    }
    // A collective's bus bandwidth over `durationNs` in GB/s (1e9 bytes per second); 0 where either is unknown.
    double busGbPerSecond(std::int64_t durationNs) const
    {
        return busBytes > 0 && durationNs > 0 ? double(busBytes) / double(durationNs) : 0.0;
    }
};

// What one piece of an op was on the GPU (the CUPTI record it came from).
enum class PieceKind : std::uint8_t { Kernel, Copy, Memset };
std::string_view toString(PieceKind kind);
std::optional<PieceKind> pieceKindFromString(std::string_view s);

// One GPU record of an op that ran as several: a library call's (a cuBLAS GEMM's kernels, an NCCL
// collective's kernel or, on NCCL's copy-engine path, its copies), tied to the op by the call that
// launched it (CUPTI external correlation), never by its name. The op's execution is the span of its
// pieces; the pieces say what ran inside it, and where it waited between them. A side table of the
// repetition (Repetition::opPieces), sorted by op and then start; an op has pieces only where it ran
// as more than one record, or as one that is not the kernel its kind suggests (a copy-engine collective).
// 48 bytes.
struct OpPiece {
    std::int64_t startNs = kNoTime;
    std::int64_t endNs = kNoTime;
    std::uint64_t bytes = 0; // copies and memsets: what the record moved or set
    std::uint32_t nameId = kNoString; // kernels: the kernel's name (Trace::strings); copies: none
    std::int32_t op = -1; // index into Repetition::ops
    std::int32_t channel = -1; // the hardware channel that ran it (CUPTI's id), -1 when not recorded
    std::int16_t srcDevice = -1; // copies: the devices of the two ends, -1 when not recorded
    std::int16_t dstDevice = -1;
    PieceKind kind = PieceKind::Kernel;
    ChannelType channelType = ChannelType::Unknown;

    std::int64_t durationNs() const { return endNs > startNs ? saturatingSub(endNs, startNs) : 0; }
    // GB/s (1e9 bytes per second) of a copy or memset; 0 where it has no bytes or no duration.
    double gbPerSecond() const { return bytes > 0 && durationNs() > 0 ? double(bytes) / double(durationNs()) : 0.0; }
};

static_assert(sizeof(OpPiece) == 48);

struct StreamInfo {
    std::string name;
    int device = 0;
    std::int64_t nativeId = -1; // CUDA stream id as seen by a profiler, or the workload's index
    int priority = 0;
    bool nonBlocking = false;
    bool isDefault = false; // the legacy or per-thread default stream
};

struct HostThreadInfo {
    std::string name;
    std::uint64_t nativeId = 0; // OS thread id
    std::int64_t processId = -1; // OS process id, -1 when unknown (the timeline groups threads by it)
};

struct DeviceInfo {
    int index = 0;
    std::string name;
    int ccMajor = 0;
    int ccMinor = 0;
    int smCount = 0;
    int asyncEngineCount = 0;
    bool concurrentKernels = false;
    bool managedMemory = false;
    bool concurrentManagedAccess = false;
    std::uint64_t totalMemBytes = 0;
    std::uint64_t l2Bytes = 0;
    int smClockKHz = 0;
    int memClockKHz = 0;
    int memBusWidthBits = 0;
    std::string pciBusId;
    int pcieGeneration = 0; // 0 = unknown
    int pcieWidth = 0;
    double linkPeakGBs = 0; // theoretical per-direction host link peak, 0 = unknown
    int priorityLeast = 0;
    int priorityGreatest = 0;
    int driverVersion = 0; // cudaDriverGetVersion, e.g. 13000
    int runtimeVersion = 0; // cudaRuntimeGetVersion
};

// How two GPUs are connected, for copies between them (cudaDeviceGetP2PAttribute, NVML).
enum class LinkType : std::uint8_t { Unknown, SameDevice, Pcie, NvLink };
std::string_view toString(LinkType type);
std::optional<LinkType> linkTypeFromString(std::string_view s);

// One ordered pair of devices (src != dst) and what a copy from src to dst can use.
struct PeerLink {
    int src = 0;
    int dst = 0;
    bool accessSupported = false; // cudaDeviceCanAccessPeer(src -> dst)
    bool accessEnabled = false; // peer access was enabled for the run (cudaDeviceEnablePeerAccess)
    LinkType link = LinkType::Unknown;
    int performanceRank = -1; // cudaDevP2PAttrPerformanceRank, lower is faster; -1 = not recorded
    int nvlinkCount = 0; // NVLinks between the two, 0 for PCIe or unknown
    double peakGBps = 0; // theoretical per-direction peak of the link, 0 = unknown
};

// How GPU time was anchored to host time and how the compute kernel was calibrated.
struct Calibration {
    double smClockHz = 0; // measured clock64 rate used by the spin kernel
    double spinOverheadNs = 0; // an empty spin kernel's duration as the timing source sees it
                               // (CUPTI: its execution; events: launch and kernel, less the event pair)
    double eventPairOverheadNs = 0; // median duration of an empty event pair
    std::int64_t gpuToHostOffsetNs = 0; // host_ns = gpu_event_ns + offset (informational)
};

// One repetition of the workload (warm-ups are not stored).
struct Repetition {
    int index = 0;
    std::vector<OpRecord> ops; // in issue order (imports: sorted by GPU start)
    std::vector<ActivityRecord> activities; // sorted by start; empty where none were recorded
    // Sorted by start, the enclosing one first (layoutHostRanges); empty where none were recorded.
    std::vector<HostRange> hostRanges;
    std::vector<KernelLaunch> kernelLaunches; // sorted by op, at most one per op
    std::vector<OpPiece> opPieces; // sorted by op, then start; empty where no op ran as several records

    // The launch details of op `op`, or nullptr where none were recorded.
    const KernelLaunch *launchOf(int op) const;
    // The pieces of op `op` (OpPiece), in the order they started; empty where it has none.
    std::span<const OpPiece> piecesOf(int op) const;
    // Sets the latency timestamps of `latency` (sorted by op, one per op; only op, queuedNs and
    // submittedNs are read) on the launches of their ops, adding a launch where an op has none, in one
    // merge that keeps kernelLaunches sorted.
    void setKernelLatency(const std::vector<KernelLaunch> &latency);
    // The host range an op was launched in (OpRecord::hostRange), or nullptr.
    const HostRange *enclosingRange(const OpRecord &op) const;
};

// Imports (Nsight Systems, Kineto) know no stream-ready. For a copy staged through the host whose call
// began before the previous op on its stream (issued by the same process, where `threads` say which)
// ended, that end is when the stream reached it: the call waited for it before staging anything. Sets
// readyNs there (only there: a derived stream-ready, exported as ready_ns like a measured one), so that
// the copy's transfer interval and bandwidth leave the wait out. Call once per repetition.
void deriveStagedCopyReadiness(Repetition &rep, const std::vector<HostThreadInfo> &threads = {});

// Solo baselines (`run --solo`, docs/measurement.md "The price of overlap"): each part of a workload (a
// group of its streams; by default each stream is a part) run alone on an otherwise idle device, in rounds
// that alternate with the measured repetitions, so that clock and temperature drift hit both alike.
struct SoloRun {
    int part = 0; // index into SoloBaselines::parts
    int round = 0; // the measured repetition it followed (0-based)
    // Its part's ops as they ran alone, in issue order; OpRecord::opIndex is the op's index in every
    // repetition's ops (the same op in the mix).
    std::vector<OpRecord> ops;
};

struct SoloBaselines {
    std::vector<std::string> parts; // each part's name
    std::vector<std::int32_t> streamPart; // per Trace::streams entry: its part, -1 where none
    std::vector<SoloRun> runs; // in the order they ran
    // Empty when every part ran alone after every measured repetition; otherwise which baselines are
    // missing and why (a run interrupted after some rounds keeps the ones that finished).
    std::string missing;

    bool empty() const { return parts.empty(); }
};

struct Trace {
    int formatVersion = kTraceFormatVersion;
    TraceSource source = TraceSource::StreamScope;
    std::string sourcePath; // where it was read from, when it was read
    std::string title; // workload name or imported file name
    std::string toolVersion;
    std::string hostName;
    std::string createdUtc; // ISO 8601
    std::string workloadJson; // the workload as run (normalised JSON text), may be empty
    std::vector<DeviceInfo> devices;
    // One per ordered pair of devices; empty with one device or where the topology was not recorded.
    std::vector<PeerLink> peerLinks;
    Calibration calibration;
    std::vector<StreamInfo> streams;
    std::vector<HostThreadInfo> hostThreads;
    std::vector<std::string> strings; // op names; OpRecord::nameId indexes here
    std::vector<Repetition> repetitions;
    SoloBaselines solo; // empty unless the run measured them (run --solo)
    std::map<std::string, std::string> metadata; // free-form provenance (importer, schema version, ...)
    TimingSource timing = TimingSource::Events; // what timed the ops' execution
    std::string timingNote; // why: e.g. the CUPTI call and result that forced the fallback to events

    std::uint32_t intern(std::string_view name);
    const std::string &name(const OpRecord &op) const;
    // A string by index; the empty string for kNoString or an index past the end.
    const std::string &string(std::uint32_t id) const;
    // The name of the host range an op was launched in (its NVTX range), empty when none.
    const std::string &rangeName(const Repetition &rep, const OpRecord &op) const;
    std::size_t opCount() const;
    // Earliest and latest time over every op (GPU and host parts) and activity of one repetition.
    std::pair<std::int64_t, std::int64_t> extent(int repetition) const;

private:
    std::unordered_map<std::string, std::uint32_t> m_stringIndex;
    friend void rebuildStringIndex(Trace &trace);
};

// Call after filling Trace::strings directly (readers do) so that intern() finds existing names.
void rebuildStringIndex(Trace &trace);

} // namespace streamscope::engine
