// TimelineInput: the timeline's mouse and keyboard, as in Perfetto and chrome://tracing: the wheel zooms at
// the cursor (over the labels, or with Shift, it scrolls the rows), W/S zoom, A/D pan (Alt: the zoom
// history), a drag pans, Shift+drag (or a drag in the ruler) selects a range, F / double-click / Home fit
// all, a click selects an op (Ctrl+click adds it to the selection), a click on a group's header opens or
// folds it, the label column's edge is dragged to resize it, the context menus, and the tooltips. It
// holds the state of a drag and acts on its view through TimelineHost (the view hands it its events).
#pragma once

#include <QCoreApplication>
#include <QPoint>

class QContextMenuEvent;
class QHelpEvent;
class QKeyEvent;
class QMouseEvent;
class QWheelEvent;

namespace streamscope::ui {

class TimelineHost;

class TimelineInput {
    // The view's translation context, where these strings have always been.
    Q_DECLARE_TR_FUNCTIONS(streamscope::ui::TimelineView)

public:
    explicit TimelineInput(TimelineHost &host) : m_host(host) { }

    // Each handles its event and returns true, or returns false where the view passes it on to QWidget.
    bool wheel(QWheelEvent *event);
    bool press(QMouseEvent *event);
    bool move(QMouseEvent *event);
    bool release(QMouseEvent *event);
    bool doubleClick(QMouseEvent *event);
    bool key(QKeyEvent *event);
    bool contextMenu(QContextMenuEvent *event);
    bool toolTip(QHelpEvent *help);

private:
    enum class DragMode { None, Pan, Select, ResizeLabels };

    TimelineHost &m_host;
    DragMode m_drag = DragMode::None;
    QPoint m_pressPos;
    qint64 m_pressWindowStart = 0;
    int m_pressScrollY = 0;
    int m_resizeStartWidth = 0;
    qint64 m_selectAnchorNs = 0;
    bool m_dragMoved = false;
};

} // namespace streamscope::ui
