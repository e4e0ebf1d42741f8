// Parsing and formatting of byte sizes, durations and rates (see units.h for the accepted spellings).
#include "engine/model/units.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

namespace streamscope::engine {

namespace {

using U128 = unsigned __int128;

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// A decimal number split into its integer digits and fraction digits, kept exact so that
// "1.5 GiB" is computed in integers and never rounded through a double.
struct Decimal {
    U128 integer = 0;
    U128 fraction = 0;
    int fractionDigits = 0;
};

// Reads digits[.digits] from the front of `s`; leaves the rest (the unit) in `s`.
std::optional<Decimal> readDecimal(std::string_view &s)
{
    Decimal d;
    bool anyDigit = false;
    std::size_t i = 0;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
        d.integer = d.integer * 10 + static_cast<unsigned>(s[i] - '0');
        if (d.integer > std::numeric_limits<std::uint64_t>::max())
            return std::nullopt;
        anyDigit = true;
    }
    if (i < s.size() && s[i] == '.') {
        ++i;
        for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
            if (d.fractionDigits >= 18) // more precision than any unit can use
                return std::nullopt;
            d.fraction = d.fraction * 10 + static_cast<unsigned>(s[i] - '0');
            ++d.fractionDigits;
            anyDigit = true;
        }
    }
    if (!anyDigit)
        return std::nullopt;
    s.remove_prefix(i);
    return d;
}

// integer * multiplier + fraction * multiplier / 10^digits, only when that is a whole number.
std::optional<std::uint64_t> scale(const Decimal &d, std::uint64_t multiplier, std::uint64_t limit)
{
    U128 pow10 = 1;
    for (int i = 0; i < d.fractionDigits; ++i)
        pow10 *= 10;
    const U128 fractionScaled = d.fraction * multiplier;
    if (fractionScaled % pow10 != 0)
        return std::nullopt;
    const U128 total = d.integer * multiplier + fractionScaled / pow10;
    if (total > limit)
        return std::nullopt;
    return static_cast<std::uint64_t>(total);
}

// printf with three significant digits, then trailing zeros (and a bare point) dropped.
std::string threeDigits(double v)
{
    char buf[64];
    const char *fmt = v < 10 ? "%.2f" : v < 100 ? "%.1f" : "%.0f";
    std::snprintf(buf, sizeof buf, fmt, v);
    std::string s(buf);
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0')
            s.pop_back();
        if (s.back() == '.')
            s.pop_back();
    }
    return s;
}

// Rounds v to three significant digits as threeDigits() prints it.
double roundedThreeDigits(double v)
{
    return std::stod(threeDigits(v));
}

} // namespace

std::optional<std::uint64_t> parseByteSize(std::string_view text)
{
    std::string_view s = trim(text);
    const auto number = readDecimal(s);
    if (!number)
        return std::nullopt;
    const std::string unit = lower(trim(s));
    struct Unit {
        std::string_view name;
        std::uint64_t multiplier;
    };
    static constexpr std::uint64_t Ki = 1024;
    // Compared in lower case: "KiB", "kib" and "KIB" are the same unit.
    static constexpr std::array<Unit, 20> kUnits = {{
        {"", 1},
        {"b", 1},
        {"byte", 1},
        {"bytes", 1},
        {"k", Ki},
        {"kib", Ki},
        {"m", Ki * Ki},
        {"mib", Ki * Ki},
        {"g", Ki * Ki * Ki},
        {"gib", Ki * Ki * Ki},
        {"t", Ki * Ki * Ki * Ki},
        {"tib", Ki * Ki * Ki * Ki},
        {"pib", Ki * Ki * Ki * Ki * Ki},
        {"eib", Ki * Ki * Ki * Ki * Ki * Ki},
        {"kb", 1000},
        {"mb", 1000'000},
        {"gb", 1000'000'000},
        {"tb", 1000'000'000'000},
        {"pb", 1000'000'000'000'000},
        {"eb", 1000'000'000'000'000'000},
    }};
    for (const Unit &u : kUnits)
        if (u.name == unit)
            return scale(*number, u.multiplier, std::numeric_limits<std::uint64_t>::max());
    return std::nullopt;
}

std::optional<std::int64_t> parseDuration(std::string_view text)
{
    std::string_view s = trim(text);
    const auto number = readDecimal(s);
    if (!number)
        return std::nullopt;
    const std::string_view unit = trim(s);
    std::uint64_t multiplier = 0;
    if (unit.empty() || unit == "ns")
        multiplier = 1;
    else if (unit == "us" || unit == "\u00b5s" || unit == "\u03bcs")
        multiplier = 1000;
    else if (unit == "ms")
        multiplier = 1000'000;
    else if (unit == "s")
        multiplier = 1000'000'000;
    else
        return std::nullopt;
    const auto ns = scale(*number, multiplier, std::numeric_limits<std::int64_t>::max());
    if (!ns)
        return std::nullopt;
    return static_cast<std::int64_t>(*ns);
}

std::string formatBytes(std::uint64_t bytes)
{
    static constexpr std::array<std::string_view, 7> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024)
        return std::to_string(bytes) + " B";
    std::size_t unit = 0;
    std::uint64_t divisor = 1;
    while (unit + 1 < kUnits.size() && bytes / divisor >= 1024) {
        divisor *= 1024;
        ++unit;
    }
    if (bytes % divisor == 0)
        return std::to_string(bytes / divisor) + " " + std::string(kUnits[unit]);
    double v = static_cast<double>(bytes) / static_cast<double>(divisor);
    // 1048575 bytes would print as "1024 KiB": say "1 MiB" instead.
    if (roundedThreeDigits(v) >= 1024 && unit + 1 < kUnits.size()) {
        v /= 1024;
        ++unit;
    }
    return threeDigits(v) + " " + std::string(kUnits[unit]);
}

std::string formatDuration(std::int64_t ns)
{
    if (ns < 0) {
        if (ns == std::numeric_limits<std::int64_t>::min())
            return "-" + formatDuration(std::numeric_limits<std::int64_t>::max());
        return "-" + formatDuration(-ns);
    }
    if (ns < 1000)
        return std::to_string(ns) + " ns";
    struct Unit {
        double divisor;
        std::string_view name;
    };
    static constexpr std::array<Unit, 3> kUnits = {{{1e3, "\u00b5s"}, {1e6, "ms"}, {1e9, "s"}}};
    std::size_t unit = 0;
    while (unit + 1 < kUnits.size() && static_cast<double>(ns) >= kUnits[unit + 1].divisor)
        ++unit;
    double v = static_cast<double>(ns) / kUnits[unit].divisor;
    // 999999 ns would print as "1000 µs": say "1 ms" instead.
    if (roundedThreeDigits(v) >= 1000 && unit + 1 < kUnits.size()) {
        ++unit;
        v = static_cast<double>(ns) / kUnits[unit].divisor;
    }
    return threeDigits(v) + " " + std::string(kUnits[unit].name);
}

std::string formatMicroseconds(double ns, int decimals, bool showSign)
{
    if (!std::isfinite(ns))
        return "- \u00b5s";
    char buf[64];
    std::snprintf(buf, sizeof buf, showSign ? "%+.*f \u00b5s" : "%.*f \u00b5s", std::clamp(decimals, 0, 9),
                  ns / 1000.0);
    return buf;
}

std::string formatSignedDuration(double ns)
{
    if (!std::isfinite(ns))
        return "-";
    const double clamped = std::clamp(ns, -9.2e18, 9.2e18);
    const auto rounded = static_cast<std::int64_t>(std::llround(clamped));
    return rounded < 0 ? formatDuration(rounded) : "+" + formatDuration(rounded);
}

std::string formatRate(double gbPerSecond)
{
    if (!std::isfinite(gbPerSecond))
        return "- GB/s";
    if (gbPerSecond < 0)
        return "-" + formatRate(-gbPerSecond);
    return threeDigits(gbPerSecond) + " GB/s";
}

std::string formatPercent(double fraction)
{
    if (!std::isfinite(fraction))
        return "- %";
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f %%", fraction * 100.0);
    return buf;
}

} // namespace streamscope::engine
