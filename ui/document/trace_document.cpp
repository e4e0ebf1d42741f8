#include "ui/document/trace_document.h"

#include <algorithm>

#include "engine/model/errors.h"

namespace streamscope::ui {

TraceDocument::TraceDocument(QObject *parent) : QObject(parent)
{
}

void TraceDocument::setTrace(std::shared_ptr<const engine::Trace> trace, const QString &name, const QString &path)
{
    TraceAnalysis analysis = trace ? analyzeTrace(*trace) : TraceAnalysis{};
    setTrace(std::move(trace), std::move(analysis), name, path);
}

void TraceDocument::setTrace(std::shared_ptr<const engine::Trace> trace, TraceAnalysis analysis, const QString &name,
                             const QString &path)
{
    m_trace = std::move(trace);
    m_name = name;
    m_path = path;
    m_analysis = m_trace ? std::move(analysis) : TraceAnalysis{};
    const engine::TraceSummary &summary = m_analysis.summary;
    m_repetition = summary.repetitions.empty() ? 0 : summary.medianRepetition;
    m_selectedOp = -1;
    m_selectedOps.clear();
    m_rangeFromSelection = false;
    updateMatches();
    const bool hadRange = m_hasRange;
    m_hasRange = false;
    m_range = {};
    emit traceChanged(m_trace);
    emit nameChanged(m_name, m_path);
    emit laneStateChanged();
    emit repetitionChanged(m_repetition);
    emit selectionChanged(m_repetition, m_selectedOp);
    emit selectedOpsChanged();
    emit matchesChanged();
    if (hadRange)
        emit rangeChanged();
}

void TraceDocument::setName(const QString &name, const QString &path)
{
    if (name == m_name && path == m_path)
        return;
    // The same trace under a new name (Save as): its lanes stay as they were arranged.
    LaneViewState lanes = laneState();
    m_name = name;
    m_path = path;
    m_laneStates[laneStateKey()] = std::move(lanes);
    emit nameChanged(m_name, m_path);
}

void TraceDocument::setRepetition(int repetition)
{
    if (!m_trace || m_trace->repetitions.empty())
        return;
    repetition = std::clamp(repetition, 0, int(m_trace->repetitions.size()) - 1);
    if (repetition == m_repetition)
        return;
    m_repetition = repetition;
    const bool hadSelection = m_selectedOp >= 0;
    const bool hadSet = m_selectedOps.size() > 1;
    m_selectedOp = -1;
    m_selectedOps.clear();
    updateMatches();
    emit repetitionChanged(m_repetition);
    clearRange();
    if (hadSelection)
        emit selectionChanged(m_repetition, -1);
    if (hadSet || hadSelection)
        emit selectedOpsChanged();
    if (hasQuery())
        emit matchesChanged();
}

int TraceDocument::opCount() const
{
    return m_trace && m_repetition < int(m_trace->repetitions.size())
               ? int(m_trace->repetitions[std::size_t(m_repetition)].ops.size())
               : 0;
}

void TraceDocument::setLaneState(const LaneViewState &state)
{
    LaneViewState &current = m_laneStates[laneStateKey()];
    if (current == state)
        return;
    current = state;
    emit laneStateChanged();
}

void TraceDocument::selectOp(int op)
{
    if (op < 0 || op >= opCount())
        op = -1;
    const bool wasSet = m_selectedOps.size() > 1;
    if (op == m_selectedOp && !wasSet)
        return;
    m_selectedOps = op >= 0 ? std::vector<int>{op} : std::vector<int>{};
    if (wasSet && m_rangeFromSelection)
        clearRange();
    if (op != m_selectedOp) {
        m_selectedOp = op;
        emit selectionChanged(m_repetition, m_selectedOp);
    }
    emit selectedOpsChanged();
}

bool TraceDocument::isSelected(int op) const
{
    return std::binary_search(m_selectedOps.begin(), m_selectedOps.end(), op);
}

void TraceDocument::toggleOpSelected(int op)
{
    if (op < 0 || op >= opCount())
        return;
    const auto at = std::lower_bound(m_selectedOps.begin(), m_selectedOps.end(), op);
    int primary = op;
    if (at != m_selectedOps.end() && *at == op) {
        m_selectedOps.erase(at);
        primary = op == m_selectedOp ? (m_selectedOps.empty() ? -1 : m_selectedOps.back()) : m_selectedOp;
    } else {
        m_selectedOps.insert(at, op);
    }
    selectionSetChanged(primary);
}

void TraceDocument::selectOps(std::vector<int> ops)
{
    const int count = opCount();
    const int primary = ops.empty() ? -1 : ops.back();
    ops.erase(std::remove_if(ops.begin(), ops.end(), [count](int op) { return op < 0 || op >= count; }), ops.end());
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    if (ops == m_selectedOps)
        return;
    m_selectedOps = std::move(ops);
    selectionSetChanged(isSelected(primary) ? primary : (m_selectedOps.empty() ? -1 : m_selectedOps.back()));
}

void TraceDocument::selectionSetChanged(int primary)
{
    if (m_selectedOps.size() > 1) {
        try {
            m_range = engine::selectionStatistics(*m_trace, m_repetition, m_selectedOps);
            m_hasRange = true;
            m_rangeFromSelection = true;
            emit rangeChanged();
        } catch (const engine::Error &) {
            // Ops without any time (none in practice): no statistics to show for them.
            if (m_rangeFromSelection)
                clearRange();
        }
    } else if (m_rangeFromSelection) {
        clearRange();
    }
    if (primary != m_selectedOp) {
        m_selectedOp = primary;
        emit selectionChanged(m_repetition, m_selectedOp);
    }
    emit selectedOpsChanged();
}

} // namespace streamscope::ui

namespace streamscope::ui {

void TraceDocument::setQuery(const engine::OpQuery &query, bool filter)
{
    m_query = query;
    m_filter = filter;
    updateMatches();
    emit matchesChanged();
}

void TraceDocument::updateMatches()
{
    m_matches.clear();
    m_isMatch.clear();
    m_queryError.clear();
    if (!m_trace || m_query.isEmpty())
        return;
    try {
        m_matches = engine::findOps(*m_trace, m_repetition, m_query);
    } catch (const std::exception &e) {
        m_queryError = QString::fromUtf8(e.what());
        return;
    }
    m_isMatch.assign(m_trace->repetitions[std::size_t(m_repetition)].ops.size(), 0);
    for (int op : m_matches)
        m_isMatch[std::size_t(op)] = 1;
}

bool TraceDocument::isMatch(int op) const
{
    return op >= 0 && std::size_t(op) < m_isMatch.size() && m_isMatch[std::size_t(op)] != 0;
}

int TraceDocument::selectedMatchIndex() const
{
    const auto it = std::find(m_matches.begin(), m_matches.end(), m_selectedOp);
    return m_selectedOp >= 0 && it != m_matches.end() ? int(it - m_matches.begin()) : -1;
}

int TraceDocument::selectNextMatch(bool backwards)
{
    if (m_matches.empty())
        return -1;
    const int count = int(m_matches.size());
    const int at = selectedMatchIndex();
    int next;
    if (at >= 0)
        next = (at + (backwards ? count - 1 : 1)) % count;
    else
        next = backwards ? count - 1 : 0;
    selectOp(m_matches[std::size_t(next)]);
    return m_matches[std::size_t(next)];
}

} // namespace streamscope::ui

namespace streamscope::ui {

void TraceDocument::setRange(qint64 startNs, qint64 endNs)
{
    if (!m_trace || endNs <= startNs) {
        clearRange();
        return;
    }
    m_range = engine::rangeStatistics(*m_trace, m_repetition, startNs, endNs);
    m_hasRange = true;
    m_rangeFromSelection = false;
    emit rangeChanged();
}

void TraceDocument::clearRange()
{
    if (!m_hasRange)
        return;
    m_hasRange = false;
    m_rangeFromSelection = false;
    m_range = {};
    emit rangeChanged();
}

} // namespace streamscope::ui
