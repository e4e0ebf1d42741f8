// Why an op queued (see queue_analysis.h). The rules, in order:
//  1. A copy whose channel (the copy engine CUPTI saw run it) was executing another copy while it
//     waited waited for that engine; one whose direction of the host link was busy, for the link. The
//     copy that ended last before it started is named.
//  2. An op that started within kHandOverNs of an op of another stream finishing, while its own stream
//     had nothing else pending, waited for that op although nothing ordered them: its stream shares a
//     hardware queue with the other (CUDA_DEVICE_MAX_CONNECTIONS), false serialisation.
//  3. Otherwise other work occupied the GPU (the executing op that ended last before it started is named),
//     or, for a short wait that no op explains, the GPU's own latency in starting it.
#include "engine/analysis/queue_analysis.h"

#include <algorithm>

#include "engine/model/units.h"
#include <cstdio>

namespace streamscope::engine {

namespace {

// How close an op's start must follow another's end to be taken as handed over by it.
constexpr std::int64_t kHandOverNs = 20'000;

std::string streamName(const Trace &trace, const OpRecord &op)
{
    if (op.stream >= 0 && std::size_t(op.stream) < trace.streams.size())
        return "stream '" + trace.streams[std::size_t(op.stream)].name + "'";
    return "another stream";
}

std::string microseconds(std::int64_t ns)
{
    return formatDuration(ns);
}

} // namespace

std::string_view toString(QueueCause cause)
{
    switch (cause) {
    case QueueCause::None: return "none";
    case QueueCause::CopyEngine: return "copy engine";
    case QueueCause::HardwareQueue: return "hardware queue";
    case QueueCause::GpuBusy: return "GPU busy";
    case QueueCause::Latency: return "latency";
    }
    return "none";
}

QueueExplanation explainQueued(const Trace &trace, int repetition, int opIndex, std::int64_t minimumNs,
                               std::int64_t latencyNs)
{
    QueueExplanation e;
    if (trace.timing == TimingSource::Events || repetition < 0 || std::size_t(repetition) >= trace.repetitions.size())
        return e;
    const auto &ops = trace.repetitions[std::size_t(repetition)].ops;
    if (opIndex < 0 || std::size_t(opIndex) >= ops.size())
        return e;
    const OpRecord &op = ops[std::size_t(opIndex)];
    e.queuedNs = op.queuedDurationNs();
    if (e.queuedNs < minimumNs)
        return e;
    const std::int64_t waitFrom = op.readyToRunNs();
    const std::int64_t start = op.gpuStartNs;

    // The op executing during the wait that ended last at or before this one started, optionally only
    // those that pass `pred`.
    auto lastBefore = [&](auto pred) {
        int best = -1;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const OpRecord &o = ops[i];
            if (int(i) == opIndex || !o.hasGpu() || !isGpuWork(o.kind) || !pred(o))
                continue;
            if (o.gpuEndNs <= waitFrom || o.gpuStartNs >= start || o.gpuEndNs > start + kHandOverNs)
                continue;
            if (best < 0 || o.gpuEndNs > ops[std::size_t(best)].gpuEndNs)
                best = int(i);
        }
        return best;
    };

    if (isCopy(op.kind)) {
        const int b = lastBefore([&](const OpRecord &o) {
            return isCopy(o.kind) && op.channel >= 0 && o.channel == op.channel && o.channelType == op.channelType;
        });
        if (b >= 0) {
            const OpRecord &o = ops[std::size_t(b)];
            e.cause = QueueCause::CopyEngine;
            e.blockerOp = b;
            e.text = "Queued " + microseconds(e.queuedNs) + ": its copy channel (" + std::to_string(op.channel)
                     + ") was busy with '" + trace.name(o) + "' on " + streamName(trace, o) + ".";
            return e;
        }
        // Another engine, the same direction: host copies of one direction share the host link.
        const int d = lastBefore([&](const OpRecord &o) { return o.kind == op.kind; });
        if (d >= 0 && (op.kind == OpKind::CopyH2D || op.kind == OpKind::CopyD2H)) {
            const OpRecord &o = ops[std::size_t(d)];
            e.cause = QueueCause::CopyEngine;
            e.blockerOp = d;
            e.text = "Queued " + microseconds(e.queuedNs) + ": the host link's " + std::string(toString(op.kind))
                     + " direction was busy with '" + trace.name(o) + "' on " + streamName(trace, o) + ".";
            return e;
        }
    }

    // Did its own stream have anything else pending (executing) during the wait?
    bool ownPending = false;
    for (std::size_t i = 0; i < ops.size() && !ownPending; ++i) {
        const OpRecord &o = ops[i];
        ownPending =
            int(i) != opIndex && o.stream == op.stream && o.hasGpu() && o.gpuEndNs > waitFrom && o.gpuStartNs < start;
    }
    const int handOver = lastBefore([&](const OpRecord &o) {
        return o.stream != op.stream && start - o.gpuEndNs >= 0 && start - o.gpuEndNs <= kHandOverNs;
    });
    if (!ownPending && handOver >= 0) {
        const OpRecord &o = ops[std::size_t(handOver)];
        e.cause = QueueCause::HardwareQueue;
        e.blockerOp = handOver;
        e.text = "Queued " + microseconds(e.queuedNs) + " behind '" + trace.name(o) + "' on " + streamName(trace, o)
                 + ", although nothing orders the two: it started the moment that op finished, so the two streams "
                   "share a hardware queue (CUDA_DEVICE_MAX_CONNECTIONS): false serialisation.";
        return e;
    }
    const int busy = lastBefore([](const OpRecord &) { return true; });
    if (busy < 0 && e.queuedNs < latencyNs) {
        e.cause = QueueCause::Latency;
        e.text = "Queued " + microseconds(e.queuedNs)
                 + ": nothing else held it; the GPU took that long to start it once its stream was ready "
                   "(launch and dependency latency).";
        return e;
    }
    e.cause = QueueCause::GpuBusy;
    e.blockerOp = busy;
    e.text = "Queued " + microseconds(e.queuedNs) + ": the GPU was busy with other work"
             + (busy >= 0 ? " (last: '" + trace.name(ops[std::size_t(busy)]) + "' on "
                                + streamName(trace, ops[std::size_t(busy)]) + ")"
                          : std::string())
             + ".";
    return e;
}

} // namespace streamscope::engine
