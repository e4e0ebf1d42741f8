// TimelineSelection (see timeline_selection.h).
#include "ui/timeline/timeline_selection.h"

#include <QToolTip>
#include <QWidget>

#include <algorithm>

#include "ui/document/trace_document.h"
#include "ui/timeline/lane_arrangement.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_paint_context.h"
#include "ui/timeline/zoom_control.h"

namespace streamscope::ui {

void TimelineSelection::select(int op)
{
    const LaneModel *model = m_host.laneModel();
    TimelineOpRef ref;
    if (model && op >= 0 && op < model->opCount())
        ref = {m_host.repetition(), op};
    if (ref == m_selected)
        return;
    m_selected = ref;
    m_end = End::Both;
    if (ref.isValid()) {
        const auto &o = model->op(op);
        // Bring the op into view, keeping the zoom level unless the op is wider than the window.
        qint64 s = o.hasGpu() ? model->gpuStart(o) : model->hostStart(o);
        qint64 e = o.hasGpu() ? model->gpuEnd(o) : model->hostEnd(o);
        if (o.hasHost()) {
            s = std::min(s, model->hostStart(o));
            e = std::max(e, model->hostEnd(o));
        }
        if (o.hasGpu() || o.hasHost())
            bringIntoView(s, e);
        // And its GPU row (else its call's): scrolled into view where the rows overflow (the find bar's
        // walk, the table), but never away from an end that was just clicked.
        if (!m_selectingByClick)
            m_host.ensureRowVisible(rowOfOp(m_host.currentLayout(), op, false));
    }
    m_host.notifyOpSelected(ref.op);
    m_host.widget().update();
}

void TimelineSelection::click(TimelineOpRef ref, End end)
{
    m_selectingByClick = true;
    const TraceDocument *document = m_host.document();
    if (document && document->selectedOps().size() > 1 && ref == m_selected)
        m_host.notifyOpSelected(ref.op); // the one op again, out of a multiple selection
    select(ref.op);
    m_selectingByClick = false;
    // Which end was clicked: where follow flow starts from.
    if (ref.isValid()) {
        m_end = end;
        m_host.widget().update();
    }
}

bool TimelineSelection::followFlow()
{
    QWidget &view = m_host.widget();
    auto refuse = [&view](const QString &why) {
        QToolTip::showText(view.mapToGlobal(view.rect().center()), why, &view);
        return false;
    };
    const LaneModel *model = m_host.laneModel();
    if (!model || !m_selected.isValid())
        return refuse(tr("Select an op first: follow flow goes from its host call to its GPU work and back."));
    const engine::OpRecord &o = model->op(m_selected.op);
    if (!o.hasGpu() || !o.hasHost())
        return refuse(o.hasGpu() ? tr("No host call is recorded for this GPU op.")
                                 : tr("This call has no GPU work recorded."));
    const End target = m_end == End::Gpu ? End::Host : End::Gpu;
    const int threads = int(model->trace().hostThreads.size());
    const int lane = target == End::Gpu
                         ? model->streamLane(o.stream)
                         : model->hostLane(o.hostThread >= 0 && o.hostThread < threads ? o.hostThread : -1);
    m_host.laneArrangement().revealLane(lane);
    m_end = target;
    const qint64 s = target == End::Gpu ? model->gpuStart(o) : model->hostStart(o);
    const qint64 e = target == End::Gpu ? model->gpuEnd(o) : model->hostEnd(o);
    bringIntoView(s, e);
    m_host.ensureRowVisible(m_host.currentLayout().rowOf(lane));
    view.update();
    return true;
}

void TimelineSelection::setHovered(TimelineOpRef ref)
{
    if (ref == m_hovered)
        return;
    m_hovered = ref;
    m_host.notifyOpHovered(ref.op);
    m_host.widget().update();
}

bool TimelineSelection::reset()
{
    const bool hadSelection = m_selected.isValid();
    m_selected = {};
    m_hovered = {};
    return hadSelection;
}

void TimelineSelection::bringIntoView(qint64 s, qint64 e)
{
    if (s >= m_host.windowStartNs() && e <= m_host.windowEndNs())
        return;
    ZoomControl *zoom = m_host.zoom();
    const qint64 offset = m_host.zoomOffsetNs();
    const qint64 width = std::max(zoom->windowDuration(), (e - s) * 5 / 4);
    const qint64 centre = s + (e - s) / 2;
    zoom->setWindow(centre - width / 2 - offset, centre - width / 2 + width - offset);
}

int TimelineSelection::rowOfOp(const TimelineLayout &layout, int op, bool host) const
{
    const LaneModel *model = m_host.laneModel();
    if (!model || op < 0 || op >= model->opCount())
        return -1;
    const engine::OpRecord &o = model->op(op);
    const int threads = int(model->trace().hostThreads.size());
    const int hostRow =
        o.hasHost() ? layout.rowOf(model->hostLane(o.hostThread >= 0 && o.hostThread < threads ? o.hostThread : -1))
                    : -1;
    const int gpuRow = o.hasGpu() ? layout.rowOf(model->streamLane(o.stream)) : -1;
    if (host)
        return hostRow >= 0 ? hostRow : gpuRow;
    return gpuRow >= 0 ? gpuRow : hostRow;
}

} // namespace streamscope::ui
