// Names of the op vocabulary (engine/model/op_vocabulary.h), as trace and workload files write them.
#include "engine/model/op_vocabulary.h"

#include <array>
#include <cstddef>

#include "engine/model/enum_names.h"

namespace streamscope::engine {

namespace {
constexpr std::array<std::string_view, 15> kOpKindNames = {"h2d",    "d2h",          "d2d",        "h2h",   "kernel",
                                                           "memset", "event_record", "event_wait", "sync",  "prefetch",
                                                           "advise", "attach",       "host_work",  "other", "p2p"};
constexpr std::array<std::string_view, 7> kMemKindNames = {"none",    "pageable", "pinned", "registered",
                                                           "managed", "device",   "unknown"};
constexpr std::array<std::string_view, 3> kCopyApiNames = {"none", "sync", "async"};
} // namespace

std::string_view toString(OpKind kind)
{
    return kOpKindNames.at(static_cast<std::size_t>(kind));
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
    return kind == OpKind::CopyH2D || kind == OpKind::CopyD2H || kind == OpKind::CopyD2D || kind == OpKind::CopyH2H
           || kind == OpKind::CopyP2P;
}

bool isGpuWork(OpKind kind)
{
    return isCopy(kind) || kind == OpKind::Kernel || kind == OpKind::Memset || kind == OpKind::Prefetch;
}

} // namespace streamscope::engine
