// Analysis over a trace: sweep lines over the GPU intervals of each repetition give unions per
// engine class, concurrency, overlap and the ideal bound; summaries keep median and spread.
#include "engine/analysis/analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "engine/analysis/copy_bytes.h"
#include "engine/analysis/device_stats.h"
#include "engine/analysis/op_intervals.h"
#include "engine/analysis/transfer_edges.h"

namespace streamscope::engine {

namespace {

// device >= 0: only the ops on that device's streams.
std::vector<TransferEdge<EngineClass>> edgesOf(const Trace &trace, int repetition, bool copiesOnly, int device = -1)
{
    if (repetition < 0 || repetition >= static_cast<int>(trace.repetitions.size()))
        return {};
    return transferEdges(trace.repetitions[repetition].ops, [&](const OpRecord &op) -> std::optional<EngineClass> {
        const EngineClass cls = engineClassOf(op);
        if (cls == EngineClass::None || op.gpuEndNs <= op.gpuStartNs)
            return std::nullopt;
        if (copiesOnly && cls != EngineClass::H2D && cls != EngineClass::D2H)
            return std::nullopt;
        if (device >= 0 && deviceOf(trace, op) != device)
            return std::nullopt;
        return cls;
    });
}
} // namespace

Spread spreadOf(std::vector<double> samples)
{
    Spread s;
    s.count = static_cast<int>(samples.size());
    if (samples.empty())
        return s;
    std::sort(samples.begin(), samples.end());
    s.min = samples.front();
    s.max = samples.back();
    const std::size_t n = samples.size();
    s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
    return s;
}

bool UnifiedMemoryStats::any() const
{
    return h2dMigrations + d2hMigrations + gpuFaultGroups + cpuPageFaults + thrashing + throttling + remoteMaps > 0;
}

UnifiedMemoryStats unifiedMemoryStats(const Repetition &rep, int op)
{
    UnifiedMemoryStats u;
    std::vector<std::pair<std::int64_t, std::int64_t>> h2d, d2h, faults;
    for (const ActivityRecord &a : rep.activities) {
        if (op >= 0 && a.op != op)
            continue;
        switch (a.kind) {
        case ActivityKind::MigrationH2D:
            u.h2dBytes = saturatingAdd(u.h2dBytes, a.value);
            u.h2dMigrations += 1;
            h2d.emplace_back(a.startNs, a.endNs);
            break;
        case ActivityKind::MigrationD2H:
            u.d2hBytes = saturatingAdd(u.d2hBytes, a.value);
            u.d2hMigrations += 1;
            d2h.emplace_back(a.startNs, a.endNs);
            break;
        case ActivityKind::GpuPageFaults:
            u.gpuFaultGroups += 1;
            u.gpuPageFaults = saturatingAdd(u.gpuPageFaults, a.value);
            faults.emplace_back(a.startNs, a.endNs);
            break;
        case ActivityKind::CpuPageFault: u.cpuPageFaults += 1; break;
        case ActivityKind::Thrashing: u.thrashing += 1; break;
        case ActivityKind::Throttling: u.throttling += 1; break;
        case ActivityKind::RemoteMap: u.remoteMaps += 1; break;
        case ActivityKind::Synchronization: break;
        }
    }
    u.h2dBusyNs = unionLength(std::move(h2d));
    u.d2hBusyNs = unionLength(std::move(d2h));
    u.gpuFaultNs = unionLength(std::move(faults));
    u.h2dGBs = u.h2dBusyNs > 0 ? static_cast<double>(u.h2dBytes) / static_cast<double>(u.h2dBusyNs) : 0;
    u.d2hGBs = u.d2hBusyNs > 0 ? static_cast<double>(u.d2hBytes) / static_cast<double>(u.d2hBusyNs) : 0;
    return u;
}

RepetitionStats analyzeRepetition(const Trace &trace, int repetition)
{
    RepetitionStats st;
    st.repetition = repetition;
    st.streams.resize(trace.streams.size());
    for (std::size_t i = 0; i < st.streams.size(); ++i)
        st.streams[i].stream = static_cast<int>(i);
    if (repetition < 0 || repetition >= static_cast<int>(trace.repetitions.size()))
        return st;
    const auto [lo, hi] = trace.extent(repetition);
    st.startNs = lo;
    st.endNs = hi;
    // Saturating, here and in the sums below: the readers keep times within engine/model/limits.h, but a
    // trace made in memory may not, and a wrapped makespan came out negative.
    st.makespanNs = saturatingSub(hi, lo);

    std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> perStream(trace.streams.size());
    std::int64_t gpuLo = std::numeric_limits<std::int64_t>::max(), gpuHi = std::numeric_limits<std::int64_t>::min();
    // A graph's launches are API calls too (their ops made none of their own).
    for (const HostRange &h : trace.repetitions[repetition].hostRanges)
        if (h.category == HostRangeCategory::Launch)
            st.hostCallNs = saturatingAdd(st.hostCallNs, h.durationNs());
    for (const OpRecord &op : trace.repetitions[repetition].ops) {
        if (op.hasHost() && op.kind != OpKind::HostWork) {
            st.hostCallNs = saturatingAdd(st.hostCallNs, op.hostDurationNs());
            if (isHostBlocking(op))
                st.hostBlockedNs = saturatingAdd(st.hostBlockedNs, op.hostDurationNs());
        }
        const EngineClass cls = engineClassOf(op);
        if (cls == EngineClass::None)
            continue;
        gpuLo = std::min(gpuLo, op.gpuStartNs);
        gpuHi = std::max(gpuHi, op.gpuEndNs);
        if (op.stream >= 0 && op.stream < static_cast<int>(perStream.size())) {
            perStream[op.stream].emplace_back(op.gpuStartNs, op.gpuEndNs);
            ++st.streams[op.stream].ops;
        }
        addCopyBytes(st, op.kind, op.bytes);
    }
    st.gpuSpanNs = gpuHi > gpuLo ? saturatingSub(gpuHi, gpuLo) : 0;
    for (std::size_t i = 0; i < perStream.size(); ++i) {
        st.streams[i].busyNs = unionLength(std::move(perStream[i]));
        st.streams[i].busyFraction =
            st.makespanNs > 0 ? static_cast<double>(st.streams[i].busyNs) / static_cast<double>(st.makespanNs) : 0;
    }

    // One sweep per GPU: active counts per class give the unions, the overlap and the concurrency. Each
    // GPU has its own engines and host link, so a copy on one GPU beside a kernel on another is no
    // overlap, and two GPUs' copies are two links busy (a trace of one stream per GPU overlaps nothing:
    // mixed, the two-GPU lesson read 2 % overlap and 95 GB/s over a 63 GB/s link). The figures add up
    // over the GPUs: busy times are link- or engine-time, the overlap share is of what could overlap.
    const std::vector<int> devices = streamDevices(trace);
    std::int64_t possible = 0, busiestEngine = 0;
    // Concurrency is a time: the union over the GPUs of when one of them ran two ops or more (summed, two
    // GPUs' concurrency read longer than the makespan).
    std::vector<std::pair<std::int64_t, std::int64_t>> concurrent;
    for (const int device : devices.size() >= 2 ? devices : std::vector<int>{-1}) {
        int active = 0, h2d = 0, d2h = 0, compute = 0;
        std::int64_t prev = 0, h2dBusy = 0, d2hBusy = 0, computeBusy = 0;
        for (const auto &e : edgesOf(trace, repetition, false, device)) {
            const std::int64_t dt = saturatingSub(e.t, prev);
            if (dt > 0) {
                const auto add = [dt](std::int64_t &sum) { sum = saturatingAdd(sum, dt); };
                if (active >= 2)
                    concurrent.emplace_back(prev, e.t);
                if (h2d > 0)
                    add(h2dBusy);
                if (d2h > 0)
                    add(d2hBusy);
                if (compute > 0)
                    add(computeBusy);
                if (compute > 0 && (h2d > 0 || d2h > 0))
                    add(st.copyComputeOverlapNs);
            }
            prev = e.t;
            active += e.delta;
            switch (e.tag) {
            case EngineClass::H2D: h2d += e.delta; break;
            case EngineClass::D2H: d2h += e.delta; break;
            case EngineClass::Compute: compute += e.delta; break;
            default: break;
            }
        }
        st.h2dBusyNs = saturatingAdd(st.h2dBusyNs, h2dBusy);
        st.d2hBusyNs = saturatingAdd(st.d2hBusyNs, d2hBusy);
        st.computeBusyNs = saturatingAdd(st.computeBusyNs, computeBusy);
        possible = saturatingAdd(possible, std::min(std::max(h2dBusy, d2hBusy), computeBusy));
        busiestEngine = std::max({busiestEngine, h2dBusy, d2hBusy, computeBusy});
    }
    st.concurrentNs = unionLength(std::move(concurrent));
    // D2D and P2P bandwidth over the union of those copies alone (they share classes with other work above).
    std::vector<std::pair<std::int64_t, std::int64_t>> d2dIntervals, p2pIntervals;
    for (const OpRecord &op : trace.repetitions[repetition].ops) {
        if (!op.hasGpu())
            continue;
        if (const ByteBucket bucket = opKindInfo(op.kind).bytes; bucket == ByteBucket::D2D)
            d2dIntervals.emplace_back(op.gpuStartNs, op.gpuEndNs);
        else if (bucket == ByteBucket::P2P)
            p2pIntervals.emplace_back(op.gpuStartNs, op.gpuEndNs);
    }
    const std::int64_t d2dBusy = unionLength(std::move(d2dIntervals));
    const std::int64_t p2pBusy = unionLength(std::move(p2pIntervals));
    st.overlapFraction =
        possible > 0 ? static_cast<double>(st.copyComputeOverlapNs) / static_cast<double>(possible) : 0;
    st.overlapFraction = std::min(st.overlapFraction, 1.0);
    // The ideal bound: the busiest single resource, as if all other work overlapped it. Each GPU's H2D and
    // D2H engines (its own host link) and SMs are resources of their own (the sweep above), and so is each
    // direction between two GPUs (its peer link's busy time): a trace of peer copies alone read 0 ns.
    st.peerLinks = peerLinkStats(trace, repetition);
    st.idealBoundNs = busiestEngine;
    for (const PeerLinkStats &l : st.peerLinks)
        st.idealBoundNs = std::max(st.idealBoundNs, l.busyNs);
    st.efficiency = st.makespanNs > 0 ? static_cast<double>(st.idealBoundNs) / static_cast<double>(st.makespanNs) : 0;
    auto gbs = [](std::uint64_t bytes, std::int64_t ns) {
        return ns > 0 ? static_cast<double>(bytes) / static_cast<double>(ns) : 0.0;
    };
    st.h2dGBs = gbs(st.h2dBytes, st.h2dBusyNs);
    st.d2hGBs = gbs(st.d2hBytes, st.d2hBusyNs);
    st.d2dGBs = gbs(st.d2dBytes, d2dBusy);
    st.p2pGBs = gbs(st.p2pBytes, p2pBusy);
    st.unifiedMemory = unifiedMemoryStats(trace.repetitions[repetition]);
    st.devices = deviceStats(trace, repetition);
    return st;
}

TraceSummary summarize(const Trace &trace)
{
    TraceSummary s;
    const int n = static_cast<int>(trace.repetitions.size());
    std::vector<double> makespan, gpuSpan, concurrent, overlap, bound, eff, h2d, d2h, d2d, p2p, hostCall, hostBlocked;
    std::vector<std::vector<double>> busy(trace.streams.size());
    std::vector<double> umH2DBytes, umD2HBytes, umH2DGBs, umD2HGBs, umFaults, umFaultNs;
    for (int r = 0; r < n; ++r) {
        RepetitionStats st = analyzeRepetition(trace, r);
        makespan.push_back(static_cast<double>(st.makespanNs));
        gpuSpan.push_back(static_cast<double>(st.gpuSpanNs));
        concurrent.push_back(static_cast<double>(st.concurrentNs));
        overlap.push_back(st.overlapFraction);
        bound.push_back(static_cast<double>(st.idealBoundNs));
        eff.push_back(st.efficiency);
        // Bandwidth spreads only over repetitions that moved bytes in that direction.
        if (st.h2dBytes)
            h2d.push_back(st.h2dGBs);
        if (st.d2hBytes)
            d2h.push_back(st.d2hGBs);
        if (st.d2dBytes)
            d2d.push_back(st.d2dGBs);
        if (st.p2pBytes)
            p2p.push_back(st.p2pGBs);
        hostCall.push_back(static_cast<double>(st.hostCallNs));
        hostBlocked.push_back(static_cast<double>(st.hostBlockedNs));
        for (std::size_t i = 0; i < busy.size(); ++i)
            busy[i].push_back(st.streams[i].busyFraction);
        if (const UnifiedMemoryStats &u = st.unifiedMemory; u.any()) {
            umH2DBytes.push_back(static_cast<double>(u.h2dBytes));
            umD2HBytes.push_back(static_cast<double>(u.d2hBytes));
            if (u.h2dBytes)
                umH2DGBs.push_back(u.h2dGBs);
            if (u.d2hBytes)
                umD2HGBs.push_back(u.d2hGBs);
            umFaults.push_back(static_cast<double>(u.gpuPageFaults));
            umFaultNs.push_back(static_cast<double>(u.gpuFaultNs));
        }
        s.repetitions.push_back(std::move(st));
    }
    s.makespanNs = spreadOf(makespan);
    s.gpuSpanNs = spreadOf(gpuSpan);
    s.concurrentNs = spreadOf(concurrent);
    s.overlapFraction = spreadOf(overlap);
    s.idealBoundNs = spreadOf(bound);
    s.efficiency = spreadOf(eff);
    s.h2dGBs = spreadOf(h2d);
    s.d2hGBs = spreadOf(d2h);
    s.d2dGBs = spreadOf(d2d);
    s.p2pGBs = spreadOf(p2p);
    s.hostCallNs = spreadOf(hostCall);
    s.hostBlockedNs = spreadOf(hostBlocked);
    for (auto &b : busy)
        s.streamBusyFraction.push_back(spreadOf(std::move(b)));
    s.umH2DBytes = spreadOf(std::move(umH2DBytes));
    s.umD2HBytes = spreadOf(std::move(umD2HBytes));
    s.umH2DGBs = spreadOf(std::move(umH2DGBs));
    s.umD2HGBs = spreadOf(std::move(umD2HGBs));
    s.umGpuPageFaults = spreadOf(std::move(umFaults));
    s.umGpuFaultNs = spreadOf(std::move(umFaultNs));
    double best = std::numeric_limits<double>::max();
    for (int r = 0; r < n; ++r) {
        const double d = std::abs(makespan[r] - s.makespanNs.median);
        if (d < best) {
            best = d;
            s.medianRepetition = r;
        }
    }
    return s;
}

std::vector<ActivityStep> activityProfile(const Trace &trace, int repetition, int device)
{
    std::vector<ActivityStep> steps;
    ActivityStep cur;
    for (const auto &e : edgesOf(trace, repetition, false, device)) {
        if (!steps.empty() && steps.back().timeNs == e.t)
            steps.pop_back(); // several edges at one instant: keep the state after all of them
        switch (e.tag) {
        case EngineClass::H2D: cur.h2d += e.delta; break;
        case EngineClass::D2H: cur.d2h += e.delta; break;
        case EngineClass::Compute: cur.compute += e.delta; break;
        default: cur.other += e.delta; break;
        }
        cur.timeNs = e.t;
        steps.push_back(cur);
    }
    return steps;
}

std::vector<BandwidthStep> bandwidthProfile(const Trace &trace, int repetition, int device)
{
    std::vector<BandwidthStep> steps;
    BandwidthStep cur;
    for (const auto &e : edgesOf(trace, repetition, true, device)) {
        if (!steps.empty() && steps.back().timeNs == e.t)
            steps.pop_back();
        double &v = e.tag == EngineClass::H2D ? cur.h2dGBs : cur.d2hGBs;
        v += e.delta * e.gbs;
        if (std::abs(v) < 1e-9)
            v = 0; // no drift below zero from floating-point sums
        cur.timeNs = e.t;
        steps.push_back(cur);
    }
    return steps;
}

std::vector<EventTimingError> eventTimingErrors(const Trace &trace)
{
    std::vector<EventTimingError> result;
    if (trace.timing != TimingSource::Cupti)
        return result;
    struct Samples {
        std::vector<double> excess, fraction, queued;
    };
    std::map<OpKind, Samples> byKind;
    for (const Repetition &rep : trace.repetitions)
        for (const OpRecord &op : rep.ops) {
            if (!isGpuWork(op.kind) || !op.hasGpu() || op.eventDurationNs() <= 0 || op.executionFromEvents())
                continue;
            const double exec = double(op.gpuDurationNs());
            const double excess = double(op.eventDurationNs()) - exec;
            Samples &s = byKind[op.kind];
            s.excess.push_back(excess);
            if (exec > 0)
                s.fraction.push_back(excess / exec);
            s.queued.push_back(double(op.queuedDurationNs()));
        }
    for (auto &[kind, s] : byKind) {
        EventTimingError e;
        e.kind = kind;
        e.excessNs = spreadOf(std::move(s.excess));
        e.excessFraction = spreadOf(std::move(s.fraction));
        e.queuedNs = spreadOf(std::move(s.queued));
        result.push_back(e);
    }
    return result;
}

} // namespace streamscope::engine
