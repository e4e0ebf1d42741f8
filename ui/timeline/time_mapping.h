// Time <-> pixel mapping for the timeline and the ruler's tick steps, as a small pure header (no widget
// state) so that every view computes positions the same way and the arithmetic is tested with tables.
// Times are nanoseconds (relative to the repetition start); pixels are logical, left edge = x0.
#pragma once

#include <QString>
#include <QtGlobal>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace streamscope::ui {

struct TimeMapping {
    qint64 startNs = 0; // time at the left edge
    qint64 endNs = 1; // time at the right edge
    double x0 = 0; // left edge in pixels
    double width = 1; // width in pixels

    TimeMapping() = default;
    TimeMapping(qint64 start, qint64 end, double left, double w) :
        startNs(start < end || start < std::numeric_limits<qint64>::max() ? start : start - 1),
        endNs(end > startNs ? end : startNs + 1), x0(left), width(w > 0 ? w : 1)
    {
    }

    // In doubles: endNs - startNs itself wraps for a window wider than 2^63 ns.
    double durationNs() const { return double(endNs) - double(startNs); }
    double nsPerPixel() const { return durationNs() / width; }
    double pixelsPerNs() const { return width / durationNs(); }
    // Doubles keep sub-pixel precision and do not overflow for times far outside the window.
    double toX(qint64 ns) const { return x0 + (double(ns) - double(startNs)) * width / durationNs(); }
    double toX(double ns) const { return x0 + (ns - double(startNs)) * width / durationNs(); }
    // Clamped to the int64 range (a pixel far outside a window of centuries), exact where it fits.
    qint64 toNs(double x) const
    {
        constexpr qint64 lowest = std::numeric_limits<qint64>::min(), highest = std::numeric_limits<qint64>::max();
        const double offset = std::round((x - x0) * durationNs() / width);
        qint64 out = 0;
        if (!(std::abs(offset) < 9.2e18) || __builtin_add_overflow(startNs, qint64(offset), &out))
            return offset < 0 ? lowest : highest;
        return out;
    }
    // A width in pixels of a duration (no offset).
    double toWidth(qint64 durationNs_) const { return double(durationNs_) * width / durationNs(); }
};

// A "nice" ruler step (1, 2 or 5 times a power of ten nanoseconds) so that ticks are at least
// minPixels apart at the given scale. Never below 1 ns, never above 5e18 ns (the largest such step in an
// int64: a window of 2^63 ns once made llround overflow to a 1 ns step, and the ruler loop ran for ever).
inline qint64 rulerStepNs(double nsPerPixel, double minPixels)
{
    constexpr qint64 kLargestStep = 5'000'000'000'000'000'000;
    const double raw = std::max(1.0, nsPerPixel * minPixels);
    if (!(raw <= double(kLargestStep))) // also NaN
        return kLargestStep;
    double decade = std::pow(10.0, std::floor(std::log10(raw)));
    for (;;) {
        for (double m : {1.0, 2.0, 5.0}) {
            const double step = m * decade;
            // a small tolerance so that e.g. raw = 1000.0000001 from rounding still picks 1000
            if (step >= raw * (1 - 1e-9))
                return std::clamp<qint64>(qint64(std::llround(std::min(step, double(kLargestStep)))), 1, kLargestStep);
        }
        decade *= 10;
    }
}

// The unit a ruler labels its ticks in, chosen from the step: ns below 1 µs, µs below 1 ms, ms below
// 1 s, s above.
struct TimeUnit {
    const char *suffix;
    double nsPerUnit;
};

inline TimeUnit timeUnitFor(qint64 stepNs)
{
    // |stepNs| without overflow at the int64 minimum.
    const quint64 a = stepNs < 0 ? quint64(0) - quint64(stepNs) : quint64(stepNs);
    if (a < 1000)
        return {"ns", 1};
    if (a < 1000000)
        return {"µs", 1e3};
    if (a < 1000000000)
        return {"ms", 1e6};
    return {"s", 1e9};
}

// Decimal places needed to tell ticks of stepNs apart in the unit for stepNs (e.g. step 200 µs in ms: 1).
inline int decimalsFor(qint64 stepNs, TimeUnit unit)
{
    int decimals = 0;
    double v = double(stepNs) / unit.nsPerUnit;
    while (decimals < 6 && std::abs(v - std::round(v)) > 1e-9) {
        v *= 10;
        ++decimals;
    }
    return decimals;
}

// The unit a ruler's labels share: the one for the largest time in view (|largestNs|, the farther end of
// the window from zero) where at most three decimals tell its ticks apart, else the step's own. So a
// window of 24-29 ms in 500 µs steps reads "24.5 ms", not "24500 µs", and 6.7 s in 1 s steps "6 s", not
// "6000 ms"; deep zooms far from zero keep the step's finer unit.
inline TimeUnit rulerUnitFor(qint64 stepNs, qint64 largestNs)
{
    const TimeUnit fine = timeUnitFor(stepNs);
    for (TimeUnit unit = timeUnitFor(largestNs); unit.nsPerUnit > fine.nsPerUnit;
         unit = timeUnitFor(qint64(unit.nsPerUnit / 1000))) {
        if (decimalsFor(stepNs, unit) <= 3)
            return unit;
    }
    return fine;
}

// A ruler label: ns in the ruler's unit (rulerUnitFor; the step's own when largestNs is 0) with just
// enough decimals to tell the ticks apart ("1.5 ms", "250 µs").
inline QString formatTickLabel(qint64 ns, qint64 stepNs, qint64 largestNs = 0)
{
    const TimeUnit unit = rulerUnitFor(stepNs, largestNs);
    return QString::number(double(ns) / unit.nsPerUnit, 'f', decimalsFor(stepNs, unit)) + QLatin1Char(' ')
           + QString::fromUtf8(unit.suffix);
}

// The first tick at or after ns for a step (ticks are multiples of the step, also for negative times).
inline qint64 firstTickAtOrAfter(qint64 ns, qint64 stepNs)
{
    qint64 q = ns / stepNs;
    if (q * stepNs < ns)
        ++q;
    qint64 t = 0;
    return __builtin_mul_overflow(q, stepNs, &t) ? std::numeric_limits<qint64>::max() : t;
}

// The ticks (multiples of stepNs) from `before` steps before fromNs up to toNs, at most maxTicks of them:
// bounded whatever the range and the step, and no tick wraps past the ends of the int64 range. What the
// ruler and the grid draw.
inline std::vector<qint64> tickTimes(qint64 fromNs, qint64 toNs, qint64 stepNs, int before = 0,
                                     std::size_t maxTicks = 4096)
{
    std::vector<qint64> ticks;
    if (stepNs <= 0 || toNs < fromNs)
        return ticks;
    // Tick indexes k (tick = k * step): from ceil(from / step) - before to floor(to / step).
    qint64 first = fromNs / stepNs;
    if (first * stepNs < fromNs) // ceil; first * step does not wrap (|first * step| <= |fromNs|)
        ++first;
    qint64 last = toNs / stepNs;
    if (last * stepNs > toNs)
        --last;
    const qint64 lowest = std::numeric_limits<qint64>::min() / stepNs; // truncation: the lowest k with k * step >= min
    first = std::max(lowest, first - qint64(std::min(before, 1000)));
    for (qint64 k = first; k <= last && ticks.size() < maxTicks; ++k)
        ticks.push_back(k * stepNs);
    return ticks;
}

} // namespace streamscope::ui
