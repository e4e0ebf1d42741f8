#include "engine/workload/solo_parts.h"

#include <algorithm>

#include "engine/model/errors.h"

namespace streamscope::engine {

namespace {

std::string quoted(const std::string &s)
{
    return "\"" + s + "\"";
}

} // namespace

std::size_t countSoloParts(const Workload &workload)
{
    if (workload.rankOf.rank >= 0)
        return workload.rankOf.soloParts.size();
    std::vector<std::string> names;
    for (const StreamSpec &stream : workload.streams) {
        const std::string &name = stream.part.empty() ? stream.name : stream.part;
        if (std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    }
    return names.size();
}

SoloParts soloParts(const Workload &workload)
{
    SoloParts parts;
    // One rank's part of a workload (rank_part.h): the whole workload's parts, in its order.
    if (workload.rankOf.rank >= 0)
        parts.names = workload.rankOf.soloParts;
    parts.streamPart.reserve(workload.streams.size());
    for (const StreamSpec &stream : workload.streams) {
        const std::string &name = stream.part.empty() ? stream.name : stream.part;
        auto it = std::find(parts.names.begin(), parts.names.end(), name);
        if (it == parts.names.end())
            it = parts.names.insert(parts.names.end(), name);
        parts.streamPart.push_back(std::int32_t(it - parts.names.begin()));
    }
    if (parts.names.size() < 2)
        throw Error(ErrorKind::InvalidInput,
                    "workload " + quoted(workload.name) + ": solo baselines need at least two parts to run alone, but "
                        + (workload.streams.size() < 2 ? std::string("it has one stream")
                                                       : "all its streams are part " + quoted(parts.names.front()))
                        + ": there is no overlap to price");
    // A collective runs on every GPU of its communicator at once: run alone, one GPU's part would wait for
    // the others' forever. Their streams must run alone together.
    int collectiveStream = -1;
    for (std::size_t s = 0; s < workload.streams.size(); ++s) {
        const StreamSpec &stream = workload.streams[s];
        if (std::none_of(stream.ops.begin(), stream.ops.end(),
                         [](const OpSpec &op) { return op.type == OpType::Collective; }))
            continue;
        if (collectiveStream < 0) {
            collectiveStream = int(s);
            continue;
        }
        const StreamSpec &first = workload.streams[std::size_t(collectiveStream)];
        if (parts.streamPart[s] != parts.streamPart[std::size_t(collectiveStream)])
            throw Error(ErrorKind::InvalidInput,
                        "workload " + quoted(workload.name) + ": streams " + quoted(first.name) + " and "
                            + quoted(stream.name) + " make the same collectives from two GPUs, but are parts "
                            + quoted(parts.names[std::size_t(parts.streamPart[std::size_t(collectiveStream)])])
                            + " and " + quoted(parts.names[std::size_t(parts.streamPart[s])])
                            + ": a collective cannot run on one GPU alone. Put every stream with collectives in one "
                              "part (\"part\": \"...\" on each) to measure them alone together");
    }
    parts.opPart.reserve(workload.schedule.size());
    for (const ScheduledOp &at : workload.schedule)
        parts.opPart.push_back(parts.streamPart.at(std::size_t(at.stream)));

    if (const auto across = firstWaitAcross(workload, [&](std::size_t i) { return parts.opPart[i]; })) {
        const ScheduledOp &waiter = workload.schedule[across->first];
        const ScheduledOp &recorder = workload.schedule[across->second];
        const int a = parts.opPart[across->first], b = parts.opPart[across->second];
        const StreamSpec &ws = workload.streams[std::size_t(waiter.stream)];
        const StreamSpec &rs = workload.streams[std::size_t(recorder.stream)];
        const OpSpec &op = ws.ops[std::size_t(waiter.op)];
        throw Error(ErrorKind::InvalidInput,
                    "workload " + quoted(workload.name) + ": " + (op.jsonPath.empty() ? "an op" : op.jsonPath)
                        + " waits on event " + quoted(op.event) + ", which stream " + quoted(rs.name) + " of part "
                        + quoted(parts.names[std::size_t(b)]) + " records, from stream " + quoted(ws.name) + " of part "
                        + quoted(parts.names[std::size_t(a)])
                        + ": parts that wait on each other cannot run alone. Put both streams in one part (\"part\": "
                          "\"...\" on each) to measure them alone together");
    }
    return parts;
}

} // namespace streamscope::engine
