// GEMM kernels (KernelType::Gemm) through cuBLASLt: one cublasLtMatmul per op, on the op's stream, as a
// program that multiplies matrices with cuBLAS makes it. cuBLASLt is loaded (dlopen) when a run first
// prepares a GEMM, so that the app and every run without one never load its 500 MB, and a machine without
// it runs everything else; a GEMM run there ends with a message naming the library.
//
// The runner owns the operands: per device, one A, B and C for each shape and dtype (the GEMMs of one shape
// share them, as a model's layers share their weights' shapes), filled once with random values, and one
// workspace per stream (kGemmWorkspaceBytes, run_plan.h: GEMMs that run side by side never share one).
// cuBLAS's heuristic chooses the algorithm once per shape, stream and device, before the run, as
// PyTorch's and nccl-tests' loops do; the kernels it chose are named by CUPTI's records (KernelLaunch).
// Layout: A is stored transposed ("TN", column-major, k leading): the one layout cuBLASLt runs fp8 in, used
// for every dtype so that dtypes compare like for like.
// Private to streamscope_runner.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include <cuda_runtime_api.h>

#include "engine/run/cuda_raii.h"
#include "engine/run/run_plan.h"

namespace streamscope::engine {

struct GemmCall; // a prepared cublasLtMatmul: descriptors, algorithm, operands and workspace

class RunGemms {
public:
    RunGemms();
    ~RunGemms();
    RunGemms(const RunGemms &) = delete;
    RunGemms &operator=(const RunGemms &) = delete;

    // The call of GEMM op `plan` on `stream` (its device is current): made on the first op of its shape
    // and stream, shared by the rest. Throws Error{Cuda} (cuBLASLt missing or refusing, naming the op),
    // or Error{OutOfMemory}.
    const GemmCall *prepare(const PlannedOp &plan, cudaStream_t stream);
    // An abandoned run: the memory is left as it is (see RunObjects::leak).
    void leak();

private:
    friend struct GemmCall;
    friend void callGemm(const GemmCall &call, cudaStream_t stream, const std::string &context);
    struct Shape; // a shape's operands and layouts on one device
    using ShapeKey = std::tuple<int, std::int32_t, std::int32_t, std::int32_t, GemmDtype>; // device, m, n, k, dtype
    using CallKey = std::tuple<ShapeKey, cudaStream_t>;

    Shape &shape(const PlannedOp &plan);
    void *workspace(cudaStream_t stream, const std::string &context);

    std::map<int, void *> m_handles; // per device: its cublasLtHandle_t
    std::map<ShapeKey, std::unique_ptr<Shape>> m_shapes;
    std::map<cudaStream_t, cuda::Buffer> m_workspaces;
    std::map<CallKey, std::unique_ptr<GemmCall>> m_calls;
};

// The op's cublasLtMatmul on `stream`; throws Error{Cuda} naming `context` where cuBLAS refuses.
void callGemm(const GemmCall &call, cudaStream_t stream, const std::string &context);

} // namespace streamscope::engine
