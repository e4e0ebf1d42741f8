// The repetition clock (see repetition_clock.h).
#include "engine/run/repetition_clock.h"

#include <algorithm>
#include <cmath>

#include "engine/run/record_matching.h"

namespace streamscope::engine {

EventAlignment alignDeviceEvents(Repetition &rep, const std::vector<PlannedOp> &ops, int device,
                                 std::int64_t anchorErrorNs)
{
    // CUPTI times execution on the host clock itself (runner_cupti.h: a timestamp callback hands it the
    // steady clock); the events reach that axis through the device's anchor, within +-anchorErrorNs, and
    // the anchor's window is what this VM's synchronisation latency makes it (4-5 us on the GPU host).
    // Causality bounds the events' offset much closer: an op's stream-ready event completed before its
    // execution started, and its end event after its execution ended. Over the repetition's ops on
    // `device` that CUPTI timed, the tightest of these leave an interval of offsets; the device's event
    // times move to its middle, and its half-width is the error. Where the ops bound nothing, or their
    // bounds contradict each other, the anchor stands as it was.
    const std::size_t n = std::min(ops.size(), rep.ops.size());
    std::vector<CausalSample> samples;
    for (std::size_t i = 0; i < n; ++i) {
        const PlannedOp &op = ops[i];
        const OpRecord &r = rep.ops[i];
        if (op.device == device && !op.hostOnly && expectsRecord(op.kind) && !r.executionFromEvents()
            && r.readyNs != kNoTime && r.eventEndNs != kNoTime && r.hasGpu())
            samples.push_back({r.readyNs, r.gpuStartNs, r.gpuEndNs, r.eventEndNs});
    }
    const EventAlignment a = alignEventsByCausality(samples, anchorErrorNs);
    if (!a.applied)
        return a;
    for (std::size_t i = 0; i < n; ++i) {
        OpRecord &r = rep.ops[i];
        if (ops[i].device != device || r.readyNs == kNoTime)
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
    return a;
}

RepetitionClock::RepetitionClock(const std::vector<int> &devices)
{
    for (const int d : devices)
        m_devices.push_back(DeviceClock{d});
    if (m_devices.empty())
        m_devices.emplace_back();
}

const RepetitionClock::DeviceClock &RepetitionClock::at(int device) const
{
    for (const DeviceClock &d : m_devices)
        if (d.device == device)
            return d;
    return m_devices.front();
}

RepetitionClock::DeviceClock &RepetitionClock::at(int device)
{
    for (DeviceClock &d : m_devices)
        if (d.device == device)
            return d;
    return m_devices.front();
}

void RepetitionClock::setAnchor(int device, const ClockAnchor &anchor)
{
    DeviceClock &d = at(device);
    d.base = anchor.index;
    d.baseHostNs = anchor.hostNs;
    d.anchorErrorNs = anchor.maxErrorNs;
}

std::int64_t RepetitionClock::hostNs(int device, float elapsedMs) const
{
    return at(device).baseHostNs + std::llround(double(elapsedMs) * 1e6);
}

void RepetitionClock::beginMeasured()
{
    if (m_spans.empty())
        m_firstBaseHostNs = m_devices.front().baseHostNs;
}

void RepetitionClock::settleErrors(Repetition &rep, const std::vector<PlannedOp> &ops,
                                   const std::map<int, bool> &eventsFromCupti, bool cuptiTimed)
{
    for (DeviceClock &d : m_devices) {
        std::int64_t error = d.anchorErrorNs;
        if (const auto it = eventsFromCupti.find(d.device); it != eventsFromCupti.end() && it->second) {
            m_eventTimestampReps += 1;
            error = 0;
        } else if (cuptiTimed) {
            const EventAlignment a = alignDeviceEvents(rep, ops, d.device, d.anchorErrorNs);
            if (a.applied) {
                m_eventsAlignedToRecords += 1;
                error = a.maxErrorNs;
            }
        }
        d.maxErrorNs = std::max(d.maxErrorNs, error);
    }
}

void RepetitionClock::describe(std::map<std::string, std::string> &md, int anchorTries) const
{
    md["clock_anchor"] = "per repetition: base event after cudaDeviceSynchronize; host time = midpoint of "
                         "[cudaEventRecord, cudaEventSynchronize return], narrowest of "
                         + std::to_string(anchorTries) + " tries";
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
    std::int64_t worst = 0;
    for (const DeviceClock &d : m_devices) {
        md["clock.device" + std::to_string(d.device) + ".errorNs"] = std::to_string(d.maxErrorNs);
        worst = std::max(worst, d.maxErrorNs);
    }
    md["clock_anchor_max_error_ns"] = std::to_string(worst);
    std::string spans;
    for (const std::int64_t s : m_spans)
        spans += (spans.empty() ? "" : ",") + std::to_string(s);
    md["repetition_gpu_span_ns"] = spans;
}

} // namespace streamscope::engine
