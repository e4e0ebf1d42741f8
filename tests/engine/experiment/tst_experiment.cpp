// Experiments and comparisons: --vary parsing, the variant grid (order, labels, the JSON edits and
// the errors that name the variant), the experiment loop with a stand-in runner (progress, cancel,
// errors), compareSpreads, the comparison file (round trip, referenced traces, malformed files) and
// the Harris reference figures.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "engine/analysis/verdict.h"
#include "engine/experiment/comparison_file.h"
#include "engine/experiment/experiment.h"
#include "engine/experiment/harris_reference.h"
#include "engine/formats/native_format.h"
#include "engine/model/errors.h"
#include "engine/util/file_util.h"
#include "engine/workload/workload_parser.h"
#include "tests/engine/trace_compare.h"
#include "tests/engine/trace_fixture.h"
#include "tests/engine/workload/workload_compare.h"

// As workload_compare.h does for the workload enums: compare these as numbers.
namespace QTest {
inline bool qCompare(streamscope::engine::Axis t1, streamscope::engine::Axis t2, const char *actual,
                     const char *expected, const char *file, int line)
{
    return qCompare(static_cast<int>(t1), static_cast<int>(t2), actual, expected, file, line);
}
inline bool qCompare(streamscope::engine::VerdictKind t1, streamscope::engine::VerdictKind t2, const char *actual,
                     const char *expected, const char *file, int line)
{
    return qCompare(static_cast<int>(t1), static_cast<int>(t2), actual, expected, file, line);
}
} // namespace QTest

using namespace streamscope;
using engine::Axis;

Q_DECLARE_METATYPE(engine::VerdictKind)

namespace {

// A workload with host buffers of every host kind, copies (one inside a repeated group) and a kernel.
const char *kStreamsWorkload = R"({
  "version": 1, "name": "plain",
  // comments are allowed in workload files and must survive the edit
  "buffers": [
    {"name": "h_a", "kind": "pageable", "bytes": "4 MiB"},
    {"name": "h_b", "kind": "pinned", "bytes": "4 MiB"},
    {"name": "d", "kind": "device", "bytes": "8 MiB"}
  ],
  "streams": [
    {"name": "s0", "ops": [
      {"op": "copy", "src": "h_a", "dst": "d", "bytes": "1 MiB"},
      {"repeat": 2, "ops": [{"op": "copy", "src": "h_b", "dst": "d", "dstOffset": "4 MiB", "api": "sync"}]},
      {"op": "kernel", "duration": "10 us"}
    ]}
  ]
})";

const char *kPipelineWorkload = R"({
  "version": 1, "name": "pipe",
  "pipeline": {"bytes": "16 MiB", "chunks": 4, "streams": 4, "order": "depth-first",
               "kernel": {"type": "compute", "duration": "60 us"}}
})";

const char *kKernelsOnly = R"({
  "version": 1, "name": "kernels",
  "streams": [{"name": "s0", "ops": [{"op": "kernel", "duration": "10 us"}]}]
})";

engine::ExperimentSpec spec(const char *text, std::initializer_list<const char *> vary)
{
    engine::ExperimentSpec s;
    s.workloadText = text;
    s.workloadFile = "lesson.json";
    for (const char *v : vary)
        s.axes.push_back(engine::parseVaryOption(v));
    return s;
}

engine::Spread spread(double median, double min, double max, int count = 5)
{
    return {median, min, max, count};
}

// A stand-in for the GPU: the hand-made trace with every time scaled by `scale`.
engine::Trace scaledTrace(double scale)
{
    engine::Trace t = test::handTrace(3);
    for (auto &rep : t.repetitions)
        for (auto &op : rep.ops) {
            for (auto *v : {&op.gpuStartNs, &op.gpuEndNs, &op.hostStartNs, &op.hostEndNs})
                *v = static_cast<std::int64_t>(static_cast<double>(*v) * scale);
        }
    return t;
}

} // namespace

class TestExperiment : public QObject {
    Q_OBJECT
private slots:
    void varyOption_data();
    void varyOption();
    void varyOptionErrors_data();
    void varyOptionErrors();
    void gridOrderAndLabels();
    void memoryAndApiEdits();
    void peerAccessAndDevicesEdits();
    void defaultStreamEdit();
    void pdlEdit();
    void twoGpuLessons();
    void sizeGrowsBuffers();
    void pipelineEdits();
    void noAxesIsTheBase();
    void impossibleAxes_data();
    void impossibleAxes();
    void invalidBaseNamesTheFile();
    void programmaticAxesChecked();
    void compareSpreads_data();
    void compareSpreads();
    void runWithStandIn();
    void cancelBetweenVariants();
    void runErrorsNameTheVariant();
    void fileRoundTrip();
    void referencedTrace();
    void malformedFiles_data();
    void malformedFiles();
    void summaryVerdicts();
    void harrisFigures();

private:
    QTemporaryDir m_dir;
};

void TestExperiment::varyOption_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("axis");
    QTest::addColumn<QStringList>("values");
    QTest::newRow("memory") << "memory=pageable,pinned,registered,managed"
                            << "memory" << QStringList{"pageable", "pinned", "registered", "managed"};
    QTest::newRow("api") << "api=sync,async"
                         << "api" << QStringList{"sync", "async"};
    QTest::newRow("streams") << "streams=1,2,04,8"
                             << "streams" << QStringList{"1", "2", "4", "8"};
    QTest::newRow("order") << "order=breadth-first,depth-first"
                           << "order" << QStringList{"breadth-first", "depth-first"};
    QTest::newRow("chunks") << "chunks=16"
                            << "chunks" << QStringList{"16"};
    QTest::newRow("sizes normalised") << "size=4096,16MiB,1GB"
                                      << "size" << QStringList{"4 KiB", "16 MiB", "1000000000"};
    QTest::newRow("spaces trimmed") << "memory=pageable, pinned"
                                    << "memory" << QStringList{"pageable", "pinned"};
    QTest::newRow("peerAccess") << "peerAccess=on,off"
                                << "peerAccess" << QStringList{"on", "off"};
    QTest::newRow("devices") << "devices=1,02"
                             << "devices" << QStringList{"1", "2"};
    QTest::newRow("defaultStream") << "defaultStream=legacy,per-thread"
                                   << "defaultStream" << QStringList{"legacy", "per-thread"};
}

void TestExperiment::varyOption()
{
    QFETCH(QString, text);
    QFETCH(QString, axis);
    QFETCH(QStringList, values);
    const auto a = engine::parseVaryOption(text.toStdString());
    QCOMPARE(QString::fromStdString(std::string(engine::toString(a.axis))), axis);
    QStringList got;
    for (const auto &v : a.values)
        got << QString::fromStdString(v);
    QCOMPARE(got, values);
}

void TestExperiment::varyOptionErrors_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("no equals") << "memory"
                               << "AXIS=VALUE";
    QTest::newRow("unknown axis") << "colour=red"
                                  << "unknown axis \"colour\"";
    QTest::newRow("bad memory") << "memory=pinned,device"
                                << "\"device\" is not a value of memory";
    QTest::newRow("bad api") << "api=fast"
                             << "sync, async";
    QTest::newRow("zero streams") << "streams=0"
                                  << "1..4096";
    QTest::newRow("negative chunks") << "chunks=-2"
                                     << "not a count";
    QTest::newRow("bad size") << "size=lots"
                              << "not a size";
    QTest::newRow("zero size") << "size=0"
                               << "not a size";
    QTest::newRow("empty value") << "api=sync,"
                                 << "empty value";
    QTest::newRow("twice") << "streams=2,2"
                           << "given twice";
    QTest::newRow("same size twice") << "size=1MiB,1048576"
                                     << "given twice";
    QTest::newRow("bad default stream") << "defaultStream=per-process"
                                        << "legacy, per-thread";
    // The list of axes in the message is every axis, the newest included.
    QTest::newRow("unknown axis lists all") << "stream=2"
                                            << "schedule, maxCTAs, ctaPolicy, launch or pdl";
    QTest::newRow("bad pdl") << "pdl=yes"
                             << "off, on";
}

void TestExperiment::varyOptionErrors()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    try {
        engine::parseVaryOption(text.toStdString());
        QFAIL("accepted");
    } catch (const engine::Error &e) {
        QCOMPARE(e.kind(), engine::ErrorKind::InvalidInput);
        QVERIFY2(QString(e.what()).contains(message), e.what());
        QVERIFY2(QString(e.what()).contains(text), e.what()); // names the option
    }
}

void TestExperiment::gridOrderAndLabels()
{
    const auto variants =
        engine::expandVariants(spec(kPipelineWorkload, {"streams=1,2,4", "order=depth-first,breadth-first"}));
    const QStringList expected{"streams=1, order=depth-first", "streams=1, order=breadth-first",
                               "streams=2, order=depth-first", "streams=2, order=breadth-first",
                               "streams=4, order=depth-first", "streams=4, order=breadth-first"};
    QCOMPARE(int(variants.size()), expected.size());
    for (int i = 0; i < expected.size(); ++i) {
        QCOMPARE(QString::fromStdString(variants[i].label), expected[i]);
        QCOMPARE(variants[i].index, i);
        QCOMPARE(int(variants[i].settings.size()), 2);
        QCOMPARE(variants[i].settings[0].axis, Axis::Streams);
        QCOMPARE(variants[i].settings[1].axis, Axis::Order);
    }
    // The other order of --vary gives the other grid order.
    const auto swapped =
        engine::expandVariants(spec(kPipelineWorkload, {"order=depth-first,breadth-first", "streams=1,2,4"}));
    QCOMPARE(QString::fromStdString(swapped[1].label), QString("order=depth-first, streams=2"));
}

void TestExperiment::peerAccessAndDevicesEdits()
{
    const char *twoGpus = R"({
  "version": 2, "peerAccess": "on",
  "buffers": [{"name": "a", "kind": "device", "bytes": "1 MiB"}, {"name": "b", "kind": "device", "bytes": "1 MiB", "device": 1},
              {"name": "m", "kind": "managed", "bytes": "1 MiB", "device": 1}],
  "streams": [{"name": "s0", "ops": [{"op": "copy", "src": "a", "dst": "b", "peer": true}]},
              {"name": "s1", "device": 1, "ops": [{"repeat": 2, "ops": [{"op": "prefetch", "buffer": "m", "location": 1}]}]}],
  "threads": [{"name": "t0", "streams": ["s0"]}, {"name": "t1", "device": 1, "streams": ["s1"]}]
})";
    const auto variants = engine::expandVariants(spec(twoGpus, {"peerAccess=on,off", "devices=1,2"}));
    QCOMPARE(int(variants.size()), 4);
    QCOMPARE(variants[0].label, std::string("peerAccess=on, devices=1"));
    QCOMPARE(variants[2].workload.peerAccess, engine::PeerAccess::Off);
    // devices=1: everything on GPU 0, and the peer copy a device-to-device copy.
    const auto &one = variants[0].workload;
    QCOMPARE(one.usedDevices(), std::vector<int>{0});
    QCOMPARE(one.streams[0].ops[0].direction, engine::CopyDirection::D2D);
    QCOMPARE(one.streams[1].ops[1].location, 0); // inside the group too
    QCOMPARE(one.threads[1].device, 0);
    // devices=2: as written.
    const auto &two = variants[1].workload;
    QCOMPARE(two.usedDevices(), (std::vector<int>{0, 1}));
    QCOMPARE(two.streams[0].ops[0].direction, engine::CopyDirection::P2P);
    QCOMPARE(two.streams[1].ops[0].location, 1);
}

// The two-GPU lessons' own comparisons: peer access off keeps the copies peer copies (staged by the
// driver); devices=1 folds both pipelines onto GPU 0, so a machine with one GPU can run that half.
void TestExperiment::twoGpuLessons()
{
    const auto preset = [](const char *name) {
        return engine::readFile(std::string(STREAMSCOPE_SOURCE_DIR "/resources/workloads/") + name);
    };
    const auto peer = engine::expandVariants(spec(preset("peer-copies.json").c_str(), {"peerAccess=on,off"}));
    QCOMPARE(int(peer.size()), 2);
    QCOMPARE(peer[1].label, std::string("peerAccess=off"));
    QCOMPARE(peer[1].workload.peerAccess, engine::PeerAccess::Off);
    for (const auto &st : peer[1].workload.streams)
        for (const auto &op : st.ops)
            QCOMPARE(op.direction, engine::CopyDirection::P2P);
    const auto threads = engine::expandVariants(spec(preset("thread-per-gpu.json").c_str(), {"devices=2,1"}));
    QCOMPARE(int(threads.size()), 2);
    QCOMPARE(threads[0].workload.usedDevices(), (std::vector<int>{0, 1}));
    QCOMPARE(threads[1].label, std::string("devices=1"));
    QCOMPARE(threads[1].workload.usedDevices(), std::vector<int>{0});
    QCOMPARE(threads[1].workload.threadCount(), 2); // still two host threads, now both on GPU 0
    // The copy-engine lesson's own comparison: the CTA policy, the symmetric windows kept.
    const auto ce =
        engine::expandVariants(spec(preset("copy-engine-collectives.json").c_str(), {"ctaPolicy=zero,default"}));
    QCOMPARE(int(ce.size()), 2);
    QCOMPARE(ce[0].workload.nccl.ctaPolicy, std::string("zero"));
    QCOMPARE(ce[1].label, std::string("ctaPolicy=default"));
    QCOMPARE(ce[1].workload.nccl.ctaPolicy, std::string());
    QVERIFY(ce[0].workload.nccl.symmetric && ce[1].workload.nccl.symmetric);
    try {
        engine::expandVariants(spec(preset("thread-per-gpu.json").c_str(), {"ctaPolicy=zero"}));
        QFAIL("a CTA policy for a workload without collectives was accepted");
    } catch (const engine::Error &e) {
        QVERIFY2(std::string(e.what()).find("ctaPolicy=zero sets how NCCL's collectives use the GPU, and the workload "
                                            "has none")
                     != std::string::npos,
                 e.what());
    }
}

void TestExperiment::defaultStreamEdit()
{
    // The per-thread default stream lesson's axis: the same workload with stream 0 legacy, then per thread.
    const char *twoThreads = R"({
  "version": 2, "defaultStream": "legacy",
  "streams": [{"name": "a", "useDefaultStream": true, "ops": [{"op": "kernel", "duration": "100 us"}]},
              {"name": "b", "useDefaultStream": true, "ops": [{"op": "kernel", "duration": "100 us"}]}],
  "threads": [{"name": "t0", "streams": ["a"]}, {"name": "t1", "streams": ["b"]}]
})";
    const auto variants = engine::expandVariants(spec(twoThreads, {"defaultStream=per-thread,legacy"}));
    QCOMPARE(int(variants.size()), 2);
    QCOMPARE(variants[0].label, std::string("defaultStream=per-thread"));
    QCOMPARE(variants[0].workload.defaultStream, engine::DefaultStreamMode::PerThread);
    QCOMPARE(variants[1].workload.defaultStream, engine::DefaultStreamMode::Legacy);
    QCOMPARE(int(variants[1].workload.threads.size()), 2);
}

// pdl=on sets "pdl" on every kernel whose type takes it (in groups too, and kernels typed by their keys), off
// takes it away; a GEMM keeps none, and a workload with no such kernel cannot be varied.
void TestExperiment::pdlEdit()
{
    const char *chain = R"({
  "version": 1, "name": "chain",
  "buffers": [{"name": "d", "kind": "device", "bytes": "1 MiB"}],
  "streams": [{"name": "s0", "ops": [
    {"op": "kernel", "duration": "1 us", "pdl": true},
    {"ops": [{"op": "kernel", "type": "memory", "buffer": "d"}], "repeat": 2},
    {"op": "kernel", "buffer": "d"},
    {"op": "kernel", "type": "gemm", "m": 64, "n": 64, "k": 64},
    {"op": "kernel", "type": "empty"}
  ]}]
})";
    const auto variants = engine::expandVariants(spec(chain, {"pdl=off,on"}));
    QCOMPARE(int(variants.size()), 2);
    QCOMPARE(variants[1].label, std::string("pdl=on"));
    std::vector<bool> off, on;
    for (const auto &op : variants[0].workload.streams[0].ops)
        off.push_back(op.pdl);
    for (const auto &op : variants[1].workload.streams[0].ops)
        on.push_back(op.pdl);
    QCOMPARE(off, (std::vector<bool>{false, false, false, false, false, false}));
    QCOMPARE(on, (std::vector<bool>{true, true, true, true, false, false}));
    // off is written as false, so that those kernels are timed as their PDL twins are (no events beside them).
    std::vector<bool> given;
    for (const auto &op : variants[0].workload.streams[0].ops)
        given.push_back(op.pdlGiven);
    QCOMPARE(given, (std::vector<bool>{true, true, true, true, false, false}));

    try {
        engine::expandVariants(spec(R"({"version": 1, "name": "g", "streams": [{"name": "s0", "ops": [
            {"op": "kernel", "type": "gemm", "m": 64, "n": 64, "k": 64}]}]})",
                                    {"pdl=on"}));
        QFAIL("a workload without compute or memory kernels was varied by pdl");
    } catch (const engine::Error &e) {
        QVERIFY2(QByteArray(e.what()).contains("(pdl=on)") && QByteArray(e.what()).contains("has none"), e.what());
    }
}

void TestExperiment::memoryAndApiEdits()
{
    const auto variants = engine::expandVariants(spec(kStreamsWorkload, {"memory=registered,managed", "api=async"}));
    QCOMPARE(int(variants.size()), 2);
    const auto &reg = variants[0].workload;
    QCOMPARE(reg.findBuffer("h_a")->kind, engine::BufferKind::Registered);
    QCOMPARE(reg.findBuffer("h_b")->kind, engine::BufferKind::Registered);
    QCOMPARE(reg.findBuffer("d")->kind, engine::BufferKind::Device); // only host buffers change
    QCOMPARE(int(reg.streams[0].ops.size()), 4); // the group's repeat survives
    for (const auto &op : reg.streams[0].ops)
        if (op.type == engine::OpType::Copy) {
            QCOMPARE(op.api, engine::CopyApi::Async); // inside the group too
            QCOMPARE(op.direction, engine::CopyDirection::H2D);
        }
    // Managed host buffers make the copies device-side to device: D2D, as the parser infers.
    const auto &managed = variants[1].workload;
    QCOMPARE(managed.findBuffer("h_a")->kind, engine::BufferKind::Managed);
    QCOMPARE(managed.streams[0].ops[0].direction, engine::CopyDirection::D2D);
    // The edited JSON is what was parsed.
    const auto j = nlohmann::json::parse(variants[1].workloadJson);
    QCOMPARE(j["buffers"][0]["kind"].get<std::string>(), std::string("managed"));
    QCOMPARE(j["streams"][0]["ops"][1]["ops"][0]["api"].get<std::string>(), std::string("async"));
}

void TestExperiment::sizeGrowsBuffers()
{
    const auto variants = engine::expandVariants(spec(kStreamsWorkload, {"size=1KiB,6MiB"}));
    QCOMPARE(int(variants.size()), 2);
    const auto &small = variants[0].workload;
    for (const auto &op : small.streams[0].ops)
        if (op.type == engine::OpType::Copy)
            QCOMPARE(op.bytes, std::uint64_t(1024));
    QCOMPARE(small.findBuffer("h_a")->bytes, std::uint64_t(4) << 20); // never shrunk
    const auto &big = variants[1].workload;
    for (const auto &op : big.streams[0].ops)
        if (op.type == engine::OpType::Copy)
            QCOMPARE(op.bytes, std::uint64_t(6) << 20);
    QCOMPARE(big.findBuffer("h_a")->bytes, std::uint64_t(6) << 20);
    QCOMPARE(big.findBuffer("h_b")->bytes, std::uint64_t(6) << 20);
    QCOMPARE(big.findBuffer("d")->bytes, std::uint64_t(10) << 20); // dstOffset 4 MiB + 6 MiB
}

void TestExperiment::pipelineEdits()
{
    const auto variants =
        engine::expandVariants(spec(kPipelineWorkload, {"memory=pageable", "api=sync", "chunks=8", "streams=2",
                                                        "order=breadth-first", "size=32MiB"}));
    QCOMPARE(int(variants.size()), 1);
    const auto &w = variants[0].workload;
    QCOMPARE(int(w.streams.size()), 2);
    QCOMPARE(w.findBuffer("h_data")->kind, engine::BufferKind::Pageable);
    QCOMPARE(w.findBuffer("h_data")->bytes, std::uint64_t(32) << 20);
    QCOMPARE(int(w.opCount()), 8 * 3);
    const auto &first = w.streams[0].ops[0];
    QCOMPARE(first.api, engine::CopyApi::Sync);
    QCOMPARE(first.bytes, std::uint64_t(4) << 20);
    // Breadth-first: the first ops issued are all H2D copies.
    for (int i = 0; i < 8; ++i) {
        const auto &s = w.schedule[i];
        QCOMPARE(w.streams[s.stream].ops[s.op].direction, engine::CopyDirection::H2D);
        QCOMPARE(w.streams[s.stream].ops[s.op].type, engine::OpType::Copy);
    }
    const auto j = nlohmann::json::parse(variants[0].workloadJson);
    QCOMPARE(j["pipeline"]["order"].get<std::string>(), std::string("breadth-first"));
    QCOMPARE(j["pipeline"]["chunks"].get<int>(), 8);
}

void TestExperiment::noAxesIsTheBase()
{
    const auto variants = engine::expandVariants(spec(kPipelineWorkload, {}));
    QCOMPARE(int(variants.size()), 1);
    QCOMPARE(QString::fromStdString(variants[0].label), QString("base"));
    QCOMPARE(int(variants[0].workload.streams.size()), 4);
}

void TestExperiment::impossibleAxes_data()
{
    QTest::addColumn<QString>("workload");
    QTest::addColumn<QStringList>("vary");
    QTest::addColumn<QStringList>("messages");
    QTest::newRow("streams without pipeline")
        << kStreamsWorkload << QStringList{"memory=pinned", "streams=1,2"}
        << QStringList{"lesson.json", "variant 1 of 2 (memory=pinned, streams=1)", "no \"pipeline\""};
    QTest::newRow("order without pipeline") << kStreamsWorkload << QStringList{"order=breadth-first"}
                                            << QStringList{"(order=breadth-first)", "no \"pipeline\""};
    QTest::newRow("chunks without pipeline")
        << kStreamsWorkload << QStringList{"chunks=2"} << QStringList{"(chunks=2)", "no \"pipeline\""};
    QTest::newRow("managed pipeline") << kPipelineWorkload << QStringList{"memory=pinned,managed"}
                                      << QStringList{"variant 2 of 2 (memory=managed)", "/pipeline/hostMemory"};
    QTest::newRow("chunks not dividing") << kPipelineWorkload << QStringList{"chunks=4,3"}
                                         << QStringList{"variant 2 of 2 (chunks=3)", "/pipeline"};
    QTest::newRow("more streams than chunks")
        << kPipelineWorkload << QStringList{"streams=8"} << QStringList{"(streams=8)", "/pipeline/streams"};
    QTest::newRow("memory without host buffers")
        << kKernelsOnly << QStringList{"memory=pinned"} << QStringList{"(memory=pinned)", "has none"};
    QTest::newRow("api without copies") << kKernelsOnly << QStringList{"api=sync"}
                                        << QStringList{"(api=sync)", "API of copies", "has none"};
    QTest::newRow("size without copies") << kKernelsOnly << QStringList{"size=1MiB"} << QStringList{"(size=1 MiB)"};
    QTest::newRow("axis twice") << kPipelineWorkload << QStringList{"streams=1", "streams=2"}
                                << QStringList{"varied twice"};
    QTest::newRow("peerAccess on version 1")
        << kStreamsWorkload << QStringList{"peerAccess=off"} << QStringList{"(peerAccess=off)", "version 1"};
    QTest::newRow("devices on version 1")
        << kStreamsWorkload << QStringList{"devices=2"} << QStringList{"(devices=2)", "version 1"};
    QTest::newRow("devices on one device")
        << QString::fromUtf8(
               R"({"version": 2, "streams": [{"name": "s", "ops": [{"op": "kernel", "duration": "5 us"}]}]})")
        << QStringList{"devices=1,2"} << QStringList{"variant 2 of 2 (devices=2)", "names one device"};
}

void TestExperiment::impossibleAxes()
{
    QFETCH(QString, workload);
    QFETCH(QStringList, vary);
    QFETCH(QStringList, messages);
    engine::ExperimentSpec s;
    s.workloadText = workload.toStdString();
    s.workloadFile = "lesson.json";
    for (const auto &v : vary)
        s.axes.push_back(engine::parseVaryOption(v.toStdString()));
    try {
        engine::expandVariants(s);
        QFAIL("accepted");
    } catch (const engine::Error &e) {
        QCOMPARE(e.kind(), engine::ErrorKind::InvalidInput);
        for (const auto &m : messages)
            QVERIFY2(QString(e.what()).contains(m), qPrintable(m + " not in: " + e.what()));
    }
}

void TestExperiment::invalidBaseNamesTheFile()
{
    engine::ExperimentSpec s;
    s.workloadText = "{\n  \"version\": 1,\n  \"streams\": []\n}\n";
    s.workloadFile = "broken.json";
    s.axes.push_back(engine::parseVaryOption("api=sync"));
    try {
        engine::expandVariants(s);
        QFAIL("accepted");
    } catch (const engine::WorkloadError &e) {
        QVERIFY2(QString(e.what()).startsWith("broken.json:"), e.what());
        QVERIFY2(!QString(e.what()).contains("variant"), e.what()); // the base's fault, not a variant's
    }
}

void TestExperiment::programmaticAxesChecked()
{
    // Axes built without parseVaryOption (the GUI) get the same checks.
    const std::pair<engine::AxisValues, const char *> cases[] = {
        {{Axis::Streams, {"two"}}, "the axis streams: \"two\" is not a count"},
        {{Axis::Size, {"16MiB"}}, "not in its normal form"},
        {{Axis::Memory, {"pinned", "pinned"}}, "given twice"},
        {{Axis::Api, {}}, "has no values"},
    };
    for (const auto &[axis, message] : cases) {
        engine::ExperimentSpec s;
        s.workloadText = kPipelineWorkload;
        s.axes = {axis};
        try {
            engine::expandVariants(s);
            QFAIL(message);
        } catch (const engine::Error &e) {
            QCOMPARE(e.kind(), engine::ErrorKind::InvalidInput);
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }
    engine::ExperimentSpec ok;
    ok.workloadText = kPipelineWorkload;
    ok.axes = {{Axis::Size, {"32 MiB"}}, {Axis::Streams, {"2"}}};
    QCOMPARE(engine::expandVariants(ok).front().workload.findBuffer("d_data")->bytes, std::uint64_t(32) << 20);
}

void TestExperiment::compareSpreads_data()
{
    QTest::addColumn<engine::Spread>("base");
    QTest::addColumn<engine::Spread>("cand");
    QTest::addColumn<engine::VerdictKind>("kind");
    QTest::addColumn<double>("ratio");
    QTest::addColumn<QString>("text");
    QTest::newRow("clearly faster") << spread(100, 95, 110) << spread(50, 45, 60) << engine::VerdictKind::Faster << 2.0
                                    << "2.00x faster";
    QTest::newRow("clearly slower") << spread(100, 95, 110) << spread(125, 120, 130) << engine::VerdictKind::Slower
                                    << 0.8 << "1.25x slower";
    QTest::newRow("overlapping ranges") << spread(100, 90, 110) << spread(105, 100, 130) << engine::VerdictKind::Noise
                                        << 100.0 / 105.0 << "noise (0.95x)";
    QTest::newRow("touching ranges are noise")
        << spread(100, 95, 110) << spread(90, 80, 95) << engine::VerdictKind::Noise << 100.0 / 90.0 << "noise (1.11x)";
    QTest::newRow("medians apart, ranges overlap")
        << spread(100, 60, 140) << spread(70, 65, 75) << engine::VerdictKind::Noise << 100.0 / 70.0 << "noise (1.43x)";
    QTest::newRow("single samples") << spread(100, 100, 100, 1) << spread(99, 99, 99, 1) << engine::VerdictKind::Faster
                                    << 100.0 / 99.0 << "1.01x faster";
    QTest::newRow("identical") << spread(100, 90, 110) << spread(100, 90, 110) << engine::VerdictKind::Noise << 1.0
                               << "noise (1.00x)";
    QTest::newRow("no samples") << engine::Spread{} << spread(1, 1, 1) << engine::VerdictKind::Unknown << 0.0 << "-";
    QTest::newRow("zero median") << spread(0, 0, 0) << spread(1, 1, 1) << engine::VerdictKind::Unknown << 0.0 << "-";
}

void TestExperiment::compareSpreads()
{
    QFETCH(engine::Spread, base);
    QFETCH(engine::Spread, cand);
    QFETCH(engine::VerdictKind, kind);
    QFETCH(double, ratio);
    QFETCH(QString, text);
    const auto v = engine::compareSpreads(base, cand);
    QCOMPARE(v.kind, kind);
    QVERIFY2(std::abs(v.ratio - ratio) < 1e-9, qPrintable(QString::number(v.ratio)));
    QCOMPARE(QString::fromStdString(engine::describe(v)), text);
    if (base.count && cand.count)
        QCOMPARE(v.deltaNs, cand.median - base.median);
}

void TestExperiment::runWithStandIn()
{
    const auto s = spec(kPipelineWorkload, {"streams=1,2", "order=depth-first,breadth-first"});
    const auto variants = engine::expandVariants(s);
    engine::RunOptions options;
    options.repetitions = 3;
    options.warmup = 1;
    std::vector<int> streamsSeen;
    engine::WorkloadRunner runner = [&](const engine::Workload &w, const engine::RunOptions &o,
                                        const engine::ProgressCallback &p, const std::atomic<bool> *) {
        streamsSeen.push_back(static_cast<int>(w.streams.size()));
        if (o.repetitions != 3 || o.warmup != 1)
            throw engine::Error(engine::ErrorKind::InvalidInput, "options not passed on");
        p({engine::RunProgress::Phase::Warmup, 0, 1, ""});
        for (int r = 0; r < 3; ++r)
            p({engine::RunProgress::Phase::Measuring, r, 3, ""});
        return scaledTrace(1.0 + 0.5 * static_cast<double>(streamsSeen.size()));
    };
    std::vector<engine::ExperimentProgress> seen;
    const auto c = engine::runExperiment(s, variants, options, runner,
                                         [&](const engine::ExperimentProgress &p) { seen.push_back(p); });
    QCOMPARE(streamsSeen, (std::vector<int>{1, 1, 2, 2}));
    QCOMPARE(int(c.variants.size()), 4);
    QCOMPARE(QString::fromStdString(c.variants[3].label), QString("streams=2, order=breadth-first"));
    QCOMPARE(QString::fromStdString(c.title), QString("pipe"));
    QCOMPARE(c.repetitions, 3);
    QCOMPARE(c.warmup, 1);
    QCOMPARE(int(c.axes.size()), 2);
    for (const auto &v : c.variants) {
        QCOMPARE(int(v.trace.repetitions.size()), 3); // every repetition kept
        QVERIFY(!v.trace.workloadJson.empty()); // the variant's workload travels with its trace
        QCOMPARE(v.trace.metadata.at("comparison.variant"), v.label);
    }
    QVERIFY(!seen.empty());
    double last = -1;
    for (const auto &p : seen) {
        QVERIFY2(p.fraction >= last, "progress never goes back");
        QVERIFY(p.fraction >= 0 && p.fraction <= 1);
        QCOMPARE(p.variantCount, 4);
        last = p.fraction;
    }
    QCOMPARE(seen.back().fraction, 1.0);
    QCOMPARE(seen.back().variant, 3);
    // Halfway: the third variant starts at half the repetitions of the experiment.
    const auto third = std::find_if(seen.begin(), seen.end(), [](const auto &p) { return p.variant == 2; });
    QCOMPARE(third->fraction, 0.5);
}

void TestExperiment::cancelBetweenVariants()
{
    const auto s = spec(kPipelineWorkload, {"streams=1,2,4"});
    const auto variants = engine::expandVariants(s);
    std::atomic<bool> cancel{false};
    int runs = 0;
    engine::WorkloadRunner runner = [&](const engine::Workload &, const engine::RunOptions &,
                                        const engine::ProgressCallback &, const std::atomic<bool> *c) {
        if (c != &cancel)
            throw engine::Error(engine::ErrorKind::InvalidInput, "cancel flag not passed on");
        ++runs;
        cancel.store(true); // as if the user pressed Cancel during the first variant
        return scaledTrace(1.0);
    };
    try {
        engine::runExperiment(s, variants, {}, runner, {}, &cancel);
        QFAIL("not cancelled");
    } catch (const engine::Error &e) {
        QCOMPARE(e.kind(), engine::ErrorKind::Cancelled);
        QVERIFY2(QString(e.what()).contains("streams=2"), e.what());
    }
    QCOMPARE(runs, 1);
}

// What fails in one variant (a capture that fails at run time, a CUDA error, memory it cannot have, a workload the
// run refuses) marks that variant failed, naming it, and the others run; the summary's baseline is the first that
// ran, and the file keeps the failure. What ends every variant (no GPU) ends the comparison, and so does every
// variant failing.
void TestExperiment::runErrorsNameTheVariant()
{
    const auto s = spec(kPipelineWorkload, {"memory=pageable,pinned,registered"});
    const auto variants = engine::expandVariants(s);
    for (auto kind : {engine::ErrorKind::Cuda, engine::ErrorKind::InvalidInput, engine::ErrorKind::OutOfMemory}) {
        int ran = 0;
        engine::WorkloadRunner runner = [&](const engine::Workload &w, const engine::RunOptions &,
                                            const engine::ProgressCallback &, const std::atomic<bool> *) {
            if (w.findBuffer("h_data")->kind == engine::BufferKind::Pageable)
                throw engine::Error(kind, "the error");
            ++ran;
            return scaledTrace(ran == 1 ? 1.0 : 0.5);
        };
        const engine::Comparison c = engine::runExperiment(s, variants, {}, runner);
        QCOMPARE(ran, 2);
        QCOMPARE(int(c.variants.size()), 3);
        QCOMPARE(c.variants[0].failed, std::string("variant 1 of 3 (memory=pageable): the error"));
        QVERIFY(c.variants[0].trace.repetitions.empty());
        QVERIFY(c.variants[1].failed.empty() && c.variants[2].failed.empty());
        const auto rows = engine::summarizeComparison(c);
        QCOMPARE(rows[0].failed, c.variants[0].failed);
        QVERIFY2(std::abs(rows[2].vsFirst.ratio - 2.0) < 0.01, // against the first that ran (1.0 -> 0.5)
                 qPrintable(QString::number(rows[2].vsFirst.ratio)));

        const QString path = m_dir.filePath(QStringLiteral("failed.sscompare"));
        engine::writeComparison(c, path.toStdString());
        const engine::Comparison back = engine::readComparison(path.toStdString());
        QCOMPARE(back.variants[0].failed, c.variants[0].failed);
        QCOMPARE(back.variants[2].trace.repetitions.size(), c.variants[2].trace.repetitions.size());
    }
    // Every variant failing, or no GPU: the comparison fails.
    for (auto kind : {engine::ErrorKind::Cuda, engine::ErrorKind::NoGpu}) {
        engine::WorkloadRunner runner =
            [&](const engine::Workload &, const engine::RunOptions &, const engine::ProgressCallback &,
                const std::atomic<bool> *) -> engine::Trace { throw engine::Error(kind, "the error"); };
        try {
            engine::runExperiment(s, variants, {}, runner);
            QFAIL("no error");
        } catch (const engine::Error &e) {
            QCOMPARE(e.kind(), kind);
            if (kind == engine::ErrorKind::Cuda)
                QCOMPARE(QString(e.what()), QString("variant 1 of 3 (memory=pageable): the error"));
            else
                QCOMPARE(QString(e.what()), QString("the error")); // the plain no-GPU message
        }
    }
}

static engine::Comparison sampleComparison()
{
    engine::Comparison c;
    c.title = "hand-made";
    c.workloadFile = "resources/workloads/overlap.json";
    c.baseWorkloadJson = kPipelineWorkload;
    c.axes = {engine::parseVaryOption("memory=pageable,pinned"), engine::parseVaryOption("api=sync")};
    c.warmup = 1;
    c.repetitions = 3;
    c.toolVersion = "test";
    c.createdUtc = "2026-01-01T00:00:00Z";
    for (const char *m : {"pageable", "pinned"}) {
        engine::VariantResult v;
        v.settings = {{Axis::Memory, m}, {Axis::Api, "sync"}};
        v.label = engine::variantLabel(v.settings);
        v.trace = scaledTrace(std::string(m) == "pinned" ? 0.5 : 1.0);
        c.variants.push_back(std::move(v));
    }
    return c;
}

void TestExperiment::fileRoundTrip()
{
    const engine::Comparison c = sampleComparison();
    const QString path = m_dir.filePath("round.sscompare");
    engine::writeComparison(c, path.toStdString());
    const auto text = engine::readFile(path.toStdString());
    const auto j = nlohmann::json::parse(text); // plain JSON that other tools read
    QCOMPARE(j["format"].get<std::string>(), std::string("streamscope-comparison"));
    QCOMPARE(j["version"].get<int>(), 1);
    QCOMPARE(j["variants"][1]["trace"]["format"].get<std::string>(), std::string("streamscope-trace"));
    const engine::Comparison r = engine::readComparison(path.toStdString());
    QCOMPARE(r.title, c.title);
    QCOMPARE(r.workloadFile, c.workloadFile);
    QCOMPARE(r.baseWorkloadJson, c.baseWorkloadJson);
    QCOMPARE(r.warmup, 1);
    QCOMPARE(r.repetitions, 3);
    QCOMPARE(r.createdUtc, c.createdUtc);
    QCOMPARE(int(r.axes.size()), 2);
    QCOMPARE(r.axes[0].axis, Axis::Memory);
    QCOMPARE(r.axes[0].values, c.axes[0].values);
    QCOMPARE(int(r.variants.size()), 2);
    for (int i = 0; i < 2; ++i) {
        QCOMPARE(r.variants[i].label, c.variants[i].label);
        QCOMPARE(r.variants[i].settings.size(), c.variants[i].settings.size());
        QCOMPARE(r.variants[i].settings[0].value, c.variants[i].settings[0].value);
        const QString diff = test::traceDifference(r.variants[i].trace, c.variants[i].trace);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }
    // Unset repetitions are written as null and read back as -1.
    engine::Comparison d = c;
    d.warmup = -1;
    d.repetitions = -1;
    const auto back = engine::fromComparisonJson(engine::toComparisonJson(d));
    QCOMPARE(back.warmup, -1);
    QCOMPARE(back.repetitions, -1);
}

void TestExperiment::referencedTrace()
{
    engine::Comparison c = sampleComparison();
    QDir(m_dir.path()).mkpath("ref/traces");
    engine::writeNativeTrace(c.variants[1].trace, m_dir.filePath("ref/traces/pinned.sstrace").toStdString());
    c.variants[1].traceFile = "traces/pinned.sstrace";
    const QString path = m_dir.filePath("ref/with-ref.sscompare");
    engine::writeComparison(c, path.toStdString());
    const auto j = nlohmann::json::parse(engine::readFile(path.toStdString()));
    QVERIFY(!j["variants"][1].contains("trace"));
    QCOMPARE(j["variants"][1]["trace_file"].get<std::string>(), std::string("traces/pinned.sstrace"));
    const auto r = engine::readComparison(path.toStdString());
    QCOMPARE(r.variants[1].traceFile, std::string("traces/pinned.sstrace"));
    const QString diff = test::traceDifference(r.variants[1].trace, c.variants[1].trace);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    // A missing referenced trace is an I/O error naming it.
    QFile::remove(m_dir.filePath("ref/traces/pinned.sstrace"));
    try {
        engine::readComparison(path.toStdString());
        QFAIL("read a missing trace");
    } catch (const engine::Error &e) {
        QCOMPARE(e.kind(), engine::ErrorKind::Io);
        QVERIFY2(QString(e.what()).contains("pinned.sstrace"), e.what());
    }
}

void TestExperiment::malformedFiles_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    nlohmann::ordered_json good = nlohmann::ordered_json::parse(engine::toComparisonJson(sampleComparison()));
    auto edited = [&](const std::function<void(nlohmann::ordered_json &)> &edit) {
        auto j = good;
        edit(j);
        return QString::fromStdString(j.dump());
    };
    QTest::newRow("not json") << "{\"format\": "
                              << "not valid JSON";
    QTest::newRow("array") << "[]"
                           << "expected a JSON object";
    QTest::newRow("a trace") << edited([](auto &j) { j["format"] = "streamscope-trace"; })
                             << "/format: expected \"streamscope-comparison\"";
    QTest::newRow("newer version") << edited([](auto &j) { j["version"] = 2; }) << "/version: this StreamScope reads";
    QTest::newRow("version text") << edited([](auto &j) { j["version"] = "1"; }) << "/version: expected an integer";
    QTest::newRow("no axes") << edited([](auto &j) { j.erase("axes"); }) << "/axes: missing";
    QTest::newRow("unknown axis") << edited([](auto &j) { j["axes"][1]["axis"] = "colour"; })
                                  << "/axes/1/axis: unknown axis \"colour\"";
    QTest::newRow("empty values") << edited([](auto &j) { j["axes"][0]["values"] = nlohmann::json::array(); })
                                  << "/axes/0/values: expected a non-empty array";
    QTest::newRow("no variants") << edited([](auto &j) { j.erase("variants"); }) << "/variants: missing";
    QTest::newRow("no label") << edited([](auto &j) { j["variants"][0].erase("label"); })
                              << "/variants/0/label: missing";
    QTest::newRow("setting missing") << edited([](auto &j) { j["variants"][1]["settings"].erase("api"); })
                                     << "/variants/1/settings/api: missing";
    QTest::newRow("setting not a value") << edited([](auto &j) { j["variants"][1]["settings"]["memory"] = "managed"; })
                                         << "/variants/1/settings/memory: \"managed\" is not one of the values";
    QTest::newRow("extra setting") << edited([](auto &j) { j["variants"][0]["settings"]["streams"] = "4"; })
                                   << "/variants/0/settings/streams: not one of the comparison's axes";
    QTest::newRow("trace and file") << edited([](auto &j) { j["variants"][0]["trace_file"] = "x.sstrace"; })
                                    << "/variants/0: expected either";
    QTest::newRow("neither") << edited([](auto &j) { j["variants"][0].erase("trace"); })
                             << "/variants/0: expected either";
    QTest::newRow("failed with a trace") << edited([](auto &j) { j["variants"][0]["failed"] = "it failed"; })
                                         << "/variants/0: a failed variant has no trace";
    QTest::newRow("failed saying nothing") << edited([](auto &j) {
        j["variants"][0].erase("trace");
        j["variants"][0]["failed"] = "";
    }) << "/variants/0/failed: expected why the variant failed";
    QTest::newRow("trace not a trace") << edited([](auto &j) { j["variants"][1]["trace"]["format"] = "other"; })
                                       << "/variants/1/trace";
    QTest::newRow("trace not an object") << edited([](auto &j) { j["variants"][1]["trace"] = 3; })
                                         << "/variants/1/trace: expected a StreamScope trace object";
}

void TestExperiment::malformedFiles()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    try {
        engine::fromComparisonJson(text.toStdString(), "bad.sscompare");
        QFAIL("accepted");
    } catch (const engine::Error &e) {
        QCOMPARE(e.kind(), engine::ErrorKind::InvalidInput);
        QVERIFY2(QString(e.what()).startsWith("bad.sscompare"), e.what());
        QVERIFY2(QString(e.what()).contains(message), e.what());
    }
}

void TestExperiment::summaryVerdicts()
{
    engine::Comparison c = sampleComparison();
    // A third variant whose makespans overlap the first's: noise.
    engine::VariantResult noisy;
    noisy.settings = {{Axis::Memory, "pageable"}, {Axis::Api, "sync"}};
    noisy.label = "noisy";
    noisy.trace = scaledTrace(1.1);
    c.variants.push_back(noisy);
    const auto rows = engine::summarizeComparison(c);
    QCOMPARE(int(rows.size()), 3);
    QCOMPARE(rows[0].vsFirst.kind, engine::VerdictKind::Noise); // against itself
    QCOMPARE(rows[0].vsFirst.ratio, 1.0);
    // Hand trace makespans: 352, 704, 1056 us; halved: 176, 352, 528 us, whose range touches 352.
    QCOMPARE(rows[0].summary.makespanNs.median, 704000.0);
    QCOMPARE(rows[1].summary.makespanNs.median, 352000.0);
    QCOMPARE(rows[1].vsFirst.ratio, 2.0);
    QCOMPARE(rows[1].vsFirst.kind, engine::VerdictKind::Noise);
    QCOMPARE(rows[2].vsFirst.kind, engine::VerdictKind::Noise);
    // Scale the second variant harder: its range ends below the first's and it is called faster.
    c.variants[1].trace = scaledTrace(0.25);
    QCOMPARE(engine::summarizeComparison(c)[1].vsFirst.kind, engine::VerdictKind::Faster);
    c.variants[1].trace = scaledTrace(4.0);
    QCOMPARE(engine::summarizeComparison(c)[1].vsFirst.kind, engine::VerdictKind::Slower);
}

void TestExperiment::harrisFigures()
{
    const auto results = engine::harrisResults();
    QCOMPARE(int(results.size()), 3);
    QCOMPARE(results[0].device, std::string_view("Tesla C1060"));
    QCOMPARE(results[1].device, std::string_view("Tesla C2050"));
    QCOMPARE(results[2].device, std::string_view("Tesla K20c"));
    QCOMPARE(results[0].copyEngines, 1);
    QCOMPARE(results[1].copyEngines, 2);
    QCOMPARE(results[2].copyEngines, 2);
    // As printed in the blog.
    QCOMPARE(results[0].sequentialMs, 12.92381);
    QCOMPARE(results[0].depthFirstMs, 13.63690);
    QCOMPARE(results[0].breadthFirstMs, 8.84588);
    QCOMPARE(results[1].sequentialMs, 9.984512);
    QCOMPARE(results[1].depthFirstMs, 5.735584);
    QCOMPARE(results[1].breadthFirstMs, 7.597984);
    QCOMPARE(results[2].sequentialMs, 7.101760);
    QCOMPARE(results[2].depthFirstMs, 3.974144);
    QCOMPARE(results[2].breadthFirstMs, 3.967616);
    // The figures are the blog's (above); comparing them with each other would only repeat those lines.
    // What can be wrong is the text shown beside them: each card's sentence must say what its figures
    // show. Where it gives breadth-first's share of the sequential time ("(8/12 of the sequential time)"),
    // that is the figures' share to the nearest twelfth; it names the order that wins on its card; and
    // "no longer matters" holds to 1 %.
    int fractions = 0;
    for (const auto &r : results) {
        const std::string why(r.why);
        QVERIFY(why.size() > 40);
        const QByteArray card(r.device.data(), qsizetype(r.device.size()));
        if (const std::size_t at = why.find("/12 of the sequential time"); at != std::string::npos) {
            const std::size_t open = why.rfind('(', at);
            QVERIFY2(open != std::string::npos, card.constData());
            const int twelfths = std::stoi(why.substr(open + 1, at - open - 1));
            QCOMPARE(twelfths, int(std::lround(12 * r.breadthFirstMs / r.sequentialMs)));
            ++fractions;
        }
        if (why.find("no longer matters") != std::string::npos) {
            QVERIFY2(std::abs(r.depthFirstMs - r.breadthFirstMs) < 0.01 * r.depthFirstMs, card.constData());
        } else {
            const bool depthFirstWins = r.depthFirstMs < r.breadthFirstMs;
            const std::size_t winner = why.find(depthFirstWins ? "depth-first lets" : "breadth-first issues");
            QVERIFY2(winner != std::string::npos,
                     qPrintable(card + ": the text does not credit " + (depthFirstWins ? "depth" : "breadth")
                                + "-first, which its figures favour"));
        }
    }
    QCOMPARE(fractions, 2);
}

QTEST_GUILESS_MAIN(TestExperiment)
#include "tst_experiment.moc"
