// Byte sizes, durations and rates as people write and read them: parsing "256 MiB" or "60 us" from
// workload files and formatting "16 MiB", "1.23 ms", "12.3 GB/s", "42.5 %" for op names, tables and axes.
// The only formatter of these in StreamScope: the CLI calls it, the app through ui/common/format_units.h.
// The accepted spellings are documented in docs/workload-format.md ("Sizes and durations").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace streamscope::engine {

// A non-negative whole number of bytes. Accepts a bare integer ("4096"), or a number (integer or
// decimal fraction) followed by an optional space and a unit, case-insensitive:
//   b, byte, bytes                  1
//   k, kib / m, mib / g, gib / t, tib   binary: 1024, 1024^2, 1024^3, 1024^4 (as GNU tools read "64k")
//   pib / eib                       binary: 1024^5, 1024^6 (so that every formatBytes() text reads back)
//   kb / mb / gb / tb / pb / eb     decimal: 1000, 1000^2, ... (as disk and link makers write)
// The result must be a whole number of bytes ("1.5 KiB" = 1536 is fine, "1.3 KiB" is not) and fit in
// 64 bits. Signs, exponents and empty strings are rejected.
std::optional<std::uint64_t> parseByteSize(std::string_view text);

// A non-negative whole number of nanoseconds. Accepts a number (integer or decimal fraction) followed
// by an optional space and a unit: ns, us, µs (micro sign or Greek mu), ms, s. A bare number is in
// nanoseconds, the unit of every time in StreamScope. Units are case-sensitive ("Ms" is rejected),
// because "ms" and "MS" must not be guessed at.
std::optional<std::int64_t> parseDuration(std::string_view text);

// "512 B", "4 KiB", "16 MiB", "1.5 GiB", "118 MiB" (three significant digits when not exact).
std::string formatBytes(std::uint64_t bytes);
// "12 ns", "447 µs", "1.23 ms", "2.5 s" (three significant digits, trailing zeros dropped).
std::string formatDuration(std::int64_t ns);
// A duration in microseconds at a fixed number of decimals, for columns of small deltas that must line
// up: formatMicroseconds(-134'700, 2, true) = "-134.70 µs", (3'870, 2, true) = "+3.87 µs".
std::string formatMicroseconds(double ns, int decimals, bool showSign = false);
// A difference of durations with its sign always shown: "+12.3 µs", "-135 µs", "+0 ns" (rounded to ns).
std::string formatSignedDuration(double ns);
// "12.3 GB/s", "0.52 GB/s", "245 GB/s" (GB = 1e9 bytes, as bandwidth is quoted for links).
std::string formatRate(double gbPerSecond);
// A fraction as a percentage with one decimal: 0.425 -> "42.5 %", 1.0 -> "100.0 %".
std::string formatPercent(double fraction);

} // namespace streamscope::engine
