// The Qt side of engine/model/units.h, and nothing more: every number the app shows (bytes, durations,
// rates, percentages) is formatted by the engine, so the editor, the panels, the tables, the CLI and the
// exports read the same ("16 MiB", "1.23 ms", "51.9 GB/s"). qs() is the one std::string_view -> QString
// conversion of the ui.
#pragma once

#include <QString>

#include <cstdint>
#include <string_view>

#include "engine/model/units.h"

namespace streamscope::ui {

// UTF-8 engine text ("µs") as a QString.
inline QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// "512 B", "4 KiB", "16 MiB", "1.5 GiB".
inline QString formatBytes(std::uint64_t bytes)
{
    return qs(engine::formatBytes(bytes));
}
// "850 ns", "12.3 µs", "1 ms", "1.23 ms", "2.5 s".
inline QString formatDuration(qint64 ns)
{
    return qs(engine::formatDuration(ns));
}
// "+12.3 µs", "-135 µs": a delta with its sign.
inline QString formatSignedDuration(double ns)
{
    return qs(engine::formatSignedDuration(ns));
}
// "51.9 GB/s" (GB = 1e9 bytes, as engine::OpRecord::gbPerSecond).
inline QString formatGBs(double gbPerSecond)
{
    return qs(engine::formatRate(gbPerSecond));
}
// A fraction as "42.5 %".
inline QString formatPercent(double fraction)
{
    return qs(engine::formatPercent(fraction));
}

} // namespace streamscope::ui
