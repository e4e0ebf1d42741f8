// Checking CUDA calls: STREAMSCOPE_CUDA_CHECK(context, call) runs the call and, when it fails, throws
// Error{Cuda} whose message names the operation (the context), the API function, the CUDA error and
// where in the source it happened, e.g.
//   stream 'copy0' op 3 (/streams/0/ops/3): H2D 256 MiB pinned: cudaMemcpyAsync: cudaErrorMemoryAllocation:
//   out of memory [runner_cuda.cpp:512]
// Private to the runner's CUDA side (runner_cuda.cpp, topology_cuda.cpp) and the CUDA benchmarks: it needs the
// CUDA runtime's headers, which only streamscope_runner and those benchmarks are built with; the engine's
// CPU-only sources (the runner's stages among them) never include it.
#pragma once

#include <string>
#include <string_view>

#include <cuda_runtime_api.h>

#include "engine/model/errors.h"

namespace streamscope::engine::cuda {

// "cudaErrorNoDevice: no CUDA-capable device is detected"
inline std::string errorText(cudaError_t err)
{
    return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
}

// The API function's name out of the checked expression: "cudaMemcpyAsync(dst, src, ...)" -> "cudaMemcpyAsync".
inline std::string_view callName(std::string_view expression)
{
    const std::size_t paren = expression.find('(');
    std::string_view name = paren == std::string_view::npos ? expression : expression.substr(0, paren);
    const std::size_t scope = name.rfind("::");
    if (scope != std::string_view::npos)
        name = name.substr(scope + 2);
    while (!name.empty() && name.front() == ' ')
        name.remove_prefix(1);
    return name;
}

inline std::string_view baseName(std::string_view path)
{
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

[[noreturn]] inline void throwError(ErrorKind kind, cudaError_t err, std::string_view context,
                                    std::string_view expression, const char *file, int line)
{
    // Clear the error if it is not sticky, so that the caller (or the next run) can go on.
    cudaGetLastError();
    std::string message;
    if (!context.empty()) {
        message += context;
        message += ": ";
    }
    message += callName(expression);
    message += ": ";
    message += errorText(err);
    message += " [";
    message += baseName(file);
    message += ':';
    message += std::to_string(line);
    message += ']';
    throw Error(kind, message);
}

} // namespace streamscope::engine::cuda

// `context` is anything convertible to std::string_view; it is only looked at when the call fails.
#define STREAMSCOPE_CUDA_CHECK(context, call)                                                                          \
    do {                                                                                                               \
        const cudaError_t streamscopeErr_ = (call);                                                                    \
        if (streamscopeErr_ != cudaSuccess)                                                                            \
            ::streamscope::engine::cuda::throwError(::streamscope::engine::ErrorKind::Cuda, streamscopeErr_,           \
                                                    (context), #call, __FILE__, __LINE__);                             \
    } while (0)

// As above for allocations: running out of memory there is Error{OutOfMemory}, anything else Error{Cuda}.
#define STREAMSCOPE_CUDA_CHECK_ALLOC(context, call)                                                                    \
    do {                                                                                                               \
        const cudaError_t streamscopeErr_ = (call);                                                                    \
        if (streamscopeErr_ != cudaSuccess)                                                                            \
            ::streamscope::engine::cuda::throwError(streamscopeErr_ == cudaErrorMemoryAllocation                       \
                                                        ? ::streamscope::engine::ErrorKind::OutOfMemory                \
                                                        : ::streamscope::engine::ErrorKind::Cuda,                      \
                                                    streamscopeErr_, (context), #call, __FILE__, __LINE__);            \
    } while (0)
