// Tests of the repetition clock without a GPU: each device's anchor maps its event times onto the host
// axis, an unknown device maps through the primary's, each device's error over the measured repetitions
// (none where CUPTI timed every event, the causality bound where its records narrow the anchor, the anchor
// otherwise), the repetitions' spans and the first anchor, and the metadata the clock writes.
#include <QtTest>

#include <map>
#include <string>
#include <vector>

#include "engine/run/repetition_clock.h"

using namespace streamscope::engine;

namespace {

// Two ops, one per device, timed by CUPTI: op 0 on device 0 whose events bound the shift to [-300, +100]
// (ready 1000 + shift <= start 1100, end 2000 <= event end 2300 + shift); op 1 on device 1, the same.
std::vector<PlannedOp> twoOps()
{
    std::vector<PlannedOp> ops(2);
    for (std::size_t i = 0; i < 2; ++i) {
        ops[i].device = int(i);
        ops[i].kind = OpKind::Kernel;
    }
    return ops;
}

Repetition timed()
{
    Repetition rep;
    rep.ops.resize(2);
    for (OpRecord &r : rep.ops) {
        r.kind = OpKind::Kernel;
        r.readyNs = 1000;
        r.gpuStartNs = 1100;
        r.gpuEndNs = 2000;
        r.eventEndNs = 2300;
    }
    return rep;
}

} // namespace

class TestRepetitionClock : public QObject {
    Q_OBJECT

private slots:
    void mapsEachDevice()
    {
        RepetitionClock clock({1, 0});
        clock.setAnchor(1, {2, 1'000'000, 2'000});
        clock.setAnchor(0, {4, 5'000'000, 3'000});
        QCOMPARE(clock.baseIndex(1), std::size_t(2));
        QCOMPARE(clock.baseIndex(0), std::size_t(4));
        QCOMPARE(clock.hostNs(1, 0.5f), std::int64_t(1'500'000));
        QCOMPARE(clock.hostNs(0, 0.5f), std::int64_t(5'500'000));
        QCOMPARE(clock.hostNs(0, -0.25f), std::int64_t(4'750'000)); // an event before the base
        // A device the clock does not know, and -1: the primary's (the first) anchor.
        QCOMPARE(clock.hostNs(7, 0.5f), std::int64_t(1'500'000));
        QCOMPARE(clock.hostNs(-1, 0), std::int64_t(1'000'000));
    }

    void spansAndFirstAnchor()
    {
        RepetitionClock clock({0});
        clock.setAnchor(0, {0, 1'000, 10});
        clock.beginMeasured();
        clock.spans().push_back(500);
        clock.setAnchor(0, {0, 9'000, 10});
        clock.beginMeasured(); // a span exists: the first anchor stays
        clock.spans().push_back(700);
        QCOMPARE(clock.firstBaseHostNs(), std::int64_t(1'000));
        // A retried repetition drops its span; the first one retried takes the new anchor.
        clock.spans().clear();
        clock.beginMeasured();
        QCOMPARE(clock.firstBaseHostNs(), std::int64_t(9'000));
        clock.spans() = {500, 700};
        std::map<std::string, std::string> md;
        clock.describe(md, 5);
        QCOMPARE(md.at("repetition_gpu_span_ns"), std::string("500,700"));
        QCOMPARE(md.at("clock_anchor"), std::string("per repetition: base event after cudaDeviceSynchronize; host "
                                                    "time = midpoint of [cudaEventRecord, cudaEventSynchronize "
                                                    "return], narrowest of 5 tries"));
    }

    void alignment()
    {
        const std::vector<PlannedOp> ops = twoOps();
        Repetition rep = timed();
        // The anchor allows +-2000: the records leave [-300, +100]; the middle is -100, the error 200.
        EventAlignment a = alignDeviceEvents(rep, ops, 0, 2000);
        QVERIFY(a.applied);
        QCOMPARE(a.shiftNs, std::int64_t(-100));
        QCOMPARE(a.maxErrorNs, std::int64_t(200));
        QCOMPARE(rep.ops[0].readyNs, std::int64_t(900));
        QCOMPARE(rep.ops[0].eventEndNs, std::int64_t(2200));
        QCOMPARE(rep.ops[0].gpuStartNs, std::int64_t(1100)); // CUPTI's execution stays
        QCOMPARE(rep.ops[1].readyNs, std::int64_t(1000)); // another device's: untouched
        // On one device: op 1 bounds the shift, op 0 (its execution copied from its events, flagged) bounds
        // nothing and moves whole.
        std::vector<PlannedOp> oneDevice = ops;
        oneDevice[1].device = 0;
        Repetition copied = timed();
        copied.ops[0].gpuStartNs = copied.ops[0].readyNs;
        copied.ops[0].gpuEndNs = copied.ops[0].eventEndNs;
        copied.ops[0].flags = OpFlagEventTimed;
        a = alignDeviceEvents(copied, oneDevice, 0, 2000);
        QVERIFY(a.applied);
        QCOMPARE(a.shiftNs, std::int64_t(-100));
        QCOMPARE(copied.ops[0].gpuStartNs, std::int64_t(900));
        QCOMPARE(copied.ops[0].gpuEndNs, std::int64_t(2200));
        QCOMPARE(copied.ops[1].gpuStartNs, std::int64_t(1100));
        // Nothing bounds the shift (every op flagged): the anchor stands.
        copied.ops[1].flags = OpFlagEventTimed;
        QVERIFY(!alignDeviceEvents(copied, oneDevice, 0, 2000).applied);
    }

    void errors()
    {
        const std::vector<PlannedOp> ops = twoOps();
        RepetitionClock clock({0, 1});
        clock.setAnchor(0, {0, 0, 2000});
        clock.setAnchor(1, {0, 0, 4000});
        // Repetition 1: CUPTI gave device 0's events itself (error 0); device 1 is aligned by causality.
        Repetition rep = timed();
        clock.settleErrors(rep, ops, {{0, true}, {1, false}}, true);
        QCOMPARE(rep.ops[0].readyNs, std::int64_t(1000)); // not moved
        QCOMPARE(rep.ops[1].readyNs, std::int64_t(900));
        // Repetition 2, timed by events: the anchors' errors stand.
        clock.setAnchor(0, {0, 0, 1500});
        Repetition events = timed();
        clock.settleErrors(events, ops, {}, false);
        QCOMPARE(events.ops[1].readyNs, std::int64_t(1000));
        std::map<std::string, std::string> md;
        clock.describe(md, 5);
        QCOMPARE(md.at("clock.device0.errorNs"), std::string("1500"));
        QCOMPARE(md.at("clock.device1.errorNs"), std::string("4000"));
        QCOMPARE(md.at("clock_anchor_max_error_ns"), std::string("4000"));
        QCOMPARE(md.at("clock_events"), std::string("stream-ready and end events timed by CUPTI (CUDA event records "
                                                    "with device timestamps, on execution's clock) in 1 "
                                                    "device-repetitions"));
        QVERIFY(md.at("clock_alignment").ends_with(" in 1 device-repetitions"));

        RepetitionClock quiet({0});
        std::map<std::string, std::string> none;
        quiet.describe(none, 5);
        QVERIFY(!none.count("clock_events"));
        QVERIFY(!none.count("clock_alignment"));
        QCOMPARE(none.at("clock_anchor_max_error_ns"), std::string("0"));
        QCOMPARE(none.at("repetition_gpu_span_ns"), std::string());
    }
};

QTEST_GUILESS_MAIN(TestRepetitionClock)
#include "tst_repetition_clock.moc"
