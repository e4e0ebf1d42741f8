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
    void missingInputsAreIoErrors();
    void exportRefusesToReplaceWhatItShouldNot();
    void validatePresets();
    void validateReportsLineAndPath();
    void runWithoutGpuOrWithOne();
    void devicesWithoutGpuOrWithOne();
    void summaryShowsPeerLinks();
    void runProgressJson();
    void summaryOfTrace();
    void describeOneOp();
    void exportConversions_data();
    void exportConversions();
    void exportRejectsGarbage();
    void exportFormatFromSuffix_data();
    void exportFormatFromSuffix();
    void summaryLeavesOutWhatATraceDidNotRecord();

private:
    QTemporaryDir m_dir;
    bool m_gpu = false;
};

void TestCli::initTestCase()
{
    QVERIFY2(QFile::exists(test::cliPath()), qPrintable(test::cliPath())); // $STREAMSCOPE_CLI on the GPU host
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

void TestCli::missingInputsAreIoErrors()
{
    // The help says 4 is an I/O error: a file that is not there is one, for every command (CLI11's
    // existence check made it a usage error, 2).
    for (const QStringList &args :
         {QStringList{"run", "/no/such/file.json"}, QStringList{"validate", "/no/such/file.json"},
          QStringList{"summary", "/no/such/file.json"},
          QStringList{"export", "/no/such/file.json", "--format", "csv", "-o", "/tmp/x.csv"},
          QStringList{"diff", "/no/such/file.json", "/no/such/other.json"}}) {
        const auto r = cli(args);
        QVERIFY2(r.code == 4, qPrintable(args.join(u' ') + QStringLiteral(": exit ") + QString::number(r.code)));
        QVERIFY2(r.err.contains(QStringLiteral("/no/such/file.json: cannot open for reading")), qPrintable(r.err));
    }
}

void TestCli::exportRefusesToReplaceWhatItShouldNot()
{
    QTemporaryDir dir;
    const QString input = dir.filePath(QStringLiteral("in.sstrace"));
    QVERIFY(QFile::copy(QString(STREAMSCOPE_SOURCE_DIR) + "/resources/examples/overlap.sstrace", input));
    QFile::setPermissions(input, QFile::ReadOwner | QFile::WriteOwner);
    const QByteArray before = [&] {
        QFile f(input);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }();
    // Over its own input: refused, the input untouched.
    auto r = cli({"export", input, "--format", "native", "-o", input});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(QStringLiteral("is the input file itself")), qPrintable(r.err));
    {
        QFile f(input);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before);
    }
    // Over a symbolic link: refused, the link and its target untouched.
    const QString target = dir.filePath(QStringLiteral("target.csv")), link = dir.filePath(QStringLiteral("link.csv"));
    {
        QFile t(target);
        QVERIFY(t.open(QIODevice::WriteOnly));
        t.write("keep me");
    }
    QVERIFY(QFile::link(target, link));
    r = cli({"export", input, "--format", "csv", "-o", link});
    QCOMPARE(r.code, 4);
    QVERIFY2(r.err.contains(QStringLiteral("is a symbolic link, not a regular file")), qPrintable(r.err));
    QVERIFY(QFileInfo(link).isSymLink());
    {
        QFile t(target);
        QVERIFY(t.open(QIODevice::ReadOnly));
        QCOMPARE(t.readAll(), QByteArray("keep me"));
    }
    // Over a device: refused.
    r = cli({"export", input, "--format", "csv", "-o", "/dev/null"});
    QCOMPARE(r.code, 4);
    QVERIFY2(r.err.contains(QStringLiteral("is a device")), qPrintable(r.err));
    // Over a write-protected file (0444): refused as cp refuses, the file untouched.
    const QString locked = dir.filePath(QStringLiteral("locked.csv"));
    {
        QFile o(locked);
        QVERIFY(o.open(QIODevice::WriteOnly));
        o.write("protected");
    }
    QVERIFY(QFile::setPermissions(locked, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther));
    r = cli({"export", input, "-o", locked});
    QCOMPARE(r.code, 4);
    QVERIFY2(r.err.contains(locked + QStringLiteral(": is write-protected (mode 0444)")), qPrintable(r.err));
    {
        QFile o(locked);
        QVERIFY(o.open(QIODevice::ReadOnly));
        QCOMPARE(o.readAll(), QByteArray("protected"));
    }
    // Over a regular file: replaced, keeping its mode (0600 stays 0600); nothing temporary left behind.
    const QString out = dir.filePath(QStringLiteral("out.csv"));
    {
        QFile o(out);
        QVERIFY(o.open(QIODevice::WriteOnly));
        o.write("old");
    }
    QVERIFY(QFile::setPermissions(out, QFile::ReadOwner | QFile::WriteOwner));
    r = cli({"export", input, "--format", "csv", "-o", out});
    QCOMPARE(r.code, 0);
    QCOMPARE(QFileInfo(out).permissions() & (QFile::ReadGroup | QFile::ReadOther | QFile::WriteOwner),
             QFile::Permissions(QFile::WriteOwner));
    QVERIFY(QFileInfo(out).size() > 1000);
    QCOMPARE(QDir(dir.path()).entryList({QStringLiteral(".*.tmp*")}, QDir::Files | QDir::Hidden).size(), 0);
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

// `devices` and `devices --json`. Without a GPU: the no-GPU message on standard error and exit 5, as
// `run` reports it, and with --json the protocol's error line on standard output. With one: the table,
// and JSON with every device and every ordered pair.
void TestCli::devicesWithoutGpuOrWithOne()
{
    const auto table = cli({"devices"});
    const auto json = cli({"devices", "--json"});
    if (!m_gpu) {
        QCOMPARE(table.code, 5);
        QVERIFY2(table.out.isEmpty(), qPrintable(table.out));
        // The reason with the CUDA error itself, or, in a build without CUDA, that it has none.
        QVERIFY2((table.err.startsWith("streamscope-cli devices: no usable GPU: ")
                  && table.err.contains("(cudaGetDeviceCount: cudaError"))
                     || table.err.startsWith("streamscope-cli devices: this build has no CUDA"),
                 qPrintable(table.err));
        QCOMPARE(json.code, 5);
        QCOMPARE(json.err, table.err);
        const QStringList lines = json.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1);
        const auto j = nlohmann::json::parse(lines.front().toStdString(), nullptr, false);
        QVERIFY2(j.is_object(), qPrintable(json.out));
        QCOMPARE(j.value("event", ""), std::string("error"));
        QCOMPARE(j.value("kind", ""), std::string("no_gpu"));
        QCOMPARE(j.value("exit_code", 0), 5);
        QVERIFY2(table.err.contains(QString::fromStdString(j.value("message", "?"))), qPrintable(json.out));
        return;
    }
    QVERIFY2(table.code == 0, qPrintable(table.err));
    QVERIFY2(table.out.contains("bus id") && table.out.contains("driver "), qPrintable(table.out));
    QVERIFY2(json.code == 0, qPrintable(json.err));
    const auto j = nlohmann::json::parse(json.out.toStdString(), nullptr, false);
    QVERIFY2(j.is_object() && j.contains("devices") && j.contains("peer_links"), qPrintable(json.out));
    const std::size_t n = j["devices"].size();
    QVERIFY(n >= 1);
    QCOMPARE(j["peer_links"].size(), n * (n - 1));
    if (n >= 2)
        QVERIFY2(table.out.contains("peer links:"), qPrintable(table.out));
    else
        QVERIFY2(table.out.contains("one device: no peer links"), qPrintable(table.out));
}

// A trace that recorded the topology of two GPUs shows how they are linked in its summary; one without
// shows no peer links.
void TestCli::summaryShowsPeerLinks()
{
    engine::Trace trace = test::handTrace(2);
    const QString plain = m_dir.filePath("one-gpu.sstrace");
    engine::writeNativeTrace(trace, plain.toStdString());
    auto r = cli({"summary", plain});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(!r.out.contains("peer links"), qPrintable(r.out));

    engine::DeviceInfo second = trace.devices.empty() ? engine::DeviceInfo{} : trace.devices.front();
    second.index = 1;
    trace.devices.push_back(second);
    for (auto [src, dst] : {std::pair{0, 1}, std::pair{1, 0}})
        trace.peerLinks.push_back(test::makePeerLink(src, dst, engine::LinkType::NvLink, 18, 450));
    const QString linked = m_dir.filePath("two-gpus.sstrace");
    engine::writeNativeTrace(trace, linked.toStdString());
    r = cli({"summary", linked});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("peer links: row copies to column"), qPrintable(r.out));
    QVERIFY2(r.out.contains("from 0   -"), qPrintable(r.out));
    QVERIFY2(r.out.contains("yes, NVLink x18, rank 0, 450 GB/s"), qPrintable(r.out));
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

// describe: one op as the app's details describe it (engine::describeOp); an op that is not there is a
// usage of the wrong index, named, with the invalid-input exit code.
void TestCli::describeOneOp()
{
    const QString path = m_dir.filePath("describe.sstrace");
    engine::writeNativeTrace(test::handTrace(3), path.toStdString());
    const auto r = cli({"describe", path, "3", "--repetition", "1"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    // D: D2H s1 in repetition 1, on that repetition's axis (it starts 10 ms into the trace).
    for (const char *line :
         {"D: D2H 2 MB\n", "kind: D2H copy\n", "stream: s1\n", "op: #3\n",
          "host call: 12 µs -> 704 µs (692 µs), blocking\n", "GPU: 500 µs -> 700 µs (200 µs), timed by CUDA events\n",
          "memory: device -> pinned\n", "call: cudaMemcpyAsync\n"})
        QVERIFY2(r.out.contains(QString::fromUtf8(line)), qPrintable(r.out));
    const auto missing = cli({"describe", path, "4"});
    QCOMPARE(missing.code, 3);
    QVERIFY2(missing.err.contains("op 4 does not exist"), qPrintable(missing.err));
    QVERIFY(cli({"--help"}).out.contains("describe"));
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

void TestCli::exportFormatFromSuffix_data()
{
    QTest::addColumn<QString>("suffix");
    QTest::addColumn<QString>("expect");
    QTest::newRow(".sstrace") << "sstrace"
                              << "streamscope-trace";
    QTest::newRow(".json") << "json"
                           << "traceEvents";
    QTest::newRow(".csv") << "csv"
                          << "repetition,op_index,name";
}

// `export X.sqlite -o y.sstrace`: the output's suffix names the format, so --format is not demanded.
void TestCli::exportFormatFromSuffix()
{
    QFETCH(QString, suffix);
    QFETCH(QString, expect);
    const QString in = test::sourceDir() + QStringLiteral("/tests/engine/fixtures/nsys-streamscope/overlap.sqlite");
    QVERIFY(QFile::exists(in));
    const QString out = m_dir.filePath("from-sqlite." + suffix);
    const auto r = cli({"export", in, "-o", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().contains(expect.toUtf8()));
    // A suffix that names no format: --format is asked for, and nothing is written.
    const QString unknown = m_dir.filePath("from-sqlite.bin");
    const auto bad = cli({"export", in, "-o", unknown});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("--format"), qPrintable(bad.err));
    QVERIFY(!QFile::exists(unknown));
}

// A PyTorch profile records the GPU's model, compute capability and SMs but no copy engines: the summary
// leaves the count out instead of printing "0 copy engines".
void TestCli::summaryLeavesOutWhatATraceDidNotRecord()
{
    const auto r = cli({"summary", test::sourceDir() + QStringLiteral("/tests/engine/fixtures/kineto_minimal.json")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(!r.out.contains("copy engine"), qPrintable(r.out));
    QVERIFY2(r.out.contains("Fixture GPU (cc 9.0, 132 SMs)"), qPrintable(r.out));
    // A trace that recorded them still shows them.
    const QString path = m_dir.filePath("engines.sstrace");
    engine::Trace trace = test::handTrace(1);
    QVERIFY(!trace.devices.empty());
    trace.devices.front().asyncEngineCount = 2;
    engine::writeNativeTrace(trace, path.toStdString());
    const auto native = cli({"summary", path});
    QVERIFY2(native.code == 0, qPrintable(native.err));
    QVERIFY2(native.out.contains("2 copy engines"), qPrintable(native.out));
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
