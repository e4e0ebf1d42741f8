// The trace diff on hand-made traces (trace_fixture.h) and variants of them: identical traces,
// shifted times, renamed ops, a missing op, renamed streams, a faster trace, both statistics, the
// name normaliser, and the error for a trace without repetitions.
#include <QtTest>

#include "engine/analysis/trace_diff.h"
#include "engine/model/errors.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope;

namespace QTest {
inline bool qCompare(streamscope::engine::VerdictKind t1, streamscope::engine::VerdictKind t2, const char *actual,
                     const char *expected, const char *file, int line)
{
    return qCompare(static_cast<int>(t1), static_cast<int>(t2), actual, expected, file, line);
}
inline bool qCompare(streamscope::engine::MatchMethod t1, streamscope::engine::MatchMethod t2, const char *actual,
                     const char *expected, const char *file, int line)
{
    return qCompare(static_cast<int>(t1), static_cast<int>(t2), actual, expected, file, line);
}
} // namespace QTest

namespace {

// Every op named `name` in every repetition: shift all its times by `us` microseconds.
void shiftOp(engine::Trace &t, const std::string &name, std::int64_t us)
{
    for (auto &rep : t.repetitions)
        for (auto &op : rep.ops)
            if (t.name(op) == name)
                for (auto *v : {&op.gpuStartNs, &op.gpuEndNs, &op.hostStartNs, &op.hostEndNs})
                    *v += us * 1000;
}

void renameOp(engine::Trace &t, const std::string &from, const std::string &to)
{
    const auto id = t.intern(to);
    for (auto &rep : t.repetitions)
        for (auto &op : rep.ops)
            if (t.name(op) == from)
                op.nameId = id;
}

void removeOp(engine::Trace &t, const std::string &name)
{
    for (auto &rep : t.repetitions)
        std::erase_if(rep.ops, [&](const engine::OpRecord &op) { return t.name(op) == name; });
}

void scaleAll(engine::Trace &t, double k)
{
    for (auto &rep : t.repetitions)
        for (auto &op : rep.ops)
            for (auto *v : {&op.gpuStartNs, &op.gpuEndNs, &op.hostStartNs, &op.hostEndNs})
                *v = static_cast<std::int64_t>(static_cast<double>(*v) * k);
}

const engine::OpDelta *find(const engine::TraceDiff &d, const std::string &nameA)
{
    for (const auto &o : d.ops)
        if (o.a.name == nameA)
            return &o;
    return nullptr;
}

} // namespace

class TestTraceDiff : public QObject {
    Q_OBJECT
private slots:
    void identical();
    void shiftedTimes();
    void renamedOpMatchedByOrder();
    void unlikeOpsStayUnpaired();
    void renamedOpWithoutFallback();
    void hostCallsPairOnlyByName();
    void missingOp();
    void renamedStreams();
    void fasterTrace();
    void statistics();
    void normalizer();
    void normalizeOpName_data();
    void normalizeOpName();
    void emptyTrace();
};

void TestTraceDiff::identical()
{
    const auto a = test::handTrace(3);
    const auto d = engine::diffTraces(a, a);
    QCOMPARE(d.summary.matched, 4);
    QCOMPARE(d.summary.matchedByOrder, 0);
    QCOMPARE(d.summary.unmatchedA, 0);
    QCOMPARE(d.summary.unmatchedB, 0);
    QCOMPARE(d.summary.timed, 4);
    QCOMPARE(d.summary.makespanDeltaNs, 0.0);
    QCOMPARE(d.summary.makespan.kind, engine::VerdictKind::Noise);
    QCOMPARE(d.summary.maxAbsStartDeltaNs, 0.0);
    QCOMPARE(d.summary.maxAbsDurationDeltaNs, 0.0);
    QCOMPARE(int(d.streams.size()), 2);
    QCOMPARE(d.streams[0].nameA, std::string("s0"));
    QCOMPARE(d.streams[0].nameB, std::string("s0"));
    QCOMPARE(d.streams[0].opsA, 2);
    QCOMPARE(d.streams[0].opsB, 2);
    // s0 is busy [0,300) us in the base repetition: 300, 600, 900 us over the three.
    QCOMPARE(d.streams[0].busyA.median, 600000.0);
    QCOMPARE(d.streams[0].busy.kind, engine::VerdictKind::Noise);
    // Per-op medians: B (the kernel) starts at 100 us * (r+1) from each repetition's start: 200 us.
    const auto *kernel = find(d, "B: kernel");
    QVERIFY(kernel);
    QCOMPARE(kernel->a.startNs.median, 200000.0);
    QCOMPARE(kernel->a.durationNs.median, 400000.0);
    QCOMPARE(kernel->a.durationNs.min, 200000.0);
    QCOMPARE(kernel->a.durationNs.max, 600000.0);
    QCOMPARE(kernel->method, engine::MatchMethod::ByName);
    // The copy A moves 1 MB in 100, 200, 300 us: 10, 5, 3.33 GB/s, median 5.
    const auto *copy = find(d, "A: H2D 1 MB");
    QVERIFY(copy);
    QCOMPARE(copy->a.gbPerSecond.median, 5.0);
    QCOMPARE(copy->gbpsDelta, 0.0);
}

void TestTraceDiff::shiftedTimes()
{
    const auto a = test::handTrace(3);
    auto b = a;
    shiftOp(b, "D: D2H 2 MB", 50); // D starts 50 us later in every repetition, same duration
    const auto d = engine::diffTraces(a, b);
    QCOMPARE(d.summary.matched, 4);
    const auto *op = find(d, "D: D2H 2 MB");
    QVERIFY(op);
    QCOMPARE(op->startDeltaNs, 50000.0);
    QCOMPARE(op->durationDeltaNs, 0.0);
    QCOMPARE(op->duration.kind, engine::VerdictKind::Noise);
    QCOMPARE(find(d, "A: H2D 1 MB")->startDeltaNs, 0.0);
    QCOMPARE(d.summary.maxAbsStartDeltaNs, 50000.0);
    QCOMPARE(d.summary.meanAbsStartDeltaNs, 12500.0); // one op of four
    QCOMPARE(d.summary.medianAbsStartDeltaNs, 0.0);
    // The makespan grows by 50 us in every repetition: 352/704/1056 -> 402/754/1106; ranges overlap.
    QCOMPARE(d.summary.makespanDeltaNs, 50000.0);
    QCOMPARE(d.summary.makespan.kind, engine::VerdictKind::Noise);
}

void TestTraceDiff::renamedOpMatchedByOrder()
{
    // A copy another tool names differently: same stream, kind and size, so it is the same copy.
    const auto a = test::handTrace(3);
    auto b = a;
    renameOp(b, "A: H2D 1 MB", "[CUDA memcpy Host-to-Device]");
    const auto d = engine::diffTraces(a, b);
    QCOMPARE(d.summary.matched, 4);
    QCOMPARE(d.summary.matchedByOrder, 1);
    QCOMPARE(d.summary.unmatchedA, 0);
    const auto *op = find(d, "A: H2D 1 MB");
    QVERIFY(op);
    QCOMPARE(op->b.name, std::string("[CUDA memcpy Host-to-Device]"));
    QCOMPARE(op->method, engine::MatchMethod::ByOrder);
    QCOMPARE(op->a.bytes, op->b.bytes);
    QCOMPARE(op->startDeltaNs, 0.0);
}

void TestTraceDiff::unlikeOpsStayUnpaired()
{
    // A renamed kernel has no size to identify it: only its name could, so it is left unpaired, never
    // compared with whatever kernel happens to be in its place.
    const auto a = test::handTrace(3);
    auto b = a;
    renameOp(b, "B: kernel", "scale_kernel(float*, int)");
    auto d = engine::diffTraces(a, b);
    QCOMPARE(d.summary.matched, 3);
    QCOMPARE(d.summary.matchedByOrder, 0);
    QCOMPARE(d.summary.unmatchedA, 1);
    QCOMPARE(d.summary.unmatchedB, 1);
    QCOMPARE(d.unmatched[0].op.name, std::string("B: kernel"));
    QCOMPARE(d.unmatched[1].op.name, std::string("scale_kernel(float*, int)"));
    QVERIFY(!find(d, "B: kernel"));

    // A copy of another size is another copy ("H2D 16 MiB" is not "H2D 4 MiB" done faster).
    auto c = a;
    renameOp(c, "A: H2D 1 MB", "H2D 4 MB");
    for (auto &rep : c.repetitions)
        for (auto &op : rep.ops)
            if (c.name(op) == "H2D 4 MB")
                op.bytes *= 4;
    d = engine::diffTraces(a, c);
    QCOMPARE(d.summary.matchedByOrder, 0);
    QCOMPARE(d.summary.unmatchedA, 1);
    QCOMPARE(d.summary.unmatchedB, 1);
    QCOMPARE(d.unmatched[0].op.name, std::string("A: H2D 1 MB"));
    QCOMPARE(d.unmatched[1].op.name, std::string("H2D 4 MB"));
    QCOMPARE(d.unmatched[1].op.bytes, d.unmatched[0].op.bytes * 4);
}

void TestTraceDiff::renamedOpWithoutFallback()
{
    const auto a = test::handTrace(3);
    auto b = a;
    renameOp(b, "B: kernel", "scale_kernel");
    engine::DiffOptions options;
    options.fallbackToOrder = false;
    const auto d = engine::diffTraces(a, b, options);
    QCOMPARE(d.summary.matched, 3);
    QCOMPARE(d.summary.unmatchedA, 1);
    QCOMPARE(d.summary.unmatchedB, 1);
    QCOMPARE(int(d.unmatched.size()), 2);
    QCOMPARE(d.unmatched[0].side, 'A');
    QCOMPARE(d.unmatched[0].op.name, std::string("B: kernel"));
    QCOMPARE(d.unmatched[0].stream, std::string("s0"));
    QCOMPARE(d.unmatched[1].side, 'B');
    QCOMPARE(d.unmatched[1].op.name, std::string("scale_kernel"));
}

void TestTraceDiff::hostCallsPairOnlyByName()
{
    // Imported API calls on the host lane are all OpKind::Other: different calls must not be paired.
    auto withCalls = [](const char *call) {
        test::TraceBuilder t(test::handTrace(3));
        t.onThread(0);
        for (int r = 0; r < 3; ++r) {
            const std::int64_t base = t.trace().repetitions[std::size_t(r)].ops.front().hostStartNs;
            t.onRepetition(r).hostOp(engine::OpKind::Other, base, base + 1000).named(call).opIndex(-1);
            t.hostOp(engine::OpKind::Other, base, base + 1000).named("cudaDeviceSynchronize").opIndex(-1);
        }
        return t.build();
    };
    const auto a = withCalls("cudaMalloc"), b = withCalls("cudaFree");
    const auto d = engine::diffTraces(a, b);
    QCOMPARE(d.summary.matched, 5); // the four ops and cudaDeviceSynchronize
    QCOMPARE(d.summary.matchedByOrder, 0);
    QCOMPARE(d.summary.unmatchedA, 1);
    QCOMPARE(d.summary.unmatchedB, 1);
    QCOMPARE(d.unmatched[0].op.name, std::string("cudaMalloc"));
    QCOMPARE(d.unmatched[0].stream, std::string("host"));
    QCOMPARE(d.unmatched[1].op.name, std::string("cudaFree"));
    const auto *sync = find(d, "cudaDeviceSynchronize");
    QVERIFY(sync);
    QCOMPARE(sync->a.stream, -1);
    QVERIFY(sync->a.hasTime);
    QCOMPARE(sync->a.durationNs.median, 1000.0); // the host call's duration when there is no GPU part
}

void TestTraceDiff::missingOp()
{
    const auto a = test::handTrace(3);
    auto b = a;
    removeOp(b, "C: H2D 1 MB");
    const auto d = engine::diffTraces(a, b);
    QCOMPARE(d.summary.matched, 3);
    QCOMPARE(d.summary.unmatchedA, 1);
    QCOMPARE(d.summary.unmatchedB, 0);
    QCOMPARE(d.unmatched[0].op.name, std::string("C: H2D 1 MB"));
    QCOMPARE(d.unmatched[0].op.position, 0);
    QCOMPARE(d.unmatched[0].op.startNs.median, 300000.0); // 150 us * 2 in the median repetition
    // D is not mistaken for C although it now comes first on s1 (different name, different kind).
    const auto *op = find(d, "D: D2H 2 MB");
    QVERIFY(op);
    QCOMPARE(op->method, engine::MatchMethod::ByName);
    QCOMPARE(op->b.position, 0);
    QCOMPARE(d.streams[1].opsA, 2);
    QCOMPARE(d.streams[1].opsB, 1);
}

void TestTraceDiff::renamedStreams()
{
    const auto a = test::handTrace(3);
    auto b = a;
    b.streams[0].name = "Stream 13";
    b.streams[1].name = "Stream 14";
    const auto d = engine::diffTraces(a, b);
    QCOMPARE(int(d.streams.size()), 2);
    QCOMPARE(d.streams[0].nameB, std::string("Stream 13")); // s0 starts first, as Stream 13 does
    QCOMPARE(d.streams[0].method, engine::MatchMethod::ByOrder);
    QCOMPARE(d.streams[1].nameB, std::string("Stream 14"));
    QCOMPARE(d.summary.matched, 4);
    QCOMPARE(d.summary.matchedByOrder, 0); // the ops' own names still match
}

void TestTraceDiff::fasterTrace()
{
    const auto a = test::handTrace(3);
    auto b = a;
    scaleAll(b, 0.25); // makespans 88/176/264 us against 352/704/1056: no overlap
    const auto d = engine::diffTraces(a, b);
    QCOMPARE(d.summary.makespan.kind, engine::VerdictKind::Faster);
    QCOMPARE(d.summary.makespan.ratio, 4.0);
    QCOMPARE(d.summary.makespanDeltaNs, 176000.0 - 704000.0);
    const auto reverse = engine::diffTraces(b, a);
    QCOMPARE(reverse.summary.makespan.kind, engine::VerdictKind::Slower);
    // Times within each repetition scale too (start from each trace's own repetition start).
    const auto *kernel = find(d, "B: kernel");
    QCOMPARE(kernel->b.startNs.median, 50000.0);
    QCOMPARE(kernel->duration.kind, engine::VerdictKind::Faster);
    QCOMPARE(kernel->a.gbPerSecond.count, 0); // not a copy
}

void TestTraceDiff::statistics()
{
    // Repetition 1 has the median makespan (704 us). Lengthen copy A there only: the median
    // repetition sees 350 us, the per-op median of 100, 350, 300 us is 300 us.
    auto a = test::handTrace(3);
    for (auto &op : a.repetitions[1].ops)
        if (a.name(op) == "A: H2D 1 MB")
            op.gpuEndNs += 150'000;
    engine::DiffOptions perOp;
    engine::DiffOptions medianRep;
    medianRep.statistic = engine::DiffStatistic::MedianRepetition;
    const auto d1 = engine::diffTraces(a, a, perOp);
    const auto d2 = engine::diffTraces(a, a, medianRep);
    QCOMPARE(find(d1, "A: H2D 1 MB")->a.durationNs.median, 300000.0);
    QCOMPARE(find(d1, "A: H2D 1 MB")->a.durationNs.count, 3);
    QCOMPARE(find(d2, "A: H2D 1 MB")->a.durationNs.median, 350000.0);
    QCOMPARE(find(d2, "A: H2D 1 MB")->a.durationNs.count, 1);
}

void TestTraceDiff::normalizer()
{
    const auto a = test::handTrace(3);
    auto b = a;
    renameOp(b, "A: H2D 1 MB", "a: h2d  1 MB [c0]");
    renameOp(b, "C: H2D 1 MB", "  c: H2D 1 mb");
    engine::DiffOptions options;
    options.fallbackToOrder = false;
    QCOMPARE(engine::diffTraces(a, b, options).summary.matched, 2);
    options.normalizeName = [](std::string_view n) { return engine::normalizeOpName(n); };
    const auto d = engine::diffTraces(a, b, options);
    QCOMPARE(d.summary.matched, 4);
    QCOMPARE(d.summary.matchedByOrder, 0);
}

void TestTraceDiff::normalizeOpName_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("normal");
    QTest::newRow("chunk tag") << "H2D 4 MiB pinned [c0]"
                               << "h2d 4 mib pinned";
    QTest::newRow("signature") << "scale(float*, int)"
                               << "scale";
    QTest::newRow("spaces") << "  compute   1 ms "
                            << "compute 1 ms";
    QTest::newRow("brackets inside kept") << "a[1] b"
                                          << "a[1] b";
    QTest::newRow("leading paren kept") << "(anonymous)"
                                        << "(anonymous)";
}

void TestTraceDiff::normalizeOpName()
{
    QFETCH(QString, name);
    QFETCH(QString, normal);
    QCOMPARE(QString::fromStdString(engine::normalizeOpName(name.toStdString())), normal);
}

void TestTraceDiff::emptyTrace()
{
    engine::Trace empty;
    empty.sourcePath = "empty.sstrace";
    try {
        engine::diffTraces(test::handTrace(1), empty);
        QFAIL("accepted");
    } catch (const engine::Error &e) {
        QCOMPARE(int(e.kind()), int(engine::ErrorKind::InvalidInput));
        QVERIFY2(QString(e.what()).contains("empty.sstrace"), e.what());
    }
}

QTEST_GUILESS_MAIN(TestTraceDiff)
#include "tst_trace_diff.moc"
