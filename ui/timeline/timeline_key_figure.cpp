// TimelineKeyFigure (see timeline_key_figure.h).
#include "ui/timeline/timeline_key_figure.h"

#include <exception>

#include "engine/model/trace.h"
#include "ui/timeline/timeline_paint_context.h"

namespace streamscope::ui {

void TimelineKeyFigure::set(const QString &caption, const engine::OpQuery &query)
{
    m_caption = caption;
    m_query = query;
}

void TimelineKeyFigure::update(const engine::Trace *trace, int repetition, bool shown)
{
    m_ops.clear();
    if (m_caption.isEmpty() || !trace || !shown || m_query.isEmpty())
        return;
    try {
        m_ops = engine::findOps(*trace, repetition, m_query);
    } catch (const std::exception &) {
        // A query the lesson's own data cannot have (checked when the lesson is read): nothing outlined.
    }
}

void TimelineKeyFigure::addTo(TimelineOverlay &overlay, const engine::Trace *trace, bool shown, bool caption) const
{
    if (m_caption.isEmpty() || !shown)
        return;
    overlay.keyOps = &m_ops;
    overlay.keyCaption = caption ? m_caption : QString();
    // A figure on a host thread (its lane names one) is in the host calls, not the GPU bars only.
    for (const auto &thread : trace->hostThreads)
        overlay.keyHost = overlay.keyHost || (!m_query.lane.empty() && thread.name == m_query.lane);
}

} // namespace streamscope::ui
