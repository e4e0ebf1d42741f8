// Names of the op vocabulary (engine/model/op_vocabulary.h), as trace and workload files write them. The op
// kinds' names and classes are columns of kOpKinds (op_kinds.h).
#include "engine/model/op_vocabulary.h"

#include <array>
#include <cstddef>

#include "engine/model/enum_names.h"
#include "engine/model/op_kinds.h"

namespace streamscope::engine {

namespace {
constexpr auto kOpKindNames = [] {
    std::array<std::string_view, kOpKindCount> names{};
    for (std::size_t i = 0; i < kOpKindCount; ++i)
        names[i] = kOpKinds[i].name;
    return names;
}();
constexpr std::array<std::string_view, 7> kMemKindNames = {"none",    "pageable", "pinned", "registered",
                                                           "managed", "device",   "unknown"};
constexpr std::array<std::string_view, 3> kCopyApiNames = {"none", "sync", "async"};
} // namespace

std::string_view toString(OpKind kind)
{
    return opKindInfo(kind).name;
}
std::string_view toString(MemKind kind)
{
    return kMemKindNames.at(static_cast<std::size_t>(kind));
}
std::string_view toString(CopyApi api)
{
    return kCopyApiNames.at(static_cast<std::size_t>(api));
}
std::optional<OpKind> opKindFromString(std::string_view s)
{
    return enumFromNames<OpKind>(kOpKindNames, s);
}
std::optional<MemKind> memKindFromString(std::string_view s)
{
    return enumFromNames<MemKind>(kMemKindNames, s);
}
std::optional<CopyApi> copyApiFromString(std::string_view s)
{
    return enumFromNames<CopyApi>(kCopyApiNames, s);
}

bool isCopy(OpKind kind)
{
    return opKindInfo(kind).copy;
}

bool isGpuWork(OpKind kind)
{
    return opKindInfo(kind).gpuWork;
}

} // namespace streamscope::engine
