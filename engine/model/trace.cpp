// Names of the trace enums and the small helpers of Trace.
#include "engine/model/trace.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>

#include "engine/model/enum_names.h"

namespace streamscope::engine {

namespace {
constexpr std::array<std::string_view, 3> kChannelTypeNames = {"unknown", "compute", "async_copy"};
constexpr std::array<std::string_view, 3> kTimingSourceNames = {"events", "cupti", "profiler"};
constexpr std::array<std::string_view, 3> kTraceSourceNames = {"streamscope", "nsys-sqlite", "chrome-json"};
static_assert(kTraceSourceNames.size() == static_cast<std::size_t>(TraceSource::ChromeJson) + 1);
constexpr std::array<std::string_view, 4> kLinkTypeNames = {"unknown", "same", "pcie", "nvlink"};
constexpr std::array<std::string_view, 8> kActivityKindNames = {"migration_h2d",  "migration_d2h",  "gpu_page_faults",
                                                                "cpu_page_fault", "thrashing",      "throttling",
                                                                "remote_map",     "synchronization"};
constexpr std::array<std::string_view, 3> kPieceKindNames = {"kernel", "copy", "memset"};
static_assert(kPieceKindNames.size() == static_cast<std::size_t>(PieceKind::Memset) + 1);
constexpr std::array<std::string_view, 5> kHostRangeCategoryNames = {"nvtx", "cpu_op", "user_annotation",
                                                                     "python_function", "launch"};
static_assert(kHostRangeCategoryNames.size() == std::size_t(HostRangeCategory::Launch) + 1);
constexpr std::array<std::string_view, 14> kActivityDetailNames = {"unknown",
                                                                   "user",
                                                                   "coherence",
                                                                   "speculative",
                                                                   "eviction",
                                                                   "access_counters",
                                                                   "read",
                                                                   "write",
                                                                   "atomic",
                                                                   "prefetch",
                                                                   "event_synchronize",
                                                                   "stream_wait_event",
                                                                   "stream_synchronize",
                                                                   "context_synchronize"};
} // namespace

std::string_view toString(ActivityKind kind)
{
    return kActivityKindNames.at(static_cast<std::size_t>(kind));
}
std::string_view toString(ActivityDetail detail)
{
    return kActivityDetailNames.at(static_cast<std::size_t>(detail));
}
std::optional<ActivityKind> activityKindFromString(std::string_view s)
{
    return enumFromNames<ActivityKind>(kActivityKindNames, s);
}
std::optional<ActivityDetail> activityDetailFromString(std::string_view s)
{
    return enumFromNames<ActivityDetail>(kActivityDetailNames, s);
}

std::string_view toString(HostRangeCategory category)
{
    return kHostRangeCategoryNames.at(static_cast<std::size_t>(category));
}
std::optional<HostRangeCategory> hostRangeCategoryFromString(std::string_view s)
{
    return enumFromNames<HostRangeCategory>(kHostRangeCategoryNames, s);
}

std::string_view toString(PieceKind kind)
{
    return kPieceKindNames.at(static_cast<std::size_t>(kind));
}
std::optional<PieceKind> pieceKindFromString(std::string_view s)
{
    return enumFromNames<PieceKind>(kPieceKindNames, s);
}

std::span<const OpPiece> Repetition::piecesOf(int op) const
{
    struct ByOp {
        bool operator()(const OpPiece &p, int o) const { return p.op < o; }
        bool operator()(int o, const OpPiece &p) const { return o < p.op; }
    };
    const auto [first, last] = std::equal_range(opPieces.begin(), opPieces.end(), op, ByOp{});
    return {first, last};
}

std::uint64_t KernelLaunch::threads() const
{
    if (!hasGrid() || !hasBlock())
        return 0;
    std::uint64_t n = 1;
    for (const std::uint32_t v : {grid[0], grid[1], grid[2], block[0], block[1], block[2]}) {
        const std::uint64_t f = std::max<std::uint32_t>(v, 1);
        if (n > std::numeric_limits<std::uint64_t>::max() / f)
            return std::numeric_limits<std::uint64_t>::max(); // a recorded launch never comes near; a file may
        n *= f;
    }
    return n;
}

const KernelLaunch *Repetition::launchOf(int op) const
{
    const auto it = std::lower_bound(kernelLaunches.begin(), kernelLaunches.end(), op,
                                     [](const KernelLaunch &l, int o) { return l.op < o; });
    return it != kernelLaunches.end() && it->op == op ? &*it : nullptr;
}

bool KernelLaunch::hasDetails() const
{
    return hasGrid() || hasBlock() || registersPerThread >= 0 || sharedBytes >= 0 || staticSharedBytes >= 0
           || dynamicSharedBytes >= 0 || fullNameId != kNoString || workId != kNoString || flops > 0 || busBytes > 0;
}

void Repetition::setKernelLatency(const std::vector<KernelLaunch> &latency)
{
    if (latency.empty())
        return;
    std::vector<KernelLaunch> merged;
    merged.reserve(kernelLaunches.size() + latency.size());
    std::size_t i = 0;
    for (const KernelLaunch &l : latency) {
        while (i < kernelLaunches.size() && kernelLaunches[i].op < l.op)
            merged.push_back(kernelLaunches[i++]);
        if (i < kernelLaunches.size() && kernelLaunches[i].op == l.op)
            merged.push_back(kernelLaunches[i++]);
        else
            merged.push_back(KernelLaunch{.op = l.op});
        merged.back().queuedNs = l.queuedNs;
        merged.back().submittedNs = l.submittedNs;
    }
    merged.insert(merged.end(), kernelLaunches.begin() + static_cast<std::ptrdiff_t>(i), kernelLaunches.end());
    kernelLaunches = std::move(merged);
}

const HostRange *Repetition::enclosingRange(const OpRecord &op) const
{
    if (op.hostRange < 0 || static_cast<std::size_t>(op.hostRange) >= hostRanges.size())
        return nullptr;
    return &hostRanges[static_cast<std::size_t>(op.hostRange)];
}

std::string_view toString(ChannelType type)
{
    return kChannelTypeNames.at(static_cast<std::size_t>(type));
}
std::string_view toString(TimingSource source)
{
    return kTimingSourceNames.at(static_cast<std::size_t>(source));
}
std::optional<ChannelType> channelTypeFromString(std::string_view s)
{
    return enumFromNames<ChannelType>(kChannelTypeNames, s);
}
std::optional<TimingSource> timingSourceFromString(std::string_view s)
{
    return enumFromNames<TimingSource>(kTimingSourceNames, s);
}
std::string_view toString(TraceSource source)
{
    return kTraceSourceNames.at(static_cast<std::size_t>(source));
}
std::optional<TraceSource> traceSourceFromString(std::string_view s)
{
    return enumFromNames<TraceSource>(kTraceSourceNames, s);
}
std::string_view toString(LinkType type)
{
    return kLinkTypeNames.at(static_cast<std::size_t>(type));
}
std::optional<LinkType> linkTypeFromString(std::string_view s)
{
    return enumFromNames<LinkType>(kLinkTypeNames, s);
}

std::int64_t OpRecord::readyToRunNs() const
{
    std::int64_t t = readyNs;
    if (hostEndNs != kNoTime && (t == kNoTime || hostEndNs > t))
        t = hostEndNs;
    return t;
}

std::int64_t OpRecord::queuedDurationNs() const
{
    const std::int64_t ready = readyToRunNs();
    if (!hasGpu() || ready == kNoTime || ready >= gpuStartNs)
        return 0;
    return gpuStartNs - ready;
}

std::int64_t OpRecord::eventDurationNs() const
{
    if (readyNs == kNoTime || eventEndNs == kNoTime || eventEndNs < readyNs)
        return 0;
    return eventEndNs - readyNs;
}

bool OpRecord::stagedThroughHost() const
{
    auto pageable = [](MemKind k) { return k == MemKind::Pageable; };
    return isCopy(kind) && (pageable(srcMem) || pageable(dstMem) || pageable(driverSrcMem) || pageable(driverDstMem));
}

std::int64_t OpRecord::transferStartNs() const
{
    // An imported copy is what the profiler's record says ran (#23): its call may have waited for
    // anything, on a stream the import cannot see into, and a profiler's capture times only the DMA.
    if (!stagedThroughHost() || !hasHost() || !hasGpu() || (flags & OpFlagImported))
        return gpuStartNs;
    const std::int64_t start = std::min(gpuStartNs, hostStartNs);
    // The call waited for its stream when the stream reached the op while the call still ran; what it
    // waited moves no bytes. A stream-ready up to 5 µs into the call is an event's own latency on an idle
    // stream, not a wait; from 10 µs on all of it is cut; in between the cut grows linearly, so that no
    // step splits a small copy's GB/s in two (a 4.9 µs and a 5.1 µs wait count alike). A call that
    // returned before its stream got there staged its data first and queued the DMA: its span stays the
    // whole union.
    constexpr std::int64_t kLatencyNs = 5'000;
    if (readyNs == kNoTime || readyNs <= start || readyNs > hostEndNs)
        return start;
    const std::int64_t wait = saturatingSub(readyNs, start);
    const std::int64_t cut = wait <= kLatencyNs ? 0 : std::min(wait, 2 * (wait - kLatencyNs));
    return std::min(start + cut, gpuStartNs);
}

std::int64_t OpRecord::transferEndNs() const
{
    if (stagedThroughHost() && hasHost() && hasGpu() && !(flags & OpFlagImported))
        return std::max(gpuEndNs, hostEndNs);
    return gpuEndNs;
}

double OpRecord::gbPerSecond() const
{
    // A prefetch's bytes are the range it asked for, not what moved (often nothing, the pages being
    // there already): its throughput is its migrations' (unifiedMemoryStats), where they were recorded.
    if (kind == OpKind::Prefetch)
        return 0;
    const std::int64_t ns = hasGpu() ? saturatingSub(transferEndNs(), transferStartNs()) : 0;
    if (bytes == 0 || ns <= 0)
        return 0;
    return static_cast<double>(bytes) / static_cast<double>(ns); // bytes per ns == GB/s
}

std::uint32_t Trace::intern(std::string_view name)
{
    if (m_stringIndex.size() != strings.size())
        rebuildStringIndex(*this);
    auto it = m_stringIndex.find(std::string(name));
    if (it != m_stringIndex.end())
        return it->second;
    const auto id = static_cast<std::uint32_t>(strings.size());
    strings.emplace_back(name);
    m_stringIndex.emplace(strings.back(), id);
    return id;
}

const std::string &Trace::name(const OpRecord &op) const
{
    static const std::string empty;
    return op.nameId < strings.size() ? strings[op.nameId] : empty;
}

const std::string &Trace::string(std::uint32_t id) const
{
    static const std::string empty;
    return id < strings.size() ? strings[id] : empty;
}

const std::string &Trace::rangeName(const Repetition &rep, const OpRecord &op) const
{
    static const std::string empty;
    const HostRange *range = rep.enclosingRange(op);
    return range ? string(range->nameId) : empty;
}

std::size_t Trace::opCount() const
{
    std::size_t n = 0;
    for (const auto &rep : repetitions)
        n += rep.ops.size();
    return n;
}

std::pair<std::int64_t, std::int64_t> Trace::extent(int repetition) const
{
    if (repetition < 0 || repetition >= static_cast<int>(repetitions.size()))
        return {0, 0};
    std::int64_t lo = std::numeric_limits<std::int64_t>::max();
    std::int64_t hi = std::numeric_limits<std::int64_t>::min();
    for (const auto &op : repetitions[repetition].ops) {
        if (op.hasGpu()) {
            lo = std::min(lo, op.gpuStartNs);
            hi = std::max(hi, op.gpuEndNs);
        }
        if (op.hasHost()) {
            lo = std::min(lo, op.hostStartNs);
            hi = std::max(hi, op.hostEndNs);
        }
    }
    for (const auto &a : repetitions[repetition].activities)
        if (a.startNs != kNoTime) {
            lo = std::min(lo, a.startNs);
            hi = std::max(hi, std::max(a.startNs, a.endNs));
        }
    // A graph's launch is the host call of its ops (OpFlagGraphNode have none of their own). Other host ranges are
    // annotations, which may span far more than the repetition's work.
    for (const HostRange &h : repetitions[repetition].hostRanges)
        if (h.category == HostRangeCategory::Launch && h.startNs != kNoTime && h.endNs >= h.startNs) {
            lo = std::min(lo, h.startNs);
            hi = std::max(hi, h.endNs);
        }
    if (lo > hi)
        return {0, 0};
    return {lo, hi};
}

void rebuildStringIndex(Trace &trace)
{
    trace.m_stringIndex.clear();
    trace.m_stringIndex.reserve(trace.strings.size());
    for (std::uint32_t i = 0; i < trace.strings.size(); ++i)
        trace.m_stringIndex.emplace(trace.strings[i], i);
}

void deriveStagedCopyReadiness(Repetition &rep, const std::vector<HostThreadInfo> &threads)
{
    // By stream and by the process that issued the op: in a capture of several processes on one GPU,
    // each one's default stream has the same id, and another process's kernel is not this copy's wait.
    auto processOf = [&](const OpRecord &op) -> std::int64_t {
        return op.hostThread >= 0 && std::size_t(op.hostThread) < threads.size()
                   ? threads[std::size_t(op.hostThread)].processId
                   : -1;
    };
    std::map<std::pair<int, std::int64_t>, std::vector<std::size_t>> byStream;
    for (std::size_t i = 0; i < rep.ops.size(); ++i)
        if (rep.ops[i].stream >= 0 && rep.ops[i].hasGpu())
            byStream[{rep.ops[i].stream, processOf(rep.ops[i])}].push_back(i);
    for (auto &[key, indices] : byStream) {
        std::stable_sort(indices.begin(), indices.end(),
                         [&](std::size_t a, std::size_t b) { return rep.ops[a].gpuStartNs < rep.ops[b].gpuStartNs; });
        std::int64_t previousEnd = kNoTime;
        for (const std::size_t i : indices) {
            OpRecord &op = rep.ops[i];
            if (op.readyNs == kNoTime && op.stagedThroughHost() && op.hasHost() && previousEnd != kNoTime
                && previousEnd > op.hostStartNs && previousEnd <= op.gpuStartNs)
                op.readyNs = previousEnd;
            previousEnd = previousEnd == kNoTime ? op.gpuEndNs : std::max(previousEnd, op.gpuEndNs);
        }
    }
}

} // namespace streamscope::engine
