// TimelineFrameCache (see timeline_frame_cache.h).
#include "ui/timeline/timeline_frame_cache.h"

#include <QPainter>
#include <QRegion>

#include "ui/timeline/timeline_painter.h"

namespace streamscope::ui {

void TimelineFrameCache::invalidate()
{
    m_lanes.invalidate();
    m_headers.valid = false;
    m_legend.valid = false;
}

void TimelineFrameCache::paintCached(QPainter &p, AreaCache &cache, const QRect &area, const QColor &background,
                                     const std::function<void(QPainter &)> &paint)
{
    if (area.isEmpty())
        return;
    const qreal dpr = p.device() ? p.device()->devicePixelRatio() : 1.0;
    if (!cache.valid || cache.rect != area || cache.dpr != dpr) {
        if (cache.pixmap.size() != area.size() * dpr || cache.pixmap.devicePixelRatio() != dpr) {
            cache.pixmap = QPixmap(area.size() * dpr);
            cache.pixmap.setDevicePixelRatio(dpr);
        }
        // What lies under the area in the window: the background (paint() fills outside the plot).
        cache.pixmap.fill(background);
        QPainter cp(&cache.pixmap);
        cp.translate(-area.topLeft());
        paint(cp);
        cache.rect = area;
        cache.dpr = dpr;
        cache.valid = true;
    }
    p.drawPixmap(area.topLeft(), cache.pixmap);
}

void TimelineFrameCache::paint(QPainter &p, const TimelinePainter &painter, const TimelineLayout &layout,
                               const TimeMapping &mapping, const TimelineOverlay &overlay, const QRect &widgetRect,
                               qreal widgetDpr, const QColor &background)
{
    // The background only where no lane picture goes: every lane pixmap is opaque and covers its lane
    // (paintLane fills it first), and the lanes tile the plot, so filling under them is wasted (a
    // fill of the whole 1920x1080 window was a tenth of a frame). That holds when the pixmaps are at the
    // target's own resolution; drawn rescaled (QWidget::render of a high-DPI widget into a plain image)
    // their edges may leave rows uncovered, so there the whole target is filled as before.
    const qreal targetDpr = p.device() ? p.device()->devicePixelRatio() : 1.0;
    if (targetDpr == widgetDpr) {
        // (The widget's whole rectangle: beside the scroll bar, right of the ruler and the legend, too.)
        const QRegion uncovered = QRegion(widgetRect).subtracted(QRegion(layout.plot));
        for (const QRect &r : uncovered)
            p.fillRect(r, background);
    } else {
        painter.paintBackground(p, layout);
    }
    m_lanes.update(painter, layout, mapping, widgetDpr);
    const bool scrolled = layout.contentHeight > layout.plot.height();
    if (scrolled) {
        p.save();
        p.setClipRect(layout.plot);
    }
    m_lanes.draw(p, layout);
    if (scrolled)
        p.restore();
    if (m_headersScroll != layout.scrollY) {
        m_headers.valid = false;
        m_headersScroll = layout.scrollY;
    }
    // Cached only at device scale 1: there the copy was checked to be the headers' exact pixels; a
    // high-DPI widget rendered into a plain image (QWidget::render) gave different text edges.
    // paintHeaders draws only inside the headers and the row below them, paintLegend inside the legend
    // (their clips).
    const bool cached = targetDpr == 1 && widgetDpr == 1;
    if (cached)
        paintCached(p, m_headers, layout.headers.adjusted(0, 0, 0, 1), background,
                    [&](QPainter &cp) { painter.paintHeaders(cp, layout); });
    else
        painter.paintHeaders(p, layout);
    painter.paintTitle(p, layout);
    painter.paintRuler(p, layout, mapping, overlay);
    if (cached)
        paintCached(p, m_legend, layout.legend, background, [&](QPainter &cp) { painter.paintLegend(cp, layout); });
    else
        painter.paintLegend(p, layout);
    painter.paintOverlay(p, layout, mapping, overlay);
    painter.paintSticky(p, layout);
}

} // namespace streamscope::ui
