// The nsight-compare command: loads both traces, runs engine::compareWithNsight and prints the
// summary per op kind and the per-op table.
#include "app/cli/nsight_command.h"

#include "engine/model/units.h"

#include <iomanip>
#include <ostream>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/table_format.h"
#include "app/cli/terminal_text.h"
#include "engine/analysis/nsight_compare.h"
#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "engine/model/units.h"

namespace streamscope::cli {

namespace {

// Deltas are a few microseconds: print them in µs with two decimals, signed where a sign means something.
std::string micro(double ns, bool sign = false)
{
    return engine::formatMicroseconds(ns, 2, sign);
}

std::string percent(double p)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << p << " %";
    return s.str();
}

void summaryRow(std::ostream &out, const engine::NsightDeltaSummary &s)
{
    out << "  " << padRight(s.label, 12) << padRight(std::to_string(s.samples), 9)
        << padRight(micro(s.medianAbsDurationDeltaNs), 13) << padRight(percent(s.medianAbsDurationDeltaPct), 10)
        << padRight(micro(s.maxAbsDurationDeltaNs), 13) << padRight(percent(s.maxAbsDurationDeltaPct), 10)
        << padRight(micro(s.medianAbsStartDeltaNs), 15) << micro(s.maxAbsStartDeltaNs) << "\n";
}

} // namespace

int cmdNsightCompare(const NsightCompareArgs &args, std::ostream &out, std::ostream &err)
{
    try {
        const engine::Trace own = engine::loadTrace(args.trace);
        const engine::Trace nsight = engine::loadTrace(args.nsys);
        if (nsight.source != engine::TraceSource::NsysSqlite)
            err << "streamscope-cli nsight-compare: warning: " << args.nsys << " is not an Nsight Systems export ("
                << toString(nsight.source) << "); comparing anyway\n";
        const engine::NsightComparison c = engine::compareWithNsight(
            own, nsight, args.separateRuns ? engine::NsightPairing::SeparateRuns : engine::NsightPairing::SameRun);

        out << "\nStreamScope: " << args.trace << " (" << own.repetitions.size() << " repetitions)\n"
            << "Nsight:      " << args.nsys << " (" << nsight.repetitions.size() << " repetitions"
            << (nsight.metadata.count("op_names") ? ", ops named by NVTX ranges" : ", CUDA names: no NVTX ranges")
            << ")\n"
            << c.repetitions << " repetitions compared; " << c.matched << " op instances matched"
            << (c.matchedByOrder ? " (" + std::to_string(c.matchedByOrder) + " by order)" : std::string())
            << (c.matchedAcrossStreams ? " (" + std::to_string(c.matchedAcrossStreams) + " on another stream in Nsight)"
                                       : std::string())
            << ", " << c.unmatchedOwn << " only in StreamScope, " << c.unmatchedNsight << " only in Nsight\n"
            << (args.separateRuns ? "Two runs: each op's median against the other's (one sample per op); "
                                    "deltas are Nsight - StreamScope.\n"
                                  : "Deltas are Nsight - StreamScope; starts from each repetition's first GPU start.\n")
            << "StreamScope timed by " << engine::toString(own.timing)
            << (own.timingNote.empty() ? std::string() : " (" + own.timingNote + ")") << "\n";
        if (c.targetOps > 0) {
            out << "Agreement (copies, kernels, memsets of 20 us or more, within max(1 us, 2 %)): " << c.targetMet
                << " of " << c.targetOps << " ops\n";
            if (args.opRows > 0)
                for (const std::string &miss : c.targetMisses)
                    out << "  outside: " << miss << "\n";
        }
        out << "\n";
        out << "  " << padRight("kind", 12) << padRight("samples", 9) << padRight("med |dur d|", 13)
            << padRight("med %", 10) << padRight("max |dur d|", 13) << padRight("max %", 10)
            << padRight("med |start d|", 15) << "max |start d|\n";
        for (const auto &k : c.kinds)
            summaryRow(out, k);
        summaryRow(out, c.overall);

        if (args.opRows > 0 && !c.ops.empty()) {
            out << "\n  " << padRight("lane", 14) << padRight("op", 34) << padRight("n", 4)
                << padRight("StreamScope", 13) << padRight("Nsight", 13) << padRight("dur d", 13) << "start d\n";
            int shown = 0;
            for (const auto &o : c.ops) {
                if (shown++ >= args.opRows) {
                    out << "  ... " << c.ops.size() - static_cast<std::size_t>(args.opRows)
                        << " more ops (--ops N to show more)\n";
                    break;
                }
                out << "  " << padRight(cellText(o.lane, 13), 14)
                    << padRight(cellText(o.name, 32)
                                    + (o.byOrder                ? "*"
                                       : o.nsightLane != o.lane ? "+"
                                                                : ""),
                                34)
                    << padRight(std::to_string(o.samples), 4) << padRight(ms(o.ownDurationNs), 13)
                    << padRight(ms(o.nsightDurationNs), 13) << padRight(micro(o.durationDeltaNs, true), 13)
                    << micro(o.startDeltaNs, true) << "\n";
            }
            if (c.matchedByOrder > 0)
                out << "  * paired by order in its lane: Nsight names it differently\n";
            for (const auto &o : c.ops)
                if (!o.byOrder && o.nsightLane != o.lane) {
                    out << "  + Nsight saw it on another lane (" << o.nsightLane << " for the first): " << o.laneNote
                        << "\n";
                    break;
                }
        }
        return ExitOk;
    } catch (const engine::Error &e) {
        err << "streamscope-cli nsight-compare: " << clampLines(e.what()) << "\n";
        return protocol::exitCodeOf(e.kind());
    }
}

} // namespace streamscope::cli
