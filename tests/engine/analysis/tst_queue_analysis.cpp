// explainQueued: what a queued op waited for, on a hand-made CUPTI-timed repetition whose every cause
// was worked out by hand, and nothing where the trace cannot tell (events) or there was no wait.
#include <QtTest>

#include "engine/analysis/queue_analysis.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope;
using engine::OpKind;
using engine::QueueCause;

namespace {

// Times in microseconds. Every op is ready (stream-ready and host call end) at `readyUs`.
engine::OpRecord op(engine::Trace &t, const char *name, OpKind kind, int stream, std::int64_t readyUs,
                    std::int64_t startUs, std::int64_t endUs, int channel)
{
    engine::OpRecord o = test::makeOp(t, name, kind, stream, startUs, endUs, readyUs - 2, readyUs);
    o.readyNs = readyUs * 1000;
    o.eventEndNs = o.gpuEndNs;
    o.channel = channel;
    o.channelType = engine::isCopy(kind) ? engine::ChannelType::AsyncCopy : engine::ChannelType::Compute;
    o.bytes = engine::isCopy(kind) ? 1'000'000 : 0;
    return o;
}

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
    engine::Trace t;
    t.title = "queued";
    t.timing = engine::TimingSource::Cupti;
    for (int s = 0; s < 7; ++s)
        t.streams.push_back({"s" + std::to_string(s), 0, s + 1, 0, true, false});
    t.hostThreads = {{"main", 1}};
    engine::Repetition rep;
    rep.ops = {op(t, "A", OpKind::CopyH2D, 0, 0, 0, 100, 5),      op(t, "B", OpKind::CopyH2D, 1, 0, 100, 200, 5),
               op(t, "C", OpKind::CopyD2H, 2, 0, 100, 150, 6),    op(t, "D", OpKind::CopyD2H, 3, 0, 0, 100, 7),
               op(t, "E", OpKind::Kernel, 4, 0, 0, 1000, 1),      op(t, "F", OpKind::Kernel, 5, 0, 1003, 2003, 2),
               op(t, "G", OpKind::Kernel, 6, 500, 700, 710, 3),   op(t, "H", OpKind::Kernel, 6, 710, 711, 720, 3),
               op(t, "I", OpKind::Kernel, 6, 3000, 3008, 3100, 3)};
    for (int i = 0; i < int(rep.ops.size()); ++i)
        rep.ops[std::size_t(i)].opIndex = i;
    t.repetitions.push_back(rep);
    return t;
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
