// Tests of the interval lanes' deferred marks: folded marks wider than a pixel column are collected into
// rows of pixels and painted late (TimelinePainter's fast path), which must give exactly the pixels of
// painting each with fillRect at its turn, at every zoom, with bars, labels, blocking host calls and
// overlapping (imported) intervals beside them.
#include <QImage>
#include <QPainter>
#include <QtTest>

#include <random>

#include "engine/model/trace.h"
#include "tests/ui/timeline/reference_passes.h"
#include "tests/ui/timeline/timeline_test_trace.h"
#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_painter.h"

using namespace streamscope::ui;
namespace engine = streamscope::engine;

namespace {

// Four streams cycling H2D -> kernel -> D2H with durations over three orders of magnitude (so one window
// holds folded marks and labelled bars side by side), one host thread whose synchronous copies block,
// and a fifth stream of nested intervals, as imports have (its lane keeps a running max of the ends).
std::shared_ptr<engine::Trace> mixedTrace(int n)
{
    streamscope::test::TraceBuilder b;
    for (int s = 0; s < 5; ++s)
        b.stream(engine::StreamInfo{});
    b.thread("main", 1);
    const std::array<std::string, 3> names{"copy in", "a kernel with a long name", "copy out"};
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<std::int64_t> gap(0, 2'000), shortOp(50, 900), longOp(20'000, 400'000);
    std::bernoulli_distribution isLong(0.02);
    std::vector<std::int64_t> free(4, 0);
    std::int64_t host = 0;
    for (int i = 0; i < n; ++i) {
        const int s = i % 4;
        const int phase = (i / 4) % 3;
        const auto kind = phase == 1   ? engine::OpKind::Kernel
                          : phase == 0 ? engine::OpKind::CopyH2D
                                       : engine::OpKind::CopyD2H;
        // The draws in this order: gap, long or not, length.
        const std::int64_t start = std::max(free[std::size_t(s)] + gap(rng), host + 100);
        const std::int64_t end = start + (isLong(rng) ? longOp(rng) : shortOp(rng));
        free[std::size_t(s)] = end;
        b.onStream(s)
            .op(kind, start, end, phase != 1 ? 1 << 16 : 0)
            .named(names[std::size_t(phase)])
            .host(host, host + 100);
        if (phase != 1) {
            const bool sync = i % 29 == 0;
            b.api(sync ? engine::CopyApi::Sync : engine::CopyApi::Async);
            if (sync)
                b.last().hostEndNs = end; // held the host until the copy ended
        }
        host = b.last().hostEndNs + 50;
    }
    // Nested intervals on stream 4: an outer range every 40 µs with short ops inside it.
    streamscope::test::appendNestedRanges(b, 4, names[1], names[0], host, 40'000, 30'000, 35'000, 700, shortOp, rng);
    auto trace = b.buildShared();
    auto &ops = trace->repetitions[0].ops;
    std::stable_sort(ops.begin(), ops.end(),
                     [](const engine::OpRecord &a, const engine::OpRecord &c) { return a.gpuStartNs < c.gpuStartNs; });
    return trace;
}

QImage paint(const LaneModel &model, const OpPalette &palette, bool deferred, qint64 startNs, qint64 endNs)
{
    TimelinePainter painter;
    painter.setModel(&model);
    painter.setPalette(&palette);
    painter.setMetrics(TimelineMetrics::make(false, QFont()));
    static const streamscope::test::MarksAtTheirTurnPass atTheirTurn;
    if (!deferred)
        painter.setLanePasses({&atTheirTurn, nullptr, nullptr});
    QImage image(1300, 560, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::magenta);
    QPainter p(&image);
    const TimelineLayout layout = painter.layout(image.rect());
    painter.paintAll(p, layout, TimelinePainter::mappingFor(layout, startNs, endNs), TimelineOverlay{});
    return image;
}

} // namespace

class TestTimelineMarks : public QObject {
    Q_OBJECT

private slots:
    void deferredMarksMatchPaintOrder()
    {
        const auto trace = mixedTrace(60'000);
        const LaneModel model(*trace, 0);
        const OpPalette palette(false, false);
        // From the whole trace down to a few microseconds, at two anchors (where folded marks, bars
        // and labels meet changes with the zoom).
        int compared = 0;
        for (const double anchor : {0.31, 0.77}) {
            for (double fraction = 1.0; fraction > 2e-5; fraction /= 2.7) {
                const auto width = qint64(double(model.durationNs()) * fraction);
                const qint64 start = qint64(double(model.durationNs() - width) * anchor);
                const QImage deferred = paint(model, palette, true, start, start + width);
                const QImage direct = paint(model, palette, false, start, start + width);
                int differ = 0, firstX = -1, firstY = -1;
                for (int y = 0; y < deferred.height(); ++y)
                    for (int x = 0; x < deferred.width(); ++x)
                        if (deferred.pixel(x, y) != direct.pixel(x, y) && differ++ == 0)
                            firstX = x, firstY = y;
                QVERIFY2(differ == 0, qPrintable(QStringLiteral("window %1 of the trace at %2: %3 pixels differ, "
                                                                "the first at (%4, %5)")
                                                     .arg(fraction)
                                                     .arg(anchor)
                                                     .arg(differ)
                                                     .arg(firstX)
                                                     .arg(firstY)));
                ++compared;
            }
        }
        QVERIFY(compared >= 20);
    }
};

QTEST_MAIN(TestTimelineMarks)
#include "tst_timeline_marks.moc"
