// The run's devices, CUDA side: the host's devices as CUDA reports them, and for each device a run uses
// its control stream (the runner's own work: calibration, the hold kernel, the clock anchor), its clock
// anchor events, its repetition start event, its clock (repetition_clock.h: CUDA times events only
// against events of their own device) and its spin kernel's calibration. Private to streamscope_runner.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "engine/model/trace.h"
#include "engine/run/cuda_raii.h"
#include "engine/run/repetition_clock.h"
#include "engine/workload/workload.h"

namespace streamscope::engine {

class RunTiming;

// Every CUDA device with its properties; Error{NoGpu} saying why there is none (no driver, too old a
// driver, no device).
std::vector<DeviceInfo> queryDevices();

// Makes `device` current on the calling thread (cudaSetDevice), naming it when that fails.
void useDevice(int device);

class RunDevices {
public:
    // The control stream, anchor events and start event of `primary` (current), then of each other device
    // of `used`, in that order; `nvtx` names the control streams for Nsight Systems. `primary` is current after.
    void create(int primary, const std::vector<int> &used, bool nvtx);

    // A device's control stream and repetition start event; the primary's for -1 or a device the run does
    // not use (null before create).
    cudaStream_t control(int device = -1) const;
    cudaEvent_t repStart(int device = -1) const;
    bool isControl(cudaStream_t stream) const;
    // Every device's control stream, the primary's first.
    std::vector<cudaStream_t> controls() const;
    // The devices other than the primary, in the order of `used`.
    const std::vector<int> &others() const { return m_others; }

    // Peer access between every ordered pair of `used`, as the workload's peerAccess says (run_plan.h):
    // enabled, or disabled so that the driver stages peer copies through host memory. Returns what the
    // trace's metadata says of it ("peer_access"). restorePeerAccess disables again what this enabled
    // (quietly: the run is ending).
    std::string setPeerAccess(const Workload &workload, const std::vector<int> &used);
    void restorePeerAccess();

    // Each device's clock anchor for the repetition, on its own control stream.
    void anchor();
    // An event's GPU moment on the host axis, through the anchor of the device it was recorded on.
    std::int64_t gpuTime(cudaEvent_t event, const std::string &context, int device = -1) const;
    RepetitionClock &clock() { return m_clock; }

    // The spin kernel's calibration on every device: the primary's into `primary`, every other device's
    // on its own control stream (a spin kernel's cycles last as long as that device's SM clock makes
    // them, and two GPUs of a host need not run at one clock). `checkCancel` throws to stop.
    void calibrate(RunTiming &timing, Calibration &primary, const std::vector<DeviceInfo> &devices,
                   const std::function<void()> &checkCancel);
    // The calibration that times a compute kernel on `device` (`primary` for the primary device).
    const Calibration &calibrationOf(int device, const Calibration &primary) const;
    // calibration.device<N>.smClockHz of every other device (the trace's calibration is the primary's).
    void describe(std::map<std::string, std::string> &metadata) const;

private:
    struct Device {
        int index = 0;
        cuda::Stream control;
        std::vector<cuda::Event> anchorEvents;
        cuda::Event repStart;
        Calibration calibration; // every device but the primary (whose calibration is the trace's)
    };
    const Device *find(int device) const;

    std::vector<std::unique_ptr<Device>> m_devices; // the primary first
    std::vector<int> m_others;
    RepetitionClock m_clock;
    std::vector<std::pair<int, int>> m_peerEnabled; // (device, peer) pairs this run enabled peer access for
};

} // namespace streamscope::engine
