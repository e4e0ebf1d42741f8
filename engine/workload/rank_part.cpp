#include "engine/workload/rank_part.h"

#include <algorithm>
#include <map>
#include <string>

#include "engine/model/errors.h"

namespace streamscope::engine {

namespace {

std::string quoted(const std::string &s)
{
    return "'" + s + "'";
}

std::string where(const StreamSpec &stream, std::size_t op)
{
    return opLocation(stream, int(op));
}

[[noreturn]] void refuse(const Workload &workload, const std::string &what)
{
    throw Error(ErrorKind::InvalidInput,
                "workload " + quoted(workload.name) + " cannot run as one process per rank: " + what);
}

// The buffers an op reads or writes, by name.
std::vector<const std::string *> buffersOf(const OpSpec &op)
{
    std::vector<const std::string *> names;
    for (const std::string *name : {&op.src, &op.dst, &op.buffer})
        if (!name->empty())
            names.push_back(name);
    return names;
}

} // namespace

void checkRankSplit(const Workload &workload, int ranks)
{
    if (ranks < 1)
        refuse(workload, "the job has no ranks");
    const std::vector<int> used = workload.usedDevices();
    std::vector<int> expected(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r)
        expected[std::size_t(r)] = r;
    if (used != expected) {
        std::string list;
        for (const int d : used)
            list += (list.empty() ? "" : ", ") + std::to_string(d);
        refuse(workload, "rank r runs what the workload puts on GPU r, so a job of " + std::to_string(ranks)
                             + (ranks == 1 ? " rank" : " ranks") + " needs a workload on GPUs 0 to "
                             + std::to_string(ranks - 1) + ", each used; this one uses GPU"
                             + (used.size() == 1 ? " " : "s ") + list
                             + (used.size() > 0 && used.front() == 0 && used.back() == int(used.size()) - 1
                                    ? ": start it with mpirun -np " + std::to_string(used.size())
                                    : ": number its GPUs from 0, one per rank"));
    }
    // A host thread drives the streams of one rank.
    for (int t = 0; t < workload.threadCount(); ++t) {
        std::map<int, std::string> devices; // device -> one of its streams
        for (std::size_t s = 0; s < workload.streams.size(); ++s)
            if (workload.streams[s].thread == t)
                devices.emplace(workload.streamDevice(int(s)), workload.streams[s].name);
        devices.emplace(workload.threadDevice(t), "");
        if (devices.size() > 1) {
            auto second = std::next(devices.begin());
            refuse(workload, "host thread " + quoted(workload.threadName(t)) + " drives GPUs "
                                 + std::to_string(devices.begin()->first) + " and " + std::to_string(second->first)
                                 + (second->second.empty() ? "" : " (stream " + quoted(second->second) + ")")
                                 + ", and each rank is a process of its own: give each GPU a thread of its own "
                                   "(\"threads\", docs/workload-format.md)");
        }
    }
    // Ops touch only their own GPU's memory.
    for (std::size_t s = 0; s < workload.streams.size(); ++s) {
        const StreamSpec &stream = workload.streams[s];
        const int device = workload.streamDevice(int(s));
        for (std::size_t i = 0; i < stream.ops.size(); ++i) {
            const OpSpec &op = stream.ops[i];
            if (op.type == OpType::Copy && op.direction == CopyDirection::P2P)
                refuse(workload, where(stream, i)
                                     + " copies between two GPUs, which are two processes here: move "
                                       "the data with a send and a receive collective instead");
            if ((op.type == OpType::Prefetch || op.type == OpType::Advise) && op.location >= 0 && op.location != device)
                refuse(workload, where(stream, i) + " names GPU " + std::to_string(op.location)
                                     + ", another rank's, from a stream on GPU " + std::to_string(device));
            if (op.type == OpType::Sync && op.syncTarget == SyncTarget::Stream && !op.syncStream.empty()) {
                const int target = workload.findStream(op.syncStream);
                if (target >= 0 && workload.streamDevice(target) != device)
                    refuse(workload, where(stream, i) + " synchronises stream " + quoted(op.syncStream)
                                         + ", which is on another rank's GPU "
                                         + std::to_string(workload.streamDevice(target)));
            }
            for (const std::string *name : buffersOf(op)) {
                const BufferSpec *buffer = workload.findBuffer(*name);
                if (!buffer || (buffer->kind != BufferKind::Device && buffer->kind != BufferKind::Managed))
                    continue;
                if (const int at = workload.bufferDevice(*buffer); at != device)
                    refuse(workload, where(stream, i) + " uses buffer " + quoted(*name) + " of GPU "
                                         + std::to_string(at) + ", another rank's, from a stream on GPU "
                                         + std::to_string(device));
            }
        }
    }
    // Waits and event syncs pair with records of their own rank.
    if (const auto across = firstWaitAcross(
            workload, [&](std::size_t i) { return workload.streamDevice(workload.schedule[i].stream); })) {
        const ScheduledOp &waiter = workload.schedule[across->first];
        const ScheduledOp &recorder = workload.schedule[across->second];
        const StreamSpec &ws = workload.streams[std::size_t(waiter.stream)];
        refuse(workload, where(ws, std::size_t(waiter.op)) + " waits on event "
                             + quoted(ws.ops[std::size_t(waiter.op)].event) + ", which stream "
                             + quoted(workload.streams[std::size_t(recorder.stream)].name) + " records on GPU "
                             + std::to_string(workload.streamDevice(recorder.stream))
                             + ": an event cannot cross processes; a collective can join them");
    }
}

RankPart rankPart(const Workload &workload, int rank, int ranks, int localDevice)
{
    RankPart part;
    // The whole workload's settings; its streams, threads, buffers and issue order are the rank's, below.
    part.workload = workload;
    Workload &w = part.workload;
    w.streams.clear();
    w.threads.clear();
    w.buffers.clear();
    w.schedule.clear();
    w.device = localDevice;
    w.rankOf.rank = rank;
    w.rankOf.ranks = ranks;
    w.rankOf.communicator = workload.collectiveDevices();
    for (const StreamSpec &stream : workload.streams) {
        const std::string &name = stream.part.empty() ? stream.name : stream.part;
        if (std::find(w.rankOf.soloParts.begin(), w.rankOf.soloParts.end(), name) == w.rankOf.soloParts.end())
            w.rankOf.soloParts.push_back(name);
    }
    const auto local = [&](int device) { return device == rank ? localDevice : device; };

    // Threads: those on the rank's GPU (a thread drives one rank's streams: checkRankSplit).
    std::vector<std::int32_t> threadIndex(std::size_t(workload.threadCount()), -1);
    for (int t = 0; t < workload.threadCount(); ++t) {
        if (workload.threadDevice(t) != rank)
            continue;
        threadIndex[std::size_t(t)] = std::int32_t(part.threads.size());
        part.threads.push_back(t);
        if (!workload.threads.empty()) {
            ThreadSpec thread = workload.threads[std::size_t(t)];
            thread.device = localDevice;
            thread.streams.clear();
            w.threads.push_back(std::move(thread));
        }
    }
    std::vector<std::int32_t> streamIndex(workload.streams.size(), -1);
    for (std::size_t s = 0; s < workload.streams.size(); ++s) {
        if (workload.streamDevice(int(s)) != rank)
            continue;
        streamIndex[s] = std::int32_t(part.streams.size());
        part.streams.push_back(std::int32_t(s));
        StreamSpec stream = workload.streams[s];
        stream.device = localDevice;
        stream.thread = std::max(threadIndex[std::size_t(stream.thread)], 0);
        for (OpSpec &op : stream.ops)
            if (op.type == OpType::Prefetch || op.type == OpType::Advise)
                op.location = op.location < 0 ? op.location : local(op.location);
        if (!w.threads.empty())
            w.threads[std::size_t(stream.thread)].streams.push_back(int(streamIndex[s]));
        w.streams.push_back(std::move(stream));
    }
    // Buffers: host buffers (each process has its own), and the rank's GPU's device and managed buffers.
    for (const BufferSpec &buffer : workload.buffers) {
        const bool onGpu = buffer.kind == BufferKind::Device || buffer.kind == BufferKind::Managed;
        if (onGpu && workload.bufferDevice(buffer) != rank)
            continue;
        BufferSpec kept = buffer;
        if (onGpu)
            kept.device = localDevice;
        w.buffers.push_back(std::move(kept));
    }
    for (std::size_t i = 0; i < workload.schedule.size(); ++i) {
        const ScheduledOp &at = workload.schedule[i];
        if (streamIndex[std::size_t(at.stream)] < 0)
            continue;
        w.schedule.push_back({streamIndex[std::size_t(at.stream)], at.op});
        part.schedule.push_back(std::int32_t(i));
    }
    return part;
}

} // namespace streamscope::engine
