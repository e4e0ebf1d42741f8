// RulerPass (see timeline_ruler_pass.h).
#include "ui/timeline/timeline_ruler_pass.h"
#include "ui/common/format_units.h"
#include "ui/timeline/timeline_paint_context_p.h"

#include <QFontMetrics>
#include <QPaintDevice>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/analysis/analysis.h"
#include "engine/model/op_colors.h"
#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"

namespace streamscope::ui {

using engine::OpKind;
using namespace painter_detail;

void RulerPass::paintRuler(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                           const TimelineOverlay &overlay) const
{
    if (layout.ruler.height() <= 0)
        return;
    p.save();
    const QRect r = layout.ruler;
    p.fillRect(layout.corner, m_ctx.palette->headerBackground());
    p.fillRect(r, m_ctx.palette->headerBackground());
    const QFontMetrics sm(m_ctx.metrics.smallFont, p.device());
    p.setFont(m_ctx.metrics.smallFont);

    // The corner reads out the window's width: the scale of what is shown.
    p.setPen(m_ctx.palette->mutedText());
    p.drawText(layout.corner.adjusted(6, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter,
               QStringLiteral("window %1").arg(formatDuration(engine::saturatingSub(mapping.endNs, mapping.startNs))));

    p.setClipRect(r);
    // A selected range: a light band under the ticks and labels, edged at its ends, and its length in a
    // box that the labels leave free (an opaque band hid every label it covered, and all of them when
    // zoomed inside the range).
    const bool haveRange = overlay.selectionEndNs > overlay.selectionStartNs;
    QRectF rangeText;
    QString rangeLabel;
    if (haveRange) {
        const double x0 = mapping.toX(overlay.selectionStartNs);
        const double x1 = mapping.toX(overlay.selectionEndNs);
        p.fillRect(QRectF(x0, r.top(), std::max(1.0, x1 - x0), r.height()), m_ctx.palette->selectionFill());
        p.setPen(QPen(m_ctx.palette->selectionEdge(), 2));
        for (const double x : {x0, x1})
            if (x >= r.left() && x <= r.right() + 1)
                p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom() + 1));
        rangeLabel = QStringLiteral("Δ %1").arg(formatDuration(overlay.selectionEndNs - overlay.selectionStartNs));
        rangeText = QRectF(0, r.top() + 1, sm.horizontalAdvance(rangeLabel) + 10, r.height() - 2);
        rangeText.moveCenter(
            QPointF((std::max(x0, double(r.left())) + std::min(x1, double(r.right()))) / 2, r.center().y() + 0.5));
        rangeText.moveLeft(std::clamp(rangeText.left(), double(r.left()), double(r.right()) - rangeText.width()));
    }
    const qint64 step = rulerStepNs(mapping.nsPerPixel(), TimelinePaintContext::kTickSpacingPixels);
    // Minor ticks split 1 and 5 steps in five, 2 steps in four.
    qint64 mantissa = step;
    while (mantissa >= 10 && mantissa % 10 == 0)
        mantissa /= 10;
    const qint64 minor = mantissa == 2 ? (step % 4 == 0 ? step / 4 : 0) : (step % 5 == 0 ? step / 5 : 0);
    p.setPen(QPen(m_ctx.palette->mutedText(), 0));
    if (minor > 0) {
        for (const qint64 t : tickTimes(mapping.startNs, mapping.endNs, minor)) {
            const double x = std::floor(mapping.toX(t)) + 0.5;
            p.drawLine(QPointF(x, r.bottom() - 3), QPointF(x, r.bottom() + 1));
        }
    }
    p.setPen(QPen(m_ctx.palette->text(), 0));
    // One unit for every label, from the farther end of the window from zero.
    const qint64 largest =
        std::max(mapping.startNs == std::numeric_limits<qint64>::min() ? std::numeric_limits<qint64>::max()
                                                                       : std::abs(mapping.startNs),
                 std::abs(mapping.endNs));
    // One step early: the tick just left of the window may be partly in it.
    for (const qint64 t : tickTimes(mapping.startNs, mapping.endNs, step, 1)) {
        const double x = std::floor(mapping.toX(t)) + 0.5;
        // Nothing wholly left of the ruler: the clip hid it, but an SVG keeps no clip (a window rendered
        // into one showed the tick and its label over the corner's text).
        if (x >= r.left())
            p.drawLine(QPointF(x, r.bottom() - 8), QPointF(x, r.bottom() + 1));
        const QString label = formatTickLabel(t, step, largest);
        const int width = sm.horizontalAdvance(label);
        // No label cut by either edge (one begun left of the ruler ran into the corner's text in an SVG,
        // which keeps no clip), nor under the range's length.
        const QRectF box(x + 3, r.top(), width, r.height());
        if (box.right() <= r.right() + 1 && box.left() >= r.left() && !box.intersects(rangeText))
            p.drawText(QPointF(x + 3, r.top() + 2 + sm.ascent()), label);
    }

    if (haveRange) {
        p.fillRect(rangeText, m_ctx.palette->selectionEdge());
        p.setPen(OpPalette::textOn(m_ctx.palette->selectionEdge()));
        p.drawText(rangeText, Qt::AlignCenter, rangeLabel);
    }
    p.setClipping(false);
    p.setPen(QPen(m_ctx.palette->separator(), 0));
    p.drawLine(QPointF(layout.corner.left(), r.bottom() + 0.5), QPointF(r.right() + 1, r.bottom() + 0.5));
    p.restore();
}

} // namespace streamscope::ui
