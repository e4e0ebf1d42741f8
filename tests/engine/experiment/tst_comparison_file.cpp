// Tests of engine/experiment/comparison_file.h: the .sscompare text round trip with an embedded trace,
// malformed files refused with Error{InvalidInput} naming the file and the JSON path, traces referenced
// by a path relative to the comparison's folder, the atomic write, every bundled comparison, and the
// table's summary rows.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <functional>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "engine/experiment/comparison_file.h"
#include "engine/formats/native_format.h"
#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "engine/util/file_util.h"
#include "engine/workload/variation_axes.h"
#include "tests/engine/gzip_fixture.h"
#include "tests/engine/trace_compare.h"
#include "tests/engine/trace_fixture.h"

// QCOMPARE on the verdict: compare it as its number (its toString returns a string_view).
namespace QTest {
inline bool qCompare(streamscope::engine::VerdictKind t1, streamscope::engine::VerdictKind t2, const char *actual,
                     const char *expected, const char *file, int line)
{
    return qCompare(static_cast<int>(t1), static_cast<int>(t2), actual, expected, file, line);
}
} // namespace QTest

using namespace streamscope;
using engine::Axis;
using engine::ErrorKind;
using streamscope::testing::gzipped;
using Json = nlohmann::ordered_json;

namespace {

QString source(const char *relative)
{
    return QStringLiteral(STREAMSCOPE_SOURCE_DIR "/") + QLatin1String(relative);
}

const engine::Trace &overlapTrace()
{
    static const engine::Trace trace = engine::loadTrace(source("resources/examples/overlap.sstrace").toStdString());
    return trace;
}

// The hand-made trace (makespans 352, 704, 1056 us) with every time multiplied by k.
engine::Trace scaled(double k)
{
    engine::Trace t = test::handTrace(3);
    auto s = [k](std::int64_t &v) {
        if (v != engine::kNoTime)
            v = static_cast<std::int64_t>(static_cast<double>(v) * k);
    };
    for (auto &rep : t.repetitions)
        for (auto &op : rep.ops) {
            s(op.gpuStartNs);
            s(op.gpuEndNs);
            s(op.hostStartNs);
            s(op.hostEndNs);
        }
    return t;
}

engine::VariantResult variant(std::vector<engine::AxisSetting> settings, engine::Trace trace)
{
    engine::VariantResult v;
    v.settings = std::move(settings);
    v.label = engine::variantLabel(v.settings);
    v.trace = std::move(trace);
    return v;
}

// Two axes, four variants of the overlap example trace.
engine::Comparison sample()
{
    engine::Comparison c;
    c.title = "Overlap \"quoted\", \u00b5s and a\nnewline";
    c.workloadFile = "resources/workloads/overlap.json";
    c.baseWorkloadJson = "{\n  \"version\": 1,\n  \"name\": \"x\" // a comment\n}\n";
    c.axes = {engine::parseVaryOption("streams=1,4"), engine::parseVaryOption("order=depth-first,breadth-first")};
    c.warmup = 2;
    c.repetitions = 10;
    c.toolVersion = "0.1.0-test";
    c.createdUtc = "2026-01-02T03:04:05Z";
    for (const char *streams : {"1", "4"})
        for (const char *order : {"depth-first", "breadth-first"})
            c.variants.push_back(variant({{Axis::Streams, streams}, {Axis::Order, order}}, overlapTrace()));
    return c;
}

struct Failure {
    int kind = -1;
    QString message;
};
Failure failureOf(const std::function<void()> &f)
{
    try {
        f();
    } catch (const engine::Error &e) {
        return {int(e.kind()), QString::fromStdString(e.what())};
    }
    return {};
}

void compareComparisons(const engine::Comparison &a, const engine::Comparison &b)
{
    QCOMPARE(a.formatVersion, b.formatVersion);
    QCOMPARE(a.title, b.title);
    QCOMPARE(a.workloadFile, b.workloadFile);
    QCOMPARE(a.baseWorkloadJson, b.baseWorkloadJson);
    QCOMPARE(a.warmup, b.warmup);
    QCOMPARE(a.repetitions, b.repetitions);
    QCOMPARE(a.toolVersion, b.toolVersion);
    QCOMPARE(a.createdUtc, b.createdUtc);
    QCOMPARE(a.axes.size(), b.axes.size());
    for (std::size_t i = 0; i < a.axes.size(); ++i) {
        QCOMPARE(int(a.axes[i].axis), int(b.axes[i].axis));
        QCOMPARE(a.axes[i].values, b.axes[i].values);
    }
    QCOMPARE(a.variants.size(), b.variants.size());
    for (std::size_t i = 0; i < a.variants.size(); ++i) {
        const auto &x = a.variants[i], &y = b.variants[i];
        QCOMPARE(x.label, y.label);
        QCOMPARE(x.traceFile, y.traceFile);
        QCOMPARE(x.settings.size(), y.settings.size());
        for (std::size_t k = 0; k < x.settings.size(); ++k) {
            QCOMPARE(int(x.settings[k].axis), int(y.settings[k].axis));
            QCOMPARE(x.settings[k].value, y.settings[k].value);
        }
        const QString diff = test::traceDifference(x.trace, y.trace);
        QVERIFY2(diff.isEmpty(), qPrintable(QStringLiteral("variant %1: %2").arg(i).arg(diff)));
        QCOMPARE(x.trace.title, y.trace.title);
        QCOMPARE(int(x.trace.timing), int(y.trace.timing));
        QCOMPARE(x.trace.strings, y.trace.strings);
    }
}

} // namespace

class TestComparisonFile : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(overlapTrace().opCount() > 0);
    }

    void roundTrip()
    {
        const engine::Comparison c = sample();
        const std::string text = engine::toComparisonJson(c);
        // Plain JSON that other tools read, in the documented shape.
        const Json j = Json::parse(text);
        QCOMPARE(j["format"].get<std::string>(), std::string("streamscope-comparison"));
        QCOMPARE(j["version"].get<int>(), engine::kComparisonFormatVersion);
        QCOMPARE(j["axes"][1]["axis"].get<std::string>(), std::string("order"));
        QCOMPARE(int(j["variants"].size()), 4);
        QCOMPARE(j["variants"][3]["settings"]["streams"].get<std::string>(), std::string("4"));
        QCOMPARE(j["variants"][3]["trace"]["format"].get<std::string>(), std::string("streamscope-trace"));
        QVERIFY(!j["variants"][0].contains("trace_file"));

        const engine::Comparison back = engine::fromComparisonJson(text, "round.sscompare");
        compareComparisons(back, c);
        // Writing what was read gives the same text again.
        QCOMPARE(engine::toComparisonJson(back), text);
    }

    void unsetCountsAreNull()
    {
        engine::Comparison c = sample();
        c.warmup = -1;
        c.repetitions = -1;
        const std::string text = engine::toComparisonJson(c);
        const Json j = Json::parse(text);
        QVERIFY(j["warmup"].is_null());
        QVERIFY(j["repetitions"].is_null());
        const auto back = engine::fromComparisonJson(text);
        QCOMPARE(back.warmup, -1);
        QCOMPARE(back.repetitions, -1);
        // Left out entirely, they read as unset too; zero is a value.
        Json k = j;
        k.erase("warmup");
        k["repetitions"] = 0;
        const auto edited = engine::fromComparisonJson(k.dump());
        QCOMPARE(edited.warmup, -1);
        QCOMPARE(edited.repetitions, 0);
    }

    // The smallest comparisons: no axes (the base alone), and no variants at all.
    void emptyParts()
    {
        engine::Comparison base;
        base.title = "base";
        base.variants.push_back(variant({}, test::handTrace(1)));
        QCOMPARE(base.variants[0].label, std::string("base"));
        const auto back = engine::fromComparisonJson(engine::toComparisonJson(base));
        compareComparisons(back, base);

        engine::Comparison none;
        none.axes = {engine::parseVaryOption("memory=pageable,pinned")};
        const std::string text = engine::toComparisonJson(none);
        QVERIFY(Json::parse(text)["variants"].empty());
        const auto read = engine::fromComparisonJson(text);
        QCOMPARE(int(read.variants.size()), 0);
        QCOMPARE(int(read.axes.size()), 1);
        // Optional header fields may be left out.
        const auto minimal = engine::fromComparisonJson(
            "{\"format\": \"streamscope-comparison\", \"version\": 1, \"axes\": [], \"variants\": []}",
            "min.sscompare");
        QCOMPARE(minimal.title, std::string());
        QCOMPARE(minimal.warmup, -1);
        QVERIFY(minimal.variants.empty());
    }

    void malformed_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message"); // what follows "bad.sscompare: "
        const Json good = Json::parse(engine::toComparisonJson(sample()));
        auto edited = [&](const std::function<void(Json &)> &edit) {
            Json j = good;
            edit(j);
            return QString::fromStdString(j.dump());
        };
        QTest::newRow("empty text") << ""
                                    << "not valid JSON (byte";
        QTest::newRow("trailing comma") << "{\"format\": \"streamscope-comparison\",}"
                                        << "not valid JSON (byte";
        QTest::newRow("a string") << "\"streamscope-comparison\""
                                  << "/: expected a JSON object, found \"streamscope-comparison\"";
        QTest::newRow("format missing") << edited([](Json &j) { j.erase("format"); })
                                        << "/format: missing (expected a string)";
        QTest::newRow("format a number") << edited([](Json &j) { j["format"] = 3; })
                                         << "/format: expected a string, found 3";
        QTest::newRow("a workload") << "{\"format\": \"streamscope-workload\"}"
                                    << "/format: expected \"streamscope-comparison\", found \"streamscope-workload\"";
        QTest::newRow("version missing") << edited([](Json &j) { j.erase("version"); }) << "/version: missing";
        QTest::newRow("version zero") << edited([](Json &j) {
            j["version"] = 0;
        }) << "/version: this StreamScope reads comparison format version 1, the file has version 0";
        QTest::newRow("version fraction") << edited([](Json &j) { j["version"] = 1.5; })
                                          << "/version: expected an integer from -2147483648 to 2147483647, found 1.5";
        QTest::newRow("title a number") << edited([](Json &j) { j["title"] = 7; })
                                        << "/title: expected a string, found 7";
        QTest::newRow("base workload an object")
            << edited([](Json &j) { j["base_workload"] = Json::object(); }) << "/base_workload: expected a string";
        QTest::newRow("warmup text") << edited([](Json &j) { j["warmup"] = "2"; })
                                     << "/warmup: expected an integer from -2147483648 to 2147483647, found \"2\"";
        QTest::newRow("repetitions fraction")
            << edited([](Json &j) { j["repetitions"] = 2.5; }) << "/repetitions: expected an integer";
        QTest::newRow("axes an object") << edited([](Json &j) { j["axes"] = Json::object(); })
                                        << "/axes: expected an array of axes";
        QTest::newRow("axis entry a string") << edited([](Json &j) { j["axes"][0] = "streams=1,4"; })
                                             << "/axes/0: expected {\"axis\": ..., \"values\": [...]}";
        QTest::newRow("axis missing") << edited([](Json &j) { j["axes"][1].erase("axis"); }) << "/axes/1/axis: missing";
        QTest::newRow("axis a number") << edited([](Json &j) { j["axes"][0]["axis"] = 1; })
                                       << "/axes/0/axis: expected an axis name, found 1";
        QTest::newRow("axis twice") << edited([](Json &j) { j["axes"][1]["axis"] = "streams"; })
                                    << "/axes/1/axis: the axis \"streams\" appears twice";
        QTest::newRow("values missing") << edited([](Json &j) { j["axes"][0].erase("values"); })
                                        << "/axes/0/values: missing";
        QTest::newRow("values a string") << edited([](Json &j) { j["axes"][0]["values"] = "1,4"; })
                                         << "/axes/0/values: expected a non-empty array of strings";
        QTest::newRow("value a number") << edited([](Json &j) { j["axes"][0]["values"][1] = 4; })
                                        << "/axes/0/values/1: expected a string, found 4";
        QTest::newRow("variants an object")
            << edited([](Json &j) { j["variants"] = Json::object(); }) << "/variants: expected an array of variants";
        QTest::newRow("variant a string")
            << edited([](Json &j) { j["variants"][2] = "x"; }) << "/variants/2: expected a variant object";
        QTest::newRow("label a number") << edited([](Json &j) { j["variants"][1]["label"] = 1; })
                                        << "/variants/1/label: expected a string";
        QTest::newRow("settings missing")
            << edited([](Json &j) { j["variants"][0].erase("settings"); }) << "/variants/0/settings: missing";
        QTest::newRow("settings an array") << edited([](Json &j) { j["variants"][0]["settings"] = Json::array(); })
                                           << "/variants/0/settings: expected an object of axis: value";
        QTest::newRow("setting a number") << edited([](Json &j) { j["variants"][3]["settings"]["streams"] = 4; })
                                          << "/variants/3/settings/streams: expected a string, found 4";
        QTest::newRow("setting not a value")
            << edited([](Json &j) { j["variants"][3]["settings"]["order"] = "random"; })
            << "/variants/3/settings/order: \"random\" is not one of the values of the axis \"order\"";
        QTest::newRow("unknown setting") << edited([](Json &j) { j["variants"][2]["settings"]["colour"] = "red"; })
                                         << "/variants/2/settings/colour: not one of the comparison's axes";
        QTest::newRow("version 2^32+1") << edited([](Json &j) {
            j["version"] = 4294967297ULL;
        }) << "/version: expected an integer from -2147483648 to 2147483647, found 4294967297";
        QTest::newRow("version a float") << edited([](Json &j) { j["version"] = 1.5; })
                                         << "/version: expected an integer";
        QTest::newRow("repetitions 2^32+5")
            << edited([](Json &j) { j["repetitions"] = 4294967301ULL; }) << "/repetitions: expected an integer from";
        QTest::newRow("warmup 1e10") << edited([](Json &j) { j["warmup"] = 1e10; }) << "/warmup: expected an integer";
        QTest::newRow("trace_file empty") << edited([](Json &j) {
            j["variants"][0].erase("trace");
            j["variants"][0]["trace_file"] = "";
        }) << "/variants/0/trace_file: expected a path";
        QTest::newRow("trace_file a number") << edited([](Json &j) {
            j["variants"][0].erase("trace");
            j["variants"][0]["trace_file"] = 5;
        }) << "/variants/0/trace_file: expected a path, found 5";
        QTest::newRow("trace an array") << edited([](Json &j) { j["variants"][1]["trace"] = Json::array(); })
                                        << "/variants/1/trace: expected a StreamScope trace object";
        // Long values are shortened in the message.
        QTest::newRow("long value shortened") << edited([](Json &j) {
            j["title"] = Json::array({1111111111, 2222222222, 3333333333, 4444444444, 5555555555});
        }) << "/title: expected a string, found [1111111111,2222222222,3333333333,444...";
    }
    void malformed()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const Failure f = failureOf([&] { engine::fromComparisonJson(text.toStdString(), "bad.sscompare"); });
        QCOMPARE(f.kind, int(ErrorKind::InvalidInput));
        QVERIFY2(f.message.startsWith("bad.sscompare: " + message), qPrintable(f.message));
    }

    // A broken embedded trace is reported by the trace reader, with the comparison file and the
    // variant's path in front.
    void malformedEmbeddedTrace()
    {
        Json j = Json::parse(engine::toComparisonJson(sample()));
        j["variants"][2]["trace"]["strings"] = 5;
        const Failure f = failureOf([&] { engine::fromComparisonJson(j.dump(), "bad.sscompare"); });
        QCOMPARE(f.kind, int(ErrorKind::InvalidInput));
        QVERIFY2(f.message.startsWith("bad.sscompare /variants/2/trace"), qPrintable(f.message));
        QVERIFY2(f.message.contains("/strings: expected an array of op names"), qPrintable(f.message));
    }

    void defaultFileName()
    {
        const Failure f = failureOf([] { engine::fromComparisonJson("[]"); });
        QCOMPARE(f.kind, int(ErrorKind::InvalidInput));
        QVERIFY2(f.message.startsWith("<comparison>: /: expected a JSON object"), qPrintable(f.message));
    }

    void referencedTraces()
    {
        const QString base = m_dir.filePath("ref");
        QVERIFY(QDir().mkpath(base + "/traces"));
        engine::Comparison c = sample();
        engine::writeNativeTrace(c.variants[1].trace, (base + "/traces/v1.sstrace").toStdString());
        // Any trace loadTrace reads will do: a gzip-compressed one too.
        engine::writeFileAtomically((base + "/traces/v2.sstrace.gz").toStdString(),
                                    gzipped(engine::toNativeJson(c.variants[2].trace)));
        // Below the comparison's folder, any depth.
        QVERIFY(QDir().mkpath(base + "/traces/deeper"));
        engine::writeNativeTrace(c.variants[3].trace, (base + "/traces/deeper/v3.sstrace").toStdString());
        c.variants[1].traceFile = "traces/v1.sstrace";
        c.variants[2].traceFile = "traces/v2.sstrace.gz";
        c.variants[3].traceFile = "./traces/deeper/v3.sstrace";

        const std::string text = engine::toComparisonJson(c);
        const Json j = Json::parse(text);
        QVERIFY(j["variants"][0].contains("trace"));
        for (int i = 1; i < 4; ++i) {
            QVERIFY(!j["variants"][i].contains("trace"));
            QCOMPARE(j["variants"][i]["trace_file"].get<std::string>(), c.variants[std::size_t(i)].traceFile);
        }

        const auto back = engine::fromComparisonJson(text, "with-refs.sscompare", base.toStdString());
        compareComparisons(back, c);

        // Relative to baseDir, not to the working directory: from another folder the file is not found.
        const Failure wrongBase =
            failureOf([&] { engine::fromComparisonJson(text, "with-refs.sscompare", m_dir.path().toStdString()); });
        QCOMPARE(wrongBase.kind, int(ErrorKind::Io));
        QVERIFY2(wrongBase.message.contains("v1.sstrace"), qPrintable(wrongBase.message));

        // readComparison resolves them against the comparison file's own folder.
        const QString file = base + "/with-refs.sscompare";
        engine::writeComparison(c, file.toStdString());
        compareComparisons(engine::readComparison(file.toStdString()), c);
    }

    // A comparison from someone else names any path: only files in its folder or below it are read
    // (never /dev/zero, ~/.ssh, or a link out of the folder), and only regular files (issue #13).
    void referencedTracesStayInTheirFolder_data()
    {
        QTest::addColumn<QString>("traceFile");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("/dev/zero") << "/dev/zero" << int(ErrorKind::InvalidInput) << "is an absolute path";
        QTest::newRow("absolute") << m_dir.filePath("ref/traces/v1.sstrace") << int(ErrorKind::InvalidInput)
                                  << "is an absolute path";
        QTest::newRow("..") << "../ref/traces/v1.sstrace" << int(ErrorKind::InvalidInput)
                            << "leads out of the folder (\"..\")";
        QTest::newRow("inner ..") << "traces/../../x.sstrace" << int(ErrorKind::InvalidInput)
                                  << "leads out of the folder";
        QTest::newRow("link out") << "out.sstrace" << int(ErrorKind::InvalidInput)
                                  << "leads out of the folder through a symbolic link";
        QTest::newRow("device link inside")
            << "zero.sstrace" << int(ErrorKind::InvalidInput) << "leads out of the folder through a symbolic link";
        QTest::newRow("folder") << "sub" << int(ErrorKind::Io) << "is a folder, not a regular file";
    }
    void referencedTracesStayInTheirFolder()
    {
        QFETCH(QString, traceFile);
        QFETCH(int, kind);
        QFETCH(QString, expected);
        const QString base = m_dir.filePath("confined");
        QVERIFY(QDir().mkpath(base + "/sub"));
        QFile::link(QStringLiteral("/etc/passwd"), base + "/out.sstrace");
        QFile::link(QStringLiteral("/dev/zero"), base + "/zero.sstrace");
        engine::Comparison c = sample();
        c.variants[1].traceFile = traceFile.toStdString();
        const Failure f = failureOf(
            [&] { engine::fromComparisonJson(engine::toComparisonJson(c), "c.sscompare", base.toStdString()); });
        QCOMPARE(f.kind, kind);
        QVERIFY2(f.message.contains("/variants/1/trace_file") || kind == int(ErrorKind::Io), qPrintable(f.message));
        QVERIFY2(f.message.contains(expected), qPrintable(f.message));
        QVERIFY2(!f.message.contains("root:"), qPrintable(f.message));
    }

    void missingReferencedTrace()
    {
        const QString base = m_dir.filePath("missing");
        QVERIFY(QDir().mkpath(base));
        engine::Comparison c = sample();
        c.variants[2].traceFile = "gone/v2.sstrace";
        const Failure f = failureOf(
            [&] { engine::fromComparisonJson(engine::toComparisonJson(c), "m.sscompare", base.toStdString()); });
        QCOMPARE(f.kind, int(ErrorKind::Io));
        QVERIFY2(f.message.contains("gone/v2.sstrace"), qPrintable(f.message));
    }

    // A referenced file that is not a trace is the trace reader's InvalidInput, naming that file.
    void referencedFileNotATrace()
    {
        const QString base = m_dir.filePath("notatrace");
        QVERIFY(QDir().mkpath(base));
        engine::writeFileAtomically((base + "/v0.sstrace").toStdString(), "this is not a trace");
        engine::Comparison c = sample();
        c.variants[0].traceFile = "v0.sstrace";
        const Failure f = failureOf(
            [&] { engine::fromComparisonJson(engine::toComparisonJson(c), "n.sscompare", base.toStdString()); });
        QCOMPARE(f.kind, int(ErrorKind::InvalidInput));
        QVERIFY2(f.message.contains("v0.sstrace"), qPrintable(f.message));
    }

    // A file several variants name is read once (#24 item 5: a comparison naming one trace in every variant
    // read it once per variant): the second name of the same file (a hard link here) gets the first's trace,
    // source path included, where reading it again would have set its own.
    void sameFileIsReadOnce()
    {
        const QString base = m_dir.filePath("once");
        QVERIFY(QDir().mkpath(base));
        engine::Comparison c = sample();
        engine::writeNativeTrace(c.variants[1].trace, (base + "/t.sstrace").toStdString());
        QVERIFY(QFile::link(base + "/t.sstrace", base + "/soft.sstrace")); // a symbolic link inside the folder
        QCOMPARE(
            ::link((base + "/t.sstrace").toLocal8Bit().constData(), (base + "/hard.sstrace").toLocal8Bit().constData()),
            0);
        for (std::size_t i = 0; i < c.variants.size(); ++i) {
            c.variants[i].trace = c.variants[1].trace;
            c.variants[i].traceFile = i == 0   ? "t.sstrace"
                                      : i == 1 ? "hard.sstrace"
                                      : i == 2 ? "soft.sstrace"
                                               : "./t.sstrace";
        }
        const auto back = engine::fromComparisonJson(engine::toComparisonJson(c), "once.sscompare", base.toStdString());
        QCOMPARE(back.variants.size(), c.variants.size());
        for (const auto &v : back.variants) {
            QCOMPARE(v.trace.sourcePath, (base + "/t.sstrace").toStdString());
            QCOMPARE(v.trace.repetitions.size(), c.variants[1].trace.repetitions.size());
        }
        QCOMPARE(back.variants[1].traceFile, std::string("hard.sstrace"));
    }

    // A referenced trace that cannot be read is named as the comparison names it (the comparison, the
    // variant's JSON path and the trace file), never as the descriptor it was read through.
    void unreadableReferencedTraceIsNamed()
    {
        const QString base = m_dir.filePath("named");
        QVERIFY(QDir().mkpath(base));
        engine::writeFileAtomically((base + "/bad.sstrace").toStdString(), "{\"format\": \"streamscope-trace\", ");
        engine::Comparison c = sample();
        c.variants[2].traceFile = "bad.sstrace";
        const Failure f = failureOf(
            [&] { engine::fromComparisonJson(engine::toComparisonJson(c), "n.sscompare", base.toStdString()); });
        QCOMPARE(f.kind, int(ErrorKind::InvalidInput));
        QVERIFY2(f.message.startsWith(QStringLiteral("n.sscompare: /variants/2/trace_file: ")), qPrintable(f.message));
        QVERIFY2(f.message.contains(base + QStringLiteral("/bad.sstrace")), qPrintable(f.message));
        QVERIFY2(!f.message.contains(QStringLiteral("/proc/self/fd")), qPrintable(f.message));
    }

    void writeAndRead()
    {
        const engine::Comparison c = sample();
        const QString path = m_dir.filePath("written.sscompare");
        engine::writeComparison(c, path.toStdString());
        QCOMPARE(engine::readFile(path.toStdString()), engine::toComparisonJson(c));
        compareComparisons(engine::readComparison(path.toStdString()), c);
        QCOMPARE(int(engine::detectFileKind(path.toStdString())), int(engine::FileKind::Comparison));
        // Writing again replaces the file.
        engine::Comparison d = c;
        d.title = "second";
        d.variants.resize(1);
        engine::writeComparison(d, path.toStdString());
        QCOMPARE(engine::readComparison(path.toStdString()).title, std::string("second"));
        QCOMPARE(int(engine::readComparison(path.toStdString()).variants.size()), 1);
    }

    void writeIntoMissingFolder()
    {
        const QString path = m_dir.filePath("no/such/folder/out.sscompare");
        const Failure f = failureOf([&] { engine::writeComparison(sample(), path.toStdString()); });
        QCOMPARE(f.kind, int(ErrorKind::Io));
        QVERIFY2(f.message.contains("out.sscompare"), qPrintable(f.message));
        QVERIFY(!QFileInfo::exists(path));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("no")));
    }

    // The target is replaced only once everything is written: a comparison that cannot be written
    // (a title that is not UTF-8 cannot be JSON) leaves the old file as it was and no temporary behind.
    void failedWriteKeepsTarget()
    {
        const QString folder = m_dir.filePath("atomic");
        QVERIFY(QDir().mkpath(folder));
        const QString path = folder + "/keep.sscompare";
        engine::writeComparison(sample(), path.toStdString());
        const std::string before = engine::readFile(path.toStdString());
        engine::Comparison bad = sample();
        bad.title = std::string("bad \xff\xfe title");
        const Failure f = failureOf([&] { engine::writeComparison(bad, path.toStdString()); });
        QCOMPARE(f.kind, int(ErrorKind::InvalidInput));
        QVERIFY2(f.message.contains("keep.sscompare"), qPrintable(f.message));
        QVERIFY(engine::readFile(path.toStdString()) == before);
        QCOMPARE(QDir(folder).entryList(QDir::Files | QDir::Hidden), QStringList({"keep.sscompare"}));
    }

    void readErrors()
    {
        const Failure missing =
            failureOf([&] { engine::readComparison(m_dir.filePath("absent.sscompare").toStdString()); });
        QCOMPARE(missing.kind, int(ErrorKind::Io));
        QVERIFY2(missing.message.contains("absent.sscompare"), qPrintable(missing.message));
        const Failure folder = failureOf([&] { engine::readComparison(m_dir.path().toStdString()); });
        QCOMPARE(folder.kind, int(ErrorKind::Io));
        // A trace is not a comparison: named by the path it was read from.
        const QString trace = source("resources/examples/overlap.sstrace");
        const Failure notComparison = failureOf([&] { engine::readComparison(trace.toStdString()); });
        QCOMPARE(notComparison.kind, int(ErrorKind::InvalidInput));
        QVERIFY2(notComparison.message.startsWith(trace + ": /format: expected \"streamscope-comparison\""),
                 qPrintable(notComparison.message));
    }

    void bundled_data()
    {
        QTest::addColumn<QString>("path");
        const QDir dir(source("resources/examples/comparisons"));
        const QStringList files = dir.entryList({QStringLiteral("*.sscompare")}, QDir::Files);
        QVERIFY(files.size() >= 4);
        for (const QString &f : files)
            QTest::newRow(qPrintable(f)) << dir.filePath(f);
    }
    void bundled()
    {
        QFETCH(QString, path);
        const engine::Comparison c = engine::readComparison(path.toStdString());
        QCOMPARE(c.formatVersion, 1);
        QVERIFY(!c.title.empty());
        QVERIFY(!c.axes.empty());
        // The grid: the cartesian product of the axes, the first axis varying slowest.
        std::size_t count = 1;
        for (const auto &a : c.axes)
            count *= a.values.size();
        QCOMPARE(c.variants.size(), count);
        for (std::size_t i = 0; i < c.variants.size(); ++i) {
            const auto &v = c.variants[i];
            QCOMPARE(v.settings.size(), c.axes.size());
            std::size_t rest = i;
            for (std::size_t k = c.axes.size(); k-- > 0;) {
                const auto &values = c.axes[k].values;
                QCOMPARE(int(v.settings[k].axis), int(c.axes[k].axis));
                QCOMPARE(v.settings[k].value, values[rest % values.size()]);
                rest /= values.size();
            }
            QCOMPARE(v.label, engine::variantLabel(v.settings));
            QVERIFY(v.traceFile.empty());
            QVERIFY(!v.trace.repetitions.empty());
            QVERIFY(v.trace.opCount() > 0);
        }
        const auto rows = engine::summarizeComparison(c);
        QCOMPARE(rows.size(), c.variants.size());
        QCOMPARE(rows[0].vsFirst.kind, engine::VerdictKind::Noise);
        QCOMPARE(rows[0].vsFirst.ratio, 1.0);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(rows[i].label, c.variants[i].label);
            QVERIFY(rows[i].summary.makespanNs.count > 0);
            QVERIFY(rows[i].vsFirst.kind != engine::VerdictKind::Unknown);
        }
        // What is read writes back and reads again unchanged.
        compareComparisons(engine::fromComparisonJson(engine::toComparisonJson(c), path.toStdString()), c);
    }

    void summaryRows()
    {
        QVERIFY(engine::summarizeComparison(engine::Comparison{}).empty());
        engine::Comparison c;
        c.axes = {engine::parseVaryOption("memory=pageable,pinned,registered,managed")};
        c.variants.push_back(variant({{Axis::Memory, "pageable"}}, scaled(1.0)));
        c.variants.push_back(variant({{Axis::Memory, "pinned"}}, scaled(0.25)));
        c.variants.push_back(variant({{Axis::Memory, "registered"}}, scaled(4.0)));
        c.variants.push_back(variant({{Axis::Memory, "managed"}}, scaled(1.1)));
        c.variants.push_back(variant({{Axis::Memory, "managed"}}, engine::Trace{})); // ran nothing
        const auto rows = engine::summarizeComparison(c);
        QCOMPARE(int(rows.size()), 5);
        QCOMPARE(rows[0].label, std::string("memory=pageable"));
        QCOMPARE(rows[0].summary.makespanNs.median, 704000.0);
        QCOMPARE(rows[0].vsFirst.kind, engine::VerdictKind::Noise);
        QCOMPARE(rows[0].vsFirst.ratio, 1.0);
        QCOMPARE(rows[0].vsFirst.deltaNs, 0.0);
        // 88..264 us against 352..1056 us: all below.
        QCOMPARE(rows[1].vsFirst.kind, engine::VerdictKind::Faster);
        QCOMPARE(rows[1].vsFirst.ratio, 4.0);
        QCOMPARE(rows[1].vsFirst.deltaNs, 176000.0 - 704000.0);
        QCOMPARE(QString::fromStdString(engine::describe(rows[1].vsFirst)), QStringLiteral("4.00x faster"));
        QCOMPARE(rows[2].vsFirst.kind, engine::VerdictKind::Slower);
        QCOMPARE(QString::fromStdString(engine::describe(rows[2].vsFirst)), QStringLiteral("4.00x slower"));
        QCOMPARE(rows[3].vsFirst.kind, engine::VerdictKind::Noise);
        QCOMPARE(rows[4].summary.makespanNs.count, 0);
        QCOMPARE(rows[4].vsFirst.kind, engine::VerdictKind::Unknown);
        // Every row is compared with the first, never with the row before it.
        std::swap(c.variants[0], c.variants[1]);
        const auto swapped = engine::summarizeComparison(c);
        QCOMPARE(swapped[1].vsFirst.kind, engine::VerdictKind::Slower);
        QCOMPARE(swapped[2].vsFirst.kind, engine::VerdictKind::Slower);
        QCOMPARE(swapped[3].vsFirst.kind, engine::VerdictKind::Slower);
    }

    // A first variant that ran nothing leaves every row without a verdict.
    void summaryWithEmptyFirst()
    {
        engine::Comparison c;
        c.variants.push_back(variant({}, engine::Trace{}));
        c.variants.push_back(variant({}, scaled(1.0)));
        const auto rows = engine::summarizeComparison(c);
        QCOMPARE(rows[0].vsFirst.kind, engine::VerdictKind::Unknown);
        QCOMPARE(rows[1].vsFirst.kind, engine::VerdictKind::Unknown);
    }

private:
    QTemporaryDir m_dir;
};

QTEST_APPLESS_MAIN(TestComparisonFile)
#include "tst_comparison_file.moc"
