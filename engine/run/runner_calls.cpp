// The one API call each op makes (see runner_calls.h).
#include "engine/run/runner_calls.h"

#include <cuda_runtime.h>

#include "engine/run/cuda_check.h"
#include "engine/run/runner_gemm.h"
#include "engine/run/runner_nccl.h"
#include "kernels/kernels.cuh"

// cudaMemcpy as a program built with --default-stream per-thread calls it (cuda_runtime_api.h renames
// cudaMemcpy to this under CUDA_API_PER_THREAD_DEFAULT_STREAM; cudart exports both). Declared here so
// that one build honours both DefaultStreamModes at run time.
extern "C" cudaError_t CUDARTAPI cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);

namespace streamscope::engine {

namespace {

cudaMemLocation location(int where)
{
    cudaMemLocation loc{};
    if (where < 0) {
        loc.type = cudaMemLocationTypeHost;
        loc.id = 0;
    } else {
        loc.type = cudaMemLocationTypeDevice;
        loc.id = where;
    }
    return loc;
}

cudaMemoryAdvise adviceOf(AdviseKind kind)
{
    switch (kind) {
    case AdviseKind::SetReadMostly: return cudaMemAdviseSetReadMostly;
    case AdviseKind::UnsetReadMostly: return cudaMemAdviseUnsetReadMostly;
    case AdviseKind::SetPreferredLocation: return cudaMemAdviseSetPreferredLocation;
    case AdviseKind::UnsetPreferredLocation: return cudaMemAdviseUnsetPreferredLocation;
    case AdviseKind::SetAccessedBy: return cudaMemAdviseSetAccessedBy;
    case AdviseKind::UnsetAccessedBy: return cudaMemAdviseUnsetAccessedBy;
    }
    return cudaMemAdviseSetReadMostly;
}

void callCopy(const PlannedOp &plan, const PreparedOp &op, DefaultStreamMode defaultStream)
{
    const OpSpec &spec = *plan.spec;
    const std::string &context = plan.context;
    cudaMemcpyKind kind = cudaMemcpyDefault;
    switch (spec.direction) {
    case CopyDirection::H2D: kind = cudaMemcpyHostToDevice; break;
    case CopyDirection::D2H: kind = cudaMemcpyDeviceToHost; break;
    case CopyDirection::D2D: kind = cudaMemcpyDeviceToDevice; break;
    case CopyDirection::H2H: kind = cudaMemcpyHostToHost; break;
    case CopyDirection::P2P:
        // Direct where peer access is enabled; staged through host memory by the driver where not.
        STREAMSCOPE_CUDA_CHECK(
            context, cudaMemcpyPeerAsync(op.dst, plan.dstDevice, op.src, plan.srcDevice, spec.bytes, op.gpuStream));
        return;
    }
    if (spec.api == CopyApi::Async)
        STREAMSCOPE_CUDA_CHECK(context, cudaMemcpyAsync(op.dst, op.src, spec.bytes, kind, op.gpuStream));
    else if (defaultStream == DefaultStreamMode::PerThread)
        STREAMSCOPE_CUDA_CHECK(context, cudaMemcpy_ptds(op.dst, op.src, spec.bytes, kind));
    else
        STREAMSCOPE_CUDA_CHECK(context, cudaMemcpy(op.dst, op.src, spec.bytes, kind));
}

void callKernel(const PlannedOp &plan, const PreparedOp &op)
{
    const OpSpec &spec = *plan.spec;
    const std::string &context = plan.context;
    switch (spec.kernelType) {
    case KernelType::Compute:
        STREAMSCOPE_CUDA_CHECK(
            context, kernels::launchSpin(op.spinCycles, spec.blocks, spec.threadsPerBlock, op.gpuStream, spec.pdl));
        break;
    case KernelType::Memory:
        STREAMSCOPE_CUDA_CHECK(context, kernels::launchMemory(op.target, plan.bytes, spec.blocks, spec.threadsPerBlock,
                                                              op.gpuStream, spec.pdl));
        break;
    case KernelType::Hang:
        STREAMSCOPE_CUDA_CHECK(context,
                               kernels::launchHang(kHangCapNs, spec.blocks, spec.threadsPerBlock, op.gpuStream));
        break;
    case KernelType::Fault:
        STREAMSCOPE_CUDA_CHECK(context, kernels::launchFault(spec.blocks, spec.threadsPerBlock, op.gpuStream));
        break;
    case KernelType::Gemm: callGemm(*op.gemm, op.gpuStream, context); break;
    case KernelType::Empty:
        STREAMSCOPE_CUDA_CHECK(context, kernels::launchEmpty(spec.blocks, spec.threadsPerBlock, op.gpuStream));
        break;
    case KernelType::Count: break; // not a type
    }
}

} // namespace

void callOp(const PlannedOp &plan, const PreparedOp &op, DefaultStreamMode defaultStream)
{
    const OpSpec &spec = *plan.spec;
    const std::string &context = plan.context;
    switch (spec.type) {
    case OpType::Copy: callCopy(plan, op, defaultStream); break;
    case OpType::Kernel: callKernel(plan, op); break;
    case OpType::Memset:
        STREAMSCOPE_CUDA_CHECK(context, cudaMemsetAsync(op.target, spec.value, plan.bytes, op.gpuStream));
        break;
    case OpType::EventRecord: STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(op.namedEvent, op.gpuStream)); break;
    case OpType::EventWait: STREAMSCOPE_CUDA_CHECK(context, cudaStreamWaitEvent(op.gpuStream, op.namedEvent, 0)); break;
    case OpType::Sync:
        switch (spec.syncTarget) {
        case SyncTarget::Stream: STREAMSCOPE_CUDA_CHECK(context, cudaStreamSynchronize(op.syncStream)); break;
        case SyncTarget::Event: STREAMSCOPE_CUDA_CHECK(context, cudaEventSynchronize(op.namedEvent)); break;
        case SyncTarget::Device: STREAMSCOPE_CUDA_CHECK(context, cudaDeviceSynchronize()); break;
        }
        break;
    case OpType::Prefetch:
        STREAMSCOPE_CUDA_CHECK(context,
                               cudaMemPrefetchAsync(op.target, plan.bytes, location(spec.location), 0, op.gpuStream));
        break;
    case OpType::Advise:
        STREAMSCOPE_CUDA_CHECK(context,
                               cudaMemAdvise(op.target, plan.bytes, adviceOf(spec.advise), location(spec.location)));
        break;
    case OpType::Attach: {
        unsigned flags = cudaMemAttachSingle;
        if (spec.attach == AttachKind::Global)
            flags = cudaMemAttachGlobal;
        else if (spec.attach == AttachKind::Host)
            flags = cudaMemAttachHost;
        // Length 0: the whole allocation, which is what cudaMallocManaged memory requires.
        STREAMSCOPE_CUDA_CHECK(context, cudaStreamAttachMemAsync(op.gpuStream, op.target, 0, flags));
        break;
    }
    case OpType::HostWork: {
        const std::int64_t until = hostNowNs() + spec.hostNs;
        while (hostNowNs() < until) { }
        break;
    }
    case OpType::Collective: callCollective(*op.collective, op.gpuStream, context); break;
    }
}

} // namespace streamscope::engine
