// The capture checker (engine/workload/capture_check.h) and the "launch" key: what a workload launched as a CUDA
// graph cannot hold is named with its place and the CUDA error the capture would meet, by the parser (with the
// line, for the editor), by the run plan (for a workload built in code or varied by the launch axis), and the
// hold policy leaves a graph's launch unheld.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "engine/model/errors.h"
#include "engine/run/hold_policy.h"
#include "engine/run/run_plan.h"
#include "engine/workload/capture_check.h"
#include "engine/workload/variation_axes.h"
#include "engine/workload/workload_names.h"
#include "engine/workload/workload_parser.h"

using namespace streamscope::engine;

namespace {

// One stream of ops that a graph holds as they run on a stream, then `extra` ops (JSON objects, one per line).
std::string graphWorkload(const std::string &extra, const std::string &top = {})
{
    return R"({
  "version": 1, "name": "g", "launch": "graph", "issueOrder": "stream-order",)"
           + top + R"(
  "buffers": [{"name": "h", "kind": "pinned", "bytes": "1 MiB"}, {"name": "p", "kind": "pageable", "bytes": "1 MiB"},
              {"name": "d", "kind": "device", "bytes": "1 MiB"}, {"name": "m", "kind": "managed", "bytes": "1 MiB"}],
  "streams": [
    {"name": "s0", "ops": [
      {"op": "copy", "src": "h", "dst": "d"},
      {"op": "kernel", "type": "empty"},
      {"op": "kernel", "duration": "5 us"},
      {"op": "memset", "buffer": "d"},
      {"op": "record", "event": "e"})"
           + extra + R"(
    ]},
    {"name": "s1", "ops": [{"op": "wait", "event": "e"}, {"op": "kernel", "type": "memory", "buffer": "m"}]}
  ]
})";
}

} // namespace

class TestCaptureCheck : public QObject {
    Q_OBJECT
private slots:
    void capturableWorkloadHasNoProblem()
    {
        const Workload w = parseWorkload(graphWorkload(""), "g.json");
        QVERIFY(w.launch == LaunchMode::Graph);
        QVERIFY(captureProblems(w).empty());
        // "launch" round-trips; stream mode is not written.
        const Workload back = parseWorkload(workloadToJson(w), "g.json");
        QVERIFY(back.launch == LaunchMode::Graph);
        Workload streams = w;
        streams.launch = LaunchMode::Streams;
        QVERIFY(workloadToJson(streams).find("\"launch\"") == std::string::npos);
        QVERIFY(!decideHold(w).hold);
        QVERIFY(decideHold(w).reason.find("graph") != std::string::npos);
        QVERIFY(decideHold(streams).reason.find("graph") == std::string::npos); // held or not for reasons of its own
    }

    // Each op a capture breaks on, or holds changed, is an issue at its place, on its line, naming what CUDA does.
    void eachProblemOpIsNamed_data()
    {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("expected");
        QTest::newRow("sync copy") << R"({"op": "copy", "src": "h", "dst": "d", "api": "sync"})"
                                   << "runs at once on the default stream and is not captured";
        QTest::newRow("pageable copy") << R"({"op": "copy", "src": "p", "dst": "d"})"
                                       << "a copy of pageable memory is captured without an error";
        QTest::newRow("stream sync") << R"({"op": "sync"})"
                                     << "cudaErrorStreamCaptureUnsupported";
        QTest::newRow("event sync") << R"({"op": "sync", "target": "event", "event": "e"})"
                                    << "cudaErrorCapturedEvent";
        QTest::newRow("device sync") << R"({"op": "sync", "target": "device"})"
                                     << "cudaDeviceSynchronize";
        QTest::newRow("host work") << R"({"op": "host", "duration": "10 us"})"
                                   << "would run once, at capture";
        QTest::newRow("prefetch") << R"({"op": "prefetch", "buffer": "m", "location": 0})"
                                  << "cudaMemPrefetchAsync";
        QTest::newRow("advise") << R"({"op": "advise", "buffer": "m", "advice": "set-read-mostly"})"
                                << "cudaMemAdvise";
        QTest::newRow("attach") << R"({"op": "attach", "buffer": "m", "mode": "single"})"
                                << "cudaStreamAttachMemAsync";
    }

    void eachProblemOpIsNamed()
    {
        QFETCH(QString, op);
        QFETCH(QString, expected);
        const std::string text = graphWorkload(",\n      " + op.toStdString());
        const auto issues = validateWorkloadText(text, "g.json");
        QCOMPARE(issues.size(), std::size_t(1));
        QCOMPARE(issues[0].jsonPath, std::string("/streams/0/ops/5"));
        QCOMPARE(issues[0].line, 12);
        QVERIFY2(issues[0].message.find(expected.toStdString()) != std::string::npos, issues[0].message.c_str());
        // The same workload on streams has nothing to say.
        std::string streams = text;
        streams.replace(streams.find("\"launch\": \"graph\","), 18, "");
        QVERIFY(validateWorkloadText(streams, "g.json").empty());

        // Built in code (or varied to a graph by the launch axis), the run plan refuses it before anything runs,
        // naming the op and how many more there are.
        Workload w = parseWorkload(streams, "g.json");
        w.launch = LaunchMode::Graph;
        Trace trace;
        try {
            planOps(w, {}, {}, trace);
            QFAIL("planOps accepted a workload a graph cannot hold");
        } catch (const Error &e) {
            QVERIFY(e.kind() == ErrorKind::InvalidInput);
            const std::string what = e.what();
            QVERIFY2(what.find("stream 's0' op 5 (/streams/0/ops/5, line 12)") != std::string::npos, what.c_str());
            QVERIFY2(what.find(expected.toStdString()) != std::string::npos, what.c_str());
        }
    }

    void workloadWideProblems()
    {
        // Several host threads, several GPUs, the legacy default stream: each said once, where it is set.
        const std::string twoThreads = R"({"version": 2, "name": "t", "launch": "graph",
          "streams": [{"name": "a", "device": 0, "ops": [{"op": "kernel", "type": "empty"}]},
                      {"name": "b", "device": 1, "ops": [{"op": "kernel", "type": "empty"}]}],
          "threads": [{"name": "t0", "device": 0, "streams": ["a"]}, {"name": "t1", "device": 1, "streams": ["b"]}]})";
        const auto issues = validateWorkloadText(twoThreads, "t.json");
        QCOMPARE(issues.size(), std::size_t(2));
        QCOMPARE(issues[0].jsonPath, std::string("/launch"));
        QVERIFY(issues[0].message.find("uses 2 GPUs") != std::string::npos);
        QCOMPARE(issues[1].jsonPath, std::string("/threads"));
        QVERIFY(issues[1].message.find("one host thread") != std::string::npos);

        const std::string legacy = R"({"version": 1, "name": "l", "launch": "graph",
          "streams": [{"name": "a", "useDefaultStream": true, "ops": [{"op": "kernel", "type": "empty"}]}]})";
        const auto onLegacy = validateWorkloadText(legacy, "l.json");
        QCOMPARE(onLegacy.size(), std::size_t(1));
        QCOMPARE(onLegacy[0].jsonPath, std::string("/streams/0/useDefaultStream"));
        QVERIFY(onLegacy[0].message.find("cudaStreamLegacy") != std::string::npos);
        // The per-thread default stream can be captured.
        std::string perThread = legacy;
        perThread.replace(perThread.find("\"launch\""), 0, "\"defaultStream\": \"per-thread\", ");
        QVERIFY(validateWorkloadText(perThread, "l.json").empty());
    }

    void launchValuesAndAxis()
    {
        const auto issues =
            validateWorkloadText(R"({"version": 1, "name": "x", "launch": "graphs", "streams": []})", "x.json");
        QVERIFY(!issues.empty());
        QCOMPARE(issues[0].jsonPath, std::string("/launch"));
        QVERIFY2(issues[0].message.find("did you mean \"graph\"") != std::string::npos, issues[0].message.c_str());
        const AxisValues axis = parseVaryOption("launch=streams,graph");
        QVERIFY(axis.axis == Axis::Launch);
        QCOMPARE(axis.values, (std::vector<std::string>{"streams", "graph"}));
        QVERIFY_THROWS_EXCEPTION(Error, parseVaryOption("launch=eager"));
    }
};

QTEST_APPLESS_MAIN(TestCaptureCheck)
#include "tst_capture_check.moc"
