// CUPTI activity tracing for the runner (see runner_cupti.h). CUPTI hands completed activity buffers
// to a callback, possibly on its own worker thread; the callback parses them into plain records under
// a mutex, and flush() forces every pending buffer out and takes what was gathered.
#include "engine/run/runner_cupti.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include <cupti.h>

namespace streamscope::engine::cupti {

namespace {

constexpr std::size_t kBufferBytes = 4u << 20;
constexpr std::size_t kBufferAlign = 8;
constexpr CUpti_ExternalCorrelationKind kOurKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;

// The kinds a run enables. RUNTIME is there because CUPTI writes external correlation records only
// alongside API records; it costs little next to the ops themselves.
constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMCPY2,           CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
};

std::string resultText(CUptiResult r)
{
    const char *text = nullptr;
    if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || !text)
        return "CUPTI error " + std::to_string(int(r));
    return text;
}

std::string failed(const char *call, CUptiResult r)
{
    return std::string(call) + ": " + resultText(r);
}

// The runner's clock: what hostNowNs() reads (std::chrono::steady_clock is CLOCK_MONOTONIC on Linux).
uint64_t CUPTIAPI steadyClockNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

MemKind memKindOf(std::uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return MemKind::Pageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return MemKind::Pinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return MemKind::Device;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return MemKind::Managed;
    default: return MemKind::Unknown;
    }
}

ChannelType channelTypeOf(CUpti_ChannelType type)
{
    switch (type) {
    case CUPTI_CHANNEL_TYPE_COMPUTE: return ChannelType::Compute;
    case CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY: return ChannelType::AsyncCopy;
    default: return ChannelType::Unknown;
    }
}

std::int64_t timeOrNone(std::uint64_t t)
{
    return t == 0 ? kNoTime : std::int64_t(t);
}

// The unified-memory counters a run with managed memory asks for.
constexpr CUpti_ActivityUnifiedMemoryCounterKind kUnifiedMemoryCounters[] = {
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING,
    CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP,
};

ActivityDetail migrationCause(std::uint32_t flags)
{
    switch (flags) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER: return ActivityDetail::User;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE: return ActivityDetail::Coherence;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH: return ActivityDetail::Speculative;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_EVICTION: return ActivityDetail::Eviction;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_ACCESS_COUNTERS: return ActivityDetail::AccessCounters;
    default: return ActivityDetail::Unknown;
    }
}

ActivityDetail faultAccess(std::uint32_t flags)
{
    switch (flags) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_READ: return ActivityDetail::Read;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_WRITE: return ActivityDetail::Write;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_ATOMIC: return ActivityDetail::Atomic;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_PREFETCH: return ActivityDetail::Prefetch;
    default: return ActivityDetail::Unknown;
    }
}

// A unified-memory counter record, or false for a counter kind the trace does not keep.
bool unifiedMemoryRecord(const CUpti_ActivityUnifiedMemoryCounter3 *u, GpuRecord &r)
{
    r.kind = GpuRecord::Kind::UnifiedMemory;
    r.startNs = timeOrNone(u->start);
    r.endNs = timeOrNone(u->end);
    r.value = u->value;
    r.address = u->address;
    bool instant = false;
    switch (u->counterKind) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
        r.activity = ActivityKind::MigrationH2D;
        r.detail = migrationCause(u->flags);
        break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH:
        r.activity = ActivityKind::MigrationD2H;
        r.detail = migrationCause(u->flags);
        break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT:
        r.activity = ActivityKind::GpuPageFaults;
        r.detail = faultAccess(u->flags);
        break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT:
        r.activity = ActivityKind::CpuPageFault;
        r.value = 1; // the record's value is the faulting instruction's address
        instant = true;
        break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING:
        r.activity = ActivityKind::Thrashing;
        instant = true;
        break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING: r.activity = ActivityKind::Throttling; break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP:
        r.activity = ActivityKind::RemoteMap;
        instant = true;
        break;
    default: return false;
    }
    if (instant || r.endNs < r.startNs)
        r.endNs = r.startNs; // CUPTI says to ignore the end of instants
    return r.startNs != kNoTime;
}

ActivityDetail synchronizationType(CUpti_ActivitySynchronizationType type)
{
    switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return ActivityDetail::EventSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return ActivityDetail::StreamWaitEvent;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return ActivityDetail::StreamSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return ActivityDetail::ContextSynchronize;
    default: return ActivityDetail::Unknown;
    }
}

// What the buffer callbacks gathered since the last flush.
struct Gathered {
    std::mutex mutex;
    std::vector<GpuRecord> records;
    std::unordered_map<std::uint32_t, std::uint64_t> external; // correlation id -> our external id
    // Kernel names, copied once each: CUPTI's own strings are not promised to outlive their module.
    std::unordered_map<std::string_view, std::unique_ptr<std::string>> names;
    std::uint64_t dropped = 0;
    std::uint64_t incomplete = 0;
};

Gathered &gathered()
{
    static Gathered g;
    return g;
}

// The fields every kernel, memcpy, peer memcpy and memset record carries under the same names.
template <typename Record> GpuRecord gpuRecord(GpuRecord::Kind kind, const Record *a)
{
    GpuRecord r;
    r.kind = kind;
    r.correlationId = a->correlationId;
    r.startNs = timeOrNone(a->start);
    r.endNs = timeOrNone(a->end);
    r.channel = std::int32_t(a->channelID);
    r.channelType = channelTypeOf(a->channelType);
    r.streamId = a->streamId;
    r.deviceId = std::int32_t(a->deviceId);
    r.graphNodeId = a->graphNodeId;
    return r;
}

// A memcpy or a peer memcpy: bytes and the memory kinds as the driver saw them too.
template <typename Record> GpuRecord copyRecord(const Record *m)
{
    GpuRecord r = gpuRecord(GpuRecord::Kind::Memcpy, m);
    r.bytes = m->bytes;
    r.srcKind = memKindOf(m->srcKind);
    r.dstKind = memKindOf(m->dstKind);
    return r;
}

void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size, size_t *maxNumRecords)
{
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(kBufferAlign, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t *buffer, size_t /*size*/, size_t validSize)
{
    std::vector<GpuRecord> records;
    std::vector<std::pair<std::uint32_t, std::uint64_t>> external;
    std::uint64_t incomplete = 0;
    CUpti_Activity *record = nullptr;
    while (validSize > 0 && cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
        switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
            const auto *k = reinterpret_cast<const CUpti_ActivityKernel10 *>(record);
            GpuRecord r = gpuRecord(GpuRecord::Kind::Kernel, k);
            r.queuedNs = timeOrNone(k->queued);
            r.submittedNs = timeOrNone(k->submitted);
            r.name = k->name;
            r.grid[0] = std::uint32_t(std::max(0, k->gridX));
            r.grid[1] = std::uint32_t(std::max(0, k->gridY));
            r.grid[2] = std::uint32_t(std::max(0, k->gridZ));
            r.block[0] = std::uint32_t(std::max(0, k->blockX));
            r.block[1] = std::uint32_t(std::max(0, k->blockY));
            r.block[2] = std::uint32_t(std::max(0, k->blockZ));
            r.registersPerThread = std::int32_t(k->registersPerThread);
            r.staticSharedBytes = std::int32_t(k->staticSharedMemory);
            r.dynamicSharedBytes = std::int32_t(k->dynamicSharedMemory);
            records.push_back(r);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY:
            records.push_back(copyRecord(reinterpret_cast<const CUpti_ActivityMemcpy6 *>(record)));
            break;
        case CUPTI_ACTIVITY_KIND_MEMCPY2: { // peer copies: the same fields, between two devices
            const auto *p = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4 *>(record);
            GpuRecord r = copyRecord(p);
            r.srcDeviceId = std::int32_t(p->srcDeviceId);
            r.dstDeviceId = std::int32_t(p->dstDeviceId);
            records.push_back(r);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const auto *m = reinterpret_cast<const CUpti_ActivityMemset4 *>(record);
            GpuRecord r = gpuRecord(GpuRecord::Kind::Memset, m);
            r.bytes = m->bytes;
            records.push_back(r);
            break;
        }
        case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER: {
            GpuRecord r;
            const auto *u = reinterpret_cast<const CUpti_ActivityUnifiedMemoryCounter3 *>(record);
            if (unifiedMemoryRecord(u, r))
                records.push_back(r);
            else if (u->start == 0)
                incomplete += 1;
            break;
        }
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
            const auto *y = reinterpret_cast<const CUpti_ActivitySynchronization2 *>(record);
            GpuRecord r;
            r.kind = GpuRecord::Kind::Synchronization;
            r.activity = ActivityKind::Synchronization;
            r.detail = synchronizationType(y->type);
            r.correlationId = y->correlationId;
            r.startNs = timeOrNone(y->start);
            r.endNs = timeOrNone(y->end);
            if (r.startNs != kNoTime && r.endNs >= r.startNs)
                records.push_back(r);
            break;
        }
        case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
            const auto *e = reinterpret_cast<const CUpti_ActivityCudaEvent2 *>(record);
            GpuRecord r;
            r.kind = GpuRecord::Kind::Event;
            r.correlationId = e->correlationId;
            r.startNs = r.endNs = timeOrNone(e->deviceTimestamp);
            r.streamId = e->streamId;
            r.deviceId = std::int32_t(e->deviceId);
            if (r.startNs != kNoTime)
                records.push_back(r);
            break;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
            const auto *e = reinterpret_cast<const CUpti_ActivityExternalCorrelation *>(record);
            if (e->externalKind == kOurKind)
                external.emplace_back(e->correlationId, e->externalId);
            break;
        }
        default: break; // runtime and driver API records: needed only for the external correlation records
        }
    }
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, streamId, &dropped) != CUPTI_SUCCESS)
        dropped = 0;
    std::free(buffer);

    Gathered &g = gathered();
    const std::lock_guard lock(g.mutex);
    for (GpuRecord &r : records) {
        if (!r.name)
            continue;
        auto it = g.names.find(std::string_view(r.name));
        if (it == g.names.end()) {
            auto copy = std::make_unique<std::string>(r.name);
            const std::string_view key = *copy;
            it = g.names.emplace(key, std::move(copy)).first;
        }
        r.name = it->second->c_str();
    }
    g.records.insert(g.records.end(), records.begin(), records.end());
    for (const auto &[correlation, id] : external)
        g.external[correlation] = id;
    g.dropped += dropped;
    g.incomplete += incomplete;
}

// Graph nodes and their ops (Tracer::trackGraphNodes): CUPTI's resource callbacks come on the thread that creates
// or clones the node, so the op being captured and the map are process-wide, as CUPTI's buffers are.
struct GraphNodes {
    std::mutex mutex;
    std::atomic<int> captureOp{-1};
    std::unordered_map<std::uint64_t, std::int32_t> ops; // node id -> op
    CUpti_SubscriberHandle subscriber = nullptr;
};
GraphNodes &graphNodes()
{
    static GraphNodes nodes;
    return nodes;
}

void CUPTIAPI graphNodeCallback(void *, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data)
{
    if (domain != CUPTI_CB_DOMAIN_RESOURCE || !data)
        return;
    const auto *resource = static_cast<const CUpti_ResourceData *>(data);
    const auto *graph = static_cast<const CUpti_GraphData *>(resource->resourceDescriptor);
    if (!graph)
        return;
    GraphNodes &g = graphNodes();
    std::uint64_t node = 0;
    if (cuptiGetGraphNodeId(graph->node, &node) != CUPTI_SUCCESS)
        return;
    if (id == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED) {
        const int op = g.captureOp.load(std::memory_order_relaxed);
        if (op < 0)
            return;
        const std::lock_guard lock(g.mutex);
        g.ops[node] = op;
    } else if (id == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) {
        std::uint64_t original = 0;
        if (cuptiGetGraphNodeId(graph->originalNode, &original) != CUPTI_SUCCESS)
            return;
        const std::lock_guard lock(g.mutex);
        if (const auto it = g.ops.find(original); it != g.ops.end())
            g.ops[node] = it->second;
    }
}

// Callbacks and the clock are registered once per process; CUPTI keeps them across enable/disable.
bool registerOnce(std::string &whyNot)
{
    static std::once_flag once;
    static std::string error;
    std::call_once(once, [] {
        if (const CUptiResult r = cuptiActivityRegisterTimestampCallback(steadyClockNs); r != CUPTI_SUCCESS) {
            error = failed("cuptiActivityRegisterTimestampCallback", r);
            return;
        }
        if (const CUptiResult r = cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted); r != CUPTI_SUCCESS)
            error = failed("cuptiActivityRegisterCallbacks", r);
    });
    whyNot = error;
    return error.empty();
}

void disableAll()
{
    for (const CUpti_ActivityKind kind : kKinds)
        cuptiActivityDisable(kind);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
}

// Unified-memory counters stay configured and enabled for the rest of the process once a run asked
// for them: on the H200 a second configure-and-enable in one process (the GPU test that runs the
// managed lesson after the presets) delivered no records at all. Records that come while no tracer
// runs are dropped by the next start().
bool g_unifiedMemoryOn = false;

} // namespace

std::unique_ptr<Tracer> Tracer::start(std::string &whyNot, bool kernelLatency)
{
    // A CUPTI tool injected into the process (Nsight Systems, Nsight Compute: CUDA loads it through
    // CUDA_INJECTION64_PATH when it starts) needs CUPTI's activity buffers itself. Enabling ours first
    // would take them: nsys then exports no CUDA activity at all (seen on the GPU host). So step aside.
    if (const char *injected = std::getenv("CUDA_INJECTION64_PATH"); injected && *injected) {
        whyNot = std::string("another CUDA profiler is injected into this process (CUDA_INJECTION64_PATH=") + injected
                 + ", e.g. Nsight Systems) and CUPTI is its own; StreamScope leaves CUPTI to it";
        return nullptr;
    }
    std::unique_ptr<Tracer> tracer(new Tracer);
    if (const CUptiResult r = cuptiGetVersion(&tracer->m_version); r != CUPTI_SUCCESS) {
        whyNot = failed("cuptiGetVersion", r);
        return nullptr;
    }
    if (!registerOnce(whyNot))
        return nullptr;
    // Queued/submitted timestamps need to be asked for before CUDA starts; where CUDA already runs in
    // this process (a second run), kernels go without them.
    tracer->m_latency = kernelLatency && cuptiActivityEnableLatencyTimestamps(1) == CUPTI_SUCCESS;
    for (const CUpti_ActivityKind kind : kKinds) {
        if (const CUptiResult r = cuptiActivityEnable(kind); r != CUPTI_SUCCESS) {
            whyNot = failed("cuptiActivityEnable", r);
            if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
                whyNot += " (another profiler, such as Nsight Systems, already holds CUPTI in this process)";
            disableAll();
            return nullptr;
        }
    }
    // The moments the GPU reached the runner's events, where this CUPTI gives them (an option of its own,
    // off by default): without them the events reach the host axis through the anchor.
    tracer->m_eventTimestamps = cuptiActivityEnableCudaEventDeviceTimestamps(1) == CUPTI_SUCCESS
                                && cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CUDA_EVENT) == CUPTI_SUCCESS;
    // Start from nothing: records of an earlier run in this process are not ours.
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    Gathered &g = gathered();
    const std::lock_guard lock(g.mutex);
    g.records.clear();
    g.external.clear();
    g.dropped = 0;
    g.incomplete = 0;
    return tracer;
}

Tracer::~Tracer()
{
    if (m_graphNodes) { // the subscription stays for the process (trackGraphNodes): only this run's nodes go
        GraphNodes &nodes = graphNodes();
        const std::lock_guard lock(nodes.mutex);
        nodes.ops.clear();
        nodes.captureOp = -1;
    }
    disableAll();
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    Gathered &g = gathered();
    const std::lock_guard lock(g.mutex);
    g.records.clear();
    g.external.clear();
    g.dropped = 0;
}

// Subscribed once per process, as the activity callbacks are registered once (registerOnce): between runs the
// callbacks find no op set and do nothing.
bool Tracer::trackGraphNodes(std::string &whyNot)
{
    if (m_graphNodes)
        return true;
    static std::once_flag once;
    static std::string error;
    std::call_once(once, [] {
        GraphNodes &nodes = graphNodes();
        if (const CUptiResult r = cuptiSubscribe(&nodes.subscriber, graphNodeCallback, nullptr); r != CUPTI_SUCCESS) {
            error = failed("cuptiSubscribe", r);
            return;
        }
        for (const CUpti_CallbackId id : {CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED})
            if (const CUptiResult r = cuptiEnableCallback(1, nodes.subscriber, CUPTI_CB_DOMAIN_RESOURCE, id);
                r != CUPTI_SUCCESS) {
                error = failed("cuptiEnableCallback(RESOURCE)", r);
                return;
            }
    });
    whyNot = error;
    m_graphNodes = error.empty();
    return m_graphNodes;
}

void Tracer::setCaptureOp(int op)
{
    graphNodes().captureOp.store(op, std::memory_order_relaxed);
}

std::unordered_map<std::uint64_t, std::int32_t> Tracer::graphNodeOps() const
{
    GraphNodes &nodes = graphNodes();
    const std::lock_guard lock(nodes.mutex);
    return nodes.ops;
}

bool Tracer::enableDriverCalls(std::string &whyNot)
{
    if (const CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER); r != CUPTI_SUCCESS) {
        whyNot = failed("cuptiActivityEnable(DRIVER)", r);
        return false;
    }
    return true;
}

bool Tracer::enableUnifiedMemory(int device, std::string &whyNot)
{
    if (m_unifiedMemory)
        return true;
    if (g_unifiedMemoryOn) {
        m_unifiedMemory = true;
        return true;
    }
    std::vector<CUpti_ActivityUnifiedMemoryCounterConfig> config;
    for (const CUpti_ActivityUnifiedMemoryCounterKind kind : kUnifiedMemoryCounters) {
        CUpti_ActivityUnifiedMemoryCounterConfig c{};
        c.scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
        c.kind = kind;
        c.deviceId = std::uint32_t(device);
        c.enable = 1;
        config.push_back(c);
    }
    if (const CUptiResult r = cuptiActivityConfigureUnifiedMemoryCounter(config.data(), std::uint32_t(config.size()));
        r != CUPTI_SUCCESS) {
        whyNot = failed("cuptiActivityConfigureUnifiedMemoryCounter", r);
        return false;
    }
    if (const CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER); r != CUPTI_SUCCESS) {
        whyNot = failed("cuptiActivityEnable(UNIFIED_MEMORY_COUNTER)", r);
        return false;
    }
    // CUPTI reads the UVM driver's events in its worker thread, which wakes by its own heuristics; a
    // faulting kernel makes thousands of them in a few milliseconds, and on the H200 the tail of a
    // repetition's (its last migrations, its fault groups, the prefetch after it) was sometimes never
    // delivered. Waking it every millisecond keeps up with them.
    if (const CUptiResult r = cuptiActivityFlushPeriod(1); r != CUPTI_SUCCESS) {
        whyNot = failed("cuptiActivityFlushPeriod", r);
        return false;
    }
    m_unifiedMemory = true;
    g_unifiedMemoryOn = true;
    return true;
}

bool Tracer::push(std::uint64_t externalId, std::string &whyNot)
{
    if (const CUptiResult r = cuptiActivityPushExternalCorrelationId(kOurKind, externalId); r != CUPTI_SUCCESS) {
        whyNot = failed("cuptiActivityPushExternalCorrelationId", r);
        return false;
    }
    return true;
}

bool Tracer::pop(std::string &whyNot)
{
    std::uint64_t last = 0;
    if (const CUptiResult r = cuptiActivityPopExternalCorrelationId(kOurKind, &last); r != CUPTI_SUCCESS) {
        whyNot = failed("cuptiActivityPopExternalCorrelationId", r);
        return false;
    }
    return true;
}

bool Tracer::flush(Batch &out, std::string &whyNot, bool forced)
{
    if (const CUptiResult r = cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
        r != CUPTI_SUCCESS) {
        whyNot = failed("cuptiActivityFlushAll", r);
        return false;
    }
    Gathered &g = gathered();
    const std::lock_guard lock(g.mutex);
    const std::size_t first = out.records.size();
    out.records.insert(out.records.end(), g.records.begin(), g.records.end());
    g.records.clear();
    out.dropped += g.dropped;
    g.dropped = 0;
    out.incomplete += g.incomplete;
    g.incomplete = 0;
    for (std::size_t i = first; i < out.records.size(); ++i) {
        GpuRecord &r = out.records[i];
        const auto it = g.external.find(r.correlationId);
        r.externalId = it == g.external.end() ? 0 : it->second;
    }
    // Correlation ids of this batch are done with: a record's external correlation always arrives in
    // an earlier or the same flush as the GPU record (the API call precedes the work it enqueues).
    g.external.clear();
    return true;
}

std::string Tracer::description() const
{
    return "CUPTI " + std::to_string(m_version)
           + ": concurrent kernel, memcpy, peer memcpy, memset and synchronisation records tied to ops by external "
             "correlation; timestamps on the host steady clock (timestamp callback)"
           + (m_latency ? "; kernel queued/submitted timestamps" : "")
           + (m_eventTimestamps ? "; CUDA event records with device timestamps (stream-ready and end events)" : "")
           + (m_unifiedMemory ? "; unified-memory migrations and page faults, tied to ops by address and time" : "");
}

} // namespace streamscope::engine::cupti
