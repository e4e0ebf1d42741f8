// The one look-up from a name to an enum value, for enums whose names are a table indexed by the value
// (the trace's and the op vocabulary's here, the workload file's through workload_names.h).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace streamscope::engine {

template <typename E> std::optional<E> enumFromNames(std::span<const std::string_view> names, std::string_view name)
{
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == name)
            return static_cast<E>(i);
    return std::nullopt;
}

} // namespace streamscope::engine
