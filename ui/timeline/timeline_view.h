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

#include "engine/model/trace.h"
#include "ui/common/connection_list.h"
#include "ui/document/trace_document.h"
#include "ui/timeline/lane_model.h"

class QPainter;
class QThreadPool;

namespace streamscope::ui {

class OpPalette;
class TimelinePainter;
class ZoomControl;
struct TimelineLayout;
struct TimelineOverlay;
struct TimeMapping;

class TimelineView : public QWidget {
    Q_OBJECT

public:
    // Identifies one op of one repetition of the shown trace: repetition indexes Trace::repetitions,
    // op indexes Repetition::ops.
    struct OpRef {
        int repetition = -1;
        int op = -1;
        bool isValid() const { return repetition >= 0 && op >= 0; }
        bool operator==(const OpRef &) const = default;
    };

    explicit TimelineView(QWidget *parent = nullptr);
    ~TimelineView() override;

    // Shows one repetition of a trace (nullptr clears the view). The view keeps the trace alive.
    void setTrace(std::shared_ptr<const engine::Trace> trace, int repetition = 0);
    std::shared_ptr<const engine::Trace> trace() const { return m_trace; }
    void setRepetition(int repetition);
    int repetition() const { return m_repetition; }
    // Binds the view to a document: it shows the document's trace and repetition and selects its
    // selected op, and an op clicked (or cleared) here selects it in the document. One document at a
    // time; nullptr unbinds. setTrace and the others still work for views without a document.
    // A bound view also draws the document's find matches (outlined; with a filter, everything else
    // dimmed).
    void setDocument(TraceDocument *document);
    TraceDocument *document() const { return m_document; }

    // Extent (the whole repetition) ⊇ visible window ⊇ selection; drive it to zoom/pan programmatically.
    // The zoom this view follows: its own, or one shared with other views (followZoom), in that shared
    // zoom's time coordinates.
    ZoomControl *zoom() const { return m_zoom; }
    // Follows `shared` (nullptr: its own zoom again): any number of views show the same window, each at
    // its own offset (view time = shared time + offsetNs, for traces aligned on different clocks). The
    // shared zoom's extent is set by its owner; zooming, panning and selecting in any view move them all.
    void followZoom(ZoomControl *shared, qint64 offsetNs = 0);
    qint64 zoomOffsetNs() const { return m_zoomOffsetNs; }
    // The shown window in this view's own time (the zoom's window plus the offset).
    qint64 windowStartNs() const;
    qint64 windowEndNs() const;
    // The lanes built from the current repetition; nullptr without a trace.
    const LaneModel *laneModel() const { return m_model.get(); }
    void fitAll();

    // What the lanes show beyond the trace's own: with projectNvtx, a row above each stream with the NVTX
    // range each op was launched in (View > Project NVTX onto GPU lanes). Keeps the window and the selection.
    void setLaneOptions(const LaneOptions &options);
    const LaneOptions &laneOptions() const { return m_laneOptions; }
    void setProjectNvtx(bool on);

    // Larger fonts and lanes, high contrast: legible on a projector at 1280x720.
    void setPresentationMode(bool on);
    bool presentationMode() const { return m_presentation; }
    // Dark background palette; by default the view follows the application's QPalette.
    void setDarkPalette(bool dark);
    bool darkPalette() const { return m_dark; }

    OpRef selectedOp() const { return m_selected; }
    // Selects an op of the current repetition (-1 clears) and brings it into view if it is outside.
    void selectOp(int op);
    OpRef hoveredOp() const { return m_hovered; }

    // The op drawn under a widget position (stream lanes: its GPU bar; host lanes: its API call).
    OpRef opAt(const QPoint &pos) const;
    // The driver activity (index into the repetition's activities) under pos on an activity lane, else -1.
    int activityAt(const QPoint &pos) const;
    QString activityToolTipText(int activity) const;
    // The host range (index into the repetition's hostRanges) under pos on a range row, else -1.
    int rangeAt(const QPoint &pos) const;
    QString rangeToolTipText(int range) const;
    // The tooltip shown for an op: name, stream, start, duration, bytes, GB/s, memory kinds, host call.
    QString toolTipText(int op) const;

    // How many threads paint the lanes that need a whole repaint (zoom, resize, new data): 0 (the
    // default) picks QThread::idealThreadCount(), 1 paints them one after the other on the GUI thread.
    // Lanes are independent pictures, so the pixels do not depend on it.
    void setPaintThreads(int threads);
    int paintThreads() const { return m_paintThreads; }
    // How many threads painted the last frame's whole-lane repaints (1: sequential; 0: none repainted).
    int lastPaintThreads() const { return m_lastPaintThreads; }

    // Paints the whole visible view (headers, ruler, lanes, legend, selection) into target, at any size;
    // the widget, PNG and SVG export all go through the same painter.
    void renderTo(QPainter &painter, const QRect &target);
    // Writes the visible view to a .png or .svg file (by suffix) at the given size in pixels.
    bool exportImage(const QString &path, QSize size, QString *error = nullptr);

signals:
    void opSelected(int repetition, int op); // op == -1: selection cleared
    void opHovered(int repetition, int op); // op == -1: the pointer left every op
    void rangeSelected(qint64 startNs, qint64 endNs);

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
    void changeEvent(QEvent *event) override;
    bool event(QEvent *event) override;

private:
    void addMatches(TimelineOverlay &overlay) const;
    enum class DragMode { None, Pan, Select };
    struct LaneCache;

    void rebuildModel();
    void onWindowChanged();
    void invalidateCache();
    void updateLaneCaches(const TimelineLayout &layout, const TimeMapping &mapping);
    // Repaints the given lanes' whole caches, concurrently where that pays (see the .cpp).
    void repaintLanes(const std::vector<int> &lanes, const TimelineLayout &layout, const TimeMapping &mapping);
    struct AreaCache;
    // Copies `cache` to `area`, first painting it with `paint` (in the widget's coordinates) when it is
    // stale or the area or device scale changed.
    void paintCached(QPainter &p, AreaCache &cache, const QRect &area, const std::function<void(QPainter &)> &paint);
    void setHovered(OpRef ref);
    void applyStyle();
    // Where a pick at pos looks: an interval lane (lane -1 when pos is on none), the time under the
    // pointer and the tolerance around it.
    struct Pick {
        int lane = -1;
        qint64 ns = 0;
        qint64 toleranceNs = 0;
    };
    Pick pickAt(const QPoint &pos) const;

    std::shared_ptr<const engine::Trace> m_trace;
    QPointer<TraceDocument> m_document;
    ConnectionList m_documentConnections;
    int m_repetition = 0;
    LaneOptions m_laneOptions;
    std::unique_ptr<LaneModel> m_model;
    std::unique_ptr<OpPalette> m_palette;
    std::unique_ptr<TimelinePainter> m_painter;
    ZoomControl *m_zoom = nullptr; // the zoom followed: m_ownZoom or a shared one
    ZoomControl *m_ownZoom = nullptr; // child QObject
    qint64 m_zoomOffsetNs = 0;
    std::array<QMetaObject::Connection, 3> m_zoomConnections; // window, selection, the shared zoom's end
    void attachZoom();
    bool m_presentation = false;
    bool m_dark = false;
    bool m_darkExplicit = false;
    OpRef m_selected;
    OpRef m_hovered;

    DragMode m_drag = DragMode::None;
    QPoint m_pressPos;
    qint64 m_pressWindowStart = 0;
    qint64 m_selectAnchorNs = 0;
    bool m_dragMoved = false;

    std::vector<LaneCache> m_caches; // one per lane: the lane's picture for the current window
    int m_paintThreads = 0;
    int m_lastPaintThreads = 0;
    // Painters for the helper threads (threadCopy of m_painter; the GUI thread paints with m_painter),
    // kept between frames for their label caches; rebuilt when the model or style changes.
    std::vector<std::unique_ptr<TimelinePainter>> m_helperPainters;
    bool m_helpersStale = true;
    QThreadPool *m_pool = nullptr; // child QObject, created on the first concurrent repaint
    // The lane headers and the legend do not depend on the window: painted once (text shaping is a
    // good part of a frame's fixed cost) and copied in every frame until the layout, data or style
    // changes.
    struct AreaCache {
        QPixmap pixmap;
        QRect rect;
        qreal dpr = 0;
        bool valid = false;
    };
    AreaCache m_headerCache;
    AreaCache m_legendCache;
};

} // namespace streamscope::ui
