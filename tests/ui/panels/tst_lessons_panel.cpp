// LessonsPanel under the pointer: choosing a lesson never moves the list, so a click (press and release
// on one item) opens the lesson pressed, the two-GPU lessons on a machine without GPUs included.
#include <QApplication>
#include <QListWidget>
#include <QSignalSpy>
#include <QtTest>

#include "ui/panels/lessons_panel.h"

using namespace streamscope;

class TestLessonsPanel : public QObject {
    Q_OBJECT

private slots:
    void choosingALessonKeepsTheListStill_data()
    {
        QTest::addColumn<bool>("canRun");
        QTest::addColumn<int>("gpus");
        QTest::newRow("no usable GPU") << false << 0;
        QTest::newRow("one GPU") << true << 1;
        QTest::newRow("two GPUs") << true << 2;
    }

    void choosingALessonKeepsTheListStill()
    {
        // A note that the peer-copies lesson needs two GPUs appeared under the list on the mouse press: the
        // list shrank, its names wrapped again, and the release landed on another lesson (no click).
        QFETCH(bool, canRun);
        QFETCH(int, gpus);
        ui::LessonsPanel panel;
        panel.resize(300, 520); // a lessons dock at 1280x720: names wrap, the list nearly full
        panel.load(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads"),
                   QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples"));
        panel.setCanRun(canRun);
        panel.setGpuCount(gpus);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto *list = panel.findChild<QListWidget *>(QStringLiteral("lessonList"));
        QVERIFY(list);
        const int peer =
            panel.lessonForPath(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads/peer-copies.json"));
        QVERIFY(peer >= 0);
        QCOMPARE(panel.lessons()[std::size_t(peer)].gpusNeeded, 2);
        panel.setCurrentLesson(0);
        list->scrollToItem(list->item(peer));
        QApplication::processEvents();
        const QRect listBefore = list->geometry();
        QList<QRect> itemsBefore;
        for (int i = 0; i < list->count(); ++i)
            itemsBefore << list->visualItemRect(list->item(i));

        QSignalSpy activated(&panel, &ui::LessonsPanel::lessonActivated);
        const QPoint at = itemsBefore[peer].center();
        QTest::mousePress(list->viewport(), Qt::LeftButton, {}, at);
        QApplication::processEvents();
        QCOMPARE(panel.currentLesson(), peer);
        QCOMPARE(list->geometry(), listBefore);
        for (int i = 0; i < list->count(); ++i)
            QVERIFY2(list->visualItemRect(list->item(i)) == itemsBefore[i],
                     qPrintable(QStringLiteral("lesson %1 moved under the press").arg(i)));
        QTest::mouseRelease(list->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.front().front().toInt(), peer);
    }
};

QTEST_MAIN(TestLessonsPanel)
#include "tst_lessons_panel.moc"
