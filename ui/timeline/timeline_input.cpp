// TimelineInput (see timeline_input.h).
#include "ui/timeline/timeline_input.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QCursor>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <memory>

#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_tooltips.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

namespace streamscope::ui {

namespace {

// A click in the label column at height y: a group's header opens or folds the group, a thread's row with
// the arrow its NVTX rows; any other row is left as it is.
void toggleFoldAt(TimelineView &view, const TimelineLayout &layout, int y)
{
    const int row = layout.laneAt(y);
    if (row < 0)
        return;
    const LaneRow &r = layout.rows[std::size_t(row)];
    if (r.isGroup())
        view.laneArrangement().setGroupCollapsed(r.group, !r.collapsed);
    else if (r.fold != LaneRow::Fold::None)
        view.laneArrangement().setRangesFolded(r.foldLane, r.fold == LaneRow::Fold::Open);
}

} // namespace

namespace {

constexpr double kKeyZoomFactor = 1.25; // W / S
constexpr double kKeyPanFraction = 0.15; // A / D: a fraction of the window

} // namespace

using OpRef = TimelineView::OpRef;
using OpEnd = TimelineView::OpEnd;

bool TimelineInput::wheel(QWheelEvent *event)
{
    if (!m_view.m_model)
        return true;
    const TimelineLayout layout = m_view.currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, m_view.windowStartNs(), m_view.windowEndNs());
    const QPoint delta = event->angleDelta();
    const double x = std::clamp(event->position().x(), double(layout.plot.left()), double(layout.plot.right()));
    // Vertical scrolling where the rows overflow: Shift+wheel anywhere (some platforms turn a shifted
    // wheel horizontal), or the wheel over the labels, where it has nothing to zoom.
    const bool overLabels = event->position().x() < layout.plot.left();
    if (layout.maxScrollY > 0 && ((event->modifiers() & Qt::ShiftModifier) || overLabels)) {
        const int notches = delta.y() != 0 ? delta.y() : delta.x();
        m_view.setScrollY(layout.scrollY - notches * 3 * m_view.m_painter->metrics().readableLaneHeight / 120);
        event->accept();
        return true;
    }
    if (delta.y() != 0) {
        // 120 units = one notch = 20 % closer, at the cursor.
        m_view.m_zoom->zoomAt(mapping.toNs(x) - m_view.m_zoomOffsetNs, std::pow(1.2, delta.y() / 120.0));
    } else if (delta.x() != 0) {
        m_view.m_zoom->pan(-qint64(delta.x() / 120.0 * kKeyPanFraction * double(m_view.m_zoom->windowDuration())));
    }
    event->accept();
    return true;
}

bool TimelineInput::press(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_view.m_model) {
        return false;
    }
    const TimelineLayout layout = m_view.currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, m_view.windowStartNs(), m_view.windowEndNs());
    m_pressPos = event->position().toPoint();
    m_dragMoved = false;
    if (m_view.onLabelEdge(m_pressPos)) {
        m_drag = DragMode::ResizeLabels;
        m_resizeStartWidth = layout.headers.width();
        event->accept();
        return true;
    }
    if (m_pressPos.x() < layout.plot.left()) {
        // The label column: a click on a group's header opens or folds it, on a thread's (the row
        // with the arrow) its NVTX rows.
        toggleFoldAt(m_view, layout, m_pressPos.y());
        event->accept();
        return true;
    }
    const bool inRuler = layout.ruler.contains(m_pressPos);
    if (inRuler || (event->modifiers() & Qt::ShiftModifier)) {
        m_drag = DragMode::Select;
        const double x =
            std::clamp(double(m_pressPos.x()), double(layout.plot.left()), double(layout.plot.right() + 1));
        m_selectAnchorNs = mapping.toNs(x);
    } else {
        m_drag = DragMode::Pan;
        m_pressWindowStart = m_view.windowStartNs();
        m_pressScrollY = layout.scrollY;
        m_view.setCursor(Qt::ClosedHandCursor);
    }
    event->accept();
    return true;
}

bool TimelineInput::move(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (m_drag == DragMode::None) {
        m_view.setHovered(m_view.opAt(pos));
        if (m_view.onLabelEdge(pos))
            m_view.setCursor(Qt::SplitHCursor);
        else
            m_view.unsetCursor();
        return true;
    }
    if (m_drag == DragMode::ResizeLabels) {
        m_view.setLabelWidth(std::max(60, m_resizeStartWidth + pos.x() - m_pressPos.x()));
        event->accept();
        return true;
    }
    if ((pos - m_pressPos).manhattanLength() >= QApplication::startDragDistance())
        m_dragMoved = true;
    if (!m_dragMoved)
        return true;
    const TimelineLayout layout = m_view.currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, m_view.windowStartNs(), m_view.windowEndNs());
    if (m_drag == DragMode::Pan) {
        const qint64 delta = qint64(std::llround(double(pos.x() - m_pressPos.x()) * mapping.nsPerPixel()));
        const qint64 start = m_pressWindowStart - delta;
        m_view.m_zoom->setWindow(start - m_view.m_zoomOffsetNs,
                                 start - m_view.m_zoomOffsetNs + m_view.m_zoom->windowDuration());
        // The rows follow the pointer up and down too where they overflow.
        if (layout.maxScrollY > 0)
            m_view.setScrollY(m_pressScrollY - (pos.y() - m_pressPos.y()));
    } else {
        const double x = std::clamp(double(pos.x()), double(layout.plot.left()), double(layout.plot.right() + 1));
        m_view.m_zoom->setSelection(m_selectAnchorNs - m_view.m_zoomOffsetNs, mapping.toNs(x) - m_view.m_zoomOffsetNs);
    }
    event->accept();
    return true;
}

bool TimelineInput::release(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || m_drag == DragMode::None) {
        return false;
    }
    const DragMode mode = m_drag;
    m_drag = DragMode::None;
    m_view.unsetCursor();
    if (mode == DragMode::ResizeLabels) {
        event->accept();
        return true;
    }
    if (!m_dragMoved) {
        // A click: select the op under the pointer, or clear everything on empty space; Ctrl+click adds
        // the op to the selection or takes it out (the document measures a selection of several).
        const QPoint pos = event->position().toPoint();
        const OpRef ref = m_view.opAt(pos);
        if (ref.isValid() && (event->modifiers() & (Qt::ControlModifier | Qt::MetaModifier))) {
            emit m_view.opToggled(ref.repetition, ref.op);
            event->accept();
            return true;
        }
        if (mode == DragMode::Select || !ref.isValid())
            m_view.m_zoom->clearSelection();
        m_view.m_selectingByClick = true;
        if (m_view.m_document && m_view.m_document->selectedOps().size() > 1 && ref == m_view.m_selected)
            emit m_view.opSelected(m_view.m_repetition, ref.op); // the one op again, out of a multiple selection
        m_view.selectOp(ref.op);
        m_view.m_selectingByClick = false;
        // Which end was clicked: where follow flow starts from.
        if (ref.isValid()) {
            const auto pick = m_view.pickAt(pos);
            const bool host = pick.lane >= 0 && m_view.m_model->lane(pick.lane).kind == LaneKind::HostThread;
            m_view.m_selectedEnd = host ? OpEnd::Host : OpEnd::Gpu;
            m_view.update();
        }
    } else if (mode == DragMode::Select && m_view.m_zoom->hasSelection()) {
        emit m_view.rangeSelected((m_view.m_zoom->selectionStart() + m_view.m_zoomOffsetNs),
                                  (m_view.m_zoom->selectionEnd() + m_view.m_zoomOffsetNs));
    }
    event->accept();
    return true;
}

bool TimelineInput::doubleClick(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && m_view.m_model) {
        const QPoint pos = event->position().toPoint();
        const TimelineLayout layout = m_view.currentLayout();
        if (m_view.onLabelEdge(pos)) {
            m_view.fitLabelWidth();
            event->accept();
            return true;
        }
        if (pos.x() < layout.plot.left()) {
            // The second click of a double-click on a group's header folds it back, as a click does.
            toggleFoldAt(m_view, layout, pos.y());
            event->accept();
            return true;
        }
    }
    if (event->button() == Qt::LeftButton) {
        m_view.fitAll();
        event->accept();
        return true;
    }
    return false;
}

bool TimelineInput::key(QKeyEvent *event)
{
    if (!m_view.m_model) {
        return false;
    }
    const TimelineLayout layout = m_view.currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, m_view.windowStartNs(), m_view.windowEndNs());
    // Zoom keys act at the pointer when it is over the plot (as Perfetto does), else at the centre.
    const QPoint cursorPos = m_view.mapFromGlobal(QCursor::pos());
    const qint64 anchor = layout.plot.contains(cursorPos)
                              ? mapping.toNs(double(cursorPos.x()))
                              : m_view.windowStartNs() + m_view.m_zoom->windowDuration() / 2;
    const qint64 panStep = std::max<qint64>(1, qint64(double(m_view.m_zoom->windowDuration()) * kKeyPanFraction));
    switch (event->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal: m_view.m_zoom->zoomAt(anchor - m_view.m_zoomOffsetNs, kKeyZoomFactor); break;
    case Qt::Key_S:
    case Qt::Key_Minus: m_view.m_zoom->zoomAt(anchor - m_view.m_zoomOffsetNs, 1.0 / kKeyZoomFactor); break;
    case Qt::Key_A:
    case Qt::Key_Left:
        if (event->modifiers() & Qt::AltModifier)
            m_view.m_zoom->back(); // the zoom history, as a browser's
        else
            m_view.m_zoom->pan(-panStep);
        break;
    case Qt::Key_D:
    case Qt::Key_Right:
        if (event->modifiers() & Qt::AltModifier)
            m_view.m_zoom->forward();
        else
            m_view.m_zoom->pan(panStep);
        break;
    case Qt::Key_F: // F alone: Ctrl+F is Find
        if (event->modifiers() & (Qt::ControlModifier | Qt::MetaModifier | Qt::AltModifier)) {
            return false;
        }
        m_view.fitAll();
        break;
    case Qt::Key_Home: m_view.fitAll(); break;
    case Qt::Key_Up: m_view.setScrollY(layout.scrollY - m_view.m_painter->metrics().readableLaneHeight); break;
    case Qt::Key_Down: m_view.setScrollY(layout.scrollY + m_view.m_painter->metrics().readableLaneHeight); break;
    case Qt::Key_PageUp: m_view.setScrollY(layout.scrollY - m_view.m_vscroll->pageStep()); break;
    case Qt::Key_PageDown: m_view.setScrollY(layout.scrollY + m_view.m_vscroll->pageStep()); break;
    case Qt::Key_BracketRight: m_view.followFlow(); break; // also the View menu's action, where there is one
    case Qt::Key_Escape:
        m_view.m_zoom->clearSelection();
        m_view.selectOp(-1);
        break;
    default: return false;
    }
    event->accept();
    return true;
}

bool TimelineInput::contextMenu(QContextMenuEvent *event)
{
    if (!m_view.m_model) {
        return false;
    }
    const TimelineLayout layout = m_view.currentLayout();
    const QPoint pos = event->pos();
    std::unique_ptr<QMenu> menu;
    if (pos.x() < layout.plot.left()) {
        menu.reset(m_view.createRowMenu(layout.laneAt(pos.y()), &m_view));
    } else {
        menu = std::make_unique<QMenu>(&m_view);
        const OpRef ref = m_view.opAt(pos);
        if (ref.isValid()) {
            const auto pick = m_view.pickAt(pos);
            const bool host = pick.lane >= 0 && m_view.m_model->lane(pick.lane).kind == LaneKind::HostThread;
            menu->addAction(host ? tr("Follow flow to the GPU work") : tr("Follow flow to the host call"), &m_view,
                            [v = &m_view, ref, host] {
                                v->selectOp(ref.op);
                                v->m_selectedEnd = host ? OpEnd::Host : OpEnd::Gpu;
                                v->followFlow();
                            });
        }
        QAction *flows = menu->addAction(tr("Flows for everything in view"), &m_view,
                                         [v = &m_view](bool on) { v->setShowAllFlows(on); });
        flows->setCheckable(true);
        flows->setChecked(m_view.m_showAllFlows);
        const int row = layout.laneAt(pos.y());
        if (row >= 0) {
            menu->addSeparator();
            QMenu *lane = m_view.createRowMenu(row, menu.get());
            lane->setTitle(tr("Lane"));
            menu->addMenu(lane);
        }
    }
    menu->exec(event->globalPos());
    event->accept();
    return true;
}

bool TimelineInput::toolTip(QHelpEvent *help)
{
    // A label: the whole of it (the column may cut it), and for a group what it holds.
    if (m_view.m_model && m_view.laneTree() && help->pos().x() < m_view.currentLayout().plot.left()) {
        const int row = m_view.rowAt(help->pos());
        if (row >= 0 && std::size_t(row) < m_view.rows().size()) {
            const QString text = TimelineToolTips::rowText(
                *m_view.m_model, *m_view.laneTree(), m_view.rows()[std::size_t(row)], m_view.laneArrangement().state());
            QToolTip::showText(help->globalPos(), text, &m_view);
            return true;
        }
    }
    if (const int activity = m_view.activityAt(help->pos()); activity >= 0) {
        QToolTip::showText(help->globalPos(), m_view.activityToolTipText(activity), &m_view);
        return true;
    }
    if (const int range = m_view.rangeAt(help->pos()); range >= 0) {
        QToolTip::showText(help->globalPos(), m_view.rangeToolTipText(range), &m_view);
        return true;
    }
    const OpRef ref = m_view.opAt(help->pos());
    if (ref.isValid())
        QToolTip::showText(help->globalPos(), m_view.toolTipText(ref.op), &m_view);
    else
        QToolTip::hideText();
    return true;
}

} // namespace streamscope::ui
