// Tests of find and filter: the find bar edits the document's query; matches are walked with Enter and
// Shift+Enter (selecting each, so the timeline and details follow); the filter hides what does not
// match from the operations table and dims it on the timeline (pixels checked: a matching bar keeps its
// colour, another bar fades); bad input says what is wrong; Escape clears; F fits, Ctrl+F finds.
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QPainter>
#include <QSignalSpy>
#include <QtTest>

#include "app/gui/main_window.h"
#include "tests/ui/test_traces.h"
#include "tests/ui/timeline/view_geometry.h"
#include "ui/common/op_palette.h"
#include "ui/document/trace_document.h"
#include "ui/panels/details_panel.h"
#include "ui/panels/find_bar.h"
#include "ui/panels/op_table_model.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

using namespace streamscope;

class TestFindBar : public QObject {
    Q_OBJECT

private:
    static void type(QLineEdit *field, const QString &text)
    {
        field->setFocus();
        field->selectAll();
        QTest::keyClick(field, Qt::Key_Delete); // as a user clears it
        QTest::keyClicks(field, text);
    }
    // The colour at the centre of an op's GPU bar in an image of the whole view.
    static QRgb pixelOf(ui::TimelineView &view, const QImage &image, int op)
    {
        const test::ViewGeometry g = test::viewGeometry(view, image.rect());
        return image.pixel(g.painter.gpuBarRect(g.layout, g.mapping, op).center().toPoint());
    }

private slots:
    void findAndWalk()
    {
        ui::TraceDocument document;
        ui::FindBar bar;
        bar.setDocument(&document);
        document.setTrace(test::makePipelineTrace(3));
        QVERIFY(bar.statusText().isEmpty()); // no query, no status
        QCOMPARE(bar.laneBox()->count(), 1 + 2 + 1); // any lane, copy0, copy1, main

        type(bar.nameField(), QStringLiteral("h2d"));
        QCOMPARE(document.matches().size(), std::size_t(2)); // the H2D copy of each stream
        QCOMPARE(bar.statusText(), QStringLiteral("2 matches"));
        // Enter selects the first in time, then the next; Shift+Enter goes back; both wrap.
        QTest::keyClick(bar.nameField(), Qt::Key_Return);
        QCOMPARE(document.selectedOp(), document.matches()[0]);
        QCOMPARE(bar.statusText(), QStringLiteral("1 of 2"));
        QTest::keyClick(bar.nameField(), Qt::Key_Return);
        QCOMPARE(document.selectedOp(), document.matches()[1]);
        QTest::keyClick(bar.nameField(), Qt::Key_Return);
        QCOMPARE(document.selectedOp(), document.matches()[0]);
        QTest::keyClick(bar.nameField(), Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(document.selectedOp(), document.matches()[1]);
        QCOMPARE(bar.statusText(), QStringLiteral("2 of 2"));

        // Kind, lane and duration narrow it; the kernel takes 100 us.
        type(bar.nameField(), QString());
        bar.kindBox()->setCurrentIndex(bar.kindBox()->findText(QStringLiteral("kernel")));
        QCOMPARE(document.matches().size(), std::size_t(2));
        bar.laneBox()->setCurrentIndex(bar.laneBox()->findText(QStringLiteral("copy1")));
        QCOMPARE(document.matches().size(), std::size_t(1));
        type(bar.minDurationField(), QStringLiteral("150 us"));
        QCOMPARE(bar.statusText(), QStringLiteral("No match"));
        type(bar.minDurationField(), QStringLiteral("50us"));
        QCOMPARE(document.matches().size(), std::size_t(1));

        // Bad input: said, and nothing matches.
        type(bar.minDurationField(), QStringLiteral("fast"));
        QVERIFY2(bar.statusText().contains(QStringLiteral("'fast' is not a duration")), qPrintable(bar.statusText()));
        QVERIFY(!document.hasQuery());
        type(bar.minDurationField(), QString());
        bar.kindBox()->setCurrentIndex(0);
        bar.laneBox()->setCurrentIndex(0);
        bar.regexBox()->setChecked(true);
        type(bar.nameField(), QStringLiteral("([oops"));
        QVERIFY2(bar.statusText().contains(QStringLiteral("regular expression")), qPrintable(bar.statusText()));
        QVERIFY(document.matches().empty());
        type(bar.nameField(), QStringLiteral("^(h2d|d2h)"));
        QCOMPARE(document.matches().size(), std::size_t(4));

        // The query follows the repetition and a new trace.
        document.setRepetition(0);
        QCOMPARE(document.matches().size(), std::size_t(4));
        document.setTrace(test::makePipelineTrace(5));
        QCOMPARE(document.matches().size(), std::size_t(4));

        // Escape closes the bar and clears the query: the durations, kind and Filter too (they stayed set
        // and narrowed the next search); the name stays for the next one.
        bar.show();
        type(bar.minDurationField(), QStringLiteral("1 us"));
        type(bar.maxDurationField(), QStringLiteral("50 us"));
        bar.kindBox()->setCurrentIndex(1);
        bar.filterBox()->setChecked(true);
        QVERIFY(document.filtering());
        QTest::keyClick(bar.nameField(), Qt::Key_Escape);
        QVERIFY(!bar.isVisible());
        QVERIFY(!document.hasQuery());
        QVERIFY(!document.filtering());
        QVERIFY(document.matches().empty());
        QVERIFY(bar.minDurationField()->text().isEmpty());
        QVERIFY(bar.maxDurationField()->text().isEmpty());
        QCOMPARE(bar.kindBox()->currentIndex(), 0);
        QVERIFY(!bar.filterBox()->isChecked());
        QCOMPARE(bar.nameField()->text(), QStringLiteral("^(h2d|d2h)"));
    }

    void filterHidesAndDims()
    {
        ui::TraceDocument document;
        ui::OpTableModel model;
        model.setDocument(&document);
        ui::OpTableProxy proxy;
        proxy.setSourceModel(&model);
        proxy.setDocument(&document);
        ui::TimelineView view;
        view.resize(1000, 400);
        view.setDocument(&document);
        ui::FindBar bar;
        bar.setDocument(&document);
        document.setTrace(test::makePipelineTrace(3));
        QCOMPARE(proxy.rowCount(), 6);

        const QImage plain = view.grab().toImage();
        type(bar.nameField(), QStringLiteral("compute"));
        QCOMPARE(proxy.rowCount(), 6); // found, not filtered: the table keeps every op
        bar.filterBox()->setChecked(true);
        QVERIFY(document.filtering());
        QCOMPARE(proxy.rowCount(), 2); // the two kernels
        for (int r = 0; r < proxy.rowCount(); ++r)
            QVERIFY(document.isMatch(proxy.mapToSource(proxy.index(r, 0)).row()));
        const QImage filtered = view.grab().toImage();
        QCOMPARE(filtered.size(), plain.size());
        // Op 1 is stream copy0's kernel (a match), op 0 its H2D copy (not).
        const int kernel = 1, copy = 0;
        QVERIFY(document.isMatch(kernel) && !document.isMatch(copy));
        QCOMPARE(QColor(pixelOf(view, filtered, kernel)).name(), QColor(pixelOf(view, plain, kernel)).name());
        const QColor before(pixelOf(view, plain, copy)), after(pixelOf(view, filtered, copy));
        QVERIFY2(after.lightnessF() > before.lightnessF() + 0.2,
                 qPrintable(before.name() + QStringLiteral(" -> ") + after.name())); // faded toward the background
        bar.filterBox()->setChecked(false);
        QCOMPARE(proxy.rowCount(), 6);
        QCOMPARE(QColor(pixelOf(view, view.grab().toImage(), copy)).name(), before.name());
    }

    void windowShortcuts()
    {
        gui::MainWindow window;
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showTrace(test::makePipelineTrace(3), QStringLiteral("pipeline"));
        QVERIFY(!window.findBar()->isVisible());
        // Ctrl+F opens the find bar, focused; it does not fit the view.
        window.timeline()->setFocus();
        window.timeline()->zoom()->setWindow(window.timeline()->zoom()->extentStart(),
                                             window.timeline()->zoom()->extentStart() + 50'000);
        const qint64 zoomed = window.timeline()->zoom()->windowDuration();
        QTest::keyClick(window.timeline(), Qt::Key_F, Qt::ControlModifier);
        QTRY_VERIFY(window.findBar()->isVisible());
        QTRY_VERIFY(window.findBar()->nameField()->hasFocus());
        QCOMPARE(window.timeline()->zoom()->windowDuration(), zoomed);
        // F alone fits.
        window.timeline()->setFocus();
        QTest::keyClick(window.timeline(), Qt::Key_F);
        QVERIFY(window.timeline()->zoom()->windowDuration() > zoomed);
        // The duration fields show what is typed in them, whole ("50 us" read as "0 us" in a field about
        // 30 px wide), at the desk's type and presentation mode's.
        for (const bool presentation : {false, true}) {
            window.setPresentationMode(presentation);
            QApplication::processEvents();
            for (QLineEdit *field : {window.findBar()->minDurationField(), window.findBar()->maxDurationField()}) {
                const int need = field->fontMetrics().horizontalAdvance(QStringLiteral("150.5 ms"));
                QVERIFY2(
                    ui::FindBar::durationTextRoom(field) >= need,
                    qPrintable(
                        QStringLiteral("%1 px for %2 px of text").arg(ui::FindBar::durationTextRoom(field)).arg(need)));
                QVERIFY(window.findBar()->geometry().right() <= window.width());
            }
        }
        window.setPresentationMode(false);
        // Typing finds; Enter selects, and the timeline and the operations table follow.
        type(window.findBar()->nameField(), QStringLiteral("d2h"));
        QTest::keyClick(window.findBar()->nameField(), Qt::Key_Return);
        const int selected = window.document()->selectedOp();
        QVERIFY(selected >= 0);
        QCOMPARE(window.timeline()->selectedOp().op, selected);
        QVERIFY(window.detailsPanel()->plainText().contains(QStringLiteral("D2H")));

        // The overlap example with its H2D copies found and filtered: docs/screenshots/find-filter.png
        // when STREAMSCOPE_SCREENSHOT_DIR is set.
        const QString example = QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/overlap.sstrace");
        QVERIFY2(window.openFile(example), qPrintable(window.lastError()));
        window.resize(1600, 1000);
        type(window.findBar()->nameField(), QStringLiteral("H2D"));
        window.findBar()->filterBox()->setChecked(true);
        QTest::keyClick(window.findBar()->nameField(), Qt::Key_Return);
        QCOMPARE(window.document()->matches().size(), std::size_t(4)); // one H2D chunk per stream
        QCOMPARE(window.opTableProxy()->rowCount(), 4);
        QCOMPARE(window.findBar()->statusText(), QStringLiteral("1 of 4"));
        if (const QString dir = qEnvironmentVariable("STREAMSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
            QTest::qWait(200);
            QVERIFY(window.grab().save(dir + QStringLiteral("/find-filter.png")));
        }
    }
};

QTEST_MAIN(TestFindBar)
#include "tst_find_bar.moc"
