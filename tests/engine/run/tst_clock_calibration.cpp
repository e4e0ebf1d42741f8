// Tests of the runner's clock arithmetic: spin cycles for a target duration, the clock rate from two
// timed spins, and the choice of the host-clock anchor among several windows.
#include <QtTest>

#include "engine/run/clock_calibration.h"

using namespace streamscope::engine;

class TestClockCalibration : public QObject {
    Q_OBJECT

private slots:
    void spinCycles_data()
    {
        QTest::addColumn<qint64>("targetNs");
        QTest::addColumn<double>("clockHz");
        QTest::addColumn<double>("overheadNs");
        QTest::addColumn<qint64>("cycles");
        QTest::newRow("1 ms at 2 GHz, 2 us overhead") << 1'000'000LL << 2e9 << 2'000.0 << 1'996'000LL;
        QTest::newRow("10 us at 1.98 GHz, 3 us overhead") << 10'000LL << 1.98e9 << 3'000.0 << 13'860LL;
        QTest::newRow("100 ms at 1.5 GHz, no overhead") << 100'000'000LL << 1.5e9 << 0.0 << 150'000'000LL;
        QTest::newRow("below the overhead") << 1'000LL << 2e9 << 2'500.0 << 0LL;
        QTest::newRow("exactly the overhead") << 2'500LL << 2e9 << 2'500.0 << 0LL;
        QTest::newRow("zero") << 0LL << 2e9 << 0.0 << 0LL;
    }
    void spinCycles()
    {
        QFETCH(qint64, targetNs);
        QFETCH(double, clockHz);
        QFETCH(double, overheadNs);
        QFETCH(qint64, cycles);
        Calibration c;
        c.smClockHz = clockHz;
        c.spinOverheadNs = overheadNs;
        QCOMPARE(spinCyclesFor(targetNs, c), cycles);
    }

    // The model the runner calibrates: duration = overhead + cycles / rate. The slope recovers the rate
    // whatever the overhead, and the cycles it gives then land on the target.
    void slopeRecoversTheRate()
    {
        const double rate = 1.755e9, overhead = 4'321;
        auto duration = [&](std::int64_t cycles) { return overhead + double(cycles) / rate * 1e9; };
        const double measured = clockRateFromSlope(1'000'000, duration(1'000'000), 40'000'000, duration(40'000'000));
        QVERIFY(std::abs(measured - rate) < rate * 1e-9);
        Calibration c;
        c.smClockHz = measured;
        c.spinOverheadNs = overhead;
        for (std::int64_t target : {10'000LL, 100'000LL, 1'000'000LL, 100'000'000LL})
            QVERIFY(std::abs(duration(spinCyclesFor(target, c)) - double(target)) < 2.0);
    }

    void slopeRejectsNonsense()
    {
        QCOMPARE(clockRateFromSlope(1000, 5000, 2000, 5000), 0.0); // no longer
        QCOMPARE(clockRateFromSlope(1000, 5000, 2000, 4000), 0.0); // shorter
        QCOMPARE(clockRateFromSlope(2000, 5000, 2000, 6000), 0.0); // same cycles
    }

    void anchorTakesTheNarrowestWindow()
    {
        const std::vector<AnchorWindow> windows = {{1000, 9000}, {20'000, 23'001}, {30'000, 35'000}, {40'000, 43'001}};
        const ClockAnchor a = narrowestAnchor(windows);
        QCOMPARE(a.index, std::size_t(1)); // the first of equal widths
        QCOMPARE(a.hostNs, 21'500);
        QCOMPARE(a.maxErrorNs, 1'501);
        // The bound holds for every moment the window allows.
        for (std::int64_t truth : {20'000LL, 21'500LL, 23'001LL})
            QVERIFY(std::abs(truth - a.hostNs) <= a.maxErrorNs);
    }

    void anchorOfOneWindow()
    {
        const ClockAnchor a = narrowestAnchor({{100, 100}});
        QCOMPARE(a.index, std::size_t(0));
        QCOMPARE(a.hostNs, 100);
        QCOMPARE(a.maxErrorNs, 0);
    }
};

QTEST_GUILESS_MAIN(TestClockCalibration)
#include "tst_clock_calibration.moc"
