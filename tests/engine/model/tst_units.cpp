// Tests of engine/model/units.h: byte sizes and durations as workload files write them, and the formats
// used in op names and tables.
#include <QtTest>

#include <cmath>
#include <limits>

#include "engine/model/units.h"
#include "engine/util/name_suggestion.h"

using namespace streamscope::engine;

class TestUnits : public QObject {
    Q_OBJECT

private slots:
    void parseByteSizeValid_data();
    void parseByteSizeValid();
    void parseByteSizeInvalid_data();
    void parseByteSizeInvalid();
    void parseDurationValid_data();
    void parseDurationValid();
    void parseDurationInvalid_data();
    void parseDurationInvalid();
    void formatBytes_data();
    void formatBytes();
    void formatDuration_data();
    void formatDuration();
    void formatSignedDuration();
    void formatRate_data();
    void formatRate();
    void formatPercent_data();
    void formatPercent();
    void formatBytesRoundTrips();
    void editDistance_data();
    void editDistance();
    void nearestName();
};

void TestUnits::parseByteSizeValid_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<quint64>("bytes");
    QTest::newRow("bare integer") << "4096" << quint64(4096);
    QTest::newRow("zero") << "0" << quint64(0);
    QTest::newRow("bytes suffix") << "512 B" << quint64(512);
    QTest::newRow("bytes word") << "3 bytes" << quint64(3);
    QTest::newRow("KiB with space") << "4 KiB" << quint64(4096);
    QTest::newRow("MiB without space") << "256MiB" << quint64(256ull << 20);
    QTest::newRow("GiB fraction") << "1.5 GiB" << quint64(1536ull << 20);
    QTest::newRow("TiB") << "2 TiB" << quint64(2ull << 40);
    QTest::newRow("decimal MB") << "16 MB" << quint64(16'000'000);
    QTest::newRow("decimal kB") << "64 kB" << quint64(64'000);
    QTest::newRow("decimal GB fraction") << "1.25 GB" << quint64(1'250'000'000);
    QTest::newRow("GNU k is binary") << "64k" << quint64(65536);
    QTest::newRow("GNU M is binary") << "2M" << quint64(2ull << 20);
    QTest::newRow("lower case unit") << "16 mib" << quint64(16ull << 20);
    QTest::newRow("surrounding spaces") << "  8 KiB  " << quint64(8192);
    QTest::newRow("half KiB") << "0.5 KiB" << quint64(512);
    QTest::newRow("leading point") << ".5 KiB" << quint64(512);
    QTest::newRow("max uint64") << "18446744073709551615" << quint64(std::numeric_limits<quint64>::max());
}

void TestUnits::parseByteSizeValid()
{
    QFETCH(QString, text);
    QFETCH(quint64, bytes);
    const auto parsed = parseByteSize(text.toStdString());
    QVERIFY2(parsed.has_value(), qPrintable(text));
    QCOMPARE(quint64(*parsed), bytes);
}

void TestUnits::parseByteSizeInvalid_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("empty") << "";
    QTest::newRow("spaces") << "   ";
    QTest::newRow("unit only") << "MiB";
    QTest::newRow("negative") << "-5";
    QTest::newRow("negative with unit") << "-4 KiB";
    QTest::newRow("plus sign") << "+4";
    QTest::newRow("unknown unit") << "12 parsecs";
    QTest::newRow("not whole bytes") << "1.3 KiB";
    QTest::newRow("fraction of a byte") << "1.5";
    QTest::newRow("exponent") << "1e6";
    QTest::newRow("two numbers") << "4 4 KiB";
    QTest::newRow("overflow") << "18446744073709551616";
    QTest::newRow("overflow with unit") << "16 EiB";
    QTest::newRow("unit overflow") << "17000000 TiB";
    QTest::newRow("lone point") << ". KiB";
    QTest::newRow("hex") << "0x100";
}

void TestUnits::parseByteSizeInvalid()
{
    QFETCH(QString, text);
    const auto parsed = parseByteSize(text.toStdString());
    QVERIFY2(!parsed.has_value(), qPrintable(QStringLiteral("accepted '%1' as %2").arg(text).arg(parsed.value_or(0))));
}

void TestUnits::parseDurationValid_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("ns");
    QTest::newRow("bare number is ns") << "1500" << qint64(1500);
    QTest::newRow("ns") << "12 ns" << qint64(12);
    QTest::newRow("us") << "250us" << qint64(250'000);
    QTest::newRow("micro sign") << QString::fromUtf8("10 \u00b5s") << qint64(10'000);
    QTest::newRow("greek mu") << QString::fromUtf8("10 \u03bcs") << qint64(10'000);
    QTest::newRow("ms") << "1 ms" << qint64(1'000'000);
    QTest::newRow("fractional ms") << "1.5 ms" << qint64(1'500'000);
    QTest::newRow("s") << "2.5 s" << qint64(2'500'000'000);
    QTest::newRow("tiny fraction of ms") << "0.0015 ms" << qint64(1500);
    QTest::newRow("zero") << "0 us" << qint64(0);
}

void TestUnits::parseDurationValid()
{
    QFETCH(QString, text);
    QFETCH(qint64, ns);
    const auto parsed = parseDuration(text.toStdString());
    QVERIFY2(parsed.has_value(), qPrintable(text));
    QCOMPARE(qint64(*parsed), ns);
}

void TestUnits::parseDurationInvalid_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("empty") << "";
    QTest::newRow("negative") << "-1 ms";
    QTest::newRow("unknown unit") << "1 parsec";
    QTest::newRow("minutes") << "1 min";
    QTest::newRow("upper case MS") << "1 MS";
    QTest::newRow("fraction of a ns") << "1.5 ns";
    QTest::newRow("fraction of a ns via us") << "0.0001 us";
    QTest::newRow("overflow") << "10000000000 s";
    QTest::newRow("unit only") << "ms";
}

void TestUnits::parseDurationInvalid()
{
    QFETCH(QString, text);
    const auto parsed = parseDuration(text.toStdString());
    QVERIFY2(!parsed.has_value(), qPrintable(QStringLiteral("accepted '%1' as %2").arg(text).arg(parsed.value_or(0))));
}

void TestUnits::formatBytes_data()
{
    QTest::addColumn<quint64>("bytes");
    QTest::addColumn<QString>("text");
    QTest::newRow("0") << quint64(0) << "0 B";
    QTest::newRow("512") << quint64(512) << "512 B";
    QTest::newRow("1023") << quint64(1023) << "1023 B";
    QTest::newRow("4 KiB") << quint64(4096) << "4 KiB";
    QTest::newRow("1.5 KiB") << quint64(1536) << "1.5 KiB";
    QTest::newRow("16 MiB") << quint64(16ull << 20) << "16 MiB";
    QTest::newRow("256 MiB") << quint64(256ull << 20) << "256 MiB";
    QTest::newRow("1.5 GiB") << quint64(1536ull << 20) << "1.5 GiB";
    QTest::newRow("decimal 16 MB") << quint64(16'000'000) << "15.3 MiB";
    QTest::newRow("three digits") << quint64(123'456'789) << "118 MiB";
    QTest::newRow("just under 1 MiB") << quint64((1ull << 20) - 1) << "1 MiB";
    QTest::newRow("max") << quint64(std::numeric_limits<quint64>::max()) << "16 EiB";
}

void TestUnits::formatBytes()
{
    QFETCH(quint64, bytes);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(streamscope::engine::formatBytes(bytes)), text);
}

void TestUnits::formatDuration_data()
{
    QTest::addColumn<qint64>("ns");
    QTest::addColumn<QString>("text");
    QTest::newRow("12 ns") << qint64(12) << "12 ns";
    QTest::newRow("0 ns") << qint64(0) << "0 ns";
    QTest::newRow("999 ns") << qint64(999) << "999 ns";
    QTest::newRow("1 us") << qint64(1000) << QString::fromUtf8("1 \u00b5s");
    QTest::newRow("447 us") << qint64(447'000) << QString::fromUtf8("447 \u00b5s");
    QTest::newRow("60.5 us") << qint64(60'500) << QString::fromUtf8("60.5 \u00b5s");
    QTest::newRow("1.23 ms") << qint64(1'234'567) << "1.23 ms";
    QTest::newRow("1 ms") << qint64(1'000'000) << "1 ms";
    QTest::newRow("just under 1 ms") << qint64(999'999) << "1 ms";
    QTest::newRow("2.5 s") << qint64(2'500'000'000) << "2.5 s";
    QTest::newRow("negative") << qint64(-1'500'000) << "-1.5 ms";
}

void TestUnits::formatDuration()
{
    QFETCH(qint64, ns);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(streamscope::engine::formatDuration(ns)), text);
}

void TestUnits::formatSignedDuration()
{
    using streamscope::engine::formatSignedDuration;
    QCOMPARE(QString::fromStdString(formatSignedDuration(12'300)), QStringLiteral("+12.3 µs"));
    QCOMPARE(QString::fromStdString(formatSignedDuration(-134'700)), QStringLiteral("-135 µs"));
    QCOMPARE(QString::fromStdString(formatSignedDuration(0.4)), QStringLiteral("+0 ns"));
    QCOMPARE(QString::fromStdString(formatSignedDuration(-0.6)), QStringLiteral("-1 ns"));
    QCOMPARE(QString::fromStdString(formatSignedDuration(-1.5e9)), QStringLiteral("-1.5 s"));
    QCOMPARE(QString::fromStdString(formatSignedDuration(1e30)).left(1), QStringLiteral("+")); // clamped, no overflow
    QCOMPARE(QString::fromStdString(formatSignedDuration(std::nan(""))), QStringLiteral("-"));
    QCOMPARE(QString::fromStdString(formatMicroseconds(-134'700, 2, true)), QStringLiteral("-134.70 µs"));
    QCOMPARE(QString::fromStdString(formatMicroseconds(3'870, 2, true)), QStringLiteral("+3.87 µs"));
    QCOMPARE(QString::fromStdString(formatMicroseconds(0, 2, true)), QStringLiteral("+0.00 µs"));
    QCOMPARE(QString::fromStdString(formatMicroseconds(1'500, 1)), QStringLiteral("1.5 µs"));
}

void TestUnits::formatRate_data()
{
    QTest::addColumn<double>("gbs");
    QTest::addColumn<QString>("text");
    QTest::newRow("12.3") << 12.34 << "12.3 GB/s";
    QTest::newRow("0.52") << 0.5201 << "0.52 GB/s";
    QTest::newRow("245") << 245.4 << "245 GB/s";
    QTest::newRow("25") << 25.0 << "25 GB/s";
    QTest::newRow("zero") << 0.0 << "0 GB/s";
}

void TestUnits::formatRate()
{
    QFETCH(double, gbs);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(streamscope::engine::formatRate(gbs)), text);
}

void TestUnits::formatPercent_data()
{
    QTest::addColumn<double>("fraction");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << 0.0 << QStringLiteral("0.0 %");
    QTest::newRow("half") << 0.5 << QStringLiteral("50.0 %");
    QTest::newRow("one decimal") << 0.4256 << QStringLiteral("42.6 %");
    QTest::newRow("whole") << 1.0 << QStringLiteral("100.0 %");
    QTest::newRow("over") << 1.25 << QStringLiteral("125.0 %");
    QTest::newRow("negative") << -0.031 << QStringLiteral("-3.1 %");
    QTest::newRow("not a number") << std::numeric_limits<double>::quiet_NaN() << QStringLiteral("- %");
}

void TestUnits::formatPercent()
{
    QFETCH(double, fraction);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(streamscope::engine::formatPercent(fraction)), text);
}

// Exact power-of-two sizes are what presets use: what formatBytes writes must parse back exactly.
void TestUnits::formatBytesRoundTrips()
{
    for (int shift = 0; shift < 50; ++shift)
        for (const quint64 factor : {1ull, 3ull, 5ull}) {
            const quint64 bytes = factor << shift;
            const std::string text = streamscope::engine::formatBytes(bytes);
            const auto back = parseByteSize(text);
            QVERIFY2(back.has_value(), text.c_str());
            QCOMPARE(quint64(*back), bytes);
        }
}

void TestUnits::editDistance_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<int>("distance");
    QTest::newRow("same") << "bytes"
                          << "bytes" << 0;
    QTest::newRow("deletion") << "strems"
                              << "streams" << 1;
    QTest::newRow("substitution") << "kernal"
                                  << "kernel" << 1;
    QTest::newRow("swap") << "kenrel"
                          << "kernel" << 1;
    QTest::newRow("empty") << ""
                           << "abc" << 3;
    QTest::newRow("unrelated") << "copy"
                               << "sync" << 4;
}

void TestUnits::editDistance()
{
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(int, distance);
    QCOMPARE(int(streamscope::engine::editDistance(a.toStdString(), b.toStdString())), distance);
}

void TestUnits::nearestName()
{
    const std::vector<std::string> keys = {"version", "name", "streams", "buffers", "bytes"};
    QCOMPARE(streamscope::engine::nearestName("strems", keys).value_or(""), std::string("streams"));
    QCOMPARE(streamscope::engine::nearestName("Bytes", keys).value_or(""), std::string("bytes"));
    QCOMPARE(streamscope::engine::nearestName("byte", keys).value_or(""), std::string("bytes"));
    QVERIFY(!streamscope::engine::nearestName("bytes", keys).has_value()); // exact: nothing to suggest
    QVERIFY(!streamscope::engine::nearestName("pipeline", keys).has_value());
    QVERIFY(!streamscope::engine::nearestName("x", {}).has_value());
}

QTEST_APPLESS_MAIN(TestUnits)
#include "tst_units.moc"
