// Human-readable numbers for the panels: bytes in binary units, bandwidth in GB/s (1e9 B/s, as
// engine::OpRecord::gbPerSecond), percentages. Durations use formatDuration from time_mapping.h.
#pragma once

#include <QString>

#include <cstdint>

namespace streamscope::ui {

// "512 B", "4.00 KiB", "16.0 MiB", "1.50 GiB".
inline QString formatBytes(std::uint64_t bytes)
{
    static const char *const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = double(bytes);
    int unit = 0;
    while (v >= 1024.0 && unit < 4) {
        v /= 1024.0;
        ++unit;
    }
    if (unit == 0)
        return QString::number(bytes) + QStringLiteral(" B");
    const int decimals = v >= 100 ? 0 : v >= 10 ? 1 : 2;
    return QString::number(v, 'f', decimals) + QLatin1Char(' ') + QLatin1String(kUnits[unit]);
}

inline QString formatGBs(double gbPerSecond)
{
    return QString::number(gbPerSecond, 'f', gbPerSecond >= 100 ? 0 : gbPerSecond >= 10 ? 1 : 2)
        + QStringLiteral(" GB/s");
}

// fraction in [0, 1] (or a little over, for sums) as "42.5 %".
inline QString formatPercent(double fraction)
{
    return QString::number(fraction * 100.0, 'f', 1) + QStringLiteral(" %");
}

} // namespace streamscope::ui
