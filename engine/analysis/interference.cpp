#include "engine/analysis/interference.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "engine/model/units.h"

namespace streamscope::engine {

namespace {

// Past this many ops in a repetition the culprits are not looked for (each op against each other op of its
// device that starts before it ends): solo baselines are for workloads a person wrote, not for imports.
constexpr std::size_t kMaxOpsForCulprits = 20000;

int opDevice(const Trace &trace, const OpRecord &op)
{
    return op.stream >= 0 && std::size_t(op.stream) < trace.streams.size()
               ? trace.streams[std::size_t(op.stream)].device
               : -1;
}

// Whether two ops can slow each other: they run on one GPU (a peer copy runs on both of its GPUs).
bool shareDevice(const Trace &trace, const OpRecord &a, const OpRecord &b)
{
    const auto devices = [&](const OpRecord &op) {
        std::vector<int> d{opDevice(trace, op)};
        if (op.kind == OpKind::CopyP2P) {
            d.push_back(op.srcDevice);
            d.push_back(op.dstDevice);
        }
        return d;
    };
    const std::vector<int> da = devices(a), db = devices(b);
    for (const int x : da)
        if (x >= 0 && std::find(db.begin(), db.end(), x) != db.end())
            return true;
    return false;
}

int partOf(const Trace &trace, const OpRecord &op)
{
    return op.stream >= 0 && std::size_t(op.stream) < trace.solo.streamPart.size()
               ? trace.solo.streamPart[std::size_t(op.stream)]
               : -1;
}

std::string percent(double fraction)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.0f %%", fraction * 100.0);
    return text;
}

} // namespace

std::int64_t gpuSpanOf(const std::vector<OpRecord> &ops)
{
    std::int64_t first = 0, last = 0;
    bool any = false;
    for (const OpRecord &op : ops) {
        if (!op.hasGpu())
            continue;
        first = any ? std::min(first, op.gpuStartNs) : op.gpuStartNs;
        last = any ? std::max(last, op.gpuEndNs) : op.gpuEndNs;
        any = true;
    }
    return any ? last - first : 0;
}

InterferenceReport analyzeInterference(const Trace &trace)
{
    InterferenceReport report;
    const SoloBaselines &solo = trace.solo;
    if (solo.empty()) {
        report.why = trace.source == TraceSource::StreamScope
                         ? "no solo baselines: this run did not measure its parts alone (run --solo)"
                         : "no solo baselines: a trace recorded by another tool cannot run its parts alone";
        return report;
    }
    if (trace.repetitions.empty()) {
        report.why = "no repetitions";
        return report;
    }
    const std::size_t parts = solo.parts.size();
    const std::size_t opCount = trace.repetitions.front().ops.size();

    // Each round's solo run of each part: (round, part) -> run.
    std::map<std::pair<int, int>, const SoloRun *> runOf;
    for (const SoloRun &run : solo.runs)
        runOf[{run.round, run.part}] = &run;
    std::vector<std::vector<double>> partSpans(parts);
    std::vector<double> serialV, idealV, measuredV, savedV, costV, realisedV;
    for (std::size_t r = 0; r < trace.repetitions.size(); ++r) {
        const int round = trace.repetitions[r].index;
        OverlapRound acc;
        acc.round = round;
        bool complete = true;
        for (std::size_t p = 0; p < parts; ++p) {
            const auto it = runOf.find({round, int(p)});
            if (it == runOf.end()) {
                complete = false;
                continue;
            }
            const std::int64_t span = gpuSpanOf(it->second->ops);
            partSpans[p].push_back(double(span));
            acc.serialNs += span;
            acc.idealNs = std::max(acc.idealNs, span);
        }
        if (!complete)
            continue;
        acc.measuredNs = gpuSpanOf(trace.repetitions[r].ops);
        report.rounds.push_back(acc);
        serialV.push_back(double(acc.serialNs));
        idealV.push_back(double(acc.idealNs));
        measuredV.push_back(double(acc.measuredNs));
        savedV.push_back(double(acc.savedNs()));
        costV.push_back(double(acc.costNs()));
        realisedV.push_back(acc.realised());
    }
    if (report.rounds.empty()) {
        report.why =
            "no complete round of solo baselines" + (solo.missing.empty() ? std::string() : " (" + solo.missing + ")");
        return report;
    }
    report.known = true;
    report.why = solo.missing;
    for (auto &spans : partSpans)
        report.partSoloNs.push_back(spreadOf(spans));
    report.serialNs = spreadOf(serialV);
    report.idealNs = spreadOf(idealV);
    report.measuredNs = spreadOf(measuredV);
    report.savedNs = spreadOf(savedV);
    report.costNs = spreadOf(costV);
    report.realised = spreadOf(realisedV);

    // Per op: its executions alone and in the mix, matched by identity (the op's index in the repetition,
    // which a run's ops keep in its solo runs too: OpRecord::opIndex).
    std::vector<std::vector<double>> soloNs(opCount), mixedNs(opCount), ratios(opCount);
    std::vector<std::map<int, double>> soloByRound(opCount);
    for (const SoloRun &run : solo.runs)
        for (const OpRecord &op : run.ops)
            if (op.opIndex >= 0 && std::size_t(op.opIndex) < opCount && op.hasGpu()) {
                soloNs[std::size_t(op.opIndex)].push_back(double(op.gpuDurationNs()));
                soloByRound[std::size_t(op.opIndex)][run.round] = double(op.gpuDurationNs());
            }
    std::vector<std::map<int, double>> overlapWith(opCount);
    std::vector<double> executed(opCount, 0.0);
    for (const Repetition &rep : trace.repetitions) {
        if (rep.ops.size() != opCount)
            continue;
        for (std::size_t i = 0; i < opCount; ++i) {
            const OpRecord &op = rep.ops[i];
            if (!op.hasGpu())
                continue;
            const double d = double(op.gpuDurationNs());
            mixedNs[i].push_back(d);
            executed[i] += d;
            const auto alone = soloByRound[i].find(rep.index);
            if (alone != soloByRound[i].end() && alone->second > 0)
                ratios[i].push_back(d / alone->second);
        }
        if (opCount > kMaxOpsForCulprits)
            continue;
        // Who ran beside whom: ops sorted by start, each against the later-starting ops that begin before it ends.
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < opCount; ++i)
            if (rep.ops[i].hasGpu() && partOf(trace, rep.ops[i]) >= 0)
                order.push_back(i);
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return rep.ops[a].gpuStartNs < rep.ops[b].gpuStartNs; });
        for (std::size_t x = 0; x < order.size(); ++x) {
            const OpRecord &a = rep.ops[order[x]];
            for (std::size_t y = x + 1; y < order.size(); ++y) {
                const OpRecord &b = rep.ops[order[y]];
                if (b.gpuStartNs >= a.gpuEndNs)
                    break;
                if (partOf(trace, a) == partOf(trace, b) || !shareDevice(trace, a, b))
                    continue;
                const double overlap = double(std::min(a.gpuEndNs, b.gpuEndNs) - b.gpuStartNs);
                if (overlap <= 0)
                    continue;
                overlapWith[order[x]][int(order[y])] += overlap;
                overlapWith[order[y]][int(order[x])] += overlap;
            }
        }
    }
    const std::vector<OpRecord> &first = trace.repetitions.front().ops;
    report.ops.resize(opCount);
    for (std::size_t i = 0; i < opCount; ++i) {
        OpSlowdown &s = report.ops[i];
        s.op = int(i);
        s.mixedNs = spreadOf(mixedNs[i]);
        s.soloNs = spreadOf(soloNs[i]);
        s.roundRatio = spreadOf(ratios[i]);
        if (s.mixedNs.count && s.soloNs.count && s.soloNs.median > 0)
            s.slowdown = s.mixedNs.median / s.soloNs.median;
        double best = 0;
        for (const auto &[other, ns] : overlapWith[i])
            if (ns > best) {
                best = ns;
                s.culprit = other;
            }
        if (s.culprit >= 0 && executed[i] > 0) {
            s.culpritShare = std::min(1.0, best / executed[i]);
            const OpRecord &a = first[i], &b = first[std::size_t(s.culprit)];
            s.sameEngine = isCopy(a.kind) && a.kind == b.kind && a.kind != OpKind::CopyD2D
                           && opDevice(trace, a) == opDevice(trace, b);
        }
    }
    return report;
}

std::string describeSlowdown(const Trace &trace, const OpSlowdown &s)
{
    if (!s.known() || trace.repetitions.empty())
        return {};
    const double change = s.slowdown - 1.0;
    std::string text;
    // Inside the rounds' own spread (each round's mixed over alone crosses 1), or under 1 %: noise.
    const bool noise = !s.beyondNoise();
    char pct[32];
    std::snprintf(pct, sizeof pct, std::abs(change) < 0.1 ? "%+.1f %%" : "%+.0f %%", change * 100.0);
    text = noise ? "within noise (" + std::string(pct) + ")" : std::string(pct);
    text += " (" + formatDuration(std::llround(s.soloNs.median)) + " alone → "
            + formatDuration(std::llround(s.mixedNs.median)) + " in the mix)";
    if (s.culprit >= 0 && s.culpritShare >= 0.01) {
        const OpRecord &c = trace.repetitions.front().ops[std::size_t(s.culprit)];
        const std::string stream = c.stream >= 0 && std::size_t(c.stream) < trace.streams.size()
                                       ? " on " + trace.streams[std::size_t(c.stream)].name
                                       : std::string();
        const std::string who = "\"" + trace.name(c) + "\"" + stream;
        text += s.sameEngine ? ", sharing its link with " + who + " for " + percent(s.culpritShare) + " of it"
                             : ", while " + who + " ran beside it for " + percent(s.culpritShare) + " of it";
    } else if (s.culprit < 0) {
        text += ", with nothing of another part beside it";
    }
    return text;
}

} // namespace streamscope::engine
