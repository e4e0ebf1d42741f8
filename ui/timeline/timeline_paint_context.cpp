// TimelinePaintContext (see timeline_paint_context.h): the mode's metrics, the layout's lookups, and what
// the passes share: row heights, bar geometry, the flows in view and the label caches.
#include "ui/timeline/timeline_paint_context.h"
#include "ui/common/format_units.h"
#include "ui/timeline/timeline_paint_context_p.h"

#include <QFontMetrics>
#include <QPaintEngine>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"

namespace streamscope::ui {

namespace painter_detail {

bool rasterAtWholePixels(const QPainter &p)
{
    // deviceTransform includes the device pixel ratio, which transform() leaves out.
    const QTransform t = p.deviceTransform();
    return p.paintEngine() && p.paintEngine()->type() == QPaintEngine::Raster && p.device()
           && p.device()->devicePixelRatio() == 1 && t.type() <= QTransform::TxTranslate && t.dx() == std::floor(t.dx())
           && t.dy() == std::floor(t.dy()) && !p.testRenderHint(QPainter::Antialiasing);
}

void gridColumns(const TimeMapping &mapping, int clipX0, int clipX1, std::vector<int> &out)
{
    out.clear();
    const qint64 step = rulerStepNs(mapping.nsPerPixel(), TimelinePaintContext::kTickSpacingPixels);
    for (const qint64 t : tickTimes(mapping.toNs(double(clipX0) - 1), mapping.toNs(double(clipX1) + 1), step))
        if (mapping.toX(t) < clipX1 + 1)
            out.push_back(int(std::floor(mapping.toX(t))));
}

} // namespace painter_detail

TimelineMetrics TimelineMetrics::make(bool presentation, const QFont &base)
{
    TimelineMetrics m;
    m.font = base;
    if (m.font.pointSizeF() <= 0)
        m.font.setPixelSize(std::max(9, m.font.pixelSize()));
    if (presentation) {
        if (m.font.pointSizeF() > 0)
            m.font.setPointSizeF(m.font.pointSizeF() * 1.45);
        else
            m.font.setPixelSize(int(m.font.pixelSize() * 1.45));
        m.font.setWeight(QFont::DemiBold);
    }
    m.smallFont = m.font;
    if (m.smallFont.pointSizeF() > 0)
        m.smallFont.setPointSizeF(m.font.pointSizeF() * 0.86);
    else
        m.smallFont.setPixelSize(std::max(8, int(m.font.pixelSize() * 0.86)));
    m.smallFont.setWeight(presentation ? QFont::Medium : QFont::Normal);
    const QFontMetrics fm(m.font);
    const QFontMetrics sm(m.smallFont);
    const int line = fm.height();
    // A lane holds a title and a subtitle in the header; bars get one line of label with a margin.
    m.streamLaneHeight = std::max(presentation ? 40 : 28, line + sm.height() + 6);
    m.hostLaneHeight = std::max(presentation ? 36 : 24, int(m.streamLaneHeight * 0.85));
    m.counterLaneHeight = m.streamLaneHeight;
    m.bandwidthLaneHeight = int(m.streamLaneHeight * 2.2);
    m.rangeLaneHeight = std::max(presentation ? 22 : 15, line + 3);
    m.rulerHeight = sm.height() + (presentation ? 16 : 12);
    m.legendHeight = sm.height() + 10;
    m.headerWidth = std::max(150, fm.horizontalAdvance(QStringLiteral("x")) * 24);
    m.groupHeaderHeight = std::max(presentation ? 26 : 18, line + 4);
    m.indent = std::max(10, fm.horizontalAdvance(QStringLiteral("x")) * 2);
    m.minLaneHeight = std::max(10, sm.height() / 2 + 4);
    m.readableLaneHeight = line + 2;
    return m;
}

int TimelineLayout::laneAt(int y) const
{
    for (const Sticky &s : sticky)
        if (y >= s.rect.top() && y <= s.rect.bottom())
            return s.row;
    // Rows scrolled out of view are not under any point (the ruler and the legend lie over them).
    if (contentHeight > 0 && (y < plot.top() || y > plot.bottom()))
        return -1;
    for (std::size_t i = 0; i < lanes.size(); ++i)
        if (y >= lanes[i].top() && y <= lanes[i].bottom())
            return int(i);
    return -1;
}

int TimelineLayout::scrollToShow(int row) const
{
    if (row < 0 || std::size_t(row) >= lanes.size() || maxScrollY <= 0)
        return scrollY;
    const QRect r = lanes[std::size_t(row)];
    // The sticky headers above a row cover the top of the view: at most one per level of the tree, so
    // the row goes below the headers that would be sticky over it.
    int covered = 0;
    for (int i = row - 1, depth = rows[std::size_t(row)].depth; i >= 0 && depth > 0; --i)
        if (rows[std::size_t(i)].isGroup() && rows[std::size_t(i)].depth < depth) {
            covered += lanes[std::size_t(i)].height();
            depth = rows[std::size_t(i)].depth;
        }
    const int top = plot.top() + covered;
    int y = scrollY;
    if (r.top() < top)
        y -= top - r.top();
    else if (r.bottom() > plot.bottom())
        y += std::min(r.bottom() - plot.bottom(), r.top() - top);
    return std::clamp(y, 0, maxScrollY);
}

TimelinePaintContext::CacheHolder::CacheHolder() : m_caches(std::make_unique<Caches>())
{
}

TimelinePaintContext::CacheHolder::~CacheHolder() = default;
TimelinePaintContext::CacheHolder::CacheHolder(CacheHolder &&) noexcept = default;
TimelinePaintContext::CacheHolder &TimelinePaintContext::CacheHolder::operator=(CacheHolder &&) noexcept = default;

void TimelinePaintContext::CacheHolder::reset()
{
    m_caches = std::make_unique<Caches>();
}

int TimelinePaintContext::fittedLabelWidth() const
{
    const QFontMetrics fm(metrics.font);
    const QFontMetrics sm(metrics.smallFont);
    int widest = 0;
    for (const LaneRow &row : rows) {
        int w = row.depth * metrics.indent;
        if (row.isGroup()) {
            const LaneGroup &g = tree->group(row.group);
            QFont bold = metrics.font;
            bold.setBold(true);
            w += metrics.indent + QFontMetrics(bold).horizontalAdvance(g.title);
        } else if (row.lane >= 0 && std::size_t(row.lane) < labels.size()) {
            w += std::max(fm.horizontalAdvance(labels[std::size_t(row.lane)]),
                          sm.horizontalAdvance(model->lane(row.lane).subtitle));
            if (row.pinned)
                w += metrics.indent;
            if (row.fold != LaneRow::Fold::None)
                w += metrics.indent;
            if (row.foldedRows > 0)
                w += fm.horizontalAdvance(QStringLiteral(" · +%1 folded").arg(row.foldedRows));
        }
        widest = std::max(widest, w);
    }
    return widest == 0 ? 0 : widest + 24; // margins and a derived lane's colour key
}

int TimelinePaintContext::rowHeight(const LaneRow &row) const
{
    if (row.isGroup())
        return row.collapsed ? metrics.streamLaneHeight : metrics.groupHeaderHeight;
    return nominalHeight(model->lane(row.lane));
}

int TimelinePaintContext::nominalHeight(const Lane &lane) const
{
    switch (lane.kind) {
    case LaneKind::HostThread: return metrics.hostLaneHeight;
    case LaneKind::Stream:
    case LaneKind::CopyEngine: return metrics.streamLaneHeight;
    case LaneKind::Migration:
    case LaneKind::PageFaults:
    case LaneKind::H2DActivity:
    case LaneKind::D2HActivity:
    case LaneKind::D2DActivity:
    case LaneKind::ComputeActivity: return metrics.counterLaneHeight;
    case LaneKind::Bandwidth:
    case LaneKind::PeerLink: return metrics.bandwidthLaneHeight;
    case LaneKind::HostRanges:
    case LaneKind::NvtxProjection: return metrics.rangeLaneHeight;
    }
    return metrics.streamLaneHeight;
}

QRectF TimelinePaintContext::gpuBarRect(const TimelineLayout &layout, const TimeMapping &mapping, int opIndex) const
{
    if (!model || opIndex < 0 || opIndex >= model->opCount())
        return {};
    const auto &op = model->op(opIndex);
    const int lane = layout.rowOf(model->streamLane(op.stream));
    if (!op.hasGpu() || lane < 0 || std::size_t(lane) >= layout.lanes.size())
        return {};
    const QRect lr = layout.lanes[std::size_t(lane)];
    const double pad = lr.height() >= 16 ? 3 : 1;
    const double x0 = mapping.toX(model->gpuStart(op));
    const double x1 = std::max(mapping.toX(model->gpuEnd(op)), x0 + 1);
    return QRectF(x0, lr.top() + pad, x1 - x0, lr.height() - 2 * pad - 1);
}

QRectF TimelinePaintContext::hostBarRect(const TimelineLayout &layout, const TimeMapping &mapping, int opIndex) const
{
    if (!model || opIndex < 0 || opIndex >= model->opCount())
        return {};
    const auto &op = model->op(opIndex);
    const int threads = int(model->trace().hostThreads.size());
    const int lane = layout.rowOf(model->hostLane(op.hostThread >= 0 && op.hostThread < threads ? op.hostThread : -1));
    if (!op.hasHost() || lane < 0 || std::size_t(lane) >= layout.lanes.size())
        return {};
    const QRect lr = layout.lanes[std::size_t(lane)];
    const double pad = lr.height() >= 16 ? 3 : 1;
    const double x0 = mapping.toX(model->hostStart(op));
    const double x1 = std::max(mapping.toX(model->hostEnd(op)), x0 + 1);
    return QRectF(x0, lr.top() + pad, x1 - x0, lr.height() - 2 * pad - 1);
}

TimelinePaintContext::Flows TimelinePaintContext::flowsInView(const TimelineLayout &layout, const TimeMapping &mapping,
                                                              int cap) const
{
    Flows out;
    if (!model)
        return out;
    const int threads = int(model->trace().hostThreads.size());
    auto hostRow = [&](const engine::OpRecord &o) {
        return layout.rowOf(model->hostLane(o.hostThread >= 0 && o.hostThread < threads ? o.hostThread : -1));
    };
    auto gpuInWindow = [&](const engine::OpRecord &o) {
        return model->gpuEnd(o) >= mapping.startNs && model->gpuStart(o) < mapping.endNs;
    };
    // Each flow once: from its stream's lane when its GPU part is in the window, else from its
    // thread's lane (its call is in the window, its GPU part is not).
    for (std::size_t r = 0; r < layout.rows.size(); ++r) {
        const int laneIndex = layout.rows[r].lane;
        if (laneIndex < 0)
            continue;
        const Lane &lane = model->lane(laneIndex);
        const bool stream = lane.kind == LaneKind::Stream;
        if (!stream && lane.kind != LaneKind::HostThread)
            continue;
        const auto [first, last] = lane.intervals.visible(mapping.startNs, mapping.endNs);
        for (std::size_t k = first; k < last; ++k) {
            if (lane.intervals.ends[k] < mapping.startNs)
                continue; // under the running maximum, not itself in view
            const int op = lane.intervals.ops[k];
            const engine::OpRecord &o = model->op(op);
            if (!o.hasGpu() || !o.hasHost())
                continue;
            if (stream ? hostRow(o) < 0 : (gpuInWindow(o) || layout.rowOf(model->streamLane(o.stream)) < 0))
                continue;
            if (int(out.ops.size()) > cap) {
                out.capped = true;
                return out;
            }
            out.ops.push_back(op);
        }
    }
    out.capped = int(out.ops.size()) > cap;
    return out;
}

double TimelinePaintContext::labelMinWidth(const QFontMetrics &fm, int logicalDpi) const
{
    painter_detail::LabelCache &c = caches->labels;
    if (c.logicalDpi != logicalDpi) {
        c = {};
        c.logicalDpi = logicalDpi;
    }
    if (c.minWidth < 0)
        c.minWidth = fm.horizontalAdvance(QStringLiteral("xxx")) + 6;
    return c.minWidth;
}

const QString &TimelinePaintContext::barLabel(const QFontMetrics &fm, int logicalDpi, std::uint32_t nameId,
                                              int maxWidth) const
{
    static const QString none;
    painter_detail::LabelCache &c = caches->labels;
    if (c.logicalDpi != logicalDpi) {
        c = {};
        c.logicalDpi = logicalDpi;
    }
    const auto &strings = model->trace().strings;
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
