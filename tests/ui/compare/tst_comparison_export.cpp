// Tests of the comparison window's image of the whole comparison (ComparisonWindow::exportComparison,
// File > Export comparison image…): at the window's own size and scale 1 it is the window's content
// pixel for pixel, larger sizes lay it out at the slide's scale, and SVG keeps its text.
#include <QAction>
#include <QMenuBar>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/compare/comparison_window.h"

using namespace streamscope;

namespace {
QString comparison(const char *name)
{
    return QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/comparisons/") + QLatin1String(name)
           + QStringLiteral(".sscompare");
}
} // namespace

class TestComparisonExport : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void exportIsWhatTheWindowShows()
    {
        ui::ComparisonWindow window;
        QString error;
        QVERIFY2(window.openFile(comparison("overlap"), &error), qPrintable(error));
        window.resize(1280, 760);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QWidget *content = window.centralWidget();
        const QImage shown = content->grab().toImage().convertToFormat(QImage::Format_RGB32);

        const QString png = m_dir.filePath(QStringLiteral("window.png"));
        ui::ImageOptions options;
        options.scale = 1;
        options.title = QStringLiteral("a title the header already gives");
        QVERIFY2(window.exportComparison(png, content->size(), options, &error), qPrintable(error));
        const QImage exported = QImage(png).convertToFormat(QImage::Format_RGB32);
        QCOMPARE(exported.size(), shown.size());
        int differing = 0;
        for (int y = 0; y < shown.height(); ++y)
            for (int x = 0; x < shown.width(); ++x)
                differing += shown.pixel(x, y) != exported.pixel(x, y);
        if (const QString dump = qEnvironmentVariable("STREAMSCOPE_DUMP_DIR"); !dump.isEmpty()) {
            shown.save(dump + QStringLiteral("/comparison-shown.png"));
            exported.save(dump + QStringLiteral("/comparison-exported.png"));
        }
        QVERIFY2(differing == 0, qPrintable(QStringLiteral("%1 pixels differ").arg(differing)));
        QCOMPARE(content->size(), shown.size()); // the window is left as it was

        // A slide twice the size: the same layout at twice the scale, every pixel of the image drawn.
        const QString big = m_dir.filePath(QStringLiteral("window-2x.png"));
        options.scale = 2;
        QVERIFY2(window.exportComparison(big, content->size() * 2, options, &error), qPrintable(error));
        QCOMPARE(QImage(big).size(), content->size() * 2);

        // SVG: the header, the chart's title and the variants' labels as text.
        const QString svg = m_dir.filePath(QStringLiteral("window.svg"));
        QVERIFY2(window.exportComparison(svg, QSize(1920, 1080), ui::ImageOptions{}, &error), qPrintable(error));
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        QVERIFY(text.contains("Overlap: 4 streams, depth-first"));
        QVERIFY(text.contains("Makespan per variant"));
        QVERIFY(text.contains("streams=1, order=depth-first"));
        QVERIFY(!text.contains("a title the header already gives"));
    }

    void menuOffersTheWholeComparison()
    {
        ui::ComparisonWindow window;
        QAction *found = nullptr;
        for (QAction *menu : window.menuBar()->actions())
            for (QAction *action : menu->menu()->actions())
                if (action->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_E))
                    found = action;
        QVERIFY(found);
        QVERIFY2(found->text().contains(QStringLiteral("comparison")), qPrintable(found->text()));
    }
};

QTEST_MAIN(TestComparisonExport)
#include "tst_comparison_export.moc"
