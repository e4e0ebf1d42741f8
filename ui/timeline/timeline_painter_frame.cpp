// TimelinePainter's frame and overlay passes: lane headers, the ruler, the legend, and what is drawn live
// over the lanes (hover, selection, the host-to-GPU link, a selected range).
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
        else if (lane.kind == LaneKind::D2DActivity)
            key = m_palette->opColor(engine::OpKind::CopyD2D);
        else if (lane.kind == LaneKind::ComputeActivity)
            key = m_palette->compute();
        if (key.isValid()) {
            p.fillRect(QRect(r.left() + 4, r.top() + 4, 4, r.height() - 8), key);
            textLeft += 6;
        }
        // Range rows sit under their thread and projection rows over their stream: indented, with a
        // guide line, so they read as part of the lane they belong to.
        if (lane.kind == LaneKind::HostRanges || lane.kind == LaneKind::NvtxProjection) {
            const int indent = lane.kind == LaneKind::HostRanges ? 10 + 6 * std::min(lane.depth, 3) : 10;
            p.fillRect(QRect(r.left() + 6, r.top(), 1, r.height()), m_palette->separator());
            textLeft += indent;
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

// Find's matches: with a filter, a veil of the background over the stream and host lanes and the matches
// painted again at full colour above it; always, an outline around each match in view.
void TimelinePainter::paintMatches(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                                   const std::vector<int> &matches, bool dimOthers) const
{
    if (!m_model)
        return;
    const QRectF plot = layout.plot;
    auto inView = [&](const QRectF &r) { return !r.isEmpty() && r.right() >= plot.left() && r.left() <= plot.right(); };
    if (dimOthers) {
        QColor veil = m_palette->background();
        veil.setAlpha(190);
        for (int i = 0; i < m_model->laneCount() && std::size_t(i) < layout.lanes.size(); ++i) {
            const LaneKind kind = m_model->lane(i).kind;
            if (kind == LaneKind::Stream || kind == LaneKind::HostThread)
                p.fillRect(layout.lanes[std::size_t(i)], veil);
        }
        const QFontMetrics fm(m_metrics.font, p.device());
        const int dpi = p.device() ? p.device()->logicalDpiY() : 0;
        const double minLabelWidth = labelMinWidth(fm, dpi);
        p.setFont(m_metrics.font);
        for (int op : matches) {
            const QColor color = m_palette->opColor(m_model->op(op).kind);
            const QRectF gpu = gpuBarRect(layout, mapping, op);
            for (const QRectF &r : {gpu, hostBarRect(layout, mapping, op)})
                if (inView(r))
                    p.fillRect(r, color);
            // The GPU bar's label again, as the interval pass draws it (the veil covered it).
            const QRectF visible = gpu.intersected(QRectF(plot.left(), gpu.top(), plot.width(), gpu.height()));
            if (inView(gpu) && visible.width() >= minLabelWidth && gpu.height() >= fm.height() * 0.8) {
                const QString &text = barLabel(fm, dpi, m_model->op(op).nameId, int(visible.width() - 6));
                if (!text.isEmpty()) {
                    p.setPen(OpPalette::textOn(color));
                    p.drawText(visible.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
                }
            }
        }
    }
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(m_palette->highlight(), m_palette->presentation() ? 2 : 1));
    for (int op : matches)
        for (const QRectF &r : {gpuBarRect(layout, mapping, op), hostBarRect(layout, mapping, op)})
            if (inView(r))
                p.drawRect(r.adjusted(-1, -1, 0, 0));
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
    if (overlay.matches)
        paintMatches(p, layout, mapping, *overlay.matches, overlay.dimOthers);
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
