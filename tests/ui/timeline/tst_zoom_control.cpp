// Tests of ui::ZoomControl: extent ⊇ window ⊇ selection, clamping, zoom at an anchor, and the signals
// (checked with QSignalSpy: one signal per real change, none for no-ops).
#include <QSignalSpy>
#include <QtTest>

#include "ui/timeline/zoom_control.h"

using streamscope::ui::ZoomControl;

class TestZoomControl : public QObject {
    Q_OBJECT

private slots:
    void setExtentResetsWindow()
    {
        ZoomControl z;
        QSignalSpy extent(&z, &ZoomControl::extentChanged);
        QSignalSpy window(&z, &ZoomControl::windowChanged);
        z.setExtent(0, 1000);
        QCOMPARE(extent.count(), 1);
        QCOMPARE(extent.at(0).at(0).toLongLong(), 0);
        QCOMPARE(extent.at(0).at(1).toLongLong(), 1000);
        QCOMPARE(window.count(), 1);
        QCOMPARE(z.windowStart(), 0);
        QCOMPARE(z.windowEnd(), 1000);
        // The same extent again: nothing changes, nothing is signalled.
        z.setExtent(0, 1000);
        QCOMPARE(extent.count(), 1);
        QCOMPARE(window.count(), 1);
        // Reversed bounds are swapped.
        z.setExtent(5000, 2000);
        QCOMPARE(z.extentStart(), 2000);
        QCOMPARE(z.extentEnd(), 5000);
        QCOMPARE(z.windowStart(), 2000);
        QCOMPARE(z.windowEnd(), 5000);
    }

    void growingExtentKeepsWindow()
    {
        ZoomControl z;
        z.setExtent(0, 1000);
        z.setWindow(100, 200);
        QSignalSpy window(&z, &ZoomControl::windowChanged);
        z.setExtent(0, 2000); // e.g. a live trace that grew: keep what the user looks at
        QCOMPARE(window.count(), 0);
        QCOMPARE(z.windowStart(), 100);
        QCOMPARE(z.windowEnd(), 200);
    }

    void setWindow_data()
    {
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<qint64>("expectStart");
        QTest::addColumn<qint64>("expectEnd");
        QTest::newRow("inside") << qint64(100) << qint64(300) << qint64(100) << qint64(300);
        QTest::newRow("reversed") << qint64(300) << qint64(100) << qint64(100) << qint64(300);
        QTest::newRow("left of extent keeps width") << qint64(-50) << qint64(150) << qint64(0) << qint64(200);
        QTest::newRow("right of extent keeps width") << qint64(900) << qint64(1100) << qint64(800) << qint64(1000);
        QTest::newRow("wider than extent") << qint64(-500) << qint64(5000) << qint64(0) << qint64(1000);
        QTest::newRow("too narrow widens about centre") << qint64(500) << qint64(502) << qint64(491) << qint64(511);
        QTest::newRow("too narrow at the edge") << qint64(0) << qint64(1) << qint64(0) << qint64(20);
    }
    void setWindow()
    {
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        QFETCH(qint64, expectStart);
        QFETCH(qint64, expectEnd);
        ZoomControl z;
        z.setExtent(0, 1000);
        z.setWindow(start, end);
        QCOMPARE(z.windowStart(), expectStart);
        QCOMPARE(z.windowEnd(), expectEnd);
        QVERIFY(z.windowStart() >= z.extentStart());
        QVERIFY(z.windowEnd() <= z.extentEnd());
    }

    void zoomAtKeepsAnchor()
    {
        ZoomControl z;
        z.setExtent(0, 1'000'000);
        QSignalSpy window(&z, &ZoomControl::windowChanged);
        z.zoomAt(250'000, 2.0);
        QCOMPARE(window.count(), 1);
        QCOMPARE(z.windowDuration(), 500'000);
        // The anchor stays at the same fraction (1/4) of the window.
        QCOMPARE(z.windowStart(), 125'000);
        QCOMPARE(z.windowEnd(), 625'000);
        z.zoomAt(300'000, 0.5);
        QCOMPARE(z.windowDuration(), 1'000'000);
        QCOMPARE(z.windowStart(), 0);
    }

    void zoomLimits()
    {
        ZoomControl z;
        z.setExtent(0, 1'000'000);
        for (int i = 0; i < 200; ++i)
            z.zoomAt(777'777, 1.5);
        QCOMPARE(z.windowDuration(), ZoomControl::kMinWindowNs);
        QVERIFY(z.windowStart() <= 777'777 && z.windowEnd() >= 777'777);
        const qint64 start = z.windowStart();
        QSignalSpy window(&z, &ZoomControl::windowChanged);
        z.zoomAt(777'777, 1.5); // at the limit: no drift, no signal
        QCOMPARE(window.count(), 0);
        QCOMPARE(z.windowStart(), start);
        for (int i = 0; i < 200; ++i)
            z.zoomAt(1, 0.5);
        QCOMPARE(z.windowStart(), 0);
        QCOMPARE(z.windowEnd(), 1'000'000);
        z.zoomAt(0, 0.0); // nonsense factors are ignored
        z.zoomAt(0, std::numeric_limits<double>::quiet_NaN());
        QCOMPARE(z.windowDuration(), 1'000'000);
    }

    void panClamps()
    {
        ZoomControl z;
        z.setExtent(0, 1000);
        z.setWindow(400, 600);
        z.pan(100);
        QCOMPARE(z.windowStart(), 500);
        QCOMPARE(z.windowEnd(), 700);
        z.pan(10'000);
        QCOMPARE(z.windowStart(), 800);
        QCOMPARE(z.windowEnd(), 1000);
        QSignalSpy window(&z, &ZoomControl::windowChanged);
        z.pan(50); // already at the right end
        QCOMPARE(window.count(), 0);
        z.pan(-10'000);
        QCOMPARE(window.count(), 1);
        QCOMPARE(z.windowStart(), 0);
        QCOMPARE(z.windowDuration(), 200);
    }

    void fitAll()
    {
        ZoomControl z;
        z.setExtent(10, 1010);
        z.setWindow(100, 200);
        QSignalSpy window(&z, &ZoomControl::windowChanged);
        z.fitAll();
        QCOMPARE(window.count(), 1);
        QCOMPARE(window.at(0).at(0).toLongLong(), 10);
        QCOMPARE(window.at(0).at(1).toLongLong(), 1010);
    }

    void selection()
    {
        ZoomControl z;
        z.setExtent(0, 1000);
        QSignalSpy selection(&z, &ZoomControl::selectionChanged);
        QVERIFY(!z.hasSelection());
        z.setSelection(700, 300);
        QCOMPARE(selection.count(), 1);
        QVERIFY(z.hasSelection());
        QCOMPARE(z.selectionStart(), 300);
        QCOMPARE(z.selectionEnd(), 700);
        QCOMPARE(z.selectionDuration(), 400);
        z.setSelection(300, 700);
        QCOMPARE(selection.count(), 1); // unchanged
        z.setSelection(-100, 5000);
        QCOMPARE(z.selectionStart(), 0);
        QCOMPARE(z.selectionEnd(), 1000);
        // The selection need not be inside the window: zooming in keeps it.
        z.setWindow(100, 200);
        QCOMPARE(z.selectionEnd(), 1000);
        z.clearSelection();
        QVERIFY(!z.hasSelection());
        QCOMPARE(selection.count(), 3);
        QCOMPARE(selection.last().at(0).toLongLong(), selection.last().at(1).toLongLong());
        z.setSelection(500, 500); // empty = cleared, no signal since already clear
        QCOMPARE(selection.count(), 3);
    }

    void shrinkingExtentClampsSelection()
    {
        ZoomControl z;
        z.setExtent(0, 1000);
        z.setSelection(200, 900);
        QSignalSpy selection(&z, &ZoomControl::selectionChanged);
        z.setExtent(0, 500);
        QCOMPARE(selection.count(), 1);
        QCOMPARE(z.selectionEnd(), 500);
        QCOMPARE(z.windowEnd(), 500);
        z.setExtent(600, 700); // the selection falls outside: cleared
        QVERIFY(!z.hasSelection());
    }

    void tinyExtent()
    {
        ZoomControl z;
        z.setExtent(0, 5); // narrower than kMinWindowNs: the window is the extent
        QCOMPARE(z.windowStart(), 0);
        QCOMPARE(z.windowEnd(), 5);
        z.zoomAt(2, 4.0);
        QCOMPARE(z.windowEnd() - z.windowStart(), 5);
        ZoomControl empty;
        empty.setWindow(10, 20); // no extent yet
        QCOMPARE(empty.windowDuration(), 0);
    }

    void history()
    {
        ZoomControl z;
        z.setExtent(0, 1000);
        QCOMPARE(z.historySize(), 1); // the whole extent
        QVERIFY(!z.canGoBack());
        QVERIFY(!z.canGoForward());
        QSignalSpy changed(&z, &ZoomControl::historyChanged);
        z.setWindow(100, 200);
        QVERIFY(z.canGoBack()); // not settled yet, but back() remembers it first
        // A window kept still is remembered by itself.
        QTRY_COMPARE_WITH_TIMEOUT(z.historySize(), 2, ZoomControl::kSettleMs * 5);
        QVERIFY(changed.count() >= 1);
        // The steps of a continuous zoom are not: only where it stops.
        z.zoomAt(150, 2.0);
        z.zoomAt(150, 2.0);
        z.zoomAt(150, 2.0);
        const qint64 stopStart = z.windowStart(), stopEnd = z.windowEnd();
        z.commitHistory();
        QCOMPARE(z.historySize(), 3);
        z.back();
        QCOMPARE(z.windowStart(), 100);
        QCOMPARE(z.windowEnd(), 200);
        QVERIFY(z.canGoForward());
        z.back();
        QCOMPARE(z.windowStart(), 0);
        QCOMPARE(z.windowEnd(), 1000);
        QVERIFY(!z.canGoBack());
        z.back(); // nothing before: stays
        QCOMPARE(z.windowEnd(), 1000);
        z.forward();
        z.forward();
        QCOMPARE(z.windowStart(), stopStart);
        QCOMPARE(z.windowEnd(), stopEnd);
        QVERIFY(!z.canGoForward());
        // Going back, then somewhere new, drops what was ahead.
        z.back();
        z.setWindow(500, 600);
        z.commitHistory();
        QVERIFY(!z.canGoForward());
        QCOMPARE(z.historySize(), 3);
        z.back();
        QCOMPARE(z.windowStart(), 100);
        // An unsettled window is not lost by going back: forward returns to it.
        z.setWindow(700, 800);
        z.back();
        QCOMPARE(z.windowStart(), 100);
        z.forward();
        QCOMPARE(z.windowStart(), 700);
        // Another extent starts another history.
        z.setExtent(0, 5000);
        QCOMPARE(z.historySize(), 1);
        QVERIFY(!z.canGoBack());
    }
};

QTEST_MAIN(TestZoomControl)
#include "tst_zoom_control.moc"
