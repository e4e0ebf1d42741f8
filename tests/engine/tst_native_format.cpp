// The native trace file and the CSV export: round trips, atomic writes, and malformed files that must
// each give an error naming the file and the JSON path.
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "engine/analysis.h"
#include "engine/csv_export.h"
#include "engine/errors.h"
#include "engine/file_util.h"
#include "engine/native_format.h"
#include "trace_fixture.h"

using namespace streamscope;

class TestNativeFormat : public QObject {
    Q_OBJECT
private slots:
    void roundTrip();
    void roundTripKeepsAnalysis();
    void writeIsAtomic();
    void unwritableFolder();
    void missingFile();
    void malformed_data();
    void malformed();
    void csv();

private:
    QTemporaryDir m_dir;
};

static engine::Trace richTrace()
{
    auto t = test::handTrace(2);
    t.toolVersion = "0.1.0";
    t.hostName = "gpu-host";
    t.createdUtc = "2026-11-22T03:00:00Z";
    t.workloadJson = R"({"version":1,"name":"hand"})";
    t.metadata["importer"] = "none";
    t.calibration.smClockHz = 1.98e9;
    t.calibration.eventPairOverheadNs = 1312;
    t.devices[0].pciBusId = "0000:00:06.0";
    t.devices[0].pcieGeneration = 5;
    t.devices[0].pcieWidth = 16;
    t.devices[0].asyncEngineCount = 3;
    t.repetitions[1].ops[2].correlation = 77;
    t.repetitions[1].ops[2].flags = engine::OpFlagHostBlocking;
    t.repetitions[0].ops[0].nameId = t.intern("name with \"quotes\", commas and ünïcode");
    engine::OpRecord hostOnly;
    hostOnly.kind = engine::OpKind::HostSync;
    hostOnly.nameId = t.intern("sync stream");
    hostOnly.hostStartNs = 400'000;
    hostOnly.hostEndNs = 401'000;
    hostOnly.hostThread = 0;
    t.repetitions[0].ops.push_back(hostOnly);
    return t;
}

void TestNativeFormat::roundTrip()
{
    const auto t = richTrace();
    const std::string path = m_dir.filePath("rich.sstrace").toStdString();
    engine::writeNativeTrace(t, path);
    const auto r = engine::readNativeTrace(path);
    QCOMPARE(r.formatVersion, engine::kTraceFormatVersion);
    QCOMPARE(r.title, t.title);
    QCOMPARE(r.hostName, t.hostName);
    QCOMPARE(r.createdUtc, t.createdUtc);
    QCOMPARE(r.metadata.at("importer"), std::string("none"));
    QCOMPARE(r.devices.size(), 1u);
    QCOMPARE(r.devices[0].name, std::string("Test GPU"));
    QCOMPARE(r.devices[0].ccMajor, 9);
    QCOMPARE(r.devices[0].pcieGeneration, 5);
    QCOMPARE(r.devices[0].linkPeakGBs, 63.0);
    QCOMPARE(r.calibration.smClockHz, 1.98e9);
    QCOMPARE(r.streams.size(), t.streams.size());
    QCOMPARE(r.streams[1].name, std::string("s1"));
    QCOMPARE(r.streams[1].nativeId, 2);
    QCOMPARE(r.hostThreads[0].nativeId, 42u);
    QVERIFY(r.workloadJson.find("\"hand\"") != std::string::npos);
    QCOMPARE(r.strings, t.strings);
    QCOMPARE(r.repetitions.size(), t.repetitions.size());
    for (std::size_t i = 0; i < t.repetitions.size(); ++i) {
        QCOMPARE(r.repetitions[i].index, t.repetitions[i].index);
        QCOMPARE(r.repetitions[i].ops.size(), t.repetitions[i].ops.size());
        for (std::size_t j = 0; j < t.repetitions[i].ops.size(); ++j) {
            const auto &a = t.repetitions[i].ops[j];
            const auto &b = r.repetitions[i].ops[j];
            QCOMPARE(b.nameId, a.nameId);
            QCOMPARE(int(b.kind), int(a.kind));
            QCOMPARE(b.stream, a.stream);
            QCOMPARE(b.hostThread, a.hostThread);
            QCOMPARE(b.opIndex, a.opIndex);
            QCOMPARE(b.gpuStartNs, a.gpuStartNs);
            QCOMPARE(b.gpuEndNs, a.gpuEndNs);
            QCOMPARE(b.hostStartNs, a.hostStartNs);
            QCOMPARE(b.hostEndNs, a.hostEndNs);
            QCOMPARE(b.bytes, a.bytes);
            QCOMPARE(int(b.srcMem), int(a.srcMem));
            QCOMPARE(int(b.dstMem), int(a.dstMem));
            QCOMPARE(int(b.api), int(a.api));
            QCOMPARE(b.flags, a.flags);
            QCOMPARE(b.correlation, a.correlation);
        }
    }
    // the interned names are usable again after a read
    auto copy = r;
    QCOMPARE(copy.intern("sync stream"), t.repetitions[0].ops.back().nameId);
}

void TestNativeFormat::roundTripKeepsAnalysis()
{
    const auto t = test::handTrace(3);
    const auto r = engine::fromNativeJson(engine::toNativeJson(t), "mem");
    QCOMPARE(engine::summarize(r).makespanNs.median, engine::summarize(t).makespanNs.median);
    QCOMPARE(engine::summarize(r).overlapFraction.median, 0.75);
}

void TestNativeFormat::writeIsAtomic()
{
    const std::string path = m_dir.filePath("atomic.sstrace").toStdString();
    engine::writeFileAtomically(path, "old contents");
    engine::writeNativeTrace(test::handTrace(1), path);
    QVERIFY(engine::readFile(path).find("streamscope-trace") != std::string::npos);
    // no temporary file left behind
    int files = 0;
    for (const auto &e : std::filesystem::directory_iterator(m_dir.path().toStdString()))
        files += e.path().filename().string().find(".tmp") != std::string::npos;
    QCOMPARE(files, 0);
}

void TestNativeFormat::unwritableFolder()
{
    try {
        engine::writeNativeTrace(test::handTrace(1), "/nonexistent-folder/x.sstrace");
        QFAIL("expected an I/O error");
    } catch (const engine::Error &e) {
        QVERIFY(e.kind() == engine::ErrorKind::Io);
        QVERIFY2(std::string(e.what()).find("/nonexistent-folder") != std::string::npos, e.what());
    }
}

void TestNativeFormat::missingFile()
{
    try {
        engine::readNativeTrace(m_dir.filePath("nope.sstrace").toStdString());
        QFAIL("expected an I/O error");
    } catch (const engine::Error &e) {
        QVERIFY(e.kind() == engine::ErrorKind::Io);
        QVERIFY2(std::string(e.what()).find("nope.sstrace") != std::string::npos, e.what());
    }
}

void TestNativeFormat::malformed_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("where");
    const QString head = R"({"format":"streamscope-trace","version":1,"streams":[{"name":"s"}],"host_threads":[],)"
                         R"("strings":["a"],"repetitions":[{"index":0,"ops":[)";
    const QString good = R"([0,"kernel",0,-1,0,10,20,-1,-1,0,"none","none","none",0,0])";
    QTest::newRow("empty file") << "" << "not valid JSON";
    QTest::newRow("not JSON") << "hello" << "not valid JSON";
    QTest::newRow("truncated") << head + good << "not valid JSON";
    QTest::newRow("top-level array") << "[1,2]" << "top level";
    QTest::newRow("other format") << R"({"format":"chrome","version":1})" << "/format";
    QTest::newRow("no format") << R"({"version":1})" << "not a StreamScope trace";
    QTest::newRow("future version") << R"({"format":"streamscope-trace","version":99})" << "/version";
    QTest::newRow("version missing") << R"({"format":"streamscope-trace"})" << "/version";
    QTest::newRow("version is a string") << R"({"format":"streamscope-trace","version":"1"})" << "/version";
    QTest::newRow("short row") << head + R"([0,"kernel",0]]}]})" << "/repetitions/0/ops/0/3";
    QTest::newRow("unknown kind") << head + R"([0,"warp",0,-1,0,10,20,-1,-1,0,"none","none","none",0,0]]}]})"
                                  << "/repetitions/0/ops/0/1";
    QTest::newRow("unknown memory kind") << head + R"([0,"h2d",0,-1,0,10,20,-1,-1,0,"vram","none","none",0,0]]}]})"
                                         << "memory kind";
    QTest::newRow("name index out of range")
        << head + R"([5,"kernel",0,-1,0,10,20,-1,-1,0,"none","none","none",0,0]]}]})" << "/repetitions/0/ops/0/0";
    QTest::newRow("fraction in a row") << head + R"([0,"kernel",0,-1,0,10.5,20,-1,-1,0,"none","none","none",0,0]]}]})"
                                       << "/repetitions/0/ops/0/5";
    QTest::newRow("stream out of range")
        << head + R"([0,"kernel",3,-1,0,10,20,-1,-1,0,"none","none","none",0,0]]}]})" << "/repetitions/0/ops/0/2";
    QTest::newRow("end before start") << head + R"([0,"kernel",0,-1,0,30,20,-1,-1,0,"none","none","none",0,0]]}]})"
                                      << "GPU end is before GPU start";
    QTest::newRow("object as row") << head + R"({"name":0}]}]})" << "expected an op row";
    QTest::newRow("device not an object")
        << R"({"format":"streamscope-trace","version":1,"devices":[3]})" << "/devices/0";
    QTest::newRow("bad compute capability")
        << R"({"format":"streamscope-trace","version":1,"devices":[{"compute_capability":"nine"}]})"
        << "/devices/0/compute_capability";
    QTest::newRow("stream name is a number")
        << R"({"format":"streamscope-trace","version":1,"streams":[{"name":7}]})" << "/streams/0/name";
}

void TestNativeFormat::malformed()
{
    QFETCH(QString, text);
    QFETCH(QString, where);
    try {
        engine::fromNativeJson(text.toStdString(), "bad.sstrace");
        QFAIL("expected an error");
    } catch (const engine::Error &e) {
        QVERIFY(e.kind() == engine::ErrorKind::InvalidInput);
        const QString msg = QString::fromStdString(e.what());
        QVERIFY2(msg.startsWith("bad.sstrace"), qPrintable(msg));
        QVERIFY2(msg.contains(where), qPrintable(msg));
    }
}

void TestNativeFormat::csv()
{
    const auto t = richTrace();
    const std::string csv = engine::toCsv(t);
    const QStringList lines = QString::fromStdString(csv).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + int(t.opCount()));
    QVERIFY(lines[0].startsWith("repetition,op_index,name,kind,stream"));
    // the name with a comma and quotes is quoted, RFC 4180 style
    QVERIFY2(lines[1].contains(R"("name with ""quotes"", commas and ünïcode")"), qPrintable(lines[1]));
    // times are relative to the repetition's start; the second repetition starts at 10 ms
    QVERIFY2(lines[6].startsWith("1,0,"), qPrintable(lines[6]));
    QVERIFY2(lines[6].contains(",h2d,s0,main,0,200000,200000,0,4000,4000,1000000,5.000,pinned,device,async,"),
             qPrintable(lines[6]));
    const std::string path = m_dir.filePath("t.csv").toStdString();
    engine::writeCsv(t, path);
    QCOMPARE(engine::readFile(path), csv);
}

QTEST_APPLESS_MAIN(TestNativeFormat)
#include "tst_native_format.moc"
