// describeOp(): what the program says about one op, decided once for every front that shows it (the
// timeline's tooltip, the details panel, `streamscope-cli describe`): what kind it is in words, its
// intervals on the repetition's axis, what timed its execution, why it waited, its bytes and memory, the
// call that issued it, the range it was launched in. The fronts lay the facts out; they decide none.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/model/trace.h"

namespace streamscope::engine {

// An interval from the repetition's origin (Trace::extent's first), as every front draws time.
struct OpInterval {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::int64_t durationNs = 0;
};

struct OpDescription {
    std::string name;
    std::string_view kind; // for people, kOpKinds' label: "P2P copy", "host sync"
    bool copy = false;
    const StreamInfo *stream = nullptr; // nullptr for a host-only op
    int workloadIndex = -1; // its position in the workload's issue order (OpRecord::opIndex), -1 = none
    std::optional<OpInterval> host; // the host call
    bool hostBlocking = false; // isHostBlocking()
    std::optional<OpInterval> gpu; // execution
    // Execution as the GPU recorded it (CUPTI): what the fronts call "executed"; otherwise they say "GPU".
    bool cupti = false;
    std::string timedBy; // "CUPTI", the profiler that recorded an imported trace, or "CUDA events"
    std::optional<std::int64_t> streamReadyNs; // the CUDA event before it, beside a CUPTI execution only
    // Why it waited between ready and running (explainQueued), empty where nothing explains it or it was not
    // timed by CUPTI; queuedNs is that wait.
    std::string queueCause;
    std::int64_t queuedNs = 0;
    std::uint64_t bytes = 0;
    double gbs = 0; // achieved bandwidth over its transfer interval, 0 where undefined
    // Where its bytes live as the workload declared them (toString(MemKind)); both empty when neither is known.
    std::string_view srcMem, dstMem;
    std::string_view copyCall; // the call that issued a copy (apiNameOf: "cudaMemcpyPeerAsync"), empty if not recorded
    const HostRange *range = nullptr; // the innermost host range it was launched in
    const KernelLaunch *launch = nullptr; // a kernel's grid, block and resources, where recorded
    // A kernel's arithmetic (KernelLaunch::flops) and its rate over the execution, 0 where not known.
    double teraflops = 0; // TFLOP/s
    // The same arithmetic over the time its kernel pieces ran (their union), where it ran as pieces and its
    // kernels took less than the whole op (a GEMM whose kernel started late after cuBLAS's memset); 0 otherwise.
    double kernelTeraflops = 0;
    // A collective's bus bandwidth (KernelLaunch::busBytes over the execution; nccl-tests' busbw) in GB/s, 0
    // where not known; its algorithm bandwidth (nccl-tests' algbw) is `gbs`, its size over the execution.
    double busGbs = 0;
    // The records the op ran as, where it ran as several (OpPiece: a GEMM's kernels, a collective's kernels or
    // copies), in the order they started; piecesSummary says what they were in words ("2 copies on copy
    // engines, no kernel; busy 3.1 ms of its 3.25 ms"), empty where it has none.
    std::span<const OpPiece> pieces;
    std::string piecesSummary;
    std::int64_t piecesOriginNs = kNoTime; // the op's execution start on the trace's clock, where pieces count from
    // A kernel launched with programmatic dependent launch (OpFlagPdl): how its start met the end of the op
    // before it on its stream (pdlOverlap), in a sentence; empty for any other op.
    std::string pdl;
};

// How a kernel launched with PDL met the op before it on its stream: `overlapNs` > 0 it started that long before
// that op ended (its launch overlapped it; it then waited in cudaGridDependencySynchronize), <= 0 it started
// -overlapNs after. `before` is that op's index in the repetition, -1 where it has none (nothing to overlap)
// or either has no execution.
struct PdlOverlap {
    int before = -1;
    std::int64_t overlapNs = 0;
};
PdlOverlap pdlOverlap(const Repetition &rep, int opIndex);

// "2 copies on copy engines, no kernel; busy 3.10 ms of its 3.25 ms": what an op's pieces were, and how much
// of its execution they covered (the rest is the op waiting between them); empty for no pieces.
std::string summarisePieces(std::span<const OpPiece> pieces, std::int64_t opDurationNs);

// "copy 1 GiB, GPU 0 -> GPU 1, async_copy channel 3, 312 GB/s" / "kernel ncclDevKernel_AllGather (1.2 ms)":
// one piece for people (its times are the fronts' to lay out).
std::string describePiece(const Trace &trace, const OpPiece &piece);

// "1.10 TFLOP" / "537 GFLOP": a count of floating-point operations for people.
std::string formatFlops(std::uint64_t flops);

// Throws Error{InvalidInput} for a repetition or op that does not exist. The pointers point into the trace.
OpDescription describeOp(const Trace &trace, int repetition, int opIndex);

// The description as plain text, one "key: value" line per fact (the CLI's).
std::string formatOpDescription(const Trace &trace, const OpDescription &d);

} // namespace streamscope::engine
