// The spellings of the workload enums as workload files write them ("pinned", "non-blocking",
// "set-read-mostly", ...), in one table per enum so the parser, the writer and describe() agree.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/enum_names.h"
#include "engine/workload/workload.h"

namespace streamscope::engine {

// The names of E's values, indexed by the value.
template <typename E> std::span<const std::string_view> enumNames();

template <> std::span<const std::string_view> enumNames<BufferKind>();
template <> std::span<const std::string_view> enumNames<StreamFlags>();
template <> std::span<const std::string_view> enumNames<DefaultStreamMode>();
template <> std::span<const std::string_view> enumNames<IssueOrder>();
template <> std::span<const std::string_view> enumNames<OpType>();
template <> std::span<const std::string_view> enumNames<CopyDirection>();
template <> std::span<const std::string_view> enumNames<CopyApi>();
template <> std::span<const std::string_view> enumNames<PeerAccess>();
template <> std::span<const std::string_view> enumNames<LaunchMode>();
template <> std::span<const std::string_view> enumNames<KernelType>();
template <> std::span<const std::string_view> enumNames<GemmDtype>();
template <> std::span<const std::string_view> enumNames<CollectiveType>();
template <> std::span<const std::string_view> enumNames<CollectiveDtype>();
template <> std::span<const std::string_view> enumNames<ReduceOp>();
template <> std::span<const std::string_view> enumNames<SyncTarget>();
template <> std::span<const std::string_view> enumNames<AdviseKind>();
template <> std::span<const std::string_view> enumNames<AttachKind>();

template <typename E> std::string_view enumName(E value)
{
    return enumNames<E>()[static_cast<std::size_t>(value)];
}

template <typename E> std::optional<E> enumFromName(std::string_view name)
{
    return enumFromNames<E>(enumNames<E>(), name);
}

// The names as strings, for suggestions and "expected one of" messages.
template <typename E> std::vector<std::string> enumNameList()
{
    std::vector<std::string> out;
    for (std::string_view n : enumNames<E>())
        out.emplace_back(n);
    return out;
}

} // namespace streamscope::engine
