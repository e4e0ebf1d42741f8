// Helpers of the format tests: field-by-field comparison of two traces (round trips), op counts, and
// per-stream counts written the way ../shared/data/real-traces/README.md writes them.
#pragma once

#include <QtTest>

#include <map>

#include "engine/model/trace.h"

namespace streamscope::test {

// Returns an empty string when the ops, streams, threads and devices match, else what differs first.
inline QString traceDifference(const engine::Trace &a, const engine::Trace &b)
{
    auto s = [](auto v) { return QString::number(static_cast<qlonglong>(v)); };
    if (a.streams.size() != b.streams.size())
        return "stream count " + s(a.streams.size()) + " vs " + s(b.streams.size());
    for (std::size_t i = 0; i < a.streams.size(); ++i) {
        const auto &x = a.streams[i], &y = b.streams[i];
        if (x.name != y.name || x.device != y.device || x.nativeId != y.nativeId || x.priority != y.priority
            || x.nonBlocking != y.nonBlocking || x.isDefault != y.isDefault)
            return "stream " + s(i) + " differs: " + QString::fromStdString(x.name) + " vs "
                   + QString::fromStdString(y.name);
    }
    if (a.hostThreads.size() != b.hostThreads.size())
        return "host thread count " + s(a.hostThreads.size()) + " vs " + s(b.hostThreads.size());
    for (std::size_t i = 0; i < a.hostThreads.size(); ++i)
        if (a.hostThreads[i].name != b.hostThreads[i].name || a.hostThreads[i].nativeId != b.hostThreads[i].nativeId
            || a.hostThreads[i].processId != b.hostThreads[i].processId)
            return "host thread " + s(i) + " differs";
    if (a.devices.size() != b.devices.size())
        return "device count " + s(a.devices.size()) + " vs " + s(b.devices.size());
    for (std::size_t i = 0; i < a.devices.size(); ++i)
        if (a.devices[i].index != b.devices[i].index || a.devices[i].name != b.devices[i].name
            || a.devices[i].ccMajor != b.devices[i].ccMajor || a.devices[i].smCount != b.devices[i].smCount)
            return "device " + s(i) + " differs";
    if (a.peerLinks.size() != b.peerLinks.size())
        return "peer link count " + s(a.peerLinks.size()) + " vs " + s(b.peerLinks.size());
    for (std::size_t i = 0; i < a.peerLinks.size(); ++i) {
        const auto &x = a.peerLinks[i], &y = b.peerLinks[i];
        if (x.src != y.src || x.dst != y.dst || x.accessSupported != y.accessSupported
            || x.accessEnabled != y.accessEnabled || x.link != y.link || x.performanceRank != y.performanceRank
            || x.nvlinkCount != y.nvlinkCount || x.peakGBps != y.peakGBps)
            return "peer link " + s(i) + " differs";
    }
    if (a.repetitions.size() != b.repetitions.size())
        return "repetition count " + s(a.repetitions.size()) + " vs " + s(b.repetitions.size());
    for (std::size_t r = 0; r < a.repetitions.size(); ++r) {
        const auto &ra = a.repetitions[r], &rb = b.repetitions[r];
        if (ra.index != rb.index)
            return "repetition " + s(r) + " index " + s(ra.index) + " vs " + s(rb.index);
        if (ra.ops.size() != rb.ops.size())
            return "repetition " + s(r) + " op count " + s(ra.ops.size()) + " vs " + s(rb.ops.size());
        for (std::size_t i = 0; i < ra.ops.size(); ++i) {
            const auto &x = ra.ops[i], &y = rb.ops[i];
            const QString where =
                "repetition " + s(r) + " op " + s(i) + " (" + QString::fromStdString(a.name(x)) + "): ";
            if (a.name(x) != b.name(y))
                return where + "name " + QString::fromStdString(b.name(y));
            if (x.gpuStartNs != y.gpuStartNs || x.gpuEndNs != y.gpuEndNs)
                return where + "GPU time " + s(x.gpuStartNs) + ".." + s(x.gpuEndNs) + " vs " + s(y.gpuStartNs) + ".."
                       + s(y.gpuEndNs);
            if (x.hostStartNs != y.hostStartNs || x.hostEndNs != y.hostEndNs)
                return where + "host time " + s(x.hostStartNs) + ".." + s(x.hostEndNs) + " vs " + s(y.hostStartNs)
                       + ".." + s(y.hostEndNs);
            if (x.bytes != y.bytes)
                return where + "bytes " + s(x.bytes) + " vs " + s(y.bytes);
            if (x.correlation != y.correlation)
                return where + "correlation " + s(x.correlation) + " vs " + s(y.correlation);
            if (x.stream != y.stream || x.hostThread != y.hostThread)
                return where + "stream/thread " + s(x.stream) + "/" + s(x.hostThread) + " vs " + s(y.stream) + "/"
                       + s(y.hostThread);
            if (x.opIndex != y.opIndex || x.flags != y.flags)
                return where + "op index/flags " + s(x.opIndex) + "/" + s(x.flags) + " vs " + s(y.opIndex) + "/"
                       + s(y.flags);
            if (x.readyNs != y.readyNs || x.eventEndNs != y.eventEndNs)
                return where + "stream-ready/event end " + s(x.readyNs) + "/" + s(x.eventEndNs) + " vs " + s(y.readyNs)
                       + "/" + s(y.eventEndNs);
            if (x.channel != y.channel || x.channelType != y.channelType || x.driverSrcMem != y.driverSrcMem
                || x.driverDstMem != y.driverDstMem)
                return where + "channel/driver memory kinds " + s(x.channel) + " vs " + s(y.channel);
            if (x.srcDevice != y.srcDevice || x.dstDevice != y.dstDevice)
                return where + "copy devices " + s(x.srcDevice) + "->" + s(x.dstDevice) + " vs " + s(y.srcDevice) + "->"
                       + s(y.dstDevice);
            if (x.kind != y.kind || x.srcMem != y.srcMem || x.dstMem != y.dstMem || x.api != y.api)
                return where + "kind/memory/api "
                       + QString::fromUtf8(engine::toString(x.kind).data(), engine::toString(x.kind).size()) + " vs "
                       + QString::fromUtf8(engine::toString(y.kind).data(), engine::toString(y.kind).size());
        }
        if (ra.activities.size() != rb.activities.size())
            return "repetition " + s(r) + " activity count " + s(ra.activities.size()) + " vs "
                   + s(rb.activities.size());
        for (std::size_t i = 0; i < ra.activities.size(); ++i) {
            const auto &x = ra.activities[i], &y = rb.activities[i];
            if (x.kind != y.kind || x.detail != y.detail || x.startNs != y.startNs || x.endNs != y.endNs
                || x.value != y.value || x.address != y.address || x.op != y.op)
                return "repetition " + s(r) + " activity " + s(i) + " differs: " + s(x.startNs) + ".." + s(x.endNs)
                       + " vs " + s(y.startNs) + ".." + s(y.endNs) + ", op " + s(x.op) + " vs " + s(y.op);
        }
        // Host ranges and kernel launches (names compared as text: string tables may differ).
        if (ra.hostRanges.size() != rb.hostRanges.size())
            return "repetition " + s(r) + " host range count " + s(ra.hostRanges.size()) + " vs "
                   + s(rb.hostRanges.size());
        for (std::size_t i = 0; i < ra.hostRanges.size(); ++i) {
            const auto &x = ra.hostRanges[i], &y = rb.hostRanges[i];
            if (a.string(x.nameId) != b.string(y.nameId) || x.category != y.category || x.hostThread != y.hostThread
                || x.startNs != y.startNs || x.endNs != y.endNs || x.depth != y.depth
                || a.string(x.domainId) != b.string(y.domainId))
                return "repetition " + s(r) + " host range " + s(i) + " (" + QString::fromStdString(a.string(x.nameId))
                       + ") differs: " + s(x.startNs) + ".." + s(x.endNs) + " depth " + s(x.depth) + " vs "
                       + QString::fromStdString(b.string(y.nameId)) + " " + s(y.startNs) + ".." + s(y.endNs) + " depth "
                       + s(y.depth);
        }
        for (std::size_t i = 0; i < ra.ops.size(); ++i)
            if (ra.ops[i].hostRange != rb.ops[i].hostRange)
                return "repetition " + s(r) + " op " + s(i) + " launched in range " + s(ra.ops[i].hostRange) + " vs "
                       + s(rb.ops[i].hostRange);
        if (ra.kernelLaunches.size() != rb.kernelLaunches.size())
            return "repetition " + s(r) + " kernel launch count " + s(ra.kernelLaunches.size()) + " vs "
                   + s(rb.kernelLaunches.size());
        for (std::size_t i = 0; i < ra.kernelLaunches.size(); ++i) {
            const auto &x = ra.kernelLaunches[i], &y = rb.kernelLaunches[i];
            bool same = x.op == y.op && x.registersPerThread == y.registersPerThread && x.sharedBytes == y.sharedBytes
                        && x.staticSharedBytes == y.staticSharedBytes && x.dynamicSharedBytes == y.dynamicSharedBytes
                        && a.string(x.fullNameId) == b.string(y.fullNameId) && x.flops == y.flops
                        && x.busBytes == y.busBytes && a.string(x.workId) == b.string(y.workId);
            for (int d = 0; d < 3; ++d)
                same = same && x.grid[d] == y.grid[d] && x.block[d] == y.block[d];
            if (!same)
                return "repetition " + s(r) + " kernel launch " + s(i) + " (op " + s(x.op) + ") differs";
            if (x.queuedNs != y.queuedNs || x.submittedNs != y.submittedNs)
                return "repetition " + s(r) + " kernel launch " + s(i) + " (op " + s(x.op) + ") queued/submitted "
                       + s(x.queuedNs) + "/" + s(x.submittedNs) + " vs " + s(y.queuedNs) + "/" + s(y.submittedNs);
        }
        if (ra.opPieces.size() != rb.opPieces.size())
            return "repetition " + s(r) + " op piece count " + s(ra.opPieces.size()) + " vs " + s(rb.opPieces.size());
        for (std::size_t i = 0; i < ra.opPieces.size(); ++i) {
            const auto &x = ra.opPieces[i], &y = rb.opPieces[i];
            if (x.op != y.op || x.startNs != y.startNs || x.endNs != y.endNs || x.kind != y.kind || x.bytes != y.bytes
                || a.string(x.nameId) != b.string(y.nameId) || x.channel != y.channel || x.channelType != y.channelType
                || x.srcDevice != y.srcDevice || x.dstDevice != y.dstDevice)
                return "repetition " + s(r) + " op piece " + s(i) + " (op " + s(x.op) + ") differs: " + s(x.startNs)
                       + ".." + s(x.endNs) + " vs " + s(y.startNs) + ".." + s(y.endNs);
        }
    }
    return {};
}

} // namespace streamscope::test

namespace streamscope::test {

// QCOMPARE cannot print the engine's enums (their toString returns string_view): compare their names.
// How many ops of every repetition satisfy pred.
template <typename Pred> int countOps(const engine::Trace &t, Pred pred)
{
    int n = 0;
    for (const auto &rep : t.repetitions)
        for (const auto &op : rep.ops)
            n += pred(op) ? 1 : 0;
    return n;
}

// "device:stream=count" of the ops that satisfy pred, in (device, stream) order, joined by separator.
template <typename Pred> QString perStream(const engine::Trace &t, Pred pred, const QString &separator)
{
    std::map<std::pair<int, std::int64_t>, int> n;
    for (const auto &rep : t.repetitions)
        for (const auto &op : rep.ops)
            if (op.stream >= 0 && pred(op))
                ++n[{t.streams[op.stream].device, t.streams[op.stream].nativeId}];
    QStringList parts;
    for (const auto &[key, count] : n)
        parts << QString("%1:%2=%3").arg(key.first).arg(key.second).arg(count);
    return parts.join(separator);
}

template <typename E> QString enumName(E value)
{
    const auto name = engine::toString(value);
    return QString::fromLatin1(name.data(), qsizetype(name.size()));
}

} // namespace streamscope::test
