// Tests of engine/model/trace.h and engine/model/op_vocabulary.h: the enum names files write (every
// value round trips, unknown spellings are refused), the op kind classes, OpRecord's derived times and
// bandwidth (the Prefetch rule, staged pageable copies, unknown times) and Trace's string table,
// op count and extent.
#include <QtTest>

#include <limits>
#include <set>
#include <string>
#include <vector>

#include "engine/model/op_vocabulary.h"
#include "engine/model/trace.h"

using namespace streamscope::engine;

Q_DECLARE_METATYPE(streamscope::engine::OpKind)
Q_DECLARE_METATYPE(streamscope::engine::MemKind)

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// Every value of E in [0, count): its name is the expected one, parses back to the value, and no two
// values share a name.
template <typename E, typename FromString>
void checkNames(const std::vector<const char *> &expected, FromString fromString)
{
    std::set<std::string> seen;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const E value = static_cast<E>(i);
        const std::string_view name = toString(value);
        QCOMPARE(qs(name), QString::fromLatin1(expected[i]));
        QVERIFY2(seen.insert(std::string(name)).second, expected[i]);
        const std::optional<E> back = fromString(name);
        QVERIFY2(back.has_value(), expected[i]);
        QCOMPARE(int(*back), int(i));
    }
}

OpRecord gpuOp(OpKind kind, std::int64_t start, std::int64_t end, std::uint64_t bytes = 0)
{
    OpRecord op;
    op.kind = kind;
    op.gpuStartNs = start;
    op.gpuEndNs = end;
    op.bytes = bytes;
    return op;
}

} // namespace

class TestTrace : public QObject {
    Q_OBJECT

private slots:
    void opKindNames()
    {
        checkNames<OpKind>({"h2d", "d2h", "d2d", "h2h", "kernel", "memset", "event_record", "event_wait", "sync",
                            "prefetch", "advise", "attach", "host_work", "other"},
                           opKindFromString);
    }
    void memKindNames()
    {
        checkNames<MemKind>({"none", "pageable", "pinned", "registered", "managed", "device", "unknown"},
                            memKindFromString);
    }
    void copyApiNames() { checkNames<CopyApi>({"none", "sync", "async"}, copyApiFromString); }
    void channelTypeNames() { checkNames<ChannelType>({"unknown", "compute", "async_copy"}, channelTypeFromString); }
    void timingSourceNames() { checkNames<TimingSource>({"events", "cupti", "profiler"}, timingSourceFromString); }
    void activityKindNames()
    {
        checkNames<ActivityKind>({"migration_h2d", "migration_d2h", "gpu_page_faults", "cpu_page_fault", "thrashing",
                                  "throttling", "remote_map", "synchronization"},
                                 activityKindFromString);
    }
    void activityDetailNames()
    {
        checkNames<ActivityDetail>({"unknown", "user", "coherence", "speculative", "eviction", "access_counters",
                                    "read", "write", "atomic", "prefetch", "event_synchronize", "stream_wait_event",
                                    "stream_synchronize", "context_synchronize"},
                                   activityDetailFromString);
    }
    void unknownNamesRejected_data()
    {
        QTest::addColumn<QString>("family");
        QTest::addColumn<QString>("name");
        const char *families[] = {"op", "mem", "api", "channel", "timing", "activity", "detail"};
        for (const char *f : families) {
            QTest::addRow("%s empty", f) << f << "";
            QTest::addRow("%s bogus", f) << f << "bogus";
            QTest::addRow("%s space", f) << f << " ";
        }
        QTest::newRow("op upper case") << "op"
                                       << "H2D";
        QTest::newRow("op trailing space") << "op"
                                           << "h2d ";
        QTest::newRow("op enum spelling") << "op"
                                          << "CopyH2D";
        QTest::newRow("op workload spelling") << "op"
                                              << "copy";
        QTest::newRow("op host sync spelling") << "op"
                                               << "host_sync";
        QTest::newRow("mem capitalised") << "mem"
                                         << "Pinned";
        QTest::newRow("mem prefix") << "mem"
                                    << "pin";
        QTest::newRow("api upper") << "api"
                                   << "ASYNC";
        QTest::newRow("channel dash") << "channel"
                                      << "async-copy";
        QTest::newRow("timing singular") << "timing"
                                         << "event";
        QTest::newRow("activity dash") << "activity"
                                       << "migration-h2d";
        QTest::newRow("detail camel") << "detail"
                                      << "eventSynchronize";
        QTest::newRow("nul inside") << "op" << QString::fromLatin1("h2d\0", 4);
    }
    void unknownNamesRejected()
    {
        QFETCH(QString, family);
        QFETCH(QString, name);
        const std::string s = name.toStdString();
        bool accepted = false;
        if (family == "op")
            accepted = opKindFromString(s).has_value();
        else if (family == "mem")
            accepted = memKindFromString(s).has_value();
        else if (family == "api")
            accepted = copyApiFromString(s).has_value();
        else if (family == "channel")
            accepted = channelTypeFromString(s).has_value();
        else if (family == "timing")
            accepted = timingSourceFromString(s).has_value();
        else if (family == "activity")
            accepted = activityKindFromString(s).has_value();
        else if (family == "detail")
            accepted = activityDetailFromString(s).has_value();
        else
            QFAIL("unknown family");
        QVERIFY2(!accepted, qPrintable(family + ": accepted '" + name + "'"));
    }

    void opKindClasses_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<bool>("copy");
        QTest::addColumn<bool>("gpuWork");
        QTest::newRow("h2d") << int(OpKind::CopyH2D) << true << true;
        QTest::newRow("d2h") << int(OpKind::CopyD2H) << true << true;
        QTest::newRow("d2d") << int(OpKind::CopyD2D) << true << true;
        QTest::newRow("h2h") << int(OpKind::CopyH2H) << true << true;
        QTest::newRow("kernel") << int(OpKind::Kernel) << false << true;
        QTest::newRow("memset") << int(OpKind::Memset) << false << true;
        QTest::newRow("event_record") << int(OpKind::EventRecord) << false << false;
        QTest::newRow("event_wait") << int(OpKind::EventWait) << false << false;
        QTest::newRow("sync") << int(OpKind::HostSync) << false << false;
        QTest::newRow("prefetch") << int(OpKind::Prefetch) << false << true;
        QTest::newRow("advise") << int(OpKind::Advise) << false << false;
        QTest::newRow("attach") << int(OpKind::Attach) << false << false;
        QTest::newRow("host_work") << int(OpKind::HostWork) << false << false;
        QTest::newRow("other") << int(OpKind::Other) << false << false;
    }
    void opKindClasses()
    {
        QFETCH(int, kind);
        QFETCH(bool, copy);
        QFETCH(bool, gpuWork);
        QCOMPARE(isCopy(OpKind(kind)), copy);
        QCOMPARE(isGpuWork(OpKind(kind)), gpuWork);
    }

    void defaultOpHasNothing()
    {
        const OpRecord op;
        QVERIFY(!op.hasGpu());
        QVERIFY(!op.hasHost());
        QCOMPARE(qint64(op.gpuDurationNs()), qint64(0));
        QCOMPARE(qint64(op.hostDurationNs()), qint64(0));
        QCOMPARE(qint64(op.readyToRunNs()), qint64(kNoTime));
        QCOMPARE(qint64(op.queuedDurationNs()), qint64(0));
        QCOMPARE(qint64(op.eventDurationNs()), qint64(0));
        QVERIFY(!op.stagedThroughHost());
        QCOMPARE(qint64(op.transferStartNs()), qint64(kNoTime));
        QCOMPARE(qint64(op.transferEndNs()), qint64(kNoTime));
        QCOMPARE(op.gbPerSecond(), 0.0);
    }

    void hasGpuAndHostNeedBothEnds()
    {
        OpRecord op;
        op.gpuStartNs = 10;
        QVERIFY(!op.hasGpu());
        QCOMPARE(qint64(op.gpuDurationNs()), qint64(0));
        op.gpuEndNs = 35;
        QVERIFY(op.hasGpu());
        QCOMPARE(qint64(op.gpuDurationNs()), qint64(25));
        op.hostEndNs = 8;
        QVERIFY(!op.hasHost());
        QCOMPARE(qint64(op.hostDurationNs()), qint64(0));
        op.hostStartNs = 2;
        QVERIFY(op.hasHost());
        QCOMPARE(qint64(op.hostDurationNs()), qint64(6));
        // Time zero is a time, not "unknown".
        OpRecord zero = gpuOp(OpKind::Kernel, 0, 0);
        QVERIFY(zero.hasGpu());
    }

    void readyToRun_data()
    {
        QTest::addColumn<qint64>("ready");
        QTest::addColumn<qint64>("hostEnd");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("neither") << qint64(kNoTime) << qint64(kNoTime) << qint64(kNoTime);
        QTest::newRow("stream-ready only") << qint64(500) << qint64(kNoTime) << qint64(500);
        QTest::newRow("host end only") << qint64(kNoTime) << qint64(700) << qint64(700);
        QTest::newRow("stream ready later") << qint64(900) << qint64(700) << qint64(900);
        QTest::newRow("host call ends later") << qint64(500) << qint64(700) << qint64(700);
        QTest::newRow("equal") << qint64(600) << qint64(600) << qint64(600);
        QTest::newRow("zero ready") << qint64(0) << qint64(kNoTime) << qint64(0);
    }
    void readyToRun()
    {
        QFETCH(qint64, ready);
        QFETCH(qint64, hostEnd);
        QFETCH(qint64, expected);
        OpRecord op = gpuOp(OpKind::Kernel, 1000, 2000);
        op.readyNs = ready;
        op.hostStartNs = hostEnd == kNoTime ? kNoTime : 0;
        op.hostEndNs = hostEnd;
        QCOMPARE(qint64(op.readyToRunNs()), expected);
    }

    void queuedDuration_data()
    {
        QTest::addColumn<qint64>("ready");
        QTest::addColumn<qint64>("hostEnd");
        QTest::addColumn<qint64>("gpuStart");
        QTest::addColumn<qint64>("gpuEnd");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("waited after stream-ready")
            << qint64(100) << qint64(kNoTime) << qint64(250) << qint64(300) << qint64(150);
        QTest::newRow("waited after host call")
            << qint64(100) << qint64(180) << qint64(250) << qint64(300) << qint64(70);
        QTest::newRow("host call only") << qint64(kNoTime) << qint64(200) << qint64(250) << qint64(300) << qint64(50);
        QTest::newRow("started at once") << qint64(250) << qint64(kNoTime) << qint64(250) << qint64(300) << qint64(0);
        QTest::newRow("ready after start is never negative")
            << qint64(260) << qint64(kNoTime) << qint64(250) << qint64(300) << qint64(0);
        QTest::newRow("host call ends after start")
            << qint64(100) << qint64(400) << qint64(250) << qint64(300) << qint64(0);
        QTest::newRow("nothing known before")
            << qint64(kNoTime) << qint64(kNoTime) << qint64(250) << qint64(300) << qint64(0);
        QTest::newRow("no GPU part") << qint64(100) << qint64(kNoTime) << qint64(kNoTime) << qint64(kNoTime)
                                     << qint64(0);
        QTest::newRow("GPU start without end")
            << qint64(100) << qint64(kNoTime) << qint64(250) << qint64(kNoTime) << qint64(0);
    }
    void queuedDuration()
    {
        QFETCH(qint64, ready);
        QFETCH(qint64, hostEnd);
        QFETCH(qint64, gpuStart);
        QFETCH(qint64, gpuEnd);
        QFETCH(qint64, expected);
        OpRecord op = gpuOp(OpKind::CopyH2D, gpuStart, gpuEnd, 1000);
        op.readyNs = ready;
        op.hostStartNs = hostEnd == kNoTime ? kNoTime : 0;
        op.hostEndNs = hostEnd;
        QCOMPARE(qint64(op.queuedDurationNs()), expected);
    }

    void eventDuration_data()
    {
        QTest::addColumn<qint64>("ready");
        QTest::addColumn<qint64>("eventEnd");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("both") << qint64(100) << qint64(450) << qint64(350);
        QTest::newRow("from zero") << qint64(0) << qint64(10) << qint64(10);
        QTest::newRow("equal") << qint64(100) << qint64(100) << qint64(0);
        QTest::newRow("no ready") << qint64(kNoTime) << qint64(450) << qint64(0);
        QTest::newRow("no end") << qint64(100) << qint64(kNoTime) << qint64(0);
        QTest::newRow("end before ready") << qint64(500) << qint64(450) << qint64(0);
    }
    void eventDuration()
    {
        QFETCH(qint64, ready);
        QFETCH(qint64, eventEnd);
        QFETCH(qint64, expected);
        // The execution interval does not enter the event pair's duration.
        OpRecord op = gpuOp(OpKind::Kernel, 200, 300);
        op.readyNs = ready;
        op.eventEndNs = eventEnd;
        QCOMPARE(qint64(op.eventDurationNs()), expected);
    }

    void stagedThroughHost_data()
    {
        QTest::addColumn<OpKind>("kind");
        QTest::addColumn<MemKind>("src");
        QTest::addColumn<MemKind>("dst");
        QTest::addColumn<MemKind>("driverSrc");
        QTest::addColumn<MemKind>("driverDst");
        QTest::addColumn<bool>("staged");
        const MemKind N = MemKind::None, P = MemKind::Pageable, Pin = MemKind::Pinned, D = MemKind::Device;
        QTest::newRow("h2d pinned") << OpKind::CopyH2D << Pin << D << N << N << false;
        QTest::newRow("h2d pageable") << OpKind::CopyH2D << P << D << N << N << true;
        QTest::newRow("d2h pageable") << OpKind::CopyD2H << D << P << N << N << true;
        QTest::newRow("h2h pageable to pinned") << OpKind::CopyH2H << P << Pin << N << N << true;
        QTest::newRow("d2d") << OpKind::CopyD2D << D << D << N << N << false;
        QTest::newRow("driver saw pageable source") << OpKind::CopyH2D << Pin << D << P << D << true;
        QTest::newRow("driver saw pageable destination") << OpKind::CopyD2H << D << Pin << D << P << true;
        QTest::newRow("driver saw pinned") << OpKind::CopyH2D << MemKind::Unknown << D << Pin << D << false;
        QTest::newRow("kernel never staged") << OpKind::Kernel << P << P << P << P << false;
        QTest::newRow("memset never staged") << OpKind::Memset << P << N << N << N << false;
        QTest::newRow("prefetch never staged") << OpKind::Prefetch << P << D << N << N << false;
        QTest::newRow("managed copy") << OpKind::CopyH2D << MemKind::Managed << D << N << N << false;
    }
    void stagedThroughHost()
    {
        QFETCH(OpKind, kind);
        QFETCH(MemKind, src);
        QFETCH(MemKind, dst);
        QFETCH(MemKind, driverSrc);
        QFETCH(MemKind, driverDst);
        QFETCH(bool, staged);
        OpRecord op = gpuOp(kind, 100, 200, 4096);
        op.srcMem = src;
        op.dstMem = dst;
        op.driverSrcMem = driverSrc;
        op.driverDstMem = driverDst;
        QCOMPARE(op.stagedThroughHost(), staged);
    }

    void transferInterval_data()
    {
        QTest::addColumn<MemKind>("hostMem");
        QTest::addColumn<qint64>("hostStart");
        QTest::addColumn<qint64>("hostEnd");
        QTest::addColumn<qint64>("gpuStart");
        QTest::addColumn<qint64>("gpuEnd");
        QTest::addColumn<qint64>("ready");
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        const qint64 no = kNoTime;
        QTest::newRow("pinned: execution only") << MemKind::Pinned << qint64(0) << qint64(500) << qint64(100)
                                                << qint64(300) << no << qint64(100) << qint64(300);
        QTest::newRow("pageable: host call covers execution")
            << MemKind::Pageable << qint64(0) << qint64(500) << qint64(100) << qint64(300) << no << qint64(0)
            << qint64(500);
        QTest::newRow("pageable: execution outlasts call")
            << MemKind::Pageable << qint64(50) << qint64(200) << qint64(100) << qint64(300) << no << qint64(50)
            << qint64(300);
        QTest::newRow("pageable: execution starts first")
            << MemKind::Pageable << qint64(150) << qint64(400) << qint64(100) << qint64(300) << no << qint64(100)
            << qint64(400);
        QTest::newRow("pageable without host call")
            << MemKind::Pageable << no << no << qint64(100) << qint64(300) << no << qint64(100) << qint64(300);
        QTest::newRow("pageable with half a host call")
            << MemKind::Pageable << qint64(0) << no << qint64(100) << qint64(300) << no << qint64(100) << qint64(300);
        QTest::newRow("pageable without execution")
            << MemKind::Pageable << qint64(0) << qint64(500) << no << no << no << no << no;
        QTest::newRow("pinned without execution")
            << MemKind::Pinned << qint64(0) << qint64(500) << no << no << no << no << no;
        // A staged copy whose call first waited for its stream: in flight from when the stream reached it
        // (a stream-ready within 5 us is event latency; the cut ramps to all of a 10 us wait), never later
        // than its execution, never earlier than the call.
        QTest::newRow("pageable: call waited for the stream")
            << MemKind::Pageable << qint64(0) << qint64(500'000) << qint64(400'000) << qint64(450'000)
            << qint64(350'000) << qint64(350'000) << qint64(500'000);
        QTest::newRow("pageable: 6 us wait, 2 us of it cut (no step at 5 us)")
            << MemKind::Pageable << qint64(0) << qint64(500'000) << qint64(400'000) << qint64(450'000) << qint64(6'000)
            << qint64(2'000) << qint64(500'000);
        QTest::newRow("pageable: 10 us wait, all cut")
            << MemKind::Pageable << qint64(0) << qint64(500'000) << qint64(400'000) << qint64(450'000) << qint64(10'000)
            << qint64(10'000) << qint64(500'000);
        // cudaMemcpyAsync of a few KiB from pageable memory stages at once and returns before its stream
        // gets there: the DMA waits, the staging did not.
        QTest::newRow("pageable: call returned before the stream got there")
            << MemKind::Pageable << qint64(0) << qint64(10'000) << qint64(400'000) << qint64(403'000) << qint64(400'000)
            << qint64(0) << qint64(403'000);
        QTest::newRow("pageable: ready after execution start (two clocks)")
            << MemKind::Pageable << qint64(0) << qint64(500'000) << qint64(400'000) << qint64(450'000)
            << qint64(420'000) << qint64(400'000) << qint64(500'000);
        QTest::newRow("pageable: ready before the call")
            << MemKind::Pageable << qint64(100'000) << qint64(500'000) << qint64(400'000) << qint64(450'000)
            << qint64(50'000) << qint64(100'000) << qint64(500'000);
        QTest::newRow("pageable: ready 1.5 us into the call (event latency)")
            << MemKind::Pageable << qint64(0) << qint64(500'000) << qint64(400'000) << qint64(450'000) << qint64(1'500)
            << qint64(0) << qint64(500'000);
        QTest::newRow("pinned: ready does not matter")
            << MemKind::Pinned << qint64(0) << qint64(500'000) << qint64(100'000) << qint64(300'000) << qint64(50'000)
            << qint64(100'000) << qint64(300'000);
    }
    void transferInterval()
    {
        QFETCH(MemKind, hostMem);
        QFETCH(qint64, hostStart);
        QFETCH(qint64, hostEnd);
        QFETCH(qint64, gpuStart);
        QFETCH(qint64, gpuEnd);
        QFETCH(qint64, ready);
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        OpRecord op = gpuOp(OpKind::CopyH2D, gpuStart, gpuEnd, 1'000'000);
        op.srcMem = hostMem;
        op.dstMem = MemKind::Device;
        op.hostStartNs = hostStart;
        op.hostEndNs = hostEnd;
        op.readyNs = ready;
        QCOMPARE(qint64(op.transferStartNs()), start);
        QCOMPARE(qint64(op.transferEndNs()), end);
    }

    // Imports: a staged copy whose call began while its stream still ran the op before it gets that op's
    // end as stream-ready; nothing else changes.
    void derivedStagedCopyReadiness()
    {
        constexpr qint64 us = 1'000;
        Repetition rep;
        OpRecord kernel = gpuOp(OpKind::Kernel, 100 * us, 1'000 * us, 0);
        kernel.stream = 0;
        OpRecord waited = gpuOp(OpKind::CopyD2H, 1'200 * us, 1'300 * us, 1'000'000); // cudaMemcpy to pageable
        waited.stream = 0;
        waited.srcMem = MemKind::Device;
        waited.dstMem = MemKind::Pageable;
        waited.hostStartNs = 150 * us; // called while the kernel ran: waited for it
        waited.hostEndNs = 1'400 * us;
        OpRecord late = waited; // called after the stream was idle: no wait to leave out
        late.gpuStartNs = 2'000 * us;
        late.gpuEndNs = 2'100 * us;
        late.hostStartNs = 1'900 * us;
        late.hostEndNs = 2'200 * us;
        OpRecord pinned = gpuOp(OpKind::CopyH2D, 3'000 * us, 3'100 * us, 1'000'000); // not staged: untouched
        pinned.stream = 0;
        pinned.srcMem = MemKind::Pinned;
        pinned.dstMem = MemKind::Device;
        pinned.hostStartNs = 2'150 * us;
        pinned.hostEndNs = 3'200 * us;
        OpRecord otherStream = waited; // another stream's copy: the kernel is not before it on its stream
        otherStream.stream = 1;
        OpRecord known = waited; // a stream-ready already recorded is kept
        known.stream = 2;
        known.readyNs = 1'100 * us;
        OpRecord knownBefore = kernel;
        knownBefore.stream = 2;
        rep.ops = {kernel, waited, late, pinned, otherStream, known, knownBefore};
        deriveStagedCopyReadiness(rep);
        QCOMPARE(qint64(rep.ops[1].readyNs), 1'000 * us);
        QCOMPARE(qint64(rep.ops[1].transferStartNs()), 1'000 * us);
        QCOMPARE(qint64(rep.ops[1].transferEndNs()), 1'400 * us);
        QCOMPARE(qint64(rep.ops[2].readyNs), qint64(kNoTime));
        QCOMPARE(qint64(rep.ops[2].transferStartNs()), 1'900 * us);
        QCOMPARE(qint64(rep.ops[3].readyNs), qint64(kNoTime));
        QCOMPARE(qint64(rep.ops[4].readyNs), qint64(kNoTime));
        QCOMPARE(qint64(rep.ops[4].transferStartNs()), 150 * us);
        QCOMPARE(qint64(rep.ops[5].readyNs), 1'100 * us);
        QCOMPARE(qint64(rep.ops[0].readyNs), qint64(kNoTime));

        // Two processes on one GPU, each with "stream 7": the other process's kernel is not this copy's wait.
        Repetition two;
        OpRecord theirs = kernel;
        theirs.hostThread = 1;
        OpRecord mine = waited;
        mine.hostThread = 0;
        two.ops = {theirs, mine};
        const std::vector<HostThreadInfo> threads = {{"a", 1, 100}, {"b", 2, 200}};
        deriveStagedCopyReadiness(two, threads);
        QCOMPARE(qint64(two.ops[1].readyNs), qint64(kNoTime));
        theirs.hostThread = 0; // the same process: it is
        two.ops = {theirs, mine};
        deriveStagedCopyReadiness(two, threads);
        QCOMPARE(qint64(two.ops[1].readyNs), 1'000 * us);
    }

    void bandwidth_data()
    {
        QTest::addColumn<OpKind>("kind");
        QTest::addColumn<MemKind>("hostMem");
        QTest::addColumn<qint64>("hostStart");
        QTest::addColumn<qint64>("hostEnd");
        QTest::addColumn<qint64>("gpuStart");
        QTest::addColumn<qint64>("gpuEnd");
        QTest::addColumn<quint64>("bytes");
        QTest::addColumn<double>("gbs");
        const qint64 no = kNoTime;
        // bytes per nanosecond is GB/s (1e9 bytes per second).
        QTest::newRow("h2d pinned 10 GB/s") << OpKind::CopyH2D << MemKind::Pinned << qint64(0) << qint64(5)
                                            << qint64(1000) << qint64(101'000) << quint64(1'000'000) << 10.0;
        QTest::newRow("d2h 25 GB/s") << OpKind::CopyD2H << MemKind::Pinned << no << no << qint64(0) << qint64(40'000)
                                     << quint64(1'000'000) << 25.0;
        QTest::newRow("kernel with bytes")
            << OpKind::Kernel << MemKind::None << no << no << qint64(0) << qint64(1000) << quint64(2000) << 2.0;
        QTest::newRow("pageable over the host call")
            << OpKind::CopyH2D << MemKind::Pageable << qint64(0) << qint64(200'000) << qint64(50'000) << qint64(150'000)
            << quint64(1'000'000) << 5.0;
        QTest::newRow("pinned ignores the host call")
            << OpKind::CopyH2D << MemKind::Pinned << qint64(0) << qint64(200'000) << qint64(50'000) << qint64(150'000)
            << quint64(1'000'000) << 10.0;
        QTest::newRow("prefetch is never rated") << OpKind::Prefetch << MemKind::Managed << no << no << qint64(0)
                                                 << qint64(1000) << quint64(1'000'000) << 0.0;
        QTest::newRow("prefetch with host call") << OpKind::Prefetch << MemKind::Pageable << qint64(0) << qint64(2000)
                                                 << qint64(0) << qint64(1000) << quint64(1'000'000) << 0.0;
        QTest::newRow("no bytes") << OpKind::CopyH2D << MemKind::Pinned << no << no << qint64(0) << qint64(1000)
                                  << quint64(0) << 0.0;
        QTest::newRow("no execution") << OpKind::CopyH2D << MemKind::Pinned << qint64(0) << qint64(1000) << no << no
                                      << quint64(1000) << 0.0;
        QTest::newRow("pageable without execution")
            << OpKind::CopyH2D << MemKind::Pageable << qint64(0) << qint64(1000) << no << no << quint64(1000) << 0.0;
        QTest::newRow("zero duration") << OpKind::CopyH2D << MemKind::Pinned << no << no << qint64(500) << qint64(500)
                                       << quint64(1000) << 0.0;
        QTest::newRow("end before start")
            << OpKind::CopyH2D << MemKind::Pinned << no << no << qint64(500) << qint64(400) << quint64(1000) << 0.0;
        QTest::newRow("execution start only")
            << OpKind::CopyH2D << MemKind::Pinned << no << no << qint64(500) << no << quint64(1000) << 0.0;
    }
    void bandwidth()
    {
        QFETCH(OpKind, kind);
        QFETCH(MemKind, hostMem);
        QFETCH(qint64, hostStart);
        QFETCH(qint64, hostEnd);
        QFETCH(qint64, gpuStart);
        QFETCH(qint64, gpuEnd);
        QFETCH(quint64, bytes);
        QFETCH(double, gbs);
        OpRecord op = gpuOp(kind, gpuStart, gpuEnd, bytes);
        if (kind == OpKind::CopyD2H) {
            op.srcMem = MemKind::Device;
            op.dstMem = hostMem;
        } else {
            op.srcMem = hostMem;
            op.dstMem = MemKind::Device;
        }
        op.hostStartNs = hostStart;
        op.hostEndNs = hostEnd;
        QCOMPARE(op.gbPerSecond(), gbs);
    }

    void activityRecordHelpers()
    {
        ActivityRecord a;
        QCOMPARE(qint64(a.durationNs()), qint64(0)); // no start
        a.startNs = 100;
        a.endNs = 100;
        QCOMPARE(qint64(a.durationNs()), qint64(0)); // an instant
        a.endNs = 350;
        QCOMPARE(qint64(a.durationNs()), qint64(250));
        a.endNs = 50;
        QCOMPARE(qint64(a.durationNs()), qint64(0)); // never negative
        a.endNs = 350;
        a.startNs = kNoTime;
        QCOMPARE(qint64(a.durationNs()), qint64(0));
        for (int k = 0; k <= int(ActivityKind::Synchronization); ++k) {
            a.kind = ActivityKind(k);
            const bool migration = a.kind == ActivityKind::MigrationH2D || a.kind == ActivityKind::MigrationD2H;
            QCOMPARE(a.isMigration(), migration);
        }
    }

    void internAssignsDenseIds()
    {
        Trace t;
        QCOMPARE(t.intern("a"), 0u);
        QCOMPARE(t.intern("b"), 1u);
        QCOMPARE(t.intern("a"), 0u);
        QCOMPARE(t.intern(""), 2u);
        QCOMPARE(t.intern(""), 2u);
        QCOMPARE(t.intern("A"), 3u); // case matters
        QCOMPARE(t.strings.size(), std::size_t(4));
        QCOMPARE(t.strings[1], std::string("b"));
        // A string_view that is not NUL-terminated is taken by its length.
        const std::string longer = "kernel-and-more";
        QCOMPARE(t.intern(std::string_view(longer).substr(0, 6)), 4u);
        QCOMPARE(t.strings[4], std::string("kernel"));
        QCOMPARE(t.intern("kernel"), 4u);
    }

    void nameOfOp()
    {
        Trace t;
        OpRecord op;
        op.nameId = t.intern("H2D 4 MiB");
        QCOMPARE(t.name(op), std::string("H2D 4 MiB"));
        op.nameId = t.intern("kernel");
        QCOMPARE(t.name(op), std::string("kernel"));
        op.nameId = 2; // out of range: empty, never a crash
        QCOMPARE(t.name(op), std::string());
        op.nameId = std::numeric_limits<std::uint32_t>::max();
        QCOMPARE(t.name(op), std::string());
    }

    // Readers fill Trace::strings directly: intern() must find those names, not add them again.
    void internFindsStringsFilledDirectly()
    {
        Trace t;
        t.strings = {"x", "y", "z"};
        QCOMPARE(t.intern("y"), 1u);
        QCOMPARE(t.intern("w"), 3u);
        QCOMPARE(t.strings.size(), std::size_t(4));
    }

    void rebuildAfterReplacingStrings()
    {
        Trace t;
        t.intern("a");
        t.intern("b");
        // Same count, different names: only rebuildStringIndex can tell.
        t.strings = {"x", "y"};
        rebuildStringIndex(t);
        QCOMPARE(t.intern("x"), 0u);
        QCOMPARE(t.intern("y"), 1u);
        QCOMPARE(t.intern("a"), 2u);
        QCOMPARE(t.strings.size(), std::size_t(3));
        // Rebuilding an empty table.
        t.strings.clear();
        rebuildStringIndex(t);
        QCOMPARE(t.intern("y"), 0u);
    }

    void copiesInternIndependently()
    {
        Trace a;
        a.intern("one");
        Trace b = a;
        QCOMPARE(b.intern("one"), 0u);
        QCOMPARE(b.intern("two"), 1u);
        QCOMPARE(a.strings.size(), std::size_t(1));
        QCOMPARE(a.intern("three"), 1u);
        QCOMPARE(a.strings[1], std::string("three"));
        QCOMPARE(b.strings[1], std::string("two"));
    }

    void opCountOverRepetitions()
    {
        Trace t;
        QCOMPARE(t.opCount(), std::size_t(0));
        t.repetitions.resize(3);
        QCOMPARE(t.opCount(), std::size_t(0));
        t.repetitions[0].ops.resize(4);
        t.repetitions[2].ops.resize(7);
        t.repetitions[1].activities.resize(5); // activities are not ops
        QCOMPARE(t.opCount(), std::size_t(11));
    }

    void extent_data()
    {
        QTest::addColumn<int>("repetition");
        QTest::addColumn<qint64>("lo");
        QTest::addColumn<qint64>("hi");
        QTest::newRow("gpu and host parts") << 0 << qint64(5) << qint64(900);
        QTest::newRow("activities widen it") << 1 << qint64(-20) << qint64(5000);
        QTest::newRow("host-only ops") << 2 << qint64(100) << qint64(200);
        QTest::newRow("empty repetition") << 3 << qint64(0) << qint64(0);
        QTest::newRow("ops without any time") << 4 << qint64(0) << qint64(0);
        QTest::newRow("instant activity") << 5 << qint64(300) << qint64(300);
        QTest::newRow("negative index") << -1 << qint64(0) << qint64(0);
        QTest::newRow("past the end") << 6 << qint64(0) << qint64(0);
    }
    void extent()
    {
        QFETCH(int, repetition);
        QFETCH(qint64, lo);
        QFETCH(qint64, hi);
        Trace t;
        t.repetitions.resize(6);
        {
            auto &ops = t.repetitions[0].ops;
            ops.push_back(gpuOp(OpKind::Kernel, 100, 900));
            OpRecord h = gpuOp(OpKind::CopyH2D, 200, 300);
            h.hostStartNs = 5;
            h.hostEndNs = 250;
            ops.push_back(h);
            // Half-known parts do not count.
            OpRecord half;
            half.gpuStartNs = 1;
            half.hostEndNs = 10'000;
            ops.push_back(half);
        }
        {
            auto &rep = t.repetitions[1];
            rep.ops.push_back(gpuOp(OpKind::Kernel, 0, 1000));
            ActivityRecord early;
            early.startNs = -20;
            early.endNs = 10;
            ActivityRecord late;
            late.startNs = 4000;
            late.endNs = 5000;
            ActivityRecord unknown; // no start: ignored
            unknown.endNs = 99'999;
            rep.activities = {early, late, unknown};
        }
        {
            OpRecord h;
            h.kind = OpKind::HostSync;
            h.hostStartNs = 100;
            h.hostEndNs = 200;
            t.repetitions[2].ops.push_back(h);
        }
        t.repetitions[4].ops.resize(2);
        {
            ActivityRecord instant;
            instant.kind = ActivityKind::CpuPageFault;
            instant.startNs = 300;
            instant.endNs = 300;
            t.repetitions[5].activities.push_back(instant);
        }
        const auto [a, b] = t.extent(repetition);
        QCOMPARE(qint64(a), lo);
        QCOMPARE(qint64(b), hi);
    }
};

QTEST_APPLESS_MAIN(TestTrace)
#include "tst_trace.moc"
