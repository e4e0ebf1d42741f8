// streamscope-cli: the headless front. Runs workloads on a GPU, validates workload files, prints
// summaries and converts traces. Needs no Qt, so it runs on any GPU server; the GUI drives it as a
// child process through `run --progress json` (docs/cli-protocol.md).
#include <CLI/CLI.hpp>
#include <iostream>

#include "app/cli/commands.h"
#include "app/cli/compare_commands.h"
#include "app/cli/nsight_command.h"
#include "app/cli/terminal_text.h"
#include "engine/util/interrupt.h"

namespace engine = streamscope::engine;

static_assert(engine::protocol::ExitCancelled == 130, "engine/util/interrupt.cpp exits with 130");

int main(int argc, char **argv)
{
    using namespace streamscope::cli;
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

    bool devicesJson = false;
    auto *devices = app.add_subcommand("devices", "List the CUDA devices and how each pair is linked: peer access, "
                                                  "NVLink or PCIe, performance rank, peak bandwidth");
    devices->add_flag("--json", devicesJson,
                      "Print JSON instead of a table (docs/cli-protocol.md; on failure an error line as run's)");

    std::vector<std::string> validateFiles;
    auto *validate = app.add_subcommand("validate", "Check workload files and report every problem with its line "
                                                    "and JSON path");
    validate->add_option("files", validateFiles, "Workload files (JSON)")->required();

    RunArgs run;
    auto *runCmd = app.add_subcommand("run", "Run a workload on the GPU and print a summary");
    runCmd->add_option("workload", run.workload, "Workload file (JSON; see docs/workload-format.md)")->required();
    runCmd->add_option("-o,--output", run.output, "Write the trace to this file");
    runCmd->add_option("--device", run.device, "CUDA device index (default: the workload's)")
        ->check(CLI::NonNegativeNumber);
    runCmd->add_option("--repeat", run.repetitions, "Measured repetitions (default: the workload's)")
        ->check(CLI::Range(1, 100000));
    runCmd->add_option("--warmup", run.warmup, "Warm-up repetitions, not stored (default: the workload's)")
        ->check(CLI::Range(0, 100000));
    runCmd->add_option("--format", run.format, "Format of --output")
        ->check(CLI::IsMember({"native", "csv"}))
        ->capture_default_str();
    runCmd->add_option("--progress", run.progress, "Progress on stdout: 'json' lines for programs, 'none'")
        ->check(CLI::IsMember({"none", "json"}))
        ->capture_default_str();
    runCmd->add_flag("!--no-nvtx", run.nvtx, "Do not emit NVTX ranges and stream names");
    runCmd
        ->add_option("--timing", run.timing,
                     "What times each op's execution: 'cupti' (as the GPU ran it; falls back to events where "
                     "CUPTI cannot be enabled, and says why) or 'events' (a CUDA event pair on the op's stream)")
        ->check(CLI::IsMember({"cupti", "events"}))
        ->capture_default_str();
    runCmd->add_flag("!--no-kernel-latency", run.kernelLatency,
                     "With CUPTI: do not record kernels' queued and submitted times (saves about 1% of the GPU time, "
                     "but CUPTI then slowed pageable copies by a fifth on an H200)");
    runCmd->add_flag("--solo", run.solo,
                     "Also run each part of the workload alone (a stream, or the streams naming one \"part\") "
                     "after each repetition: per-op slowdown and the price of overlap (docs/measurement.md)");
    runCmd->add_option("--ops", run.opRows, "Rows of the per-op table (0: none)")->capture_default_str();
    runCmd->add_option("--time-limit", run.timeLimit,
                       "The longest the run may take, e.g. 30s or 500ms (default: the workload's timeLimit, else "
                       "none). Past it the run stops with exit code 8; GPU work that cannot stop (a kernel that "
                       "never ends) ends with the process");

    std::string summaryFile;
    int summaryRows = 40;
    auto *summary = app.add_subcommand("summary", "Print the summary of a trace file (any format StreamScope reads)");
    summary->add_option("trace", summaryFile, "Trace file")->required();
    summary->add_option("--ops", summaryRows, "Rows of the per-op table (0: none)")->capture_default_str();

    std::string describeFile;
    int describeOp = 0, describeRepetition = 0;
    auto *describe = app.add_subcommand("describe", "Describe one op of a trace as the app's details do: its kind, "
                                                    "intervals, what timed it, why it waited, bytes, memory, call");
    describe->add_option("trace", describeFile, "Trace file")->required();
    describe->add_option("op", describeOp, "The op's index in its repetition, from 0")->required();
    describe->add_option("--repetition", describeRepetition, "The repetition, from 0")->capture_default_str();

    std::string exportIn, exportFormat, exportOut;
    auto *exportCmd = app.add_subcommand("export", "Convert a trace (native, Nsight Systems SQLite, Chrome/PyTorch "
                                                   "JSON) to native, Chrome trace JSON (Perfetto) or CSV");
    exportCmd->add_option("input", exportIn, "Input trace")->required();
    exportCmd
        ->add_option("--format", exportFormat,
                     "Output format (default: the output's suffix says it: .sstrace native, .json chrome, .csv csv)")
        ->check(CLI::IsMember({"native", "chrome", "csv"}));
    exportCmd->add_option("-o,--output", exportOut, "Output file")->required();

    CompareArgs compare;
    auto *compareCmd = app.add_subcommand(
        "compare", "Run a workload's variants (--vary AXIS=V1,V2 ...; every combination) and compare them, or show a "
                   "saved .sscompare");
    compareCmd->add_option("input", compare.input, "Workload file (JSON), or a comparison file (.sscompare) to show")
        ->required();
    compareCmd
        ->add_option("--vary", compare.vary,
                     "AXIS=VALUE,VALUE,...: memory (pageable, pinned, registered, managed), api (sync, async), "
                     "streams (counts), order (depth-first, breadth-first), chunks (counts), size (byte sizes); "
                     "repeat for a grid")
        ->allow_extra_args(false);
    compareCmd->add_option("-o,--output", compare.output, "Write the comparison (.sscompare) to this file");
    compareCmd->add_option("--device", compare.device, "CUDA device index (default: the workload's)")
        ->check(CLI::NonNegativeNumber);
    compareCmd
        ->add_option("--repeat", compare.repetitions, "Measured repetitions per variant (default: the workload's)")
        ->check(CLI::Range(1, 100000));
    compareCmd->add_option("--warmup", compare.warmup, "Warm-up repetitions per variant (default: the workload's)")
        ->check(CLI::Range(0, 100000));
    compareCmd->add_option("--progress", compare.progress, "Progress on stdout: 'json' lines for programs, 'none'")
        ->check(CLI::IsMember({"none", "json"}))
        ->capture_default_str();
    compareCmd->add_flag("!--no-nvtx", compare.nvtx, "Do not emit NVTX ranges and stream names");
    compareCmd->add_option("--timing", compare.timing, "What times each op's execution: 'cupti' or 'events' (as run's)")
        ->check(CLI::IsMember({"cupti", "events"}))
        ->capture_default_str();

    DiffArgs diff;
    auto *diffCmd = app.add_subcommand("diff", "Compare two traces (any format StreamScope reads) op by op: start, "
                                               "duration and bandwidth deltas, with noise verdicts");
    diffCmd->add_option("a", diff.a, "First trace (A)")->required();
    diffCmd->add_option("b", diff.b, "Second trace (B)")->required();
    diffCmd->add_option("--statistic", diff.statistic, "Per-op medians over every repetition, or the median repetition")
        ->check(CLI::IsMember({"per-op-median", "median-repetition"}))
        ->capture_default_str();
    diffCmd->add_flag("--normalize-names", diff.normalizeNames,
                      "Match names case-insensitively, without chunk tags like [c0] or argument lists");
    diffCmd->add_option("--ops", diff.opRows, "Rows of the per-op table (0: none)")->capture_default_str();

    NsightCompareArgs nsightCompare;
    auto *nsightCmd = app.add_subcommand("nsight-compare", "Compare a StreamScope trace with the Nsight Systems SQLite "
                                                           "export of the same run: per-op start and duration deltas");
    nsightCmd->add_option("trace", nsightCompare.trace, "StreamScope trace of the run")->required();
    nsightCmd->add_option("nsys", nsightCompare.nsys, "nsys export --type sqlite of the same run")->required();
    nsightCmd->add_option("--ops", nsightCompare.opRows, "Rows of the per-op table (0: none)")->capture_default_str();
    nsightCmd->add_flag("--separate-runs", nsightCompare.separateRuns,
                        "NSYS captured another run of the workload (StreamScope timed by CUPTI, which nsys would have "
                        "taken): compare each op's median with the other's");

    // CLI11 would only say "a subcommand is required" for a mistyped command; name it instead.
    if (argc > 1 && argv[1][0] != '-') {
        const std::string first = argv[1];
        bool known = false;
        for (const auto *sub : app.get_subcommands({}))
            known = known || sub->get_name() == first;
        if (!known) {
            std::cerr
                << "streamscope-cli: unknown command '" << first
                << "' (commands: devices, validate, run, summary, describe, export, compare, diff, nsight-compare; "
                   "see --help)\n";
            return ExitUsage;
        }
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        const int code = app.exit(e);
        return code == 0 ? ExitOk : ExitUsage;
    }

    // Ctrl-C and SIGTERM: every command stops at its next check with exit 130 (engine/util/interrupt.h),
    // its temporary files removed. Commands on files stop within a second even where nothing checks (the
    // watchdog exits for them); a GPU run gets longer to stop its child process and say so.
    const bool runsGpuWork = *runCmd || *compareCmd;
    engine::installInterruptHandlers(engine::InterruptMode::Cooperative, runsGpuWork ? 5000 : 700);
    const std::atomic<bool> &cancel = engine::interruptFlag();
    const auto dispatch = [&]() -> int {
        if (*devices)
            return cmdDevices(devicesJson, std::cout, std::cerr);
        if (*validate)
            return cmdValidate(validateFiles, std::cout, std::cerr);
        if (*runCmd)
            return cmdRun(run, cancel, std::cout, std::cerr);
        if (*summary)
            return cmdSummary(summaryFile, summaryRows, std::cout, std::cerr);
        if (*describe)
            return cmdDescribe(describeFile, describeRepetition, describeOp, std::cout, std::cerr);
        if (*exportCmd)
            return cmdExport(exportIn, exportFormat, exportOut, std::cout, std::cerr);
        if (*compareCmd)
            return cmdCompare(compare, cancel, std::cout, std::cerr);
        if (*diffCmd)
            return cmdDiff(diff, std::cout, std::cerr);
        if (*nsightCmd)
            return cmdNsightCompare(nsightCompare, std::cout, std::cerr);
        return ExitUsage;
    };
    int code = ExitUsage;
    try {
        code = dispatch();
    } catch (const std::exception &e) {
        code = ExitInternal;
        if (!engine::interrupted())
            std::cerr << "streamscope-cli: internal error: " << e.what() << "\n";
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
