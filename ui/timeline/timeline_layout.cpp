// layoutTimeline (see timeline_paint_context.h): the label column and the ruler, then each row's height:
// natural, shrunk to fit the target (or kept readable and scrolled), grown to fill it on slides, and the
// open groups' headers kept at the top of a scrolled view.
#include "ui/timeline/timeline_paint_context.h"

#include <QFontMetrics>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ui/timeline/lane_model.h"

namespace streamscope::ui {

namespace {

// Many streams: shrink every lane alike rather than hide some below the fold. An open group's header
// keeps its height while the lanes can give up enough: it is one line of bold title (a GPU, a
// process), and shrunk with the lanes it was cut in half (two GPUs' traces at 720p).
void shrinkToFit(const TimelinePaintContext &ctx, std::vector<int> &heights, int total, int available)
{
    const int count = int(heights.size());
    int headers = 0;
    for (int i = 0; i < count; ++i)
        if (ctx.rows[std::size_t(i)].isGroup() && !ctx.rows[std::size_t(i)].collapsed)
            headers += heights[std::size_t(i)];
    const bool keepHeaders = headers > 0 && available - headers >= (total - headers) / 4;
    const auto fixed = [&](int i) {
        return keepHeaders && ctx.rows[std::size_t(i)].isGroup() && !ctx.rows[std::size_t(i)].collapsed;
    };
    // Below the minimum rather than below the fold when even that does not fit (32 streams in
    // presentation mode at 720p): the headers size their titles to such lanes. A scrolling view
    // keeps a readable height instead, and scrolls.
    const int shown = int(std::count_if(heights.begin(), heights.end(), [](int h) { return h > 0; }));
    const int minimum = ctx.metrics.scrollable
                            ? std::max(ctx.metrics.minLaneHeight, ctx.metrics.readableLaneHeight)
                            : std::min(ctx.metrics.minLaneHeight, std::max(4, shown > 0 ? available / shown : 0));
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
    if (ctx.metrics.fillHeight && last >= 0 && used < available) {
        int left = available - used;
        for (int pass = 0; left > 0 && pass < 64; ++pass)
            for (int i = last; i >= 0 && left > 0; --i)
                if (heights[std::size_t(i)] > 0 && !fixed(i)) {
                    ++heights[std::size_t(i)];
                    --left;
                }
        heights[std::size_t(last)] += left;
    }
}

// Few lanes on a slide: each grows by the same factor, the last takes the rounding.
void growToFill(std::vector<int> &heights, int total, int available)
{
    const int count = int(heights.size());
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

// Sticky headers: an open group whose header is scrolled above the top while some of its rows are in
// view keeps its header at the top (nested groups stack under their parent's), pushed up by the
// group's end as it leaves.
void addStickyHeaders(const TimelinePaintContext &ctx, TimelineLayout &l, const std::vector<int> &heights, int lanesTop)
{
    const int count = int(heights.size());
    const QRect &target = l.target;
    int top = lanesTop;
    for (int i = 0; i < count; ++i) {
        const LaneRow &row = ctx.rows[std::size_t(i)];
        if (!row.isGroup() || row.collapsed || heights[std::size_t(i)] == 0 || l.lanes[std::size_t(i)].top() >= top)
            continue;
        int end = i;
        while (end + 1 < count && ctx.rows[std::size_t(end) + 1].depth > row.depth)
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

} // namespace

TimelineLayout layoutTimeline(const TimelinePaintContext &ctx, const QRect &target)
{
    TimelineLayout l;
    l.target = target;
    const int rulerHeight = ctx.metrics.showRuler ? ctx.metrics.rulerHeight : 0;
    const int legendHeight = ctx.metrics.showLegend ? ctx.metrics.legendHeight : 0;
    // The user's width, else the mode's, widened to show the labels whole up to a quarter of the target.
    const int headerWidth = ctx.labelWidth > 0
                                ? std::clamp(ctx.labelWidth, 60, std::max(60, target.width() * 2 / 3))
                                : std::max(std::min(ctx.metrics.headerWidth, std::max(60, target.width() / 3)),
                                           std::min(ctx.fittedWidth, std::max(60, target.width() / 4)));
    l.corner = QRect(target.left(), target.top(), headerWidth, rulerHeight);
    l.ruler = QRect(target.left() + headerWidth, target.top(), std::max(1, target.width() - headerWidth), rulerHeight);
    int lanesTop = target.top() + rulerHeight;
    if (!ctx.metrics.groupTitle.isEmpty()) {
        // A compact view's title: one line of bold text above its lanes, across the whole width.
        QFont bold = ctx.metrics.font;
        bold.setBold(true);
        const int height = QFontMetrics(bold).height() + 6;
        l.title = QRect(target.left(), lanesTop, target.width(), height);
        lanesTop += height;
    }
    const int available = std::max(0, target.bottom() + 1 - lanesTop - legendHeight);

    const int count = ctx.model ? int(ctx.rows.size()) : 0;
    if (ctx.model) {
        l.rows = ctx.rows;
        l.rowOfLane.assign(std::size_t(ctx.model->laneCount()), -1);
        for (int r = 0; r < count; ++r)
            if (ctx.rows[std::size_t(r)].lane >= 0)
                l.rowOfLane[std::size_t(ctx.rows[std::size_t(r)].lane)] = r;
    }
    std::vector<int> heights(static_cast<std::size_t>(count));
    int total = 0;
    for (int i = 0; i < count; ++i) {
        const LaneRow &row = ctx.rows[std::size_t(i)];
        // A compact view shows only some kinds of lane (its groups are its own header).
        const bool shown = row.lane < 0
                               ? ctx.metrics.groupTitle.isEmpty()
                               : ((ctx.metrics.laneKinds >> unsigned(ctx.model->lane(row.lane).kind)) & 1u) != 0;
        heights[std::size_t(i)] = shown ? ctx.rowHeight(row) : 0;
        total += heights[std::size_t(i)];
    }
    if (total > available && total > 0)
        shrinkToFit(ctx, heights, total, available);
    else if (ctx.metrics.fillHeight && total > 0 && total < available)
        growToFill(heights, total, available);
    const int content = std::accumulate(heights.begin(), heights.end(), 0);
    if (ctx.metrics.scrollable) {
        l.contentHeight = content;
        l.maxScrollY = std::max(0, content - available);
        l.scrollY = std::clamp(ctx.scrollY, 0, l.maxScrollY);
    }
    int y = lanesTop - l.scrollY;
    for (int i = 0; i < count; ++i) {
        l.lanes.emplace_back(l.ruler.left(), y, l.ruler.width(), heights[std::size_t(i)]);
        y += heights[std::size_t(i)];
    }
    // The visible part of the rows.
    const int visible = ctx.metrics.scrollable ? std::min(content, available) : y - lanesTop;
    l.headers = QRect(target.left(), lanesTop, headerWidth, visible);
    l.plot = QRect(l.ruler.left(), lanesTop, l.ruler.width(), visible);
    const int legendTop =
        std::min(lanesTop + visible + (ctx.metrics.fillHeight ? 0 : 2), target.bottom() + 1 - legendHeight);
    l.legend = QRect(target.left(), std::max(lanesTop, legendTop), target.width(), legendHeight);
    if (l.scrollY > 0)
        addStickyHeaders(ctx, l, heights, lanesTop);
    return l;
}

} // namespace streamscope::ui
