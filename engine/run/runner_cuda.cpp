// The CUDA runner: runs a Workload on one or several devices, from one host thread or one std::thread per
// workload thread, and records every op of every measured repetition with three intervals (trace.h): the
// host API call on the steady clock; stream-ready and the event end from a CUDA event pair on the op's own
// stream; and execution as the GPU ran it, from CUPTI activity records tied to the op by external
// correlation (runner_cupti.h). Where CUPTI cannot be enabled or fails, execution falls back to the event
// pair and the trace says why. Plus the devices' properties and the spin kernel's calibration.
//
// CudaRun is the orchestrator: it prepares, calibrates, runs the warm-ups, the measured repetitions and
// their solo rounds, and records each. Its CUDA work is in RunDevices (runner_devices.h), RunObjects
// (runner_objects.h), RunTiming (runner_timing.h) and callOp (runner_calls.h); what needs no CUDA is in
// stages tested without a GPU: the set-up plan (run_plan.h), CUPTI record matching (record_matching.h),
// issue on host threads (issue_threads.h), the repetition clock (repetition_clock.h), settling
// (settling.h) and the hold policy (hold_policy.h). docs/architecture.md, "The runner in stages".
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
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <sys/syscall.h>
#include <unistd.h>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

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
#include "engine/run/record_matching.h"
#include "engine/run/repetition_clock.h"
#include "engine/run/run_plan.h"
#include "engine/run/run_watchdog.h"
#include "engine/run/runner_calls.h"
#include "engine/run/runner_cupti.h"
#include "engine/run/runner_devices.h"
#include "engine/run/runner_graph.h"
#include "engine/run/runner_nccl.h"
#include "engine/run/runner_objects.h"
#include "engine/run/runner_timing.h"
#include "engine/run/settling.h"
#include "engine/run/topology.h"
#include "engine/workload/solo_parts.h"
#include "kernels/kernels.cuh"

namespace streamscope::engine {

namespace {

using cuda::Buffer;
using cuda::Event;
using cuda::Stream;

constexpr int kAnchorTries = 5; // base events per device and repetition (runner_devices.cpp)
// A held repetition is released by the host at once after queueing (see hold_policy.h for when
// streams are held); the time-out only guards against a host that blocked anyway, so that nothing can hang.
constexpr std::uint64_t kHoldTimeoutNs = 2'000'000'000;

// Set once a run left the CUDA context with a sticky error (a kernel fault): CUDA's documentation says
// the process must end before CUDA can be used again, so later runs in this process refuse plainly.
std::string g_stickyError;

// ---------------------------------------------------------------------------------------------------
// Before the run: memory, hardware queues, solo baselines, the trace's provenance

// The memory check (run_plan.h) against what the current device has free.
void checkDeviceMemory(const Workload &part, const DeviceInfo &device, bool all)
{
    std::size_t freeBytes = 0, totalBytes = 0;
    STREAMSCOPE_CUDA_CHECK("device " + std::to_string(device.index) + ": free memory",
                           cudaMemGetInfo(&freeBytes, &totalBytes));
    checkMemoryFits(part, device, all, freeBytes, totalBytes, hostMemoryAvailable);
}

// CUDA reads CUDA_DEVICE_MAX_CONNECTIONS once, when it starts in the process: the first run sets it, a
// later run in the same process can only have the same value (a run in a fresh process, as
// streamscope-cli run and the app's runs are, always gets what it asks for). Returns the value in force.
int applyMaxConnections(const Workload &workload)
{
    static int s_inForce = 0; // the value CUDA started with in this process, 0 before it started
    auto fromEnvironment = [] {
        const char *env = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
        const int v = env ? std::atoi(env) : 0;
        return v >= 1 && v <= 32 ? v : 8;
    };
    const int asked = workload.maxConnections;
    if (s_inForce == 0) {
        if (asked > 0)
            setenv("CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(asked).c_str(), 1);
        s_inForce = fromEnvironment();
    } else if (asked > 0 && asked != s_inForce) {
        throw Error(ErrorKind::InvalidInput,
                    "workload " + quoted(workload.name) + ": maxConnections " + std::to_string(asked)
                        + " cannot take effect: CUDA already started in this process with " + std::to_string(s_inForce)
                        + " hardware queues, and reads CUDA_DEVICE_MAX_CONNECTIONS only when it starts; run it in "
                          "a process of its own (streamscope-cli run)");
    }
    return s_inForce;
}

// Whether the run measures solo baselines (RunOptions::solo, or the workload asks for them), with the
// workload's parts in `parts`; why not in the trace's metadata where it was asked and cannot.
bool decideSolo(const Workload &workload, bool asked, Trace &trace, SoloParts &parts)
{
    if (!asked && !workload.solo)
        return false;
    // Where there is one part there is nothing to price: the run goes on without them and says so (a
    // one-stream variant of a lesson that asks for them, or the app's remembered "solo baselines").
    if (countSoloParts(workload) < 2) {
        trace.metadata["solo"] = "not measured: solo baselines were asked for, but the workload has one part "
                                 "(a stream, or streams naming one \"part\"): nothing runs beside anything";
        return false;
    }
    // Refuse a workload whose parts cannot run alone before anything is allocated.
    if (workload.schedule.size() == workload.opCount())
        parts = soloParts(workload);
    return true;
}

// The trace's provenance: StreamScope's own, titled after the workload, on this host, now (UTC).
void stampTrace(Trace &trace, const std::string &title)
{
    trace.source = TraceSource::StreamScope;
    trace.title = title;
    trace.toolVersion = STREAMSCOPE_VERSION;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0)
        trace.hostName = host;
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
    trace.createdUtc = stamp;
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
// A stopped run with solo baselines: the rounds that finished (each repetition with its solo runs), and what is
// missing said in the trace.
void keepRounds(Trace &trace, std::vector<std::int64_t> &spans, int roundsDone, const Error &stop, int repetitions)
{
    while (int(trace.repetitions.size()) > roundsDone) {
        trace.repetitions.pop_back();
        spans.pop_back();
    }
    while (!trace.solo.runs.empty() && trace.solo.runs.back().round >= roundsDone)
        trace.solo.runs.pop_back();
    trace.solo.missing = "the run was stopped (" + std::string(stop.what()) + ") after " + std::to_string(roundsDone)
                         + " of " + std::to_string(repetitions) + " rounds: repetitions "
                         + std::to_string(roundsDone + 1) + "-" + std::to_string(repetitions)
                         + " and their solo baselines are missing";
    trace.timingNote += (trace.timingNote.empty() ? "" : "; ") + trace.solo.missing;
}

// "0,1": the run's devices, for the trace's metadata.
std::string joined(const std::vector<int> &devices)
{
    std::string list;
    for (const int d : devices)
        list += (list.empty() ? "" : ",") + std::to_string(d);
    return list;
}

// The hardware queues in force and who chose them, for the trace's metadata.
std::string connectionsText(int connections, const Workload &workload)
{
    return std::to_string(connections)
           + (workload.maxConnections > 0                  ? " (the workload's maxConnections)"
              : std::getenv("CUDA_DEVICE_MAX_CONNECTIONS") ? " (CUDA_DEVICE_MAX_CONNECTIONS)"
                                                           : " (CUDA's default)");
}

// Whether a kernel fault broke the context: a query of the repetition's start event (which has long completed)
// returns the sticky error from then on.
cudaError_t stickyErrorOf(cudaEvent_t start)
{
    const cudaError_t e = start ? cudaEventQuery(start) : cudaSuccess;
    return e == cudaErrorNotReady ? cudaSuccess : e;
}

// Whether the repetition's work still runs: a stream's end event or the control stream not reached yet; nothing
// where a query met an error (the caller's synchronisation reports it).
std::optional<bool> gpuBusy(const std::vector<std::pair<cudaEvent_t, int>> &ends, cudaStream_t control)
{
    bool busy = false;
    for (const auto &[e, device] : ends) {
        if (!e)
            continue; // a slot this repetition left unused (a graph's launch ends in one)
        const cudaError_t q = cudaEventQuery(e);
        if (q != cudaSuccess && q != cudaErrorNotReady)
            return std::nullopt;
        busy = busy || q == cudaErrorNotReady;
    }
    busy = busy || cudaStreamQuery(control) == cudaErrorNotReady;
    cudaGetLastError();
    return busy;
}

// A solo round's records: the ops of the part that ran alone.
SoloRun soloRunOf(const Repetition &rep, int part, const std::function<bool(std::size_t)> &ran)
{
    SoloRun run;
    run.part = part;
    run.round = rep.index;
    for (std::size_t i = 0; i < rep.ops.size(); ++i)
        if (ran(i))
            run.ops.push_back(rep.ops[i]);
    return run;
}

// A workload thread's host thread, as it starts: named for NVTX where asked, bound to its device; why not, or empty.
std::string bindIssueThread(int device, bool nvtx, const std::string &name, std::uint64_t tid)
{
    if (nvtx)
        nvtxNameOsThreadA(std::uint32_t(tid), name.c_str());
    const cudaError_t bound = cudaSetDevice(device);
    if (bound == cudaSuccess)
        return {};
    cudaGetLastError();
    return "cudaSetDevice(" + std::to_string(device) + "): " + cuda::errorText(bound);
}

// The record of an op with `flag` set.
OpRecord withFlag(OpRecord record, std::uint8_t flag)
{
    record.flags |= flag;
    return record;
}

// ---------------------------------------------------------------------------------------------------
// One run

// A workload thread: the ops it issues (indices into the plan, in its order), its event sharing, the op
// whose API call it is in (for the watchdog's thread) and its default streams' end events.
struct DefaultEnd {
    int device = 0;
    std::size_t slot = 0; // its place in the stream end slots (RunObjects) and m_streamEndUsed
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

// For the watchdog's thread, where the host is blocked: the op whose call each workload thread is in.
std::string callsInProgress(const std::vector<std::unique_ptr<ThreadState>> &threads,
                            const std::vector<PlannedOp> &plan, const Workload &workload)
{
    std::string calls;
    for (const auto &thread : threads) {
        const int i = thread->inCall.load();
        if (i < 0 || std::size_t(i) >= plan.size())
            continue;
        calls += (calls.empty() ? "" : "; ")
                 + (threads.size() > 1 ? "thread " + quoted(workload.threadName(thread->index)) + " in " : "")
                 + plan[std::size_t(i)].context;
    }
    return calls.empty() ? std::string() : "the host was in the call of " + calls;
}

class CudaRun {
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
            m_graph.leak();
            m_objects.leak();
            m_timing.leak();
            return;
        }
        for (const int d : m_devices.others()) {
            cudaSetDevice(d);
            cudaDeviceSynchronize();
        }
        m_devices.restorePeerAccess();
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
        if (m_objects.waitIdle(m_devices, m_device.index >= 0, kSettleNs))
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
        m_solo = decideSolo(m_workload, m_options.solo, m_trace, m_soloParts);
        m_connections = applyMaxConnections(m_workload);
        m_timing.start(m_workload, m_options);
        report(RunProgress::Phase::Preparing, 0, 1,
               "selecting device " + std::to_string(m_workload.threadDevice(0, m_override)));
        prepareDevices();
        report(RunProgress::Phase::Preparing, 0, 1,
               "allocating " + std::to_string(m_workload.buffers.size()) + " buffers");
        m_objects.allocateBuffers(m_workload, m_override, m_device.index, m_used.size() > 1);
        m_timing.startUnifiedMemory(m_device.index, m_objects.hasManaged());
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
        if (graphMode())
            captureGraphs();
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

    // -- faults -------------------------------------------------------------------------------------

    bool issuedOp(std::size_t op) const { return m_issued && m_issued->issued(op); }

    // The first unfinished op of each stream (kernels only, when `kernels`), as "stream 's0' op 1 (...): name".
    std::string unfinishedOps(bool kernels = false) const
    {
        return m_pending.unfinished(
            m_plan, [this](std::size_t op) { return issuedOp(op); }, kernels);
    }

    // For the watchdog's thread, where the host is blocked: the op whose call it is in.
    std::string callInProgress() const { return callsInProgress(m_threads, m_plan, m_workload); }

    // Moves each stream's cursor past the ops whose end event has completed; false where a query met an
    // error (a sticky error: the context is broken).
    bool advancePending()
    {
        const bool ok =
            m_pending.advance([this](std::size_t op) { return issuedOp(op); },
                              [this](std::size_t op) {
                                  const cudaError_t q = cudaEventQuery(m_objects.op(op).end.get());
                                  if (q == cudaErrorNotReady)
                                      return PendingOps::State::NotReady;
                                  return q == cudaSuccess ? PendingOps::State::Done : PendingOps::State::Failed;
                              });
        if (ok)
            cudaGetLastError();
        return ok;
    }

    // Whether the context is broken by a sticky error (a kernel fault): every call returns it from now on.
    cudaError_t stickyError() const { return stickyErrorOf(m_devices.repStart()); }

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
            const std::optional<bool> busy = gpuBusy(m_streamEndUsed, m_devices.control());
            if (!busy || !*busy)
                return;
            if (auto stop = m_watch.stopReason())
                throw stoppedWhileRunning(*stop, unfinishedOps());
            if (spin > 100)
                std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
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
        m_trace.metadata["peer_access"] = m_devices.setPeerAccess(m_workload, m_used);
        // What the run's peer copies used: peer access on between every pair of its devices that supports it.
        markPeerAccess(m_trace.peerLinks, m_workload, m_used);
        useDevice(m_device.index);
    }

    // -- setup --------------------------------------------------------------------------------------

    void createStreams()
    {
        m_devices.create(m_device.index, m_used, m_options.nvtx);
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
        m_objects.createStreams(m_workload, m_override, m_options.nvtx, m_trace.streams);
        // The default stream ends a repetition too: synchronous copies run there whichever stream the
        // workload lists them under. Each thread's, on each device its streams are on (recorded by that
        // thread: the per-thread default stream is its own).
        for (auto &thread : m_threads) {
            for (const int d : defaultStreamDevices(m_workload, thread->index, m_override)) {
                useDevice(d);
                const std::size_t slot = m_objects.addEndSlot(); // the event lives in the thread's state
                thread->defaultEnds.push_back(
                    {d, slot, Event(cudaEventDefault, "the default stream's repetition end event")});
            }
        }
        useDevice(m_device.index);
        m_objects.createHoldFlags();
    }

    // The plan's ops (run_plan.h) made into CUDA objects (runner_objects.h); then what the stages need of
    // them (the threads' schedules, the record matcher, the pending ops).
    void prepareOps()
    {
        OpPlanOptions options;
        options.override = m_override;
        // A graph's ops are timed by CUPTI's records of its nodes: timing events recorded inside a capture would be
        // edges of the graph, not moments of its ops.
        options.instrument = m_options.instrument && !graphMode();
        options.timedByEvents = m_trace.timing == TimingSource::Events;
        options.timeLimitNs = m_watch.limitNs();
        m_plan = planOps(m_workload, m_trace.peerLinks, options, m_trace);
        if (const std::string pdl = describePdl(m_plan, options.timedByEvents, m_trace.devices); !pdl.empty())
            m_trace.metadata["pdl"] = pdl;
        m_objects.prepareOps(m_plan, m_device.index, m_workload, m_override, m_options.communicatorId);
        if (const std::string &nccl = m_objects.collectivesDescription(); !nccl.empty())
            m_trace.metadata["nccl"] = nccl;
        const auto schedule = issueSchedule(m_plan, int(m_threads.size()));
        for (std::size_t t = 0; t < m_threads.size(); ++t)
            m_threads[t]->ops = schedule[t];
        m_issued = std::make_unique<IssueProgress>(m_plan.size());
        m_matcher = std::make_unique<RecordMatcher>(m_plan, m_objects.opMemory(), m_objects.bufferRanges());
        m_pending = PendingOps(m_objects.endStreams());
    }

    // -- calibration --------------------------------------------------------------------------------

    void calibrateDevices()
    {
        report(RunProgress::Phase::Calibrating, 0, 1, "calibrating the spin kernel");
        m_watch.setPhase("calibration");
        m_devices.calibrate(m_timing, m_trace.calibration, m_trace.devices, [this] { checkCancel(); });
        for (std::size_t i = 0; i < m_plan.size(); ++i) {
            const PlannedOp &plan = m_plan[i];
            if (plan.kind == OpKind::Kernel && plan.spec->kernelType == KernelType::Compute)
                m_objects.op(i).spinCycles =
                    spinCyclesFor(plan.spec->durationNs, m_devices.calibrationOf(plan.device, m_trace.calibration));
        }
    }

    void releaseHold()
    {
        if (m_holding) {
            m_objects.holdFlags()[0] = 1;
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
                    // A rank of a job runs each repetition with the others (RunOptions::beforeRepetition): it
                    // cannot run one again alone.
                    if (attempt == kUnifiedMemoryAttempts || m_workload.rankOf.rank >= 0) {
                        m_timing.counts().unifiedMemoryIncomplete.push_back(i);
                        break;
                    }
                    m_trace.repetitions.pop_back();
                    m_devices.clock().spans().pop_back();
                    m_timing.counts().unifiedMemoryRetries += 1;
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
        keepRounds(m_trace, m_devices.clock().spans(), m_soloRoundsDone, stop, repetitions);
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
        if (m_objects.hasManaged())
            m_objects.resetManagedBuffers(m_device.concurrentManagedAccess, m_devices.control());
        for (const int d : m_devices.others()) {
            useDevice(d);
            STREAMSCOPE_CUDA_CHECK("device " + std::to_string(d) + ": " + context, cudaDeviceSynchronize());
        }
        useDevice(m_device.index);
        STREAMSCOPE_CUDA_CHECK(context, cudaDeviceSynchronize());
        // The ranks of a job start each repetition together (RunOptions::beforeRepetition: an MPI barrier).
        if (m_options.beforeRepetition)
            m_options.beforeRepetition();
        m_devices.anchor();
        m_repSeq += 1;
        m_timing.newRepetition();
        m_repHostStartNs = hostNowNs();

        m_repLabel = label;
        NvtxRange range(m_options.nvtx, label.c_str(), kRepetitionColor);
        // Everything the host prepares comes before the start event: after it, the GPU waits for the host.
        Repetition rep;
        rep.index = index;
        rep.ops.resize(m_plan.size());
        m_issued->restart();
        m_pending.restart();
        startStreams(context);
        try {
            issueAndWait(rep, context);
        } catch (const Error &e) {
            rethrowWithFault(e);
        }
        const std::int64_t previousRepEndNs = m_repEndNs;
        m_repEndNs = hostNowNs();

        if (m_hold && m_objects.holdFlags()[1] != 0)
            m_holdTimeouts += 1;
        if (!measured) {
            m_timing.discardRecords(context);
            return;
        }
        recordRepetition(std::move(rep), context, previousRepEndNs);
    }

    // Every stream waits on the repetition's start event; when held, that event follows the hold kernel.
    void startStreams(const std::string &context)
    {
        if (m_hold) {
            volatile int *flags = m_objects.holdFlags();
            flags[0] = 0;
            flags[1] = 0;
            STREAMSCOPE_CUDA_CHECK(context, kernels::launchHold(const_cast<int *>(flags), const_cast<int *>(flags + 1),
                                                                kHoldTimeoutNs, m_devices.control()));
            m_holding = true;
        }
        m_timing.recordEvent(m_devices.repStart(), m_devices.control(), context, m_repSeq);
        // Each other device starts from its own start event, behind the primary's when held.
        for (const int d : m_devices.others()) {
            useDevice(d);
            if (m_hold)
                STREAMSCOPE_CUDA_CHECK(context, cudaStreamWaitEvent(m_devices.control(d), m_devices.repStart(), 0));
            m_timing.recordEvent(m_devices.repStart(d), m_devices.control(d), context, m_repSeq);
        }
        useDevice(m_device.index);
        for (auto &thread : m_threads)
            thread->lastEvent.clear();
        if (!m_hold)
            return;
        for (std::size_t i = 0; i < m_objects.streamCount(); ++i) {
            const int device = m_trace.streams[i].device;
            useDevice(device);
            cudaEvent_t start = m_devices.repStart(device);
            STREAMSCOPE_CUDA_CHECK(context, cudaStreamWaitEvent(m_objects.stream(i), start, 0));
            // A held stream reaches its first op when the start event fires.
            if (m_objects.canShareEvents(m_objects.stream(i), m_trace.streams, m_devices))
                m_threads[std::size_t(m_workload.streams[i].thread)]->lastEvent[{m_objects.stream(i), device}] = start;
        }
        // The default streams: each thread's own, on each device (recorded on the issuing thread below).
        useDevice(m_device.index);
        if (m_threads.size() == 1) {
            for (const auto &end : m_threads[0]->defaultEnds) {
                useDevice(end.device);
                STREAMSCOPE_CUDA_CHECK(
                    context, cudaStreamWaitEvent(m_objects.defaultStream(), m_devices.repStart(end.device), 0));
                if (m_objects.canShareEvents(m_objects.defaultStream(), m_trace.streams, m_devices))
                    m_threads[0]->lastEvent[{m_objects.defaultStream(), end.device}] = m_devices.repStart(end.device);
            }
            useDevice(m_device.index);
        }
    }

    // Issues every op of the repetition (each workload thread its own, all released together), then
    // waits for the GPU to finish them.
    void issueAndWait(Repetition &rep, const std::string &context)
    {
        m_watch.setActivity("issuing the repetition's ops");
        m_streamEndUsed.assign(m_objects.endSlots(), {nullptr, m_device.index});
        if (graphMode()) {
            launchGraph(rep, context);
        } else if (m_threads.size() == 1) {
            issueThread(*m_threads[0], rep, context);
        } else {
            m_currentRep = &rep;
            m_currentContext = context;
            m_issueThreads->runRepetition();
        }
        m_timing.fallBackIfBroken();
        releaseHold();
        waitForGpu();
        // Errors of the queued work (a kernel fault, a failed copy) surface here.
        for (const int d : m_devices.others()) {
            useDevice(d);
            STREAMSCOPE_CUDA_CHECK("device " + std::to_string(d) + ": " + context + ": waiting for the GPU",
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
        for (std::size_t s = 0; s < m_objects.streamCount(); ++s) {
            if (m_workload.streams[s].thread != thread.index)
                continue;
            const int device = m_trace.streams[s].device;
            const cudaStream_t handle = m_objects.stream(s);
            const auto last = thread.lastEvent.find({handle, device});
            if (last != thread.lastEvent.end() && last->second != m_devices.repStart(device)) {
                m_streamEndUsed[s] = {last->second, device};
            } else {
                useDevice(device);
                STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(m_objects.streamEnd(s), handle));
                m_streamEndUsed[s] = {m_objects.streamEnd(s), device};
            }
        }
        for (const auto &end : thread.defaultEnds) {
            useDevice(end.device);
            const auto last = thread.lastEvent.find({m_objects.defaultStream(), end.device});
            if (last != thread.lastEvent.end() && last->second != m_devices.repStart(end.device)) {
                m_streamEndUsed[end.slot] = {last->second, end.device};
            } else {
                STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(end.event.get(), m_objects.defaultStream()));
                m_streamEndUsed[end.slot] = {end.event.get(), end.device};
            }
        }
    }

    // -- graph mode -----------------------------------------------------------------------------------

    bool graphMode() const { return m_workload.launch == LaunchMode::Graph; }

    // Each set of ops the repetitions run (the whole workload; each solo part) captured and instantiated now, before
    // the first repetition (runner_graph.h). One host thread on one GPU (capture_check.h refused anything else).
    void captureGraphs()
    {
        report(RunProgress::Phase::Preparing, 0, 1, "capturing the repetition's graph");
        m_watch.setPhase("capturing the graph");
        std::map<int, std::vector<std::size_t>> sets;
        for (int part = -1; part < (m_solo ? int(m_soloParts.names.size()) : 0); ++part)
            for (const std::size_t i : m_threads[0]->ops)
                if (part < 0 || m_soloParts.opPart[i] == part)
                    sets[part].push_back(i);
        std::string why;
        if (!m_graph.capture(
                sets, m_devices.control(), m_timing.tracer(),
                [this](std::size_t i) { return m_objects.op(i).gpuStream; },
                [this](std::size_t i) { callOp(m_plan[i], m_objects.op(i), m_workload.defaultStream); },
                [this](std::size_t i) { return m_plan[i].context; }, why))
            m_timing.fallBack("a graph's records are tied to its ops by graph node, and CUPTI's node callbacks failed: "
                              + why);
    }

    // One repetition in graph mode: one cudaGraphLaunch on the control stream, after the start event. Its ops make
    // no calls of their own (OpFlagGraphNode): their records are filled in once the GPU has its work.
    void launchGraph(Repetition &rep, const std::string &context)
    {
        useDevice(m_device.index);
        rep.hostRanges.push_back(m_graph.launch(m_soloPart, m_devices.control(), context, m_trace));
        m_timing.recordEvent(m_graph.end(), m_devices.control(), context, m_repSeq);
        m_streamEndUsed.at(0) = {m_graph.end(), m_device.index};
        for (const std::size_t i : m_threads[0]->ops)
            if (inRun(i))
                rep.ops[i] = withFlag(issuedRecord(m_plan[i], i, 0), OpFlagGraphNode);
    }

    // -- host threads ---------------------------------------------------------------------------------

    // One std::thread per workload thread (issue_threads.h), each bound to its device, started before
    // anything is timed.
    void startThreads()
    {
        if (m_threads.size() < 2)
            return;
        m_trace.hostThreads.resize(m_threads.size());
        const auto bind = [this](int t, std::uint64_t tid) {
            return bindIssueThread(m_threads[std::size_t(t)]->device, m_options.nvtx, m_workload.threadName(t), tid);
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

    // Takes the repetition's records and makes them the ops' times (runner_timing.h, record_matching.h).
    // Returns, per device, whether CUPTI timed every op's events; nothing where the run fell back to events.
    std::map<int, bool> applyRecords(Repetition &rep, const std::string &context, std::int64_t previousRepEndNs)
    {
        RepetitionRecords records;
        records.repSeq = m_repSeq;
        records.repStartNs = m_repHostStartNs;
        records.inRun.resize(m_plan.size());
        records.events.resize(m_plan.size());
        for (std::size_t i = 0; i < m_plan.size(); ++i) {
            records.inRun[i] = inRun(i);
            records.events[i] = {m_objects.op(i).beginUsed, m_objects.op(i).end.get()};
        }
        if (graphMode())
            records.graphNodes = &m_graph.nodeOps();
        const MatchResult result =
            m_timing.applyRecords(rep, context, previousRepEndNs, std::move(records), *m_matcher);
        m_unifiedMemoryLost = m_unifiedMemoryLost || result.unifiedMemoryLost;
        return result.eventsFromCupti;
    }

    // A measured repetition's times, from its events and CUPTI's records.
    void recordRepetition(Repetition rep, const std::string &context, std::int64_t previousRepEndNs)
    {
        // The repetition's GPU span from one start event to the last stream's end event: the only GPU
        // timing when ops are not instrumented, and the like-for-like figure for the overhead benchmark.
        m_devices.clock().beginMeasured();
        const std::int64_t start = m_devices.gpuTime(m_devices.repStart(), context);
        std::int64_t end = start;
        for (const auto &[e, device] : m_streamEndUsed)
            if (e)
                end = std::max(end, m_devices.gpuTime(e, context, device));
        if (m_soloPart < 0)
            m_devices.clock().spans().push_back(end - start);

        // Stream-ready and the event end from the events; execution from them too until CUPTI's
        // records replace it.
        for (std::size_t i = 0; i < m_plan.size(); ++i) {
            const PreparedOp &op = m_objects.op(i);
            OpRecord &r = rep.ops[i];
            if (op.begin.get() && inRun(i)) {
                r.readyNs = m_devices.gpuTime(op.beginUsed, m_plan[i].context, m_plan[i].device);
                r.eventEndNs = m_devices.gpuTime(op.end.get(), m_plan[i].context, m_plan[i].device);
                r.gpuStartNs = r.readyNs;
                r.gpuEndNs = r.eventEndNs;
            }
        }
        std::map<int, bool> eventsFromCupti;
        if (m_timing.tracer())
            eventsFromCupti = applyRecords(rep, context, previousRepEndNs);
        // A device's events on the host axis: CUPTI's own moments where it gave every one (the same clock
        // as execution: no mapping error of StreamScope's), else the anchor, narrowed by causality.
        m_devices.clock().settleErrors(rep, m_plan, eventsFromCupti, m_timing.tracer() != nullptr);
        for (OpRecord &r : rep.ops) {
            timeStagedPeer(r);
            if (isHostBlocking(r))
                r.flags |= OpFlagHostBlocking;
        }
        addKernelWork(rep, m_plan);
        if (m_soloPart >= 0) {
            m_trace.solo.runs.push_back(soloRunOf(rep, m_soloPart, [this](std::size_t i) { return inRun(i); }));
            return;
        }
        m_trace.repetitions.push_back(std::move(rep));
    }

    void issue(ThreadState &thread, std::size_t index, OpRecord &r)
    {
        const PlannedOp &plan = m_plan[index];
        PreparedOp &op = m_objects.op(index);
        r = issuedRecord(plan, index, thread.index);

        const std::pair<cudaStream_t, int> key{op.gpuStream, plan.device};
        if (op.begin.get()) {
            const auto last = thread.lastEvent.find(key);
            if (last != thread.lastEvent.end()) {
                op.beginUsed = last->second;
            } else {
                m_timing.recordEvent(op.begin.get(), op.gpuStream, plan.context, m_repSeq);
                op.beginUsed = op.begin.get();
            }
        }
        {
            NvtxRange range(m_options.nvtx, plan.name.c_str(), opColor(plan.kind));
            const bool pushed = m_timing.ties(plan) && m_timing.push(opExternalId(m_repSeq, index), plan.context);
            thread.inCall.store(int(index), std::memory_order_relaxed);
            r.hostStartNs = hostNowNs();
            try {
                callOp(plan, op, m_workload.defaultStream);
            } catch (...) {
                thread.inCall.store(-1, std::memory_order_relaxed);
                std::string why;
                if (pushed)
                    m_timing.tracer()->pop(why);
                throw;
            }
            r.hostEndNs = hostNowNs();
            thread.inCall.store(-1, std::memory_order_relaxed);
            m_timing.pop(pushed, plan.context);
        }
        if (op.end.get()) {
            m_timing.recordEvent(op.end.get(), op.gpuStream, plan.context, m_repSeq);
            if (m_objects.canShareEvents(op.gpuStream, m_trace.streams, m_devices))
                thread.lastEvent[key] = op.end.get();
            else
                thread.lastEvent.erase(key);
        } else if (!plan.hostOnly) {
            thread.lastEvent.erase(key); // uninstrumented work was enqueued there
        }
    }

    void finishMetadata()
    {
        stampTrace(m_trace, m_workload.name);
        // host_ns = ns since the first measured repetition's base event + this offset.
        m_trace.calibration.gpuToHostOffsetNs = m_devices.clock().firstBaseHostNs();

        auto &md = m_trace.metadata;
        md["device"] = std::to_string(m_device.index);
        md["instrumented"] = m_options.instrument ? "yes" : "no";
        md["nvtx"] = m_options.nvtx ? "yes" : "no";
        md["hold"] = std::string(m_hold ? "yes: " : "no: ") + m_holdReason;
        if (m_holdTimeouts > 0)
            md["hold_timeouts"] = std::to_string(m_holdTimeouts);
        m_devices.clock().describe(md, kAnchorTries);
        m_devices.describe(md); // every other device's spin rate beside the trace's (the primary's)
        if (m_used.size() > 1)
            md["devices"] = joined(m_used);
        if (m_solo)
            md["solo"] = std::to_string(m_soloParts.names.size()) + " parts, each alone after each of "
                         + std::to_string(m_soloRoundsDone) + " measured repetitions";
        md["host_threads"] = std::to_string(m_threads.size());
        describeLaunch(m_trace, m_workload.launch, m_graph.description());
        md["default_stream"] = m_workload.defaultStream == DefaultStreamMode::PerThread ? "per-thread" : "legacy";
        md["timing"] = std::string(toString(m_trace.timing));
        md["max_connections"] = connectionsText(m_connections, m_workload);
        m_timing.describe();
    }

    const Workload &m_workload;
    const RunOptions &m_options;
    const ProgressCallback &m_progress;
    RunWatchdog &m_watch;
    bool m_settled = false;
    bool m_abandoned = false;
    int m_override = -1; // RunOptions::device: the default device instead of the workload's
    std::vector<int> m_used; // the devices the run uses

    std::vector<std::unique_ptr<ThreadState>> m_threads;
    std::unique_ptr<IssueProgress> m_issued; // which ops of the repetition have been issued
    std::unique_ptr<IssueThreads> m_issueThreads; // where the workload has several threads
    Repetition *m_currentRep = nullptr; // the repetition the threads issue
    std::string m_currentContext;
    PendingOps m_pending; // per stream, how far the GPU got (waitForGpu), to name what a stop found running

    Trace m_trace;
    DeviceInfo m_device;

    // Destroyed after the run's CUDA objects below: tracing stops after everything the run queued has finished.
    RunTiming m_timing{m_trace,
                       [this](const std::string &message) { report(RunProgress::Phase::Preparing, 0, 1, message); }};
    std::uint32_t m_repSeq = 0; // repetitions issued so far, warm-ups included: the high half of external ids
    bool m_solo = false; // solo baselines: RunOptions::solo, or the workload asks for them
    SoloParts m_soloParts; // RunOptions::solo: the workload's parts
    int m_soloPart = -1; // the part running alone in the current repetition, -1 in the mix
    int m_soloRoundsDone = 0; // measured repetitions followed by every part alone
    int m_connections = 8; // CUDA_DEVICE_MAX_CONNECTIONS in force

    // Declaration order is release order reversed: events and streams go before the buffers.
    RunObjects m_objects; // the workload's buffers, streams, ops' events and the hold flag
    RunDevices m_devices; // each device's control stream, anchor and start events, clock and calibration
    GraphRun m_graph; // graph mode: the graphs, their nodes' ops and their end event (runner_graph.h)
    // Event sharing: a timing event costs ~1.5 us of GPU time on the stream that records it, so an
    // op's begin reuses the last event recorded on its stream when nothing was enqueued there since
    // (the previous op's end, or the held repetition's start). Only on streams that cannot be held up
    // by the legacy default stream's implicit synchronisation, where a fresh begin event would differ.
    std::vector<std::pair<cudaEvent_t, int>> m_streamEndUsed; // each stream's end event and its device
    std::vector<PlannedOp> m_plan; // one per schedule entry (run_plan.h)
    std::unique_ptr<RecordMatcher> m_matcher; // CUPTI's records onto m_plan's ops

    std::int64_t m_repHostStartNs = 0; // when the current repetition began on the host
    std::int64_t m_repEndNs = 0; // when the last repetition's work was done, on the host
    bool m_unifiedMemoryLost = false; // the repetition just run lacks unified-memory records
    bool m_hold = false;
    bool m_holding = false;
    std::string m_holdReason;
    int m_holdTimeouts = 0;
    std::string m_repLabel; // the repetition's NVTX range: "rep N" or "warmup N"
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

void applyProcessSettings(const Workload &workload)
{
    applyMaxConnections(workload);
}

std::optional<Error> missingLibraries(const Workload &workload)
{
    return collectivesUnavailable(workload);
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
    if (const auto missing = missingLibraries(workload))
        throw *missing;
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
            if (options.onError)
                options.onError(e);
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
