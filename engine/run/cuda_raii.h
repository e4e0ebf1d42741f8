// RAII owners for the CUDA handles the runner and the benchmarks use: streams, events and buffers of
// every BufferKind. Each constructor checks its CUDA call and throws Error naming what it was
// creating; each destructor releases quietly (a destructor cannot throw, and at that point the
// first error has already been reported). Move-only. Include from .cu files only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include <cuda_runtime_api.h>

#include "engine/model/errors.h"
#include "engine/run/cuda_check.h"
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
                    throwError(err == cudaErrorMemoryAllocation ? ErrorKind::OutOfMemory : ErrorKind::Cuda, err,
                               context, "cudaHostRegister", __FILE__, __LINE__);
                }
            }
            break;
        }
        case BufferKind::Pinned: STREAMSCOPE_CUDA_CHECK_ALLOC(context, cudaMallocHost(&m_ptr, bytes)); break;
        case BufferKind::Managed:
            STREAMSCOPE_CUDA_CHECK_ALLOC(context, cudaMallocManaged(&m_ptr, bytes, cudaMemAttachGlobal));
            break;
        case BufferKind::Device: STREAMSCOPE_CUDA_CHECK_ALLOC(context, cudaMalloc(&m_ptr, bytes)); break;
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
