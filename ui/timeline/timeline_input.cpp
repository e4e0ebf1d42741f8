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

#include "ui/document/trace_document.h"
#include "ui/timeline/lane_arrangement.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_host.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_selection.h"
#include "ui/timeline/timeline_tooltips.h"
#include "ui/timeline/zoom_control.h"

namespace streamscope::ui {

namespace {

// A click in the label column at height y: a group's header opens or folds the group, a thread's row with
// the arrow its NVTX rows; any other row is left as it is.
void toggleFoldAt(LaneArrangement &lanes, const TimelineLayout &layout, int y)
{
    const int row = layout.laneAt(y);
    if (row < 0)
        return;
    const LaneRow &r = layout.rows[std::size_t(row)];
    if (r.isGroup())
        lanes.setGroupCollapsed(r.group, !r.collapsed);
    else if (r.fold != LaneRow::Fold::None)
        lanes.setRangesFolded(r.foldLane, r.fold == LaneRow::Fold::Open);
}

} // namespace

namespace {

constexpr double kKeyZoomFactor = 1.25; // W / S
constexpr double kKeyPanFraction = 0.15; // A / D: a fraction of the window

} // namespace

using OpRef = TimelineOpRef;
using OpEnd = TimelineSelection::End;

bool TimelineInput::wheel(QWheelEvent *event)
{
    if (!m_host.laneModel())
        return true;
    const TimelineLayout layout = m_host.currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, m_host.windowStartNs(), m_host.windowEndNs());
    const QPoint delta = event->angleDelta();
    const double x = std::clamp(event->position().x(), double(layout.plot.left()), double(layout.plot.right()));
    // Vertical scrolling where the rows overflow: Shift+wheel anywhere (some platforms turn a shifted
    // wheel horizontal), or the wheel over the labels, where it has nothing to zoom.
    const bool overLabels = event->position().x() < layout.plot.left();
    if (layout.maxScrollY > 0 && ((event->modifiers() & Qt::ShiftModifier) || overLabels)) {
        const int notches = delta.y() != 0 ? delta.y() : delta.x();
        m_host.setScrollY(layout.scrollY - notches * 3 * m_host.metrics().readableLaneHeight / 120);
        event->accept();
        return true;
    }
    if (delta.y() != 0) {
        // 120 units = one notch = 20 % closer, at the cursor.
        m_host.zoom()->zoomAt(mapping.toNs(x) - m_host.zoomOffsetNs(), std::pow(1.2, delta.y() / 120.0));
    } else if (delta.x() != 0) {
        m_host.zoom()->pan(-qint64(delta.x() / 120.0 * kKeyPanFraction * double(m_host.zoom()->windowDuration())));
    }
    event->accept();
    return true;
}

bool TimelineInput::press(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_host.laneModel()) {
        return false;
    }
    const TimelineLayout layout = m_host.currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, m_host.windowStartNs(), m_host.windowEndNs());
    m_pressPos = event->position().toPoint();
    m_dragMoved = false;
    if (m_host.onLabelEdge(m_pressPos)) {
        m_drag = DragMode::ResizeLabels;
        m_resizeStartWidth = layout.headers.width();
        event->accept();
        return true;
    }
    if (m_pressPos.x() < layout.plot.left()) {
        // The label column: a click on a group's header opens or folds it, on a thread's (the row
        // with the arrow) its NVTX rows.
        toggleFoldAt(m_host.laneArrangement(), layout, m_pressPos.y());
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
        m_pressWindowStart = m_host.windowStartNs();
        m_pressScrollY = layout.scrollY;
        m_host.widget().setCursor(Qt::ClosedHandCursor);
    }
    event->accept();
    return true;
}

bool TimelineInput::move(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (m_drag == DragMode::None) {
        m_host.selection().setHovered(m_host.opAt(pos));
        if (m_host.onLabelEdge(pos))
            m_host.widget().setCursor(Qt::SplitHCursor);
        else
            m_host.widget().unsetCursor();
        return true;
    }
    if (m_drag == DragMode::ResizeLabels) {
        m_host.setLabelWidth(std::max(60, m_resizeStartWidth + pos.x() - m_pressPos.x()));
        event->accept();
        return true;
    }
    if ((pos - m_pressPos).manhattanLength() >= QApplication::startDragDistance())
        m_dragMoved = true;
    if (!m_dragMoved)
        return true;
    const TimelineLayout layout = m_host.currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, m_host.windowStartNs(), m_host.windowEndNs());
    if (m_drag == DragMode::Pan) {
        const qint64 delta = qint64(std::llround(double(pos.x() - m_pressPos.x()) * mapping.nsPerPixel()));
        const qint64 start = m_pressWindowStart - delta;
        m_host.zoom()->setWindow(start - m_host.zoomOffsetNs(),
                                 start - m_host.zoomOffsetNs() + m_host.zoom()->windowDuration());
        // The rows follow the pointer up and down too where they overflow.
        if (layout.maxScrollY > 0)
            m_host.setScrollY(m_pressScrollY - (pos.y() - m_pressPos.y()));
    } else {
        const double x = std::clamp(double(pos.x()), double(layout.plot.left()), double(layout.plot.right() + 1));
        m_host.zoom()->setSelection(m_selectAnchorNs - m_host.zoomOffsetNs(), mapping.toNs(x) - m_host.zoomOffsetNs());
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
    m_host.widget().unsetCursor();
    if (mode == DragMode::ResizeLabels) {
        event->accept();
        return true;
    }
    if (!m_dragMoved) {
        // A click: select the op under the pointer, or clear everything on empty space; Ctrl+click adds
        // the op to the selection or takes it out (the document measures a selection of several).
        const QPoint pos = event->position().toPoint();
        const OpRef ref = m_host.opAt(pos);
        if (ref.isValid() && (event->modifiers() & (Qt::ControlModifier | Qt::MetaModifier))) {
            m_host.notifyOpToggled(ref.op);
            event->accept();
            return true;
        }
        if (mode == DragMode::Select || !ref.isValid())
            m_host.zoom()->clearSelection();
        // Which end was clicked: where follow flow starts from.
        const auto pick = m_host.pickAt(pos);
        const bool host = pick.lane >= 0 && m_host.laneModel()->lane(pick.lane).kind == LaneKind::HostThread;
        m_host.selection().click(ref, host ? OpEnd::Host : OpEnd::Gpu);
    } else if (mode == DragMode::Select && m_host.zoom()->hasSelection()) {
        m_host.notifyRangeSelected((m_host.zoom()->selectionStart() + m_host.zoomOffsetNs()),
                                   (m_host.zoom()->selectionEnd() + m_host.zoomOffsetNs()));
    }
    event->accept();
    return true;
}

bool TimelineInput::doubleClick(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && m_host.laneModel()) {
        const QPoint pos = event->position().toPoint();
        const TimelineLayout layout = m_host.currentLayout();
        if (m_host.onLabelEdge(pos)) {
            m_host.fitLabelWidth();
            event->accept();
            return true;
        }
        if (pos.x() < layout.plot.left()) {
            // The second click of a double-click on a group's header folds it back, as a click does.
            toggleFoldAt(m_host.laneArrangement(), layout, pos.y());
            event->accept();
            return true;
        }
    }
    if (event->button() == Qt::LeftButton) {
        m_host.fitAll();
        event->accept();
        return true;
    }
    return false;
}

bool TimelineInput::key(QKeyEvent *event)
{
    if (!m_host.laneModel()) {
        return false;
    }
    const TimelineLayout layout = m_host.currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, m_host.windowStartNs(), m_host.windowEndNs());
    // Zoom keys act at the pointer when it is over the plot (as Perfetto does), else at the centre.
    const QPoint cursorPos = m_host.widget().mapFromGlobal(QCursor::pos());
    const qint64 anchor = layout.plot.contains(cursorPos)
                              ? mapping.toNs(double(cursorPos.x()))
                              : m_host.windowStartNs() + m_host.zoom()->windowDuration() / 2;
    const qint64 panStep = std::max<qint64>(1, qint64(double(m_host.zoom()->windowDuration()) * kKeyPanFraction));
    switch (event->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal: m_host.zoom()->zoomAt(anchor - m_host.zoomOffsetNs(), kKeyZoomFactor); break;
    case Qt::Key_S:
    case Qt::Key_Minus: m_host.zoom()->zoomAt(anchor - m_host.zoomOffsetNs(), 1.0 / kKeyZoomFactor); break;
    case Qt::Key_A:
    case Qt::Key_Left:
        if (event->modifiers() & Qt::AltModifier)
            m_host.zoom()->back(); // the zoom history, as a browser's
        else
            m_host.zoom()->pan(-panStep);
        break;
    case Qt::Key_D:
    case Qt::Key_Right:
        if (event->modifiers() & Qt::AltModifier)
            m_host.zoom()->forward();
        else
            m_host.zoom()->pan(panStep);
        break;
    case Qt::Key_F: // F alone: Ctrl+F is Find
        if (event->modifiers() & (Qt::ControlModifier | Qt::MetaModifier | Qt::AltModifier)) {
            return false;
        }
        m_host.fitAll();
        break;
    case Qt::Key_Home: m_host.fitAll(); break;
    case Qt::Key_Up: m_host.setScrollY(layout.scrollY - m_host.metrics().readableLaneHeight); break;
    case Qt::Key_Down: m_host.setScrollY(layout.scrollY + m_host.metrics().readableLaneHeight); break;
    case Qt::Key_PageUp: m_host.setScrollY(layout.scrollY - m_host.scrollPageStep()); break;
    case Qt::Key_PageDown: m_host.setScrollY(layout.scrollY + m_host.scrollPageStep()); break;
    case Qt::Key_BracketRight:
        m_host.selection().followFlow();
        break; // also the View menu's action, where there is one
    case Qt::Key_Escape:
        m_host.zoom()->clearSelection();
        m_host.selection().select(-1);
        break;
    default: return false;
    }
    event->accept();
    return true;
}

bool TimelineInput::contextMenu(QContextMenuEvent *event)
{
    if (!m_host.laneModel()) {
        return false;
    }
    const TimelineLayout layout = m_host.currentLayout();
    const QPoint pos = event->pos();
    std::unique_ptr<QMenu> menu;
    if (pos.x() < layout.plot.left()) {
        menu.reset(m_host.createRowMenu(layout.laneAt(pos.y()), &m_host.widget()));
    } else {
        menu = std::make_unique<QMenu>(&m_host.widget());
        const OpRef ref = m_host.opAt(pos);
        if (ref.isValid()) {
            const auto pick = m_host.pickAt(pos);
            const bool host = pick.lane >= 0 && m_host.laneModel()->lane(pick.lane).kind == LaneKind::HostThread;
            menu->addAction(host ? tr("Follow flow to the GPU work") : tr("Follow flow to the host call"),
                            &m_host.widget(), [selection = &m_host.selection(), ref, host] {
                                selection->select(ref.op);
                                selection->setEnd(host ? OpEnd::Host : OpEnd::Gpu);
                                selection->followFlow();
                            });
        }
        QAction *flows = menu->addAction(tr("Flows for everything in view"), &m_host.widget(),
                                         [v = &m_host](bool on) { v->setShowAllFlows(on); });
        flows->setCheckable(true);
        flows->setChecked(m_host.showAllFlows());
        const int row = layout.laneAt(pos.y());
        if (row >= 0) {
            menu->addSeparator();
            QMenu *lane = m_host.createRowMenu(row, menu.get());
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
    if (m_host.laneModel() && m_host.laneArrangement().tree() && help->pos().x() < m_host.currentLayout().plot.left()) {
        const int row = m_host.rowAt(help->pos());
        if (row >= 0 && std::size_t(row) < m_host.rows().size()) {
            const QString text =
                TimelineToolTips::rowText(*m_host.laneModel(), *m_host.laneArrangement().tree(),
                                          m_host.rows()[std::size_t(row)], m_host.laneArrangement().state());
            QToolTip::showText(help->globalPos(), text, &m_host.widget());
            return true;
        }
    }
    if (const int activity = m_host.activityAt(help->pos()); activity >= 0) {
        QToolTip::showText(help->globalPos(), TimelineToolTips::activityText(*m_host.laneModel(), activity),
                           &m_host.widget());
        return true;
    }
    if (const int range = m_host.rangeAt(help->pos()); range >= 0) {
        QToolTip::showText(help->globalPos(), TimelineToolTips::rangeText(*m_host.laneModel(), range),
                           &m_host.widget());
        return true;
    }
    const OpRef ref = m_host.opAt(help->pos());
    if (ref.isValid())
        QToolTip::showText(help->globalPos(), TimelineToolTips::opText(*m_host.laneModel(), ref.op), &m_host.widget());
    else
        QToolTip::hideText();
    return true;
}

} // namespace streamscope::ui
