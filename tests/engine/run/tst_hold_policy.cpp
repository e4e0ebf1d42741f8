// Tests of the runner's hold policy: which workloads may be queued whole before the GPU starts
// (nvbandwidth's method) and which must be issued as a program would, on every lesson preset and on
// workloads built to hit each rule.
#include <QtTest>

#include <string>

#include "engine/run/hold_policy.h"
#include "engine/workload/workload.h"
#include "engine/workload/workload_parser.h"

using namespace streamscope::engine;

namespace {

Workload oneOp(OpSpec op, std::vector<BufferSpec> buffers)
{
    Workload w;
    w.name = "one op";
    w.buffers = std::move(buffers);
    StreamSpec s;
    s.name = "s0";
    s.ops = {std::move(op)};
    w.streams = {s};
    buildSchedule(w);
    return w;
}

OpSpec copy(CopyDirection dir, CopyApi api, std::string src, std::string dst)
{
    OpSpec op;
    op.type = OpType::Copy;
    op.direction = dir;
    op.api = api;
    op.src = std::move(src);
    op.dst = std::move(dst);
    op.bytes = 4096;
    return op;
}

} // namespace

class TestHoldPolicy : public QObject {
    Q_OBJECT

private slots:
    void presets_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("hold");
        QTest::addColumn<QString>("reason");
        QTest::newRow("bandwidth") << "bandwidth.json" << false << "pageable";
        QTest::newRow("concurrent kernels") << "concurrent-kernels.json" << true << "enqueues";
        QTest::newRow("default stream") << "default-stream.json" << true << "enqueues";
        QTest::newRow("event dependencies") << "event-dependencies.json" << false << "synchronisation";
        QTest::newRow("managed") << "managed.json" << false << "managed";
        QTest::newRow("overlap") << "overlap.json" << true << "enqueues";
        QTest::newRow("overlap breadth-first") << "overlap-breadth-first.json" << true << "enqueues";
        QTest::newRow("overlap sequential") << "overlap-sequential.json" << true << "enqueues";
        QTest::newRow("priorities") << "priorities.json" << false << "host work";
        QTest::newRow("sync vs async") << "sync-vs-async.json" << false << "synchronous";
    }
    void presets()
    {
        QFETCH(QString, file);
        QFETCH(bool, hold);
        QFETCH(QString, reason);
        const Workload w =
            loadWorkloadFile(std::string(STREAMSCOPE_SOURCE_DIR) + "/resources/workloads/" + file.toStdString());
        const HoldDecision d = decideHold(w);
        QCOMPARE(d.hold, hold);
        QVERIFY2(QString::fromStdString(d.reason).contains(reason), d.reason.c_str());
    }

    void rules()
    {
        const std::vector<BufferSpec> buffers = {{"pinned", BufferKind::Pinned, 4096},
                                                 {"registered", BufferKind::Registered, 4096},
                                                 {"pageable", BufferKind::Pageable, 4096},
                                                 {"managed", BufferKind::Managed, 4096},
                                                 {"dev", BufferKind::Device, 4096}};
        QVERIFY(decideHold(oneOp(copy(CopyDirection::H2D, CopyApi::Async, "pinned", "dev"), buffers)).hold);
        QVERIFY(decideHold(oneOp(copy(CopyDirection::D2H, CopyApi::Async, "dev", "registered"), buffers)).hold);
        QVERIFY(decideHold(oneOp(copy(CopyDirection::D2D, CopyApi::Async, "dev", "dev"), buffers)).hold);
        QVERIFY(!decideHold(oneOp(copy(CopyDirection::H2D, CopyApi::Sync, "pinned", "dev"), buffers)).hold);
        QVERIFY(!decideHold(oneOp(copy(CopyDirection::H2D, CopyApi::Async, "pageable", "dev"), buffers)).hold);
        QVERIFY(!decideHold(oneOp(copy(CopyDirection::D2H, CopyApi::Async, "dev", "managed"), buffers)).hold);
        QVERIFY(!decideHold(oneOp(copy(CopyDirection::H2H, CopyApi::Async, "pinned", "registered"), buffers)).hold);

        OpSpec kernel;
        kernel.type = OpType::Kernel;
        kernel.kernelType = KernelType::Memory;
        kernel.buffer = "dev";
        kernel.bytes = 4096;
        QVERIFY(decideHold(oneOp(kernel, buffers)).hold);
        kernel.buffer = "managed";
        QVERIFY(!decideHold(oneOp(kernel, buffers)).hold);

        OpSpec memset;
        memset.type = OpType::Memset;
        memset.buffer = "pinned";
        memset.bytes = 4096;
        QVERIFY(decideHold(oneOp(memset, buffers)).hold);
        memset.buffer = "managed";
        QVERIFY(!decideHold(oneOp(memset, buffers)).hold);

        for (OpType type : {OpType::Prefetch, OpType::Advise, OpType::Attach, OpType::Sync, OpType::HostWork}) {
            OpSpec op;
            op.type = type;
            op.buffer = "managed";
            op.hostNs = 1000;
            QVERIFY2(!decideHold(oneOp(op, buffers)).hold, toString(type).data());
        }
        for (OpType type : {OpType::EventRecord, OpType::EventWait}) {
            OpSpec op;
            op.type = type;
            op.event = "e";
            QVERIFY2(decideHold(oneOp(op, buffers)).hold, toString(type).data());
        }
    }

    // Long repetitions are issued as they come: queueing them whole could block the host in a call.
    // Version 2: a peer copy is held where peer access is on (it only enqueues a DMA), not where the
    // driver stages it through the host; several threads' default streams are each thread's own.
    void versionTwoRules()
    {
        const char *peer = R"({"version": 2, "peerAccess": "PA",
          "buffers": [{"name": "a", "kind": "device", "bytes": 4096}, {"name": "b", "kind": "device", "bytes": 4096, "device": 1}],
          "streams": [{"name": "s", "ops": [{"op": "copy", "src": "a", "dst": "b"}]}]})";
        std::string on = peer, off = peer;
        on.replace(on.find("PA"), 2, "on");
        off.replace(off.find("PA"), 2, "off");
        QVERIFY(decideHold(parseWorkload(on)).hold);
        const HoldDecision staged = decideHold(parseWorkload(off));
        QVERIFY(!staged.hold);
        QVERIFY2(staged.reason.find("staged") != std::string::npos, staged.reason.c_str());
        const Workload threads = parseWorkload(R"({"version": 2, "defaultStream": "per-thread",
          "streams": [{"name": "a", "useDefaultStream": true, "ops": [{"op": "kernel", "duration": "5 us"}]},
                      {"name": "b", "useDefaultStream": true, "ops": [{"op": "kernel", "duration": "5 us"}]}],
          "threads": [{"name": "t0", "streams": ["a"]}, {"name": "t1", "streams": ["b"]}]})");
        const HoldDecision d = decideHold(threads);
        QVERIFY(!d.hold);
        QVERIFY2(d.reason.find("several host threads") != std::string::npos, d.reason.c_str());
    }

    void tooManyOps()
    {
        OpSpec k;
        k.type = OpType::Kernel;
        k.durationNs = 10'000;
        Workload w;
        w.name = "many";
        StreamSpec s;
        s.name = "s0";
        s.ops.assign(kMaxHeldOps, k);
        w.streams = {s};
        buildSchedule(w);
        QVERIFY(decideHold(w).hold);
        w.streams[0].ops.push_back(k);
        buildSchedule(w);
        const HoldDecision d = decideHold(w);
        QVERIFY(!d.hold);
        QVERIFY2(d.reason.find(std::to_string(kMaxHeldOps)) != std::string::npos, d.reason.c_str());
    }
};

QTEST_GUILESS_MAIN(TestHoldPolicy)
#include "tst_hold_policy.moc"
