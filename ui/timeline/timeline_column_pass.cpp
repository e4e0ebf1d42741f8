// ColumnPass (see timeline_column_pass.h): per-pixel min/max columns of step functions, with the opaque
// shortcut for translucent layers.
#include "ui/timeline/timeline_column_pass.h"
#include "ui/common/format_units.h"
#include "ui/timeline/timeline_paint_context_p.h"

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
using namespace painter_detail;

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

QRgb ColumnPass::blendedPixel(const TimelinePaintContext &ctx, int format, QRgb under, const QColor &src)
{
    const QRgba64 key = src.rgba64();
    for (const BlendEntry &e : ctx.caches->blends)
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
    if (ctx.caches->blends.size() >= 256) // a palette has a few dozen; bound it against anything unforeseen
        ctx.caches->blends.clear();
    ctx.caches->blends.push_back({format, under, key, result});
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
void ColumnPass::drawColumnLayers(QPainter &p, const TimelinePaintContext &ctx, const ColumnLayer *layers,
                                  int layerCount, const QColor &background, const TimeMapping &mapping, int clipX0,
                                  double baseline, double scale) const
{
    Q_ASSERT(layerCount >= 1 && layerCount <= 2);
    QPaintDevice *device = p.device();
    int format = QImage::Format_ARGB32_Premultiplied; // a raster pixmap: 32-bit, opaque here
    if (device && device->devType() == QInternal::Image)
        format = static_cast<const QImage *>(device)->format();
    const bool fast = opaqueLayers(p) && background.alpha() == 255
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
        fillColor[2 * std::size_t(l)] = layers[l].color;
        fillColor[2 * std::size_t(l)].setAlpha(110); // as drawColumns' light part
        fillColor[2 * std::size_t(l) + 1] = layers[l].color;
    }
    // A segment's colour by slot: 16 * (on a grid column) + the set of fills covering it.
    const QRgb backgroundPixel = blendedPixel(ctx, format, 0xff000000u, background);
    const QRgb gridPixel = blendedPixel(ctx, format, backgroundPixel, ctx.palette->grid());
    std::array<QRgb, 32> slotColor{};
    std::array<bool, 32> slotKnown{};
    bool allOpaque = qAlpha(gridPixel) == 255;
    auto colorOf = [&](int slot) {
        if (!slotKnown[std::size_t(slot)]) {
            QRgb c = slot >= 16 ? gridPixel : backgroundPixel;
            for (int f = 0; f < kFills; ++f)
                if (slot & (1 << f))
                    c = blendedPixel(ctx, format, c, fillColor[std::size_t(f)]);
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
            const int to = i + 1 < count ? tops[std::size_t(i) + 1].first : bottom;
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

void ColumnPass::paintCounter(QPainter &p, const TimelinePaintContext &ctx, const Lane &lane, const QRect &rect,
                              const QColor &background, const TimeMapping &mapping, int clipX0, int clipX1) const
{
    const QColor color = lane.kind == LaneKind::H2DActivity   ? ctx.palette->h2d()
                         : lane.kind == LaneKind::D2HActivity ? ctx.palette->d2h()
                         : lane.kind == LaneKind::D2DActivity ? ctx.palette->opColor(engine::OpKind::CopyD2D)
                                                              : ctx.palette->compute();
    paintSteps(p, ctx, lane.counts, color, rect, background, mapping, clipX0, clipX1);
}

void ColumnPass::paintSteps(QPainter &p, const TimelinePaintContext &ctx, const StepSeries &s, const QColor &color,
                            const QRect &rect, const QColor &background, const TimeMapping &mapping, int clipX0,
                            int clipX1) const
{
    if (s.maxValue <= 0)
        return;
    thread_local std::vector<float> lo, hi;
    columnMinMax(s, mapping, clipX0, clipX1, ctx.model->durationNs(), lo, hi);
    const double pad = 3;
    const double baseline = rect.bottom() + 1 - pad;
    // At most one active at a time reads as on/off: scale to 1. Otherwise steps per count.
    const double scale = (rect.height() - 2 * pad - 1) / std::max(1.0f, s.maxValue);
    const ColumnLayer layer{&lo, &hi, color};
    drawColumnLayers(p, ctx, &layer, 1, background, mapping, clipX0, baseline, scale);
}

void ColumnPass::paintBandwidth(QPainter &p, const TimelinePaintContext &ctx, const Lane &lane, const QRect &rect,
                                const QColor &background, const TimeMapping &mapping, int clipX0, int clipX1) const
{
    const double peak = lane.peakGBs;
    const double top = std::max({double(lane.counts.maxValue), double(lane.d2hBandwidth.maxValue), peak});
    if (top <= 0)
        return;
    const double pad = 3;
    const double baseline = rect.bottom() + 1 - pad;
    const double scale = (rect.height() - 2 * pad - 1) / (top * 1.08);
    thread_local std::vector<float> h2dLo, h2dHi, d2hLo, d2hHi;
    columnMinMax(lane.counts, mapping, clipX0, clipX1, ctx.model->durationNs(), h2dLo, h2dHi);
    if (lane.kind == LaneKind::PeerLink) {
        // One direction between two GPUs: one layer, in the P2P copy's colour.
        const ColumnLayer layer{&h2dLo, &h2dHi, ctx.palette->opColor(engine::OpKind::CopyP2P)};
        drawColumnLayers(p, ctx, &layer, 1, background, mapping, clipX0, baseline, scale);
    } else {
        columnMinMax(lane.d2hBandwidth, mapping, clipX0, clipX1, ctx.model->durationNs(), d2hLo, d2hHi);
        // D2H on top, translucent, so simultaneous transfers in both directions both stay visible.
        QColor d2h = ctx.palette->d2h();
        d2h.setAlpha(200);
        const std::array<ColumnLayer, 2> layers{ColumnLayer{&h2dLo, &h2dHi, ctx.palette->h2d()},
                                                ColumnLayer{&d2hLo, &d2hHi, d2h}};
        drawColumnLayers(p, ctx, layers.data(), 2, background, mapping, clipX0, baseline, scale);
    }
    if (peak > 0) {
        const double y = std::round(baseline - peak * scale) + 0.5;
        QPen pen(ctx.palette->peakLine(), ctx.palette->presentation() ? 2 : 1, Qt::DashLine);
        p.setPen(pen);
        p.drawLine(QPointF(clipX0, y), QPointF(clipX1, y));
    }
}

// A group's header: when collapsed, how many of its lanes were busy at each moment (the summary of
// the lanes it stands for), in a neutral colour; open, a plain band.
void ColumnPass::paintGroupRow(QPainter &p, const TimelinePaintContext &ctx, const LaneRow &row, const QRect &rect,
                               const QColor &background, const TimeMapping &mapping, int clipX0, int clipX1) const
{
    if (!row.collapsed || !ctx.tree)
        return;
    paintSteps(p, ctx, ctx.tree->group(row.group).busy, ctx.palette->mutedText(), rect, background, mapping, clipX0,
               clipX1);
}

const ColumnPass &columnPass()
{
    static const ColumnPass pass;
    return pass;
}

bool ColumnPass::paint(QPainter &p, const TimelineLaneState &state) const
{
    switch (state.lane.kind) {
    case LaneKind::H2DActivity:
    case LaneKind::D2HActivity:
    case LaneKind::D2DActivity:
    case LaneKind::ComputeActivity:
        paintCounter(p, state.ctx, state.lane, state.rect, state.background, state.mapping, state.clipX0, state.clipX1);
        break;
    case LaneKind::Bandwidth:
    case LaneKind::PeerLink:
        paintBandwidth(p, state.ctx, state.lane, state.rect, state.background, state.mapping, state.clipX0,
                       state.clipX1);
        break;
    default: break;
    }
    return false;
}

bool ColumnPass::opaqueLayers(const QPainter &p) const
{
    return rasterAtWholePixels(p);
}

} // namespace streamscope::ui
