// Tests of engine::rangeStatistics on the hand-made trace, whose times are known to the microsecond:
//   A: H2D  s0 GPU [0,100) us  1 MB  host [0,2)
//   B: kern s0 GPU [100,300)        host [2,4)
//   C: H2D  s1 GPU [150,250)  1 MB  host [4,6)
//   D: D2H  s1 GPU [250,350)  2 MB  host [6,352)   (a blocking copy)
#include <QtTest>

#include "engine/analysis/range_statistics.h"
#include "engine/model/errors.h"
#include "engine/workload/pipeline_generator.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope;

class TestRangeStatistics : public QObject {
    Q_OBJECT

private:
    static const engine::RangeNameStats *name(const engine::RangeStatistics &s, const std::string &n)
    {
        for (const auto &x : s.names)
            if (x.name == n)
                return &x;
        return nullptr;
    }
    static const engine::RangeLaneStats *lane(const engine::RangeStatistics &s, const std::string &n)
    {
        for (const auto &x : s.lanes)
            if (x.lane == n)
                return &x;
        return nullptr;
    }

private slots:
    void clippedToTheRange()
    {
        const engine::Trace t = test::handTrace(1);
        // [50, 200) us: half of A, half of B, half of C; D not at all on the GPU.
        const auto s = engine::rangeStatistics(t, 0, 50'000, 200'000);
        QCOMPARE(s.lengthNs(), std::int64_t(150'000));
        QCOMPARE(s.ops, 3);
        QCOMPARE(int(s.names.size()), 3);
        QCOMPARE(s.names.front().name, std::string("B: kernel")); // the largest total first
        QCOMPARE(s.names.front().totalNs, std::int64_t(100'000));
        QCOMPARE(s.names.front().share, 100.0 / 150.0);
        const auto *a = name(s, "A: H2D 1 MB");
        QVERIFY(a);
        QCOMPARE(a->count, 1);
        QCOMPARE(a->totalNs, std::int64_t(50'000));
        QCOMPARE(a->minNs, std::int64_t(50'000));
        QVERIFY(a->kind == engine::OpKind::CopyH2D);
        QVERIFY(!name(s, "D: D2H 2 MB"));
        // Bytes prorated: half of each 1 MB H2D copy is in the range; over 150 us that is 6.67 GB/s.
        QCOMPARE(s.h2dBytes, 1'000'000.0);
        QCOMPARE(s.d2hBytes, 0.0);
        QVERIFY(qAbs(s.h2dGBs - 1e6 / 1e9 / 150e-6) < 1e-9);
        // Lanes: s0 busy the whole range (A then B), s1 from 150 to 200; the host thread not at all
        // (D's call [6, 352) us overlaps, and counts).
        QCOMPARE(lane(s, "s0")->busyNs, std::int64_t(150'000));
        QCOMPARE(lane(s, "s0")->ops, 2);
        QCOMPARE(lane(s, "s1")->busyNs, std::int64_t(50'000));
        QVERIFY(lane(s, "main"));
        QVERIFY(lane(s, "main")->host);
        QCOMPARE(lane(s, "main")->busyNs, std::int64_t(150'000));
        // Copy [50,100) and [150,200), compute [100,200): overlap [150,200).
        QCOMPARE(s.copyNs, std::int64_t(100'000));
        QCOMPARE(s.computeNs, std::int64_t(100'000));
        QCOMPARE(s.overlapNs, std::int64_t(50'000));
        // B and C run together from 150 to 200; A ends where B starts (not concurrent).
        QCOMPARE(s.concurrentNs, std::int64_t(50'000));
        QCOMPARE(s.maxConcurrent, 2);
    }

    void selectedOpsOnly()
    {
        const engine::Trace t = test::handTrace(1);
        // A and C: two H2D copies on two streams. Their span is [0, 250) us (host calls from 0); B runs
        // inside it but is not selected, so it does not count.
        const auto s = engine::selectionStatistics(t, 0, {0, 2, 2});
        QCOMPARE(s.selectedOps, 2); // the repeated index counts once
        QCOMPARE(s.ops, 2);
        QCOMPARE(s.startNs, std::int64_t(0));
        QCOMPARE(s.endNs, std::int64_t(250'000));
        QVERIFY(!name(s, "B: kernel"));
        QCOMPARE(s.h2dBytes, 2'000'000.0);
        QCOMPARE(s.computeNs, std::int64_t(0));
        QCOMPARE(s.copyNs, std::int64_t(200'000)); // [0,100) and [150,250)
        QCOMPARE(s.concurrentNs, std::int64_t(0));
        QCOMPARE(lane(s, "s0")->ops, 1);
        QCOMPARE(lane(s, "main")->busyNs, std::int64_t(4'000)); // A's and C's calls, not B's
        // The same span as a time range counts B too.
        QCOMPARE(engine::rangeStatistics(t, 0, 0, 250'000).ops, 3); // A, B, C (D starts at its end)
        QVERIFY(engine::rangeStatisticsCsv(s).find("total,selection,,2,250000") != std::string::npos);

        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::selectionStatistics(t, 0, {7}));
        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::selectionStatistics(t, 0, {}));
        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::selectionStatistics(t, 3, {0}));
    }

    void wholeRepetitionAndEdges()
    {
        const engine::Trace t = test::handTrace(2);
        // Repetition 1 is twice as long and starts at 10 ms: times are relative to its own start.
        const auto s = engine::rangeStatistics(t, 1, 0, 704'000);
        QCOMPARE(s.ops, 4);
        QCOMPARE(s.h2dBytes, 2'000'000.0);
        QCOMPARE(s.d2hBytes, 2'000'000.0);
        QCOMPARE(name(s, "B: kernel")->totalNs, std::int64_t(400'000));
        // An op that only touches the range's edge is not in it.
        const auto edge = engine::rangeStatistics(t, 0, 100'000, 150'000); // A ends at 100, C starts at 150
        QCOMPARE(edge.ops, 1); // B
        QCOMPARE(edge.names.front().name, std::string("B: kernel"));
        QCOMPARE(edge.concurrentNs, std::int64_t(0));
        QCOMPARE(edge.maxConcurrent, 1);
    }

    // A pipeline's ops are named per chunk ("H2D 1 MB [c0]", "[c1]"...): the table has a row per stage,
    // not per op. A tag that is not a chunk's stays in the name.
    void chunksOfOneStageAreOneName()
    {
        engine::Trace t = test::handTrace(1);
        auto &ops = t.repetitions[0].ops;
        ops[0].nameId = t.intern("H2D 1 MB" + engine::chunkTag(0));
        ops[2].nameId = t.intern("H2D 1 MB" + engine::chunkTag(12));
        ops[1].nameId = t.intern("kernel [cx]");
        const auto s = engine::rangeStatistics(t, 0, 0, 400'000);
        QCOMPARE(int(s.names.size()), 3);
        const auto *h2d = name(s, "H2D 1 MB");
        QVERIFY(h2d);
        QCOMPARE(h2d->count, 2);
        QCOMPARE(h2d->totalNs, std::int64_t(200'000));
        QVERIFY(name(s, "kernel [cx]"));
        QCOMPARE(engine::withoutChunkTag("H2D 4 MiB pinned [c3]"), std::string_view("H2D 4 MiB pinned"));
        QCOMPARE(engine::withoutChunkTag("[c3]"), std::string_view("[c3]"));
        QCOMPARE(engine::withoutChunkTag("a [c]"), std::string_view("a [c]"));
        QCOMPARE(engine::withoutChunkTag("a [c1] b"), std::string_view("a [c1] b"));
    }

    void csvAndErrors()
    {
        engine::Trace t = test::handTrace(1);
        t.repetitions[0].ops[1].nameId = t.intern("kernel, \"quoted\"");
        const auto s = engine::rangeStatistics(t, 0, 0, 400'000);
        const QString csv = QString::fromStdString(engine::rangeStatisticsCsv(s));
        const QStringList lines = csv.split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.first(), QStringLiteral("section,name,kind,count,total_ns,mean_ns,min_ns,max_ns,share"));
        QVERIFY2(csv.contains(QStringLiteral("name,\"kernel, \"\"quoted\"\"\",kernel,1,200000,")), qPrintable(csv));
        QVERIFY(csv.contains(QStringLiteral("lane,s0,stream,2,300000")));
        QVERIFY(csv.contains(QStringLiteral("total,h2d_bytes,,,2000000")));
        QCOMPARE(lines.size(), 1 + 4 + 3 + 6); // header, names, lanes (s0, s1, main), totals
        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::rangeStatistics(t, 0, 10, 10));
        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::rangeStatistics(t, 3, 0, 10));
    }
};

QTEST_MAIN(TestRangeStatistics)
#include "tst_range_statistics.moc"
