// Rendering and interaction tests of the timeline: a hand-made trace painted into a QImage must show
// each op's colour in its lane at its time (and background where nothing runs), blocking host calls
// hatched, derived lanes and the bandwidth lane with its dashed peak, folding that keeps ink for 1e5 tiny
// ops, tooltips, selection with the host->GPU link, PNG/SVG export, the pixmap cache on pans, and the
// mouse/keyboard navigation of TimelineView.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QXmlStreamReader>
#include <QtTest>

#include <sys/stat.h>

#include "tests/ui/timeline/timeline_test_trace.h"
#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

using namespace streamscope::ui;
namespace engine = streamscope::engine;
using streamscope::test::makeTimelineTrace;

namespace {

// The picture renderTo makes, with the geometry the test needs to find lanes and times in it.
struct Rendered {
    QImage image;
    TimelineLayout layout;
    TimeMapping mapping;
};

Rendered render(TimelineView &view, QSize size = QSize(1000, 420))
{
    Rendered r;
    r.image = QImage(size, QImage::Format_ARGB32);
    r.image.fill(Qt::magenta); // anything left unpainted shows up
    {
        QPainter p(&r.image);
        view.renderTo(p, r.image.rect());
    }
    TimelinePainter painter;
    painter.setModel(view.laneModel());
    painter.setMetrics(TimelineMetrics::make(view.presentationMode(), view.font()));
    r.layout = painter.layout(r.image.rect());
    r.mapping = TimelinePainter::mappingFor(r.layout, view.zoom()->windowStart(), view.zoom()->windowEnd());
    // To look at what the tests see: STREAMSCOPE_DUMP_DIR=/tmp/x ./tst_timeline_render
    const QString dump = qEnvironmentVariable("STREAMSCOPE_DUMP_DIR");
    static int dumped = 0;
    if (!dump.isEmpty())
        r.image.save(
            QStringLiteral("%1/%2-%3.png").arg(dump, QString::fromLatin1(QTest::currentTestFunction())).arg(++dumped));
    return r;
}

// The pixel in lane `lane` at time ns, `dy` rows below the lane's top (negative: above its bottom).
QColor pixel(const Rendered &r, int lane, qint64 ns, int dy)
{
    const QRect lr = r.layout.lanes[std::size_t(lane)];
    const int x = int(std::floor(r.mapping.toX(ns)));
    const int y = dy >= 0 ? lr.top() + dy : lr.bottom() + 1 + dy;
    return r.image.pixelColor(x, y);
}

QString describe(const QColor &c)
{
    return c.name(QColor::HexArgb);
}

#define COMPARE_COLOR(actual, expected)                                                                                \
    QVERIFY2((actual).rgb() == (expected).rgb(),                                                                       \
             qPrintable(QStringLiteral("got %1, expected %2").arg(describe(actual), describe(expected))))

// One stream of n tiny kernels of `width` ns, one every `period` ns.
std::shared_ptr<engine::Trace> tinyOps(int n, qint64 width, qint64 period)
{
    engine::StreamInfo stream;
    stream.name = "tiny";
    streamscope::test::TraceBuilder b;
    b.stream(stream);
    for (int i = 0; i < n; ++i)
        b.kernel(i * period, i * period + width).named("k");
    return b.buildShared();
}

// One stream of n kernels all from 0 to 1 ms (a hostile import: half a million ops at one timestamp),
// named "k0", "k1", ... ("k" + the last index alone when `onlyLast`), then one kernel of its own after them.
std::shared_ptr<engine::Trace> stackedOps(int n, bool onlyLast)
{
    engine::StreamInfo stream;
    stream.name = "stacked";
    streamscope::test::TraceBuilder b;
    b.stream(stream);
    for (int i = onlyLast ? n - 1 : 0; i < n; ++i)
        b.kernel(0, 1'000'000).named("k" + std::to_string(i));
    b.kernel(1'200'000, 2'000'000).named("after");
    return b.buildShared();
}

void sendMouse(QWidget *w, QEvent::Type type, QPoint pos, Qt::MouseButton button, Qt::MouseButtons buttons,
               Qt::KeyboardModifiers modifiers = {})
{
    QMouseEvent event(type, QPointF(pos), w->mapToGlobal(QPointF(pos)), button, buttons, modifiers);
    QApplication::sendEvent(w, &event);
}

} // namespace

class TestTimelineRender : public QObject {
    Q_OBJECT

private:
    const OpPalette m_light{false, false};

    void setUpView(TimelineView &view)
    {
        view.setDarkPalette(false);
        view.setTrace(makeTimelineTrace(), 0);
    }

private slots:
    void barsInTheirLanesAtTheirTimes()
    {
        TimelineView view;
        setUpView(view);
        const Rendered r = render(view);
        QCOMPARE(r.layout.lanes.size(), std::size_t(7));
        // Stream "copy" (lane 1): H2D during [20, 120) µs, nothing at 235 µs, D2H during [340, 390) µs.
        // Row 3 is the top row of a bar (above any label).
        COMPARE_COLOR(pixel(r, 1, 70'000, 3), m_light.opColor(engine::OpKind::CopyH2D));
        COMPARE_COLOR(pixel(r, 1, 235'000, 3), m_light.laneBackground(1));
        COMPARE_COLOR(pixel(r, 1, 365'000, 3), m_light.opColor(engine::OpKind::CopyD2H));
        COMPARE_COLOR(pixel(r, 1, 10'000, 3), m_light.laneBackground(1));
        // Stream "compute" (lane 2): the kernel during [130, 330) µs.
        COMPARE_COLOR(pixel(r, 2, 235'000, 3), m_light.opColor(engine::OpKind::Kernel));
        COMPARE_COLOR(pixel(r, 2, 70'000, 3), m_light.laneBackground(2));
        COMPARE_COLOR(pixel(r, 2, 365'000, 3), m_light.laneBackground(2));
        // Times are relative to the repetition start: the H2D bar begins 20 µs after the plot's left edge.
        const QRect lane1 = r.layout.lanes[1];
        const int x20 = int(std::floor(r.mapping.toX(qint64(20'000))));
        COMPARE_COLOR(r.image.pixelColor(x20 - 2, lane1.top() + 3), m_light.laneBackground(1));
        COMPARE_COLOR(r.image.pixelColor(x20 + 1, lane1.top() + 3), m_light.opColor(engine::OpKind::CopyH2D));
        // Nothing left unpainted.
        for (int y = 0; y < r.image.height(); y += 7)
            for (int x = 0; x < r.image.width(); x += 7)
                QVERIFY(r.image.pixelColor(x, y) != QColor(Qt::magenta));
    }

    void blockingHostCallsAreShaded()
    {
        TimelineView view;
        setUpView(view);
        const Rendered r = render(view);
        // Op 0's call [0, 10) µs does not block: half height, so the bar's top row is background.
        COMPARE_COLOR(pixel(r, 0, 5'000, 3), m_light.laneBackground(0));
        const QRect lane0 = r.layout.lanes[0];
        COMPARE_COLOR(pixel(r, 0, 5'000, lane0.height() / 2), m_light.opColor(engine::OpKind::CopyH2D));
        // Op 2's synchronous cudaMemcpy [16, 400) µs held the thread: full height, hatched.
        const QColor d2h = m_light.opColor(engine::OpKind::CopyD2H);
        const int x0 = int(r.mapping.toX(qint64(200'000)));
        int plain = 0, hatched = 0;
        for (int x = x0; x < x0 + 24; ++x) {
            const QColor c = r.image.pixelColor(x, lane0.top() + 3);
            QVERIFY2(c.rgb() != m_light.laneBackground(0).rgb(), "blocking call must fill the full height");
            if (c.rgb() == d2h.rgb())
                ++plain;
            else if (c.lightness() < d2h.lightness())
                ++hatched;
        }
        QVERIFY2(plain > 0 && hatched > 0, qPrintable(QStringLiteral("plain %1 hatched %2").arg(plain).arg(hatched)));
    }

    void derivedAndBandwidthLanes()
    {
        TimelineView view;
        setUpView(view);
        const Rendered r = render(view);
        // H2D active-count lane (3): full during the copy, empty elsewhere.
        COMPARE_COLOR(pixel(r, 3, 70'000, -5), m_light.h2d());
        COMPARE_COLOR(pixel(r, 3, 235'000, -5), m_light.laneBackground(3));
        COMPARE_COLOR(pixel(r, 4, 365'000, -5), m_light.d2h());
        COMPARE_COLOR(pixel(r, 5, 235'000, -5), m_light.compute());
        COMPARE_COLOR(pixel(r, 5, 70'000, -5), m_light.laneBackground(5));
        // Bandwidth lane (6): H2D 20 GB/s during the copy, D2H on top during its copy, nothing between.
        COMPARE_COLOR(pixel(r, 6, 70'000, -5), m_light.h2d());
        const QColor d2h = pixel(r, 6, 365'000, -5);
        QVERIFY2(d2h.red() > 150 && d2h.blue() < 100, qPrintable(describe(d2h)));
        COMPARE_COLOR(pixel(r, 6, 235'000, -5), m_light.laneBackground(6));
        // The link's peak (25 GB/s) is a dashed line above the 20 GB/s area.
        const QRect lane6 = r.layout.lanes[6];
        const double baseline = lane6.bottom() + 1 - 3;
        const double scale = (lane6.height() - 7) / (25.0 * 1.08);
        const int y = int(std::round(baseline - 25.0 * scale));
        int dashes = 0;
        for (int x = r.layout.plot.left(); x <= r.layout.plot.right(); ++x)
            if (r.image.pixelColor(x, y).rgb() == m_light.peakLine().rgb())
                ++dashes;
        QVERIFY2(dashes > r.layout.plot.width() / 4 && dashes < r.layout.plot.width(),
                 qPrintable(QStringLiteral("%1 dash pixels of %2").arg(dashes).arg(r.layout.plot.width())));
        // The 20 GB/s area stays below the peak line.
        const int yArea = int(std::round(baseline - 20.0 * scale));
        COMPARE_COLOR(r.image.pixelColor(int(r.mapping.toX(qint64(70'000))), yArea + 2), m_light.h2d());
        COMPARE_COLOR(r.image.pixelColor(int(r.mapping.toX(qint64(70'000))), yArea - 3), m_light.laneBackground(6));
    }

    void legendShowsKindsPresent()
    {
        TimelineView view;
        setUpView(view);
        const Rendered r = render(view);
        auto count = [&](const QColor &c) {
            int n = 0;
            for (int y = r.layout.legend.top(); y <= r.layout.legend.bottom(); ++y)
                for (int x = r.layout.legend.left(); x <= r.layout.legend.right(); ++x)
                    n += r.image.pixelColor(x, y).rgb() == c.rgb();
            return n;
        };
        QVERIFY(count(m_light.opColor(engine::OpKind::CopyH2D)) > 20);
        QVERIFY(count(m_light.opColor(engine::OpKind::CopyD2H)) > 20);
        QVERIFY(count(m_light.opColor(engine::OpKind::Kernel)) > 20);
        QVERIFY(count(m_light.opColor(engine::OpKind::HostSync)) > 20);
        QCOMPARE(count(m_light.opColor(engine::OpKind::Prefetch)), 0); // not in this trace
    }

    void foldingKeepsInk()
    {
        // 1e5 kernels of 10 ns every 20 ns: 2 ms, far below a pixel each at this size.
        TimelineView view;
        view.setDarkPalette(false);
        view.setTrace(tinyOps(100'000, 10, 20), 0);
        const Rendered r = render(view, QSize(1200, 260));
        const QColor kernel = m_light.opColor(engine::OpKind::Kernel);
        const QRect lane = r.layout.lanes[0];
        for (int x = r.layout.plot.left(); x < int(r.mapping.toX(qint64(1'999'990))); ++x)
            COMPARE_COLOR(r.image.pixelColor(x, lane.top() + 3), kernel);

        // The pixel budget: at most a few marks per pixel column, not one per op.
        TimelinePainter painter;
        OpPalette palette;
        painter.setModel(view.laneModel());
        painter.setPalette(&palette);
        painter.setMetrics(TimelineMetrics::make(false, view.font()));
        QImage image(1200, 260, QImage::Format_ARGB32_Premultiplied);
        QPainter p(&image);
        const TimelineLayout layout = painter.layout(image.rect());
        painter.resetStats();
        painter.paintLane(p, 0, layout.lanes[0], r.mapping, layout.plot.left(), layout.plot.right() + 1);
        const auto stats = painter.stats();
        QCOMPARE(stats.opsVisited, 100'000LL);
        QVERIFY2(stats.barsDrawn + stats.foldedMarks <= layout.plot.width(),
                 qPrintable(QStringLiteral("%1 bars + %2 folds").arg(stats.barsDrawn).arg(stats.foldedMarks)));
    }

    // Bars wholly covered by the bar drawn just before them (same kind, same pixels) are not painted again:
    // 200,000 kernels at one timestamp are one bar, and the picture is the one the last of them alone
    // makes (its label on top, as when each was painted over the one before).
    void coveredBarsAreNotPaintedAgain()
    {
        constexpr int kOps = 200'000;
        TimelineView stacked, alone;
        stacked.setDarkPalette(false);
        alone.setDarkPalette(false);
        stacked.setTrace(stackedOps(kOps, false), 0);
        alone.setTrace(stackedOps(kOps, true), 0);
        const Rendered a = render(stacked, QSize(1200, 200));
        const Rendered b = render(alone, QSize(1200, 200));
        const QRect lane = a.layout.lanes[0].intersected(a.layout.plot);
        QVERIFY(!lane.isEmpty());
        QCOMPARE(a.image.copy(lane), b.image.copy(lane));
        COMPARE_COLOR(pixel(a, 0, 100'000, 3), m_light.opColor(engine::OpKind::Kernel));

        TimelinePainter painter;
        OpPalette palette;
        painter.setModel(stacked.laneModel());
        painter.setPalette(&palette);
        painter.setMetrics(TimelineMetrics::make(false, stacked.font()));
        QImage image(1200, 200, QImage::Format_ARGB32_Premultiplied);
        QPainter p(&image);
        const TimelineLayout layout = painter.layout(image.rect());
        painter.resetStats();
        painter.paintLane(p, 0, layout.lanes[0], a.mapping, layout.plot.left(), layout.plot.right() + 1);
        const auto stats = painter.stats();
        QCOMPARE(stats.opsVisited, qint64(kOps + 1));
        QCOMPARE(stats.barsDrawn, 2LL); // the stack and the kernel after it
    }

    void sparseTinyOpsEachLeaveAMark()
    {
        // 300 kernels of 10 ns, one per ms (about 3 px apart): each is 1/300 of a pixel wide and must
        // still be seen.
        TimelineView view;
        view.setDarkPalette(false);
        view.setTrace(tinyOps(300, 10, 1'000'000), 0);
        const Rendered r = render(view, QSize(1200, 260));
        const QColor kernel = m_light.opColor(engine::OpKind::Kernel);
        const QRect lane = r.layout.lanes[0];
        int missing = 0;
        for (int i = 0; i < 300; ++i) {
            const int x = int(std::floor(r.mapping.toX(qint64(i) * 1'000'000)));
            missing += r.image.pixelColor(x, lane.top() + 3).rgb() != kernel.rgb();
        }
        QCOMPARE(missing, 0);
        // ... while pixels between them stay background where no op falls.
        int ink = 0;
        for (int x = r.layout.plot.left(); x <= r.layout.plot.right(); ++x)
            ink += r.image.pixelColor(x, lane.top() + 3).rgb() == kernel.rgb();
        QVERIFY2(ink <= 300,
                 qPrintable(QStringLiteral("%1 ink columns: folding must not smear isolated ops").arg(ink)));
    }

    void zoomedInShowsGaps()
    {
        TimelineView view;
        view.setDarkPalette(false);
        view.setTrace(tinyOps(100'000, 10, 20), 0);
        view.zoom()->setWindow(0, 200);
        const Rendered r = render(view);
        COMPARE_COLOR(pixel(r, 0, 5, 3), m_light.opColor(engine::OpKind::Kernel));
        COMPARE_COLOR(pixel(r, 0, 15, 3), m_light.laneBackground(0));
        COMPARE_COLOR(pixel(r, 0, 105, 3), m_light.opColor(engine::OpKind::Kernel));
    }

    // An op that ran as several records (a copy-engine collective, a GEMM of two kernels) shows them in a band
    // cut out along the bottom of its bar, each in its kind's colour, the time between them a gap; the bar's
    // own colour stays above. The tooltip says what the pieces were.
    void piecesInsideTheirBar()
    {
        auto trace = makeTimelineTrace();
        engine::Repetition &rep = trace->repetitions[0];
        const qint64 origin = rep.ops[1].gpuStartNs - 130'000; // "kern B": [130, 330) µs
        engine::OpPiece copy;
        copy.op = 1;
        copy.kind = engine::PieceKind::Copy;
        copy.startNs = origin + 130'000;
        copy.endNs = origin + 200'000;
        copy.bytes = 64 << 20;
        copy.srcDevice = 0;
        copy.dstDevice = 1;
        copy.channelType = engine::ChannelType::AsyncCopy;
        engine::OpPiece kernel;
        kernel.op = 1;
        kernel.startNs = origin + 250'000;
        kernel.endNs = origin + 330'000;
        rep.opPieces = {copy, kernel};
        rep.ops[1].kind = engine::OpKind::Collective;
        TimelineView view;
        view.setDarkPalette(false);
        view.setTrace(trace, 0);
        const Rendered r = render(view);
        const QRect lane = r.layout.lanes[2];
        const int pad = lane.height() >= 16 ? 3 : 1;
        const int band = std::max(3, int(std::lround((lane.height() - 2 * pad - 1) / 3.0)));
        const int inBand = lane.height() - pad - 1 - band / 2 - 1; // rows below the lane's top
        COMPARE_COLOR(pixel(r, 2, 165'000, inBand), m_light.opColor(engine::OpKind::CopyP2P));
        COMPARE_COLOR(pixel(r, 2, 290'000, inBand), m_light.opColor(engine::OpKind::Kernel));
        COMPARE_COLOR(pixel(r, 2, 225'000, inBand), m_light.laneBackground(2)); // between them: a gap in the band
        COMPARE_COLOR(pixel(r, 2, 165'000, 3), m_light.opColor(engine::OpKind::Collective)); // above the band
        const QString tip = view.toolTipText(1);
        QVERIFY2(tip.contains(QStringLiteral("ran as 1 kernel, 1 copy on copy engines; busy 150 µs of its 200 µs")),
                 qPrintable(tip));
        // Zoomed into the gap, where no piece is in view, the band is still cut out of the bar.
        view.zoom()->setWindow(205'000, 245'000);
        const Rendered gap = render(view);
        COMPARE_COLOR(pixel(gap, 2, 225'000, inBand), m_light.laneBackground(2));
        COMPARE_COLOR(pixel(gap, 2, 225'000, 3), m_light.opColor(engine::OpKind::Collective));
        // Without pieces no band: the kernel of the plain trace is one colour to its bottom.
        TimelineView plain;
        setUpView(plain);
        const Rendered q = render(plain);
        COMPARE_COLOR(pixel(q, 2, 165'000, inBand), m_light.opColor(engine::OpKind::Kernel));
    }

    void tooltipText()
    {
        TimelineView view;
        setUpView(view);
        const QString h2d = view.toolTipText(0);
        for (const char *part :
             {"h2d A", "H2D copy", "stream 'copy'", "start 20 µs", "duration 100 µs", "1.91 MiB", "20 GB/s",
              "pinned → device", "cudaMemcpyAsync", "host call: start 0 ns", "held the thread 10 µs"})
            QVERIFY2(h2d.contains(QString::fromUtf8(part)), qPrintable(part + QStringLiteral(" not in:\n") + h2d));
        QVERIFY(!h2d.contains(QStringLiteral("blocking")));
        const QString d2h = view.toolTipText(2);
        QVERIFY2(d2h.contains(QStringLiteral("(blocking)")), qPrintable(d2h));
        QVERIFY2(d2h.contains(QStringLiteral("cudaMemcpy)")), qPrintable(d2h));
        QVERIFY2(d2h.contains(QStringLiteral("held the thread 384 µs")), qPrintable(d2h));
        const QString sync = view.toolTipText(3);
        QVERIFY2(!sync.contains(QStringLiteral("GPU:")), qPrintable(sync));
        QVERIFY(view.toolTipText(99).isEmpty());
    }

    void selectionAndLink()
    {
        TimelineView view;
        setUpView(view);
        QSignalSpy selected(&view, &TimelineView::opSelected);
        const Rendered before = render(view);
        view.selectOp(2);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.at(0).at(0).toInt(), 0);
        QCOMPARE(selected.at(0).at(1).toInt(), 2);
        QCOMPARE(view.selectedOp().op, 2);
        view.selectOp(2); // no change, no signal
        QCOMPARE(selected.count(), 1);
        const Rendered after = render(view);
        // The GPU bar of the D2H gets an outline in the highlight colour.
        TimelinePainter painter;
        painter.setModel(view.laneModel());
        painter.setMetrics(TimelineMetrics::make(false, view.font()));
        const QRectF gpu = painter.gpuBarRect(after.layout, after.mapping, 2);
        const QRectF host = painter.hostBarRect(after.layout, after.mapping, 2);
        QVERIFY(!gpu.isEmpty() && !host.isEmpty());
        COMPARE_COLOR(after.image.pixelColor(int(gpu.center().x()), int(gpu.top()) - 1), m_light.highlight());
        // The link: dark pixels between the host call's start and the GPU op's start that were not there.
        const int midX = int((host.left() + gpu.left()) / 2);
        int darkAfter = 0, darkBefore = 0;
        for (int y = int(host.bottom()); y <= int(gpu.top()); ++y) {
            darkAfter += after.image.pixelColor(midX, y).lightness() < 100;
            darkBefore += before.image.pixelColor(midX, y).lightness() < 100;
        }
        QVERIFY2(darkAfter > darkBefore, qPrintable(QStringLiteral("%1 vs %2").arg(darkAfter).arg(darkBefore)));
        view.selectOp(-1);
        QCOMPARE(selected.count(), 2);
        QCOMPARE(selected.last().at(1).toInt(), -1);
        QVERIFY(!view.selectedOp().isValid());
    }

    void selectBringsOpIntoView()
    {
        TimelineView view;
        setUpView(view);
        view.zoom()->setWindow(0, 50'000);
        view.selectOp(1); // the kernel at [130, 330) µs, wider than the window
        QVERIFY(view.zoom()->windowStart() <= 130'000);
        QVERIFY(view.zoom()->windowEnd() >= 330'000);
    }

    void exportPngAndSvg()
    {
        TimelineView view;
        setUpView(view);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString error;
        const QString png = dir.filePath(QStringLiteral("t.png"));
        QVERIFY2(view.exportImage(png, QSize(1280, 720), &error), qPrintable(error));
        QImage image(png);
        QCOMPARE(image.size(), QSize(1280, 720));
        const QString svg = dir.filePath(QStringLiteral("t.svg"));
        QVERIFY2(view.exportImage(svg, QSize(1280, 720), &error), qPrintable(error));
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("kern B")); // the label inside the kernel's bar
        QVERIFY(text.contains("compute")); // a lane header
        QVERIFY(!view.exportImage(dir.filePath(QStringLiteral("t.bmp")), QSize(100, 100), &error));
        QVERIFY2(error.contains(QStringLiteral(".png or .svg")), qPrintable(error));
        QVERIFY(!view.exportImage(QStringLiteral("/nonexistent-dir/x.png"), QSize(100, 100), &error));
        QVERIFY2(error.contains(QStringLiteral("/nonexistent-dir/x.png")), qPrintable(error));
    }

    // Image exports write as every StreamScope file does (engine::writeFileAtomically): the target's mode
    // kept, a symlink or a FIFO refused and left as it was, no temporary file left behind.
    void exportWritesSafely()
    {
        TimelineView view;
        setUpView(view);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString error;
        const QString png = dir.filePath(QStringLiteral("kept.png"));
        {
            QFile old(png);
            QVERIFY(old.open(QIODevice::WriteOnly));
            old.write("old");
        }
        QVERIFY(QFile::setPermissions(png, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        QVERIFY2(view.exportImage(png, QSize(320, 200), &error), qPrintable(error));
        QCOMPARE(QImage(png).size(), QSize(320, 200));
        QCOMPARE(QFile::permissions(png) & (QFileDevice::ReadGroup | QFileDevice::ReadOther),
                 QFileDevice::Permissions());
        const QString link = dir.filePath(QStringLiteral("link.svg"));
        const QString target = dir.filePath(QStringLiteral("target.txt"));
        {
            QFile t(target);
            QVERIFY(t.open(QIODevice::WriteOnly));
            t.write("untouched");
        }
        QVERIFY(QFile::link(target, link));
        QVERIFY(!view.exportImage(link, QSize(320, 200), &error));
        QVERIFY2(error.contains(link), qPrintable(error));
        QVERIFY(QFileInfo(link).isSymLink());
        QFile t(target);
        QVERIFY(t.open(QIODevice::ReadOnly));
        QCOMPARE(t.readAll(), QByteArray("untouched"));
        const QString fifo = dir.filePath(QStringLiteral("fifo.png"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        QVERIFY(!view.exportImage(fifo, QSize(320, 200), &error));
        QVERIFY2(error.contains(fifo), qPrintable(error));
        const QStringList left = QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::System);
        QCOMPARE(left.size(), 4); // kept.png, link.svg, target.txt, fifo.png: no temporary file
    }

    void presentationAndDarkModes()
    {
        TimelineView view;
        setUpView(view);
        const Rendered normal = render(view, QSize(1280, 720));
        view.setPresentationMode(true);
        const Rendered big = render(view, QSize(1280, 720));
        QVERIFY(big.layout.lanes[1].height() > normal.layout.lanes[1].height());
        QVERIFY(big.layout.ruler.height() > normal.layout.ruler.height());
        // Everything still fits at 1280x720 with the legend below the lanes.
        QVERIFY(big.layout.plot.bottom() < big.layout.legend.top());
        QVERIFY(big.layout.legend.bottom() < 720);
        view.setPresentationMode(false);
        view.setDarkPalette(true);
        const Rendered dark = render(view);
        const OpPalette darkPalette(true, false);
        COMPARE_COLOR(pixel(dark, 2, 70'000, 3), darkPalette.laneBackground(2));
        COMPARE_COLOR(pixel(dark, 2, 235'000, 3), darkPalette.opColor(engine::OpKind::Kernel));
        QVERIFY(darkPalette.background().lightness() < 60);
    }

    void cachedPanMatchesFreshPaint()
    {
        // The widget shifts its per-lane pixmaps on a pure pan; the result must match a fresh paint.
        TimelineView view;
        view.setDarkPalette(false);
        view.setTrace(tinyOps(20'000, 700, 1000), 0);
        view.resize(1000, 300);
        const TimelineLayout layout = [&] {
            TimelinePainter painter;
            painter.setModel(view.laneModel());
            painter.setMetrics(TimelineMetrics::make(false, view.font()));
            return painter.layout(view.rect());
        }();
        const qint64 nsPerPixel = 100; // whole pixels per pan step
        const qint64 width = nsPerPixel * layout.plot.width();
        view.zoom()->setWindow(1'000'000, 1'000'000 + width);
        (void)view.grab();
        view.zoom()->setWindow(1'000'000 + 37 * nsPerPixel, 1'000'000 + 37 * nsPerPixel + width);
        const QImage panned = view.grab().toImage().convertToFormat(QImage::Format_ARGB32);
        QImage fresh(view.size(), QImage::Format_ARGB32);
        {
            QPainter p(&fresh);
            view.renderTo(p, fresh.rect());
        }
        int differ = 0;
        for (int y = layout.plot.top(); y <= layout.plot.bottom(); ++y)
            for (int x = layout.plot.left(); x <= layout.plot.right(); ++x)
                differ += panned.pixel(x, y) != fresh.pixel(x, y);
        QCOMPARE(differ, 0);
    }

    void keyboardNavigation()
    {
        TimelineView view;
        setUpView(view);
        view.resize(1000, 400);
        const qint64 full = view.zoom()->windowDuration();
        QTest::keyClick(&view, Qt::Key_W);
        QVERIFY(view.zoom()->windowDuration() < full);
        const qint64 zoomed = view.zoom()->windowDuration();
        const qint64 start = view.zoom()->windowStart();
        QTest::keyClick(&view, Qt::Key_D);
        QVERIFY(view.zoom()->windowStart() > start);
        QTest::keyClick(&view, Qt::Key_A);
        QTest::keyClick(&view, Qt::Key_A);
        QVERIFY(view.zoom()->windowStart() < start);
        QTest::keyClick(&view, Qt::Key_S);
        QVERIFY(view.zoom()->windowDuration() > zoomed);
        QTest::keyClick(&view, Qt::Key_W);
        QTest::keyClick(&view, Qt::Key_F);
        QCOMPARE(view.zoom()->windowDuration(), full);
        QTest::keyClick(&view, Qt::Key_W);
        QTest::keyClick(&view, Qt::Key_Home);
        QCOMPARE(view.zoom()->windowDuration(), full);
    }

    void mouseNavigation()
    {
        TimelineView view;
        setUpView(view);
        view.resize(1000, 400);
        TimelinePainter painter;
        painter.setModel(view.laneModel());
        painter.setMetrics(TimelineMetrics::make(false, view.font()));
        const TimelineLayout layout = painter.layout(view.rect());
        auto mapping = [&] {
            return TimelinePainter::mappingFor(layout, view.zoom()->windowStart(), view.zoom()->windowEnd());
        };
        const int yCompute = layout.lanes[2].center().y();

        // Click on the kernel selects it.
        QSignalSpy selected(&view, &TimelineView::opSelected);
        const QPoint onKernel(int(mapping().toX(qint64(235'000))), yCompute);
        QTest::mouseClick(&view, Qt::LeftButton, {}, onKernel);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.at(0).at(1).toInt(), 1);
        QCOMPARE(view.opAt(onKernel).op, 1);

        // Hover reports the op under the pointer, and -1 when leaving it.
        QSignalSpy hovered(&view, &TimelineView::opHovered);
        sendMouse(&view, QEvent::MouseMove, QPoint(int(mapping().toX(qint64(70'000))), layout.lanes[1].center().y()),
                  Qt::NoButton, Qt::NoButton);
        QCOMPARE(hovered.count(), 1);
        QCOMPARE(hovered.at(0).at(1).toInt(), 0);
        sendMouse(&view, QEvent::MouseMove, QPoint(int(mapping().toX(qint64(235'000))), layout.lanes[1].center().y()),
                  Qt::NoButton, Qt::NoButton);
        QCOMPARE(hovered.last().at(1).toInt(), -1);

        // Shift+drag selects a range and reports it.
        QSignalSpy range(&view, &TimelineView::rangeSelected);
        const QPoint a(int(std::round(mapping().toX(qint64(100'000)))), yCompute);
        const QPoint b(int(std::round(mapping().toX(qint64(300'000)))), yCompute);
        sendMouse(&view, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton, Qt::ShiftModifier);
        sendMouse(&view, QEvent::MouseMove, (a + b) / 2, Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
        sendMouse(&view, QEvent::MouseMove, b, Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
        sendMouse(&view, QEvent::MouseButtonRelease, b, Qt::LeftButton, Qt::NoButton, Qt::ShiftModifier);
        QCOMPARE(range.count(), 1);
        const double slack = mapping().nsPerPixel();
        QVERIFY(std::abs(range.at(0).at(0).toLongLong() - 100'000) <= slack);
        QVERIFY(std::abs(range.at(0).at(1).toLongLong() - 300'000) <= slack);
        QVERIFY(view.zoom()->hasSelection());

        // A drag in the ruler selects too, without shift.
        const int yRuler = layout.ruler.center().y();
        sendMouse(&view, QEvent::MouseButtonPress, QPoint(b.x(), yRuler), Qt::LeftButton, Qt::LeftButton);
        sendMouse(&view, QEvent::MouseMove, QPoint(a.x(), yRuler), Qt::NoButton, Qt::LeftButton);
        sendMouse(&view, QEvent::MouseButtonRelease, QPoint(a.x(), yRuler), Qt::LeftButton, Qt::NoButton);
        QCOMPARE(range.count(), 2);
        QVERIFY(range.at(1).at(0).toLongLong() < range.at(1).at(1).toLongLong());

        // Wheel zooms in at the cursor: the time under it stays under it.
        const QPoint cursor(layout.plot.left() + layout.plot.width() / 3, yCompute);
        const qint64 under = mapping().toNs(double(cursor.x()));
        const qint64 before = view.zoom()->windowDuration();
        QWheelEvent wheel(QPointF(cursor), view.mapToGlobal(QPointF(cursor)), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&view, &wheel);
        QVERIFY(view.zoom()->windowDuration() < before);
        QVERIFY(std::abs(mapping().toNs(double(cursor.x())) - under) <= 2 * mapping().nsPerPixel());

        // Drag pans: content follows the pointer.
        const qint64 startBefore = view.zoom()->windowStart();
        const double nsPerPixel = mapping().nsPerPixel();
        const QPoint p0(layout.plot.left() + 400, yCompute);
        sendMouse(&view, QEvent::MouseButtonPress, p0, Qt::LeftButton, Qt::LeftButton);
        // (to the left: the window moves later; there is room for 60 px on that side after the zoom above)
        sendMouse(&view, QEvent::MouseMove, p0 - QPoint(30, 0), Qt::NoButton, Qt::LeftButton);
        sendMouse(&view, QEvent::MouseMove, p0 - QPoint(60, 0), Qt::NoButton, Qt::LeftButton);
        sendMouse(&view, QEvent::MouseButtonRelease, p0 - QPoint(60, 0), Qt::LeftButton, Qt::NoButton);
        QVERIFY2(std::abs(double(view.zoom()->windowStart() - startBefore) - 60 * nsPerPixel) <= nsPerPixel,
                 qPrintable(QStringLiteral("moved %1 ns, %2 ns per pixel")
                                .arg(view.zoom()->windowStart() - startBefore)
                                .arg(nsPerPixel)));

        // Double-click fits everything.
        QTest::mouseDClick(&view, Qt::LeftButton, {}, p0);
        QCOMPARE(view.zoom()->windowStart(), 0);
        QCOMPARE(view.zoom()->windowEnd(), view.laneModel()->durationNs());

        // A click on empty space clears the op selection and the range.
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(int(mapping().toX(qint64(70'000))), yCompute));
        QVERIFY(!view.selectedOp().isValid());
        QVERIFY(!view.zoom()->hasSelection());
    }

    void repetitionsAndClearing()
    {
        auto trace = makeTimelineTrace();
        trace->repetitions.push_back(trace->repetitions[0]);
        trace->repetitions[1].index = 1;
        for (auto &op : trace->repetitions[1].ops) {
            op.gpuStartNs = op.gpuStartNs == engine::kNoTime ? op.gpuStartNs : op.gpuStartNs + 5'000'000;
            op.gpuEndNs = op.gpuEndNs == engine::kNoTime ? op.gpuEndNs : op.gpuEndNs + 5'000'000;
            op.hostStartNs += 5'000'000;
            op.hostEndNs += 5'000'000;
        }
        TimelineView view;
        view.setTrace(trace, 1);
        QCOMPARE(view.repetition(), 1);
        QCOMPARE(view.laneModel()->originNs(), streamscope::test::kOrigin + 5'000'000);
        view.selectOp(1);
        QSignalSpy selected(&view, &TimelineView::opSelected);
        view.setRepetition(0);
        QCOMPARE(view.laneModel()->repetition(), 0);
        QCOMPARE(selected.count(), 1); // the selection of the other repetition is dropped
        QCOMPARE(selected.at(0).at(1).toInt(), -1);
        view.setTrace(trace, 7); // out of range: clamped to the last
        QCOMPARE(view.repetition(), 1);
        view.setTrace(nullptr);
        QVERIFY(view.laneModel() == nullptr);
        QImage image(400, 200, QImage::Format_ARGB32);
        QPainter p(&image);
        view.renderTo(p, image.rect()); // an empty view paints a message, and does not crash
    }

    // More rows than fit: they keep a readable height and the view scrolls (#23 item 5). Hit-testing,
    // selection and the picture follow the scroll; an export draws every row.
    void manyLanesScroll()
    {
        streamscope::test::TraceBuilder b;
        b.device(engine::DeviceInfo{}).thread("main", 1);
        constexpr int kStreams = 40;
        for (int s = 0; s < kStreams; ++s) {
            engine::StreamInfo info;
            info.name = QStringLiteral("s%1").arg(s).toStdString();
            b.stream(info)
                .kernel(100'000 + s * 10'000, 100'000 + s * 10'000 + 50'000)
                .named("k")
                .host(s * 1'000, s * 1'000 + 500);
        }
        const auto trace = b.buildShared();
        TimelineView view;
        view.setDarkPalette(false);
        view.setTrace(trace, 0);
        view.resize(900, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const int readable = view.metrics().readableLaneHeight;
        TimelineLayout layout = view.currentLayout();
        QVERIFY2(layout.maxScrollY > 0, "40 streams at a readable height do not fit 420 px");
        for (const QRect &r : layout.lanes)
            QVERIFY(r.height() >= readable);
        QCOMPARE(layout.contentHeight, layout.lanes.back().bottom() + 1 - layout.lanes.front().top());
        // The rows below the fold are not under any point; the last stream's op cannot be picked yet.
        const int lastRow = layout.rowOf(view.laneModel()->streamLane(kStreams - 1));
        QVERIFY(layout.lanes[std::size_t(lastRow)].top() > layout.plot.bottom());
        QCOMPARE(view.scrollY(), 0);

        // Keys, Shift+wheel and the wheel over the labels scroll; the plain wheel still zooms.
        QTest::keyClick(&view, Qt::Key_Down);
        QCOMPARE(view.scrollY(), readable);
        QTest::keyClick(&view, Qt::Key_PageDown);
        QVERIFY(view.scrollY() > readable * 5);
        QTest::keyClick(&view, Qt::Key_PageUp);
        QTest::keyClick(&view, Qt::Key_Up);
        QCOMPARE(view.scrollY(), 0);
        const QPoint inPlot = layout.plot.center();
        auto wheel = [&](QPoint at, Qt::KeyboardModifiers modifiers) {
            QWheelEvent event(at, view.mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, modifiers,
                              Qt::NoScrollPhase, false);
            QApplication::sendEvent(&view, &event);
        };
        const qint64 full = view.zoom()->windowDuration();
        wheel(inPlot, Qt::ShiftModifier);
        QCOMPARE(view.scrollY(), 3 * readable);
        QCOMPARE(view.zoom()->windowDuration(), full);
        wheel(QPoint(layout.headers.center().x(), inPlot.y()), Qt::NoModifier);
        QCOMPARE(view.scrollY(), 6 * readable);
        wheel(inPlot, Qt::NoModifier);
        QVERIFY(view.zoom()->windowDuration() > full || view.zoom()->windowDuration() == full); // zoomed out, clamped
        view.fitAll();

        // Selecting the last stream's op (the find bar's walk, the table) scrolls its row into view,
        // where a click picks it and the picture shows it.
        view.setScrollY(0);
        view.selectOp(kStreams - 1);
        layout = view.currentLayout();
        QVERIFY(view.scrollY() > 0);
        const QRect last = layout.lanes[std::size_t(lastRow)];
        QVERIFY2(last.top() >= layout.plot.top() && last.bottom() <= layout.plot.bottom(),
                 qPrintable(QStringLiteral("row %1..%2, plot %3..%4")
                                .arg(last.top())
                                .arg(last.bottom())
                                .arg(layout.plot.top())
                                .arg(layout.plot.bottom())));
        const double x = layout.plot.left()
                         + (100'000 + 39 * 10'000 + 25'000 - double(view.windowStartNs()))
                               / double(view.windowEndNs() - view.windowStartNs()) * layout.plot.width();
        const QPoint onBar(int(x), last.center().y());
        QCOMPARE(view.rowAt(onBar), lastRow);
        QCOMPARE(view.opAt(onBar).op, kStreams - 1);
        const QImage shown = view.grab().toImage();
        const OpPalette palette(false, false);
        QCOMPARE(shown.pixel(onBar) | 0xff000000u, palette.compute().rgb() | 0xff000000u);
        // The first stream's row is scrolled away: nothing is picked where it was.
        const int firstRow = layout.rowOf(view.laneModel()->streamLane(0));
        QVERIFY(layout.lanes[std::size_t(firstRow)].bottom() < layout.plot.top());
        QVERIFY(view.rowAt(QPoint(onBar.x(), layout.plot.top() - 2)) != firstRow);

        // An export draws every row, scrolled or not: all 40 streams' labels in the SVG.
        QTemporaryDir dir;
        const QString svg = dir.filePath(QStringLiteral("all.svg"));
        QString error;
        QVERIFY2(view.exportImage(svg, QSize(1200, 1400), &error), qPrintable(error));
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QStringList texts;
        QXmlStreamReader xml(&file);
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement() && xml.name() == QLatin1String("text"))
                texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
        }
        QVERIFY(!xml.hasError());
        for (int sIndex = 0; sIndex < kStreams; ++sIndex)
            QVERIFY2(texts.contains(QStringLiteral("s%1").arg(sIndex)),
                     qPrintable(QStringLiteral("s%1 is not in the export").arg(sIndex)));
    }
};

QTEST_MAIN(TestTimelineRender)
#include "tst_timeline_render.moc"
