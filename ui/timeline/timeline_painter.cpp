// TimelinePainter: layout and drawing of the timeline, independent of any widget.
#include "ui/timeline/timeline_painter.h"
#include "ui/common/format_units.h"

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

#include "engine/analysis/analysis.h"
#include "engine/model/op_colors.h"
#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"

namespace streamscope::ui {

using engine::OpKind;

namespace {

// First index in [from, to) whose value is not less than (upper: greater than) `value`, searching
// outwards from `from`: painting walks forward through sorted arrays in small steps (the ops of one pixel
// column), so an exponential search touches a few nearby cache lines where a binary search over the
// whole lane would miss the cache a dozen times per column.
template <bool Upper> std::size_t gallop(const std::vector<qint64> &v, std::size_t from, std::size_t to, qint64 value)
{
    auto before = [&](std::size_t i) { return Upper ? v[i] <= value : v[i] < value; };
    if (from >= to || !before(from))
        return from;
    std::size_t lo = from, step = 1; // invariant: before(lo)
    while (lo + step < to && before(lo + step)) {
        lo += step;
        step *= 2;
    }
    const std::size_t hi = std::min(to, lo + step);
    const auto first = v.begin() + std::ptrdiff_t(lo + 1), last = v.begin() + std::ptrdiff_t(hi);
    return std::size_t((Upper ? std::upper_bound(first, last, value) : std::lower_bound(first, last, value))
                       - v.begin());
}

// True when p paints with the raster engine, unscaled, at a whole-pixel offset and without
// antialiasing: there a logical pixel is a device pixel and rectangles with integer edges are exactly the
// pixels that an aliased cosmetic line or a fillRect(QRectF) rounded by the engine would touch.
bool rasterAtWholePixels(const QPainter &p)
{
    // deviceTransform includes the device pixel ratio, which transform() leaves out.
    const QTransform t = p.deviceTransform();
    return p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster && p.device()
           && p.device()->devicePixelRatio() == 1 && t.type() <= QTransform::TxTranslate && t.dx() == std::floor(t.dx())
           && t.dy() == std::floor(t.dy()) && !p.testRenderHint(QPainter::Antialiasing);
}

// The pixel columns of the grid ticks that touch the strip [clipX0, clipX1) (one may lie just outside it;
// the strip's clip drops it). paintGrid draws them and the derived lanes blend over them.
void gridColumns(const TimeMapping &mapping, int clipX0, int clipX1, std::vector<int> &out)
{
    out.clear();
    const qint64 step = rulerStepNs(mapping.nsPerPixel(), TimelinePainter::kTickSpacingPixels);
    const qint64 from = firstTickAtOrAfter(mapping.toNs(double(clipX0) - 1), step);
    for (qint64 t = from; mapping.toX(t) < clipX1 + 1; t += step)
        out.push_back(int(std::floor(mapping.toX(t))));
}

} // namespace

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
    m.rulerHeight = sm.height() + (presentation ? 16 : 12);
    m.legendHeight = sm.height() + 10;
    m.headerWidth = std::max(150, fm.horizontalAdvance(QStringLiteral("x")) * 24);
    m.minLaneHeight = std::max(10, sm.height() / 2 + 4);
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
    // The cached names are QStrings shared with this painter's cache; implicit sharing's reference
    // counts are atomic, but start empty anyway: each copy measures with its own fonts.
    copy.m_labels = {};
    return copy;
}

long long TimelinePainter::laneWorkEstimate(int laneIndex, const TimeMapping &mapping, int clipX0, int clipX1) const
{
    if (!m_model || laneIndex < 0 || laneIndex >= m_model->laneCount() || clipX1 <= clipX0)
        return 0;
    const Lane &lane = m_model->lane(laneIndex);
    long long work = clipX1 - clipX0;
    if (isIntervalLane(lane.kind)) {
        const auto [first, last] =
            lane.intervals.visible(mapping.toNs(double(clipX0) - 2), mapping.toNs(double(clipX1) + 2));
        work += (long long)(last - first);
    } else {
        // Derived lanes cost a search and a min/max per column and layer.
        work *= lane.kind == LaneKind::Bandwidth ? 8 : 4;
    }
    return work;
}

int TimelineLayout::laneAt(int y) const
{
    for (std::size_t i = 0; i < lanes.size(); ++i)
        if (y >= lanes[i].top() && y <= lanes[i].bottom())
            return int(i);
    return -1;
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
    case LaneKind::ComputeActivity: return m_metrics.counterLaneHeight;
    case LaneKind::Bandwidth: return m_metrics.bandwidthLaneHeight;
    }
    return m_metrics.streamLaneHeight;
}

TimelineLayout TimelinePainter::layout(const QRect &target) const
{
    TimelineLayout l;
    l.target = target;
    const int headerWidth = std::min(m_metrics.headerWidth, std::max(60, target.width() / 3));
    l.corner = QRect(target.left(), target.top(), headerWidth, m_metrics.rulerHeight);
    l.ruler = QRect(target.left() + headerWidth, target.top(), std::max(1, target.width() - headerWidth),
                    m_metrics.rulerHeight);
    const int lanesTop = l.ruler.bottom() + 1;
    const int available = std::max(0, target.bottom() + 1 - lanesTop - m_metrics.legendHeight);

    const int count = m_model ? m_model->laneCount() : 0;
    std::vector<int> heights(static_cast<std::size_t>(count));
    int total = 0;
    for (int i = 0; i < count; ++i) {
        heights[std::size_t(i)] = nominalHeight(m_model->lane(i));
        total += heights[std::size_t(i)];
    }
    if (total > available && total > 0) {
        // Many streams: shrink every lane alike rather than hide some below the fold.
        const double scale = double(available) / total;
        for (auto &h : heights)
            h = std::max(m_metrics.minLaneHeight, int(std::floor(h * scale)));
    }
    int y = lanesTop;
    for (int i = 0; i < count; ++i) {
        l.lanes.emplace_back(l.ruler.left(), y, l.ruler.width(), heights[std::size_t(i)]);
        y += heights[std::size_t(i)];
    }
    l.headers = QRect(target.left(), lanesTop, headerWidth, y - lanesTop);
    l.plot = QRect(l.ruler.left(), lanesTop, l.ruler.width(), y - lanesTop);
    const int legendTop = std::min(y + 2, target.bottom() + 1 - m_metrics.legendHeight);
    l.legend = QRect(target.left(), std::max(lanesTop, legendTop), target.width(), m_metrics.legendHeight);
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
    for (int i = 0; i < int(layout.lanes.size()); ++i)
        paintLane(p, i, layout.lanes[std::size_t(i)], mapping, layout.plot.left(), layout.plot.right() + 1);
    paintHeaders(p, layout);
    paintRuler(p, layout, mapping, overlay);
    paintLegend(p, layout);
    paintOverlay(p, layout, mapping, overlay);
}

void TimelinePainter::paintBackground(QPainter &p, const TimelineLayout &layout) const
{
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

bool TimelinePainter::paintLane(QPainter &p, int laneIndex, const QRect &rect, const TimeMapping &mapping, int clipX0,
                                int clipX1) const
{
    if (!m_model || laneIndex < 0 || laneIndex >= m_model->laneCount() || clipX1 <= clipX0)
        return false;
    bool edgeDependent = false;
    const Lane &lane = m_model->lane(laneIndex);
    p.save();
    const QRect strip(clipX0, rect.top(), clipX1 - clipX0, rect.height());
    p.setClipRect(strip);
    const QColor background = m_palette->laneBackground(laneIndex);
    p.fillRect(strip, background);
    paintGrid(p, rect, mapping, clipX0, clipX1);
    switch (lane.kind) {
    case LaneKind::HostThread:
    case LaneKind::Stream:
    case LaneKind::CopyEngine:
    case LaneKind::Migration:
    case LaneKind::PageFaults:
        if (lane.queued.size() > 0)
            paintQueued(p, lane, rect, background, mapping, clipX0, clipX1);
        edgeDependent = paintIntervals(p, lane, rect, mapping, clipX0, clipX1);
        break;
    case LaneKind::H2DActivity:
    case LaneKind::D2HActivity:
    case LaneKind::ComputeActivity: paintCounter(p, lane, rect, background, mapping, clipX0, clipX1); break;
    case LaneKind::Bandwidth: paintBandwidth(p, lane, rect, background, mapping, clipX0, clipX1); break;
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

void TimelinePainter::paintQueued(QPainter &p, const Lane &lane, const QRect &rect, const QColor &background,
                                  const TimeMapping &mapping, int clipX0, int clipX1) const
{
    const IntervalLane &q = lane.queued;
    const double pad = rect.height() >= 16 ? 3 : 1;
    // A little inside the bars' height, so the solid bar that follows reads as the op itself.
    const double top = rect.top() + pad + 1;
    const double height = rect.height() - 2 * pad - 3;
    const auto [first, last] = q.visible(mapping.toNs(double(clipX0) - 2), mapping.toNs(double(clipX1) + 2));
    double coveredTo = -std::numeric_limits<double>::infinity();
    for (std::size_t k = first; k < last; ++k) {
        const double x0 = std::max(double(clipX0) - 1, std::floor(mapping.toX(q.starts[k])));
        const double x1 = std::min(double(clipX1) + 1, std::round(mapping.toX(q.ends[k])));
        if (x1 - x0 < 2 || x1 <= coveredTo)
            continue; // under two pixels there is nothing to see but the bar
        coveredTo = x1;
        const QColor c = m_palette->opColor(engine::OpKind(q.styles[k] & IntervalLane::kKindMask));
        // The light fill is the op's colour at a fifth over the lane, as an opaque colour (the same
        // pixels on every device and in SVG).
        const QColor fill =
            QColor::fromRgbF(background.redF() * 0.8f + c.redF() * 0.2f, background.greenF() * 0.8f + c.greenF() * 0.2f,
                             background.blueF() * 0.8f + c.blueF() * 0.2f);
        const QRectF r(x0, top, x1 - x0, height);
        p.fillRect(r, fill);
        p.setPen(QPen(c, 1, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
    }
}

bool TimelinePainter::paintIntervals(QPainter &p, const Lane &lane, const QRect &rect, const TimeMapping &mapping,
                                     int clipX0, int clipX1) const
{
    const IntervalLane &iv = lane.intervals;
    if (iv.size() == 0)
        return false;
    bool edgeDependent = false;
    const bool host = lane.kind == LaneKind::HostThread;
    const bool activities = isActivityLane(lane.kind);
    const double pad = rect.height() >= 16 ? 3 : 1;
    const double fullTop = rect.top() + pad;
    const double fullHeight = rect.height() - 2 * pad - 1;
    // Host calls that do not block are drawn half height; blocking ones full height and hatched, so a
    // "cudaMemcpyAsync" that in fact held the thread stands out at a glance.
    const double thinTop = fullTop + std::round(fullHeight * 0.25);
    const double thinHeight = std::round(fullHeight * 0.5);
    const QFontMetrics fm(m_metrics.font, p.device());
    const int dpi = p.device() ? p.device()->logicalDpiY() : 0;
    const double minLabelWidth = labelMinWidth(fm, dpi);
    const QBrush hatch(m_palette->blockingHatch(), Qt::BDiagPattern);

    const auto [first, last] = iv.visible(mapping.toNs(double(clipX0) - 2), mapping.toNs(double(clipX1) + 2));
    // The palette builds a QColor per call; a mark per column and lane made that a cost of its own.
    std::array<QColor, IntervalLane::kKindMask + 1> kindColors;
    std::array<QRgb, IntervalLane::kKindMask + 1> kindRgba;
    std::array<bool, IntervalLane::kKindMask + 1> kindKnown{};
    auto known = [&](std::uint8_t style) {
        const std::size_t kind = style & IntervalLane::kKindMask;
        if (!kindKnown[kind]) {
            kindColors[kind] = m_palette->opColor(OpKind(kind));
            kindRgba[kind] = kindColors[kind].rgba();
            kindKnown[kind] = true;
        }
        return kind;
    };
    auto colorOf = [&](std::uint8_t style) -> const QColor & { return kindColors[known(style)]; };
    auto rgbaOf = [&](std::uint8_t style) { return kindRgba[known(style)]; };

    // One-column marks (the dense case: a mark per pixel column when a million ops are in view) are
    // collected into rows of pixels and drawn with one drawImage each at the end, instead of thousands of
    // fillRect calls; their hatch goes on as one rectangle per run of blocking columns.
    const int columns = clipX1 - clipX0;
    QImage fullRow(columns, 1, QImage::Format_ARGB32_Premultiplied);
    QImage thinRow(columns, 1, QImage::Format_ARGB32_Premultiplied);
    fullRow.fill(Qt::transparent);
    thinRow.fill(Qt::transparent);
    std::vector<std::uint8_t> blockingColumn(std::size_t(columns), 0);
    bool anyFull = false, anyThin = false;
    auto *fullPixels = reinterpret_cast<QRgb *>(fullRow.scanLine(0));
    auto *thinPixels = reinterpret_cast<QRgb *>(thinRow.scanLine(0));

    // Folded marks wider than a column (runs of a few columns when the kinds in view alternate) were one
    // fillRect each, a raster span per row: the largest cost left in a frame with a million ops. Where a
    // logical pixel is a device pixel they go into the same rows of pixels as the one-column marks, but
    // "deferred": in paint order they lie under everything drawn after them, which the rows (drawn last)
    // would not. So before anything else is painted over their columns (a bar, its hatch, its label),
    // the deferred pixels there are painted first, as the fillRect they stand for would have been; and a
    // one-column mark, drawn last in any case, is never displaced by a deferred one.
    const bool deferMarks = m_deferredMarks && rasterAtWholePixels(p);
    enum : std::uint8_t { kDeferredFull = 1, kDeferredThin = 2 };
    std::vector<std::uint8_t> deferred(deferMarks ? std::size_t(columns) : 0, 0);
    int deferredLo = columns, deferredHi = 0; // columns [lo, hi) may hold deferred pixels
    auto paintDeferred = [&](int from, int to) { // strip columns [from, to)
        from = std::max(from, deferredLo);
        to = std::min(to, deferredHi);
        if (from >= to)
            return;
        // Full rows first: where a thin mark is deferred over a deferred full one, it came later.
        for (const std::uint8_t bit : {std::uint8_t(kDeferredFull), std::uint8_t(kDeferredThin)}) {
            QRgb *row = bit == kDeferredFull ? fullPixels : thinPixels;
            for (int c = from; c < to;) {
                if (!(deferred[std::size_t(c)] & bit)) {
                    ++c;
                    continue;
                }
                const QRgb color = row[c];
                int e = c;
                while (e < to && (deferred[std::size_t(e)] & bit) && row[e] == color) {
                    deferred[std::size_t(e)] &= std::uint8_t(~bit);
                    row[e] = 0;
                    ++e;
                }
                p.fillRect(bit == kDeferredFull ? QRectF(clipX0 + c, fullTop, e - c, fullHeight)
                                                : QRectF(clipX0 + c, thinTop, e - c, thinHeight),
                           QColor::fromRgba(color));
                c = e;
            }
        }
    };

    auto drawBar = [&](double x0, double x1, std::uint8_t style, bool blocking, bool mark) {
        const bool thin = host && !blocking;
        // Snap to whole pixel columns: a mark narrower than a pixel lands in the column its start falls
        // in (where the ruler and the picking put that time), never rounded away.
        const double left = std::floor(x0);
        const double right = std::max(left + 1, std::round(x1));
        const QRectF r(left, thin ? thinTop : fullTop, right - left, thin ? thinHeight : fullHeight);
        if (right - left == 1 && left >= clipX0 && left < clipX1) {
            const auto c = std::size_t(left - clipX0);
            (thin ? thinPixels : fullPixels)[c] = rgbaOf(style); // opaque: premultiplied as is
            (thin ? anyThin : anyFull) = true;
            blockingColumn[c] = host && blocking;
            if (deferMarks) {
                // This pixel replaces a deferred one in its row; a full mark also covers a deferred thin
                // one (drawn before it in paint order, the rows draw thin over full).
                deferred[c] &= std::uint8_t(thin ? ~kDeferredThin : ~kDeferredFull);
                if (!thin && (deferred[c] & kDeferredThin)) {
                    thinPixels[c] = 0;
                    deferred[c] &= std::uint8_t(~kDeferredThin);
                }
            }
            return r;
        }
        const QRgb rgba = rgbaOf(style);
        // Clamped as doubles: deep in a zoom a long op's edges lie far beyond what an int holds.
        const int from = int(std::max(double(clipX0), left)) - clipX0;
        const int to = int(std::min(double(clipX1), right)) - clipX0;
        if (deferMarks && mark && !(host && blocking) && qAlpha(rgba) == 255) {
            for (int c = from; c < to; ++c) {
                auto &d = deferred[std::size_t(c)];
                if (!thin) {
                    if (!fullPixels[c] || (d & kDeferredFull)) { // a one-column mark there stays on top
                        fullPixels[c] = rgba;
                        d |= kDeferredFull;
                    }
                    if (d & kDeferredThin) { // an earlier thin mark, covered by this one
                        thinPixels[c] = 0;
                        d &= std::uint8_t(~kDeferredThin);
                    }
                } else if ((!thinPixels[c] || (d & kDeferredThin)) && (!fullPixels[c] || (d & kDeferredFull))) {
                    // (A one-column full mark there is drawn after this in any case and covers it.)
                    thinPixels[c] = rgba;
                    d |= kDeferredThin;
                }
            }
            if (from < to) {
                (thin ? anyThin : anyFull) = true;
                deferredLo = std::min(deferredLo, from);
                deferredHi = std::max(deferredHi, to);
            }
            return r;
        }
        if (deferMarks)
            paintDeferred(from, to);
        p.fillRect(r, colorOf(style));
        if (host && blocking)
            p.fillRect(r, hatch);
        return r;
    };

    // Fold state: a run of narrow ops that touch.
    bool run = false;
    double runX0 = 0, runX1 = 0, runWidest = -1;
    std::uint8_t runStyle = 0;
    bool runBlocking = false;
    long long runCount = 0;
    auto flush = [&]() {
        if (!run)
            return;
        const QRectF r = drawBar(runX0, runX1, runStyle, runBlocking, true);
        // No "N ops" label on a folded mark: where a mark is split depends on the strip being painted,
        // and a label would not survive the cached pan (the tooltip names the op under the pointer).
        (void)r;
        if (runCount > 1)
            ++m_stats.foldedMarks;
        else
            ++m_stats.barsDrawn;
        run = false;
    };

    double coveredTo = -std::numeric_limits<double>::infinity();
    std::size_t foldHint = 0; // ops in the last column folded at once
    for (std::size_t k = first; k < last; ++k) {
        ++m_stats.opsVisited;
        const double x0 = mapping.toX(iv.starts[k]);
        const double x1 = mapping.toX(iv.ends[k]);
        if (x1 < clipX0 - 1)
            continue; // before the strip: only the running max end brought it in
        const std::uint8_t style = iv.styles[k];
        const bool blocking = (style & IntervalLane::kBlockingBit) != 0;
        const double w = x1 - x0;
        if (w < kFoldPixels) {
            if (run && x0 <= runX1 + kFoldGapPixels) {
                // Many ops per pixel (fit-all of a million): fold every op that starts in the run's last
                // pixel column at once, found by binary search, when the running max end shows that none
                // of them reaches more than a pixel further (so none would have been a bar of its own).
                const double column = std::floor(runX1);
                const qint64 boundary = mapping.toNs(column + 1);
                // Neighbouring columns hold about as many ops: start the search three quarters of the
                // previous column's count ahead, where the boundary usually is a few ops further.
                const std::size_t guess = std::min(last, k + foldHint * 3 / 4);
                const std::size_t jump = guess > k && iv.starts[guess - 1] >= boundary
                                             ? gallop<false>(iv.starts, k, guess, boundary)
                                             : gallop<false>(iv.starts, guess, last, boundary);
                foldHint = jump - k;
                if (jump > k + 1 && mapping.toX(iv.maxEnd(jump - 1)) <= column + 2) {
                    // The column takes the colour of the kind most of its ops have (a byte scan), so a
                    // stream that interleaves copies and kernels reads as a mix, not as its first op.
                    // A sample of 32 ops is enough to pick a colour; a blocking call is never sampled
                    // away (the OR over the bytes vectorises).
                    static_assert(engine::kOpKindCount <= 16);
                    std::array<int, 16> counts{};
                    const std::size_t stride = std::max<std::size_t>(1, (jump - k) / 32);
                    for (std::size_t j = k; j < jump; j += stride)
                        ++counts[iv.styles[j] & 0x0f];
                    bool anyBlocking = false;
                    if (host) {
                        // Eight styles per step (hundreds of calls share a column when a million are in
                        // view); a blocking one anywhere sets its byte's top bit.
                        std::uint64_t wide = 0;
                        std::size_t j = k;
                        for (; j + 8 <= jump; j += 8) {
                            std::uint64_t eight;
                            std::memcpy(&eight, iv.styles.data() + j, sizeof eight);
                            wide |= eight;
                        }
                        std::uint8_t bits = 0;
                        for (; j < jump; ++j)
                            bits |= iv.styles[j];
                        static_assert(IntervalLane::kBlockingBit == 0x80);
                        anyBlocking = (bits & IntervalLane::kBlockingBit) != 0 || (wide & 0x8080808080808080ull) != 0;
                    }
                    const auto dominant = std::uint8_t(std::max_element(counts.begin(), counts.end()) - counts.begin());
                    if (dominant != (runStyle & IntervalLane::kKindMask) || (host && anyBlocking != runBlocking)) {
                        if (column > runX0) {
                            // The mark so far ends where this column begins; a new one starts here.
                            const double keep = runX1;
                            runX1 = column;
                            flush();
                            run = true;
                            runX0 = column;
                            runX1 = keep;
                            runCount = 0;
                            runBlocking = false;
                        }
                        runStyle = dominant;
                        runWidest = 0;
                    }
                    runX1 = std::max(runX1, mapping.toX(iv.maxEnd(jump - 1)));
                    runCount += (long long)(jump - k);
                    runBlocking = runBlocking || (host && anyBlocking);
                    m_stats.opsVisited += (long long)(jump - k - 1);
                    k = jump - 1;
                    continue;
                }
                if (x1 <= runX1 && !(blocking && !runBlocking)) {
                    ++runCount;
                    continue;
                } // wholly inside pixels this mark already covers
                runX1 = std::max(runX1, x1);
                ++runCount;
                runBlocking = runBlocking || blocking;
                if (w > runWidest) {
                    runWidest = w;
                    runStyle = style;
                }
                continue;
            }
            flush();
            if (x1 <= coveredTo)
                continue; // a narrow op wholly under a wide bar already drawn (overlapping imports)
            run = true;
            runX0 = x0;
            runX1 = x1;
            runWidest = w;
            runStyle = style;
            runBlocking = blocking;
            runCount = 1;
            continue;
        }
        flush();
        const QRectF r = drawBar(x0, x1, style, blocking, false);
        ++m_stats.barsDrawn;
        coveredTo = std::max(coveredTo, x1);
        // Labels only where they fit, elided; the visible part of the bar so a long kernel that starts
        // off-screen still shows its name.
        const QRectF visible = r.intersected(QRectF(rect.left(), r.top(), rect.width(), r.height()));
        // Activity lanes carry no names: their tooltips say what each record was.
        if (!activities && visible.width() >= minLabelWidth && r.height() >= fm.height() * 0.8) {
            const QString &text = barLabel(fm, dpi, m_model->op(iv.ops[k]).nameId, int(visible.width() - 6));
            if (!text.isEmpty()) {
                if (r.left() < rect.left() || r.right() > rect.right() + 1)
                    edgeDependent = true;
                p.setFont(m_metrics.font);
                p.setPen(OpPalette::textOn(colorOf(style)));
                p.drawText(visible.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
            }
        }
    }
    flush();
    // Each row is drawn as an image as tall as its marks (the row repeated), not stretched from one
    // pixel row: the same pixels (all rows equal, so nearest sampling has nothing to choose), but at
    // device scale 1 the target then matches the source size and QPainter blits it instead of taking
    // its scaling path, which cost as much as the rest of the lane.
    auto drawRow = [&](const QImage &row, double top, double height) {
        const int rows = std::max(1, int(std::lround(height)));
        QImage tall(columns, rows, QImage::Format_ARGB32_Premultiplied);
        const auto bytes = std::size_t(columns) * sizeof(QRgb);
        for (int y = 0; y < rows; ++y)
            std::memcpy(tall.scanLine(y), row.constScanLine(0), bytes);
        p.drawImage(QRectF(clipX0, top, columns, height), tall);
    };
    if (anyFull)
        drawRow(fullRow, fullTop, fullHeight);
    if (anyThin)
        drawRow(thinRow, thinTop, thinHeight);
    for (int c = 0; c < columns;) {
        if (!blockingColumn[std::size_t(c)]) {
            ++c;
            continue;
        }
        int e = c + 1;
        while (e < columns && blockingColumn[std::size_t(e)])
            ++e;
        p.fillRect(QRectF(clipX0 + c, fullTop, e - c, fullHeight), hatch);
        c = e;
    }
    return edgeDependent;
}

double TimelinePainter::labelMinWidth(const QFontMetrics &fm, int logicalDpi) const
{
    LabelCache &c = m_labels;
    if (c.logicalDpi != logicalDpi) {
        c = {};
        c.logicalDpi = logicalDpi;
    }
    if (c.minWidth < 0)
        c.minWidth = fm.horizontalAdvance(QStringLiteral("xxx")) + 6;
    return c.minWidth;
}

const QString &TimelinePainter::barLabel(const QFontMetrics &fm, int logicalDpi, std::uint32_t nameId,
                                         int maxWidth) const
{
    static const QString none;
    LabelCache &c = m_labels;
    if (c.logicalDpi != logicalDpi) {
        c = {};
        c.logicalDpi = logicalDpi;
    }
    const auto &strings = m_model->trace().strings;
    if (nameId >= strings.size()) // Trace::name() of an unknown id: the empty name
        return none;
    if (c.names.size() != strings.size()) {
        c.names.assign(strings.size(), QString());
        c.advances.assign(strings.size(), -1);
    }
    QString &name = c.names[nameId];
    int &advance = c.advances[nameId];
    if (advance < 0) {
        name = QString::fromStdString(strings[nameId]);
        advance = fm.horizontalAdvance(name);
    }
    // QFontMetrics::elidedText returns the text whole when its unrounded width is <= maxWidth;
    // horizontalAdvance is that width rounded, so advance < maxWidth guarantees it (one pixel of margin
    // against the rounding) and the text is the name itself.
    if (advance < maxWidth)
        return name;
    const std::uint64_t key = (std::uint64_t(nameId) << 32) | std::uint32_t(std::max(0, maxWidth) & 0x7fffffff);
    auto it = c.elided.find(key);
    if (it == c.elided.end()) {
        if (c.elided.size() > 65536) // zooming through many widths of many names: bound the memory
            c.elided.clear();
        it = c.elided.emplace(key, fm.elidedText(name, Qt::ElideRight, maxWidth)).first;
    }
    return it->second;
}

namespace {

// Per pixel column [clipX0, clipX1): min and max of a step function over the column's time span. Each
// column finds its steps by binary search and reads their min/max from the block summaries, so the cost
// follows the number of columns, not the number of steps.
void columnMinMax(const StepSeries &s, const TimeMapping &m, int clipX0, int clipX1, qint64 endNs,
                  std::vector<float> &lo, std::vector<float> &hi)
{
    const int n = clipX1 - clipX0;
    lo.assign(std::size_t(n), std::numeric_limits<float>::infinity());
    hi.assign(std::size_t(n), -std::numeric_limits<float>::infinity());
    if (s.size() == 0)
        return;
    // Columns go left to right, so each search starts where the previous column's ended.
    std::size_t cursor = std::size_t(std::max<std::ptrdiff_t>(0, s.indexAt(m.toNs(double(clipX0)))));
    // The previous column's end and the first step at or after it: a column usually begins where the
    // previous one ended, and then its first step follows from that without a second search.
    qint64 prevT1 = std::numeric_limits<qint64>::min();
    std::size_t prevLast = 0;
    for (int c = 0; c < n; ++c) {
        // The column covers [t0, t1); a step that starts at t1 belongs to the next column.
        const qint64 t0 = m.toNs(double(clipX0 + c));
        const qint64 t1 = std::max(t0 + 1, m.toNs(double(clipX0 + c + 1)));
        if (t0 >= endNs || t1 <= s.times.front())
            continue; // past the end of the repetition, or before anything happened
        // The step in force at t0: the last one starting at or before it. The first step after t0 is the
        // first at or after it, or behind the steps starting exactly at t0 (one at most: pushStep merges
        // equal times).
        std::size_t after;
        if (t0 == prevT1) {
            after = prevLast;
            while (after < s.size() && s.times[after] <= t0)
                ++after;
        } else {
            after = gallop<true>(s.times, cursor, s.size(), t0);
        }
        const std::size_t first = after > 0 ? after - 1 : 0;
        const std::size_t last = gallop<false>(s.times, first, s.size(), t1);
        cursor = first;
        prevT1 = t1;
        prevLast = last;
        if (last <= first)
            continue;
        s.minMax(first, last, lo[std::size_t(c)], hi[std::size_t(c)]);
    }
}

// Draws columns as an area: solid up to the column's minimum (the level held over the whole pixel),
// translucent up to its maximum (reached somewhere in the pixel). Runs of equal columns share one rect.
//
// With every column its own rect (a million steps over 2000 columns), one fillRect per rect was a third
// of a full frame. On the raster engine at a whole-pixel translation (the widget's lane pixmaps at
// device scale 1, PNG export) the rects are instead collected per colour, rounded as the raster engine
// rounds a fillRect(QRectF) there (each edge to the nearest pixel), and handed over with one drawRects
// each: the same pixels, and where the solid colour is opaque the translucent part stops where the
// solid one begins instead of being blended and then painted over.
void drawColumns(QPainter &p, const std::vector<float> &lo, const std::vector<float> &hi, int clipX0, double baseline,
                 double scale, const QColor &color)
{
    QColor light = color;
    light.setAlpha(110);
    const std::size_t n = lo.size();
    const bool batched = rasterAtWholePixels(p);
    const bool opaque = color.alpha() == 255;
    // qRound as the raster engine applies it to a rect's edges.
    auto edge = [](double v) { return qRound(v); };
    thread_local QList<QRect> lightRects, solidRects;
    lightRects.clear();
    solidRects.clear();
    std::size_t c = 0;
    while (c < n) {
        if (!(hi[c] > 0)) {
            ++c;
            continue;
        }
        std::size_t e = c + 1;
        while (e < n && lo[e] == lo[c] && hi[e] == hi[c])
            ++e;
        const double x = clipX0 + double(c);
        const double w = double(e - c);
        const double yHi = baseline - hi[c] * scale;
        const double yLo = baseline - lo[c] * scale;
        if (!batched) {
            p.fillRect(QRectF(x, yHi, w, baseline - yHi), light);
            if (lo[c] > 0)
                p.fillRect(QRectF(x, yLo, w, baseline - yLo), color);
            c = e;
            continue;
        }
        const int x0 = edge(x), x1 = edge(x + w), bottom = edge(baseline);
        const int top = edge(yHi);
        const int solidTop = lo[c] > 0 ? edge(yLo) : bottom;
        const int lightBottom = opaque ? std::max(top, std::min(bottom, solidTop)) : bottom;
        if (lightBottom > top && x1 > x0)
            lightRects.append(QRect(x0, top, x1 - x0, lightBottom - top));
        if (lo[c] > 0 && bottom > solidTop && x1 > x0)
            solidRects.append(QRect(x0, solidTop, x1 - x0, bottom - solidTop));
        c = e;
    }
    if (!batched)
        return;
    p.save();
    p.setPen(Qt::NoPen);
    if (!lightRects.isEmpty()) {
        p.setBrush(light);
        p.drawRects(lightRects.constData(), int(lightRects.size()));
    }
    if (!solidRects.isEmpty()) {
        p.setBrush(color);
        p.drawRects(solidRects.constData(), int(solidRects.size()));
    }
    p.restore();
}

} // namespace

QRgb TimelinePainter::blendedPixel(int format, QRgb under, const QColor &src) const
{
    const QRgba64 key = src.rgba64();
    for (const BlendEntry &e : m_blends)
        if (e.format == format && e.under == under && e.src == key)
            return e.result;
    QImage pixel(1, 1, QImage::Format(format));
    pixel.setPixel(0, 0, under);
    {
        // The same call as the slow path's (a brush, no pen, drawRects), so the same span function.
        QPainter bp(&pixel);
        bp.setPen(Qt::NoPen);
        bp.setBrush(src);
        const QRect one(0, 0, 1, 1);
        bp.drawRects(&one, 1);
    }
    const QRgb result = pixel.pixel(0, 0);
    if (m_blends.size() >= 256) // a palette has a few dozen; bound it against anything unforeseen
        m_blends.clear();
    m_blends.push_back({format, under, key, result});
    return result;
}

// The derived lanes' areas (drawColumns) alpha-blend their light part, and the bandwidth lane's D2H
// layer as a whole, over the lane: with a million ops in view that blending was the largest single cost
// of a frame. But what lies under them is known: the lane background, the grid's one-pixel columns, and
// the layers drawn before. So each pixel column is cut, top to bottom, into segments covered by the same
// set of fills, and each segment gets the colour those fills leave over the background or the grid,
// found once by letting QPainter blend one pixel (blendedPixel) in the target's format. The segments are
// then drawn as opaque fills, one drawRects per colour: solid fills instead of blending, the same
// pixels. Only on the raster engine at whole pixels, over an opaque background, into a 32-bit image or a
// pixmap; anywhere else (SVG, high DPI) drawColumns paints the layers one by one as before.
void TimelinePainter::drawColumnLayers(QPainter &p, const ColumnLayer *layers, int layerCount, const QColor &background,
                                       const TimeMapping &mapping, int clipX0, double baseline, double scale) const
{
    Q_ASSERT(layerCount >= 1 && layerCount <= 2);
    QPaintDevice *device = p.device();
    int format = QImage::Format_ARGB32_Premultiplied; // a raster pixmap: 32-bit, opaque here
    if (device && device->devType() == QInternal::Image)
        format = static_cast<const QImage *>(device)->format();
    const bool fast = m_opaqueColumns && rasterAtWholePixels(p) && background.alpha() == 255
                      && (device->devType() == QInternal::Pixmap || format == QImage::Format_RGB32
                          || format == QImage::Format_ARGB32 || format == QImage::Format_ARGB32_Premultiplied);
    if (!fast) {
        for (int l = 0; l < layerCount; ++l)
            drawColumns(p, *layers[l].lo, *layers[l].hi, clipX0, baseline, scale, layers[l].color);
        return;
    }

    // Fills in paint order: bit 2l is layer l's light part, bit 2l + 1 its solid part. Every fill ends
    // at the baseline, so the fills covering a row are those whose top is at or above it.
    constexpr int kFills = 4;
    std::array<QColor, kFills> fillColor;
    for (int l = 0; l < layerCount; ++l) {
        fillColor[std::size_t(2 * l)] = layers[l].color;
        fillColor[std::size_t(2 * l)].setAlpha(110); // as drawColumns' light part
        fillColor[std::size_t(2 * l + 1)] = layers[l].color;
    }
    // A segment's colour by slot: 16 * (on a grid column) + the set of fills covering it.
    const QRgb backgroundPixel = blendedPixel(format, 0xff000000u, background);
    const QRgb gridPixel = blendedPixel(format, backgroundPixel, m_palette->grid());
    std::array<QRgb, 32> slotColor{};
    std::array<bool, 32> slotKnown{};
    bool allOpaque = qAlpha(gridPixel) == 255;
    auto colorOf = [&](int slot) {
        if (!slotKnown[std::size_t(slot)]) {
            QRgb c = slot >= 16 ? gridPixel : backgroundPixel;
            for (int f = 0; f < kFills; ++f)
                if (slot & (1 << f))
                    c = blendedPixel(format, c, fillColor[std::size_t(f)]);
            slotColor[std::size_t(slot)] = c;
            slotKnown[std::size_t(slot)] = true;
            allOpaque = allOpaque && qAlpha(c) == 255;
        }
        return slotColor[std::size_t(slot)];
    };

    const std::size_t n = layers[0].lo->size();
    thread_local std::vector<std::uint8_t> onGrid;
    onGrid.assign(n, 0);
    thread_local std::vector<int> ticks;
    gridColumns(mapping, clipX0, clipX0 + int(n), ticks);
    for (const int x : ticks)
        if (x >= clipX0 && x < clipX0 + int(n))
            onGrid[std::size_t(x - clipX0)] = 1;

    // Rounded as the raster engine rounds a fillRect(QRectF)'s edges (drawColumns does the same).
    const int bottom = qRound(baseline);
    struct Segment {
        int top, bottom, slot;
    };
    // Pass 1: each column's segments, top to bottom, and the highest row any of them reaches.
    thread_local std::vector<std::array<Segment, kFills>> segments;
    thread_local std::vector<std::uint8_t> segmentCount;
    segments.resize(n);
    segmentCount.assign(n, 0);
    int bandTop = bottom;
    std::uint32_t slotsUsed = 0;
    for (std::size_t c = 0; c < n; ++c) {
        // The tops of this column's fills, in paint order; a fill with no rows is left out.
        std::array<std::pair<int, int>, kFills> tops; // (top row, fill)
        int count = 0;
        for (int l = 0; l < layerCount; ++l) {
            const float lo = (*layers[l].lo)[c], hi = (*layers[l].hi)[c];
            if (!(hi > 0))
                continue;
            const int top = qRound(baseline - hi * scale);
            if (top < bottom)
                tops[std::size_t(count++)] = {top, 2 * l};
            if (lo > 0) {
                const int solidTop = qRound(baseline - lo * scale);
                if (solidTop < bottom)
                    tops[std::size_t(count++)] = {solidTop, 2 * l + 1};
            }
        }
        for (int i = 1; i < count; ++i) // at most four: an insertion sort by (top, paint order)
            for (int j = i; j > 0 && tops[std::size_t(j)] < tops[std::size_t(j - 1)]; --j)
                std::swap(tops[std::size_t(j)], tops[std::size_t(j - 1)]);
        int mask = 0, k = 0;
        const int gridBit = onGrid[c] ? 16 : 0;
        for (int i = 0; i < count; ++i) {
            mask |= 1 << tops[std::size_t(i)].second;
            const int from = tops[std::size_t(i)].first;
            const int to = i + 1 < count ? tops[std::size_t(i + 1)].first : bottom;
            if (to > from) {
                segments[c][std::size_t(k++)] = {from, to, gridBit | mask};
                slotsUsed |= 1u << (gridBit | mask);
                bandTop = std::min(bandTop, from);
            }
        }
        segmentCount[c] = std::uint8_t(k);
    }
    if (bandTop >= bottom)
        return;
    for (int slot = 0; slot < 32; ++slot)
        if (slotsUsed & (1u << slot))
            colorOf(slot);
    if (!allOpaque) {
        // Blending left a pixel translucent (not with an opaque background): paint it the slow way.
        for (int l = 0; l < layerCount; ++l)
            drawColumns(p, *layers[l].lo, *layers[l].hi, clipX0, baseline, scale, layers[l].color);
        return;
    }

    // Pass 2: the band of rows the columns reach, as pixels: what lies under them (background or grid)
    // where no fill reaches, a segment's colour where one does. One tall one-pixel rect per segment was
    // a span per row for the raster engine, dearer than the pixels; an opaque image of the band is
    // instead copied row by row (at device scale 1 and a whole-pixel offset a blit).
    thread_local QImage band;
    const int bandRows = bottom - bandTop;
    if (band.width() != int(n) || band.height() != bandRows)
        band = QImage(int(n), bandRows, QImage::Format_RGB32);
    const auto stride = std::size_t(band.bytesPerLine()) / sizeof(QRgb);
    auto *pixels = reinterpret_cast<QRgb *>(band.bits());
    for (std::size_t c = 0; c < n; ++c)
        pixels[c] = onGrid[c] ? gridPixel : backgroundPixel;
    for (int y = 1; y < bandRows; ++y)
        std::memcpy(pixels + std::size_t(y) * stride, pixels, n * sizeof(QRgb));
    for (std::size_t c = 0; c < n; ++c) {
        for (int i = 0; i < segmentCount[c]; ++i) {
            const Segment &g = segments[c][std::size_t(i)];
            const QRgb color = slotColor[std::size_t(g.slot)];
            QRgb *px = pixels + std::size_t(g.top - bandTop) * stride + c;
            for (int y = g.top; y < g.bottom; ++y, px += stride)
                *px = color;
        }
    }
    p.drawImage(QPoint(clipX0, bandTop), band);
}

void TimelinePainter::paintCounter(QPainter &p, const Lane &lane, const QRect &rect, const QColor &background,
                                   const TimeMapping &mapping, int clipX0, int clipX1) const
{
    const StepSeries &s = lane.counts;
    if (s.maxValue <= 0)
        return;
    thread_local std::vector<float> lo, hi;
    columnMinMax(s, mapping, clipX0, clipX1, m_model->durationNs(), lo, hi);
    const double pad = 3;
    const double baseline = rect.bottom() + 1 - pad;
    // A lane with at most one active op reads as on/off: scale to 1. Otherwise steps per count.
    const double scale = (rect.height() - 2 * pad - 1) / std::max(1.0f, s.maxValue);
    const QColor color = lane.kind == LaneKind::H2DActivity   ? m_palette->h2d()
                         : lane.kind == LaneKind::D2HActivity ? m_palette->d2h()
                                                              : m_palette->compute();
    const ColumnLayer layer{&lo, &hi, color};
    drawColumnLayers(p, &layer, 1, background, mapping, clipX0, baseline, scale);
}

void TimelinePainter::paintBandwidth(QPainter &p, const Lane &lane, const QRect &rect, const QColor &background,
                                     const TimeMapping &mapping, int clipX0, int clipX1) const
{
    const double peak = m_model->linkPeakGBs();
    const double top = std::max({double(lane.counts.maxValue), double(lane.d2hBandwidth.maxValue), peak});
    if (top <= 0)
        return;
    const double pad = 3;
    const double baseline = rect.bottom() + 1 - pad;
    const double scale = (rect.height() - 2 * pad - 1) / (top * 1.08);
    thread_local std::vector<float> h2dLo, h2dHi, d2hLo, d2hHi;
    columnMinMax(lane.counts, mapping, clipX0, clipX1, m_model->durationNs(), h2dLo, h2dHi);
    columnMinMax(lane.d2hBandwidth, mapping, clipX0, clipX1, m_model->durationNs(), d2hLo, d2hHi);
    // D2H on top, translucent, so simultaneous transfers in both directions both stay visible.
    QColor d2h = m_palette->d2h();
    d2h.setAlpha(200);
    const std::array<ColumnLayer, 2> layers{ColumnLayer{&h2dLo, &h2dHi, m_palette->h2d()},
                                            ColumnLayer{&d2hLo, &d2hHi, d2h}};
    drawColumnLayers(p, layers.data(), 2, background, mapping, clipX0, baseline, scale);
    if (peak > 0) {
        const double y = std::round(baseline - peak * scale) + 0.5;
        QPen pen(m_palette->peakLine(), m_palette->presentation() ? 2 : 1, Qt::DashLine);
        p.setPen(pen);
        p.drawLine(QPointF(clipX0, y), QPointF(clipX1, y));
    }
}

void TimelinePainter::paintHeaders(QPainter &p, const TimelineLayout &layout) const
{
    if (!m_model)
        return;
    p.save();
    p.setClipRect(layout.headers.adjusted(0, 0, 0, 1));
    const QFontMetrics fm(m_metrics.font, p.device());
    const QFontMetrics sm(m_metrics.smallFont, p.device());
    for (int i = 0; i < int(layout.lanes.size()); ++i) {
        const Lane &lane = m_model->lane(i);
        const QRect lr = layout.lanes[std::size_t(i)];
        const QRect r(layout.headers.left(), lr.top(), layout.headers.width(), lr.height());
        p.fillRect(r, m_palette->headerBackground());
        int textLeft = r.left() + 6;
        // Derived lanes carry the colour of what they count, as a key.
        QColor key;
        if (lane.kind == LaneKind::H2DActivity)
            key = m_palette->h2d();
        else if (lane.kind == LaneKind::D2HActivity)
            key = m_palette->d2h();
        else if (lane.kind == LaneKind::ComputeActivity)
            key = m_palette->compute();
        if (key.isValid()) {
            p.fillRect(QRect(r.left() + 4, r.top() + 4, 4, r.height() - 8), key);
            textLeft += 6;
        }
        const int textWidth = r.right() - 4 - textLeft;
        const bool twoLines = r.height() >= fm.height() + sm.height() + 2;
        p.setPen(m_palette->text());
        p.setFont(m_metrics.font);
        const QString title = fm.elidedText(lane.title, Qt::ElideRight, textWidth);
        if (twoLines) {
            const int y0 = r.top() + (r.height() - fm.height() - sm.height()) / 2;
            p.drawText(QRect(textLeft, y0, textWidth, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, title);
            p.setFont(m_metrics.smallFont);
            p.setPen(m_palette->mutedText());
            p.drawText(QRect(textLeft, y0 + fm.height(), textWidth, sm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                       sm.elidedText(lane.subtitle, Qt::ElideRight, textWidth));
        } else if (r.height() >= fm.height()) {
            p.drawText(QRect(textLeft, r.top(), textWidth, r.height()), Qt::AlignLeft | Qt::AlignVCenter, title);
        } else {
            // Lanes squeezed below the font (32 streams in presentation mode at 720p): a title sized to
            // its lane, so that neighbouring titles never overprint each other.
            QFont tight = m_metrics.font;
            tight.setPixelSize(std::max(6, r.height() - 1));
            const QFontMetrics tm(tight, p.device());
            p.setFont(tight);
            p.drawText(QRect(textLeft, r.top(), textWidth, r.height()), Qt::AlignLeft | Qt::AlignVCenter,
                       tm.elidedText(lane.title, Qt::ElideRight, textWidth));
        }
        if (lane.kind == LaneKind::Bandwidth && twoLines) {
            // The scale of the lane: its top in GB/s.
            const double top =
                std::max({double(lane.counts.maxValue), double(lane.d2hBandwidth.maxValue), m_model->linkPeakGBs()})
                * 1.08;
            p.setFont(m_metrics.smallFont);
            p.setPen(m_palette->mutedText());
            p.drawText(QRect(textLeft, r.top() + 2, textWidth, sm.height()), Qt::AlignRight | Qt::AlignTop,
                       QString::number(top, 'f', top >= 10 ? 0 : 1));
            p.drawText(QRect(textLeft, r.bottom() - sm.height() - 1, textWidth, sm.height()),
                       Qt::AlignRight | Qt::AlignBottom, QStringLiteral("0"));
        }
        p.setPen(QPen(m_palette->separator(), 0));
        p.drawLine(QPointF(r.left(), r.bottom() + 0.5), QPointF(r.right() + 1, r.bottom() + 0.5));
    }
    p.setPen(QPen(m_palette->separator(), 0));
    const double x = layout.headers.right() + 0.5;
    p.drawLine(QPointF(x, layout.headers.top()), QPointF(x, layout.headers.bottom() + 1));
    p.restore();
}

void TimelinePainter::paintRuler(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                                 const TimelineOverlay &overlay) const
{
    p.save();
    const QRect r = layout.ruler;
    p.fillRect(layout.corner, m_palette->headerBackground());
    p.fillRect(r, m_palette->headerBackground());
    const QFontMetrics sm(m_metrics.smallFont, p.device());
    p.setFont(m_metrics.smallFont);

    // The corner reads out the window's width: the scale of what is shown.
    p.setPen(m_palette->mutedText());
    p.drawText(layout.corner.adjusted(6, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter,
               QStringLiteral("window %1").arg(formatDuration(mapping.endNs - mapping.startNs)));

    p.setClipRect(r);
    const qint64 step = rulerStepNs(mapping.nsPerPixel(), kTickSpacingPixels);
    // Minor ticks split 1 and 5 steps in five, 2 steps in four.
    qint64 mantissa = step;
    while (mantissa >= 10 && mantissa % 10 == 0)
        mantissa /= 10;
    const qint64 minor = mantissa == 2 ? (step % 4 == 0 ? step / 4 : 0) : (step % 5 == 0 ? step / 5 : 0);
    p.setPen(QPen(m_palette->mutedText(), 0));
    if (minor > 0) {
        for (qint64 t = firstTickAtOrAfter(mapping.startNs, minor); t <= mapping.endNs; t += minor) {
            const double x = std::floor(mapping.toX(t)) + 0.5;
            p.drawLine(QPointF(x, r.bottom() - 3), QPointF(x, r.bottom() + 1));
        }
    }
    p.setPen(QPen(m_palette->text(), 0));
    // Start one step early so the label of a tick just left of the window still shows its tail.
    for (qint64 t = firstTickAtOrAfter(mapping.startNs, step) - step; t <= mapping.endNs; t += step) {
        const double x = std::floor(mapping.toX(t)) + 0.5;
        p.drawLine(QPointF(x, r.bottom() - 8), QPointF(x, r.bottom() + 1));
        const QString label = formatTickLabel(t, step);
        if (x + 3 + sm.horizontalAdvance(label) <= r.right() + 1) // no label cut by the right edge
            p.drawText(QPointF(x + 3, r.top() + 2 + sm.ascent()), label);
    }

    if (overlay.selectionEndNs > overlay.selectionStartNs) {
        const double x0 = mapping.toX(overlay.selectionStartNs);
        const double x1 = mapping.toX(overlay.selectionEndNs);
        const QRectF band(x0, r.top(), std::max(1.0, x1 - x0), r.height());
        p.fillRect(band, m_palette->selectionEdge());
        const QString text =
            QStringLiteral("Δ %1").arg(formatDuration(overlay.selectionEndNs - overlay.selectionStartNs));
        QRectF textRect(0, r.top(), sm.horizontalAdvance(text) + 10, r.height());
        textRect.moveCenter(QPointF((x0 + x1) / 2, r.center().y() + 0.5));
        textRect.moveLeft(std::clamp(textRect.left(), double(r.left()), double(r.right()) - textRect.width()));
        if (textRect.width() > band.width())
            p.fillRect(textRect, m_palette->selectionEdge());
        p.setPen(OpPalette::textOn(m_palette->selectionEdge()));
        p.drawText(textRect, Qt::AlignCenter, text);
    }
    p.setClipping(false);
    p.setPen(QPen(m_palette->separator(), 0));
    p.drawLine(QPointF(layout.corner.left(), r.bottom() + 0.5), QPointF(r.right() + 1, r.bottom() + 0.5));
    p.restore();
}

void TimelinePainter::paintLegend(QPainter &p, const TimelineLayout &layout) const
{
    if (!m_model)
        return;
    p.save();
    const QRect r = layout.legend;
    p.setClipRect(r);
    p.fillRect(r, m_palette->background());
    p.setFont(m_metrics.smallFont);
    const QFontMetrics sm(m_metrics.smallFont, p.device());
    const int box = std::max(8, sm.height() - 6);
    int x = r.left() + 6;
    const int cy = r.center().y();
    auto entry = [&](const QString &label, const std::function<void(const QRect &)> &swatch) {
        const QRect s(x, cy - box / 2, box, box);
        swatch(s);
        x += box + 4;
        p.setPen(m_palette->text());
        p.drawText(QRect(x, r.top(), sm.horizontalAdvance(label) + 2, r.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   label);
        x += sm.horizontalAdvance(label) + 14;
    };
    for (OpKind kind : m_model->kindsPresent()) {
        const QColor c = m_palette->opColor(kind);
        entry(OpPalette::label(kind), [&](const QRect &s) { p.fillRect(s, c); });
    }
    // The driver's unified-memory records, in the colours their lanes draw them with.
    bool toGpu = false, toHost = false, faults = false;
    for (const auto &lane : m_model->lanes()) {
        if (lane.kind == LaneKind::PageFaults)
            faults = true;
        if (lane.kind != LaneKind::Migration)
            continue;
        for (const std::uint8_t style : lane.intervals.styles) {
            toGpu = toGpu || OpKind(style & IntervalLane::kKindMask) == OpKind::CopyH2D;
            toHost = toHost || OpKind(style & IntervalLane::kKindMask) == OpKind::CopyD2H;
        }
    }
    const std::pair<bool, std::pair<OpKind, QString>> activityEntries[] = {
        {toGpu, {OpKind::CopyH2D, QStringLiteral("migration to GPU")}},
        {toHost, {OpKind::CopyD2H, QStringLiteral("migration to host")}},
        {faults, {OpKind::CopyD2D, QStringLiteral("page-fault group")}},
    };
    for (const auto &[shown, what] : activityEntries) {
        if (!shown)
            continue;
        const QColor c = m_palette->opColor(what.first);
        entry(what.second, [&](const QRect &s) { p.fillRect(s, c); });
    }
    bool anyHost = false;
    for (const auto &lane : m_model->lanes())
        anyHost = anyHost || (lane.kind == LaneKind::HostThread && lane.intervals.size() > 0);
    if (anyHost) {
        entry(QStringLiteral("blocking host call"), [&](const QRect &s) {
            p.fillRect(s, m_palette->mutedText());
            p.fillRect(s, QBrush(m_palette->blockingHatch(), Qt::BDiagPattern));
        });
    }
    if (m_model->linkPeakGBs() > 0) {
        entry(QStringLiteral("link peak %1 GB/s").arg(m_model->linkPeakGBs(), 0, 'f', 1), [&](const QRect &s) {
            p.setPen(QPen(m_palette->peakLine(), m_palette->presentation() ? 2 : 1, Qt::DashLine));
            p.drawLine(QPointF(s.left(), s.center().y() + 0.5), QPointF(s.right() + 1, s.center().y() + 0.5));
        });
    }
    p.restore();
}

QRectF TimelinePainter::gpuBarRect(const TimelineLayout &layout, const TimeMapping &mapping, int opIndex) const
{
    if (!m_model || opIndex < 0 || opIndex >= m_model->opCount())
        return {};
    const auto &op = m_model->op(opIndex);
    const int lane = m_model->streamLane(op.stream);
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
    const int lane = m_model->hostLane(op.hostThread >= 0 && op.hostThread < threads ? op.hostThread : -1);
    if (!op.hasHost() || lane < 0 || std::size_t(lane) >= layout.lanes.size())
        return {};
    const QRect lr = layout.lanes[std::size_t(lane)];
    const double pad = lr.height() >= 16 ? 3 : 1;
    const double x0 = mapping.toX(m_model->hostStart(op));
    const double x1 = std::max(mapping.toX(m_model->hostEnd(op)), x0 + 1);
    return QRectF(x0, lr.top() + pad, x1 - x0, lr.height() - 2 * pad - 1);
}

void TimelinePainter::paintOverlay(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                                   const TimelineOverlay &overlay) const
{
    p.save();
    p.setClipRect(layout.plot.adjusted(0, 0, 0, 1));
    if (overlay.selectionEndNs > overlay.selectionStartNs) {
        const double x0 = mapping.toX(overlay.selectionStartNs);
        const double x1 = mapping.toX(overlay.selectionEndNs);
        p.fillRect(QRectF(x0, layout.plot.top(), std::max(1.0, x1 - x0), layout.plot.height()),
                   m_palette->selectionFill());
        p.setPen(QPen(m_palette->selectionEdge(), 0));
        p.drawLine(QPointF(x0, layout.plot.top()), QPointF(x0, layout.plot.bottom() + 1));
        p.drawLine(QPointF(x1, layout.plot.top()), QPointF(x1, layout.plot.bottom() + 1));
    }
    p.setBrush(Qt::NoBrush);
    if (overlay.hoveredOp >= 0 && overlay.hoveredOp != overlay.selectedOp) {
        p.setPen(QPen(m_palette->hover(), 1.5));
        for (const QRectF &r :
             {gpuBarRect(layout, mapping, overlay.hoveredOp), hostBarRect(layout, mapping, overlay.hoveredOp)})
            if (!r.isEmpty())
                p.drawRect(r.adjusted(-1, -1, 1, 1));
    }
    if (overlay.selectedOp >= 0) {
        const QRectF gpu = gpuBarRect(layout, mapping, overlay.selectedOp);
        const QRectF host = hostBarRect(layout, mapping, overlay.selectedOp);
        const double width = m_palette->presentation() ? 3 : 2;
        p.setPen(QPen(m_palette->highlight(), width));
        for (const QRectF &r : {gpu, host})
            if (!r.isEmpty())
                p.drawRect(r.adjusted(-1, -1, 1, 1));
        if (overlay.drawLink && !gpu.isEmpty() && !host.isEmpty()) {
            // From the call that issued the op to where the GPU began it: the queueing delay made visible.
            const bool down = host.center().y() < gpu.center().y();
            const QPointF from(host.left(), down ? host.bottom() + 1 : host.top() - 1);
            const QPointF to(gpu.left(), down ? gpu.top() - 1 : gpu.bottom() + 1);
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(QPen(m_palette->highlight(), width * 0.75));
            p.drawLine(from, to);
            const double angle = std::atan2(to.y() - from.y(), to.x() - from.x());
            const double head = m_palette->presentation() ? 12 : 8;
            QPainterPath arrow;
            arrow.moveTo(to);
            arrow.lineTo(to - QPointF(std::cos(angle - 0.45) * head, std::sin(angle - 0.45) * head));
            arrow.lineTo(to - QPointF(std::cos(angle + 0.45) * head, std::sin(angle + 0.45) * head));
            arrow.closeSubpath();
            p.fillPath(arrow, m_palette->highlight());
        }
    }
    p.restore();
}

} // namespace streamscope::ui
