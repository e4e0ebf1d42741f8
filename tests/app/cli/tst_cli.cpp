// streamscope-cli as a user meets it: exit codes, messages, the JSON progress protocol, conversions.
// Runs the real binary (STREAMSCOPE_CLI). On a machine with a GPU the run tests run a real preset;
// without one they check the plain no-GPU error.
#include <QtTest>

#include "tests/app/cli/cli_process.h"

#include <nlohmann/json.hpp>

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
} // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void help();
    void usageErrors_data();
    void usageErrors();
    void validatePresets();
    void validateReportsLineAndPath();
    void runWithoutGpuOrWithOne();
    void runProgressJson();
    void summaryOfTrace();
    void exportConversions_data();
    void exportConversions();
    void exportRejectsGarbage();

private:
    QTemporaryDir m_dir;
    bool m_gpu = false;
};

void TestCli::initTestCase()
{
    QVERIFY(QFile::exists(STREAMSCOPE_CLI));
    m_gpu = cli({"devices"}).code == 0;
    qInfo() << (m_gpu ? "a GPU is present: run tests run real presets" : "no GPU: run tests check the no-GPU error");
}

void TestCli::help()
{
    const auto r = cli({"--help"});
    QCOMPARE(r.code, 0);
    for (const char *word : {"devices", "validate", "run", "summary", "export", "Exit codes"})
        QVERIFY2(r.out.contains(word), word);
    const auto run = cli({"run", "--help"});
    QCOMPARE(run.code, 0);
    for (const char *word : {"--output", "--device", "--repeat", "--warmup", "--format", "--progress"})
        QVERIFY2(run.out.contains(word), word);
    const auto v = cli({"--version"});
    QCOMPARE(v.code, 0);
    QVERIFY(v.out.contains("streamscope-cli"));
}

void TestCli::usageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no command") << QStringList{} << "subcommand";
    QTest::newRow("unknown command") << QStringList{"frobnicate"} << "frobnicate";
    QTest::newRow("run without file") << QStringList{"run"} << "workload";
    QTest::newRow("run missing file") << QStringList{"run", "/no/such/file.json"} << "/no/such/file.json";
    QTest::newRow("bad format") << QStringList{"run", preset("overlap.json"), "--format", "xml"} << "xml";
    QTest::newRow("bad repeat") << QStringList{"run", preset("overlap.json"), "--repeat", "0"} << "repeat";
    QTest::newRow("export without format") << QStringList{"export", preset("overlap.json"), "-o", "x"} << "format";
}

void TestCli::usageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const auto r = cli(args);
    QCOMPARE(r.code, 2);
    QVERIFY2((r.out + r.err).contains(message), qPrintable(r.out + r.err));
}

void TestCli::validatePresets()
{
    const QDir dir(QString(STREAMSCOPE_SOURCE_DIR) + "/resources/workloads");
    const QStringList files = dir.entryList({"*.json"}, QDir::Files);
    QVERIFY2(files.size() >= 8, "one preset per lesson");
    QStringList args{"validate"};
    for (const auto &f : files)
        args << dir.filePath(f);
    const auto r = cli(args);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.out.count(": ok: "), files.size());
}

void TestCli::validateReportsLineAndPath()
{
    const QString path = m_dir.filePath("bad.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\n  \"version\": 1,\n  \"name\": \"bad\",\n  \"streams\": [\n    {\"name\": \"s0\", \"ops\": [\n"
            "      {\"copy\": \"h2d\", \"bytes\": \"lots\"}\n    ]}\n  ]\n}\n");
    f.close();
    const auto r = cli({"validate", path});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains(path), qPrintable(r.err));
    QVERIFY2(r.err.contains("/streams/0/ops/0"), qPrintable(r.err));
    QVERIFY2(r.err.contains(":6"), qPrintable(r.err)); // the line of the bad op
}

void TestCli::runWithoutGpuOrWithOne()
{
    const QString out = m_dir.filePath("run.sstrace");
    const auto r = cli({"run", preset("overlap.json"), "-o", out, "--repeat", "2", "--warmup", "1"});
    if (!m_gpu) {
        QCOMPARE(r.code, 5);
        QVERIFY2(r.err.contains("CUDA") || r.err.contains("GPU"), qPrintable(r.err));
        QVERIFY(!QFile::exists(out));
        return;
    }
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("Makespan"));
    const auto t = engine::readNativeTrace(out.toStdString());
    QCOMPARE(int(t.repetitions.size()), 2);
    QVERIFY(!t.devices.empty());
    QVERIFY(!t.workloadJson.empty());
}

void TestCli::runProgressJson()
{
    const QString out = m_dir.filePath("progress.sstrace");
    const auto r = cli({"run", preset("overlap.json"), "-o", out, "--repeat", "2", "--progress", "json"});
    const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
    QVERIFY(!lines.isEmpty());
    QStringList events;
    for (const auto &line : lines) {
        const auto j = nlohmann::json::parse(line.toStdString(), nullptr, false);
        QVERIFY2(j.is_object(), qPrintable("not a JSON object: " + line));
        events << QString::fromStdString(j.value("event", ""));
        if (j.value("event", "") == "error") {
            QCOMPARE(j.value("kind", ""), std::string(m_gpu ? "?" : "no_gpu"));
            QCOMPARE(j.value("exit_code", 0), 5);
        }
    }
    QCOMPARE(events.first(), QString("start"));
    QCOMPARE(events.last(), QString(m_gpu ? "done" : "error"));
    QCOMPARE(r.code, m_gpu ? 0 : 5);
    if (m_gpu)
        QVERIFY(events.contains("progress"));
}

void TestCli::summaryOfTrace()
{
    const QString path = m_dir.filePath("hand.sstrace");
    engine::writeNativeTrace(test::handTrace(3), path.toStdString());
    const auto r = cli({"summary", path});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("Makespan"), qPrintable(r.out));
    QVERIFY2(r.out.contains("704"), qPrintable(r.out)); // median makespan 704 us
    QVERIFY2(r.out.contains("75.0 %"), qPrintable(r.out)); // copy/compute overlap
    QVERIFY2(r.out.contains("Test GPU"), qPrintable(r.out));
    QVERIFY2(r.out.contains("D: D2H 2 MB"), qPrintable(r.out));
    QVERIFY2(r.out.contains("blocks host"), qPrintable(r.out));
}

void TestCli::exportConversions_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("expect");
    QTest::newRow("chrome") << "chrome"
                            << "traceEvents";
    QTest::newRow("csv") << "csv"
                         << "repetition,op_index,name";
    QTest::newRow("native") << "native"
                            << "streamscope-trace";
}

void TestCli::exportConversions()
{
    QFETCH(QString, format);
    QFETCH(QString, expect);
    const QString in = m_dir.filePath("in.sstrace");
    engine::writeNativeTrace(test::handTrace(2), in.toStdString());
    const QString out = m_dir.filePath("out." + format);
    const auto r = cli({"export", in, "--format", format, "-o", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().contains(expect.toUtf8()));
}

void TestCli::exportRejectsGarbage()
{
    const QString in = m_dir.filePath("garbage.sstrace");
    QFile f(in);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a trace\n");
    f.close();
    const auto r = cli({"export", in, "--format", "chrome", "-o", m_dir.filePath("x.json")});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("garbage.sstrace"), qPrintable(r.err));
    QVERIFY(!QFile::exists(m_dir.filePath("x.json")));
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
