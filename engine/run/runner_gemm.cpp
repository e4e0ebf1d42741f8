// GEMM kernels through cuBLASLt (see runner_gemm.h).
#include "engine/run/runner_gemm.h"

#include <dlfcn.h>

#include <mutex>

#include <cublasLt.h>

#include "engine/model/errors.h"
#include "engine/run/cuda_check.h"
#include "kernels/kernels.cuh"

namespace streamscope::engine {

namespace {

// cuBLASLt's entry points, from the library loaded at first use.
struct CublasLt {
    decltype(&::cublasLtCreate) create = nullptr;
    decltype(&::cublasLtDestroy) destroy = nullptr;
    decltype(&::cublasLtMatmulDescCreate) descCreate = nullptr;
    decltype(&::cublasLtMatmulDescDestroy) descDestroy = nullptr;
    decltype(&::cublasLtMatmulDescSetAttribute) descSet = nullptr;
    decltype(&::cublasLtMatrixLayoutCreate) layoutCreate = nullptr;
    decltype(&::cublasLtMatrixLayoutDestroy) layoutDestroy = nullptr;
    decltype(&::cublasLtMatmulPreferenceCreate) prefCreate = nullptr;
    decltype(&::cublasLtMatmulPreferenceDestroy) prefDestroy = nullptr;
    decltype(&::cublasLtMatmulPreferenceSetAttribute) prefSet = nullptr;
    decltype(&::cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
    decltype(&::cublasLtMatmul) matmul = nullptr;
    decltype(&::cublasLtGetStatusName) statusName = nullptr;
    std::string error; // why it could not be loaded; empty when it was
};

template <typename F> bool resolve(void *library, const char *symbol, F &function, std::string &error)
{
    function = reinterpret_cast<F>(dlsym(library, symbol));
    if (!function && error.empty())
        error = std::string("cuBLASLt has no ") + symbol;
    return function != nullptr;
}

const CublasLt &cublasLt()
{
    static CublasLt lt;
    static std::once_flag once;
    std::call_once(once, [] {
        // The toolkit's major version first (the ABI this file was compiled against), then the unversioned name.
        const std::string versioned = "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR);
        void *library = dlopen(versioned.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library)
            library = dlopen("libcublasLt.so", RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char *why = dlerror();
            lt.error = "GEMM kernels need cuBLASLt (" + versioned + ", part of the CUDA toolkit and of NVIDIA's "
                       + "libcublas packages), which could not be loaded: " + (why ? why : "not found");
            return;
        }
        std::string &e = lt.error;
        resolve(library, "cublasLtCreate", lt.create, e);
        resolve(library, "cublasLtDestroy", lt.destroy, e);
        resolve(library, "cublasLtMatmulDescCreate", lt.descCreate, e);
        resolve(library, "cublasLtMatmulDescDestroy", lt.descDestroy, e);
        resolve(library, "cublasLtMatmulDescSetAttribute", lt.descSet, e);
        resolve(library, "cublasLtMatrixLayoutCreate", lt.layoutCreate, e);
        resolve(library, "cublasLtMatrixLayoutDestroy", lt.layoutDestroy, e);
        resolve(library, "cublasLtMatmulPreferenceCreate", lt.prefCreate, e);
        resolve(library, "cublasLtMatmulPreferenceDestroy", lt.prefDestroy, e);
        resolve(library, "cublasLtMatmulPreferenceSetAttribute", lt.prefSet, e);
        resolve(library, "cublasLtMatmulAlgoGetHeuristic", lt.heuristic, e);
        resolve(library, "cublasLtMatmul", lt.matmul, e);
        resolve(library, "cublasLtGetStatusName", lt.statusName, e);
    });
    return lt;
}

const CublasLt &loaded(const std::string &context)
{
    const CublasLt &lt = cublasLt();
    if (!lt.error.empty())
        throw Error(ErrorKind::Cuda, context + ": " + lt.error);
    return lt;
}

void check(const CublasLt &lt, cublasStatus_t status, const std::string &context, const char *call)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return;
    const char *name = lt.statusName ? lt.statusName(status) : nullptr;
    throw Error(ErrorKind::Cuda,
                context + ": " + call + ": " + (name ? name : "cuBLAS status " + std::to_string(status)));
}

// How cuBLASLt multiplies each dtype: the operands' type, the output's, and the compute type.
struct Types {
    cudaDataType_t in = CUDA_R_32F;
    cudaDataType_t out = CUDA_R_32F;
    cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    kernels::FillType fillIn = kernels::FillType::Fp32;
};

Types typesOf(GemmDtype dtype)
{
    switch (dtype) {
    case GemmDtype::Fp32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, kernels::FillType::Fp32};
    case GemmDtype::Tf32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, kernels::FillType::Fp32};
    case GemmDtype::Fp16: return {CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, kernels::FillType::Fp16};
    case GemmDtype::Bf16: return {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, kernels::FillType::Bf16};
    case GemmDtype::Fp8: return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, kernels::FillType::Fp8E4M3};
    }
    return {};
}

} // namespace

struct RunGemms::Shape {
    const CublasLt *lt = nullptr;
    GemmShape gemm;
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
    cuda::Buffer aData, bData, cData;

    ~Shape()
    {
        if (!lt)
            return;
        for (cublasLtMatrixLayout_t layout : {a, b, c})
            if (layout)
                lt->layoutDestroy(layout);
        if (desc)
            lt->descDestroy(desc);
    }
};

// A shape's descriptors and operands (its Shape, which RunGemms keeps as long as the call), on one stream.
struct GemmCall {
    const RunGemms::Shape *shape = nullptr;
    cublasLtHandle_t handle = nullptr;
    void *workspace = nullptr;
    cublasLtMatmulAlgo_t algo{};
};

RunGemms::RunGemms() = default;

RunGemms::~RunGemms()
{
    m_calls.clear();
    m_shapes.clear(); // descriptors, then the operands
    if (m_handles.empty())
        return; // cuBLASLt was never needed (and is not loaded now)
    const CublasLt &lt = cublasLt();
    for (const auto &[device, handle] : m_handles)
        if (handle)
            lt.destroy(static_cast<cublasLtHandle_t>(handle));
}

void RunGemms::leak()
{
    for (auto &[key, shape] : m_shapes) {
        shape->aData.leak();
        shape->bData.leak();
        shape->cData.leak();
    }
    for (auto &[stream, buffer] : m_workspaces)
        buffer.leak();
}

RunGemms::Shape &RunGemms::shape(const PlannedOp &plan)
{
    const GemmShape &g = plan.spec->gemm;
    const ShapeKey key{plan.device, g.m, g.n, g.k, g.dtype};
    if (const auto it = m_shapes.find(key); it != m_shapes.end())
        return *it->second;
    const CublasLt &lt = loaded(plan.context);
    const Types types = typesOf(g.dtype);
    auto s = std::make_unique<Shape>();
    s->lt = &lt;
    s->gemm = g;
    check(lt, lt.descCreate(&s->desc, types.compute, CUDA_R_32F), plan.context, "cublasLtMatmulDescCreate");
    const cublasOperation_t transposed = CUBLAS_OP_T, plain = CUBLAS_OP_N;
    check(lt, lt.descSet(s->desc, CUBLASLT_MATMUL_DESC_TRANSA, &transposed, sizeof transposed), plan.context,
          "cublasLtMatmulDescSetAttribute(TRANSA)");
    check(lt, lt.descSet(s->desc, CUBLASLT_MATMUL_DESC_TRANSB, &plain, sizeof plain), plan.context,
          "cublasLtMatmulDescSetAttribute(TRANSB)");
    const auto m = std::uint64_t(g.m), n = std::uint64_t(g.n), k = std::uint64_t(g.k);
    check(lt, lt.layoutCreate(&s->a, types.in, k, m, std::int64_t(k)), plan.context, "cublasLtMatrixLayoutCreate(A)");
    check(lt, lt.layoutCreate(&s->b, types.in, k, n, std::int64_t(k)), plan.context, "cublasLtMatrixLayoutCreate(B)");
    check(lt, lt.layoutCreate(&s->c, types.out, m, n, std::int64_t(m)), plan.context, "cublasLtMatrixLayoutCreate(C)");
    const std::uint64_t in = elementBytes(g.dtype, false), out = elementBytes(g.dtype, true);
    const std::string what = plan.context + ": GEMM operand ";
    s->aData = cuda::Buffer(BufferKind::Device, m * k * in, what + "A");
    s->bData = cuda::Buffer(BufferKind::Device, k * n * in, what + "B");
    s->cData = cuda::Buffer(BufferKind::Device, m * n * out, what + "C");
    // Random operands, once: the fill runs on the legacy default stream, which every later op waits for.
    STREAMSCOPE_CUDA_CHECK(what + "A", kernels::launchFillRandom(s->aData.get(), m * k, types.fillIn, 1, nullptr));
    STREAMSCOPE_CUDA_CHECK(what + "B", kernels::launchFillRandom(s->bData.get(), k * n, types.fillIn, 2, nullptr));
    STREAMSCOPE_CUDA_CHECK(what + "C", cudaMemset(s->cData.get(), 0, m * n * out));
    STREAMSCOPE_CUDA_CHECK(what + "fill", cudaDeviceSynchronize());
    return *m_shapes.emplace(key, std::move(s)).first->second;
}

void *RunGemms::workspace(cudaStream_t stream, const std::string &context)
{
    auto it = m_workspaces.find(stream);
    if (it == m_workspaces.end())
        it = m_workspaces
                 .emplace(stream, cuda::Buffer(BufferKind::Device, kGemmWorkspaceBytes, context + ": cuBLAS workspace"))
                 .first;
    return it->second.get();
}

const GemmCall *RunGemms::prepare(const PlannedOp &plan, cudaStream_t stream)
{
    const GemmShape &g = plan.spec->gemm;
    const CallKey key{ShapeKey{plan.device, g.m, g.n, g.k, g.dtype}, stream};
    if (const auto it = m_calls.find(key); it != m_calls.end())
        return it->second.get();
    const CublasLt &lt = loaded(plan.context);
    void *&handle = m_handles[plan.device];
    if (!handle) {
        cublasLtHandle_t h = nullptr;
        check(lt, lt.create(&h), plan.context, "cublasLtCreate");
        handle = h;
    }
    Shape &s = shape(plan);
    auto call = std::make_unique<GemmCall>();
    call->shape = &s;
    call->handle = static_cast<cublasLtHandle_t>(handle);
    call->workspace = workspace(stream, plan.context);

    cublasLtMatmulPreference_t preference = nullptr;
    check(lt, lt.prefCreate(&preference), plan.context, "cublasLtMatmulPreferenceCreate");
    const std::uint64_t workspaceBytes = kGemmWorkspaceBytes;
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    cublasStatus_t status =
        lt.prefSet(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes, sizeof workspaceBytes);
    if (status == CUBLAS_STATUS_SUCCESS)
        status = lt.heuristic(call->handle, s.desc, s.a, s.b, s.c, s.c, preference, 1, &result, &found);
    lt.prefDestroy(preference);
    check(lt, status, plan.context, "cublasLtMatmulAlgoGetHeuristic");
    if (found == 0)
        throw Error(ErrorKind::Cuda, plan.context + ": cuBLASLt has no algorithm for this GEMM on device "
                                         + std::to_string(plan.device));
    call->algo = result.algo;
    // One call now, so that loading cuBLAS's kernels into the context (lazily, on first use) is never measured.
    callGemm(*call, stream, plan.context);
    STREAMSCOPE_CUDA_CHECK(plan.context + ": the first GEMM", cudaStreamSynchronize(stream));
    return m_calls.emplace(key, std::move(call)).first->second.get();
}

void callGemm(const GemmCall &call, cudaStream_t stream, const std::string &context)
{
    static constexpr float kAlpha = 1.0f, kBeta = 0.0f;
    const RunGemms::Shape &s = *call.shape;
    check(*s.lt,
          s.lt->matmul(call.handle, s.desc, &kAlpha, s.aData.get(), s.a, s.bData.get(), s.b, &kBeta, s.cData.get(), s.c,
                       s.cData.get(), s.c, &call.algo, call.workspace, kGemmWorkspaceBytes, stream),
          context, "cublasLtMatmul");
}

} // namespace streamscope::engine
