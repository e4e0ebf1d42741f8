// Private to the paint context and the passes over it (Qt's _p.h convention): the helpers the passes share and the
// paint context's caches, which no user of TimelinePainter sees. The passes: timeline_interval_pass.cpp
// (bars, folded marks, queued time, labels), timeline_column_pass.cpp (counter and bandwidth lanes as
// per-pixel columns), timeline_range_pass.cpp (host ranges, NVTX projections) and the frame passes
// timeline_{header,ruler,legend,overlay}_pass.cpp; timeline_painter.cpp dispatches to them.
#pragma once

#include <QPainter>
#include <QRgba64>
#include <QString>

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ui/timeline/timeline_paint_context.h"

namespace streamscope::ui {

namespace painter_detail {

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
// pixels that an aliased cosmetic line or a fillRect(QRectF) rounded by the engine would touch. The
// passes take their shortcuts only there; SVG and high-DPI painting take the general paths.
bool rasterAtWholePixels(const QPainter &p);

// The pixel columns of the grid ticks that touch the strip [clipX0, clipX1) (one may lie just outside it;
// the strip's clip drops it). paintGrid draws them and the derived lanes blend over them.
void gridColumns(const TimeMapping &mapping, int clipX0, int clipX1, std::vector<int> &out);

// A queued-time segment: the op's colour at a fifth over the lane's background, as an opaque colour (the
// same pixels on every device and in SVG), outlined dashed in the op's colour. The lanes and the legend's
// swatch draw it alike.
void paintQueuedBox(QPainter &p, const QRectF &r, const QColor &opColor, const QColor &background);

// Bar labels are the fixed cost of a frame with few ops in view (a thousand labels, each shaped by
// HarfBuzz twice: once to elide, once to draw). Traces have few distinct names, so the name as a
// QString, its advance and its elided forms per width are kept until the model, font or device DPI
// changes; a name that fits (the common case) is then never measured again.
struct LabelCache {
    int logicalDpi = 0;
    std::vector<QString> names; // by nameId, converted on first use
    std::vector<int> advances; // by nameId; -1: not measured yet
    std::unordered_map<std::uint64_t, QString> elided; // (nameId << 32 | width) -> elided name
    int minWidth = -1; // labelMinWidth; -1: not measured yet
};

// blendedPixel's results: a handful of (format, under, colour) triples per palette.
struct BlendEntry {
    int format;
    QRgb under;
    QRgba64 src;
    QRgb result;
};

} // namespace painter_detail

struct TimelinePaintContext::Caches {
    painter_detail::LabelCache labels;
    std::vector<painter_detail::BlendEntry> blends;
};

} // namespace streamscope::ui
