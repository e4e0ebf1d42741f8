// The runner's CUDA side, shared by its files: an op as prepared for CUDA (its handles beside its
// PlannedOp, run_plan.h), the one API call each op makes, and the host clock every time is read from.
// Private to streamscope_runner (it needs the CUDA runtime's headers, as cuda_check.h does).
#pragma once

#include <chrono>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "engine/run/cuda_raii.h"
#include "engine/run/run_plan.h"

namespace streamscope::engine {

// A hang kernel gives up by itself after this long, so that no GPU stays taken by a process that could
// not be ended; every run with one has a time limit, and a time limit ends the process well before.
inline constexpr std::uint64_t kHangCapNs = 600'000'000'000;

// The host clock (std::chrono::steady_clock, CLOCK_MONOTONIC on Linux: CUPTI's records are put on it too).
inline std::int64_t hostNowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct GemmCall; // runner_gemm.h
struct CollectiveCall; // runner_nccl.h

// The CUDA objects of one op of the plan.
struct PreparedOp {
    cudaStream_t gpuStream = nullptr; // where the op runs (and its events are recorded)
    unsigned char *src = nullptr;
    unsigned char *dst = nullptr;
    unsigned char *target = nullptr; // buffer of a kernel, memset, prefetch, advise, attach
    cudaEvent_t namedEvent = nullptr; // record / wait / event sync
    cudaEvent_t beginUsed = nullptr; // `begin`, or an earlier event on the same stream it shares
    cudaStream_t syncStream = nullptr; // a stream sync's stream
    std::int64_t spinCycles = 0; // a compute kernel's, from its device's calibration
    const GemmCall *gemm = nullptr; // a GEMM's prepared cublasLtMatmul (RunGemms owns it)
    const CollectiveCall *collective = nullptr; // a collective's NCCL call (RunCollectives owns it)
    cuda::Event ownEvent; // a record op's event, on its device (waits use the event of the record they pair with)
    cuda::Event begin, end; // where instrumented
};

// The op's one API call (or host spin), exactly as a program would make it; throws Error{Cuda} naming
// the op where CUDA refuses. The op's device is current.
void callOp(const PlannedOp &plan, const PreparedOp &op, DefaultStreamMode defaultStream);

} // namespace streamscope::engine
