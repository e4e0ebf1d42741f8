// TimelinePainter: paints the timeline (lane headers, ruler, lanes, legend, selection and links) into any
// QPainter, so the widget, a QImage, a PNG and an SVG (QSvgGenerator) share one drawing code. It holds no
// widget state: the caller gives it the lanes, the palette, a target rectangle and the visible window.
//
// Pixel budget (Tracy, Qt Creator): ops narrower than kFoldPixels that touch are folded into one mark,
// ops wholly inside pixels already painted are skipped, and step functions (active counts, bandwidth)
// are drawn as per-pixel min/max columns; the data itself is never thinned.
#pragma once

#include <QColor>
#include <QFont>
#include <QRect>
#include <QString>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "ui/timeline/lane_tree.h"
#include "ui/timeline/time_mapping.h"

class QFontMetrics;
class QPainter;

namespace streamscope::ui {

class LaneModel;
class OpPalette;
struct Lane;

// Sizes that depend on the mode (presentation mode: everything larger).
struct TimelineMetrics {
    QFont font; // lane titles, bar labels
    QFont smallFont; // subtitles, ruler labels, legend
    int headerWidth = 180;
    int rulerHeight = 26;
    int legendHeight = 24;
    int hostLaneHeight = 24;
    int streamLaneHeight = 28;
    int counterLaneHeight = 30;
    int bandwidthLaneHeight = 64;
    int groupHeaderHeight = 20; // an expanded group's header (one line); a collapsed one is a stream lane high
    int indent = 12; // per level of the lane tree
    int rangeLaneHeight = 16; // a row of host ranges, a projection row: one line of label
    int minLaneHeight = 10;
    // A scrolling view (the window's timeline): rows shrink to fit down to readableLaneHeight (a line
    // of label), never below; what does not fit then scrolls (setScrollY) instead of shrinking further.
    // Off (exports, a comparison's compact rows): everything is drawn, shrunk to fit the target.
    bool scrollable = false;
    int readableLaneHeight = 14;
    // Lanes share the height left over below their natural sizes (presentation mode, exports): the
    // picture fills its target instead of leaving the bottom blank. Off: natural sizes, shrunk when
    // the target is too small.
    bool fillHeight = false;
    // A compact view (a variant's row in a comparison in presentation mode): without ruler or legend,
    // only the lanes whose LaneKind bit is set in laneKinds, and one header for all of them.
    bool showRuler = true;
    bool showLegend = true;
    std::uint32_t laneKinds = ~0u; // bit (1 << int(LaneKind)) per lane kind shown
    QString groupTitle; // not empty: a band above the lanes with this title (groupSubtitle after it)
    QString groupSubtitle;
    // Exports on a transparent background: no fill behind the picture and the legend (lanes and
    // headers keep theirs).
    bool transparentBackground = false;

    static TimelineMetrics make(bool presentation, const QFont &base);
};

// Where everything goes inside a target rectangle.
struct TimelineLayout {
    QRect target;
    QRect corner; // above the headers, left of the ruler
    QRect ruler; // above the plot
    QRect headers; // the column of lane headers
    QRect plot; // the lanes' drawing area (x range shared with the ruler)
    QRect legend; // below everything
    QRect title; // a compact view's title band (TimelineMetrics::groupTitle), above the lanes
    std::vector<QRect> lanes; // plot-column rectangle of each row, top to bottom
    std::vector<LaneRow> rows; // what each row shows (a lane of the model, or a group header)
    std::vector<int> rowOfLane; // by model lane: its row, -1 where it is hidden or in a collapsed group
    // Scrolling (TimelineMetrics::scrollable): the rows' total height, the offset applied to them (lanes
    // holds where each row is now, above or below the visible part too) and the largest offset.
    // headers and plot cover the visible part only.
    int contentHeight = 0;
    int scrollY = 0;
    int maxScrollY = 0;
    // Open groups' headers kept at the top of the rows while their lanes are in view (scrolled past
    // their own place): the row and where it is drawn (the label column and the plot, full width).
    struct Sticky {
        int row = -1;
        QRect rect;
    };
    std::vector<Sticky> sticky;

    // Row under a y coordinate (a sticky header where one is drawn; nothing outside the visible rows),
    // or -1.
    int laneAt(int y) const;
    // The y offset that brings a row wholly into view (below the sticky headers), or scrollY when it is.
    int scrollToShow(int row) const;
    // The model lane a row shows, -1 for a group header or no row.
    int laneOfRow(int row) const
    {
        return row >= 0 && std::size_t(row) < rows.size() ? rows[std::size_t(row)].lane : -1;
    }
    // The row of a model lane, -1 when it is not shown.
    int rowOf(int lane) const
    {
        return lane >= 0 && std::size_t(lane) < rowOfLane.size() ? rowOfLane[std::size_t(lane)] : -1;
    }
};

// What is drawn live on top of the lanes.
struct TimelineOverlay {
    int selectedOp = -1;
    // A multiple selection (the document's selectedOps): each outlined as the selected op is.
    const std::vector<int> *selectedOps = nullptr;
    int hoveredOp = -1;
    qint64 selectionStartNs = 0;
    qint64 selectionEndNs = 0; // == start: no range selected
    bool drawLink = true; // host call -> GPU op for the selected op
    // Find: the ops that match (outlined), and whether everything else is dimmed (a filter).
    const std::vector<int> *matches = nullptr;
    bool dimOthers = false;
    // Flows: the arrow from every host call to its GPU op in view, not only the selected one's.
    bool allFlows = false;
    // Which end of the selected op "follow flow" brought forward (outlined more strongly).
    enum class End : std::uint8_t { Both, Host, Gpu };
    End selectedEnd = End::Both;
    // The lesson's key figure: these ops outlined, with the caption in a box beside them.
    const std::vector<int> *keyOps = nullptr;
    QString keyCaption;
    bool keyHost = false; // outline the ops' host calls too (the figure is on a host thread)
};

class TimelinePainter {
public:
    // Ops narrower than this many pixels are candidates for folding.
    static constexpr double kFoldPixels = 3.0;
    // Narrow ops closer than this to the mark being folded join it.
    static constexpr double kFoldGapPixels = 1.0;
    // Minimum spacing between major ruler ticks.
    static constexpr double kTickSpacingPixels = 90.0;

    struct Stats {
        long long barsDrawn = 0; // single ops drawn as their own bar
        long long foldedMarks = 0; // marks standing for several narrow ops
        long long opsVisited = 0;
    };

    // Above this many flows in view none is drawn, and a line says to zoom in: a fan of thousands of
    // arrows shows nothing and costs a frame.
    static constexpr int kMaxFlows = 2000;

    TimelinePainter() = default;
    // Shows the model's lanes one per row, in model order, under their own titles (setRows changes that).
    void setModel(const LaneModel *model);
    // The rows to draw (LaneTree::rows) and the label of every model lane; tree may be null when no row
    // is a group header.
    void setRows(const LaneTree *tree, std::vector<LaneRow> rows, std::vector<QString> labels);
    const std::vector<LaneRow> &rows() const { return m_rows; }
    // The label column's width in pixels; 0: the mode's default. Capped to two thirds of the target.
    void setLabelWidth(int pixels) { m_labelWidth = pixels; }
    int labelWidth() const { return m_labelWidth; }
    // Scrolling views: how far the rows are scrolled up, in pixels (clamped by layout()).
    void setScrollY(int pixels) { m_scrollY = std::max(0, pixels); }
    int scrollY() const { return m_scrollY; }
    // The width that shows every row's label whole (title, indentation and margins).
    int fittedLabelWidth() const;
    void setPalette(const OpPalette *palette) { m_palette = palette; }
    void setMetrics(const TimelineMetrics &metrics);
    const TimelineMetrics &metrics() const { return m_metrics; }
    // On (the default), the derived lanes' translucent columns are painted as the opaque colours they
    // blend to where that gives the same pixels (see drawColumnLayers); off, they are blended one fill
    // at a time. Only for tests that compare the two.
    void setOpaqueColumns(bool on) { m_opaqueColumns = on; }
    // On (the default), folded marks wider than a column are collected with the one-column marks and
    // painted late where that gives the same pixels (see paintIntervals); off, each is a fillRect at its
    // turn. Only for tests that compare the two.
    void setDeferredMarks(bool on) { m_deferredMarks = on; }
    // With solo baselines: where each op would have ended alone, marked in its bar, and the rest tinted.
    void setShowSlowdown(bool on) { m_showSlowdown = on; }
    bool showSlowdown() const { return m_showSlowdown; }
    const LaneModel *model() const { return m_model; }

    TimelineLayout layout(const QRect &target) const;
    static TimeMapping mappingFor(const TimelineLayout &layout, qint64 windowStartNs, qint64 windowEndNs);

    // Everything, uncached (exports, tests, and the widget's first paint of each lane goes through paintLane).
    void paintAll(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                  const TimelineOverlay &overlay) const;

    void paintBackground(QPainter &p, const TimelineLayout &layout) const;
    void paintHeaders(QPainter &p, const TimelineLayout &layout) const;
    void paintRuler(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                    const TimelineOverlay &overlay) const;
    void paintLegend(QPainter &p, const TimelineLayout &layout) const;
    // The sticky group headers (layout.sticky), over everything else in their band.
    void paintSticky(QPainter &p, const TimelineLayout &layout) const;
    // A compact view's title band (layout.title): the title in bold, the subtitle after it.
    void paintTitle(QPainter &p, const TimelineLayout &layout) const;
    // One lane's content inside rect, limited to the pixel columns [clipX0, clipX1) (the exposed strip
    // after a pan). rect is in the painter's coordinates and the mapping's x0 must match them.
    // Returns true when the picture depends on where the lane's edges are (a label kept inside the
    // visible part of a bar that the edge cuts), so that a cached copy cannot simply be shifted on a pan.
    bool paintLane(QPainter &p, int lane, const QRect &rect, const TimeMapping &mapping, int clipX0, int clipX1) const;
    void paintOverlay(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                      const TimelineOverlay &overlay) const;

    // The rectangle an op's GPU bar (stream lane) or host call (host lane) occupies, empty if not shown.
    QRectF gpuBarRect(const TimelineLayout &layout, const TimeMapping &mapping, int op) const;
    QRectF hostBarRect(const TimelineLayout &layout, const TimeMapping &mapping, int op) const;

    // The flows (ops with a host call and a GPU part, both rows shown) whose call or GPU part
    // intersects the window, in no particular order; the search stops after `cap` + 1 of them.
    struct Flows {
        std::vector<int> ops;
        bool capped = false; // more than cap in view: ops holds cap + 1 of them
    };
    Flows flowsInView(const TimelineLayout &layout, const TimeMapping &mapping, int cap = kMaxFlows) const;

    const Stats &stats() const { return m_stats; }
    void resetStats() const { m_stats = {}; }
    void addStats(const Stats &other) const
    {
        m_stats.barsDrawn += other.barsDrawn;
        m_stats.foldedMarks += other.foldedMarks;
        m_stats.opsVisited += other.opsVisited;
    }

    // A copy for painting lanes on another thread (TimelineView paints lanes concurrently): paintLane
    // mutates the stats, the label and blend caches, so each thread paints with its own copy; its fonts
    // are detached so that no QFontPrivate (whose font engine data Qt swaps per thread) is shared with
    // the original. Same model, palette, metrics and switches, so the same pixels.
    TimelinePainter threadCopy() const;
    // A rough cost of paintLane over [clipX0, clipX1) (ops in view plus columns), to hand the dearest
    // lanes out first when lanes are painted concurrently.
    long long laneWorkEstimate(int lane, const TimeMapping &mapping, int clipX0, int clipX1) const;

private:
    void paintGrid(QPainter &p, const QRect &rect, const TimeMapping &mapping, int clipX0, int clipX1) const;
    void paintGroupRow(QPainter &p, const LaneRow &row, const QRect &rect, const QColor &background,
                       const TimeMapping &mapping, int clipX0, int clipX1) const;
    void paintFlows(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping) const;
    void drawLink(QPainter &p, const QRectF &host, const QRectF &gpu, const QColor &color, double width,
                  double head) const;
    int rowHeight(const LaneRow &row) const;
    void paintKeyFigure(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                        const std::vector<int> &ops, const QString &caption, bool host) const;
    void paintMatches(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                      const std::vector<int> &matches, bool dimOthers) const;
    bool paintIntervals(QPainter &p, const Lane &lane, const QRect &rect, const TimeMapping &mapping, int clipX0,
                        int clipX1) const;
    // A stream lane's queued time: light, outlined segments before the bars (drawn under them).
    void paintQueued(QPainter &p, const Lane &lane, const QRect &rect, const QColor &background,
                     const TimeMapping &mapping, int clipX0, int clipX1) const;
    void paintSlowed(QPainter &p, const Lane &lane, const QRect &rect, const TimeMapping &mapping, int clipX0,
                     int clipX1) const;
    void paintCounter(QPainter &p, const Lane &lane, const QRect &rect, const QColor &background,
                      const TimeMapping &mapping, int clipX0, int clipX1) const;
    void paintBandwidth(QPainter &p, const Lane &lane, const QRect &rect, const QColor &background,
                        const TimeMapping &mapping, int clipX0, int clipX1) const;
    // Host range rows and NVTX projection rows: flat bars in the colour of the range's name, labelled with
    // it where it fits; ranges narrower than kFoldPixels that touch fold into one mark
    // (timeline_painter_ranges.cpp). Returns edge dependence as paintIntervals does.
    bool paintRanges(QPainter &p, const Lane &lane, const QRect &rect, const TimeMapping &mapping, int clipX0,
                     int clipX1) const;

    // One step function's per-column [lo, hi] drawn as an area in `color` (see drawColumns).
    struct ColumnLayer {
        const std::vector<float> *lo = nullptr;
        const std::vector<float> *hi = nullptr;
        QColor color;
    };
    // Draws the layers in order over a lane filled with `background` and its grid, with the pixels that
    // drawing them one by one with translucent fills would give, but as opaque fills (see the .cpp).
    void drawColumnLayers(QPainter &p, const ColumnLayer *layers, int layerCount, const QColor &background,
                          const TimeMapping &mapping, int clipX0, double baseline, double scale) const;
    // The pixel that filling one pixel of colour `under` (opaque) with `src` gives in an image of `format`,
    // found by letting QPainter do it once; kept in the caches.
    QRgb blendedPixel(int format, QRgb under, const QColor &src) const;
    int nominalHeight(const Lane &lane) const;
    // The label of a bar with the given name, elided to fit maxWidth pixels (see LabelCache in timeline_painter_p.h).
    const QString &barLabel(const QFontMetrics &fm, int logicalDpi, std::uint32_t nameId, int maxWidth) const;
    // The narrowest bar that gets a label ("xxx" and margins), measured once per font and device DPI.
    double labelMinWidth(const QFontMetrics &fm, int logicalDpi) const;

    // The label and blend caches (defined in timeline_painter_p.h, private to the painter's sources). A
    // copy of the painter starts with empty ones: threadCopy's painters never share a cache.
    struct Caches;
    class CacheHolder {
    public:
        CacheHolder();
        ~CacheHolder();
        CacheHolder(const CacheHolder &) : CacheHolder() { }
        CacheHolder &operator=(const CacheHolder &)
        {
            reset();
            return *this;
        }
        CacheHolder(CacheHolder &&) noexcept;
        CacheHolder &operator=(CacheHolder &&) noexcept;
        Caches *operator->() const { return m_caches.get(); }
        void reset();

    private:
        std::unique_ptr<Caches> m_caches;
    };

    const LaneModel *m_model = nullptr;
    const LaneTree *m_tree = nullptr;
    std::vector<LaneRow> m_rows;
    std::vector<QString> m_labels; // by model lane
    int m_labelWidth = 0;
    int m_scrollY = 0;
    int m_fittedWidth = 0; // fittedLabelWidth() of the rows set
    const OpPalette *m_palette = nullptr;
    TimelineMetrics m_metrics;
    mutable Stats m_stats;
    mutable CacheHolder m_caches;
    bool m_opaqueColumns = true;
    bool m_deferredMarks = true;
    bool m_showSlowdown = true; // Lane::slowed: the time alone marked in each bar, the rest tinted
};

} // namespace streamscope::ui
