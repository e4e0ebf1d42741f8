// The CUDA kernels the runner launches, behind plain host-side launch functions so that the runner
// (and the benchmarks) need no <<<>>> syntax of their own and every launch goes through one place.
//  - a compute kernel that spins on clock64() for a calibrated number of SM cycles,
//  - a memory kernel that streams a buffer (read + write) with 16-byte accesses where aligned,
//  - a hold kernel that keeps a stream busy until the host writes a flag (nvbandwidth's trick for
//    queueing a whole repetition before the GPU starts), with a time-out so it can never hang,
//  - a fill kernel that gives a GEMM's operands random values (zeros would let the tensor cores idle on
//    power and clock, and measure a GEMM no program runs),
//  - an empty kernel, for what a launch alone costs,
//  - for lessons and tests of faults: a hang kernel that never ends (until a safety cap) and a fault
//    kernel that writes through a bad pointer (cudaErrorIllegalAddress, a sticky error).
// Each launcher returns the launch's cudaError_t (cudaGetLastError after the launch); the caller checks it.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace streamscope::kernels {

// Spins every thread of every block until clock64() has advanced by `cycles` SM clock cycles.
// `pdl`: launched with programmatic dependent launch (cudaLaunchAttributeProgrammaticStreamSerialization), so
// that it may start while the kernel before it on the stream is still running. Such a kernel waits for that
// kernel (cudaGridDependencySynchronize) before its work and lets the next one start
// (cudaTriggerProgrammaticLaunchCompletion) when its work is done; what PDL saves is the next kernel's launch
// and scheduling, which then overlap the end of this one. On a GPU before compute capability 9.0 the
// attribute is accepted and does nothing.
cudaError_t launchSpin(std::int64_t cycles, int blocks, int threadsPerBlock, cudaStream_t stream, bool pdl = false);

// Reads and writes `bytes` bytes at `data` (device or managed memory) with a grid-stride loop. `pdl` as for
// launchSpin.
cudaError_t launchMemory(void *data, std::uint64_t bytes, int blocks, int threadsPerBlock, cudaStream_t stream,
                         bool pdl = false);

// One thread spins until *releaseFlag != 0 (a mapped pinned host word the host sets) or until
// `timeoutNs` of %globaltimer have passed; on a time-out it writes 1 to *timedOut (also mapped).
cudaError_t launchHold(const volatile int *releaseFlag, int *timedOut, std::uint64_t timeoutNs, cudaStream_t stream);

// Spins until `capNs` of %globaltimer have passed: nothing the host does ends it sooner; the end of the
// process does (the driver tears its context down).
cudaError_t launchHang(std::uint64_t capNs, int blocks, int threadsPerBlock, cudaStream_t stream);

// Every thread writes to an address no context maps: the kernel fails with an illegal address.
cudaError_t launchFault(int blocks, int threadsPerBlock, cudaStream_t stream);

// Does nothing and returns: what a launch costs on the host and on the GPU, with no work behind it.
cudaError_t launchEmpty(int blocks, int threadsPerBlock, cudaStream_t stream);

// The element types a GEMM operand is filled as.
enum class FillType : std::uint8_t { Fp32, Fp16, Bf16, Fp8E4M3 };

// Writes `elements` values of `type`, pseudo-random in [-1, 1) from `seed`, at `data` (device memory).
cudaError_t launchFillRandom(void *data, std::uint64_t elements, FillType type, std::uint32_t seed,
                             cudaStream_t stream);

// Loads every kernel above into the current context now (CUDA loads modules lazily by default), so
// that no measured launch pays for it.
cudaError_t preloadKernels();

} // namespace streamscope::kernels
