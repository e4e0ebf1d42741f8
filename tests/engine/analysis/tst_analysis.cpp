// Analysis on a hand-computed trace (tests/engine/trace_fixture.h): unions, concurrency, overlap,
// ideal bound, efficiency, bandwidth, host blocking, spreads and the activity/bandwidth profiles.
#include "engine/formats/native_format.h"
#include <QDir>
#include <QtTest>
#include <algorithm>
#include <limits>

#include "engine/analysis/analysis.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope;
using engine::OpKind;
using Intervals = QList<QPair<qint64, qint64>>;

class TestAnalysis : public QObject {
    Q_OBJECT
private slots:
    void spread_data();
    void spread();
    void unionLength_data();
    void unionLength();
    void hostBlocking_data();
    void hostBlocking();
    void repetitionStats();
    void graphLaunchIsTheHostCall();
    void scaledRepetition();
    void summaryAcrossRepetitions();
    void activityProfile();
    void bandwidthProfile();
    void emptyAndOutOfRange();
    void extremeTimesDoNotWrap();
    void bundledExamplesStayUnderTheLink();
    void bundledExamplesKeepStreamOrder();
    void severalGpusCountedPerGpu();
    void peerCopiesAloneHaveAnIdealBound();
};

void TestAnalysis::spread_data()
{
    QTest::addColumn<QList<double>>("samples");
    QTest::addColumn<double>("median");
    QTest::addColumn<double>("min");
    QTest::addColumn<double>("max");
    QTest::newRow("one") << QList<double>{5} << 5.0 << 5.0 << 5.0;
    QTest::newRow("odd unsorted") << QList<double>{9, 1, 5} << 5.0 << 1.0 << 9.0;
    QTest::newRow("even") << QList<double>{4, 1, 3, 2} << 2.5 << 1.0 << 4.0;
    QTest::newRow("outlier") << QList<double>{10, 10, 10, 1000} << 10.0 << 10.0 << 1000.0;
}

void TestAnalysis::spread()
{
    QFETCH(QList<double>, samples);
    QFETCH(double, median);
    QFETCH(double, min);
    QFETCH(double, max);
    const auto s = engine::spreadOf(std::vector<double>(samples.begin(), samples.end()));
    QCOMPARE(s.median, median);
    QCOMPARE(s.min, min);
    QCOMPARE(s.max, max);
    QCOMPARE(s.count, int(samples.size()));
}

void TestAnalysis::unionLength_data()
{
    QTest::addColumn<Intervals>("intervals");
    QTest::addColumn<qint64>("expected");
    using I = Intervals;
    QTest::newRow("empty") << I{} << qint64(0);
    QTest::newRow("disjoint") << I{{0, 10}, {20, 25}} << qint64(15);
    QTest::newRow("overlapping unsorted") << I{{5, 15}, {0, 10}} << qint64(15);
    QTest::newRow("nested") << I{{0, 100}, {10, 20}, {30, 40}} << qint64(100);
    QTest::newRow("touching") << I{{0, 10}, {10, 20}} << qint64(20);
    QTest::newRow("zero and negative length ignored") << I{{5, 5}, {9, 3}, {0, 1}} << qint64(1);
}

void TestAnalysis::unionLength()
{
    QFETCH(Intervals, intervals);
    QFETCH(qint64, expected);
    std::vector<std::pair<std::int64_t, std::int64_t>> v;
    for (const auto &p : intervals)
        v.emplace_back(p.first, p.second);
    QCOMPARE(engine::unionLength(v), expected);
}

void TestAnalysis::hostBlocking_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<qint64>("gpuNs");
    QTest::addColumn<qint64>("hostNs");
    QTest::addColumn<bool>("blocking");
    QTest::newRow("pinned async returns at once") << int(OpKind::CopyH2D) << qint64(300'000) << qint64(1'400) << false;
    QTest::newRow("pageable async holds the host")
        << int(OpKind::CopyH2D) << qint64(1'000'000) << qint64(980'000) << true;
    QTest::newRow("sync copy") << int(OpKind::CopyD2H) << qint64(300'000) << qint64(310'000) << true;
    QTest::newRow("tiny copy is launch cost") << int(OpKind::CopyH2D) << qint64(4'000) << qint64(3'000) << false;
    // A 1 MiB cudaMemcpyAsync: its 12 us call returned 9 us before its 20 us copy ended (it was marked
    // blocking on the duration alone).
    QTest::newRow("async call returns while its copy runs")
        << int(OpKind::CopyH2D) << qint64(20'000) << qint64(12'000) << false;
    QTest::newRow("call that returns as its copy ends")
        << int(OpKind::CopyH2D) << qint64(20'000) << qint64(20'000) << true;
    QTest::newRow("kernel launch") << int(OpKind::Kernel) << qint64(1'000'000) << qint64(4'000) << false;
    // A 2 us kernel launched in a 7 us call ran and ended inside the call: the call did not wait for it (every
    // launch of the many-small-kernels lesson was drawn as blocking before).
    QTest::newRow("short kernel ends inside its launch call")
        << int(OpKind::Kernel) << qint64(2'000) << qint64(7'000) << false;
    // A launch that returned only as its 20 us kernel ended (a full launch queue) did wait.
    QTest::newRow("launch that waits for its kernel")
        << int(OpKind::Kernel) << qint64(20'000) << qint64(21'000) << true;
    QTest::newRow("stream sync waits") << int(OpKind::HostSync) << qint64(-1) << qint64(200'000) << true;
    QTest::newRow("host work is work") << int(OpKind::HostWork) << qint64(-1) << qint64(200'000) << false;
}

void TestAnalysis::hostBlocking()
{
    QFETCH(int, kind);
    QFETCH(qint64, gpuNs);
    QFETCH(qint64, hostNs);
    QFETCH(bool, blocking);
    test::TraceBuilder b;
    b.op(static_cast<OpKind>(kind), gpuNs >= 0 ? 1000 : engine::kNoTime, gpuNs >= 0 ? 1000 + gpuNs : engine::kNoTime)
        .host(0, hostNs);
    QCOMPARE(engine::isHostBlocking(b.last()), blocking);
}

// Graph mode: the ops have no calls of their own and the repetition's cudaGraphLaunch is a host range of category
// launch. It is the repetition's host call: the makespan starts with it and the host's time in API calls counts it.
// An NVTX range around everything is an annotation and changes neither.
void TestAnalysis::graphLaunchIsTheHostCall()
{
    engine::Trace trace =
        test::TraceBuilder().thread("main").stream("s0").kernel(1'000, 2'000).kernel(2'100, 3'000).build();
    for (engine::OpRecord &op : trace.repetitions[0].ops) {
        op.hostStartNs = op.hostEndNs = engine::kNoTime;
        op.flags |= engine::OpFlagGraphNode;
    }
    engine::HostRange annotation;
    annotation.startNs = -50'000;
    annotation.endNs = 50'000;
    annotation.nameId = trace.intern("everything");
    annotation.hostThread = 0;
    trace.repetitions[0].hostRanges.push_back(annotation);
    engine::HostRange launch = annotation;
    launch.startNs = 200;
    launch.endNs = 700;
    launch.nameId = trace.intern("cudaGraphLaunch (2 nodes)");
    launch.category = engine::HostRangeCategory::Launch;
    trace.repetitions[0].hostRanges.push_back(launch);
    const engine::RepetitionStats st = engine::analyzeRepetition(trace, 0);
    QCOMPARE(st.makespanNs, std::int64_t(2'800)); // 200 .. 3000
    QCOMPARE(st.gpuSpanNs, std::int64_t(2'000));
    QCOMPARE(st.hostCallNs, std::int64_t(500));
    QCOMPARE(st.hostBlockedNs, std::int64_t(0));
}

void TestAnalysis::repetitionStats()
{
    const auto t = test::handTrace();
    const auto st = engine::analyzeRepetition(t, 0);
    QCOMPARE(st.startNs, 0);
    QCOMPARE(st.endNs, 352'000);
    QCOMPARE(st.makespanNs, 352'000);
    QCOMPARE(st.gpuSpanNs, 350'000);
    QCOMPARE(st.h2dBusyNs, 200'000); // [0,100) + [150,250)
    QCOMPARE(st.d2hBusyNs, 100'000);
    QCOMPARE(st.computeBusyNs, 200'000);
    QCOMPARE(st.concurrentNs, 150'000); // [150,250) B+C, [250,300) B+D; A->B back to back is not concurrent
    QCOMPARE(st.copyComputeOverlapNs, 150'000);
    QCOMPARE(st.overlapFraction, 0.75); // 150 / min(max(200,100), 200)
    QCOMPARE(st.idealBoundNs, 200'000);
    QCOMPARE(st.efficiency, 200.0 / 352.0);
    QCOMPARE(st.h2dBytes, 2'000'000u);
    QCOMPARE(st.d2hBytes, 2'000'000u);
    QCOMPARE(st.h2dGBs, 10.0);
    QCOMPARE(st.d2hGBs, 20.0);
    QCOMPARE(st.hostCallNs, 352'000);
    QCOMPARE(st.hostBlockedNs, 346'000);
    QCOMPARE(int(st.streams.size()), 2);
    QCOMPARE(st.streams[0].busyNs, 300'000);
    QCOMPARE(st.streams[1].busyNs, 200'000);
    QCOMPARE(st.streams[0].ops, 2);
    QCOMPARE(st.streams[0].busyFraction, 300.0 / 352.0);
}

void TestAnalysis::scaledRepetition()
{
    // Repetition 2 is repetition 0 with every duration tripled: times triple, ratios stay.
    const auto t = test::handTrace();
    const auto a = engine::analyzeRepetition(t, 0);
    const auto c = engine::analyzeRepetition(t, 2);
    QCOMPARE(c.makespanNs, 3 * a.makespanNs);
    QCOMPARE(c.startNs, 20'000'000);
    QCOMPARE(c.idealBoundNs, 3 * a.idealBoundNs);
    QCOMPARE(c.efficiency, a.efficiency);
    QCOMPARE(c.overlapFraction, a.overlapFraction);
    QCOMPARE(c.h2dGBs, a.h2dGBs / 3.0);
}

void TestAnalysis::summaryAcrossRepetitions()
{
    const auto t = test::handTrace(3);
    const auto s = engine::summarize(t);
    QCOMPARE(int(s.repetitions.size()), 3);
    QCOMPARE(s.makespanNs.median, 704'000.0);
    QCOMPARE(s.makespanNs.min, 352'000.0);
    QCOMPARE(s.makespanNs.max, 1'056'000.0);
    QCOMPARE(s.medianRepetition, 1);
    QCOMPARE(s.h2dGBs.max, 10.0);
    QCOMPARE(s.h2dGBs.median, 5.0);
    QCOMPARE(s.efficiency.min, s.efficiency.max);
    QCOMPARE(int(s.streamBusyFraction.size()), 2);
    QCOMPARE(s.d2dGBs.count, 0); // no D2D copies: no samples, not zeros
}

void TestAnalysis::activityProfile()
{
    const auto t = test::handTrace(1);
    const auto steps = engine::activityProfile(t, 0);
    struct E {
        std::int64_t t;
        int h2d, d2h, compute;
    };
    const std::vector<E> expected = {{0, 1, 0, 0},       {100'000, 0, 0, 1}, {150'000, 1, 0, 1},
                                     {250'000, 0, 1, 1}, {300'000, 0, 1, 0}, {350'000, 0, 0, 0}};
    QCOMPARE(steps.size(), expected.size());
    for (std::size_t i = 0; i < steps.size(); ++i) {
        QCOMPARE(steps[i].timeNs, expected[i].t);
        QCOMPARE(steps[i].h2d, expected[i].h2d);
        QCOMPARE(steps[i].d2h, expected[i].d2h);
        QCOMPARE(steps[i].compute, expected[i].compute);
    }
}

void TestAnalysis::bandwidthProfile()
{
    const auto t = test::handTrace(1);
    const auto steps = engine::bandwidthProfile(t, 0);
    struct E {
        std::int64_t t;
        double h2d, d2h;
    };
    const std::vector<E> expected = {{0, 10, 0}, {100'000, 0, 0}, {150'000, 10, 0}, {250'000, 0, 20}, {350'000, 0, 0}};
    QCOMPARE(steps.size(), expected.size());
    for (std::size_t i = 0; i < steps.size(); ++i) {
        QCOMPARE(steps[i].timeNs, expected[i].t);
        QCOMPARE(steps[i].h2dGBs, expected[i].h2d);
        QCOMPARE(steps[i].d2hGBs, expected[i].d2h);
    }
}

void TestAnalysis::emptyAndOutOfRange()
{
    engine::Trace empty;
    const auto s = engine::summarize(empty);
    QCOMPARE(s.makespanNs.count, 0);
    const auto t = test::handTrace(1);
    const auto st = engine::analyzeRepetition(t, 7);
    QCOMPARE(st.makespanNs, 0);
    QVERIFY(engine::activityProfile(t, -1).empty());
    QVERIFY(engine::bandwidthProfile(t, 5).empty());
}

// No bundled recording shows a bandwidth above the link: every repetition's per-direction bandwidth
// profile and every copy's own GB/s stay under the link the bytes crossed (2 % for rounding): an H2D or
// D2H copy its GPU's host link; a peer copy the link between the two GPUs where peer access was on, or,
// staged through the host, the slower of the two GPUs' host links (it crosses both). Event timing broke
// this (the overlap lesson read 112 GB/s on a 63 GB/s link, a staged peer copy 1264.6 GB/s across two
// 63 GB/s links); CUPTI timing must not. A link whose peak the trace does not know fails the test.
void TestAnalysis::bundledExamplesStayUnderTheLink()
{
    const QDir dir(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples"));
    const QStringList files = dir.entryList({QStringLiteral("*.sstrace")}, QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 11);
    int hostCopies = 0, peerCopies = 0;
    for (const QString &file : files) {
        const engine::Trace t = engine::readNativeTrace(dir.filePath(file).toStdString());
        QVERIFY2(t.timing == engine::TimingSource::Cupti, qPrintable(file + ": not timed by CUPTI"));
        auto hostPeak = [&](int device) { // 0 (unknown) for a device the trace does not describe
            return device >= 0 && device < int(t.devices.size()) ? t.devices[std::size_t(device)].linkPeakGBs : 0.0;
        };
        QVERIFY2(!t.devices.empty(), qPrintable(file));
        for (int r = 0; r < int(t.repetitions.size()); ++r) {
            // Each GPU's host link carries its own copies: its profile against its peak.
            for (int d = 0; d < int(t.devices.size()); ++d) {
                const double peak = hostPeak(d);
                QVERIFY2(peak > 0,
                         qPrintable(QStringLiteral("%1: device %2's host link has no known peak").arg(file).arg(d)));
                double highest = 0;
                for (const engine::BandwidthStep &step : engine::bandwidthProfile(t, r, d))
                    highest = std::max({highest, step.h2dGBs, step.d2hGBs});
                QVERIFY2(highest <= peak * 1.02,
                         qPrintable(QStringLiteral("%1, repetition %2: device %3 at %4 GB/s, above its "
                                                   "link's %5 GB/s")
                                        .arg(file)
                                        .arg(r)
                                        .arg(d)
                                        .arg(highest)
                                        .arg(peak)));
            }
            for (const engine::OpRecord &op : t.repetitions[std::size_t(r)].ops) {
                const QString what =
                    QStringLiteral("%1, repetition %2: '%3'").arg(file).arg(r).arg(QString::fromStdString(t.name(op)));
                double limit = 0;
                if (op.kind == engine::OpKind::CopyH2D || op.kind == engine::OpKind::CopyD2H) {
                    QVERIFY2(op.stream >= 0 && op.stream < int(t.streams.size()), qPrintable(what));
                    limit = hostPeak(t.streams[std::size_t(op.stream)].device);
                    ++hostCopies;
                } else if (op.kind == engine::OpKind::CopyP2P) {
                    if (op.stagedPeer()) {
                        limit = std::min(hostPeak(op.srcDevice), hostPeak(op.dstDevice));
                    } else {
                        for (const engine::PeerLink &l : t.peerLinks)
                            if (l.src == op.srcDevice && l.dst == op.dstDevice)
                                limit = l.peakGBps;
                    }
                    ++peerCopies;
                } else {
                    continue;
                }
                QVERIFY2(limit > 0, qPrintable(what + QStringLiteral(": the link it crossed has no known peak")));
                QVERIFY2(
                    op.gbPerSecond() <= limit * 1.02,
                    qPrintable(
                        what + QStringLiteral(": %1 GB/s above the link's %2 GB/s").arg(op.gbPerSecond()).arg(limit)));
            }
        }
    }
    qInfo("%d host copies and %d peer copies bounded by their links", hostCopies, peerCopies);
    QVERIFY(hostCopies > 0);
}

// What the derived lanes count as in flight agrees with the stream lanes: on one stream, ops run one after
// another, so no op's transfer interval (a staged copy's spans its host call) may overlap the execution of
// another op of its stream. A cudaMemcpy called while a kernel ran on its stream once counted its wait for
// the kernel as transfer (the sync-vs-async lesson showed 33 % copy/compute overlap on one stream).
void TestAnalysis::bundledExamplesKeepStreamOrder()
{
    const QDir dir(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples"));
    const QStringList files = dir.entryList({QStringLiteral("*.sstrace")}, QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 11);
    // Execution and stream-ready come from two clocks (2 us), and a wait under 5 us is not told apart from
    // the event's own latency (OpRecord::transferStartNs).
    constexpr qint64 kToleranceNs = 7'000;
    for (const QString &file : files) {
        const engine::Trace t = engine::readNativeTrace(dir.filePath(file).toStdString());
        for (const engine::Repetition &rep : t.repetitions) {
            for (std::size_t i = 0; i < rep.ops.size(); ++i) {
                const engine::OpRecord &a = rep.ops[i];
                if (!a.hasGpu() || a.stream < 0 || engine::engineClassOf(a) == engine::EngineClass::None)
                    continue;
                for (std::size_t j = 0; j < rep.ops.size(); ++j) {
                    const engine::OpRecord &b = rep.ops[j];
                    if (j == i || b.stream != a.stream || !b.hasGpu()
                        || engine::engineClassOf(b) == engine::EngineClass::None)
                        continue;
                    const qint64 overlap =
                        std::min(a.transferEndNs(), b.gpuEndNs) - std::max(a.transferStartNs(), b.gpuStartNs);
                    QVERIFY2(
                        overlap <= kToleranceNs,
                        qPrintable(QStringLiteral("%1, repetition %2: '%3' in flight %4 us over '%5' on its stream")
                                       .arg(file)
                                       .arg(rep.index)
                                       .arg(QString::fromStdString(t.name(a)))
                                       .arg(overlap / 1e3)
                                       .arg(QString::fromStdString(t.name(b)))));
                }
            }
        }
    }
}

// A trace made in memory may hold any int64 (the readers keep files within engine/model/limits.h): the
// makespan of an op from near -2^63 to 2^63 - 1 wrapped negative, and sums of durations wrapped.
void TestAnalysis::extremeTimesDoNotWrap()
{
    test::TraceBuilder b;
    b.stream(engine::StreamInfo{"s0"});
    constexpr qint64 lo = std::numeric_limits<qint64>::min() + 2, hi = std::numeric_limits<qint64>::max();
    for (int i = 0; i < 3; ++i)
        b.h2d(lo, hi, std::numeric_limits<std::uint64_t>::max() / 2).named("k").host(lo, hi);
    const engine::Trace t = b.build();
    const auto st = engine::analyzeRepetition(t, 0);
    QVERIFY2(st.makespanNs > 0, qPrintable(QString::number(st.makespanNs)));
    QCOMPARE(st.makespanNs, std::numeric_limits<qint64>::max());
    QVERIFY(st.gpuSpanNs > 0);
    QVERIFY(st.hostCallNs > 0);
    QVERIFY(st.h2dBusyNs > 0);
    QVERIFY(st.streams[0].busyNs > 0);
    QCOMPARE(st.h2dBytes, std::numeric_limits<std::uint64_t>::max()); // saturated, not 3/2 of it wrapped
    QVERIFY(st.efficiency >= 0 && st.efficiency <= 1.0001);
}

// Two GPUs, one stream each: GPU 0 copies [0, 100) us then computes [100, 200); GPU 1 computes [0, 100)
// then copies [100, 200); 5 MB each copy. Counted per GPU, nothing overlaps (one stream per GPU) and no
// two ops run at once on one GPU; each GPU's host link carried 5 MB in 100 us, 50 GB/s; the busiest
// engine is busy 100 us. Mixed across GPUs these read 100 % overlap, 200 us concurrent and a 200 us bound.
// And both GPUs' copies at once: 50 GB/s per link, not 100 over one.
void TestAnalysis::severalGpusCountedPerGpu()
{
    test::TraceBuilder b(test::twoGpuTrace());
    b.trace().streams = {{"gpu0", 0, 1, 0, true, false}, {"gpu1", 1, 2, 0, true, false}};
    b.withoutRepetitions().onThread(0);
    b.onStream(0).h2d(0, 100'000, 5'000'000).named("copy0").host(0, 2'000);
    b.kernel(100'000, 200'000).named("kernel0").host(2'000, 4'000);
    b.onStream(1).kernel(0, 100'000).named("kernel1").host(4'000, 6'000);
    b.h2d(100'000, 200'000, 5'000'000).named("copy1").host(6'000, 8'000);
    engine::Trace t = b.build();
    const engine::RepetitionStats st = engine::analyzeRepetition(t, 0);
    QCOMPARE(st.copyComputeOverlapNs, std::int64_t(0));
    QCOMPARE(st.overlapFraction, 0.0);
    QCOMPARE(st.concurrentNs, std::int64_t(0));
    QCOMPARE(st.idealBoundNs, std::int64_t(100'000));
    QCOMPARE(st.efficiency, 0.5);
    QCOMPARE(st.h2dGBs, 50.0);
    // Both copies at once (GPU 1 now copies first, then computes): two links busy for 100 us each.
    t.repetitions[0].ops[3].gpuStartNs = 0;
    t.repetitions[0].ops[3].gpuEndNs = 100'000;
    t.repetitions[0].ops[2].gpuStartNs = 100'000;
    t.repetitions[0].ops[2].gpuEndNs = 200'000;
    const engine::RepetitionStats both = engine::analyzeRepetition(t, 0);
    QCOMPARE(both.h2dBusyNs, std::int64_t(200'000));
    QCOMPARE(both.h2dGBs, 50.0);
    QCOMPARE(both.overlapFraction, 0.0);
    // Two kernels at once on GPU 0 over [0, 100) us and on GPU 1 over [50, 150): concurrent GPU time is
    // when either ran two, 150 us (a union: summed over the GPUs it read 200 us, and could pass the makespan).
    test::TraceBuilder two(std::move(t));
    two.stream({"gpu0 b", 0, 3, 0, true, false}).stream({"gpu1 b", 1, 4, 0, true, false}).withoutRepetitions();
    two.onStream(0).kernel(0, 100'000).named("a0").host(0, 1'000);
    two.onStream(2).kernel(0, 100'000).named("b0").host(1'000, 2'000);
    two.onStream(1).kernel(50'000, 150'000).named("a1").host(2'000, 3'000);
    two.onStream(3).kernel(50'000, 150'000).named("b1").host(3'000, 4'000);
    t = two.build();
    QCOMPARE(engine::analyzeRepetition(t, 0).concurrentNs, std::int64_t(150'000));
}

// A trace of peer copies alone: each direction is a link of its own, busy 100 us; the bound read 0 ns
// and the efficiency 0 %.
void TestAnalysis::peerCopiesAloneHaveAnIdealBound()
{
    test::TraceBuilder b(test::twoGpuTrace());
    b.trace().streams = {{"gpu0", 0, 1, 0, true, false}, {"gpu1", 1, 2, 0, true, false}};
    b.withoutRepetitions().onThread(0);
    b.onStream(0).p2p(0, 100'000, 40'000'000, 0, 1).named("0 to 1").host(0, 1'000);
    b.onStream(1).p2p(0, 100'000, 40'000'000, 1, 0).named("1 to 0").host(100'000, 200'000); // the makespan: 200 us
    const engine::Trace t = b.build();
    const engine::RepetitionStats st = engine::analyzeRepetition(t, 0);
    QCOMPARE(st.idealBoundNs, std::int64_t(100'000));
    QCOMPARE(st.makespanNs, std::int64_t(200'000));
    QCOMPARE(st.efficiency, 0.5);
}

QTEST_APPLESS_MAIN(TestAnalysis)
#include "tst_analysis.moc"
