// Tests of the runner's clock arithmetic: spin cycles for a target duration, the clock rate from two
// timed spins, the choice of the host-clock anchor among several windows, and its alignment to CUPTI's
// records by causality.
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

    // Events whose anchor put them 3 us late (true shift -3000) with a +-4.5 us anchor: two ops whose
    // CUPTI execution starts 700 ns after their ready event and ends 900 ns before their end event, as
    // the GPU host shows them, pin the shift to [-3900, -2300]: the error falls from 4.5 us to 800 ns and
    // the true shift is inside it.
    void causalityNarrowsTheAnchor()
    {
        const std::int64_t late = 3'000; // what the anchor added to every event time
        std::vector<CausalSample> samples;
        for (std::int64_t start : {10'000LL, 50'000LL}) {
            CausalSample s;
            s.gpuStartNs = start;
            s.gpuEndNs = start + 20'000;
            s.readyNs = start - 700 + late;
            s.eventEndNs = s.gpuEndNs + 900 + late;
            samples.push_back(s);
        }
        samples[1].readyNs -= 500; // a looser bound on one side changes nothing: the tightest wins
        const EventAlignment a = alignEventsByCausality(samples, 4'500);
        QVERIFY(a.applied);
        QCOMPARE(a.shiftNs, -3'100); // middle of [-3900, -2300]
        QCOMPARE(a.maxErrorNs, 800);
        QVERIFY(std::abs(-late - a.shiftNs) <= a.maxErrorNs);
        // Shifted, every sample is causal again.
        for (const CausalSample &s : samples) {
            QVERIFY(s.readyNs + a.shiftNs <= s.gpuStartNs);
            QVERIFY(s.eventEndNs + a.shiftNs >= s.gpuEndNs);
        }
    }

    void causalityWithoutSamplesKeepsTheAnchor()
    {
        const EventAlignment a = alignEventsByCausality({}, 4'200);
        QVERIFY(!a.applied);
        QCOMPARE(a.shiftNs, 0);
        QCOMPARE(a.maxErrorNs, 4'200);
    }

    // Bounds outside the anchor's window (the anchor was wrong by more than it claimed): causality alone,
    // which is the truth the records give; bounds that contradict each other: nothing is moved.
    void causalityOutsideTheAnchorOrContradictory()
    {
        CausalSample s{.readyNs = 0, .gpuStartNs = 10'000, .gpuEndNs = 20'000, .eventEndNs = 11'000};
        // shift in [9000, 10000]: far outside +-4 us
        const EventAlignment outside = alignEventsByCausality({s}, 4'000);
        QVERIFY(outside.applied);
        QCOMPARE(outside.shiftNs, 9'500);
        QCOMPARE(outside.maxErrorNs, 500);
        CausalSample t{.readyNs = 0, .gpuStartNs = 1'000, .gpuEndNs = 30'000, .eventEndNs = 20'000};
        // shift <= 1000 and >= 10000: impossible
        const EventAlignment contradictory = alignEventsByCausality({t}, 4'000);
        QVERIFY(!contradictory.applied);
        QCOMPARE(contradictory.maxErrorNs, 4'000);
    }
};

QTEST_GUILESS_MAIN(TestClockCalibration)
#include "tst_clock_calibration.moc"
