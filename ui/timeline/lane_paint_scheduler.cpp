// LanePaintScheduler (see lane_paint_scheduler.h).
#include "ui/timeline/lane_paint_scheduler.h"

#include <QPainter>
#include <QRunnable>
#include <QThread>
#include <QThreadPool>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <numeric>

#include "ui/timeline/timeline_painter.h"

namespace streamscope::ui {

struct LanePaintScheduler::LaneCache {
    // A QImage, not a QPixmap: lanes are painted on other threads, where a QPixmap must not be. RGB32 is
    // the format of an opaque raster pixmap, so drawing it into the window is the same blit.
    QImage image;
    QRect rect; // where the lane sits in the widget
    double startNs = 0; // window start the image's content corresponds to
    qint64 durationNs = -1;
    qreal dpr = 0;
    bool valid = false;
    bool edgeDependent = false; // labels pinned to the lane's edges: a pan repaints rather than shifts
};

namespace {

// Below this many pixels in all the lanes to repaint, handing lanes to other threads costs more than it
// saves (a wake-up is some tens of microseconds; a small lane paints in about as long).
constexpr long long kMinConcurrentPixels = 64LL * 1024;

// Shifts an image's rows by dx pixels (right when positive), as QPixmap::scroll did for the lane
// pixmaps: the columns uncovered keep their old content, to be painted over.
void scrollRows(QImage &image, int dx)
{
    const int width = image.width();
    if (dx == 0 || std::abs(dx) >= width)
        return;
    const auto bytes = std::size_t(width - std::abs(dx)) * sizeof(QRgb);
    for (int y = 0; y < image.height(); ++y) {
        auto *row = reinterpret_cast<QRgb *>(image.scanLine(y));
        if (dx > 0)
            std::memmove(row + dx, row, bytes);
        else
            std::memmove(row, row - dx, bytes);
    }
}

// Where a concurrent repaint waits for its helpers. A std::mutex and condition variable rather than a
// QSemaphore: ThreadSanitizer sees these, so the hand-over of the lanes (set up before a helper starts,
// read by the GUI thread after it has finished) is checked, not hidden in an uninstrumented Qt library.
struct HelperSync {
    std::mutex mutex;
    std::condition_variable finished;
    int pending = 0; // helpers started and not finished
};

// One helper thread's share of a concurrent repaint: runs `work`, then says it has finished. Not deleted
// by the pool (the repaint owns it and waits for it).
class LaneHelper : public QRunnable {
public:
    LaneHelper(std::function<void()> work, HelperSync &sync) : m_work(std::move(work)), m_sync(sync)
    {
        setAutoDelete(false);
    }
    void run() override
    {
        {
            // Acquires what the GUI thread wrote before it counted the helpers in (under this mutex).
            std::lock_guard lock(m_sync.mutex);
        }
        m_work();
        // Notified under the lock: once it is released the waiting repaint may return and destroy
        // the sync object, so nothing here touches it after that.
        std::lock_guard lock(m_sync.mutex);
        --m_sync.pending;
        m_sync.finished.notify_one();
    }

private:
    std::function<void()> m_work;
    HelperSync &m_sync;
};

} // namespace

LanePaintScheduler::LanePaintScheduler() = default;
LanePaintScheduler::~LanePaintScheduler() = default;

void LanePaintScheduler::setPaintThreads(int threads)
{
    m_paintThreads = std::max(0, threads);
}

void LanePaintScheduler::invalidate()
{
    for (auto &c : m_caches)
        c.valid = false;
}

void LanePaintScheduler::draw(QPainter &p, const TimelineLayout &layout) const
{
    for (std::size_t i = 0; i < layout.lanes.size() && i < m_caches.size(); ++i)
        if (m_caches[i].valid && layout.lanes[i].intersects(layout.plot))
            p.drawImage(layout.lanes[i].topLeft(), m_caches[i].image);
}

void LanePaintScheduler::update(const TimelinePainter &painter, const TimelineLayout &layout,
                                const TimeMapping &mapping, qreal dpr)
{
    m_caches.resize(layout.lanes.size());
    m_lastPaintThreads = 0;
    std::vector<int> whole; // lanes repainted whole, after this loop (concurrently where that pays)
    for (std::size_t i = 0; i < layout.lanes.size(); ++i) {
        LaneCache &c = m_caches[i];
        const QRect lr = layout.lanes[i];
        if (lr.isEmpty() || !lr.intersects(layout.plot))
            continue; // scrolled out of view: painted when it comes back
        auto paintStrip = [&](int x0, int x1) {
            QPainter cp(&c.image);
            cp.translate(-lr.topLeft());
            return painter.paintLane(cp, int(i), lr, mapping, x0, x1);
        };
        const qint64 duration = mapping.endNs - mapping.startNs;
        // Where the lane sits does not matter (a vertical scroll moves the picture), only its size.
        if (!c.valid || c.rect.size() != lr.size() || c.dpr != dpr || c.durationNs != duration) {
            // Zoom, resize, new data or style: the whole lane again, at device resolution (the image is
            // kept when only its content changes: every pixel gets painted over).
            if (c.image.size() != lr.size() * dpr || c.image.devicePixelRatio() != dpr) {
                c.image = QImage(lr.size() * dpr, QImage::Format_RGB32);
                c.image.setDevicePixelRatio(dpr);
            }
            c.rect = lr;
            c.dpr = dpr;
            c.durationNs = duration;
            c.startNs = double(mapping.startNs);
            c.valid = true;
            whole.push_back(int(i));
            continue;
        }
        c.rect = lr;
        if (c.startNs == double(mapping.startNs))
            continue;
        // A pure pan: shift what is drawn by whole device pixels and paint only the exposed strip. Less
        // than half a device pixel of motion leaves the picture as it is (and the offset accumulates).
        const double dxLogical = (c.startNs - double(mapping.startNs)) * mapping.pixelsPerNs();
        const int dxDevice = int(std::lround(dxLogical * dpr));
        if (dxDevice == 0)
            continue;
        const int exposed = int(std::ceil(std::abs(dxDevice) / dpr)) + 1;
        if (exposed >= lr.width() || c.edgeDependent) {
            c.startNs = double(mapping.startNs);
            whole.push_back(int(i));
            continue;
        }
        scrollRows(c.image, dxDevice);
        // A label in the new strip that the edge cuts makes the next pan repaint this lane.
        if (dxDevice > 0)
            c.edgeDependent = paintStrip(lr.left(), lr.left() + exposed);
        else
            c.edgeDependent = paintStrip(lr.right() + 1 - exposed, lr.right() + 1);
        c.startNs -= double(dxDevice) / dpr * mapping.nsPerPixel();
    }
    if (!whole.empty())
        repaintLanes(painter, whole, layout, mapping);
}

// Lanes are independent pictures, and a zoom repaints all of them: with a million ops in view one thread
// took most of a frame's 16 ms. So the lanes to repaint are handed out, dearest first, to the GUI thread
// (painting with the view's painter) and helper threads (each with its own threadCopy of it: paintLane fills
// caches as it goes), which take the next lane from a shared counter until none is left. Each lane is
// painted by one thread with the same painter state as the sequential path, so the pixels are the same.
void LanePaintScheduler::repaintLanes(const TimelinePainter &painter, const std::vector<int> &lanes,
                                      const TimelineLayout &layout, const TimeMapping &mapping)
{
    auto paintWhole = [&](const TimelinePainter &with, int lane) {
        LaneCache &c = m_caches[std::size_t(lane)];
        const QRect lr = layout.lanes[std::size_t(lane)];
        QPainter cp(&c.image);
        cp.translate(-lr.topLeft());
        c.edgeDependent = with.paintLane(cp, lane, lr, mapping, lr.left(), lr.right() + 1);
    };
    const int count = int(lanes.size());
    long long pixels = 0;
    for (const int lane : lanes)
        pixels += (long long)layout.lanes[std::size_t(lane)].width() * layout.lanes[std::size_t(lane)].height();
    const int threads = std::min(count, m_paintThreads > 0 ? m_paintThreads : QThread::idealThreadCount());
    if (threads < 2 || pixels < kMinConcurrentPixels) {
        for (const int lane : lanes)
            paintWhole(painter, lane);
        m_lastPaintThreads = 1;
        return;
    }

    const int helpers = threads - 1;
    if (m_helpersStale || int(m_helperPainters.size()) < helpers) {
        m_helperPainters.clear();
        for (int h = 0; h < helpers; ++h)
            m_helperPainters.push_back(std::make_unique<TimelinePainter>(painter.threadCopy()));
        m_helpersStale = false;
    }
    if (!m_pool)
        m_pool = std::make_unique<QThreadPool>();
    if (m_pool->maxThreadCount() != helpers)
        m_pool->setMaxThreadCount(helpers);

    // Dearest first, so that the longest lane (the host thread's, with every API call) does not start last.
    std::vector<long long> cost(lanes.size());
    for (std::size_t j = 0; j < lanes.size(); ++j) {
        const QRect lr = layout.lanes[std::size_t(lanes[j])];
        cost[j] = painter.laneWorkEstimate(lanes[j], mapping, lr.left(), lr.right() + 1);
    }
    std::vector<int> order(lanes.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return cost[std::size_t(a)] > cost[std::size_t(b)]; });

    std::atomic<int> next{0};
    std::atomic<int> painted{0}; // threads that painted at least one lane
    auto work = [&](const TimelinePainter &with) {
        bool any = false;
        for (int j = next.fetch_add(1, std::memory_order_relaxed); j < count;
             j = next.fetch_add(1, std::memory_order_relaxed)) {
            paintWhole(with, lanes[std::size_t(order[std::size_t(j)])]);
            any = true;
        }
        if (any)
            painted.fetch_add(1, std::memory_order_relaxed);
    };
    HelperSync sync;
    std::vector<std::unique_ptr<LaneHelper>> tasks;
    for (int h = 0; h < helpers; ++h) {
        const TimelinePainter *helper = m_helperPainters[std::size_t(h)].get();
        tasks.push_back(std::make_unique<LaneHelper>([&work, helper] { work(*helper); }, sync));
    }
    {
        std::lock_guard lock(sync.mutex);
        sync.pending = helpers;
    }
    for (auto &task : tasks)
        m_pool->start(task.get());
    work(painter);
    // A helper the pool has not started yet has nothing left to do: take it back instead of waiting.
    int notStarted = 0;
    for (auto &task : tasks)
        if (m_pool->tryTake(task.get()))
            ++notStarted;
    {
        std::unique_lock lock(sync.mutex);
        sync.pending -= notStarted;
        sync.finished.wait(lock, [&] { return sync.pending == 0; });
    }
    for (int h = 0; h < helpers; ++h) {
        painter.addStats(m_helperPainters[std::size_t(h)]->stats());
        m_helperPainters[std::size_t(h)]->resetStats();
    }
    m_lastPaintThreads = painted.load();
}

} // namespace streamscope::ui
