// RangePass: host range rows (NVTX ranges, Kineto's CPU ops, one row per depth under
// their thread) and NVTX projection rows (above a stream, each op drawn as the range it was launched in).
// Flat bars in the colour of the range's name with the name inside where it fits, as Nsight Systems
// draws NVTX; the pixel budget of paintIntervals in a simpler form, since a row holds far fewer items
// than a stream of a million ops: narrow ranges that touch fold into one mark, and a range wholly inside
// pixels already painted is skipped.
#include "ui/timeline/timeline_range_pass.h"
#include "ui/timeline/timeline_paint_context_p.h"

#include <QFontMetrics>
#include <QPaintDevice>
#include <QPainter>

#include <array>
#include <cmath>
#include <limits>

#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"

namespace streamscope::ui {

using namespace painter_detail;

const RangePass &rangePass()
{
    static const RangePass pass;
    return pass;
}

bool RangePass::paint(QPainter &p, const TimelineLaneState &state) const
{
    const TimelinePaintContext &ctx = state.ctx;
    const Lane &lane = state.lane;
    const QRect &rect = state.rect;
    const TimeMapping &mapping = state.mapping;
    const int clipX0 = state.clipX0, clipX1 = state.clipX1;
    const IntervalLane &iv = lane.intervals;
    if (iv.size() == 0)
        return false;
    const engine::Repetition &rep = ctx.model->rep();
    const bool projection = lane.kind == LaneKind::NvtxProjection;
    // The name of interval k: the range's own, or on a projection row the range its op was launched in.
    auto nameOf = [&](std::size_t k) -> std::uint32_t {
        const std::size_t index = std::size_t(iv.ops[k]);
        if (!projection)
            return rep.hostRanges[index].nameId;
        const engine::HostRange *h = rep.enclosingRange(rep.ops[index]);
        return h ? h->nameId : engine::kNoString;
    };
    std::array<QColor, kRangeColorCount> colors;
    for (int c = 0; c < kRangeColorCount; ++c)
        colors[std::size_t(c)] = ctx.palette->rangeColor(c);
    // A thin darker edge on each bar keeps back-to-back ranges of one colour apart.
    std::array<QColor, kRangeColorCount> edges;
    for (int c = 0; c < kRangeColorCount; ++c)
        edges[std::size_t(c)] =
            ctx.palette->dark() ? colors[std::size_t(c)].lighter(150) : colors[std::size_t(c)].darker(135);

    const double pad = rect.height() >= 14 ? 1 : 0;
    const double top = rect.top() + pad;
    const double height = rect.height() - 2 * pad - 1;
    // The bars' font: barLabel's cache of measured names is per font, and op bars use this one.
    const QFontMetrics fm(ctx.metrics.font, p.device());
    const int dpi = p.device() ? p.device()->logicalDpiY() : 0;
    const double minLabelWidth = ctx.labelMinWidth(fm, dpi);
    const bool labels = height >= fm.height() * 0.8;
    bool edgeDependent = false;

    const auto [first, last] = iv.visible(mapping.toNs(double(clipX0) - 2), mapping.toNs(double(clipX1) + 2));
    bool run = false;
    double runX0 = 0, runX1 = 0;
    std::uint8_t runStyle = 0;
    auto flush = [&] {
        if (!run)
            return;
        const double left = std::floor(runX0);
        const double right = std::max(left + 1, std::round(runX1));
        p.fillRect(QRectF(left, top, right - left, height), edges[runStyle % kRangeColorCount]);
        ++ctx.stats.foldedMarks;
        run = false;
    };
    double coveredTo = -std::numeric_limits<double>::infinity();
    for (std::size_t k = first; k < last; ++k) {
        ++ctx.stats.opsVisited;
        const double x0 = mapping.toX(iv.starts[k]);
        const double x1 = mapping.toX(iv.ends[k]);
        if (x1 < clipX0 - 1 || x1 <= coveredTo)
            continue;
        const std::uint8_t style = iv.styles[k];
        if (x1 - x0 < TimelinePaintContext::kFoldPixels) {
            if (run && x0 <= runX1 + TimelinePaintContext::kFoldGapPixels) {
                runX1 = std::max(runX1, x1);
                continue;
            }
            flush();
            run = true;
            runX0 = x0;
            runX1 = x1;
            runStyle = style;
            continue;
        }
        flush();
        // Clamped as doubles: deep in a zoom a long range's edges lie far beyond what an int holds.
        const double left = std::max(double(clipX0) - 2, std::floor(x0));
        const double right = std::min(double(clipX1) + 2, std::round(x1));
        const QRectF r(left, top, right - left, height);
        const QColor &fill = colors[style % kRangeColorCount];
        p.fillRect(r, fill);
        p.fillRect(QRectF(std::floor(x0), top, 1, height), edges[style % kRangeColorCount]);
        ++ctx.stats.barsDrawn;
        coveredTo = std::max(coveredTo, x1);
        // The name inside the visible part of the bar, so a long range that starts off-screen still
        // says what it is.
        const QRectF visible = r.intersected(QRectF(rect.left(), r.top(), rect.width(), r.height()));
        if (!labels || visible.width() < minLabelWidth)
            continue;
        const std::uint32_t name = nameOf(k);
        if (name == engine::kNoString)
            continue;
        const QString &text = ctx.barLabel(fm, dpi, name, int(visible.width() - 6));
        if (text.isEmpty())
            continue;
        if (x0 < rect.left() || x1 > rect.right() + 1)
            edgeDependent = true;
        p.setFont(ctx.metrics.font);
        p.setPen(OpPalette::textOn(fill));
        p.drawText(visible.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    }
    flush();
    return edgeDependent;
}

} // namespace streamscope::ui
