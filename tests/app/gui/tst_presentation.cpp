// Tests of the classroom: presentation mode on screens of 1280x720, 1366x768 and 1920x1080 (the offscreen
// platform given three screens side by side), the first window fitting its screen with room for a frame,
// the find bar and the Nsight comparison inside it, lessons opening on one click with their key figure
// (a two-GPU lesson on a machine without GPUs included), and slide-ready exports (title, scale, lanes filling the
// height, SVG clipped, transparent background, chart axes in units).
#include <QAbstractItemView>
#include <QApplication>
#include <QCategoryAxis>
#include <QDockWidget>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QScreen>
#include <QScrollArea>
#include <QStackedBarSeries>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QXmlStreamReader>
#include <QtTest>

#include "app/gui/app_options.h"
#include "app/gui/headless_export.h"
#include "app/gui/main_window.h"
#include "ui/compare/bandwidth_size_chart.h"
#include "ui/compare/comparison_window.h"
#include "ui/compare/makespan_chart.h"
#include "ui/compare/nsight_compare_view.h"
#include "ui/panels/find_bar.h"
#include "ui/panels/lessons_panel.h"
#include "ui/panels/summary_panel.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/stacked_timelines.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

using namespace streamscope;
using gui::MainWindow;

namespace {

const QSize kScreens[] = {{1280, 720}, {1366, 768}, {1920, 1080}};

QString example(const char *name)
{
    return QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/%1.sstrace").arg(QLatin1String(name));
}

QString comparison(const char *name)
{
    return QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/comparisons/%1.sscompare")
        .arg(QLatin1String(name));
}

QScreen *screenOfSize(QSize size)
{
    for (QScreen *s : QGuiApplication::screens())
        if (s->geometry().size() == size)
            return s;
    return nullptr;
}

// The lane layout the view paints with, at its own size.
ui::TimelineLayout layoutOf(const ui::TimelineView &view)
{
    ui::TimelinePainter painter;
    painter.setModel(view.laneModel());
    painter.setMetrics(view.metrics());
    return painter.layout(view.rect());
}

void saveShot(QWidget *w, const QString &name)
{
    if (const QByteArray out = qgetenv("STREAMSCOPE_SCREENSHOT_DIR"); !out.isEmpty())
        w->grab().save(QString::fromLocal8Bit(out) + QLatin1Char('/') + name);
}

} // namespace

class TestPresentation : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("StreamScopeTest"));
        QApplication::setApplicationName(QStringLiteral("tst_presentation"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        QCOMPARE(QGuiApplication::screens().size(), qsizetype(3));
    }

    void firstWindowFitsTheScreen()
    {
        // A fresh profile on the 1280x720 screen: the window is not 1600x1000.
        QSettings().clear();
        QScreen *screen = screenOfSize({1280, 720});
        QVERIFY(screen);
        MainWindow window;
        window.setScreen(screen);
        window.move(screen->geometry().topLeft());
        window.fitToScreen();
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY2(screen->availableGeometry().contains(window.frameGeometry()),
                 qPrintable(QStringLiteral("%1x%2").arg(window.width()).arg(window.height())));
    }

    void firstWindowLeavesRoomForItsFrame()
    {
        // Before it is shown a window's frame is unknown; a window manager then adds a title bar, and a
        // window as tall as the screen had its status bar (open progress, the selected range) below it.
        QSettings().clear();
        QScreen *screen = screenOfSize({1280, 720});
        QVERIFY(screen);
        MainWindow window;
        window.setScreen(screen);
        window.fitToScreen();
        QVERIFY2(window.height() <= screen->availableGeometry().height() - 24,
                 qPrintable(QStringLiteral("%1x%2").arg(window.width()).arg(window.height())));
        QVERIFY(window.width() <= screen->availableGeometry().width());
    }

    void findBarKeepsTheWindowOnItsScreen()
    {
        // Ctrl+F with the lessons beside the timeline widened the window to 1316 px on a 1280 px screen, and
        // it stayed so after Escape.
        QSettings().clear();
        QScreen *screen = screenOfSize({1280, 720});
        QVERIFY(screen);
        MainWindow window;
        window.setScreen(screen);
        window.move(screen->geometry().topLeft());
        window.fitToScreen();
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY2(window.openFile(example("overlap")), "overlap example");
        QTRY_VERIFY(window.trace() != nullptr && !window.isOpening());
        auto *dock = window.findChild<QDockWidget *>(QStringLiteral("lessonsDock"));
        QVERIFY(dock && dock->isVisible());
        const QRect available = screen->availableGeometry();
        QVERIFY(available.contains(window.frameGeometry()));
        QTest::keySequence(&window, QKeySequence::Find);
        auto *bar = window.findChild<ui::FindBar *>();
        QVERIFY(bar);
        QTRY_VERIFY(bar->isVisible());
        QTest::qWait(50); // the layout's pass, and the window's answer to it
        QVERIFY2(available.contains(window.frameGeometry()),
                 qPrintable(QStringLiteral("with the find bar: %1 px wide").arg(window.frameGeometry().width())));
        QVERIFY(bar->geometry().right() < window.centralWidget()->width());
        QVERIFY(dock->isVisible());
        QTest::keyClick(bar->nameField(), Qt::Key_Escape);
        QTRY_VERIFY(!bar->isVisible());
        QTest::qWait(50);
        QVERIFY2(available.contains(window.frameGeometry()),
                 qPrintable(QStringLiteral("after Escape: %1 px wide").arg(window.frameGeometry().width())));
    }

    void nsightComparisonFitsTheScreen_data() { presentationFitsTheScreen_data(); }
    void nsightComparisonFitsTheScreen()
    {
        // It opened at 1600x1000 on every screen: its delta table and repetition selector off a 720p one.
        QFETCH(QSize, size);
        QScreen *screen = screenOfSize(size);
        QVERIFY(screen);
        MainWindow window;
        window.setScreen(screen);
        window.setGeometry(QRect(screen->geometry().topLeft() + QPoint(20, 40), QSize(900, 600)));
        const QString fixtures = QStringLiteral(STREAMSCOPE_SOURCE_DIR "/tests/engine/fixtures/nsys-streamscope/");
        QString error;
        ui::NsightCompareView *view = window.compareWithNsight(fixtures + QStringLiteral("overlap.sqlite"),
                                                               fixtures + QStringLiteral("overlap.sstrace"), &error);
        QVERIFY2(view, qPrintable(error));
        QVERIFY(QTest::qWaitForWindowExposed(view));
        QTest::qWait(50);
        QCOMPARE(view->screen(), screen);
        QVERIFY2(screen->availableGeometry().contains(view->frameGeometry()),
                 qPrintable(QStringLiteral("%1x%2").arg(view->width()).arg(view->height())));
        // Where the screen has room it keeps its size.
        if (size.height() >= 1080)
            QCOMPARE(view->size(), QSize(1600, 1000));
        saveShot(view, QStringLiteral("nsight-compare-%1x%2.png").arg(size.width()).arg(size.height()));
    }

    void presentationFitsTheScreen_data()
    {
        QTest::addColumn<QSize>("size");
        for (const QSize &s : kScreens)
            QTest::newRow(qPrintable(QStringLiteral("%1x%2").arg(s.width()).arg(s.height()))) << s;
    }
    void presentationFitsTheScreen()
    {
        QFETCH(QSize, size);
        QScreen *screen = screenOfSize(size);
        QVERIFY(screen);
        MainWindow window;
        window.setScreen(screen);
        window.setGeometry(QRect(screen->geometry().topLeft() + QPoint(10, 10), QSize(900, 600)));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY2(window.openFile(example("overlap")), qPrintable(window.lastError()));
        window.setPresentationMode(true);
        QTest::qWait(200);

        // The window is the screen it is on.
        QCOMPARE(window.frameGeometry(), screen->geometry());
        // The timeline takes most of the height; the summary is a strip of key figures.
        ui::TimelineView *timeline = window.timeline();
        QVERIFY2(timeline->height() > window.height() * 0.6, qPrintable(QString::number(timeline->height())));
        QVERIFY(window.summaryPanel()->isCompact());
        QVERIFY(window.summaryPanel()->height() < window.height() / 6);
        const QString strip = window.summaryPanel()->stripText();
        QVERIFY2(strip.contains(QStringLiteral("Makespan")) && strip.contains(QStringLiteral("overlap")),
                 qPrintable(strip));
        // Lanes fill the height, each tall enough for its title, and every title fits its header.
        const ui::TimelineLayout layout = layoutOf(*timeline);
        QVERIFY(!layout.lanes.empty());
        QVERIFY2(layout.legend.bottom() >= timeline->height() - 2, "blank space below the lanes");
        const QFontMetrics fm(timeline->metrics().font);
        for (std::size_t i = 0; i < layout.lanes.size(); ++i) {
            const QString title = timeline->laneModel()->lane(int(i)).title;
            QVERIFY2(layout.lanes[i].height() >= std::max(32, fm.height() + 4),
                     qPrintable(QStringLiteral("%1: %2 px").arg(title).arg(layout.lanes[i].height())));
            QVERIFY2(fm.horizontalAdvance(title) <= layout.headers.width() - 16, qPrintable(title));
        }
        // The explanation is beside it once, large, with the key figure; no banner for the desk.
        QVERIFY(window.findChild<QWidget *>(QStringLiteral("explanation"))->isVisible());
        auto *text = window.findChild<QTextBrowser *>(QStringLiteral("explanationText"));
        QVERIFY(text->font().pointSizeF() > QApplication::font().pointSizeF() * 1.3);
        // Its heading no smaller than the text it heads.
        auto *heading = window.findChild<QLabel *>(QStringLiteral("explanationTitle"));
        QVERIFY(heading);
        QVERIFY2(
            heading->font().pointSizeF() >= text->font().pointSizeF(),
            qPrintable(
                QStringLiteral("%1 pt under %2 pt").arg(heading->font().pointSizeF()).arg(text->font().pointSizeF())));
        QVERIFY(window.findChild<QLabel *>(QStringLiteral("keyFigure"))->isVisible());
        QVERIFY(window.bannerText().isEmpty());
        QVERIFY(!timeline->keyFigureOps().empty());
        saveShot(&window, QStringLiteral("presentation-overlap-%1x%2.png").arg(size.width()).arg(size.height()));

        window.setPresentationMode(false);
        QVERIFY(!window.summaryPanel()->isCompact());
        QCOMPARE(heading->font().pointSizeF(), window.font().pointSizeF());
        QVERIFY(!(window.windowState() & Qt::WindowFullScreen));
    }

    void comparisonShowsEveryVariant_data() { presentationFitsTheScreen_data(); }
    void comparisonShowsEveryVariant()
    {
        QFETCH(QSize, size);
        QScreen *screen = screenOfSize(size);
        ui::ComparisonWindow window;
        window.setScreen(screen);
        window.setGeometry(screen->geometry());
        QString error;
        QVERIFY2(window.openFile(comparison("overlap"), &error), qPrintable(error));
        window.setPresentationMode(true);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTest::qWait(200);
        ui::StackedTimelines *stack = window.findChild<ui::StackedTimelines *>();
        QVERIFY(stack && stack->compact());
        auto *scroll = qobject_cast<QScrollArea *>(stack->parentWidget()->parentWidget());
        QVERIFY(scroll);
        QCOMPARE(stack->count(), 8);
        for (int i = 0; i < stack->count(); ++i) {
            ui::TimelineView *view = stack->view(i);
            const QRect inViewport(view->mapTo(scroll->viewport(), QPoint(0, 0)), view->size());
            QVERIFY2(scroll->viewport()->rect().contains(inViewport),
                     qPrintable(QStringLiteral("variant %1 is scrolled out of sight").arg(i + 1)));
            QVERIFY2(view->height() >= 40, qPrintable(QString::number(view->height())));
            for (const QRect &lane : layoutOf(*view).lanes)
                QVERIFY(lane.isEmpty() || lane.height() >= 10);
        }
        // Every bar's label drawn in full (no "…"), inside its bar's slot and the chart.
        ui::MakespanChart *chart = window.makespanChart();
        const double slot = chart->chart()->mapToPosition(QPointF(1, 0), chart->bars()).x()
                            - chart->chart()->mapToPosition(QPointF(0, 0), chart->bars()).x();
        for (int i = 0; i < chart->categories().size(); ++i) {
            const QString drawn = chart->drawnLabel(i);
            QVERIFY2(!drawn.contains(QChar(0x2026)), qPrintable(drawn));
            QCOMPARE(
                QString(drawn).replace(QStringLiteral("-\n"), QStringLiteral("-")).replace('\n', QStringLiteral(", ")),
                chart->categories()[i]);
            const QRectF box = chart->drawnLabelRect(i);
            QVERIFY2(box.width() <= slot, qPrintable(QStringLiteral("%1 wider than its bar").arg(drawn)));
            QVERIFY(chart->chart()->rect().contains(box));
        }
        saveShot(&window, QStringLiteral("presentation-comparison-%1x%2.png").arg(size.width()).arg(size.height()));
    }

    void oneClickOpensALesson()
    {
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        ui::LessonsPanel *lessons = window.lessonsPanel();
        auto *list = lessons->findChild<QListWidget *>(QStringLiteral("lessonList"));
        // The explanation is shown once: beside the timeline, not in the lessons panel.
        QVERIFY(lessons->findChildren<QTextBrowser *>().isEmpty());
        int overlap = -1;
        for (int i = 0; i < int(lessons->lessons().size()); ++i)
            if (lessons->lessons()[std::size_t(i)].examplePath == example("overlap"))
                overlap = i;
        QVERIFY(overlap >= 0);
        QListWidgetItem *item = list->item(overlap);
        list->scrollToItem(item);
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(item).center());
        QTRY_VERIFY(window.trace() != nullptr && !window.isOpening());
        QCOMPARE(window.document()->path(), example("overlap"));
        const ui::Lesson &lesson = lessons->lessons()[std::size_t(overlap)];
        QCOMPARE(window.findChild<QTextBrowser *>(QStringLiteral("explanationText"))->toPlainText(),
                 lesson.description);
        // Its key figure: stated, and the ops that show it outlined in the timeline.
        QVERIFY(window.findChild<QLabel *>(QStringLiteral("keyFigure"))
                    ->text()
                    .contains(QString::fromStdString(lesson.keyFigure.caption)));
        QCOMPARE(window.timeline()->keyFigureOps().size(), std::size_t(4)); // the four H2D copies
    }

    void oneClickOpensATwoGpuLesson()
    {
        // On a machine without GPUs the peer-copies lesson (two GPUs, recording bundled) says what it needs;
        // that note appeared under the list on the mouse press and moved the list, so the release landed on
        // another lesson: no click, and the previous lesson's explanation and title stayed.
        MainWindow window;
        QScreen *screen = screenOfSize({1280, 720});
        window.setScreen(screen);
        window.move(screen->geometry().topLeft());
        window.fitToScreen();
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        ui::LessonsPanel *lessons = window.lessonsPanel();
        lessons->setCanRun(false);
        lessons->setGpuCount(0);
        auto *list = lessons->findChild<QListWidget *>(QStringLiteral("lessonList"));
        int overlap = -1, peer = -1;
        for (int i = 0; i < int(lessons->lessons().size()); ++i) {
            if (lessons->lessons()[std::size_t(i)].examplePath == example("overlap"))
                overlap = i;
            if (lessons->lessons()[std::size_t(i)].examplePath == example("peer-copies"))
                peer = i;
        }
        QVERIFY2(overlap >= 0 && peer >= 0, "the overlap and peer-copies lessons with their recordings");
        // First another lesson, as a user would have: its explanation and title are the ones to replace.
        list->scrollToItem(list->item(overlap));
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(list->item(overlap)).center());
        QTRY_VERIFY(window.document()->path() == example("overlap") && !window.isOpening());
        list->scrollToItem(list->item(peer));
        const QPoint at = list->visualItemRect(list->item(peer)).center();
        QTest::mousePress(list->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(list->indexAt(at).row(), peer); // still under the pointer once the press has been handled
        QTest::mouseRelease(list->viewport(), Qt::LeftButton, {}, at);
        QTRY_VERIFY(window.document()->path() == example("peer-copies") && !window.isOpening());
        const ui::Lesson &lesson = lessons->lessons()[std::size_t(peer)];
        QCOMPARE(lessons->currentLesson(), peer);
        QCOMPARE(window.findChild<QTextBrowser *>(QStringLiteral("explanationText"))->toPlainText(),
                 lesson.description);
        QVERIFY2(window.windowTitle().contains(lesson.name), qPrintable(window.windowTitle()));
        const ui::Lesson &before = lessons->lessons()[std::size_t(overlap)];
        QVERIFY2(!window.windowTitle().contains(before.name), qPrintable(window.windowTitle()));
    }

    void exportsAreSlideReady()
    {
        gui::AppOptions options;
        options.tracePath = example("overlap");
        options.exportImagePath = m_dir.filePath(QStringLiteral("slide.svg"));
        options.size = QSize(1920, 1080);
        QCOMPARE(gui::exportImageHeadless(options), 0);
        QFile svg(options.exportImagePath);
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray text = svg.readAll();
        // The title: workload, GPU and date.
        QVERIFY(text.contains("Overlap: 4 streams, depth-first — NVIDIA H200 — 2026-11-23"));
        // Every drawing element lies inside a clipping viewport (the nested <svg>s), none at the top level.
        QXmlStreamReader xml(text);
        int depth = 0, drawn = 0;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement()) {
                if (xml.name() == QLatin1String("svg"))
                    ++depth;
                else if (xml.name() != QLatin1String("title") && xml.name() != QLatin1String("desc")
                         && xml.name() != QLatin1String("g") && xml.name() != QLatin1String("defs")
                         && !(depth == 1 && xml.name() == QLatin1String("rect"))) {
                    QVERIFY2(depth >= 2, qPrintable(xml.name().toString() + " outside every clip"));
                    ++drawn;
                }
            } else if (xml.isEndElement() && xml.name() == QLatin1String("svg")) {
                --depth;
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(drawn > 50);

        // PNG: lanes down to the legend (the header column is its grey to the bottom), text twice as
        // large at twice the size, and transparent when asked.
        auto render = [&](QSize size, bool transparent) {
            options.exportImagePath = m_dir.filePath(QStringLiteral("slide-%1.png").arg(size.width()));
            options.size = size;
            options.transparent = transparent;
            if (gui::exportImageHeadless(options) != 0)
                return QImage();
            return QImage(options.exportImagePath);
        };
        const QImage big = render({2560, 1440}, false);
        QCOMPARE(big.size(), QSize(2560, 1440));
        const QRgb header = big.pixel(4, int(big.height() * 0.9));
        QVERIFY2(qGray(header) < 250, "the lanes stop before the bottom of the image");
        // The title's ink: rows in the band with dark pixels, 1280x720 against 2560x1440.
        auto inkRows = [](const QImage &image) {
            int rows = 0;
            for (int y = 0; y < image.height() / 10; ++y) {
                bool ink = false;
                for (int x = 0; x < image.width() / 3 && !ink; ++x)
                    ink = qGray(image.pixel(x, y)) < 100 && qAlpha(image.pixel(x, y)) > 200;
                rows += ink;
            }
            return rows;
        };
        const QImage small = render({1280, 720}, false);
        QVERIFY2(inkRows(big) >= inkRows(small) * 1.7,
                 qPrintable(QStringLiteral("%1 vs %2 rows of title").arg(inkRows(big)).arg(inkRows(small))));
        QCOMPARE(qAlpha(small.pixel(small.width() - 2, 2)), 255);
        const QImage clear = render({1280, 720}, true);
        QCOMPARE(qAlpha(clear.pixel(clear.width() - 2, 2)), 0);
        QCOMPARE(qAlpha(clear.pixel(clear.width() - 2, clear.height() - 2)), 0); // behind the legend
    }

    // The legend names what the picture draws and nothing else: the link's peak only beside a bandwidth
    // lane (eight kernels have none), the queued segments where an op waited (the overlap lesson's copies).
    void legendNamesOnlyWhatIsDrawn()
    {
        auto legendOf = [&](const char *name) {
            gui::AppOptions options;
            options.tracePath = example(name);
            options.exportImagePath = m_dir.filePath(QStringLiteral("%1-legend.svg").arg(QLatin1String(name)));
            options.size = QSize(1920, 1080);
            if (gui::exportImageHeadless(options) != 0)
                return QByteArray();
            QFile svg(options.exportImagePath);
            return svg.open(QIODevice::ReadOnly) ? svg.readAll() : QByteArray();
        };
        const QByteArray overlap = legendOf("overlap");
        QVERIFY(!overlap.isEmpty());
        QVERIFY(overlap.contains("link peak 63.0 GB/s"));
        QVERIFY(overlap.contains("queued (waiting to run)"));
        const QByteArray kernels = legendOf("concurrent-kernels");
        QVERIFY(!kernels.isEmpty());
        QVERIFY(!kernels.contains("link peak"));
        QVERIFY(kernels.contains(">kernel<"));
    }

    void bandwidthChartAxisInUnits()
    {
        ui::ComparisonWindow window;
        QString error;
        QVERIFY2(window.openFile(comparison("bandwidth"), &error), qPrintable(error));
        // The chart draws its own size labels, as many as its width holds: laid out at 1920x1080 (the
        // charts' posted layout requests handled, as a shown window's are), every size of the sweep has one.
        window.resize(1920, 1080);
        window.tabs()->setCurrentWidget(window.bandwidthChart());
        for (int i = 0; i < 4; ++i) {
            window.grab();
            QCoreApplication::processEvents();
        }
        const QStringList labels = window.bandwidthChart()->sizeLabels();
        QVERIFY2(labels.contains(QStringLiteral("4 KiB")), qPrintable(labels.join(QStringLiteral(", "))));
        QVERIFY2(labels.contains(QStringLiteral("256 MiB")), qPrintable(labels.join(QStringLiteral(", "))));
        for (const QString &label : labels)
            QVERIFY2(!label.contains(QRegularExpression(QStringLiteral("\\d{5}"))), qPrintable(label));

        // The chart as a slide: titled, and transparent when that is asked.
        window.resize(1280, 720);
        const QString svg = m_dir.filePath(QStringLiteral("chart.svg"));
        QVERIFY2(window.exportCurrentChart(svg, QSize(1600, 900), &error), qPrintable(error));
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        // Its title: the lesson, the GPU and the day it was recorded.
        QVERIFY(QString::fromUtf8(file.readAll())
                    .contains(QRegularExpression(
                        QStringLiteral("Bandwidth: pageable vs pinned — NVIDIA H200 — \\d{4}-\\d{2}-\\d{2}"))));
        QSettings().setValue(QStringLiteral("export/transparent"), true);
        const QString png = m_dir.filePath(QStringLiteral("chart.png"));
        QVERIFY2(window.exportCurrentChart(png, QSize(1600, 900), &error), qPrintable(error));
        QSettings().remove(QStringLiteral("export/transparent"));
        const QImage image(png);
        QCOMPARE(image.size(), QSize(1600, 900));
        QCOMPARE(qAlpha(image.pixel(image.width() - 3, image.height() - 3)), 0);
    }
};

int main(int argc, char **argv)
{
    // Three screens side by side, as the offscreen platform reads them from a file.
    QTemporaryFile config(QDir::tempPath() + QStringLiteral("/tst_presentation-XXXXXX.json"));
    if (!config.open())
        return 1;
    config.write(R"({"synchronousWindowSystemEvents": true, "windowFrameMargins": false, "screens": [
        {"name": "720p", "x": 0, "y": 0, "width": 1280, "height": 720, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1},
        {"name": "768p", "x": 1280, "y": 0, "width": 1366, "height": 768, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1},
        {"name": "1080p", "x": 2646, "y": 0, "width": 1920, "height": 1080, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
    config.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + QFile::encodeName(config.fileName()));
    QApplication app(argc, argv);
    TestPresentation test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_presentation.moc"
