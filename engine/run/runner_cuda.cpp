// The CUDA runner: runs a Workload on one or several devices, from one host thread or one std::thread per
// workload thread, and records every op of every measured repetition with three intervals (trace.h): the
// host API call on the steady clock; stream-ready and the event end from a CUDA event pair on the op's own
// stream; and execution as the GPU ran it, from CUPTI activity records tied to the op by external
// correlation (runner_cupti.h). Where CUPTI cannot be enabled or fails, execution falls back to the event
// pair and the trace says why. Plus the devices' properties and the spin kernel's calibration.
//
// Measurement, in short (docs/measurement.md; bench/NOTES.md has the long version):
//  - Everything is allocated and created before the first timed op; what the workload needs is
//    compared with the free device memory and the host's MemAvailable first.
//  - Each repetition starts from an idle device. A base event is recorded and waited for on each device;
//    the host time of that event is taken as the midpoint of [just before cudaEventRecord, just after
//    cudaEventSynchronize returned], over the narrowest of kAnchorTries tries. Every GPU time is
//    host_ns_at_base + cudaEventElapsedTime(base, ev) * 1e6, so GPU and host times share one axis with
//    an error of at most half that window (recorded in Trace::metadata) plus the ~0.5 us resolution of
//    cudaEventElapsedTime. Relative GPU times within a repetition only carry the latter.
//  - Where it cannot change what the lesson shows (every op only enqueues work), the streams are held
//    on a spin kernel until the whole repetition is queued, as nvbandwidth does; otherwise (pageable or
//    synchronous copies, host syncs, host work, managed memory) ops are issued in Workload::schedule
//    order exactly as a real program would, and the host's own blocking is part of the picture.
#include "engine/run/runner.h"
#include "engine/workload/solo_parts.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include <sys/syscall.h>
#include <unistd.h>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include "engine/analysis/analysis.h"
#include "engine/model/errors.h"
#include "engine/model/op_colors.h"
#include "engine/model/units.h"
#include "engine/run/clock_calibration.h"
#include "engine/run/cuda_check.h"
#include "engine/run/cuda_raii.h"
#include "engine/run/hold_policy.h"
#include "engine/run/host_memory.h"
#include "engine/run/pcie_link.h"
#include "engine/run/run_watchdog.h"
#include "engine/run/runner_cupti.h"
#include "engine/run/topology.h"
#include "kernels/kernels.cuh"

// cudaMemcpy as a program built with --default-stream per-thread calls it (cuda_runtime_api.h renames
// cudaMemcpy to this under CUDA_API_PER_THREAD_DEFAULT_STREAM; cudart exports both). Declared here so
// that one build honours both DefaultStreamModes at run time.
extern "C" cudaError_t CUDARTAPI cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);

namespace streamscope::engine {

namespace {

using cuda::Buffer;
using cuda::Event;
using cuda::Stream;

constexpr int kAnchorTries = 5;
// The external id around the runner's own cudaEventRecord calls (recordTimingEvent): this bit, the
// repetition in bits 32..61, and the record's place in the repetition's event log (1-based) below.
constexpr std::uint64_t kEventRecordTag = 1ull << 62;
constexpr int kCalibrationSamples = 15;
// A held repetition is released by the host at once after queueing (see hold_policy.h for when
// streams are held); the time-out only guards against a host that blocked anyway, so that nothing can hang.
constexpr std::uint64_t kHoldTimeoutNs = 2'000'000'000;
// Device memory kept free for the CUDA runtime, the kernels' modules and the runner's own events.
constexpr std::uint64_t kDeviceReserveBytes = 256ull << 20;
// A stopped run (time limit, cancel) waits this long for its GPU work to end before it is abandoned
// (run_watchdog.h); the watchdog gives a host thread blocked inside a CUDA call a little longer.
constexpr std::int64_t kSettleNs = 1'000'000'000;
constexpr std::int64_t kWatchdogGraceNs = 1'500'000'000;
// A hang kernel gives up by itself after this long, so that no GPU stays taken by a process that could
// not be ended; every run with one has a time limit, and a time limit ends the process well before.
constexpr std::uint64_t kHangCapNs = 600'000'000'000;

// Set once a run left the CUDA context with a sticky error (a kernel fault): CUDA's documentation says
// the process must end before CUDA can be used again, so later runs in this process refuse plainly.
std::string g_stickyError;

// Saturating sum of buffer sizes: 4 x 8 EiB must not wrap to 0 B and pass the memory check.
std::uint64_t addBytes(std::uint64_t a, std::uint64_t b)
{
    return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

std::int64_t hostNowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::string quoted(const std::string &name)
{
    return "'" + name + "'";
}

// ---------------------------------------------------------------------------------------------------
// Devices

[[noreturn]] void throwNoGpu(cudaError_t err)
{
    int driver = 0;
    cudaDriverGetVersion(&driver);
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaGetLastError();
    auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    std::string reason;
    if (err == cudaErrorNoDevice) {
        reason = "no CUDA-capable device is detected";
    } else if (driver == 0) {
        reason = "no NVIDIA driver is installed (the CUDA driver library libcuda.so could not be loaded)";
    } else if (err == cudaErrorInsufficientDriver || err == cudaErrorCallRequiresNewerDriver) {
        reason = "the NVIDIA driver is too old: it supports CUDA " + version(driver) + " but this build needs CUDA "
                 + version(runtime);
    } else {
        reason = "the CUDA driver could not be initialised";
    }
    throw Error(ErrorKind::NoGpu, "no usable GPU: " + reason + " (cudaGetDeviceCount: " + cuda::errorText(err) + ")");
}

int deviceCount()
{
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess)
        throwNoGpu(err);
    if (count == 0)
        throwNoGpu(cudaErrorNoDevice);
    return count;
}

DeviceInfo queryDevice(int index)
{
    const std::string context = "device " + std::to_string(index);
    cudaDeviceProp prop{};
    STREAMSCOPE_CUDA_CHECK(context, cudaGetDeviceProperties(&prop, index));
    auto attribute = [&](cudaDeviceAttr attr) {
        int value = 0;
        STREAMSCOPE_CUDA_CHECK(context, cudaDeviceGetAttribute(&value, attr, index));
        return value;
    };

    DeviceInfo info;
    info.index = index;
    info.name = prop.name;
    info.ccMajor = prop.major;
    info.ccMinor = prop.minor;
    info.smCount = prop.multiProcessorCount;
    info.asyncEngineCount = prop.asyncEngineCount;
    info.concurrentKernels = prop.concurrentKernels != 0;
    info.managedMemory = prop.managedMemory != 0;
    info.concurrentManagedAccess = prop.concurrentManagedAccess != 0;
    info.totalMemBytes = prop.totalGlobalMem;
    info.l2Bytes = std::uint64_t(prop.l2CacheSize);
    // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes remain.
    info.smClockKHz = attribute(cudaDevAttrClockRate);
    info.memClockKHz = attribute(cudaDevAttrMemoryClockRate);
    info.memBusWidthBits = attribute(cudaDevAttrGlobalMemoryBusWidth);

    char busId[32] = {};
    STREAMSCOPE_CUDA_CHECK(context, cudaDeviceGetPCIBusId(busId, sizeof busId, index));
    info.pciBusId = busId;
    const PcieLink link = readPcieLink(info.pciBusId);
    info.pcieGeneration = link.generation;
    info.pcieWidth = link.width;
    info.linkPeakGBs = link.peakGBs;

    STREAMSCOPE_CUDA_CHECK(context, cudaDeviceGetStreamPriorityRange(&info.priorityLeast, &info.priorityGreatest));
    STREAMSCOPE_CUDA_CHECK(context, cudaDriverGetVersion(&info.driverVersion));
    STREAMSCOPE_CUDA_CHECK(context, cudaRuntimeGetVersion(&info.runtimeVersion));
    return info;
}

std::vector<DeviceInfo> queryDevices()
{
    const int count = deviceCount();
    std::vector<DeviceInfo> devices;
    devices.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i)
        devices.push_back(queryDevice(i));
    return devices;
}

std::string describeDevices(const std::vector<DeviceInfo> &devices)
{
    std::string text =
        "this host has " + std::to_string(devices.size()) + (devices.size() == 1 ? " CUDA device:" : " CUDA devices:");
    for (const DeviceInfo &d : devices) {
        text += " " + std::to_string(d.index) + " " + quoted(d.name) + " (cc " + std::to_string(d.ccMajor) + "."
                + std::to_string(d.ccMinor) + ", " + formatBytes(d.totalMemBytes) + ")";
        if (&d != &devices.back())
            text += ";";
    }
    return text;
}

// ---------------------------------------------------------------------------------------------------
// Memory check

// The buffers of the given kinds, largest first: "'a' (device, 100 GiB), 'b' (managed, 50 GiB)".
std::string largestBuffers(const Workload &workload, std::initializer_list<BufferKind> kinds, std::size_t most = 3)
{
    std::vector<const BufferSpec *> list;
    for (const BufferSpec &b : workload.buffers)
        if (std::find(kinds.begin(), kinds.end(), b.kind) != kinds.end())
            list.push_back(&b);
    std::stable_sort(list.begin(), list.end(),
                     [](const BufferSpec *x, const BufferSpec *y) { return x->bytes > y->bytes; });
    std::string text;
    for (std::size_t i = 0; i < list.size() && i < most; ++i)
        text += (i ? ", " : "") + quoted(list[i]->name) + " (" + std::string(toString(list[i]->kind)) + ", "
                + formatBytes(list[i]->bytes) + ")";
    if (list.size() > most)
        text += " and " + std::to_string(list.size() - most) + " more";
    return text;
}

// What the workload needs against what the device and the host have, before anything is allocated. With
// `all` off (RunOptions::checkMemoryFirst) only managed memory is checked: asking for more managed
// memory than the card has free can hang the GPU, so it is never asked for.
void checkMemoryFits(const Workload &workload, const DeviceInfo &device, bool all)
{
    std::uint64_t deviceBytes = 0, managedBytes = 0, hostBytes = 0;
    for (const BufferSpec &b : workload.buffers) {
        switch (b.kind) {
        case BufferKind::Device: deviceBytes = addBytes(deviceBytes, b.bytes); break;
        case BufferKind::Managed: managedBytes = addBytes(managedBytes, b.bytes); break;
        case BufferKind::Pageable:
        case BufferKind::Pinned:
        case BufferKind::Registered: hostBytes = addBytes(hostBytes, b.bytes); break;
        }
    }

    std::size_t freeBytes = 0, totalBytes = 0;
    STREAMSCOPE_CUDA_CHECK("device " + std::to_string(device.index) + ": free memory",
                           cudaMemGetInfo(&freeBytes, &totalBytes));
    const std::string deviceText = "device " + std::to_string(device.index) + " " + quoted(device.name) + " has "
                                   + formatBytes(freeBytes) + " free of " + formatBytes(totalBytes);
    const std::string reserveText = formatBytes(kDeviceReserveBytes) + " kept free for the CUDA runtime";
    const std::uint64_t room = freeBytes > kDeviceReserveBytes ? freeBytes - kDeviceReserveBytes : 0;
    // Managed memory could be oversubscribed on this platform, but a lesson that pages its managed buffers
    // to death measures the pager, and oversubscription can hang the GPU: it counts against free memory.
    if (managedBytes > room) {
        throw Error(ErrorKind::OutOfMemory,
                    "workload " + quoted(workload.name) + ": managed buffers "
                        + largestBuffers(workload, {BufferKind::Managed}) + " need " + formatBytes(managedBytes)
                        + ", more than the device has free (" + deviceText + ", " + reserveText
                        + "): StreamScope never asks for more managed memory than the device has "
                          "free, since oversubscribing it can hang the GPU");
    }
    if (!all)
        return;
    for (const BufferSpec &b : workload.buffers)
        if ((b.kind == BufferKind::Device || b.kind == BufferKind::Managed) && b.bytes > room)
            throw Error(ErrorKind::OutOfMemory,
                        "buffer " + quoted(b.name) + " (" + std::string(toString(b.kind)) + ", " + formatBytes(b.bytes)
                            + ") does not fit in device memory: " + deviceText + " (" + reserveText + ")");
    const std::uint64_t needDevice = addBytes(deviceBytes, managedBytes);
    if (needDevice > room) {
        throw Error(ErrorKind::OutOfMemory,
                    "workload " + quoted(workload.name) + " does not fit in device memory: its buffers "
                        + largestBuffers(workload, {BufferKind::Device, BufferKind::Managed}) + " need "
                        + formatBytes(needDevice) + " (device " + formatBytes(deviceBytes) + " + managed "
                        + formatBytes(managedBytes) + ") but " + deviceText + " (" + reserveText + ")");
    }
    // Managed buffers start each repetition resident on the host, so they need host memory too.
    const std::uint64_t needHost = addBytes(hostBytes, managedBytes);
    const HostMemory host = hostMemoryAvailable();
    if (host.availableBytes == 0 || needHost <= host.availableBytes)
        return;
    const std::string hostText =
        "the host has " + formatBytes(host.availableBytes) + " available (" + host.source + ")";
    for (const BufferSpec &b : workload.buffers)
        if (b.kind != BufferKind::Device && b.bytes > host.availableBytes)
            throw Error(ErrorKind::OutOfMemory, "buffer " + quoted(b.name) + " (" + std::string(toString(b.kind)) + ", "
                                                    + formatBytes(b.bytes)
                                                    + ") does not fit in host memory: " + hostText);
    throw Error(ErrorKind::OutOfMemory,
                "workload " + quoted(workload.name) + " does not fit in host memory: its buffers "
                    + largestBuffers(workload, {BufferKind::Pageable, BufferKind::Pinned, BufferKind::Registered,
                                                BufferKind::Managed})
                    + " need " + formatBytes(needHost) + " (pageable, pinned and registered " + formatBytes(hostBytes)
                    + " + managed " + formatBytes(managedBytes) + ") but " + hostText);
}

// ---------------------------------------------------------------------------------------------------
// NVTX: ranges are pushed only when RunOptions::nvtx asks for them.

class NvtxRange {
public:
    NvtxRange(bool enabled, const char *name, std::uint32_t argb) : m_enabled(enabled)
    {
        if (!m_enabled)
            return;
        nvtxEventAttributes_t attributes{};
        attributes.version = NVTX_VERSION;
        attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        attributes.colorType = NVTX_COLOR_ARGB;
        attributes.color = argb;
        attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
        attributes.message.ascii = name;
        nvtxRangePushEx(&attributes);
    }
    ~NvtxRange()
    {
        if (m_enabled)
            nvtxRangePop();
    }
    NvtxRange(const NvtxRange &) = delete;
    NvtxRange &operator=(const NvtxRange &) = delete;

private:
    bool m_enabled;
};

constexpr std::uint32_t kRepetitionColor = 0xff999999;

// ---------------------------------------------------------------------------------------------------
// One run

// What the runner prepared for one op of Workload::schedule.
struct PreparedOp {
    const OpSpec *spec = nullptr;
    int stream = 0; // workload stream index
    int device = 0; // its stream's device: current while it is issued, and where its events are
    int thread = 0; // the workload thread that issues it
    int srcDevice = -1, dstDevice = -1; // a peer copy's two ends
    bool stagedPeer = false; // a peer copy without peer access: the driver stages it through host memory
    // A wait or an event sync: the record op (index into the run's ops) it waits for, -1 none; crossThread
    // when another thread issues that record (the waiting thread holds until it has).
    int pairedRecord = -1;
    bool crossThread = false;
    Event ownEvent; // a record op's event, on its device (waits use the event of the record they pair with)
    int opInStream = 0;
    std::string context; // "stream 'copy0' op 3 (/streams/0/ops/3): H2D 256 MiB pinned"
    std::string name; // display name, as Trace::strings holds it
    std::uint32_t nameId = 0;
    OpKind kind = OpKind::Other;
    MemKind srcMem = MemKind::None, dstMem = MemKind::None;
    std::uint64_t bytes = 0;
    bool hostOnly = false; // sync, host work, advise: no GPU part, no events
    cudaStream_t gpuStream = nullptr; // where the op runs (and its events are recorded)
    unsigned char *src = nullptr;
    unsigned char *dst = nullptr;
    unsigned char *target = nullptr; // buffer of a kernel, memset, prefetch, advise, attach
    cudaEvent_t namedEvent = nullptr; // record / wait / event sync
    cudaEvent_t beginUsed = nullptr; // `begin`, or an earlier event on the same stream it shares
    cudaStream_t syncStream = nullptr;
    std::int64_t spinCycles = 0;
    Event begin, end;
};

class CudaRun {
    struct ThreadState; // (below, with the members)
    struct ExtraDevice;

public:
    CudaRun(const Workload &workload, const RunOptions &options, const ProgressCallback &progress, RunWatchdog &watch) :
        m_workload(workload), m_options(options), m_progress(progress), m_watch(watch)
    {
    }

    ~CudaRun()
    {
        stopThreads();
        // Let queued work finish before the RAII members free the buffers it uses (a failed run can
        // leave work queued); errors here were or will be reported by the code that threw.
        settle(nullptr);
        m_watch.describeCallWith({}); // it reads this run's ops, which go now
        if (m_abandoned) { // only where a test's watchdog does not end the process: leave everything
            for (auto &[name, buffer] : m_buffers)
                buffer.leak();
            m_holdFlags.leak();
            static_cast<void>(m_tracer.release());
            return;
        }
        for (const auto &extra : m_extraDevices) {
            cudaSetDevice(extra->index);
            cudaDeviceSynchronize();
        }
        for (const auto &[a, b] : m_peerEnabled) {
            cudaSetDevice(a);
            cudaDeviceDisablePeerAccess(b);
        }
        cudaSetDevice(m_device.index);
        cudaDeviceSynchronize();
        cudaGetLastError();
    }

    // After the run threw (`cause`, or something that is not an Error): waits for the GPU work it left
    // queued to end. Where it does not end in time (a kernel that never ends), the run is abandoned and
    // the process ends (run_watchdog.h): nothing in it could free the memory that work uses.
    void settle(const Error *cause)
    {
        if (m_settled)
            return;
        m_settled = true;
        releaseHold();
        m_watch.setActivity("waiting for the GPU work it had queued to end");
        if (waitIdle(kSettleNs))
            return;
        std::string what =
            cause ? cause->what() : std::string("run of workload " + quoted(m_workload.name) + " failed");
        what += "; its GPU work did not end within " + formatDuration(kSettleNs);
        const std::string running = unfinishedOps();
        if (!running.empty() && what.find(running) == std::string::npos)
            what += " (still running: " + running + ")";
        m_abandoned = true;
        m_watch.abandon(Error(cause ? cause->kind() : ErrorKind::Cuda, RunWatchdog::abandonedMessage(what)));
    }

    Trace run()
    {
        m_watch.setPhase("preparation");
        m_watch.describeCallWith([this] { return callInProgress(); });
        m_override = m_options.device;
        m_solo = m_options.solo || m_workload.solo;
        // Where there is one part there is nothing to price: the run goes on without them and says so (a
        // one-stream variant of a lesson that asks for them, or the app's remembered "solo baselines").
        if (m_solo && countSoloParts(m_workload) < 2) {
            m_solo = false;
            m_trace.metadata["solo"] = "not measured: solo baselines were asked for, but the workload has one part "
                                       "(a stream, or streams naming one \"part\"): nothing runs beside anything";
        }
        // Solo baselines: refuse a workload whose parts cannot run alone before anything is allocated.
        if (m_solo && m_workload.schedule.size() == m_workload.opCount())
            m_soloParts = soloParts(m_workload);
        // The primary device: the thread 0's, where the calibration runs and the repetition span is timed.
        const int deviceIndex = m_workload.threadDevice(0, m_override);
        const std::vector<int> used = m_workload.usedDevices(m_override);
        m_used = used;
        applyMaxConnections();
        startTiming();
        report(RunProgress::Phase::Preparing, 0, 1, "selecting device " + std::to_string(deviceIndex));
        m_trace.devices = queryDevices();
        m_trace.peerLinks = queryPeerLinks(m_trace.devices); // every pair: access, rank, NVLink or PCIe
        for (const int d : used)
            if (d < 0 || d >= int(m_trace.devices.size()))
                throw Error(ErrorKind::InvalidInput,
                            "workload " + quoted(m_workload.name) + " uses device " + std::to_string(d)
                                + ", which does not exist: " + describeDevices(m_trace.devices));
        m_device = m_trace.devices[std::size_t(deviceIndex)];
        for (const int d : used) {
            // Create each context now, so that its cost lands in no measurement and cudaMemGetInfo sees it.
            useDevice(d);
            STREAMSCOPE_CUDA_CHECK("device " + std::to_string(d) + ": creating the CUDA context", cudaFree(nullptr));
            checkMemoryFits(buffersOn(d, d == deviceIndex), m_trace.devices[std::size_t(d)],
                            m_options.checkMemoryFirst);
        }
        setPeerAccess(used);
        // What the run's peer copies used: peer access on between every pair of its devices that supports it.
        for (PeerLink &link : m_trace.peerLinks)
            link.accessEnabled = m_workload.peerAccess == PeerAccess::On && link.accessSupported
                                 && std::find(used.begin(), used.end(), link.src) != used.end()
                                 && std::find(used.begin(), used.end(), link.dst) != used.end();
        useDevice(deviceIndex);
        report(RunProgress::Phase::Preparing, 0, 1,
               "allocating " + std::to_string(m_workload.buffers.size()) + " buffers");
        allocateBuffers();
        startUnifiedMemoryRecords();
        createStreams(used);
        for (const int d : used) {
            useDevice(d);
            STREAMSCOPE_CUDA_CHECK("device " + std::to_string(d) + ": loading the runner's kernels",
                                   kernels::preloadKernels());
        }
        useDevice(deviceIndex);
        prepareOps();
        if (m_solo) {
            m_trace.solo.parts = m_soloParts.names;
            m_trace.solo.streamPart.assign(m_trace.streams.size(), -1);
            for (std::size_t s = 0; s < m_soloParts.streamPart.size() && s < m_trace.streams.size(); ++s)
                m_trace.solo.streamPart[s] = m_soloParts.streamPart[s];
        }
        startThreads();
        indexPendingOps();
        decideHold();
        checkCancel();

        report(RunProgress::Phase::Calibrating, 0, 1, "calibrating the spin kernel");
        m_watch.setPhase("calibration");
        calibrate(m_trace.calibration, m_device, m_control.get());
        // Every other device calibrates on its own control stream: a spin kernel's cycles last as long
        // as that device's SM clock makes them, and two GPUs of a host need not run at one clock.
        for (const auto &extra : m_extraDevices) {
            checkCancel();
            useDevice(extra->index);
            calibrate(extra->calibration, m_trace.devices[std::size_t(extra->index)], extra->control.get());
        }
        useDevice(m_device.index);
        for (PreparedOp &op : m_ops) {
            if (op.kind == OpKind::Kernel && op.spec->kernelType == KernelType::Compute)
                op.spinCycles = spinCyclesFor(op.spec->durationNs, calibrationOf(op.device));
        }

        const int warmup = m_options.warmup >= 0 ? m_options.warmup : m_workload.warmup;
        const int repetitions = m_options.repetitions >= 0 ? m_options.repetitions : m_workload.repetitions;
        for (int i = 0; i < warmup; ++i) {
            checkCancel();
            m_watch.setPhase("warm-up " + std::to_string(i + 1) + " of " + std::to_string(warmup));
            report(RunProgress::Phase::Warmup, i, warmup, {});
            runRepetition(i, /*measured=*/false);
        }
        for (int i = 0; i < repetitions; ++i) {
            try {
                checkCancel();
                m_watch.setPhase("repetition " + std::to_string(i + 1) + " of " + std::to_string(repetitions));
                report(RunProgress::Phase::Measuring, i, repetitions, {});
                // A repetition whose unified-memory records CUPTI lost runs again (it starts from the same
                // state: the managed buffers on the host), up to kUnifiedMemoryAttempts times in all.
                for (int attempt = 1;; ++attempt) {
                    m_unifiedMemoryLost = false;
                    runRepetition(i, /*measured=*/true);
                    if (!m_unifiedMemoryLost)
                        break;
                    if (attempt == kUnifiedMemoryAttempts) {
                        m_unifiedMemoryIncomplete.push_back(i);
                        break;
                    }
                    m_trace.repetitions.pop_back();
                    m_repetitionSpans.pop_back();
                    m_unifiedMemoryRetries += 1;
                }
                // Solo baselines alternate with the measured repetitions, a round after each, so that clock
                // and temperature drift hit the mix and the parts alone alike.
                if (m_solo)
                    runSoloRound(i, repetitions);
            } catch (const Error &e) {
                // A stopped run with solo baselines keeps the rounds that finished and says what is missing.
                const bool stopped = e.kind() == ErrorKind::Cancelled || e.kind() == ErrorKind::TimeLimit;
                if (!m_solo || !stopped || m_soloRoundsDone == 0)
                    throw;
                settle(&e);
                while (int(m_trace.repetitions.size()) > m_soloRoundsDone) {
                    m_trace.repetitions.pop_back();
                    m_repetitionSpans.pop_back();
                }
                while (!m_trace.solo.runs.empty() && m_trace.solo.runs.back().round >= m_soloRoundsDone)
                    m_trace.solo.runs.pop_back();
                m_trace.solo.missing = "the run was stopped (" + std::string(e.what()) + ") after "
                                       + std::to_string(m_soloRoundsDone) + " of " + std::to_string(repetitions)
                                       + " rounds: repetitions " + std::to_string(m_soloRoundsDone + 1) + "-"
                                       + std::to_string(repetitions) + " and their solo baselines are missing";
                m_trace.timingNote += (m_trace.timingNote.empty() ? "" : "; ") + m_trace.solo.missing;
                break;
            }
        }
        finishMetadata();
        report(RunProgress::Phase::Done, repetitions, repetitions, {});
        return std::move(m_trace);
    }

private:
    void report(RunProgress::Phase phase, int repetition, int total, std::string message)
    {
        if (!m_progress)
            return;
        RunProgress p;
        p.phase = phase;
        p.repetition = repetition;
        p.total = total;
        p.message = std::move(message);
        m_progress(p);
    }

    // Stops the run where it is when it was cancelled or passed its time limit (run_watchdog.h).
    void checkCancel() const
    {
        if (auto stop = m_watch.stopReason())
            throw *stop;
    }

    // -- faults -------------------------------------------------------------------------------------

    // For the watchdog's thread, where the host is blocked: the op whose call it is in.
    std::string callInProgress() const
    {
        std::string calls;
        for (const auto &thread : m_threads) {
            const int i = thread->inCall.load();
            if (i < 0 || std::size_t(i) >= m_ops.size())
                continue;
            calls += (calls.empty() ? "" : "; ")
                     + (m_threads.size() > 1 ? "thread " + quoted(m_workload.threadName(thread->index)) + " in " : "")
                     + m_ops[std::size_t(i)].context;
        }
        return calls.empty() ? std::string() : "the host was in the call of " + calls;
    }

    // Whether every stream of the run is idle (or the context is broken, so that nothing runs any more),
    // polling until `budgetNs` has passed.
    bool waitIdle(std::int64_t budgetNs)
    {
        std::vector<cudaStream_t> streams;
        for (const Stream &st : m_streams)
            if (st.get())
                streams.push_back(st.get());
        if (m_control.get())
            streams.push_back(m_control.get());
        for (const auto &extra : m_extraDevices)
            if (extra->control.get())
                streams.push_back(extra->control.get());
        if (m_device.index >= 0 && !m_streams.empty())
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

    // The ops each stream of the run has left to finish: ops with an end event, per stream in issue order.
    void indexPendingOps()
    {
        for (std::size_t i = 0; i < m_ops.size(); ++i) {
            const PreparedOp &op = m_ops[i];
            if (op.hostOnly || !op.end.get())
                continue;
            auto it = std::find_if(m_pending.begin(), m_pending.end(),
                                   [&](const PendingOps &p) { return p.stream == op.gpuStream; });
            if (it == m_pending.end())
                it = m_pending.insert(m_pending.end(), PendingOps{op.gpuStream, {}, 0});
            it->ops.push_back(i);
        }
    }

    // Moves each stream's cursor past the ops whose end event has completed; returns the first error a
    // query met (a sticky error: the context is broken), cudaSuccess otherwise.
    cudaError_t advancePending()
    {
        for (PendingOps &p : m_pending) {
            while (p.next < p.ops.size() && issued(p.ops[p.next])) {
                const cudaError_t q = cudaEventQuery(m_ops[p.ops[p.next]].end.get());
                if (q == cudaErrorNotReady)
                    break;
                if (q != cudaSuccess)
                    return q;
                ++p.next;
            }
        }
        cudaGetLastError();
        return cudaSuccess;
    }

    // The first unfinished op of each stream (kernels only, when `kernels`), as "stream 's0' op 1 (...): name".
    std::string unfinishedOps(bool kernels = false) const
    {
        std::vector<std::string> list;
        for (const PendingOps &p : m_pending) {
            for (std::size_t k = p.next; k < p.ops.size() && issued(p.ops[k]); ++k) {
                const PreparedOp &op = m_ops[p.ops[k]];
                if (kernels && op.kind != OpKind::Kernel)
                    continue;
                list.push_back(op.context);
                break;
            }
        }
        std::string text;
        for (std::size_t i = 0; i < list.size() && i < 4; ++i)
            text += (i ? "; " : "") + list[i];
        if (list.size() > 4)
            text += "; and " + std::to_string(list.size() - 4) + " more";
        return text;
    }

    // Whether the context is broken by a sticky error (a kernel fault): every call returns it from now on.
    cudaError_t stickyError() const
    {
        const cudaError_t e = m_repStart.get() ? cudaEventQuery(m_repStart.get()) : cudaSuccess;
        return e == cudaErrorNotReady ? cudaSuccess : e;
    }

    // A CUDA error seen during a repetition: where it is sticky, a kernel faulted, whichever call reported
    // it; say which kernel (the first unfinished kernel on its stream, as far as the runner saw them finish).
    [[noreturn]] void rethrowWithFault(const Error &e)
    {
        const cudaError_t sticky = e.kind() == ErrorKind::Cuda ? stickyError() : cudaSuccess;
        if (sticky == cudaSuccess)
            throw e;
        std::string message = e.what();
        const std::string kernels = unfinishedOps(/*kernels=*/true);
        message += "; a kernel failed on the GPU (" + cuda::errorText(sticky)
                   + ", a sticky error: CUDA reports it from whichever call comes next, and the process cannot use "
                     "CUDA again)";
        if (!kernels.empty())
            message += kernels.find(';') == std::string::npos ? ": " + kernels
                                                              : "; the kernels still running were: " + kernels;
        throw Error(ErrorKind::Cuda, message);
    }

    // Waits for the repetition's work, polling, so that the time limit and cancellation are seen while
    // the GPU works (cudaDeviceSynchronize could block forever behind a kernel that never ends).
    void waitForGpu()
    {
        m_watch.setActivity("waiting for the GPU to finish the repetition's work");
        for (int spin = 0;; ++spin) {
            if (advancePending() != cudaSuccess)
                return; // the caller's cudaDeviceSynchronize reports it
            bool busy = false;
            for (const auto &[e, device] : m_streamEndUsed) {
                const cudaError_t q = cudaEventQuery(e);
                if (q != cudaSuccess && q != cudaErrorNotReady)
                    return;
                busy = busy || q == cudaErrorNotReady;
            }
            busy = busy || cudaStreamQuery(m_control.get()) == cudaErrorNotReady;
            cudaGetLastError();
            if (!busy)
                return;
            if (auto stop = m_watch.stopReason()) {
                const std::string running = unfinishedOps();
                throw Error(stop->kind(),
                            std::string(stop->what()) + (running.empty() ? "" : ", while the GPU ran " + running));
            }
            if (spin > 100)
                std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    }

    // -- hardware queues ----------------------------------------------------------------------------

    // CUDA reads CUDA_DEVICE_MAX_CONNECTIONS once, when it starts in the process: the first run sets
    // it, a later run in the same process can only have the same value (a run in a fresh process, as
    // streamscope-cli run and the app's runs are, always gets what it asks for).
    void applyMaxConnections()
    {
        static int s_inForce = 0; // the value CUDA started with in this process, 0 before it started
        auto fromEnvironment = [] {
            const char *env = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
            const int v = env ? std::atoi(env) : 0;
            return v >= 1 && v <= 32 ? v : 8;
        };
        const int asked = m_workload.maxConnections;
        if (s_inForce == 0) {
            if (asked > 0)
                setenv("CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(asked).c_str(), 1);
            s_inForce = fromEnvironment();
        } else if (asked > 0 && asked != s_inForce) {
            throw Error(ErrorKind::InvalidInput,
                        "workload " + quoted(m_workload.name) + ": maxConnections " + std::to_string(asked)
                            + " cannot take effect: CUDA already started in this process with "
                            + std::to_string(s_inForce)
                            + " hardware queues, and reads CUDA_DEVICE_MAX_CONNECTIONS only when it starts; run it in "
                              "a process of its own (streamscope-cli run)");
        }
        m_connections = s_inForce;
    }

    // -- timing source ------------------------------------------------------------------------------

    // CUPTI first, before CUDA starts, so that kernels get their queued/submitted timestamps.
    void startTiming()
    {
        if (m_options.timing == TimingMode::Events) {
            m_trace.timing = TimingSource::Events;
            m_trace.timingNote = m_options.instrument ? "timed by CUDA events, as asked (--timing events)"
                                                      : "not instrumented (overhead benchmark)";
            return;
        }
        // Kernel latency timestamps lose unified-memory records: with them, on the H200, CUPTI delivered
        // the whole of a repetition's migrations and fault groups in 2 runs of the managed lesson out of 6
        // (the rest lacked their last migrations, every fault group and the prefetch after them); without
        // them in 6 out of 6. So a workload with managed memory goes without them.
        const bool managed = std::any_of(m_workload.buffers.begin(), m_workload.buffers.end(),
                                         [](const BufferSpec &b) { return b.kind == BufferKind::Managed; });
        std::string why;
        m_tracer = cupti::Tracer::start(why, m_options.kernelLatency && !managed);
        if (!m_tracer) {
            fallBackToEvents("CUPTI could not be enabled: " + why);
            return;
        }
        m_trace.timing = TimingSource::Cupti;
        m_cuptiDescription = m_tracer->description();
        if (!m_options.instrument)
            m_trace.timingNote = "CUPTI alone, without the per-op events (overhead benchmark): no stream-ready, "
                                 "no event end, so queued time counts from the host call";
        if (managed && m_options.kernelLatency)
            m_trace.metadata["kernel_latency"] = "off: with them CUPTI loses unified-memory records (managed memory)";
    }

    // Unified-memory migrations and page faults where the workload has managed memory. CUPTI
    // configures the counters through the driver, so CUDA must have started. Where the platform cannot
    // count them, the run goes on without and says so.
    void startUnifiedMemoryRecords()
    {
        if (!m_tracer || !m_hasManaged)
            return;
        std::string why;
        if (m_tracer->enableUnifiedMemory(m_device.index, why)) {
            m_cuptiDescription = m_tracer->description();
            return;
        }
        m_trace.metadata["unified_memory_records"] = "not collected: " + why;
        report(RunProgress::Phase::Preparing, 0, 1,
               "unified-memory migrations and page faults are not recorded (" + why + ")");
    }

    // Execution from the event pairs from now on, and for the repetitions already recorded: every op
    // keeps its events (stream-ready and event end), so nothing measured is lost.
    void fallBackToEvents(const std::string &why)
    {
        m_tracer.reset();
        m_trace.timing = TimingSource::Events;
        m_trace.timingNote = why + "; timed by CUDA events instead (queued time counts as execution)";
        report(RunProgress::Phase::Preparing, 0, 1, m_trace.timingNote);
        for (Repetition &rep : m_trace.repetitions)
            for (OpRecord &r : rep.ops)
                if (r.readyNs != kNoTime) {
                    r.gpuStartNs = r.readyNs;
                    r.gpuEndNs = r.eventEndNs;
                    timeStagedPeer(r);
                }
    }

    // Ops whose API call makes a kernel, memcpy or memset record. Event records and waits, prefetches
    // (unified-memory traffic, not a memcpy) and attaches keep their event timing.
    static bool expectsRecord(OpKind kind) { return isCopy(kind) || kind == OpKind::Kernel || kind == OpKind::Memset; }

    // Ops whose API call CUPTI is told about: those above, and the synchronisation calls whose waits
    // the driver records (cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize,
    // cudaStreamWaitEvent).
    bool tiedToCupti(const PreparedOp &op) const
    {
        return m_tracer && !m_cuptiBroken.load()
               && ((!op.hostOnly && expectsRecord(op.kind)) || op.kind == OpKind::HostSync
                   || op.kind == OpKind::EventWait);
    }

    // Whether an op reads or writes the page at `address`: its buffer, or a copy's source or destination.
    static bool touches(const PreparedOp &op, std::uint64_t address)
    {
        auto within = [&](const unsigned char *base) {
            const auto b = reinterpret_cast<std::uintptr_t>(base);
            return base && address >= b && address - b < op.bytes;
        };
        return within(op.target) || within(op.src) || within(op.dst);
    }

    // A unified-memory record carries no correlation id: it belongs to the op that touches its pages
    // (a prefetch, a kernel, a copy of that buffer) and ran when it started: the op's host call, its
    // event pair and its execution, with a little slack for the event clock's anchor. -1 when none did.
    int unifiedMemoryOwner(const Repetition &rep, const cupti::GpuRecord &g) const
    {
        constexpr std::int64_t kSlackNs = 20'000;
        int best = -1;
        std::int64_t bestDistance = kSlackNs + 1;
        for (std::size_t i = 0; i < rep.ops.size(); ++i) {
            if (!touches(m_ops[i], g.address))
                continue;
            const OpRecord &r = rep.ops[i];
            std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
            for (const std::int64_t t : {r.hostStartNs, r.readyNs, r.gpuStartNs})
                if (t != kNoTime)
                    lo = std::min(lo, t);
            for (const std::int64_t t : {r.hostEndNs, r.eventEndNs, r.gpuEndNs})
                if (t != kNoTime)
                    hi = std::max(hi, t);
            if (lo > hi)
                continue;
            const std::int64_t distance = g.startNs < lo ? lo - g.startNs : g.startNs > hi ? g.startNs - hi : 0;
            if (distance < bestDistance) {
                best = int(i);
                bestDistance = distance;
            }
        }
        return best;
    }

    // Whether CUPTI delivered the repetition's unified-memory records whole. On the H200 it sometimes
    // did not: a repetition then lacked the tail of its records (the last migrations, every fault group,
    // the prefetch after them), intermittently, whatever the flushing. Two things must hold in a whole one:
    //  - the runner moves every managed buffer to the host before a repetition, so a prefetch to the GPU
    //    of a buffer that no earlier GPU op of the repetition touched (anywhere in it) must migrate what
    //    it asked for, give or take a large page at its ends (records are page-aligned): one with none,
    //    or far less (19 of its 32 migrations once), lost records;
    //  - a kernel's migrations to the GPU on demand (cause: coherence) follow GPU page faults, so such
    //    migrations without any fault group in the repetition lost the fault groups. (A copy or memset
    //    of managed memory migrates without GPU faults: it is not asked to have them.)
    void checkUnifiedMemoryComplete(const Repetition &rep)
    {
        if (!m_tracer || !m_tracer->unifiedMemory())
            return;
        // The managed buffer a pointer lies in (by its base), or nullptr.
        auto bufferOf = [&](const unsigned char *p) -> const unsigned char * {
            for (const auto &[name, b] : m_buffers)
                if (p >= b.bytesAt(0) && p < b.bytesAt(b.size()))
                    return b.bytesAt(0);
            return nullptr;
        };
        std::vector<const unsigned char *> touched;
        auto wasTouched = [&](const unsigned char *p) {
            const unsigned char *base = bufferOf(p);
            return std::find(touched.begin(), touched.end(), base) != touched.end();
        };
        constexpr std::uint64_t kPageSlack = std::uint64_t(2) << 20; // a large page, at either end
        for (std::size_t i = 0; i < m_ops.size(); ++i) {
            const PreparedOp &op = m_ops[i];
            const bool prefetch = op.kind == OpKind::Prefetch;
            if (prefetch && op.spec->location < 0)
                continue; // to the host: the buffer is there already
            if (prefetch && op.target && !wasTouched(op.target)) {
                std::uint64_t moved = 0;
                for (const ActivityRecord &a : rep.activities)
                    if (a.op == int(i) && a.kind == ActivityKind::MigrationH2D)
                        moved += a.value;
                if (moved == 0 || moved + 2 * kPageSlack < op.bytes)
                    m_unifiedMemoryLost = true;
            }
            if (!op.hostOnly)
                for (const unsigned char *p : {op.target, op.src, op.dst})
                    if (const unsigned char *base = p ? bufferOf(p) : nullptr)
                        touched.push_back(base);
        }
        const bool kernelOnDemand =
            std::any_of(rep.activities.begin(), rep.activities.end(), [&](const ActivityRecord &a) {
                return a.kind == ActivityKind::MigrationH2D && a.detail == ActivityDetail::Coherence && a.op >= 0
                       && std::size_t(a.op) < m_ops.size() && m_ops[std::size_t(a.op)].kind == OpKind::Kernel;
            });
        const bool faults = std::any_of(rep.activities.begin(), rep.activities.end(),
                                        [](const ActivityRecord &a) { return a.kind == ActivityKind::GpuPageFaults; });
        if (kernelOnDemand && !faults)
            m_unifiedMemoryLost = true;
    }

    // The repetition's unified-memory and synchronisation records, tied to their ops. A prefetch that
    // moved data gets its migrations' span as its execution (CUDA makes no memcpy record for it).
    void applyActivities(Repetition &rep, const std::vector<const cupti::GpuRecord *> &records, std::int64_t repStartNs)
    {
        for (const cupti::GpuRecord *g : records) {
            ActivityRecord a;
            a.kind = g->activity;
            a.detail = g->detail;
            a.startNs = g->startNs;
            a.endNs = g->endNs;
            a.value = g->value;
            a.address = g->address;
            if (g->kind == cupti::GpuRecord::Kind::Synchronization) {
                if ((g->externalId >> 32) != m_repSeq)
                    continue; // the runner's own synchronisation
                const std::uint64_t index = (g->externalId & 0xffffffffu) - 1;
                if (index >= rep.ops.size())
                    continue;
                a.op = int(index);
            } else {
                a.op = unifiedMemoryOwner(rep, *g);
                // Before the repetition: the runner moving managed buffers back to the host.
                if (a.op < 0 && a.startNs < repStartNs)
                    continue;
            }
            rep.activities.push_back(a);
        }
        std::stable_sort(rep.activities.begin(), rep.activities.end(),
                         [](const ActivityRecord &x, const ActivityRecord &y) { return x.startNs < y.startNs; });
        checkUnifiedMemoryComplete(rep);
        std::vector<std::pair<std::int64_t, std::int64_t>> span(rep.ops.size(), {kNoTime, kNoTime});
        for (const ActivityRecord &a : rep.activities) {
            if (!a.isMigration() || a.op < 0 || rep.ops[std::size_t(a.op)].kind != OpKind::Prefetch)
                continue;
            auto &[lo, hi] = span[std::size_t(a.op)];
            lo = lo == kNoTime ? a.startNs : std::min(lo, a.startNs);
            hi = hi == kNoTime ? a.endNs : std::max(hi, a.endNs);
        }
        for (std::size_t i = 0; i < rep.ops.size(); ++i)
            if (span[i].first != kNoTime) {
                rep.ops[i].gpuStartNs = span[i].first;
                rep.ops[i].gpuEndNs = std::max(span[i].first, span[i].second);
            }
    }

    // The op instance CUPTI carries: which repetition (counted over warm-ups too) and which op.
    std::uint64_t externalId(const PreparedOp &op) const
    {
        return (std::uint64_t(m_repSeq) << 32) | std::uint64_t(&op - m_ops.data() + 1);
    }

    // Flushes CUPTI's records into `batch` (appending); on failure falls back to events naming it, and
    // returns false.
    bool flushRecords(cupti::Batch &batch, const std::string &context, bool forced = true)
    {
        std::string why;
        if (m_tracer->flush(batch, why, forced))
            return true;
        fallBackToEvents("CUPTI failed during " + context + ": " + why);
        return false;
    }

    // The repetition's records. Unified-memory records come from the UVM driver on a path of their own
    // and complete later than the others: a forced flush right after the repetition handed them over
    // unfinished (no start time) on the H200, and they never came again. So where they are on, take
    // the completed buffers until no unified-memory record has come for four polls 5 ms apart (half a
    // second at most; the device is idle, nothing is measured), then force out the rest.
    bool takeRecords(cupti::Batch &batch, const std::string &context)
    {
        if (m_tracer && m_tracer->unifiedMemory()) {
            int quiet = 0;
            for (int poll = 0; poll < 100 && quiet < 4; ++poll) {
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
                const std::size_t before = batch.records.size();
                if (!flushRecords(batch, context, /*forced=*/false))
                    return false;
                const bool any = std::any_of(
                    batch.records.begin() + std::ptrdiff_t(before), batch.records.end(),
                    [](const cupti::GpuRecord &g) { return g.kind == cupti::GpuRecord::Kind::UnifiedMemory; });
                quiet = any ? 0 : quiet + 1;
            }
        }
        return flushRecords(batch, context);
    }

    // Takes the repetition's records and makes them the ops' execution intervals.
    void applyRecords(Repetition &rep, const std::string &context, std::int64_t previousRepEndNs)
    {
        cupti::Batch batch;
        if (!takeRecords(batch, context))
            return;
        m_incompleteUnifiedMemoryRecords += batch.incomplete;
        for (const cupti::GpuRecord &g : batch.records)
            if (g.kind == cupti::GpuRecord::Kind::UnifiedMemory && g.startNs < previousRepEndNs)
                m_lateUnifiedMemoryRecords += 1; // belongs to an earlier repetition, already recorded
        if (batch.dropped > 0)
            throw Error(ErrorKind::Cuda, context + ": CUPTI dropped " + std::to_string(batch.dropped)
                                             + " activity records, so some ops have no execution time; "
                                               "run with fewer ops per repetition, or --timing events");
        m_eventsFromCupti = applyEventTimestamps(rep, batch);
        std::vector<int> seen(rep.ops.size(), 0);
        std::vector<const cupti::GpuRecord *> activities;
        for (const cupti::GpuRecord &g : batch.records) {
            if (g.kind == cupti::GpuRecord::Kind::Event)
                continue; // applied above
            if (g.kind == cupti::GpuRecord::Kind::UnifiedMemory || g.kind == cupti::GpuRecord::Kind::Synchronization) {
                m_unifiedMemoryRecords += g.kind == cupti::GpuRecord::Kind::UnifiedMemory;
                activities.push_back(&g);
                continue;
            }
            if ((g.externalId >> 32) != m_repSeq)
                continue; // the runner's own work (hold, calibration) or an earlier repetition
            const std::uint64_t index = (g.externalId & 0xffffffffu) - 1;
            if (index >= rep.ops.size())
                continue;
            OpRecord &r = rep.ops[index];
            if (seen[index]++ == 0) {
                r.gpuStartNs = g.startNs;
                r.gpuEndNs = g.endNs;
            } else { // one API call, several records (a copy the driver split): their span
                r.gpuStartNs = std::min(r.gpuStartNs, g.startNs);
                r.gpuEndNs = std::max(r.gpuEndNs, g.endNs);
            }
            r.correlation = g.correlationId;
            r.channel = OpRecord::channelOf(g.channel);
            r.channelType = g.channelType;
            if (g.kind == cupti::GpuRecord::Kind::Kernel) {
                r.queuedNs = g.queuedNs;
                r.submittedNs = g.submittedNs;
            } else if (g.kind == cupti::GpuRecord::Kind::Memcpy) {
                r.driverSrcMem = g.srcKind;
                r.driverDstMem = g.dstKind;
            }
        }
        for (std::size_t i = 0; i < rep.ops.size(); ++i)
            if (seen[i] == 0 && inRun(i) && !m_ops[i].hostOnly && expectsRecord(m_ops[i].kind)) {
                m_missingRecords += 1;
                rep.ops[i].flags |= OpFlagEventTimed;
            }
        applyActivities(rep, activities, m_repHostStartNs);
    }

    // -- devices ------------------------------------------------------------------------------------

    // Makes `device` current on the calling thread (cudaSetDevice), naming it when that fails.
    static void useDevice(int device)
    {
        STREAMSCOPE_CUDA_CHECK("device " + std::to_string(device) + ": cudaSetDevice", cudaSetDevice(device));
    }

    int bufferDevice(const BufferSpec &b) const { return m_workload.bufferDevice(b, m_override); }
    int streamDevice(int stream) const { return m_workload.streamDevice(stream, m_override); }

    // The part of the workload whose memory lives on `device` (its device and managed buffers; the host
    // buffers count once, with the primary device), for the memory check.
    Workload buffersOn(int device, bool withHost) const
    {
        Workload w;
        w.name = m_workload.name;
        for (const BufferSpec &b : m_workload.buffers) {
            const bool deviceSide = b.kind == BufferKind::Device || b.kind == BufferKind::Managed;
            if (deviceSide ? bufferDevice(b) == device : withHost)
                w.buffers.push_back(b);
        }
        return w;
    }

    // Peer access between every pair of the devices used, as the workload's peerAccess says: enabled
    // (cudaDeviceEnablePeerAccess, which needs cudaDeviceCanAccessPeer) or disabled, so that the driver
    // stages peer copies through host memory. What this run enabled is disabled again when it ends.
    void setPeerAccess(const std::vector<int> &devices)
    {
        if (devices.size() < 2) {
            m_trace.metadata["peer_access"] = "one device";
            return;
        }
        std::string topology, cannot;
        for (const int a : devices)
            for (const int b : devices) {
                if (a == b)
                    continue;
                int can = 0;
                STREAMSCOPE_CUDA_CHECK("devices " + std::to_string(a) + " and " + std::to_string(b)
                                           + ": cudaDeviceCanAccessPeer",
                                       cudaDeviceCanAccessPeer(&can, a, b));
                const std::string pair = std::to_string(a) + "->" + std::to_string(b);
                topology += (topology.empty() ? "" : ", ") + pair + (can ? " yes" : " no");
                if (!can)
                    cannot += (cannot.empty() ? "" : ", ") + pair;
            }
        const bool on = m_workload.peerAccess == PeerAccess::On;
        if (on && !cannot.empty())
            throw Error(ErrorKind::InvalidInput,
                        "workload " + quoted(m_workload.name) + ": \"peerAccess\": \"on\", but device pairs " + cannot
                            + " cannot access each other (cudaDeviceCanAccessPeer; the topology: " + topology
                            + "); set \"peerAccess\": \"off\" to copy between them through host memory");
        for (const int a : devices) {
            useDevice(a);
            for (const int b : devices) {
                if (a == b)
                    continue;
                const std::string context =
                    "device " + std::to_string(a) + ": peer access to device " + std::to_string(b);
                if (on) {
                    const cudaError_t err = cudaDeviceEnablePeerAccess(b, 0);
                    if (err == cudaErrorPeerAccessAlreadyEnabled) {
                        cudaGetLastError();
                        continue;
                    }
                    STREAMSCOPE_CUDA_CHECK(context, err);
                    m_peerEnabled.emplace_back(a, b);
                } else {
                    const cudaError_t err = cudaDeviceDisablePeerAccess(b);
                    if (err == cudaErrorPeerAccessNotEnabled) {
                        cudaGetLastError();
                        continue;
                    }
                    STREAMSCOPE_CUDA_CHECK(context, err);
                }
            }
        }
        m_trace.metadata["peer_access"] =
            on ? "on: peer copies go directly between the GPUs (cudaDeviceEnablePeerAccess; " + topology + ")"
               : "off: the driver stages peer copies through host memory (cudaMemcpyPeerAsync without peer access; "
                 "cudaDeviceCanAccessPeer: "
                     + topology + ")";
    }

    // -- setup --------------------------------------------------------------------------------------

    void allocateBuffers()
    {
        for (const BufferSpec &spec : m_workload.buffers) {
            std::string context = "buffer " + quoted(spec.name) + " (" + std::string(toString(spec.kind)) + ", "
                                  + formatBytes(spec.bytes) + ")";
            const bool deviceSide = spec.kind == BufferKind::Device || spec.kind == BufferKind::Managed;
            if (deviceSide && m_used.size() > 1)
                context += " on device " + std::to_string(bufferDevice(spec));
            useDevice(deviceSide ? bufferDevice(spec) : m_device.index);
            m_buffers.emplace(spec.name, Buffer(spec.kind, spec.bytes, context));
            if (spec.kind == BufferKind::Managed)
                m_hasManaged = true;
        }
        useDevice(m_device.index);
    }

    const Buffer &buffer(const std::string &name, const std::string &context) const
    {
        const auto it = m_buffers.find(name);
        if (it == m_buffers.end())
            throw Error(ErrorKind::InvalidInput, context + ": no buffer named " + quoted(name));
        return it->second;
    }

    cudaStream_t defaultStream() const
    {
        return m_workload.defaultStream == DefaultStreamMode::PerThread ? cudaStreamPerThread : cudaStreamLegacy;
    }

    void createStreams(const std::vector<int> &devices)
    {
        m_control = Stream(cudaStreamNonBlocking, 0, "the runner's control stream");
        // Named, so that in Nsight Systems the calibration and hold kernels sit on a lane that says what it is.
        if (m_options.nvtx)
            nvtxNameCudaStreamA(m_control.get(), "streamscope control");
        for (int i = 0; i < kAnchorTries; ++i)
            m_anchorEvents.emplace_back(cudaEventDefault, "the runner's clock anchor event");
        m_repStart = Event(cudaEventDefault, "the runner's repetition start event");
        // Every other device has its own control stream, clock anchor and start event: CUDA times events
        // only against events of their own device.
        for (const int d : devices) {
            if (d == m_device.index)
                continue;
            useDevice(d);
            const std::string context = "device " + std::to_string(d) + ": ";
            auto extra = std::make_unique<ExtraDevice>();
            extra->index = d;
            extra->control = Stream(cudaStreamNonBlocking, 0, context + "the runner's control stream");
            if (m_options.nvtx)
                nvtxNameCudaStreamA(extra->control.get(), ("streamscope control gpu" + std::to_string(d)).c_str());
            for (int i = 0; i < kAnchorTries; ++i)
                extra->anchorEvents.emplace_back(cudaEventDefault, context + "the runner's clock anchor event");
            extra->repStart = Event(cudaEventDefault, context + "the runner's repetition start event");
            m_extraDevices.push_back(std::move(extra));
        }
        useDevice(m_device.index);

        // One host lane per workload thread, named as in the workload; the implicit one is this thread.
        m_threads.clear();
        for (int t = 0; t < m_workload.threadCount(); ++t) {
            auto state = std::make_unique<ThreadState>();
            state->index = t;
            state->device = m_workload.threadDevice(t, m_override);
            m_threads.push_back(std::move(state));
        }
        if (m_threads.size() == 1) {
            const int tid = int(syscall(SYS_gettid));
            m_threads[0]->tid = std::uint64_t(tid);
            m_trace.hostThreads.push_back({m_workload.threadName(0), std::uint64_t(tid)});
            if (m_options.nvtx)
                nvtxNameOsThreadA(std::uint32_t(tid), m_workload.threadName(0).c_str());
        }

        for (std::size_t i = 0; i < m_workload.streams.size(); ++i) {
            const StreamSpec &spec = m_workload.streams[i];
            const int device = streamDevice(int(i));
            useDevice(device);
            const std::string context = "stream " + quoted(spec.name);
            StreamInfo info;
            info.name = spec.name;
            info.device = device;
            if (spec.useDefaultStream) {
                m_streams.push_back(Stream::borrow(defaultStream()));
                info.isDefault = true;
                info.nonBlocking = false;
            } else {
                const unsigned flags =
                    spec.flags == StreamFlags::NonBlocking ? cudaStreamNonBlocking : cudaStreamDefault;
                m_streams.emplace_back(flags, spec.priority, context);
                info.nonBlocking = spec.flags == StreamFlags::NonBlocking;
            }
            const cudaStream_t handle = m_streams.back().get();
            // The priority CUDA actually gave (it clamps to the device's range).
            STREAMSCOPE_CUDA_CHECK(context, cudaStreamGetPriority(handle, &info.priority));
            unsigned long long id = 0;
            info.nativeId = cudaStreamGetId(handle, &id) == cudaSuccess ? std::int64_t(id) : std::int64_t(i);
            cudaGetLastError();
            if (m_options.nvtx)
                nvtxNameCudaStreamA(handle, spec.name.c_str());
            m_trace.streams.push_back(info);
            m_streamEnds.emplace_back(cudaEventDefault, context + ": repetition end event");
            m_streamEndDevice.push_back(device);
        }
        // The default stream ends a repetition too: synchronous copies run there whichever stream the
        // workload lists them under. Each thread's, on each device its streams are on (recorded by that
        // thread: the per-thread default stream is its own).
        for (auto &thread : m_threads) {
            std::vector<int> devicesOfThread;
            for (std::size_t i = 0; i < m_workload.streams.size(); ++i)
                if (m_workload.streams[i].thread == thread->index
                    && std::find(devicesOfThread.begin(), devicesOfThread.end(), streamDevice(int(i)))
                           == devicesOfThread.end())
                    devicesOfThread.push_back(streamDevice(int(i)));
            if (devicesOfThread.empty())
                devicesOfThread.push_back(thread->device);
            for (const int d : devicesOfThread) {
                useDevice(d);
                thread->defaultEnds.push_back(
                    {d, m_streamEnds.size(), Event(cudaEventDefault, "the default stream's repetition end event")});
                m_streamEnds.emplace_back(); // its slot; the event lives in the thread's state
                m_streamEndDevice.push_back(d);
            }
        }
        useDevice(m_device.index);

        m_holdFlags = Buffer(BufferKind::Pinned, 2 * sizeof(int), "the runner's hold flag (pinned, 8 B)");
    }

    void prepareOps()
    {
        // The parser always fills the schedule; a Workload built in code must call buildSchedule().
        if (m_workload.schedule.size() != m_workload.opCount())
            throw Error(ErrorKind::InvalidInput,
                        "workload " + quoted(m_workload.name) + ": the schedule lists "
                            + std::to_string(m_workload.schedule.size()) + " ops but the streams hold "
                            + std::to_string(m_workload.opCount()) + " (call buildSchedule after changing the ops)");
        m_ops.reserve(m_workload.schedule.size());
        for (std::size_t index = 0; index < m_workload.schedule.size(); ++index) {
            const ScheduledOp &at = m_workload.schedule[index];
            if (at.stream < 0 || std::size_t(at.stream) >= m_workload.streams.size() || at.op < 0
                || std::size_t(at.op) >= m_workload.streams[std::size_t(at.stream)].ops.size())
                throw Error(ErrorKind::InvalidInput, "workload " + quoted(m_workload.name) + ": schedule entry "
                                                         + std::to_string(index) + " names no op");
            const StreamSpec &stream = m_workload.streams[std::size_t(at.stream)];
            const OpSpec &spec = stream.ops[std::size_t(at.op)];

            PreparedOp &op = m_ops.emplace_back();
            op.spec = &spec;
            op.stream = at.stream;
            op.opInStream = at.op;
            op.name = spec.name.empty() ? describe(spec, m_workload) : spec.name;
            op.nameId = m_trace.intern(op.name);
            op.context = "stream " + quoted(stream.name) + " op " + std::to_string(at.op);
            if (!spec.jsonPath.empty() || spec.line > 0) {
                op.context += " (" + spec.jsonPath;
                if (spec.line > 0)
                    op.context += std::string(spec.jsonPath.empty() ? "" : ", ") + "line " + std::to_string(spec.line);
                op.context += ")";
            }
            op.context += ": " + op.name;
            op.kind = opKindOf(spec);
            op.device = streamDevice(at.stream);
            op.thread = stream.thread;
            useDevice(op.device); // its events are created on its device
            op.gpuStream = m_streams[std::size_t(at.stream)].get();
            if (spec.type == OpType::Kernel && spec.kernelType == KernelType::Hang && m_watch.limitNs() <= 0)
                throw Error(ErrorKind::InvalidInput,
                            op.context
                                + ": a hang kernel never ends, and only the end of its process stops it: give "
                                  "the run a time limit (\"timeLimit\" in the workload, or streamscope-cli run "
                                  "--time-limit)");

            switch (spec.type) {
            case OpType::Copy: {
                const Buffer &src = buffer(spec.src, op.context);
                const Buffer &dst = buffer(spec.dst, op.context);
                if (spec.srcOffset + spec.bytes > src.size() || spec.dstOffset + spec.bytes > dst.size())
                    throw Error(ErrorKind::InvalidInput,
                                op.context + ": the copy runs past the end of "
                                    + quoted(spec.srcOffset + spec.bytes > src.size() ? spec.src : spec.dst));
                op.src = src.bytesAt(spec.srcOffset);
                op.dst = dst.bytesAt(spec.dstOffset);
                op.srcMem = memKindOf(src.kind());
                op.dstMem = memKindOf(dst.kind());
                op.bytes = spec.bytes;
                if (spec.direction == CopyDirection::P2P) {
                    op.srcDevice = bufferDevice(*m_workload.findBuffer(spec.src));
                    op.dstDevice = bufferDevice(*m_workload.findBuffer(spec.dst));
                    op.stagedPeer =
                        std::none_of(m_trace.peerLinks.begin(), m_trace.peerLinks.end(), [&](const PeerLink &l) {
                            return l.src == op.srcDevice && l.dst == op.dstDevice && l.accessEnabled;
                        });
                }
                // cudaMemcpy runs on the default stream whatever stream the workload lists it under.
                if (spec.api == CopyApi::Sync)
                    op.gpuStream = defaultStream();
                break;
            }
            case OpType::Kernel:
            case OpType::Memset:
            case OpType::Prefetch:
            case OpType::Advise:
            case OpType::Attach: {
                const bool needsBuffer = !(spec.type == OpType::Kernel && spec.kernelType != KernelType::Memory);
                if (needsBuffer) {
                    const Buffer &target = buffer(spec.buffer, op.context);
                    // Buffer ops keep their offset into the buffer in dstOffset. Attach always names the
                    // whole allocation (CUDA requires it for cudaMallocManaged memory).
                    const std::uint64_t offset = spec.type == OpType::Attach ? 0 : spec.dstOffset;
                    if (offset >= target.size())
                        throw Error(ErrorKind::InvalidInput, op.context + ": offset " + std::to_string(offset)
                                                                 + " is past the end of buffer " + quoted(spec.buffer));
                    op.target = target.bytesAt(offset);
                    op.bytes = spec.bytes == 0 || spec.type == OpType::Attach ? target.size() - offset : spec.bytes;
                    if (offset + op.bytes > target.size())
                        throw Error(ErrorKind::InvalidInput, op.context + ": " + formatBytes(op.bytes) + " at offset "
                                                                 + std::to_string(offset)
                                                                 + " runs past the end of buffer " + quoted(spec.buffer)
                                                                 + " (" + formatBytes(target.size()) + ")");
                    op.dstMem = memKindOf(target.kind());
                }
                op.hostOnly = spec.type == OpType::Advise; // cudaMemAdvise is not stream-ordered
                break;
            }
            case OpType::EventRecord:
                op.ownEvent = Event(cudaEventDisableTiming, op.context + ": event " + quoted(spec.event));
                op.namedEvent = op.ownEvent.get();
                break;
            case OpType::EventWait: break; // paired below, once every record has its event
            case OpType::Sync:
                op.hostOnly = true;
                if (spec.syncTarget == SyncTarget::Event) {
                    // paired below
                } else if (spec.syncTarget == SyncTarget::Stream) {
                    int target = at.stream;
                    if (!spec.syncStream.empty()) {
                        target = m_workload.findStream(spec.syncStream);
                        if (target < 0)
                            throw Error(ErrorKind::InvalidInput,
                                        op.context + ": no stream named " + quoted(spec.syncStream));
                    }
                    op.syncStream = m_streams[std::size_t(target)].get();
                }
                break;
            case OpType::HostWork: op.hostOnly = true; break;
            }

            if (!op.hostOnly && m_options.instrument) {
                op.begin = Event(cudaEventDefault, op.context + ": begin event");
                op.end = Event(cudaEventDefault, op.context + ": end event");
            }
        }
        useDevice(m_device.index);
        // Each wait and event sync waits for the one record it pairs with (workload.h, pairEventWaits).
        const std::vector<int> paired = pairEventWaits(m_workload);
        for (std::size_t i = 0; i < m_ops.size(); ++i) {
            PreparedOp &op = m_ops[i];
            const bool waits = op.spec->type == OpType::EventWait
                               || (op.spec->type == OpType::Sync && op.spec->syncTarget == SyncTarget::Event);
            if (!waits)
                continue;
            if (i >= paired.size() || paired[i] < 0)
                throw Error(ErrorKind::InvalidInput, op.context + ": event " + quoted(op.spec->event)
                                                         + " is not recorded before this wait (validate the workload)");
            op.pairedRecord = paired[i];
            op.namedEvent = m_ops[std::size_t(paired[i])].namedEvent;
            op.crossThread = m_ops[std::size_t(paired[i])].thread != op.thread;
        }
        for (std::size_t i = 0; i < m_ops.size(); ++i)
            m_threads[std::size_t(m_ops[i].thread)]->ops.push_back(i);
        m_opIssued = std::make_unique<std::atomic<bool>[]>(m_ops.size());
    }

    void decideHold()
    {
        const HoldDecision d = engine::decideHold(m_workload);
        m_hold = d.hold;
        m_holdReason = d.reason;
    }

    // -- calibration --------------------------------------------------------------------------------

    // Median duration (ns) of `samples` event pairs around `body` on `control`, the control stream of the
    // device being calibrated (current).
    template <typename Body> double timeOnControl(cudaStream_t control, const char *what, int samples, Body body)
    {
        const std::string context = std::string("calibration: ") + what;
        Event a(cudaEventDefault, context), b(cudaEventDefault, context);
        std::vector<double> ns;
        for (int i = 0; i < samples; ++i) {
            // Queue the events and the body behind a busy spin, so that the GPU finds them all waiting
            // (as it does in a held repetition) and the host's launch latency is not part of what is
            // timed: an isolated launch measures ~5 us of overhead on an H200, a queued one ~2.5 us.
            if (m_calibrationQueueCycles > 0)
                spinOnControl(control, m_calibrationQueueCycles);
            STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(a.get(), control));
            body();
            STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(b.get(), control));
            STREAMSCOPE_CUDA_CHECK(context, cudaEventSynchronize(b.get()));
            float ms = 0;
            STREAMSCOPE_CUDA_CHECK(context, cudaEventElapsedTime(&ms, a.get(), b.get()));
            ns.push_back(double(ms) * 1e6);
        }
        std::nth_element(ns.begin(), ns.begin() + std::ptrdiff_t(ns.size() / 2), ns.end());
        return ns[ns.size() / 2];
    }

    void spinOnControl(cudaStream_t control, std::int64_t cycles)
    {
        STREAMSCOPE_CUDA_CHECK("calibration: spin kernel", kernels::launchSpin(cycles, 1, 32, control));
    }

    // The spin kernel's duration as events see it is overhead + cycles / rate. The rate comes from the
    // slope between a short and a long spin (so the fixed cost cancels), the overhead from an empty one.
    // `device` is current, and `control` is its control stream.
    void calibrate(Calibration &c, const DeviceInfo &device, cudaStream_t control)
    {
        const double nominalHz = double(device.smClockKHz > 0 ? device.smClockKHz : 1'500'000) * 1e3;
        // Bring the clocks up from idle before measuring them.
        timeOnControl(control, "warm-up", 1, [&] { spinOnControl(control, std::int64_t(nominalHz * 0.05)); });
        m_calibrationQueueCycles = std::int64_t(nominalHz * 100e-6);

        c.eventPairOverheadNs = timeOnControl(control, "empty event pair", kCalibrationSamples, [] {});
        c.spinOverheadNs =
            timeOnControl(control, "empty spin kernel", kCalibrationSamples, [&] { spinOnControl(control, 0); });
        const auto shortCycles = std::int64_t(nominalHz * 1e-3);
        const auto longCycles = std::int64_t(nominalHz * 20e-3);
        std::vector<double> rates;
        for (int i = 0; i < 5; ++i) {
            const double tShort = timeOnControl(control, "short spin", 3, [&] { spinOnControl(control, shortCycles); });
            const double tLong = timeOnControl(control, "long spin", 1, [&] { spinOnControl(control, longCycles); });
            if (const double rate = clockRateFromSlope(shortCycles, tShort, longCycles, tLong); rate > 0)
                rates.push_back(rate);
        }
        if (rates.empty())
            throw Error(ErrorKind::Cuda, "calibration: the spin kernel's duration does not grow with its cycle count; "
                                         "clock64() or the event timer misbehaves on device "
                                             + std::to_string(device.index));
        std::nth_element(rates.begin(), rates.begin() + std::ptrdiff_t(rates.size() / 2), rates.end());
        c.smClockHz = rates[rates.size() / 2];
        if (m_tracer) {
            calibrateExecutionOverhead(c, control);
        } else {
            // Events see an empty spin as its execution plus the event pair around it; what is left
            // after the pair is as close to the kernel's own cost as events can tell (on an H200: 1.7 us,
            // where CUPTI sees 0.64 us). So a kernel of N us executes for about N us under events too,
            // and a run under nsys (events) runs the same work as a CUPTI-timed one.
            c.spinOverheadNs = std::max(0.0, c.spinOverheadNs - c.eventPairOverheadNs);
        }
    }

    // Timed by CUPTI, a kernel's duration is its execution alone: the launch and the event pair that the
    // event-timed overhead above holds are not in it. So the spin kernel's fixed cost is what CUPTI sees
    // of an empty one (external id 0 << 32: no repetition uses it), and a 10 us kernel executes for 10 us.
    void calibrateExecutionOverhead(Calibration &c, cudaStream_t control)
    {
        const std::string context = "calibration: empty spin kernel (CUPTI)";
        std::string why;
        for (int i = 0; i < kCalibrationSamples; ++i) {
            if (!m_tracer->push(1, why)) {
                fallBackToEvents("CUPTI failed during " + context + ": " + why);
                return;
            }
            const cudaError_t launched = kernels::launchSpin(0, 1, 32, control);
            const bool popped = m_tracer->pop(why);
            STREAMSCOPE_CUDA_CHECK(context, launched);
            if (!popped) {
                fallBackToEvents("CUPTI failed during " + context + ": " + why);
                return;
            }
        }
        STREAMSCOPE_CUDA_CHECK(context, cudaStreamSynchronize(control));
        cupti::Batch batch;
        if (!flushRecords(batch, context))
            return;
        std::vector<double> ns;
        for (const cupti::GpuRecord &g : batch.records)
            if (g.externalId == 1 && g.kind == cupti::GpuRecord::Kind::Kernel && g.endNs > g.startNs)
                ns.push_back(double(g.endNs - g.startNs));
        if (ns.empty())
            return; // keep the event-timed figure; the trace's kernels will say how they came out
        std::nth_element(ns.begin(), ns.begin() + std::ptrdiff_t(ns.size() / 2), ns.end());
        c.spinOverheadNs = ns[ns.size() / 2];
    }

    // The calibration that times a compute kernel on `device`.
    const Calibration &calibrationOf(int device) const
    {
        for (const auto &extra : m_extraDevices)
            if (extra->index == device)
                return extra->calibration;
        return m_trace.calibration;
    }

    // -- repetitions --------------------------------------------------------------------------------

    // Host time (ns) of the GPU moment at which m_anchorEvents[m_base] completed; see the file comment.
    // Every other device gets its own anchor the same way, on its own control stream: CUDA's event
    // clock is per device, so each device's GPU times are mapped onto the host axis separately.
    void anchor()
    {
        const auto windowsOn = [](const std::vector<Event> &events, cudaStream_t control, const std::string &context) {
            std::vector<AnchorWindow> windows;
            for (std::size_t i = 0; i < events.size(); ++i) {
                AnchorWindow w;
                w.beforeNs = hostNowNs();
                STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(events[i].get(), control));
                STREAMSCOPE_CUDA_CHECK(context, cudaEventSynchronize(events[i].get()));
                w.afterNs = hostNowNs();
                windows.push_back(w);
            }
            return narrowestAnchor(windows);
        };
        const ClockAnchor a = windowsOn(m_anchorEvents, m_control.get(), "clock anchor");
        m_base = a.index;
        m_baseHostNs = a.hostNs;
        m_anchorErrorNs = a.maxErrorNs;
        for (const auto &extra : m_extraDevices) {
            useDevice(extra->index);
            const ClockAnchor e = windowsOn(extra->anchorEvents, extra->control.get(),
                                            "device " + std::to_string(extra->index) + ": clock anchor");
            extra->base = e.index;
            extra->baseHostNs = e.hostNs;
            extra->anchorErrorNs = e.maxErrorNs;
        }
        useDevice(m_device.index);
    }

    // An event's GPU moment on the host axis, through the anchor of the device it was recorded on.
    std::int64_t gpuTime(cudaEvent_t event, const std::string &context, int device = -1) const
    {
        cudaEvent_t base = m_anchorEvents[m_base].get();
        std::int64_t baseHostNs = m_baseHostNs;
        if (device >= 0 && device != m_device.index)
            for (const auto &extra : m_extraDevices)
                if (extra->index == device) {
                    base = extra->anchorEvents[extra->base].get();
                    baseHostNs = extra->baseHostNs;
                }
        float ms = 0;
        STREAMSCOPE_CUDA_CHECK(context, cudaEventElapsedTime(&ms, base, event));
        return baseHostNs + std::llround(double(ms) * 1e6);
    }

    // Managed buffers start every repetition resident on the host, as a freshly initialised program's
    // data would be, so that each repetition shows the same migrations.
    void resetManagedBuffers()
    {
        for (auto &[name, buf] : m_buffers) {
            if (buf.kind() != BufferKind::Managed)
                continue;
            const std::string context = "buffer " + quoted(name) + ": moving it back to the host between repetitions";
            if (m_device.concurrentManagedAccess) {
                cudaMemLocation host{};
                host.type = cudaMemLocationTypeHost;
                host.id = 0;
                STREAMSCOPE_CUDA_CHECK(context, cudaMemPrefetchAsync(buf.get(), buf.size(), host, 0, m_control.get()));
                STREAMSCOPE_CUDA_CHECK(context, cudaStreamSynchronize(m_control.get()));
            } else {
                // Without concurrent managed access a host write migrates the page back.
                volatile unsigned char *p = buf.bytesAt(0);
                for (std::uint64_t i = 0; i < buf.size(); i += 4096)
                    p[i] = p[i];
            }
        }
    }

    void releaseHold()
    {
        if (m_holding) {
            *static_cast<volatile int *>(m_holdFlags.get()) = 1;
            m_holding = false;
        }
    }

    // Whether op `i` (an index into m_ops) runs in the current repetition: every op, but in a solo run only
    // the ops of the part running alone.
    bool inRun(std::size_t i) const { return m_soloPart < 0 || m_soloParts.opPart[i] == m_soloPart; }

    // After measured repetition `round`: each part of the workload alone, in order (Trace::solo).
    void runSoloRound(int round, int repetitions)
    {
        for (std::size_t part = 0; part < m_soloParts.names.size(); ++part) {
            checkCancel();
            m_watch.setPhase("solo baseline of part " + quoted(m_soloParts.names[part]) + " after repetition "
                             + std::to_string(round + 1));
            report(RunProgress::Phase::Measuring, round, repetitions,
                   "part " + quoted(m_soloParts.names[part]) + " alone");
            m_soloPart = int(part);
            try {
                runRepetition(round, /*measured=*/true);
            } catch (...) {
                m_soloPart = -1;
                throw;
            }
            m_soloPart = -1;
        }
        m_soloRoundsDone = round + 1;
    }

    void runRepetition(int index, bool measured)
    {
        const std::string solo = m_soloPart >= 0 ? "solo " + m_soloParts.names[std::size_t(m_soloPart)] + " " : "";
        const std::string label = solo + (measured ? "rep " : "warmup ") + std::to_string(index);
        const std::string context =
            (m_soloPart >= 0 ? "part " + quoted(m_soloParts.names[std::size_t(m_soloPart)]) + " alone after "
                             : std::string())
            + (measured ? "repetition " : "warm-up ") + std::to_string(index);
        if (m_hasManaged)
            resetManagedBuffers();
        for (const auto &extra : m_extraDevices) {
            useDevice(extra->index);
            STREAMSCOPE_CUDA_CHECK("device " + std::to_string(extra->index) + ": " + context, cudaDeviceSynchronize());
        }
        useDevice(m_device.index);
        STREAMSCOPE_CUDA_CHECK(context, cudaDeviceSynchronize());
        anchor();
        m_repSeq += 1;
        {
            const std::lock_guard lock(m_eventLogMutex);
            m_eventLog.clear();
        }
        m_repHostStartNs = hostNowNs();

        m_repLabel = label;
        NvtxRange range(m_options.nvtx, label.c_str(), kRepetitionColor);
        // Every stream waits on the repetition's start event; when held, that event follows the hold kernel.
        if (m_hold) {
            auto *flags = static_cast<volatile int *>(m_holdFlags.get());
            flags[0] = 0;
            flags[1] = 0;
            STREAMSCOPE_CUDA_CHECK(context, kernels::launchHold(const_cast<int *>(flags), const_cast<int *>(flags + 1),
                                                                kHoldTimeoutNs, m_control.get()));
            m_holding = true;
        }
        recordTimingEvent(m_repStart.get(), m_control.get(), context);
        // Each other device starts from its own start event, behind the primary's when held.
        for (const auto &extra : m_extraDevices) {
            useDevice(extra->index);
            if (m_hold)
                STREAMSCOPE_CUDA_CHECK(context, cudaStreamWaitEvent(extra->control.get(), m_repStart.get(), 0));
            recordTimingEvent(extra->repStart.get(), extra->control.get(), context);
        }
        useDevice(m_device.index);
        for (auto &thread : m_threads)
            thread->lastEvent.clear();
        if (m_hold) {
            for (std::size_t i = 0; i < m_streams.size(); ++i) {
                const int device = m_trace.streams[i].device;
                useDevice(device);
                cudaEvent_t start = repStartOn(device);
                STREAMSCOPE_CUDA_CHECK(context, cudaStreamWaitEvent(m_streams[i].get(), start, 0));
                // A held stream reaches its first op when the start event fires.
                if (canShareEvents(m_streams[i].get()))
                    m_threads[std::size_t(m_workload.streams[i].thread)]->lastEvent[{m_streams[i].get(), device}] =
                        start;
            }
            // The default streams: each thread's own, on each device (recorded on the issuing thread below).
            useDevice(m_device.index);
            if (m_threads.size() == 1) {
                for (const auto &end : m_threads[0]->defaultEnds) {
                    useDevice(end.device);
                    STREAMSCOPE_CUDA_CHECK(context, cudaStreamWaitEvent(defaultStream(), repStartOn(end.device), 0));
                    if (canShareEvents(defaultStream()))
                        m_threads[0]->lastEvent[{defaultStream(), end.device}] = repStartOn(end.device);
                }
                useDevice(m_device.index);
            }
        }

        Repetition rep;
        rep.index = index;
        rep.ops.resize(m_ops.size());
        for (std::size_t i = 0; i < m_ops.size(); ++i)
            m_opIssued[i].store(false);
        for (PendingOps &p : m_pending)
            p.next = 0;
        try {
            issueAndWait(rep, context);
        } catch (const Error &e) {
            rethrowWithFault(e);
        }
        const std::int64_t previousRepEndNs = m_repEndNs;
        m_repEndNs = hostNowNs();

        if (m_hold && static_cast<volatile int *>(m_holdFlags.get())[1] != 0)
            m_holdTimeouts += 1;
        if (!measured) {
            if (m_tracer) { // the warm-up's records are not kept, but must not pile up
                cupti::Batch discarded;
                takeRecords(discarded, context);
            }
            return;
        }
        recordRepetition(std::move(rep), context, previousRepEndNs);
    }

    cudaEvent_t repStartOn(int device) const
    {
        for (const auto &extra : m_extraDevices)
            if (extra->index == device)
                return extra->repStart.get();
        return m_repStart.get();
    }

    // Issues every op of the repetition (each workload thread its own, all released together), then
    // waits for the GPU to finish them.
    void issueAndWait(Repetition &rep, const std::string &context)
    {
        m_watch.setActivity("issuing the repetition's ops");
        m_streamEndUsed.assign(m_streamEnds.size(), {nullptr, m_device.index});
        if (m_threads.size() == 1) {
            issueThread(*m_threads[0], rep, context);
        } else {
            runOnThreads(rep, context);
        }
        if (m_cuptiBroken.load())
            fallBackToEvents(m_cuptiFailure);
        releaseHold();
        waitForGpu();
        // Errors of the queued work (a kernel fault, a failed copy) surface here.
        for (const auto &extra : m_extraDevices) {
            useDevice(extra->index);
            STREAMSCOPE_CUDA_CHECK("device " + std::to_string(extra->index) + ": " + context + ": waiting for the GPU",
                                   cudaDeviceSynchronize());
        }
        useDevice(m_device.index);
        STREAMSCOPE_CUDA_CHECK(context + ": waiting for the GPU", cudaDeviceSynchronize());
    }

    // One workload thread's part of a repetition, on the calling thread: its ops in its order, then its
    // streams' end events.
    void issueThread(ThreadState &thread, Repetition &rep, const std::string &context)
    {
        // A worker thread brackets its part in the repetition's range too: Nsight Systems keeps NVTX ranges
        // per thread, and its import finds an op's repetition in a range of the thread that issued it.
        NvtxRange range(m_options.nvtx && m_threads.size() > 1, m_repLabel.c_str(), kRepetitionColor);
        int current = -1;
        for (const std::size_t i : thread.ops) {
            if (!inRun(i))
                continue;
            checkCancel();
            if (m_issueAborted.load())
                throw Error(ErrorKind::Cancelled, kOtherThreadStopped);
            PreparedOp &op = m_ops[i];
            if (op.device != current) {
                useDevice(op.device);
                current = op.device;
            }
            if (op.crossThread)
                waitForRecord(op);
            issue(thread, op, rep.ops[i]);
            m_opIssued[i].store(true);
            if (op.spec->type == OpType::EventRecord) {
                const std::lock_guard lock(m_issueMutex);
                m_issueChanged.notify_all();
            }
        }
        // Each stream's end: its last op's end event where that is the last thing on it.
        for (std::size_t s = 0; s < m_streams.size(); ++s) {
            if (m_workload.streams[s].thread != thread.index)
                continue;
            const int device = m_trace.streams[s].device;
            const cudaStream_t handle = m_streams[s].get();
            const auto last = thread.lastEvent.find({handle, device});
            if (last != thread.lastEvent.end() && last->second != repStartOn(device)) {
                m_streamEndUsed[s] = {last->second, device};
            } else {
                useDevice(device);
                STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(m_streamEnds[s].get(), handle));
                m_streamEndUsed[s] = {m_streamEnds[s].get(), device};
            }
        }
        for (const auto &end : thread.defaultEnds) {
            useDevice(end.device);
            const auto last = thread.lastEvent.find({defaultStream(), end.device});
            if (last != thread.lastEvent.end() && last->second != repStartOn(end.device)) {
                m_streamEndUsed[end.slot] = {last->second, end.device};
            } else {
                STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(end.event.get(), defaultStream()));
                m_streamEndUsed[end.slot] = {end.event.get(), end.device};
            }
        }
        useDevice(thread.device);
    }

    // A wait on another thread's event: hold until that thread has issued the record it pairs with.
    void waitForRecord(const PreparedOp &op)
    {
        std::unique_lock lock(m_issueMutex);
        while (!m_opIssued[std::size_t(op.pairedRecord)].load()) {
            if (m_issueAborted.load())
                throw Error(ErrorKind::Cancelled, kOtherThreadStopped);
            checkCancel();
            m_issueChanged.wait_for(lock, std::chrono::milliseconds(1));
        }
    }

    // -- host threads ---------------------------------------------------------------------------------

    // One std::thread per workload thread, each bound to its device, started before anything is timed;
    // each repetition releases them together and waits until every one has issued its ops.
    void startThreads()
    {
        if (m_threads.size() < 2)
            return;
        m_trace.hostThreads.resize(m_threads.size());
        for (auto &thread : m_threads) {
            ThreadState *state = thread.get();
            state->worker = std::thread([this, state] { workerLoop(*state); });
        }
        // Wait until each has bound its device and said who it is.
        std::unique_lock lock(m_threadMutex);
        m_threadCv.wait(lock, [&] { return m_threadsReady == m_threads.size(); });
        for (auto &thread : m_threads) {
            if (!thread->startError.empty())
                throw Error(ErrorKind::Cuda,
                            "host thread " + quoted(m_workload.threadName(thread->index)) + ": " + thread->startError);
            m_trace.hostThreads[std::size_t(thread->index)] = {m_workload.threadName(thread->index), thread->tid};
        }
    }

    void stopThreads()
    {
        {
            const std::lock_guard lock(m_threadMutex);
            m_stopThreads = true;
        }
        m_threadCv.notify_all();
        for (auto &thread : m_threads)
            if (thread->worker.joinable())
                thread->worker.join();
    }

    void workerLoop(ThreadState &thread)
    {
        const int tid = int(syscall(SYS_gettid));
        thread.tid = std::uint64_t(tid);
        if (m_options.nvtx)
            nvtxNameOsThreadA(std::uint32_t(tid), m_workload.threadName(thread.index).c_str());
        const cudaError_t bound = cudaSetDevice(thread.device);
        if (bound != cudaSuccess) {
            thread.startError = "cudaSetDevice(" + std::to_string(thread.device) + "): " + cuda::errorText(bound);
            cudaGetLastError();
        }
        std::uint64_t seen = 0;
        {
            const std::lock_guard lock(m_threadMutex);
            m_threadsReady += 1;
        }
        m_threadCv.notify_all();
        for (;;) {
            {
                std::unique_lock lock(m_threadMutex);
                m_threadCv.wait(lock, [&] { return m_stopThreads || m_generation != seen; });
                if (m_stopThreads)
                    return;
                seen = m_generation;
            }
            std::exception_ptr failure;
            try {
                issueThread(thread, *m_currentRep, m_currentContext);
            } catch (...) {
                failure = std::current_exception();
                m_issueAborted.store(true);
            }
            {
                const std::lock_guard lock(m_threadMutex);
                // The error that stopped the others wins over their "another host thread stopped".
                const bool echo = failure && isEcho(failure);
                if (failure && (!m_threadFailure || (m_threadFailureIsEcho && !echo))) {
                    m_threadFailure = failure;
                    m_threadFailureIsEcho = echo;
                }
                m_threadsDone += 1;
            }
            m_threadCv.notify_all();
            {
                const std::lock_guard lock(m_issueMutex);
                m_issueChanged.notify_all();
            }
        }
    }

    static bool isEcho(const std::exception_ptr &failure)
    {
        try {
            std::rethrow_exception(failure);
        } catch (const Error &e) {
            return e.kind() == ErrorKind::Cancelled && std::string(e.what()) == kOtherThreadStopped;
        } catch (...) {
            return false;
        }
    }

    // Releases every workload thread on this repetition and waits until all have issued their ops;
    // rethrows the first error one of them met (the others stop at their next op).
    void runOnThreads(Repetition &rep, const std::string &context)
    {
        {
            const std::lock_guard lock(m_threadMutex);
            m_currentRep = &rep;
            m_currentContext = context;
            m_threadsDone = 0;
            m_threadFailure = nullptr;
            m_threadFailureIsEcho = false;
            m_issueAborted.store(false);
            m_generation += 1;
        }
        m_threadCv.notify_all();
        std::exception_ptr failure;
        {
            std::unique_lock lock(m_threadMutex);
            m_threadCv.wait(lock, [&] { return m_threadsDone == m_threads.size(); });
            failure = m_threadFailure;
            m_currentRep = nullptr;
        }
        if (failure)
            std::rethrow_exception(failure);
    }

    // A measured repetition's times, from its events and CUPTI's records.
    void recordRepetition(Repetition rep, const std::string &context, std::int64_t previousRepEndNs)
    {
        // The repetition's GPU span from one start event to the last stream's end event: the only GPU
        // timing when ops are not instrumented, and the like-for-like figure for the overhead benchmark.
        if (m_repetitionSpans.empty())
            m_firstBaseHostNs = m_baseHostNs;
        const std::int64_t start = gpuTime(m_repStart.get(), context);
        std::int64_t end = start;
        for (const auto &[e, device] : m_streamEndUsed)
            if (e)
                end = std::max(end, gpuTime(e, context, device));
        if (m_soloPart < 0)
            m_repetitionSpans.push_back(end - start);

        // Stream-ready and the event end from the events; execution from them too until CUPTI's
        // records replace it.
        for (std::size_t i = 0; i < m_ops.size(); ++i) {
            PreparedOp &op = m_ops[i];
            OpRecord &r = rep.ops[i];
            if (op.begin.get() && inRun(i)) {
                r.readyNs = gpuTime(op.beginUsed, op.context, op.device);
                r.eventEndNs = gpuTime(op.end.get(), op.context, op.device);
                r.gpuStartNs = r.readyNs;
                r.gpuEndNs = r.eventEndNs;
            }
        }
        m_eventsFromCupti.clear();
        if (m_tracer)
            applyRecords(rep, context, previousRepEndNs);
        // A device's events on the host axis: CUPTI's own moments where it gave every one (the same clock
        // as execution: no mapping error of StreamScope's), else the anchor, narrowed by causality.
        const auto eventError = [&](int device, std::int64_t anchorError) -> std::int64_t {
            if (const auto it = m_eventsFromCupti.find(device); it != m_eventsFromCupti.end() && it->second) {
                m_eventTimestampReps += 1;
                return 0;
            }
            return m_tracer ? alignEventsToRecords(rep, device, anchorError) : anchorError;
        };
        m_maxAnchorErrorNs = std::max(m_maxAnchorErrorNs, eventError(m_device.index, m_anchorErrorNs));
        for (const auto &extra : m_extraDevices)
            extra->maxAnchorErrorNs = std::max(extra->maxAnchorErrorNs, eventError(extra->index, extra->anchorErrorNs));
        for (OpRecord &r : rep.ops) {
            timeStagedPeer(r);
            if (isHostBlocking(r))
                r.flags |= OpFlagHostBlocking;
        }
        if (m_soloPart >= 0) {
            SoloRun run;
            run.part = m_soloPart;
            run.round = rep.index;
            for (std::size_t i = 0; i < rep.ops.size(); ++i)
                if (inRun(i))
                    run.ops.push_back(rep.ops[i]);
            m_trace.solo.runs.push_back(std::move(run));
            return;
        }
        m_trace.repetitions.push_back(std::move(rep));
    }

    // CUPTI times execution on the host clock itself (runner_cupti.h: a timestamp callback hands it the
    // steady clock); the events reach that axis through the device's anchor, within +-anchorErrorNs, and
    // the anchor's window is what this VM's synchronisation latency makes it (4-5 us on the GPU host).
    // Causality bounds the events' offset much closer: an op's stream-ready event completed before its
    // execution started, and its end event after its execution ended. Over the repetition's ops on
    // `device` that CUPTI timed, the tightest of these leave an interval of offsets; the device's event
    // times move to its middle, and its half-width is the error returned. Where the ops bound nothing, or
    // their bounds contradict each other, the anchor stands as it was.
    std::int64_t alignEventsToRecords(Repetition &rep, int device, std::int64_t anchorErrorNs)
    {
        std::vector<CausalSample> samples;
        for (std::size_t i = 0; i < m_ops.size(); ++i) {
            const PreparedOp &op = m_ops[i];
            const OpRecord &r = rep.ops[i];
            if (op.device == device && !op.hostOnly && expectsRecord(op.kind) && !r.executionFromEvents()
                && r.readyNs != kNoTime && r.eventEndNs != kNoTime && r.hasGpu())
                samples.push_back({r.readyNs, r.gpuStartNs, r.gpuEndNs, r.eventEndNs});
        }
        const EventAlignment a = alignEventsByCausality(samples, anchorErrorNs);
        if (!a.applied)
            return anchorErrorNs;
        for (std::size_t i = 0; i < m_ops.size(); ++i) {
            OpRecord &r = rep.ops[i];
            if (m_ops[i].device != device || r.readyNs == kNoTime)
                continue;
            // Execution copied from the event pair moves with it; CUPTI's stays.
            if (r.gpuStartNs == r.readyNs && r.gpuEndNs == r.eventEndNs) {
                r.gpuStartNs += a.shiftNs;
                r.gpuEndNs += a.shiftNs;
            }
            r.readyNs += a.shiftNs;
            if (r.eventEndNs != kNoTime)
                r.eventEndNs += a.shiftNs;
        }
        m_eventsAlignedToRecords += 1;
        return a.maxErrorNs;
    }

    // A staged peer copy (OpFlagStagedPeer) is timed as the interval its stream spent on it: CUPTI
    // records only two fragments of it (a D2H and an H2D of some 20 us that each claim all its bytes),
    // so its execution runs from the later of its call's start and stream-ready to its end event.
    static void timeStagedPeer(OpRecord &r)
    {
        if (!r.stagedPeer() || r.eventEndNs == kNoTime)
            return;
        std::int64_t start = r.readyNs != kNoTime ? r.readyNs : r.hostStartNs;
        if (r.hostStartNs != kNoTime)
            start = std::max(start, r.hostStartNs);
        if (start == kNoTime)
            return;
        r.gpuStartNs = start;
        r.gpuEndNs = std::max(start, r.eventEndNs);
    }

    // cudaEventRecord of one of the runner's timing events (stream-ready, end, a repetition's start). Where
    // CUPTI gives event timestamps, an external id around the call brings the moment the GPU reached the
    // event back on CUPTI's clock (applyEventTimestamps), the clock execution is on: no anchor between them.
    void recordTimingEvent(cudaEvent_t event, cudaStream_t stream, const std::string &context)
    {
        std::uint64_t id = 0;
        if (m_tracer && m_tracer->eventTimestamps() && !m_cuptiBroken.load()) {
            const std::lock_guard lock(m_eventLogMutex);
            m_eventLog.push_back(event);
            id = kEventRecordTag | (std::uint64_t(m_repSeq) << 32) | std::uint64_t(m_eventLog.size());
        }
        std::string why;
        const bool pushed = id != 0 && m_tracer->push(id, why);
        const cudaError_t err = cudaEventRecord(event, stream);
        if (pushed && !m_tracer->pop(why))
            noteCuptiFailure("CUPTI failed at " + context + ": " + why);
        STREAMSCOPE_CUDA_CHECK(context, err);
    }

    // The repetition's event moments as CUPTI recorded them become its ops' stream-ready and event end
    // (and the execution of ops timed by their events), replacing the anchor's mapping. Returns, per
    // device, whether every instrumented op of it got both its events from CUPTI.
    std::map<int, bool> applyEventTimestamps(Repetition &rep, const cupti::Batch &batch)
    {
        std::map<int, bool> whole;
        std::unordered_map<cudaEvent_t, std::int64_t> moment;
        {
            const std::lock_guard lock(m_eventLogMutex);
            for (const cupti::GpuRecord &g : batch.records) {
                if (g.kind != cupti::GpuRecord::Kind::Event || !(g.externalId & kEventRecordTag)
                    || ((g.externalId & ~kEventRecordTag) >> 32) != m_repSeq)
                    continue;
                const std::uint64_t slot = (g.externalId & 0xffffffffu) - 1;
                if (slot < m_eventLog.size())
                    moment[m_eventLog[slot]] = g.startNs;
            }
        }
        // A check of CUPTI's conversion against the anchor's: per device, the median difference must lie
        // within what the anchor can be off by (a few us; 50 us allows for a noisy host). A CUPTI that gave
        // raw GPU timestamps would be off by far more, and is not used.
        std::map<int, std::vector<std::int64_t>> offsets;
        for (std::size_t i = 0; i < m_ops.size(); ++i)
            if (m_ops[i].begin.get())
                if (const auto b = moment.find(m_ops[i].beginUsed); b != moment.end() && rep.ops[i].readyNs != kNoTime)
                    offsets[m_ops[i].device].push_back(b->second - rep.ops[i].readyNs);
        std::map<int, bool> agrees;
        for (auto &[device, d] : offsets) {
            std::nth_element(d.begin(), d.begin() + std::ptrdiff_t(d.size() / 2), d.end());
            agrees[device] = std::llabs(d[d.size() / 2]) <= 50'000;
            if (!agrees[device])
                m_trace.metadata["clock_events_refused.device" + std::to_string(device)] =
                    "CUPTI's event timestamps differed from the anchor's mapping by " + std::to_string(d[d.size() / 2])
                    + " ns (median): the anchor was kept";
        }
        for (std::size_t i = 0; i < m_ops.size(); ++i) {
            const PreparedOp &op = m_ops[i];
            if (!op.begin.get())
                continue;
            OpRecord &r = rep.ops[i];
            const auto b = moment.find(op.beginUsed), e = moment.find(op.end.get());
            const bool both = b != moment.end() && e != moment.end() && agrees[op.device];
            whole.try_emplace(op.device, true).first->second &= both;
            if (!both)
                continue;
            // Until CUPTI's execution records are applied, every op's execution is its event pair.
            r.readyNs = r.gpuStartNs = b->second;
            r.eventEndNs = r.gpuEndNs = e->second;
        }
        return whole;
    }

    void issue(ThreadState &thread, PreparedOp &op, OpRecord &r)
    {
        const OpSpec &spec = *op.spec;
        r.nameId = op.nameId;
        r.kind = op.kind;
        r.srcMem = op.srcMem;
        r.dstMem = op.dstMem;
        r.api = spec.type == OpType::Copy ? spec.api : CopyApi::None;
        r.bytes = op.bytes;
        r.srcDevice = static_cast<std::int8_t>(op.srcDevice); // -1 but for peer copies; devices are < 64
        r.dstDevice = static_cast<std::int8_t>(op.dstDevice);
        if (op.stagedPeer)
            r.flags |= OpFlagStagedPeer;
        r.opIndex = int(&op - m_ops.data());
        r.stream = op.hostOnly ? -1 : op.stream;
        r.hostThread = thread.index;

        const std::pair<cudaStream_t, int> key{op.gpuStream, op.device};
        if (op.begin.get()) {
            const auto last = thread.lastEvent.find(key);
            if (last != thread.lastEvent.end()) {
                op.beginUsed = last->second;
            } else {
                recordTimingEvent(op.begin.get(), op.gpuStream, op.context);
                op.beginUsed = op.begin.get();
            }
        }
        {
            NvtxRange range(m_options.nvtx, op.name.c_str(), opColor(op.kind));
            const bool traced = tiedToCupti(op);
            std::string why;
            bool pushed = false;
            if (traced) {
                pushed = m_tracer->push(externalId(op), why);
                if (!pushed)
                    noteCuptiFailure("CUPTI failed at " + op.context + ": " + why);
            }
            thread.inCall.store(int(&op - m_ops.data()), std::memory_order_relaxed);
            r.hostStartNs = hostNowNs();
            try {
                call(op);
            } catch (...) {
                thread.inCall.store(-1, std::memory_order_relaxed);
                if (pushed)
                    m_tracer->pop(why);
                throw;
            }
            r.hostEndNs = hostNowNs();
            thread.inCall.store(-1, std::memory_order_relaxed);
            if (pushed && !m_tracer->pop(why))
                noteCuptiFailure("CUPTI failed at " + op.context + ": " + why);
        }
        if (op.end.get()) {
            recordTimingEvent(op.end.get(), op.gpuStream, op.context);
            if (canShareEvents(op.gpuStream))
                thread.lastEvent[key] = op.end.get();
            else
                thread.lastEvent.erase(key);
        } else if (!op.hostOnly) {
            thread.lastEvent.erase(key); // uninstrumented work was enqueued there
        }
    }

    // CUPTI refused a push or a pop on some host thread: no op is tied to it from now on, and once the
    // threads have issued the repetition the run falls back to events, saying why (the first reason).
    void noteCuptiFailure(const std::string &why)
    {
        const std::lock_guard lock(m_issueMutex);
        if (!m_cuptiBroken.exchange(true))
            m_cuptiFailure = why;
    }

    // Whether an event recorded earlier on `stream` marks the moment its next op starts. Not on the
    // legacy default stream, nor on blocking streams in legacy mode: there the next op may also wait
    // for other streams (implicit synchronisation), which only an event recorded just before it sees.
    bool canShareEvents(cudaStream_t stream) const
    {
        if (stream == cudaStreamLegacy || stream == nullptr)
            return false;
        if (m_workload.defaultStream == DefaultStreamMode::PerThread)
            return true;
        for (std::size_t i = 0; i < m_streams.size(); ++i)
            if (m_streams[i].get() == stream)
                return m_trace.streams[i].nonBlocking;
        if (stream == m_control.get())
            return true;
        for (const auto &extra : m_extraDevices)
            if (stream == extra->control.get())
                return true;
        return false;
    }

    // The op's one API call (or host spin), exactly as a program would make it.
    void call(PreparedOp &op)
    {
        const OpSpec &spec = *op.spec;
        const std::string &context = op.context;
        switch (spec.type) {
        case OpType::Copy: {
            cudaMemcpyKind kind = cudaMemcpyDefault;
            switch (spec.direction) {
            case CopyDirection::H2D: kind = cudaMemcpyHostToDevice; break;
            case CopyDirection::D2H: kind = cudaMemcpyDeviceToHost; break;
            case CopyDirection::D2D: kind = cudaMemcpyDeviceToDevice; break;
            case CopyDirection::H2H: kind = cudaMemcpyHostToHost; break;
            case CopyDirection::P2P:
                // Direct where peer access is enabled; staged through host memory by the driver where not.
                STREAMSCOPE_CUDA_CHECK(
                    context, cudaMemcpyPeerAsync(op.dst, op.dstDevice, op.src, op.srcDevice, spec.bytes, op.gpuStream));
                return;
            }
            if (spec.api == CopyApi::Async)
                STREAMSCOPE_CUDA_CHECK(context, cudaMemcpyAsync(op.dst, op.src, spec.bytes, kind, op.gpuStream));
            else if (m_workload.defaultStream == DefaultStreamMode::PerThread)
                STREAMSCOPE_CUDA_CHECK(context, cudaMemcpy_ptds(op.dst, op.src, spec.bytes, kind));
            else
                STREAMSCOPE_CUDA_CHECK(context, cudaMemcpy(op.dst, op.src, spec.bytes, kind));
            break;
        }
        case OpType::Kernel:
            switch (spec.kernelType) {
            case KernelType::Compute:
                STREAMSCOPE_CUDA_CHECK(
                    context, kernels::launchSpin(op.spinCycles, spec.blocks, spec.threadsPerBlock, op.gpuStream));
                break;
            case KernelType::Memory:
                STREAMSCOPE_CUDA_CHECK(context, kernels::launchMemory(op.target, op.bytes, spec.blocks,
                                                                      spec.threadsPerBlock, op.gpuStream));
                break;
            case KernelType::Hang:
                STREAMSCOPE_CUDA_CHECK(
                    context, kernels::launchHang(kHangCapNs, spec.blocks, spec.threadsPerBlock, op.gpuStream));
                break;
            case KernelType::Fault:
                STREAMSCOPE_CUDA_CHECK(context, kernels::launchFault(spec.blocks, spec.threadsPerBlock, op.gpuStream));
                break;
            }
            break;
        case OpType::Memset:
            STREAMSCOPE_CUDA_CHECK(context, cudaMemsetAsync(op.target, spec.value, op.bytes, op.gpuStream));
            break;
        case OpType::EventRecord: STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(op.namedEvent, op.gpuStream)); break;
        case OpType::EventWait:
            STREAMSCOPE_CUDA_CHECK(context, cudaStreamWaitEvent(op.gpuStream, op.namedEvent, 0));
            break;
        case OpType::Sync:
            switch (spec.syncTarget) {
            case SyncTarget::Stream: STREAMSCOPE_CUDA_CHECK(context, cudaStreamSynchronize(op.syncStream)); break;
            case SyncTarget::Event: STREAMSCOPE_CUDA_CHECK(context, cudaEventSynchronize(op.namedEvent)); break;
            case SyncTarget::Device: STREAMSCOPE_CUDA_CHECK(context, cudaDeviceSynchronize()); break;
            }
            break;
        case OpType::Prefetch:
            STREAMSCOPE_CUDA_CHECK(context,
                                   cudaMemPrefetchAsync(op.target, op.bytes, location(spec.location), 0, op.gpuStream));
            break;
        case OpType::Advise:
            STREAMSCOPE_CUDA_CHECK(context,
                                   cudaMemAdvise(op.target, op.bytes, adviceOf(spec.advise), location(spec.location)));
            break;
        case OpType::Attach: {
            unsigned flags = cudaMemAttachSingle;
            if (spec.attach == AttachKind::Global)
                flags = cudaMemAttachGlobal;
            else if (spec.attach == AttachKind::Host)
                flags = cudaMemAttachHost;
            // Length 0: the whole allocation, which is what cudaMallocManaged memory requires.
            STREAMSCOPE_CUDA_CHECK(context, cudaStreamAttachMemAsync(op.gpuStream, op.target, 0, flags));
            break;
        }
        case OpType::HostWork: {
            const std::int64_t until = hostNowNs() + spec.hostNs;
            while (hostNowNs() < until) { }
            break;
        }
        }
    }

    static cudaMemLocation location(int where)
    {
        cudaMemLocation loc{};
        if (where < 0) {
            loc.type = cudaMemLocationTypeHost;
            loc.id = 0;
        } else {
            loc.type = cudaMemLocationTypeDevice;
            loc.id = where;
        }
        return loc;
    }

    static cudaMemoryAdvise adviceOf(AdviseKind kind)
    {
        switch (kind) {
        case AdviseKind::SetReadMostly: return cudaMemAdviseSetReadMostly;
        case AdviseKind::UnsetReadMostly: return cudaMemAdviseUnsetReadMostly;
        case AdviseKind::SetPreferredLocation: return cudaMemAdviseSetPreferredLocation;
        case AdviseKind::UnsetPreferredLocation: return cudaMemAdviseUnsetPreferredLocation;
        case AdviseKind::SetAccessedBy: return cudaMemAdviseSetAccessedBy;
        case AdviseKind::UnsetAccessedBy: return cudaMemAdviseUnsetAccessedBy;
        }
        return cudaMemAdviseSetReadMostly;
    }

    void finishMetadata()
    {
        m_trace.source = "streamscope";
        m_trace.title = m_workload.name;
        m_trace.toolVersion = STREAMSCOPE_VERSION;
        char host[256] = {};
        if (gethostname(host, sizeof host - 1) == 0)
            m_trace.hostName = host;
        const std::time_t now = std::time(nullptr);
        std::tm utc{};
        gmtime_r(&now, &utc);
        char stamp[32];
        std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
        m_trace.createdUtc = stamp;
        // host_ns = ns since the first measured repetition's base event + this offset.
        m_trace.calibration.gpuToHostOffsetNs = m_firstBaseHostNs;

        auto &md = m_trace.metadata;
        md["device"] = std::to_string(m_device.index);
        md["instrumented"] = m_options.instrument ? "yes" : "no";
        md["nvtx"] = m_options.nvtx ? "yes" : "no";
        md["hold"] = std::string(m_hold ? "yes: " : "no: ") + m_holdReason;
        if (m_holdTimeouts > 0)
            md["hold_timeouts"] = std::to_string(m_holdTimeouts);
        md["clock_anchor"] = "per repetition: base event after cudaDeviceSynchronize; host time = midpoint of "
                             "[cudaEventRecord, cudaEventSynchronize return], narrowest of "
                             + std::to_string(kAnchorTries) + " tries";
        if (m_eventTimestampReps > 0)
            md["clock_events"] = "stream-ready and end events timed by CUPTI (CUDA event records with device "
                                 "timestamps, on execution's clock) in "
                                 + std::to_string(m_eventTimestampReps) + " device-repetitions";
        if (m_eventsAlignedToRecords > 0)
            md["clock_alignment"] = "events aligned to CUPTI's records by causality (stream-ready before execution, "
                                    "end event after it) in "
                                    + std::to_string(m_eventsAlignedToRecords) + " device-repetitions";
        // Each device's GPU times are mapped onto the host axis by an anchor of their own (CUDA's event
        // clock is per device): each mapping's worst error over the measured repetitions.
        std::int64_t worst = m_maxAnchorErrorNs;
        md["clock.device" + std::to_string(m_device.index) + ".errorNs"] = std::to_string(m_maxAnchorErrorNs);
        for (const auto &extra : m_extraDevices) {
            md["clock.device" + std::to_string(extra->index) + ".errorNs"] = std::to_string(extra->maxAnchorErrorNs);
            // The trace's calibration is the primary device's; every other device's spin rate goes beside it.
            char hz[32];
            std::snprintf(hz, sizeof hz, "%.0f", extra->calibration.smClockHz);
            md["calibration.device" + std::to_string(extra->index) + ".smClockHz"] = hz;
            worst = std::max(worst, extra->maxAnchorErrorNs);
        }
        md["clock_anchor_max_error_ns"] = std::to_string(worst);
        if (m_used.size() > 1) {
            std::string list;
            for (const int d : m_used)
                list += (list.empty() ? "" : ",") + std::to_string(d);
            md["devices"] = list;
        }
        if (m_solo)
            md["solo"] = std::to_string(m_soloParts.names.size()) + " parts, each alone after each of "
                         + std::to_string(m_soloRoundsDone) + " measured repetitions";
        md["host_threads"] = std::to_string(m_threads.size());
        std::string spans;
        for (std::int64_t s : m_repetitionSpans)
            spans += (spans.empty() ? "" : ",") + std::to_string(s);
        md["repetition_gpu_span_ns"] = spans;
        md["default_stream"] = m_workload.defaultStream == DefaultStreamMode::PerThread ? "per-thread" : "legacy";
        md["timing"] = std::string(toString(m_trace.timing));
        md["max_connections"] = std::to_string(m_connections)
                                + (m_workload.maxConnections > 0                ? " (the workload's maxConnections)"
                                   : std::getenv("CUDA_DEVICE_MAX_CONNECTIONS") ? " (CUDA_DEVICE_MAX_CONNECTIONS)"
                                                                                : " (CUDA's default)");
        if (m_trace.timing == TimingSource::Cupti) {
            md["cupti"] = m_cuptiDescription;
            // Every measured repetition moves the managed buffers (the runner sends them back to the
            // host first), so a run with none of their records did not get them: say so.
            if (m_tracer && m_tracer->unifiedMemory() && m_unifiedMemoryRecords == 0 && !m_trace.repetitions.empty())
                md["unified_memory_records"] = "enabled, but CUPTI delivered none in this run";
            if (m_unifiedMemoryRetries > 0)
                md["unified_memory_retries"] = std::to_string(m_unifiedMemoryRetries)
                                               + " repetitions ran again: CUPTI had lost part of their unified-memory "
                                                 "records (a prefetch to the GPU came without all its migrations, or "
                                                 "migrations on demand without their page faults)";
            if (!m_unifiedMemoryIncomplete.empty()) {
                std::string list;
                for (const int r : m_unifiedMemoryIncomplete)
                    list += (list.empty() ? "" : ", ") + std::to_string(r + 1);
                md["unified_memory_incomplete_repetitions"] =
                    "repetitions " + list + " lack part of their unified-memory records after "
                    + std::to_string(kUnifiedMemoryAttempts) + " attempts each (CUPTI lost them)";
                m_trace.timingNote +=
                    (m_trace.timingNote.empty() ? "" : "; ") + md["unified_memory_incomplete_repetitions"];
            }
            if (m_incompleteUnifiedMemoryRecords > 0)
                md["unified_memory_incomplete_records"] =
                    std::to_string(m_incompleteUnifiedMemoryRecords)
                    + " unified-memory records came without a start time and are left out";
            if (m_lateUnifiedMemoryRecords > 0)
                md["unified_memory_late_records"] =
                    std::to_string(m_lateUnifiedMemoryRecords)
                    + " unified-memory records came after their repetition had been recorded and are left out";
            if (m_missingRecords > 0) {
                md["cupti_missing_records"] = std::to_string(m_missingRecords);
                m_trace.timingNote = std::to_string(m_missingRecords)
                                     + " ops had no CUPTI record and keep their event timing (flagged event-timed)";
            }
        }
    }

    const Workload &m_workload;
    const RunOptions &m_options;
    const ProgressCallback &m_progress;
    RunWatchdog &m_watch;
    bool m_settled = false;
    bool m_abandoned = false;
    int m_override = -1; // RunOptions::device: the default device instead of the workload's
    std::vector<int> m_used; // the devices the run uses
    std::vector<std::pair<int, int>> m_peerEnabled; // (device, peer) pairs this run enabled peer access for

    // A device other than the primary one: its control stream, its clock anchor and its start event.
    struct ExtraDevice {
        int index = 0;
        Stream control;
        std::vector<Event> anchorEvents;
        Event repStart;
        std::size_t base = 0;
        std::int64_t baseHostNs = 0;
        std::int64_t anchorErrorNs = 0; // this repetition's anchor, before alignEventsToRecords
        std::int64_t maxAnchorErrorNs = 0; // over the measured repetitions, after it
        Calibration calibration; // its spin kernel's, measured on its control stream
    };
    std::vector<std::unique_ptr<ExtraDevice>> m_extraDevices;

    // A workload thread: the ops it issues (indices into m_ops, in its order), its event sharing, the op
    // whose API call it is in (for the watchdog's thread), its default streams' end events, and, where
    // the workload has several threads, the std::thread that issues them.
    struct DefaultEnd {
        int device = 0;
        std::size_t slot = 0; // its place in m_streamEnds / m_streamEndUsed
        Event event;
    };
    struct PairHash {
        std::size_t operator()(const std::pair<cudaStream_t, int> &k) const
        {
            return std::hash<const void *>()(k.first) ^ (std::size_t(k.second) * 0x9e3779b97f4a7c15ull);
        }
    };
    struct ThreadState {
        int index = 0;
        int device = 0;
        std::uint64_t tid = 0;
        std::vector<std::size_t> ops;
        // Event sharing (below), per (stream, device): a stream is driven by one thread, and the default
        // stream's handle means the calling thread's (per-thread) or the current device's.
        std::unordered_map<std::pair<cudaStream_t, int>, cudaEvent_t, PairHash> lastEvent;
        std::atomic<int> inCall{-1};
        std::vector<DefaultEnd> defaultEnds;
        std::thread worker;
        std::string startError;
    };
    std::vector<std::unique_ptr<ThreadState>> m_threads;
    std::mutex m_threadMutex;
    std::condition_variable m_threadCv;
    std::size_t m_threadsReady = 0;
    std::size_t m_threadsDone = 0;
    std::uint64_t m_generation = 0;
    bool m_stopThreads = false;
    std::exception_ptr m_threadFailure;
    bool m_threadFailureIsEcho = false;
    static constexpr const char *kOtherThreadStopped = "another host thread of the run stopped";
    Repetition *m_currentRep = nullptr;
    std::string m_currentContext;
    // Which ops of the repetition have been issued; a cross-thread wait holds on it (m_issueChanged).
    std::unique_ptr<std::atomic<bool>[]> m_opIssued;
    std::mutex m_issueMutex;
    std::condition_variable m_issueChanged;
    std::atomic<bool> m_issueAborted{false};
    std::atomic<bool> m_cuptiBroken{false};
    std::string m_cuptiFailure;
    // Per stream, the repetition's instrumented ops and how far the GPU got through them (waitForGpu),
    // to say which op a fault or a time limit found unfinished.
    struct PendingOps {
        cudaStream_t stream = nullptr;
        std::vector<std::size_t> ops;
        std::size_t next = 0;
    };
    std::vector<PendingOps> m_pending;
    bool issued(std::size_t op) const { return m_opIssued && m_opIssued[op].load(); }

    Trace m_trace;
    DeviceInfo m_device;

    // Destroyed last: tracing stops after everything the run queued has finished.
    std::unique_ptr<cupti::Tracer> m_tracer;
    std::string m_cuptiDescription;
    std::uint32_t m_repSeq = 0; // repetitions issued so far, warm-ups included: the high half of external ids
    int m_missingRecords = 0;
    bool m_solo = false; // solo baselines: RunOptions::solo, or the workload asks for them
    SoloParts m_soloParts; // RunOptions::solo: the workload's parts
    int m_soloPart = -1; // the part running alone in the current repetition, -1 in the mix
    int m_soloRoundsDone = 0; // measured repetitions followed by every part alone
    int m_connections = 8; // CUDA_DEVICE_MAX_CONNECTIONS in force

    // Declaration order is release order reversed: events and streams go before the buffers.
    std::map<std::string, Buffer> m_buffers;
    Buffer m_holdFlags;
    Stream m_control;
    std::vector<Stream> m_streams;
    std::vector<Event> m_anchorEvents;
    Event m_repStart;
    std::vector<Event> m_streamEnds; // one per workload stream, then the default stream
    std::int64_t m_calibrationQueueCycles = 0;
    // Event sharing: a timing event costs ~1.5 us of GPU time on the stream that records it, so an
    // op's begin reuses the last event recorded on its stream when nothing was enqueued there since
    // (the previous op's end, or the held repetition's start). Only on streams that cannot be held up
    // by the legacy default stream's implicit synchronisation, where a fresh begin event would differ.
    std::vector<std::pair<cudaEvent_t, int>> m_streamEndUsed; // each stream's end event and its device
    std::vector<int> m_streamEndDevice;
    std::vector<PreparedOp> m_ops;

    bool m_hasManaged = false;
    std::int64_t m_repHostStartNs = 0; // when the current repetition began on the host
    std::uint64_t m_unifiedMemoryRecords = 0; // over the measured repetitions, those dropped included
    std::uint64_t m_lateUnifiedMemoryRecords = 0; // came after their repetition had been recorded
    std::uint64_t m_incompleteUnifiedMemoryRecords = 0; // came without a start time
    std::int64_t m_repEndNs = 0; // when the last repetition's work was done, on the host
    static constexpr int kUnifiedMemoryAttempts = 5;
    bool m_unifiedMemoryLost = false; // the repetition just run lacks unified-memory records
    int m_unifiedMemoryRetries = 0;
    std::vector<int> m_unifiedMemoryIncomplete; // repetitions that still lacked them after every attempt
    bool m_hold = false;
    bool m_holding = false;
    std::string m_holdReason;
    int m_holdTimeouts = 0;
    std::size_t m_base = 0;
    std::int64_t m_baseHostNs = 0;
    std::int64_t m_firstBaseHostNs = 0;
    std::int64_t m_anchorErrorNs = 0; // this repetition's anchor, before alignEventsToRecords
    std::int64_t m_maxAnchorErrorNs = 0; // over the measured repetitions, after it
    std::string m_repLabel; // the repetition's NVTX range: "rep N" or "warmup N"
    // The runner's timing events recorded in this repetition, in order (recordTimingEvent), for CUPTI's
    // event records to find; several host threads record them.
    std::mutex m_eventLogMutex;
    std::vector<cudaEvent_t> m_eventLog;
    std::map<int, bool> m_eventsFromCupti; // this repetition: per device, every op's events timed by CUPTI
    int m_eventTimestampReps = 0; // device-repetitions whose events all came from CUPTI
    int m_eventsAlignedToRecords = 0; // device-repetitions whose events alignEventsToRecords moved
    std::vector<std::int64_t> m_repetitionSpans;
};

} // namespace

bool runnerHasCuda()
{
    return true;
}

std::vector<DeviceInfo> listDevices()
{
    return queryDevices();
}

Trace runWorkload(const Workload &workload, const RunOptions &options, const ProgressCallback &progress,
                  const std::atomic<bool> *cancel)
{
    if (!g_stickyError.empty())
        throw Error(ErrorKind::Cuda, "CUDA cannot be used again in this process: an earlier run ended with a sticky "
                                     "error ("
                                         + g_stickyError
                                         + "), after which CUDA's documentation says the process must end; run it "
                                           "in a new process (streamscope-cli run starts one for every run)");
    const bool fromOptions = options.timeLimitNs >= 0;
    const std::int64_t limit = fromOptions ? options.timeLimitNs : workload.timeLimitNs;
    RunWatchdog watch(workload.name, limit, fromOptions ? "the run's time limit" : "the workload's \"timeLimit\"",
                      cancel, kWatchdogGraceNs, options.onAbandon);
    try {
        CudaRun run(workload, options, progress, watch);
        try {
            Trace trace = run.run();
            watch.finished();
            return trace;
        } catch (const Error &e) {
            run.settle(&e);
            throw;
        }
    } catch (const Error &e) {
        watch.finished();
        // Everything the run created is released by now. A sticky error (a kernel fault) leaves the
        // context unusable: CUDA's documentation says the process must end before CUDA works again. Reset
        // the device (which frees its memory at once) and refuse later runs in this process plainly.
        if (e.kind() == ErrorKind::Cuda) {
            const cudaError_t state = cudaDeviceSynchronize();
            cudaGetLastError();
            if (state != cudaSuccess) {
                g_stickyError = cuda::errorText(state);
                cudaDeviceReset();
                cudaGetLastError();
            }
        }
        throw;
    } catch (...) {
        watch.finished();
        throw;
    }
}

} // namespace streamscope::engine
