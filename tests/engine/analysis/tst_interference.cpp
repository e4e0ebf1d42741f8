// Tests of the price of overlap: engine/workload/solo_parts.h (which streams run alone together, and the
// workloads whose parts cannot), engine/analysis/interference.h (per-op slowdown, who slowed whom, and the
// accounting of one round) on a hand-made trace worked out by hand, the solo baselines' round trip through
// the native format (and its refusals), and the summary rows with and without baselines.
#include <QtTest>

#include <algorithm>

#include "engine/analysis/interference.h"
#include "engine/analysis/summary_metrics.h"
#include "engine/experiment/experiment.h"
#include "engine/formats/chrome_export.h"
#include "engine/formats/csv_export.h"
#include "engine/formats/native_format.h"
#include "engine/model/errors.h"
#include "engine/util/file_util.h"
#include "engine/workload/solo_parts.h"
#include "engine/workload/variation_axes.h"
#include "engine/workload/workload_parser.h"
#include "tests/common/trace_builder.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope::engine;

namespace {

// Two parts on one GPU: stream "mem" runs a memory kernel, stream "copy" a D2D copy. Per round r (r = 0..2),
// starting at r * 10 ms:
//   mixed:  kernel [0, 1200) us, copy [100, 1600) us       GPU span 1600 us
//   alone:  kernel [0, 1000) us (round 1: 1010), copy [0, 1000) us
// So the kernel is +20 % (1.0 -> 1.2 ms, the copy beside it for (1200-100)/1200 = 91.7 % of it), the copy +50 %
// (1.0 -> 1.5 ms, the kernel beside it for 1100/1500 = 73.3 %); serial 2000 us (round 1: 2010), ideal 1000 us
// (1010), measured 1600: saved 400 (410), cost 600 (590), realised 40 % (410/1000 = 41 %).
Trace soloTrace()
{
    streamscope::test::TraceBuilder builder;
    builder.title("interference")
        .stream({"mem", 0, 1, 0, true, false})
        .stream({"copy", 0, 2, 0, true, false})
        .thread("main", 1)
        .device("Test GPU", 0);
    Trace &t = builder.trace();
    t.solo.parts = {"mem", "copy"};
    t.solo.streamPart = {0, 1};
    const auto us = [](std::int64_t v) { return v * 1000; };
    for (int r = 0; r < 3; ++r) {
        const std::int64_t base = r * 10'000;
        builder.repetition();
        builder.onStream(0).kernel(us(base), us(base + 1200)).named("memory 1 GiB").host(us(base - 5), us(base - 4));
        const OpRecord kernel = builder.last();
        builder.onStream(1)
            .d2d(us(base + 100), us(base + 1600), std::uint64_t(1) << 30)
            .named("D2D 1 GiB")
            .host(us(base - 3), us(base - 2));
        const OpRecord copy = builder.last();
        const std::int64_t soloBase = base + 3000;
        SoloRun a;
        a.part = 0;
        a.round = r;
        OpRecord k = kernel;
        k.gpuStartNs = soloBase * 1000;
        k.gpuEndNs = (soloBase + (r == 1 ? 1010 : 1000)) * 1000;
        a.ops = {k};
        SoloRun b;
        b.part = 1;
        b.round = r;
        OpRecord c = copy;
        c.gpuStartNs = (soloBase + 5000) * 1000;
        c.gpuEndNs = (soloBase + 6000) * 1000;
        b.ops = {c};
        t.solo.runs.push_back(a);
        t.solo.runs.push_back(b);
    }
    return builder.build();
}

const SummaryMetric *find(const std::vector<SummaryMetric> &metrics, const std::string &label)
{
    const auto it =
        std::find_if(metrics.begin(), metrics.end(), [&](const SummaryMetric &m) { return m.label == label; });
    return it == metrics.end() ? nullptr : &*it;
}

const char *kTwoStreams = R"({
  "version": 2, "name": "two", "issueOrder": "stream-order", "buffers": [{"name": "a", "kind": "device", "bytes": "1 MiB"},
                                           {"name": "b", "kind": "device", "bytes": "1 MiB"}],
  "streams": [
    {"name": "s0", "ops": [{"op": "kernel", "duration": "1 ms"}, {"op": "record", "event": "e"}]},
    {"name": "s1", "PART" "ops": [{"op": "wait", "event": "e"}, {"op": "copy", "direction": "d2d", "src": "a", "dst": "b", "bytes": "1 MiB"}]},
    {"name": "s2", "PART2" "ops": [{"op": "kernel", "duration": "1 ms"}]}
  ]
})";

Workload twoStreams(const char *part1, const char *part2)
{
    std::string text = kTwoStreams;
    text.replace(text.find("\"PART\" "), 7, part1);
    text.replace(text.find("\"PART2\" "), 8, part2);
    return parseWorkload(text, "two.json");
}

} // namespace

class TestInterference : public QObject {
    Q_OBJECT

private slots:
    void eachStreamIsAPartUnlessStreamsNameOne()
    {
        // s1 waits on s0's event: alone, s1 would wait for nothing. Named as one part they run alone together.
        Workload w = twoStreams(R"("part": "pipe", )", "");
        w.streams[0].part = "pipe";
        const SoloParts parts = soloParts(w);
        QCOMPARE(parts.names, (std::vector<std::string>{"pipe", "s2"}));
        QCOMPARE(parts.streamPart, (std::vector<std::int32_t>{0, 0, 1}));
        QCOMPARE(parts.opPart.size(), w.schedule.size());
        for (std::size_t i = 0; i < w.schedule.size(); ++i)
            QCOMPARE(parts.opPart[i], parts.streamPart[std::size_t(w.schedule[i].stream)]);
        // The part survives the workload's own round trip (the trace keeps the workload as run).
        QCOMPARE(parseWorkload(workloadToJson(w), "again.json").streams[1].part, std::string("pipe"));
    }

    void partsThatWaitOnEachOtherAreRefused()
    {
        const Workload w = twoStreams("", "");
        try {
            soloParts(w);
            QFAIL("a wait across parts was accepted");
        } catch (const Error &e) {
            const std::string m = e.what();
            QCOMPARE(e.kind(), ErrorKind::InvalidInput);
            QVERIFY2(m.find("/streams/1/ops/0") != std::string::npos, m.c_str());
            QVERIFY2(m.find("event \"e\"") != std::string::npos, m.c_str());
            QVERIFY2(m.find("part \"s0\"") != std::string::npos && m.find("part \"s1\"") != std::string::npos,
                     m.c_str());
            QVERIFY2(m.find("\"part\"") != std::string::npos, m.c_str()); // says how to run them together
        }
    }

    // The collectives of one communicator run on all its GPUs at once: split between parts, one part alone
    // would wait for the others forever, so it is refused, naming both streams and how to run them together.
    void collectivesSplitBetweenPartsAreRefused()
    {
        const char *text = R"({"version": 2, "name": "c", "streams": [
            {"name": "c0", "device": 0, %1"ops": [{"op": "collective", "type": "allreduce", "bytes": 64}]},
            {"name": "c1", "device": 1, %2"ops": [{"op": "collective", "type": "allreduce", "bytes": 64}]},
            {"name": "k", "device": 0, "ops": [{"op": "kernel", "duration": "1 us"}]}],
            "threads": [{"name": "t0", "device": 0, "streams": ["c0", "k"]}, {"name": "t1", "device": 1, "streams": ["c1"]}]})";
        try {
            soloParts(parseWorkload(QString(text).arg("", "").toStdString(), "c.json"));
            QFAIL("collectives split between parts were accepted");
        } catch (const Error &e) {
            const std::string m = e.what();
            QVERIFY2(m.find("streams \"c0\" and \"c1\"") != std::string::npos, m.c_str());
            QVERIFY2(m.find("cannot run on one GPU alone") != std::string::npos, m.c_str());
        }
        const SoloParts parts = soloParts(
            parseWorkload(QString(text).arg(R"("part": "comm", )", R"("part": "comm", )").toStdString(), "c.json"));
        QCOMPARE(parts.names, (std::vector<std::string>{"comm", "k"}));
    }

    void onePartIsRefused()
    {
        Workload w = twoStreams(R"("part": "all", )", R"("part": "all", )");
        w.streams[0].part = "all";
        QVERIFY_THROWS_EXCEPTION(Error, soloParts(w));
        // An empty part name in the file is an error of its own, at its path.
        try {
            twoStreams(R"("part": "", )", "");
            QFAIL("an empty part name was accepted");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find("/streams/1/part") != std::string::npos, e.what());
        }
    }

    void slowdownAndWhoCausedIt()
    {
        const Trace t = soloTrace();
        const InterferenceReport r = analyzeInterference(t);
        QVERIFY2(r.known, r.why.c_str());
        QCOMPARE(r.ops.size(), std::size_t(2));
        const OpSlowdown &kernel = r.ops[0], &copy = r.ops[1];
        QCOMPARE(kernel.mixedNs.median, 1'200'000.0);
        QCOMPARE(kernel.soloNs.median, 1'000'000.0);
        QCOMPARE(kernel.slowdown, 1.2);
        QCOMPARE(kernel.roundRatio.count, 3);
        QCOMPARE(kernel.culprit, 1);
        QVERIFY(qAbs(kernel.culpritShare - 1100.0 / 1200.0) < 1e-9);
        QCOMPARE(copy.slowdown, 1.5);
        QCOMPARE(copy.culprit, 0);
        QVERIFY(qAbs(copy.culpritShare - 1100.0 / 1500.0) < 1e-9);
        QVERIFY(!copy.sameEngine); // a kernel and a D2D copy share HBM, not a link
        const std::string text = describeSlowdown(t, kernel);
        QVERIFY2(text.find("+20 %") == 0, text.c_str());
        QVERIFY2(text.find("(1 ms alone → 1.2 ms in the mix)") != std::string::npos, text.c_str());
        QVERIFY2(text.find("\"D2D 1 GiB\" on copy ran beside it for 92 %") != std::string::npos, text.c_str());
    }

    void accountingPerRound()
    {
        const InterferenceReport r = analyzeInterference(soloTrace());
        QCOMPARE(r.rounds.size(), std::size_t(3));
        QCOMPARE(r.rounds[0].serialNs, 2'000'000);
        QCOMPARE(r.rounds[0].idealNs, 1'000'000);
        QCOMPARE(r.rounds[0].measuredNs, 1'600'000);
        QCOMPARE(r.rounds[0].savedNs(), 400'000);
        QCOMPARE(r.rounds[0].costNs(), 600'000);
        QCOMPARE(r.rounds[0].realised(), 0.4);
        QCOMPARE(r.rounds[1].serialNs, 2'010'000);
        QCOMPARE(r.rounds[1].idealNs, 1'010'000);
        QCOMPARE(r.serialNs.median, 2'000'000.0);
        QCOMPARE(r.serialNs.max, 2'010'000.0);
        QCOMPARE(r.partSoloNs.size(), std::size_t(2));
        QCOMPARE(r.partSoloNs[1].median, 1'000'000.0);
        // The summary shows the same, per repetition.
        const Trace t = soloTrace();
        const auto metrics = summaryMetrics(t, summarize(t));
        QVERIFY(!find(metrics, "Price of overlap"));
        QCOMPARE(find(metrics, "Overlap saved")->spread.median, 400'000.0);
        QCOMPARE(find(metrics, "Interference cost")->spread.median, 600'000.0);
        QCOMPARE(find(metrics, "Interference cost")->spread.min, 590'000.0);
        QCOMPARE(find(metrics, "Saving realised")->spread.median, 0.4);
    }

    void missingRoundsAreLeftOutAndSaid()
    {
        Trace t = soloTrace();
        t.solo.runs.pop_back(); // round 2's copy alone never ran
        t.solo.missing = "the run was stopped after 2 of 3 rounds";
        const InterferenceReport r = analyzeInterference(t);
        QVERIFY(r.known);
        QCOMPARE(r.rounds.size(), std::size_t(2));
        QCOMPARE(r.why, t.solo.missing);
        t.solo.runs.clear();
        const InterferenceReport none = analyzeInterference(t);
        QVERIFY(!none.known);
        QVERIFY2(none.why.find("no complete round") != std::string::npos, none.why.c_str());
    }

    void withoutBaselinesTheCostIsUnknownNotZero()
    {
        Trace t = streamscope::test::handTrace();
        const InterferenceReport r = analyzeInterference(t);
        QVERIFY(!r.known);
        QVERIFY2(r.why.find("--solo") != std::string::npos, r.why.c_str());
        const auto metrics = summaryMetrics(t, summarize(t));
        const SummaryMetric *price = find(metrics, "Price of overlap");
        QVERIFY(price);
        QCOMPARE(price->spread.count, 0);
        QVERIFY(price->whenUnknown.find("unknown") == 0);
        QVERIFY(!find(metrics, "Overlap saved"));
        t.source = TraceSource::NsysSqlite;
        QVERIFY(find(summaryMetrics(t, summarize(t)), "Price of overlap")->description.find("another tool")
                != std::string::npos);
    }

    void soloBaselinesRoundTrip()
    {
        const Trace t = soloTrace();
        const Trace back = fromNativeJson(toNativeJson(t), "solo.sstrace");
        QCOMPARE(back.solo.parts, t.solo.parts);
        QCOMPARE(back.solo.streamPart, t.solo.streamPart);
        QCOMPARE(back.solo.runs.size(), t.solo.runs.size());
        for (std::size_t i = 0; i < t.solo.runs.size(); ++i) {
            QCOMPARE(back.solo.runs[i].part, t.solo.runs[i].part);
            QCOMPARE(back.solo.runs[i].round, t.solo.runs[i].round);
            QCOMPARE(back.solo.runs[i].ops.size(), t.solo.runs[i].ops.size());
            const OpRecord &a = t.solo.runs[i].ops[0], &b = back.solo.runs[i].ops[0];
            QCOMPARE(b.gpuStartNs, a.gpuStartNs);
            QCOMPARE(b.gpuEndNs, a.gpuEndNs);
            QCOMPARE(b.opIndex, a.opIndex);
            QVERIFY(b.kind == a.kind); // from repetition 0's op
            QCOMPARE(b.bytes, a.bytes);
        }
        QCOMPARE(analyzeInterference(back).ops[1].slowdown, 1.5);
        // A trace without baselines writes none.
        QVERIFY(toNativeJson(streamscope::test::handTrace()).find("\"solo\"") == std::string::npos);
    }

    // "Did overlapping help?": schedule=serial makes every stream wait for the one before, so the comparison
    // shows the net gain of overlap. The lesson that measures solo baselines runs serial without them.
    void serialScheduleOrdersEveryStreamAfterTheOneBefore()
    {
        const std::string lesson = std::string(STREAMSCOPE_SOURCE_DIR) + "/resources/workloads/overlap.json";
        ExperimentSpec spec;
        spec.workloadText = readFile(lesson);
        spec.workloadFile = lesson;
        spec.axes = {parseVaryOption("schedule=overlapped,serial")};
        const std::vector<Variant> variants = expandVariants(spec);
        QCOMPARE(variants.size(), std::size_t(2));
        const Workload &overlapped = variants[0].workload, &serial = variants[1].workload;
        QCOMPARE(variants[1].label, std::string("schedule=serial"));
        QVERIFY(overlapped.solo);
        QVERIFY(!serial.solo);
        QCOMPARE(serial.streams.size(), overlapped.streams.size());
        // Each stream but the first starts with a wait; each but the last ends with a record; in between, its
        // own ops as written.
        for (std::size_t i = 0; i < serial.streams.size(); ++i) {
            const auto &ops = serial.streams[i].ops;
            const std::size_t own = overlapped.streams[i].ops.size();
            QCOMPARE(ops.size(), own + (i > 0) + (i + 1 < serial.streams.size()));
            if (i > 0)
                QVERIFY(ops.front().type == OpType::EventWait);
            if (i + 1 < serial.streams.size())
                QVERIFY(ops.back().type == OpType::EventRecord);
        }
        // Issued stream by stream, every wait pairs with the record of the stream before it.
        const std::vector<int> paired = pairEventWaits(serial);
        int waits = 0;
        for (std::size_t k = 0; k < serial.schedule.size(); ++k) {
            const ScheduledOp &at = serial.schedule[k];
            if (serial.streams[std::size_t(at.stream)].ops[std::size_t(at.op)].type != OpType::EventWait)
                continue;
            ++waits;
            QVERIFY(paired[k] >= 0);
            QCOMPARE(serial.schedule[std::size_t(paired[k])].stream, at.stream - 1);
            QVERIFY(std::size_t(paired[k]) < k);
        }
        QCOMPARE(waits, int(serial.streams.size()) - 1);
        // The serial variant survives its own round trip, and asking for both is refused at /serial.
        QCOMPARE(parseWorkload(workloadToJson(serial), "again.json").opCount(), serial.opCount());
        try {
            parseWorkload(
                R"({"version": 1, "serial": true, "solo": true, "streams": [{"name": "a", "ops": [{"op": "kernel", "duration": "1 ms"}]}]})",
                "both.json");
            QFAIL("serial and solo together were accepted");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find("/serial") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, parseVaryOption("schedule=sequential"));
    }

    void csvCarriesEachExecutionAgainstAlone()
    {
        const std::string csv = toCsv(soloTrace());
        const std::string header = csv.substr(0, csv.find('\n'));
        QVERIFY2(header.size() > 20 && header.substr(header.size() - 18) == ",alone_ns,slowdown", header.c_str());
        // Repetition 0's kernel (1.2 ms in the mix, 1 ms alone) and copy (1.5 ms, 1 ms).
        QVERIFY2(csv.find(",1000000,1.2000\n") != std::string::npos, csv.c_str());
        QVERIFY2(csv.find(",1000000,1.5000\n") != std::string::npos, csv.c_str());
        // The Chrome export carries the same in each GPU slice's args.
        const std::string chrome = toChromeJson(soloTrace());
        QVERIFY2(chrome.find("\"alone_ns\":1000000,\"slowdown\":1.2") != std::string::npos, "kernel's args");
        QVERIFY2(chrome.find("\"alone_ns\":1000000,\"slowdown\":1.5") != std::string::npos, "copy's args");
        QVERIFY(toChromeJson(streamscope::test::handTrace(1)).find("alone_ns") == std::string::npos);
        // Without baselines the two columns are there, empty.
        const std::string plain = toCsv(streamscope::test::handTrace(1));
        QVERIFY(plain.find(",alone_ns,slowdown\n") != std::string::npos);
        QVERIFY(plain.find(",,\n") != std::string::npos);
    }

    void badSoloSectionsAreRefusedWithTheirPath_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QString>("path");
        QTest::newRow("op not in the repetitions") << "{\"part\": 1, \"round\": 0, \"ops\": [\n   [1,"
                                                   << "{\"part\": 1, \"round\": 0, \"ops\": [\n   [7,"
                                                   << "/solo/runs/1/ops/0/0";
        QTest::newRow("op of the other part") << "{\"part\": 0, \"round\": 0, \"ops\": [\n   [0,"
                                              << "{\"part\": 0, \"round\": 0, \"ops\": [\n   [1,"
                                              << "/solo/runs/0/ops/0/0";
        QTest::newRow("part not listed") << "{\"part\": 1,"
                                         << "{\"part\": 9,"
                                         << "/solo/runs/1/part";
        QTest::newRow("one part") << "\"parts\":[\"mem\",\"copy\"]"
                                  << "\"parts\":[\"mem\"]"
                                  << "/solo/parts";
        QTest::newRow("stream parts") << "\"stream_part\":[0,1]"
                                      << "\"stream_part\":[0,1,1]"
                                      << "/solo/stream_part";
        QTest::newRow("not an object") << "\"solo\": {"
                                       << "\"solo\": [{"
                                       << "/solo";
    }

    void badSoloSectionsAreRefusedWithTheirPath()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QString, path);
        std::string text = toNativeJson(soloTrace());
        const auto at = text.find(from.toStdString());
        QVERIFY2(at != std::string::npos, qPrintable(from));
        text.replace(at, std::size_t(from.size()), to.toStdString());
        try {
            fromNativeJson(text, "bad.sstrace");
            QFAIL("accepted");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find("bad.sstrace") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find(path.toStdString()) != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestInterference)
#include "tst_interference.moc"
