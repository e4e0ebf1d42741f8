// The catalogue of a trace's summary metrics: one list, in one order, with one label, description and
// unit each, read from engine::RepetitionStats. The CLI's summary and the app's summary panel both show
// this list, so they never disagree on what a run is summarised by. Rows that would only be zeros (a
// copy direction a workload never uses, unified memory in a run without it) are left out.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/model/trace.h"

namespace streamscope::engine {

enum class MetricUnit { Duration, Fraction, Bytes, Bandwidth, Count };

// What an extractor returns for a repetition the metric does not apply to (a bandwidth where nothing was
// copied that way): left out of the spread, written "-".
inline constexpr double kNotApplicable = std::numeric_limits<double>::quiet_NaN();

struct SummaryMetric {
    std::string label; // "Makespan", "Busy: stream0", "H2D bandwidth"
    std::string description; // what it measures, one sentence (tooltips, docs)
    MetricUnit unit = MetricUnit::Duration;
    std::function<double(const RepetitionStats &)> value; // the metric in one repetition
    Spread spread; // over every repetition of the summary
    // What to write where no repetition has a value (spread.count == 0); empty: "-".
    std::string whenUnknown;
};

struct InterferenceReport;

// The rows of a trace with its summary (engine::summarize). The price-of-overlap rows read the solo
// baselines' analysis: pass it where it is already at hand (analyzeInterference of this trace; null for a
// trace without solo baselines), else it is computed here. The rows refer to the trace: it must outlive them.
std::vector<SummaryMetric> summaryMetrics(const Trace &trace, const TraceSummary &summary);
std::vector<SummaryMetric> summaryMetrics(const Trace &trace, const TraceSummary &summary,
                                          std::shared_ptr<const InterferenceReport> interference);

// A metric's value as the CLI and the app write it ("1.23 ms", "42.5 %", "16 MiB", "51.9 GB/s", "160";
// "-" for kNotApplicable).
std::string formatMetric(MetricUnit unit, double value);

} // namespace streamscope::engine
