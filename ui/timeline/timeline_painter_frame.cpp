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
    QFont bold = m_metrics.font;
    bold.setBold(true);
    const QFontMetrics bm(bold, p.device());
    for (int i = 0; i < int(layout.lanes.size()) && std::size_t(i) < layout.rows.size(); ++i) {
        const LaneRow &row = layout.rows[std::size_t(i)];
        const QRect lr = layout.lanes[std::size_t(i)];
        if (lr.isEmpty() || lr.bottom() < layout.headers.top() || lr.top() > layout.headers.bottom())
            continue; // scrolled out of view
        const QRect r(layout.headers.left(), lr.top(), layout.headers.width(), lr.height());
        p.fillRect(r, m_palette->headerBackground());
        int textLeft = r.left() + 6 + row.depth * m_metrics.indent;
        if (row.isGroup() && m_tree) {
            // A group: its arrow (right when collapsed, down when open), its title in bold and, when
            // there is room, what it holds (a collapsed group: how busy it was).
            const LaneGroup &g = m_tree->group(row.group);
            const int a = std::max(6, std::min(m_metrics.indent - 2, bm.height() / 2 + 1));
            const int cy = row.collapsed && r.height() >= bm.height() + sm.height() + 2
                               ? r.top() + (r.height() - bm.height() - sm.height()) / 2 + bm.height() / 2
                               : r.center().y();
            QPolygonF arrow;
            if (row.collapsed)
                arrow << QPointF(textLeft, cy - a / 2.0) << QPointF(textLeft + a * 0.8, cy + 0.5)
                      << QPointF(textLeft, cy + a / 2.0 + 1);
            else
                arrow << QPointF(textLeft - 1, cy - a * 0.4) << QPointF(textLeft + a, cy - a * 0.4)
                      << QPointF(textLeft + a / 2.0 - 0.5, cy + a * 0.5);
            p.save();
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(Qt::NoPen);
            p.setBrush(m_palette->text());
            p.drawPolygon(arrow);
            p.restore();
            textLeft += m_metrics.indent;
            const int textWidth = r.right() - 4 - textLeft;
            p.setPen(m_palette->text());
            p.setFont(bold);
            const QString subtitle =
                row.collapsed ? QStringLiteral("busy %1 % · %2").arg(g.busyFraction * 100, 0, 'f', 1).arg(g.subtitle)
                              : g.subtitle;
            if (row.collapsed && r.height() >= bm.height() + sm.height() + 2) {
                const int y0 = r.top() + (r.height() - bm.height() - sm.height()) / 2;
                p.drawText(QRect(textLeft, y0, textWidth, bm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                           bm.elidedText(g.title, Qt::ElideRight, textWidth));
                p.setFont(m_metrics.smallFont);
                p.setPen(m_palette->mutedText());
                p.drawText(QRect(textLeft, y0 + bm.height(), textWidth, sm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                           sm.elidedText(subtitle, Qt::ElideRight, textWidth));
            } else {
                const QString title = bm.elidedText(g.title, Qt::ElideRight, textWidth);
                p.drawText(QRect(textLeft, r.top(), textWidth, r.height()), Qt::AlignLeft | Qt::AlignVCenter, title);
                const int used = bm.horizontalAdvance(title) + sm.horizontalAdvance(QStringLiteral("  "));
                if (used < textWidth) {
                    p.setFont(m_metrics.smallFont);
                    p.setPen(m_palette->mutedText());
                    p.drawText(QRect(textLeft + used, r.top(), textWidth - used, r.height()),
                               Qt::AlignLeft | Qt::AlignVCenter,
                               sm.elidedText(subtitle, Qt::ElideRight, textWidth - used));
                }
            }
            p.setPen(QPen(m_palette->separator(), 0));
            p.drawLine(QPointF(r.left(), r.bottom() + 0.5), QPointF(r.right() + 1, r.bottom() + 0.5));
            continue;
        }
        if (row.lane < 0)
            continue;
        const Lane &lane = m_model->lane(row.lane);
        if (row.pinned) {
            // Pinned to the top: a pin in the highlight colour.
            const int d = std::max(5, fm.height() / 3);
            const QPointF c(textLeft + d / 2.0, r.center().y() - d / 2.0);
            p.save();
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(QPen(m_palette->highlight(), 1.5));
            p.drawLine(c, c + QPointF(0, d * 1.4));
            p.setPen(Qt::NoPen);
            p.setBrush(m_palette->highlight());
            p.drawEllipse(c, d / 2.0, d / 2.0);
            p.restore();
            textLeft += d + 5;
        }
        if (row.fold != LaneRow::Fold::None) {
            // A thread whose NVTX rows fold: the arrow a group has (right when folded), clicked as one.
            const int a = std::max(6, std::min(m_metrics.indent - 2, fm.height() / 2 + 1));
            const int cy = r.height() >= fm.height() + sm.height() + 2
                               ? r.top() + (r.height() - fm.height() - sm.height()) / 2 + fm.height() / 2
                               : r.center().y();
            QPolygonF arrow;
            if (row.fold == LaneRow::Fold::Folded)
                arrow << QPointF(textLeft, cy - a / 2.0) << QPointF(textLeft + a * 0.8, cy + 0.5)
                      << QPointF(textLeft, cy + a / 2.0 + 1);
            else
                arrow << QPointF(textLeft - 1, cy - a * 0.4) << QPointF(textLeft + a, cy - a * 0.4)
                      << QPointF(textLeft + a / 2.0 - 0.5, cy + a * 0.5);
            p.save();
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(Qt::NoPen);
            p.setBrush(m_palette->text());
            p.drawPolygon(arrow);
            p.restore();
            textLeft += m_metrics.indent;
        }
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
        else if (lane.kind == LaneKind::PeerLink)
            key = m_palette->opColor(engine::OpKind::CopyP2P);
        if (key.isValid()) {
            p.fillRect(QRect(textLeft - 2, r.top() + 4, 4, r.height() - 8), key);
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
        QString label = std::size_t(row.lane) < m_labels.size() ? m_labels[std::size_t(row.lane)] : lane.title;
        if (row.foldedRows > 0) // the outermost of folded NVTX rows
            label += QStringLiteral(" · +%1 folded").arg(row.foldedRows);
        const QString title = fm.elidedText(label, Qt::ElideRight, textWidth);
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
                       tm.elidedText(label, Qt::ElideRight, textWidth));
        }
        if ((lane.kind == LaneKind::Bandwidth || lane.kind == LaneKind::PeerLink) && twoLines) {
            // The scale of the lane: its top in GB/s.
            const double top =
                std::max({double(lane.counts.maxValue), double(lane.d2hBandwidth.maxValue), lane.peakGBs}) * 1.08;
            p.setFont(m_metrics.smallFont);
            p.setPen(m_palette->mutedText());
            p.drawText(QRect(textLeft, r.top() + 2, textWidth, sm.height()), Qt::AlignRight | Qt::AlignTop,
                       top >= 1 ? QString::number(top, 'f', top >= 10 ? 0 : 1)
                                : QString::number(top, 'g', 2)); // a few bytes' copies: "0.0012", not "0.0"
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

void TimelinePainter::paintTitle(QPainter &p, const TimelineLayout &layout) const
{
    if (layout.title.isEmpty())
        return;
    p.save();
    const QRect r = layout.title;
    p.setClipRect(r);
    p.fillRect(r, m_palette->headerBackground());
    QFont bold = m_metrics.font;
    bold.setBold(true);
    const QFontMetrics bm(bold, p.device());
    const QFontMetrics sm(m_metrics.smallFont, p.device());
    const QRect text = r.adjusted(6, 0, -6, 0);
    const QString title = bm.elidedText(m_metrics.groupTitle, Qt::ElideRight, text.width());
    p.setFont(bold);
    p.setPen(m_palette->text());
    p.drawText(text, Qt::AlignLeft | Qt::AlignVCenter, title);
    const int used = bm.horizontalAdvance(title) + sm.horizontalAdvance(QStringLiteral("   "));
    if (!m_metrics.groupSubtitle.isEmpty() && used < text.width()) {
        p.setFont(m_metrics.smallFont);
        p.setPen(m_palette->mutedText());
        p.drawText(text.adjusted(used, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                   sm.elidedText(m_metrics.groupSubtitle, Qt::ElideRight, text.width() - used));
    }
    p.setPen(QPen(m_palette->separator(), 0));
    p.drawLine(QPointF(r.left(), r.bottom() + 0.5), QPointF(r.right() + 1, r.bottom() + 0.5));
    p.restore();
}

void TimelinePainter::paintRuler(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                                 const TimelineOverlay &overlay) const
{
    if (layout.ruler.height() <= 0)
        return;
    p.save();
    const QRect r = layout.ruler;
    p.fillRect(layout.corner, m_palette->headerBackground());
    p.fillRect(r, m_palette->headerBackground());
    const QFontMetrics sm(m_metrics.smallFont, p.device());
    p.setFont(m_metrics.smallFont);

    // The corner reads out the window's width: the scale of what is shown.
    p.setPen(m_palette->mutedText());
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
        p.fillRect(QRectF(x0, r.top(), std::max(1.0, x1 - x0), r.height()), m_palette->selectionFill());
        p.setPen(QPen(m_palette->selectionEdge(), 2));
        for (const double x : {x0, x1})
            if (x >= r.left() && x <= r.right() + 1)
                p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom() + 1));
        rangeLabel = QStringLiteral("Δ %1").arg(formatDuration(overlay.selectionEndNs - overlay.selectionStartNs));
        rangeText = QRectF(0, r.top() + 1, sm.horizontalAdvance(rangeLabel) + 10, r.height() - 2);
        rangeText.moveCenter(
            QPointF((std::max(x0, double(r.left())) + std::min(x1, double(r.right()))) / 2, r.center().y() + 0.5));
        rangeText.moveLeft(std::clamp(rangeText.left(), double(r.left()), double(r.right()) - rangeText.width()));
    }
    const qint64 step = rulerStepNs(mapping.nsPerPixel(), kTickSpacingPixels);
    // Minor ticks split 1 and 5 steps in five, 2 steps in four.
    qint64 mantissa = step;
    while (mantissa >= 10 && mantissa % 10 == 0)
        mantissa /= 10;
    const qint64 minor = mantissa == 2 ? (step % 4 == 0 ? step / 4 : 0) : (step % 5 == 0 ? step / 5 : 0);
    p.setPen(QPen(m_palette->mutedText(), 0));
    if (minor > 0) {
        for (const qint64 t : tickTimes(mapping.startNs, mapping.endNs, minor)) {
            const double x = std::floor(mapping.toX(t)) + 0.5;
            p.drawLine(QPointF(x, r.bottom() - 3), QPointF(x, r.bottom() + 1));
        }
    }
    p.setPen(QPen(m_palette->text(), 0));
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
        p.fillRect(rangeText, m_palette->selectionEdge());
        p.setPen(OpPalette::textOn(m_palette->selectionEdge()));
        p.drawText(rangeText, Qt::AlignCenter, rangeLabel);
    }
    p.setClipping(false);
    p.setPen(QPen(m_palette->separator(), 0));
    p.drawLine(QPointF(layout.corner.left(), r.bottom() + 0.5), QPointF(r.right() + 1, r.bottom() + 0.5));
    p.restore();
}

void TimelinePainter::paintLegend(QPainter &p, const TimelineLayout &layout) const
{
    if (!m_model || layout.legend.height() <= 0)
        return;
    p.save();
    const QRect r = layout.legend;
    p.setClipRect(r);
    if (!m_metrics.transparentBackground)
        p.fillRect(r, m_palette->background());
    // Three passes: the first measures; where the entries are wider than the legend (a comparison's
    // timeline beside its chart at 720p, presentation mode's type), the second measures them in a font
    // that fits, down to 70 %; where that is not enough either, the entries take their short labels
    // ("queued", "peak 63.0 GB/s"). The last pass draws, and leaves out an entry that still does not fit
    // rather than cut it ("queued (wa", "link p").
    QFont font = m_metrics.smallFont;
    bool brief = false;
    for (int pass = 0; pass < 3; ++pass) {
        const bool draw = pass == 2;
        p.setFont(font);
        const QFontMetrics sm(font, p.device());
        const int box = std::max(8, sm.height() - 6);
        int x = r.left() + 6;
        const int cy = r.center().y();
        auto entry = [&](const QString &full, const std::function<void(const QRect &)> &swatch,
                         const QString &shortLabel = QString()) {
            const QString label = brief && !shortLabel.isEmpty() ? shortLabel : full;
            if (draw && x + box + 4 + sm.horizontalAdvance(label) > r.right() + 1)
                return;
            const QRect s(x, cy - box / 2, box, box);
            if (draw)
                swatch(s);
            x += box + 4;
            if (draw) {
                p.setPen(m_palette->text());
                p.drawText(QRect(x, r.top(), sm.horizontalAdvance(label) + 2, r.height()),
                           Qt::AlignLeft | Qt::AlignVCenter, label);
            }
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
            entry(
                QStringLiteral("blocking host call"),
                [&](const QRect &s) {
                    p.fillRect(s, m_palette->mutedText());
                    p.fillRect(s, QBrush(m_palette->blockingHatch(), Qt::BDiagPattern));
                },
                QStringLiteral("host blocked"));
        }
        auto peakEntry = [&](const QString &text, const QString &shortText) {
            entry(
                text,
                [&](const QRect &s) {
                    p.setPen(QPen(m_palette->peakLine(), m_palette->presentation() ? 2 : 1, Qt::DashLine));
                    p.drawLine(QPointF(s.left(), s.center().y() + 0.5), QPointF(s.right() + 1, s.center().y() + 0.5));
                },
                shortText);
        };
        // Only what is drawn: the queued segments where some op waited, the host link's peak where a
        // bandwidth lane shows it (a workload without copies has none).
        bool queued = false, slowed = false, bandwidth = false;
        for (const LaneRow &row : m_rows) {
            if (row.lane < 0)
                continue;
            const Lane &lane = m_model->lane(row.lane);
            queued = queued || lane.queued.size() > 0;
            slowed = slowed || lane.slowed.size() > 0;
            bandwidth = bandwidth || lane.kind == LaneKind::Bandwidth;
        }
        if (queued)
            entry(
                QStringLiteral("queued (waiting to run)"),
                [&](const QRect &s) {
                    paintQueuedBox(p, QRectF(s), m_palette->opColor(OpKind::Kernel), m_palette->background());
                },
                QStringLiteral("queued"));
        if (slowed && m_showSlowdown)
            entry(
                QStringLiteral("slower than alone (mark: its time alone)"),
                [&](const QRect &sw) {
                    const QColor bar = m_palette->opColor(OpKind::CopyD2D);
                    p.fillRect(sw, bar);
                    p.fillRect(QRectF(sw).adjusted(sw.width() / 2.0, 0, 0, 0),
                               QBrush(bar.darker(160), Qt::BDiagPattern));
                    p.fillRect(QRectF(sw.left() + sw.width() / 2.0 - 1, sw.top(), 2, sw.height()), bar.darker(220));
                },
                QStringLiteral("slower than alone"));
        if (bandwidth && m_model->linkPeakGBs() > 0)
            peakEntry(QStringLiteral("link peak %1 GB/s").arg(m_model->linkPeakGBs(), 0, 'f', 1),
                      QStringLiteral("peak %1 GB/s").arg(m_model->linkPeakGBs(), 0, 'f', 1));
        // The peer links' peaks, each once ("NVLink peak 450 GB/s"), where their lanes are drawn.
        std::vector<std::pair<QString, QString>> peers; // full and short
        for (const LaneRow &row : m_rows) {
            if (row.lane < 0 || m_model->lane(row.lane).kind != LaneKind::PeerLink
                || m_model->lane(row.lane).peakGBs <= 0)
                continue;
            const engine::PeerLink *link = engine::findPeerLink(m_model->trace(), m_model->lane(row.lane).peerSrc,
                                                                m_model->lane(row.lane).peerDst);
            const QString type = m_model->lane(row.lane).peerStaged ? QStringLiteral("host link (staged P2P)")
                                 : link && link->link == engine::LinkType::NvLink ? QStringLiteral("NVLink")
                                 : link && link->link == engine::LinkType::Pcie   ? QStringLiteral("PCIe P2P")
                                                                                  : QStringLiteral("peer link");
            const QString text =
                QStringLiteral("%1 peak %2 GB/s").arg(type).arg(m_model->lane(row.lane).peakGBs, 0, 'f', 0);
            if (std::find_if(peers.begin(), peers.end(), [&](const auto &e) { return e.first == text; }) == peers.end())
                peers.emplace_back(
                    text, QStringLiteral("%1 %2 GB/s").arg(type).arg(m_model->lane(row.lane).peakGBs, 0, 'f', 0));
        }
        for (const auto &[text, shortText] : peers)
            peakEntry(text, shortText);
        if (pass == 1 && x - 14 > r.right())
            brief = true;
        if (pass == 0 && x - 14 > r.right()) {
            const double ratio = std::max(0.7, double(r.right() - r.left() - 6) / double(x - 14 - r.left()));
            if (font.pixelSize() > 0)
                font.setPixelSize(std::max(6, int(font.pixelSize() * ratio)));
            else
                font.setPointSizeF(font.pointSizeF() * ratio);
        }
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
        for (std::size_t i = 0; i < layout.rows.size() && i < layout.lanes.size(); ++i) {
            const int lane = layout.rows[i].lane;
            const LaneKind kind = lane >= 0 ? m_model->lane(lane).kind : LaneKind::Bandwidth;
            if (kind == LaneKind::Stream || kind == LaneKind::HostThread)
                p.fillRect(layout.lanes[i], veil);
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

// The lesson's key figure: each of its ops in view outlined in the key colour (clipped to the plot, so
// that an SVG, which keeps no clip, shows nothing outside it), and the caption in a box of that colour
// where it hides the least: beside, above or below the outlined ops, or in a corner of the plot, the
// place that covers the fewest bars.
void TimelinePainter::paintKeyFigure(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                                     const std::vector<int> &ops, const QString &caption, bool host) const
{
    if (!m_model)
        return;
    const QRectF plot = QRectF(layout.plot).adjusted(1, 1, -1, -1);
    const QColor key = m_palette->keyFigure();
    const double width = m_palette->presentation() ? 3 : 2;
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(key, width));
    QRectF bounds;
    std::vector<QRectF> outlined;
    for (int op : ops) {
        for (const QRectF &bar :
             {gpuBarRect(layout, mapping, op), host ? hostBarRect(layout, mapping, op) : QRectF()}) {
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
    p.setFont(m_metrics.font);
    const QFontMetrics fm(m_metrics.font, p.device());
    // The derived lanes' content counts too, a little: an empty stretch of a stream lane is better.
    // By row, not by model lane: with the lane tree they differ (group headers, pinned lanes first). An
    // open group's header is empty beside its title; a collapsed group's row draws its busy count.
    std::vector<QRectF> derived;
    for (std::size_t row = 0; row < layout.rows.size() && row < layout.lanes.size(); ++row) {
        const LaneRow &r = layout.rows[row];
        const bool counts = r.lane >= 0 ? m_model->lane(r.lane).kind != LaneKind::Stream
                                              && m_model->lane(r.lane).kind != LaneKind::HostThread
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
    if (m_model->opCount() <= 20000)
        for (int op = 0; op < m_model->opCount(); ++op)
            for (const QRectF &r : {gpuBarRect(layout, mapping, op), hostBarRect(layout, mapping, op)})
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
    QColor fill = m_palette->background();
    fill.setAlpha(235);
    p.fillRect(box, fill);
    p.setPen(QPen(key, width));
    p.drawRect(box);
    p.setPen(m_palette->text());
    p.drawText(box.adjusted(pad, pad, -pad, -pad), Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignVCenter, caption);
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
    if (overlay.keyOps)
        paintKeyFigure(p, layout, mapping, *overlay.keyOps, overlay.keyCaption, overlay.keyHost);
    p.setBrush(Qt::NoBrush);
    if (overlay.hoveredOp >= 0 && overlay.hoveredOp != overlay.selectedOp) {
        p.setPen(QPen(m_palette->hover(), 1.5));
        for (const QRectF &r :
             {gpuBarRect(layout, mapping, overlay.hoveredOp), hostBarRect(layout, mapping, overlay.hoveredOp)})
            if (!r.isEmpty())
                p.drawRect(r.adjusted(-1, -1, 1, 1));
    }
    if (overlay.selectedOps && overlay.selectedOps->size() > 1) {
        p.setPen(QPen(m_palette->highlight(), m_palette->presentation() ? 3 : 2));
        for (const int op : *overlay.selectedOps)
            if (op != overlay.selectedOp)
                for (const QRectF &r : {gpuBarRect(layout, mapping, op), hostBarRect(layout, mapping, op)})
                    if (!r.isEmpty() && r.right() >= layout.plot.left() && r.left() <= layout.plot.right())
                        p.drawRect(r.adjusted(-1, -1, 1, 1));
    }
    if (overlay.allFlows)
        paintFlows(p, layout, mapping);
    if (overlay.selectedOp >= 0) {
        const QRectF gpu = gpuBarRect(layout, mapping, overlay.selectedOp);
        const QRectF host = hostBarRect(layout, mapping, overlay.selectedOp);
        const double width = m_palette->presentation() ? 3 : 2;
        p.setPen(QPen(m_palette->highlight(), width));
        for (const QRectF &r : {gpu, host})
            if (!r.isEmpty())
                p.drawRect(r.adjusted(-1, -1, 1, 1));
        // The end "follow flow" went to: a second, outer outline.
        const QRectF focused = overlay.selectedEnd == TimelineOverlay::End::Host  ? host
                               : overlay.selectedEnd == TimelineOverlay::End::Gpu ? gpu
                                                                                  : QRectF();
        if (!focused.isEmpty() && !gpu.isEmpty() && !host.isEmpty()) {
            p.setPen(QPen(m_palette->highlight(), 1));
            p.drawRect(focused.adjusted(-1 - width - 1, -1 - width - 1, 1 + width + 1, 1 + width + 1));
        }
        if (overlay.drawLink && !gpu.isEmpty() && !host.isEmpty())
            drawLink(p, host, gpu, m_palette->highlight(), width * 0.75, m_palette->presentation() ? 12 : 8);
    }
    p.restore();
}

// From the call that issued the op to where the GPU began it: the queueing delay made visible.
void TimelinePainter::drawLink(QPainter &p, const QRectF &host, const QRectF &gpu, const QColor &color, double width,
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
void TimelinePainter::paintFlows(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping) const
{
    const Flows flows = flowsInView(layout, mapping);
    if (flows.capped) {
        const QString text = QStringLiteral("More than %L1 flows in view: zoom in to draw them").arg(kMaxFlows);
        const QFontMetrics sm(m_metrics.smallFont, p.device());
        const QRect box(layout.plot.left() + 6, layout.plot.top() + 4, sm.horizontalAdvance(text) + 12,
                        sm.height() + 6);
        p.fillRect(box, m_palette->headerBackground());
        p.setPen(QPen(m_palette->separator(), 0));
        p.drawRect(QRectF(box).adjusted(0.5, 0.5, -0.5, -0.5));
        p.setFont(m_metrics.smallFont);
        p.setPen(m_palette->text());
        p.drawText(box, Qt::AlignCenter, text);
        return;
    }
    if (flows.ops.empty())
        return;
    QColor color = m_palette->mutedText();
    color.setAlpha(m_palette->presentation() ? 220 : 170);
    const double head = m_palette->presentation() ? 8 : 5;
    // Both ends in the window: the arrow itself. One end outside (the host ran far ahead of the GPU, as
    // in a training step): a dashed arrow straight from the other end's lane to the end in view, so that
    // hundreds of long, almost level lines do not pile up along the lanes' edges.
    std::vector<QLineF> lines, stubs;
    lines.reserve(flows.ops.size());
    QPainterPath heads;
    const QRectF plot = layout.plot;
    auto inView = [&](const QRectF &r) { return r.right() >= plot.left() && r.left() <= plot.right(); };
    for (const int op : flows.ops) {
        const QRectF host = hostBarRect(layout, mapping, op);
        const QRectF gpu = gpuBarRect(layout, mapping, op);
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
    const double width = m_palette->presentation() ? 1.5 : 1;
    p.setPen(QPen(color, width));
    p.drawLines(lines.data(), int(lines.size()));
    p.setPen(QPen(color, width, Qt::DashLine));
    p.drawLines(stubs.data(), int(stubs.size()));
    p.fillPath(heads, color);
    p.restore();
}

} // namespace streamscope::ui
