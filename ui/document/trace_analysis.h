// TraceAnalysis: what the views of one trace read off it, computed once per trace and handed over whole:
// the summary (engine::summarize) and its metrics (engine::summaryMetrics), the per-op statistics, the
// solo-baseline interference analysis (engine::analyzeInterference, which the summary, the details, the
// operations table and the timeline all read) and the lanes of the repetition shown first. A trace opened
// from a file gets it on the loader's thread (TraceLoader), so the GUI thread only swaps it in.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/analysis/interference.h"
#include "engine/analysis/op_statistics.h"
#include "engine/analysis/summary_metrics.h"
#include "engine/model/trace.h"

namespace streamscope::ui {

class LaneModel; // ui/timeline: built here only through a LaneBuilder the timeline hands out

// Builds the lanes of one repetition of a trace as a timeline shows them (TimelineView::laneBuilder: its
// lane options bound in), given the trace's interference analysis (null: none). Called on any thread.
using LaneBuilder = std::function<std::shared_ptr<const LaneModel>(const engine::Trace &, int repetition,
                                                                   const engine::InterferenceReport *)>;

struct TraceAnalysis {
    engine::TraceSummary summary;
    std::vector<engine::SummaryMetric> summaryMetrics; // they refer to the trace: keep it alive with them
    // engine::repeatedOpStatistics: the ops measured in two or more repetitions (none for a trace of one),
    // shared with the views that show them. Never null.
    std::shared_ptr<const std::vector<engine::OpStatistics>> opStatistics =
        std::make_shared<const std::vector<engine::OpStatistics>>();
    std::shared_ptr<const engine::InterferenceReport> interference; // null for a trace without solo baselines
    // The lanes of summary.medianRepetition (the repetition a document shows first), where a LaneBuilder
    // was given; else null, and the timeline builds them.
    std::shared_ptr<const LaneModel> lanes;
};

// Everything above for trace. It only reads the trace, so it may run on any thread. With `cancel`, it
// checks between its steps and throws engine::Error{Cancelled} once it is set.
TraceAnalysis analyzeTrace(const engine::Trace &trace, const LaneBuilder &lanes = {},
                           const std::atomic<bool> *cancel = nullptr);

} // namespace streamscope::ui
