// The repetition clock: GPU event times on the host's steady clock, device by device, repetition by
// repetition. CUDA's event clock is per device and has no epoch, so before each repetition every device
// the run uses records a few base events on its control stream, and the narrowest host window around one
// of them (clock_calibration.h, narrowestAnchor) anchors that device: an event's moment is then the
// anchor's host time plus cudaEventElapsedTime from the base event. After a measured repetition, each
// device's error is what is left of the anchor's: none where CUPTI timed every event itself
// (record_matching.h), the causality bound where CUPTI's execution records narrow it, the anchor's
// half-window otherwise. The clock also keeps the repetitions' GPU spans and says all this in the
// trace's metadata. Plain C++: runner_cuda.cpp makes the CUDA calls and hands the clock their results.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/model/trace.h"
#include "engine/run/clock_calibration.h"
#include "engine/run/run_plan.h"

namespace streamscope::engine {

// The events of `device` in the repetition moved by the shift that causality allows between its ops'
// events and their CUPTI execution (alignEventsByCausality); execution copied from the event pair moves
// with them. Returns the alignment (applied false: nothing moved, the anchor's error stands).
EventAlignment alignDeviceEvents(Repetition &rep, const std::vector<PlannedOp> &ops, int device,
                                 std::int64_t anchorErrorNs);

class RepetitionClock {
public:
    // The primary device first, then every other device the run uses.
    explicit RepetitionClock(const std::vector<int> &devices = {});

    // This repetition's anchor of `device`.
    void setAnchor(int device, const ClockAnchor &anchor);
    // Which of the device's base events the anchor chose (an index into its anchor events).
    std::size_t baseIndex(int device) const { return at(device).base; }
    // An event's moment on the host axis: `elapsedMs` after the device's base event
    // (cudaEventElapsedTime). A device the clock does not know maps through the primary's anchor.
    std::int64_t hostNs(int device, float elapsedMs) const;

    // A measured repetition begins being recorded: the first one's anchor is the trace's offset.
    void beginMeasured();
    std::int64_t firstBaseHostNs() const { return m_firstBaseHostNs; }
    // The repetitions' GPU spans (start event to the last stream's end), measured mixes only.
    std::vector<std::int64_t> &spans() { return m_spans; }

    // After the repetition's records were applied: each device's error folded into its worst. Where
    // `eventsFromCupti` says CUPTI timed every event of a device its error is 0; else, with CUPTI's
    // records (`cuptiTimed`), the events are aligned to them by causality; else the anchor's error stands.
    void settleErrors(Repetition &rep, const std::vector<PlannedOp> &ops, const std::map<int, bool> &eventsFromCupti,
                      bool cuptiTimed);

    // The clock's metadata: clock_anchor (how, with `anchorTries`), clock_events, clock_alignment,
    // clock.device<N>.errorNs, clock_anchor_max_error_ns, repetition_gpu_span_ns.
    void describe(std::map<std::string, std::string> &metadata, int anchorTries) const;

private:
    struct DeviceClock {
        int device = 0;
        std::size_t base = 0;
        std::int64_t baseHostNs = 0;
        std::int64_t anchorErrorNs = 0; // this repetition's anchor, before alignment
        std::int64_t maxErrorNs = 0; // over the measured repetitions, after it
    };
    const DeviceClock &at(int device) const;
    DeviceClock &at(int device);

    std::vector<DeviceClock> m_devices; // the primary first
    std::int64_t m_firstBaseHostNs = 0;
    std::vector<std::int64_t> m_spans;
    int m_eventTimestampReps = 0; // device-repetitions whose events all came from CUPTI
    int m_eventsAlignedToRecords = 0; // device-repetitions whose events alignDeviceEvents moved
};

} // namespace streamscope::engine
