// The op vocabulary shared by the workload model (what to run) and the trace model (what ran): what an
// operation is, where a copy's bytes live, and which copy API issued it, with their names as files
// write them. Its own header so that engine/workload/ does not depend on the trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace streamscope::engine {

// What an operation is. Copies carry their direction in the kind so that lanes and analysis need
// no second look-up. What the program knows of each kind is its row in kOpKinds (op_kinds.h).
enum class OpKind : std::uint8_t {
    CopyH2D,
    CopyD2H,
    CopyD2D,
    CopyH2H,
    Kernel,
    Memset,
    EventRecord,
    EventWait,
    HostSync, // cudaStreamSynchronize / cudaEventSynchronize / cudaDeviceSynchronize
    Prefetch, // cudaMemPrefetchAsync
    Advise, // cudaMemAdvise
    Attach, // cudaStreamAttachMemAsync
    HostWork, // the CPU kept busy on purpose
    Other, // imported API calls or activities with no better kind (e.g. UVM migrations)
    CopyP2P, // a copy between two GPUs (cudaMemcpyPeerAsync; "PtoP" to CUPTI and Nsight): after Other so
             // that no kind's number moved when it came
    // New kinds go here, at the end (files keep names, but a kind's number must not move), each with its row
    // in kOpKinds.
    Count // not a kind: how many there are, which op_kinds.h checks its table against at compile time
};

// Where the bytes of a copy live, as CUDA sees them.
enum class MemKind : std::uint8_t { None, Pageable, Pinned, Registered, Managed, Device, Unknown };

// Which copy API issued a copy: cudaMemcpy (synchronous) or cudaMemcpyAsync.
enum class CopyApi : std::uint8_t { None, Sync, Async };

std::string_view toString(OpKind kind);
std::string_view toString(MemKind kind);
std::string_view toString(CopyApi api);
std::optional<OpKind> opKindFromString(std::string_view s);
std::optional<MemKind> memKindFromString(std::string_view s);
std::optional<CopyApi> copyApiFromString(std::string_view s);
bool isCopy(OpKind kind); // kOpKinds' copy column
bool isGpuWork(OpKind kind); // copies, kernels, memsets, prefetches: occupy an engine of the GPU (gpuWork column)

} // namespace streamscope::engine
