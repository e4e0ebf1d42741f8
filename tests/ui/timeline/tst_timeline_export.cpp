// Tests of the timeline's PNG and SVG export (TimelineView::exportImage) against what the window draws:
// the lane tree's groups (one per GPU of a two-GPU trace), unique labels, hidden, pinned and renamed
// lanes and collapsed groups, the same in the picture as in the view; and a view that projects NVTX
// ranges keeps its tree (the rows it draws and exports).
#include <QFontMetricsF>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <map>

#include "engine/formats/native_format.h"
#include "tests/engine/trace_fixture.h"
#include "tests/ui/timeline/view_geometry.h"
#include "ui/document/trace_document.h"
#include "ui/timeline/lane_tree.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

using namespace streamscope;
using ui::LaneRow;
using ui::TimelineView;

namespace {

// The text of every <text> element of an SVG, in document order.
QStringList svgTexts(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QStringList texts;
    QXmlStreamReader xml(&file);
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("text"))
            texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
    }
    return xml.hasError() ? QStringList{QStringLiteral("XML error: ") + xml.errorString()} : texts;
}

// What the view's rows say in its label column, top to bottom: a group's title, a lane's label.
QStringList rowLabels(const TimelineView &view)
{
    QStringList labels;
    for (const LaneRow &row : view.rows())
        labels << (row.isGroup() ? view.laneTree()->group(row.group).title
                                 : view.laneTree()->label(row.lane, view.laneArrangement().state()));
    return labels;
}

// Whether `needles` appear in `haystack` in the same order (others may lie between them).
bool inOrder(const QStringList &haystack, const QStringList &needles)
{
    qsizetype at = 0;
    for (const QString &needle : needles) {
        at = haystack.indexOf(needle, at);
        if (at < 0)
            return false;
        ++at;
    }
    return true;
}

std::shared_ptr<const engine::Trace> twoGpus()
{
    return std::make_shared<const engine::Trace>(test::twoGpuTrace());
}

// The view drawn into an SVG as the window draws it (renderTo: no slide title), at the view's size: its
// <text> elements carry the widget's coordinates.
QString renderSvg(TimelineView &view, const QString &path)
{
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setResolution(view.logicalDpiX()); // text measured as on the screen
    svg.setSize(view.size());
    svg.setViewBox(view.rect());
    QPainter p(&svg);
    view.renderTo(p, view.rect());
    p.end();
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

struct SvgText {
    double x = 0, y = 0;
    QString text;
};

std::vector<SvgText> svgTextsAt(const QString &svg)
{
    static const QRegularExpression element(
        QStringLiteral(R"re(<text[^>]*\bx="([-0-9.e]+)"[^>]*\by="([-0-9.e]+)"[^>]*>([^<]*)</text>)re"));
    std::vector<SvgText> texts;
    for (auto m = element.globalMatch(svg); m.hasNext();) {
        const auto match = m.next();
        texts.push_back({match.captured(1).toDouble(), match.captured(2).toDouble(), match.captured(3).trimmed()});
    }
    return texts;
}

} // namespace

class TestTimelineExport : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString exportSvg(TimelineView &view, const QString &name)
    {
        const QString path = m_dir.filePath(name);
        QString error;
        if (!view.exportImage(path, QSize(1920, 1080), ui::ImageOptions{}, &error))
            qWarning("%s", qPrintable(error));
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // A trace of two GPUs exports its GPU groups, and every lane under the label the window gives it:
    // "H2D copies · GPU 0", not "H2D copies" once per GPU.
    void exportDrawsTheViewsRows()
    {
        ui::TraceDocument document;
        document.setTrace(twoGpus(), QStringLiteral("two GPUs"), QString());
        TimelineView view;
        view.resize(1280, 720);
        view.setDocument(&document);
        const QStringList labels = rowLabels(view);
        QVERIFY(labels.contains(QStringLiteral("GPU 0 · NVIDIA H100 80GB HBM3")));
        QVERIFY(labels.contains(QStringLiteral("GPU 1 · NVIDIA H100 80GB HBM3")));

        const QStringList texts = svgTexts(exportSvg(view, QStringLiteral("rows.svg")));
        QVERIFY2(inOrder(texts, labels), qPrintable(texts.join(QLatin1Char('|'))));
        for (const char *label : {"H2D copies · GPU 0", "compute · GPU 0", "bandwidth · GPU 0", "D2H copies · GPU 1",
                                  "compute · GPU 1", "bandwidth · GPU 1", "P2P GPU 0\u21921", "P2P GPU 1\u21920"})
            QCOMPARE(texts.count(QString::fromUtf8(label)), 1);
        // No lane under its bare, ambiguous title.
        for (const char *bare : {"H2D copies", "D2H copies", "compute", "bandwidth"})
            QVERIFY2(!texts.contains(QLatin1String(bare)), bare);
    }

    // What the user did to the lanes (hidden, pinned, renamed, a group collapsed) is in the picture as
    // in the window.
    void exportFollowsTheLaneState()
    {
        ui::TraceDocument document;
        document.setTrace(twoGpus(), QStringLiteral("two GPUs"), QString());
        TimelineView view;
        view.resize(1280, 720);
        view.setDocument(&document);
        const ui::LaneTree *tree = view.laneTree();
        QVERIFY(tree);
        auto laneNamed = [&](const QString &label) {
            for (int lane = 0; lane < tree->model().laneCount(); ++lane)
                if (tree->uniqueLabel(lane) == label)
                    return lane;
            return -1;
        };
        const int compute0 = laneNamed(QStringLiteral("gpu0 compute"));
        const int copy0 = laneNamed(QStringLiteral("gpu0 copy"));
        const int link10 = laneNamed(QStringLiteral("P2P GPU 1\u21920"));
        const int gpu1 = tree->groupByKey(QStringLiteral("device:1"));
        QVERIFY(compute0 >= 0 && copy0 >= 0 && link10 >= 0 && gpu1 >= 0);
        view.laneArrangement().setLaneHidden(compute0, true);
        view.laneArrangement().renameLane(copy0, QStringLiteral("uploads"));
        view.laneArrangement().setLanePinned(link10, true);
        view.laneArrangement().setGroupCollapsed(gpu1, true);

        const QStringList texts = svgTexts(exportSvg(view, QStringLiteral("state.svg")));
        QVERIFY2(inOrder(texts, rowLabels(view)), qPrintable(texts.join(QLatin1Char('|'))));
        QVERIFY(!texts.contains(QStringLiteral("gpu0 compute"))); // hidden
        QVERIFY(texts.contains(QStringLiteral("uploads"))); // renamed
        QVERIFY(!texts.contains(QStringLiteral("gpu0 copy")));
        // Pinned: first, above the groups and the threads.
        QVERIFY(inOrder(texts, {QStringLiteral("P2P GPU 1\u21920"), QStringLiteral("worker gpu0"),
                                QStringLiteral("GPU 0 · NVIDIA H100 80GB HBM3")}));
        // Collapsed: the group's header stays, its lanes go.
        QVERIFY(texts.contains(QStringLiteral("GPU 1 · NVIDIA H100 80GB HBM3")));
        for (const char *inside : {"gpu1 compute", "gpu1 copy", "D2H copies · GPU 1", "bandwidth · GPU 1"})
            QVERIFY2(!texts.contains(QString::fromUtf8(inside)), inside);

        // The PNG too: with every lane hidden but one stream, that lane fills the picture, so the column of
        // its first bar (A, an H2D copy) is that bar's colour over most of the image's height.
        for (int lane = 0; lane < tree->model().laneCount(); ++lane)
            if (lane != copy0)
                view.laneArrangement().setLaneHidden(lane, true);
        view.laneArrangement().setLanePinned(link10, false);
        view.laneArrangement().setGroupCollapsed(gpu1, false);
        const QString png = m_dir.filePath(QStringLiteral("one-lane.png"));
        QString error;
        QVERIFY2(view.exportImage(png, QSize(1280, 720), ui::ImageOptions{}, &error), qPrintable(error));
        const QImage image(png);
        QCOMPARE(image.size(), QSize(1280, 720));
        int tallest = 0;
        for (int x = 0; x < image.width(); x += 2) {
            std::map<QRgb, int> counts;
            for (int y = 0; y < image.height(); ++y)
                if (image.pixelColor(x, y).hsvSaturation() > 150)
                    ++counts[image.pixel(x, y)];
            for (const auto &[colour, count] : counts)
                tallest = std::max(tallest, count);
        }
        QVERIFY2(tallest > image.height() / 2, qPrintable(QStringLiteral("%1 px of one colour").arg(tallest)));
    }

    // View > Project NVTX builds the lanes again: the tree over them is built again too, so the view (and
    // what it exports) keeps its groups and labels.
    void projectingNvtxKeepsTheTree()
    {
        ui::TraceDocument document;
        document.setTrace(twoGpus(), QStringLiteral("two GPUs"), QString());
        TimelineView view;
        view.resize(1280, 720);
        view.setDocument(&document);
        const QStringList before = rowLabels(view);
        view.setProjectNvtx(true);
        QVERIFY(view.laneTree());
        QCOMPARE(&view.laneTree()->model(), view.laneModel());
        const auto groups =
            std::count_if(view.rows().begin(), view.rows().end(), [](const LaneRow &r) { return r.isGroup(); });
        QCOMPARE(int(groups), 2);
        QCOMPARE(rowLabels(view), before); // the trace has no NVTX ranges: nothing else changes
        const QStringList texts = svgTexts(exportSvg(view, QStringLiteral("nvtx.svg")));
        QVERIFY(texts.contains(QStringLiteral("GPU 1 · NVIDIA H100 80GB HBM3")));
        // And the lane state still applies to the new lanes.
        const int gpu1 = view.laneTree()->groupByKey(QStringLiteral("device:1"));
        view.laneArrangement().setGroupCollapsed(gpu1, true);
        QVERIFY(!rowLabels(view).contains(QStringLiteral("gpu1 copy")));
    }

    // The slide's title names both GPUs, as the summary does.
    void titleNamesEveryGpu()
    {
        TimelineView view;
        view.setTrace(twoGpus());
        QVERIFY2(view.exportTitle().contains(QStringLiteral("2 × NVIDIA H100 80GB HBM3")),
                 qPrintable(view.exportTitle()));
    }

    // A measured range keeps the ruler's times: zoomed inside the range (its band over the whole ruler),
    // the ruler still reads its times, in the picture and in an SVG. The band was opaque, drawn over the
    // labels: only the two outside it remained, none at all zoomed inside. No label starts left of the
    // ruler (an SVG keeps no clip: the first one ran into the corner's "window ..." text).
    void rulerKeepsItsTimesUnderARange()
    {
        ui::TraceDocument document;
        document.setTrace(twoGpus(), QStringLiteral("two GPUs"), QString());
        TimelineView view;
        view.resize(1280, 720);
        view.setDocument(&document);
        const qint64 start = view.zoom()->extentStart(), end = view.zoom()->extentEnd();
        view.zoom()->setSelection(start, end);
        view.zoom()->setWindow(start + (end - start) / 4, start + (end - start) / 2); // inside the range

        QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
            QPainter p(&image);
            view.renderTo(p, view.rect());
        }
        const QRect ruler = test::viewGeometry(view, view.rect()).layout.ruler;
        QVERIFY(!ruler.isEmpty());
        // Left of the range's length (centred): label glyphs and ticks, on a light band.
        int dark = 0, all = 0;
        for (int y = ruler.top() + 1; y < ruler.bottom(); ++y)
            for (int x = ruler.left() + 2; x < ruler.center().x() - 120; ++x, ++all)
                dark += QColor(image.pixel(x, y)).lightnessF() < 0.45;
        QVERIFY2(dark > 0 && dark < all * 3 / 10, qPrintable(QStringLiteral("%1 of %2 dark").arg(dark).arg(all)));

        // The SVG: time labels (as the ruler writes them: "1.2 ms"), several, none left of the ruler.
        const QString svg = renderSvg(view, m_dir.filePath(QStringLiteral("range.svg")));
        static const QRegularExpression time(QStringLiteral(R"(^-?[0-9.]+ (ns|µs|ms|s)$)"));
        int labels = 0;
        for (const SvgText &t : svgTextsAt(svg)) {
            if (!time.match(t.text).hasMatch() || t.y > ruler.bottom() + 1 || t.y < ruler.top())
                continue;
            QVERIFY2(
                t.x >= ruler.left(),
                qPrintable(QStringLiteral("%1 at x %2, the ruler from %3").arg(t.text).arg(t.x).arg(ruler.left())));
            ++labels;
        }
        QVERIFY2(labels >= 4, qPrintable(QString::number(labels)));
        QVERIFY(svg.contains(QStringLiteral("Δ ")));
    }

    // The legend never cuts an entry ("queued (wa", "link p"): narrow, in presentation mode's type, the
    // entries shrink, then take their short labels, and one that still does not fit is left out whole.
    void legendEntriesAreWholeWhenNarrow()
    {
        ui::TraceDocument document;
        document.setTrace(std::make_shared<const engine::Trace>(engine::readNativeTrace(
                              STREAMSCOPE_SOURCE_DIR "/resources/examples/overlap-breadth-first.sstrace")),
                          QStringLiteral("overlap"), QString());
        TimelineView view;
        view.setDocument(&document);
        for (const int width : {1280, 900, 640, 420}) {
            view.setPresentationMode(width < 1000);
            view.resize(width, 520);
            const QRect legend = test::viewGeometry(view, view.rect()).layout.legend;
            QVERIFY(!legend.isEmpty());
            const QString svg = renderSvg(view, m_dir.filePath(QStringLiteral("legend-%1.svg").arg(width)));
            QFont font = view.metrics().smallFont;
            int entries = 0;
            for (const SvgText &t : svgTextsAt(svg)) {
                if (t.y < legend.top() || t.y > legend.bottom() + 1 || t.text.isEmpty())
                    continue;
                ++entries;
                // Drawn in at most the small font; its end inside the legend.
                const double right = t.x + QFontMetricsF(font).horizontalAdvance(t.text) * 0.98;
                QVERIFY2(right <= legend.right() + 2,
                         qPrintable(QStringLiteral("%1 px: '%2' ends at %3, the legend at %4")
                                        .arg(width)
                                        .arg(t.text)
                                        .arg(right)
                                        .arg(legend.right())));
                QVERIFY2(!t.text.startsWith(QStringLiteral("queued")) || t.text == QStringLiteral("queued")
                             || t.text == QStringLiteral("queued (waiting to run)"),
                         qPrintable(t.text));
            }
            QVERIFY2(entries >= 2, qPrintable(QString::number(width)));
        }
    }
};

QTEST_MAIN(TestTimelineExport)
#include "tst_timeline_export.moc"
