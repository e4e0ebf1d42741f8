#include "ui/document/trace_document.h"

#include <algorithm>

namespace streamscope::ui {

TraceDocument::TraceDocument(QObject *parent) : QObject(parent)
{
}

void TraceDocument::setTrace(std::shared_ptr<const engine::Trace> trace, const QString &name, const QString &path)
{
    m_trace = std::move(trace);
    m_name = name;
    m_path = path;
    m_summary = m_trace ? engine::summarize(*m_trace) : engine::TraceSummary{};
    m_opStatistics = m_trace ? engine::opStatistics(*m_trace) : std::vector<engine::OpStatistics>{};
    m_repetition = m_summary.repetitions.empty() ? 0 : m_summary.medianRepetition;
    m_selectedOp = -1;
    emit traceChanged(m_trace);
    emit nameChanged(m_name, m_path);
    emit repetitionChanged(m_repetition);
    emit selectionChanged(m_repetition, m_selectedOp);
}

void TraceDocument::setName(const QString &name, const QString &path)
{
    if (name == m_name && path == m_path)
        return;
    m_name = name;
    m_path = path;
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
    m_selectedOp = -1;
    emit repetitionChanged(m_repetition);
    if (hadSelection)
        emit selectionChanged(m_repetition, -1);
}

void TraceDocument::selectOp(int op)
{
    const int count = m_trace && m_repetition < int(m_trace->repetitions.size())
                          ? int(m_trace->repetitions[std::size_t(m_repetition)].ops.size())
                          : 0;
    if (op < 0 || op >= count)
        op = -1;
    if (op == m_selectedOp)
        return;
    m_selectedOp = op;
    emit selectionChanged(m_repetition, m_selectedOp);
}

} // namespace streamscope::ui
