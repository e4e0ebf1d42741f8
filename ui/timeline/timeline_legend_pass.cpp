// LegendPass (see timeline_legend_pass.h).
#include "ui/timeline/timeline_legend_pass.h"
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

std::vector<LegendPass::Entry> LegendPass::entries() const
{
    std::vector<Entry> out;
    auto entry = [&](const QString &full, std::function<void(QPainter &, const QRect &)> swatch,
                     const QString &shortLabel = QString()) {
        out.push_back({full, std::move(swatch), shortLabel});
    };
    for (OpKind kind : m_ctx.model->kindsPresent()) {
        const QColor c = m_ctx.palette->opColor(kind);
        entry(OpPalette::label(kind), [c](QPainter &p, const QRect &s) { p.fillRect(s, c); });
    }
    // The driver's unified-memory records, in the colours their lanes draw them with.
    bool toGpu = false, toHost = false, faults = false;
    for (const auto &lane : m_ctx.model->lanes()) {
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
        const QColor c = m_ctx.palette->opColor(what.first);
        entry(what.second, [c](QPainter &p, const QRect &s) { p.fillRect(s, c); });
    }
    bool anyHost = false;
    for (const auto &lane : m_ctx.model->lanes())
        anyHost = anyHost || (lane.kind == LaneKind::HostThread && lane.intervals.size() > 0);
    if (anyHost) {
        entry(
            QStringLiteral("blocking host call"),
            [this](QPainter &p, const QRect &s) {
                p.fillRect(s, m_ctx.palette->mutedText());
                p.fillRect(s, QBrush(m_ctx.palette->blockingHatch(), Qt::BDiagPattern));
            },
            QStringLiteral("host blocked"));
    }
    auto peakEntry = [&](const QString &text, const QString &shortText) {
        entry(
            text,
            [this](QPainter &p, const QRect &s) {
                p.setPen(QPen(m_ctx.palette->peakLine(), m_ctx.palette->presentation() ? 2 : 1, Qt::DashLine));
                p.drawLine(QPointF(s.left(), s.center().y() + 0.5), QPointF(s.right() + 1, s.center().y() + 0.5));
            },
            shortText);
    };
    // Only what is drawn: the queued segments where some op waited, the host link's peak where a
    // bandwidth lane shows it (a workload without copies has none).
    bool queued = false, slowed = false, pieces = false, bandwidth = false;
    for (const LaneRow &row : m_ctx.rows) {
        if (row.lane < 0)
            continue;
        const Lane &lane = m_ctx.model->lane(row.lane);
        queued = queued || lane.queued.size() > 0;
        slowed = slowed || lane.slowed.size() > 0;
        pieces = pieces || lane.pieces.size() > 0;
        bandwidth = bandwidth || lane.kind == LaneKind::Bandwidth;
    }
    if (queued)
        entry(
            QStringLiteral("queued (waiting to run)"),
            [this](QPainter &p, const QRect &s) {
                paintQueuedBox(p, QRectF(s), m_ctx.palette->opColor(OpKind::Kernel), m_ctx.palette->background());
            },
            QStringLiteral("queued"));
    if (slowed && m_ctx.showSlowdown)
        entry(
            QStringLiteral("slower than alone (mark: its time alone)"),
            [this](QPainter &p, const QRect &sw) {
                const QColor bar = m_ctx.palette->opColor(OpKind::CopyD2D);
                p.fillRect(sw, bar);
                p.fillRect(QRectF(sw).adjusted(sw.width() / 2.0, 0, 0, 0), QBrush(bar.darker(160), Qt::BDiagPattern));
                p.fillRect(QRectF(sw.left() + sw.width() / 2.0 - 1, sw.top(), 2, sw.height()), bar.darker(220));
            },
            QStringLiteral("slower than alone"));
    if (pieces) // a bar with its band cut out: a gap, then a piece with its edge
        entry(
            QStringLiteral("pieces: the kernels and copies a call ran"),
            [this](QPainter &p, const QRect &sw) {
                const QColor kernel = m_ctx.palette->opColor(OpKind::Kernel);
                p.fillRect(sw, kernel);
                const int band = std::max(3, sw.height() / 3);
                const QRect cut(sw.left(), sw.bottom() + 1 - band, sw.width(), band);
                p.fillRect(cut, m_ctx.palette->background());
                const QRect piece(sw.left() + sw.width() / 2, cut.top(), sw.width() - sw.width() / 2, band);
                p.fillRect(piece, kernel);
                p.setPen(QPen(kernel.darker(200), 1));
                p.setBrush(Qt::NoBrush);
                p.drawRect(QRectF(piece).adjusted(0.5, 0.5, -0.5, -0.5));
            },
            QStringLiteral("pieces"));
    if (bandwidth && m_ctx.model->linkPeakGBs() > 0)
        peakEntry(QStringLiteral("link peak %1 GB/s").arg(m_ctx.model->linkPeakGBs(), 0, 'f', 1),
                  QStringLiteral("peak %1 GB/s").arg(m_ctx.model->linkPeakGBs(), 0, 'f', 1));
    // The peer links' peaks, each once ("NVLink peak 450 GB/s"), where their lanes are drawn.
    std::vector<std::pair<QString, QString>> peers; // full and short
    for (const LaneRow &row : m_ctx.rows) {
        if (row.lane < 0 || m_ctx.model->lane(row.lane).kind != LaneKind::PeerLink
            || m_ctx.model->lane(row.lane).peakGBs <= 0)
            continue;
        const engine::PeerLink *link = engine::findPeerLink(m_ctx.model->trace(), m_ctx.model->lane(row.lane).peerSrc,
                                                            m_ctx.model->lane(row.lane).peerDst);
        const QString type = m_ctx.model->lane(row.lane).peerStaged           ? QStringLiteral("host link (staged P2P)")
                             : link && link->link == engine::LinkType::NvLink ? QStringLiteral("NVLink")
                             : link && link->link == engine::LinkType::Pcie   ? QStringLiteral("PCIe P2P")
                                                                              : QStringLiteral("peer link");
        const QString text =
            QStringLiteral("%1 peak %2 GB/s").arg(type).arg(m_ctx.model->lane(row.lane).peakGBs, 0, 'f', 0);
        if (std::find_if(peers.begin(), peers.end(), [&](const auto &e) { return e.first == text; }) == peers.end())
            peers.emplace_back(
                text, QStringLiteral("%1 %2 GB/s").arg(type).arg(m_ctx.model->lane(row.lane).peakGBs, 0, 'f', 0));
    }
    for (const auto &[text, shortText] : peers)
        peakEntry(text, shortText);
    return out;
}

void LegendPass::paintLegend(QPainter &p, const TimelineLayout &layout) const
{
    if (!m_ctx.model || layout.legend.height() <= 0)
        return;
    p.save();
    const QRect r = layout.legend;
    p.setClipRect(r);
    if (!m_ctx.metrics.transparentBackground)
        p.fillRect(r, m_ctx.palette->background());
    // Three passes: the first measures; where the entries are wider than the legend (a comparison's
    // timeline beside its chart at 720p, presentation mode's type), the second measures them in a font
    // that fits, down to 70 %; where that is not enough either, the entries take their short labels
    // ("queued", "peak 63.0 GB/s"). The last pass draws, and leaves out an entry that still does not fit
    // rather than cut it ("queued (wa", "link p").
    QFont font = m_ctx.metrics.smallFont;
    bool brief = false;
    const std::vector<Entry> list = entries();
    for (int pass = 0; pass < 3; ++pass) {
        const bool draw = pass == 2;
        p.setFont(font);
        const QFontMetrics sm(font, p.device());
        const int box = std::max(8, sm.height() - 6);
        int x = r.left() + 6;
        const int cy = r.center().y();
        auto entry = [&](const QString &full, const std::function<void(QPainter &, const QRect &)> &swatch,
                         const QString &shortLabel) {
            const QString label = brief && !shortLabel.isEmpty() ? shortLabel : full;
            if (draw && x + box + 4 + sm.horizontalAdvance(label) > r.right() + 1)
                return;
            const QRect s(x, cy - box / 2, box, box);
            if (draw)
                swatch(p, s);
            x += box + 4;
            if (draw) {
                p.setPen(m_ctx.palette->text());
                p.drawText(QRect(x, r.top(), sm.horizontalAdvance(label) + 2, r.height()),
                           Qt::AlignLeft | Qt::AlignVCenter, label);
            }
            x += sm.horizontalAdvance(label) + 14;
        };
        for (const Entry &e : list)
            entry(e.label, e.swatch, e.shortLabel);
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

} // namespace streamscope::ui
