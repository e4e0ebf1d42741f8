// Tests of the timeline's concurrent lane repaint (TimelineView::setPaintThreads): a large synthetic trace
// over many lanes, shown at many windows (zoom frames, pans that shift the caches, edge-dependent labels,
// a style change), must give exactly the same images painted by one thread and by several, and the
// several must really have been used.
#include <QImage>
#include <QPainter>
#include <QtTest>

#include <array>
#include <random>

#include "engine/model/trace.h"
#include "tests/ui/timeline/timeline_test_trace.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

using namespace streamscope::ui;
namespace engine = streamscope::engine;

namespace {

constexpr int kStreams = 12;

// kStreams streams cycling H2D -> kernel -> D2H with durations over three orders of magnitude (folded
// marks and labelled bars side by side at most zooms), two host threads whose synchronous copies block,
// and one more stream of nested intervals, as imports have.
std::shared_ptr<engine::Trace> bigTrace(int n)
{
    engine::DeviceInfo device;
    device.name = "Test GPU";
    device.linkPeakGBs = 25.0;
    streamscope::test::TraceBuilder b;
    b.device(device);
    for (int s = 0; s <= kStreams; ++s) {
        engine::StreamInfo stream;
        stream.name = "stream " + std::to_string(s);
        b.stream(stream);
    }
    b.thread("main", 1).thread("worker", 2);
    const std::array<std::string, 3> names{"copy in", "a kernel with a long name", "copy out"};
    std::mt19937_64 rng(23);
    std::uniform_int_distribution<std::int64_t> gap(0, 3'000), shortOp(50, 900), longOp(20'000, 600'000);
    std::bernoulli_distribution isLong(0.02);
    std::vector<std::int64_t> free(kStreams, 0);
    std::array<std::int64_t, 2> host{0, 0};
    for (int i = 0; i < n; ++i) {
        const int s = i % kStreams;
        const int phase = (i / kStreams) % 3;
        const int thread = s % 2;
        const auto kind = phase == 1   ? engine::OpKind::Kernel
                          : phase == 0 ? engine::OpKind::CopyH2D
                                       : engine::OpKind::CopyD2H;
        const std::int64_t hostStart = host[std::size_t(thread)];
        // The draws in this order: gap, long or not, length.
        const std::int64_t start = std::max(free[std::size_t(s)] + gap(rng), hostStart + 100);
        const std::int64_t end = start + (isLong(rng) ? longOp(rng) : shortOp(rng));
        free[std::size_t(s)] = end;
        b.onStream(s)
            .onThread(thread)
            .op(kind, start, end, phase != 1 ? std::uint64_t(1) << (14 + i % 6) : 0)
            .named(names[std::size_t(phase)])
            .host(hostStart, hostStart + 100);
        if (phase != 1) {
            const bool sync = i % 31 == 0;
            b.api(sync ? engine::CopyApi::Sync : engine::CopyApi::Async);
            if (sync)
                b.last().hostEndNs = end; // held the host until the copy ended
        }
        host[std::size_t(thread)] = b.last().hostEndNs + 50;
    }
    streamscope::test::appendNestedRanges(b, kStreams, names[1], names[0], std::max(host[0], host[1]), 60'000, 45'000,
                                          50'000, 900, shortOp, rng);
    auto trace = b.buildShared();
    auto &ops = trace->repetitions[0].ops;
    std::stable_sort(ops.begin(), ops.end(),
                     [](const engine::OpRecord &a, const engine::OpRecord &c) { return a.gpuStartNs < c.gpuStartNs; });
    for (int i = 0; i < int(ops.size()); ++i)
        ops[std::size_t(i)].opIndex = i;
    return trace;
}

QImage render(TimelineView &view)
{
    QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::magenta);
    view.render(&image);
    return image;
}

// "" when equal, else how many pixels differ and where the first is.
QString difference(const QImage &a, const QImage &b)
{
    if (a.size() != b.size())
        return QStringLiteral("sizes differ");
    int differ = 0, firstX = -1, firstY = -1;
    for (int y = 0; y < a.height(); ++y) {
        const auto *ra = reinterpret_cast<const QRgb *>(a.constScanLine(y));
        const auto *rb = reinterpret_cast<const QRgb *>(b.constScanLine(y));
        for (int x = 0; x < a.width(); ++x)
            if (ra[x] != rb[x] && differ++ == 0)
                firstX = x, firstY = y;
    }
    return differ == 0 ? QString()
                       : QStringLiteral("%1 pixels differ, the first at (%2, %3)").arg(differ).arg(firstX).arg(firstY);
}

} // namespace

class TestTimelineParallel : public QObject {
    Q_OBJECT

private slots:
    void threadCopyHasItsOwnFonts()
    {
        TimelinePainter painter;
        QFont base;
        base.setPixelSize(13);
        painter.setMetrics(TimelineMetrics::make(true, base));
        const TimelinePainter copy = painter.threadCopy();
        QVERIFY(copy.metrics().font == painter.metrics().font);
        QVERIFY(copy.metrics().smallFont == painter.metrics().smallFont);
        QCOMPARE(copy.metrics().font.resolveMask(), painter.metrics().font.resolveMask());
        // Not sharing the QFontPrivate (its engine data is swapped per thread).
        QVERIFY(!copy.metrics().font.isCopyOf(painter.metrics().font));
        QVERIFY(!copy.metrics().smallFont.isCopyOf(painter.metrics().smallFont));
        QCOMPARE(copy.metrics().streamLaneHeight, painter.metrics().streamLaneHeight);
    }

    void concurrentRepaintMatchesSequential()
    {
        const auto trace = bigTrace(60'000);
        TimelineView sequential, parallel;
        for (TimelineView *view : {&sequential, &parallel}) {
            view->resize(1400, 900);
            view->setDarkPalette(false);
            view->setTrace(trace, 0);
        }
        sequential.setPaintThreads(1);
        parallel.setPaintThreads(4);
        QVERIFY(parallel.laneModel()->laneCount() >= kStreams + 3);
        const qint64 extent = parallel.zoom()->extentEnd() - parallel.zoom()->extentStart();
        int compared = 0, concurrent = 0;
        auto check = [&](const QString &what) {
            const QImage a = render(sequential);
            QCOMPARE(sequential.lastPaintThreads() <= 1, true);
            const QImage b = render(parallel);
            if (parallel.lastPaintThreads() > 1)
                ++concurrent;
            const QString diff = difference(a, b);
            QVERIFY2(diff.isEmpty(), qPrintable(what + QStringLiteral(": ") + diff));
            ++compared;
        };
        auto setWindow = [&](qint64 start, qint64 end) {
            sequential.zoom()->setWindow(start, end);
            parallel.zoom()->setWindow(start, end);
        };
        check(QStringLiteral("fit all"));
        // Zoom frames from the whole trace down to a few microseconds at two anchors, each followed by
        // a few pans (cached images shifted, strips painted; a cut label repaints the lane whole).
        for (const double anchor : {0.29, 0.73}) {
            for (double fraction = 1.0; fraction > 2e-5; fraction /= 3.1) {
                const auto width = std::max<qint64>(1000, qint64(double(extent) * fraction));
                qint64 start = qint64(double(extent - width) * anchor);
                setWindow(start, start + width);
                check(QStringLiteral("window %1 at %2").arg(fraction).arg(anchor));
                for (int pan = 0; pan < 3; ++pan) {
                    start += width / 37 * (pan == 1 ? -2 : 1);
                    setWindow(start, start + width);
                    check(QStringLiteral("pan %1 of window %2 at %3").arg(pan).arg(fraction).arg(anchor));
                }
            }
        }
        // A style change rebuilds the helpers' painters (other fonts, lane heights).
        sequential.setPresentationMode(true);
        parallel.setPresentationMode(true);
        setWindow(extent / 5, extent / 5 + extent / 40);
        check(QStringLiteral("presentation mode"));
        sequential.setDarkPalette(true);
        parallel.setDarkPalette(true);
        setWindow(extent / 3, extent / 3 + extent / 9);
        check(QStringLiteral("dark palette"));
        QVERIFY(compared >= 60);
        // Every zoom frame and style change hands all lanes to four threads; how many a helper gets before
        // the GUI thread has painted them all depends on the scheduler (on a loaded two-core machine
        // about one frame in eight of these), but some frames must have been painted by several.
        QVERIFY2(concurrent >= 1, qPrintable(QStringLiteral("%1 frames painted concurrently").arg(concurrent)));
    }

    void smallRepaintStaysSequential()
    {
        // A view so small that threads would cost more than they save paints on the GUI thread alone.
        const auto trace = bigTrace(2'000);
        TimelineView view;
        view.resize(330, 170);
        view.setPaintThreads(4);
        view.setTrace(trace, 0);
        render(view);
        QCOMPARE(view.lastPaintThreads(), 1);
    }
};

QTEST_MAIN(TestTimelineParallel)
#include "tst_timeline_parallel.moc"
