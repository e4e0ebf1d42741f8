// TraceDocument: the trace the window shows, and what the views share about it: its name and file, its
// analysis (summary, metrics, per-op statistics, solo-baseline interference: computed once per trace,
// here or by the loader, trace_analysis.h), the repetition shown and the selected
// op. Views bind to it (TimelineView::setDocument, SummaryPanel::setDocument, ...) and both follow it and
// change it: a click on an op in the timeline selects it in the document, and the details panel and the
// operations table follow; a repetition chosen in the summary moves the timeline. Nobody fans setTrace
// calls out to the views any more. The model is hotspot's and heaptrack's one parsed-data object that
// every view reads.
#pragma once

#include <QObject>
#include <QString>

#include <map>
#include <memory>
#include <set>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/analysis/op_query.h"
#include "engine/analysis/op_statistics.h"
#include "engine/analysis/range_statistics.h"
#include "engine/model/trace.h"
#include "ui/document/trace_analysis.h"

namespace streamscope::ui {

// How the timeline arranges the lanes of one trace: lanes hidden, pinned to the top (in pin order) and
// renamed, and groups collapsed. Keys are the lane tree's stable keys ("stream:3", "thread:0",
// "process:145", "device:1@145", ...; see ui/timeline/lane_tree.h), so the state holds for every
// repetition of the trace.
struct LaneViewState {
    std::set<QString> hidden;
    std::vector<QString> pinned;
    std::map<QString, QString> names; // renamed lanes: key -> the user's label
    std::set<QString> collapsed;
    bool operator==(const LaneViewState &) const = default;
};

class TraceDocument : public QObject {
    Q_OBJECT
public:
    explicit TraceDocument(QObject *parent = nullptr);

    // Shows a trace (nullptr: none): its analysis is computed (analyzeTrace, on this thread), the
    // repetition becomes the median one and the selection is cleared. Emits traceChanged, then
    // repetitionChanged and selectionChanged, so that a view bound to all three is consistent after the last.
    void setTrace(std::shared_ptr<const engine::Trace> trace, const QString &name = {}, const QString &path = {});
    // The same with the trace's analysis already computed (analyzeTrace of this trace, on the loader's
    // thread): nothing is computed here.
    void setTrace(std::shared_ptr<const engine::Trace> trace, TraceAnalysis analysis, const QString &name = {},
                  const QString &path = {});
    const std::shared_ptr<const engine::Trace> &trace() const { return m_trace; }
    bool hasTrace() const { return m_trace != nullptr; }
    // What the window calls it ("overlap.sstrace", "overlap (run 2, not saved)") and where it was read
    // or written (empty when it lives only in memory).
    QString name() const { return m_name; }
    QString path() const { return m_path; }
    // Renames the shown trace without reloading it (after Save as).
    void setName(const QString &name, const QString &path);

    const engine::TraceSummary &summary() const { return m_analysis.summary; }
    const std::vector<engine::SummaryMetric> &summaryMetrics() const { return m_analysis.summaryMetrics; }
    const std::shared_ptr<const std::vector<engine::OpStatistics>> &opStatistics() const
    {
        return m_analysis.opStatistics;
    }
    // The solo-baseline analysis (engine/analysis/interference.h), null for a trace without solo baselines.
    const std::shared_ptr<const engine::InterferenceReport> &interference() const { return m_analysis.interference; }
    // The lanes the analysis built for the first repetition shown (TraceAnalysis::lanes), handed to the
    // first timeline that asks: the document keeps no copy. Null when there are none (left).
    std::shared_ptr<const LaneModel> takeLanes() { return std::move(m_analysis.lanes); }

    // The repetition the views show (index into Trace::repetitions); out-of-range values are clamped.
    // Changing it clears the selection (an op index means nothing in another repetition).
    int repetition() const { return m_repetition; }
    void setRepetition(int repetition);
    // The selected op of the shown repetition, -1 when none.
    int selectedOp() const { return m_selectedOp; }
    void selectOp(int op);
    // A multiple selection (Ctrl+click in the timeline, extended selection in the operations table):
    // the selected ops in index order, the selected op among them (the one last added). From two ops
    // on, the document measures them as a range (engine::selectionStatistics): rangeStatistics() counts
    // only them, over their span. selectOp() makes the selection that one op again.
    const std::vector<int> &selectedOps() const { return m_selectedOps; }
    bool isSelected(int op) const;
    void toggleOpSelected(int op);
    void selectOps(std::vector<int> ops);

    // Find: the ops of the shown repetition that match the query (engine::findOps), in start order, kept
    // up to date when the trace or the repetition changes. A query that cannot run (a broken regular
    // expression) matches nothing and says why in queryError(). With `filter`, the views dim (timeline)
    // or hide (operations table) what does not match.
    void setQuery(const engine::OpQuery &query, bool filter = false);
    void clearQuery() { setQuery({}, false); }
    const engine::OpQuery &query() const { return m_query; }
    bool hasQuery() const { return !m_query.isEmpty(); }
    bool filtering() const { return m_filter && hasQuery(); }
    QString queryError() const { return m_queryError; }
    const std::vector<int> &matches() const { return m_matches; }
    bool isMatch(int op) const; // false without a query
    // Selects the match after (before, with backwards) the selected op in start order, wrapping
    // around; the first (last) when nothing or no match is selected. Returns the op, -1 with no match.
    int selectNextMatch(bool backwards = false);
    // Where the selected op stands among the matches (0-based), -1 when it is not one.
    int selectedMatchIndex() const;

    // A measured range of the shown repetition (ns from its start, as the timeline's ruler), with its
    // statistics (engine::rangeStatistics), or the statistics of a multiple selection (their
    // selectedOps is then the number of ops); cleared when the trace or the repetition changes.
    void setRange(qint64 startNs, qint64 endNs);
    void clearRange();
    bool hasRange() const { return m_hasRange; }
    const engine::RangeStatistics &rangeStatistics() const { return m_range; }

    // The timeline's lane arrangement for this trace. Kept for the session per trace file (by path, or
    // by name for a trace that lives only in memory): opening another file and coming back finds the
    // lanes as they were left.
    const LaneViewState &laneState() const { return m_laneStates[laneStateKey()]; }
    void setLaneState(const LaneViewState &state);

signals:
    void laneStateChanged();
    void rangeChanged();
    void matchesChanged();
    void traceChanged(const std::shared_ptr<const engine::Trace> &trace);
    void nameChanged(const QString &name, const QString &path);
    void repetitionChanged(int repetition);
    void selectionChanged(int repetition, int op); // op == -1: cleared
    void selectedOpsChanged(); // the multiple selection changed (selectedOps())

private:
    std::shared_ptr<const engine::Trace> m_trace;
    QString m_name;
    QString m_path;
    TraceAnalysis m_analysis;
    int m_repetition = 0;
    int m_selectedOp = -1;
    std::vector<int> m_selectedOps; // sorted; empty, or containing m_selectedOp
    bool m_rangeFromSelection = false; // m_range measures m_selectedOps, not a time range
    int opCount() const;
    // After m_selectedOps changed: the primary op, the selection's statistics and the signals.
    void selectionSetChanged(int primary);

    void updateMatches();
    bool m_hasRange = false;
    engine::RangeStatistics m_range;
    engine::OpQuery m_query;
    bool m_filter = false;
    QString m_queryError;
    std::vector<int> m_matches; // start order
    std::vector<char> m_isMatch; // by op index of the shown repetition

    QString laneStateKey() const { return m_path.isEmpty() ? m_name : m_path; }
    mutable std::map<QString, LaneViewState> m_laneStates; // by laneStateKey(), for the session
};

} // namespace streamscope::ui
