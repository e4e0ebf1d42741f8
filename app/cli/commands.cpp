// The subcommands of streamscope-cli: thin wrappers over the engine that format its results for a
// terminal (tables) or for a program (JSON lines), and map engine errors to exit codes.
#include "app/cli/commands.h"

#include "app/cli/table_format.h"
#include "app/cli/terminal_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/analysis/analysis.h"
#include "engine/analysis/interference.h"
#include "engine/analysis/op_description.h"
#include "engine/analysis/op_statistics.h"
#include "engine/analysis/summary_metrics.h"
#include "engine/formats/csv_export.h"
#include "engine/formats/native_format.h"
#include "engine/formats/topology_json.h"
#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "engine/model/units.h"
#include "engine/run/runner.h"
#include "engine/run/topology.h"
#include "engine/workload/workload_parser.h"

namespace streamscope::cli {

using engine::Error;
using engine::ErrorKind;
using nlohmann::json;

namespace {

std::string deviceLine(const engine::DeviceInfo &d)
{
    // A count of 0 is one the trace did not record (a PyTorch profile names no copy engines): left out,
    // never printed as "0 copy engines".
    std::vector<std::string> parts;
    if (d.ccMajor > 0)
        parts.push_back("cc " + std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor));
    if (d.smCount > 0)
        parts.push_back(std::to_string(d.smCount) + " SMs");
    if (d.asyncEngineCount > 0)
        parts.push_back(std::to_string(d.asyncEngineCount) + " copy engine" + (d.asyncEngineCount == 1 ? "" : "s"));
    if (d.pcieGeneration > 0) {
        std::ostringstream link;
        link << "PCIe gen" << d.pcieGeneration << " x" << d.pcieWidth;
        if (d.linkPeakGBs > 0)
            link << " (" << std::fixed << std::setprecision(1) << d.linkPeakGBs << " GB/s per direction)";
        parts.push_back(link.str());
    } else if (d.linkPeakGBs > 0) {
        std::ostringstream link;
        link << std::fixed << std::setprecision(1) << d.linkPeakGBs << " GB/s per direction";
        parts.push_back(link.str());
    }
    std::string line = clampText(d.name);
    for (std::size_t i = 0; i < parts.size(); ++i)
        line += (i == 0 ? " (" : ", ") + parts[i];
    return parts.empty() ? line : line + ")";
}

// Per op (engine::opStatistics): the median over repetitions of start (relative to the repetition),
// duration, GB/s and host call time. The bandwidth sweep's table is this.
void printOpTable(const engine::Trace &trace, const engine::InterferenceReport &interference, int rows,
                  std::ostream &out)
{
    if (rows <= 0 || trace.repetitions.empty())
        return;
    // Only the rows shown are computed (3M ops' statistics took 1.08 GB for 40 rows, #24).
    std::size_t total = 0;
    const std::vector<engine::OpStatistics> ops = engine::opStatistics(trace, static_cast<std::size_t>(rows), &total);
    // With solo baselines, each op's execution alone and how much the mix slowed it (interference.h).
    const bool slowdowns = interference.known;
    out << "\n  " << padRight("#", 5) << padRight("stream", 14) << padRight("op", 30) << padRight("start", 12)
        << padRight("GPU time", 12) << (slowdowns ? padRight("alone", 12) + padRight("slowdown", 11) : std::string())
        << padRight("GB/s", 10) << "host call\n";
    for (const engine::OpStatistics &s : ops) {
        const auto &op = *s.first;
        const std::string stream = op.stream >= 0 && op.stream < static_cast<int>(trace.streams.size())
                                       ? trace.streams[op.stream].name
                                       : "host";
        std::ostringstream g;
        if (s.gbPerSecond.count)
            g << std::fixed << std::setprecision(2) << s.gbPerSecond.median;
        else
            g << "-";
        out << "  " << padRight(std::to_string(s.index), 5) << padRight(cellText(stream, 13), 14)
            << padRight(cellText(trace.name(op), 28), 30) << padRight(s.startNs.count ? ms(s.startNs.median) : "-", 12)
            << padRight(s.gpuNs.count ? ms(s.gpuNs.median) : "-", 12);
        if (slowdowns) {
            const std::size_t at = static_cast<std::size_t>(s.index);
            const engine::OpSlowdown *d = at < interference.ops.size() ? &interference.ops[at] : nullptr;
            std::string change = "-";
            if (d && d->known()) {
                std::ostringstream c;
                c << std::showpos << std::fixed << std::setprecision(1) << (d->slowdown - 1.0) * 100.0 << " %";
                change = c.str();
            }
            out << padRight(d && d->soloNs.count ? ms(d->soloNs.median) : "-", 12) << padRight(change, 11);
        }
        out << padRight(g.str(), 10) << (s.hostNs.count ? ms(s.hostNs.median) : "-")
            << (engine::isHostBlocking(op) ? "  (blocks host)" : "") << "\n";
    }
    if (total > ops.size())
        out << "  ... " << (total - ops.size()) << " more ops (--ops N to show more)\n";
}

// What timed the run, why where it fell back, and in a CUPTI-timed run how wrong events would have been.
void printTiming(const engine::Trace &trace, std::ostream &out)
{
    out << "\n  timing: ";
    switch (trace.timing) {
    case engine::TimingSource::Cupti:
        out << "CUPTI (execution as the GPU ran it; stream-ready from CUDA events)";
        break;
    case engine::TimingSource::Events: out << "CUDA events (time queued behind other work counts as execution)"; break;
    case engine::TimingSource::Profiler: out << "the profiler that recorded it"; break;
    }
    out << "\n";
    if (!trace.timingNote.empty())
        out << "  " << clampLines(trace.timingNote) << "\n";
    // How the ops were launched, where it was not one call each: a graph's capture and instantiation (once, before
    // the first repetition), PDL.
    for (const char *key : {"launch", "pdl"})
        if (const auto it = trace.metadata.find(key);
            it != trace.metadata.end() && !(std::string_view(key) == "launch" && it->second.starts_with("streams")))
            out << "  " << key << ": " << clampLines(it->second) << "\n";
    const auto errors = engine::eventTimingErrors(trace);
    if (errors.empty())
        return;
    out << "\n  event timing vs execution (what events would have reported), per op kind:\n  " << padRight("kind", 10)
        << padRight("ops", 7) << padRight("events longer by", 32) << padRight("relative", 28) << "queued\n";
    for (const auto &e : errors) {
        auto us = [](double ns) { return engine::formatDuration(std::llround(ns)); };
        out << "  " << padRight(std::string(engine::toString(e.kind)), 10)
            << padRight(std::to_string(e.excessNs.count), 7) << padRight(spreadText(e.excessNs, us), 32)
            << padRight(spreadText(e.excessFraction, pct), 28) << spreadText(e.queuedNs, us) << "\n";
    }
}

void printSummary(const engine::Trace &trace, int opRows, std::ostream &out)
{
    const engine::TraceSummary s = engine::summarize(trace);
    out << "\n" << (trace.title.empty() ? std::string("trace") : clampText(trace.title));
    // A device the source did not describe (an nsys export without TARGET_INFO_GPU) is named by its index.
    auto describe = [](const engine::DeviceInfo &d) {
        return d.name.empty() ? "GPU " + std::to_string(d.index) + " (model not recorded)" : deviceLine(d);
    };
    if (trace.devices.size() == 1)
        out << " on " << describe(trace.devices.front());
    else if (trace.devices.size() > 1)
        out << " on " << trace.devices.size() << " GPUs";
    out << "\n";
    if (trace.devices.size() > 1)
        for (const auto &d : trace.devices)
            out << "  GPU " << d.index << ": " << (d.name.empty() ? std::string("model not recorded") : deviceLine(d))
                << "\n";
    // Where the run recorded the topology of a machine with several GPUs: how each pair is linked.
    if (!trace.peerLinks.empty()) {
        std::istringstream matrix(engine::peerLinkMatrix(trace.devices, trace.peerLinks));
        for (std::string line; std::getline(matrix, line);)
            out << "  " << line << "\n";
        out << "\n";
    }
    out << s.repetitions.size() << " repetition" << (s.repetitions.size() == 1 ? "" : "s") << ", " << trace.opCount()
        << " ops; medians [min .. max]\n\n";
    // Solo baselines, analysed once for the metrics, the section below and the per-op table.
    const auto report = std::make_shared<const engine::InterferenceReport>(
        trace.solo.empty() ? engine::InterferenceReport{} : engine::analyzeInterference(trace));
    const engine::InterferenceReport &r = *report;
    // The metrics the app's summary panel shows too (engine::summaryMetrics), median [min .. max].
    auto metrics = engine::summaryMetrics(trace, s, trace.solo.empty() ? nullptr : report);
    for (auto &m : metrics) // "Busy: " and a stream's name
        m.label = clampText(m.label);
    std::size_t width = 0;
    for (const auto &m : metrics) // in characters ("P2P GPU 0→1: bytes")
        width = std::max(width, std::size_t(std::count_if(m.label.begin(), m.label.end(),
                                                          [](unsigned char c) { return (c & 0xC0) != 0x80; })));
    for (const auto &m : metrics) {
        const auto fmt = [&m](double v) { return engine::formatMetric(m.unit, v); };
        std::string value = m.spread.count           ? fmt(m.spread.median)
                            : !m.whenUnknown.empty() ? m.whenUnknown
                                                     : std::string("-");
        if (m.spread.count > 1)
            value += "  [" + fmt(m.spread.min) + " .. " + fmt(m.spread.max) + "]";
        out << "  " << padRight(m.label, width + 2) << value << "\n";
    }
    if (!trace.solo.empty()) {
        // The solo baselines behind the price of overlap above: each part's GPU span alone.
        out << "\n  solo baselines: " << r.rounds.size() << " round" << (r.rounds.size() == 1 ? "" : "s")
            << "; each part alone (GPU span, median):";
        for (std::size_t p = 0; p < trace.solo.parts.size() && p < r.partSoloNs.size(); ++p)
            out << (p ? ", " : " ") << clampText(trace.solo.parts[p]) << " "
                << (r.partSoloNs[p].count ? engine::formatDuration(std::llround(r.partSoloNs[p].median)) : "-");
        out << "\n";
        if (!r.why.empty())
            out << "  " << clampLines(r.why) << "\n";
    }
    if (!trace.streams.empty()) {
        out << "\n  " << padRight("stream", 20) << "ops per repetition\n";
        const auto &median = s.repetitions.empty() ? engine::RepetitionStats{} : s.repetitions[s.medianRepetition];
        for (std::size_t i = 0; i < trace.streams.size(); ++i) {
            const int ops = i < median.streams.size() ? median.streams[i].ops : 0;
            out << "  " << padRight(clampText(trace.streams[i].name), 20) << std::to_string(ops) << "\n";
        }
    }
    printTiming(trace, out);
    printOpTable(trace, r, opRows, out);
}

json progressLine(const engine::RunProgress &p)
{
    return {{field::kEvent, event::kProgress},
            {field::kPhase, std::string(engine::toString(p.phase))},
            {field::kRepetition, p.repetition},
            {field::kTotal, p.total},
            {field::kMessage, p.message}};
}

} // namespace

int cmdDevices(bool asJson, std::ostream &out, std::ostream &err)
{
    try {
        const engine::Topology topology = engine::queryTopology();
        if (asJson) {
            std::vector<bool> atomics;
            for (const engine::PeerPair &p : topology.pairs)
                atomics.push_back(p.nativeAtomics);
            out << engine::topologyToJson(topology.devices, topology.peerLinks(), atomics, topology.linkNote) << "\n";
        } else {
            out << engine::topologyTable(topology);
        }
        return ExitOk;
    } catch (const Error &e) {
        // With --json a program reads standard output: it gets the error line there (as run --progress json
        // writes it), and the message on standard error as always.
        return reportError(e, "devices", asJson, out, err);
    }
}

int cmdValidate(const std::vector<std::string> &files, std::ostream &out, std::ostream &err)
{
    int result = ExitOk;
    for (const auto &file : files) {
        try {
            const engine::Workload w = engine::loadWorkloadFile(file);
            // What the build lacks refuses the workload; what this machine lacks is noted (it may run elsewhere).
            const auto missing = engine::missingLibraries(w);
            if (missing && missing->kind() == ErrorKind::InvalidInput)
                throw *missing;
            out << file << ": ok: '" << clampText(w.name) << "', " << w.streams.size() << " stream"
                << (w.streams.size() == 1 ? "" : "s") << ", " << w.opCount() << " ops, " << w.buffers.size()
                << " buffers (device " << engine::formatBytes(w.deviceBytes()) << ", managed "
                << engine::formatBytes(w.managedBytes()) << ", host " << engine::formatBytes(w.hostBytes()) << ")\n";
            if (missing)
                out << file << ": note: it cannot run on this machine: " << clampLines(missing->what()) << "\n";
        } catch (const Error &e) {
            if (e.kind() == ErrorKind::Cancelled) {
                err << "streamscope-cli validate: " << clampLines(e.what()) << "\n";
                return ExitCancelled;
            }
            err << clampLines(e.what()) << "\n";
            result = result == ExitOk ? protocol::exitCodeOf(e.kind()) : result;
        }
    }
    return result;
}

std::optional<std::int64_t> parseTimeLimit(const std::string &text, std::string *why)
{
    const bool bare = !text.empty() && text.find_first_not_of("0123456789. ") == std::string::npos;
    const auto ns = bare ? std::nullopt : engine::parseDuration(text);
    if (!ns || *ns <= 0) {
        *why = "--time-limit " + text + ": expected a duration with its unit, such as 30s, \"2 s\" or 500ms";
        return std::nullopt;
    }
    return ns;
}

void finishRun(engine::Trace &trace, const engine::Workload &workload, const RunArgs &args, std::ostream &human)
{
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
}

int cmdRun(const RunArgs &args, const std::atomic<bool> &cancel, std::ostream &out, std::ostream &err)
{
    const bool jsonMode = args.progress == "json";
    std::ostream &human = jsonMode ? err : out;
    auto fail = [&](const Error &e) { return reportError(e, "run", jsonMode, out, err); };
    try {
        std::optional<std::int64_t> timeLimit;
        if (!args.timeLimit.empty()) {
            std::string why;
            timeLimit = parseTimeLimit(args.timeLimit, &why);
            if (!timeLimit) {
                err << "streamscope-cli run: " << why << "\n";
                return ExitUsage;
            }
        }
        const engine::Workload workload = engine::loadWorkloadFile(args.workload);
        engine::RunOptions options;
        options.timeLimitNs = timeLimit.value_or(-1);
        // A run stopped while its GPU work cannot end (a kernel that never ends) ends the process: say
        // why first, as any other error is said (the JSON error line, the message on stderr).
        options.onAbandon = [&](const Error &e) { fail(e); };
        options.device = args.device.value_or(-1);
        options.repetitions = args.repetitions.value_or(-1);
        options.warmup = args.warmup.value_or(-1);
        options.nvtx = args.nvtx;
        options.timing = engine::timingModeFromString(args.timing).value_or(engine::TimingMode::Cupti);
        options.kernelLatency = args.kernelLatency;
        options.solo = args.solo;
        if (jsonMode)
            emit(out, {{field::kEvent, event::kStart},
                       {field::kWorkload, workload.name},
                       {field::kFile, args.workload},
                       {field::kDevice, options.device >= 0 ? options.device : workload.device},
                       {field::kWarmup, options.warmup >= 0 ? options.warmup : workload.warmup},
                       {field::kRepetitions, options.repetitions >= 0 ? options.repetitions : workload.repetitions},
                       {field::kOps, workload.opCount()}});
        else
            human << "running '" << workload.name << "' (" << workload.opCount() << " ops on "
                  << workload.streams.size() << " streams)...\n";
        if (jsonMode) {
            // Which GPU runs it, before the first progress line (the GUI shows it while the run goes on).
            const int index = options.device >= 0 ? options.device : workload.device;
            for (const auto &d : engine::listDevices())
                if (d.index == index)
                    emit(out,
                         {{field::kEvent, event::kDevice},
                          {field::kIndex, d.index},
                          {field::kName, d.name},
                          {field::kComputeCapability, std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor)}});
        }
        auto onProgress = [&](const engine::RunProgress &p) {
            if (jsonMode)
                emit(out, progressLine(p));
        };
        engine::Trace trace = engine::runWorkload(workload, options, onProgress, &cancel);
        finishRun(trace, workload, args, human);
        if (jsonMode) {
            const auto s = engine::summarize(trace);
            emit(out, {{field::kEvent, event::kDone},
                       {field::kOutput, args.output},
                       {field::kOps, trace.opCount()},
                       {field::kMakespanMedian, static_cast<std::int64_t>(s.makespanNs.median)}});
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
        err << "streamscope-cli summary: " << clampLines(e.what()) << "\n";
        return protocol::exitCodeOf(e.kind());
    }
}

int cmdDescribe(const std::string &file, int repetition, int op, std::ostream &out, std::ostream &err)
{
    try {
        const engine::Trace trace = engine::loadTrace(file);
        out << clampLines(engine::formatOpDescription(trace, engine::describeOp(trace, repetition, op)));
        return ExitOk;
    } catch (const Error &e) {
        err << "streamscope-cli describe: " << clampLines(e.what()) << "\n";
        return protocol::exitCodeOf(e.kind());
    }
}

int cmdExport(const std::string &input, const std::string &format, const std::string &output, std::ostream &out,
              std::ostream &err)
{
    try {
        // Without --format the output's suffix says it; --format wins over a suffix that says otherwise.
        const auto fmt = format.empty() ? engine::exportFormatFromPath(output) : engine::exportFormatFromString(format);
        if (!fmt) {
            if (format.empty())
                err << "streamscope-cli export: the output " << output << " has no suffix that names a format "
                    << "(.sstrace, .json, .csv): give --format native, chrome or csv\n";
            else
                err << "streamscope-cli export: unknown format '" << format << "' (native, chrome, csv)\n";
            return ExitUsage;
        }
        // Written over its own input, a failed export would have lost the trace it was made from.
        std::error_code ec;
        if (std::filesystem::equivalent(input, output, ec) && !ec) {
            err << "streamscope-cli export: the output " << output << " is the input file itself; write to another "
                << "file\n";
            return ExitUsage;
        }
        const engine::Trace trace = engine::loadTrace(input);
        engine::exportTrace(trace, *fmt, output);
        out << "wrote " << output << " (" << engine::toString(*fmt) << ", " << trace.opCount() << " ops from " << input
            << ")\n";
        return ExitOk;
    } catch (const Error &e) {
        err << "streamscope-cli export: " << clampLines(e.what()) << "\n";
        return protocol::exitCodeOf(e.kind());
    }
}

} // namespace streamscope::cli
