// Tests of the keyboard and mouse card: `?` and F1 open it over the window, it lists the timeline's
// gestures and every menu shortcut as the actions define them, any key closes it, and a `?` typed into a
// text field stays text.
#include <QAction>
#include <QLineEdit>
#include <QtTest>

#include "app/gui/main_window.h"
#include "ui/panels/find_bar.h"
#include "ui/panels/shortcuts_overlay.h"
#include "ui/timeline/timeline_view.h"

using namespace streamscope;

class TestShortcutsOverlay : public QObject {
    Q_OBJECT

private:
    static QString keysFor(const ui::ShortcutsOverlay &overlay, const QString &what)
    {
        for (const auto &[keys, text] : overlay.entries())
            if (text == what)
                return keys;
        return {};
    }

private slots:
    void entriesFromActions()
    {
        QAction find(QStringLiteral("F&ind ops…"));
        find.setShortcut(QKeySequence::Find);
        QAction plain(QStringLiteral("No shortcut"));
        QAction amp(QStringLiteral("Save && &quit"));
        amp.setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Q), QKeySequence(Qt::Key_F10)});
        const auto entries = ui::ShortcutsOverlay::actionEntries({&find, &plain, &amp});
        QCOMPARE(int(entries.size()), 2);
        QCOMPARE(entries[0].second, QStringLiteral("Find ops…"));
        QCOMPARE(entries[0].first, QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText));
        QCOMPARE(entries[1].second, QStringLiteral("Save & quit"));
        QVERIFY(entries[1].first.contains(QStringLiteral("F10")));
        QVERIFY(ui::ShortcutsOverlay::timelineEntries().size() >= 8);
    }

    void questionMarkOpensTheCard()
    {
        gui::MainWindow window;
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        ui::ShortcutsOverlay *overlay = window.shortcutsOverlay();
        QVERIFY(!overlay->isVisible());
        window.timeline()->setFocus();
        QTest::keyClick(window.timeline(), Qt::Key_Question, Qt::ShiftModifier);
        QTRY_VERIFY(overlay->isVisible());
        QCOMPARE(overlay->geometry(), window.rect());
        // The menus' shortcuts, as the actions have them, and the timeline's gestures.
        QCOMPARE(keysFor(*overlay, QStringLiteral("Find ops…")),
                 QKeySequence(QKeySequence::Find).toString(QKeySequence::NativeText));
        QVERIFY(keysFor(*overlay, QStringLiteral("Run workload")).contains(QStringLiteral("F5")));
        QVERIFY(!keysFor(*overlay, QStringLiteral("measure a range (Range dock)")).isEmpty());
        // Drawn: the card is lighter than the veil around it.
        const QImage image = window.grab().toImage();
        QVERIFY(QColor(image.pixel(image.rect().center())).lightnessF()
                > QColor(image.pixel(5, image.height() / 2)).lightnessF() + 0.2);
        if (const QString dir = qEnvironmentVariable("STREAMSCOPE_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(image.save(dir + QStringLiteral("/shortcuts.png")));
        // Any key closes it.
        QTest::keyClick(overlay, Qt::Key_Space);
        QVERIFY(!overlay->isVisible());
        // F1 too.
        window.timeline()->setFocus();
        QTest::keyClick(window.timeline(), Qt::Key_F1);
        QTRY_VERIFY(overlay->isVisible());
        QTest::mouseClick(overlay, Qt::LeftButton);
        QVERIFY(!overlay->isVisible());
        // A '?' typed into the find bar is text, not the card.
        window.findBar()->activate();
        QTest::keyClicks(window.findBar()->nameField(), QStringLiteral("a?b"));
        QCOMPARE(window.findBar()->nameField()->text(), QStringLiteral("a?b"));
        QVERIFY(!overlay->isVisible());
    }
};

QTEST_MAIN(TestShortcutsOverlay)
#include "tst_shortcuts_overlay.moc"
