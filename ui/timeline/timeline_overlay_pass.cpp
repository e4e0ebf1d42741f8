// OverlayPass (see timeline_overlay_pass.h).
#include "ui/timeline/timeline_overlay_pass.h"
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

void OverlayPass::paintOverlay(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                               const TimelineOverlay &overlay) const
{
    p.save();
    p.setClipRect(layout.plot.adjusted(0, 0, 0, 1));
    if (overlay.selectionEndNs > overlay.selectionStartNs) {
        const double x0 = mapping.toX(overlay.selectionStartNs);
        const double x1 = mapping.toX(overlay.selectionEndNs);
        p.fillRect(QRectF(x0, layout.plot.top(), std::max(1.0, x1 - x0), layout.plot.height()),
                   m_ctx.palette->selectionFill());
        p.setPen(QPen(m_ctx.palette->selectionEdge(), 0));
        p.drawLine(QPointF(x0, layout.plot.top()), QPointF(x0, layout.plot.bottom() + 1));
        p.drawLine(QPointF(x1, layout.plot.top()), QPointF(x1, layout.plot.bottom() + 1));
    }
    if (overlay.matches)
        paintMatches(p, layout, mapping, *overlay.matches, overlay.dimOthers);
    if (overlay.keyOps)
        paintKeyFigure(p, layout, mapping, *overlay.keyOps, overlay.keyCaption, overlay.keyHost);
    p.setBrush(Qt::NoBrush);
    if (overlay.hoveredOp >= 0 && overlay.hoveredOp != overlay.selectedOp) {
        p.setPen(QPen(m_ctx.palette->hover(), 1.5));
        for (const QRectF &r : {m_ctx.gpuBarRect(layout, mapping, overlay.hoveredOp),
                                m_ctx.hostBarRect(layout, mapping, overlay.hoveredOp)})
            if (!r.isEmpty())
                p.drawRect(r.adjusted(-1, -1, 1, 1));
    }
    if (overlay.selectedOps && overlay.selectedOps->size() > 1) {
        p.setPen(QPen(m_ctx.palette->highlight(), m_ctx.palette->presentation() ? 3 : 2));
        for (const int op : *overlay.selectedOps)
            if (op != overlay.selectedOp)
                for (const QRectF &r : {m_ctx.gpuBarRect(layout, mapping, op), m_ctx.hostBarRect(layout, mapping, op)})
                    if (!r.isEmpty() && r.right() >= layout.plot.left() && r.left() <= layout.plot.right())
                        p.drawRect(r.adjusted(-1, -1, 1, 1));
    }
    if (overlay.allFlows)
        paintFlows(p, layout, mapping);
    if (overlay.selectedOp >= 0) {
        const QRectF gpu = m_ctx.gpuBarRect(layout, mapping, overlay.selectedOp);
        const QRectF host = m_ctx.hostBarRect(layout, mapping, overlay.selectedOp);
        const double width = m_ctx.palette->presentation() ? 3 : 2;
        p.setPen(QPen(m_ctx.palette->highlight(), width));
        for (const QRectF &r : {gpu, host})
            if (!r.isEmpty())
                p.drawRect(r.adjusted(-1, -1, 1, 1));
        // The end "follow flow" went to: a second, outer outline.
        const QRectF focused = overlay.selectedEnd == TimelineOverlay::End::Host  ? host
                               : overlay.selectedEnd == TimelineOverlay::End::Gpu ? gpu
                                                                                  : QRectF();
        if (!focused.isEmpty() && !gpu.isEmpty() && !host.isEmpty()) {
            p.setPen(QPen(m_ctx.palette->highlight(), 1));
            p.drawRect(focused.adjusted(-1 - width - 1, -1 - width - 1, 1 + width + 1, 1 + width + 1));
        }
        if (overlay.drawLink && !gpu.isEmpty() && !host.isEmpty())
            drawLink(p, host, gpu, m_ctx.palette->highlight(), width * 0.75, m_ctx.palette->presentation() ? 12 : 8);
    }
    p.restore();
}

// Find's matches: with a filter, a veil of the background over the stream and host lanes and the matches
// painted again at full colour above it; always, an outline around each match in view.
void OverlayPass::paintMatches(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                               const std::vector<int> &matches, bool dimOthers) const
{
    if (!m_ctx.model)
        return;
    const QRectF plot = layout.plot;
    auto inView = [&](const QRectF &r) { return !r.isEmpty() && r.right() >= plot.left() && r.left() <= plot.right(); };
    if (dimOthers) {
        QColor veil = m_ctx.palette->background();
        veil.setAlpha(190);
        for (std::size_t i = 0; i < layout.rows.size() && i < layout.lanes.size(); ++i) {
            const int lane = layout.rows[i].lane;
            const LaneKind kind = lane >= 0 ? m_ctx.model->lane(lane).kind : LaneKind::Bandwidth;
            if (kind == LaneKind::Stream || kind == LaneKind::HostThread)
                p.fillRect(layout.lanes[i], veil);
        }
        const QFontMetrics fm(m_ctx.metrics.font, p.device());
        const int dpi = p.device() ? p.device()->logicalDpiY() : 0;
        const double minLabelWidth = m_ctx.labelMinWidth(fm, dpi);
        p.setFont(m_ctx.metrics.font);
        for (int op : matches) {
            const QColor color = m_ctx.palette->opColor(m_ctx.model->op(op).kind);
            const QRectF gpu = m_ctx.gpuBarRect(layout, mapping, op);
            for (const QRectF &r : {gpu, m_ctx.hostBarRect(layout, mapping, op)})
                if (inView(r))
                    p.fillRect(r, color);
            // The GPU bar's label again, as the interval pass draws it (the veil covered it).
            const QRectF visible = gpu.intersected(QRectF(plot.left(), gpu.top(), plot.width(), gpu.height()));
            if (inView(gpu) && visible.width() >= minLabelWidth && gpu.height() >= fm.height() * 0.8) {
                const QString &text = m_ctx.barLabel(fm, dpi, m_ctx.model->op(op).nameId, int(visible.width() - 6));
                if (!text.isEmpty()) {
                    p.setPen(OpPalette::textOn(color));
                    p.drawText(visible.adjusted(3, 0, -3, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
                }
            }
        }
    }
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(m_ctx.palette->highlight(), m_ctx.palette->presentation() ? 2 : 1));
    for (int op : matches)
        for (const QRectF &r : {m_ctx.gpuBarRect(layout, mapping, op), m_ctx.hostBarRect(layout, mapping, op)})
            if (inView(r))
                p.drawRect(r.adjusted(-1, -1, 0, 0));
}

// The lesson's key figure: each of its ops in view outlined in the key colour (clipped to the plot, so
// that an SVG, which keeps no clip, shows nothing outside it), and the caption in a box of that colour
// where it hides the least: beside, above or below the outlined ops, or in a corner of the plot, the
// place that covers the fewest bars.
void OverlayPass::paintKeyFigure(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                                 const std::vector<int> &ops, const QString &caption, bool host) const
{
    if (!m_ctx.model)
        return;
    const QRectF plot = QRectF(layout.plot).adjusted(1, 1, -1, -1);
    const QColor key = m_ctx.palette->keyFigure();
    const double width = m_ctx.palette->presentation() ? 3 : 2;
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(key, width));
    QRectF bounds;
    std::vector<QRectF> outlined;
    for (int op : ops) {
        for (const QRectF &bar :
             {m_ctx.gpuBarRect(layout, mapping, op), host ? m_ctx.hostBarRect(layout, mapping, op) : QRectF()}) {
            const QRectF r = bar.adjusted(-2, -2, 2, 2).intersected(plot);
            if (bar.isEmpty() || r.isEmpty())
                continue;
            outlined.push_back(r);
            bounds = bounds.isNull() ? r : bounds.united(r);
        }
    }
    // Outlines that touch in one lane become one around the run: many small ops side by side (a lane of
    // copies from 4 KiB up) would otherwise merge into a solid block of outline that hides the ops.
    std::sort(outlined.begin(), outlined.end(), [](const QRectF &a, const QRectF &b) {
        return a.top() != b.top() ? a.top() < b.top() : a.left() < b.left();
    });
    std::vector<QRectF> runs;
    for (const QRectF &r : outlined) {
        if (!runs.empty() && runs.back().top() == r.top() && runs.back().height() == r.height()
            && r.left() <= runs.back().right() + 2 * width + 2)
            runs.back().setRight(std::max(runs.back().right(), r.right()));
        else
            runs.push_back(r);
    }
    for (const QRectF &r : runs)
        p.drawRect(r);
    outlined = std::move(runs);
    if (caption.isEmpty() || plot.width() < 40 || plot.height() < 10)
        return;
    p.setFont(m_ctx.metrics.font);
    const QFontMetrics fm(m_ctx.metrics.font, p.device());
    // The derived lanes' content counts too, a little: an empty stretch of a stream lane is better.
    // By row, not by model lane: with the lane tree they differ (group headers, pinned lanes first). An
    // open group's header is empty beside its title; a collapsed group's row draws its busy count.
    std::vector<QRectF> derived;
    for (std::size_t row = 0; row < layout.rows.size() && row < layout.lanes.size(); ++row) {
        const LaneRow &r = layout.rows[row];
        const bool counts = r.lane >= 0 ? m_ctx.model->lane(r.lane).kind != LaneKind::Stream
                                              && m_ctx.model->lane(r.lane).kind != LaneKind::HostThread
                                        : r.collapsed;
        if (counts)
            derived.push_back(QRectF(layout.lanes[row]));
    }
    const double pad = 6;
    const double maxWidth = std::min(plot.width() - 4, std::max(plot.width() * 0.45, 240.0));
    const QRectF textRect = fm.boundingRect(QRect(0, 0, int(maxWidth - 2 * pad), 10000), Qt::TextWordWrap, caption);
    const QSizeF boxSize(textRect.width() + 2 * pad, textRect.height() + 2 * pad);
    // What the box should not hide: the outlined ops above all, then every other bar in view (looked at
    // only where there are few ops: this is an annotation, not worth a pass over a million).
    std::vector<QRectF> bars;
    if (m_ctx.model->opCount() <= 20000)
        for (int op = 0; op < m_ctx.model->opCount(); ++op)
            for (const QRectF &r : {m_ctx.gpuBarRect(layout, mapping, op), m_ctx.hostBarRect(layout, mapping, op)})
                if (!r.isEmpty() && r.intersects(plot))
                    bars.push_back(r);
    if (bounds.isNull())
        bounds = QRectF(plot.topLeft(), QSizeF(0, 0));
    const double gap = 6;
    const std::vector<QPointF> candidates = {
        {bounds.right() + gap, bounds.top()}, // beside the figure
        // Left of it, in its own lanes: the figure at the end of a lane leaves the lane empty before it
        // (below it the box covered the next lane's bars).
        {bounds.left() - gap - boxSize.width(), bounds.top()},
        {bounds.left() - gap - boxSize.width(), bounds.center().y() - boxSize.height() / 2},
        {bounds.left(), bounds.top() - gap - boxSize.height()}, // above it
        {bounds.left(), bounds.bottom() + gap}, // below it
        {bounds.right() + gap, bounds.bottom() - boxSize.height()},
        {plot.right() - 2 - boxSize.width(), plot.top() + 2}, // the plot's corners
        {plot.right() - 2 - boxSize.width(), plot.bottom() - 2 - boxSize.height()},
        {plot.left() + 2, plot.top() + 2},
        {plot.left() + 2, plot.bottom() - 2 - boxSize.height()},
    };
    QRectF box;
    double best = std::numeric_limits<double>::max();
    for (const QPointF &at : candidates) {
        QRectF r(at, boxSize);
        // Kept inside the plot.
        r.moveLeft(std::clamp(r.left(), plot.left() + 2, std::max(plot.left() + 2, plot.right() - 2 - r.width())));
        r.moveTop(std::clamp(r.top(), plot.top() + 2, std::max(plot.top() + 2, plot.bottom() - 2 - r.height())));
        double cost = 0;
        for (const QRectF &o : outlined) {
            const QRectF i = r.intersected(o);
            cost += 20 * i.width() * i.height();
        }
        for (const QRectF &b : bars) {
            const QRectF i = r.intersected(b);
            cost += i.width() * i.height();
        }
        for (const QRectF &d : derived) {
            const QRectF i = r.intersected(d);
            cost += 0.3 * i.width() * i.height();
        }
        if (cost < best) {
            best = cost;
            box = r;
        }
        if (cost == 0)
            break;
    }
    box = box.intersected(plot);
    QColor fill = m_ctx.palette->background();
    fill.setAlpha(235);
    p.fillRect(box, fill);
    p.setPen(QPen(key, width));
    p.drawRect(box);
    p.setPen(m_ctx.palette->text());
    p.drawText(box.adjusted(pad, pad, -pad, -pad), Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignVCenter, caption);
}

// From the call that issued the op to where the GPU began it: the queueing delay made visible.
void OverlayPass::drawLink(QPainter &p, const QRectF &host, const QRectF &gpu, const QColor &color, double width,
                           double head) const
{
    const bool down = host.center().y() < gpu.center().y();
    const QPointF from(host.left(), down ? host.bottom() + 1 : host.top() - 1);
    const QPointF to(gpu.left(), down ? gpu.top() - 1 : gpu.bottom() + 1);
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(color, width));
    p.drawLine(from, to);
    const double angle = std::atan2(to.y() - from.y(), to.x() - from.x());
    QPainterPath arrow;
    arrow.moveTo(to);
    arrow.lineTo(to - QPointF(std::cos(angle - 0.45) * head, std::sin(angle - 0.45) * head));
    arrow.lineTo(to - QPointF(std::cos(angle + 0.45) * head, std::sin(angle + 0.45) * head));
    arrow.closeSubpath();
    p.fillPath(arrow, color);
}

// Every flow in view: one batch of lines and one path of heads, in a muted colour under the
// selection's; past kMaxFlows, a line that says how to see them instead.
void OverlayPass::paintFlows(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping) const
{
    const TimelinePaintContext::Flows flows = m_ctx.flowsInView(layout, mapping);
    if (flows.capped) {
        const QString text =
            QStringLiteral("More than %L1 flows in view: zoom in to draw them").arg(TimelinePaintContext::kMaxFlows);
        const QFontMetrics sm(m_ctx.metrics.smallFont, p.device());
        const QRect box(layout.plot.left() + 6, layout.plot.top() + 4, sm.horizontalAdvance(text) + 12,
                        sm.height() + 6);
        p.fillRect(box, m_ctx.palette->headerBackground());
        p.setPen(QPen(m_ctx.palette->separator(), 0));
        p.drawRect(QRectF(box).adjusted(0.5, 0.5, -0.5, -0.5));
        p.setFont(m_ctx.metrics.smallFont);
        p.setPen(m_ctx.palette->text());
        p.drawText(box, Qt::AlignCenter, text);
        return;
    }
    if (flows.ops.empty())
        return;
    QColor color = m_ctx.palette->mutedText();
    color.setAlpha(m_ctx.palette->presentation() ? 220 : 170);
    const double head = m_ctx.palette->presentation() ? 8 : 5;
    // Both ends in the window: the arrow itself. One end outside (the host ran far ahead of the GPU, as
    // in a training step): a dashed arrow straight from the other end's lane to the end in view, so that
    // hundreds of long, almost level lines do not pile up along the lanes' edges.
    std::vector<QLineF> lines, stubs;
    lines.reserve(flows.ops.size());
    QPainterPath heads;
    const QRectF plot = layout.plot;
    auto inView = [&](const QRectF &r) { return r.right() >= plot.left() && r.left() <= plot.right(); };
    for (const int op : flows.ops) {
        const QRectF host = m_ctx.hostBarRect(layout, mapping, op);
        const QRectF gpu = m_ctx.gpuBarRect(layout, mapping, op);
        if (host.isEmpty() || gpu.isEmpty())
            continue;
        const bool down = host.center().y() < gpu.center().y();
        QPointF from(host.left(), down ? host.bottom() + 1 : host.top() - 1);
        QPointF to(gpu.left(), down ? gpu.top() - 1 : gpu.bottom() + 1);
        if (inView(host) && inView(gpu)) {
            lines.emplace_back(from, to);
        } else {
            const double x = std::max(plot.left() + 0.5, inView(gpu) ? gpu.left() : host.left());
            from.setX(x);
            to.setX(x);
            stubs.emplace_back(from, to);
        }
        const double angle = std::atan2(to.y() - from.y(), to.x() - from.x());
        heads.moveTo(to);
        heads.lineTo(to - QPointF(std::cos(angle - 0.45) * head, std::sin(angle - 0.45) * head));
        heads.lineTo(to - QPointF(std::cos(angle + 0.45) * head, std::sin(angle + 0.45) * head));
        heads.closeSubpath();
    }
    p.save();
    p.setRenderHint(QPainter::Antialiasing, lines.size() + stubs.size() <= 500);
    const double width = m_ctx.palette->presentation() ? 1.5 : 1;
    p.setPen(QPen(color, width));
    p.drawLines(lines.data(), int(lines.size()));
    p.setPen(QPen(color, width, Qt::DashLine));
    p.drawLines(stubs.data(), int(stubs.size()));
    p.fillPath(heads, color);
    p.restore();
}

} // namespace streamscope::ui
