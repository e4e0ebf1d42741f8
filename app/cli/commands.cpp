// The subcommands of streamscope-cli: thin wrappers over the engine that format its results for a
// terminal (tables) or for a program (JSON lines), and map engine errors to exit codes.
#include "app/cli/commands.h"
#include "app/cli/table_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/analysis.h"
#include "engine/csv_export.h"
#include "engine/errors.h"
#include "engine/native_format.h"
#include "engine/runner.h"
#include "engine/trace_io.h"
#include "engine/units.h"
#include "engine/workload_parser.h"

namespace streamscope::cli {

using engine::Error;
using engine::ErrorKind;
using nlohmann::json;

namespace {

std::string deviceLine(const engine::DeviceInfo &d)
{
    std::ostringstream s;
    s << d.name << " (cc " << d.ccMajor << "." << d.ccMinor << ", " << d.smCount << " SMs, " << d.asyncEngineCount
      << " copy engine" << (d.asyncEngineCount == 1 ? "" : "s");
    if (d.pcieGeneration > 0)
        s << ", PCIe gen" << d.pcieGeneration << " x" << d.pcieWidth;
    if (d.linkPeakGBs > 0)
        s << " (" << std::fixed << std::setprecision(1) << d.linkPeakGBs << " GB/s per direction)";
    s << ")";
    return s.str();
}

// Per op index: the median over repetitions of start (relative to the repetition), duration, GB/s
// and host call time. The bandwidth sweep's table is this.
void printOpTable(const engine::Trace &trace, int rows, std::ostream &out)
{
    if (rows <= 0 || trace.repetitions.empty())
        return;
    struct Samples {
        const engine::OpRecord *first = nullptr;
        std::vector<double> start, dur, gbs, host;
    };
    std::map<int, Samples> byIndex;
    for (int r = 0; r < static_cast<int>(trace.repetitions.size()); ++r) {
        const auto origin = trace.extent(r).first;
        int fallback = 0;
        for (const auto &op : trace.repetitions[r].ops) {
            const int position = fallback++;
            const int key = op.opIndex >= 0 ? op.opIndex : position;
            Samples &s = byIndex[key];
            if (!s.first)
                s.first = &op;
            const std::int64_t t0 = op.hasGpu() ? op.gpuStartNs : op.hostStartNs;
            if (t0 != engine::kNoTime)
                s.start.push_back(static_cast<double>(t0 - origin));
            if (op.hasGpu())
                s.dur.push_back(static_cast<double>(op.gpuDurationNs()));
            if (op.gbPerSecond() > 0)
                s.gbs.push_back(op.gbPerSecond());
            // A prefetch: what its migrations moved over its execution (their span), where recorded.
            if (op.kind == engine::OpKind::Prefetch && op.gpuDurationNs() > 0) {
                const auto um = engine::unifiedMemoryStats(trace.repetitions[r], position);
                if (um.h2dBytes + um.d2hBytes > 0)
                    s.gbs.push_back(double(um.h2dBytes + um.d2hBytes) / double(op.gpuDurationNs()));
            }
            if (op.hasHost())
                s.host.push_back(static_cast<double>(op.hostDurationNs()));
        }
    }
    out << "\n  " << padRight("#", 5) << padRight("stream", 14) << padRight("op", 30) << padRight("start", 12)
        << padRight("GPU time", 12) << padRight("GB/s", 10) << "host call\n";
    int shown = 0;
    for (const auto &[index, s] : byIndex) {
        if (shown++ >= rows) {
            out << "  ... " << (byIndex.size() - static_cast<std::size_t>(rows))
                << " more ops (--ops N to show more)\n";
            break;
        }
        const auto &op = *s.first;
        const std::string stream =
            op.stream >= 0 && op.stream < static_cast<int>(trace.streams.size()) ? trace.streams[op.stream].name : "host";
        auto med = [](const std::vector<double> &v) { return engine::spreadOf(v).median; };
        std::ostringstream g;
        if (!s.gbs.empty())
            g << std::fixed << std::setprecision(2) << med(s.gbs);
        else
            g << "-";
        std::string name = trace.name(op);
        if (name.size() > 28)
            name = name.substr(0, 27) + "~";
        out << "  " << padRight(std::to_string(index), 5) << padRight(stream.substr(0, 13), 14) << padRight(name, 30)
            << padRight(s.start.empty() ? "-" : ms(med(s.start)), 12)
            << padRight(s.dur.empty() ? "-" : ms(med(s.dur)), 12) << padRight(g.str(), 10)
            << (s.host.empty() ? "-" : ms(med(s.host))) << (engine::isHostBlocking(op) ? "  (blocks host)" : "")
            << "\n";
    }
}

// What timed the run, why where it fell back, and in a CUPTI-timed run how wrong events would have been.
void printTiming(const engine::Trace &trace, std::ostream &out)
{
    out << "\n  timing: ";
    switch (trace.timing) {
    case engine::TimingSource::Cupti: out << "CUPTI (execution as the GPU ran it; stream-ready from CUDA events)"; break;
    case engine::TimingSource::Events: out << "CUDA events (time queued behind other work counts as execution)"; break;
    case engine::TimingSource::Profiler: out << "the profiler that recorded it"; break;
    }
    out << "\n";
    if (!trace.timingNote.empty())
        out << "  " << trace.timingNote << "\n";
    const auto errors = engine::eventTimingErrors(trace);
    if (errors.empty())
        return;
    out << "\n  event timing vs execution (what events would have reported), per op kind:\n  " << padRight("kind", 10)
        << padRight("ops", 7) << padRight("events longer by", 28) << padRight("relative", 24) << "queued\n";
    for (const auto &e : errors) {
        auto us = [](double ns) { return engine::formatDuration(std::llround(ns)); };
        out << "  " << padRight(std::string(engine::toString(e.kind)), 10) << padRight(std::to_string(e.excessNs.count), 7)
            << padRight(spreadText(e.excessNs, us), 28) << padRight(spreadText(e.excessFraction, pct), 24)
            << spreadText(e.queuedNs, us) << "\n";
    }
}

void printSummary(const engine::Trace &trace, int opRows, std::ostream &out)
{
    const engine::TraceSummary s = engine::summarize(trace);
    out << "\n" << (trace.title.empty() ? std::string("trace") : trace.title);
    if (!trace.devices.empty())
        out << " on " << deviceLine(trace.devices.front());
    out << "\n" << s.repetitions.size() << " repetition" << (s.repetitions.size() == 1 ? "" : "s")
        << ", " << trace.opCount() << " ops; medians [min .. max]\n\n";
    auto row = [&](const char *label, const std::string &value) { out << "  " << padRight(label, 26) << value << "\n"; };
    row("makespan", spreadText(s.makespanNs, ms));
    row("ideal bound", spreadText(s.idealBoundNs, ms));
    row("efficiency (bound/makespan)", spreadText(s.efficiency, pct));
    row("copy/compute overlap", spreadText(s.overlapFraction, pct));
    row(">= 2 ops active", spreadText(s.concurrentNs, ms));
    if (s.h2dGBs.count)
        row("H2D bandwidth", spreadText(s.h2dGBs, gbs));
    if (s.d2hGBs.count)
        row("D2H bandwidth", spreadText(s.d2hGBs, gbs));
    if (s.d2dGBs.count)
        row("D2D bandwidth", spreadText(s.d2dGBs, gbs));
    if (s.umGpuPageFaults.count) { // the driver's unified-memory records
        auto bytes = [](double b) { return engine::formatBytes(static_cast<std::uint64_t>(b)); };
        auto count = [](double n) { return std::to_string(std::llround(n)); };
        row("UM migrated H2D", spreadText(s.umH2DBytes, bytes) +
                                   (s.umH2DGBs.count ? ", at " + spreadText(s.umH2DGBs, gbs) : std::string()));
        if (s.umD2HBytes.max > 0)
            row("UM migrated D2H", spreadText(s.umD2HBytes, bytes) +
                                       (s.umD2HGBs.count ? ", at " + spreadText(s.umD2HGBs, gbs) : std::string()));
        row("UM GPU page faults", spreadText(s.umGpuPageFaults, count) + ", handled over " +
                                      spreadText(s.umGpuFaultNs, ms));
    }
    row("host time in API calls", spreadText(s.hostCallNs, ms));
    row("host blocked", spreadText(s.hostBlockedNs, ms));
    if (!trace.streams.empty()) {
        out << "\n  " << padRight("stream", 20) << padRight("ops", 7) << "busy (of makespan)\n";
        const auto &median = s.repetitions.empty() ? engine::RepetitionStats{} : s.repetitions[s.medianRepetition];
        for (std::size_t i = 0; i < trace.streams.size(); ++i) {
            const int ops = i < median.streams.size() ? median.streams[i].ops : 0;
            out << "  " << padRight(trace.streams[i].name, 20) << padRight(std::to_string(ops), 7)
                << spreadText(s.streamBusyFraction[i], pct) << "\n";
        }
    }
    printTiming(trace, out);
    printOpTable(trace, opRows, out);
}

json progressLine(const engine::RunProgress &p)
{
    return {{"event", "progress"},
            {"phase", std::string(engine::toString(p.phase))},
            {"repetition", p.repetition},
            {"total", p.total},
            {"message", p.message}};
}

} // namespace

int cmdDevices(bool asJson, std::ostream &out, std::ostream &err)
{
    try {
        const auto devices = engine::listDevices();
        if (asJson) {
            out << engine::devicesToJson(devices) << "\n";
            return ExitOk;
        }
        out << padRight("#", 4) << padRight("name", 26) << padRight("cc", 6) << padRight("SMs", 6)
            << padRight("copy eng", 10) << padRight("memory", 12) << padRight("PCIe", 12) << "bus id\n";
        for (const auto &d : devices) {
            std::string pcie = d.pcieGeneration ? "gen" + std::to_string(d.pcieGeneration) + " x" +
                                                      std::to_string(d.pcieWidth)
                                                : "?";
            out << padRight(std::to_string(d.index), 4) << padRight(d.name, 26)
                << padRight(std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor), 6)
                << padRight(std::to_string(d.smCount), 6) << padRight(std::to_string(d.asyncEngineCount), 10)
                << padRight(engine::formatBytes(d.totalMemBytes), 12) << padRight(pcie, 12) << d.pciBusId << "\n";
        }
        if (!devices.empty())
            out << "driver " << devices.front().driverVersion / 1000 << "." << (devices.front().driverVersion % 1000) / 10
                << ", runtime " << devices.front().runtimeVersion / 1000 << "."
                << (devices.front().runtimeVersion % 1000) / 10 << "\n";
        return ExitOk;
    } catch (const Error &e) {
        err << "streamscope-cli devices: " << e.what() << "\n";
        return exitCodeOf(e.kind());
    }
}

int cmdValidate(const std::vector<std::string> &files, std::ostream &out, std::ostream &err)
{
    int result = ExitOk;
    for (const auto &file : files) {
        try {
            const engine::Workload w = engine::loadWorkloadFile(file);
            out << file << ": ok: '" << w.name << "', " << w.streams.size() << " stream"
                << (w.streams.size() == 1 ? "" : "s") << ", " << w.opCount() << " ops, " << w.buffers.size()
                << " buffers (device " << engine::formatBytes(w.deviceBytes()) << ", managed "
                << engine::formatBytes(w.managedBytes()) << ", host " << engine::formatBytes(w.hostBytes()) << ")\n";
        } catch (const Error &e) {
            err << e.what() << "\n";
            result = result == ExitOk ? exitCodeOf(e.kind()) : result;
        }
    }
    return result;
}

int cmdRun(const RunArgs &args, const std::atomic<bool> &cancel, std::ostream &out, std::ostream &err)
{
    const bool jsonMode = args.progress == "json";
    std::ostream &human = jsonMode ? err : out;
    auto fail = [&](const Error &e) { return reportError(e, "run", jsonMode, out, err); };
    try {
        const engine::Workload workload = engine::loadWorkloadFile(args.workload);
        engine::RunOptions options;
        options.device = args.device.value_or(-1);
        options.repetitions = args.repetitions.value_or(-1);
        options.warmup = args.warmup.value_or(-1);
        options.nvtx = args.nvtx;
        options.timing = engine::timingModeFromString(args.timing).value_or(engine::TimingMode::Cupti);
        options.kernelLatency = args.kernelLatency;
        if (jsonMode)
            emit(out, {{"event", "start"},
                       {"workload", workload.name},
                       {"file", args.workload},
                       {"device", options.device >= 0 ? options.device : workload.device},
                       {"warmup", options.warmup >= 0 ? options.warmup : workload.warmup},
                       {"repetitions", options.repetitions >= 0 ? options.repetitions : workload.repetitions},
                       {"ops", workload.opCount()}});
        else
            human << "running '" << workload.name << "' (" << workload.opCount() << " ops on "
                  << workload.streams.size() << " streams)...\n";
        if (jsonMode) {
            // Which GPU runs it, before the first progress line (the GUI shows it while the run goes on).
            const int index = options.device >= 0 ? options.device : workload.device;
            for (const auto &d : engine::listDevices())
                if (d.index == index)
                    emit(out, {{"event", "device"},
                               {"index", d.index},
                               {"name", d.name},
                               {"cc", std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor)}});
        }
        auto onProgress = [&](const engine::RunProgress &p) {
            if (jsonMode)
                emit(out, progressLine(p));
        };
        engine::Trace trace = engine::runWorkload(workload, options, onProgress, &cancel);
        trace.workloadJson = engine::workloadToJson(workload);
        trace.sourcePath = args.workload;
        if (!args.output.empty()) {
            if (args.format == "csv")
                engine::writeCsv(trace, args.output);
            else
                engine::writeNativeTrace(trace, args.output);
        }
        printSummary(trace, args.opRows, human);
        if (!args.output.empty())
            human << "\nwrote " << args.output << "\n";
        if (jsonMode) {
            const auto s = engine::summarize(trace);
            emit(out, {{"event", "done"},
                       {"output", args.output},
                       {"ops", trace.opCount()},
                       {"makespan_ns_median", static_cast<std::int64_t>(s.makespanNs.median)}});
        }
        return ExitOk;
    } catch (const Error &e) {
        return fail(e);
    } catch (const std::exception &e) {
        return reportInternalError(e, "run", jsonMode, out, err);
    }
}

int cmdSummary(const std::string &file, int opRows, std::ostream &out, std::ostream &err)
{
    try {
        const engine::Trace trace = engine::loadTrace(file);
        printSummary(trace, opRows, out);
        return ExitOk;
    } catch (const Error &e) {
        err << "streamscope-cli summary: " << e.what() << "\n";
        return exitCodeOf(e.kind());
    }
}

int cmdExport(const std::string &input, const std::string &format, const std::string &output, std::ostream &out,
              std::ostream &err)
{
    try {
        const auto fmt = engine::exportFormatFromString(format);
        if (!fmt) {
            err << "streamscope-cli export: unknown format '" << format << "' (native, chrome, csv)\n";
            return ExitUsage;
        }
        const engine::Trace trace = engine::loadTrace(input);
        engine::exportTrace(trace, *fmt, output);
        out << "wrote " << output << " (" << format << ", " << trace.opCount() << " ops from " << input << ")\n";
        return ExitOk;
    } catch (const Error &e) {
        err << "streamscope-cli export: " << e.what() << "\n";
        return exitCodeOf(e.kind());
    }
}

} // namespace streamscope::cli
