// HeaderPass (see timeline_header_pass.h).
#include "ui/timeline/timeline_header_pass.h"
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

namespace {

// The arrow before a foldable row's label (a group's header, a thread with NVTX rows): right when folded,
// down when open; `a` its size, (left, cy) where it starts.
void paintFoldArrow(QPainter &p, int left, int cy, int a, bool folded, const QColor &color)
{
    QPolygonF arrow;
    if (folded)
        arrow << QPointF(left, cy - a / 2.0) << QPointF(left + a * 0.8, cy + 0.5) << QPointF(left, cy + a / 2.0 + 1);
    else
        arrow << QPointF(left - 1, cy - a * 0.4) << QPointF(left + a, cy - a * 0.4)
              << QPointF(left + a / 2.0 - 0.5, cy + a * 0.5);
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    p.drawPolygon(arrow);
    p.restore();
}

} // namespace

using engine::OpKind;
using namespace painter_detail;

void HeaderPass::paintHeaders(QPainter &p, const TimelineLayout &layout) const
{
    if (!m_ctx.model)
        return;
    p.save();
    p.setClipRect(layout.headers.adjusted(0, 0, 0, 1));
    QFont bold = m_ctx.metrics.font;
    bold.setBold(true);
    const HeaderFonts fonts{QFontMetrics(m_ctx.metrics.font, p.device()),
                            QFontMetrics(m_ctx.metrics.smallFont, p.device()), QFontMetrics(bold, p.device()), bold};
    for (int i = 0; i < int(layout.lanes.size()) && std::size_t(i) < layout.rows.size(); ++i) {
        const LaneRow &row = layout.rows[std::size_t(i)];
        const QRect lr = layout.lanes[std::size_t(i)];
        if (lr.isEmpty() || lr.bottom() < layout.headers.top() || lr.top() > layout.headers.bottom())
            continue; // scrolled out of view
        const QRect r(layout.headers.left(), lr.top(), layout.headers.width(), lr.height());
        p.fillRect(r, m_ctx.palette->headerBackground());
        const int textLeft = r.left() + 6 + row.depth * m_ctx.metrics.indent;
        if (row.isGroup() && m_ctx.tree) {
            paintGroupHeader(p, row, r, textLeft, fonts);
            continue;
        }
        if (row.lane < 0)
            continue;
        paintLaneHeader(p, row, r, textLeft, fonts);
        p.setPen(QPen(m_ctx.palette->separator(), 0));
        p.drawLine(QPointF(r.left(), r.bottom() + 0.5), QPointF(r.right() + 1, r.bottom() + 0.5));
    }
    p.setPen(QPen(m_ctx.palette->separator(), 0));
    const double x = layout.headers.right() + 0.5;
    p.drawLine(QPointF(x, layout.headers.top()), QPointF(x, layout.headers.bottom() + 1));
    p.restore();
}

// A group: its arrow (right when collapsed, down when open), its title in bold and, when there is room,
// what it holds (a collapsed group: how busy it was).
void HeaderPass::paintGroupHeader(QPainter &p, const LaneRow &row, const QRect &r, int textLeft,
                                  const HeaderFonts &fonts) const
{
    const QFontMetrics &sm = fonts.sm;
    const QFontMetrics &bm = fonts.bm;
    const QFont &bold = fonts.bold;
    const LaneGroup &g = m_ctx.tree->group(row.group);
    const int a = std::max(6, std::min(m_ctx.metrics.indent - 2, bm.height() / 2 + 1));
    const int cy = row.collapsed && r.height() >= bm.height() + sm.height() + 2
                       ? r.top() + (r.height() - bm.height() - sm.height()) / 2 + bm.height() / 2
                       : r.center().y();
    paintFoldArrow(p, textLeft, cy, a, row.collapsed, m_ctx.palette->text());
    textLeft += m_ctx.metrics.indent;
    const int textWidth = r.right() - 4 - textLeft;
    p.setPen(m_ctx.palette->text());
    p.setFont(bold);
    const QString subtitle = row.collapsed
                                 ? QStringLiteral("busy %1 % · %2").arg(g.busyFraction * 100, 0, 'f', 1).arg(g.subtitle)
                                 : g.subtitle;
    if (row.collapsed && r.height() >= bm.height() + sm.height() + 2) {
        const int y0 = r.top() + (r.height() - bm.height() - sm.height()) / 2;
        p.drawText(QRect(textLeft, y0, textWidth, bm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   bm.elidedText(g.title, Qt::ElideRight, textWidth));
        p.setFont(m_ctx.metrics.smallFont);
        p.setPen(m_ctx.palette->mutedText());
        p.drawText(QRect(textLeft, y0 + bm.height(), textWidth, sm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   sm.elidedText(subtitle, Qt::ElideRight, textWidth));
    } else {
        const QString title = bm.elidedText(g.title, Qt::ElideRight, textWidth);
        p.drawText(QRect(textLeft, r.top(), textWidth, r.height()), Qt::AlignLeft | Qt::AlignVCenter, title);
        const int used = bm.horizontalAdvance(title) + sm.horizontalAdvance(QStringLiteral("  "));
        if (used < textWidth) {
            p.setFont(m_ctx.metrics.smallFont);
            p.setPen(m_ctx.palette->mutedText());
            p.drawText(QRect(textLeft + used, r.top(), textWidth - used, r.height()), Qt::AlignLeft | Qt::AlignVCenter,
                       sm.elidedText(subtitle, Qt::ElideRight, textWidth - used));
        }
    }
    p.setPen(QPen(m_ctx.palette->separator(), 0));
    p.drawLine(QPointF(r.left(), r.bottom() + 0.5), QPointF(r.right() + 1, r.bottom() + 0.5));
}

// A lane: its pin, fold arrow and colour key where it has them, its title and subtitle, and a bandwidth
// lane's scale.
void HeaderPass::paintLaneHeader(QPainter &p, const LaneRow &row, const QRect &r, int textLeft,
                                 const HeaderFonts &fonts) const
{
    const QFontMetrics &fm = fonts.fm;
    const QFontMetrics &sm = fonts.sm;
    const Lane &lane = m_ctx.model->lane(row.lane);
    if (row.pinned) {
        // Pinned to the top: a pin in the highlight colour.
        const int d = std::max(5, fm.height() / 3);
        const QPointF c(textLeft + d / 2.0, r.center().y() - d / 2.0);
        p.save();
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(QPen(m_ctx.palette->highlight(), 1.5));
        p.drawLine(c, c + QPointF(0, d * 1.4));
        p.setPen(Qt::NoPen);
        p.setBrush(m_ctx.palette->highlight());
        p.drawEllipse(c, d / 2.0, d / 2.0);
        p.restore();
        textLeft += d + 5;
    }
    if (row.fold != LaneRow::Fold::None) {
        // A thread whose NVTX rows fold: the arrow a group has (right when folded), clicked as one.
        const int a = std::max(6, std::min(m_ctx.metrics.indent - 2, fm.height() / 2 + 1));
        const int cy = r.height() >= fm.height() + sm.height() + 2
                           ? r.top() + (r.height() - fm.height() - sm.height()) / 2 + fm.height() / 2
                           : r.center().y();
        paintFoldArrow(p, textLeft, cy, a, row.fold == LaneRow::Fold::Folded, m_ctx.palette->text());
        textLeft += m_ctx.metrics.indent;
    }
    // Derived lanes carry the colour of what they count, as a key.
    QColor key;
    if (lane.kind == LaneKind::H2DActivity)
        key = m_ctx.palette->h2d();
    else if (lane.kind == LaneKind::D2HActivity)
        key = m_ctx.palette->d2h();
    else if (lane.kind == LaneKind::D2DActivity)
        key = m_ctx.palette->opColor(engine::OpKind::CopyD2D);
    else if (lane.kind == LaneKind::ComputeActivity)
        key = m_ctx.palette->compute();
    else if (lane.kind == LaneKind::PeerLink)
        key = m_ctx.palette->opColor(engine::OpKind::CopyP2P);
    if (key.isValid()) {
        p.fillRect(QRect(textLeft - 2, r.top() + 4, 4, r.height() - 8), key);
        textLeft += 6;
    }
    // Range rows sit under their thread and projection rows over their stream: indented, with a
    // guide line, so they read as part of the lane they belong to.
    if (lane.kind == LaneKind::HostRanges || lane.kind == LaneKind::NvtxProjection) {
        const int indent = lane.kind == LaneKind::HostRanges ? 10 + 6 * std::min(lane.depth, 3) : 10;
        p.fillRect(QRect(r.left() + 6, r.top(), 1, r.height()), m_ctx.palette->separator());
        textLeft += indent;
    }
    const int textWidth = r.right() - 4 - textLeft;
    const bool twoLines = r.height() >= fm.height() + sm.height() + 2;
    p.setPen(m_ctx.palette->text());
    p.setFont(m_ctx.metrics.font);
    QString label = std::size_t(row.lane) < m_ctx.labels.size() ? m_ctx.labels[std::size_t(row.lane)] : lane.title;
    if (row.foldedRows > 0) // the outermost of folded NVTX rows
        label += QStringLiteral(" · +%1 folded").arg(row.foldedRows);
    const QString title = fm.elidedText(label, Qt::ElideRight, textWidth);
    if (twoLines) {
        const int y0 = r.top() + (r.height() - fm.height() - sm.height()) / 2;
        p.drawText(QRect(textLeft, y0, textWidth, fm.height()), Qt::AlignLeft | Qt::AlignVCenter, title);
        p.setFont(m_ctx.metrics.smallFont);
        p.setPen(m_ctx.palette->mutedText());
        p.drawText(QRect(textLeft, y0 + fm.height(), textWidth, sm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   sm.elidedText(lane.subtitle, Qt::ElideRight, textWidth));
    } else if (r.height() >= fm.height()) {
        p.drawText(QRect(textLeft, r.top(), textWidth, r.height()), Qt::AlignLeft | Qt::AlignVCenter, title);
    } else {
        // Lanes squeezed below the font (32 streams in presentation mode at 720p): a title sized to
        // its lane, so that neighbouring titles never overprint each other.
        QFont tight = m_ctx.metrics.font;
        tight.setPixelSize(std::max(6, r.height() - 1));
        const QFontMetrics tm(tight, p.device());
        p.setFont(tight);
        p.drawText(QRect(textLeft, r.top(), textWidth, r.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   tm.elidedText(label, Qt::ElideRight, textWidth));
    }
    if ((lane.kind == LaneKind::Bandwidth || lane.kind == LaneKind::PeerLink) && twoLines) {
        // The scale of the lane: its top in GB/s.
        const double top =
            std::max({double(lane.counts.maxValue), double(lane.d2hBandwidth.maxValue), lane.peakGBs}) * 1.08;
        p.setFont(m_ctx.metrics.smallFont);
        p.setPen(m_ctx.palette->mutedText());
        p.drawText(QRect(textLeft, r.top() + 2, textWidth, sm.height()), Qt::AlignRight | Qt::AlignTop,
                   top >= 1 ? QString::number(top, 'f', top >= 10 ? 0 : 1)
                            : QString::number(top, 'g', 2)); // a few bytes' copies: "0.0012", not "0.0"
        p.drawText(QRect(textLeft, r.bottom() - sm.height() - 1, textWidth, sm.height()),
                   Qt::AlignRight | Qt::AlignBottom, QStringLiteral("0"));
    }
}

void HeaderPass::paintTitle(QPainter &p, const TimelineLayout &layout) const
{
    if (layout.title.isEmpty())
        return;
    p.save();
    const QRect r = layout.title;
    p.setClipRect(r);
    p.fillRect(r, m_ctx.palette->headerBackground());
    QFont bold = m_ctx.metrics.font;
    bold.setBold(true);
    const QFontMetrics bm(bold, p.device());
    const QFontMetrics sm(m_ctx.metrics.smallFont, p.device());
    const QRect text = r.adjusted(6, 0, -6, 0);
    const QString title = bm.elidedText(m_ctx.metrics.groupTitle, Qt::ElideRight, text.width());
    p.setFont(bold);
    p.setPen(m_ctx.palette->text());
    p.drawText(text, Qt::AlignLeft | Qt::AlignVCenter, title);
    const int used = bm.horizontalAdvance(title) + sm.horizontalAdvance(QStringLiteral("   "));
    if (!m_ctx.metrics.groupSubtitle.isEmpty() && used < text.width()) {
        p.setFont(m_ctx.metrics.smallFont);
        p.setPen(m_ctx.palette->mutedText());
        p.drawText(text.adjusted(used, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                   sm.elidedText(m_ctx.metrics.groupSubtitle, Qt::ElideRight, text.width() - used));
    }
    p.setPen(QPen(m_ctx.palette->separator(), 0));
    p.drawLine(QPointF(r.left(), r.bottom() + 0.5), QPointF(r.right() + 1, r.bottom() + 0.5));
    p.restore();
}

void HeaderPass::paintSticky(QPainter &p, const TimelineLayout &layout) const
{
    if (layout.sticky.empty())
        return;
    // The headers as paintHeaders draws them, and the group's row in the plot, at their sticky place.
    TimelineLayout s;
    s.target = layout.target;
    int top = layout.sticky.front().rect.top(), bottom = top;
    for (const TimelineLayout::Sticky &st : layout.sticky) {
        s.rows.push_back(layout.rows[std::size_t(st.row)]);
        s.lanes.emplace_back(layout.plot.left(), st.rect.top(), layout.plot.width(), st.rect.height());
        top = std::min(top, st.rect.top());
        bottom = std::max(bottom, st.rect.bottom() + 1);
    }
    s.headers = QRect(layout.headers.left(), top, layout.headers.width(), bottom - top);
    s.plot = QRect(layout.plot.left(), top, layout.plot.width(), bottom - top);
    p.save();
    p.setClipRect(layout.headers.united(layout.plot).adjusted(0, 0, 0, 1));
    // An open group's row in the plot is its header's colour with the separator under it.
    for (const QRect &lr : s.lanes) {
        p.fillRect(lr, m_ctx.palette->headerBackground());
        p.setPen(QPen(m_ctx.palette->separator(), 0));
        p.drawLine(QPointF(lr.left(), lr.bottom() + 0.5), QPointF(lr.right() + 1, lr.bottom() + 0.5));
    }
    paintHeaders(p, s);
    p.restore();
}

} // namespace streamscope::ui
