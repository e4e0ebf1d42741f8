// The summary metric catalogue (see summary_metrics.h).
#include "engine/analysis/summary_metrics.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <utility>

#include "engine/analysis/interference.h"
#include "engine/analysis/op_description.h"
#include "engine/analysis/op_intervals.h"
#include "engine/model/op_kinds.h"
#include "engine/model/units.h"

namespace streamscope::engine {

namespace {

using RS = RepetitionStats;
using AddMetric = std::function<void(std::string, std::string, MetricUnit, std::function<double(const RS &)>)>;

// Whether any repetition has a positive value of `fn`: a row nothing used is left out.
template <typename Fn> bool usedBy(const TraceSummary &summary, Fn &&fn)
{
    for (const RS &r : summary.repetitions)
        if (fn(r) > 0)
            return true;
    return false;
}

// A figure computed once per repetition of the trace, shared by the rows that read it: field(fn) is a row's
// extractor, kNotApplicable for a repetition it has no entry for.
template <typename T> class RepetitionTable {
public:
    template <typename Of> RepetitionTable(const Trace &trace, Of of) : m_rows(std::make_shared<std::vector<T>>())
    {
        m_rows->reserve(trace.repetitions.size());
        for (const Repetition &rep : trace.repetitions)
            m_rows->push_back(of(rep));
    }
    const std::vector<T> &rows() const { return *m_rows; }
    // Whether `fn` has a figure (not NaN) in some repetition: the row is worth showing.
    template <typename Fn> bool any(Fn fn) const
    {
        return std::any_of(m_rows->begin(), m_rows->end(), [&fn](const T &row) { return !std::isnan(fn(row)); });
    }
    template <typename Fn> std::function<double(const RS &)> field(Fn fn) const
    {
        return [rows = m_rows, fn](const RS &r) {
            if (r.repetition < 0 || std::size_t(r.repetition) >= rows->size())
                return kNotApplicable;
            return double(fn((*rows)[std::size_t(r.repetition)]));
        };
    }

private:
    std::shared_ptr<std::vector<T>> m_rows;
};

// The catalogue's rows that depend on what the trace holds, defined below summaryMetrics.
void addCopyMetrics(const TraceSummary &summary, bool severalGpus, const AddMetric &add);
void addPerGpuMetrics(const TraceSummary &summary, const std::vector<int> &devices, const AddMetric &add);
void addPeerLinkMetrics(const TraceSummary &summary, const AddMetric &add);
void addUnifiedMemoryMetrics(const TraceSummary &summary, const AddMetric &add);
void addCommunicationMetrics(const Trace &trace, const AddMetric &add);
void addLaunchMetrics(const Trace &trace, const AddMetric &add);

} // namespace

std::vector<SummaryMetric> summaryMetrics(const Trace &trace, const TraceSummary &summary)
{
    return summaryMetrics(trace, summary,
                          trace.solo.empty() ? nullptr
                                             : std::make_shared<const InterferenceReport>(analyzeInterference(trace)));
}

std::vector<SummaryMetric> summaryMetrics(const Trace &trace, const TraceSummary &summary,
                                          std::shared_ptr<const InterferenceReport> interference)
{
    using RS = RepetitionStats;
    std::vector<SummaryMetric> m;
    if (summary.repetitions.empty())
        return m;
    auto add = [&m](std::string label, std::string description, MetricUnit unit, std::function<double(const RS &)> fn) {
        m.push_back({std::move(label), std::move(description), unit, std::move(fn), {}});
    };
    add("Makespan", "First host call or GPU start to the last GPU end or host return", MetricUnit::Duration,
        [](const RS &r) { return double(r.makespanNs); });
    add("GPU span", "First GPU start to last GPU end", MetricUnit::Duration,
        [](const RS &r) { return double(r.gpuSpanNs); });
    add("Ideal bound", "The busiest engine's time: the makespan if everything overlapped perfectly",
        MetricUnit::Duration, [](const RS &r) { return double(r.idealBoundNs); });
    add("Efficiency", "Ideal bound / makespan", MetricUnit::Fraction, [](const RS &r) { return r.efficiency; });
    add("Host copy/compute overlap",
        "Time with a host copy (H2D or D2H) and a kernel both active on one GPU, over the smaller of the two busy "
        "times. Device-to-device and peer copies are not host copies: Concurrent GPU time counts them",
        MetricUnit::Fraction, [](const RS &r) { return r.overlapFraction; });
    add("Concurrent GPU time", "Time with two or more GPU operations active", MetricUnit::Duration,
        [](const RS &r) { return double(r.concurrentNs); });
    // The price of overlap (interference.h): only solo baselines can say what overlapping saved and cost.
    if (trace.solo.empty()) {
        add("Price of overlap",
            trace.source == TraceSource::StreamScope
                ? "Unknown: this run did not measure its parts alone, so what overlapping saved and cost cannot be "
                  "told apart (run --solo measures it)"
                : "Unknown: a trace recorded by another tool has no solo baselines, so overlapped time is not "
                  "known to be saved time",
            MetricUnit::Duration, [](const RS &) { return kNotApplicable; });
        m.back().whenUnknown = "unknown (no solo baselines)";
    } else {
        std::shared_ptr<const InterferenceReport> report =
            interference ? std::move(interference)
                         : std::make_shared<const InterferenceReport>(analyzeInterference(trace));
        auto round = [report, &trace](const RS &r) -> const OverlapRound * {
            if (r.repetition < 0 || std::size_t(r.repetition) >= trace.repetitions.size())
                return nullptr;
            const int index = trace.repetitions[std::size_t(r.repetition)].index;
            for (const OverlapRound &o : report->rounds)
                if (o.round == index)
                    return &o;
            return nullptr;
        };
        const auto field = [round](auto fn) {
            return [round, fn](const RS &r) {
                const OverlapRound *o = round(r);
                return o ? fn(*o) : kNotApplicable;
            };
        };
        add("Serial (parts alone)",
            "Each part run alone, one after another: the sum of their GPU spans alone (solo baselines)",
            MetricUnit::Duration, field([](const OverlapRound &o) { return double(o.serialNs); }));
        add("Ideal overlap", "Perfect overlap at no cost: the longest part's GPU span alone", MetricUnit::Duration,
            field([](const OverlapRound &o) { return double(o.idealNs); }));
        add("Overlap saved", "Serial minus the measured GPU span: what running the parts side by side saved",
            MetricUnit::Duration, field([](const OverlapRound &o) { return double(o.savedNs()); }));
        add("Interference cost",
            "The measured GPU span minus the ideal overlap: what running side by side cost, as ops slowed each other "
            "or waited for a shared engine, queue or link",
            MetricUnit::Duration, field([](const OverlapRound &o) { return double(o.costNs()); }));
        add("Saving realised", "Overlap saved over what perfect overlap would save (serial minus ideal)",
            MetricUnit::Fraction, field([](const OverlapRound &o) { return o.realised(); }));
        if (!report->known)
            for (std::size_t i = m.size() - 5; i < m.size(); ++i)
                m[i].whenUnknown = "unknown (" + report->why + ")";
    }
    for (std::size_t s = 0; s < trace.streams.size(); ++s)
        add("Busy: " + trace.streams[s].name, "Union of this stream's GPU intervals over the makespan",
            MetricUnit::Fraction, [s](const RS &r) { return s < r.streams.size() ? r.streams[s].busyFraction : 0.0; });
    // With several GPUs each has its own host link and each direction between two GPUs is a link of its
    // own: a bandwidth over all of them would add links together (two GPUs' H2D read as one link at twice
    // its rate), so the trace-wide rows give bytes only, and the bandwidths come per GPU and per direction
    // below.
    const std::vector<int> devices = streamDevices(trace);
    const bool severalGpus = devices.size() >= 2;
    addCopyMetrics(summary, severalGpus, add);
    if (severalGpus)
        addPerGpuMetrics(summary, devices, add);
    addPeerLinkMetrics(summary, add);
    addCommunicationMetrics(trace, add);
    addUnifiedMemoryMetrics(summary, add);
    addLaunchMetrics(trace, add);
    add("Host time in API calls", "Time the host thread spent inside CUDA calls", MetricUnit::Duration,
        [](const RS &r) { return double(r.hostCallNs); });
    add("Host blocked", "The part of that spent in calls that waited for the GPU", MetricUnit::Duration,
        [](const RS &r) { return double(r.hostBlockedNs); });

    for (SummaryMetric &metric : m) {
        std::vector<double> samples;
        samples.reserve(summary.repetitions.size());
        for (const RS &r : summary.repetitions)
            if (const double v = metric.value(r); !std::isnan(v))
                samples.push_back(v);
        metric.spread = spreadOf(std::move(samples));
    }
    return m;
}

namespace {

// Bytes per copy direction over every GPU, and with one GPU the bandwidth (see summaryMetrics).
void addCopyMetrics(const TraceSummary &summary, bool severalGpus, const AddMetric &add)
{
    struct CopyKind {
        const char *name;
        std::uint64_t RS::*bytes;
        double RS::*gbs;
    };
    for (const CopyKind &kind :
         {CopyKind{"H2D", &RS::h2dBytes, &RS::h2dGBs}, CopyKind{"D2H", &RS::d2hBytes, &RS::d2hGBs},
          CopyKind{"D2D", &RS::d2dBytes, &RS::d2dGBs}, CopyKind{"P2P", &RS::p2pBytes, &RS::p2pGBs}}) {
        if (!usedBy(summary, [b = kind.bytes](const RS &r) { return double(r.*b); }))
            continue;
        add(std::string(kind.name) + " bytes",
            severalGpus ? "Bytes copied in this direction, all GPUs together" : "Bytes copied in this direction",
            MetricUnit::Bytes, [b = kind.bytes](const RS &r) { return double(r.*b); });
        if (severalGpus)
            continue;
        add(std::string(kind.name) + " bandwidth", "Bytes over the union time of the copies in this direction",
            MetricUnit::Bandwidth,
            [b = kind.bytes, g = kind.gbs](const RS &r) { return r.*b > 0 ? r.*g : kNotApplicable; });
    }
}

// Per GPU, where the streams are on several: how busy each was, with what, and what it copied.
void addPerGpuMetrics(const TraceSummary &summary, const std::vector<int> &devices, const AddMetric &add)
{
    for (std::size_t d = 0; d < devices.size(); ++d) {
        const std::string gpu = "GPU " + std::to_string(devices[d]) + ": ";
        auto field = [d](auto member) {
            return [d, member](const RS &r) {
                return d < r.devices.size() ? double(r.devices[d].*member) : kNotApplicable;
            };
        };
        add(gpu + "busy", "Union of this GPU's operations over the makespan", MetricUnit::Fraction,
            field(&DeviceStats::busyFraction));
        add(gpu + "kernel time", "Union of this GPU's kernels and memsets", MetricUnit::Duration,
            field(&DeviceStats::kernelNs));
        add(gpu + "copy time", "Union of the copies on this GPU's streams", MetricUnit::Duration,
            field(&DeviceStats::copyNs));
        if (usedBy(summary, field(&DeviceStats::copyBytes)))
            add(gpu + "bytes copied", "Bytes of every copy on this GPU's streams, in any direction", MetricUnit::Bytes,
                field(&DeviceStats::copyBytes));
        if (usedBy(summary, field(&DeviceStats::h2dBytes)))
            add(gpu + "H2D bandwidth", "This GPU's H2D bytes over the union time of its H2D copies (its own host link)",
                MetricUnit::Bandwidth, field(&DeviceStats::h2dGBs));
        if (usedBy(summary, field(&DeviceStats::d2hBytes)))
            add(gpu + "D2H bandwidth", "This GPU's D2H bytes over the union time of its D2H copies (its own host link)",
                MetricUnit::Bandwidth, field(&DeviceStats::d2hGBs));
    }
}

// Per direction between two GPUs that carried peer copies: bytes, the achieved bandwidth and, where the
// trace recorded the link, that bandwidth as a share of its peak.
void addPeerLinkMetrics(const TraceSummary &summary, const AddMetric &add)
{
    std::vector<std::pair<int, int>> links;
    for (const RS &r : summary.repetitions)
        for (const PeerLinkStats &l : r.peerLinks)
            if (std::find(links.begin(), links.end(), std::pair{l.src, l.dst}) == links.end())
                links.emplace_back(l.src, l.dst);
    std::sort(links.begin(), links.end());
    for (const auto &[src, dst] : links) {
        const std::string name = src >= 0 && dst >= 0
                                     ? "P2P GPU " + std::to_string(src) + "→" + std::to_string(dst) + ": "
                                     : std::string("P2P, devices not recorded: ");
        auto field = [src = src, dst = dst](auto fn) {
            return [src, dst, fn](const RS &r) {
                for (const PeerLinkStats &l : r.peerLinks)
                    if (l.src == src && l.dst == dst)
                        return fn(l);
                return kNotApplicable;
            };
        };
        add(name + "bytes", "Bytes copied from the first GPU to the second (cudaMemcpyPeerAsync)", MetricUnit::Bytes,
            field([](const PeerLinkStats &l) { return double(l.bytes); }));
        add(name + "bandwidth", "Those bytes over the union time of the copies in this direction",
            MetricUnit::Bandwidth, field([](const PeerLinkStats &l) { return l.gbs; }));
        // The link the copies used: the direct one, or for copies staged through the host the GPUs' own
        // host links (PeerLinkStats::staged), as the first repetition that carried them recorded it.
        const PeerLinkStats *first = nullptr;
        for (const RS &r : summary.repetitions)
            for (const PeerLinkStats &l : r.peerLinks)
                if (!first && l.src == src && l.dst == dst)
                    first = &l;
        if (first && first->peakGBs > 0) {
            const std::string type = first->staged                     ? "host link"
                                     : first->link == LinkType::NvLink ? "NVLink"
                                     : first->link == LinkType::Pcie   ? "PCIe"
                                                                       : "link";
            add(name + "of " + type + " peak",
                first->staged ? "Staged through host memory (no peer access): the achieved bandwidth over the slower "
                                "of the two GPUs' host links' theoretical per-direction peak ("
                                    + formatRate(first->peakGBs) + "), which every byte crossed"
                              : "The achieved bandwidth over the link's theoretical per-direction peak ("
                                    + formatRate(first->peakGBs) + ")",
                MetricUnit::Fraction,
                field([](const PeerLinkStats &l) { return l.peakGBs > 0 ? l.peakFraction() : kNotApplicable; }));
        }
    }
}

// Communication: the collectives (OpKind::Collective, classified by the NCCL call that launched their kernels
// or copies, never by a kernel's name) of one repetition, per GPU, against the compute beside them.
struct CommunicationStats {
    int collectives = 0; // collective ops in the repetition, run or not
    std::int64_t commNs = 0; // per GPU the union of its collectives' executions, summed over the GPUs
    std::int64_t besideComputeNs = 0; // the part of that with a kernel or memset running on the same GPU
    double busGBs = kNotApplicable; // the mean of the collectives' bus bandwidths
};

CommunicationStats communicationOf(const Trace &trace, const Repetition &rep)
{
    using Intervals = std::vector<std::pair<std::int64_t, std::int64_t>>;
    std::map<int, std::pair<Intervals, Intervals>> perDevice; // device -> (collectives, compute)
    double busSum = 0;
    int busCount = 0;
    CommunicationStats s;
    for (std::size_t i = 0; i < rep.ops.size(); ++i) {
        const OpRecord &op = rep.ops[i];
        s.collectives += op.kind == OpKind::Collective;
        if (!op.hasGpu() || op.stream < 0 || std::size_t(op.stream) >= trace.streams.size())
            continue;
        auto &[comm, compute] = perDevice[trace.streams[std::size_t(op.stream)].device];
        if (op.kind == OpKind::Collective) {
            comm.emplace_back(op.gpuStartNs, op.gpuEndNs);
            if (const KernelLaunch *l = rep.launchOf(int(i)); l && l->busBytes > 0 && op.gpuDurationNs() > 0) {
                busSum += l->busGbPerSecond(op.gpuDurationNs());
                busCount += 1;
            }
        } else if (engineClassOf(op) == EngineClass::Compute && !isCopy(op.kind)) {
            compute.emplace_back(op.gpuStartNs, op.gpuEndNs);
        }
    }
    for (auto &[device, lists] : perDevice) {
        const auto &[comm, compute] = lists;
        const std::int64_t commNs = unionLength(comm), computeNs = unionLength(compute);
        Intervals both = comm;
        both.insert(both.end(), compute.begin(), compute.end());
        s.commNs += commNs;
        s.besideComputeNs += commNs + computeNs - unionLength(std::move(both));
    }
    if (busCount > 0)
        s.busGBs = busSum / busCount;
    return s;
}

void addCommunicationMetrics(const Trace &trace, const AddMetric &add)
{
    // Each repetition's once, shared by the three rows.
    const RepetitionTable<CommunicationStats> stats(
        trace, [&trace](const Repetition &rep) { return communicationOf(trace, rep); });
    if (std::none_of(stats.rows().begin(), stats.rows().end(),
                     [](const CommunicationStats &c) { return c.collectives > 0; }))
        return;
    const auto field = [&stats](auto fn) { return stats.field(fn); };
    add("Communication time",
        "Per GPU the union of its collectives' executions (the NCCL calls, whatever kernels or copies they ran), "
        "summed over the GPUs",
        MetricUnit::Duration, field([](const CommunicationStats &c) { return double(c.commNs); }));
    add("Communication beside compute",
        "The part of that time with a kernel running on the same GPU: overlapped, which is not the same as free "
        "(the price of overlap says what it cost)",
        MetricUnit::Fraction, field([](const CommunicationStats &c) {
            return c.commNs > 0 ? double(c.besideComputeNs) / double(c.commNs) : kNotApplicable;
        }));
    add("Collective bus bandwidth",
        "The mean of the collectives' bus bandwidths (nccl-tests' busbw: an all-reduce's size x 2(n-1)/n over its "
        "time), to compare with the links' peak",
        MetricUnit::Bandwidth, field([](const CommunicationStats &c) { return c.busGBs; }));
}

// What launching cost (#28): the calls that launched GPU work, and the GPU's idle time between one kernel and the
// next on a stream (what launch latency leaves). Per repetition, from its records.
struct LaunchStats {
    double calls = 0; // ops' calls that enqueued GPU work, and graph launches
    double kernelGapNs = kNotApplicable; // median idle time between consecutive kernels of a stream
    double pdlOverlapNs = kNotApplicable; // median time a PDL kernel started before the kernel ahead of it ended
    // Median time from a kernel's submission to the GPU to its start (CUPTI's latency timestamps), where recorded.
    double submittedToStartNs = kNotApplicable;
};

LaunchStats launchOf(const Repetition &rep)
{
    LaunchStats out;
    for (const HostRange &h : rep.hostRanges)
        out.calls += h.category == HostRangeCategory::Launch;
    std::map<int, std::vector<const OpRecord *>> byStream;
    std::vector<double> overlaps, latencies;
    for (std::size_t i = 0; i < rep.ops.size(); ++i) {
        const OpRecord &op = rep.ops[i];
        if (op.hasHost() && opKindInfo(op.kind).gpuWork)
            out.calls += 1;
        if (op.hasGpu() && op.stream >= 0)
            byStream[op.stream].push_back(&op);
        if (op.flags & OpFlagPdl)
            if (const PdlOverlap o = pdlOverlap(rep, int(i)); o.before >= 0)
                overlaps.push_back(double(std::max<std::int64_t>(o.overlapNs, 0)));
        if (const KernelLaunch *l = rep.launchOf(int(i));
            l && l->submittedNs != kNoTime && op.hasGpu() && op.gpuStartNs >= l->submittedNs)
            latencies.push_back(double(op.gpuStartNs - l->submittedNs));
    }
    if (!latencies.empty())
        out.submittedToStartNs = spreadOf(std::move(latencies)).median;
    if (!overlaps.empty())
        out.pdlOverlapNs = spreadOf(std::move(overlaps)).median;
    std::vector<double> gaps;
    for (auto &[stream, ops] : byStream) {
        std::sort(ops.begin(), ops.end(),
                  [](const OpRecord *a, const OpRecord *b) { return a->gpuStartNs < b->gpuStartNs; });
        // A kernel that started before the one ahead of it ended (launched with PDL) left no gap.
        for (std::size_t i = 1; i < ops.size(); ++i)
            if (ops[i - 1]->kind == OpKind::Kernel && ops[i]->kind == OpKind::Kernel)
                gaps.push_back(double(std::max<std::int64_t>(ops[i]->gpuStartNs - ops[i - 1]->gpuEndNs, 0)));
    }
    if (!gaps.empty())
        out.kernelGapNs = spreadOf(std::move(gaps)).median;
    return out;
}

void addLaunchMetrics(const Trace &trace, const AddMetric &add)
{
    const RepetitionTable<LaunchStats> stats(trace, launchOf);
    const auto field = [&stats](auto fn) { return stats.field(fn); };
    add("Launch calls",
        "Calls that enqueued GPU work (a kernel, copy or memset launch each), and a graph's one cudaGraphLaunch "
        "for all its ops",
        MetricUnit::Count, field([](const LaunchStats &s) { return s.calls; }));
    if (stats.any([](const LaunchStats &s) { return s.kernelGapNs; }))
        add("Gap between kernels",
            "The median idle time on a stream between one kernel's end and the next kernel's start: what each "
            "launch left the GPU waiting, where the host launched kernels more slowly than they ran",
            MetricUnit::Duration, field([](const LaunchStats &s) { return s.kernelGapNs; }));
    if (stats.any([](const LaunchStats &s) { return s.pdlOverlapNs; }))
        add("PDL overlap",
            "The median time a kernel launched with programmatic dependent launch started before the kernel ahead "
            "of it on its stream ended (0 where it started after): the launch PDL hid",
            MetricUnit::Duration, field([](const LaunchStats &s) { return s.pdlOverlapNs; }));
    if (stats.any([](const LaunchStats &s) { return s.submittedToStartNs; }))
        add("Kernel submitted to start",
            "The median time from a kernel's submission to the GPU to its start (CUPTI's latency timestamps): the "
            "launch latency the GPU adds, and the time a kernel waited behind the work ahead of it on its stream",
            MetricUnit::Duration, field([](const LaunchStats &s) { return s.submittedToStartNs; }));
}

// Unified memory, from the driver's records (runs with managed memory, timed by CUPTI).
void addUnifiedMemoryMetrics(const TraceSummary &summary, const AddMetric &add)
{
    if (usedBy(summary, [](const RS &r) { return r.unifiedMemory.any() ? 1.0 : 0.0; })) {
        if (usedBy(summary, [](const RS &r) { return double(r.unifiedMemory.h2dBytes); })) {
            add("Migrated to the GPU", "Managed memory the driver moved to the GPU (page faults and prefetches)",
                MetricUnit::Bytes, [](const RS &r) { return double(r.unifiedMemory.h2dBytes); });
            add("Migration throughput to the GPU", "Those bytes over the union time of the migrations",
                MetricUnit::Bandwidth,
                [](const RS &r) { return r.unifiedMemory.h2dBytes > 0 ? r.unifiedMemory.h2dGBs : kNotApplicable; });
        }
        if (usedBy(summary, [](const RS &r) { return double(r.unifiedMemory.d2hBytes); })) {
            add("Migrated to the host", "Managed memory the driver moved to the host", MetricUnit::Bytes,
                [](const RS &r) { return double(r.unifiedMemory.d2hBytes); });
            add("Migration throughput to the host", "Those bytes over the union time of the migrations",
                MetricUnit::Bandwidth,
                [](const RS &r) { return r.unifiedMemory.d2hBytes > 0 ? r.unifiedMemory.d2hGBs : kNotApplicable; });
        }
        add("GPU page faults", "Faults the GPU raised on managed memory that was not resident", MetricUnit::Count,
            [](const RS &r) { return double(r.unifiedMemory.gpuPageFaults); });
        add("Page-fault handling", "Union of the time the driver spent on fault groups, until their replay",
            MetricUnit::Duration, [](const RS &r) { return double(r.unifiedMemory.gpuFaultNs); });
    }
}

} // namespace

std::string formatMetric(MetricUnit unit, double value)
{
    if (std::isnan(value))
        return "-";
    switch (unit) {
    case MetricUnit::Duration: return formatDuration(static_cast<std::int64_t>(std::llround(value)));
    case MetricUnit::Fraction: return formatPercent(value);
    case MetricUnit::Bytes: return formatBytes(static_cast<std::uint64_t>(std::llround(value)));
    case MetricUnit::Bandwidth: return formatRate(value);
    case MetricUnit::Count: return std::to_string(std::llround(value));
    }
    return {};
}

} // namespace streamscope::engine
