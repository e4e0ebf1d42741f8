// checkTraceLimits(): one pass over a trace as read, naming the first value beyond a limit.
#include "engine/model/limits.h"

#include <algorithm>

#include "engine/model/errors.h"
#include "engine/model/trace.h"

namespace streamscope::engine::limits {

std::string describeBytes(std::uint64_t bytes)
{
    static constexpr const char *kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int unit = 0;
    while (unit < 6 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        ++unit;
    }
    return std::to_string(bytes) + " " + kUnits[unit];
}

std::string describeSpan(std::int64_t ns)
{
    constexpr double kDay = 86400e9;
    constexpr double kYear = 365.25 * kDay;
    const auto d = static_cast<double>(ns);
    if (d >= kYear)
        return std::to_string(static_cast<long long>(d / kYear)) + " years";
    return std::to_string(static_cast<long long>(d / kDay)) + " days";
}

namespace {

[[noreturn]] void fail(const std::string &fileName, const std::string &where, const std::string &what)
{
    throw Error(ErrorKind::InvalidInput, fileName + ": " + where + ": " + what);
}

std::string tooMany(std::size_t count, const char *what, std::size_t limit)
{
    return std::to_string(count) + " " + what + ", more than StreamScope reads (at most " + std::to_string(limit) + ")";
}

std::string outOfRange(const char *what, std::int64_t ns)
{
    return std::string(what) + " " + std::to_string(ns) + " ns is out of range: StreamScope reads times within ±"
           + std::to_string(kMaxTimeNs) + " ns (" + describeSpan(kMaxTimeNs) + ")";
}

// Widens the extent [lo, hi] by one interval; both ends already in range, so nothing wraps.
void widen(std::int64_t &lo, std::int64_t &hi, std::int64_t a, std::int64_t b)
{
    lo = std::min(lo, a);
    hi = std::max(hi, b);
}

} // namespace

namespace {
// An op's pieces (OpPiece) lie inside its GPU span, in op order and then by start, and name strings
// the trace has: the painter draws them inside the op's bar and the details list them from the op.
void checkPieces(const Trace &trace, std::size_t r, const std::string &fileName)
{
    const Repetition &rep = trace.repetitions[r];
    for (std::size_t i = 0; i < rep.opPieces.size(); ++i) {
        const OpPiece &p = rep.opPieces[i];
        const auto where = [&] { return "repetition " + std::to_string(r) + ", op piece " + std::to_string(i); };
        if (p.op < 0 || static_cast<std::size_t>(p.op) >= rep.ops.size())
            fail(fileName, where(),
                 "op " + std::to_string(p.op) + " is not an op of this repetition (" + std::to_string(rep.ops.size())
                     + " ops)");
        if (i > 0) {
            const OpPiece &q = rep.opPieces[i - 1];
            if (p.op < q.op || (p.op == q.op && p.startNs < q.startNs))
                fail(fileName, where(), "op pieces must be in op order, and by start within an op");
        }
        const OpRecord &op = rep.ops[static_cast<std::size_t>(p.op)];
        if (!op.hasGpu() || p.startNs < op.gpuStartNs || p.endNs > op.gpuEndNs || p.endNs < p.startNs)
            fail(fileName, where(),
                 "a piece of op " + std::to_string(p.op) + " must lie inside the op's GPU time (it runs "
                     + std::to_string(p.startNs) + ".." + std::to_string(p.endNs) + " ns, the op "
                     + (op.hasGpu() ? std::to_string(op.gpuStartNs) + ".." + std::to_string(op.gpuEndNs) + " ns"
                                    : std::string("has none"))
                     + ")");
        if (p.nameId != kNoString && p.nameId >= trace.strings.size())
            fail(fileName, where(), "name index " + std::to_string(p.nameId) + " is not in the trace's strings");
    }
}
} // namespace

void checkTraceLimits(const Trace &trace, const std::string &fileName)
{
    if (trace.repetitions.size() > kMaxRepetitions)
        fail(fileName, "/repetitions", tooMany(trace.repetitions.size(), "repetitions", kMaxRepetitions));
    if (trace.streams.size() > kMaxStreams)
        fail(fileName, "/streams", tooMany(trace.streams.size(), "streams", kMaxStreams));
    if (trace.hostThreads.size() > kMaxHostThreads)
        fail(fileName, "/host_threads", tooMany(trace.hostThreads.size(), "host threads", kMaxHostThreads));
    if (trace.devices.size() > kMaxDevices)
        fail(fileName, "/devices", tooMany(trace.devices.size(), "devices", kMaxDevices));
    std::size_t ops = 0, activities = 0, ranges = 0, pieces = 0;
    for (const Repetition &rep : trace.repetitions) {
        ops += rep.ops.size();
        pieces += rep.opPieces.size();
        activities += rep.activities.size();
        ranges += rep.hostRanges.size();
    }
    if (ops > kMaxOps)
        fail(fileName, "the whole trace", tooMany(ops, "ops", kMaxOps));
    if (pieces > kMaxOps)
        fail(fileName, "the whole trace", tooMany(pieces, "op pieces", kMaxOps));
    if (activities > kMaxActivities)
        fail(fileName, "the whole trace", tooMany(activities, "activity records", kMaxActivities));
    if (ranges > kMaxHostRanges)
        fail(fileName, "the whole trace", tooMany(ranges, "host ranges", kMaxHostRanges));
    std::uint64_t textBytes = 0;
    for (const std::string &s : trace.strings)
        textBytes += s.size();
    if (textBytes > kMaxTotalTextBytes)
        fail(fileName, "/strings",
             describeBytes(textBytes) + " of names, more than StreamScope reads (at most "
                 + describeBytes(kMaxTotalTextBytes) + ")");

    std::int64_t lo = kMaxTimeNs, hi = -kMaxTimeNs;
    for (std::size_t r = 0; r < trace.repetitions.size(); ++r) {
        const Repetition &rep = trace.repetitions[r];
        std::size_t launch = 0; // the first kernel launch at or after op i
        for (std::size_t i = 0; i < rep.ops.size(); ++i) {
            const OpRecord &op = rep.ops[i];
            while (launch < rep.kernelLaunches.size() && rep.kernelLaunches[launch].op < static_cast<std::int64_t>(i))
                ++launch;
            const KernelLaunch *l =
                launch < rep.kernelLaunches.size() && rep.kernelLaunches[launch].op == static_cast<std::int64_t>(i)
                    ? &rep.kernelLaunches[launch]
                    : nullptr;
            const auto where = [&] {
                return "repetition " + std::to_string(r) + ", op " + std::to_string(i)
                       + (op.nameId < trace.strings.size() ? " (" + trace.strings[op.nameId] + ")" : std::string());
            };
            const std::pair<const char *, std::int64_t> times[] = {
                {"GPU start", op.gpuStartNs},          {"GPU end", op.gpuEndNs},
                {"host start", op.hostStartNs},        {"host end", op.hostEndNs},
                {"stream-ready", op.readyNs},          {"event end", op.eventEndNs},
                {"queued", l ? l->queuedNs : kNoTime}, {"submitted", l ? l->submittedNs : kNoTime}};
            for (const auto &[what, ns] : times) {
                if (!isTimeInRange(ns))
                    fail(fileName, where(), outOfRange(what, ns));
            }
            if (op.hasGpu()) {
                if (op.gpuEndNs < op.gpuStartNs)
                    fail(fileName, where(), "GPU end is before GPU start");
                widen(lo, hi, op.gpuStartNs, op.gpuEndNs);
            }
            if (op.hasHost()) {
                if (op.hostEndNs < op.hostStartNs)
                    fail(fileName, where(), "host end is before host start");
                widen(lo, hi, op.hostStartNs, op.hostEndNs);
            }
            if (hi > lo && hi - lo > kMaxSpanNs)
                fail(fileName, where(),
                     "the trace would span " + std::to_string(hi - lo)
                         + " ns from its first to its last instant; "
                           "StreamScope reads traces of at most "
                         + std::to_string(kMaxSpanNs) + " ns (" + describeSpan(kMaxSpanNs) + ")");
        }
        for (std::size_t i = 0; i < rep.activities.size(); ++i) {
            const ActivityRecord &a = rep.activities[i];
            const auto where = [&] { return "repetition " + std::to_string(r) + ", activity " + std::to_string(i); };
            if (!isTimeInRange(a.startNs))
                fail(fileName, where(), outOfRange("start", a.startNs));
            if (!isTimeInRange(a.endNs))
                fail(fileName, where(), outOfRange("end", a.endNs));
            if (a.startNs == kNoTime)
                continue;
            widen(lo, hi, a.startNs, std::max(a.startNs, a.endNs));
            if (hi > lo && hi - lo > kMaxSpanNs)
                fail(fileName, where(),
                     "the trace would span " + std::to_string(hi - lo) + " ns; StreamScope reads traces of at most "
                         + std::to_string(kMaxSpanNs) + " ns (" + describeSpan(kMaxSpanNs) + ")");
        }
        checkPieces(trace, r, fileName);
        // Host ranges as ops: a range a reader let through beyond these, the native reader refused once
        // written (#24).
        for (std::size_t i = 0; i < rep.hostRanges.size(); ++i) {
            const HostRange &h = rep.hostRanges[i];
            const auto where = [&] {
                return "repetition " + std::to_string(r) + ", host range " + std::to_string(i)
                       + (h.nameId < trace.strings.size() ? " (" + trace.strings[h.nameId] + ")" : std::string());
            };
            if (!isTimeInRange(h.startNs))
                fail(fileName, where(), outOfRange("start", h.startNs));
            if (!isTimeInRange(h.endNs))
                fail(fileName, where(), outOfRange("end", h.endNs));
            if (h.endNs < h.startNs)
                fail(fileName, where(), "it ends before it starts");
            widen(lo, hi, h.startNs, h.endNs);
            if (hi > lo && hi - lo > kMaxSpanNs)
                fail(fileName, where(),
                     "the trace would span " + std::to_string(hi - lo) + " ns; StreamScope reads traces of at most "
                         + std::to_string(kMaxSpanNs) + " ns (" + describeSpan(kMaxSpanNs) + ")");
        }
    }
}

} // namespace streamscope::engine::limits
