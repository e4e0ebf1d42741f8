// The run's devices, CUDA side (see runner_devices.h).
#include "engine/run/runner_devices.h"

#include <algorithm>
#include <cstdio>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include "engine/model/errors.h"
#include "engine/model/units.h"
#include "engine/run/clock_calibration.h"
#include "engine/run/cuda_check.h"
#include "engine/run/pcie_link.h"
#include "engine/run/record_matching.h"
#include "engine/run/run_plan.h"
#include "engine/run/runner_calls.h"
#include "engine/run/runner_timing.h"
#include "kernels/kernels.cuh"

namespace streamscope::engine {

namespace {

using cuda::Event;
using cuda::Stream;

// Base events recorded per device and repetition; the narrowest host window around one anchors it.
constexpr int kAnchorTries = 5;
constexpr int kCalibrationSamples = 15;

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

// ---------------------------------------------------------------------------------------------------
// Calibration of the spin kernel, on a device's control stream

class SpinCalibrator {
public:
    // `timing` is the run's: CUPTI times the spin kernel's execution where it works.
    explicit SpinCalibrator(RunTiming &timing) : m_timing(timing) { }

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
        if (m_timing.tracer()) {
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
            if (!m_timing.tracer()->push(1, why)) {
                m_timing.fallBack("CUPTI failed during " + context + ": " + why);
                return;
            }
            const cudaError_t launched = kernels::launchSpin(0, 1, 32, control);
            const bool popped = m_timing.tracer()->pop(why);
            STREAMSCOPE_CUDA_CHECK(context, launched);
            if (!popped) {
                m_timing.fallBack("CUPTI failed during " + context + ": " + why);
                return;
            }
        }
        STREAMSCOPE_CUDA_CHECK(context, cudaStreamSynchronize(control));
        cupti::Batch batch;
        if (!m_timing.tracer()->flush(batch, why)) {
            m_timing.fallBack("CUPTI failed during " + context + ": " + why);
            return;
        }
        // None: keep the event-timed figure; the trace's kernels will say how they came out.
        if (const std::optional<double> ns = medianKernelNs(batch, 1))
            c.spinOverheadNs = *ns;
    }

    RunTiming &m_timing;
    std::int64_t m_queueCycles = 0;
};

} // namespace

std::vector<DeviceInfo> queryDevices()
{
    const int count = deviceCount();
    std::vector<DeviceInfo> devices;
    devices.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i)
        devices.push_back(queryDevice(i));
    return devices;
}

void useDevice(int device)
{
    STREAMSCOPE_CUDA_CHECK("device " + std::to_string(device) + ": cudaSetDevice", cudaSetDevice(device));
}

void RunDevices::create(int primary, const std::vector<int> &used, bool nvtx)
{
    auto first = std::make_unique<Device>();
    first->index = primary;
    first->control = Stream(cudaStreamNonBlocking, 0, "the runner's control stream");
    // Named, so that in Nsight Systems the calibration and hold kernels sit on a lane that says what it is.
    if (nvtx)
        nvtxNameCudaStreamA(first->control.get(), "streamscope control");
    for (int i = 0; i < kAnchorTries; ++i)
        first->anchorEvents.emplace_back(cudaEventDefault, "the runner's clock anchor event");
    first->repStart = Event(cudaEventDefault, "the runner's repetition start event");
    m_devices.push_back(std::move(first));
    std::vector<int> clockDevices{primary};
    for (const int d : used) {
        if (d == primary)
            continue;
        useDevice(d);
        const std::string context = "device " + std::to_string(d) + ": ";
        auto extra = std::make_unique<Device>();
        extra->index = d;
        extra->control = Stream(cudaStreamNonBlocking, 0, context + "the runner's control stream");
        if (nvtx)
            nvtxNameCudaStreamA(extra->control.get(), ("streamscope control gpu" + std::to_string(d)).c_str());
        for (int i = 0; i < kAnchorTries; ++i)
            extra->anchorEvents.emplace_back(cudaEventDefault, context + "the runner's clock anchor event");
        extra->repStart = Event(cudaEventDefault, context + "the runner's repetition start event");
        m_devices.push_back(std::move(extra));
        m_others.push_back(d);
        clockDevices.push_back(d);
    }
    m_clock = RepetitionClock(clockDevices);
    useDevice(primary);
}

std::string RunDevices::setPeerAccess(const Workload &workload, const std::vector<int> &used)
{
    const PeerAccessPlan plan = planPeerAccess(workload, used, [](int a, int b) {
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
    return plan.metadata;
}

void RunDevices::restorePeerAccess()
{
    for (const auto &[a, b] : m_peerEnabled) {
        cudaSetDevice(a);
        cudaDeviceDisablePeerAccess(b);
    }
}

const RunDevices::Device *RunDevices::find(int device) const
{
    if (m_devices.empty())
        return nullptr;
    for (const auto &d : m_devices)
        if (d->index == device)
            return d.get();
    return m_devices.front().get();
}

cudaStream_t RunDevices::control(int device) const
{
    const Device *d = find(device);
    return d ? d->control.get() : nullptr;
}

cudaEvent_t RunDevices::repStart(int device) const
{
    const Device *d = find(device);
    return d ? d->repStart.get() : nullptr;
}

bool RunDevices::isControl(cudaStream_t stream) const
{
    return std::any_of(m_devices.begin(), m_devices.end(),
                       [&](const auto &d) { return d->control.get() && d->control.get() == stream; });
}

std::vector<cudaStream_t> RunDevices::controls() const
{
    std::vector<cudaStream_t> streams;
    for (const auto &d : m_devices)
        if (d->control.get())
            streams.push_back(d->control.get());
    return streams;
}

// Host time (ns) of the GPU moment at which the chosen base event completed; see runner_cuda.cpp's
// opening comment. Every other device gets its own anchor the same way, on its own control stream: CUDA's
// event clock is per device, so each device's GPU times are mapped onto the host axis separately.
void RunDevices::anchor()
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
    for (const auto &d : m_devices) {
        const bool primary = d == m_devices.front();
        if (!primary)
            useDevice(d->index);
        m_clock.setAnchor(
            d->index, windowsOn(d->anchorEvents, d->control.get(),
                                primary ? "clock anchor" : "device " + std::to_string(d->index) + ": clock anchor"));
    }
    if (m_devices.size() > 1)
        useDevice(m_devices.front()->index);
}

std::int64_t RunDevices::gpuTime(cudaEvent_t event, const std::string &context, int device) const
{
    const Device &d = *find(device);
    float ms = 0;
    STREAMSCOPE_CUDA_CHECK(context, cudaEventElapsedTime(&ms, d.anchorEvents[m_clock.baseIndex(d.index)].get(), event));
    return m_clock.hostNs(d.index, ms);
}

void RunDevices::calibrate(RunTiming &timing, Calibration &primary, const std::vector<DeviceInfo> &devices,
                           const std::function<void()> &checkCancel)
{
    SpinCalibrator calibrator(timing);
    const Device &first = *m_devices.front();
    calibrator.calibrate(primary, devices[std::size_t(first.index)], first.control.get());
    for (std::size_t i = 1; i < m_devices.size(); ++i) {
        Device &d = *m_devices[i];
        checkCancel();
        useDevice(d.index);
        calibrator.calibrate(d.calibration, devices[std::size_t(d.index)], d.control.get());
    }
    useDevice(first.index);
}

const Calibration &RunDevices::calibrationOf(int device, const Calibration &primary) const
{
    for (std::size_t i = 1; i < m_devices.size(); ++i)
        if (m_devices[i]->index == device)
            return m_devices[i]->calibration;
    return primary;
}

void RunDevices::describe(std::map<std::string, std::string> &metadata) const
{
    for (std::size_t i = 1; i < m_devices.size(); ++i) {
        char hz[32];
        std::snprintf(hz, sizeof hz, "%.0f", m_devices[i]->calibration.smClockHz);
        metadata["calibration.device" + std::to_string(m_devices[i]->index) + ".smClockHz"] = hz;
    }
}

} // namespace streamscope::engine
