// LanePaintScheduler: the timeline's lane paint scheduler. Each lane's picture is cached as an image for
// the current window: on a pure pan the image is shifted and only the exposed strip painted; on a zoom,
// a resize or new data the lanes are repainted whole, handed out dearest first to the GUI thread and
// helper threads (each painting with its own TimelinePainter::threadCopy), since lanes are independent
// pictures. The pixels do not depend on how many threads paint them.
#pragma once

#include <QtGlobal>

#include <memory>
#include <vector>

class QPainter;
class QThreadPool;

namespace streamscope::ui {

class TimelinePainter;
struct TimelineLayout;
struct TimeMapping;

class LanePaintScheduler {
public:
    LanePaintScheduler();
    ~LanePaintScheduler();
    LanePaintScheduler(const LanePaintScheduler &) = delete;
    LanePaintScheduler &operator=(const LanePaintScheduler &) = delete;

    // How many threads repaint the lanes that need a whole repaint: 0 (the default) picks
    // QThread::idealThreadCount(), 1 paints them one after the other on the calling thread.
    void setPaintThreads(int threads);
    int paintThreads() const { return m_paintThreads; }
    // How many threads painted the last update's whole-lane repaints (1: sequential; 0: none repainted).
    int lastPaintThreads() const { return m_lastPaintThreads; }

    // The painter changed (model, rows, metrics, palette, switches): the helper threads' copies of it
    // are made again before the next concurrent repaint.
    void painterChanged() { m_helpersStale = true; }
    // Every lane's picture is painted again at the next update.
    void invalidate();
    // Brings the picture of every lane in view up to date with the layout and the window, at device
    // scale dpr, painting with `painter` (and copies of it on helper threads).
    void update(const TimelinePainter &painter, const TimelineLayout &layout, const TimeMapping &mapping, qreal dpr);
    // Draws the lanes' pictures at their places in the layout.
    void draw(QPainter &p, const TimelineLayout &layout) const;

private:
    struct LaneCache;
    // Repaints the given lanes' whole pictures, concurrently where that pays (see the .cpp).
    void repaintLanes(const TimelinePainter &painter, const std::vector<int> &lanes, const TimelineLayout &layout,
                      const TimeMapping &mapping);

    std::vector<LaneCache> m_caches; // one per row: its picture for the current window
    int m_paintThreads = 0;
    int m_lastPaintThreads = 0;
    // Painters for the helper threads (threadCopy of the view's; the calling thread paints with that
    // one), kept between frames for their label caches; made again when the painter changes.
    std::vector<std::unique_ptr<TimelinePainter>> m_helperPainters;
    bool m_helpersStale = true;
    std::unique_ptr<QThreadPool> m_pool; // created on the first concurrent repaint
};

} // namespace streamscope::ui
