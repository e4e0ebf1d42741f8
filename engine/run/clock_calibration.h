// The arithmetic of the runner's clocks, kept apart from CUDA so that it is tested without a GPU and
// shared with the benchmarks instead of copied:
//  - the spin kernel's cycle count for a target duration, from Trace::calibration,
//  - the SM clock rate from a short and a long spin (the slope, so their fixed cost cancels),
//  - the anchor of GPU event time on the host clock: the narrowest of several host windows that each
//    contain the GPU moment of a base event, and its midpoint (error at most half the window);
//  - the alignment of event times to CUPTI's execution records by causality, which narrows that error.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/model/trace.h"

namespace streamscope::engine {

// clock64() cycles the spin kernel must count so that its event-timed duration is `targetNs`:
// (target - spin overhead) at the measured clock rate; 0 when the target is below the overhead.
std::int64_t spinCyclesFor(std::int64_t targetNs, const Calibration &calibration);

// Cycles per second from two spins of different length timed with events; 0 when the long one was
// not longer (a broken timer or clock).
double clockRateFromSlope(std::int64_t shortCycles, double shortNs, std::int64_t longCycles, double longNs);

// A host window [beforeNs, afterNs] known to contain the GPU moment of one base event.
struct AnchorWindow {
    std::int64_t beforeNs = 0;
    std::int64_t afterNs = 0;
};

struct ClockAnchor {
    std::size_t index = 0; // which window (and so which base event) was chosen
    std::int64_t hostNs = 0; // host time taken for the base event's GPU moment
    std::int64_t maxErrorNs = 0; // |true - hostNs| <= this (half the window)
};

// The narrowest window wins (least uncertainty); its midpoint minimises the worst-case error.
// `windows` must not be empty.
ClockAnchor narrowestAnchor(const std::vector<AnchorWindow> &windows);

// One op timed both ways on one device: its stream-ready and end events (through the anchor) and its
// execution as CUPTI recorded it on the host clock. Causality: readyNs <= gpuStartNs, gpuEndNs <= eventEndNs.
struct CausalSample {
    std::int64_t readyNs = 0;
    std::int64_t gpuStartNs = 0;
    std::int64_t gpuEndNs = 0;
    std::int64_t eventEndNs = 0;
};

struct EventAlignment {
    bool applied = false; // false: the samples bound nothing, or contradict each other; the anchor stands
    std::int64_t shiftNs = 0; // add to every event time of the device
    std::int64_t maxErrorNs = 0; // |true shift - shiftNs| <= this, where applied; else the anchor's error
};

// The shift of a device's event times that the samples' causality allows, narrowed by the anchor's own
// window [-anchorErrorNs, +anchorErrorNs] where the two agree (causality alone where they do not): the
// middle of what is left, and its half-width as the new error.
EventAlignment alignEventsByCausality(const std::vector<CausalSample> &samples, std::int64_t anchorErrorNs);

} // namespace streamscope::engine
