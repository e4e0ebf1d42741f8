// TraceAnalysis: see trace_analysis.h.
#include "ui/document/trace_analysis.h"

#include "engine/model/errors.h"

namespace streamscope::ui {

TraceAnalysis analyzeTrace(const engine::Trace &trace, const LaneBuilder &lanes, const std::atomic<bool> *cancel)
{
    const auto check = [cancel] {
        if (cancel && cancel->load())
            throw engine::Error(engine::ErrorKind::Cancelled, "cancelled");
    };
    TraceAnalysis a;
    a.summary = engine::summarize(trace);
    check();
    if (!trace.solo.empty()) {
        a.interference = std::make_shared<const engine::InterferenceReport>(engine::analyzeInterference(trace));
        check();
    }
    a.summaryMetrics = engine::summaryMetrics(trace, a.summary, a.interference);
    a.opStatistics = std::make_shared<const std::vector<engine::OpStatistics>>(engine::repeatedOpStatistics(trace));
    check();
    if (lanes && !trace.repetitions.empty()) {
        const int repetition = a.summary.repetitions.empty() ? 0 : a.summary.medianRepetition;
        a.lanes = lanes(trace, repetition, a.interference.get());
    }
    return a;
}

} // namespace streamscope::ui
