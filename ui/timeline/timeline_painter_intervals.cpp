// TimelinePainter's interval pass: stream and host lanes' bars, folded marks for ops narrower than a few
// pixels, queued-time segments and bar labels (see timeline_painter_p.h).
#include "ui/common/format_units.h"
#include "ui/timeline/timeline_painter.h"
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

#include "engine/analysis/analysis.h"
#include "engine/model/op_colors.h"
#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"

namespace streamscope::ui {

using engine::OpKind;
using namespace painter_detail;

void painter_detail::paintQueuedBox(QPainter &p, const QRectF &r, const QColor &opColor, const QColor &background)
{
    p.fillRect(r, QColor::fromRgbF(background.redF() * 0.8f + opColor.redF() * 0.2f,
                                   background.greenF() * 0.8f + opColor.greenF() * 0.2f,
                                   background.blueF() * 0.8f + opColor.blueF() * 0.2f));
    p.setPen(QPen(opColor, 1, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
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
        paintQueuedBox(p, QRectF(x0, top, x1 - x0, height),
                       m_palette->opColor(engine::OpKind(q.styles[k] & IntervalLane::kKindMask)), background);
    }
}

// The part of each bar that the other ops cost it (Lane::slowed): a 2 px mark where the op would have ended
// alone, and the rest of the bar hatched in the bar's own colour darkened, so the slowdown reads where it
// happened. Under three pixels a segment is not drawn (nothing to see inside a folded mark).
void TimelinePainter::paintSlowed(QPainter &p, const Lane &lane, const QRect &rect, const TimeMapping &mapping,
                                  int clipX0, int clipX1) const
{
    const IntervalLane &s = lane.slowed;
    const double pad = rect.height() >= 16 ? 3 : 1;
    const double top = rect.top() + pad;
    const double height = rect.height() - 2 * pad - 1;
    const auto [first, last] = s.visible(mapping.toNs(double(clipX0) - 2), mapping.toNs(double(clipX1) + 2));
    for (std::size_t k = first; k < last; ++k) {
        const double xs = mapping.toX(s.starts[k]);
        const double x0 = std::max(double(clipX0) - 1, xs);
        const double x1 = std::min(double(clipX1) + 1, mapping.toX(s.ends[k]));
        if (x1 - x0 < 3)
            continue;
        const QColor bar = m_palette->opColor(engine::OpKind(s.styles[k] & IntervalLane::kKindMask));
        p.fillRect(QRectF(x0, top, x1 - x0, height), QBrush(bar.darker(160), Qt::BDiagPattern));
        if (xs >= double(clipX0) - 2)
            p.fillRect(QRectF(std::round(xs) - 1, top, 2, height), bar.darker(220));
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
    double runX0 = 0, runX1 = 0;
    std::uint8_t runStyle = 0;
    bool runBlocking = false;
    long long runCount = 0;
    // The last bar drawn, and its label, which waits until the next bar is known: a bar of the same kind
    // wholly inside it changes no pixel but its label, so it is not painted again (half a million ops at
    // one timestamp on one lane are one bar, not half a million; only the label of the last one shows,
    // as it did when each was painted over the one before).
    struct DrawnBar {
        bool valid = false;
        double left = 0, right = 0; // snapped to pixel columns, as drawBar draws them
        std::uint8_t style = 0;
        bool hasLabel = false; // a label waits to be drawn over it
        QString text;
        QRectF textRect;
    } drawn;
    auto drawPendingLabel = [&]() {
        if (drawn.hasLabel) {
            p.setFont(m_metrics.font);
            p.setPen(OpPalette::textOn(colorOf(drawn.style)));
            p.drawText(drawn.textRect, Qt::AlignVCenter | Qt::AlignLeft, drawn.text);
            drawn.hasLabel = false;
        }
    };

    auto flushMark = [&]() {
        if (!run)
            return;
        drawPendingLabel(); // the mark goes over it
        drawn.valid = false;
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
    // A folded mark says what its lane did column by column, by time: each pixel column of the run
    // takes the kind that was busy longest in it (the time of the ops that start there), and the mark
    // is split where that changes. Neither the widest op nor the most numerous kind: a stream of many
    // short kernels between fewer, longer copies reads as copies only where the copies took the time.
    std::array<double, 16> colTime{}; // by kind, the pending column's ops, in pixels
    double colIndex = 0; // the pending column
    bool colAny = false; // it holds ops not decided yet
    bool runDecided = false; // the run has a kind from a column already
    auto splitAt = [&](double column, std::uint8_t kind) {
        if (runDecided && kind != (runStyle & IntervalLane::kKindMask) && column > runX0) {
            // The mark so far ends where this column begins; a new one starts here.
            const double keep = runX1;
            runX1 = column;
            flushMark();
            run = true;
            runX0 = column;
            runX1 = keep;
            runCount = 0;
            runBlocking = false;
        }
        runStyle = kind;
        runDecided = true;
    };
    auto decideColumn = [&]() {
        if (!colAny)
            return;
        const auto kind = std::uint8_t(std::max_element(colTime.begin(), colTime.end()) - colTime.begin());
        colTime = {};
        colAny = false;
        splitAt(colIndex, kind);
    };
    auto addToColumn = [&](double x0, double x1, std::uint8_t style) {
        const double column = std::floor(x0);
        if (column != colIndex)
            decideColumn();
        colIndex = column;
        colTime[style & 0x0f] += std::max(x1 - x0, 1e-6);
        colAny = true;
    };
    auto flush = [&]() {
        if (!run)
            return;
        decideColumn();
        flushMark();
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
                    // The column takes the colour of the kind that was busy longest in it (its ops by
                    // their time), so a stream that interleaves copies and kernels reads as what took
                    // its time, not as its first op or its most numerous kind. Up to 256 ops are all
                    // counted, more are sampled evenly (a million ops in view); a blocking call is never
                    // sampled away (the OR over the bytes vectorises).
                    static_assert(engine::kOpKindCount <= 16);
                    std::array<double, 16> time{};
                    const std::size_t stride = std::max<std::size_t>(1, (jump - k) / 256);
                    for (std::size_t j = k; j < jump; j += stride)
                        time[iv.styles[j] & 0x0f] += double(iv.ends[j] - iv.starts[j]) * double(stride) + 1e-3;
                    // Ops of this column met one by one before it count with it; an earlier column still
                    // pending is decided first.
                    if (colAny && colIndex == column)
                        for (std::size_t c = 0; c < time.size(); ++c)
                            time[c] += colTime[c] * mapping.nsPerPixel();
                    else
                        decideColumn();
                    colTime = {};
                    colAny = false;
                    colIndex = column;
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
                    const auto dominant = std::uint8_t(std::max_element(time.begin(), time.end()) - time.begin());
                    if (!runDecided) {
                        runStyle = dominant;
                        runDecided = true;
                    } else if (dominant != (runStyle & IntervalLane::kKindMask)
                               || (host && anyBlocking != runBlocking)) {
                        if (column > runX0) {
                            // The mark so far ends where this column begins; a new one starts here.
                            const double keep = runX1;
                            runX1 = column;
                            flushMark();
                            run = true;
                            runX0 = column;
                            runX1 = keep;
                            runCount = 0;
                            runBlocking = false;
                        }
                        runStyle = dominant;
                    }
                    runX1 = std::max(runX1, mapping.toX(iv.maxEnd(jump - 1)));
                    runCount += (long long)(jump - k);
                    runBlocking = runBlocking || (host && anyBlocking);
                    m_stats.opsVisited += (long long)(jump - k - 1);
                    k = jump - 1;
                    continue;
                }
                // Its time counts for its column's kind, inside pixels this mark covers or not.
                addToColumn(x0, x1, style);
                ++runCount;
                if (x1 <= runX1 && !(blocking && !runBlocking))
                    continue; // wholly inside pixels this mark already covers
                runX1 = std::max(runX1, x1);
                runBlocking = runBlocking || blocking;
                continue;
            }
            flush();
            if (x1 <= coveredTo)
                continue; // a narrow op wholly under a wide bar already drawn (overlapping imports)
            run = true;
            runX0 = x0;
            runX1 = x1;
            runStyle = style;
            runDecided = false;
            colTime = {};
            colAny = false;
            colIndex = std::floor(x0);
            addToColumn(x0, x1, style);
            runBlocking = blocking;
            runCount = 1;
            continue;
        }
        flush();
        coveredTo = std::max(coveredTo, x1);
        // Where drawBar puts it (snapped to whole columns).
        const double left = std::floor(x0);
        const double right = std::max(left + 1, std::round(x1));
        const bool thin = host && !blocking;
        const QRectF r(left, thin ? thinTop : fullTop, right - left, thin ? thinHeight : fullHeight);
        // Labels only where they fit, elided; the visible part of the bar so a long kernel that starts
        // off-screen still shows its name. Activity lanes carry no names: their tooltips say what each
        // record was.
        const QRectF visible = r.intersected(QRectF(rect.left(), r.top(), rect.width(), r.height()));
        const QString *label = nullptr;
        if (!activities && visible.width() >= minLabelWidth && r.height() >= fm.height() * 0.8) {
            const QString &text = barLabel(fm, dpi, m_model->op(iv.ops[k]).nameId, int(visible.width() - 6));
            if (!text.isEmpty())
                label = &text;
        }
        const bool inside = drawn.valid && style == drawn.style && left >= drawn.left && right <= drawn.right;
        const bool same = inside && left == drawn.left && right == drawn.right;
        // Covered: the same pixels in the same colour. Only its label (or the lack of one, painting over
        // the last bar's) could differ, and that waits until the next bar anyway.
        if (same || (inside && !drawn.hasLabel && !label)) {
            if (same) {
                drawn.hasLabel = label != nullptr;
                if (label) {
                    drawn.text = *label;
                    drawn.textRect = visible.adjusted(3, 0, -3, 0);
                    if (r.left() < rect.left() || r.right() > rect.right() + 1)
                        edgeDependent = true;
                }
            }
            continue;
        }
        drawPendingLabel();
        drawBar(x0, x1, style, blocking, false);
        ++m_stats.barsDrawn;
        drawn = DrawnBar{
            true, left, right, style, label != nullptr, label ? *label : QString(), visible.adjusted(3, 0, -3, 0)};
        if (label && (r.left() < rect.left() || r.right() > rect.right() + 1))
            edgeDependent = true;
    }
    drawPendingLabel();
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
    LabelCache &c = m_caches->labels;
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
    LabelCache &c = m_caches->labels;
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

} // namespace streamscope::ui
