// The comparison window on screens of 1280x720, 1366x768 and 1920x1080 (the offscreen platform given
// three screens side by side, with frames): it opens inside the screen it is on, frame included, as large
// as the screen allows up to 1600x1000, with its charts, delta table and timelines all on the screen.
#include <QApplication>
#include <QDir>
#include <QHeaderView>
#include <QScreen>
#include <QScrollArea>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryFile>
#include <QtTest>

#include "ui/compare/comparison_window.h"
#include "ui/timeline/stacked_timelines.h"

using namespace streamscope;

namespace {

QScreen *screenOfSize(QSize size)
{
    for (QScreen *s : QGuiApplication::screens())
        if (s->geometry().size() == size)
            return s;
    return nullptr;
}

// The part of `w` that lies on the screen, in global coordinates.
QRect globalRect(const QWidget *w)
{
    return QRect(w->mapToGlobal(QPoint(0, 0)), w->size());
}

} // namespace

class TestComparisonWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QCOMPARE(QGuiApplication::screens().size(), qsizetype(3)); }

    void opensInsideItsScreen_data()
    {
        QTest::addColumn<QSize>("size");
        for (const QSize s : {QSize(1280, 720), QSize(1366, 768), QSize(1920, 1080)})
            QTest::newRow(qPrintable(QStringLiteral("%1x%2").arg(s.width()).arg(s.height()))) << s;
    }

    void opensInsideItsScreen()
    {
        // It opened at 1600x1000 on every screen: chart titles cut, the delta table below a 720p screen.
        QFETCH(QSize, size);
        QScreen *screen = screenOfSize(size);
        QVERIFY(screen);
        ui::ComparisonWindow window;
        window.setScreen(screen);
        window.move(screen->geometry().topLeft() + QPoint(30, 30));
        QString error;
        QVERIFY2(
            window.openFile(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/comparisons/overlap.sscompare"),
                            &error),
            qPrintable(error));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTest::qWait(50); // the fit once shown is queued
        const QRect available = screen->availableGeometry();
        QVERIFY2(available.contains(window.frameGeometry()), qPrintable(QStringLiteral("%1x%2 at %3,%4")
                                                                            .arg(window.frameGeometry().width())
                                                                            .arg(window.frameGeometry().height())
                                                                            .arg(window.frameGeometry().x())
                                                                            .arg(window.frameGeometry().y())));
        if (size.height() >= 1080)
            QCOMPARE(window.size(), QSize(1600, 1000)); // room for its own size: kept
        // Charts, delta table and timelines are on the screen, each with room to be read.
        auto *table = window.findChild<QTableView *>();
        QVERIFY(table && table->isVisible());
        QVERIFY2(available.contains(globalRect(table)), "the delta table is off the screen");
        QVERIFY2(table->viewport()->height() >= 3 * table->verticalHeader()->defaultSectionSize(),
                 qPrintable(QString::number(table->viewport()->height())));
        QTabWidget *tabs = window.tabs();
        QVERIFY(available.contains(globalRect(tabs)));
        QVERIFY2(tabs->width() >= 400, qPrintable(QString::number(tabs->width())));
        QVERIFY2(tabs->height() >= 300, qPrintable(QString::number(tabs->height())));
        auto *stack = window.findChild<ui::StackedTimelines *>();
        QVERIFY(stack);
        auto *scroll = qobject_cast<QScrollArea *>(stack->parentWidget()->parentWidget());
        QVERIFY(scroll);
        QVERIFY(available.contains(globalRect(scroll)));
        QVERIFY2(scroll->width() >= tabs->width(), "the timelines narrower than the charts");
    }
};

int main(int argc, char **argv)
{
    // Three screens side by side, as the offscreen platform reads them from a file; windows get frames.
    QTemporaryFile config(QDir::tempPath() + QStringLiteral("/tst_comparison_window-XXXXXX.json"));
    if (!config.open())
        return 1;
    config.write(R"({"synchronousWindowSystemEvents": true, "windowFrameMargins": true, "screens": [
        {"name": "720p", "x": 0, "y": 0, "width": 1280, "height": 720, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1},
        {"name": "768p", "x": 1280, "y": 0, "width": 1366, "height": 768, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1},
        {"name": "1080p", "x": 2646, "y": 0, "width": 1920, "height": 1080, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
    config.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + QFile::encodeName(config.fileName()));
    QApplication app(argc, argv);
    TestComparisonWindow test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_comparison_window.moc"
