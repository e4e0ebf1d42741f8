// `streamscope-cli compare` and `diff` as a user meets them: help, usage errors, exit codes, the
// comparison table (from a saved .sscompare, which needs no GPU), the no-GPU error and JSON progress
// of a real compare, and the diff of two hand-made native traces. With a GPU, compare runs a small
// real grid instead of checking the no-GPU error.
#include <QtTest>

#include "tests/app/cli/cli_process.h"

#include <nlohmann/json.hpp>

#include "engine/experiment/comparison_file.h"
#include "engine/experiment/experiment.h"
#include "engine/formats/native_format.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope;

namespace {
using Result = streamscope::test::CliResult;
Result cli(const QStringList &args)
{
    return streamscope::test::runCli(args);
}
QString preset(const char *name)
{
    return streamscope::test::presetPath(name);
}
engine::Trace scaled(double k)
{
    engine::Trace t = test::handTrace(3);
    for (auto &rep : t.repetitions)
        for (auto &op : rep.ops)
            for (auto *v : {&op.gpuStartNs, &op.gpuEndNs, &op.hostStartNs, &op.hostEndNs})
                *v = static_cast<std::int64_t>(static_cast<double>(*v) * k);
    return t;
}
} // namespace

class TestCliCompare : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void help();
    void usageErrors_data();
    void usageErrors();
    void impossibleAxisIsInvalidInput();
    void compareRunsOrSaysNoGpu();
    void compareProgressJson();
    void workloadsOwnComparison();
    void savedComparisonTable();
    void malformedComparison();
    void diffOfHandTraces();
    void diffOfRenamedOps();
    void diffErrors();

private:
    QTemporaryDir m_dir;
    bool m_gpu = false;
};

void TestCliCompare::initTestCase()
{
    QVERIFY2(QFile::exists(test::cliPath()), qPrintable(test::cliPath())); // $STREAMSCOPE_CLI on the GPU host
    m_gpu = cli({"devices"}).code == 0;
    qInfo() << (m_gpu ? "a GPU is present: compare runs a real grid" : "no GPU: compare checks the no-GPU error");
}

void TestCliCompare::help()
{
    const auto r = cli({"--help"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("compare"));
    QVERIFY(r.out.contains("diff"));
    const auto c = cli({"compare", "--help"});
    QCOMPARE(c.code, 0);
    for (const char *word : {"--vary", "--output", "--repeat", "--warmup", "--device", "--progress", "memory", "api",
                             "streams", "order", "chunks", "size"})
        QVERIFY2(c.out.contains(word), word);
    const auto d = cli({"diff", "--help"});
    QCOMPARE(d.code, 0);
    for (const char *word : {"--statistic", "--normalize-names", "--ops"})
        QVERIFY2(d.out.contains(word), word);
}

void TestCliCompare::usageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("compare without file") << QStringList{"compare"} << "input";
    QTest::newRow("vary without equals") << QStringList{"compare", preset("overlap.json"), "--vary", "memory"}
                                         << "AXIS=VALUE";
    QTest::newRow("unknown axis") << QStringList{"compare", preset("overlap.json"), "--vary", "colour=red"}
                                  << "unknown axis \"colour\"";
    QTest::newRow("bad value") << QStringList{"compare", preset("overlap.json"), "--vary", "api=fast"} << "fast";
    QTest::newRow("axis twice") << QStringList{"compare",  preset("overlap.json"), "--vary", "streams=1", "--vary",
                                               "streams=2"}
                                << "already varied";
    QTest::newRow("two values without comma")
        << QStringList{"compare", preset("overlap.json"), "--vary", "api=sync", "memory=pinned"} << "memory=pinned";
    QTest::newRow("bad repeat") << QStringList{"compare", preset("overlap.json"), "--repeat", "0"} << "repeat";
    QTest::newRow("diff one file") << QStringList{"diff", preset("overlap.json")} << "b";
    QTest::newRow("diff bad statistic") << QStringList{"diff", preset("overlap.json"), preset("overlap.json"),
                                                       "--statistic", "mean"}
                                        << "mean";
}

void TestCliCompare::usageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const auto r = cli(args);
    QCOMPARE(r.code, 2);
    QVERIFY2((r.out + r.err).contains(message), qPrintable(r.out + r.err));
}

void TestCliCompare::impossibleAxisIsInvalidInput()
{
    const QString out = m_dir.filePath("never.sscompare");
    const auto r =
        cli({"compare", preset("bandwidth.json"), "--vary", "memory=pinned", "--vary", "streams=1,2", "-o", out});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("bandwidth.json") && r.err.contains("variant 1 of 2 (memory=pinned, streams=1)")
                 && r.err.contains("no \"pipeline\""),
             qPrintable(r.err));
    QVERIFY(!QFile::exists(out));
    const auto m = cli({"compare", preset("overlap.json"), "--vary", "memory=pinned,managed"});
    QCOMPARE(m.code, 3);
    QVERIFY2(m.err.contains("(memory=managed)") && m.err.contains("/pipeline/hostMemory"), qPrintable(m.err));
}

void TestCliCompare::compareRunsOrSaysNoGpu()
{
    const QString out = m_dir.filePath("overlap.sscompare");
    const auto r = cli({"compare", preset("overlap.json"), "--vary", "streams=1,4", "--vary",
                        "order=depth-first,breadth-first", "--repeat", "3", "--warmup", "1", "-o", out});
    if (!m_gpu) {
        QCOMPARE(r.code, 5);
        QVERIFY2(r.err.contains("CUDA") || r.err.contains("GPU"), qPrintable(r.err));
        QVERIFY2(!r.err.contains("variant"), qPrintable(r.err)); // the plain no-GPU message, as `run` gives
        QVERIFY(!QFile::exists(out));
        return;
    }
    QVERIFY2(r.code == 0, qPrintable(r.err));
    for (const char *word : {"streams=1, order=depth-first", "streams=4, order=breadth-first", "baseline", "makespan",
                             "H2D", "D2H", "efficiency"})
        QVERIFY2(r.out.contains(word), word);
    const auto c = engine::readComparison(out.toStdString());
    QCOMPARE(int(c.variants.size()), 4);
    for (const auto &v : c.variants) {
        QCOMPARE(int(v.trace.repetitions.size()), 3);
        QVERIFY(!v.trace.devices.empty());
    }
    QCOMPARE(int(c.variants[0].trace.streams.size()), 1);
    QCOMPARE(int(c.variants[3].trace.streams.size()), 4);
}

void TestCliCompare::compareProgressJson()
{
    const auto r = cli({"compare", preset("overlap.json"), "--vary", "streams=1,2", "--repeat", "2", "--warmup", "0",
                        "--progress", "json"});
    const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
    QVERIFY(lines.size() >= 2);
    QStringList events;
    for (const auto &line : lines) {
        const auto j = nlohmann::json::parse(line.toStdString(), nullptr, false);
        QVERIFY2(j.is_object(), qPrintable("not a JSON object: " + line));
        events << QString::fromStdString(j.value("event", ""));
        if (j["event"] == "start") {
            QCOMPARE(j["command"].get<std::string>(), std::string("compare"));
            QCOMPARE(j["variants"].size(), std::size_t(2));
            QCOMPARE(j["variants"][1].get<std::string>(), std::string("streams=2"));
        }
        if (j["event"] == "progress") {
            QVERIFY(j["fraction"].get<double>() >= 0 && j["fraction"].get<double>() <= 1);
            QVERIFY(j.contains("label"));
        }
        if (j["event"] == "error") {
            QCOMPARE(j["kind"].get<std::string>(), std::string("no_gpu"));
            QCOMPARE(j["exit_code"].get<int>(), 5);
        }
    }
    QCOMPARE(events.first(), QString("start"));
    QCOMPARE(events.last(), QString(m_gpu ? "done" : "error"));
    QCOMPARE(r.code, m_gpu ? 0 : 5);
}

// Without --vary, compare runs the lesson's own axes (the workload's "compare" entries): the grid the
// start event lists is theirs, with or without a GPU.
void TestCliCompare::workloadsOwnComparison()
{
    const auto r = cli({"compare", preset("overlap.json"), "--repeat", "1", "--warmup", "0", "--progress", "json"});
    QVERIFY2(r.err.contains("using the workload's own comparison --vary chunks=8 --vary streams=1,2,4,8 --vary "
                            "order=depth-first,breadth-first"),
             qPrintable(r.err));
    const QString first = r.out.split('\n', Qt::SkipEmptyParts).value(0);
    const auto start = nlohmann::json::parse(first.toStdString(), nullptr, false);
    QVERIFY2(start.is_object() && start.value("event", "") == "start", qPrintable(first));
    const auto labels = start.at("variants");
    QCOMPARE(int(labels.size()), 8);
    QCOMPARE(labels.front().get<std::string>(), std::string("chunks=8, streams=1, order=depth-first"));
    QCOMPARE(labels.back().get<std::string>(), std::string("chunks=8, streams=8, order=breadth-first"));
    QCOMPARE(r.code, m_gpu ? 0 : 5);
    // A workload without "compare" and no --vary is the base alone, as before.
    const auto base =
        cli({"compare", preset("concurrent-kernels.json"), "--repeat", "1", "--warmup", "0", "--progress", "json"});
    QVERIFY(!base.err.contains("own comparison"));
    const auto baseStart =
        nlohmann::json::parse(base.out.split('\n', Qt::SkipEmptyParts).value(0).toStdString(), nullptr, false);
    QVERIFY2(baseStart.is_object() && baseStart.at("variants").size() == 1, qPrintable(base.out));
}

void TestCliCompare::savedComparisonTable()
{
    engine::Comparison c;
    c.title = "hand-made";
    c.axes = {engine::parseVaryOption("memory=pageable,pinned,registered")};
    c.repetitions = 3;
    const std::pair<const char *, double> variants[] = {{"pageable", 1.0}, {"pinned", 0.25}, {"registered", 1.1}};
    for (const auto &[memory, k] : variants) {
        engine::VariantResult v;
        v.settings = {{engine::Axis::Memory, memory}};
        v.label = engine::variantLabel(v.settings);
        v.trace = scaled(k);
        c.variants.push_back(std::move(v));
    }
    const QString path = m_dir.filePath("saved.sscompare");
    engine::writeComparison(c, path.toStdString());
    const auto r = cli({"compare", path});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QStringList lines = r.out.split('\n');
    auto line = [&](const char *label) {
        for (const auto &l : lines)
            if (l.trimmed().startsWith(label))
                return l;
        return QString();
    };
    QVERIFY2(r.out.contains("hand-made on Test GPU"), qPrintable(r.out));
    QVERIFY2(r.out.contains("3 variants, up to 3 repetitions"), qPrintable(r.out));
    // Makespans of the hand trace: 352, 704, 1056 us; the pinned one a quarter of that.
    QVERIFY2(line("memory=pageable").contains("704 µs  [352 µs .. 1.06 ms]"), qPrintable(line("memory=pageable")));
    QVERIFY2(line("memory=pageable").contains("baseline"), qPrintable(r.out));
    QVERIFY2(line("memory=pinned").contains("4.00x faster"), qPrintable(line("memory=pinned")));
    QVERIFY2(line("memory=registered").contains("noise (0.91x)"), qPrintable(line("memory=registered")));
    // H2D: 2 MB over the union of A and C (base [0,100) and [150,250): 200 us) -> 10 GB/s in rep 0,
    // 5 GB/s in the median repetition; D2H: 2 MB in 100 us * 2 -> 10 GB/s.
    QVERIFY2(line("memory=pageable").contains("5 GB/s"), qPrintable(line("memory=pageable")));
    QVERIFY2(line("memory=pageable").contains("10 GB/s"), qPrintable(line("memory=pageable")));
    QVERIFY2(r.out.contains("Some differences are noise"), qPrintable(r.out));
    // --vary on a saved comparison is a usage error.
    const auto v = cli({"compare", path, "--vary", "api=sync"});
    QCOMPARE(v.code, 2);
    QVERIFY2(v.err.contains("is a comparison file"), qPrintable(v.err));
}

void TestCliCompare::malformedComparison()
{
    const QString path = m_dir.filePath("bad.sscompare");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"format": "streamscope-comparison", "version": 1, "axes": [], "variants": [{"label": "x"}]})");
    f.close();
    const auto r = cli({"compare", path});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("bad.sscompare") && r.err.contains("/variants/0/settings"), qPrintable(r.err));
}

void TestCliCompare::diffOfHandTraces()
{
    const QString a = m_dir.filePath("a.sstrace"), b = m_dir.filePath("b.sstrace");
    engine::writeNativeTrace(test::handTrace(3), a.toStdString());
    engine::Trace slower = scaled(4.0);
    // One op fewer in B: C is listed as only in A.
    for (auto &rep : slower.repetitions)
        std::erase_if(rep.ops, [&](const engine::OpRecord &op) { return slower.name(op) == "C: H2D 1 MB"; });
    engine::writeNativeTrace(slower, b.toStdString());
    const auto r = cli({"diff", a, b});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    // A trace given to compare is pointed at diff instead of read as a workload.
    const auto asWorkload = cli({"compare", a});
    QCOMPARE(asWorkload.code, 3);
    QVERIFY2(asWorkload.err.contains("is a trace, not a workload") && asWorkload.err.contains("diff"),
             qPrintable(asWorkload.err));
    for (const char *word : {"makespan A", "704 µs  [352 µs .. 1.06 ms]", "makespan delta", "+2.11 ms",
                             "(B 4.00x slower)", "ops matched", "only in A / only in B", "1 / 0", "|start delta|",
                             "|duration delta|", "only in A: s1", "C: H2D 1 MB", "4.00x slower", "noise"})
        QVERIFY2(r.out.contains(word), qPrintable(QString(word) + " not in:\n" + r.out));
    // Identical traces: every verdict is noise and nothing is unmatched. The makespan row says so in words,
    // not "B noise (1.00x)", which read as if B were noisy.
    const auto same = cli({"diff", a, a, "--statistic", "median-repetition"});
    QCOMPARE(same.code, 0);
    QVERIFY2(same.out.contains("(no clear difference: A's and B's min..max ranges overlap)"), qPrintable(same.out));
    QVERIFY2(!same.out.contains("B noise"), qPrintable(same.out));
    QVERIFY2(same.out.contains("0 / 0"), qPrintable(same.out));
    QVERIFY2(same.out.contains("the median repetition"), qPrintable(same.out));
    QVERIFY(!same.out.contains("unmatched ops"));
}

void TestCliCompare::diffOfRenamedOps()
{
    const QString a = m_dir.filePath("named.sstrace"), b = m_dir.filePath("renamed.sstrace");
    engine::Trace t = test::handTrace(3);
    engine::writeNativeTrace(t, a.toStdString());
    // Copies named by another tool pair by order (same stream, kind and size); a renamed kernel has no
    // size to tell it by, so it stays unpaired rather than being compared with whatever is in its place.
    const auto copyName = t.intern("[CUDA memcpy HtoD]");
    const auto kernelName = t.intern("scale_kernel(float*)");
    for (auto &rep : t.repetitions)
        for (auto &op : rep.ops) {
            if (op.kind == engine::OpKind::CopyH2D)
                op.nameId = copyName;
            if (op.kind == engine::OpKind::Kernel)
                op.nameId = kernelName;
        }
    t.streams[0].name = "Stream 13";
    engine::writeNativeTrace(t, b.toStdString());
    const auto r = cli({"diff", a, b, "--ops", "10"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("3 (2 by order, names differ)"), qPrintable(r.out));
    QVERIFY2(r.out.contains("A: H2D 1 MB = [CUDA memcpy HtoD]*"), qPrintable(r.out));
    QVERIFY2(r.out.contains("1 / 1"), qPrintable(r.out)); // the kernel, only in A and only in B
    QVERIFY2(r.out.contains("scale_kernel(float*)"), qPrintable(r.out));
    QVERIFY2(!r.out.contains("B: kernel = "), qPrintable(r.out));
    QVERIFY2(r.out.contains("Stream 13*"), qPrintable(r.out));
}

void TestCliCompare::diffErrors()
{
    const QString garbage = m_dir.filePath("garbage.sstrace");
    QFile f(garbage);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a trace");
    f.close();
    const auto r = cli({"diff", garbage, garbage});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.startsWith("streamscope-cli diff: ") && r.err.contains("garbage.sstrace"), qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_cli_compare.moc"
