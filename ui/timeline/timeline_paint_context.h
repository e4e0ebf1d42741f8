// The timeline painter's shared paint context (Qt Creator's TimelineRenderState): what every paint
// pass reads (the lanes, the rows and their labels, the palette, the metrics) and what they share while
// painting (the label and blend caches, the counters), with the value types the passes exchange: the
// mode's sizes (TimelineMetrics), where everything goes (TimelineLayout) and what is drawn live on top
// (TimelineOverlay). The passes themselves: timeline_render_pass.h; the painter that owns a context and
// runs the passes: timeline_painter.h.
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

// What a frame painted, for the benchmarks and the tests of the pixel budget.
struct TimelinePaintStats {
    long long barsDrawn = 0; // single ops drawn as their own bar
    long long foldedMarks = 0; // marks standing for several narrow ops
    long long opsVisited = 0;

    void add(const TimelinePaintStats &other)
    {
        barsDrawn += other.barsDrawn;
        foldedMarks += other.foldedMarks;
        opsVisited += other.opsVisited;
    }
};

// The state every pass paints from. The painter owns one and fills it (setModel, setRows, setMetrics...);
// the passes read it, and only touch its counters and caches. A copy starts with empty caches, so the
// copies that paint lanes on other threads never share one.
struct TimelinePaintContext {
    // Ops narrower than this many pixels are candidates for folding.
    static constexpr double kFoldPixels = 3.0;
    // Narrow ops closer than this to the mark being folded join it.
    static constexpr double kFoldGapPixels = 1.0;
    // Minimum spacing between major ruler ticks.
    static constexpr double kTickSpacingPixels = 90.0;
    // Above this many flows in view none is drawn, and a line says to zoom in: a fan of thousands of
    // arrows shows nothing and costs a frame.
    static constexpr int kMaxFlows = 2000;

    const LaneModel *model = nullptr;
    const LaneTree *tree = nullptr; // may be null when no row is a group header
    std::vector<LaneRow> rows; // what each row shows, top to bottom
    std::vector<QString> labels; // by model lane
    int labelWidth = 0; // the user's label column width; 0: the mode's default
    int scrollY = 0;
    int fittedWidth = 0; // fittedLabelWidth() of the rows set
    const OpPalette *palette = nullptr;
    TimelineMetrics metrics;
    bool showSlowdown = true; // Lane::slowed: the time alone marked in each bar, the rest tinted

    // Counters and caches: written while painting (const passes, hence mutable).
    mutable TimelinePaintStats stats;
    struct Caches; // label and blend caches (timeline_paint_context_p.h)
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
    mutable CacheHolder caches;

    // A row's natural height, and a lane's by its kind.
    int rowHeight(const LaneRow &row) const;
    int nominalHeight(const Lane &lane) const;
    // The width that shows every row's label whole (title, indentation and margins).
    int fittedLabelWidth() const;
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
    // The label of a bar with the given name, elided to fit maxWidth pixels (see LabelCache in
    // timeline_paint_context_p.h).
    const QString &barLabel(const QFontMetrics &fm, int logicalDpi, std::uint32_t nameId, int maxWidth) const;
    // The narrowest bar that gets a label ("xxx" and margins), measured once per font and device DPI.
    double labelMinWidth(const QFontMetrics &fm, int logicalDpi) const;
};

// Where everything goes inside a target rectangle for the context's rows and metrics
// (timeline_layout.cpp): rows at their natural heights, shrunk to fit (or scrolled), grown to fill.
TimelineLayout layoutTimeline(const TimelinePaintContext &ctx, const QRect &target);

} // namespace streamscope::ui
