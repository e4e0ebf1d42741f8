// CSV export: one row per op, times relative to the start of its repetition, in nanoseconds.
#include "engine/formats/csv_export.h"

#include <charconv>

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
                      "host_start_ns,host_end_ns,host_call_ns,bytes,gb_per_s,src_mem,dst_mem,api,correlation\n";
    out.reserve(out.size() + trace.opCount() * 120);
    for (int r = 0; r < static_cast<int>(trace.repetitions.size()); ++r) {
        const auto origin = trace.extent(r).first;
        for (const OpRecord &op : trace.repetitions[r].ops) {
            appendNumber(out, trace.repetitions[r].index);
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
