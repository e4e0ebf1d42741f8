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

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
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
#include "engine/run/issue_threads.h"
#include "engine/run/pcie_link.h"
#include "engine/run/record_matching.h"
#include "engine/run/repetition_clock.h"
#include "engine/run/run_plan.h"
#include "engine/run/run_watchdog.h"
#include "engine/run/runner_calls.h"
#include "engine/run/runner_cupti.h"
#include "engine/run/settling.h"
#include "engine/run/topology.h"
#include "engine/workload/solo_parts.h"
#include "kernels/kernels.cuh"

namespace streamscope::engine {

namespace {

using cuda::Buffer;
using cuda::Event;
using cuda::Stream;

constexpr int kAnchorTries = 5;
constexpr int kCalibrationSamples = 15;
// A held repetition is released by the host at once after queueing (see hold_policy.h for when
// streams are held); the time-out only guards against a host that blocked anyway, so that nothing can hang.
constexpr std::uint64_t kHoldTimeoutNs = 2'000'000'000;

// Set once a run left the CUDA context with a sticky error (a kernel fault): CUDA's documentation says
// the process must end before CUDA can be used again, so later runs in this process refuse plainly.
std::string g_stickyError;

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

// The memory check (run_plan.h) against what the current device has free.
void checkDeviceMemory(const Workload &part, const DeviceInfo &device, bool all)
{
    std::size_t freeBytes = 0, totalBytes = 0;
    STREAMSCOPE_CUDA_CHECK("device " + std::to_string(device.index) + ": free memory",
                           cudaMemGetInfo(&freeBytes, &totalBytes));
    checkMemoryFits(part, device, all, freeBytes, totalBytes, hostMemoryAvailable);
}

// Makes `device` current on the calling thread (cudaSetDevice), naming it when that fails.
void useDevice(int device)
{
    STREAMSCOPE_CUDA_CHECK("device " + std::to_string(device) + ": cudaSetDevice", cudaSetDevice(device));
}

std::uint64_t addressOf(const void *p)
{
    return reinterpret_cast<std::uintptr_t>(p);
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
// Calibration of the spin kernel, on each device's control stream

class SpinCalibrator {
public:
    // `tracer` is the run's (null: timed by events); `fallBack` gives it up, saying why, where CUPTI fails.
    SpinCalibrator(const std::unique_ptr<cupti::Tracer> &tracer, std::function<void(const std::string &)> fallBack) :
        m_tracer(tracer), m_fallBack(std::move(fallBack))
    {
    }

    // The spin kernel's duration as events see it is overhead + cycles / rate. The rate comes from the
    // slope between a short and a long spin (so the fixed cost cancels), the overhead from an empty one.
    // `device` is current, and `control` is its control stream.
    void calibrate(Calibration &c, const DeviceInfo &device, cudaStream_t control)
    {
        const double nominalHz = double(device.smClockKHz > 0 ? device.smClockKHz : 1'500'000) * 1e3;
        // Bring the clocks up from idle before measuring them.
        timeOnControl(control, "warm-up", 1, [&] { spin(control, std::int64_t(nominalHz * 0.05)); });
        m_queueCycles = std::int64_t(nominalHz * 100e-6);

        c.eventPairOverheadNs = timeOnControl(control, "empty event pair", kCalibrationSamples, [] {});
        c.spinOverheadNs = timeOnControl(control, "empty spin kernel", kCalibrationSamples, [&] { spin(control, 0); });
        const auto shortCycles = std::int64_t(nominalHz * 1e-3);
        const auto longCycles = std::int64_t(nominalHz * 20e-3);
        std::vector<double> rates;
        for (int i = 0; i < 5; ++i) {
            const double tShort = timeOnControl(control, "short spin", 3, [&] { spin(control, shortCycles); });
            const double tLong = timeOnControl(control, "long spin", 1, [&] { spin(control, longCycles); });
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
            executionOverhead(c, control);
        } else {
            // Events see an empty spin as its execution plus the event pair around it; what is left
            // after the pair is as close to the kernel's own cost as events can tell (on an H200: 1.7 us,
            // where CUPTI sees 0.64 us). So a kernel of N us executes for about N us under events too,
            // and a run under nsys (events) runs the same work as a CUPTI-timed one.
            c.spinOverheadNs = std::max(0.0, c.spinOverheadNs - c.eventPairOverheadNs);
        }
    }

private:
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
            if (m_queueCycles > 0)
                spin(control, m_queueCycles);
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

    static void spin(cudaStream_t control, std::int64_t cycles)
    {
        STREAMSCOPE_CUDA_CHECK("calibration: spin kernel", kernels::launchSpin(cycles, 1, 32, control));
    }

    // Timed by CUPTI, a kernel's duration is its execution alone: the launch and the event pair that the
    // event-timed overhead above holds are not in it. So the spin kernel's fixed cost is what CUPTI sees
    // of an empty one (external id 0 << 32: no repetition uses it), and a 10 us kernel executes for 10 us.
    void executionOverhead(Calibration &c, cudaStream_t control)
    {
        const std::string context = "calibration: empty spin kernel (CUPTI)";
        std::string why;
        for (int i = 0; i < kCalibrationSamples; ++i) {
            if (!m_tracer->push(1, why)) {
                m_fallBack("CUPTI failed during " + context + ": " + why);
                return;
            }
            const cudaError_t launched = kernels::launchSpin(0, 1, 32, control);
            const bool popped = m_tracer->pop(why);
            STREAMSCOPE_CUDA_CHECK(context, launched);
            if (!popped) {
                m_fallBack("CUPTI failed during " + context + ": " + why);
                return;
            }
        }
        STREAMSCOPE_CUDA_CHECK(context, cudaStreamSynchronize(control));
        cupti::Batch batch;
        if (!m_tracer->flush(batch, why)) {
            m_fallBack("CUPTI failed during " + context + ": " + why);
            return;
        }
        // None: keep the event-timed figure; the trace's kernels will say how they came out.
        if (const std::optional<double> ns = medianKernelNs(batch, 1))
            c.spinOverheadNs = *ns;
    }

    const std::unique_ptr<cupti::Tracer> &m_tracer;
    std::function<void(const std::string &)> m_fallBack;
    std::int64_t m_queueCycles = 0;
};

// ---------------------------------------------------------------------------------------------------
// One run

class CudaRun {
    struct ThreadState;

public:
    CudaRun(const Workload &workload, const RunOptions &options, const ProgressCallback &progress, RunWatchdog &watch) :
        m_workload(workload), m_options(options), m_progress(progress), m_watch(watch)
    {
    }

    ~CudaRun()
    {
        m_issueThreads.reset(); // stops and joins the host threads
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
    CudaRun(const CudaRun &) = delete;
    CudaRun &operator=(const CudaRun &) = delete;

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
        const std::string what = unsettledMessage(cause, m_workload.name, unfinishedOps());
        m_abandoned = true;
        m_watch.abandon(Error(cause ? cause->kind() : ErrorKind::Cuda, RunWatchdog::abandonedMessage(what)));
    }

    Trace run()
    {
        m_watch.setPhase("preparation");
        m_watch.describeCallWith([this] { return callInProgress(); });
        m_override = m_options.device;
        decideSolo();
        applyMaxConnections();
        startTiming();
        report(RunProgress::Phase::Preparing, 0, 1,
               "selecting device " + std::to_string(m_workload.threadDevice(0, m_override)));
        prepareDevices();
        report(RunProgress::Phase::Preparing, 0, 1,
               "allocating " + std::to_string(m_workload.buffers.size()) + " buffers");
        allocateBuffers();
        startUnifiedMemoryRecords();
        createStreams();
        for (const int d : m_used) {
            useDevice(d);
            STREAMSCOPE_CUDA_CHECK("device " + std::to_string(d) + ": loading the runner's kernels",
                                   kernels::preloadKernels());
        }
        useDevice(m_device.index);
        prepareOps();
        if (m_solo) {
            m_trace.solo.parts = m_soloParts.names;
            m_trace.solo.streamPart.assign(m_trace.streams.size(), -1);
            for (std::size_t s = 0; s < m_soloParts.streamPart.size() && s < m_trace.streams.size(); ++s)
                m_trace.solo.streamPart[s] = m_soloParts.streamPart[s];
        }
        startThreads();
        const HoldDecision hold = decideHold(m_workload);
        m_hold = hold.hold;
        m_holdReason = hold.reason;
        checkCancel();

        calibrateDevices();
        const int warmup = m_options.warmup >= 0 ? m_options.warmup : m_workload.warmup;
        const int repetitions = m_options.repetitions >= 0 ? m_options.repetitions : m_workload.repetitions;
        for (int i = 0; i < warmup; ++i) {
            checkCancel();
            m_watch.setPhase("warm-up " + std::to_string(i + 1) + " of " + std::to_string(warmup));
            report(RunProgress::Phase::Warmup, i, warmup, {});
            runRepetition(i, /*measured=*/false);
        }
        measure(repetitions);
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

    // Solo baselines: RunOptions::solo, or the workload asks for them.
    void decideSolo()
    {
        m_solo = m_options.solo || m_workload.solo;
        // Where there is one part there is nothing to price: the run goes on without them and says so (a
        // one-stream variant of a lesson that asks for them, or the app's remembered "solo baselines").
        if (m_solo && countSoloParts(m_workload) < 2) {
            m_solo = false;
            m_trace.metadata["solo"] = "not measured: solo baselines were asked for, but the workload has one part "
                                       "(a stream, or streams naming one \"part\"): nothing runs beside anything";
        }
        // Refuse a workload whose parts cannot run alone before anything is allocated.
        if (m_solo && m_workload.schedule.size() == m_workload.opCount())
            m_soloParts = soloParts(m_workload);
    }

    // -- faults -------------------------------------------------------------------------------------

    bool issuedOp(std::size_t op) const { return m_issued && m_issued->issued(op); }

    // The first unfinished op of each stream (kernels only, when `kernels`), as "stream 's0' op 1 (...): name".
    std::string unfinishedOps(bool kernels = false) const
    {
        return m_pending.unfinished(
            m_plan, [this](std::size_t op) { return issuedOp(op); }, kernels);
    }

    // For the watchdog's thread, where the host is blocked: the op whose call it is in.
    std::string callInProgress() const
    {
        std::string calls;
        for (const auto &thread : m_threads) {
            const int i = thread->inCall.load();
            if (i < 0 || std::size_t(i) >= m_plan.size())
                continue;
            calls += (calls.empty() ? "" : "; ")
                     + (m_threads.size() > 1 ? "thread " + quoted(m_workload.threadName(thread->index)) + " in " : "")
                     + m_plan[std::size_t(i)].context;
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

    // Moves each stream's cursor past the ops whose end event has completed; false where a query met an
    // error (a sticky error: the context is broken).
    bool advancePending()
    {
        const bool ok =
            m_pending.advance([this](std::size_t op) { return issuedOp(op); },
                              [this](std::size_t op) {
                                  const cudaError_t q = cudaEventQuery(m_ops[op].end.get());
                                  if (q == cudaErrorNotReady)
                                      return PendingOps::State::NotReady;
                                  return q == cudaSuccess ? PendingOps::State::Done : PendingOps::State::Failed;
                              });
        if (ok)
            cudaGetLastError();
        return ok;
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
        throw Error(ErrorKind::Cuda, faultMessage(e.what(), cuda::errorText(sticky), unfinishedOps(/*kernels=*/true)));
    }

    // Waits for the repetition's work, polling, so that the time limit and cancellation are seen while
    // the GPU works (cudaDeviceSynchronize could block forever behind a kernel that never ends).
    void waitForGpu()
    {
        m_watch.setActivity("waiting for the GPU to finish the repetition's work");
        for (int spin = 0;; ++spin) {
            if (!advancePending())
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
            if (auto stop = m_watch.stopReason())
                throw stoppedWhileRunning(*stop, unfinishedOps());
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
            useEventExecution(rep);
    }

    // Ops whose API call CUPTI is told about: those that make a record (record_matching.h), and the
    // synchronisation calls whose waits the driver records (cudaStreamSynchronize, cudaEventSynchronize,
    // cudaDeviceSynchronize, cudaStreamWaitEvent).
    bool tiedToCupti(const PlannedOp &op) const
    {
        return m_tracer && !m_cuptiBroken.load()
               && ((!op.hostOnly && expectsRecord(op.kind)) || op.kind == OpKind::HostSync
                   || op.kind == OpKind::EventWait);
    }

    // CUPTI refused a push or a pop on some host thread: no op is tied to it from now on, and once the
    // threads have issued the repetition the run falls back to events, saying why (the first reason).
    void noteCuptiFailure(const std::string &why)
    {
        const std::lock_guard lock(m_cuptiMutex);
        if (!m_cuptiBroken.exchange(true))
            m_cuptiFailure = why;
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

    // Takes the repetition's records and makes them the ops' times (record_matching.h). Returns, per
    // device, whether CUPTI timed every op's events; nothing where the run fell back to events.
    std::map<int, bool> applyRecords(Repetition &rep, const std::string &context, std::int64_t previousRepEndNs)
    {
        cupti::Batch batch;
        if (!takeRecords(batch, context))
            return {};
        m_counts.incompleteUnifiedMemoryRecords += batch.incomplete;
        m_counts.lateUnifiedMemoryRecords += lateUnifiedMemoryRecords(batch, previousRepEndNs);
        if (batch.dropped > 0)
            throw Error(ErrorKind::Cuda, context + ": CUPTI dropped " + std::to_string(batch.dropped)
                                             + " activity records, so some ops have no execution time; "
                                               "run with fewer ops per repetition, or --timing events");
        RepetitionRecords records;
        records.repSeq = m_repSeq;
        records.repStartNs = m_repHostStartNs;
        records.unifiedMemory = m_tracer->unifiedMemory();
        records.inRun.resize(m_plan.size());
        records.events.resize(m_plan.size());
        for (std::size_t i = 0; i < m_plan.size(); ++i) {
            records.inRun[i] = inRun(i);
            records.events[i] = {m_ops[i].beginUsed, m_ops[i].end.get()};
        }
        {
            const std::lock_guard lock(m_eventLogMutex);
            records.eventLog = m_eventLog;
        }
        const MatchResult result = m_matcher->apply(rep, batch, records, m_trace.metadata);
        m_counts.missingRecords += result.missingRecords;
        m_counts.unifiedMemoryRecords += result.unifiedMemoryRecords;
        m_unifiedMemoryLost = m_unifiedMemoryLost || result.unifiedMemoryLost;
        return result.eventsFromCupti;
    }

    // cudaEventRecord of one of the runner's timing events (stream-ready, end, a repetition's start). Where
    // CUPTI gives event timestamps, an external id around the call brings the moment the GPU reached the
    // event back on CUPTI's clock (record_matching.h), the clock execution is on: no anchor between them.
    void recordTimingEvent(cudaEvent_t event, cudaStream_t stream, const std::string &context)
    {
        std::uint64_t id = 0;
        if (m_tracer && m_tracer->eventTimestamps() && !m_cuptiBroken.load()) {
            const std::lock_guard lock(m_eventLogMutex);
            m_eventLog.push_back(event);
            id = eventExternalId(m_repSeq, m_eventLog.size());
        }
        std::string why;
        const bool pushed = id != 0 && m_tracer->push(id, why);
        const cudaError_t err = cudaEventRecord(event, stream);
        if (pushed && !m_tracer->pop(why))
            noteCuptiFailure("CUPTI failed at " + context + ": " + why);
        STREAMSCOPE_CUDA_CHECK(context, err);
    }

    // -- devices ------------------------------------------------------------------------------------

    // The host's devices and peer links, the run's devices checked against them (run_plan.h), each one's
    // context created and its memory checked, and peer access set between them.
    void prepareDevices()
    {
        m_trace.devices = queryDevices();
        m_trace.peerLinks = queryPeerLinks(m_trace.devices); // every pair: access, rank, NVLink or PCIe
        const DevicePlan devices = planDevices(m_workload, m_override, m_trace.devices);
        m_used = devices.used;
        m_device = m_trace.devices[std::size_t(devices.primary)];
        for (const int d : m_used) {
            // Create each context now, so that its cost lands in no measurement and cudaMemGetInfo sees it.
            useDevice(d);
            STREAMSCOPE_CUDA_CHECK("device " + std::to_string(d) + ": creating the CUDA context", cudaFree(nullptr));
            checkDeviceMemory(buffersOn(m_workload, m_override, d, d == devices.primary),
                              m_trace.devices[std::size_t(d)], m_options.checkMemoryFirst);
        }
        setPeerAccess();
        // What the run's peer copies used: peer access on between every pair of its devices that supports it.
        markPeerAccess(m_trace.peerLinks, m_workload, m_used);
        useDevice(m_device.index);
    }

    // Peer access between every pair of the devices used, as the workload's peerAccess says (run_plan.h).
    // What this run enabled is disabled again when it ends.
    void setPeerAccess()
    {
        const PeerAccessPlan plan = planPeerAccess(m_workload, m_used, [](int a, int b) {
            int can = 0;
            STREAMSCOPE_CUDA_CHECK("devices " + std::to_string(a) + " and " + std::to_string(b)
                                       + ": cudaDeviceCanAccessPeer",
                                   cudaDeviceCanAccessPeer(&can, a, b));
            return can != 0;
        });
        for (const auto &[a, b] : plan.pairs) {
            useDevice(a);
            const std::string context = "device " + std::to_string(a) + ": peer access to device " + std::to_string(b);
            if (plan.enable) {
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
        m_trace.metadata["peer_access"] = plan.metadata;
    }

    // -- setup --------------------------------------------------------------------------------------

    int bufferDevice(const BufferSpec &b) const { return m_workload.bufferDevice(b, m_override); }

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

    cudaStream_t defaultStream() const
    {
        return m_workload.defaultStream == DefaultStreamMode::PerThread ? cudaStreamPerThread : cudaStreamLegacy;
    }

    void createStreams()
    {
        createControlStreams();
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
            m_trace.hostThreads.push_back({m_workload.threadName(0), std::uint64_t(tid)});
            if (m_options.nvtx)
                nvtxNameOsThreadA(std::uint32_t(tid), m_workload.threadName(0).c_str());
        }
        createWorkloadStreams();
        // The default stream ends a repetition too: synchronous copies run there whichever stream the
        // workload lists them under. Each thread's, on each device its streams are on (recorded by that
        // thread: the per-thread default stream is its own).
        for (auto &thread : m_threads) {
            for (const int d : defaultStreamDevices(m_workload, thread->index, m_override)) {
                useDevice(d);
                thread->defaultEnds.push_back(
                    {d, m_streamEnds.size(), Event(cudaEventDefault, "the default stream's repetition end event")});
                m_streamEnds.emplace_back(); // its slot; the event lives in the thread's state
            }
        }
        useDevice(m_device.index);
        m_holdFlags = Buffer(BufferKind::Pinned, 2 * sizeof(int), "the runner's hold flag (pinned, 8 B)");
    }

    // The control stream, clock anchor events and repetition start event of each device: CUDA times events
    // only against events of their own device.
    void createControlStreams()
    {
        m_control = Stream(cudaStreamNonBlocking, 0, "the runner's control stream");
        // Named, so that in Nsight Systems the calibration and hold kernels sit on a lane that says what it is.
        if (m_options.nvtx)
            nvtxNameCudaStreamA(m_control.get(), "streamscope control");
        for (int i = 0; i < kAnchorTries; ++i)
            m_anchorEvents.emplace_back(cudaEventDefault, "the runner's clock anchor event");
        m_repStart = Event(cudaEventDefault, "the runner's repetition start event");
        std::vector<int> clockDevices{m_device.index};
        for (const int d : m_used) {
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
            clockDevices.push_back(d);
        }
        m_clock = RepetitionClock(clockDevices);
        useDevice(m_device.index);
    }

    void createWorkloadStreams()
    {
        for (std::size_t i = 0; i < m_workload.streams.size(); ++i) {
            const StreamSpec &spec = m_workload.streams[i];
            const int device = m_workload.streamDevice(int(i), m_override);
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
        }
    }

    // The plan's ops (run_plan.h) made into CUDA objects: streams, memory and events; then what the
    // stages need of them (the threads' schedules, the record matcher, the pending ops).
    void prepareOps()
    {
        OpPlanOptions options;
        options.override = m_override;
        options.instrument = m_options.instrument;
        options.timeLimitNs = m_watch.limitNs();
        m_plan = planOps(m_workload, m_trace.peerLinks, options, m_trace);
        m_ops.resize(m_plan.size());
        std::vector<OpMemory> memory(m_plan.size());
        std::vector<const void *> endStreams(m_plan.size(), nullptr);
        for (std::size_t i = 0; i < m_plan.size(); ++i) {
            const PlannedOp &plan = m_plan[i];
            PreparedOp &op = m_ops[i];
            useDevice(plan.device); // its events are created on its device
            // cudaMemcpy runs on the default stream whatever stream the workload lists it under.
            op.gpuStream = plan.onDefaultStream ? defaultStream() : m_streams[std::size_t(plan.stream)].get();
            if (plan.srcBuffer)
                op.src = m_buffers.at(plan.srcBuffer->name).bytesAt(plan.srcOffset);
            if (plan.dstBuffer)
                op.dst = m_buffers.at(plan.dstBuffer->name).bytesAt(plan.dstOffset);
            if (plan.targetBuffer)
                op.target = m_buffers.at(plan.targetBuffer->name).bytesAt(plan.targetOffset);
            memory[i] = {addressOf(op.target), addressOf(op.src), addressOf(op.dst)};
            if (plan.spec->type == OpType::EventRecord) {
                op.ownEvent = Event(cudaEventDisableTiming, plan.context + ": event " + quoted(plan.spec->event));
                op.namedEvent = op.ownEvent.get();
            }
            if (plan.syncStream >= 0)
                op.syncStream = m_streams[std::size_t(plan.syncStream)].get();
            if (plan.instrumented) {
                op.begin = Event(cudaEventDefault, plan.context + ": begin event");
                op.end = Event(cudaEventDefault, plan.context + ": end event");
                endStreams[i] = op.gpuStream;
            }
        }
        useDevice(m_device.index);
        // Each wait and event sync waits for the event of the one record it pairs with.
        for (std::size_t i = 0; i < m_plan.size(); ++i)
            if (m_plan[i].pairedRecord >= 0)
                m_ops[i].namedEvent = m_ops[std::size_t(m_plan[i].pairedRecord)].namedEvent;
        const auto schedule = issueSchedule(m_plan, int(m_threads.size()));
        for (std::size_t t = 0; t < m_threads.size(); ++t)
            m_threads[t]->ops = schedule[t];
        m_issued = std::make_unique<IssueProgress>(m_plan.size());
        std::vector<AddressRange> buffers;
        for (const auto &[name, b] : m_buffers)
            buffers.push_back({addressOf(b.bytesAt(0)), b.size()});
        m_matcher = std::make_unique<RecordMatcher>(m_plan, std::move(memory), std::move(buffers));
        m_pending = PendingOps(endStreams);
    }

    // -- calibration --------------------------------------------------------------------------------

    void calibrateDevices()
    {
        report(RunProgress::Phase::Calibrating, 0, 1, "calibrating the spin kernel");
        m_watch.setPhase("calibration");
        SpinCalibrator calibrator(m_tracer, [this](const std::string &why) { fallBackToEvents(why); });
        calibrator.calibrate(m_trace.calibration, m_device, m_control.get());
        // Every other device calibrates on its own control stream: a spin kernel's cycles last as long
        // as that device's SM clock makes them, and two GPUs of a host need not run at one clock.
        for (const auto &extra : m_extraDevices) {
            checkCancel();
            useDevice(extra->index);
            calibrator.calibrate(extra->calibration, m_trace.devices[std::size_t(extra->index)], extra->control.get());
        }
        useDevice(m_device.index);
        for (std::size_t i = 0; i < m_plan.size(); ++i) {
            const PlannedOp &plan = m_plan[i];
            if (plan.kind == OpKind::Kernel && plan.spec->kernelType == KernelType::Compute)
                m_ops[i].spinCycles = spinCyclesFor(plan.spec->durationNs, calibrationOf(plan.device));
        }
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

    // Each device's clock anchor for the repetition (repetition_clock.h), on its own control stream: CUDA's
    // event clock is per device, so each device's GPU times are mapped onto the host axis separately.
    void anchor()
    {
        const auto windowsOn = [](const std::vector<Event> &events, cudaStream_t control, const std::string &context) {
            std::vector<AnchorWindow> windows;
            for (const Event &event : events) {
                AnchorWindow w;
                w.beforeNs = hostNowNs();
                STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(event.get(), control));
                STREAMSCOPE_CUDA_CHECK(context, cudaEventSynchronize(event.get()));
                w.afterNs = hostNowNs();
                windows.push_back(w);
            }
            return narrowestAnchor(windows);
        };
        m_clock.setAnchor(m_device.index, windowsOn(m_anchorEvents, m_control.get(), "clock anchor"));
        for (const auto &extra : m_extraDevices) {
            useDevice(extra->index);
            m_clock.setAnchor(extra->index, windowsOn(extra->anchorEvents, extra->control.get(),
                                                      "device " + std::to_string(extra->index) + ": clock anchor"));
        }
        useDevice(m_device.index);
    }

    // An event's GPU moment on the host axis, through the anchor of the device it was recorded on.
    std::int64_t gpuTime(cudaEvent_t event, const std::string &context, int device = -1) const
    {
        const std::vector<Event> *anchors = &m_anchorEvents;
        int clockDevice = m_device.index;
        if (device >= 0 && device != m_device.index)
            for (const auto &extra : m_extraDevices)
                if (extra->index == device) {
                    anchors = &extra->anchorEvents;
                    clockDevice = device;
                }
        float ms = 0;
        STREAMSCOPE_CUDA_CHECK(context,
                               cudaEventElapsedTime(&ms, (*anchors)[m_clock.baseIndex(clockDevice)].get(), event));
        return m_clock.hostNs(clockDevice, ms);
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

    // Whether op `i` (an index into the plan) runs in the current repetition: every op, but in a solo run
    // only the ops of the part running alone.
    bool inRun(std::size_t i) const { return m_soloPart < 0 || m_soloParts.opPart[i] == m_soloPart; }

    // The measured repetitions, each followed by its solo round where solo baselines are asked for.
    void measure(int repetitions)
    {
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
                        m_counts.unifiedMemoryIncomplete.push_back(i);
                        break;
                    }
                    m_trace.repetitions.pop_back();
                    m_clock.spans().pop_back();
                    m_counts.unifiedMemoryRetries += 1;
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
                keepFinishedRounds(e, repetitions);
                break;
            }
        }
    }

    void keepFinishedRounds(const Error &stop, int repetitions)
    {
        settle(&stop);
        while (int(m_trace.repetitions.size()) > m_soloRoundsDone) {
            m_trace.repetitions.pop_back();
            m_clock.spans().pop_back();
        }
        while (!m_trace.solo.runs.empty() && m_trace.solo.runs.back().round >= m_soloRoundsDone)
            m_trace.solo.runs.pop_back();
        m_trace.solo.missing = "the run was stopped (" + std::string(stop.what()) + ") after "
                               + std::to_string(m_soloRoundsDone) + " of " + std::to_string(repetitions)
                               + " rounds: repetitions " + std::to_string(m_soloRoundsDone + 1) + "-"
                               + std::to_string(repetitions) + " and their solo baselines are missing";
        m_trace.timingNote += (m_trace.timingNote.empty() ? "" : "; ") + m_trace.solo.missing;
    }

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
        startStreams(context);

        Repetition rep;
        rep.index = index;
        rep.ops.resize(m_plan.size());
        m_issued->restart();
        m_pending.restart();
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

    // Every stream waits on the repetition's start event; when held, that event follows the hold kernel.
    void startStreams(const std::string &context)
    {
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
        if (!m_hold)
            return;
        for (std::size_t i = 0; i < m_streams.size(); ++i) {
            const int device = m_trace.streams[i].device;
            useDevice(device);
            cudaEvent_t start = repStartOn(device);
            STREAMSCOPE_CUDA_CHECK(context, cudaStreamWaitEvent(m_streams[i].get(), start, 0));
            // A held stream reaches its first op when the start event fires.
            if (canShareEvents(m_streams[i].get()))
                m_threads[std::size_t(m_workload.streams[i].thread)]->lastEvent[{m_streams[i].get(), device}] = start;
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
            m_currentRep = &rep;
            m_currentContext = context;
            m_issueThreads->runRepetition();
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
            m_issued->throwIfAborted();
            const PlannedOp &plan = m_plan[i];
            if (plan.device != current) {
                useDevice(plan.device);
                current = plan.device;
            }
            // A wait on another thread's event: hold until that thread has issued the record it pairs with.
            if (plan.crossThread)
                m_issued->waitFor(std::size_t(plan.pairedRecord), [this] { checkCancel(); });
            issue(thread, i, rep.ops[i]);
            m_issued->markIssued(i);
            if (plan.spec->type == OpType::EventRecord)
                m_issued->notify();
        }
        endThreadStreams(thread, context);
        useDevice(thread.device);
    }

    // Each stream's end: its last op's end event where that is the last thing on it.
    void endThreadStreams(ThreadState &thread, const std::string &context)
    {
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
    }

    // -- host threads ---------------------------------------------------------------------------------

    // One std::thread per workload thread (issue_threads.h), each bound to its device, started before
    // anything is timed.
    void startThreads()
    {
        if (m_threads.size() < 2)
            return;
        m_trace.hostThreads.resize(m_threads.size());
        const auto bind = [this](int t, std::uint64_t tid) -> std::string {
            if (m_options.nvtx)
                nvtxNameOsThreadA(std::uint32_t(tid), m_workload.threadName(t).c_str());
            const int device = m_threads[std::size_t(t)]->device;
            const cudaError_t bound = cudaSetDevice(device);
            if (bound == cudaSuccess)
                return {};
            cudaGetLastError();
            return "cudaSetDevice(" + std::to_string(device) + "): " + cuda::errorText(bound);
        };
        const auto issue = [this](int t) { issueThread(*m_threads[std::size_t(t)], *m_currentRep, m_currentContext); };
        m_issueThreads = std::make_unique<IssueThreads>(int(m_threads.size()), *m_issued, bind, issue);
        for (const auto &thread : m_threads) {
            const int t = thread->index;
            if (!m_issueThreads->startError(t).empty())
                throw Error(ErrorKind::Cuda,
                            "host thread " + quoted(m_workload.threadName(t)) + ": " + m_issueThreads->startError(t));
            m_trace.hostThreads[std::size_t(t)] = {m_workload.threadName(t), m_issueThreads->tid(t)};
        }
    }

    // -- recording ----------------------------------------------------------------------------------

    // A measured repetition's times, from its events and CUPTI's records.
    void recordRepetition(Repetition rep, const std::string &context, std::int64_t previousRepEndNs)
    {
        // The repetition's GPU span from one start event to the last stream's end event: the only GPU
        // timing when ops are not instrumented, and the like-for-like figure for the overhead benchmark.
        m_clock.beginMeasured();
        const std::int64_t start = gpuTime(m_repStart.get(), context);
        std::int64_t end = start;
        for (const auto &[e, device] : m_streamEndUsed)
            if (e)
                end = std::max(end, gpuTime(e, context, device));
        if (m_soloPart < 0)
            m_clock.spans().push_back(end - start);

        // Stream-ready and the event end from the events; execution from them too until CUPTI's
        // records replace it.
        for (std::size_t i = 0; i < m_plan.size(); ++i) {
            const PreparedOp &op = m_ops[i];
            OpRecord &r = rep.ops[i];
            if (op.begin.get() && inRun(i)) {
                r.readyNs = gpuTime(op.beginUsed, m_plan[i].context, m_plan[i].device);
                r.eventEndNs = gpuTime(op.end.get(), m_plan[i].context, m_plan[i].device);
                r.gpuStartNs = r.readyNs;
                r.gpuEndNs = r.eventEndNs;
            }
        }
        std::map<int, bool> eventsFromCupti;
        if (m_tracer)
            eventsFromCupti = applyRecords(rep, context, previousRepEndNs);
        // A device's events on the host axis: CUPTI's own moments where it gave every one (the same clock
        // as execution: no mapping error of StreamScope's), else the anchor, narrowed by causality.
        m_clock.settleErrors(rep, m_plan, eventsFromCupti, m_tracer != nullptr);
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

    void issue(ThreadState &thread, std::size_t index, OpRecord &r)
    {
        const PlannedOp &plan = m_plan[index];
        PreparedOp &op = m_ops[index];
        const OpSpec &spec = *plan.spec;
        r.nameId = plan.nameId;
        r.kind = plan.kind;
        r.srcMem = plan.srcMem;
        r.dstMem = plan.dstMem;
        r.api = spec.type == OpType::Copy ? spec.api : CopyApi::None;
        r.bytes = plan.bytes;
        r.srcDevice = static_cast<std::int8_t>(plan.srcDevice); // -1 but for peer copies; devices are < 64
        r.dstDevice = static_cast<std::int8_t>(plan.dstDevice);
        if (plan.stagedPeer)
            r.flags |= OpFlagStagedPeer;
        r.opIndex = int(index);
        r.stream = plan.hostOnly ? -1 : plan.stream;
        r.hostThread = thread.index;

        const std::pair<cudaStream_t, int> key{op.gpuStream, plan.device};
        if (op.begin.get()) {
            const auto last = thread.lastEvent.find(key);
            if (last != thread.lastEvent.end()) {
                op.beginUsed = last->second;
            } else {
                recordTimingEvent(op.begin.get(), op.gpuStream, plan.context);
                op.beginUsed = op.begin.get();
            }
        }
        {
            NvtxRange range(m_options.nvtx, plan.name.c_str(), opColor(plan.kind));
            std::string why;
            bool pushed = false;
            if (tiedToCupti(plan)) {
                pushed = m_tracer->push(opExternalId(m_repSeq, index), why);
                if (!pushed)
                    noteCuptiFailure("CUPTI failed at " + plan.context + ": " + why);
            }
            thread.inCall.store(int(index), std::memory_order_relaxed);
            r.hostStartNs = hostNowNs();
            try {
                callOp(plan, op, m_workload.defaultStream);
            } catch (...) {
                thread.inCall.store(-1, std::memory_order_relaxed);
                if (pushed)
                    m_tracer->pop(why);
                throw;
            }
            r.hostEndNs = hostNowNs();
            thread.inCall.store(-1, std::memory_order_relaxed);
            if (pushed && !m_tracer->pop(why))
                noteCuptiFailure("CUPTI failed at " + plan.context + ": " + why);
        }
        if (op.end.get()) {
            recordTimingEvent(op.end.get(), op.gpuStream, plan.context);
            if (canShareEvents(op.gpuStream))
                thread.lastEvent[key] = op.end.get();
            else
                thread.lastEvent.erase(key);
        } else if (!plan.hostOnly) {
            thread.lastEvent.erase(key); // uninstrumented work was enqueued there
        }
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
        m_trace.calibration.gpuToHostOffsetNs = m_clock.firstBaseHostNs();

        auto &md = m_trace.metadata;
        md["device"] = std::to_string(m_device.index);
        md["instrumented"] = m_options.instrument ? "yes" : "no";
        md["nvtx"] = m_options.nvtx ? "yes" : "no";
        md["hold"] = std::string(m_hold ? "yes: " : "no: ") + m_holdReason;
        if (m_holdTimeouts > 0)
            md["hold_timeouts"] = std::to_string(m_holdTimeouts);
        m_clock.describe(md, kAnchorTries);
        // The trace's calibration is the primary device's; every other device's spin rate goes beside it.
        for (const auto &extra : m_extraDevices) {
            char hz[32];
            std::snprintf(hz, sizeof hz, "%.0f", extra->calibration.smClockHz);
            md["calibration.device" + std::to_string(extra->index) + ".smClockHz"] = hz;
        }
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
        md["default_stream"] = m_workload.defaultStream == DefaultStreamMode::PerThread ? "per-thread" : "legacy";
        md["timing"] = std::string(toString(m_trace.timing));
        md["max_connections"] = std::to_string(m_connections)
                                + (m_workload.maxConnections > 0                ? " (the workload's maxConnections)"
                                   : std::getenv("CUDA_DEVICE_MAX_CONNECTIONS") ? " (CUDA_DEVICE_MAX_CONNECTIONS)"
                                                                                : " (CUDA's default)");
        if (m_trace.timing == TimingSource::Cupti)
            describeRecords(m_trace, m_counts, m_cuptiDescription, m_tracer && m_tracer->unifiedMemory());
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

    // A device other than the primary one: its control stream, its clock anchor events, its start event and
    // its spin kernel's calibration (measured on its control stream). Its clock is m_clock's.
    struct ExtraDevice {
        int index = 0;
        Stream control;
        std::vector<Event> anchorEvents;
        Event repStart;
        Calibration calibration;
    };
    std::vector<std::unique_ptr<ExtraDevice>> m_extraDevices;

    // A workload thread: the ops it issues (indices into the plan, in its order), its event sharing, the op
    // whose API call it is in (for the watchdog's thread) and its default streams' end events.
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
        std::vector<std::size_t> ops;
        // Event sharing (below), per (stream, device): a stream is driven by one thread, and the default
        // stream's handle means the calling thread's (per-thread) or the current device's.
        std::unordered_map<std::pair<cudaStream_t, int>, cudaEvent_t, PairHash> lastEvent;
        std::atomic<int> inCall{-1};
        std::vector<DefaultEnd> defaultEnds;
    };
    std::vector<std::unique_ptr<ThreadState>> m_threads;
    std::unique_ptr<IssueProgress> m_issued; // which ops of the repetition have been issued
    std::unique_ptr<IssueThreads> m_issueThreads; // where the workload has several threads
    Repetition *m_currentRep = nullptr; // the repetition the threads issue
    std::string m_currentContext;
    std::mutex m_cuptiMutex;
    std::atomic<bool> m_cuptiBroken{false};
    std::string m_cuptiFailure;
    PendingOps m_pending; // per stream, how far the GPU got (waitForGpu), to name what a stop found running

    Trace m_trace;
    DeviceInfo m_device;

    // Destroyed after the run's CUDA objects below: tracing stops after everything the run queued has finished.
    std::unique_ptr<cupti::Tracer> m_tracer;
    std::string m_cuptiDescription;
    std::uint32_t m_repSeq = 0; // repetitions issued so far, warm-ups included: the high half of external ids
    RecordCounts m_counts;
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
    // Event sharing: a timing event costs ~1.5 us of GPU time on the stream that records it, so an
    // op's begin reuses the last event recorded on its stream when nothing was enqueued there since
    // (the previous op's end, or the held repetition's start). Only on streams that cannot be held up
    // by the legacy default stream's implicit synchronisation, where a fresh begin event would differ.
    std::vector<std::pair<cudaEvent_t, int>> m_streamEndUsed; // each stream's end event and its device
    std::vector<PlannedOp> m_plan; // one per schedule entry (run_plan.h)
    std::vector<PreparedOp> m_ops; // their CUDA objects
    std::unique_ptr<RecordMatcher> m_matcher; // CUPTI's records onto m_plan's ops
    RepetitionClock m_clock;

    bool m_hasManaged = false;
    std::int64_t m_repHostStartNs = 0; // when the current repetition began on the host
    std::int64_t m_repEndNs = 0; // when the last repetition's work was done, on the host
    bool m_unifiedMemoryLost = false; // the repetition just run lacks unified-memory records
    bool m_hold = false;
    bool m_holding = false;
    std::string m_holdReason;
    int m_holdTimeouts = 0;
    std::string m_repLabel; // the repetition's NVTX range: "rep N" or "warmup N"
    // The runner's timing events recorded in this repetition, in order (recordTimingEvent), for CUPTI's
    // event records to find; several host threads record them.
    std::mutex m_eventLogMutex;
    std::vector<const void *> m_eventLog;
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
