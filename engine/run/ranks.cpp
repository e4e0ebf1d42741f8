#include "engine/run/ranks.h"

#include <algorithm>
#include <limits>
#include <map>

#include "engine/model/errors.h"
#include "engine/model/host_ranges.h"
#include "engine/workload/rank_part.h"

namespace streamscope::engine {

ClockOffset estimateClockOffset(const std::vector<ClockSample> &samples, bool sameClock)
{
    if (samples.empty())
        throw Error(ErrorKind::InvalidInput, "the clock offset needs at least one round trip, and there was none");
    const ClockSample *best = nullptr;
    for (const ClockSample &s : samples) {
        if (s.receivedNs < s.sentNs)
            throw Error(ErrorKind::InvalidInput, "a clock round trip ended before it began (sent at "
                                                     + std::to_string(s.sentNs) + " ns, answered at "
                                                     + std::to_string(s.receivedNs) + " ns)");
        if (!best || s.receivedNs - s.sentNs < best->receivedNs - best->sentNs)
            best = &s;
    }
    ClockOffset c;
    const std::int64_t trip = best->receivedNs - best->sentNs;
    // The rank read its clock somewhere within the trip: at its middle, the offset is off by half of it at most.
    c.measuredNs = best->remoteNs - (best->sentNs + trip / 2);
    c.measuredErrorNs = (trip + 1) / 2;
    c.samples = int(samples.size());
    c.sameClock = sameClock;
    c.offsetNs = sameClock ? 0 : c.measuredNs;
    c.errorNs = sameClock ? 0 : c.measuredErrorNs;
    return c;
}

namespace {

std::int64_t shifted(std::int64_t t, std::int64_t by)
{
    return t == kNoTime ? t : t + by;
}

// A rank's trace taken apart into the merged one: its strings, threads and streams by their new indexes.
class RankMerger {
public:
    RankMerger(Trace &merged, int rank, const RankPart &part, const RankTrace &from, std::int64_t shiftNs) :
        m_rank(rank), m_part(part), m_localDevice(from.localDevice), m_shift(shiftNs)
    {
        const Trace &t = from.trace;
        for (const std::string &s : t.strings)
            m_strings.push_back(merged.intern(s));
        for (const HostThreadInfo &thread : t.hostThreads) {
            HostThreadInfo info = thread;
            info.name = "rank " + std::to_string(rank) + " \u00b7 " + thread.name;
            if (info.processId < 0)
                info.processId = from.pid >= 0 ? from.pid : -1 - rank;
            m_threads.push_back(std::int32_t(merged.hostThreads.size()));
            merged.hostThreads.push_back(std::move(info));
        }
        for (std::size_t s = 0; s < t.streams.size(); ++s) {
            StreamInfo info = t.streams[s];
            info.device = rank;
            if (s < part.streams.size()) {
                const auto at = std::size_t(part.streams[s]);
                m_streams.push_back(std::int32_t(at));
                merged.streams[at] = std::move(info);
            } else { // the runner's own (a thread's default stream): after the workload's
                m_streams.push_back(std::int32_t(merged.streams.size()));
                merged.streams.push_back(std::move(info));
            }
        }
    }

    void addRepetition(const Repetition &rep, Repetition &into) const
    {
        if (rep.ops.size() != m_part.schedule.size())
            throw Error(ErrorKind::InvalidInput,
                        "rank " + std::to_string(m_rank) + "'s trace has " + std::to_string(rep.ops.size())
                            + " ops in repetition " + std::to_string(rep.index) + ", but its part of the workload has "
                            + std::to_string(m_part.schedule.size()) + ": it ran another workload");
        for (std::size_t i = 0; i < rep.ops.size(); ++i)
            into.ops[std::size_t(m_part.schedule[i])] = mapped(rep.ops[i], m_part.schedule[i]);
        for (ActivityRecord a : rep.activities) {
            a.startNs = shifted(a.startNs, m_shift);
            a.endNs = shifted(a.endNs, m_shift);
            a.op = opAt(a.op);
            into.activities.push_back(a);
        }
        for (HostRange r : rep.hostRanges) {
            r.startNs = shifted(r.startNs, m_shift);
            r.endNs = shifted(r.endNs, m_shift);
            r.nameId = string(r.nameId);
            r.domainId = string(r.domainId);
            r.hostThread = thread(r.hostThread);
            into.hostRanges.push_back(r);
        }
        for (KernelLaunch k : rep.kernelLaunches) {
            k.op = opAt(k.op);
            k.fullNameId = string(k.fullNameId);
            k.workId = string(k.workId);
            k.queuedNs = shifted(k.queuedNs, m_shift);
            k.submittedNs = shifted(k.submittedNs, m_shift);
            into.kernelLaunches.push_back(k);
        }
        for (OpPiece p : rep.opPieces) {
            p.op = opAt(p.op);
            p.startNs = shifted(p.startNs, m_shift);
            p.endNs = shifted(p.endNs, m_shift);
            p.nameId = string(p.nameId);
            for (std::int16_t *d : {&p.srcDevice, &p.dstDevice})
                if (*d >= 0) // another rank's GPU is a device of another process: not one of the merged trace's
                    *d = *d == m_localDevice ? std::int16_t(m_rank) : std::int16_t(-1);
            into.opPieces.push_back(p);
        }
    }

    // A solo run's ops (OpRecord::opIndex: the op's index in the rank's repetitions) added to the merged run's.
    void addSoloOps(const std::vector<OpRecord> &ops, std::vector<OpRecord> &into) const
    {
        for (const OpRecord &op : ops)
            if (const std::int32_t at = opAt(op.opIndex); at >= 0)
                into.push_back(mapped(op, at));
    }

    // The merged trace's index of the rank's stream `s`, -1 for none.
    std::int32_t stream(std::int32_t s) const
    {
        return s >= 0 && std::size_t(s) < m_streams.size() ? m_streams[std::size_t(s)] : -1;
    }

private:
    // The rank's op as the merged trace has it: at `at` of the workload's issue order, on rank 0's clock.
    OpRecord mapped(OpRecord op, std::int32_t at) const
    {
        for (std::int64_t *t :
             {&op.gpuStartNs, &op.gpuEndNs, &op.hostStartNs, &op.hostEndNs, &op.readyNs, &op.eventEndNs})
            *t = shifted(*t, m_shift);
        op.nameId = string(op.nameId);
        op.stream = stream(op.stream);
        op.hostThread = thread(op.hostThread);
        op.opIndex = at;
        op.hostRange = -1;
        for (std::int8_t *d : {&op.srcDevice, &op.dstDevice})
            if (*d >= 0)
                *d = *d == m_localDevice ? std::int8_t(m_rank) : std::int8_t(-1);
        return op;
    }

    std::uint32_t string(std::uint32_t id) const { return id < m_strings.size() ? m_strings[id] : kNoString; }
    std::int32_t thread(std::int32_t t) const
    {
        return t >= 0 && std::size_t(t) < m_threads.size() ? m_threads[std::size_t(t)] : -1;
    }
    std::int32_t opAt(std::int32_t op) const
    {
        return op >= 0 && std::size_t(op) < m_part.schedule.size() ? m_part.schedule[std::size_t(op)] : -1;
    }

    int m_rank;
    const RankPart &m_part;
    int m_localDevice; // the CUDA device the rank's part ran on, in its process
    std::int64_t m_shift;
    std::vector<std::uint32_t> m_strings;
    std::vector<std::int32_t> m_threads, m_streams;
};

// Solo baselines: every rank ran each part's round with the others (its own streams of the part, or none);
// a round's part is the ranks' ops of it together, in the workload's issue order. Rounds after the last
// repetition every rank kept are left out with it.
void mergeSolo(Trace &merged, const std::vector<RankTrace> &ranks, const std::vector<RankMerger> &mergers,
               std::size_t repetitions)
{
    const SoloBaselines &first = ranks.front().trace.solo;
    if (first.empty())
        return;
    SoloBaselines &solo = merged.solo;
    solo.parts = first.parts;
    solo.streamPart.assign(merged.streams.size(), -1);
    std::map<std::pair<int, int>, std::size_t> runOf; // (round, part) -> index into solo.runs
    for (const SoloRun &run : first.runs)
        if (std::size_t(run.round) < repetitions
            && runOf.emplace(std::pair(run.round, run.part), solo.runs.size()).second)
            solo.runs.push_back({run.part, run.round, {}});
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const SoloBaselines &mine = ranks[r].trace.solo;
        if (mine.parts != first.parts)
            throw Error(ErrorKind::InvalidInput, "rank " + std::to_string(r)
                                                     + "'s solo baselines are of other parts than rank 0's: the "
                                                       "ranks ran different workloads or options");
        for (std::size_t s = 0; s < mine.streamPart.size(); ++s)
            if (const std::int32_t at = mergers[r].stream(std::int32_t(s)); at >= 0)
                solo.streamPart[std::size_t(at)] = mine.streamPart[s];
        for (const SoloRun &run : mine.runs)
            if (const auto it = runOf.find({run.round, run.part}); it != runOf.end())
                mergers[r].addSoloOps(run.ops, solo.runs[it->second].ops);
        if (!mine.missing.empty())
            solo.missing += (solo.missing.empty() ? "" : "; ") + ("rank " + std::to_string(r) + ": ") + mine.missing;
    }
    for (SoloRun &run : solo.runs)
        std::sort(run.ops.begin(), run.ops.end(),
                  [](const OpRecord &a, const OpRecord &b) { return a.opIndex < b.opIndex; });
}

} // namespace

Trace mergeRankTraces(const Workload &workload, std::vector<RankTrace> ranks)
{
    const int n = int(ranks.size());
    if (n == 0)
        throw Error(ErrorKind::InvalidInput, "no rank's trace to merge");
    checkRankSplit(workload, n);
    const Trace &first = ranks.front().trace;
    Trace merged;
    merged.source = first.source;
    merged.title = first.title;
    merged.toolVersion = first.toolVersion;
    merged.hostName = first.hostName;
    merged.createdUtc = first.createdUtc;
    merged.calibration = first.calibration;
    merged.metadata = first.metadata;
    merged.timing = first.timing;
    merged.timingNote = first.timingNote;
    merged.streams.resize(workload.streams.size());

    std::vector<RankPart> parts;
    std::vector<RankMerger> mergers;
    parts.reserve(std::size_t(n));
    mergers.reserve(std::size_t(n));
    std::size_t repetitions = std::numeric_limits<std::size_t>::max();
    for (int r = 0; r < n; ++r) {
        RankTrace &rank = ranks[std::size_t(r)];
        parts.push_back(rankPart(workload, r, n, rank.localDevice));
        // A run's times are on its host's steady clock (the runner's); on rank 0's, less the rank's offset.
        const std::int64_t shift = -rank.clock.offsetNs;
        mergers.emplace_back(merged, r, parts.back(), rank, shift);
        repetitions = std::min(repetitions, rank.trace.repetitions.size());

        const auto device = std::find_if(rank.trace.devices.begin(), rank.trace.devices.end(),
                                         [&](const DeviceInfo &d) { return d.index == rank.localDevice; });
        DeviceInfo info = device != rank.trace.devices.end() ? *device : DeviceInfo{};
        info.index = r;
        merged.devices.push_back(std::move(info));

        const std::string key = "rank" + std::to_string(r) + ".";
        auto &md = merged.metadata;
        md[key + "host"] = rank.host;
        md[key + "pid"] = std::to_string(rank.pid);
        md[key + "gpu"] =
            std::to_string(rank.localDevice)
            + (device != rank.trace.devices.end() && !device->pciBusId.empty() ? " (" + device->pciBusId + ")" : "");
        if (r > 0) {
            const ClockOffset &c = rank.clock;
            md[key + "clock_offset_ns"] = std::to_string(c.offsetNs);
            md[key + "clock_error_ns"] = std::to_string(c.errorNs);
            md[key + "clock"] =
                (c.sameClock
                     ? "the same clock as rank 0 (one boot id); " + std::to_string(c.samples) + " round trips measured "
                           + std::to_string(c.measuredNs) + " ns +- " + std::to_string(c.measuredErrorNs) + " ns"
                     : "offset from the shortest of " + std::to_string(c.samples) + " round trips");
            for (const auto &[k, v] : rank.trace.metadata)
                if (const auto it = first.metadata.find(k); it == first.metadata.end() || it->second != v)
                    md[key + k] = v;
            if (rank.trace.timing == TimingSource::Events && merged.timing != TimingSource::Events) {
                merged.timing = TimingSource::Events;
                merged.timingNote += (merged.timingNote.empty() ? "" : "; ") + ("rank " + std::to_string(r) + ": ")
                                     + rank.trace.timingNote;
            }
        }
    }
    std::string where;
    for (int r = 0; r < n; ++r)
        where += (r == 0 ? "" : ", ")
                 + ("rank " + std::to_string(r) + " on " + ranks[std::size_t(r)].host + " GPU "
                    + std::to_string(ranks[std::size_t(r)].localDevice));
    merged.metadata["ranks"] = std::to_string(n) + " processes: " + where;
    merged.metadata.erase("device");
    merged.metadata["devices"] = [&] {
        std::string list;
        for (int r = 0; r < n; ++r)
            list += (r == 0 ? "" : ",") + std::to_string(r);
        return list;
    }();

    for (std::size_t i = 0; i < workload.streams.size(); ++i)
        if (merged.streams[i].name.empty())
            throw Error(ErrorKind::InvalidInput, "no rank's trace has stream '" + workload.streams[i].name
                                                     + "' of the workload: the traces are of another workload");
    for (std::size_t rep = 0; rep < repetitions; ++rep) {
        Repetition out;
        out.index = int(rep);
        out.ops.resize(workload.schedule.size());
        for (int r = 0; r < n; ++r)
            mergers[std::size_t(r)].addRepetition(ranks[std::size_t(r)].trace.repetitions[rep], out);
        std::sort(out.activities.begin(), out.activities.end(),
                  [](const ActivityRecord &a, const ActivityRecord &b) { return a.startNs < b.startNs; });
        std::sort(out.kernelLaunches.begin(), out.kernelLaunches.end(),
                  [](const KernelLaunch &a, const KernelLaunch &b) { return a.op < b.op; });
        std::stable_sort(out.opPieces.begin(), out.opPieces.end(), [](const OpPiece &a, const OpPiece &b) {
            return a.op != b.op ? a.op < b.op : a.startNs < b.startNs;
        });
        layoutHostRanges(out);
        merged.repetitions.push_back(std::move(out));
    }
    mergeSolo(merged, ranks, mergers, repetitions);
    for (int r = 0; r < n; ++r)
        if (ranks[std::size_t(r)].trace.repetitions.size() != repetitions)
            merged.metadata["rank" + std::to_string(r) + ".repetitions_left_out"] =
                std::to_string(ranks[std::size_t(r)].trace.repetitions.size() - repetitions)
                + " (every rank's trace keeps the repetitions all ranks measured)";
    return merged;
}

std::vector<PeerLink> rankLinks(const std::vector<PeerLink> &host, const std::vector<int> &localDevices)
{
    std::vector<PeerLink> links;
    for (std::size_t a = 0; a < localDevices.size(); ++a)
        for (std::size_t b = 0; b < localDevices.size(); ++b) {
            if (a == b)
                continue;
            const auto it = std::find_if(host.begin(), host.end(), [&](const PeerLink &l) {
                return l.src == localDevices[a] && l.dst == localDevices[b];
            });
            if (it == host.end())
                continue;
            PeerLink link = *it;
            link.src = int(a);
            link.dst = int(b);
            link.accessEnabled = false;
            links.push_back(link);
        }
    return links;
}

} // namespace streamscope::engine
