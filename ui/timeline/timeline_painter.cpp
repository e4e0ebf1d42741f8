// TimelinePainter: layout, the grid, lane dispatch and bar geometry; the passes live in
// timeline_painter_{intervals,columns,frame}.cpp (see timeline_painter_p.h).
#include "ui/timeline/timeline_painter.h"
#include "ui/common/format_units.h"
#include "ui/timeline/timeline_painter_p.h"

#include <QFontMetrics>
#include <QImage>
#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>

#include "engine/analysis/analysis.h"
#include "engine/model/op_colors.h"
#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"

namespace streamscope::ui {

using engine::OpKind;
using namespace painter_detail;

namespace painter_detail {

bool rasterAtWholePixels(const QPainter &p)
{
    // deviceTransform includes the device pixel ratio, which transform() leaves out.
    const QTransform t = p.deviceTransform();
    return p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster && p.device()
           && p.device()->devicePixelRatio() == 1 && t.type() <= QTransform::TxTranslate && t.dx() == std::floor(t.dx())
           && t.dy() == std::floor(t.dy()) && !p.testRenderHint(QPainter::Antialiasing);
}

void gridColumns(const TimeMapping &mapping, int clipX0, int clipX1, std::vector<int> &out)
{
    out.clear();
    const qint64 step = rulerStepNs(mapping.nsPerPixel(), TimelinePainter::kTickSpacingPixels);
    for (const qint64 t : tickTimes(mapping.toNs(double(clipX0) - 1), mapping.toNs(double(clipX1) + 1), step))
        if (mapping.toX(t) < clipX1 + 1)
            out.push_back(int(std::floor(mapping.toX(t))));
}

} // namespace painter_detail

TimelinePainter::CacheHolder::CacheHolder() : m_caches(std::make_unique<Caches>())
{
}

TimelinePainter::CacheHolder::~CacheHolder() = default;
TimelinePainter::CacheHolder::CacheHolder(CacheHolder &&) noexcept = default;
TimelinePainter::CacheHolder &TimelinePainter::CacheHolder::operator=(CacheHolder &&) noexcept = default;

void TimelinePainter::CacheHolder::reset()
{
    m_caches = std::make_unique<Caches>();
}

void TimelinePainter::setModel(const LaneModel *model)
{
    m_model = model;
    m_caches->labels = {};
    m_tree = nullptr;
    m_rows.clear();
    m_labels.clear();
    for (int i = 0; model && i < model->laneCount(); ++i) {
        m_rows.push_back({i, -1, 0, false, false});
        m_labels.push_back(model->lane(i).title);
    }
    m_fittedWidth = fittedLabelWidth();
}

void TimelinePainter::setRows(const LaneTree *tree, std::vector<LaneRow> rows, std::vector<QString> labels)
{
    m_tree = tree;
    m_rows = std::move(rows);
    m_labels = std::move(labels);
    m_fittedWidth = fittedLabelWidth();
}

int TimelinePainter::fittedLabelWidth() const
{
    const QFontMetrics fm(m_metrics.font);
    const QFontMetrics sm(m_metrics.smallFont);
    int widest = 0;
    for (const LaneRow &row : m_rows) {
        int w = row.depth * m_metrics.indent;
        if (row.isGroup()) {
            const LaneGroup &g = m_tree->group(row.group);
            QFont bold = m_metrics.font;
            bold.setBold(true);
            w += m_metrics.indent + QFontMetrics(bold).horizontalAdvance(g.title);
        } else if (row.lane >= 0 && std::size_t(row.lane) < m_labels.size()) {
            w += std::max(fm.horizontalAdvance(m_labels[std::size_t(row.lane)]),
                          sm.horizontalAdvance(m_model->lane(row.lane).subtitle));
            if (row.pinned)
                w += m_metrics.indent;
            if (row.fold != LaneRow::Fold::None)
                w += m_metrics.indent;
            if (row.foldedRows > 0)
                w += fm.horizontalAdvance(QStringLiteral(" · +%1 folded").arg(row.foldedRows));
        }
        widest = std::max(widest, w);
    }
    return widest == 0 ? 0 : widest + 24; // margins and a derived lane's colour key
}

void TimelinePainter::setMetrics(const TimelineMetrics &metrics)
{
    m_metrics = metrics;
    m_caches->labels = {};
    m_fittedWidth = fittedLabelWidth();
}

TimelineMetrics TimelineMetrics::make(bool presentation, const QFont &base)
{
    TimelineMetrics m;
    m.font = base;
    if (m.font.pointSizeF() <= 0)
        m.font.setPixelSize(std::max(9, m.font.pixelSize()));
    if (presentation) {
        if (m.font.pointSizeF() > 0)
            m.font.setPointSizeF(m.font.pointSizeF() * 1.45);
        else
            m.font.setPixelSize(int(m.font.pixelSize() * 1.45));
        m.font.setWeight(QFont::DemiBold);
    }
    m.smallFont = m.font;
    if (m.smallFont.pointSizeF() > 0)
        m.smallFont.setPointSizeF(m.font.pointSizeF() * 0.86);
    else
        m.smallFont.setPixelSize(std::max(8, int(m.font.pixelSize() * 0.86)));
    m.smallFont.setWeight(presentation ? QFont::Medium : QFont::Normal);
    const QFontMetrics fm(m.font);
    const QFontMetrics sm(m.smallFont);
    const int line = fm.height();
    // A lane holds a title and a subtitle in the header; bars get one line of label with a margin.
    m.streamLaneHeight = std::max(presentation ? 40 : 28, line + sm.height() + 6);
    m.hostLaneHeight = std::max(presentation ? 36 : 24, int(m.streamLaneHeight * 0.85));
    m.counterLaneHeight = m.streamLaneHeight;
    m.bandwidthLaneHeight = int(m.streamLaneHeight * 2.2);
    m.rangeLaneHeight = std::max(presentation ? 22 : 15, line + 3);
    m.rulerHeight = sm.height() + (presentation ? 16 : 12);
    m.legendHeight = sm.height() + 10;
    m.headerWidth = std::max(150, fm.horizontalAdvance(QStringLiteral("x")) * 24);
    m.groupHeaderHeight = std::max(presentation ? 26 : 18, line + 4);
    m.indent = std::max(10, fm.horizontalAdvance(QStringLiteral("x")) * 2);
    m.minLaneHeight = std::max(10, sm.height() / 2 + 4);
    m.readableLaneHeight = line + 2;
    return m;
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
    copy.m_metrics.font = detachedFont(m_metrics.font);
    copy.m_metrics.smallFont = detachedFont(m_metrics.smallFont);
    copy.m_stats = {};
    // The copy's caches start empty (CacheHolder): each copy measures with its own fonts.
    return copy;
}

long long TimelinePainter::laneWorkEstimate(int row, const TimeMapping &mapping, int clipX0, int clipX1) const
{
    if (!m_model || row < 0 || std::size_t(row) >= m_rows.size() || clipX1 <= clipX0)
        return 0;
    long long work = clipX1 - clipX0;
    const int laneIndex = m_rows[std::size_t(row)].lane;
    if (laneIndex < 0)
        return work * 4; // a group's summary: columns like a counter lane
    const Lane &lane = m_model->lane(laneIndex);
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

int TimelineLayout::laneAt(int y) const
{
    for (const Sticky &s : sticky)
        if (y >= s.rect.top() && y <= s.rect.bottom())
            return s.row;
    // Rows scrolled out of view are not under any point (the ruler and the legend lie over them).
    if (contentHeight > 0 && (y < plot.top() || y > plot.bottom()))
        return -1;
    for (std::size_t i = 0; i < lanes.size(); ++i)
        if (y >= lanes[i].top() && y <= lanes[i].bottom())
            return int(i);
    return -1;
}

int TimelineLayout::scrollToShow(int row) const
{
    if (row < 0 || std::size_t(row) >= lanes.size() || maxScrollY <= 0)
        return scrollY;
    const QRect r = lanes[std::size_t(row)];
    // The sticky headers above a row cover the top of the view: at most one per level of the tree, so
    // the row goes below the headers that would be sticky over it.
    int covered = 0;
    for (int i = row - 1, depth = rows[std::size_t(row)].depth; i >= 0 && depth > 0; --i)
        if (rows[std::size_t(i)].isGroup() && rows[std::size_t(i)].depth < depth) {
            covered += lanes[std::size_t(i)].height();
            depth = rows[std::size_t(i)].depth;
        }
    const int top = plot.top() + covered;
    int y = scrollY;
    if (r.top() < top)
        y -= top - r.top();
    else if (r.bottom() > plot.bottom())
        y += std::min(r.bottom() - plot.bottom(), r.top() - top);
    return std::clamp(y, 0, maxScrollY);
}

int TimelinePainter::rowHeight(const LaneRow &row) const
{
    if (row.isGroup())
        return row.collapsed ? m_metrics.streamLaneHeight : m_metrics.groupHeaderHeight;
    return nominalHeight(m_model->lane(row.lane));
}

int TimelinePainter::nominalHeight(const Lane &lane) const
{
    switch (lane.kind) {
    case LaneKind::HostThread: return m_metrics.hostLaneHeight;
    case LaneKind::Stream:
    case LaneKind::CopyEngine: return m_metrics.streamLaneHeight;
    case LaneKind::Migration:
    case LaneKind::PageFaults: return m_metrics.counterLaneHeight;
    case LaneKind::H2DActivity:
    case LaneKind::D2HActivity:
    case LaneKind::D2DActivity:
    case LaneKind::ComputeActivity: return m_metrics.counterLaneHeight;
    case LaneKind::Bandwidth:
    case LaneKind::PeerLink: return m_metrics.bandwidthLaneHeight;
    case LaneKind::HostRanges:
    case LaneKind::NvtxProjection: return m_metrics.rangeLaneHeight;
    }
    return m_metrics.streamLaneHeight;
}

TimelineLayout TimelinePainter::layout(const QRect &target) const
{
    TimelineLayout l;
    l.target = target;
    const int rulerHeight = m_metrics.showRuler ? m_metrics.rulerHeight : 0;
    const int legendHeight = m_metrics.showLegend ? m_metrics.legendHeight : 0;
    // The user's width, else the mode's, widened to show the labels whole up to a quarter of the target.
    const int headerWidth = m_labelWidth > 0
                                ? std::clamp(m_labelWidth, 60, std::max(60, target.width() * 2 / 3))
                                : std::max(std::min(m_metrics.headerWidth, std::max(60, target.width() / 3)),
                                           std::min(m_fittedWidth, std::max(60, target.width() / 4)));
    l.corner = QRect(target.left(), target.top(), headerWidth, rulerHeight);
    l.ruler = QRect(target.left() + headerWidth, target.top(), std::max(1, target.width() - headerWidth), rulerHeight);
    int lanesTop = target.top() + rulerHeight;
    if (!m_metrics.groupTitle.isEmpty()) {
        // A compact view's title: one line of bold text above its lanes, across the whole width.
        QFont bold = m_metrics.font;
        bold.setBold(true);
        const int height = QFontMetrics(bold).height() + 6;
        l.title = QRect(target.left(), lanesTop, target.width(), height);
        lanesTop += height;
    }
    const int available = std::max(0, target.bottom() + 1 - lanesTop - legendHeight);

    const int count = m_model ? int(m_rows.size()) : 0;
    if (m_model) {
        l.rows = m_rows;
        l.rowOfLane.assign(std::size_t(m_model->laneCount()), -1);
        for (int r = 0; r < count; ++r)
            if (m_rows[std::size_t(r)].lane >= 0)
                l.rowOfLane[std::size_t(m_rows[std::size_t(r)].lane)] = r;
    }
    std::vector<int> heights(static_cast<std::size_t>(count));
    int total = 0;
    for (int i = 0; i < count; ++i) {
        const LaneRow &row = m_rows[std::size_t(i)];
        // A compact view shows only some kinds of lane (its groups are its own header).
        const bool shown = row.lane < 0 ? m_metrics.groupTitle.isEmpty()
                                        : ((m_metrics.laneKinds >> unsigned(m_model->lane(row.lane).kind)) & 1u) != 0;
        heights[std::size_t(i)] = shown ? rowHeight(row) : 0;
        total += heights[std::size_t(i)];
    }
    if (total > available && total > 0) {
        // Many streams: shrink every lane alike rather than hide some below the fold. An open group's
        // header keeps its height while the lanes can give up enough: it is one line of bold title (a
        // GPU, a process), and shrunk with the lanes it was cut in half (two GPUs' traces at 720p).
        int headers = 0;
        for (int i = 0; i < count; ++i)
            if (m_rows[std::size_t(i)].isGroup() && !m_rows[std::size_t(i)].collapsed)
                headers += heights[std::size_t(i)];
        const bool keepHeaders = headers > 0 && available - headers >= (total - headers) / 4;
        const auto fixed = [&](int i) {
            return keepHeaders && m_rows[std::size_t(i)].isGroup() && !m_rows[std::size_t(i)].collapsed;
        };
        // Below the minimum rather than below the fold when even that does not fit (32 streams in
        // presentation mode at 720p): the headers size their titles to such lanes. A scrolling view
        // keeps a readable height instead, and scrolls.
        const int shown = int(std::count_if(heights.begin(), heights.end(), [](int h) { return h > 0; }));
        const int minimum = m_metrics.scrollable
                                ? std::max(m_metrics.minLaneHeight, m_metrics.readableLaneHeight)
                                : std::min(m_metrics.minLaneHeight, std::max(4, shown > 0 ? available / shown : 0));
        // The lanes that the common factor would take below the minimum get the minimum, and the others
        // share what is left: a few passes find the factor at which everything fits.
        std::vector<char> atMinimum(std::size_t(count), 0);
        double scale = 1;
        for (int pass = 0; pass < 8; ++pass) {
            int scalable = 0, rest = available;
            for (int i = 0; i < count; ++i) {
                const int h = heights[std::size_t(i)];
                if (h == 0)
                    continue;
                if (fixed(i))
                    rest -= h;
                else if (atMinimum[std::size_t(i)])
                    rest -= minimum;
                else
                    scalable += h;
            }
            scale = scalable > 0 ? std::max(0.0, double(rest) / scalable) : 1;
            bool changed = false;
            for (int i = 0; i < count; ++i)
                if (heights[std::size_t(i)] > 0 && !fixed(i) && !atMinimum[std::size_t(i)]
                    && heights[std::size_t(i)] * scale < minimum) {
                    atMinimum[std::size_t(i)] = 1;
                    changed = true;
                }
            if (!changed)
                break;
        }
        int used = 0, last = -1;
        for (int i = 0; i < count; ++i) {
            auto &h = heights[std::size_t(i)];
            if (h == 0)
                continue;
            if (!fixed(i))
                h = atMinimum[std::size_t(i)] ? std::min(h, minimum)
                                              : std::max(std::min(h, minimum), int(std::floor(h * scale)));
            used += h;
            last = i;
        }
        // The rounding down goes to the lanes where the picture fills its target: a pixel more each
        // from the bottom up (32 streams rounded down left a last lane four times the others').
        if (m_metrics.fillHeight && last >= 0 && used < available) {
            int left = available - used;
            for (int pass = 0; left > 0 && pass < 64; ++pass)
                for (int i = last; i >= 0 && left > 0; --i)
                    if (heights[std::size_t(i)] > 0 && !fixed(i)) {
                        ++heights[std::size_t(i)];
                        --left;
                    }
            heights[std::size_t(last)] += left;
        }
    } else if (m_metrics.fillHeight && total > 0 && total < available) {
        // Few lanes on a slide: each grows by the same factor, the last takes the rounding.
        const double scale = double(available) / total;
        int used = 0, last = -1;
        for (int i = 0; i < count; ++i) {
            auto &h = heights[std::size_t(i)];
            if (h == 0)
                continue;
            h = int(std::floor(h * scale));
            used += h;
            last = i;
        }
        if (last >= 0)
            heights[std::size_t(last)] += available - used;
    }
    const int content = std::accumulate(heights.begin(), heights.end(), 0);
    if (m_metrics.scrollable) {
        l.contentHeight = content;
        l.maxScrollY = std::max(0, content - available);
        l.scrollY = std::clamp(m_scrollY, 0, l.maxScrollY);
    }
    int y = lanesTop - l.scrollY;
    for (int i = 0; i < count; ++i) {
        l.lanes.emplace_back(l.ruler.left(), y, l.ruler.width(), heights[std::size_t(i)]);
        y += heights[std::size_t(i)];
    }
    // The visible part of the rows.
    const int visible = m_metrics.scrollable ? std::min(content, available) : y - lanesTop;
    l.headers = QRect(target.left(), lanesTop, headerWidth, visible);
    l.plot = QRect(l.ruler.left(), lanesTop, l.ruler.width(), visible);
    const int legendTop =
        std::min(lanesTop + visible + (m_metrics.fillHeight ? 0 : 2), target.bottom() + 1 - legendHeight);
    l.legend = QRect(target.left(), std::max(lanesTop, legendTop), target.width(), legendHeight);
    if (l.scrollY > 0) {
        // Sticky headers: an open group whose header is scrolled above the top while some of its rows
        // are in view keeps its header at the top (nested groups stack under their parent's), pushed
        // up by the group's end as it leaves.
        int top = lanesTop;
        for (int i = 0; i < count; ++i) {
            const LaneRow &row = m_rows[std::size_t(i)];
            if (!row.isGroup() || row.collapsed || heights[std::size_t(i)] == 0 || l.lanes[std::size_t(i)].top() >= top)
                continue;
            int end = i;
            while (end + 1 < count && m_rows[std::size_t(end) + 1].depth > row.depth)
                ++end;
            const int spanBottom = l.lanes[std::size_t(end)].bottom() + 1;
            const int h = heights[std::size_t(i)];
            if (end == i || spanBottom <= top + 1)
                continue;
            const int at = std::min(top, spanBottom - h);
            l.sticky.push_back({i, QRect(target.left(), at, l.plot.right() + 1 - target.left(), h)});
            top = at + h;
        }
    }
    return l;
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

void TimelinePainter::paintSticky(QPainter &p, const TimelineLayout &layout) const
{
    if (layout.sticky.empty())
        return;
    // The headers as paintHeaders draws them, and the group's row in the plot, at their sticky place.
    TimelineLayout s;
    s.target = layout.target;
    int top = layout.sticky.front().rect.top(), bottom = top;
    for (const TimelineLayout::Sticky &st : layout.sticky) {
        s.rows.push_back(layout.rows[std::size_t(st.row)]);
        s.lanes.emplace_back(layout.plot.left(), st.rect.top(), layout.plot.width(), st.rect.height());
        top = std::min(top, st.rect.top());
        bottom = std::max(bottom, st.rect.bottom() + 1);
    }
    s.headers = QRect(layout.headers.left(), top, layout.headers.width(), bottom - top);
    s.plot = QRect(layout.plot.left(), top, layout.plot.width(), bottom - top);
    p.save();
    p.setClipRect(layout.headers.united(layout.plot).adjusted(0, 0, 0, 1));
    // An open group's row in the plot is its header's colour with the separator under it.
    for (const QRect &lr : s.lanes) {
        p.fillRect(lr, m_palette->headerBackground());
        p.setPen(QPen(m_palette->separator(), 0));
        p.drawLine(QPointF(lr.left(), lr.bottom() + 0.5), QPointF(lr.right() + 1, lr.bottom() + 0.5));
    }
    paintHeaders(p, s);
    p.restore();
}

void TimelinePainter::paintBackground(QPainter &p, const TimelineLayout &layout) const
{
    if (m_metrics.transparentBackground)
        return;
    p.fillRect(layout.target, m_palette->background());
}

void TimelinePainter::paintGrid(QPainter &p, const QRect &rect, const TimeMapping &mapping, int clipX0,
                                int clipX1) const
{
    p.setPen(QPen(m_palette->grid(), 0));
    thread_local std::vector<int> columns;
    gridColumns(mapping, clipX0, clipX1, columns);
    // A one-pixel column fill is the line's pixels (the lane's rows, the row below is clipped away)
    // without the line rasteriser, 21 lanes times a dozen ticks a frame.
    const bool fill = rasterAtWholePixels(p);
    for (const int column : columns) {
        const double x = column + 0.5;
        if (fill)
            p.fillRect(QRect(column, rect.top(), 1, rect.height()), m_palette->grid());
        else
            p.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom() + 1));
    }
}

bool TimelinePainter::paintLane(QPainter &p, int rowIndex, const QRect &rect, const TimeMapping &mapping, int clipX0,
                                int clipX1) const
{
    if (!m_model || rowIndex < 0 || std::size_t(rowIndex) >= m_rows.size() || clipX1 <= clipX0)
        return false;
    bool edgeDependent = false;
    const LaneRow &row = m_rows[std::size_t(rowIndex)];
    p.save();
    const QRect strip(clipX0, rect.top(), clipX1 - clipX0, rect.height());
    p.setClipRect(strip);
    const QColor background = row.isGroup() ? m_palette->headerBackground() : m_palette->laneBackground(rowIndex);
    p.fillRect(strip, background);
    paintGrid(p, rect, mapping, clipX0, clipX1);
    if (row.isGroup()) {
        paintGroupRow(p, row, rect, background, mapping, clipX0, clipX1);
        if (rasterAtWholePixels(p)) {
            p.fillRect(QRect(clipX0, rect.bottom(), clipX1 - clipX0, 1), m_palette->separator());
        } else {
            p.setPen(QPen(m_palette->separator(), 0));
            p.drawLine(QPointF(clipX0, rect.bottom() + 0.5), QPointF(clipX1, rect.bottom() + 0.5));
        }
        p.restore();
        return false;
    }
    const Lane &lane = m_model->lane(row.lane);
    switch (lane.kind) {
    case LaneKind::HostThread:
    case LaneKind::Stream:
    case LaneKind::CopyEngine:
    case LaneKind::Migration:
    case LaneKind::PageFaults:
        if (lane.queued.size() > 0)
            paintQueued(p, lane, rect, background, mapping, clipX0, clipX1);
        edgeDependent = paintIntervals(p, lane, rect, mapping, clipX0, clipX1);
        if (m_showSlowdown && lane.slowed.size() > 0)
            paintSlowed(p, lane, rect, mapping, clipX0, clipX1);
        break;
    case LaneKind::H2DActivity:
    case LaneKind::D2HActivity:
    case LaneKind::D2DActivity:
    case LaneKind::ComputeActivity: paintCounter(p, lane, rect, background, mapping, clipX0, clipX1); break;
    case LaneKind::Bandwidth:
    case LaneKind::PeerLink: paintBandwidth(p, lane, rect, background, mapping, clipX0, clipX1); break;
    case LaneKind::HostRanges:
    case LaneKind::NvtxProjection: edgeDependent = paintRanges(p, lane, rect, mapping, clipX0, clipX1); break;
    }
    // The separator as a one-row rectangle where a logical pixel is a device pixel: the same pixels as
    // the cosmetic line along the lane's bottom row, but a memory fill instead of the line rasteriser
    // (which cost more than the rest of a sparse lane, 21 lanes a frame).
    if (rasterAtWholePixels(p)) {
        p.fillRect(QRect(clipX0, rect.bottom(), clipX1 - clipX0, 1), m_palette->separator());
    } else {
        p.setPen(QPen(m_palette->separator(), 0));
        p.drawLine(QPointF(clipX0, rect.bottom() + 0.5), QPointF(clipX1, rect.bottom() + 0.5));
    }
    p.restore();
    return edgeDependent;
}

QRectF TimelinePainter::gpuBarRect(const TimelineLayout &layout, const TimeMapping &mapping, int opIndex) const
{
    if (!m_model || opIndex < 0 || opIndex >= m_model->opCount())
        return {};
    const auto &op = m_model->op(opIndex);
    const int lane = layout.rowOf(m_model->streamLane(op.stream));
    if (!op.hasGpu() || lane < 0 || std::size_t(lane) >= layout.lanes.size())
        return {};
    const QRect lr = layout.lanes[std::size_t(lane)];
    const double pad = lr.height() >= 16 ? 3 : 1;
    const double x0 = mapping.toX(m_model->gpuStart(op));
    const double x1 = std::max(mapping.toX(m_model->gpuEnd(op)), x0 + 1);
    return QRectF(x0, lr.top() + pad, x1 - x0, lr.height() - 2 * pad - 1);
}

QRectF TimelinePainter::hostBarRect(const TimelineLayout &layout, const TimeMapping &mapping, int opIndex) const
{
    if (!m_model || opIndex < 0 || opIndex >= m_model->opCount())
        return {};
    const auto &op = m_model->op(opIndex);
    const int threads = int(m_model->trace().hostThreads.size());
    const int lane =
        layout.rowOf(m_model->hostLane(op.hostThread >= 0 && op.hostThread < threads ? op.hostThread : -1));
    if (!op.hasHost() || lane < 0 || std::size_t(lane) >= layout.lanes.size())
        return {};
    const QRect lr = layout.lanes[std::size_t(lane)];
    const double pad = lr.height() >= 16 ? 3 : 1;
    const double x0 = mapping.toX(m_model->hostStart(op));
    const double x1 = std::max(mapping.toX(m_model->hostEnd(op)), x0 + 1);
    return QRectF(x0, lr.top() + pad, x1 - x0, lr.height() - 2 * pad - 1);
}

TimelinePainter::Flows TimelinePainter::flowsInView(const TimelineLayout &layout, const TimeMapping &mapping,
                                                    int cap) const
{
    Flows out;
    if (!m_model)
        return out;
    const int threads = int(m_model->trace().hostThreads.size());
    auto hostRow = [&](const engine::OpRecord &o) {
        return layout.rowOf(m_model->hostLane(o.hostThread >= 0 && o.hostThread < threads ? o.hostThread : -1));
    };
    auto gpuInWindow = [&](const engine::OpRecord &o) {
        return m_model->gpuEnd(o) >= mapping.startNs && m_model->gpuStart(o) < mapping.endNs;
    };
    // Each flow once: from its stream's lane when its GPU part is in the window, else from its
    // thread's lane (its call is in the window, its GPU part is not).
    for (std::size_t r = 0; r < layout.rows.size(); ++r) {
        const int laneIndex = layout.rows[r].lane;
        if (laneIndex < 0)
            continue;
        const Lane &lane = m_model->lane(laneIndex);
        const bool stream = lane.kind == LaneKind::Stream;
        if (!stream && lane.kind != LaneKind::HostThread)
            continue;
        const auto [first, last] = lane.intervals.visible(mapping.startNs, mapping.endNs);
        for (std::size_t k = first; k < last; ++k) {
            if (lane.intervals.ends[k] < mapping.startNs)
                continue; // under the running maximum, not itself in view
            const int op = lane.intervals.ops[k];
            const engine::OpRecord &o = m_model->op(op);
            if (!o.hasGpu() || !o.hasHost())
                continue;
            if (stream ? hostRow(o) < 0 : (gpuInWindow(o) || layout.rowOf(m_model->streamLane(o.stream)) < 0))
                continue;
            if (int(out.ops.size()) > cap) {
                out.capped = true;
                return out;
            }
            out.ops.push_back(op);
        }
    }
    out.capped = int(out.ops.size()) > cap;
    return out;
}

} // namespace streamscope::ui
