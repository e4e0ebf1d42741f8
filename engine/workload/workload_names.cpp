// Name tables of the workload enums (see workload_names.h). The order follows the enum declarations
// in workload.h and trace.h; the static_asserts catch an enum that grows without its table.
#include "engine/workload/workload_names.h"

#include <array>

#include "engine/workload/kernel_types.h"

namespace streamscope::engine {

namespace {
constexpr std::array<std::string_view, 5> kBufferKind = {"pageable", "pinned", "registered", "managed", "device"};
constexpr std::array<std::string_view, 2> kStreamFlags = {"default", "non-blocking"};
constexpr std::array<std::string_view, 2> kDefaultStreamMode = {"legacy", "per-thread"};
constexpr std::array<std::string_view, 2> kIssueOrder = {"round-robin", "stream-order"};
constexpr std::array<std::string_view, 11> kOpType = {"copy",     "kernel", "memset", "record", "wait",      "sync",
                                                      "prefetch", "advise", "attach", "host",   "collective"};
constexpr std::array<std::string_view, 5> kCopyDirection = {"h2d", "d2h", "d2d", "h2h", "p2p"};
constexpr std::array<std::string_view, 2> kPeerAccess = {"on", "off"};
constexpr std::array<std::string_view, 2> kLaunchMode = {"streams", "graph"};
// CopyApi::None has no spelling in a workload: "none" is never accepted by the parser (it checks).
constexpr std::array<std::string_view, 3> kCopyApi = {"none", "sync", "async"};
constexpr std::array<std::string_view, 5> kGemmDtype = {"fp32", "tf32", "fp16", "bf16", "fp8"};
constexpr std::array<std::string_view, 7> kCollectiveType = {"allreduce", "allgather", "reducescatter", "broadcast",
                                                             "alltoall",  "send",      "recv"};
constexpr std::array<std::string_view, 4> kCollectiveDtype = {"fp32", "fp16", "bf16", "int8"};
constexpr std::array<std::string_view, 5> kReduceOp = {"sum", "prod", "min", "max", "avg"};
constexpr std::array<std::string_view, 3> kSyncTarget = {"stream", "event", "device"};
constexpr std::array<std::string_view, 6> kAdviseKind = {"set-read-mostly",        "unset-read-mostly",
                                                         "set-preferred-location", "unset-preferred-location",
                                                         "set-accessed-by",        "unset-accessed-by"};
constexpr std::array<std::string_view, 3> kAttachKind = {"global", "host", "single"};

static_assert(static_cast<std::size_t>(BufferKind::Device) + 1 == kBufferKind.size());
static_assert(static_cast<std::size_t>(StreamFlags::NonBlocking) + 1 == kStreamFlags.size());
static_assert(static_cast<std::size_t>(DefaultStreamMode::PerThread) + 1 == kDefaultStreamMode.size());
static_assert(static_cast<std::size_t>(IssueOrder::StreamOrder) + 1 == kIssueOrder.size());
static_assert(static_cast<std::size_t>(OpType::Collective) + 1 == kOpType.size());
static_assert(static_cast<std::size_t>(CollectiveType::Recv) + 1 == kCollectiveType.size());
static_assert(static_cast<std::size_t>(CollectiveDtype::Int8) + 1 == kCollectiveDtype.size());
static_assert(static_cast<std::size_t>(ReduceOp::Avg) + 1 == kReduceOp.size());
static_assert(static_cast<std::size_t>(CopyDirection::P2P) + 1 == kCopyDirection.size());
static_assert(static_cast<std::size_t>(PeerAccess::Off) + 1 == kPeerAccess.size());
static_assert(static_cast<std::size_t>(LaunchMode::Graph) + 1 == kLaunchMode.size());
static_assert(static_cast<std::size_t>(CopyApi::Async) + 1 == kCopyApi.size());
static_assert(static_cast<std::size_t>(GemmDtype::Fp8) + 1 == kGemmDtype.size());
static_assert(static_cast<std::size_t>(SyncTarget::Device) + 1 == kSyncTarget.size());
static_assert(static_cast<std::size_t>(AdviseKind::UnsetAccessedBy) + 1 == kAdviseKind.size());
static_assert(static_cast<std::size_t>(AttachKind::Single) + 1 == kAttachKind.size());
} // namespace

template <> std::span<const std::string_view> enumNames<BufferKind>()
{
    return kBufferKind;
}
template <> std::span<const std::string_view> enumNames<StreamFlags>()
{
    return kStreamFlags;
}
template <> std::span<const std::string_view> enumNames<DefaultStreamMode>()
{
    return kDefaultStreamMode;
}
template <> std::span<const std::string_view> enumNames<IssueOrder>()
{
    return kIssueOrder;
}
template <> std::span<const std::string_view> enumNames<OpType>()
{
    return kOpType;
}
template <> std::span<const std::string_view> enumNames<CopyDirection>()
{
    return kCopyDirection;
}
template <> std::span<const std::string_view> enumNames<PeerAccess>()
{
    return kPeerAccess;
}
template <> std::span<const std::string_view> enumNames<LaunchMode>()
{
    return kLaunchMode;
}
template <> std::span<const std::string_view> enumNames<CopyApi>()
{
    return kCopyApi;
}
template <> std::span<const std::string_view> enumNames<KernelType>()
{
    return kernelTypeNames(); // the kernel-type table's (kernel_types.h)
}
template <> std::span<const std::string_view> enumNames<GemmDtype>()
{
    return kGemmDtype;
}
template <> std::span<const std::string_view> enumNames<CollectiveType>()
{
    return kCollectiveType;
}
template <> std::span<const std::string_view> enumNames<CollectiveDtype>()
{
    return kCollectiveDtype;
}
template <> std::span<const std::string_view> enumNames<ReduceOp>()
{
    return kReduceOp;
}
template <> std::span<const std::string_view> enumNames<SyncTarget>()
{
    return kSyncTarget;
}
template <> std::span<const std::string_view> enumNames<AdviseKind>()
{
    return kAdviseKind;
}
template <> std::span<const std::string_view> enumNames<AttachKind>()
{
    return kAttachKind;
}

// workload.h's names, from the tables above.
std::string_view toString(BufferKind kind)
{
    return enumName(kind);
}
std::string_view toString(OpType type)
{
    return enumName(type);
}
std::string_view toString(CopyDirection dir)
{
    return enumName(dir);
}
std::string_view toString(PeerAccess access)
{
    return enumName(access);
}
std::string_view toString(LaunchMode mode)
{
    return enumName(mode);
}
std::string_view toString(AdviseKind kind)
{
    return enumName(kind);
}
std::string_view toString(AttachKind kind)
{
    return enumName(kind);
}
std::string_view toString(GemmDtype dtype)
{
    return enumName(dtype);
}
std::string_view toString(CollectiveType type)
{
    return enumName(type);
}
std::string_view toString(CollectiveDtype dtype)
{
    return enumName(dtype);
}
std::string_view toString(ReduceOp op)
{
    return enumName(op);
}

} // namespace streamscope::engine
