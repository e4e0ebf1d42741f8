// Saturating arithmetic: the result clamps at the type's range instead of wrapping. Used where a sum or
// difference of values read from files could wrap (durations of ops, sums of bytes).
#pragma once

#include <cstdint>
#include <limits>

namespace streamscope::engine {

constexpr std::int64_t saturatingAdd(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    return r;
}
constexpr std::int64_t saturatingSub(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    return r;
}
constexpr std::uint64_t saturatingAdd(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        return std::numeric_limits<std::uint64_t>::max();
    return r;
}

} // namespace streamscope::engine
