// Tests of the derived lanes' columns (active counts, bandwidth): painted as the opaque colours their
// translucent fills blend to (TimelinePainter's fast path), they must give exactly the pixels that
// blending them one by one gives, in every 32-bit image format, palette and zoom, grid columns included.
#include <QImage>
#include <QPainter>
#include <QtTest>

#include <algorithm>
#include <random>
#include <set>

#include "engine/model/trace.h"
#include "tests/common/trace_builder.h"
#include "tests/ui/timeline/reference_passes.h"
#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_painter.h"

using namespace streamscope::ui;
namespace engine = streamscope::engine;

namespace {

// Three streams of H2D and D2H copies of random sizes and a stream of kernels, all overlapping, so the
// counters take several levels and the bandwidth lane has both directions at once, often within one pixel.
std::shared_ptr<engine::Trace> overlappingCopies(int n)
{
    engine::DeviceInfo device;
    device.linkPeakGBs = 25.0;
    streamscope::test::TraceBuilder b;
    b.device(device);
    for (int s = 0; s < 4; ++s)
        b.stream(engine::StreamInfo{});
    b.thread("main", 1);
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::int64_t> gap(0, 3'000), length(500, 60'000);
    std::uniform_int_distribution<std::uint64_t> bytes(4 << 10, 2 << 20);
    std::vector<std::int64_t> free(4, 0);
    for (int i = 0; i < n; ++i) {
        const int s = i % 4;
        const auto kind = s == 3        ? engine::OpKind::Kernel
                          : (i / 4) % 2 ? engine::OpKind::CopyD2H
                                        : engine::OpKind::CopyH2D;
        const std::uint64_t size = s != 3 ? bytes(rng) : 0; // the draws in this order: size, gap, length
        const std::int64_t start = free[std::size_t(s)] + gap(rng);
        const std::int64_t end = start + length(rng);
        free[std::size_t(s)] = end;
        b.onStream(s).op(kind, start, end, size).named("op").host(start - 100, start - 50);
    }
    return b.buildShared();
}

QImage paint(const LaneModel &model, const OpPalette &palette, QImage::Format format, bool opaqueColumns,
             qint64 startNs, qint64 endNs)
{
    TimelinePainter painter;
    painter.setModel(&model);
    painter.setPalette(&palette);
    painter.setMetrics(TimelineMetrics::make(palette.presentation(), QFont()));
    static const streamscope::test::BlendedColumnsPass blended;
    if (!opaqueColumns)
        painter.setLanePasses({nullptr, &blended, nullptr});
    QImage image(1200, 520, format);
    image.fill(Qt::magenta);
    QPainter p(&image);
    const TimelineLayout layout = painter.layout(image.rect());
    painter.paintAll(p, layout, TimelinePainter::mappingFor(layout, startNs, endNs), TimelineOverlay{});
    return image;
}

} // namespace

class TestTimelineColumns : public QObject {
    Q_OBJECT

private slots:
    void opaqueColumnsMatchBlending_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<bool>("dark");
        QTest::addColumn<bool>("presentation");
        QTest::addColumn<int>("zoom"); // the window is 1/zoom of the trace
        for (const auto &[formatName, format] :
             {std::pair{"argb32pm", QImage::Format_ARGB32_Premultiplied}, std::pair{"rgb32", QImage::Format_RGB32},
              std::pair{"argb32", QImage::Format_ARGB32}})
            for (const bool dark : {false, true})
                for (const int zoom : {1, 40, 3000})
                    QTest::addRow("%s %s zoom %d", formatName, dark ? "dark" : "light", zoom)
                        << int(format) << dark << false << zoom;
        QTest::addRow("presentation") << int(QImage::Format_ARGB32_Premultiplied) << false << true << 1;
    }

    void opaqueColumnsMatchBlending()
    {
        QFETCH(int, format);
        QFETCH(bool, dark);
        QFETCH(bool, presentation);
        QFETCH(int, zoom);
        const auto trace = overlappingCopies(20'000);
        const LaneModel model(*trace, 0);
        const OpPalette palette(dark, presentation);
        const qint64 start = model.durationNs() / 3;
        const qint64 end = start + model.durationNs() / zoom;
        const QImage fast = paint(model, palette, QImage::Format(format), true, start, end);
        const QImage slow = paint(model, palette, QImage::Format(format), false, start, end);

        // The test means something only if the bandwidth lane holds many blended pixels: colours that are
        // none of the palette's plain ones.
        int bandwidthLane = -1;
        for (int i = 0; i < model.laneCount(); ++i)
            if (model.lane(i).kind == LaneKind::Bandwidth)
                bandwidthLane = i;
        QVERIFY(bandwidthLane >= 0);
        TimelinePainter painter;
        painter.setModel(&model);
        painter.setMetrics(TimelineMetrics::make(presentation, QFont()));
        const QRect lane = painter.layout(fast.rect()).lanes[std::size_t(bandwidthLane)];
        const std::set<QRgb> plain{palette.laneBackground(bandwidthLane).rgb(),
                                   palette.grid().rgb(),
                                   palette.h2d().rgb(),
                                   palette.d2h().rgb(),
                                   palette.peakLine().rgb(),
                                   palette.separator().rgb()};
        int blended = 0;
        for (int y = lane.top(); y <= lane.bottom(); ++y)
            for (int x = lane.left(); x <= lane.right(); ++x)
                blended += !plain.count(fast.pixel(x, y) | 0xff000000u);
        QVERIFY2(blended > 200, qPrintable(QStringLiteral("%1 blended pixels in the bandwidth lane").arg(blended)));

        int differ = 0, firstX = -1, firstY = -1;
        for (int y = 0; y < fast.height(); ++y)
            for (int x = 0; x < fast.width(); ++x)
                if (fast.pixel(x, y) != slow.pixel(x, y) && differ++ == 0)
                    firstX = x, firstY = y;
        QVERIFY2(differ == 0, qPrintable(QStringLiteral("%1 pixels differ, the first at (%2, %3): %4 instead of %5")
                                             .arg(differ)
                                             .arg(firstX)
                                             .arg(firstY)
                                             .arg(fast.pixel(std::max(0, firstX), std::max(0, firstY)), 8, 16)
                                             .arg(slow.pixel(std::max(0, firstX), std::max(0, firstY)), 8, 16)));
    }

    // Zoomed out, a pixel column of a stream lane holds many ops: it must show what the lane did there
    // by time, not by the widest op of a run or by the most numerous kind (#23 item 10: a trace whose
    // ops were 75 % kernels drew its streams almost entirely in H2D blue at fit-all). Stream 0 is dense
    // (200 ops per column, folded a column at a time): three 100 ns kernels and one 500 ns H2D copy over
    // and over, 75 % kernels by count, 62.5 % copies by time: blue. Stream 1 is sparse (runs of touching
    // ops about a pixel wide, folded one by one): three 40 µs kernels and one 60 µs copy, the copy the
    // widest but the kernels two thirds of the time: mostly green, blue only in the copies' columns.
    void foldedColumnsShowWhatTookTheTime()
    {
        streamscope::test::TraceBuilder b;
        b.device(engine::DeviceInfo{}).stream(engine::StreamInfo{}).stream(engine::StreamInfo{});
        auto add = [&](int stream, engine::OpKind kind, std::int64_t start, std::int64_t length) {
            const bool copy = kind == engine::OpKind::CopyH2D;
            b.onStream(stream).op(kind, start, start + length, copy ? 4096 : 0).named(copy ? "copy" : "kernel");
        };
        constexpr std::int64_t kEnd = 40'000'000;
        std::int64_t counts[2][2] = {}; // stream, copy?: ns
        for (std::int64_t t = 0; t + 800 <= kEnd; t += 800) {
            for (int k = 0; k < 3; ++k)
                add(0, engine::OpKind::Kernel, t + 100 * k, 100);
            add(0, engine::OpKind::CopyH2D, t + 300, 500);
            counts[0][0] += 300;
            counts[0][1] += 500;
        }
        for (std::int64_t t = 0; t + 180'000 <= kEnd; t += 180'000) {
            for (int k = 0; k < 3; ++k)
                add(1, engine::OpKind::Kernel, t + 40'000 * k, 40'000);
            add(1, engine::OpKind::CopyH2D, t + 120'000, 60'000);
            counts[1][0] += 120'000;
            counts[1][1] += 60'000;
        }
        const auto trace = b.buildShared();
        auto &ops = trace->repetitions[0].ops;
        std::stable_sort(ops.begin(), ops.end(), [](const engine::OpRecord &x, const engine::OpRecord &y) {
            return x.gpuStartNs < y.gpuStartNs;
        });
        for (std::size_t i = 0; i < ops.size(); ++i)
            ops[i].opIndex = int(i);
        QVERIFY(counts[0][1] > counts[0][0] && counts[1][0] > counts[1][1]);

        const LaneModel model(*trace, 0);
        const OpPalette palette(false, false);
        for (const QImage::Format format : {QImage::Format_RGB32, QImage::Format_ARGB32_Premultiplied}) {
            TimelinePainter painter;
            painter.setModel(&model);
            painter.setPalette(&palette);
            painter.setMetrics(TimelineMetrics::make(false, QFont()));
            QImage image(1200, 520, format);
            image.fill(Qt::magenta);
            QPainter p(&image);
            const TimelineLayout layout = painter.layout(image.rect());
            const TimeMapping mapping = TimelinePainter::mappingFor(layout, 0, model.durationNs());
            painter.paintAll(p, layout, mapping, TimelineOverlay{});
            p.end();
            QVERIFY(mapping.nsPerPixel() > 30'000 && mapping.nsPerPixel() < 60'000);
            for (int stream = 0; stream < 2; ++stream) {
                const QRect lane = layout.lanes[std::size_t(layout.rowOf(model.streamLane(stream)))];
                int blue = 0, green = 0, other = 0;
                const int y = lane.center().y();
                for (int x = lane.left(); x < int(mapping.toX(qint64(kEnd))) - 2; ++x) {
                    const QRgb c = image.pixel(x, y) | 0xff000000u;
                    if (c == (palette.h2d().rgb() | 0xff000000u))
                        ++blue;
                    else if (c == (palette.compute().rgb() | 0xff000000u))
                        ++green;
                    else
                        ++other;
                }
                const QString what = QStringLiteral("stream %1: %2 blue, %3 green, %4 other columns")
                                         .arg(stream)
                                         .arg(blue)
                                         .arg(green)
                                         .arg(other);
                QVERIFY2(blue + green > 700, qPrintable(what));
                if (stream == 0) {
                    // The copies took the time in every column.
                    QVERIFY2(blue >= (blue + green) * 95 / 100, qPrintable(what));
                } else {
                    // Mostly the kernels' green, the copies' blue where they ran: about a third.
                    QVERIFY2(green >= (blue + green) * 55 / 100 && green <= (blue + green) * 85 / 100,
                             qPrintable(what));
                }
            }
        }
    }
};

QTEST_MAIN(TestTimelineColumns)
#include "tst_timeline_columns.moc"
