// diffTraces(): per-stream op slots of each trace, stream pairing, op alignment and deltas.
#include "engine/analysis/trace_diff.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include "engine/analysis/op_alignment.h"
#include "engine/model/errors.h"

namespace streamscope::engine {

namespace {

constexpr int kHostLane = -1; // host-only ops (no stream) form one more lane on each side

struct Lane {
    int stream = kHostLane;
    std::string name;
    std::vector<DiffOp> ops;
    double firstStart = std::numeric_limits<double>::max();
};

std::string streamName(const Trace &t, int stream)
{
    if (stream >= 0 && stream < static_cast<int>(t.streams.size()))
        return t.streams[stream].name;
    return "host";
}

// The reference repetition's ops per lane, with their values from every repetition (or only the
// reference one). An op of another repetition counts for a slot when its lane position, name and
// kind agree, so an import whose repetitions differ slightly does not mix different ops.
std::vector<Lane> lanesOf(const Trace &t, int reference, DiffStatistic statistic)
{
    std::map<int, Lane> lanes;
    for (const auto &op : t.repetitions[reference].ops) {
        Lane &lane = lanes[op.stream < 0 ? kHostLane : op.stream];
        DiffOp d;
        d.stream = op.stream < 0 ? kHostLane : op.stream;
        d.position = static_cast<int>(lane.ops.size());
        d.name = t.name(op);
        d.kind = op.kind;
        d.bytes = op.bytes;
        lane.ops.push_back(std::move(d));
    }
    struct Samples {
        std::vector<double> start, duration, gbps;
    };
    std::map<int, std::vector<Samples>> samples;
    for (auto &[stream, lane] : lanes) {
        lane.stream = stream;
        lane.name = streamName(t, stream);
        samples[stream].resize(lane.ops.size());
    }
    for (int r = 0; r < static_cast<int>(t.repetitions.size()); ++r) {
        if (statistic == DiffStatistic::MedianRepetition && r != reference)
            continue;
        const std::int64_t origin = t.extent(r).first;
        std::map<int, int> position;
        for (const auto &op : t.repetitions[r].ops) {
            const int stream = op.stream < 0 ? kHostLane : op.stream;
            const auto lane = lanes.find(stream);
            const int k = position[stream]++;
            if (lane == lanes.end() || k >= static_cast<int>(lane->second.ops.size()))
                continue;
            const DiffOp &slot = lane->second.ops[k];
            if (slot.kind != op.kind || slot.name != t.name(op))
                continue;
            Samples &s = samples[stream][k];
            const std::int64_t t0 = op.hasGpu() ? op.gpuStartNs : op.hostStartNs;
            if (t0 == kNoTime)
                continue;
            s.start.push_back(static_cast<double>(t0 - origin));
            s.duration.push_back(static_cast<double>(op.hasGpu() ? op.gpuDurationNs() : op.hostDurationNs()));
            if (isCopy(op.kind) && op.gbPerSecond() > 0)
                s.gbps.push_back(op.gbPerSecond());
        }
    }
    std::vector<Lane> out;
    for (auto &[stream, lane] : lanes) {
        for (std::size_t k = 0; k < lane.ops.size(); ++k) {
            Samples &s = samples[stream][k];
            DiffOp &d = lane.ops[k];
            d.hasTime = !s.start.empty();
            d.startNs = spreadOf(std::move(s.start));
            d.durationNs = spreadOf(std::move(s.duration));
            d.gbPerSecond = spreadOf(std::move(s.gbps));
            if (d.hasTime)
                lane.firstStart = std::min(lane.firstStart, d.startNs.median);
        }
        out.push_back(std::move(lane));
    }
    // Streams in trace order, the host lane last.
    std::stable_sort(out.begin(), out.end(), [](const Lane &x, const Lane &y) {
        return (x.stream < 0 ? std::numeric_limits<int>::max() : x.stream)
               < (y.stream < 0 ? std::numeric_limits<int>::max() : y.stream);
    });
    return out;
}

Spread busyOf(const TraceSummary &s, int stream)
{
    std::vector<double> v;
    if (stream < 0)
        return {};
    for (const auto &rep : s.repetitions)
        if (stream < static_cast<int>(rep.streams.size()))
            v.push_back(static_cast<double>(rep.streams[stream].busyNs));
    return spreadOf(std::move(v));
}

void addStats(const std::vector<double> &values, double &mean, double &median, double &max)
{
    if (values.empty())
        return;
    double sum = 0;
    for (double v : values) {
        sum += v;
        max = std::max(max, v);
    }
    mean = sum / static_cast<double>(values.size());
    median = spreadOf(values).median;
}

} // namespace

std::string normalizeOpName(std::string_view name)
{
    std::string s(name);
    // "H2D 4 MiB pinned [c0]" -> "H2D 4 MiB pinned": the chunk tag is StreamScope's own.
    if (!s.empty() && s.back() == ']')
        if (const auto open = s.rfind(" ["); open != std::string::npos)
            s.erase(open);
    // "scale(float*, int)" -> "scale": profilers may keep the signature.
    if (const auto paren = s.find('('); paren != std::string::npos && paren > 0)
        s.erase(paren);
    std::string out;
    for (char c : s) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            if (!out.empty() && out.back() != ' ')
                out += ' ';
        } else {
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

namespace {

// Which lane of B each lane of A is paired with (-1: none), and how.
struct LanePairing {
    std::vector<int> pairOfA, pairOfB;
    std::vector<MatchMethod> methodOfA;
};

LanePairing pairLanes(const std::vector<Lane> &la, const std::vector<Lane> &lb, bool fallbackToOrder)
{
    LanePairing p{std::vector<int>(la.size(), -1), std::vector<int>(lb.size(), -1),
                  std::vector<MatchMethod>(la.size(), MatchMethod::ByName)};
    std::vector<int> &pairOfA = p.pairOfA, &pairOfB = p.pairOfB;
    std::vector<MatchMethod> &methodOfA = p.methodOfA;
    for (std::size_t i = 0; i < la.size(); ++i)
        for (std::size_t j = 0; j < lb.size(); ++j)
            if (pairOfB[j] < 0 && (la[i].stream < 0) == (lb[j].stream < 0) && la[i].name == lb[j].name) {
                pairOfA[i] = static_cast<int>(j);
                pairOfB[j] = static_cast<int>(i);
                break;
            }
    if (fallbackToOrder) {
        std::vector<int> restA, restB;
        for (std::size_t i = 0; i < la.size(); ++i)
            if (pairOfA[i] < 0 && la[i].stream >= 0 && !la[i].ops.empty())
                restA.push_back(static_cast<int>(i));
        for (std::size_t j = 0; j < lb.size(); ++j)
            if (pairOfB[j] < 0 && lb[j].stream >= 0 && !lb[j].ops.empty())
                restB.push_back(static_cast<int>(j));
        auto byFirst = [](const std::vector<Lane> &l) {
            return [&l](int x, int y) { return l[x].firstStart < l[y].firstStart; };
        };
        std::stable_sort(restA.begin(), restA.end(), byFirst(la));
        std::stable_sort(restB.begin(), restB.end(), byFirst(lb));
        for (std::size_t k = 0; k < std::min(restA.size(), restB.size()); ++k) {
            pairOfA[restA[k]] = restB[k];
            pairOfB[restB[k]] = restA[k];
            methodOfA[restA[k]] = MatchMethod::ByOrder;
        }
    }

    return p;
}

} // namespace

TraceDiff diffTraces(const Trace &a, const Trace &b, const DiffOptions &options)
{
    for (const Trace *t : {&a, &b})
        if (t->repetitions.empty())
            throw Error(ErrorKind::InvalidInput,
                        (t->sourcePath.empty() ? (t->title.empty() ? std::string("a trace") : t->title) : t->sourcePath)
                            + ": has no repetitions to compare");
    const TraceSummary sa = summarize(a);
    const TraceSummary sb = summarize(b);
    std::vector<Lane> la = lanesOf(a, sa.medianRepetition, options.statistic);
    std::vector<Lane> lb = lanesOf(b, sb.medianRepetition, options.statistic);
    auto norm = [&](const std::string &n) { return options.normalizeName ? options.normalizeName(n) : n; };

    TraceDiff diff;
    // Streams: by name first; the rest with ops, in order of their first op, by position.
    const LanePairing lanes = pairLanes(la, lb, options.fallbackToOrder);
    const std::vector<int> &pairOfA = lanes.pairOfA, &pairOfB = lanes.pairOfB;
    const std::vector<MatchMethod> &methodOfA = lanes.methodOfA;

    // Ops: one alignment over every lane (engine/analysis/op_alignment.h). A's lane i is lane number i,
    // the B lane paired with it too; a B lane without a partner gets a number of its own.
    std::vector<AlignItem> itemsA, itemsB;
    std::vector<std::size_t> firstA(la.size()), firstB(lb.size());
    for (std::size_t i = 0; i < la.size(); ++i) {
        firstA[i] = itemsA.size();
        for (const auto &op : la[i].ops)
            itemsA.push_back({static_cast<int>(i), norm(op.name), op.kind, op.bytes});
    }
    for (std::size_t j = 0; j < lb.size(); ++j) {
        firstB[j] = itemsB.size();
        const int lane = pairOfB[j] >= 0 ? pairOfB[j] : static_cast<int>(la.size() + j);
        for (const auto &op : lb[j].ops)
            itemsB.push_back({lane, norm(op.name), op.kind, op.bytes});
    }
    const OpAlignment alignment = alignOps(
        itemsA, itemsB, {false, options.fallbackToOrder ? OrderFallback::InLaneSameIdentity : OrderFallback::None});

    std::vector<double> absStart, absDuration;
    auto unmatched = [&](char side, const Lane &lane, const DiffOp &op) {
        diff.unmatched.push_back({side, lane.name, op});
        (side == 'A' ? diff.summary.unmatchedA : diff.summary.unmatchedB)++;
    };
    std::vector<UnmatchedOp> unmatchedB;
    for (std::size_t i = 0; i < la.size(); ++i) {
        const Lane &A = la[i];
        StreamPair pair;
        pair.a = A.stream;
        pair.nameA = A.name;
        pair.opsA = static_cast<int>(A.ops.size());
        pair.busyA = busyOf(sa, A.stream);
        if (pairOfA[i] < 0) {
            diff.streams.push_back(pair);
            for (const auto &op : A.ops)
                unmatched('A', A, op);
            continue;
        }
        const Lane &B = lb[pairOfA[i]];
        pair.b = B.stream;
        pair.nameB = B.name;
        pair.method = methodOfA[i];
        pair.opsB = static_cast<int>(B.ops.size());
        pair.busyB = busyOf(sb, B.stream);
        pair.busy = compareSpreads(pair.busyA, pair.busyB);
        diff.streams.push_back(pair);

        std::vector<int> matchOfA(A.ops.size(), -1), matchOfB(B.ops.size(), -1);
        std::vector<MatchMethod> how(A.ops.size(), MatchMethod::ByName);
        for (std::size_t k = 0; k < A.ops.size(); ++k) {
            const OpAlignment::Match &m = alignment.a[firstA[i] + k];
            if (m.b < 0)
                continue;
            matchOfA[k] = m.b - static_cast<int>(firstB[static_cast<std::size_t>(pairOfA[i])]);
            matchOfB[static_cast<std::size_t>(matchOfA[k])] = static_cast<int>(k);
            how[k] = m.method;
        }
        for (std::size_t k = 0; k < A.ops.size(); ++k) {
            if (matchOfA[k] < 0) {
                unmatched('A', A, A.ops[k]);
                continue;
            }
            OpDelta d;
            d.stream = A.name;
            d.a = A.ops[k];
            d.b = B.ops[matchOfA[k]];
            d.method = how[k];
            ++diff.summary.matched;
            if (d.method == MatchMethod::ByOrder)
                ++diff.summary.matchedByOrder;
            if (d.a.hasTime && d.b.hasTime) {
                d.startDeltaNs = d.b.startNs.median - d.a.startNs.median;
                d.durationDeltaNs = d.b.durationNs.median - d.a.durationNs.median;
                d.duration = compareSpreads(d.a.durationNs, d.b.durationNs);
                absStart.push_back(std::abs(d.startDeltaNs));
                absDuration.push_back(std::abs(d.durationDeltaNs));
            }
            if (d.a.gbPerSecond.count && d.b.gbPerSecond.count)
                d.gbpsDelta = d.b.gbPerSecond.median - d.a.gbPerSecond.median;
            diff.ops.push_back(std::move(d));
        }
        for (std::size_t k = 0; k < B.ops.size(); ++k)
            if (matchOfB[k] < 0)
                unmatchedB.push_back({'B', B.name, B.ops[k]});
    }
    for (std::size_t j = 0; j < lb.size(); ++j) {
        if (pairOfB[j] >= 0)
            continue;
        StreamPair pair;
        pair.b = lb[j].stream;
        pair.nameB = lb[j].name;
        pair.opsB = static_cast<int>(lb[j].ops.size());
        pair.busyB = busyOf(sb, lb[j].stream);
        diff.streams.push_back(pair);
        for (const auto &op : lb[j].ops)
            unmatchedB.push_back({'B', lb[j].name, op});
    }
    for (auto &u : unmatchedB) {
        diff.unmatched.push_back(std::move(u));
        ++diff.summary.unmatchedB;
    }

    DiffSummary &s = diff.summary;
    s.makespanA = sa.makespanNs;
    s.makespanB = sb.makespanNs;
    s.makespan = compareSpreads(sa.makespanNs, sb.makespanNs);
    s.makespanDeltaNs = sb.makespanNs.median - sa.makespanNs.median;
    s.timed = static_cast<int>(absStart.size());
    addStats(absStart, s.meanAbsStartDeltaNs, s.medianAbsStartDeltaNs, s.maxAbsStartDeltaNs);
    addStats(absDuration, s.meanAbsDurationDeltaNs, s.medianAbsDurationDeltaNs, s.maxAbsDurationDeltaNs);
    return diff;
}

} // namespace streamscope::engine
