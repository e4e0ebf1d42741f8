// Tests of engine/model/limits.h: the trace limits every reader enforces, named in the error, and the
// saturating arithmetic the analysis uses.
#include <QtTest>

#include <limits>

#include "engine/model/errors.h"
#include "engine/model/limits.h"
#include "engine/model/trace.h"
#include "tests/common/trace_builder.h"

using namespace streamscope;
using namespace streamscope::engine;

namespace {

Trace oneOp(std::int64_t start, std::int64_t end)
{
    return streamscope::test::TraceBuilder().stream(StreamInfo{"s0"}).kernel(start, end).named("k").opIndex(-1).build();
}

QString limitError(const Trace &t)
{
    try {
        limits::checkTraceLimits(t, "t.sstrace");
    } catch (const Error &e) {
        if (e.kind() != ErrorKind::InvalidInput)
            return QStringLiteral("wrong kind");
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestLimits : public QObject {
    Q_OBJECT

private slots:
    void tracesWithinTheLimitsPass()
    {
        QCOMPARE(limitError(oneOp(0, 1000)), QString());
        // Nanoseconds since the epoch (Kineto, CUPTI) are in range.
        QCOMPARE(limitError(oneOp(1'770'000'000'000'000'000, 1'770'000'000'000'001'000)), QString());
        QCOMPARE(limitError(oneOp(0, limits::kMaxSpanNs)), QString());
    }

    void limits_data()
    {
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<QString>("expected");
        const qint64 max = std::numeric_limits<qint64>::max();
        QTest::newRow("end at 2^63") << qint64(0) << max << "t.sstrace: repetition 0, op 0 (k): GPU end";
        QTest::newRow("start at -2^63") << qint64(std::numeric_limits<qint64>::min() + 2) << qint64(5) << "GPU start";
        QTest::newRow("span beyond 13 days") << qint64(0) << qint64(limits::kMaxSpanNs + 1) << "the trace would span";
        QTest::newRow("span 2^63 from values in range")
            << qint64(-limits::kMaxTimeNs) << qint64(limits::kMaxTimeNs) << "at most 1125899906842624 ns (13 days)";
        QTest::newRow("end before start") << qint64(10) << qint64(5) << "GPU end is before GPU start";
    }
    void limits()
    {
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        QFETCH(QString, expected);
        const QString error = limitError(oneOp(start, end));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    void countsAreLimited()
    {
        Trace t = oneOp(0, 10);
        t.streams.resize(limits::kMaxStreams + 1);
        QVERIFY2(limitError(t).contains(QStringLiteral("10001 streams, more than StreamScope reads (at most 10000)")),
                 qPrintable(limitError(t)));
        t = oneOp(0, 10);
        t.devices.resize(limits::kMaxDevices + 1);
        QVERIFY(limitError(t).contains(QStringLiteral("65 devices")));
        t = oneOp(0, 10);
        t.repetitions.resize(limits::kMaxRepetitions + 1);
        QVERIFY(limitError(t).contains(QStringLiteral("100001 repetitions")));
    }

    void activitiesAreChecked()
    {
        Trace t = oneOp(0, 10);
        ActivityRecord a;
        a.startNs = 0;
        a.endNs = std::numeric_limits<qint64>::max();
        t.repetitions[0].activities.push_back(a);
        QVERIFY2(limitError(t).contains(QStringLiteral("repetition 0, activity 0: end")), qPrintable(limitError(t)));
    }

    void saturatingArithmetic()
    {
        constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max(),
                               min = std::numeric_limits<std::int64_t>::min();
        QCOMPARE(saturatingAdd(max, std::int64_t(1)), max);
        QCOMPARE(saturatingAdd(min, std::int64_t(-1)), min);
        QCOMPARE(saturatingAdd(std::int64_t(2), std::int64_t(3)), std::int64_t(5));
        QCOMPARE(saturatingSub(max, std::int64_t(-1)), max);
        QCOMPARE(saturatingSub(std::int64_t(-2), max), min);
        QCOMPARE(saturatingSub(max, min), max); // the span of the whole range: was -1
        QCOMPARE(saturatingAdd(std::numeric_limits<std::uint64_t>::max(), std::uint64_t(1)),
                 std::numeric_limits<std::uint64_t>::max());
        // An op's durations saturate too.
        OpRecord op;
        op.gpuStartNs = min + 2;
        op.gpuEndNs = max;
        QCOMPARE(op.gpuDurationNs(), max);
    }

    void describe()
    {
        QCOMPARE(QString::fromStdString(limits::describeBytes(limits::kMaxTraceFileBytes)), QStringLiteral("2 GiB"));
        QCOMPARE(QString::fromStdString(limits::describeBytes(limits::kMaxBufferBytes)), QStringLiteral("1 PiB"));
        QCOMPARE(QString::fromStdString(limits::describeBytes(1000)), QStringLiteral("1000 bytes"));
        QCOMPARE(QString::fromStdString(limits::describeSpan(limits::kMaxSpanNs)), QStringLiteral("13 days"));
        QCOMPARE(QString::fromStdString(limits::describeSpan(limits::kMaxTimeNs)), QStringLiteral("146 years"));
    }
};

QTEST_GUILESS_MAIN(TestLimits)
#include "tst_limits.moc"
