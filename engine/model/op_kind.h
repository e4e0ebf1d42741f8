// The op kinds, alone: the enum that the op vocabulary (op_vocabulary.h: names, memory kinds, copy APIs)
// and the op-kind table (op_kinds.h: everything known of each kind) both build on, so that neither has to
// include the other.
#pragma once

#include <cstdint>

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
    Collective, // a collective or point-to-point call of a communication library (NCCL: ncclAllReduce, ...)
    // A CUDA graph's execution recorded whole, its nodes not recorded (an Nsight Systems capture taken without
    // --cuda-graph-trace=node): what ran inside it is not known.
    Graph,
    // New kinds go here, at the end (files keep names, but a kind's number must not move), each with its row
    // in kOpKinds.
    Count // not a kind: how many there are, which op_kinds.h checks its table against at compile time
};

} // namespace streamscope::engine
