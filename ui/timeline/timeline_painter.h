// TimelinePainter: paints the timeline (lane headers, ruler, lanes, legend, selection and links) into any
// QPainter, so the widget, a QImage, a PNG and an SVG (QSvgGenerator) share one drawing code. It holds no
// widget state: the caller gives it the lanes, the palette, a target rectangle and the visible window.
// It owns the paint context (timeline_paint_context.h) and runs the paint passes over it
// (timeline_render_pass.h): lane passes per lane strip, frame passes around and over the lanes.
//
// Pixel budget (Tracy, Qt Creator): ops narrower than kFoldPixels that touch are folded into one mark,
// ops wholly inside pixels already painted are skipped, and step functions (active counts, bandwidth)
// are drawn as per-pixel min/max columns; the data itself is never thinned.
#pragma once

#include <algorithm>
#include <vector>

#include "ui/timeline/timeline_paint_context.h"
#include "ui/timeline/timeline_render_pass.h"

namespace streamscope::ui {

class TimelinePainter {
public:
    static constexpr double kFoldPixels = TimelinePaintContext::kFoldPixels;
    static constexpr double kFoldGapPixels = TimelinePaintContext::kFoldGapPixels;
    static constexpr double kTickSpacingPixels = TimelinePaintContext::kTickSpacingPixels;
    static constexpr int kMaxFlows = TimelinePaintContext::kMaxFlows;
    using Stats = TimelinePaintStats;
    using Flows = TimelinePaintContext::Flows;

    TimelinePainter() = default;
    // Shows the model's lanes one per row, in model order, under their own titles (setRows changes that).
    void setModel(const LaneModel *model);
    // The rows to draw (LaneTree::rows) and the label of every model lane; tree may be null when no row
    // is a group header.
    void setRows(const LaneTree *tree, std::vector<LaneRow> rows, std::vector<QString> labels);
    const std::vector<LaneRow> &rows() const { return m_ctx.rows; }
    // The label column's width in pixels; 0: the mode's default. Capped to two thirds of the target.
    void setLabelWidth(int pixels) { m_ctx.labelWidth = pixels; }
    int labelWidth() const { return m_ctx.labelWidth; }
    // Scrolling views: how far the rows are scrolled up, in pixels (clamped by layout()).
    void setScrollY(int pixels) { m_ctx.scrollY = std::max(0, pixels); }
    int scrollY() const { return m_ctx.scrollY; }
    // The width that shows every row's label whole (title, indentation and margins).
    int fittedLabelWidth() const { return m_ctx.fittedLabelWidth(); }
    void setPalette(const OpPalette *palette) { m_ctx.palette = palette; }
    void setMetrics(const TimelineMetrics &metrics);
    const TimelineMetrics &metrics() const { return m_ctx.metrics; }
    // With solo baselines: where each op would have ended alone, marked in its bar, and the rest tinted.
    void setShowSlowdown(bool on) { m_ctx.showSlowdown = on; }
    bool showSlowdown() const { return m_ctx.showSlowdown; }
    const LaneModel *model() const { return m_ctx.model; }
    // Which pass paints which kind of lane (null members: the shipped passes). The passes must outlive
    // the painter and its threadCopy()s.
    void setLanePasses(const TimelineLanePasses &passes) { m_passes = passes; }

    TimelineLayout layout(const QRect &target) const { return layoutTimeline(m_ctx, target); }
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
    // after a pan): its background, the grid, then the lane pass of its kind. rect is in the painter's
    // coordinates and the mapping's x0 must match them. Returns true when the picture depends on where
    // the lane's edges are (a label kept inside the visible part of a bar that the edge cuts), so that a
    // cached copy cannot simply be shifted on a pan.
    bool paintLane(QPainter &p, int lane, const QRect &rect, const TimeMapping &mapping, int clipX0, int clipX1) const;
    void paintOverlay(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                      const TimelineOverlay &overlay) const;

    // The rectangle an op's GPU bar (stream lane) or host call (host lane) occupies, empty if not shown.
    QRectF gpuBarRect(const TimelineLayout &layout, const TimeMapping &mapping, int op) const
    {
        return m_ctx.gpuBarRect(layout, mapping, op);
    }
    QRectF hostBarRect(const TimelineLayout &layout, const TimeMapping &mapping, int op) const
    {
        return m_ctx.hostBarRect(layout, mapping, op);
    }
    // The flows (ops with a host call and a GPU part, both rows shown) whose call or GPU part
    // intersects the window, in no particular order; the search stops after `cap` + 1 of them.
    Flows flowsInView(const TimelineLayout &layout, const TimeMapping &mapping, int cap = kMaxFlows) const
    {
        return m_ctx.flowsInView(layout, mapping, cap);
    }

    const Stats &stats() const { return m_ctx.stats; }
    void resetStats() const { m_ctx.stats = {}; }
    void addStats(const Stats &other) const { m_ctx.stats.add(other); }

    // A copy for painting lanes on another thread (TimelineView paints lanes concurrently): paintLane
    // mutates the stats, the label and blend caches, so each thread paints with its own copy; its fonts
    // are detached so that no QFontPrivate (whose font engine data Qt swaps per thread) is shared with
    // the original. Same model, palette, metrics and passes, so the same pixels.
    TimelinePainter threadCopy() const;
    // A rough cost of paintLane over [clipX0, clipX1) (ops in view plus columns), to hand the dearest
    // lanes out first when lanes are painted concurrently.
    long long laneWorkEstimate(int lane, const TimeMapping &mapping, int clipX0, int clipX1) const;

private:
    void paintGrid(QPainter &p, const QRect &rect, const TimeMapping &mapping, int clipX0, int clipX1) const;
    void paintSeparator(QPainter &p, const QRect &rect, int clipX0, int clipX1) const;

    TimelinePaintContext m_ctx;
    TimelineLanePasses m_passes;
};

} // namespace streamscope::ui
