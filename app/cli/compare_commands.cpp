// `compare` and `diff`: the experiment grid run through engine::runWorkload, its table, the
// comparison file, and the diff of two traces, all on the engine's compareSpreads() noise rule.
#include "app/cli/compare_commands.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/cli/commands.h"
#include "app/cli/table_format.h"
#include "app/cli/terminal_text.h"
#include "engine/analysis/trace_diff.h"
#include "engine/experiment/comparison_file.h"
#include "engine/experiment/experiment.h"
#include "engine/formats/native_format.h"
#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "engine/model/units.h"
#include "engine/run/runner.h"
#include "engine/util/file_util.h"
#include "engine/workload/workload_parser.h"

namespace streamscope::cli {

using engine::Error;
using engine::ErrorKind;
using nlohmann::json;

namespace {

// The diff's verdict on B's makespan against A's, as a sentence: "B 1.25x faster", or that the two do not
// differ beyond their spread (engine::describe's "noise (1.00x)" read as if B were noisy).
std::string plainVerdict(const engine::Verdict &verdict)
{
    switch (verdict.kind) {
    case engine::VerdictKind::Faster:
    case engine::VerdictKind::Slower: return "B " + engine::describe(verdict);
    case engine::VerdictKind::Noise: return "no clear difference: A's and B's min..max ranges overlap";
    case engine::VerdictKind::Unknown: break;
    }
    return "not judged: a makespan is missing";
}

// One variant in a process of its own: `streamscope-cli run` of the variant's workload, its trace read
// back. For grids that vary the hardware queues, which CUDA fixes when it starts in a process, and those with a
// variant launched as a graph (runsApart).
engine::Trace runInChildProcess(const engine::Workload &workload, const engine::RunOptions &options,
                                const engine::ProgressCallback &, const std::atomic<bool> *cancel)
{
    char pattern[] = "/tmp/streamscope-variant-XXXXXX";
    if (!mkdtemp(pattern))
        throw Error(ErrorKind::Io,
                    std::string("cannot make a temporary folder for a variant's run: ") + std::strerror(errno));
    const std::string dir = pattern;
    struct Cleanup {
        std::string dir;
        ~Cleanup()
        {
            std::error_code ignored; // a folder left in /tmp must not end the process from a destructor
            std::filesystem::remove_all(dir, ignored);
        }
    } cleanup{dir};
    const std::string workloadFile = dir + "/workload.json";
    const std::string traceFile = dir + "/trace.sstrace";
    const std::string logFile = dir + "/run.log";
    engine::writeFileAtomically(workloadFile, engine::workloadToJson(workload));

    std::vector<std::string> args = {"streamscope-cli",
                                     "run",
                                     workloadFile,
                                     "-o",
                                     traceFile,
                                     "--progress",
                                     "none",
                                     "--ops",
                                     "0",
                                     "--timing",
                                     std::string(engine::toString(options.timing))};
    if (options.device >= 0)
        args.insert(args.end(), {"--device", std::to_string(options.device)});
    if (options.repetitions >= 0)
        args.insert(args.end(), {"--repeat", std::to_string(options.repetitions)});
    if (options.warmup >= 0)
        args.insert(args.end(), {"--warmup", std::to_string(options.warmup)});
    if (!options.nvtx)
        args.push_back("--no-nvtx");
    std::vector<char *> argv;
    for (std::string &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, logFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0)
        throw Error(ErrorKind::Io,
                    "cannot start streamscope-cli for variant '" + workload.name + "': " + std::strerror(spawned));
    int status = 0;
    for (;;) {
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid)
            break;
        if (done < 0)
            throw Error(ErrorKind::Io, "lost the run of variant '" + workload.name + "': " + std::strerror(errno));
        if (cancel && cancel->load()) {
            kill(pid, SIGTERM);
            waitpid(pid, &status, 0);
            throw Error(ErrorKind::Cancelled, "cancelled during variant '" + workload.name + "'");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::string log = engine::readFile(logFile);
        while (!log.empty() && (log.back() == '\n' || log.back() == ' '))
            log.pop_back();
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        const auto newline = log.rfind('\n');
        const std::string last = newline == std::string::npos ? log : log.substr(newline + 1);
        const ErrorKind kind = protocol::errorKindOfExitCode(code).value_or(ErrorKind::Cuda);
        throw Error(kind, "variant '" + workload.name + "' (run in its own process, exit " + std::to_string(code)
                              + "): " + (last.empty() ? std::string("no message") : last));
    }
    return engine::readNativeTrace(traceFile);
}

// Whether the variants must each run in a process of their own: CUDA reads CUDA_DEVICE_MAX_CONNECTIONS once per
// process (a grid over the hardware queues), and a run launched as a CUDA graph leaves CUPTI in its process timing
// the kernels of later runs wrongly (seen on an H200 with CUDA 13.0: records missing, kernels 5 us long;
// bench/NOTES.md, "Graph mode").
bool runsApart(const engine::ExperimentSpec &spec, const std::vector<engine::Variant> &variants)
{
    return std::any_of(spec.axes.begin(), spec.axes.end(),
                       [](const engine::AxisValues &a) { return a.axis == engine::Axis::Connections; })
           || std::any_of(variants.begin(), variants.end(),
                          [](const engine::Variant &v) { return v.workload.launch == engine::LaunchMode::Graph; });
}

std::string signedMs(double ns)
{
    return (ns < 0 ? "-" : "+") + ms(std::abs(ns));
}

std::string median(const engine::Spread &s, std::string (*fmt)(double))
{
    return s.count == 0 ? std::string("-") : fmt(s.median);
}

// A table cell: padded to its column, and never running into the next one.
std::string cell(const std::string &s, std::size_t width)
{
    std::string out = padRight(s, width);
    if (out.size() == s.size())
        out += ' ';
    return out;
}

void printComparison(const engine::Comparison &c, std::ostream &out)
{
    const auto rows = engine::summarizeComparison(c);
    int reps = 0;
    for (const auto &r : rows)
        reps = std::max(reps, static_cast<int>(r.summary.repetitions.size()));
    out << "\n" << (c.title.empty() ? std::string("comparison") : clampText(c.title));
    for (const auto &v : c.variants)
        if (v.failed.empty()) { // a failed variant has no trace, and no device
            if (!v.trace.devices.empty())
                out << " on " << clampText(v.trace.devices.front().name);
            break;
        }
    out << "\n"
        << rows.size() << " variant" << (rows.size() == 1 ? "" : "s") << ", up to " << reps << " repetition"
        << (reps == 1 ? "" : "s") << " each; makespan median [min .. max]\n\n";
    std::vector<std::string> labels; // a variant's axis values, from the comparison file
    std::size_t labelWidth = 9;
    for (const auto &r : rows) {
        labels.push_back(clampText(r.label));
        labelWidth = std::max(labelWidth, labels.back().size() + 2);
    }
    std::vector<std::string> makespans;
    std::size_t spanWidth = 10;
    for (const auto &r : rows) {
        makespans.push_back(r.failed.empty() ? spreadText(r.summary.makespanNs, ms) : std::string("failed"));
        spanWidth = std::max(spanWidth, makespans.back().size() + 2);
    }
    out << "  " << cell("variant", labelWidth) << cell("makespan", spanWidth) << cell("vs first", 17) << cell("H2D", 12)
        << cell("D2H", 12) << cell("host blocked", 14) << cell("overlap", 10) << "efficiency\n";
    bool anyNoise = false, baselineShown = false;
    std::vector<std::string> failures;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto &r = rows[i];
        const auto &s = r.summary;
        if (!r.failed.empty()) {
            out << "  " << cell(labels[i], labelWidth) << cell(makespans[i], spanWidth) << "(see below)\n";
            failures.push_back(clampLines(r.failed));
            continue;
        }
        std::string verdict = !baselineShown ? std::string("baseline") : engine::describe(r.vsFirst);
        anyNoise = anyNoise || (baselineShown && r.vsFirst.kind == engine::VerdictKind::Noise);
        baselineShown = true;
        out << "  " << cell(labels[i], labelWidth) << cell(makespans[i], spanWidth) << cell(verdict, 17)
            << cell(s.h2dGBs.count && s.h2dGBs.median > 0 ? gbs(s.h2dGBs.median) : "-", 12)
            << cell(s.d2hGBs.count && s.d2hGBs.median > 0 ? gbs(s.d2hGBs.median) : "-", 12)
            << cell(median(s.hostBlockedNs, ms), 14) << cell(median(s.overlapFraction, pct), 10)
            << median(s.efficiency, pct) << "\n";
    }
    out << "\n  vs first: the first variant's median makespan over this one's; \"noise\" when the min..max ranges"
           " overlap\n  (the difference is within run-to-run variation). GB/s: bytes over the time each direction"
           " was busy.\n  efficiency: the ideal bound (busiest engine) over the makespan.\n";
    if (reps == 1)
        out << "  With one repetition there is no spread to judge noise by: use --repeat 5 or more.\n";
    if (anyNoise)
        out << "  Some differences are noise: run more repetitions before drawing a conclusion from them.\n";
    if (!failures.empty()) {
        out << "\n  " << failures.size() << (failures.size() == 1 ? " variant" : " variants")
            << " failed; the others ran:\n";
        for (const auto &f : failures)
            out << "    " << f << "\n";
    }
}

enum class InputKind { Workload, Comparison, Trace };

// The writers put "format" first, so the head of the file tells; a comparison can be large.
InputKind inputKind(const std::string &path)
{
    const std::string head = engine::readFileHead(path, 1024); // Error{Io}: unreadable, or not a regular file
    auto has = [&](std::string_view format) {
        return head.find("\"" + std::string(format) + "\"") != std::string::npos;
    };
    if (has(engine::kComparisonFormatName))
        return InputKind::Comparison;
    if (has(engine::kNativeFormatName) || head.rfind("SQLite format 3", 0) == 0)
        return InputKind::Trace;
    return InputKind::Workload;
}

} // namespace

int cmdCompare(const CompareArgs &args, const std::atomic<bool> &cancel, std::ostream &out, std::ostream &err)
{
    const bool jsonMode = args.progress == "json";
    std::ostream &human = jsonMode ? err : out;
    auto fail = [&](const Error &e) { return reportError(e, "compare", jsonMode, out, err); };
    try {
        const InputKind kind = inputKind(args.input);
        if (kind == InputKind::Trace)
            throw Error(ErrorKind::InvalidInput, args.input
                                                     + " is a trace, not a workload: compare runs a workload "
                                                       "file (JSON) or shows a .sscompare; to compare two "
                                                       "traces use 'streamscope-cli diff A B'");
        if (kind == InputKind::Comparison) {
            if (!args.vary.empty()) {
                err << "streamscope-cli compare: " << args.input
                    << " is a comparison file: it is shown as saved; --vary applies to a workload file\n";
                return ExitUsage;
            }
            const engine::Comparison c = engine::readComparison(args.input);
            printComparison(c, human);
            return ExitOk;
        }
        engine::ExperimentSpec spec;
        spec.workloadFile = args.input;
        spec.workloadText = engine::readFile(args.input, engine::limits::kMaxWorkloadFileBytes, "a workload");
        // A malformed --vary is a usage error (exit 2); an axis this workload cannot take is invalid input.
        for (const auto &v : args.vary) {
            try {
                spec.axes.push_back(engine::parseVaryOption(v));
            } catch (const Error &e) {
                err << "streamscope-cli compare: " << clampLines(e.what()) << "\n";
                return ExitUsage;
            }
            for (std::size_t k = 0; k + 1 < spec.axes.size(); ++k)
                if (spec.axes[k].axis == spec.axes.back().axis) {
                    err << "streamscope-cli compare: --vary " << v << ": the axis "
                        << engine::toString(spec.axes.back().axis) << " is already varied; give all its values in one "
                        << "--vary\n";
                    return ExitUsage;
                }
        }
        if (spec.axes.empty()) {
            // No --vary: the workload's own comparison (its "compare" entries), when it has one.
            const engine::Workload base = engine::parseWorkload(spec.workloadText, spec.workloadFile);
            for (const std::string &v : base.compare)
                spec.axes.push_back(engine::parseVaryOption(v));
            if (!base.compare.empty()) {
                human << "no --vary given: using the workload's own comparison";
                for (const std::string &v : base.compare)
                    human << " --vary " << v;
                human << "\n";
            }
        }
        const std::vector<engine::Variant> variants = engine::expandVariants(spec);

        engine::RunOptions options;
        options.device = args.device.value_or(-1);
        options.repetitions = args.repetitions.value_or(-1);
        options.warmup = args.warmup.value_or(-1);
        options.nvtx = args.nvtx;
        options.timing = engine::timingModeFromString(args.timing).value_or(engine::TimingMode::Cupti);
        options.onAbandon = [&](const Error &e) { fail(e); }; // a variant past its time limit: see cmdRun
        if (jsonMode) {
            json labels = json::array();
            for (const auto &v : variants)
                labels.push_back(v.label);
            emit(out, {{field::kEvent, event::kStart},
                       {field::kCommand, "compare"},
                       {field::kWorkload, variants.front().workload.name},
                       {field::kFile, args.input},
                       {field::kVariants, labels}});
        } else {
            human << "comparing " << variants.size() << " variant" << (variants.size() == 1 ? "" : "s") << " of '"
                  << variants.front().workload.name << "'...\n";
        }
        int lastVariant = -1;
        auto onProgress = [&](const engine::ExperimentProgress &p) {
            if (!jsonMode) {
                if (p.variant != lastVariant)
                    human << "  [" << p.variant + 1 << "/" << p.variantCount << "] " << p.label << "\n";
                lastVariant = p.variant;
                return;
            }
            emit(out, {{field::kEvent, event::kProgress},
                       {field::kVariant, p.variant},
                       {field::kVariants, p.variantCount},
                       {field::kLabel, p.label},
                       {field::kPhase, std::string(engine::toString(p.run.phase))},
                       {field::kRepetition, p.run.repetition},
                       {field::kTotal, p.run.total},
                       {field::kFraction, p.fraction},
                       {field::kMessage, p.run.message}});
        };
        const engine::WorkloadRunner runner = runsApart(spec, variants) ? engine::WorkloadRunner(runInChildProcess)
                                                                        : engine::WorkloadRunner(engine::runWorkload);
        engine::Comparison c = engine::runExperiment(spec, variants, options, runner, onProgress, &cancel);
        if (cancel.load())
            throw Error(ErrorKind::Cancelled, "cancelled; nothing was written");
        if (!args.output.empty())
            engine::writeComparison(c, args.output);
        printComparison(c, human);
        if (!args.output.empty())
            human << "\nwrote " << args.output << "\n";
        if (jsonMode)
            emit(out,
                 {{field::kEvent, event::kDone}, {field::kOutput, args.output}, {field::kVariants, c.variants.size()}});
        return ExitOk;
    } catch (const Error &e) {
        return fail(e);
    } catch (const std::exception &e) {
        return reportInternalError(e, "compare", jsonMode, out, err);
    }
}

int cmdDiff(const DiffArgs &args, std::ostream &out, std::ostream &err)
{
    try {
        const engine::Trace a = engine::loadTrace(args.a);
        const engine::Trace b = engine::loadTrace(args.b);
        engine::DiffOptions options;
        options.statistic = args.statistic == "median-repetition" ? engine::DiffStatistic::MedianRepetition
                                                                  : engine::DiffStatistic::PerOpMedian;
        if (args.normalizeNames)
            options.normalizeName = [](std::string_view n) { return engine::normalizeOpName(n); };
        const engine::TraceDiff d = engine::diffTraces(a, b, options);
        const auto &s = d.summary;

        auto title = [](const engine::Trace &t, const std::string &path) {
            return path + " (" + (t.title.empty() ? std::string(engine::toString(t.source)) : clampText(t.title)) + ", "
                   + std::to_string(t.repetitions.size()) + " repetition" + (t.repetitions.size() == 1 ? "" : "s")
                   + ")";
        };
        out << "\nA: " << title(a, args.a) << "\nB: " << title(b, args.b) << "\n"
            << (options.statistic == engine::DiffStatistic::PerOpMedian ? "per-op medians over every repetition"
                                                                        : "the median repetition of each")
            << "; deltas are B - A\n\n";
        auto row = [&](const char *label, const std::string &value) {
            out << "  " << cell(label, 24) << value << "\n";
        };
        row("makespan A", spreadText(s.makespanA, ms));
        row("makespan B", spreadText(s.makespanB, ms));
        row("makespan delta", signedMs(s.makespanDeltaNs) + "  (" + plainVerdict(s.makespan) + ")");
        row("ops matched",
            std::to_string(s.matched)
                + (s.matchedByOrder ? " (" + std::to_string(s.matchedByOrder) + " by order, names differ)"
                                    : std::string()));
        row("only in A / only in B", std::to_string(s.unmatchedA) + " / " + std::to_string(s.unmatchedB));
        if (s.timed > 0) {
            row("|start delta|", "mean " + ms(s.meanAbsStartDeltaNs) + ", median " + ms(s.medianAbsStartDeltaNs)
                                     + ", max " + ms(s.maxAbsStartDeltaNs));
            row("|duration delta|", "mean " + ms(s.meanAbsDurationDeltaNs) + ", median "
                                        + ms(s.medianAbsDurationDeltaNs) + ", max " + ms(s.maxAbsDurationDeltaNs));
        }

        out << "\n  " << cell("stream A", 18) << cell("stream B", 18) << cell("ops", 10) << cell("busy A", 12)
            << cell("busy B", 12) << "B vs A\n";
        for (const auto &p : d.streams) {
            const std::string ops = std::to_string(p.opsA) + " -> " + std::to_string(p.opsB);
            out << "  " << cell(p.a >= 0 || !p.nameA.empty() ? cellText(p.nameA, 17) : "-", 18)
                << cell(p.nameB.empty() ? "-"
                                        : cellText(p.nameB, 17) + (p.method == engine::MatchMethod::ByOrder ? "*" : ""),
                        18)
                << cell(ops, 10) << cell(median(p.busyA, ms), 12) << cell(median(p.busyB, ms), 12)
                << (p.nameA.empty() || p.nameB.empty() ? std::string("-") : engine::describe(p.busy)) << "\n";
        }
        if (std::any_of(d.streams.begin(), d.streams.end(),
                        [](const auto &p) { return p.method == engine::MatchMethod::ByOrder && !p.nameB.empty(); }))
            out << "  * no stream of the same name in the other trace: paired by the order of their first ops\n";

        if (args.opRows > 0 && !d.ops.empty()) {
            out << "\n  " << cell("stream", 14) << cell("op", 42) << cell("start A", 11) << cell("start d", 11)
                << cell("time A", 11) << cell("time d", 11) << cell("time B vs A", 15) << "GB/s A -> B\n";
            int shown = 0;
            for (const auto &o : d.ops) {
                if (shown++ >= args.opRows) {
                    out << "  ... " << d.ops.size() - static_cast<std::size_t>(args.opRows)
                        << " more ops (--ops N to show more)\n";
                    break;
                }
                std::string name = o.a.name;
                if (o.b.name != o.a.name)
                    name += " = " + o.b.name;
                std::string rate = "-";
                if (o.a.gbPerSecond.count && o.b.gbPerSecond.count) {
                    char buf[48];
                    std::snprintf(buf, sizeof buf, "%.2f -> %.2f", o.a.gbPerSecond.median, o.b.gbPerSecond.median);
                    rate = buf;
                }
                const bool timed = o.a.hasTime && o.b.hasTime;
                out << "  " << cell(cellText(o.stream, 13), 14)
                    << cell(cellText(name, 40) + (o.method == engine::MatchMethod::ByOrder ? "*" : ""), 42)
                    << cell(o.a.hasTime ? ms(o.a.startNs.median) : "-", 11)
                    << cell(timed ? signedMs(o.startDeltaNs) : "-", 11)
                    << cell(o.a.hasTime ? ms(o.a.durationNs.median) : "-", 11)
                    << cell(timed ? signedMs(o.durationDeltaNs) : "-", 11)
                    << cell(timed ? engine::describe(o.duration) : "-", 15) << rate << "\n";
            }
            if (s.matchedByOrder > 0)
                out << "  * matched by order within its stream and kind (the names differ)\n";
        }
        if (!d.unmatched.empty()) {
            out << "\n  unmatched ops:\n";
            int shown = 0;
            for (const auto &u : d.unmatched) {
                if (args.opRows > 0 && shown++ >= args.opRows) {
                    out << "  ... " << d.unmatched.size() - static_cast<std::size_t>(args.opRows) << " more\n";
                    break;
                }
                out << "  only in " << u.side << ": " << cell(cellText(u.stream, 13), 14) << "#"
                    << cell(std::to_string(u.op.position), 5) << clampText(u.op.name);
                if (u.op.hasTime)
                    out << "  (at " << ms(u.op.startNs.median) << ", " << ms(u.op.durationNs.median) << ")";
                out << "\n";
            }
        }
        out << "\n  \"noise\": the min..max ranges over the repetitions overlap, so no winner is called.\n";
        return ExitOk;
    } catch (const Error &e) {
        err << "streamscope-cli diff: " << clampLines(e.what()) << "\n";
        return protocol::exitCodeOf(e.kind());
    }
}

} // namespace streamscope::cli
