// Tests of engine/analysis/verdict.h: the noise rule (overlapping or touching min..max ranges are
// noise, disjoint ranges are faster or slower), the Unknown cases, the ratio and delta, and the texts
// the comparison table and the diff print.
#include <QtTest>

#include <limits>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/analysis/verdict.h"

using namespace streamscope::engine;

namespace {

Spread spread(double median, double min, double max, int count = 5)
{
    return Spread{median, min, max, count};
}

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

} // namespace

class TestVerdict : public QObject {
    Q_OBJECT

private slots:
    void compare_data()
    {
        QTest::addColumn<double>("bMedian");
        QTest::addColumn<double>("bMin");
        QTest::addColumn<double>("bMax");
        QTest::addColumn<int>("bCount");
        QTest::addColumn<double>("cMedian");
        QTest::addColumn<double>("cMin");
        QTest::addColumn<double>("cMax");
        QTest::addColumn<int>("cCount");
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("ratio");
        QTest::addColumn<double>("delta");
        const int F = int(VerdictKind::Faster), S = int(VerdictKind::Slower), N = int(VerdictKind::Noise),
                  U = int(VerdictKind::Unknown);
        // baseline 90..110 around 100
        QTest::newRow("half the time") << 100.0 << 90.0 << 110.0 << 5 << 50.0 << 45.0 << 55.0 << 5 << F << 2.0 << -50.0;
        QTest::newRow("twice the time") << 100.0 << 90.0 << 110.0 << 5 << 200.0 << 180.0 << 220.0 << 5 << S << 0.5
                                        << 100.0;
        QTest::newRow("identical") << 100.0 << 90.0 << 110.0 << 5 << 100.0 << 90.0 << 110.0 << 5 << N << 1.0 << 0.0;
        QTest::newRow("overlap below") << 100.0 << 90.0 << 110.0 << 5 << 80.0 << 70.0 << 95.0 << 5 << N << 1.25
                                       << -20.0;
        QTest::newRow("overlap above") << 100.0 << 90.0 << 110.0 << 5 << 125.0 << 105.0 << 130.0 << 5 << N << 0.8
                                       << 25.0;
        QTest::newRow("touching below is noise")
            << 100.0 << 90.0 << 110.0 << 5 << 80.0 << 70.0 << 90.0 << 5 << N << 1.25 << -20.0;
        QTest::newRow("touching above is noise")
            << 100.0 << 90.0 << 110.0 << 5 << 125.0 << 110.0 << 130.0 << 5 << N << 0.8 << 25.0;
        QTest::newRow("just below") << 100.0 << 90.0 << 110.0 << 5 << 80.0 << 70.0 << 89.5 << 5 << F << 1.25 << -20.0;
        QTest::newRow("just above") << 100.0 << 90.0 << 110.0 << 5 << 125.0 << 110.5 << 130.0 << 5 << S << 0.8 << 25.0;
        QTest::newRow("candidate inside baseline")
            << 100.0 << 50.0 << 150.0 << 5 << 60.0 << 55.0 << 65.0 << 5 << N << 100.0 / 60.0 << -40.0;
        QTest::newRow("baseline inside candidate")
            << 100.0 << 95.0 << 105.0 << 5 << 400.0 << 10.0 << 1000.0 << 5 << N << 0.25 << 300.0;
        // Far apart medians with a wide range still overlap: noise, whatever the ratio.
        QTest::newRow("big ratio but overlapping")
            << 100.0 << 9.0 << 110.0 << 5 << 10.0 << 5.0 << 9.0 << 5 << N << 10.0 << -90.0;
        // One repetition each: no spread, so every difference is called.
        QTest::newRow("one sample each, equal")
            << 100.0 << 100.0 << 100.0 << 1 << 100.0 << 100.0 << 100.0 << 1 << N << 1.0 << 0.0;
        QTest::newRow("one sample each, faster")
            << 100.0 << 100.0 << 100.0 << 1 << 99.0 << 99.0 << 99.0 << 1 << F << 100.0 / 99.0 << -1.0;
        QTest::newRow("one sample each, slower")
            << 100.0 << 100.0 << 100.0 << 1 << 101.0 << 101.0 << 101.0 << 1 << S << 100.0 / 101.0 << 1.0;
        // Unknown: no samples, or a median that gives no ratio. The delta is still the medians' difference
        // when both sides have samples.
        QTest::newRow("no baseline samples") << 0.0 << 0.0 << 0.0 << 0 << 50.0 << 45.0 << 55.0 << 5 << U << 0.0 << 0.0;
        QTest::newRow("no candidate samples")
            << 100.0 << 90.0 << 110.0 << 5 << 0.0 << 0.0 << 0.0 << 0 << U << 0.0 << 0.0;
        QTest::newRow("neither has samples") << 0.0 << 0.0 << 0.0 << 0 << 0.0 << 0.0 << 0.0 << 0 << U << 0.0 << 0.0;
        QTest::newRow("zero baseline median")
            << 0.0 << 0.0 << 0.0 << 3 << 50.0 << 45.0 << 55.0 << 3 << U << 0.0 << 50.0;
        QTest::newRow("zero candidate median")
            << 100.0 << 90.0 << 110.0 << 3 << 0.0 << 0.0 << 0.0 << 3 << U << 0.0 << -100.0;
        QTest::newRow("negative candidate median")
            << 100.0 << 90.0 << 110.0 << 3 << -5.0 << -6.0 << -4.0 << 3 << U << 0.0 << -105.0;
        QTest::newRow("negative baseline median")
            << -10.0 << -20.0 << -5.0 << 3 << 50.0 << 45.0 << 55.0 << 3 << U << 0.0 << 60.0;
    }
    void compare()
    {
        QFETCH(double, bMedian);
        QFETCH(double, bMin);
        QFETCH(double, bMax);
        QFETCH(int, bCount);
        QFETCH(double, cMedian);
        QFETCH(double, cMin);
        QFETCH(double, cMax);
        QFETCH(int, cCount);
        QFETCH(int, kind);
        QFETCH(double, ratio);
        QFETCH(double, delta);
        const Verdict v = compareSpreads(spread(bMedian, bMin, bMax, bCount), spread(cMedian, cMin, cMax, cCount));
        QCOMPARE(qs(toString(v.kind)), qs(toString(VerdictKind(kind))));
        QCOMPARE(v.ratio, ratio);
        QCOMPARE(v.deltaNs, delta);
    }

    // Swapping the sides swaps faster and slower and inverts the ratio; noise stays noise.
    void symmetry_data()
    {
        QTest::addColumn<double>("aMin");
        QTest::addColumn<double>("aMax");
        QTest::addColumn<double>("bMin");
        QTest::addColumn<double>("bMax");
        QTest::newRow("disjoint") << 10.0 << 20.0 << 30.0 << 40.0;
        QTest::newRow("touching") << 10.0 << 30.0 << 30.0 << 40.0;
        QTest::newRow("overlapping") << 10.0 << 35.0 << 30.0 << 40.0;
        QTest::newRow("nested") << 10.0 << 50.0 << 30.0 << 40.0;
    }
    void symmetry()
    {
        QFETCH(double, aMin);
        QFETCH(double, aMax);
        QFETCH(double, bMin);
        QFETCH(double, bMax);
        const Spread a = spread((aMin + aMax) / 2, aMin, aMax);
        const Spread b = spread((bMin + bMax) / 2, bMin, bMax);
        const Verdict ab = compareSpreads(a, b);
        const Verdict ba = compareSpreads(b, a);
        const bool disjoint = aMax < bMin || bMax < aMin;
        if (disjoint) {
            QCOMPARE(qs(toString(ab.kind)), QStringLiteral("slower"));
            QCOMPARE(qs(toString(ba.kind)), QStringLiteral("faster"));
        } else {
            QCOMPARE(qs(toString(ab.kind)), QStringLiteral("noise"));
            QCOMPARE(qs(toString(ba.kind)), QStringLiteral("noise"));
        }
        QVERIFY(qFuzzyCompare(ab.ratio * ba.ratio, 1.0));
        QCOMPARE(ab.deltaNs, -ba.deltaNs);
    }

    // The rule looks at the ranges, not at the medians: a candidate whose median is lower but whose
    // range reaches into the baseline's is noise, however many samples there are.
    void spreadsFromSamples()
    {
        const Spread base = spreadOf({100, 101, 102, 103, 140});
        const Spread close = spreadOf({90, 91, 92, 93, 100});
        const Spread clear = spreadOf({49, 50, 51, 52, 99});
        QCOMPARE(base.median, 102.0);
        QCOMPARE(qs(toString(compareSpreads(base, close).kind)), QStringLiteral("noise"));
        QCOMPARE(qs(toString(compareSpreads(base, clear).kind)), QStringLiteral("faster"));
        QCOMPARE(compareSpreads(base, clear).ratio, 2.0);
        QCOMPARE(qs(toString(compareSpreads(clear, base).kind)), QStringLiteral("slower"));
        QCOMPARE(qs(toString(compareSpreads(base, spreadOf({})).kind)), QStringLiteral("unknown"));
        // A spread compared with itself is always noise with ratio 1 (the table's first row).
        QCOMPARE(qs(toString(compareSpreads(base, base).kind)), QStringLiteral("noise"));
        QCOMPARE(compareSpreads(base, base).ratio, 1.0);
        QCOMPARE(compareSpreads(base, base).deltaNs, 0.0);
    }

    void defaultVerdictIsUnknown()
    {
        const Verdict v;
        QCOMPARE(qs(toString(v.kind)), QStringLiteral("unknown"));
        QCOMPARE(QString::fromStdString(describe(v)), QStringLiteral("-"));
        QCOMPARE(qs(toString(compareSpreads(Spread{}, Spread{}).kind)), QStringLiteral("unknown"));
    }

    void kindNames_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("name");
        QTest::newRow("faster") << int(VerdictKind::Faster) << "faster";
        QTest::newRow("slower") << int(VerdictKind::Slower) << "slower";
        QTest::newRow("noise") << int(VerdictKind::Noise) << "noise";
        QTest::newRow("unknown") << int(VerdictKind::Unknown) << "unknown";
    }
    void kindNames()
    {
        QFETCH(int, kind);
        QFETCH(QString, name);
        QCOMPARE(qs(toString(VerdictKind(kind))), name);
    }

    void describeText_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("ratio");
        QTest::addColumn<QString>("text");
        QTest::newRow("faster") << int(VerdictKind::Faster) << 1.85 << "1.85x faster";
        QTest::newRow("twice as fast") << int(VerdictKind::Faster) << 2.0 << "2.00x faster";
        QTest::newRow("much faster") << int(VerdictKind::Faster) << 123.456 << "123.46x faster";
        // Slower is written as how many times longer: the inverse of the ratio.
        QTest::newRow("slower") << int(VerdictKind::Slower) << 1.0 / 1.2 << "1.20x slower";
        QTest::newRow("twice as slow") << int(VerdictKind::Slower) << 0.5 << "2.00x slower";
        QTest::newRow("noise") << int(VerdictKind::Noise) << 1.02 << "noise (1.02x)";
        QTest::newRow("noise below one") << int(VerdictKind::Noise) << 0.95 << "noise (0.95x)";
        QTest::newRow("unknown") << int(VerdictKind::Unknown) << 3.0 << "-";
    }
    void describeText()
    {
        QFETCH(int, kind);
        QFETCH(double, ratio);
        QFETCH(QString, text);
        Verdict v;
        v.kind = VerdictKind(kind);
        v.ratio = ratio;
        QCOMPARE(QString::fromStdString(describe(v)), text);
    }

    // What the table prints for real comparisons, end to end.
    void describeComparedSpreads()
    {
        const Spread base = spread(1850, 1800, 1900);
        QCOMPARE(QString::fromStdString(describe(compareSpreads(base, spread(1000, 950, 1050)))),
                 QStringLiteral("1.85x faster"));
        QCOMPARE(QString::fromStdString(describe(compareSpreads(spread(1000, 950, 1050), spread(1200, 1150, 1250)))),
                 QStringLiteral("1.20x slower"));
        QCOMPARE(QString::fromStdString(describe(compareSpreads(spread(1020, 900, 1100), spread(1000, 950, 1050)))),
                 QStringLiteral("noise (1.02x)"));
        QCOMPARE(QString::fromStdString(describe(compareSpreads(base, Spread{}))), QStringLiteral("-"));
    }
};

QTEST_APPLESS_MAIN(TestVerdict)
#include "tst_verdict.moc"
