// The runner's set-up plan: what a run of a workload creates before anything is timed, worked out from the
// workload alone so that it is tested without a GPU (runner_cuda.cpp makes it into CUDA objects, in the
// order this plan gives):
//  - the devices: the primary one (thread 0's) and every device the run uses, checked against the host's;
//  - the memory check: what the buffers on each device need against its free memory and the host's;
//  - peer access between the devices used, as the workload's peerAccess says;
//  - the default streams each host thread ends a repetition on;
//  - one PlannedOp per entry of Workload::schedule: its device, thread, stream, memory, events, and the
//    record a wait pairs with. (The order each host thread issues them in: issue_threads.h.)
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/trace.h"
#include "engine/run/host_memory.h"
#include "engine/workload/workload.h"

namespace streamscope::engine {

// Device memory kept free for the CUDA runtime, the kernels' modules and the runner's own events.
inline constexpr std::uint64_t kDeviceReserveBytes = 256ull << 20;

// A name as the runner's messages quote it: 'name'.
std::string quoted(const std::string &name);

// Where an op is (opLocation) and what it is, for messages: "stream 'copy0' op 3 (/streams/0/ops/3, line 12):
// H2D 256 MiB pinned".
std::string opContext(const StreamSpec &stream, int opInStream, const std::string &name);

// Saturating sum of buffer sizes: 4 x 8 EiB must not wrap to 0 B and pass the memory check.
std::uint64_t addBytes(std::uint64_t a, std::uint64_t b);

// "this host has 2 CUDA devices: 0 'H100' (cc 9.0, 80 GiB); 1 ...", for the message of a missing device.
std::string describeDevices(const std::vector<DeviceInfo> &devices);

struct DevicePlan {
    int primary = 0; // thread 0's device: the calibration's, and where the repetition span is timed
    std::vector<int> used; // every device the run uses (Workload::usedDevices), sorted
};

// The run's devices; Error{InvalidInput} where the workload uses one the host does not have, asks a device
// for an fp8 GEMM it cannot run (compute capability below 8.9), or has two threads issue collectives on one
// device (the CLI's --device folding two GPUs onto one).
DevicePlan planDevices(const Workload &workload, int override, const std::vector<DeviceInfo> &devices);

// A GEMM kernel (cuBLAS): its operands and workspace are the runner's, its kernels cuBLAS's (runner_gemm.h).
inline bool isGemm(const OpSpec &op)
{
    return op.type == OpType::Kernel && op.kernelType == KernelType::Gemm;
}

// A collective (NCCL): its buffers are the runner's, its kernels (or copies) NCCL's (runner_nccl.h).
inline bool isCollective(const OpSpec &op)
{
    return op.type == OpType::Collective;
}

// An op whose GPU work a library launches (cuBLAS, NCCL): tied to the op through the driver API calls the
// library makes, its kernels' names and launches recorded as the op's.
inline bool isLibraryOp(const OpSpec &op)
{
    return isGemm(op) || isCollective(op);
}

// What a stream running GEMMs gives cuBLAS as workspace (one per stream: GEMMs that run side by side must
// not share one).
inline constexpr std::uint64_t kGemmWorkspaceBytes = 32ull << 20;

// The device memory the runner allocates itself for the GEMMs of streams on `device`: the operands of each
// shape and dtype (shared by the GEMMs of that shape), and each GEMM stream's cuBLAS workspace, as buffers
// named for the memory check's messages.
std::vector<BufferSpec> gemmBuffers(const Workload &workload, int override, int device);

// The device memory the runner allocates for the collectives of `device`: one send and one receive buffer,
// each of the largest its collectives need (they share them, as nccl-tests' loops do). collectiveBuffers
// names them for the memory check's messages; the runner allocates collectiveBytes, the same figures.
struct CollectiveBytes {
    std::uint64_t send = 0, recv = 0;
};
CollectiveBytes collectiveBytes(const Workload &workload, int override, int device);
std::vector<BufferSpec> collectiveBuffers(const Workload &workload, int override, int device);

// The part of the workload whose memory lives on `device` (its device and managed buffers, the GEMMs'
// operands and workspaces, and the collectives' buffers; the host buffers count once, with the primary device:
// `withHost`), for the memory check.
Workload buffersOn(const Workload &workload, int override, int device, bool withHost);

// What the workload needs against what the device has free (cudaMemGetInfo) and the host has available,
// before anything is allocated: Error{OutOfMemory} naming the largest buffers and the numbers. With `all`
// off (RunOptions::checkMemoryFirst) only managed memory is checked: asking for more managed memory than
// the card has free can hang the GPU, so it is never asked for. `host` is read only where it matters.
void checkMemoryFits(const Workload &workload, const DeviceInfo &device, bool all, std::uint64_t freeBytes,
                     std::uint64_t totalBytes, const std::function<HostMemory()> &host);

// Peer access between every ordered pair of the devices used: enabled (cudaDeviceEnablePeerAccess) where
// the workload's peerAccess is on, else disabled so that the driver stages peer copies through host memory.
struct PeerAccessPlan {
    bool enable = false;
    std::vector<std::pair<int, int>> pairs; // (device, peer), device-major; empty for one device
    std::string metadata; // Trace::metadata["peer_access"]
};

// `canAccess(a, b)` is cudaDeviceCanAccessPeer. Error{InvalidInput} where peer access is on and a pair
// cannot have it.
PeerAccessPlan planPeerAccess(const Workload &workload, const std::vector<int> &devices,
                              const std::function<bool(int, int)> &canAccess);

// Marks the links the run's peer copies use directly: peer access on between two used devices that support it.
void markPeerAccess(std::vector<PeerLink> &links, const Workload &workload, const std::vector<int> &used);

// The devices on which host thread `thread` ends a repetition on its default stream: each device its
// streams are on, in stream order (synchronous copies run there whichever stream lists them); its own
// device where it drives no stream.
std::vector<int> defaultStreamDevices(const Workload &workload, int thread, int override);

// What the runner prepares for one op of Workload::schedule, before any CUDA object exists.
struct PlannedOp {
    const OpSpec *spec = nullptr;
    int stream = 0; // workload stream index
    int opInStream = 0;
    int device = 0; // its stream's device: current while it is issued, and where its events are
    int thread = 0; // the workload thread that issues it
    int srcDevice = -1, dstDevice = -1; // a peer copy's two ends
    bool stagedPeer = false; // a peer copy without peer access: the driver stages it through host memory
    // A wait or an event sync: the record op (index into the plan) it waits for, -1 none; crossThread
    // when another thread issues that record (the waiting thread holds until it has).
    int pairedRecord = -1;
    bool crossThread = false;
    std::string context; // "stream 'copy0' op 3 (/streams/0/ops/3): H2D 256 MiB pinned"
    std::string name; // display name, as Trace::strings holds it
    std::uint32_t nameId = 0;
    OpKind kind = OpKind::Other;
    MemKind srcMem = MemKind::None, dstMem = MemKind::None;
    std::uint64_t bytes = 0;
    // A library kernel's arithmetic (a cuBLAS GEMM's 2mnk) and what it is (Trace::strings, "GEMM 8192x8192x8192
    // bf16"); 0 and kNoString for every other op. Its launches are recorded (KernelLaunch) with these.
    std::uint64_t flops = 0;
    std::uint32_t workId = kNoString;
    // A collective's bus bytes (KernelLaunch::busBytes), its communicator's size, and its rank in it; the
    // root or peer as a rank (-1 none). workId says what it is ("ncclAllReduce 256 MiB bf16 over 2 GPUs").
    std::uint64_t busBytes = 0;
    int ranks = 0;
    int rank = -1;
    int peerRank = -1;
    bool library() const { return flops > 0 || busBytes > 0; }
    bool hostOnly = false; // sync, host work, advise: no GPU part, no events
    bool instrumented = false; // a begin and an end event (RunOptions::instrument, ops with a GPU part)
    bool onDefaultStream = false; // cudaMemcpy runs on the default stream whatever stream lists it
    int syncStream = -1; // a stream sync: the stream it waits for
    // The memory it touches, as buffer and offset: a copy's two ends, or the buffer of a kernel on
    // memory, a memset, prefetch, advise or attach (null: none).
    const BufferSpec *srcBuffer = nullptr, *dstBuffer = nullptr, *targetBuffer = nullptr;
    std::uint64_t srcOffset = 0, dstOffset = 0, targetOffset = 0;
};

struct OpPlanOptions {
    int override = -1; // RunOptions::device
    bool instrument = true; // RunOptions::instrument
    // Ops are timed by their CUDA events (no CUPTI): a kernel launched with PDL keeps its events, and with them
    // the event records that stand between it and the kernel before it and stop it from starting early.
    // Otherwise a PDL kernel and the op before it on its stream go without (CUPTI times them).
    bool timedByEvents = false;
    std::int64_t timeLimitNs = 0; // the run's time limit (<= 0 none): a hang kernel needs one
};

// The record of op `index` of the plan as its host thread issues it: what the plan knows (name, kind,
// memory, bytes, peer devices, stream, thread); the times come later.
OpRecord issuedRecord(const PlannedOp &op, std::size_t index, int hostThread);

// The trace's "pdl" metadata where kernels were launched with programmatic dependent launch, empty where none
// was: how many, how they were timed, and where PDL could not act (timed by events, or a GPU before compute
// capability 9.0, whose index and capability `devices` gives).
std::string describePdl(const std::vector<PlannedOp> &ops, bool timedByEvents, const std::vector<DeviceInfo> &devices);

// One PlannedOp per schedule entry, names interned into `trace` in schedule order. `links` are the run's
// peer links (markPeerAccess). Error{InvalidInput} naming the op where the workload cannot run as written.
std::vector<PlannedOp> planOps(const Workload &workload, const std::vector<PeerLink> &links,
                               const OpPlanOptions &options, Trace &trace);

} // namespace streamscope::engine
