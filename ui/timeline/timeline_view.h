// TimelineView: the timeline widget. One lane per stream (GPU begin/end of each op), one per host thread
// (each API call and how long it held the thread, blocking calls shaded), derived engine lanes (how many
// H2D copies, D2H copies and compute ops are active) and a bandwidth lane (achieved GB/s per direction with
// the link's peak as a dashed line), on a shared time axis with a ruler.
//
// All times the view exchanges (rangeSelected, windowStartNs/windowEndNs) are nanoseconds relative to the
// start of the shown repetition (LaneModel::originNs()), which is what the ruler shows. Its ZoomControl
// is in those coordinates too, unless the view follows a zoom shared with other views at an offset
// (followZoom): then the zoom's time plus the offset is the view's.
//
// Interaction, as in Perfetto and chrome://tracing: wheel zooms at the cursor, W/S zoom, A/D pan, drag pans,
// shift+drag (or a drag in the ruler) selects a range and reports its duration, F / double-click / Home fit
// all, click selects an op (and draws the link from its host call to its GPU part), hover shows a tooltip.
//
// The lanes are arranged as a tree (LaneTree: process or rank, device, then threads and streams): a
// click on a group's header collapses it to one row of its busy time, and the label column's context
// menu hides, pins and renames lanes. That arrangement is the document's (TraceDocument::laneState),
// or the view's own without a document. The label column's right edge is dragged to resize it (a
// double-click there fits the labels). On demand the view draws the flows of every op in view (the
// arrow from each host call to its GPU work), and "follow flow" moves the selection between the two
// ends of the selected op.
#pragma once

#include <QImage>
#include <QPixmap>
#include <QPointer>
#include <QString>
#include <QWidget>

#include <array>
#include <functional>
#include <memory>
#include <vector>

#include "engine/analysis/op_query.h"
#include "engine/model/trace.h"
#include "ui/common/connection_list.h"
#include "ui/common/image_export.h"
#include "ui/document/trace_document.h"
#include "ui/timeline/lane_arrangement.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/lane_tree.h"
#include "ui/timeline/timeline_export.h"
#include "ui/timeline/timeline_frame_cache.h"
#include "ui/timeline/timeline_host.h"
#include "ui/timeline/timeline_input.h"
#include "ui/timeline/timeline_key_figure.h"
#include "ui/timeline/timeline_selection.h"
#include "ui/timeline/timeline_source.h"

class QMenu;
class QPainter;
class QScrollBar;

namespace streamscope::ui {

class LaneTree;
class OpPalette;
class TimelinePainter;
class ZoomControl;
struct TimelineLayout;
struct TimelineMetrics;
struct TimelineOverlay;
struct TimeMapping;

class TimelineView : public QWidget, private TimelineHost {
    Q_OBJECT

public:
    // Identifies one op of one repetition of the shown trace: repetition indexes Trace::repetitions,
    // op indexes Repetition::ops.
    using OpRef = TimelineOpRef;

    explicit TimelineView(QWidget *parent = nullptr);
    ~TimelineView() override;

    // Shows one repetition of a trace (nullptr clears the view). The view keeps the trace alive.
    void setTrace(std::shared_ptr<const engine::Trace> trace, int repetition = 0)
    {
        m_source.setTrace(std::move(trace), repetition);
    }
    std::shared_ptr<const engine::Trace> trace() const { return m_source.trace(); }
    void setRepetition(int repetition) { m_source.setRepetition(repetition); }
    int repetition() const override { return m_source.repetition(); }
    // Binds the view to a document: it shows the document's trace and repetition and selects its
    // selected op, and an op clicked (or cleared) here selects it in the document. One document at a
    // time; nullptr unbinds. setTrace and the others still work for views without a document.
    // A bound view also draws the document's find matches (outlined; with a filter, everything else
    // dimmed).
    void setDocument(TraceDocument *document);
    TraceDocument *document() const override { return m_source.document(); }

    // Extent (the whole repetition) ⊇ visible window ⊇ selection; drive it to zoom/pan programmatically.
    // The zoom this view follows: its own, or one shared with other views (followZoom), in that shared
    // zoom's time coordinates.
    ZoomControl *zoom() const override { return m_zoom; }
    // Follows `shared` (nullptr: its own zoom again): any number of views show the same window, each at
    // its own offset (view time = shared time + offsetNs, for traces aligned on different clocks). The
    // shared zoom's extent is set by its owner; zooming, panning and selecting in any view move them all.
    void followZoom(ZoomControl *shared, qint64 offsetNs = 0);
    qint64 zoomOffsetNs() const override { return m_zoomOffsetNs; }
    // The shown window in this view's own time (the zoom's window plus the offset).
    qint64 windowStartNs() const override;
    qint64 windowEndNs() const override;
    // The lanes built from the current repetition; nullptr without a trace.
    const LaneModel *laneModel() const override { return m_source.lanes(); }
    void fitAll() override;

    // What the lanes show beyond the trace's own: with projectNvtx, a row above each stream with the NVTX
    // range each op was launched in (View > Project NVTX onto GPU lanes). Keeps the window and the selection.
    void setLaneOptions(const LaneOptions &options) { m_source.setLaneOptions(options); }
    const LaneOptions &laneOptions() const { return m_source.laneOptions(); }
    void setProjectNvtx(bool on);
    // How this view builds the lanes of a repetition, with its lane options as they are now, for a loader
    // to call on its thread (TraceLoader::setLaneBuilder). A bound view shows the lanes its document's
    // analysis carries (TraceDocument::takeLanes) when they are of its trace, repetition and options;
    // otherwise it builds them itself.
    LaneBuilder laneBuilder() const { return m_source.laneBuilder(); }

    // Larger fonts and lanes, high contrast: legible on a projector at 1280x720.
    void setPresentationMode(bool on);
    bool presentationMode() const { return m_presentation; }
    // Dark background palette; by default the view follows the application's QPalette.
    void setDarkPalette(bool dark);
    bool darkPalette() const { return m_dark; }

    OpRef selectedOp() const { return m_selection.selected(); }
    // Selects an op of the current repetition (-1 clears) and brings it into view if it is outside.
    void selectOp(int op) { m_selection.select(op); }
    // Which end of the selected op was picked (a click on its host call or its GPU bar) or followed to.
    using OpEnd = TimelineSelection::End;
    OpEnd selectedEnd() const { return m_selection.end(); }
    // Follow flow: from the selected op's host call to its GPU work and back (from the GPU end when
    // neither was picked). The other end is brought into view (its lane shown, its groups opened, the
    // window moved at the same zoom when it is outside). False, with a tooltip saying why, when there
    // is no selection or the op has only one end.
    bool followFlow() { return m_selection.followFlow(); }

    // Flows for everything in view: the arrow from each host call to its GPU work for every op in the
    // window, not only the selected one's (more than TimelinePainter::kMaxFlows: none, and a line says so).
    void setShowAllFlows(bool on) override;
    // With solo baselines (run --solo): where each op would have ended alone, marked in its bar (on by default).
    void setShowSlowdown(bool on);
    bool showSlowdown() const;
    bool showAllFlows() const override { return m_showAllFlows; }
    // How many flows the current window shows (what paintOverlay draws); capped: more than the limit.
    int flowsInView(bool *capped = nullptr) const;

    // The lane tree of the current repetition (nullptr without a trace), and how its rows are arranged
    // (the document's arrangement or the view's own): the lane actions (hide, pin, rename, collapse,
    // fold) are its edits, and the rows follow them.
    const LaneTree *laneTree() const { return m_source.arrangement().tree(); }
    LaneArrangement &laneArrangement() override { return m_source.arrangement(); }
    const LaneArrangement &laneArrangement() const { return m_source.arrangement(); }
    // The rows drawn now, top to bottom, and where a row's label sits in the widget.
    const std::vector<LaneRow> &rows() const override;
    QRect rowLabelRect(int row) const;
    // The row under a widget position (label column or plot), -1 when none.
    int rowAt(const QPoint &pos) const override;
    // Vertical scrolling: when the rows at a readable height do not fit, the view scrolls (a scroll bar
    // on the right, Shift+wheel or the wheel over the labels, Up/Down, Page Up/Page Down, a vertical
    // drag), open groups' headers staying at the top while their lanes are in view.
    int scrollY() const;
    int maxScrollY() const;
    void setScrollY(int pixels) override;
    // Scrolls the least that brings a row (rows() index) wholly into view.
    void ensureRowVisible(int row) override;
    // The layout the widget paints with (the scroll bar's width left out of it when shown).
    TimelineLayout currentLayout() const override;
    // The context menu of a row's label (hide, pin, rename; a group: collapse; the hidden lanes to show
    // again); the caller owns it.
    QMenu *createRowMenu(int row, QWidget *parent = nullptr) override;
    // Fills `menu` with the lane actions that do not depend on a row: the hidden lanes to show again,
    // show all, collapse and expand all groups, reset (the View menu's Lanes submenu).
    void fillLanesMenu(QMenu *menu);

    // The label column's width in pixels (0: the mode's default); dragging its right edge sets it.
    void setLabelWidth(int pixels) override;
    int labelWidth() const;
    // Sets the width that shows every label whole.
    void fitLabelWidth() override;
    OpRef hoveredOp() const { return m_selection.hovered(); }

    // The op drawn under a widget position (stream lanes: its GPU bar; host lanes: its API call).
    OpRef opAt(const QPoint &pos) const override;
    // The driver activity (index into the repetition's activities) under pos on an activity lane, else -1.
    int activityAt(const QPoint &pos) const override;
    QString activityToolTipText(int activity) const;
    // The host range (index into the repetition's hostRanges) under pos on a range row, else -1.
    int rangeAt(const QPoint &pos) const override;
    QString rangeToolTipText(int range) const;
    // The tooltip shown for an op: name, stream, start, duration, bytes, GB/s, memory kinds, host call.
    QString toolTipText(int op) const;

    // How many threads paint the lanes that need a whole repaint (zoom, resize, new data): 0 (the
    // default) picks QThread::idealThreadCount(), 1 paints them one after the other on the GUI thread.
    // Lanes are independent pictures, so the pixels do not depend on it.
    void setPaintThreads(int threads);
    int paintThreads() const { return m_frame.lanes().paintThreads(); }
    // How many threads painted the last frame's whole-lane repaints (1: sequential; 0: none repainted).
    int lastPaintThreads() const { return m_frame.lanes().lastPaintThreads(); }

    // The lesson's key figure: the ops of each shown repetition that `query` finds (engine::findOps),
    // outlined (and in exports the caption in a box beside them). An empty caption clears it.
    void setKeyFigure(const QString &caption, const engine::OpQuery &query);
    QString keyFigureCaption() const { return m_keyFigure.caption(); }
    const std::vector<int> &keyFigureOps() const { return m_keyFigure.ops(); }

    // Adjusts the metrics of the mode (presentation or not) before they are used: a compact view
    // without ruler or legend, some lane kinds only, one header for all lanes (comparison rows).
    void setMetricsAdjustment(std::function<void(TimelineMetrics &)> adjust);
    // The metrics the view paints with.
    const TimelineMetrics &metrics() const override;

    // Paints the whole visible view (headers, ruler, lanes, legend, selection) into target, at any size;
    // the widget, PNG and SVG export all go through the same painter.
    void renderTo(QPainter &painter, const QRect &target);
    // Writes the visible view to a .png or .svg file (by suffix) at the given size in pixels: lanes
    // filling the height, text at the image's scale, a title when asked (ImageOptions), the SVG
    // clipped as the screen is (headers, ruler, lanes and legend each in their own viewport).
    bool exportImage(const QString &path, QSize size, QString *error = nullptr);
    bool exportImage(const QString &path, QSize size, const ImageOptions &options, QString *error = nullptr);
    // "Workload — GPU — date" of the shown trace, for an export's title.
    QString exportTitle() const;

signals:
    void opSelected(int repetition, int op); // op == -1: selection cleared
    void opToggled(int repetition, int op); // Ctrl+click: op added to or taken from a multiple selection
    void opHovered(int repetition, int op); // op == -1: the pointer left every op
    void rangeSelected(qint64 startNs, qint64 endNs);
    void showAllFlowsChanged(bool on);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void changeEvent(QEvent *event) override;
    bool event(QEvent *event) override;

private:
    // TimelineHost, for the input and the selection (the rest of it is public above).
    QWidget &widget() override { return *this; }
    TimelineSelection &selection() override { return m_selection; }
    int scrollPageStep() const override;
    void notifyOpSelected(int op) override { emit opSelected(repetition(), op); }
    void notifyOpToggled(int op) override { emit opToggled(repetition(), op); }
    void notifyOpHovered(int op) override { emit opHovered(repetition(), op); }
    void notifyRangeSelected(qint64 startNs, qint64 endNs) override { emit rangeSelected(startNs, endNs); }
    // What is drawn over the lanes: on screen the hovered op too, in exports the key figure's caption.
    TimelineOverlay overlay(bool forExport) const;
    // The view's picture as exports draw it (TimelineExport).
    TimelinePicture picture() const;
    void addMatches(TimelineOverlay &overlay) const;

    // The source's lanes were built again (reset: for another trace or repetition).
    void onLanesChanged(bool reset);
    // The rows and labels from the tree and the lane state, into the painter.
    void rebuildRows();
    // True when pos is on the label column's right edge (where a drag resizes it).
    bool onLabelEdge(const QPoint &pos) const override;
    void onWindowChanged();
    // The widget's rectangle less the scroll bar where the rows overflow; the scroll bar placed there.
    QRect layoutRect() const;
    void syncScrollBar();
    void applyStyle();
    // Where a pick at pos looks: an interval lane (lane -1 when pos is on none), the time under the
    // pointer and the tolerance around it.
    TimelinePick pickAt(const QPoint &pos) const override;

    TimelineSource m_source; // the trace, repetition and lanes shown, and the document followed
    ConnectionList m_documentConnections; // from this view to the document
    int m_labelWidth = 0;
    bool m_showAllFlows = false;
    std::unique_ptr<OpPalette> m_palette;
    std::unique_ptr<TimelinePainter> m_painter;
    ZoomControl *m_zoom = nullptr; // the zoom followed: m_ownZoom or a shared one
    ZoomControl *m_ownZoom = nullptr; // child QObject
    qint64 m_zoomOffsetNs = 0;
    std::array<QMetaObject::Connection, 3> m_zoomConnections; // window, selection, the shared zoom's end
    void attachZoom();
    bool m_presentation = false;
    bool m_dark = false;
    TimelineKeyFigure m_keyFigure; // the lesson's: its ops outlined, its caption in exports
    std::function<void(TimelineMetrics &)> m_adjustMetrics;
    bool m_darkExplicit = false;
    TimelineSelection m_selection{*this}; // the selected op, its end and the hovered op
    QScrollBar *m_vscroll = nullptr; // child widget, shown while the rows overflow
    TimelineFrameCache m_frame; // the pictures a frame reuses: lanes, headers, legend
    TimelineInput m_input{*this}; // mouse, keyboard, context menus, tooltips
};

} // namespace streamscope::ui
