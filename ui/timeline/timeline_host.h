// TimelineHost: what the timeline view's helpers (TimelineInput, TimelineSelection) see of the view and
// do to it: its widget, lanes, layout and zoom, the picks under a point, the label column and the rows'
// scrolling, and its signals. TimelineView implements it; the helpers depend on this header and not on
// the view's, so nothing below the view includes timeline_view.h.
#pragma once

#include <QtGlobal>

#include <vector>

class QMenu;
class QPoint;
class QWidget;

namespace streamscope::ui {

class LaneArrangement;
class LaneModel;
class TimelineSelection;
class TraceDocument;
class ZoomControl;
struct LaneRow;
struct TimelineLayout;
struct TimelineMetrics;

// One op of one repetition of the shown trace: repetition indexes Trace::repetitions, op indexes
// Repetition::ops.
struct TimelineOpRef {
    int repetition = -1;
    int op = -1;
    bool isValid() const { return repetition >= 0 && op >= 0; }
    bool operator==(const TimelineOpRef &) const = default;
};

// Where a pick at a point looks: an interval lane (lane -1 when the point is on none), the time under the
// pointer and the tolerance around it.
struct TimelinePick {
    int lane = -1;
    qint64 ns = 0;
    qint64 toleranceNs = 0;
};

class TimelineHost {
public:
    // The widget: cursor, tooltips, menus' parent, repaints.
    virtual QWidget &widget() = 0;
    virtual TraceDocument *document() const = 0;
    // The lanes shown (nullptr: none), their repetition, and how their rows are arranged.
    virtual const LaneModel *laneModel() const = 0;
    virtual int repetition() const = 0;
    virtual LaneArrangement &laneArrangement() = 0;
    virtual TimelineSelection &selection() = 0;
    virtual const TimelineMetrics &metrics() const = 0;
    virtual TimelineLayout currentLayout() const = 0;

    // The zoom followed (its time plus zoomOffsetNs is the view's), and the window in the view's time.
    virtual ZoomControl *zoom() const = 0;
    virtual qint64 zoomOffsetNs() const = 0;
    virtual qint64 windowStartNs() const = 0;
    virtual qint64 windowEndNs() const = 0;
    virtual void fitAll() = 0;

    // The rows drawn now, the row under a point, the vertical scrolling, a row's context menu.
    virtual const std::vector<LaneRow> &rows() const = 0;
    virtual int rowAt(const QPoint &pos) const = 0;
    virtual void setScrollY(int pixels) = 0;
    virtual int scrollPageStep() const = 0;
    virtual void ensureRowVisible(int row) = 0;
    virtual QMenu *createRowMenu(int row, QWidget *parent) = 0;

    // The label column: its right edge (where a drag resizes it), its width, fitted to the labels.
    virtual bool onLabelEdge(const QPoint &pos) const = 0;
    virtual void setLabelWidth(int pixels) = 0;
    virtual void fitLabelWidth() = 0;

    virtual bool showAllFlows() const = 0;
    virtual void setShowAllFlows(bool on) = 0;

    // What lies under a point: see TimelineView's functions of these names.
    virtual TimelinePick pickAt(const QPoint &pos) const = 0;
    virtual TimelineOpRef opAt(const QPoint &pos) const = 0;
    virtual int activityAt(const QPoint &pos) const = 0;
    virtual int rangeAt(const QPoint &pos) const = 0;

    // The view's signals (of the shown repetition).
    virtual void notifyOpSelected(int op) = 0;
    virtual void notifyOpToggled(int op) = 0;
    virtual void notifyOpHovered(int op) = 0;
    virtual void notifyRangeSelected(qint64 startNs, qint64 endNs) = 0;

protected:
    TimelineHost() = default;
    ~TimelineHost() = default;
    TimelineHost(const TimelineHost &) = default;
    TimelineHost &operator=(const TimelineHost &) = default;
};

} // namespace streamscope::ui
