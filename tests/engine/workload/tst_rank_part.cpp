// Tests of one rank's part of a workload (rank_part.h, `run --ranks`): rank r gets what the workload puts on
// GPU r, moved to its process's GPU, with its collectives' communicator still the whole workload's, and the
// map back to the whole workload's streams, threads and issue order; the parts of all ranks cover the
// workload once. What would cross between ranks is refused, naming the op and where it is.
#include <QtTest>

#include <algorithm>
#include <set>
#include <string>

#include "engine/model/errors.h"
#include "engine/workload/rank_part.h"
#include "engine/workload/solo_parts.h"
#include "engine/workload/workload_parser.h"

using namespace streamscope::engine;

namespace {

// Two GPUs, a thread each: a GEMM stream and a communication stream per GPU, a prefetch to the GPU's own
// memory, an event inside GPU 1, a host buffer both use and a device buffer each.
const char *kTwoRanks = R"({"version": 2, "name": "two ranks",
  "buffers": [
    {"name": "host", "kind": "pinned", "bytes": "1 MiB"},
    {"name": "d0", "kind": "device", "bytes": "1 MiB", "device": 0},
    {"name": "d1", "kind": "device", "bytes": "1 MiB", "device": 1},
    {"name": "m1", "kind": "managed", "bytes": "1 MiB", "device": 1}
  ],
  "streams": [
    {"name": "gpu0 compute", "device": 0, "ops": [
      {"op": "copy", "src": "host", "dst": "d0"},
      {"op": "kernel", "duration": "10 us"}]},
    {"name": "gpu0 comm", "device": 0, "ops": [{"op": "collective", "type": "allreduce", "bytes": "1 MiB"}]},
    {"name": "gpu1 compute", "device": 1, "ops": [
      {"op": "record", "event": "e"},
      {"op": "copy", "src": "host", "dst": "d1"},
      {"op": "prefetch", "buffer": "m1", "location": 1}]},
    {"name": "gpu1 comm", "device": 1, "ops": [
      {"op": "wait", "event": "e"},
      {"op": "collective", "type": "allreduce", "bytes": "1 MiB"}]}
  ],
  "threads": [
    {"name": "t0", "device": 0, "streams": ["gpu0 compute", "gpu0 comm"]},
    {"name": "t1", "device": 1, "streams": ["gpu1 compute", "gpu1 comm"]}
  ]})";

} // namespace

class TestRankPart : public QObject {
    Q_OBJECT

private slots:
    void eachRankGetsItsGpusPartOnItsOwnGpu()
    {
        const Workload w = parseWorkload(kTwoRanks, "w.json");
        checkRankSplit(w, 2);
        const RankPart p = rankPart(w, 1, 2, 5);
        const Workload &part = p.workload;
        QCOMPARE(part.streams.size(), std::size_t(2));
        QCOMPARE(part.streams[0].name, std::string("gpu1 compute"));
        QCOMPARE(part.streams[1].name, std::string("gpu1 comm"));
        QCOMPARE(p.streams, (std::vector<std::int32_t>{2, 3}));
        QCOMPARE(p.threads, (std::vector<std::int32_t>{1}));
        QCOMPARE(part.threads.size(), std::size_t(1));
        QCOMPARE(part.threads[0].name, std::string("t1"));
        QCOMPARE(part.threads[0].streams, (std::vector<int>{0, 1}));
        // Everything on the process's GPU 5.
        QCOMPARE(part.usedDevices(), std::vector<int>{5});
        QCOMPARE(part.threadDevice(0), 5);
        QCOMPARE(part.streams[0].ops[2].location, 5);
        // Its buffers: the host buffer and GPU 1's, not GPU 0's.
        QVERIFY(part.findBuffer("host") && part.findBuffer("d1") && part.findBuffer("m1"));
        QVERIFY(!part.findBuffer("d0"));
        QCOMPARE(part.findBuffer("d1")->device, 5);
        // The communicator is still both GPUs, of which this part is rank 1.
        QCOMPARE(part.rankOf.rank, 1);
        QCOMPARE(part.rankOf.ranks, 2);
        QCOMPARE(part.rankOf.communicator, (std::vector<int>{0, 1}));
        QCOMPARE(part.communicatorSize(), 2);
        QCOMPARE(part.collectiveDevices(), std::vector<int>{5});
        // Its issue order is the whole workload's entries of its streams, in the same order.
        QCOMPARE(part.schedule.size(), p.schedule.size());
        for (std::size_t i = 0; i < p.schedule.size(); ++i) {
            const ScheduledOp &mine = part.schedule[i];
            const ScheduledOp &whole = w.schedule[std::size_t(p.schedule[i])];
            QCOMPARE(p.streams[std::size_t(mine.stream)], whole.stream);
            QCOMPARE(mine.op, whole.op);
        }
        QVERIFY(std::is_sorted(p.schedule.begin(), p.schedule.end()));
        // The wait inside GPU 1 still pairs with its record.
        const std::vector<int> paired = pairEventWaits(part);
        QCOMPARE(std::count_if(paired.begin(), paired.end(), [](int i) { return i >= 0; }), 1);
    }

    void everyRankHasTheWholeWorkloadsSoloParts()
    {
        Workload w = parseWorkload(kTwoRanks, "w.json");
        w.streams[0].part = w.streams[2].part = "compute";
        w.streams[1].part = w.streams[3].part = "communication";
        // (without GPU 1's wait across the two parts, which could not run alone)
        w.streams[3].ops[0].type = OpType::HostWork;
        w.streams[3].ops[0].hostNs = 1000;
        for (int r = 0; r < 2; ++r) {
            const RankPart p = rankPart(w, r, 2, 0);
            QCOMPARE(countSoloParts(p.workload), std::size_t(2));
            const SoloParts parts = soloParts(p.workload);
            QCOMPARE(parts.names, (std::vector<std::string>{"compute", "communication"}));
            QCOMPARE(parts.streamPart, (std::vector<std::int32_t>{0, 1}));
        }
        // A part of its own on one rank only: still every part, in the whole workload's order, on both.
        w.streams[2].part = "";
        for (int r = 0; r < 2; ++r) {
            const SoloParts parts = soloParts(rankPart(w, r, 2, 0).workload);
            QCOMPARE(parts.names, (std::vector<std::string>{"compute", "communication", "gpu1 compute"}));
            QCOMPARE(parts.streamPart, r == 0 ? (std::vector<std::int32_t>{0, 1}) : (std::vector<std::int32_t>{2, 1}));
        }
    }

    void thePartsCoverTheWorkloadOnce()
    {
        const Workload w = parseWorkload(kTwoRanks, "w.json");
        std::multiset<std::int32_t> entries, streams;
        for (int r = 0; r < 2; ++r) {
            const RankPart p = rankPart(w, r, 2, r);
            entries.insert(p.schedule.begin(), p.schedule.end());
            streams.insert(p.streams.begin(), p.streams.end());
            QCOMPARE(p.workload.opCount() + 0, p.schedule.size());
        }
        QCOMPARE(entries.size(), w.schedule.size());
        QCOMPARE(std::set<std::int32_t>(entries.begin(), entries.end()).size(), w.schedule.size());
        QCOMPARE(streams, (std::multiset<std::int32_t>{0, 1, 2, 3}));
    }

    void whatCrossesRanksIsRefused_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QString>("expected");
        const QString two = R"({"version": 2, "name": "w", "buffers": [
            {"name": "d0", "kind": "device", "bytes": "1 MiB", "device": 0},
            {"name": "d1", "kind": "device", "bytes": "1 MiB", "device": 1}],
          "streams": [
            {"name": "a", "device": 0, "ops": [%1]},
            {"name": "b", "device": 1, "ops": [%2]}],
          "threads": [{"name": "t0", "device": 0, "streams": ["a"]}, {"name": "t1", "device": 1, "streams": ["b"]}]})";
        const QString kernel = R"({"op": "kernel", "duration": "1 us"})";
        QTest::newRow("three ranks for two GPUs")
            << two.arg(kernel, kernel) << 3
            << "a job of 3 ranks needs a workload on GPUs 0 to 2, each used; this one "
               "uses GPUs 0, 1: start it with mpirun -np 2";
        QTest::newRow("one rank for two GPUs") << two.arg(kernel, kernel) << 1 << "uses GPUs 0, 1";
        QTest::newRow("a peer copy") << two.arg(R"({"op": "copy", "src": "d0", "dst": "d1", "peer": true})", kernel)
                                     << 2
                                     << "stream 'a' op 0 (/streams/0/ops/0, line 5) copies between two GPUs, which "
                                        "are two processes here";
        QTest::newRow("another rank's buffer")
            << two.arg(kernel, R"({"op": "memset", "buffer": "d0", "value": 0})") << 2
            << "stream 'b' op 0 (/streams/1/ops/0, line 6) uses buffer 'd0' of GPU 0, another rank's";
        QTest::newRow("an event of another rank")
            << two.arg(R"({"op": "record", "event": "x"})", R"({"op": "wait", "event": "x"})") << 2
            << "stream 'b' op 0 (/streams/1/ops/0, line 6) waits on event 'x', which stream 'a' records on GPU 0";
        QTest::newRow("a sync of another rank's stream")
            << two.arg(kernel, R"({"op": "sync", "target": "stream", "stream": "a"})") << 2
            << "synchronises stream 'a', which is on another rank's GPU 0";
        QTest::newRow("one thread for two GPUs") << QString(R"({"version": 2, "name": "w", "streams": [
            {"name": "a", "device": 0, "ops": [{"op": "kernel", "duration": "1 us"}]},
            {"name": "b", "device": 1, "ops": [{"op": "kernel", "duration": "1 us"}]}]})")
                                                 << 2 << "host thread 'main' drives GPUs 0 and 1 (stream 'b')";
    }

    void whatCrossesRanksIsRefused()
    {
        QFETCH(QString, text);
        QFETCH(int, ranks);
        QFETCH(QString, expected);
        const Workload w = parseWorkload(text.toStdString(), "w.json");
        try {
            checkRankSplit(w, ranks);
            QFAIL("accepted");
        } catch (const Error &e) {
            QVERIFY(e.kind() == ErrorKind::InvalidInput);
            const QString message = QString::fromStdString(e.what());
            QVERIFY2(message.startsWith("workload 'w' cannot run as one process per rank: "), qPrintable(message));
            QVERIFY2(message.contains(expected), qPrintable(message));
        }
    }
};

QTEST_GUILESS_MAIN(TestRankPart)
#include "tst_rank_part.moc"
