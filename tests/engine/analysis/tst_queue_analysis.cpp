// explainQueued: what a queued op waited for, on a hand-made CUPTI-timed repetition whose every cause
// was worked out by hand, and nothing where the trace cannot tell (events) or there was no wait.
#include <QtTest>

#include "engine/analysis/queue_analysis.h"
#include "tests/common/trace_builder.h"

using namespace streamscope;
using engine::OpKind;
using engine::QueueCause;

namespace {

//  0 A: H2D  s0  ready 0   exec [0, 100)      channel 5
//  1 B: H2D  s1  ready 0   exec [100, 200)    channel 5   -> waited for A's copy engine
//  2 C: D2H  s2  ready 0   exec [100, 150)    channel 6   -> waited for D (same direction, another engine)
//  3 D: D2H  s3  ready 0   exec [0, 100)      channel 7
//  4 E: kern s4  ready 0   exec [0, 1000)
//  5 F: kern s5  ready 0   exec [1003, 2003)  -> started 3 us after E ended, s5 idle: shares E's hardware queue
//  6 G: kern s6  ready 500 exec [700, 710)    -> E busy, nothing handed over: GPU busy
//  7 H: kern s6  ready 710 exec [711, 720)    -> 1 us: launch latency, not queued
//  8 I: kern s6  ready 3000 exec [3008, 3100) -> 8 us with nothing running: latency
engine::Trace queuedTrace()
{
    test::TraceBuilder b;
    b.title("queued").timing(engine::TimingSource::Cupti);
    for (int s = 0; s < 7; ++s)
        b.stream("s" + std::to_string(s));
    b.thread("main", 1);
    // Times in microseconds. Every op is ready (stream-ready and host call end) at `readyUs`.
    auto op = [&](const char *name, OpKind kind, int stream, std::int64_t readyUs, std::int64_t startUs,
                  std::int64_t endUs, std::int16_t channel) {
        const bool copy = engine::isCopy(kind);
        b.onStream(stream)
            .op(kind, startUs * 1000, endUs * 1000, copy ? 1'000'000 : 0)
            .named(name)
            .host((readyUs - 2) * 1000, readyUs * 1000)
            .events(readyUs * 1000, endUs * 1000)
            .channel(channel, copy ? engine::ChannelType::AsyncCopy : engine::ChannelType::Compute);
    };
    op("A", OpKind::CopyH2D, 0, 0, 0, 100, 5);
    op("B", OpKind::CopyH2D, 1, 0, 100, 200, 5);
    op("C", OpKind::CopyD2H, 2, 0, 100, 150, 6);
    op("D", OpKind::CopyD2H, 3, 0, 0, 100, 7);
    op("E", OpKind::Kernel, 4, 0, 0, 1000, 1);
    op("F", OpKind::Kernel, 5, 0, 1003, 2003, 2);
    op("G", OpKind::Kernel, 6, 500, 700, 710, 3);
    op("H", OpKind::Kernel, 6, 710, 711, 720, 3);
    op("I", OpKind::Kernel, 6, 3000, 3008, 3100, 3);
    return b.build();
}

} // namespace

class TestQueueAnalysis : public QObject {
    Q_OBJECT
private slots:
    void causes_data()
    {
        QTest::addColumn<int>("op");
        QTest::addColumn<int>("cause");
        QTest::addColumn<int>("blocker");
        QTest::addColumn<qint64>("queuedNs");
        QTest::addColumn<QString>("says");
        QTest::newRow("first copy: no wait") << 0 << int(QueueCause::None) << -1 << qint64(0) << "";
        QTest::newRow("same copy engine") << 1 << int(QueueCause::CopyEngine) << 0 << qint64(100'000)
                                          << "its copy channel (5) was busy with 'A' on stream 's0'";
        QTest::newRow("same direction") << 2 << int(QueueCause::CopyEngine) << 3 << qint64(100'000)
                                        << "the host link's d2h direction was busy with 'D' on stream 's3'";
        QTest::newRow("shared hardware queue")
            << 5 << int(QueueCause::HardwareQueue) << 4 << qint64(1'003'000) << "behind 'E' on stream 's4'";
        QTest::newRow("GPU busy") << 6 << int(QueueCause::GpuBusy) << -1 << qint64(200'000)
                                  << "the GPU was busy with other work";
        QTest::newRow("launch latency") << 7 << int(QueueCause::None) << -1 << qint64(1'000) << "";
        QTest::newRow("short wait, nothing else")
            << 8 << int(QueueCause::Latency) << -1 << qint64(8'000) << "nothing else held it";
    }

    void causes()
    {
        QFETCH(int, op);
        QFETCH(int, cause);
        QFETCH(int, blocker);
        QFETCH(qint64, queuedNs);
        QFETCH(QString, says);
        const engine::Trace t = queuedTrace();
        const engine::QueueExplanation e = engine::explainQueued(t, 0, op);
        QCOMPARE(int(e.cause), cause);
        QCOMPARE(e.queuedNs, queuedNs);
        if (cause != int(QueueCause::None))
            QCOMPARE(e.blockerOp, blocker);
        QVERIFY2(QString::fromStdString(e.text).contains(says), e.text.c_str());
        if (cause == int(QueueCause::HardwareQueue))
            QVERIFY(QString::fromStdString(e.text).contains("false serialisation"));
    }

    // With events the waiting is inside the bar: there is nothing to explain, whatever the numbers.
    void eventsExplainNothing()
    {
        engine::Trace t = queuedTrace();
        t.timing = engine::TimingSource::Events;
        for (int i = 0; i < int(t.repetitions[0].ops.size()); ++i)
            QCOMPARE(int(engine::explainQueued(t, 0, i).cause), int(QueueCause::None));
    }

    void outOfRange()
    {
        const engine::Trace t = queuedTrace();
        QCOMPARE(int(engine::explainQueued(t, 1, 0).cause), int(QueueCause::None));
        QCOMPARE(int(engine::explainQueued(t, 0, 99).cause), int(QueueCause::None));
        QCOMPARE(int(engine::explainQueued(t, -1, -1).cause), int(QueueCause::None));
    }
};

QTEST_GUILESS_MAIN(TestQueueAnalysis)
#include "tst_queue_analysis.moc"
