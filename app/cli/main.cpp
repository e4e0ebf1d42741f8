// streamscope-cli: the headless front. Runs workloads on a GPU, validates workload files, prints
// summaries and converts traces. Needs no Qt, so it runs on any GPU server; the GUI drives it as a
// child process through `run --progress json` (docs/cli-protocol.md).
#include <CLI/CLI.hpp>
#include <iostream>
#include <new>

#include "app/cli/commands.h"
#include "app/cli/compare_commands.h"
#include "app/cli/nsight_command.h"
#include "app/cli/ranks_command.h"
#include "app/cli/terminal_text.h"
#include "engine/util/interrupt.h"

namespace engine = streamscope::engine;
using namespace streamscope::cli;

static_assert(engine::protocol::ExitCancelled == 130, "engine/util/interrupt.cpp exits with 130");

namespace {

// Every command's arguments, and the subcommand each is parsed by (the one given is set after parsing).
struct Commands {
    CLI::App *devices = nullptr, *validate = nullptr, *summary = nullptr, *exportCmd = nullptr;
    CLI::App *runCmd = nullptr, *compareCmd = nullptr, *diffCmd = nullptr, *nsightCmd = nullptr;
    CLI::App *describe = nullptr;
    bool devicesJson = false;
    std::vector<std::string> validateFiles;
    std::string summaryFile;
    int summaryRows = 40;
    std::string describeFile;
    int describeOp = 0, describeRepetition = 0;
    std::string exportIn, exportFormat, exportOut;
    RunArgs run;
    CompareArgs compare;
    DiffArgs diff;
    NsightCompareArgs nsightCompare;
};

// devices and validate.
void declareCheckCommands(CLI::App &app, Commands &c)
{
    c.devices = app.add_subcommand("devices", "List the CUDA devices and how each pair is linked: peer access, "
                                              "NVLink or PCIe, performance rank, peak bandwidth");
    c.devices->add_flag("--json", c.devicesJson,
                        "Print JSON instead of a table (docs/cli-protocol.md; on failure an error line as run's)");

    c.validate = app.add_subcommand("validate", "Check workload files and report every problem with its line "
                                                "and JSON path");
    c.validate->add_option("files", c.validateFiles, "Workload files (JSON)")->required();
}

// summary and export: the commands on trace files.
void declareTraceCommands(CLI::App &app, Commands &c)
{
    c.summary = app.add_subcommand("summary", "Print the summary of a trace file (any format StreamScope reads)");
    c.summary->add_option("trace", c.summaryFile, "Trace file")->required();
    c.summary->add_option("--ops", c.summaryRows, "Rows of the per-op table (0: none)")->capture_default_str();

    c.describe = app.add_subcommand("describe", "Describe one op of a trace as the app's details do: its kind, "
                                                "intervals, what timed it, why it waited, bytes, memory, call");
    c.describe->add_option("trace", c.describeFile, "Trace file")->required();
    c.describe->add_option("op", c.describeOp, "The op's index in its repetition, from 0")->required();
    c.describe->add_option("--repetition", c.describeRepetition, "The repetition, from 0")->capture_default_str();

    c.exportCmd = app.add_subcommand("export", "Convert a trace (native, Nsight Systems SQLite, Chrome/PyTorch "
                                               "JSON) to native, Chrome trace JSON (Perfetto) or CSV");
    c.exportCmd->add_option("input", c.exportIn, "Input trace")->required();
    c.exportCmd
        ->add_option("--format", c.exportFormat,
                     "Output format (default: the output's suffix says it: .sstrace native, .json chrome, .csv csv)")
        ->check(CLI::IsMember({"native", "chrome", "csv"}));
    c.exportCmd->add_option("-o,--output", c.exportOut, "Output file")->required();
}

void declareRunCommand(CLI::App &app, Commands &c)
{
    c.runCmd = app.add_subcommand("run", "Run a workload on the GPU and print a summary");
    c.runCmd->add_option("workload", c.run.workload, "Workload file (JSON; see docs/workload-format.md)")->required();
    c.runCmd->add_option("-o,--output", c.run.output, "Write the trace to this file");
    c.runCmd->add_option("--device", c.run.device, "CUDA device index (default: the workload's)")
        ->check(CLI::NonNegativeNumber);
    c.runCmd->add_option("--repeat", c.run.repetitions, "Measured repetitions (default: the workload's)")
        ->check(CLI::Range(1, 100000));
    c.runCmd->add_option("--warmup", c.run.warmup, "Warm-up repetitions, not stored (default: the workload's)")
        ->check(CLI::Range(0, 100000));
    c.runCmd->add_option("--format", c.run.format, "Format of --output")
        ->check(CLI::IsMember({"native", "csv"}))
        ->capture_default_str();
    c.runCmd->add_option("--progress", c.run.progress, "Progress on stdout: 'json' lines for programs, 'none'")
        ->check(CLI::IsMember({"none", "json"}))
        ->capture_default_str();
    c.runCmd->add_flag("!--no-nvtx", c.run.nvtx, "Do not emit NVTX ranges and stream names");
    c.runCmd
        ->add_option("--timing", c.run.timing,
                     "What times each op's execution: 'cupti' (as the GPU ran it; falls back to events where "
                     "CUPTI cannot be enabled, and says why) or 'events' (a CUDA event pair on the op's stream)")
        ->check(CLI::IsMember({"cupti", "events"}))
        ->capture_default_str();
    c.runCmd->add_flag("!--no-kernel-latency", c.run.kernelLatency,
                       "With CUPTI: do not record kernels' queued and submitted times (saves about 1% of the GPU time, "
                       "but CUPTI then slowed pageable copies by a fifth on an H200)");
    c.runCmd->add_flag("--solo", c.run.solo,
                       "Also run each part of the workload alone (a stream, or the streams naming one \"part\") "
                       "after each repetition: per-op slowdown and the price of overlap (docs/measurement.md)");
    CLI::Option *ranks =
        c.runCmd->add_flag("--ranks", c.run.ranks,
                           "One process per rank under MPI (mpirun -np N streamscope-cli run --ranks ...): rank r runs "
                           "what the workload puts on GPU r; rank 0 writes one trace of all (docs/measurement.md)");
    c.runCmd
        ->add_flag("--measure-clocks", c.run.measureClocks,
                   "With --ranks: use the clock offsets the ranks' round trips measured even where they share "
                   "one clock (one machine), as across machines: a check of the measurement")
        ->needs(ranks);
    c.runCmd->add_option("--ops", c.run.opRows, "Rows of the per-op table (0: none)")->capture_default_str();
    c.runCmd->add_option("--time-limit", c.run.timeLimit,
                         "The longest the run may take, e.g. 30s or 500ms (default: the workload's timeLimit, else "
                         "none). Past it the run stops with exit code 8; GPU work that cannot stop (a kernel that "
                         "never ends) ends with the process");
}

// compare, diff and nsight-compare.
void declareCompareCommands(CLI::App &app, Commands &c)
{
    c.compareCmd = app.add_subcommand(
        "compare", "Run a workload's variants (--vary AXIS=V1,V2 ...; every combination) and compare them, or show a "
                   "saved .sscompare");
    c.compareCmd
        ->add_option("input", c.compare.input, "Workload file (JSON), or a comparison file (.sscompare) to show")
        ->required();
    c.compareCmd
        ->add_option("--vary", c.compare.vary,
                     "AXIS=VALUE,VALUE,...: memory (pageable, pinned, registered, managed), api (sync, async), "
                     "streams (counts), order (depth-first, breadth-first), chunks (counts), size (byte sizes); "
                     "repeat for a grid")
        ->allow_extra_args(false);
    c.compareCmd->add_option("-o,--output", c.compare.output, "Write the comparison (.sscompare) to this file");
    c.compareCmd->add_option("--device", c.compare.device, "CUDA device index (default: the workload's)")
        ->check(CLI::NonNegativeNumber);
    c.compareCmd
        ->add_option("--repeat", c.compare.repetitions, "Measured repetitions per variant (default: the workload's)")
        ->check(CLI::Range(1, 100000));
    c.compareCmd->add_option("--warmup", c.compare.warmup, "Warm-up repetitions per variant (default: the workload's)")
        ->check(CLI::Range(0, 100000));
    c.compareCmd->add_option("--progress", c.compare.progress, "Progress on stdout: 'json' lines for programs, 'none'")
        ->check(CLI::IsMember({"none", "json"}))
        ->capture_default_str();
    c.compareCmd->add_flag("!--no-nvtx", c.compare.nvtx, "Do not emit NVTX ranges and stream names");
    c.compareCmd
        ->add_option("--timing", c.compare.timing, "What times each op's execution: 'cupti' or 'events' (as run's)")
        ->check(CLI::IsMember({"cupti", "events"}))
        ->capture_default_str();

    c.diffCmd = app.add_subcommand("diff", "Compare two traces (any format StreamScope reads) op by op: start, "
                                           "duration and bandwidth deltas, with noise verdicts");
    c.diffCmd->add_option("a", c.diff.a, "First trace (A)")->required();
    c.diffCmd->add_option("b", c.diff.b, "Second trace (B)")->required();
    c.diffCmd
        ->add_option("--statistic", c.diff.statistic, "Per-op medians over every repetition, or the median repetition")
        ->check(CLI::IsMember({"per-op-median", "median-repetition"}))
        ->capture_default_str();
    c.diffCmd->add_flag("--normalize-names", c.diff.normalizeNames,
                        "Match names case-insensitively, without chunk tags like [c0] or argument lists");
    c.diffCmd->add_option("--ops", c.diff.opRows, "Rows of the per-op table (0: none)")->capture_default_str();

    c.nsightCmd = app.add_subcommand("nsight-compare", "Compare a StreamScope trace with the Nsight Systems SQLite "
                                                       "export of the same run: per-op start and duration deltas");
    c.nsightCmd->add_option("trace", c.nsightCompare.trace, "StreamScope trace of the run")->required();
    c.nsightCmd->add_option("nsys", c.nsightCompare.nsys, "nsys export --type sqlite of the same run")->required();
    c.nsightCmd->add_option("--ops", c.nsightCompare.opRows, "Rows of the per-op table (0: none)")
        ->capture_default_str();
    c.nsightCmd->add_flag(
        "--separate-runs", c.nsightCompare.separateRuns,
        "NSYS captured another run of the workload (StreamScope timed by CUPTI, which nsys would have "
        "taken): compare each op's median with the other's");
}

// CLI11 would only say "a subcommand is required" for a mistyped command; this names it instead.
bool knownCommand(CLI::App &app, int argc, char **argv)
{
    if (argc <= 1 || argv[1][0] == '-')
        return true;
    const std::string first = argv[1];
    for (const auto *sub : app.get_subcommands({}))
        if (sub->get_name() == first)
            return true;
    std::cerr << "streamscope-cli: unknown command '" << first
              << "' (commands: devices, validate, run, summary, describe, export, compare, diff, nsight-compare; "
                 "see --help)\n";
    return false;
}

int dispatch(const Commands &c, const std::atomic<bool> &cancel)
{
    if (*c.devices)
        return cmdDevices(c.devicesJson, std::cout, std::cerr);
    if (*c.validate)
        return cmdValidate(c.validateFiles, std::cout, std::cerr);
    if (*c.runCmd)
        return c.run.ranks ? cmdRunRanks(c.run, cancel, std::cout, std::cerr)
                           : cmdRun(c.run, cancel, std::cout, std::cerr);
    if (*c.summary)
        return cmdSummary(c.summaryFile, c.summaryRows, std::cout, std::cerr);
    if (*c.describe)
        return cmdDescribe(c.describeFile, c.describeRepetition, c.describeOp, std::cout, std::cerr);
    if (*c.exportCmd)
        return cmdExport(c.exportIn, c.exportFormat, c.exportOut, std::cout, std::cerr);
    if (*c.compareCmd)
        return cmdCompare(c.compare, cancel, std::cout, std::cerr);
    if (*c.diffCmd)
        return cmdDiff(c.diff, std::cout, std::cerr);
    if (*c.nsightCmd)
        return cmdNsightCompare(c.nsightCompare, std::cout, std::cerr);
    return ExitUsage;
}

} // namespace

int main(int argc, char **argv)
{
    // Names from files reach the terminal: their control characters are printed as escapes, never obeyed.
    const TerminalSafeOutput terminalSafe;
    CLI::App app{"StreamScope: what CUDA streams really do.\n"
                 "Runs multi-stream CUDA workloads, times every copy and kernel as the GPU ran it (CUPTI; CUDA events "
                 "as the fallback), and writes "
                 "traces the StreamScope app, Perfetto and Nsight Systems users can open.",
                 "streamscope-cli"};
    app.set_version_flag("--version", std::string("streamscope-cli ") + STREAMSCOPE_VERSION);
    app.require_subcommand(1);
    app.footer("Exit codes: 0 ok, 1 internal error, 2 usage, 3 invalid input, 4 I/O error, 5 no usable GPU, "
               "6 CUDA error, 7 does not fit in memory, 8 time limit reached, 130 cancelled.\n"
               "Examples:\n"
               "  streamscope-cli devices\n"
               "  streamscope-cli run resources/workloads/overlap.json -o overlap.sstrace\n"
               "  streamscope-cli export overlap.sstrace --format chrome -o overlap.json\n"
               "  streamscope-cli compare resources/workloads/overlap.json --vary streams=1,4 --vary order=depth-first,"
               "breadth-first -o overlap.sscompare\n"
               "  streamscope-cli diff run.sstrace run.nsys.sqlite\n"
               "Documentation: docs/ (workload-format.md, cli-protocol.md, formats.md, nsight.md, comparisons.md)");

    Commands c;
    declareCheckCommands(app, c); // in the order --help lists them
    declareRunCommand(app, c);
    declareTraceCommands(app, c);
    declareCompareCommands(app, c);
    if (!knownCommand(app, argc, argv))
        return ExitUsage;
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        const int code = app.exit(e);
        return code == 0 ? ExitOk : ExitUsage;
    }

    // Ctrl-C and SIGTERM: every command stops at its next check with exit 130 (engine/util/interrupt.h),
    // its temporary files removed. Commands on files stop within a second even where nothing checks (the
    // watchdog exits for them); a GPU run gets longer to stop its child process and say so.
    const bool runsGpuWork = *c.runCmd || *c.compareCmd;
    engine::installInterruptHandlers(engine::InterruptMode::Cooperative, runsGpuWork ? 5000 : 700);
    const std::atomic<bool> &cancel = engine::interruptFlag();
    int code = ExitUsage;
    try {
        code = dispatch(c, cancel);
    } catch (const std::bad_alloc &) {
        // What the readers and writers did not turn into an I/O error naming their file: still the
        // machine's limit (or a memory cap), not a bug.
        code = ExitIo;
        if (!engine::interrupted())
            std::cerr << "streamscope-cli: not enough memory for this command\n";
    } catch (const std::exception &e) {
        code = ExitInternal;
        if (!engine::interrupted())
            std::cerr << "streamscope-cli: internal error: " << clampLines(e.what()) << "\n";
    }
    engine::interruptibleWorkDone();
    // Whatever failed after a signal failed because of it (a temporary file the handler removed, a read
    // cut short): the command was cancelled.
    if (code != ExitOk && engine::interrupted()) {
        if (code != ExitCancelled)
            std::cerr << "streamscope-cli: interrupted\n";
        return ExitCancelled;
    }
    return code;
}
