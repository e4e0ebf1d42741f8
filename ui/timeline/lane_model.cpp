// LaneModel: building the flat per-lane arrays from one repetition, and the searches over them.
#include "ui/timeline/lane_model.h"
#include "ui/common/display_text.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <type_traits>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <QStringList>

#include "engine/analysis/analysis.h"
#include "engine/analysis/device_stats.h"
#include "engine/analysis/interference.h"
#include "engine/model/errors.h"
#include "engine/model/op_colors.h"
#include "ui/common/format_units.h"

namespace streamscope::ui {

using engine::OpRecord;

std::pair<std::size_t, std::size_t> IntervalLane::visible(qint64 startNs, qint64 endNs) const
{
    // The first interval whose running max end passes startNs: nothing before it can reach the window.
    const auto &maxEnd = runningMaxEnds();
    const auto first = std::upper_bound(maxEnd.begin(), maxEnd.end(), startNs) - maxEnd.begin();
    // Zero-length intervals at startNs are visible too (markers), hence upper_bound on the max end
    // would skip them; step back over ends equal to startNs.
    std::size_t f = std::size_t(first);
    while (f > 0 && maxEnd[f - 1] == startNs)
        --f;
    const auto last = std::lower_bound(starts.begin(), starts.end(), endNs) - starts.begin();
    return {f, std::max<std::size_t>(f, std::size_t(last))};
}

std::ptrdiff_t StepSeries::indexAt(qint64 ns) const
{
    return std::upper_bound(times.begin(), times.end(), ns) - times.begin() - 1;
}

void StepSeries::finish()
{
    times.shrink_to_fit();
    values.shrink_to_fit();
    auto summarise = [](const std::vector<float> &lo, const std::vector<float> &hi, std::vector<float> &outLo,
                        std::vector<float> &outHi) {
        const std::size_t blocks = lo.size() / kBlock; // only whole blocks; the tail is read directly
        outLo.resize(blocks);
        outHi.resize(blocks);
        for (std::size_t b = 0; b < blocks; ++b) {
            const auto l = lo.begin() + std::ptrdiff_t(b * kBlock);
            const auto h = hi.begin() + std::ptrdiff_t(b * kBlock);
            outLo[b] = *std::min_element(l, l + std::ptrdiff_t(kBlock));
            outHi[b] = *std::max_element(h, h + std::ptrdiff_t(kBlock));
        }
    };
    summarise(values, values, blockMin, blockMax);
    summarise(blockMin, blockMax, superMin, superMax);
}

void StepSeries::minMax(std::size_t first, std::size_t last, float &outLo, float &outHi) const
{
    constexpr std::size_t kSuper = kBlock * kBlock;
    // Kept in locals: the results may alias the arrays as far as the compiler knows, which made every
    // step a load and a store of both (a million steps in view: the column min/max was a tenth of a frame).
    float lo = outLo, hi = outHi;
    auto take = [&](float l, float h) {
        lo = std::min(lo, l);
        hi = std::max(hi, h);
    };
    std::size_t i = first;
    // Walk up: single steps to a block boundary, blocks to a super-block boundary, super-blocks while
    // they fit, then back down.
    while (i < last && i % kBlock != 0)
        take(values[i], values[i]), ++i;
    while (i + kBlock <= last && i % kSuper != 0 && i / kBlock < blockMin.size())
        take(blockMin[i / kBlock], blockMax[i / kBlock]), i += kBlock;
    while (i + kSuper <= last && i / kSuper < superMin.size())
        take(superMin[i / kSuper], superMax[i / kSuper]), i += kSuper;
    while (i + kBlock <= last && i / kBlock < blockMin.size())
        take(blockMin[i / kBlock], blockMax[i / kBlock]), i += kBlock;
    for (; i < last; ++i)
        take(values[i], values[i]);
    outLo = lo;
    outHi = hi;
}

float StepSeries::valueAt(qint64 ns) const
{
    const auto i = indexAt(ns);
    return i < 0 ? 0.0f : values[std::size_t(i)];
}

LaneModel::LaneModel(const engine::Trace &trace, int repetition, LaneOptions options,
                     const engine::InterferenceReport *interference) :
    m_trace(&trace),
    m_repetition(repetition), m_options(options)
{
    if (repetition < 0 || std::size_t(repetition) >= trace.repetitions.size())
        throw engine::Error(engine::ErrorKind::InvalidInput,
                            "timeline: repetition " + std::to_string(repetition) + " does not exist in trace '"
                                + trace.title + "' (it has " + std::to_string(trace.repetitions.size())
                                + " repetitions)");
    if (!rep().ops.empty()) {
        const auto [first, last] = trace.extent(repetition);
        m_originNs = first;
        m_durationNs = std::max<qint64>(1, last - first);
    } else {
        m_durationNs = 1;
    }
    for (const auto &d : trace.devices)
        m_linkPeakGBs = std::max(m_linkPeakGBs, d.linkPeakGBs);
    if (std::vector<int> devices = engine::streamDevices(trace); devices.size() >= 2)
        m_devices = std::move(devices);

    // The interval lanes and the two profiles (which sort every GPU edge) only read the trace: build the
    // lanes in a worker while this thread sorts. The lanes' arrays are reserved to size, so the worker's
    // malloc arena holds no garbage; the profiles' transient edge lists stay in this thread's arena, which
    // malloc_trim below can give back (a worker arena's free pages, it turned out, stay resident).
    // A trace of several GPUs gets the derived lanes once per device (each in its device's group), a
    // single-GPU trace once over everything.
    auto intervals = std::async(std::launch::async, [this, interference] { buildIntervalLanes(interference); });
    const std::vector<int> scopes = m_devices.empty() ? std::vector<int>{-1} : m_devices;
    std::vector<std::vector<engine::ActivityStep>> activity;
    std::vector<std::vector<engine::BandwidthStep>> bandwidth;
    try {
        for (const int device : scopes) {
            activity.push_back(engine::activityProfile(*m_trace, m_repetition, device));
            bandwidth.push_back(engine::bandwidthProfile(*m_trace, m_repetition, device));
        }
    } catch (...) {
        intervals.wait(); // never leave the worker writing into a model being destroyed
        throw;
    }
    intervals.get();
    for (std::size_t i = 0; i < scopes.size(); ++i)
        buildDerivedLanes(activity[i], bandwidth[i], scopes[i]);
    m_channelLanes.clear();
    if (!m_devices.empty())
        buildActivityLanes(); // the driver's unified-memory records name no device
    buildPeerLinkLanes();
    buildRangeLanes();
    activity = {};
    bandwidth = {};
#ifdef __GLIBC__
    // The profiles' edge lists (tens of MB for a million ops) were freed in worker threads' arenas, which
    // glibc keeps resident; give them back so a big trace costs what its lanes hold.
    if (opCount() > 100'000)
        malloc_trim(0);
#endif
}

namespace {

// Names from the file, as lane titles: clamped (a megabyte-long stream name would widen the header).
QString fromStd(const std::string &s)
{
    return displayText(s);
}

} // namespace

// Puts one lane's arrays in start order (imports come sorted by GPU start; runner traces are in issue
// order, which on one stream or one host thread is start order too, so this is usually a check only) and
// keeps a running max of the ends only where intervals overlap.
void finishIntervals(IntervalLane &lane)
{
    const std::size_t n = lane.size();
    if (!std::is_sorted(lane.starts.begin(), lane.starts.end())) {
        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return lane.starts[a] < lane.starts[b]; });
        auto permute = [&](auto &v) {
            std::remove_reference_t<decltype(v)> sorted(n);
            for (std::size_t k = 0; k < n; ++k)
                sorted[k] = v[order[k]];
            v = std::move(sorted);
        };
        permute(lane.starts);
        permute(lane.ends);
        permute(lane.ops);
        permute(lane.styles);
    }
    if (std::is_sorted(lane.ends.begin(), lane.ends.end()))
        return; // no interval ends before an earlier one: ends serve as the running max
    lane.maxEnds.resize(n);
    qint64 maxEnd = std::numeric_limits<qint64>::min();
    for (std::size_t k = 0; k < n; ++k)
        lane.maxEnds[k] = maxEnd = std::max(maxEnd, lane.ends[k]);
}

namespace {

void reserve(IntervalLane &lane, std::size_t n)
{
    lane.starts.reserve(n);
    lane.ends.reserve(n);
    lane.ops.reserve(n);
    lane.styles.reserve(n);
}

void append(IntervalLane &lane, qint64 start, qint64 end, qint32 op, std::uint8_t style)
{
    lane.starts.push_back(start);
    lane.ends.push_back(std::max(start, end));
    lane.ops.push_back(op);
    lane.styles.push_back(style);
}

// With solo baselines: each op's median execution alone (engine/analysis/interference.h), by op. Only the
// ops slower than alone beyond the rounds' noise (OpSlowdown::beyondNoise, as the details say) get one
// (0 for the others); empty without baselines.
std::vector<double> slowedAloneNs(const engine::Trace &trace, std::size_t opCount,
                                  const engine::InterferenceReport *interference)
{
    std::vector<double> aloneNs;
    if (trace.solo.empty())
        return aloneNs;
    engine::InterferenceReport analysed; // where the caller (the document) has none to share
    if (!interference) {
        analysed = engine::analyzeInterference(trace);
        interference = &analysed;
    }
    const engine::InterferenceReport &report = *interference;
    if (report.known && report.ops.size() == opCount) {
        aloneNs.resize(opCount, 0.0);
        for (std::size_t k = 0; k < opCount; ++k)
            if (report.ops[k].beyondNoise() && report.ops[k].slowdown > 1.0)
                aloneNs[k] = report.ops[k].soloNs.median;
    }
    return aloneNs;
}

// A stream lane's subtitle: its flags and how many ops it ran.
QString streamSubtitle(const engine::StreamInfo &info, std::size_t ops)
{
    QStringList flags;
    if (info.isDefault)
        flags << QStringLiteral("default");
    if (info.priority != 0)
        flags << QStringLiteral("prio %1").arg(info.priority);
    if (info.nonBlocking)
        flags << QStringLiteral("non-blocking");
    flags << QStringLiteral("%1 ops").arg(ops);
    return flags.join(QStringLiteral(" · "));
}

// Each op piece on its op's stream (Lane::pieces), coloured by what it was: a kernel, a copy between two GPUs, a
// copy within one, a memset.
void addPieces(const engine::Repetition &rep, int streams, qint64 originNs, std::vector<IntervalLane> &byStream)
{
    for (const engine::OpPiece &piece : rep.opPieces) {
        const auto &o = rep.ops[std::size_t(piece.op)]; // checked by every reader (limits::checkTraceLimits)
        if (!o.hasGpu() || o.stream < 0 || o.stream >= streams)
            continue;
        const bool peer = piece.srcDevice >= 0 && piece.dstDevice >= 0 && piece.srcDevice != piece.dstDevice;
        const engine::OpKind kind = piece.kind == engine::PieceKind::Kernel   ? engine::OpKind::Kernel
                                    : piece.kind == engine::PieceKind::Memset ? engine::OpKind::Memset
                                    : peer                                    ? engine::OpKind::CopyP2P
                                                                              : engine::OpKind::CopyD2D;
        append(byStream[std::size_t(o.stream)], piece.startNs - originNs, piece.endNs - originNs, piece.op,
               std::uint8_t(kind));
    }
}

} // namespace

namespace {
// Per thread slot (thread + 1; slot 0: no known thread), whether it launched a graph (HostRangeCategory::Launch).
std::vector<bool> launchingThreads(const engine::Repetition &rep, int threads)
{
    std::vector<bool> launches(std::size_t(threads) + 1, false);
    for (const engine::HostRange &h : rep.hostRanges)
        if (h.category == engine::HostRangeCategory::Launch)
            launches[h.hostThread >= 0 && h.hostThread < threads ? std::size_t(h.hostThread) + 1 : 0] = true;
    return launches;
}
} // namespace

void LaneModel::buildIntervalLanes(const engine::InterferenceReport *interference)
{
    const auto &ops = rep().ops;
    const int streams = int(m_trace->streams.size());
    const int threads = int(m_trace->hostThreads.size());
    std::vector<IntervalLane> byStream(static_cast<std::size_t>(streams));
    std::vector<IntervalLane> queuedByStream(static_cast<std::size_t>(streams));
    std::vector<IntervalLane> slowedByStream(static_cast<std::size_t>(streams));
    std::vector<IntervalLane> piecesByStream(static_cast<std::size_t>(streams));
    const std::vector<double> aloneNs = slowedAloneNs(*m_trace, ops.size(), interference);
    // Copies by the hardware channel that ran them (CUPTI-timed traces). On the H200 every stream's
    // copies went through a channel of their own, so a lane per channel would only repeat the stream
    // lanes: a channel gets a lane only where it carried the copies of several streams.
    struct ChannelCopies {
        IntervalLane intervals;
        std::set<engine::OpKind> kinds;
        std::set<int> streams;
    };
    std::map<std::pair<int, int>, ChannelCopies> byChannel; // by device (-1 for a single GPU) and channel
    // Queued time is drawn only where execution was timed apart from stream-ready: with events the
    // waiting is inside the bar, and an import knows no stream-ready.
    const bool drawQueued = m_trace->timing == engine::TimingSource::Cupti;
    std::vector<IntervalLane> byThread(std::size_t(threads) + 1); // slot 0: unknown thread
    std::vector<std::size_t> blocking(std::size_t(threads) + 1, 0);
    std::vector<bool> kindSeen(engine::kOpKindCount, false);

    // Two sequential passes over the ops (count, then fill) so a million ops neither regrow vectors nor
    // jump around the trace.
    std::vector<std::size_t> streamCount(static_cast<std::size_t>(streams), 0),
        threadCount(std::size_t(threads) + 1, 0);
    auto threadSlot = [&](const OpRecord &o) {
        return (o.hostThread >= 0 && o.hostThread < threads) ? std::size_t(o.hostThread) + 1 : std::size_t(0);
    };
    for (const auto &o : ops) {
        if (o.hasGpu() && o.stream >= 0 && o.stream < streams)
            ++streamCount[std::size_t(o.stream)];
        if (o.hasHost())
            ++threadCount[threadSlot(o)];
    }
    for (int s = 0; s < streams; ++s)
        reserve(byStream[std::size_t(s)], streamCount[std::size_t(s)]);
    for (int t = 0; t <= threads; ++t)
        reserve(byThread[std::size_t(t)], threadCount[std::size_t(t)]);
    for (qint32 i = 0; i < qint32(ops.size()); ++i) {
        const auto &o = ops[std::size_t(i)];
        kindSeen[std::size_t(o.kind)] = true;
        const auto kind = std::uint8_t(std::uint8_t(o.kind) & IntervalLane::kKindMask);
        if (o.hasGpu() && o.stream >= 0 && o.stream < streams) {
            append(byStream[std::size_t(o.stream)], o.gpuStartNs - m_originNs, o.gpuEndNs - m_originNs, i, kind);
            if (drawQueued && o.queuedDurationNs() > 0)
                append(queuedByStream[std::size_t(o.stream)], o.readyToRunNs() - m_originNs, o.gpuStartNs - m_originNs,
                       i, kind);
            if (!aloneNs.empty() && aloneNs[std::size_t(i)] > 0 && double(o.gpuDurationNs()) > aloneNs[std::size_t(i)])
                append(slowedByStream[std::size_t(o.stream)],
                       o.gpuStartNs + std::llround(aloneNs[std::size_t(i)]) - m_originNs, o.gpuEndNs - m_originNs, i,
                       kind);
            if (engine::isCopy(o.kind) && o.channel >= 0 && o.channelType == engine::ChannelType::AsyncCopy) {
                const int device =
                    m_devices.empty() ? -1 : m_trace->streams[std::size_t(o.stream)].device; // channel ids are per GPU
                ChannelCopies &c = byChannel[{device, o.channel}];
                append(c.intervals, o.gpuStartNs - m_originNs, o.gpuEndNs - m_originNs, i, kind);
                c.kinds.insert(o.kind);
                c.streams.insert(o.stream);
            }
        }
        if (o.hasHost()) {
            const auto slot = threadSlot(o);
            const bool blocks = engine::isHostBlocking(o);
            blocking[slot] += blocks;
            append(byThread[slot], o.hostStartNs - m_originNs, o.hostEndNs - m_originNs, i,
                   std::uint8_t(kind | (blocks ? IntervalLane::kBlockingBit : 0)));
        }
    }
    addPieces(rep(), streams, m_originNs, piecesByStream);
    for (std::size_t k = 0; k < kindSeen.size(); ++k)
        if (kindSeen[k])
            m_kinds.push_back(engine::OpKind(k));

    // A thread that launched graphs (graph mode) has a lane even without a call of its own: its launches are
    // drawn under it (buildRangeLanes).
    const std::vector<bool> launches = launchingThreads(rep(), threads);
    // Host threads first: that is where work is issued, and Nsight Systems orders rows the same way.
    m_hostLane.assign(std::size_t(threads) + 1, -1);
    for (int slot = 1; slot <= threads + 1; ++slot) {
        const int t = slot % (threads + 1); // known threads in order, the unknown one last
        if (byThread[std::size_t(t)].size() == 0 && !launches[std::size_t(t)])
            continue;
        Lane lane;
        lane.kind = LaneKind::HostThread;
        lane.source = t - 1;
        if (t == 0) {
            lane.title = QStringLiteral("host");
        } else {
            const auto &info = m_trace->hostThreads[std::size_t(t - 1)];
            lane.title = info.name.empty() ? QStringLiteral("host thread %1").arg(t - 1) : fromStd(info.name);
        }
        const auto calls = byThread[std::size_t(t)].size();
        lane.subtitle = calls == 0 ? QStringLiteral("its graph launches below") : QStringLiteral("%1 calls").arg(calls);
        if (blocking[std::size_t(t)])
            lane.subtitle += QStringLiteral(" · %1 blocking").arg(blocking[std::size_t(t)]);
        lane.intervals = std::move(byThread[std::size_t(t)]);
        finishIntervals(lane.intervals);
        m_hostLane[std::size_t(t)] = int(m_lanes.size());
        m_lanes.push_back(std::move(lane));
    }

    // Every stream gets a lane, also an idle one: an empty lane is itself the finding.
    m_streamLane.assign(std::size_t(streams), -1);
    for (int s = 0; s < streams; ++s) {
        const auto &info = m_trace->streams[std::size_t(s)];
        Lane lane;
        lane.kind = LaneKind::Stream;
        lane.source = s;
        lane.title = info.name.empty() ? QStringLiteral("stream %1").arg(s) : fromStd(info.name);
        lane.subtitle = streamSubtitle(info, byStream[std::size_t(s)].size());
        lane.intervals = std::move(byStream[std::size_t(s)]);
        finishIntervals(lane.intervals);
        lane.queued = std::move(queuedByStream[std::size_t(s)]);
        finishIntervals(lane.queued);
        lane.slowed = std::move(slowedByStream[std::size_t(s)]);
        finishIntervals(lane.slowed);
        lane.pieces = std::move(piecesByStream[std::size_t(s)]);
        finishIntervals(lane.pieces);
        m_streamLane[std::size_t(s)] = int(m_lanes.size());
        m_lanes.push_back(std::move(lane));
    }

    for (auto &[where, copies] : byChannel) {
        if (copies.streams.size() < 2)
            continue;
        const auto [device, channel] = where;
        Lane lane;
        lane.kind = LaneKind::CopyEngine;
        lane.source = channel;
        lane.device = device;
        lane.title = QStringLiteral("copy channel %1").arg(channel);
        QStringList kinds;
        for (const engine::OpKind k : copies.kinds)
            kinds << fromStd(std::string(engine::toString(k))).toUpper();
        lane.subtitle = QStringLiteral("%1 · %2 copies · %3 streams")
                            .arg(kinds.join(QStringLiteral("+")))
                            .arg(copies.intervals.size())
                            .arg(copies.streams.size());
        lane.intervals = std::move(copies.intervals);
        finishIntervals(lane.intervals);
        m_channelLanes.push_back(std::move(lane));
    }
}

namespace {

void pushStep(StepSeries &series, qint64 t, float v)
{
    if (!series.values.empty()) {
        if (series.values.back() == v)
            return;
        if (series.times.back() == t) { // several changes at one instant: keep the last
            series.values.back() = v;
            if (series.values.size() >= 2 && series.values[series.values.size() - 2] == v) {
                series.values.pop_back();
                series.times.pop_back();
            }
            return;
        }
    }
    series.times.push_back(t);
    series.values.push_back(v);
    series.maxValue = std::max(series.maxValue, v);
}

} // namespace

void LaneModel::buildDerivedLanes(const std::vector<engine::ActivityStep> &activity,
                                  const std::vector<engine::BandwidthStep> &bandwidth, int device)
{
    Lane h2d, d2h, d2d, compute;
    for (Lane *lane : {&h2d, &d2h, &d2d, &compute})
        lane->device = device;
    h2d.kind = LaneKind::H2DActivity;
    h2d.title = QStringLiteral("H2D copies");
    d2h.kind = LaneKind::D2HActivity;
    d2h.title = QStringLiteral("D2H copies");
    d2d.kind = LaneKind::D2DActivity;
    d2d.title = QStringLiteral("D2D copies");
    compute.kind = LaneKind::ComputeActivity;
    compute.title = QStringLiteral("compute");
    for (const auto &step : activity) {
        const qint64 t = step.timeNs - m_originNs;
        pushStep(h2d.counts, t, float(step.h2d));
        pushStep(d2h.counts, t, float(step.d2h));
    }
    // Device-to-device copies are counted apart from kernels and memsets (the analysis classes all three
    // as compute, as the device runs them): a trace with thousands of D2D copies says so. Which kind counts
    // on which lane is kOpKinds' lane column.
    auto countActive = [&](Lane &lane, auto counts) {
        std::vector<std::pair<qint64, int>> edges;
        for (const auto &op : rep().ops)
            if (op.hasGpu() && counts(op.kind) && (device < 0 || engine::deviceOf(*m_trace, op) == device)) {
                edges.emplace_back(op.gpuStartNs - m_originNs, +1);
                edges.emplace_back(op.gpuEndNs - m_originNs, -1);
            }
        std::sort(edges.begin(), edges.end()); // ends before starts at one instant
        int active = 0;
        for (const auto &[t, delta] : edges) {
            active += delta;
            pushStep(lane.counts, t, float(active));
        }
    };
    const auto onLane = [](engine::ActivityLane lane) {
        return [lane](engine::OpKind k) { return engine::opKindInfo(k).lane == lane; };
    };
    countActive(d2d, onLane(engine::ActivityLane::D2D));
    countActive(compute, onLane(engine::ActivityLane::Compute));
    // A derived lane with nothing to count is left out: "D2H copies, active: up to 0" tells nothing.
    for (Lane *lane : {&h2d, &d2h, &d2d, &compute}) {
        const bool empty = lane->counts.maxValue <= 0;
        if (!empty) {
            lane->subtitle = QStringLiteral("active: up to %1").arg(int(lane->counts.maxValue));
            lane->counts.finish();
            m_lanes.push_back(std::move(*lane));
        }
        // Which shared copy channel ran what, right under the counts of active copies.
        if (lane == &d2d) {
            for (Lane &channel : m_channelLanes)
                if (channel.device == device)
                    m_lanes.push_back(std::move(channel));
        }
    }
    if (device < 0)
        buildActivityLanes();

    Lane bw;
    bw.kind = LaneKind::Bandwidth;
    bw.device = device;
    bw.title = QStringLiteral("bandwidth");
    // Against the host link of this GPU, or of the fastest one.
    bw.peakGBs = m_linkPeakGBs;
    if (device >= 0) {
        bw.peakGBs = 0;
        for (const auto &d : m_trace->devices)
            if (d.index == device)
                bw.peakGBs = d.linkPeakGBs;
    }
    for (const auto &step : bandwidth) {
        const qint64 t = step.timeNs - m_originNs;
        pushStep(bw.counts, t, float(step.h2dGBs));
        pushStep(bw.d2hBandwidth, t, float(step.d2hGBs));
    }
    bw.subtitle = bw.peakGBs > 0 ? QStringLiteral("GB/s · link %1").arg(bw.peakGBs, 0, 'f', 1) : QStringLiteral("GB/s");
    bw.counts.finish();
    bw.d2hBandwidth.finish();
    if (bw.counts.maxValue > 0 || bw.d2hBandwidth.maxValue > 0) // no copies, no bandwidth to show
        m_lanes.push_back(std::move(bw));
}

// Unified memory from the driver's records, where there are any: one lane of page migrations (H2D
// and D2H, coloured as the copies of that direction), one of GPU page-fault groups.
void LaneModel::buildActivityLanes()
{
    const auto &activities = rep().activities;
    Lane migration, faults;
    migration.kind = LaneKind::Migration;
    migration.title = QStringLiteral("page migration");
    faults.kind = LaneKind::PageFaults;
    faults.title = QStringLiteral("GPU page faults");
    std::uint64_t h2dBytes = 0, d2hBytes = 0, faultCount = 0;
    for (std::size_t i = 0; i < activities.size(); ++i) {
        const engine::ActivityRecord &a = activities[i];
        Lane *lane = nullptr;
        engine::OpKind style = engine::OpKind::Other;
        switch (a.kind) {
        case engine::ActivityKind::MigrationH2D:
            lane = &migration;
            style = engine::OpKind::CopyH2D;
            h2dBytes += a.value;
            break;
        case engine::ActivityKind::MigrationD2H:
            lane = &migration;
            style = engine::OpKind::CopyD2H;
            d2hBytes += a.value;
            break;
        case engine::ActivityKind::GpuPageFaults:
            lane = &faults;
            style = engine::OpKind::CopyD2D; // reddish purple: apart from every kind a managed workload draws
            faultCount += a.value;
            break;
        default: break;
        }
        if (!lane)
            continue;
        lane->intervals.starts.push_back(a.startNs - m_originNs);
        lane->intervals.ends.push_back(a.endNs - m_originNs);
        lane->intervals.ops.push_back(qint32(i));
        lane->intervals.styles.push_back(std::uint8_t(style));
    }
    if (migration.intervals.size() > 0) {
        QStringList parts{QStringLiteral("%1 migrations").arg(migration.intervals.size())};
        if (h2dBytes)
            parts << QStringLiteral("%1 H2D").arg(formatBytes(h2dBytes));
        if (d2hBytes)
            parts << QStringLiteral("%1 D2H").arg(formatBytes(d2hBytes));
        migration.subtitle = parts.join(QStringLiteral(" · "));
        finishIntervals(migration.intervals);
        m_lanes.push_back(std::move(migration));
    }
    if (faults.intervals.size() > 0) {
        faults.subtitle = QStringLiteral("%1 faults in %2 group%3")
                              .arg(faultCount)
                              .arg(faults.intervals.size())
                              .arg(faults.intervals.size() == 1 ? QString() : QStringLiteral("s"));
        finishIntervals(faults.intervals);
        m_lanes.push_back(std::move(faults));
    }
}

void LaneModel::buildPeerLinkLanes()
{
    for (const engine::PeerLinkStats &link : engine::peerLinkStats(*m_trace, m_repetition)) {
        Lane lane;
        lane.kind = LaneKind::PeerLink;
        lane.peerSrc = link.src;
        lane.peerDst = link.dst;
        lane.peakGBs = link.peakGBs;
        lane.peerStaged = link.staged;
        const bool known = link.src >= 0 && link.dst >= 0;
        lane.title =
            known ? QStringLiteral("P2P GPU %1\u2192%2").arg(link.src).arg(link.dst) : QStringLiteral("P2P copies");
        // As the host link's lane says it ("GB/s · link 63.0"): "GB/s · NVLink 450 · 19.1 MiB"; copies
        // staged through the host: "GB/s · staged via host · host link 63 · 256 MiB".
        const QString type = link.staged                             ? QStringLiteral("host link")
                             : link.link == engine::LinkType::NvLink ? QStringLiteral("NVLink")
                             : link.link == engine::LinkType::Pcie   ? QStringLiteral("PCIe")
                                                                     : QString();
        QStringList parts{QStringLiteral("GB/s")};
        if (link.staged)
            parts << QStringLiteral("staged via host");
        if (link.peakGBs > 0)
            parts << QStringLiteral("%1 %2")
                         .arg(type.isEmpty() ? QStringLiteral("link") : type)
                         .arg(link.peakGBs, 0, 'f', 0);
        else if (!type.isEmpty())
            parts << type;
        else if (!known)
            parts << QStringLiteral("devices not recorded");
        parts << formatBytes(link.bytes);
        lane.subtitle = parts.join(QStringLiteral(" · "));
        for (const engine::PeerRateStep &step : engine::peerLinkProfile(*m_trace, m_repetition, link.src, link.dst))
            pushStep(lane.counts, step.timeNs - m_originNs, float(step.gbs));
        lane.counts.finish();
        m_lanes.push_back(std::move(lane));
    }
}

int LaneModel::streamLane(int stream) const
{
    return (stream >= 0 && std::size_t(stream) < m_streamLane.size()) ? m_streamLane[std::size_t(stream)] : -1;
}

int LaneModel::hostLane(int hostThread) const
{
    const auto slot = std::size_t(hostThread) + 1; // -1 (unknown thread): slot 0
    if (hostThread < -1 || slot >= m_hostLane.size())
        return -1;
    return m_hostLane[slot];
}

int LaneModel::intervalAt(int laneIndex, qint64 ns, qint64 toleranceNs, qint64 &bestDistance) const
{
    bestDistance = std::numeric_limits<qint64>::max();
    if (laneIndex < 0 || laneIndex >= laneCount())
        return -1;
    const auto &iv = m_lanes[std::size_t(laneIndex)].intervals;
    const auto [first, last] = iv.visible(ns - toleranceNs, ns + toleranceNs + 1);
    int best = -1;
    qint64 bestLength = std::numeric_limits<qint64>::max();
    for (std::size_t k = first; k < last; ++k) {
        const qint64 s = iv.starts[k], e = iv.ends[k];
        const qint64 distance = ns < s ? s - ns : (ns > e ? ns - e : 0);
        if (distance > toleranceNs)
            continue;
        // Among ops containing ns prefer the shortest (a nested or overlapping import); else the nearest.
        const qint64 length = e - s;
        if (distance < bestDistance || (distance == bestDistance && length < bestLength)) {
            best = iv.ops[k];
            bestDistance = distance;
            bestLength = length;
        }
    }
    return best;
}

int LaneModel::activityAt(int laneIndex, qint64 ns, qint64 toleranceNs) const
{
    if (laneIndex < 0 || laneIndex >= laneCount() || !isActivityLane(m_lanes[std::size_t(laneIndex)].kind))
        return -1;
    qint64 distance = 0;
    return intervalAt(laneIndex, ns, toleranceNs, distance);
}

int LaneModel::opAt(int laneIndex, qint64 ns, qint64 toleranceNs) const
{
    if (laneIndex < 0 || laneIndex >= laneCount())
        return -1;
    if (isRangeLane(m_lanes[std::size_t(laneIndex)].kind))
        return -1; // host ranges are not ops (rangeAt)
    if (isActivityLane(m_lanes[std::size_t(laneIndex)].kind)) {
        const int activity = activityAt(laneIndex, ns, toleranceNs);
        return activity >= 0 ? rep().activities[std::size_t(activity)].op : -1;
    }
    qint64 bestDistance = 0;
    const int best = intervalAt(laneIndex, ns, toleranceNs, bestDistance);
    // The pointer on an op's queued segment (not on any bar) picks that op: its tooltip says why it waited.
    if (bestDistance > 0) {
        const auto &q = m_lanes[std::size_t(laneIndex)].queued;
        const auto [qFirst, qLast] = q.visible(ns, ns + 1);
        for (std::size_t k = qFirst; k < qLast; ++k)
            if (q.starts[k] <= ns && ns < q.ends[k])
                return q.ops[k];
    }
    return best;
}

std::size_t LaneModel::memoryBytes() const
{
    std::size_t bytes = sizeof(*this);
    for (const auto &l : m_lanes) {
        bytes += sizeof(Lane);
        bytes += l.intervals.starts.capacity() * sizeof(qint64) + l.intervals.ends.capacity() * sizeof(qint64)
                 + l.intervals.maxEnds.capacity() * sizeof(qint64) + l.intervals.ops.capacity() * sizeof(qint32)
                 + l.intervals.styles.capacity();
        for (const StepSeries *s : {&l.counts, &l.d2hBandwidth})
            bytes += s->times.capacity() * sizeof(qint64)
                     + (s->values.capacity() + s->blockMin.capacity() + s->blockMax.capacity() + s->superMin.capacity()
                        + s->superMax.capacity())
                           * sizeof(float);
    }
    return bytes;
}

} // namespace streamscope::ui
