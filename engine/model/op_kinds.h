// Everything the program knows about each op kind, in one table indexed by OpKind: its name in files,
// its label for people, the CUDA call that issues it, whether it is a copy or GPU work, the engine of the
// GPU it occupies, the byte sum it adds to, the activity lane that counts it and its two colours. A new
// kind is a new enumerator in op_kind.h and a new row here; the static_asserts below stop the
// build until the two agree.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/model/op_kind.h"

namespace streamscope::engine {

// Which engine of the GPU an op occupies, for the sweeps of the analysis (the derived lanes, overlap
// and the ideal bound). H2D and D2H are the two directions of the host link's copy engines; Compute the
// SMs (device-to-device copies run as kernels); Other a GPU engine that is neither (peer links, H2H,
// prefetch migrations, imported activities); None no engine time (markers, syncs, host work).
enum class EngineClass : std::uint8_t { H2D, D2H, Compute, Other, None };

// Which per-direction byte sum a copy's bytes go to (the analysis' and the statistics' h2d/d2h/d2d/p2p
// figures); None for ops whose bytes are no copy's.
enum class ByteBucket : std::uint8_t { None, H2D, D2H, D2D, P2P };

// The GPU record its call makes, as CUPTI and the profilers keep them (a kernel, memcpy or memset record;
// None: it keeps its event timing, e.g. an event, a prefetch's migrations). Kineto names them "kernel",
// "gpu_memcpy" and "gpu_memset".
enum class GpuRecord : std::uint8_t { None, Kernel, Memcpy, Memset };

// Which of the timeline's activity lanes (H2D, D2H and D2D copies, compute) counts an op of the kind while it
// runs. The H2D and D2H lanes are the analysis' engine classes of the same names (checked below).
enum class ActivityLane : std::uint8_t { None, H2D, D2H, D2D, Compute };

// Okabe & Ito (2008), "Color Universal Design": hues that stay apart under the common colour-vision
// deficiencies. The direction of copies (H2D blue, D2H vermillion) and compute (bluish green) get the three
// most separable. Plain ARGB, no Qt.
namespace okabe_ito {
inline constexpr std::uint32_t kBlack = 0xff000000;
inline constexpr std::uint32_t kOrange = 0xffe69f00;
inline constexpr std::uint32_t kSkyBlue = 0xff56b4e9;
inline constexpr std::uint32_t kBluishGreen = 0xff009e73;
inline constexpr std::uint32_t kYellow = 0xfff0e442;
inline constexpr std::uint32_t kBlue = 0xff0072b2;
inline constexpr std::uint32_t kVermillion = 0xffd55e00;
inline constexpr std::uint32_t kReddishPurple = 0xffcc79a7;
} // namespace okabe_ito

struct OpKindInfo {
    OpKind kind;
    std::string_view name; // as trace and workload files write it: "h2d"
    std::string_view label; // for people (legend, tooltips, details): "H2D copy"
    // The runtime call that issues it ("cudaMemcpyAsync"), and for a copy issued with CopyApi::Sync the
    // synchronous call ("cudaMemcpy"; empty where there is none). Kinds that no call issues say what they are.
    std::string_view cudaApi;
    std::string_view cudaApiSync;
    bool copy; // moves bytes from one buffer to another
    bool gpuWork; // occupies an engine of the GPU when the workload runs it (copies, kernels, memsets, prefetches)
    EngineClass engine;
    GpuRecord record;
    ByteBucket bytes;
    ActivityLane lane;
    std::uint32_t colorLight; // on a light background
    std::uint32_t colorDark; // on a dark one: the same hues, blues and greens lifted, greys inverted
};

// In enum order (checked below).
inline constexpr std::array kOpKinds = {
    OpKindInfo{.kind = OpKind::CopyH2D,
               .name = "h2d",
               .label = "H2D copy",
               .cudaApi = "cudaMemcpyAsync",
               .cudaApiSync = "cudaMemcpy",
               .copy = true,
               .gpuWork = true,
               .engine = EngineClass::H2D,
               .record = GpuRecord::Memcpy,
               .bytes = ByteBucket::H2D,
               .lane = ActivityLane::H2D,
               .colorLight = okabe_ito::kBlue,
               .colorDark = 0xff3a9be0},
    OpKindInfo{.kind = OpKind::CopyD2H,
               .name = "d2h",
               .label = "D2H copy",
               .cudaApi = "cudaMemcpyAsync",
               .cudaApiSync = "cudaMemcpy",
               .copy = true,
               .gpuWork = true,
               .engine = EngineClass::D2H,
               .record = GpuRecord::Memcpy,
               .bytes = ByteBucket::D2H,
               .lane = ActivityLane::D2H,
               .colorLight = okabe_ito::kVermillion,
               .colorDark = okabe_ito::kVermillion},
    // Device to device: the SMs' copy kernels, so compute to the analysis.
    OpKindInfo{.kind = OpKind::CopyD2D,
               .name = "d2d",
               .label = "D2D copy",
               .cudaApi = "cudaMemcpyAsync",
               .cudaApiSync = "cudaMemcpy",
               .copy = true,
               .gpuWork = true,
               .engine = EngineClass::Compute,
               .record = GpuRecord::Memcpy,
               .bytes = ByteBucket::D2D,
               .lane = ActivityLane::D2D,
               .colorLight = okabe_ito::kReddishPurple,
               .colorDark = okabe_ito::kReddishPurple},
    OpKindInfo{.kind = OpKind::CopyH2H,
               .name = "h2h",
               .label = "H2H copy",
               .cudaApi = "cudaMemcpyAsync",
               .cudaApiSync = "cudaMemcpy",
               .copy = true,
               .gpuWork = true,
               .engine = EngineClass::Other,
               .record = GpuRecord::Memcpy,
               .bytes = ByteBucket::None,
               .lane = ActivityLane::None,
               .colorLight = okabe_ito::kSkyBlue,
               .colorDark = okabe_ito::kSkyBlue},
    OpKindInfo{.kind = OpKind::Kernel,
               .name = "kernel",
               .label = "kernel",
               .cudaApi = "cudaLaunchKernel",
               .cudaApiSync = "",
               .copy = false,
               .gpuWork = true,
               .engine = EngineClass::Compute,
               .record = GpuRecord::Kernel,
               .bytes = ByteBucket::None,
               .lane = ActivityLane::Compute,
               .colorLight = okabe_ito::kBluishGreen,
               .colorDark = 0xff14b88a},
    OpKindInfo{.kind = OpKind::Memset,
               .name = "memset",
               .label = "memset",
               .cudaApi = "cudaMemsetAsync",
               .cudaApiSync = "",
               .copy = false,
               .gpuWork = true,
               .engine = EngineClass::Compute,
               .record = GpuRecord::Memset,
               .bytes = ByteBucket::None,
               .lane = ActivityLane::Compute,
               .colorLight = okabe_ito::kYellow,
               .colorDark = okabe_ito::kYellow},
    // Markers, not work: neutral greys.
    OpKindInfo{.kind = OpKind::EventRecord,
               .name = "event_record",
               .label = "event record",
               .cudaApi = "cudaEventRecord",
               .cudaApiSync = "",
               .copy = false,
               .gpuWork = false,
               .engine = EngineClass::None,
               .record = GpuRecord::None,
               .bytes = ByteBucket::None,
               .lane = ActivityLane::None,
               .colorLight = 0xff7f7f7f,
               .colorDark = 0xff9a9a9a},
    OpKindInfo{.kind = OpKind::EventWait,
               .name = "event_wait",
               .label = "event wait",
               .cudaApi = "cudaStreamWaitEvent",
               .cudaApiSync = "",
               .copy = false,
               .gpuWork = false,
               .engine = EngineClass::None,
               .record = GpuRecord::None,
               .bytes = ByteBucket::None,
               .lane = ActivityLane::None,
               .colorLight = 0xff5f5f5f,
               .colorDark = 0xffb0b0b0},
    // Near-black (near-white on dark): where the host waits. The call is the stream form, the common one;
    // apiNameOf() names the device form for a sync on no stream.
    OpKindInfo{.kind = OpKind::HostSync,
               .name = "sync",
               .label = "host sync",
               .cudaApi = "cudaStreamSynchronize",
               .cudaApiSync = "",
               .copy = false,
               .gpuWork = false,
               .engine = EngineClass::None,
               .record = GpuRecord::None,
               .bytes = ByteBucket::None,
               .lane = ActivityLane::None,
               .colorLight = 0xff3a3a3a,
               .colorDark = 0xffd8d8d8},
    OpKindInfo{.kind = OpKind::Prefetch,
               .name = "prefetch",
               .label = "prefetch",
               .cudaApi = "cudaMemPrefetchAsync",
               .cudaApiSync = "",
               .copy = false,
               .gpuWork = true,
               .engine = EngineClass::Other,
               .record = GpuRecord::None,
               .bytes = ByteBucket::None,
               .lane = ActivityLane::None,
               .colorLight = okabe_ito::kOrange,
               .colorDark = okabe_ito::kOrange},
    OpKindInfo{.kind = OpKind::Advise,
               .name = "advise",
               .label = "advise",
               .cudaApi = "cudaMemAdvise",
               .cudaApiSync = "",
               .copy = false,
               .gpuWork = false,
               .engine = EngineClass::None,
               .record = GpuRecord::None,
               .bytes = ByteBucket::None,
               .lane = ActivityLane::None,
               .colorLight = 0xffa0a0a0,
               .colorDark = 0xff808080},
    OpKindInfo{.kind = OpKind::Attach,
               .name = "attach",
               .label = "attach",
               .cudaApi = "cudaStreamAttachMemAsync",
               .cudaApiSync = "",
               .copy = false,
               .gpuWork = false,
               .engine = EngineClass::None,
               .record = GpuRecord::None,
               .bytes = ByteBucket::None,
               .lane = ActivityLane::None,
               .colorLight = 0xffa0a0a0,
               .colorDark = 0xff808080},
    OpKindInfo{.kind = OpKind::HostWork,
               .name = "host_work",
               .label = "host work",
               .cudaApi = "host work",
               .cudaApiSync = "",
               .copy = false,
               .gpuWork = false,
               .engine = EngineClass::None,
               .record = GpuRecord::None,
               .bytes = ByteBucket::None,
               .lane = ActivityLane::None,
               .colorLight = okabe_ito::kSkyBlue,
               .colorDark = okabe_ito::kSkyBlue},
    // Imported calls and activities with no better kind: an engine of the GPU when they have GPU time.
    OpKindInfo{.kind = OpKind::Other,
               .name = "other",
               .label = "other",
               .cudaApi = "CUDA API call",
               .cudaApiSync = "",
               .copy = false,
               .gpuWork = false,
               .engine = EngineClass::Other,
               .record = GpuRecord::None,
               .bytes = ByteBucket::None,
               .lane = ActivityLane::None,
               .colorLight = 0xffb4b4b4,
               .colorDark = 0xff707070},
    // A copy engine of one of the two GPUs, neither the host link's H2D nor D2H. Deep purple (lavender on
    // dark): the D2D copy's reddish purple darkened, as both are GPU-side copies, yet apart from it.
    OpKindInfo{.kind = OpKind::CopyP2P,
               .name = "p2p",
               .label = "P2P copy",
               .cudaApi = "cudaMemcpyPeerAsync",
               .cudaApiSync = "cudaMemcpyPeer",
               .copy = true,
               .gpuWork = true,
               .engine = EngineClass::Other,
               .record = GpuRecord::Memcpy,
               .bytes = ByteBucket::P2P,
               .lane = ActivityLane::None,
               .colorLight = 0xff7b3f8c,
               .colorDark = 0xffb48ad0},
    // Communication between GPUs through a library (an NCCL collective, or its send and receive): the kernels
    // (or, for NCCL's copy-engine collectives, the copies) it launched, classified by the call that launched
    // them, never by their names. Its SMs are the links' (EngineClass::Other, not compute), its bytes are
    // no copy's (its op's bytes are the collective's size, as nccl-tests counts it). Brown (tan on dark):
    // apart from the copies' blues and purples and from compute's green.
    OpKindInfo{.kind = OpKind::Collective,
               .name = "collective",
               .label = "collective",
               .cudaApi = "NCCL call", // the op's name says which (ncclAllReduce, ncclSend, ...)
               .cudaApiSync = "",
               .copy = false,
               .gpuWork = true,
               .engine = EngineClass::Other,
               .record = GpuRecord::Kernel,
               .bytes = ByteBucket::None,
               .lane = ActivityLane::None,
               .colorLight = 0xff8c510a,
               .colorDark = 0xffdfc27d},
    // A graph's execution whose nodes the file does not hold (imports only): some GPU engine was busy, which
    // one is not known, so it counts on no activity lane. Slate, apart from every kind of known work.
    OpKindInfo{.kind = OpKind::Graph,
               .name = "graph",
               .label = "CUDA graph",
               .cudaApi = "cudaGraphLaunch",
               .cudaApiSync = "",
               .copy = false,
               .gpuWork = true,
               .engine = EngineClass::Other,
               .record = GpuRecord::None,
               .bytes = ByteBucket::None,
               .lane = ActivityLane::None,
               .colorLight = 0xff5a6478,
               .colorDark = 0xff9aa5bd},
};

inline constexpr std::size_t kOpKindCount = kOpKinds.size();
static_assert(kOpKindCount == std::size_t(OpKind::Count), "every OpKind needs its row in kOpKinds, and no more");

namespace detail {
constexpr bool opKindRowsInEnumOrder()
{
    for (std::size_t i = 0; i < kOpKinds.size(); ++i)
        if (kOpKinds[i].kind != OpKind(i) || kOpKinds[i].name.empty() || kOpKinds[i].label.empty())
            return false;
    return true;
}
// The H2D and D2H activity lanes draw the analysis' counts of the host link's engines.
constexpr bool opKindLanesFollowEngines()
{
    for (const OpKindInfo &k : kOpKinds)
        if ((k.lane == ActivityLane::H2D) != (k.engine == EngineClass::H2D)
            || (k.lane == ActivityLane::D2H) != (k.engine == EngineClass::D2H))
            return false;
    return true;
}
} // namespace detail
static_assert(detail::opKindRowsInEnumOrder(), "kOpKinds' rows must follow OpKind's order, each named and labelled");
static_assert(detail::opKindLanesFollowEngines(), "the H2D and D2H lanes are the H2D and D2H engine classes");

// The row of a kind; throws std::out_of_range for a value that is no kind.
constexpr const OpKindInfo &opKindInfo(OpKind kind)
{
    return kOpKinds.at(static_cast<std::size_t>(kind));
}

} // namespace streamscope::engine
