// TimelineFrameCache: the pictures that the timeline's frames on screen reuse: each lane's
// (LanePaintScheduler: shifted on a pure pan, repainted whole on several threads after a zoom), and
// the lane headers' and the legend's, which do not depend on the window: painted once (text shaping is
// a good part of a frame's fixed cost) and copied in every frame until the layout, data or style
// changes. paint() draws a frame on a raster target from them, with the ruler, the overlay and the
// sticky headers painted live over them.
#pragma once

#include <QColor>
#include <QPixmap>
#include <QRect>

#include <functional>

#include "ui/timeline/lane_paint_scheduler.h"

class QPainter;

namespace streamscope::ui {

class TimelinePainter;
struct TimelineLayout;
struct TimelineOverlay;
struct TimeMapping;

class TimelineFrameCache {
public:
    // The lanes' pictures and the threads that paint them (setPaintThreads, lastPaintThreads).
    LanePaintScheduler &lanes() { return m_lanes; }
    const LanePaintScheduler &lanes() const { return m_lanes; }
    // The painter changed (model, rows, metrics, palette, switches): the lanes' helper painters are made
    // again before they next paint.
    void painterChanged() { m_lanes.painterChanged(); }
    // Every picture is painted again at the next frame.
    void invalidate();
    // A frame of `painter`'s picture on a raster target (the widget, or an image of it), from the
    // pictures kept where they are still good. widgetRect and widgetDpr: the widget's rectangle and
    // device scale; background: the palette's, where no lane picture goes.
    void paint(QPainter &p, const TimelinePainter &painter, const TimelineLayout &layout, const TimeMapping &mapping,
               const TimelineOverlay &overlay, const QRect &widgetRect, qreal widgetDpr, const QColor &background);

private:
    struct AreaCache {
        QPixmap pixmap;
        QRect rect;
        qreal dpr = 0;
        bool valid = false;
    };
    // Copies `cache` to `area`, first painting it with `paint` (in the widget's coordinates) when it is
    // stale or the area or device scale changed.
    static void paintCached(QPainter &p, AreaCache &cache, const QRect &area, const QColor &background,
                            const std::function<void(QPainter &)> &paint);

    LanePaintScheduler m_lanes; // each lane's picture, repainted concurrently
    AreaCache m_headers;
    AreaCache m_legend;
    int m_headersScroll = -1; // the scroll offset the headers' picture was painted at
};

} // namespace streamscope::ui
