// compareWithNsight(): repetition pairing, per-lane op matching and the per-kind delta summaries.
#include "engine/analysis/nsight_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "engine/analysis/analysis.h"
#include "engine/analysis/op_alignment.h"
#include "engine/model/errors.h"
#include "engine/model/op_kinds.h"

namespace streamscope::engine {

namespace {

const std::string kHostLane = "host";

// A lane: a stream (by name, which both tools give it) or the host lane. Kept apart by the flag, so that
// a stream the workload named "host" is its own lane and not the host calls' (it was counted twice).
// Streams of several GPUs are told apart by their device as well as their name: an import names them
// "GPU 1 gpu1 pipeline" (import_common.h), the run that NVTX named them for "gpu1 pipeline" on device 1.
struct LaneKey {
    bool host = false;
    int device = -1;
    std::string name;
    auto tie() const { return std::tie(host, device, name); }
    bool operator<(const LaneKey &o) const { return tie() < o.tie(); } // the host lane sorts last
    bool operator==(const LaneKey &o) const { return tie() == o.tie(); }
};

using Lanes = std::map<LaneKey, std::vector<const OpRecord *>>;

// A stream's name without the "GPU <device> " an importer puts before it in a trace of several GPUs.
std::string baseName(const StreamInfo &s)
{
    const std::string prefix = "GPU " + std::to_string(s.device) + " ";
    return s.name.size() > prefix.size() && s.name.compare(0, prefix.size(), prefix) == 0 ? s.name.substr(prefix.size())
                                                                                          : s.name;
}

// GPU ops on their stream's lane, host-only ops (including syncs that name a stream) on the host lane:
// StreamScope stores a stream synchronisation without a stream, Nsight ties it to the stream waited on.
LaneKey laneOf(const Trace &t, const OpRecord &op)
{
    const bool onStream = op.hasGpu() && op.stream >= 0 && op.stream < static_cast<int>(t.streams.size());
    if (!onStream)
        return LaneKey{true, -1, kHostLane};
    const StreamInfo &s = t.streams[static_cast<std::size_t>(op.stream)];
    return LaneKey{false, s.device, baseName(s)};
}

Lanes lanesOf(const Trace &t, const Repetition &rep)
{
    Lanes lanes;
    for (const auto &op : rep.ops)
        lanes[laneOf(t, op)].push_back(&op);
    return lanes;
}

// Why Nsight shows an op on another lane than the stream it was issued on, as far as its kind says.
std::string laneNoteOf(const OpRecord &op)
{
    if (isCopy(op.kind) && op.api == CopyApi::Sync)
        return "a synchronous cudaMemcpy runs on the legacy default stream whatever stream the workload named";
    return "Nsight's record names another stream than the one it was issued on";
}

// The repetition's first GPU start (its first host call when it ran nothing on the GPU).
std::int64_t originOf(const Repetition &rep)
{
    std::int64_t gpu = std::numeric_limits<std::int64_t>::max(), host = gpu;
    for (const auto &op : rep.ops) {
        if (op.hasGpu())
            gpu = std::min(gpu, op.gpuStartNs);
        if (op.hasHost())
            host = std::min(host, op.hostStartNs);
    }
    return gpu != std::numeric_limits<std::int64_t>::max() ? gpu : host;
}

std::int64_t startOf(const OpRecord &op)
{
    return op.hasGpu() ? op.gpuStartNs : op.hostStartNs;
}
std::int64_t durationOf(const OpRecord &op)
{
    return op.hasGpu() ? op.gpuDurationNs() : op.hostDurationNs();
}
bool hasTime(const OpRecord &op)
{
    return op.hasGpu() || op.hasHost();
}

double median(std::vector<double> v)
{
    return spreadOf(std::move(v)).median;
}

struct Samples {
    std::vector<double> absDuration, absDurationPct, absStart;
    void add(double durationDelta, double ownDuration, double startDelta)
    {
        absDuration.push_back(std::abs(durationDelta));
        if (ownDuration > 0)
            absDurationPct.push_back(100.0 * std::abs(durationDelta) / ownDuration);
        absStart.push_back(std::abs(startDelta));
    }
    NsightDeltaSummary summary(std::string label) const
    {
        NsightDeltaSummary s;
        s.label = std::move(label);
        s.samples = static_cast<int>(absDuration.size());
        const Spread duration = spreadOf(absDuration), durationPct = spreadOf(absDurationPct),
                     start = spreadOf(absStart);
        s.medianAbsDurationDeltaNs = duration.median;
        s.maxAbsDurationDeltaNs = duration.max;
        s.medianAbsDurationDeltaPct = durationPct.median;
        s.maxAbsDurationDeltaPct = durationPct.max;
        s.medianAbsStartDeltaNs = start.median;
        s.maxAbsStartDeltaNs = start.max;
        return s;
    }
};

struct SlotAccumulator {
    NsightOpDelta delta;
    int position = 0; // first position seen in the lane, for the output order
    std::vector<double> own, nsight, durationDelta, startDelta;
};

using RepetitionPairs = std::vector<std::pair<const Repetition *, const Repetition *>>;

// Pairs of repetitions: by index when both traces number them alike, else by position.
RepetitionPairs pairRepetitions(const Trace &own, const Trace &nsight)
{
    RepetitionPairs pairs;
    std::unordered_map<int, const Repetition *> nsightByIndex;
    for (const auto &r : nsight.repetitions)
        nsightByIndex.emplace(r.index, &r);
    for (const auto &r : own.repetitions)
        if (auto it = nsightByIndex.find(r.index); it != nsightByIndex.end())
            pairs.emplace_back(&r, it->second);
    if (pairs.size() != own.repetitions.size() || pairs.size() != nsight.repetitions.size()) {
        pairs.clear();
        for (std::size_t i = 0; i < std::min(own.repetitions.size(), nsight.repetitions.size()); ++i)
            pairs.emplace_back(&own.repetitions[i], &nsight.repetitions[i]);
    }

    return pairs;
}

} // namespace

NsightComparison compareWithNsight(const Trace &own, const Trace &nsight, NsightPairing pairing)
{
    const bool separate = pairing == NsightPairing::SeparateRuns;
    if (own.repetitions.empty())
        throw Error(ErrorKind::InvalidInput,
                    "nsight comparison: the StreamScope trace '" + own.title + "' has no repetitions");
    if (nsight.repetitions.empty())
        throw Error(ErrorKind::InvalidInput,
                    "nsight comparison: the Nsight trace '" + nsight.title + "' has no repetitions");

    const auto pairs = pairRepetitions(own, nsight);

    NsightComparison result;
    result.repetitions = static_cast<int>(pairs.size());
    // Slots keyed by lane, then (name, occurrence) of the StreamScope op.
    std::map<LaneKey, std::map<std::pair<std::string, int>, SlotAccumulator>> slots;
    std::map<OpKind, Samples> byKind;
    Samples overall;

    for (const auto &[repA, repB] : pairs) {
        const std::int64_t originA = originOf(*repA), originB = originOf(*repB);
        // One alignment over both sides' lanes (engine/analysis/op_alignment.h): by name in the lane, then
        // by name across lanes (a synchronous cudaMemcpy issued "on" a workload stream runs on the legacy
        // default stream, where Nsight shows it), then what is left of a lane in order (ops the tools name
        // differently). Lanes are numbered in name order on both sides.
        const Lanes lanesA = lanesOf(own, *repA), lanesB = lanesOf(nsight, *repB);
        std::map<LaneKey, int> laneNumber;
        for (const Lanes *lanes : {&lanesA, &lanesB})
            for (const auto &[lane, ops] : *lanes)
                laneNumber.emplace(lane, 0);
        int number = 0;
        for (auto &[lane, n] : laneNumber)
            n = number++;
        std::vector<AlignItem> itemsA, itemsB;
        std::vector<const OpRecord *> recordsA, recordsB;
        std::vector<LaneKey> laneOfA;
        for (const auto &[lane, ops] : lanesA)
            for (const OpRecord *op : ops) {
                itemsA.push_back({laneNumber.at(lane), own.name(*op), op->kind});
                recordsA.push_back(op);
                laneOfA.push_back(lane);
            }
        for (const auto &[lane, ops] : lanesB)
            for (const OpRecord *op : ops) {
                itemsB.push_back({laneNumber.at(lane), nsight.name(*op), op->kind});
                recordsB.push_back(op);
            }
        const OpAlignment alignment = alignOps(itemsA, itemsB, {true, OrderFallback::InLane});
        result.unmatchedNsight +=
            static_cast<int>(std::count(alignment.partnerOfB.begin(), alignment.partnerOfB.end(), -1));
        std::map<LaneKey, int> positionInLane;
        for (std::size_t k = 0; k < itemsA.size(); ++k) {
            const LaneKey &lane = laneOfA[k];
            const int i = positionInLane[lane]++;
            const OpAlignment::Match &m = alignment.a[k];
            if (m.b < 0) {
                ++result.unmatchedOwn;
                continue;
            }
            const bool byOrder = m.method == MatchMethod::ByOrder;
            const OpRecord &a = *recordsA[k], &b = *recordsB[static_cast<std::size_t>(m.b)];
            ++result.matched;
            result.matchedByOrder += byOrder ? 1 : 0;
            result.matchedAcrossStreams += m.acrossLanes ? 1 : 0;
            SlotAccumulator &slot = slots[lane][{own.name(a), m.occurrence}];
            if (slot.delta.name.empty()) {
                slot.delta.lane = lane.name;
                slot.delta.name = own.name(a);
                slot.delta.nsightName = nsight.name(b);
                slot.delta.nsightLane = laneOf(nsight, b).name;
                if (!(laneOf(nsight, b) == lane))
                    slot.delta.laneNote = laneNoteOf(a);
                slot.delta.kind = a.kind;
                slot.delta.occurrence = m.occurrence;
                slot.position = i;
            }
            slot.delta.byOrder = slot.delta.byOrder || byOrder;
            if (!hasTime(a) || !hasTime(b))
                continue;
            const double durA = static_cast<double>(durationOf(a)), durB = static_cast<double>(durationOf(b));
            const double startDelta = static_cast<double>((startOf(b) - originB) - (startOf(a) - originA));
            slot.own.push_back(durA);
            slot.nsight.push_back(durB);
            slot.durationDelta.push_back(durB - durA);
            slot.startDelta.push_back(startDelta);
            if (!separate) {
                byKind[a.kind].add(durB - durA, durA, startDelta);
                overall.add(durB - durA, durA, startDelta);
            }
        }
    }

    // Lanes in the StreamScope trace's stream order, the host lane last (it sorts last among the keys).
    std::vector<LaneKey> laneOrder;
    for (const auto &s : own.streams) {
        const LaneKey key{false, s.device, baseName(s)};
        if (slots.count(key) && std::find(laneOrder.begin(), laneOrder.end(), key) == laneOrder.end())
            laneOrder.push_back(key);
    }
    for (const auto &[lane, unused] : slots)
        if (std::find(laneOrder.begin(), laneOrder.end(), lane) == laneOrder.end())
            laneOrder.push_back(lane);
    for (const auto &lane : laneOrder) {
        std::vector<SlotAccumulator *> ordered;
        for (auto &[key, slot] : slots[lane])
            ordered.push_back(&slot);
        std::stable_sort(ordered.begin(), ordered.end(),
                         [](const SlotAccumulator *x, const SlotAccumulator *y) { return x->position < y->position; });
        for (SlotAccumulator *slot : ordered) {
            NsightOpDelta d = slot->delta;
            d.samples = static_cast<int>(slot->durationDelta.size());
            d.ownDurationNs = median(slot->own);
            d.nsightDurationNs = median(slot->nsight);
            d.durationDeltaNs = median(slot->durationDelta);
            d.startDeltaNs = median(slot->startDelta);
            if (separate && d.samples > 0) {
                // Two runs: the medians are what can be compared, not one repetition with another.
                d.durationDeltaNs = d.nsightDurationNs - d.ownDurationNs;
                byKind[d.kind].add(d.durationDeltaNs, d.ownDurationNs, d.startDeltaNs);
                overall.add(d.durationDeltaNs, d.ownDurationNs, d.startDeltaNs);
            }
            const bool timedWork = opKindInfo(d.kind).record != GpuRecord::None; // a kernel, memcpy or memset
            if (timedWork && d.samples > 0 && d.ownDurationNs >= 20'000) {
                ++result.targetOps;
                const double allowed = std::max(1'000.0, 0.02 * d.ownDurationNs);
                const double delta = d.nsightDurationNs - d.ownDurationNs;
                if (std::abs(delta) <= allowed) {
                    ++result.targetMet;
                } else {
                    char buf[160];
                    std::snprintf(buf, sizeof buf, ": %.1f us vs Nsight %.1f us (%+.1f %%)", d.ownDurationNs / 1e3,
                                  d.nsightDurationNs / 1e3, 100.0 * delta / d.ownDurationNs);
                    result.targetMisses.push_back(d.lane + ": " + d.name + buf);
                }
            }
            result.ops.push_back(std::move(d));
        }
    }
    for (const auto &[kind, samples] : byKind)
        result.kinds.push_back(samples.summary(std::string(toString(kind))));
    result.overall = overall.summary("all");
    return result;
}

} // namespace streamscope::engine
