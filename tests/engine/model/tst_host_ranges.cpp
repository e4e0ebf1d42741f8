// layoutHostRanges: rows (depth) for nested and crossing ranges per thread, each op tied to the innermost
// range around its call's start, and no quadratic time on deep nesting (#13).
#include <QtTest>

#include "engine/model/host_ranges.h"
#include "tests/common/trace_builder.h"
#include "tests/linear_time.h"

using namespace streamscope;
using engine::HostRange;

class TestHostRanges : public QObject {
    Q_OBJECT
private slots:
    void nestedRangesTakeTheirDepth();
    void crossingRangesNeverShareARow();
    void opsTakeTheInnermostRangeOnTheirThread();
    void launchLookup();
    void deepNestingIsLinear();
};

namespace {

HostRange range(std::int64_t start, std::int64_t end, int thread = 0, std::uint32_t name = 0)
{
    HostRange r;
    r.startNs = start;
    r.endNs = end;
    r.hostThread = thread;
    r.nameId = name;
    return r;
}

// Host calls 5 ns long, each at its start on its thread (-1: none), as a trace holds them.
std::vector<engine::OpRecord> calls(const std::vector<std::pair<std::int64_t, int>> &starts)
{
    test::TraceBuilder b;
    for (const auto &[start, thread] : starts)
        b.onThread(thread).hostOp(engine::OpKind::Other, start, start + 5);
    return starts.empty() ? std::vector<engine::OpRecord>{} : b.build().repetitions[0].ops;
}

QString depths(const engine::Repetition &rep)
{
    QStringList s;
    for (const HostRange &r : rep.hostRanges)
        s << QStringLiteral("%1@%2").arg(r.startNs).arg(r.depth);
    return s.join(' ');
}

} // namespace

void TestHostRanges::nestedRangesTakeTheirDepth()
{
    engine::Repetition rep;
    // Given out of order: outer [0,100) holds a [10,40) (which holds [12,20) and [20,30), back to back)
    // and b [50,90); [100,120) follows outer on row 0; an identical twin of b nests under it.
    rep.hostRanges = {range(50, 90), range(12, 20),   range(0, 100), range(20, 30),
                      range(10, 40), range(100, 120), range(50, 90)};
    engine::layoutHostRanges(rep);
    QCOMPARE(depths(rep), QStringLiteral("0@0 10@1 12@2 20@2 50@1 50@2 100@0"));
    const auto rows = engine::hostRangeRows(rep, 1);
    QCOMPARE(rows.size(), std::size_t(2));
    QCOMPARE(rows[1], 3);
    QCOMPARE(rows[0], 0); // no range of an unknown thread
}

void TestHostRanges::crossingRangesNeverShareARow()
{
    // NVTX start/end ranges need not nest: a staircase of ranges that each overlap the next takes two
    // rows, not one per range, and no row holds two that overlap.
    engine::Repetition rep;
    for (int i = 0; i < 50; ++i)
        rep.hostRanges.push_back(range(i * 10, i * 10 + 15));
    engine::layoutHostRanges(rep);
    int maxDepth = 0;
    for (const HostRange &r : rep.hostRanges)
        maxDepth = std::max(maxDepth, r.depth);
    QCOMPARE(maxDepth, 1);
    for (std::size_t i = 0; i < rep.hostRanges.size(); ++i)
        for (std::size_t j = i + 1; j < rep.hostRanges.size(); ++j) {
            const HostRange &a = rep.hostRanges[i], &b = rep.hostRanges[j];
            if (a.depth == b.depth && a.hostThread == b.hostThread)
                QVERIFY2(
                    a.endNs <= b.startNs || b.endNs <= a.startNs,
                    qPrintable(QStringLiteral("%1 and %2 share row %3").arg(a.startNs).arg(b.startNs).arg(a.depth)));
        }
}

void TestHostRanges::opsTakeTheInnermostRangeOnTheirThread()
{
    engine::Repetition rep;
    // Thread 0: outer [0,1000) holding inner [100,200) and late [150,190) (inside inner); thread 1: a range
    // around t = 160 that must not count for thread 0's calls.
    rep.hostRanges = {range(0, 1000, 0, 1), range(100, 200, 0, 2), range(150, 190, 0, 3), range(140, 170, 1, 4)};
    rep.ops = calls({{50, 0}, {120, 0}, {160, 0}, {195, 0}, {1500, 0}, {160, 1}, {160, -1}});
    rep.ops.push_back(
        test::TraceBuilder().op(engine::OpKind::Other, engine::kNoTime, engine::kNoTime).last()); // no host call at all
    engine::layoutHostRanges(rep);
    auto nameOf = [&](int op) {
        const HostRange *r = rep.enclosingRange(rep.ops[std::size_t(op)]);
        return r ? int(r->nameId) : -1;
    };
    QCOMPARE(nameOf(0), 1); // only outer
    QCOMPARE(nameOf(1), 2); // inner
    QCOMPARE(nameOf(2), 3); // late, the innermost
    QCOMPARE(nameOf(3), 2); // late has ended: inner again
    QCOMPARE(nameOf(4), -1); // after everything
    QCOMPARE(nameOf(5), 4); // the other thread's own range
    QCOMPARE(nameOf(6), -1); // no thread, no range
    QCOMPARE(nameOf(7), -1);
    // A call exactly at a range's end still lies in it (as Nsight counts it).
    rep.ops = calls({{200, 0}});
    engine::layoutHostRanges(rep);
    QCOMPARE(nameOf(0), 2);
}

void TestHostRanges::launchLookup()
{
    engine::Repetition rep;
    rep.ops.resize(10);
    engine::KernelLaunch a, b;
    a.op = 2;
    a.grid[0] = 64;
    b.op = 7;
    b.block[0] = 128;
    rep.kernelLaunches = {a, b};
    QVERIFY(rep.launchOf(2) && rep.launchOf(2)->grid[0] == 64);
    QVERIFY(rep.launchOf(7) && rep.launchOf(7)->block[0] == 128);
    QVERIFY(!rep.launchOf(3));
    QVERIFY(!rep.launchOf(-1));
    QVERIFY(!rep.launchOf(100));
    QCOMPARE(a.threads(), std::uint64_t(0)); // no block recorded
    a.block[0] = 256;
    QCOMPARE(a.threads(), std::uint64_t(64 * 256));

    // Latency timestamps (KernelLaunch::queuedNs/submittedNs) merge into the table: onto op 2's launch,
    // and as launches of their own before, between and after the others, the table staying sorted.
    std::vector<engine::KernelLaunch> latency(4);
    const int ops[] = {0, 2, 5, 9};
    for (std::size_t i = 0; i < latency.size(); ++i) {
        latency[i].op = ops[i];
        latency[i].queuedNs = 100 * ops[i];
        latency[i].submittedNs = 100 * ops[i] + 50;
    }
    rep.setKernelLatency(latency);
    QCOMPARE(rep.kernelLaunches.size(), std::size_t(5));
    for (std::size_t i = 1; i < rep.kernelLaunches.size(); ++i)
        QVERIFY(rep.kernelLaunches[i - 1].op < rep.kernelLaunches[i].op);
    QVERIFY(rep.launchOf(2)->grid[0] == 64 && rep.launchOf(2)->queuedNs == 200 && rep.launchOf(2)->hasDetails());
    QVERIFY(rep.launchOf(7)->block[0] == 128 && !rep.launchOf(7)->hasLatency());
    for (const int op : {0, 5, 9}) {
        QVERIFY(rep.launchOf(op) && rep.launchOf(op)->hasLatency() && !rep.launchOf(op)->hasDetails());
        QCOMPARE(rep.launchOf(op)->submittedNs, std::int64_t(100 * op + 50));
    }
}

void TestHostRanges::deepNestingIsLinear()
{
    // 200k ranges nested in one another with 1000 calls at the bottom: each range's depth is its nesting
    // level and each call is tied to the innermost range around it. Quadratic code walks n^2 / 2 stack
    // entries (2e10 here). Timed against the same number of ranges one after another (never deeper than
    // one): linear code lays the nested ones out in 2.2-3.4x the time (its stack is 200k deep), quadratic
    // code thousands of times slower. (Timing 50k against 200k nested ranges read 3.3-8.3x on the busy
    // build machine for linear code: too close to quadratic's 16 to tell them apart; tests/linear_time.h.)
    auto ranges = [](int count, bool nested) {
        engine::Repetition rep;
        rep.hostRanges.reserve(std::size_t(count));
        for (int i = 0; i < count; ++i)
            rep.hostRanges.push_back(nested ? range(i, 2 * count - i, 0, std::uint32_t(i))
                                            : range(2 * i, 2 * i + 1, 0, std::uint32_t(i)));
        std::vector<std::pair<std::int64_t, int>> starts;
        for (int i = 0; i < 1000; ++i)
            starts.emplace_back((nested ? count : 2 * count) + i, 0);
        rep.ops = calls(starts);
        return rep;
    };
    constexpr int kDepth = 200'000;
    engine::Repetition rep = ranges(kDepth, true);
    engine::layoutHostRanges(rep);
    QCOMPARE(rep.hostRanges.back().depth, kDepth - 1);
    QCOMPARE(rep.enclosingRange(rep.ops[0])->nameId, std::uint32_t(kDepth - 1));
    QCOMPARE(rep.enclosingRange(rep.ops.back())->nameId,
             std::uint32_t(kDepth - 999)); // [j, 2k - j] holds t = k + 999 up to j = k - 999
    engine::Repetition flat = ranges(kDepth, false);
    engine::layoutHostRanges(flat);
    QCOMPARE(flat.hostRanges.back().depth, 0);

    auto layout = [&](bool nested) {
        engine::Repetition r = ranges(kDepth, nested);
        return test::elapsedNs([&] { engine::layoutHostRanges(r); });
    };
    const test::Timings t = test::bestOfThree([&] { return layout(false); }, [&] { return layout(true); });
    qInfo("%d ranges laid out: one after another in %.1f ms, nested in one another in %.1f ms (x%.2f; linear "
          "2-3.4, quadratic thousands)",
          kDepth, t.baseNs / 1e6, t.testedNs / 1e6, t.ratio());
    QVERIFY2(t.ratio() < test::kSameSizeLimit,
             qPrintable(QStringLiteral("nested took %1x as long as one after another").arg(t.ratio())));
}

QTEST_GUILESS_MAIN(TestHostRanges)
#include "tst_host_ranges.moc"
