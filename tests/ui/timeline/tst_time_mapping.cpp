// Tests of ui/timeline/time_mapping.h: time<->pixel mapping, ruler steps and time labels, as _data() tables.
#include <QtTest>

#include <limits>

#include "ui/common/format_units.h"
#include "ui/timeline/time_mapping.h"

using streamscope::ui::TimeMapping;

class TestTimeMapping : public QObject {
    Q_OBJECT

private slots:
    void toX_data()
    {
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<double>("x0");
        QTest::addColumn<double>("width");
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<double>("x");
        QTest::newRow("left edge") << qint64(1000) << qint64(2000) << 100.0 << 500.0 << qint64(1000) << 100.0;
        QTest::newRow("middle") << qint64(1000) << qint64(2000) << 100.0 << 500.0 << qint64(1500) << 350.0;
        QTest::newRow("right edge") << qint64(1000) << qint64(2000) << 100.0 << 500.0 << qint64(2000) << 600.0;
        QTest::newRow("before window") << qint64(1000) << qint64(2000) << 100.0 << 500.0 << qint64(0) << -400.0;
        QTest::newRow("after window") << qint64(1000) << qint64(2000) << 100.0 << 500.0 << qint64(3000) << 1100.0;
        QTest::newRow("sub-pixel") << qint64(0) << qint64(1'000'000) << 0.0 << 1000.0 << qint64(1500) << 1.5;
        QTest::newRow("seconds") << qint64(0) << qint64(10'000'000'000) << 0.0 << 1000.0 << qint64(2'500'000'000)
                                 << 250.0;
        QTest::newRow("far outside does not overflow")
            << qint64(0) << qint64(10) << 0.0 << 1000.0 << qint64(4'000'000'000'000'000'000) << 4e20;
    }
    void toX()
    {
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        QFETCH(double, x0);
        QFETCH(double, width);
        QFETCH(qint64, ns);
        QFETCH(double, x);
        const TimeMapping m(start, end, x0, width);
        QCOMPARE(m.toX(ns), x);
    }

    void toNs_data()
    {
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<double>("x");
        QTest::addColumn<qint64>("ns");
        QTest::newRow("left") << qint64(1000) << qint64(2000) << 100.0 << qint64(1000);
        QTest::newRow("middle") << qint64(1000) << qint64(2000) << 350.0 << qint64(1500);
        QTest::newRow("rounds to nearest ns") << qint64(0) << qint64(1000) << 100.3 << qint64(1); // 0.6 ns
        QTest::newRow("left of plot") << qint64(1000) << qint64(2000) << 0.0 << qint64(800);
    }
    void toNs()
    {
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        QFETCH(double, x);
        QFETCH(qint64, ns);
        const TimeMapping m(start, end, 100.0, 500.0);
        QCOMPARE(m.toNs(x), ns);
    }

    void roundTrip()
    {
        const TimeMapping m(123'456, 9'876'543, 37.0, 1883.0);
        for (qint64 ns = m.startNs; ns <= m.endNs; ns += 77'777)
            QVERIFY(std::abs(m.toNs(m.toX(ns)) - ns) <= 1);
        QCOMPARE(m.nsPerPixel() * m.pixelsPerNs(), 1.0);
    }

    void degenerateWindow()
    {
        // An empty window or zero width must not divide by zero.
        const TimeMapping m(500, 500, 0.0, 0.0);
        QVERIFY(std::isfinite(m.toX(qint64(600))));
        QVERIFY(m.durationNs() > 0);
        QVERIFY(m.width > 0);
    }

    void rulerStep_data()
    {
        QTest::addColumn<double>("nsPerPixel");
        QTest::addColumn<double>("minPixels");
        QTest::addColumn<qint64>("step");
        QTest::newRow("900 ns -> 1 us") << 10.0 << 90.0 << qint64(1000);
        QTest::newRow("90 ns -> 100 ns") << 1.0 << 90.0 << qint64(100);
        QTest::newRow("below 1 ns -> 1 ns") << 0.001 << 90.0 << qint64(1);
        QTest::newRow("exact decade") << 1000.0 << 100.0 << qint64(100'000);
        QTest::newRow("2x") << 1234.0 << 100.0 << qint64(200'000);
        QTest::newRow("5x exact") << 5.0 << 100.0 << qint64(500);
        QTest::newRow("just under 5x") << 4.99 << 100.0 << qint64(500);
        QTest::newRow("just over 5x") << 5.01 << 100.0 << qint64(1000);
        QTest::newRow("seconds") << 3e7 << 90.0 << qint64(5'000'000'000);
    }
    void rulerStep()
    {
        QFETCH(double, nsPerPixel);
        QFETCH(double, minPixels);
        QFETCH(qint64, step);
        QCOMPARE(streamscope::ui::rulerStepNs(nsPerPixel, minPixels), step);
        // The contract: ticks at least minPixels apart.
        QVERIFY(double(step) / nsPerPixel >= minPixels * (1 - 1e-9) || step == 1);
    }

    void tickLabel_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<QString>("label");
        QTest::newRow("zero in us") << qint64(0) << qint64(1000) << QStringLiteral("0 µs");
        QTest::newRow("us") << qint64(2000) << qint64(1000) << QStringLiteral("2 µs");
        QTest::newRow("ns step") << qint64(2500) << qint64(500) << QStringLiteral("2500 ns");
        QTest::newRow("200 us step") << qint64(1'200'000) << qint64(200'000) << QStringLiteral("1200 µs");
        QTest::newRow("ms") << qint64(15'000'000) << qint64(5'000'000) << QStringLiteral("15 ms");
        QTest::newRow("s") << qint64(3'000'000'000) << qint64(1'000'000'000) << QStringLiteral("3 s");
        QTest::newRow("negative") << qint64(-2'000'000) << qint64(1'000'000) << QStringLiteral("-2 ms");
    }
    void tickLabel()
    {
        QFETCH(qint64, ns);
        QFETCH(qint64, step);
        QFETCH(QString, label);
        QCOMPARE(streamscope::ui::formatTickLabel(ns, step), label);
    }

    // The ruler's labels in the unit of what is in view, not of the step.
    void tickLabelInViewUnit_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<qint64>("largest");
        QTest::addColumn<QString>("label");
        QTest::newRow("24-29 ms in 500 us steps")
            << qint64(24'500'000) << qint64(500'000) << qint64(29'200'000) << QStringLiteral("24.5 ms");
        QTest::newRow("6.7 s in 1 s steps")
            << qint64(6'000'000'000) << qint64(1'000'000'000) << qint64(6'700'000'000) << QStringLiteral("6 s");
        QTest::newRow("1.2 ms in 200 us steps")
            << qint64(1'200'000) << qint64(200'000) << qint64(1'800'000) << QStringLiteral("1.2 ms");
        QTest::newRow("under 1 ms stays in us")
            << qint64(400'000) << qint64(100'000) << qint64(600'000) << QStringLiteral("400 µs");
        QTest::newRow("ms window, 50 us steps")
            << qint64(2'050'000) << qint64(50'000) << qint64(2'500'000) << QStringLiteral("2.05 ms");
        // Far from zero and deep in: seconds would need 7 decimals, milliseconds 4; microseconds do.
        QTest::newRow("5 s in, 100 ns steps")
            << qint64(5'000'123'100) << qint64(100) << qint64(5'000'124'000) << QStringLiteral("5000123.1 µs");
        QTest::newRow("negative window") << qint64(-1'500'000) << qint64(500'000) << qint64(3'000'000)
                                         << QStringLiteral("-1.5 ms");
    }
    void tickLabelInViewUnit()
    {
        QFETCH(qint64, ns);
        QFETCH(qint64, step);
        QFETCH(qint64, largest);
        QFETCH(QString, label);
        QCOMPARE(streamscope::ui::formatTickLabel(ns, step, largest), label);
        // The int64 minimum has no positive counterpart: its unit is still found (UBSan checks the sign flip).
        QCOMPARE(QString::fromUtf8(streamscope::ui::timeUnitFor(std::numeric_limits<qint64>::min()).suffix),
                 QStringLiteral("s"));
    }

    void decimals_data()
    {
        QTest::addColumn<qint64>("step");
        QTest::addColumn<double>("nsPerUnit");
        QTest::addColumn<int>("decimals");
        QTest::newRow("whole") << qint64(2000) << 1e3 << 0;
        QTest::newRow("tenths") << qint64(200'000) << 1e6 << 1;
        QTest::newRow("hundredths") << qint64(50'000) << 1e6 << 2;
    }
    void decimals()
    {
        QFETCH(qint64, step);
        QFETCH(double, nsPerUnit);
        QFETCH(int, decimals);
        QCOMPARE(streamscope::ui::decimalsFor(step, {"x", nsPerUnit}), decimals);
    }

    void duration_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<QString>("text");
        QTest::newRow("zero") << qint64(0) << QStringLiteral("0 ns");
        QTest::newRow("ns") << qint64(850) << QStringLiteral("850 ns");
        QTest::newRow("999 ns") << qint64(999) << QStringLiteral("999 ns");
        QTest::newRow("1 us") << qint64(1000) << QStringLiteral("1 µs");
        QTest::newRow("12.3 us") << qint64(12'345) << QStringLiteral("12.3 µs");
        QTest::newRow("1.5 ms") << qint64(1'500'000) << QStringLiteral("1.5 ms");
        // Rounding rolls over into the next unit: never "1000 µs" (the ui's own formatter once printed it).
        QTest::newRow("rollover") << qint64(999'999) << QStringLiteral("1 ms");
        QTest::newRow("123 ms") << qint64(123'456'789) << QStringLiteral("123 ms");
        QTest::newRow("2.5 s") << qint64(2'500'000'000) << QStringLiteral("2.5 s");
    }
    void duration()
    {
        QFETCH(qint64, ns);
        QFETCH(QString, text);
        QCOMPARE(streamscope::ui::formatDuration(ns), text);
    }

    void firstTick_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<qint64>("tick");
        QTest::newRow("on a tick") << qint64(20) << qint64(10) << qint64(20);
        QTest::newRow("between") << qint64(15) << qint64(10) << qint64(20);
        QTest::newRow("negative between") << qint64(-15) << qint64(10) << qint64(-10);
        QTest::newRow("negative near zero") << qint64(-5) << qint64(10) << qint64(0);
        QTest::newRow("zero") << qint64(0) << qint64(1000) << qint64(0);
    }
    void firstTick()
    {
        QFETCH(qint64, ns);
        QFETCH(qint64, step);
        QFETCH(qint64, tick);
        QCOMPARE(streamscope::ui::firstTickAtOrAfter(ns, step), tick);
    }

    // A window as wide as the int64 range (an op spanning 2^63 ns): the step was llround's overflow, 1 ns,
    // and the ruler loop counted to 2^63 (9 GB and no end). Ticks are now few whatever the range.
    void ticksAreBoundedWhateverTheRange_data()
    {
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        constexpr qint64 max = std::numeric_limits<qint64>::max(), min = std::numeric_limits<qint64>::min();
        QTest::newRow("0 .. 2^63-1") << qint64(0) << max;
        QTest::newRow("-2^63 .. 2^63-1") << min << max;
        QTest::newRow("-2^63+2 .. 0") << min + 2 << qint64(0);
        QTest::newRow("near the top") << max - 1000 << max;
        QTest::newRow("one second") << qint64(0) << qint64(1'000'000'000);
    }
    void ticksAreBoundedWhateverTheRange()
    {
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        const TimeMapping m(start, end, 0, 1280);
        QVERIFY(m.durationNs() > 0);
        const qint64 step = streamscope::ui::rulerStepNs(m.nsPerPixel(), 90);
        QVERIFY2(step >= qint64(m.nsPerPixel() * 90 * 0.999) || step == 5'000'000'000'000'000'000,
                 qPrintable(QString::number(step)));
        const auto ticks = streamscope::ui::tickTimes(m.startNs, m.endNs, step, 1);
        QVERIFY2(ticks.size() <= 1280 / 90 + 3, qPrintable(QString::number(ticks.size())));
        QVERIFY(!ticks.empty());
        for (std::size_t i = 1; i < ticks.size(); ++i)
            QCOMPARE(ticks[i] - ticks[i - 1], step); // ascending, no wrap
        QVERIFY(ticks.back() <= m.endNs);
        // Pixels far outside a window of centuries clamp instead of wrapping.
        QVERIFY(m.toNs(-1e9) <= m.startNs);
        QVERIFY(m.toNs(1e9) >= m.startNs);
        // And a step too small for the range still gives a bounded list.
        QVERIFY(streamscope::ui::tickTimes(start, end, 1, 0, 100).size() <= 100);
    }
};

QTEST_APPLESS_MAIN(TestTimeMapping)
#include "tst_time_mapping.moc"
