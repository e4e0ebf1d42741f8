// The workload's CUDA objects in a run: its buffers (each on its device), its streams with their
// repetition end events, each planned op's stream, memory and events (PreparedOp, runner_calls.h) and the
// hold flag the hold kernel polls. Made from the plan (run_plan.h) in its order; released in the reverse
// order of their creation (events and streams before the buffers). Private to streamscope_runner.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "engine/run/cuda_raii.h"
#include "engine/run/record_matching.h"
#include "engine/run/run_plan.h"
#include "engine/run/runner_calls.h"
#include "engine/run/runner_gemm.h"
#include "engine/run/runner_nccl.h"

namespace streamscope::engine {

class RunDevices;

class RunObjects {
public:
    // Every buffer of the workload, a device or managed buffer on its device, a host buffer with the
    // primary device current; `primary` is current after.
    void allocateBuffers(const Workload &workload, int override, int primary, bool severalDevices);
    bool hasManaged() const { return m_hasManaged; }
    // Managed buffers start every repetition resident on the host, as a freshly initialised program's
    // data would be, so that each repetition shows the same migrations (`control`: the primary's).
    void resetManagedBuffers(bool concurrentManagedAccess, cudaStream_t control);

    // One stream per workload stream, on its device (the default stream where it asks for it), each
    // described in `infos` with what CUDA gave it, and its repetition end event.
    void createStreams(const Workload &workload, int override, bool nvtx, std::vector<StreamInfo> &infos);
    // A slot for an end event that lives elsewhere (a thread's default stream): its index.
    std::size_t addEndSlot();
    cudaStream_t stream(std::size_t i) const { return m_streams[i].get(); }
    std::size_t streamCount() const { return m_streams.size(); }
    cudaEvent_t streamEnd(std::size_t slot) const { return m_streamEnds[slot].get(); }
    std::size_t endSlots() const { return m_streamEnds.size(); }
    // The legacy or the per-thread default stream, as the workload says.
    cudaStream_t defaultStream() const;
    // Whether an event recorded earlier on `stream` marks the moment its next op starts (see the definition).
    bool canShareEvents(cudaStream_t stream, const std::vector<StreamInfo> &infos, const RunDevices &devices) const;

    // Whether every stream of the run is idle, its control streams and (`withDefault`) the default stream
    // too, or the context is broken so that nothing runs any more; polls until `budgetNs` has passed.
    bool waitIdle(const RunDevices &devices, bool withDefault, std::int64_t budgetNs) const;

    // The plan's ops made into CUDA objects (each op's events on its device; the primary current after), the
    // collectives' communicator first (`workload`'s, `override` the CLI's --device, as the plan was made).
    void prepareOps(const std::vector<PlannedOp> &plan, int primary, const Workload &workload, int override,
                    const std::string &communicatorId = {});
    // The collectives' NCCL and communicator, for the trace's metadata; empty without collectives.
    const std::string &collectivesDescription() const { return m_collectives.description(); }
    PreparedOp &op(std::size_t i) { return m_ops[i]; }
    const PreparedOp &op(std::size_t i) const { return m_ops[i]; }
    // What the stages need of them: where each op's memory lies, the buffers' addresses, each op's stream
    // where it has an end event (null: none).
    std::vector<OpMemory> opMemory() const;
    std::vector<AddressRange> bufferRanges() const;
    std::vector<const void *> endStreams() const;

    // The hold flag: [0] set by the host to release the held streams, [1] set by the kernel on time-out.
    void createHoldFlags();
    volatile int *holdFlags() const { return static_cast<volatile int *>(m_holdFlags.get()); }

    // An abandoned run: the memory is left as it is (cudaFree would wait for the kernel that uses it).
    void leak();

private:
    DefaultStreamMode m_defaultStream = DefaultStreamMode::Legacy;
    bool m_hasManaged = false;
    // Declaration order is release order reversed: events and streams go before the buffers.
    std::map<std::string, cuda::Buffer> m_buffers;
    RunGemms m_gemms; // the GEMMs' operands, workspaces and cuBLAS's choices
    RunCollectives m_collectives; // the collectives' communicator and buffers
    cuda::Buffer m_holdFlags;
    std::vector<cuda::Stream> m_streams;
    std::vector<cuda::Event> m_streamEnds; // one per workload stream, then a slot per default-stream end
    std::vector<PreparedOp> m_ops;
};

} // namespace streamscope::engine
