// CSV export: one row per op, times relative to the start of its repetition, in nanoseconds.
#include "engine/formats/csv_export.h"

#include <charconv>
#include <cmath>

#include "engine/analysis/interference.h"

#include "engine/util/csv.h"
#include "engine/util/file_util.h"

namespace streamscope::engine {

namespace {
void appendNumber(std::string &out, std::int64_t v)
{
    char buf[24];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, p);
}

void appendTime(std::string &out, std::int64_t v, std::int64_t origin)
{
    if (v != kNoTime)
        appendNumber(out, v - origin);
}
} // namespace

std::string toCsv(const Trace &trace)
{
    std::string out = "repetition,op_index,name,kind,stream,host_thread,gpu_start_ns,gpu_end_ns,gpu_duration_ns,"
                      "host_start_ns,host_end_ns,host_call_ns,bytes,gb_per_s,src_mem,dst_mem,api,correlation,"
                      "host_range,grid,block,shared_bytes,registers_per_thread,ready_ns,event_end_ns,"
                      "queued_duration_ns,launch_queued_ns,launch_submitted_ns,channel,channel_type,driver_src_mem,"
                      "driver_dst_mem,alone_ns,slowdown\n";
    out.reserve(out.size() + trace.opCount() * 120);
    // With solo baselines (run --solo): each op's median execution alone, and this execution over it.
    const InterferenceReport interference = trace.solo.empty() ? InterferenceReport{} : analyzeInterference(trace);
    for (int r = 0; r < static_cast<int>(trace.repetitions.size()); ++r) {
        const auto origin = trace.extent(r).first;
        const Repetition &rep = trace.repetitions[r];
        for (std::size_t i = 0; i < rep.ops.size(); ++i) {
            const OpRecord &op = rep.ops[i];
            appendNumber(out, rep.index);
            out += ',';
            appendNumber(out, op.opIndex);
            out += ',';
            appendCsvField(out, trace.name(op));
            out += ',';
            out.append(toString(op.kind));
            out += ',';
            if (op.stream >= 0 && op.stream < static_cast<int>(trace.streams.size()))
                appendCsvField(out, trace.streams[op.stream].name);
            out += ',';
            if (op.hostThread >= 0 && op.hostThread < static_cast<int>(trace.hostThreads.size()))
                appendCsvField(out, trace.hostThreads[op.hostThread].name);
            out += ',';
            appendTime(out, op.gpuStartNs, origin);
            out += ',';
            appendTime(out, op.gpuEndNs, origin);
            out += ',';
            if (op.hasGpu())
                appendNumber(out, op.gpuDurationNs());
            out += ',';
            appendTime(out, op.hostStartNs, origin);
            out += ',';
            appendTime(out, op.hostEndNs, origin);
            out += ',';
            if (op.hasHost())
                appendNumber(out, op.hostDurationNs());
            out += ',';
            appendNumber(out, static_cast<std::int64_t>(op.bytes));
            out += ',';
            if (const double gbs = op.gbPerSecond(); gbs > 0) {
                char buf[32];
                auto [p, ec] = std::to_chars(buf, buf + sizeof buf, gbs, std::chars_format::fixed, 3);
                out.append(buf, p);
            }
            out += ',';
            out.append(toString(op.srcMem));
            out += ',';
            out.append(toString(op.dstMem));
            out += ',';
            out.append(toString(op.api));
            out += ',';
            if (op.correlation)
                appendNumber(out, static_cast<std::int64_t>(op.correlation));
            // The NVTX range (or Kineto cpu_op) it was launched in, and a kernel's launch as "64x1x1".
            out += ',';
            appendCsvField(out, trace.rangeName(rep, op));
            out += ',';
            const KernelLaunch *launch = rep.launchOf(static_cast<int>(i));
            auto dims = [&](const std::uint32_t(&v)[3], bool known) {
                if (!known)
                    return;
                for (int d = 0; d < 3; ++d) {
                    if (d)
                        out += 'x';
                    appendNumber(out, v[d]);
                }
            };
            if (launch)
                dims(launch->grid, launch->hasGrid());
            out += ',';
            if (launch)
                dims(launch->block, launch->hasBlock());
            out += ',';
            if (launch && launch->sharedBytes >= 0)
                appendNumber(out, launch->sharedBytes);
            out += ',';
            if (launch && launch->registersPerThread >= 0)
                appendNumber(out, launch->registersPerThread);
            // What the operations table and the details show beyond the execution: stream-ready and the
            // event after the op (event timing), the time it waited between ready and running (known where
            // CUPTI timed the execution apart from readiness, as the details panel says it), a kernel's
            // launch timestamps, the hardware channel, and the memory kinds as the driver saw them.
            out += ',';
            appendTime(out, op.readyNs, origin);
            out += ',';
            appendTime(out, op.eventEndNs, origin);
            out += ',';
            if (trace.timing == TimingSource::Cupti && op.hasGpu() && op.readyToRunNs() != kNoTime)
                appendNumber(out, op.queuedDurationNs());
            out += ',';
            appendTime(out, launch ? launch->queuedNs : kNoTime, origin);
            out += ',';
            appendTime(out, launch ? launch->submittedNs : kNoTime, origin);
            out += ',';
            if (op.channel >= 0)
                appendNumber(out, op.channel);
            out += ',';
            if (op.channelType != ChannelType::Unknown)
                out.append(toString(op.channelType));
            out += ',';
            if (op.driverSrcMem != MemKind::None)
                out.append(toString(op.driverSrcMem));
            out += ',';
            if (op.driverDstMem != MemKind::None)
                out.append(toString(op.driverDstMem));
            out += ',';
            if (interference.known && i < interference.ops.size() && interference.ops[i].known() && op.hasGpu()) {
                const double alone = interference.ops[i].soloNs.median;
                appendNumber(out, std::llround(alone));
                out += ',';
                char buf[32];
                auto [p, ec] = std::to_chars(buf, buf + sizeof buf, double(op.gpuDurationNs()) / alone,
                                             std::chars_format::fixed, 4);
                out.append(buf, p);
            } else {
                out += ',';
            }
            out += '\n';
        }
    }
    return out;
}

void writeCsv(const Trace &trace, const std::string &path)
{
    writeFileAtomically(path, toCsv(trace));
}

} // namespace streamscope::engine
