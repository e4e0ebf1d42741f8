// IntervalPass (see timeline_interval_pass.h). The bars are painted by a BarStrip, one per lane strip: the
// walk over the ops in view (paint) in named steps: narrow ops fold into marks (foldNarrow, foldColumn,
// decideColumn, splitMark), wide ones become bars with their labels (paintWide), one-column and deferred
// marks go into rows of pixels (drawBar, paintDeferred) drawn at the end (drawRows).
#include "ui/timeline/timeline_interval_pass.h"
#include "ui/timeline/timeline_paint_context_p.h"

#include <QFontMetrics>
#include <QImage>
#include <QPaintDevice>
#include <QPainter>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

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

namespace {

// The bars of one lane strip: the state of the walk over its ops (the mark being folded, the bar drawn
// last and its label, the rows of one-column marks) and the steps that move it on.
class BarStrip {
public:
    BarStrip(QPainter &p, const TimelineLaneState &state, bool deferMarks) :
        m_p(p), m_ctx(state.ctx), m_iv(state.lane.intervals), m_rect(state.rect), m_mapping(state.mapping),
        m_clipX0(state.clipX0), m_clipX1(state.clipX1), m_host(state.lane.kind == LaneKind::HostThread),
        m_activities(isActivityLane(state.lane.kind)), m_pad(state.rect.height() >= 16 ? 3 : 1),
        m_fullTop(state.rect.top() + m_pad), m_fullHeight(state.rect.height() - 2 * m_pad - 1),
        // Host calls that do not block are drawn half height; blocking ones full height and hatched, so
        // a "cudaMemcpyAsync" that in fact held the thread stands out at a glance.
        m_thinTop(m_fullTop + std::round(m_fullHeight * 0.25)), m_thinHeight(std::round(m_fullHeight * 0.5)),
        m_fm(state.ctx.metrics.font, p.device()), m_dpi(p.device() ? p.device()->logicalDpiY() : 0),
        m_minLabelWidth(state.ctx.labelMinWidth(m_fm, m_dpi)),
        m_hatch(state.ctx.palette->blockingHatch(), Qt::BDiagPattern), m_columns(state.clipX1 - state.clipX0),
        m_fullRow(m_columns, 1, QImage::Format_ARGB32_Premultiplied),
        m_thinRow(m_columns, 1, QImage::Format_ARGB32_Premultiplied), m_blockingColumn(std::size_t(m_columns), 0),
        m_deferMarks(deferMarks), m_deferred(deferMarks ? std::size_t(m_columns) : 0, 0), m_deferredLo(m_columns)
    {
        m_fullRow.fill(Qt::transparent);
        m_thinRow.fill(Qt::transparent);
        m_fullPixels = reinterpret_cast<QRgb *>(m_fullRow.scanLine(0));
        m_thinPixels = reinterpret_cast<QRgb *>(m_thinRow.scanLine(0));
    }

    // Paints the strip's ops; true when the picture depends on where the lane's edges are.
    bool paint()
    {
        const auto [first, last] =
            m_iv.visible(m_mapping.toNs(double(m_clipX0) - 2), m_mapping.toNs(double(m_clipX1) + 2));
        m_last = last;
        for (std::size_t k = first; k < last; ++k) {
            ++m_ctx.stats.opsVisited;
            const double x0 = m_mapping.toX(m_iv.starts[k]);
            const double x1 = m_mapping.toX(m_iv.ends[k]);
            if (x1 < m_clipX0 - 1)
                continue; // before the strip: only the running max end brought it in
            if (x1 - x0 < TimelinePaintContext::kFoldPixels)
                k = foldNarrow(k, x0, x1);
            else
                paintWide(k, x0, x1);
        }
        drawPendingLabel();
        flush();
        drawRows();
        return m_edgeDependent;
    }

private:
    enum : std::uint8_t { kDeferredFull = 1, kDeferredThin = 2 };
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
    };

    // The palette builds a QColor per call; a mark per column and lane made that a cost of its own.
    std::size_t known(std::uint8_t style)
    {
        const std::size_t kind = style & IntervalLane::kKindMask;
        if (!m_kindKnown[kind]) {
            m_kindColors[kind] = m_ctx.palette->opColor(OpKind(kind));
            m_kindRgba[kind] = m_kindColors[kind].rgba();
            m_kindKnown[kind] = true;
        }
        return kind;
    }
    const QColor &colorOf(std::uint8_t style) { return m_kindColors[known(style)]; }
    QRgb rgbaOf(std::uint8_t style) { return m_kindRgba[known(style)]; }

    // Folded marks wider than a column (runs of a few columns when the kinds in view alternate) were one
    // fillRect each, a raster span per row: the largest cost left in a frame with a million ops. Where a
    // logical pixel is a device pixel they go into the same rows of pixels as the one-column marks, but
    // "deferred": in paint order they lie under everything drawn after them, which the rows (drawn last)
    // would not. So before anything else is painted over their columns (a bar, its hatch, its label),
    // the deferred pixels there are painted first, as the fillRect they stand for would have been; and a
    // one-column mark, drawn last in any case, is never displaced by a deferred one.
    void paintDeferred(int from, int to) // strip columns [from, to)
    {
        from = std::max(from, m_deferredLo);
        to = std::min(to, m_deferredHi);
        if (from >= to)
            return;
        // Full rows first: where a thin mark is deferred over a deferred full one, it came later.
        for (const std::uint8_t bit : {std::uint8_t(kDeferredFull), std::uint8_t(kDeferredThin)}) {
            QRgb *row = bit == kDeferredFull ? m_fullPixels : m_thinPixels;
            for (int c = from; c < to;) {
                if (!(m_deferred[std::size_t(c)] & bit)) {
                    ++c;
                    continue;
                }
                const QRgb color = row[c];
                int e = c;
                while (e < to && (m_deferred[std::size_t(e)] & bit) && row[e] == color) {
                    m_deferred[std::size_t(e)] &= std::uint8_t(~bit);
                    row[e] = 0;
                    ++e;
                }
                m_p.fillRect(bit == kDeferredFull ? QRectF(m_clipX0 + c, m_fullTop, e - c, m_fullHeight)
                                                  : QRectF(m_clipX0 + c, m_thinTop, e - c, m_thinHeight),
                             QColor::fromRgba(color));
                c = e;
            }
        }
    }

    // A one-column mark: a pixel of its row (opaque: premultiplied as is), drawn with the rows at the end.
    void setColumnPixel(std::size_t c, bool thin, std::uint8_t style, bool blocking)
    {
        (thin ? m_thinPixels : m_fullPixels)[c] = rgbaOf(style);
        (thin ? m_anyThin : m_anyFull) = true;
        m_blockingColumn[c] = m_host && blocking;
        if (m_deferMarks) {
            // This pixel replaces a deferred one in its row; a full mark also covers a deferred thin one
            // (drawn before it in paint order, the rows draw thin over full).
            m_deferred[c] &= std::uint8_t(thin ? ~kDeferredThin : ~kDeferredFull);
            if (!thin && (m_deferred[c] & kDeferredThin)) {
                m_thinPixels[c] = 0;
                m_deferred[c] &= std::uint8_t(~kDeferredThin);
            }
        }
    }

    // A mark wider than a column, deferred: its pixels go into the rows (see paintDeferred).
    void deferMark(int from, int to, bool thin, QRgb rgba)
    {
        for (int c = from; c < to; ++c) {
            auto &d = m_deferred[std::size_t(c)];
            if (!thin) {
                if (!m_fullPixels[c] || (d & kDeferredFull)) { // a one-column mark there stays on top
                    m_fullPixels[c] = rgba;
                    d |= kDeferredFull;
                }
                if (d & kDeferredThin) { // an earlier thin mark, covered by this one
                    m_thinPixels[c] = 0;
                    d &= std::uint8_t(~kDeferredThin);
                }
            } else if ((!m_thinPixels[c] || (d & kDeferredThin)) && (!m_fullPixels[c] || (d & kDeferredFull))) {
                // (A one-column full mark there is drawn after this in any case and covers it.)
                m_thinPixels[c] = rgba;
                d |= kDeferredThin;
            }
        }
        if (from < to) {
            (thin ? m_anyThin : m_anyFull) = true;
            m_deferredLo = std::min(m_deferredLo, from);
            m_deferredHi = std::max(m_deferredHi, to);
        }
    }

    QRectF drawBar(double x0, double x1, std::uint8_t style, bool blocking, bool mark)
    {
        const bool thin = m_host && !blocking;
        // Snap to whole pixel columns: a mark narrower than a pixel lands in the column its start falls
        // in (where the ruler and the picking put that time), never rounded away.
        const double left = std::floor(x0);
        const double right = std::max(left + 1, std::round(x1));
        const QRectF r(left, thin ? m_thinTop : m_fullTop, right - left, thin ? m_thinHeight : m_fullHeight);
        if (right - left == 1 && left >= m_clipX0 && left < m_clipX1) {
            setColumnPixel(std::size_t(left - m_clipX0), thin, style, blocking);
            return r;
        }
        const QRgb rgba = rgbaOf(style);
        // Clamped as doubles: deep in a zoom a long op's edges lie far beyond what an int holds.
        const int from = int(std::max(double(m_clipX0), left)) - m_clipX0;
        const int to = int(std::min(double(m_clipX1), right)) - m_clipX0;
        if (m_deferMarks && mark && !(m_host && blocking) && qAlpha(rgba) == 255) {
            deferMark(from, to, thin, rgba);
            return r;
        }
        if (m_deferMarks)
            paintDeferred(from, to);
        m_p.fillRect(r, colorOf(style));
        if (m_host && blocking)
            m_p.fillRect(r, m_hatch);
        return r;
    }

    void drawPendingLabel()
    {
        if (m_drawn.hasLabel) {
            m_p.setFont(m_ctx.metrics.font);
            m_p.setPen(OpPalette::textOn(colorOf(m_drawn.style)));
            m_p.drawText(m_drawn.textRect, Qt::AlignVCenter | Qt::AlignLeft, m_drawn.text);
            m_drawn.hasLabel = false;
        }
    }

    void flushMark()
    {
        if (!m_run)
            return;
        drawPendingLabel(); // the mark goes over it
        m_drawn.valid = false;
        // No "N ops" label on a folded mark: where a mark is split depends on the strip being painted,
        // and a label would not survive the cached pan (the tooltip names the op under the pointer).
        drawBar(m_runX0, m_runX1, m_runStyle, m_runBlocking, true);
        if (m_runCount > 1)
            ++m_ctx.stats.foldedMarks;
        else
            ++m_ctx.stats.barsDrawn;
        m_run = false;
    }

    // The mark so far ends where `column` begins; a new one starts there.
    void splitMark(double column)
    {
        const double keep = m_runX1;
        m_runX1 = column;
        flushMark();
        m_run = true;
        m_runX0 = column;
        m_runX1 = keep;
        m_runCount = 0;
        m_runBlocking = false;
    }

    // A folded mark says what its lane did column by column, by time: each pixel column of the run
    // takes the kind that was busy longest in it (the time of the ops that start there), and the mark
    // is split where that changes. Neither the widest op nor the most numerous kind: a stream of many
    // short kernels between fewer, longer copies reads as copies only where the copies took the time.
    void splitAt(double column, std::uint8_t kind)
    {
        if (m_runDecided && kind != (m_runStyle & IntervalLane::kKindMask) && column > m_runX0)
            splitMark(column);
        m_runStyle = kind;
        m_runDecided = true;
    }

    void decideColumn()
    {
        if (!m_colAny)
            return;
        const auto kind = std::uint8_t(std::max_element(m_colTime.begin(), m_colTime.end()) - m_colTime.begin());
        m_colTime = {};
        m_colAny = false;
        splitAt(m_colIndex, kind);
    }

    void addToColumn(double x0, double x1, std::uint8_t style)
    {
        const double column = std::floor(x0);
        if (column != m_colIndex)
            decideColumn();
        m_colIndex = column;
        m_colTime[style & IntervalLane::kKindMask] += std::max(x1 - x0, 1e-6);
        m_colAny = true;
    }

    void flush()
    {
        if (!m_run)
            return;
        decideColumn();
        flushMark();
    }

    // An op narrower than kFoldPixels at index k: it joins the mark being folded or starts one. Returns
    // the index of the last op handled (several when a whole column is folded at once).
    std::size_t foldNarrow(std::size_t k, double x0, double x1)
    {
        const std::uint8_t style = m_iv.styles[k];
        const bool blocking = (style & IntervalLane::kBlockingBit) != 0;
        if (m_run && x0 <= m_runX1 + TimelinePaintContext::kFoldGapPixels) {
            const std::size_t folded = foldColumn(k);
            if (folded > k)
                return folded;
            // Its time counts for its column's kind, inside pixels this mark covers or not.
            addToColumn(x0, x1, style);
            ++m_runCount;
            if (x1 <= m_runX1 && !(blocking && !m_runBlocking))
                return k; // wholly inside pixels this mark already covers
            m_runX1 = std::max(m_runX1, x1);
            m_runBlocking = m_runBlocking || blocking;
            return k;
        }
        flush();
        if (x1 <= m_coveredTo)
            return k; // a narrow op wholly under a wide bar already drawn (overlapping imports)
        m_run = true;
        m_runX0 = x0;
        m_runX1 = x1;
        m_runStyle = style;
        m_runDecided = false;
        m_colTime = {};
        m_colAny = false;
        m_colIndex = std::floor(x0);
        addToColumn(x0, x1, style);
        m_runBlocking = blocking;
        m_runCount = 1;
        return k;
    }

    // Many ops per pixel (fit-all of a million): folds every op that starts in the run's last pixel
    // column at once, found by binary search, when the running max end shows that none of them reaches
    // more than a pixel further (so none would have been a bar of its own). Returns the last op folded,
    // or k when the column cannot be folded at once.
    std::size_t foldColumn(std::size_t k)
    {
        const double column = std::floor(m_runX1);
        const qint64 boundary = m_mapping.toNs(column + 1);
        // Neighbouring columns hold about as many ops: start the search three quarters of the previous
        // column's count ahead, where the boundary usually is a few ops further.
        const std::size_t guess = std::min(m_last, k + m_foldHint * 3 / 4);
        const std::size_t jump = guess > k && m_iv.starts[guess - 1] >= boundary
                                     ? gallop<false>(m_iv.starts, k, guess, boundary)
                                     : gallop<false>(m_iv.starts, guess, m_last, boundary);
        m_foldHint = jump - k;
        if (jump <= k + 1 || m_mapping.toX(m_iv.maxEnd(jump - 1)) > column + 2)
            return k;
        const std::uint8_t dominant = dominantKind(k, jump, column);
        const bool anyBlocking = m_host && anyBlockingIn(k, jump);
        if (!m_runDecided) {
            m_runStyle = dominant;
            m_runDecided = true;
        } else if (dominant != (m_runStyle & IntervalLane::kKindMask) || (m_host && anyBlocking != m_runBlocking)) {
            if (column > m_runX0)
                splitMark(column);
            m_runStyle = dominant;
        }
        m_runX1 = std::max(m_runX1, m_mapping.toX(m_iv.maxEnd(jump - 1)));
        m_runCount += (long long)(jump - k);
        m_runBlocking = m_runBlocking || anyBlocking;
        m_ctx.stats.opsVisited += (long long)(jump - k - 1);
        return jump - 1;
    }

    // The kind that was busy longest in a column of ops [k, jump) (its ops by their time), so a stream
    // that interleaves copies and kernels reads as what took its time, not as its first op or its most
    // numerous kind. Up to 256 ops are all counted, more are sampled evenly (a million ops in view).
    // Ops of this column met one by one before it count with it; an earlier column still pending is
    // decided first.
    std::uint8_t dominantKind(std::size_t k, std::size_t jump, double column)
    {
        std::array<double, kKindSlots> time{};
        const std::size_t stride = std::max<std::size_t>(1, (jump - k) / 256);
        for (std::size_t j = k; j < jump; j += stride)
            time[m_iv.styles[j] & IntervalLane::kKindMask] +=
                double(m_iv.ends[j] - m_iv.starts[j]) * double(stride) + 1e-3;
        if (m_colAny && m_colIndex == column)
            for (std::size_t c = 0; c < time.size(); ++c)
                time[c] += m_colTime[c] * m_mapping.nsPerPixel();
        else
            decideColumn();
        m_colTime = {};
        m_colAny = false;
        m_colIndex = column;
        return std::uint8_t(std::max_element(time.begin(), time.end()) - time.begin());
    }

    // Whether a call of [k, jump) blocked: never sampled away. Eight styles per step (hundreds of calls
    // share a column when a million are in view); a blocking one anywhere sets its byte's top bit (the
    // OR over the bytes vectorises).
    bool anyBlockingIn(std::size_t k, std::size_t jump) const
    {
        std::uint64_t wide = 0;
        std::size_t j = k;
        for (; j + 8 <= jump; j += 8) {
            std::uint64_t eight;
            std::memcpy(&eight, m_iv.styles.data() + j, sizeof eight);
            wide |= eight;
        }
        std::uint8_t bits = 0;
        for (; j < jump; ++j)
            bits |= m_iv.styles[j];
        static_assert(IntervalLane::kBlockingBit == 0x80);
        return (bits & IntervalLane::kBlockingBit) != 0 || (wide & 0x8080808080808080ULL) != 0;
    }

    // An op wide enough for a bar of its own, labelled where the label fits.
    void paintWide(std::size_t k, double x0, double x1)
    {
        const std::uint8_t style = m_iv.styles[k];
        const bool blocking = (style & IntervalLane::kBlockingBit) != 0;
        flush();
        m_coveredTo = std::max(m_coveredTo, x1);
        // Where drawBar puts it (snapped to whole columns).
        const double left = std::floor(x0);
        const double right = std::max(left + 1, std::round(x1));
        const bool thin = m_host && !blocking;
        const QRectF r(left, thin ? m_thinTop : m_fullTop, right - left, thin ? m_thinHeight : m_fullHeight);
        // Labels only where they fit, elided; the visible part of the bar so a long kernel that starts
        // off-screen still shows its name. Activity lanes carry no names: their tooltips say what each
        // record was.
        const QRectF visible = r.intersected(QRectF(m_rect.left(), r.top(), m_rect.width(), r.height()));
        const QString *label = nullptr;
        if (!m_activities && visible.width() >= m_minLabelWidth && r.height() >= m_fm.height() * 0.8) {
            const QString &text =
                m_ctx.barLabel(m_fm, m_dpi, m_ctx.model->op(m_iv.ops[k]).nameId, int(visible.width() - 6));
            if (!text.isEmpty())
                label = &text;
        }
        const bool cut = r.left() < m_rect.left() || r.right() > m_rect.right() + 1;
        const bool inside = m_drawn.valid && style == m_drawn.style && left >= m_drawn.left && right <= m_drawn.right;
        const bool same = inside && left == m_drawn.left && right == m_drawn.right;
        // Covered: the same pixels in the same colour. Only its label (or the lack of one, painting over
        // the last bar's) could differ, and that waits until the next bar anyway.
        if (same || (inside && !m_drawn.hasLabel && !label)) {
            if (same) {
                m_drawn.hasLabel = label != nullptr;
                if (label) {
                    m_drawn.text = *label;
                    m_drawn.textRect = visible.adjusted(3, 0, -3, 0);
                    m_edgeDependent = m_edgeDependent || cut;
                }
            }
            return;
        }
        drawPendingLabel();
        drawBar(x0, x1, style, blocking, false);
        ++m_ctx.stats.barsDrawn;
        m_drawn = DrawnBar{
            true, left, right, style, label != nullptr, label ? *label : QString(), visible.adjusted(3, 0, -3, 0)};
        if (label && cut)
            m_edgeDependent = true;
    }

    // Each row is drawn as an image as tall as its marks (the row repeated), not stretched from one
    // pixel row: the same pixels (all rows equal, so nearest sampling has nothing to choose), but at
    // device scale 1 the target then matches the source size and QPainter blits it instead of taking
    // its scaling path, which cost as much as the rest of the lane.
    void drawRow(const QImage &row, double top, double height)
    {
        const int rows = std::max(1, int(std::lround(height)));
        QImage tall(m_columns, rows, QImage::Format_ARGB32_Premultiplied);
        const auto bytes = std::size_t(m_columns) * sizeof(QRgb);
        for (int y = 0; y < rows; ++y)
            std::memcpy(tall.scanLine(y), row.constScanLine(0), bytes);
        m_p.drawImage(QRectF(m_clipX0, top, m_columns, height), tall);
    }

    // The one-column marks' rows, then their hatch as one rectangle per run of blocking columns.
    void drawRows()
    {
        if (m_anyFull)
            drawRow(m_fullRow, m_fullTop, m_fullHeight);
        if (m_anyThin)
            drawRow(m_thinRow, m_thinTop, m_thinHeight);
        for (int c = 0; c < m_columns;) {
            if (!m_blockingColumn[std::size_t(c)]) {
                ++c;
                continue;
            }
            int e = c + 1;
            while (e < m_columns && m_blockingColumn[std::size_t(e)])
                ++e;
            m_p.fillRect(QRectF(m_clipX0 + c, m_fullTop, e - c, m_fullHeight), m_hatch);
            c = e;
        }
    }

    QPainter &m_p;
    const TimelinePaintContext &m_ctx;
    const IntervalLane &m_iv;
    const QRect m_rect;
    const TimeMapping &m_mapping;
    const int m_clipX0, m_clipX1;
    const bool m_host, m_activities;
    const double m_pad, m_fullTop, m_fullHeight, m_thinTop, m_thinHeight;
    const QFontMetrics m_fm;
    const int m_dpi;
    const double m_minLabelWidth;
    const QBrush m_hatch;
    std::size_t m_last = 0; // the end of the ops in view
    bool m_edgeDependent = false;

    std::array<QColor, IntervalLane::kKindMask + 1> m_kindColors;
    std::array<QRgb, IntervalLane::kKindMask + 1> m_kindRgba{};
    std::array<bool, IntervalLane::kKindMask + 1> m_kindKnown{};

    // One-column marks (the dense case: a mark per pixel column when a million ops are in view) are
    // collected into rows of pixels and drawn with one drawImage each at the end, instead of thousands of
    // fillRect calls; their hatch goes on as one rectangle per run of blocking columns.
    const int m_columns;
    QImage m_fullRow, m_thinRow;
    QRgb *m_fullPixels = nullptr;
    QRgb *m_thinPixels = nullptr;
    std::vector<std::uint8_t> m_blockingColumn;
    bool m_anyFull = false, m_anyThin = false;
    const bool m_deferMarks;
    std::vector<std::uint8_t> m_deferred;
    int m_deferredLo, m_deferredHi = 0; // columns [lo, hi) may hold deferred pixels

    // Fold state: a run of narrow ops that touch.
    bool m_run = false;
    double m_runX0 = 0, m_runX1 = 0;
    std::uint8_t m_runStyle = 0;
    bool m_runBlocking = false;
    long long m_runCount = 0;
    DrawnBar m_drawn;
    // One slot per op kind; a style's kind bits index it (IntervalLane::kKindMask keeps them below 32 here).
    static constexpr std::size_t kKindSlots = 32;
    static_assert(engine::kOpKindCount <= kKindSlots);
    std::array<double, kKindSlots> m_colTime{}; // by kind, the pending column's ops, in pixels
    double m_colIndex = 0; // the pending column
    bool m_colAny = false; // it holds ops not decided yet
    bool m_runDecided = false; // the run has a kind from a column already
    double m_coveredTo = -std::numeric_limits<double>::infinity();
    std::size_t m_foldHint = 0; // ops in the last column folded at once
};

} // namespace

const IntervalPass &intervalPass()
{
    static const IntervalPass pass;
    return pass;
}

bool IntervalPass::paint(QPainter &p, const TimelineLaneState &state) const
{
    if (state.lane.queued.size() > 0)
        paintQueued(p, state);
    const bool edgeDependent = paintBars(p, state);
    if (state.ctx.showSlowdown && state.lane.slowed.size() > 0)
        paintSlowed(p, state);
    if (state.lane.pieces.size() > 0)
        paintPieces(p, state);
    return edgeDependent;
}

bool IntervalPass::defersMarks(const QPainter &p) const
{
    return rasterAtWholePixels(p);
}

void IntervalPass::paintQueued(QPainter &p, const TimelineLaneState &state)
{
    const IntervalLane &q = state.lane.queued;
    const QRect &rect = state.rect;
    const TimeMapping &mapping = state.mapping;
    const double pad = rect.height() >= 16 ? 3 : 1;
    // A little inside the bars' height, so the solid bar that follows reads as the op itself.
    const double top = rect.top() + pad + 1;
    const double height = rect.height() - 2 * pad - 3;
    const auto [first, last] =
        q.visible(mapping.toNs(double(state.clipX0) - 2), mapping.toNs(double(state.clipX1) + 2));
    double coveredTo = -std::numeric_limits<double>::infinity();
    for (std::size_t k = first; k < last; ++k) {
        const double x0 = std::max(double(state.clipX0) - 1, std::floor(mapping.toX(q.starts[k])));
        const double x1 = std::min(double(state.clipX1) + 1, std::round(mapping.toX(q.ends[k])));
        if (x1 - x0 < 2 || x1 <= coveredTo)
            continue; // under two pixels there is nothing to see but the bar
        coveredTo = x1;
        paintQueuedBox(p, QRectF(x0, top, x1 - x0, height),
                       state.ctx.palette->opColor(engine::OpKind(q.styles[k] & IntervalLane::kKindMask)),
                       state.background);
    }
}

bool IntervalPass::paintBars(QPainter &p, const TimelineLaneState &state) const
{
    if (state.lane.intervals.size() == 0)
        return false;
    BarStrip strip(p, state, defersMarks(p));
    return strip.paint();
}

// The part of each bar that the other ops cost it (Lane::slowed): a 2 px mark where the op would have ended
// alone, and the rest of the bar hatched in the bar's own colour darkened, so the slowdown reads where it
// happened. Under three pixels a segment is not drawn (nothing to see inside a folded mark).
void IntervalPass::paintSlowed(QPainter &p, const TimelineLaneState &state)
{
    const IntervalLane &s = state.lane.slowed;
    const QRect &rect = state.rect;
    const TimeMapping &mapping = state.mapping;
    const double pad = rect.height() >= 16 ? 3 : 1;
    const double top = rect.top() + pad;
    const double height = rect.height() - 2 * pad - 1;
    const auto [first, last] =
        s.visible(mapping.toNs(double(state.clipX0) - 2), mapping.toNs(double(state.clipX1) + 2));
    for (std::size_t k = first; k < last; ++k) {
        const double xs = mapping.toX(s.starts[k]);
        const double x0 = std::max(double(state.clipX0) - 1, xs);
        const double x1 = std::min(double(state.clipX1) + 1, mapping.toX(s.ends[k]));
        if (x1 - x0 < 3)
            continue;
        const QColor bar = state.ctx.palette->opColor(engine::OpKind(s.styles[k] & IntervalLane::kKindMask));
        p.fillRect(QRectF(x0, top, x1 - x0, height), QBrush(bar.darker(160), Qt::BDiagPattern));
        if (xs >= double(state.clipX0) - 2)
            p.fillRect(QRectF(std::round(xs) - 1, top, 2, height), bar.darker(220));
    }
}

// The pieces of ops that ran as several records (Lane::pieces): a band along the bottom third of the bar,
// cut out of it, with each piece in its own kind's colour (a kernel, a peer or device copy, a memset) and a
// dark edge, so a collective on NCCL's copy-engine path reads as copies inside the collective, and the time
// an op waited between its pieces (a GEMM's kernel starting late after cuBLAS's memset) as a gap. Only where
// the op's bar is wide enough to hold them (4 px).
void IntervalPass::paintPieces(QPainter &p, const TimelineLaneState &state)
{
    const IntervalLane &pieces = state.lane.pieces;
    const IntervalLane &bars = state.lane.intervals;
    const QRect &rect = state.rect;
    const TimeMapping &mapping = state.mapping;
    const double pad = rect.height() >= 16 ? 3 : 1;
    const double barBottom = rect.top() + rect.height() - pad - 1;
    const double band = std::max(3.0, std::round((rect.height() - 2 * pad - 1) / 3.0));
    const double top = barBottom - band;
    const double from = double(state.clipX0) - 1, to = double(state.clipX1) + 1;
    const qint64 fromNs = mapping.toNs(double(state.clipX0) - 2), toNs = mapping.toNs(double(state.clipX1) + 2);
    const engine::Repetition &rep = state.ctx.model->rep();
    // First the band is cut out of every bar in view whose op has pieces, from the bars themselves: the cut
    // follows the bar wherever the strip being painted begins (a pan exposes a strip with no piece in it), and
    // no op's cut covers another's pieces, which are drawn after all the cuts.
    const auto [firstBar, lastBar] = bars.visible(fromNs, toNs);
    for (std::size_t k = firstBar; k < lastBar; ++k) {
        const double b0 = mapping.toX(bars.starts[k]), b1 = mapping.toX(bars.ends[k]);
        if (b1 - b0 < 4 || rep.piecesOf(bars.ops[k]).empty())
            continue;
        const double c0 = std::max(from, b0), c1 = std::min(to, b1);
        if (c1 > c0)
            p.fillRect(QRectF(c0, top, c1 - c0, band), state.background);
    }
    const qint64 origin = state.ctx.model->originNs();
    const auto [first, last] = pieces.visible(fromNs, toNs);
    for (std::size_t k = first; k < last; ++k) {
        const engine::OpRecord &o = rep.ops[std::size_t(pieces.ops[k])];
        if (mapping.toX(qint64(o.gpuEndNs - origin)) - mapping.toX(qint64(o.gpuStartNs - origin)) < 4)
            continue; // its bar has no band (a folded mark or a sliver)
        const double x0 = std::max(from, mapping.toX(pieces.starts[k]));
        const double x1 = std::min(to, mapping.toX(pieces.ends[k]));
        if (x1 <= x0)
            continue;
        const QColor color = state.ctx.palette->opColor(engine::OpKind(pieces.styles[k] & IntervalLane::kKindMask));
        const QRectF r(x0, top, std::max(1.0, x1 - x0), band);
        p.fillRect(r, color);
        if (r.width() >= 4) {
            p.setPen(QPen(color.darker(200), 1));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
        }
    }
}

} // namespace streamscope::ui
