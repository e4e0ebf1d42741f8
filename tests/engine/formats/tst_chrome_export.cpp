// Chrome Trace Event export: checked by an independent parser (python3's json module, through
// fixtures/check_chrome_trace.py) for strict JSON, Perfetto's nesting rule, named tracks and paired
// flows; exact nanosecond timestamps; string escaping; overflow tracks; and round trips through the
// Chrome importer (hand-made trace, native file -> Chrome -> import, and a real Nsight export); slices
// that touch end at or before the next one in double arithmetic too, as speedscope computes it.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "engine/formats/chrome_export.h"
#include "engine/formats/chrome_import.h"
#include "engine/formats/native_format.h"
#include "engine/formats/nsys_import.h"
#include "engine/formats/trace_header.h"
#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "engine/model/host_ranges.h"
#include "engine/model/limits.h"
#include "engine/util/file_util.h"
#include "tests/engine/trace_compare.h"
#include "tests/engine/trace_fixture.h"
#include "tests/linear_time.h"

using namespace streamscope;

class TestChromeExport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void independentParserAccepts_data();
    void independentParserAccepts();
    void checkerCatchesBrokenFiles_data();
    void checkerCatchesBrokenFiles();
    void layout();
    void exactTimestamps();
    void escaping();
    void overlappingOpsGoToOverflowTracks();
    void opsAtOneTimestampExportInLinearTime();
    void touchingSlicesInTheOverlapExample();
    void touchingSlicesAtAwkwardValues();
    void roundTripHandTrace();
    void piecesNestInTheirOp();
    void roundTripNativeFile();
    void unifiedMemoryTracks();
    void roundTripRealNsysExport_data();
    void roundTripRealNsysExport();
    void hostRangesAndLaunches();
    void threadsWriteTheSameBytes();
    void emptyTrace();
    void headerFieldsComeBack();
    void exportFormats();
    void unwritableTarget();
    void exportPastTheReadLimitIsRefused();

private:
    void checkTouchingSlices(const engine::Trace &trace);
    QString runChecker(const engine::Trace &trace, const engine::ChromeExportOptions &options = {});
    QTemporaryDir m_dir;
    QString m_python;
};

namespace {

nlohmann::json parse(const std::string &text)
{
    return nlohmann::json::parse(text);
}

// A trace with everything the exporter handles: two devices, host-only ops, an op without a stream,
// a second host thread, and repetitions on one time axis.
engine::Trace richTrace()
{
    auto t = test::handTrace(3);
    t.hostName = "gpu-host";
    t.streams.push_back({"other GPU stream", 1, 9, -1, false, true});
    engine::DeviceInfo second;
    second.index = 1;
    second.name = "Second GPU";
    t.devices.push_back(second);
    t.hostThreads.push_back({"worker", 43, 4242}); // with its process id, which must come back
    test::TraceBuilder b(std::move(t));
    b.onRepetition(1)
        .onStream(1)
        .onThread(1)
        .op(engine::OpKind::HostSync, engine::kNoTime, engine::kNoTime)
        .named("sync s1")
        .host(20'400'000, 20'700'000)
        .opIndex(4);
    b.like(1).named("kernel on GPU 1").correlation(99).opIndex(5);
    b.last().stream = 2;
    b.like(1).on(-1, -1).named("imported op without a stream").opIndex(6).flags(engine::OpFlagImported);
    return b.build();
}

} // namespace

void TestChromeExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_python = QStandardPaths::findExecutable("python3");
}

QString TestChromeExport::runChecker(const engine::Trace &trace, const engine::ChromeExportOptions &options)
{
    const QString path = m_dir.filePath("checked.json");
    engine::writeChromeTrace(trace, path.toStdString(), options);
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(m_python, {QStringLiteral(STREAMSCOPE_SOURCE_DIR "/tests/engine/fixtures/check_chrome_trace.py"), path});
    if (!p.waitForFinished(120000))
        return "python3 did not finish: " + p.errorString();
    const QString out = QString::fromUtf8(p.readAll()).trimmed();
    return p.exitCode() == 0 ? out : "exit " + QString::number(p.exitCode()) + ": " + out;
}

void TestChromeExport::independentParserAccepts_data()
{
    QTest::addColumn<int>("which");
    QTest::addColumn<bool>("hostCalls");
    QTest::addColumn<bool>("counters");
    QTest::addColumn<int>("expectedFlows");
    QTest::newRow("hand trace, everything") << 0 << true << true << 12;
    QTest::newRow("hand trace, no host calls") << 0 << false << true << 0;
    QTest::newRow("rich trace") << 1 << true << true << 14;
    QTest::newRow("rich trace, no counters") << 1 << true << false << 14;
}

void TestChromeExport::independentParserAccepts()
{
    QFETCH(int, which);
    QFETCH(bool, hostCalls);
    QFETCH(bool, counters);
    QFETCH(int, expectedFlows);
    if (m_python.isEmpty())
        QSKIP("python3 is not on PATH: the independent JSON check cannot run (CI installs python3)");
    engine::ChromeExportOptions options;
    options.hostCalls = hostCalls;
    options.counters = counters;
    const QString result = runChecker(which == 0 ? test::handTrace(3) : richTrace(), options);
    QVERIFY2(result.startsWith("OK "), qPrintable(result));
    QVERIFY2(result.contains(QString(" flows=%1 ").arg(expectedFlows)), qPrintable(result));
    QCOMPARE(result.contains(" counters=0 "), !counters);
}

void TestChromeExport::checkerCatchesBrokenFiles_data()
{
    // The independent check must be able to fail: files that break each rule it checks.
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected");
    const QByteArray names = R"({"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"p"}},)"
                             R"({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"t"}},)";
    QTest::newRow("partial overlap")
        << "{\"traceEvents\":[" + names
               + R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10},{"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":10}]})"
        << "partially overlaps";
    // 2176.57 + 60.8 is 2237.3700000000003 in doubles: speedscope would open b before closing a.
    QTest::newRow("touching slices past the next ts")
        << "{\"traceEvents\":[" + names
               + R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":2176.57,"dur":60.8},{"ph":"X","name":"b","pid":1,"tid":1,"ts":2237.37,"dur":1}]})"
        << "ends after event";
    QTest::newRow("unnamed track") << "{\"traceEvents\":[" + names
                                          + R"({"ph":"X","name":"a","pid":1,"tid":2,"ts":0,"dur":10}]})"
                                   << "has no thread_name";
    QTest::newRow("unpaired flow")
        << "{\"traceEvents\":[" + names
               + R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10,"bind_id":7,"flow_out":true}]})"
        << "do not pair up";
    QTest::newRow("trailing comma") << "{\"traceEvents\":[" + names + "]}"
                                    << "not strict JSON";
    QTest::newRow("NaN") << "{\"traceEvents\":[" + names
                                + R"({"ph":"C","name":"c","pid":1,"tid":0,"ts":0,"args":{"v":NaN}}]})"
                         << "non-standard constant";
}

void TestChromeExport::checkerCatchesBrokenFiles()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);
    if (m_python.isEmpty())
        QSKIP("python3 is not on PATH: the independent JSON check cannot run (CI installs python3)");
    const QString path = m_dir.filePath("broken.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(json);
    f.close();
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(m_python, {QStringLiteral(STREAMSCOPE_SOURCE_DIR "/tests/engine/fixtures/check_chrome_trace.py"), path});
    QVERIFY(p.waitForFinished(60000));
    const QString out = QString::fromUtf8(p.readAll());
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(out.startsWith("FAIL ") && out.contains(expected), qPrintable(out));
}

void TestChromeExport::layout()
{
    const auto t = richTrace();
    const auto doc = parse(engine::toChromeJson(t));
    QCOMPARE(doc["displayTimeUnit"], "ns");
    QCOMPARE(doc["streamscope"]["format"], "streamscope-chrome");
    std::map<int, std::string> processes;
    std::map<std::pair<int, int>, std::string> threads;
    int kernels = 0, copies = 0, runtime = 0, sorts = 0, counters = 0;
    for (const auto &e : doc["traceEvents"]) {
        const std::string ph = e["ph"];
        if (ph == "M" && e["name"] == "process_name")
            processes[e["pid"]] = e["args"]["name"];
        else if (ph == "M" && e["name"] == "thread_name")
            threads[{e["pid"], e["tid"]}] = e["args"]["name"];
        else if (ph == "M" && (e["name"] == "thread_sort_index" || e["name"] == "process_sort_index"))
            ++sorts;
        else if (ph == "C")
            ++counters;
        else if (ph == "X" && e["cat"] == "kernel")
            ++kernels;
        else if (ph == "X" && e["cat"] == "gpu_memcpy") {
            ++copies;
            // args carry what StreamScope knows of a copy
            const auto &a = e["args"];
            QVERIFY(a.contains("bytes") && a.contains("GB/s") && a.contains("src_mem") && a.contains("dst_mem"));
            QVERIFY(a.contains("op_index") && a.contains("repetition") && a.contains("stream"));
            QVERIFY(a["GB/s"].get<double>() > 0);
        } else if (ph == "X" && e["cat"] == "cuda_runtime")
            ++runtime;
    }
    QCOMPARE(processes.size(), std::size_t(4)); // host, analysis, GPU 0, GPU 1
    QCOMPARE(processes[1], std::string("host gpu-host"));
    QCOMPARE(processes[100], std::string("GPU 0: Test GPU"));
    QCOMPARE(processes[101], std::string("GPU 1: Second GPU"));
    QCOMPARE(kernels, 3 + 2); // one per repetition, plus two extra in repetition 1
    QCOMPARE(copies, 9);
    QCOMPARE(runtime, 12 + 3); // every op has a host call
    QVERIFY(counters > 0);
    QCOMPARE(sorts, int(processes.size() + threads.size()));
    std::set<std::string> names;
    for (const auto &[key, name] : threads)
        names.insert(name);
    QVERIFY(names.count("s0") && names.count("s1") && names.count("other GPU stream") && names.count("main")
            && names.count("worker") && names.count("(no stream)") && names.count("host (thread not recorded)"));
}

void TestChromeExport::exactTimestamps()
{
    engine::Trace t = test::handTrace(1);
    auto &op = t.repetitions[0].ops[1];
    op.gpuStartNs = 1'000'123; // origin is 0 (op A starts at 0): 1000.123 us
    op.gpuEndNs = 1'000'123 + 4'560; // dur 4.56 us
    const auto doc = parse(engine::toChromeJson(t));
    bool found = false;
    for (const auto &e : doc["traceEvents"])
        if (e["ph"] == "X" && e["name"] == "B: kernel" && e["cat"] == "kernel") {
            QCOMPARE(e["ts"].get<double>(), 1000.123);
            QCOMPARE(e["dur"].get<double>(), 4.56);
            found = true;
        }
    QVERIFY(found);
    const std::string text = engine::toChromeJson(t);
    QVERIFY(text.find("\"ts\":1000.123,\"dur\":4.56,") != std::string::npos);
}

void TestChromeExport::escaping()
{
    engine::Trace t = test::handTrace(1);
    const std::string tricky = "quote \" backslash \\ newline \n tab \t bell \x07 ünï \xff\xfe end";
    t.repetitions[0].ops[1].nameId = t.intern(tricky);
    t.streams[0].name = "stream \"zero\"";
    const auto doc = parse(engine::toChromeJson(t));
    bool found = false;
    for (const auto &e : doc["traceEvents"])
        if (e["ph"] == "X" && e["cat"] == "kernel") {
            // invalid UTF-8 bytes become U+FFFD; everything else comes back as it was
            QCOMPARE(e["name"].get<std::string>(),
                     std::string("quote \" backslash \\ newline \n tab \t bell \x07 ünï \xEF\xBF\xBD\xEF\xBF\xBD end"));
            found = true;
        }
    QVERIFY(found);
    if (!m_python.isEmpty()) {
        const QString result = runChecker(t);
        QVERIFY2(result.startsWith("OK "), qPrintable(result));
    }
}

void TestChromeExport::overlappingOpsGoToOverflowTracks()
{
    engine::Trace t = test::handTrace(1);
    auto &ops = t.repetitions[0].ops;
    // C [250, 400) us overlaps B [100, 300) partially on stream 0, as imported ops or repetitions may.
    ops[2].stream = 0;
    ops[2].gpuStartNs = 250'000;
    ops[2].gpuEndNs = 400'000;
    const auto doc = parse(engine::toChromeJson(t));
    std::map<std::pair<int, int>, std::string> names;
    std::map<std::string, std::string> trackOf;
    for (const auto &e : doc["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "thread_name")
            names[{e["pid"], e["tid"]}] = e["args"]["name"];
    for (const auto &e : doc["traceEvents"])
        if (e["ph"] == "X" && e["pid"] == 100)
            trackOf[e["name"]] = names[{e["pid"], e["tid"]}];
    QCOMPARE(trackOf["A: H2D 1 MB"], std::string("s0"));
    QCOMPARE(trackOf["B: kernel"], std::string("s0"));
    QCOMPARE(trackOf["C: H2D 1 MB"], std::string("s0 (2)"));
    QCOMPARE(trackOf["D: D2H 2 MB"], std::string("s1"));
    if (!m_python.isEmpty()) {
        const QString result = runChecker(t);
        QVERIFY2(result.startsWith("OK "), qPrintable(result));
    }
    // The op keeps its stream on the way back: overflow tracks are a drawing matter only.
    const auto back = engine::chromeTraceFromJson(engine::toChromeJson(t), "overflow.json");
    QCOMPARE(back.repetitions[0].ops[2].stream, 0);
    QCOMPARE(back.streams.size(), t.streams.size());
}

namespace {

// Consecutive slices of each track as a reader of doubles sees them. speedscope turns each X event into
// a begin at ts and an end at ts + dur after subtracting the track's earliest ts from every ts; where
// that end passes the next slice's ts by one ulp it opens the next slice first, cannot close this one,
// and draws it to the end of the profile. Counts what the exporter wrote before it fitted durations:
// the exact decimal of the duration in nanoseconds.
struct SliceEnds {
    int pairs = 0; // consecutive slices on one track
    int touching = 0; // ... where the next begins at exactly this one's end, in nanoseconds
    int exactWouldFail = 0; // ... where the exact decimal dur would end past the next ts
    int fitted = 0; // slices whose dur is not the exact decimal
    QString failure; // the first slice that ends past the next one, empty if none
};

SliceEnds sliceEnds(const nlohmann::json &doc)
{
    struct Slice {
        double ts;
        double dur;
    };
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Slice>> tracks;
    for (const auto &e : doc["traceEvents"])
        if (e["ph"] == "X")
            tracks[{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()}].push_back(
                {e["ts"].get<double>(), e["dur"].get<double>()});
    SliceEnds r;
    for (auto &[key, slices] : tracks) {
        std::sort(slices.begin(), slices.end(),
                  [](const Slice &a, const Slice &b) { return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur; });
        const double first = slices.front().ts;
        for (std::size_t i = 0; i + 1 < slices.size(); ++i) {
            const Slice &a = slices[i], &b = slices[i + 1];
            ++r.pairs;
            const std::int64_t startNs = std::llround(a.ts * 1000.0), durNs = std::llround(a.dur * 1000.0);
            const std::int64_t nextNs = std::llround(b.ts * 1000.0);
            const double exactDur = static_cast<double>(durNs) / 1000.0;
            r.fitted += a.dur != exactDur;
            if (startNs + durNs == nextNs) {
                ++r.touching;
                r.exactWouldFail += a.ts + exactDur > b.ts || (a.ts - first) + exactDur > b.ts - first;
            }
            if (r.failure.isEmpty() && (a.ts + a.dur > b.ts || (a.ts - first) + a.dur > b.ts - first))
                r.failure = QString("track (%1, %2): ts %3 + dur %4 ends past the next ts %5 (rebased on %6: %7 > %8)")
                                .arg(key.first)
                                .arg(key.second)
                                .arg(a.ts, 0, 'g', 17)
                                .arg(a.dur, 0, 'g', 17)
                                .arg(b.ts, 0, 'g', 17)
                                .arg(first, 0, 'g', 17)
                                .arg((a.ts - first) + a.dur, 0, 'g', 17)
                                .arg(b.ts - first, 0, 'g', 17);
        }
    }
    return r;
}

} // namespace

// The export of a trace whose slices touch: no slice ends past the next in doubles, the nanoseconds
// still come back exact, and the trace holds touching slices that the exact decimals would have broken
// (so that the check can fail).
// Ops that all overlap each go on a track of their own: finding the first free track scanned every track
// for each op, so 500k ops at one timestamp took 75 s (#24). The same count of ops one after another (one
// track) is the harmless shape.
void TestChromeExport::opsAtOneTimestampExportInLinearTime()
{
    constexpr int kOps = 60'000;
    const auto traceOf = [](bool sameTime) {
        test::TraceBuilder b;
        b.stream(engine::StreamInfo{"s0"});
        for (int i = 0; i < kOps; ++i) {
            const std::int64_t start = sameTime ? 0 : 1000LL * i;
            b.kernel(start, start + 900).named("k");
        }
        return b.build();
    };
    const engine::Trace sameTime = traceOf(true), sequential = traceOf(false);
    engine::ChromeExportOptions options;
    options.threads = 1;
    const auto timings =
        test::bestOfThree([&] { return test::elapsedNs([&] { engine::toChromeJson(sequential, options); }); },
                          [&] { return test::elapsedNs([&] { engine::toChromeJson(sameTime, options); }); });
    QVERIFY2(timings.ratio() < test::kSameSizeLimit,
             qPrintable(QStringLiteral("one timestamp / one after another: %1").arg(timings.ratio(), 0, 'f', 1)));
    const auto doc = parse(engine::toChromeJson(sameTime, options));
    std::set<std::int64_t> tids;
    for (const auto &e : doc["traceEvents"])
        if (e.value("ph", "") == "X" && e.value("name", "") == "k")
            tids.insert(e["tid"].get<std::int64_t>());
    QCOMPARE(tids.size(), std::size_t(kOps)); // a track each
}

void TestChromeExport::checkTouchingSlices(const engine::Trace &trace)
{
    const std::string text = engine::toChromeJson(trace);
    const SliceEnds ends = sliceEnds(parse(text));
    QVERIFY2(ends.failure.isEmpty(), qPrintable(ends.failure));
    QVERIFY(ends.touching > 0);
    QVERIFY2(ends.exactWouldFail > 0, "no touching slice here that the exact decimals break: the check proves nothing");
    QCOMPARE(ends.fitted, ends.exactWouldFail); // only the slices that need it are fitted
    const auto back = engine::chromeTraceFromJson(text, "touching.json");
    const QString diff = test::traceDifference(trace, back);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    if (!m_python.isEmpty()) {
        const QString result = runChecker(trace);
        QVERIFY2(result.startsWith("OK "), qPrintable(result));
    }
}

void TestChromeExport::touchingSlicesInTheOverlapExample()
{
    // Timed by events, consecutive ops of a stream share a CUDA event: 11 of its 120 GPU slices used to
    // end one ulp past the next one's ts in speedscope's sums (docs/formats.md, "Checked offline in
    // speedscope"). The overlap example as recorded on the H200 on 2026-11-22, before CUPTI timing.
    const auto t = engine::loadTrace(STREAMSCOPE_SOURCE_DIR "/tests/engine/fixtures/overlap-events-h200.sstrace");
    checkTouchingSlices(t);
    const SliceEnds ends = sliceEnds(parse(engine::toChromeJson(t)));
    QCOMPARE(ends.exactWouldFail, 11);
}

void TestChromeExport::touchingSlicesAtAwkwardValues()
{
    // Two back-to-back chains of ops with durations of odd nanoseconds: one near the origin, one an
    // hour later (where one ulp of a timestamp is ~0.5 ps); host calls back to back as well.
    using engine::OpKind;
    test::TraceBuilder b;
    b.title("touching").stream("near").stream("late").thread("main", 42).thread("late thread", 43);
    b.device(engine::DeviceInfo{});
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    auto awkward = [&](std::int64_t lo, std::int64_t span) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return lo + static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(span));
    };
    for (int s = 0; s < 2; ++s) {
        std::int64_t gpu = s == 0 ? 54'635 : 3'600'000'000'123;
        std::int64_t host = s == 0 ? 1'001 : 3'599'999'000'007;
        for (int i = 0; i < 400; ++i) {
            const bool kernel = i % 2 != 0;
            // The draws in this order: the GPU part's length, then the host call's.
            const std::int64_t gpuStart = gpu, hostStart = host;
            gpu += awkward(1, 2'000'000);
            host += awkward(1, 20'000);
            b.onStream(s)
                .onThread(s)
                .op(kernel ? OpKind::Kernel : OpKind::CopyH2D, gpuStart, gpu, kernel ? 0 : 4 << 20)
                .named(kernel ? "kernel" : "copy")
                .host(hostStart, host);
            if (!kernel)
                b.memory(engine::MemKind::Pinned, engine::MemKind::Device).api(engine::CopyApi::Async);
        }
    }
    const engine::Trace t = b.build();
    checkTouchingSlices(t);
}

void TestChromeExport::roundTripHandTrace()
{
    const auto t = richTrace();
    const auto back = engine::chromeTraceFromJson(engine::toChromeJson(t), "rich.json");
    const QString diff = test::traceDifference(t, back);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    QCOMPARE(back.hostName, t.hostName);
    QCOMPARE(back.title, t.title);
    QVERIFY(back.source == t.source);
}

// An op's pieces are slices nested in its GPU slice (the same track, inside its time), which Perfetto draws
// as a row under it, and come back from StreamScope's own file as the op's pieces.
void TestChromeExport::piecesNestInTheirOp()
{
    const auto t = test::withPieces(richTrace());
    const std::string text = engine::toChromeJson(t);
    const auto doc = parse(text);
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::pair<double, double>>> opSlices; // by track
    std::vector<nlohmann::json> pieces;
    for (const auto &e : doc["traceEvents"]) {
        if (e.value("ph", "") != "X")
            continue;
        if (e.value("cat", "") == "op_piece")
            pieces.push_back(e);
        else
            opSlices[{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()}].emplace_back(
                e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
    }
    QCOMPARE(pieces.size(), std::size_t(9)); // three per repetition
    for (const auto &p : pieces) {
        const auto &track = opSlices[{p["pid"].get<std::int64_t>(), p["tid"].get<std::int64_t>()}];
        const double ts = p["ts"].get<double>(), end = ts + p["dur"].get<double>();
        QVERIFY2(std::any_of(track.begin(), track.end(),
                             [&](const auto &op) { return op.first <= ts && end <= op.second + 1e-9; }),
                 qPrintable(QString::fromStdString(p.dump())));
    }
    QCOMPARE(pieces[0]["name"].get<std::string>(), std::string("nvjet_tst_128x64"));
    QCOMPARE(pieces[2]["name"].get<std::string>(), std::string("copy 1.91 MiB"));
    QCOMPARE(pieces[2]["args"]["channel_type"].get<std::string>(), std::string("async_copy"));
    const auto back = engine::chromeTraceFromJson(text, "pieces.json");
    const QString diff = test::traceDifference(t, back);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    if (!m_python.isEmpty()) {
        const QString result = runChecker(t);
        QVERIFY2(result.startsWith("OK "), qPrintable(result));
    }
    // Pieces that ran at once (copies on two copy engines) cannot nest under their op: left out, and the op says
    // so; an unnamed kernel piece comes back unnamed.
    auto overlapping = test::withPieces(richTrace());
    for (auto &rep : overlapping.repetitions) {
        rep.opPieces[1].startNs = rep.opPieces[0].endNs - 1; // op B's second kernel begins before the first ends
        rep.opPieces[0].nameId = engine::kNoString;
    }
    const std::string overlapText = engine::toChromeJson(overlapping);
    QVERIFY(overlapText.find("\"pieces_left_out\":\"2 pieces, some of which ran at once") != std::string::npos);
    const auto overlapBack = engine::chromeTraceFromJson(overlapText, "overlap.json");
    QVERIFY(overlapBack.repetitions[0].piecesOf(1).empty());
    QCOMPARE(overlapBack.repetitions[0].piecesOf(3).size(), std::size_t(1));
    auto unnamed = test::withPieces(richTrace());
    unnamed.repetitions[0].opPieces[0].nameId = engine::kNoString;
    const auto unnamedBack = engine::chromeTraceFromJson(engine::toChromeJson(unnamed), "unnamed.json");
    QCOMPARE(test::traceDifference(unnamed, unnamedBack), QString());
    if (!m_python.isEmpty()) {
        const QString result = runChecker(overlapping);
        QVERIFY2(result.startsWith("OK "), qPrintable(result));
    }
    // Another tool's file with a slice of that category: not StreamScope's, so a slice of a kind it ignores.
    const auto other = engine::chromeTraceFromJson(
        R"({"traceEvents": [
            {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 0, "dur": 10,
             "args": {"device": 0, "stream": 7}},
            {"ph": "X", "cat": "op_piece", "name": "p", "pid": 0, "tid": 7, "ts": 1, "dur": 2,
             "args": {"repetition": 0, "op": 0, "kind": "kernel"}}]})",
        "other.json");
    QCOMPARE(other.opCount(), std::size_t(1));
    QVERIFY(other.repetitions[0].opPieces.empty());
}

// The driver's unified-memory records go on tracks of their own in the GPU's process (overlapping
// ones on overflow tracks, as Perfetto needs), and come back from StreamScope's own file unchanged.
void TestChromeExport::unifiedMemoryTracks()
{
    auto t = richTrace();
    auto add = [&](engine::ActivityKind kind, std::int64_t start, std::int64_t end, std::uint64_t value, int op) {
        engine::ActivityRecord a;
        a.kind = kind;
        a.detail = kind == engine::ActivityKind::GpuPageFaults ? engine::ActivityDetail::Write
                                                               : engine::ActivityDetail::Coherence;
        a.startNs = start;
        a.endNs = end;
        a.value = value;
        a.address = 0x7f1200000000ull + std::uint64_t(start);
        a.op = op;
        t.repetitions[1].activities.push_back(a);
    };
    add(engine::ActivityKind::GpuPageFaults, 100'000, 180'000, 12, 1);
    add(engine::ActivityKind::GpuPageFaults, 120'000, 150'000, 3, 1); // overlaps the first group
    add(engine::ActivityKind::MigrationH2D, 130'000, 140'000, 2u << 20, 1);
    add(engine::ActivityKind::MigrationH2D, 140'000, 150'500, 2u << 20, 1); // touches the previous one
    add(engine::ActivityKind::MigrationD2H, 200'000, 260'000, 64u << 20, -1);
    add(engine::ActivityKind::RemoteMap, 270'000, 270'000, 4096, -1);
    const std::string json = engine::toChromeJson(t);
    QVERIFY(json.find("\"name\":\"page migration H2D\"") != std::string::npos);
    QVERIFY(json.find("\"name\":\"GPU page faults (2)\"") != std::string::npos); // the overflow track
    QVERIFY(json.find("\"name\":\"UM H2D 2 MiB\"") != std::string::npos);
    const auto back = engine::chromeTraceFromJson(json, "um.json");
    const QString diff = test::traceDifference(t, back);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    if (!m_python.isEmpty()) {
        const QString result = runChecker(t, {});
        QVERIFY2(result.startsWith("OK "), qPrintable(result));
    }
}

void TestChromeExport::roundTripNativeFile()
{
    // native -> chrome -> import: the ops that come back are the native file's ops.
    const auto t = richTrace();
    const std::string native = m_dir.filePath("rt.sstrace").toStdString();
    const std::string chrome = m_dir.filePath("rt.json").toStdString();
    engine::exportTrace(t, engine::ExportFormat::Native, native);
    const auto loaded = engine::loadTrace(native);
    engine::exportTrace(loaded, engine::ExportFormat::Chrome, chrome);
    QVERIFY(engine::detectFileKindOfContent(engine::toChromeJson(loaded), chrome) == engine::FileKind::ChromeJson);
    const auto back = engine::loadTrace(chrome);
    const QString diff = test::traceDifference(loaded, back);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    QCOMPARE(back.sourcePath, chrome);
}

void TestChromeExport::roundTripRealNsysExport_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("4 streams") << "nsys-2026.1.1_rtx4060ti_4streams.sqlite";
    // 19118 NVTX ranges on two ranks' threads, 4010 kernels with their launch details.
    QTest::newRow("torchrun, NVTX") << "nsys-2026.2.1_2xh100_torchrun_windowed.sqlite";
}

void TestChromeExport::roundTripRealNsysExport()
{
    QFETCH(QString, name);
    const QString file = QStringLiteral(STREAMSCOPE_SHARED_DIR "/data/real-traces/") + name;
    if (!QFileInfo::exists(file))
        QSKIP("../shared/data/real-traces is not beside the checkout: no real Nsight export to round-trip");
    const auto t = engine::importNsysSqlite(file.toStdString());
    QVERIFY(t.opCount() > 16);
    const auto back = engine::chromeTraceFromJson(engine::toChromeJson(t), "nsys.json");
    const QString diff = test::traceDifference(t, back);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    if (!m_python.isEmpty()) {
        const QString result = runChecker(t);
        QVERIFY2(result.startsWith("OK "), qPrintable(result));
    }
}

// Host ranges go on tracks of their own under their thread (one per depth, named "<thread> · NVTX
// (depth N)"), kernels carry Kineto's launch args and the name of their range, and StreamScope's own
// file reads back the same ranges, links and launches.
void TestChromeExport::hostRangesAndLaunches()
{
    auto t = richTrace();
    for (std::size_t r = 0; r < t.repetitions.size(); ++r) {
        auto &rep = t.repetitions[r];
        const std::int64_t base = rep.ops[0].hostStartNs;
        auto range = [&](const char *name, engine::HostRangeCategory category, int thread, std::int64_t start,
                         std::int64_t end) {
            engine::HostRange h;
            h.nameId = t.intern(name);
            h.category = category;
            h.hostThread = thread;
            h.startNs = base + start;
            h.endNs = base + end;
            rep.hostRanges.push_back(h);
        };
        range("step", engine::HostRangeCategory::Nvtx, 0, 0, 400'000);
        range("forward", engine::HostRangeCategory::Nvtx, 0, 0, 3'000);
        range("backward", engine::HostRangeCategory::Nvtx, 0, 3'000, 9'000); // touches forward
        range("crossing", engine::HostRangeCategory::Nvtx, 0, 2'000, 5'000); // crosses both: depth 2
        range("aten::mm", engine::HostRangeCategory::CpuOp, 1, 10, 500);
        range("no thread", engine::HostRangeCategory::PythonFunction, -1, 10, 20);
        rep.hostRanges.back().domainId = t.intern("a domain");
        engine::KernelLaunch l;
        l.op = 1;
        l.grid[0] = 80;
        l.grid[1] = l.grid[2] = 1;
        l.block[0] = 1024;
        l.block[1] = l.block[2] = 1;
        l.registersPerThread = 64;
        l.sharedBytes = 49152;
        l.staticSharedBytes = 16384;
        l.dynamicSharedBytes = 32768;
        l.fullNameId = t.intern("void k<(int)3>(float *)");
        l.queuedNs = rep.ops[1].gpuStartNs - 3'000; // CUPTI's latency timestamps: queued_ns, submitted_ns
        l.submittedNs = rep.ops[1].gpuStartNs - 1'000;
        // A library op's work: a GEMM's arithmetic, a collective's bus bytes (exported as args, read back).
        l.flops = 2ull * 4096 * 4096 * 4096;
        l.busBytes = 64ull << 20;
        l.workId = t.intern("work of B");
        rep.kernelLaunches = {l};
        engine::layoutHostRanges(rep);
    }
    for (const auto &h : t.repetitions[0].hostRanges)
        if (t.string(h.nameId) == "crossing")
            QCOMPARE(h.depth, 2);
    const std::string text = engine::toChromeJson(t);
    const auto json = parse(text);
    QStringList tracks;
    for (const auto &e : json["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 1)
            tracks << QString::fromStdString(e["args"]["name"].get<std::string>());
    // ("main (2)": the hand trace's calls of different repetitions overlap in time.)
    QCOMPARE(tracks.join(" | "),
             QStringLiteral("main | main (2) | main · NVTX | main · NVTX (depth 1) | main · NVTX (depth 2) | worker | "
                            "worker · CPU ops | host (thread not recorded) | host (thread not recorded) · CPU ops"));
    bool sawKernel = false;
    const engine::KernelLaunch l0 = t.repetitions[0].kernelLaunches.at(0);
    for (const auto &e : json["traceEvents"])
        if (e.value("cat", "") == "kernel" && e["args"]["repetition"] == 0 && e["name"] == "B: kernel") {
            sawKernel = true;
            QCOMPARE(e["args"]["grid"].dump(), std::string("[80,1,1]"));
            QCOMPARE(e["args"]["block"].dump(), std::string("[1024,1,1]"));
            QCOMPARE(e["args"]["shared memory"].get<int>(), 49152);
            QCOMPARE(e["args"]["registers per thread"].get<int>(), 64);
            QCOMPARE(e["args"]["nvtx"].get<std::string>(), std::string("crossing"));
            QCOMPARE(e["args"]["queued_ns"].get<std::int64_t>(), l0.queuedNs);
            QCOMPARE(e["args"]["submitted_ns"].get<std::int64_t>(), l0.submittedNs);
            QCOMPARE(e["args"]["bus bytes"].get<std::uint64_t>(), 64ull << 20);
            QCOMPARE(e["args"]["work"].get<std::string>(), std::string("work of B"));
        }
    QVERIFY(sawKernel);
    const auto back = engine::chromeTraceFromJson(text, "ranges.json");
    const QString diff = test::traceDifference(t, back);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    int domains = 0;
    for (const auto &h : back.repetitions[2].hostRanges)
        domains += back.string(h.domainId) == "a domain" && back.string(h.nameId) == "no thread";
    QCOMPARE(domains, 1);
    if (!m_python.isEmpty()) {
        const QString result = runChecker(t);
        QVERIFY2(result.startsWith("OK "), qPrintable(result));
    }
}

void TestChromeExport::threadsWriteTheSameBytes()
{
    // Parallel chunks are joined in order: the file is the same whatever the thread count, including
    // chunk borders inside a repetition and repetitions shorter than a chunk, for the ops and for the
    // counter steps (5 threads: each repetition's counters in 5 parts, each starting from the state of
    // the steps before it).
    engine::Trace t = richTrace();
    for (int copy = 0; copy < 40; ++copy) {
        engine::Repetition rep = t.repetitions[copy % 3];
        rep.index = 3 + copy;
        const std::int64_t shift = std::int64_t(copy + 1) * 100'000'000; // past 2^31 from the 22nd copy
        for (auto &op : rep.ops) {
            op.gpuStartNs += shift;
            op.gpuEndNs += shift;
            op.hostStartNs += shift;
            op.hostEndNs += shift;
        }
        t.repetitions.push_back(std::move(rep));
    }
    engine::ChromeExportOptions one, several;
    one.threads = 1;
    several.threads = 5;
    const std::string serial = engine::toChromeJson(t, one);
    QCOMPARE(engine::toChromeJson(t, several), serial);
    several.counters = false;
    one.counters = false;
    QCOMPARE(engine::toChromeJson(t, several), engine::toChromeJson(t, one));
    const QString diff =
        test::traceDifference(t, engine::chromeTraceFromJson(engine::toChromeJson(t, several), "threads.json"));
    QVERIFY2(diff.isEmpty(), qPrintable(diff));

    // Written to a file, the parts go out as they are finished (the last one without its comma):
    // the file holds exactly the string's bytes, whatever the thread count.
    const QString path = m_dir.filePath("threads.json");
    for (int threads : {1, 2, 5, 64}) {
        engine::ChromeExportOptions options;
        options.threads = threads;
        engine::writeChromeTrace(t, path.toStdString(), options);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll().toStdString(), serial);
    }
}

void TestChromeExport::emptyTrace()
{
    engine::Trace t;
    const auto doc = parse(engine::toChromeJson(t));
    QVERIFY(doc["traceEvents"].is_array());
    QVERIFY(!doc["traceEvents"].empty()); // the host process is still named
    const auto back = engine::chromeTraceFromJson(engine::toChromeJson(t), "empty.json");
    QCOMPARE(back.opCount(), std::size_t(0));
}

// Every field of the trace header's lists (engine/formats/trace_header.h), each set to a value unlike its
// default, comes back from each format that spells it: the native file and the Chrome export's block. A
// field added to the lists is checked here without a change to this test.
void TestChromeExport::headerFieldsComeBack()
{
    namespace header = engine::header;
    engine::Trace t;
    t.streams.resize(1);
    t.hostThreads.resize(1);
    t.devices.resize(1);
    int next = 0;
    auto fill = [&next](auto &record, const auto &fields) {
        header::forEachField(fields, [&](const auto &field) {
            auto &value = record.*field.member;
            using Value = std::remove_cvref_t<decltype(value)>;
            ++next;
            if constexpr (std::is_same_v<Value, std::string>)
                value = "value " + std::to_string(next);
            else if constexpr (std::is_same_v<Value, bool>)
                value = true;
            else
                value = static_cast<Value>(next); // small: a device index, a stream's device
        });
    };
    // The fields (of `fields`) that `back` lost, with their spelling in the format read.
    auto lost = [](const auto &record, const auto &back, const auto &fields, bool chrome) {
        QStringList names;
        header::forEachField(fields, [&](const auto &field) {
            const char *name = chrome ? field.chrome : field.native;
            if (name && !(back.*field.member == record.*field.member))
                names << QString::fromLatin1(name);
        });
        return names.join(QStringLiteral(", "));
    };
    fill(t, header::kTraceFields);
    fill(t.streams[0], header::kStreamFields);
    fill(t.hostThreads[0], header::kHostThreadFields);
    fill(t.devices[0], header::kDeviceIdentityFields);
    fill(t.devices[0], header::kDevicePropertyFields);

    const engine::Trace native = engine::fromNativeJson(engine::toNativeJson(t), "header.sstrace");
    const engine::Trace chrome = engine::chromeTraceFromJson(engine::toChromeJson(t), "header.json");
    for (const bool isChrome : {false, true}) {
        const engine::Trace &back = isChrome ? chrome : native;
        QCOMPARE(back.streams.size(), std::size_t(1));
        QCOMPARE(back.hostThreads.size(), std::size_t(1));
        QCOMPARE(back.devices.size(), std::size_t(1));
        QCOMPARE(lost(t, back, header::kTraceFields, isChrome), QString());
        QCOMPARE(lost(t.streams[0], back.streams[0], header::kStreamFields, isChrome), QString());
        QCOMPARE(lost(t.hostThreads[0], back.hostThreads[0], header::kHostThreadFields, isChrome), QString());
        QCOMPARE(lost(t.devices[0], back.devices[0], header::kDeviceIdentityFields, isChrome), QString());
        QCOMPARE(lost(t.devices[0], back.devices[0], header::kDevicePropertyFields, isChrome), QString());
        // The native format writes the compute capability as one "MAJOR.MINOR" string.
        QCOMPARE(back.devices[0].ccMajor, t.devices[0].ccMajor);
        QCOMPARE(back.devices[0].ccMinor, t.devices[0].ccMinor);
    }
}

void TestChromeExport::exportFormats()
{
    QVERIFY(engine::exportFormatFromString("chrome") == std::optional(engine::ExportFormat::Chrome));
    QVERIFY(engine::exportFormatFromString("perfetto") == std::optional(engine::ExportFormat::Chrome));
    QVERIFY(engine::exportFormatFromString("native") == std::optional(engine::ExportFormat::Native));
    QVERIFY(engine::exportFormatFromString("csv") == std::optional(engine::ExportFormat::Csv));
    QVERIFY(!engine::exportFormatFromString("Chrome").has_value());
    QVERIFY(!engine::exportFormatFromString("").has_value());
    QVERIFY(engine::exportFormatFromPath("a/b.sstrace") == std::optional(engine::ExportFormat::Native));
    QVERIFY(engine::exportFormatFromPath("x.json") == std::optional(engine::ExportFormat::Chrome));
    QVERIFY(!engine::exportFormatFromPath("x.json.gz").has_value());
    for (auto f : {engine::ExportFormat::Native, engine::ExportFormat::Chrome, engine::ExportFormat::Csv})
        QVERIFY(engine::exportFormatFromString(engine::toString(f)) == std::optional(f));

    const auto t = test::handTrace(2);
    const std::string csv = m_dir.filePath("t.csv").toStdString();
    engine::exportTrace(t, engine::ExportFormat::Csv, csv);
    QVERIFY(std::filesystem::file_size(csv) > 100);
}

void TestChromeExport::unwritableTarget()
{
    const std::string path = m_dir.filePath("no/such/folder/t.json").toStdString();
    try {
        engine::exportTrace(test::handTrace(1), engine::ExportFormat::Chrome, path);
        QFAIL("no error for a folder that does not exist");
    } catch (const engine::Error &e) {
        QCOMPARE(e.kind(), engine::ErrorKind::Io);
        QVERIFY2(QString(e.what()).contains("no/such/folder"), e.what());
    }
    QVERIFY(!std::filesystem::exists(path));
}

// #24 item 10: what StreamScope writes it reads back. 2M ops named by 1,000 characters export to about
// 3.4 GB (each op's GPU and host slices carry the name; over the 2 GiB a Chrome file is read up to): refused
// before a byte is written, naming the limit, the target untouched and no temporary file left; a tenth of
// them export and read back.
void TestChromeExport::exportPastTheReadLimitIsRefused()
{
    engine::Trace t = test::handTrace(1);
    engine::Repetition &rep = t.repetitions[0];
    engine::OpRecord model = rep.ops[0];
    model.nameId = t.intern(std::string(1000, 'k'));
    rep.ops.assign(2'000'000, model);
    for (std::size_t i = 0; i < rep.ops.size(); ++i) {
        rep.ops[i].opIndex = static_cast<int>(i);
        rep.ops[i].hostStartNs = model.hostStartNs + std::int64_t(i) * 10'000;
        rep.ops[i].hostEndNs = rep.ops[i].hostStartNs + 1'000;
        rep.ops[i].gpuStartNs = rep.ops[i].hostEndNs + 1'000;
        rep.ops[i].gpuEndNs = rep.ops[i].gpuStartNs + 5'000;
        rep.ops[i].readyNs = rep.ops[i].eventEndNs = engine::kNoTime;
    }
    rep.kernelLaunches.clear();
    rep.activities.clear();
    rep.hostRanges.clear();
    const QString folder = m_dir.filePath("limit");
    QVERIFY(QDir().mkpath(folder));
    const std::string path = (folder + "/big.json").toStdString();
    engine::writeFileAtomically(path, "previous contents\n");
    try {
        engine::exportTrace(t, engine::ExportFormat::Chrome, path);
        QFAIL(qPrintable(QString("no error; wrote %1 bytes").arg(std::filesystem::file_size(path))));
    } catch (const engine::Error &e) {
        QCOMPARE(e.kind(), engine::ErrorKind::Io);
        const QString what = e.what();
        QVERIFY2(what.startsWith(QString::fromStdString(path)), e.what());
        QVERIFY2(what.contains("more than StreamScope reads back (at most 2 GiB)"), e.what());
        QVERIFY2(what.contains(".sstrace"), e.what());
    }
    QCOMPARE(engine::readFile(path), std::string("previous contents\n"));
    QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden).size(), 1); // no temporary file left

    // A tenth of it is written, and reads back with every op.
    rep.ops.resize(200'000);
    engine::exportTrace(t, engine::ExportFormat::Chrome, path);
    QVERIFY(std::filesystem::file_size(path) < engine::limits::kMaxTraceFileBytes / 4);
    QCOMPARE(engine::loadTrace(path).opCount(), std::size_t(200'000));
}

QTEST_GUILESS_MAIN(TestChromeExport)
#include "tst_chrome_export.moc"
