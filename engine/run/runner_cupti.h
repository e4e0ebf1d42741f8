// CUPTI activity tracing for the runner: what the GPU did, as it did it. Kernels (concurrent kernel
// records, with queued/submitted timestamps where the driver gives them), memcpy, peer memcpy, memset
// and synchronisation records, each tied to the workload op instance that issued it through CUPTI's
// external correlation: the runner pushes an id around each op's API call, CUPTI pairs the id with the
// call's correlation id, and every record carries that correlation id. Nothing is matched by order.
// Unified-memory records (migrations, page faults), which no API call owns, come too where asked for;
// the runner ties them to ops by address and time. Where the CUPTI library can, every cudaEventRecord
// comes back with the moment the GPU reached it: the runner's stream-ready and end events then sit on
// CUPTI's clock exactly, instead of through an anchor.
//
// Timestamps come out on the runner's clock: a timestamp callback hands CUPTI the host steady clock
// (CLOCK_MONOTONIC, as std::chrono::steady_clock on Linux), and CUPTI maps the GPU's timestamps onto
// it. Part of the runner library (it needs the CUDA toolkit); the engine never sees CUPTI's types.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/model/trace.h"

namespace streamscope::engine::cupti {

// One GPU activity record, reduced to what the trace keeps.
struct GpuRecord {
    // UnifiedMemory: a unified-memory counter record (migration, page-fault group, ...), which CUDA
    // ties to no API call: the runner finds its op by address and time. Synchronization: a
    // synchronisation call's wait, tied to its call like the others.
    // Event: a cudaEventRecord as the GPU reached it (CUPTI_ACTIVITY_KIND_CUDA_EVENT with device
    // timestamps): startNs == endNs is the moment, on the same clock as every other record.
    enum class Kind : std::uint8_t { Kernel, Memcpy, Memset, UnifiedMemory, Synchronization, Event };
    Kind kind = Kind::Kernel;
    std::uint64_t externalId = 0; // the op instance the runner pushed; 0 when none (the runner's own work)
    std::uint32_t correlationId = 0;
    std::int64_t startNs = kNoTime;
    std::int64_t endNs = kNoTime;
    std::int64_t queuedNs = kNoTime; // kernels, where latency timestamps are on
    std::int64_t submittedNs = kNoTime;
    std::uint64_t bytes = 0;
    std::int32_t channel = -1;
    ChannelType channelType = ChannelType::Unknown;
    MemKind srcKind = MemKind::None; // memcpy: as the driver saw the memory
    MemKind dstKind = MemKind::None;
    std::uint32_t streamId = 0; // CUPTI's stream id (cudaStreamGetId)
    std::int32_t deviceId = -1; // the device that ran it (CUDA's device index)
    std::int32_t srcDeviceId = -1; // peer copies (CUPTI_ACTIVITY_KIND_MEMCPY2): the two ends
    std::int32_t dstDeviceId = -1;
    // Kernels, memcpys and memsets a graph launch ran: CUPTI's id of the graph node (of the instantiated
    // graph) that ran it; 0 for work issued on a stream. Such records all carry the launch's correlation.
    std::uint64_t graphNodeId = 0;
    ActivityKind activity = ActivityKind::MigrationH2D; // UnifiedMemory, Synchronization
    ActivityDetail detail = ActivityDetail::Unknown;
    std::uint64_t value = 0; // unified memory: bytes, or faults in a fault group
    std::uint64_t address = 0; // unified memory: the pages' virtual address
    // Kernels: the kernel's name (kept by the tracer for the process's life) and its launch.
    const char *name = nullptr;
    std::uint32_t grid[3] = {0, 0, 0};
    std::uint32_t block[3] = {0, 0, 0};
    std::int32_t registersPerThread = -1;
    std::int32_t staticSharedBytes = -1;
    std::int32_t dynamicSharedBytes = -1;
};

// What one flush delivered.
struct Batch {
    std::vector<GpuRecord> records; // external ids resolved
    std::uint64_t dropped = 0; // records CUPTI dropped since the previous flush
    std::uint64_t incomplete = 0; // unified-memory records that came without a start time (left out)
};

// A tracing session: enables the activity kinds on construction and disables them on destruction.
// Create it before the CUDA context, so that the latency timestamps can be switched on. One at a time
// per process (CUPTI's activity buffers are process-wide).
class Tracer {
public:
    // Starts tracing, or returns null with `whyNot` naming the CUPTI call and its result (another
    // profiler such as Nsight Systems holds CUPTI, the library is too old for the driver, ...).
    // `kernelLatency`: ask for kernels' queued/submitted timestamps too (RunOptions::kernelLatency says
    // what they cost and why a run asks for them by default).
    static std::unique_ptr<Tracer> start(std::string &whyNot, bool kernelLatency = false);
    ~Tracer();
    Tracer(const Tracer &) = delete;
    Tracer &operator=(const Tracer &) = delete;

    // Around one op's API call: everything CUDA records for that call carries `externalId`.
    // Return false when CUPTI refused (the caller falls back to events and says so).
    bool push(std::uint64_t externalId, std::string &whyNot);
    bool pop(std::string &whyNot);

    // Flushes records (call after the GPU is idle) and appends them to `out` with their external ids,
    // adding to its counts (so several flushes gather into one batch). `forced`
    // takes every buffer, also those still holding records CUPTI has not completed (they come out
    // incomplete); otherwise only buffers whose records are all complete. False, with `whyNot`, when
    // the flush failed.
    bool flush(Batch &out, std::string &whyNot, bool forced = true);

    // Unified-memory records (migrations, GPU and CPU page faults, thrashing, throttling, remote maps)
    // for `device`: call after CUDA started (CUPTI configures the counters through the driver), only
    // for work that has managed memory (they cost little, but nothing where there is none to migrate).
    // False with `whyNot` where the platform or device cannot count them; the tracer goes on without.
    bool enableUnifiedMemory(int device, std::string &whyNot);

    // Driver API records, for their external correlation alone: a library (cuBLAS) launches its kernels
    // through the driver API, and only the driver call's correlation ties such a kernel to the op whose
    // call launched it. Only for runs with library ops: every runtime call makes driver calls too.
    bool enableDriverCalls(std::string &whyNot);

    // Graph mode (Workload::launch "graph"): ties the nodes of the graphs the runner captures to its ops. Every
    // graph node created while an op is set (setCaptureOp) belongs to that op, and every node cloned from one
    // (cudaGraphInstantiate clones them, and CUPTI's records name the clone) to the same op, through CUPTI's
    // resource callbacks. False with `whyNot` where they cannot be had.
    bool trackGraphNodes(std::string &whyNot);
    void setCaptureOp(int op); // -1: none (nodes created now are nobody's)
    // CUPTI's id of each node tracked so far -> its op.
    std::unordered_map<std::uint64_t, std::int32_t> graphNodeOps() const;

    bool latencyTimestamps() const { return m_latency; }
    // Whether CUDA event records come with their device timestamps (cuptiActivityEnableCudaEventDeviceTimestamps):
    // then a recorded event's moment is CUPTI's, on the same clock as execution, and no anchor is needed.
    bool eventTimestamps() const { return m_eventTimestamps; }
    bool unifiedMemory() const { return m_unifiedMemory; }
    std::string description() const; // the CUPTI version and what is collected, for the trace

private:
    Tracer() = default;
    bool m_latency = false;
    bool m_eventTimestamps = false;
    bool m_unifiedMemory = false;
    bool m_graphNodes = false;
    std::uint32_t m_version = 0;
};

} // namespace streamscope::engine::cupti
