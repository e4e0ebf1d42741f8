// describeOp() and its plain-text form (see op_description.h).
#include "engine/analysis/op_description.h"

#include <cstdio>
#include <sstream>
#include <utility>

#include "engine/analysis/analysis.h"
#include "engine/analysis/op_intervals.h"
#include "engine/analysis/queue_analysis.h"
#include "engine/model/api_names.h"
#include "engine/model/errors.h"
#include "engine/model/op_kinds.h"
#include "engine/model/units.h"

namespace streamscope::engine {

namespace {

// The profiler whose capture an imported trace is, in words.
std::string_view profilerName(TraceSource source)
{
    switch (source) {
    case TraceSource::NsysSqlite: return "Nsight Systems";
    case TraceSource::ChromeJson: return "the profiler's Chrome trace";
    case TraceSource::StreamScope: break;
    }
    return "StreamScope";
}

// "launched with PDL: started 0.26 µs before 'kernel 2 µs' (op #11) ended" and the like.
std::string pdlSentence(const Trace &trace, const Repetition &rep, int opIndex)
{
    const PdlOverlap o = pdlOverlap(rep, opIndex);
    const std::string what = "launched with programmatic dependent launch (PDL)";
    if (o.before < 0)
        return what + "; no op ran before it on its stream in this repetition, so there was nothing to overlap";
    const OpRecord &before = rep.ops[std::size_t(o.before)];
    const std::string named = "'" + trace.name(before) + "' (op #" + std::to_string(before.opIndex) + ")";
    if (o.overlapNs > 0)
        return what + ": started " + formatDuration(o.overlapNs) + " before " + named
               + " ended, and waited for it on the GPU (cudaGridDependencySynchronize)";
    if (before.kind != OpKind::Kernel)
        return what + ": started " + formatDuration(-o.overlapNs) + " after " + named
               + " ended; PDL overlaps a kernel with the kernel before it, and this one follows a "
               + std::string(opKindInfo(before.kind).label);
    return what + ": started " + formatDuration(-o.overlapNs) + " after " + named + " ended, overlapping none of it";
}

} // namespace

PdlOverlap pdlOverlap(const Repetition &rep, int opIndex)
{
    PdlOverlap o;
    if (opIndex < 0 || std::size_t(opIndex) >= rep.ops.size())
        return o;
    const OpRecord &op = rep.ops[std::size_t(opIndex)];
    if (op.stream < 0 || !op.hasGpu())
        return o;
    for (int j = opIndex - 1; j >= 0; --j) {
        const OpRecord &b = rep.ops[std::size_t(j)];
        if (b.stream != op.stream)
            continue;
        if (b.hasGpu()) {
            o.before = j;
            o.overlapNs = b.gpuEndNs - op.gpuStartNs;
        }
        break;
    }
    return o;
}

OpDescription describeOp(const Trace &trace, int repetition, int opIndex)
{
    if (repetition < 0 || static_cast<std::size_t>(repetition) >= trace.repetitions.size())
        throw Error(ErrorKind::InvalidInput, "repetition " + std::to_string(repetition)
                                                 + " does not exist (the trace has "
                                                 + std::to_string(trace.repetitions.size()) + ")");
    const Repetition &rep = trace.repetitions[static_cast<std::size_t>(repetition)];
    if (opIndex < 0 || static_cast<std::size_t>(opIndex) >= rep.ops.size())
        throw Error(ErrorKind::InvalidInput, "op " + std::to_string(opIndex) + " does not exist (repetition "
                                                 + std::to_string(repetition) + " has " + std::to_string(rep.ops.size())
                                                 + " ops)");
    const OpRecord &op = rep.ops[static_cast<std::size_t>(opIndex)];
    const std::int64_t origin = trace.extent(repetition).first;
    OpDescription d;
    d.name = trace.name(op);
    d.kind = opKindInfo(op.kind).label;
    d.copy = isCopy(op.kind);
    if (op.stream >= 0 && static_cast<std::size_t>(op.stream) < trace.streams.size())
        d.stream = &trace.streams[static_cast<std::size_t>(op.stream)];
    d.workloadIndex = op.opIndex;
    if (op.hasHost())
        d.host = OpInterval{op.hostStartNs - origin, op.hostEndNs - origin, op.hostDurationNs()};
    d.hostBlocking = isHostBlocking(op);
    d.cupti = trace.timing == TimingSource::Cupti && !op.executionFromEvents();
    d.timedBy = d.cupti                                  ? "CUPTI"
                : trace.timing == TimingSource::Profiler ? std::string(profilerName(trace.source))
                                                         : "CUDA events";
    if (op.readyNs != kNoTime && d.cupti)
        d.streamReadyNs = op.readyNs - origin;
    if (op.hasGpu()) {
        d.gpu = OpInterval{op.gpuStartNs - origin, op.gpuEndNs - origin, op.gpuDurationNs()};
        if (d.cupti) {
            const QueueExplanation q = explainQueued(trace, repetition, opIndex);
            if (q.cause != QueueCause::None)
                d.queueCause = q.text;
        }
    }
    d.queuedNs = op.queuedDurationNs();
    d.bytes = op.bytes;
    d.gbs = op.gbPerSecond();
    if (op.srcMem != MemKind::None || op.dstMem != MemKind::None) {
        d.srcMem = toString(op.srcMem);
        d.dstMem = toString(op.dstMem);
    }
    if (op.api != CopyApi::None)
        d.copyCall = apiNameOf(op);
    d.range = rep.enclosingRange(op);
    // A node of a graph (OpFlagGraphNode) has no call of its own: the launch that ran it is its range, the last one
    // its thread made before it started (an imported trace's repetition may hold many).
    if (!d.range && (op.flags & OpFlagGraphNode))
        for (const HostRange &h : rep.hostRanges)
            if (h.category == HostRangeCategory::Launch && (h.hostThread == op.hostThread || h.hostThread < 0)
                && (!op.hasGpu() || h.startNs <= op.gpuStartNs) && (!d.range || h.startNs > d.range->startNs))
                d.range = &h;
    d.launch = rep.launchOf(opIndex);
    if (d.launch && d.gpu) {
        d.teraflops = d.launch->teraflopsPerSecond(d.gpu->durationNs);
        d.busGbs = d.launch->busGbPerSecond(d.gpu->durationNs);
    }
    if (op.flags & OpFlagPdl)
        d.pdl = pdlSentence(trace, rep, opIndex);
    d.pieces = rep.piecesOf(opIndex);
    if (d.gpu) {
        d.piecesSummary = summarisePieces(d.pieces, d.gpu->durationNs);
        d.piecesOriginNs = op.gpuStartNs;
        std::vector<std::pair<std::int64_t, std::int64_t>> kernels;
        for (const OpPiece &p : d.pieces)
            if (p.kind == PieceKind::Kernel)
                kernels.emplace_back(p.startNs, p.endNs);
        const std::int64_t kernelNs = unionLength(std::move(kernels));
        if (d.launch && kernelNs > 0 && kernelNs < d.gpu->durationNs)
            d.kernelTeraflops = d.launch->teraflopsPerSecond(kernelNs);
    }
    return d;
}

std::string summarisePieces(std::span<const OpPiece> pieces, std::int64_t opDurationNs)
{
    if (pieces.empty())
        return {};
    std::size_t kernels = 0, copies = 0, memsets = 0, onCopyEngines = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> spans;
    for (const OpPiece &p : pieces) {
        kernels += p.kind == PieceKind::Kernel;
        copies += p.kind == PieceKind::Copy;
        memsets += p.kind == PieceKind::Memset;
        onCopyEngines += p.kind != PieceKind::Kernel && p.channelType == ChannelType::AsyncCopy;
        spans.emplace_back(p.startNs, p.endNs);
    }
    const auto count = [](std::size_t n, const char *one, const char *many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    std::string out;
    const auto add = [&](const std::string &part) { out += (out.empty() ? "" : ", ") + part; };
    if (kernels > 0)
        add(count(kernels, "kernel", "kernels"));
    if (copies > 0)
        add(count(copies, "copy", "copies") + (onCopyEngines == copies + memsets ? " on copy engines" : ""));
    if (memsets > 0)
        add(count(memsets, "memset", "memsets"));
    if (kernels == 0)
        out += ", no kernel";
    const std::int64_t busy = unionLength(std::move(spans));
    if (opDurationNs > 0)
        out += "; busy " + formatDuration(busy) + " of its " + formatDuration(opDurationNs);
    return out;
}

std::string describePiece(const Trace &trace, const OpPiece &p)
{
    std::string out(toString(p.kind));
    if (p.kind == PieceKind::Kernel && p.nameId != kNoString)
        out += " " + trace.string(p.nameId);
    if (p.bytes > 0)
        out += " " + formatBytes(p.bytes);
    if (p.srcDevice >= 0 && p.dstDevice >= 0)
        out += ", GPU " + std::to_string(p.srcDevice) + " -> GPU " + std::to_string(p.dstDevice);
    if (p.channel >= 0)
        out += std::string(", ") + (p.channelType == ChannelType::AsyncCopy ? "copy engine channel " : "channel ")
               + std::to_string(p.channel);
    if (const double gbs = p.gbPerSecond(); gbs > 0 && p.kind == PieceKind::Copy) // a memset's few bytes: no rate
        out += ", " + formatRate(gbs);
    return out;
}

std::string formatFlops(std::uint64_t flops)
{
    static constexpr std::pair<double, const char *> kUnits[] = {
        {1e15, "PFLOP"}, {1e12, "TFLOP"}, {1e9, "GFLOP"}, {1e6, "MFLOP"}, {1e3, "kFLOP"}};
    for (const auto &[scale, unit] : kUnits)
        if (double(flops) >= scale) {
            char text[48];
            std::snprintf(text, sizeof text, "%.3g %s", double(flops) / scale, unit);
            return text;
        }
    return std::to_string(flops) + " FLOP";
}

std::string formatOpDescription(const Trace &trace, const OpDescription &d)
{
    std::ostringstream out;
    const auto interval = [](const OpInterval &i) {
        return formatDuration(i.startNs) + " -> " + formatDuration(i.endNs) + " (" + formatDuration(i.durationNs) + ")";
    };
    out << d.name << "\n";
    out << "kind: " << d.kind << "\n";
    if (d.stream)
        out << "stream: " << d.stream->name << (d.stream->isDefault ? " (default stream)" : "") << "\n";
    if (d.workloadIndex >= 0)
        out << "op: #" << d.workloadIndex << "\n";
    if (d.range)
        out << toString(d.range->category) << ": " << trace.string(d.range->nameId) << "\n";
    if (d.host)
        out << "host call: " << interval(*d.host) << (d.hostBlocking ? ", blocking" : "") << "\n";
    if (d.streamReadyNs)
        out << "stream ready: " << formatDuration(*d.streamReadyNs) << "\n";
    if (d.gpu)
        out << (d.cupti ? "executed: " : "GPU: ") << interval(*d.gpu) << ", timed by " << d.timedBy << "\n";
    if (!d.pdl.empty())
        out << "pdl: " << d.pdl << "\n";
    if (!d.queueCause.empty())
        out << d.queueCause << "\n"; // a sentence of its own: "Queued 88.5 µs: the host link's ..."
    else if (d.cupti && d.gpu && d.queuedNs > 0)
        out << "queued: " << formatDuration(d.queuedNs) << "\n";
    if (d.bytes > 0)
        out << "bytes: " << formatBytes(d.bytes) << " (" << d.bytes << " B)"
            << (d.gbs > 0 ? ", " + formatRate(d.gbs) : std::string()) << "\n";
    if (!d.srcMem.empty())
        out << "memory: " << d.srcMem << " -> " << d.dstMem << "\n";
    if (!d.copyCall.empty())
        out << "call: " << d.copyCall << "\n";
    if (d.launch && d.launch->fullNameId != kNoString)
        out << "kernel: " << trace.string(d.launch->fullNameId) << "\n";
    if (d.launch && d.launch->flops > 0) {
        out << "work: ";
        if (d.launch->workId != kNoString)
            out << trace.string(d.launch->workId) << ", ";
        out << formatFlops(d.launch->flops);
        if (d.teraflops > 0) {
            char rate[96];
            std::snprintf(rate, sizeof rate, "%.1f", d.teraflops);
            out << ", " << rate << " TFLOP/s";
            if (d.kernelTeraflops > 0) {
                std::snprintf(rate, sizeof rate, " (%.1f over its kernels)", d.kernelTeraflops);
                out << rate;
            }
        }
        out << "\n";
    }
    if (d.launch && d.launch->busBytes > 0) {
        out << "communication: ";
        if (d.launch->workId != kNoString)
            out << trace.string(d.launch->workId) << ", ";
        out << "algorithm bandwidth " << formatRate(d.gbs) << ", bus bandwidth " << formatRate(d.busGbs) << "\n";
    }
    if (!d.piecesSummary.empty()) {
        out << "ran as: " << d.piecesSummary << "\n";
        // Each piece from the op's start, as the timeline lays it inside the bar.
        for (std::size_t i = 0; i < d.pieces.size(); ++i)
            out << "  piece " << i + 1 << ": +" << formatDuration(d.pieces[i].startNs - d.piecesOriginNs) << ", "
                << formatDuration(d.pieces[i].durationNs()) << ": " << describePiece(trace, d.pieces[i]) << "\n";
    }
    if (d.launch && d.launch->hasGrid() && d.launch->hasBlock())
        out << "grid: " << d.launch->grid[0] << "x" << d.launch->grid[1] << "x" << d.launch->grid[2]
            << ", block: " << d.launch->block[0] << "x" << d.launch->block[1] << "x" << d.launch->block[2] << "\n";
    return out.str();
}

} // namespace streamscope::engine
