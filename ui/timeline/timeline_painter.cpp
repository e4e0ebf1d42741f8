// TimelinePainter: the paint context's setters, lane dispatch (background, grid, the lane pass of the
// lane's kind, separator) and the order of the frame passes; the passes live in timeline_*_pass.cpp, the
// layout in timeline_layout.cpp.
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_column_pass.h"
#include "ui/timeline/timeline_header_pass.h"
#include "ui/timeline/timeline_interval_pass.h"
#include "ui/timeline/timeline_legend_pass.h"
#include "ui/timeline/timeline_overlay_pass.h"
#include "ui/timeline/timeline_paint_context_p.h"
#include "ui/timeline/timeline_range_pass.h"
#include "ui/timeline/timeline_ruler_pass.h"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"

namespace streamscope::ui {

using namespace painter_detail;

void TimelinePainter::setModel(const LaneModel *model)
{
    m_ctx.model = model;
    m_ctx.caches->labels = {};
    m_ctx.tree = nullptr;
    m_ctx.rows.clear();
    m_ctx.labels.clear();
    for (int i = 0; model && i < model->laneCount(); ++i) {
        m_ctx.rows.push_back({i, -1, 0, false, false});
        m_ctx.labels.push_back(model->lane(i).title);
    }
    m_ctx.fittedWidth = m_ctx.fittedLabelWidth();
}

void TimelinePainter::setRows(const LaneTree *tree, std::vector<LaneRow> rows, std::vector<QString> labels)
{
    m_ctx.tree = tree;
    m_ctx.rows = std::move(rows);
    m_ctx.labels = std::move(labels);
    m_ctx.fittedWidth = m_ctx.fittedLabelWidth();
}

void TimelinePainter::setMetrics(const TimelineMetrics &metrics)
{
    m_ctx.metrics = metrics;
    m_ctx.caches->labels = {};
    m_ctx.fittedWidth = m_ctx.fittedLabelWidth();
}

namespace {

// A QFont equal to `font` that shares no private data with it: toggling a property makes the setter
// detach (a fresh QFontPrivate without engine data), setting it back restores the value, and the
// resolve mask is put back as it was.
QFont detachedFont(const QFont &font)
{
    QFont copy(font);
    copy.setKerning(!font.kerning());
    copy.setKerning(font.kerning());
    copy.setResolveMask(font.resolveMask());
    Q_ASSERT(!copy.isCopyOf(font) && copy == font);
    return copy;
}

} // namespace

TimelinePainter TimelinePainter::threadCopy() const
{
    TimelinePainter copy(*this);
    copy.m_ctx.metrics.font = detachedFont(m_ctx.metrics.font);
    copy.m_ctx.metrics.smallFont = detachedFont(m_ctx.metrics.smallFont);
    copy.m_ctx.stats = {};
    // The copy's caches start empty (CacheHolder): each copy measures with its own fonts.
    return copy;
}

long long TimelinePainter::laneWorkEstimate(int row, const TimeMapping &mapping, int clipX0, int clipX1) const
{
    if (!m_ctx.model || row < 0 || std::size_t(row) >= m_ctx.rows.size() || clipX1 <= clipX0)
        return 0;
    long long work = clipX1 - clipX0;
    const int laneIndex = m_ctx.rows[std::size_t(row)].lane;
    if (laneIndex < 0)
        return work * 4; // a group's summary: columns like a counter lane
    const Lane &lane = m_ctx.model->lane(laneIndex);
    if (isIntervalLane(lane.kind)) {
        const auto [first, last] =
            lane.intervals.visible(mapping.toNs(double(clipX0) - 2), mapping.toNs(double(clipX1) + 2));
        work += (long long)(last - first);
    } else {
        // Derived lanes cost a search and a min/max per column and layer.
        work *= lane.kind == LaneKind::Bandwidth ? 8 : 4; // a peer link: one layer, as a counter
    }
    return work;
}

TimeMapping TimelinePainter::mappingFor(const TimelineLayout &layout, qint64 windowStartNs, qint64 windowEndNs)
{
    return TimeMapping(windowStartNs, windowEndNs, layout.plot.left(), layout.plot.width());
}

void TimelinePainter::paintAll(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                               const TimelineOverlay &overlay) const
{
    paintBackground(p, layout);
    const bool scrolled = layout.contentHeight > layout.plot.height();
    if (scrolled) {
        p.save();
        p.setClipRect(layout.plot);
    }
    for (int i = 0; i < int(layout.lanes.size()); ++i)
        if (!layout.lanes[std::size_t(i)].isEmpty() && layout.lanes[std::size_t(i)].intersects(layout.plot))
            paintLane(p, i, layout.lanes[std::size_t(i)], mapping, layout.plot.left(), layout.plot.right() + 1);
    if (scrolled)
        p.restore();
    paintHeaders(p, layout);
    paintTitle(p, layout);
    paintRuler(p, layout, mapping, overlay);
    paintLegend(p, layout);
    paintOverlay(p, layout, mapping, overlay);
    paintSticky(p, layout);
}

void TimelinePainter::paintBackground(QPainter &p, const TimelineLayout &layout) const
{
    if (m_ctx.metrics.transparentBackground)
        return;
    p.fillRect(layout.target, m_ctx.palette->background());
}

void TimelinePainter::paintGrid(QPainter &p, const QRect &rect, const TimeMapping &mapping, int clipX0,
                                int clipX1) const
{
    p.setPen(QPen(m_ctx.palette->grid(), 0));
    thread_local std::vector<int> columns;
    gridColumns(mapping, clipX0, clipX1, columns);
    // A one-pixel column fill is the line's pixels (the lane's rows, the row below is clipped away)
    // without the line rasteriser, 21 lanes times a dozen ticks a frame.
    const bool fill = rasterAtWholePixels(p);
    for (const int column : columns) {
        const double x = column + 0.5;
        if (fill)
            p.fillRect(QRect(column, rect.top(), 1, rect.height()), m_ctx.palette->grid());
        else
            p.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom() + 1));
    }
}

bool TimelinePainter::paintLane(QPainter &p, int rowIndex, const QRect &rect, const TimeMapping &mapping, int clipX0,
                                int clipX1) const
{
    if (!m_ctx.model || rowIndex < 0 || std::size_t(rowIndex) >= m_ctx.rows.size() || clipX1 <= clipX0)
        return false;
    bool edgeDependent = false;
    const LaneRow &row = m_ctx.rows[std::size_t(rowIndex)];
    const ColumnPass &columns = m_passes.columns ? *m_passes.columns : columnPass();
    p.save();
    const QRect strip(clipX0, rect.top(), clipX1 - clipX0, rect.height());
    p.setClipRect(strip);
    const QColor background =
        row.isGroup() ? m_ctx.palette->headerBackground() : m_ctx.palette->laneBackground(rowIndex);
    p.fillRect(strip, background);
    paintGrid(p, rect, mapping, clipX0, clipX1);
    if (row.isGroup()) {
        columns.paintGroupRow(p, m_ctx, row, rect, background, mapping, clipX0, clipX1);
    } else {
        const Lane &lane = m_ctx.model->lane(row.lane);
        const TimelineLaneState state{m_ctx, lane, rect, background, mapping, clipX0, clipX1};
        switch (lane.kind) {
        case LaneKind::HostThread:
        case LaneKind::Stream:
        case LaneKind::CopyEngine:
        case LaneKind::Migration:
        case LaneKind::PageFaults:
            edgeDependent = (m_passes.intervals ? *m_passes.intervals : intervalPass()).paint(p, state);
            break;
        case LaneKind::H2DActivity:
        case LaneKind::D2HActivity:
        case LaneKind::D2DActivity:
        case LaneKind::ComputeActivity:
        case LaneKind::Bandwidth:
        case LaneKind::PeerLink: columns.paint(p, state); break;
        case LaneKind::HostRanges:
        case LaneKind::NvtxProjection:
            edgeDependent = (m_passes.ranges ? *m_passes.ranges : rangePass()).paint(p, state);
            break;
        }
    }
    paintSeparator(p, rect, clipX0, clipX1);
    p.restore();
    return edgeDependent;
}

// The separator as a one-row rectangle where a logical pixel is a device pixel: the same pixels as the
// cosmetic line along the lane's bottom row, but a memory fill instead of the line rasteriser (which cost
// more than the rest of a sparse lane, 21 lanes a frame).
void TimelinePainter::paintSeparator(QPainter &p, const QRect &rect, int clipX0, int clipX1) const
{
    if (rasterAtWholePixels(p)) {
        p.fillRect(QRect(clipX0, rect.bottom(), clipX1 - clipX0, 1), m_ctx.palette->separator());
    } else {
        p.setPen(QPen(m_ctx.palette->separator(), 0));
        p.drawLine(QPointF(clipX0, rect.bottom() + 0.5), QPointF(clipX1, rect.bottom() + 0.5));
    }
}

void TimelinePainter::paintHeaders(QPainter &p, const TimelineLayout &layout) const
{
    HeaderPass(m_ctx).paintHeaders(p, layout);
}

void TimelinePainter::paintTitle(QPainter &p, const TimelineLayout &layout) const
{
    HeaderPass(m_ctx).paintTitle(p, layout);
}

void TimelinePainter::paintSticky(QPainter &p, const TimelineLayout &layout) const
{
    HeaderPass(m_ctx).paintSticky(p, layout);
}

void TimelinePainter::paintRuler(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                                 const TimelineOverlay &overlay) const
{
    RulerPass(m_ctx).paintRuler(p, layout, mapping, overlay);
}

void TimelinePainter::paintLegend(QPainter &p, const TimelineLayout &layout) const
{
    LegendPass(m_ctx).paintLegend(p, layout);
}

void TimelinePainter::paintOverlay(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                                   const TimelineOverlay &overlay) const
{
    OverlayPass(m_ctx).paintOverlay(p, layout, mapping, overlay);
}

} // namespace streamscope::ui
