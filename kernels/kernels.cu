// The runner's kernels (see kernels.cuh): calibrated spin, memory streaming and the stream hold.
#include "kernels/kernels.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

namespace streamscope::kernels {

namespace {

// A value in [-1, 1) from an element's index and the seed (a 32-bit hash, splitmix-like).
__device__ __forceinline__ float randomValue(unsigned long long i, unsigned seed)
{
    unsigned x = unsigned(i) ^ unsigned(i >> 32) * 0x9E3779B9u ^ seed * 0x85EBCA6Bu;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return float(x >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

template <typename T> __device__ __forceinline__ T fromFloat(float v);
template <> __device__ __forceinline__ float fromFloat<float>(float v)
{
    return v;
}
template <> __device__ __forceinline__ __half fromFloat<__half>(float v)
{
    return __float2half(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v)
{
    return __float2bfloat16(v);
}
template <> __device__ __forceinline__ __nv_fp8_e4m3 fromFloat<__nv_fp8_e4m3>(float v)
{
    return __nv_fp8_e4m3(v);
}

template <typename T> __global__ void fillKernel(T *data, unsigned long long elements, unsigned seed)
{
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < elements;
         i += stride)
        data[i] = fromFloat<T>(randomValue(i, seed));
}

template <typename T> cudaError_t fill(void *data, std::uint64_t elements, std::uint32_t seed, cudaStream_t stream)
{
    const unsigned long long wanted = (elements + 255) / 256;
    const unsigned blocks = unsigned(wanted < 65536 ? (wanted ? wanted : 1) : 65536);
    fillKernel<T><<<blocks, 256, 0, stream>>>(static_cast<T *>(data), elements, seed);
    return cudaGetLastError();
}

// Programmatic dependent launch, device side: before its work a kernel launched with PDL waits until the
// kernel before it on its stream has finished (or triggered) and its memory is visible; after its work it
// lets the kernel after it start. Both need compute capability 9.0; below it the launch attribute does
// nothing either, and the kernel is an ordinary one.
template <bool Pdl> __device__ __forceinline__ void waitForPredecessor()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (Pdl)
        cudaGridDependencySynchronize();
#endif
}

template <bool Pdl> __device__ __forceinline__ void letDependentsStart()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (Pdl)
        cudaTriggerProgrammaticLaunchCompletion();
#endif
}

template <bool Pdl> __global__ void spinKernel(long long cycles)
{
    waitForPredecessor<Pdl>();
    // Every thread spins on its own SM's clock so that a grid of any shape lasts the same time per
    // wave; clock64() counts SM cycles, which the runner converts from nanoseconds with the rate it
    // measured at calibration.
    const long long start = clock64();
    while (clock64() - start < cycles) { }
    letDependentsStart<Pdl>();
}

// Launches `kernel` with the programmatic stream serialisation attribute set: the stream lets it start
// before the kernel ahead of it ends (it waits for it itself, waitForPredecessor).
template <typename... Params, typename... Args>
cudaError_t launchProgrammatic(void (*kernel)(Params...), int blocks, int threadsPerBlock, cudaStream_t stream,
                               Args... args)
{
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(unsigned(blocks));
    config.blockDim = dim3(unsigned(threadsPerBlock));
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    const cudaError_t err = cudaLaunchKernelEx(&config, kernel, Params(args)...);
    return err != cudaSuccess ? err : cudaGetLastError();
}

__device__ __forceinline__ unsigned long long globalTimerNs()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void holdKernel(const volatile int *releaseFlag, int *timedOut, unsigned long long timeoutNs)
{
    const unsigned long long start = globalTimerNs();
    while (*releaseFlag == 0) {
        if (globalTimerNs() - start > timeoutNs) {
            *timedOut = 1;
            return;
        }
    }
}

// For lessons and tests of faults: spins until %globaltimer passes the safety cap, which no run time limit
// comes near; the host cannot stop it, only the end of its process (or the cap) does.
__global__ void hangKernel(unsigned long long capNs)
{
    const unsigned long long start = globalTimerNs();
    while (globalTimerNs() - start < capNs) { }
}

// For lessons and tests of faults: writes through the pointer it is given (one the host knows is bad), an
// illegal address that the GPU reports as a sticky error. Through a volatile pointer from an argument, so
// the compiler cannot see it coming and leave the store out.
__global__ void faultKernel(int *bad)
{
    *static_cast<volatile int *>(bad) = 1;
}

// Touches every byte once for reading and once for writing. The body adds one to each word so
// that neither the load nor the store can be optimised away; the data's values do not matter.
__global__ void emptyKernel()
{
}

template <bool Pdl> __global__ void memoryKernel(unsigned char *data, unsigned long long bytes)
{
    waitForPredecessor<Pdl>();
    const unsigned long long tid = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
    const unsigned long long nthreads = static_cast<unsigned long long>(gridDim.x) * blockDim.x;

    // Head up to the first 16-byte boundary, then 16-byte vectors, then the tail: aligned wide
    // accesses are what reach the memory's bandwidth.
    const auto addr = reinterpret_cast<unsigned long long>(data);
    unsigned long long head = (16 - (addr & 15)) & 15;
    if (head > bytes)
        head = bytes;
    for (unsigned long long i = tid; i < head; i += nthreads)
        data[i] = static_cast<unsigned char>(data[i] + 1);

    uint4 *vec = reinterpret_cast<uint4 *>(data + head);
    const unsigned long long nvec = (bytes - head) / 16;
    for (unsigned long long i = tid; i < nvec; i += nthreads) {
        uint4 v = vec[i];
        v.x += 1;
        v.y += 1;
        v.z += 1;
        v.w += 1;
        vec[i] = v;
    }

    const unsigned long long tailStart = head + nvec * 16;
    for (unsigned long long i = tailStart + tid; i < bytes; i += nthreads)
        data[i] = static_cast<unsigned char>(data[i] + 1);
    letDependentsStart<Pdl>();
}

} // namespace

cudaError_t launchSpin(std::int64_t cycles, int blocks, int threadsPerBlock, cudaStream_t stream, bool pdl)
{
    const long long spin = cycles < 0 ? 0 : cycles;
    if (pdl)
        return launchProgrammatic(spinKernel<true>, blocks, threadsPerBlock, stream, spin);
    spinKernel<false><<<blocks, threadsPerBlock, 0, stream>>>(spin);
    return cudaGetLastError();
}

cudaError_t launchMemory(void *data, std::uint64_t bytes, int blocks, int threadsPerBlock, cudaStream_t stream,
                         bool pdl)
{
    auto *bytesAt = static_cast<unsigned char *>(data);
    const unsigned long long count = bytes;
    if (pdl)
        return launchProgrammatic(memoryKernel<true>, blocks, threadsPerBlock, stream, bytesAt, count);
    memoryKernel<false><<<blocks, threadsPerBlock, 0, stream>>>(bytesAt, count);
    return cudaGetLastError();
}

cudaError_t launchHold(const volatile int *releaseFlag, int *timedOut, std::uint64_t timeoutNs, cudaStream_t stream)
{
    holdKernel<<<1, 1, 0, stream>>>(releaseFlag, timedOut, timeoutNs);
    return cudaGetLastError();
}

cudaError_t launchHang(std::uint64_t capNs, int blocks, int threadsPerBlock, cudaStream_t stream)
{
    hangKernel<<<blocks, threadsPerBlock, 0, stream>>>(capNs);
    return cudaGetLastError();
}

cudaError_t launchFault(int blocks, int threadsPerBlock, cudaStream_t stream)
{
    // Page zero is mapped in no CUDA context: the address a null-pointer bug writes through.
    faultKernel<<<blocks, threadsPerBlock, 0, stream>>>(reinterpret_cast<int *>(std::uintptr_t(0x100)));
    return cudaGetLastError();
}

cudaError_t launchEmpty(int blocks, int threadsPerBlock, cudaStream_t stream)
{
    emptyKernel<<<blocks, threadsPerBlock, 0, stream>>>();
    return cudaGetLastError();
}

cudaError_t preloadKernels()
{
    cudaFuncAttributes attributes{};
    for (const void *kernel :
         {reinterpret_cast<const void *>(&spinKernel<false>), reinterpret_cast<const void *>(&spinKernel<true>),
          reinterpret_cast<const void *>(&memoryKernel<false>), reinterpret_cast<const void *>(&memoryKernel<true>),
          reinterpret_cast<const void *>(&holdKernel), reinterpret_cast<const void *>(&hangKernel),
          reinterpret_cast<const void *>(&faultKernel), reinterpret_cast<const void *>(&emptyKernel)}) {
        if (const cudaError_t err = cudaFuncGetAttributes(&attributes, kernel); err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

cudaError_t launchFillRandom(void *data, std::uint64_t elements, FillType type, std::uint32_t seed, cudaStream_t stream)
{
    switch (type) {
    case FillType::Fp32: return fill<float>(data, elements, seed, stream);
    case FillType::Fp16: return fill<__half>(data, elements, seed, stream);
    case FillType::Bf16: return fill<__nv_bfloat16>(data, elements, seed, stream);
    case FillType::Fp8E4M3: return fill<__nv_fp8_e4m3>(data, elements, seed, stream);
    }
    return cudaErrorInvalidValue;
}

} // namespace streamscope::kernels
