// RAII owners for the CUDA handles the runner and the benchmarks use: streams, events and buffers of
// every BufferKind. Each constructor checks its CUDA call and throws Error naming what it was
// creating; each destructor releases quietly (a destructor cannot throw, and at that point the
// first error has already been reported). Move-only. Like cuda_check.h, private to the runner's CUDA side and
// the CUDA benchmarks (it needs the CUDA runtime's headers).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include <cuda_runtime_api.h>

#include "engine/model/errors.h"
#include "engine/model/units.h"
#include "engine/run/cuda_check.h"
#include "engine/run/host_memory.h"
#include "engine/workload/workload.h"

namespace streamscope::engine::cuda {

class Stream {
public:
    Stream() = default;
    // A new stream with cudaStreamCreateWithPriority.
    Stream(unsigned flags, int priority, std::string_view context)
    {
        STREAMSCOPE_CUDA_CHECK(context, cudaStreamCreateWithPriority(&m_stream, flags, priority));
        m_owned = true;
    }
    // A stream this object does not own: the legacy (cudaStreamLegacy) or per-thread default stream.
    static Stream borrow(cudaStream_t handle)
    {
        Stream s;
        s.m_stream = handle;
        return s;
    }
    ~Stream() { reset(); }
    Stream(Stream &&other) noexcept { swap(other); }
    Stream &operator=(Stream &&other) noexcept
    {
        if (this != &other) {
            reset();
            swap(other);
        }
        return *this;
    }
    Stream(const Stream &) = delete;
    Stream &operator=(const Stream &) = delete;

    cudaStream_t get() const { return m_stream; }
    bool owned() const { return m_owned; }

private:
    void reset()
    {
        if (m_owned && m_stream)
            cudaStreamDestroy(m_stream);
        m_stream = nullptr;
        m_owned = false;
    }
    void swap(Stream &other) noexcept
    {
        std::swap(m_stream, other.m_stream);
        std::swap(m_owned, other.m_owned);
    }
    cudaStream_t m_stream = nullptr;
    bool m_owned = false;
};

class Event {
public:
    Event() = default;
    Event(unsigned flags, std::string_view context)
    {
        STREAMSCOPE_CUDA_CHECK(context, cudaEventCreateWithFlags(&m_event, flags));
    }
    ~Event()
    {
        if (m_event)
            cudaEventDestroy(m_event);
    }
    Event(Event &&other) noexcept : m_event(std::exchange(other.m_event, nullptr)) { }
    Event &operator=(Event &&other) noexcept
    {
        if (this != &other) {
            if (m_event)
                cudaEventDestroy(m_event);
            m_event = std::exchange(other.m_event, nullptr);
        }
        return *this;
    }
    Event(const Event &) = delete;
    Event &operator=(const Event &) = delete;

    cudaEvent_t get() const { return m_event; }

private:
    cudaEvent_t m_event = nullptr;
};

// An allocation that failed: Error{OutOfMemory} when CUDA ran out of memory, Error{Cuda} otherwise, naming
// what was allocated (the context), the call and the CUDA error, and what memory was left: the device's
// free memory for device and managed buffers, the host's available memory for pinned and registered ones.
[[noreturn]] inline void throwAllocationError(cudaError_t err, BufferKind kind, std::string_view context,
                                              const char *call, const char *file, int line)
{
    cudaGetLastError(); // not sticky: the next run in this process may allocate again
    std::string message = std::string(context) + ": " + call + ": " + errorText(err);
    const bool oom = err == cudaErrorMemoryAllocation;
    if (oom && (kind == BufferKind::Device || kind == BufferKind::Managed)) {
        std::size_t freeBytes = 0, totalBytes = 0;
        int device = 0;
        if (cudaGetDevice(&device) == cudaSuccess && cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess)
            message += "; device " + std::to_string(device) + " has " + formatBytes(freeBytes) + " free of "
                       + formatBytes(totalBytes);
        cudaGetLastError();
    } else if (oom) {
        const HostMemory host = hostMemoryAvailable();
        if (host.availableBytes > 0)
            message += "; the host has " + formatBytes(host.availableBytes) + " available (" + host.source + ")";
        message += kind == BufferKind::Pinned ? "; pinned memory is page-locked host memory, not GPU memory, and the "
                                                "driver may refuse large pinned allocations below that"
                                              : "";
    }
    message += std::string(" [") + std::string(baseName(file)) + ":" + std::to_string(line) + "]";
    throw Error(oom ? ErrorKind::OutOfMemory : ErrorKind::Cuda, message);
}

// A buffer of any BufferKind, allocated the way a program would:
//   pageable   = page-aligned malloc, then every page touched so that it is resident (first touch),
//   pinned     = cudaMallocHost,
//   registered = page-aligned malloc, touched, then cudaHostRegister,
//   managed    = cudaMallocManaged (cudaMemAttachGlobal),
//   device     = cudaMalloc.
class Buffer {
public:
    Buffer() = default;
    Buffer(BufferKind kind, std::uint64_t bytes, std::string_view context) : m_kind(kind), m_bytes(bytes)
    {
        switch (kind) {
        case BufferKind::Pageable:
        case BufferKind::Registered: {
            // Round up: aligned_alloc wants a multiple of the alignment.
            const std::uint64_t rounded = (std::max<std::uint64_t>(bytes, 1) + kPage - 1) / kPage * kPage;
            m_ptr = std::aligned_alloc(kPage, rounded);
            if (!m_ptr)
                throw Error(ErrorKind::OutOfMemory, std::string(context) + ": aligned_alloc: the host refused "
                                                        + std::to_string(rounded) + " bytes");
            std::memset(m_ptr, 0, rounded);
            if (kind == BufferKind::Registered) {
                const cudaError_t err = cudaHostRegister(m_ptr, rounded, cudaHostRegisterDefault);
                if (err != cudaSuccess) {
                    std::free(m_ptr);
                    m_ptr = nullptr;
                    throwAllocationError(err, kind, context, "cudaHostRegister", __FILE__, __LINE__);
                }
            }
            break;
        }
        case BufferKind::Pinned:
            if (const cudaError_t err = cudaMallocHost(&m_ptr, bytes); err != cudaSuccess)
                throwAllocationError(err, kind, context, "cudaMallocHost", __FILE__, __LINE__);
            break;
        case BufferKind::Managed:
            if (const cudaError_t err = cudaMallocManaged(&m_ptr, bytes, cudaMemAttachGlobal); err != cudaSuccess)
                throwAllocationError(err, kind, context, "cudaMallocManaged", __FILE__, __LINE__);
            break;
        case BufferKind::Device:
            if (const cudaError_t err = cudaMalloc(&m_ptr, bytes); err != cudaSuccess)
                throwAllocationError(err, kind, context, "cudaMalloc", __FILE__, __LINE__);
            break;
        }
    }
    ~Buffer() { reset(); }
    Buffer(Buffer &&other) noexcept { swap(other); }
    Buffer &operator=(Buffer &&other) noexcept
    {
        if (this != &other) {
            reset();
            swap(other);
        }
        return *this;
    }
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;

    void *get() const { return m_ptr; }
    // Forgets the memory without freeing it: for a run abandoned while a kernel still uses it (cudaFree
    // would wait for the kernel forever); the end of the process frees it.
    void leak() { m_ptr = nullptr; }
    unsigned char *bytesAt(std::uint64_t offset) const { return static_cast<unsigned char *>(m_ptr) + offset; }
    std::uint64_t size() const { return m_bytes; }
    BufferKind kind() const { return m_kind; }

private:
    static constexpr std::uint64_t kPage = 4096;

    void reset()
    {
        if (!m_ptr)
            return;
        switch (m_kind) {
        case BufferKind::Registered:
            cudaHostUnregister(m_ptr);
            std::free(m_ptr);
            break;
        case BufferKind::Pageable: std::free(m_ptr); break;
        case BufferKind::Pinned: cudaFreeHost(m_ptr); break;
        case BufferKind::Managed:
        case BufferKind::Device: cudaFree(m_ptr); break;
        }
        m_ptr = nullptr;
    }
    void swap(Buffer &other) noexcept
    {
        std::swap(m_kind, other.m_kind);
        std::swap(m_bytes, other.m_bytes);
        std::swap(m_ptr, other.m_ptr);
    }

    BufferKind m_kind = BufferKind::Device;
    std::uint64_t m_bytes = 0;
    void *m_ptr = nullptr;
};

} // namespace streamscope::engine::cuda
