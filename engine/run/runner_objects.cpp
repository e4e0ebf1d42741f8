// The workload's CUDA objects in a run (see runner_objects.h).
#include "engine/run/runner_objects.h"

#include <chrono>
#include <thread>

#include <nvtx3/nvToolsExtCudaRt.h>

#include "engine/model/units.h"
#include "engine/run/cuda_check.h"
#include "engine/run/runner_devices.h"

namespace streamscope::engine {

namespace {

std::uint64_t addressOf(const void *p)
{
    return reinterpret_cast<std::uintptr_t>(p);
}

} // namespace

void RunObjects::allocateBuffers(const Workload &workload, int override, int primary, bool severalDevices)
{
    m_defaultStream = workload.defaultStream;
    for (const BufferSpec &spec : workload.buffers) {
        std::string context = "buffer " + quoted(spec.name) + " (" + std::string(toString(spec.kind)) + ", "
                              + formatBytes(spec.bytes) + ")";
        const bool deviceSide = spec.kind == BufferKind::Device || spec.kind == BufferKind::Managed;
        const int device = workload.bufferDevice(spec, override);
        if (deviceSide && severalDevices)
            context += " on device " + std::to_string(device);
        useDevice(deviceSide ? device : primary);
        m_buffers.emplace(spec.name, cuda::Buffer(spec.kind, spec.bytes, context));
        if (spec.kind == BufferKind::Managed)
            m_hasManaged = true;
    }
    useDevice(primary);
}

void RunObjects::resetManagedBuffers(bool concurrentManagedAccess, cudaStream_t control)
{
    for (auto &[name, buf] : m_buffers) {
        if (buf.kind() != BufferKind::Managed)
            continue;
        const std::string context = "buffer " + quoted(name) + ": moving it back to the host between repetitions";
        if (concurrentManagedAccess) {
            cudaMemLocation host{};
            host.type = cudaMemLocationTypeHost;
            host.id = 0;
            STREAMSCOPE_CUDA_CHECK(context, cudaMemPrefetchAsync(buf.get(), buf.size(), host, 0, control));
            STREAMSCOPE_CUDA_CHECK(context, cudaStreamSynchronize(control));
        } else {
            // Without concurrent managed access a host write migrates the page back.
            volatile unsigned char *p = buf.bytesAt(0);
            for (std::uint64_t i = 0; i < buf.size(); i += 4096)
                p[i] = p[i];
        }
    }
}

void RunObjects::createStreams(const Workload &workload, int override, bool nvtx, std::vector<StreamInfo> &infos)
{
    m_defaultStream = workload.defaultStream;
    for (std::size_t i = 0; i < workload.streams.size(); ++i) {
        const StreamSpec &spec = workload.streams[i];
        const int device = workload.streamDevice(int(i), override);
        useDevice(device);
        const std::string context = "stream " + quoted(spec.name);
        StreamInfo info;
        info.name = spec.name;
        info.device = device;
        if (spec.useDefaultStream) {
            m_streams.push_back(cuda::Stream::borrow(defaultStream()));
            info.isDefault = true;
            info.nonBlocking = false;
        } else {
            const unsigned flags = spec.flags == StreamFlags::NonBlocking ? cudaStreamNonBlocking : cudaStreamDefault;
            m_streams.emplace_back(flags, spec.priority, context);
            info.nonBlocking = spec.flags == StreamFlags::NonBlocking;
        }
        const cudaStream_t handle = m_streams.back().get();
        // The priority CUDA actually gave (it clamps to the device's range).
        STREAMSCOPE_CUDA_CHECK(context, cudaStreamGetPriority(handle, &info.priority));
        unsigned long long id = 0;
        info.nativeId = cudaStreamGetId(handle, &id) == cudaSuccess ? std::int64_t(id) : std::int64_t(i);
        cudaGetLastError();
        if (nvtx)
            nvtxNameCudaStreamA(handle, spec.name.c_str());
        infos.push_back(info);
        m_streamEnds.emplace_back(cudaEventDefault, context + ": repetition end event");
    }
}

std::size_t RunObjects::addEndSlot()
{
    m_streamEnds.emplace_back();
    return m_streamEnds.size() - 1;
}

cudaStream_t RunObjects::defaultStream() const
{
    return m_defaultStream == DefaultStreamMode::PerThread ? cudaStreamPerThread : cudaStreamLegacy;
}

// Not on the legacy default stream, nor on blocking streams in legacy mode: there the next op may also
// wait for other streams (implicit synchronisation), which only an event recorded just before it sees.
bool RunObjects::canShareEvents(cudaStream_t stream, const std::vector<StreamInfo> &infos,
                                const RunDevices &devices) const
{
    if (stream == cudaStreamLegacy || stream == nullptr)
        return false;
    if (m_defaultStream == DefaultStreamMode::PerThread)
        return true;
    for (std::size_t i = 0; i < m_streams.size(); ++i)
        if (m_streams[i].get() == stream)
            return infos[i].nonBlocking;
    return devices.isControl(stream);
}

bool RunObjects::waitIdle(const RunDevices &devices, bool withDefault, std::int64_t budgetNs) const
{
    std::vector<cudaStream_t> streams;
    for (const cuda::Stream &st : m_streams)
        if (st.get())
            streams.push_back(st.get());
    for (const cudaStream_t control : devices.controls())
        streams.push_back(control);
    if (withDefault && !m_streams.empty())
        streams.push_back(defaultStream());
    const std::int64_t until = hostNowNs() + budgetNs;
    for (;;) {
        bool busy = false;
        for (const cudaStream_t st : streams)
            busy = busy || cudaStreamQuery(st) == cudaErrorNotReady;
        cudaGetLastError();
        if (!busy)
            return true;
        if (hostNowNs() >= until)
            return false;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

void RunObjects::prepareOps(const std::vector<PlannedOp> &plan, int primary, const Workload &workload, int override,
                            const std::string &communicatorId)
{
    m_collectives.setUp(workload, override, communicatorId);
    m_ops.resize(plan.size());
    for (std::size_t i = 0; i < plan.size(); ++i) {
        const PlannedOp &p = plan[i];
        PreparedOp &op = m_ops[i];
        useDevice(p.device); // its events are created on its device
        // cudaMemcpy runs on the default stream whatever stream the workload lists it under.
        op.gpuStream = p.onDefaultStream ? defaultStream() : m_streams[std::size_t(p.stream)].get();
        if (p.srcBuffer)
            op.src = m_buffers.at(p.srcBuffer->name).bytesAt(p.srcOffset);
        if (p.dstBuffer)
            op.dst = m_buffers.at(p.dstBuffer->name).bytesAt(p.dstOffset);
        if (p.targetBuffer)
            op.target = m_buffers.at(p.targetBuffer->name).bytesAt(p.targetOffset);
        if (p.spec->type == OpType::EventRecord) {
            op.ownEvent = cuda::Event(cudaEventDisableTiming, p.context + ": event " + quoted(p.spec->event));
            op.namedEvent = op.ownEvent.get();
        }
        if (p.syncStream >= 0)
            op.syncStream = m_streams[std::size_t(p.syncStream)].get();
        if (isGemm(*p.spec))
            op.gemm = m_gemms.prepare(p, op.gpuStream);
        if (isCollective(*p.spec))
            op.collective = m_collectives.prepare(p);
        if (p.instrumented) {
            op.begin = cuda::Event(cudaEventDefault, p.context + ": begin event");
            op.end = cuda::Event(cudaEventDefault, p.context + ": end event");
        }
    }
    useDevice(primary);
    // Each wait and event sync waits for the event of the one record it pairs with.
    for (std::size_t i = 0; i < plan.size(); ++i)
        if (plan[i].pairedRecord >= 0)
            m_ops[i].namedEvent = m_ops[std::size_t(plan[i].pairedRecord)].namedEvent;
}

std::vector<OpMemory> RunObjects::opMemory() const
{
    std::vector<OpMemory> memory;
    for (const PreparedOp &op : m_ops)
        memory.push_back({addressOf(op.target), addressOf(op.src), addressOf(op.dst)});
    return memory;
}

std::vector<AddressRange> RunObjects::bufferRanges() const
{
    std::vector<AddressRange> ranges;
    for (const auto &[name, b] : m_buffers)
        ranges.push_back({addressOf(b.bytesAt(0)), b.size()});
    return ranges;
}

std::vector<const void *> RunObjects::endStreams() const
{
    std::vector<const void *> streams;
    for (const PreparedOp &op : m_ops)
        streams.push_back(op.end.get() ? static_cast<const void *>(op.gpuStream) : nullptr);
    return streams;
}

void RunObjects::createHoldFlags()
{
    m_holdFlags = cuda::Buffer(BufferKind::Pinned, 2 * sizeof(int), "the runner's hold flag (pinned, 8 B)");
}

void RunObjects::leak()
{
    for (auto &[name, buffer] : m_buffers)
        buffer.leak();
    m_holdFlags.leak();
    m_gemms.leak();
    m_collectives.leak();
}

} // namespace streamscope::engine
