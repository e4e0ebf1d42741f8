// Tests of engine/workload/workload.h: the names of its enums as files write them, the mapping of
// buffer kinds and op specs to the trace's vocabulary, the workload's look-ups and memory totals,
// the generated op names (describe) and the issue schedules of both issue orders.
#include <QtTest>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "engine/workload/workload.h"
#include "tests/engine/workload/workload_compare.h"

using namespace streamscope::engine;

Q_DECLARE_METATYPE(streamscope::engine::BufferKind)
Q_DECLARE_METATYPE(streamscope::engine::MemKind)
Q_DECLARE_METATYPE(streamscope::engine::OpType)
Q_DECLARE_METATYPE(streamscope::engine::OpKind)
Q_DECLARE_METATYPE(streamscope::engine::CopyDirection)

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

OpSpec copy(CopyDirection dir, const char *src, const char *dst, std::uint64_t bytes, CopyApi api = CopyApi::Async)
{
    OpSpec op;
    op.type = OpType::Copy;
    op.direction = dir;
    op.src = src;
    op.dst = dst;
    op.bytes = bytes;
    op.api = api;
    return op;
}

Workload bufferWorkload()
{
    Workload w;
    w.buffers = {{"h_pageable", BufferKind::Pageable, 1000},        {"h_pinned", BufferKind::Pinned, 20'000},
                 {"h_registered", BufferKind::Registered, 300'000}, {"m_data", BufferKind::Managed, 4'000'000},
                 {"d_a", BufferKind::Device, 50'000'000},           {"d_b", BufferKind::Device, 600'000'000}};
    return w;
}

// Streams with the given numbers of ops, each op named "s<stream>o<op>".
Workload streamsWith(const std::vector<int> &counts)
{
    Workload w;
    for (std::size_t s = 0; s < counts.size(); ++s) {
        StreamSpec stream;
        stream.name = "s" + std::to_string(s);
        for (int o = 0; o < counts[s]; ++o) {
            OpSpec op;
            op.name = stream.name + "o" + std::to_string(o);
            stream.ops.push_back(op);
        }
        w.streams.push_back(stream);
    }
    return w;
}

QString scheduleText(const Workload &w)
{
    QStringList parts;
    for (const ScheduledOp &s : w.schedule)
        parts << QString::fromStdString(w.streams[std::size_t(s.stream)].ops[std::size_t(s.op)].name);
    return parts.join(' ');
}

} // namespace

class TestWorkload : public QObject {
    Q_OBJECT

private slots:
    void bufferKindNames_data()
    {
        QTest::addColumn<BufferKind>("kind");
        QTest::addColumn<QString>("name");
        QTest::addColumn<MemKind>("memKind");
        QTest::newRow("pageable") << BufferKind::Pageable << "pageable" << MemKind::Pageable;
        QTest::newRow("pinned") << BufferKind::Pinned << "pinned" << MemKind::Pinned;
        QTest::newRow("registered") << BufferKind::Registered << "registered" << MemKind::Registered;
        QTest::newRow("managed") << BufferKind::Managed << "managed" << MemKind::Managed;
        QTest::newRow("device") << BufferKind::Device << "device" << MemKind::Device;
    }
    void bufferKindNames()
    {
        QFETCH(BufferKind, kind);
        QFETCH(QString, name);
        QFETCH(MemKind, memKind);
        QCOMPARE(qs(toString(kind)), name);
        QCOMPARE(memKindOf(kind), memKind);
        // A buffer's kind and the memory kind the trace records for it are spelled alike.
        QCOMPARE(qs(toString(memKindOf(kind))), name);
    }

    void opTypeNames_data()
    {
        QTest::addColumn<OpType>("type");
        QTest::addColumn<QString>("name");
        QTest::addColumn<OpKind>("kind");
        QTest::newRow("copy") << OpType::Copy << "copy" << OpKind::CopyH2D;
        QTest::newRow("kernel") << OpType::Kernel << "kernel" << OpKind::Kernel;
        QTest::newRow("memset") << OpType::Memset << "memset" << OpKind::Memset;
        QTest::newRow("record") << OpType::EventRecord << "record" << OpKind::EventRecord;
        QTest::newRow("wait") << OpType::EventWait << "wait" << OpKind::EventWait;
        QTest::newRow("sync") << OpType::Sync << "sync" << OpKind::HostSync;
        QTest::newRow("prefetch") << OpType::Prefetch << "prefetch" << OpKind::Prefetch;
        QTest::newRow("advise") << OpType::Advise << "advise" << OpKind::Advise;
        QTest::newRow("attach") << OpType::Attach << "attach" << OpKind::Attach;
        QTest::newRow("host") << OpType::HostWork << "host" << OpKind::HostWork;
    }
    void opTypeNames()
    {
        QFETCH(OpType, type);
        QFETCH(QString, name);
        QFETCH(OpKind, kind);
        QCOMPARE(qs(toString(type)), name);
        OpSpec op;
        op.type = type; // a copy's direction defaults to H2D
        QCOMPARE(opKindOf(op), kind);
    }

    void copyDirections_data()
    {
        QTest::addColumn<CopyDirection>("dir");
        QTest::addColumn<QString>("name");
        QTest::addColumn<OpKind>("kind");
        QTest::newRow("h2d") << CopyDirection::H2D << "h2d" << OpKind::CopyH2D;
        QTest::newRow("d2h") << CopyDirection::D2H << "d2h" << OpKind::CopyD2H;
        QTest::newRow("d2d") << CopyDirection::D2D << "d2d" << OpKind::CopyD2D;
        QTest::newRow("h2h") << CopyDirection::H2H << "h2h" << OpKind::CopyH2H;
        QTest::newRow("p2p") << CopyDirection::P2P << "p2p" << OpKind::CopyP2P;
    }
    void copyDirections()
    {
        QFETCH(CopyDirection, dir);
        QFETCH(QString, name);
        QFETCH(OpKind, kind);
        QCOMPARE(qs(toString(dir)), name);
        const OpSpec op = copy(dir, "a", "b", 1);
        QCOMPARE(opKindOf(op), kind);
        // The trace names the op kind as the workload names the direction.
        QCOMPARE(qs(toString(opKindOf(op))), name);
    }

    // The direction only matters for copies.
    void directionIgnoredForOtherOps()
    {
        OpSpec op;
        op.type = OpType::Kernel;
        op.direction = CopyDirection::D2H;
        QCOMPARE(opKindOf(op), OpKind::Kernel);
        op.type = OpType::Memset;
        QCOMPARE(opKindOf(op), OpKind::Memset);
    }

    void adviseAndAttachNames()
    {
        const std::vector<std::pair<AdviseKind, const char *>> advise = {
            {AdviseKind::SetReadMostly, "set-read-mostly"},
            {AdviseKind::UnsetReadMostly, "unset-read-mostly"},
            {AdviseKind::SetPreferredLocation, "set-preferred-location"},
            {AdviseKind::UnsetPreferredLocation, "unset-preferred-location"},
            {AdviseKind::SetAccessedBy, "set-accessed-by"},
            {AdviseKind::UnsetAccessedBy, "unset-accessed-by"}};
        for (const auto &[kind, name] : advise)
            QCOMPARE(qs(toString(kind)), QString::fromLatin1(name));
        QCOMPARE(qs(toString(AttachKind::Global)), QStringLiteral("global"));
        QCOMPARE(qs(toString(AttachKind::Host)), QStringLiteral("host"));
        QCOMPARE(qs(toString(AttachKind::Single)), QStringLiteral("single"));
    }

    void findBuffer()
    {
        const Workload w = bufferWorkload();
        const BufferSpec *b = w.findBuffer("m_data");
        QVERIFY(b);
        QCOMPARE(b, &w.buffers[3]); // the workload's own entry, not a copy
        QCOMPARE(b->kind, BufferKind::Managed);
        QCOMPARE(quint64(b->bytes), quint64(4'000'000));
        QVERIFY(!w.findBuffer("M_DATA"));
        QVERIFY(!w.findBuffer("m_dat"));
        QVERIFY(!w.findBuffer(""));
        QVERIFY(!Workload().findBuffer("d_a"));
    }

    void findStream()
    {
        const Workload w = streamsWith({1, 0, 2});
        QCOMPARE(w.findStream("s0"), 0);
        QCOMPARE(w.findStream("s2"), 2);
        QCOMPARE(w.findStream("s1"), 1);
        QCOMPARE(w.findStream("s3"), -1);
        QCOMPARE(w.findStream("S0"), -1);
        QCOMPARE(w.findStream(""), -1);
        QCOMPARE(Workload().findStream("s0"), -1);
    }

    void opCount()
    {
        QCOMPARE(Workload().opCount(), std::size_t(0));
        QCOMPARE(streamsWith({3, 0, 5, 1}).opCount(), std::size_t(9));
        QCOMPARE(streamsWith({0, 0}).opCount(), std::size_t(0));
    }

    void memoryTotals()
    {
        const Workload w = bufferWorkload();
        QCOMPARE(quint64(w.deviceBytes()), quint64(654'000'000)); // device and managed
        QCOMPARE(quint64(w.managedBytes()), quint64(4'000'000));
        QCOMPARE(quint64(w.hostBytes()), quint64(321'000)); // pageable, pinned, registered
        const Workload empty;
        QCOMPARE(quint64(empty.deviceBytes()), quint64(0));
        QCOMPARE(quint64(empty.managedBytes()), quint64(0));
        QCOMPARE(quint64(empty.hostBytes()), quint64(0));
        // Sizes beyond 4 GiB add up without truncation.
        Workload big;
        big.buffers = {{"a", BufferKind::Device, 5ull << 30},
                       {"b", BufferKind::Device, 7ull << 30},
                       {"h", BufferKind::Pinned, 6ull << 30}};
        QCOMPARE(quint64(big.deviceBytes()), quint64(12ull << 30));
        QCOMPARE(quint64(big.hostBytes()), quint64(6ull << 30));
    }

    void describeOps_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("text");
        const QString mu = QString::fromUtf8("\u00b5");
        QTest::newRow("h2d pinned") << 0 << "H2D 16 MiB pinned";
        QTest::newRow("h2d pageable sync") << 1 << "H2D 4 KiB pageable (sync)";
        QTest::newRow("h2d to managed") << 2 << "H2D 1 MiB registered -> managed";
        QTest::newRow("d2h to pinned") << 3 << "D2H 16 MiB pinned";
        QTest::newRow("d2h from managed") << 4 << "D2H 2 MiB managed -> pageable";
        QTest::newRow("d2d") << 5 << "D2D 256 MiB";
        QTest::newRow("h2h") << 6 << "H2H 1000 B pageable -> pinned";
        QTest::newRow("unknown buffer") << 7 << "H2D 1 KiB ?";
        QTest::newRow("compute kernel") << 8 << "kernel 1 ms";
        QTest::newRow("short compute kernel") << 9 << "kernel 60 " + mu + "s";
        QTest::newRow("memory kernel") << 10 << "memory kernel 64 MiB";
        QTest::newRow("memset") << 11 << "memset 1 MiB";
        QTest::newRow("record") << 12 << "record done";
        QTest::newRow("wait") << 13 << "wait done";
        QTest::newRow("sync own stream") << 14 << "sync stream";
        QTest::newRow("sync other stream") << 15 << "sync stream s1";
        QTest::newRow("sync event") << 16 << "sync event done";
        QTest::newRow("sync device") << 17 << "sync device";
        QTest::newRow("prefetch to gpu") << 18 << "prefetch 4 MiB -> gpu0";
        QTest::newRow("prefetch to host") << 19 << "prefetch 4 MiB -> host";
        QTest::newRow("advise read mostly") << 20 << "advise set-read-mostly 4 MiB";
        QTest::newRow("advise preferred location") << 21 << "advise set-preferred-location 4 MiB host";
        QTest::newRow("advise accessed by") << 22 << "advise unset-accessed-by 4 MiB gpu1";
        QTest::newRow("attach") << 23 << "attach m_data global";
        QTest::newRow("host work") << 24 << "host work 500 " + mu + "s";
        QTest::newRow("d2h sync") << 25 << "D2H 16 MiB pinned (sync)";
    }
    void describeOps()
    {
        QFETCH(int, which);
        QFETCH(QString, text);
        Workload w;
        w.buffers = {
            {"h_pinned", BufferKind::Pinned, 16ull << 20},     {"h_pageable", BufferKind::Pageable, 16ull << 20},
            {"h_registered", BufferKind::Registered, 1 << 20}, {"m_data", BufferKind::Managed, 16ull << 20},
            {"d_buf", BufferKind::Device, 256ull << 20},       {"d_other", BufferKind::Device, 256ull << 20}};
        std::vector<OpSpec> ops;
        ops.push_back(copy(CopyDirection::H2D, "h_pinned", "d_buf", 16ull << 20));
        ops.push_back(copy(CopyDirection::H2D, "h_pageable", "d_buf", 4096, CopyApi::Sync));
        ops.push_back(copy(CopyDirection::H2D, "h_registered", "m_data", 1 << 20));
        ops.push_back(copy(CopyDirection::D2H, "d_buf", "h_pinned", 16ull << 20));
        ops.push_back(copy(CopyDirection::D2H, "m_data", "h_pageable", 2 << 20));
        ops.push_back(copy(CopyDirection::D2D, "d_buf", "d_other", 256ull << 20));
        ops.push_back(copy(CopyDirection::H2H, "h_pageable", "h_pinned", 1000));
        ops.push_back(copy(CopyDirection::H2D, "nowhere", "d_buf", 1024));
        OpSpec k;
        k.type = OpType::Kernel;
        k.durationNs = 1'000'000;
        ops.push_back(k);
        k.durationNs = 60'000;
        ops.push_back(k);
        k.kernelType = KernelType::Memory;
        k.bytes = 64ull << 20;
        k.buffer = "d_buf";
        ops.push_back(k);
        OpSpec m;
        m.type = OpType::Memset;
        m.bytes = 1 << 20;
        ops.push_back(m);
        OpSpec e;
        e.type = OpType::EventRecord;
        e.event = "done";
        ops.push_back(e);
        e.type = OpType::EventWait;
        ops.push_back(e);
        OpSpec s;
        s.type = OpType::Sync;
        ops.push_back(s);
        s.syncStream = "s1";
        ops.push_back(s);
        s.syncTarget = SyncTarget::Event;
        s.event = "done";
        ops.push_back(s);
        s.syncTarget = SyncTarget::Device;
        ops.push_back(s);
        OpSpec p;
        p.type = OpType::Prefetch;
        p.bytes = 4 << 20;
        p.location = 0;
        ops.push_back(p);
        p.location = -1;
        ops.push_back(p);
        OpSpec a;
        a.type = OpType::Advise;
        a.bytes = 4 << 20;
        a.advise = AdviseKind::SetReadMostly;
        a.location = 1; // not shown: read-mostly has no location
        ops.push_back(a);
        a.advise = AdviseKind::SetPreferredLocation;
        a.location = -1;
        ops.push_back(a);
        a.advise = AdviseKind::UnsetAccessedBy;
        a.location = 1;
        ops.push_back(a);
        OpSpec at;
        at.type = OpType::Attach;
        at.buffer = "m_data";
        at.attach = AttachKind::Global;
        ops.push_back(at);
        OpSpec h;
        h.type = OpType::HostWork;
        h.hostNs = 500'000;
        ops.push_back(h);
        ops.push_back(copy(CopyDirection::D2H, "d_buf", "h_pinned", 16ull << 20, CopyApi::Sync));
        QVERIFY(which < int(ops.size()));
        QCOMPARE(QString::fromStdString(describe(ops[std::size_t(which)], w)), text);
    }

    // describe() uses the op's fields, never a name it already has.
    void describeIgnoresGivenName()
    {
        Workload w;
        OpSpec op;
        op.type = OpType::Memset;
        op.bytes = 4096;
        op.name = "my memset";
        QCOMPARE(QString::fromStdString(describe(op, w)), QStringLiteral("memset 4 KiB"));
    }

    void schedule_data()
    {
        QTest::addColumn<QList<int>>("counts");
        QTest::addColumn<bool>("streamOrder");
        QTest::addColumn<QString>("order");
        QTest::newRow("round-robin even") << QList<int>{2, 2} << false << "s0o0 s1o0 s0o1 s1o1";
        QTest::newRow("round-robin uneven") << QList<int>{1, 3, 2} << false << "s0o0 s1o0 s2o0 s1o1 s2o1 s1o2";
        QTest::newRow("round-robin empty stream") << QList<int>{0, 2, 1} << false << "s1o0 s2o0 s1o1";
        QTest::newRow("stream-order") << QList<int>{2, 1, 3} << true << "s0o0 s0o1 s1o0 s2o0 s2o1 s2o2";
        QTest::newRow("stream-order empty stream") << QList<int>{2, 0, 1} << true << "s0o0 s0o1 s2o0";
        QTest::newRow("one stream, both alike") << QList<int>{3} << false << "s0o0 s0o1 s0o2";
        QTest::newRow("no ops") << QList<int>{0, 0} << false << "";
        QTest::newRow("no streams") << QList<int>{} << true << "";
    }
    void schedule()
    {
        QFETCH(QList<int>, counts);
        QFETCH(bool, streamOrder);
        QFETCH(QString, order);
        Workload w = streamsWith(std::vector<int>(counts.begin(), counts.end()));
        w.issueOrder = streamOrder ? IssueOrder::StreamOrder : IssueOrder::RoundRobin;
        w.schedule = {{7, 7}, {0, 0}}; // stale entries are replaced, not kept
        buildSchedule(w);
        QCOMPARE(scheduleText(w), order);
        // Always a permutation of every (stream, op).
        QCOMPARE(w.schedule.size(), w.opCount());
        std::set<std::pair<int, int>> seen;
        for (const ScheduledOp &s : w.schedule)
            QVERIFY(seen.insert({s.stream, s.op}).second);
    }

    // Changing the order and rebuilding gives the other order.
    void rebuildAfterOrderChange()
    {
        Workload w = streamsWith({2, 2});
        buildSchedule(w);
        QCOMPARE(scheduleText(w), QStringLiteral("s0o0 s1o0 s0o1 s1o1")); // the default is round-robin
        w.issueOrder = IssueOrder::StreamOrder;
        buildSchedule(w);
        QCOMPARE(scheduleText(w), QStringLiteral("s0o0 s0o1 s1o0 s1o1"));
    }

    void defaults()
    {
        const Workload w;
        QCOMPARE(w.version, 1); // a workload built in code is written as version 1 until it uses version 2
        QCOMPARE(w.peerAccess, PeerAccess::On);
        QVERIFY(w.threads.empty());
        QCOMPARE(w.threadCount(), 1);
        QCOMPARE(w.threadName(0), std::string("main"));
        QCOMPARE(w.issueOrder, IssueOrder::RoundRobin);
        QCOMPARE(w.defaultStream, DefaultStreamMode::Legacy);
        QCOMPARE(w.maxConnections, 0);
        QVERIFY(w.warmup >= 0 && w.warmup <= kMaxWarmup);
        QVERIFY(w.repetitions >= 1 && w.repetitions <= kMaxRepetitions);
        const OpSpec op;
        QCOMPARE(op.api, CopyApi::Async);
        QCOMPARE(op.type, OpType::Kernel);
        const StreamSpec s;
        QCOMPARE(s.flags, StreamFlags::NonBlocking);
        QVERIFY(!s.useDefaultStream);
    }
};

QTEST_APPLESS_MAIN(TestWorkload)
#include "tst_workload.moc"
