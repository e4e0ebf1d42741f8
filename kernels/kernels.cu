// The runner's kernels (see kernels.cuh): calibrated spin, memory streaming and the stream hold.
#include "kernels/kernels.cuh"

#include <cuda_runtime.h>

namespace streamscope::kernels {

namespace {

__global__ void spinKernel(long long cycles)
{
    // Every thread spins on its own SM's clock so that a grid of any shape lasts the same time per
    // wave; clock64() counts SM cycles, which the runner converts from nanoseconds with the rate it
    // measured at calibration.
    const long long start = clock64();
    while (clock64() - start < cycles) { }
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
__global__ void memoryKernel(unsigned char *data, unsigned long long bytes)
{
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
}

} // namespace

cudaError_t launchSpin(std::int64_t cycles, int blocks, int threadsPerBlock, cudaStream_t stream)
{
    spinKernel<<<blocks, threadsPerBlock, 0, stream>>>(cycles < 0 ? 0 : cycles);
    return cudaGetLastError();
}

cudaError_t launchMemory(void *data, std::uint64_t bytes, int blocks, int threadsPerBlock, cudaStream_t stream)
{
    memoryKernel<<<blocks, threadsPerBlock, 0, stream>>>(static_cast<unsigned char *>(data), bytes);
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

cudaError_t preloadKernels()
{
    cudaFuncAttributes attributes{};
    for (const void *kernel :
         {reinterpret_cast<const void *>(&spinKernel), reinterpret_cast<const void *>(&memoryKernel),
          reinterpret_cast<const void *>(&holdKernel), reinterpret_cast<const void *>(&hangKernel),
          reinterpret_cast<const void *>(&faultKernel)}) {
        if (const cudaError_t err = cudaFuncGetAttributes(&attributes, kernel); err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

} // namespace streamscope::kernels
