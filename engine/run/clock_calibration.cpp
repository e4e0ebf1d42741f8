// The runner's clock arithmetic (see clock_calibration.h).
#include "engine/run/clock_calibration.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace streamscope::engine {

std::int64_t spinCyclesFor(std::int64_t targetNs, const Calibration &calibration)
{
    const double busyNs = double(targetNs) - calibration.spinOverheadNs;
    return busyNs <= 0 ? 0 : std::int64_t(busyNs * calibration.smClockHz * 1e-9);
}

double clockRateFromSlope(std::int64_t shortCycles, double shortNs, std::int64_t longCycles, double longNs)
{
    if (longNs <= shortNs || longCycles <= shortCycles)
        return 0;
    return double(longCycles - shortCycles) / ((longNs - shortNs) * 1e-9);
}

ClockAnchor narrowestAnchor(const std::vector<AnchorWindow> &windows)
{
    ClockAnchor best;
    std::int64_t bestWidth = std::numeric_limits<std::int64_t>::max();
    for (std::size_t i = 0; i < windows.size(); ++i) {
        const std::int64_t width = windows[i].afterNs - windows[i].beforeNs;
        if (width < bestWidth) {
            bestWidth = width;
            best.index = i;
            best.hostNs = windows[i].beforeNs + width / 2;
            best.maxErrorNs = width - width / 2; // the longer half, when the width is odd
        }
    }
    return best;
}

EventAlignment alignEventsByCausality(const std::vector<CausalSample> &samples, std::int64_t anchorErrorNs)
{
    EventAlignment a;
    a.maxErrorNs = anchorErrorNs;
    constexpr std::int64_t kOpen = std::numeric_limits<std::int64_t>::max();
    std::int64_t lo = -kOpen, hi = kOpen;
    for (const CausalSample &s : samples) {
        hi = std::min(hi, s.gpuStartNs - s.readyNs); // ready + shift <= start
        lo = std::max(lo, s.gpuEndNs - s.eventEndNs); // end <= eventEnd + shift
    }
    if (hi == kOpen && lo == -kOpen)
        return a;
    std::int64_t from = std::max(lo, -anchorErrorNs), to = std::min(hi, anchorErrorNs);
    if (from > to) { // the anchor's window and the records disagree: causality alone, where it closes
        if (lo > hi || hi == kOpen || lo == -kOpen)
            return a;
        from = lo;
        to = hi;
    }
    a.applied = true;
    a.shiftNs = from + (to - from) / 2;
    a.maxErrorNs = (to - from + 1) / 2;
    return a;
}

} // namespace streamscope::engine
