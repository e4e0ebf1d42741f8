// The native trace file and the CSV export: round trips, atomic writes, and malformed files that must
// each give an error naming the file and the JSON path.
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include "engine/analysis/analysis.h"
#include "engine/formats/csv_export.h"
#include "engine/formats/native_format.h"
#include "engine/model/errors.h"
#include "engine/model/host_ranges.h"
#include "engine/util/file_util.h"
#include "tests/engine/trace_compare.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope;

class TestNativeFormat : public QObject {
    Q_OBJECT
private slots:
    void roundTrip();
    void roundTripKeepsAnalysis();
    void measurementFieldsRoundTrip();
    void formatOneReadsAsEventTimed();
    void formatTwoNeedsItsTiming();
    void activitiesRoundTrip();
    void formatTwoOpensWithoutActivities();
    void hostRangesAndLaunchesRoundTrip();
    void formatThreeOpensWithoutRanges();
    void formatFiveLaunchesWithoutWork();
    void formatSixLaunchesWithoutBusBytes();
    void badRangeAndLaunchRows_data();
    void badRangeAndLaunchRows();
    void opPiecesRoundTrip();
    void badOpPieces_data();
    void badOpPieces();
    void peerCopiesRoundTrip();
    void formatFourOpensWithoutDevices();
    void writeIsAtomic();
    void unwritableFolder();
    void missingFile();
    void malformed_data();
    void malformed();
    void csv();
    void csvCarriesReadinessChannelsAndDriverMemory();

private:
    QTemporaryDir m_dir;
};

// What a writer of format 2 to 4 wrote for the same trace: op rows without format 5's two device columns
// (each op row ends with driver_dst_mem's name and the two devices), and the version given.
static std::string asOlderFormat(std::string text, int version)
{
    const std::string current = "\"version\": " + std::to_string(engine::kTraceFormatVersion);
    text.replace(text.find(current), current.size(), "\"version\": " + std::to_string(version));
    text = std::regex_replace(text, std::regex(R"(,\s*"src_device",\s*"dst_device")"), "");
    return std::regex_replace(text, std::regex(R"(("[a-z_]+"),-?[0-9]+,-?[0-9]+\])"), "$1]");
}

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
    return test::TraceBuilder(std::move(t))
        .onRepetition(0)
        .onThread(0)
        .hostOp(engine::OpKind::HostSync, 400'000, 401'000)
        .named("sync stream")
        .opIndex(-1)
        .build();
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

// Format 2's per-op measurement (stream-ready, event end, kernel latency, channel, the driver's memory
// kinds) and the trace's timing source survive a write and a read.
void TestNativeFormat::measurementFieldsRoundTrip()
{
    auto t = richTrace();
    t.timing = engine::TimingSource::Cupti;
    t.timingNote = "3 ops had no CUPTI record";
    engine::OpRecord &op = t.repetitions[1].ops[1];
    op.readyNs = op.gpuStartNs - 4'000;
    op.eventEndNs = op.gpuEndNs + 1'500;
    engine::KernelLaunch latency; // a kernel's latency timestamps: its launch, no other details
    latency.op = 1;
    latency.queuedNs = op.gpuStartNs - 9'000;
    latency.submittedNs = op.gpuStartNs - 6'000;
    t.repetitions[1].setKernelLatency({latency});
    op.channel = 17;
    op.channelType = engine::ChannelType::Compute;
    engine::OpRecord &copy = t.repetitions[0].ops[0];
    copy.channel = 3;
    copy.channelType = engine::ChannelType::AsyncCopy;
    copy.driverSrcMem = engine::MemKind::Pageable;
    copy.driverDstMem = engine::MemKind::Device;
    copy.flags |= engine::OpFlagEventTimed;
    const std::string text = engine::toNativeJson(t);
    // They stay in the op row's columns: a launch with nothing else gets no kernel_launches row.
    QVERIFY(text.find("kernel_launches") == std::string::npos);
    QVERIFY(text.find(std::to_string(latency.queuedNs) + "," + std::to_string(latency.submittedNs))
            != std::string::npos);
    const auto r = engine::fromNativeJson(text, "mem.sstrace");
    QCOMPARE(r.formatVersion, engine::kTraceFormatVersion);
    QVERIFY(r.timing == engine::TimingSource::Cupti);
    QVERIFY(r.repetitions[1].launchOf(1) && r.repetitions[1].launchOf(1)->queuedNs == latency.queuedNs);
    QCOMPARE(r.timingNote, t.timingNote);
    QCOMPARE(test::traceDifference(t, r), QString());
    QCOMPARE(r.repetitions[1].ops[1].queuedDurationNs(), std::int64_t(4'000));
    QCOMPARE(r.repetitions[1].ops[1].eventDurationNs(), op.gpuDurationNs() + 5'500);
}

// A trace written before CUPTI timing (format 1, 15 values per op row) opens as timed by events, with
// stream-ready and the event end being its GPU interval, and says so.
void TestNativeFormat::formatOneReadsAsEventTimed()
{
    const std::string v1 = R"({"format": "streamscope-trace", "version": 1, "source": "streamscope", "title": "old",
 "op_columns": ["name", "kind", "stream", "host_thread", "op_index", "gpu_start_ns", "gpu_end_ns", "host_start_ns",
                "host_end_ns", "bytes", "src_mem", "dst_mem", "api", "flags", "correlation"],
 "strings": ["k"], "streams": [{"name": "s0"}], "host_threads": [{"name": "main"}],
 "repetitions": [{"index": 0, "ops": [[0, "kernel", 0, 0, 0, 1000, 5000, 0, 800, 0, "none", "none", "none", 0, 0]]}]})";
    const auto t = engine::fromNativeJson(v1, "old.sstrace");
    QCOMPARE(t.formatVersion, 1);
    QVERIFY(t.timing == engine::TimingSource::Events);
    QVERIFY2(t.timingNote.find("format 1") != std::string::npos, t.timingNote.c_str());
    const auto &op = t.repetitions[0].ops[0];
    QCOMPARE(op.readyNs, std::int64_t(1000));
    QCOMPARE(op.eventEndNs, std::int64_t(5000));
    QCOMPARE(op.channel, -1);
    // Written again, it is the current format and still says events.
    const auto again = engine::fromNativeJson(engine::toNativeJson(t), "again.sstrace");
    QCOMPARE(again.formatVersion, engine::kTraceFormatVersion);
    QVERIFY(again.timing == engine::TimingSource::Events);
    QCOMPARE(test::traceDifference(t, again), QString());
    // Every bundled example opens (whatever format it was recorded in).
    const QDir examples(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples"));
    const QStringList files = examples.entryList({"*.sstrace"}, QDir::Files);
    QVERIFY(files.size() >= 10);
    for (const QString &f : files)
        QVERIFY(!engine::readNativeTrace(examples.filePath(f).toStdString()).repetitions.empty());
}

// A repetition's driver records (format 3): migrations, a fault group, an instant, a synchronisation.
static engine::Trace traceWithActivities()
{
    auto t = richTrace();
    t.timing = engine::TimingSource::Cupti;
    auto add = [&](engine::ActivityKind kind, engine::ActivityDetail detail, std::int64_t start, std::int64_t end,
                   std::uint64_t value, std::uint64_t address, int op) {
        engine::ActivityRecord a;
        a.kind = kind;
        a.detail = detail;
        a.startNs = start;
        a.endNs = end;
        a.value = value;
        a.address = address;
        a.op = op;
        t.repetitions[0].activities.push_back(a);
    };
    add(engine::ActivityKind::GpuPageFaults, engine::ActivityDetail::Read, 10'000, 14'000, 37, 0x7f0000000000ull, 1);
    add(engine::ActivityKind::MigrationH2D, engine::ActivityDetail::Coherence, 11'000, 13'000, 2u << 20,
        0x7f0000000000ull, 1);
    add(engine::ActivityKind::MigrationD2H, engine::ActivityDetail::User, 20'000, 25'000, 64u << 20, 0x7f0004000000ull,
        -1);
    add(engine::ActivityKind::CpuPageFault, engine::ActivityDetail::Unknown, 30'000, 30'000, 1, 0x7f0004000000ull, -1);
    add(engine::ActivityKind::Synchronization, engine::ActivityDetail::StreamSynchronize, 400'100, 400'900, 0, 0, 3);
    return t;
}

void TestNativeFormat::activitiesRoundTrip()
{
    const auto t = traceWithActivities();
    const std::string text = engine::toNativeJson(t);
    QVERIFY(text.find("\"activity_columns\"") != std::string::npos);
    const auto r = engine::fromNativeJson(text, "um.sstrace");
    QCOMPARE(r.formatVersion, engine::kTraceFormatVersion);
    QCOMPARE(test::traceDifference(t, r), QString());
    QCOMPARE(r.repetitions[0].activities.size(), std::size_t(5));
    QVERIFY(r.repetitions[1].activities.empty());
    // The analysis reads them back the same.
    const auto um = engine::unifiedMemoryStats(r.repetitions[0]);
    QCOMPARE(um.h2dBytes, std::uint64_t(2u << 20));
    QCOMPARE(um.gpuPageFaults, std::uint64_t(37));
    QCOMPARE(um.cpuPageFaults, 1);

    // Bad activity rows are refused naming the row and the column.
    auto refusal = [&](const std::string &from, const std::string &to) -> QString {
        std::string bad = text;
        const auto at = bad.find(from);
        if (at == std::string::npos)
            return "(pattern not found: " + QString::fromStdString(from) + ")";
        bad.replace(at, from.size(), to);
        try {
            engine::fromNativeJson(bad, "um.sstrace");
        } catch (const engine::Error &e) {
            return QString::fromStdString(e.what());
        }
        return QStringLiteral("(accepted)");
    };
    QString msg = refusal("[\"gpu_page_faults\"", "[\"gpu_page_storm\"");
    QVERIFY2(msg.contains("/repetitions/0/activities/0/0 (kind)") && msg.contains("gpu_page_storm"), qPrintable(msg));
    msg = refusal("\"stream_synchronize\"", "\"stream_synchronise\"");
    QVERIFY2(msg.contains("/activities/4/6 (detail)"), qPrintable(msg));
    msg = refusal("400900,0,0,3,", "400900,0,0,99,");
    QVERIFY2(msg.contains("/repetitions/0/activities/4/5") && msg.contains("op 99"), qPrintable(msg));
    msg = refusal("[\"cpu_page_fault\",30000,30000", "[\"cpu_page_fault\",30000,29000");
    QVERIFY2(msg.contains("/repetitions/0/activities/3"), qPrintable(msg));
    msg = refusal("[\"cpu_page_fault\",30000,30000,1", "[\"cpu_page_fault\",30000,30000,-1");
    QVERIFY2(msg.contains("/activities/3/3 (value)"), qPrintable(msg));
}

// A format 2 file (before the driver's records) opens, with no activities.
void TestNativeFormat::formatTwoOpensWithoutActivities()
{
    std::string text = asOlderFormat(engine::toNativeJson(richTrace()), 2);
    const std::string columns = "\"activity_columns\"";
    const auto at = text.find(columns);
    QVERIFY(at != std::string::npos);
    text.replace(at, columns.size(), "\"not_in_format_2\""); // what a format 2 writer never wrote
    const auto t = engine::fromNativeJson(text, "v2.sstrace");
    QCOMPARE(t.formatVersion, 2);
    QCOMPARE(test::traceDifference(richTrace(), t), QString());
    for (const auto &rep : t.repetitions)
        QVERIFY(rep.activities.empty());
}

// Format 4: NVTX and CPU-op host ranges (with a domain) and kernel launch details come back as they
// were written, and ops are tied to their ranges again on reading.
static engine::Trace traceWithRanges()
{
    auto t = richTrace();
    t.hostThreads.push_back({"worker", 43});
    for (auto &rep : t.repetitions) {
        const std::int64_t base = rep.ops[0].hostStartNs;
        engine::HostRange step;
        step.nameId = t.intern("training step");
        step.category = engine::HostRangeCategory::UserAnnotation;
        step.hostThread = 0;
        step.startNs = base;
        step.endNs = base + 400'000;
        engine::HostRange forward = step;
        forward.nameId = t.intern("forward");
        forward.category = engine::HostRangeCategory::Nvtx;
        forward.domainId = t.intern("my library");
        forward.startNs = base;
        forward.endNs = base + 3'000;
        engine::HostRange other = step;
        other.nameId = t.intern("aten::mm");
        other.category = engine::HostRangeCategory::CpuOp;
        other.hostThread = 1;
        rep.hostRanges = {forward, other, step}; // out of order: the writer keeps what layout made of it
        engine::KernelLaunch launch;
        launch.op = 1; // "B: kernel"
        launch.grid[0] = 1024;
        launch.grid[1] = 2;
        launch.grid[2] = 1;
        launch.block[0] = 256;
        launch.block[1] = 1;
        launch.block[2] = 1;
        launch.registersPerThread = 40;
        launch.staticSharedBytes = 2048;
        launch.dynamicSharedBytes = 0;
        launch.sharedBytes = 2048;
        launch.fullNameId = t.intern("void spin_kernel<(int)1>(long long)");
        engine::KernelLaunch gemm; // a GEMM's arithmetic, without a launch (timed by events)
        gemm.op = 2;
        gemm.flops = 2ull * 8192 * 8192 * 8192;
        gemm.workId = t.intern("GEMM 8192x8192x8192 bf16");
        engine::KernelLaunch comm; // a collective's bus bytes (format 7)
        comm.op = 3;
        comm.busBytes = 256ull << 20;
        comm.workId = t.intern("ncclAllReduce 256 MiB bf16 over 2 GPUs");
        rep.kernelLaunches = {launch, gemm, comm};
        engine::layoutHostRanges(rep);
    }
    return t;
}

void TestNativeFormat::hostRangesAndLaunchesRoundTrip()
{
    const auto t = traceWithRanges();
    // Sorted: "training step" (thread 0), "aten::mm" (thread 1), then "forward", nested in the step.
    QCOMPARE(t.string(t.repetitions[0].hostRanges[0].nameId), std::string("training step"));
    QCOMPARE(t.repetitions[0].hostRanges[0].depth, 0);
    QCOMPARE(t.repetitions[0].hostRanges[1].depth, 0);
    QCOMPARE(t.repetitions[0].hostRanges[2].depth, 1);
    QCOMPARE(t.rangeName(t.repetitions[0], t.repetitions[0].ops[0]), std::string("forward"));
    const std::string text = engine::toNativeJson(t);
    QVERIFY(text.find("\"host_range_columns\"") != std::string::npos);
    const auto r = engine::fromNativeJson(text, "ranges.sstrace");
    QCOMPARE(r.formatVersion, engine::kTraceFormatVersion);
    QCOMPARE(test::traceDifference(t, r), QString());
    QCOMPARE(r.repetitions[1].hostRanges.size(), std::size_t(3));
    QCOMPARE(r.string(r.repetitions[1].hostRanges[2].domainId), std::string("my library"));
    QCOMPARE(r.rangeName(r.repetitions[1], r.repetitions[1].ops[0]), std::string("forward"));
    QCOMPARE(r.rangeName(r.repetitions[1], r.repetitions[1].ops[3]), std::string("training step"));
    const auto *l = r.repetitions[1].launchOf(1);
    QVERIFY(l);
    QCOMPARE(l->grid[0], 1024u);
    QCOMPARE(l->registersPerThread, 40);
    QCOMPARE(r.string(l->fullNameId), std::string("void spin_kernel<(int)1>(long long)"));
    QCOMPARE(l->flops, std::uint64_t(0));
    const auto *g = r.repetitions[1].launchOf(2);
    QVERIFY(g);
    QCOMPARE(g->flops, 2ull * 8192 * 8192 * 8192);
    QCOMPARE(r.string(g->workId), std::string("GEMM 8192x8192x8192 bf16"));
    QVERIFY(!g->hasGrid());
    QCOMPARE(g->busBytes, std::uint64_t(0));
    const auto *c = r.repetitions[1].launchOf(3);
    QVERIFY(c);
    QCOMPARE(c->busBytes, 256ull << 20);
    QCOMPARE(r.string(c->workId), std::string("ncclAllReduce 256 MiB bf16 over 2 GPUs"));
    // Written again, the same bytes.
    QCOMPARE(engine::toNativeJson(r), text);
    // The CSV names each op's range and a kernel's launch.
    const QStringList lines = QString::fromStdString(engine::toCsv(r)).split('\n', Qt::SkipEmptyParts);
    QVERIFY2(lines[0].contains(",host_range,grid,block,shared_bytes,registers_per_thread,"), qPrintable(lines[0]));
    QVERIFY2(lines[2].contains(",forward,1024x2x1,256x1x1,2048,40,"), qPrintable(lines[2]));
    QVERIFY2(lines[4].contains(",training step,,,,,"), qPrintable(lines[4]));
}

// A format 3 file (before host ranges) opens, with none; host ranges in a file that says format 3 are refused.
void TestNativeFormat::formatThreeOpensWithoutRanges()
{
    const auto t = engine::fromNativeJson(asOlderFormat(engine::toNativeJson(richTrace()), 3), "v3.sstrace");
    QCOMPARE(t.formatVersion, 3);
    QCOMPARE(test::traceDifference(richTrace(), t), QString());
    for (const auto &rep : t.repetitions) {
        QVERIFY(rep.hostRanges.empty());
        QVERIFY(rep.kernelLaunches.empty());
    }
    const std::string withRanges = asOlderFormat(engine::toNativeJson(traceWithRanges()), 3);
    try {
        engine::fromNativeJson(withRanges, "v3.sstrace");
        QFAIL("host ranges in a format 3 file were accepted");
    } catch (const engine::Error &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains("need trace format 4"), e.what());
    }
}

// A format 5 file's launch rows have no arithmetic (12 values); they open, and a format 6 row in a file
// that says 5 is refused.
void TestNativeFormat::formatFiveLaunchesWithoutWork()
{
    const std::string six = engine::toNativeJson(traceWithRanges());
    std::string five = six;
    const std::string current = "\"version\": " + std::to_string(engine::kTraceFormatVersion);
    five.replace(five.find(current), current.size(), "\"version\": 5");
    five = std::regex_replace(five, std::regex(R"(,\s*"flops",\s*"work",\s*"bus_bytes")"), "");
    // Launch rows are the only rows of 15 integers: keep the first 12.
    const std::regex launchRow(R"((\[\d+(?:,-?\d+){11}),-?\d+,-?\d+,-?\d+\])");
    five = std::regex_replace(five, launchRow, "$1]");
    const auto t = engine::fromNativeJson(five, "v5.sstrace");
    QCOMPARE(t.formatVersion, 5);
    const auto *l = t.repetitions[1].launchOf(1);
    QVERIFY(l);
    QCOMPARE(l->grid[0], 1024u);
    QCOMPARE(t.string(l->fullNameId), std::string("void spin_kernel<(int)1>(long long)"));
    QCOMPARE(l->flops, std::uint64_t(0));
    std::string mixed = six;
    mixed.replace(mixed.find(current), current.size(), "\"version\": 5");
    try {
        engine::fromNativeJson(mixed, "mixed.sstrace");
        QFAIL("format 7 launch rows in a format 5 file were accepted");
    } catch (const engine::Error &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains("kernel launch rows have 15 values, but format version 5 has 12"),
                 e.what());
    }
}

// A format 6 file's launch rows have arithmetic but no bus bytes (14 values): they open with none.
void TestNativeFormat::formatSixLaunchesWithoutBusBytes()
{
    std::string six = engine::toNativeJson(traceWithRanges());
    const std::string current = "\"version\": " + std::to_string(engine::kTraceFormatVersion);
    six.replace(six.find(current), current.size(), "\"version\": 6");
    six = std::regex_replace(six, std::regex(R"(,\s*"bus_bytes")"), "");
    const std::regex launchRow(R"((\[\d+(?:,-?\d+){13}),-?\d+\])");
    six = std::regex_replace(six, launchRow, "$1]");
    const auto t = engine::fromNativeJson(six, "v6.sstrace");
    QCOMPARE(t.formatVersion, 6);
    QCOMPARE(t.repetitions[1].launchOf(2)->flops, 2ull * 8192 * 8192 * 8192);
    QCOMPARE(t.repetitions[1].launchOf(3)->busBytes, std::uint64_t(0));
}

// The file `text` with its first `from` replaced by `to` is refused as invalid input, the message naming the
// file first and holding each '|'-separated part of `where`.
static void refusesEdited(std::string text, const QString &from, const QString &to, const QString &where)
{
    const auto at = text.find(from.toStdString());
    QVERIFY2(at != std::string::npos, qPrintable("pattern not found: " + from));
    text.replace(at, std::size_t(from.toUtf8().size()), to.toStdString());
    try {
        engine::fromNativeJson(text, "bad.sstrace");
        QFAIL("accepted");
    } catch (const engine::Error &e) {
        QVERIFY(e.kind() == engine::ErrorKind::InvalidInput);
        const QString msg = QString::fromUtf8(e.what());
        QVERIFY2(msg.startsWith("bad.sstrace: "), qPrintable(msg));
        for (const QString &part : where.split('|'))
            QVERIFY2(msg.contains(part), qPrintable("'" + part + "' not in: " + msg));
    }
}

void TestNativeFormat::badRangeAndLaunchRows_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("where");
    // Rows of traceWithRanges' repetition 0: host ranges [name, category, thread, start, end, domain],
    // the launch [op, grid xyz, block xyz, registers, shared, static, dynamic, full name].
    QTest::newRow("unknown category") << "\"user_annotation\""
                                      << "\"annotation\""
                                      << "/repetitions/0/host_ranges/0/1 (category)|unknown host range category";
    QTest::newRow("category is a number") << ",\"user_annotation\","
                                          << ",3,"
                                          << "/host_ranges/0/1 (category): expected a string";
    QTest::newRow("range ends before it starts") << "\"user_annotation\",0,0,400000"
                                                 << "\"user_annotation\",0,5000,4000"
                                                 << "/host_ranges/0/4 (end_ns)|ends before it starts";
    // Times as ops have them (any within ±(2^62 - 1) ns, negative ones too: what a reader accepts, this
    // reads back, #24), not beyond.
    QTest::newRow("start beyond the limit") << "\"user_annotation\",0,0,"
                                            << "\"user_annotation\",0,-4611686018427387904,"
                                            << "/host_ranges/0/3 (start_ns)|out of range";
    QTest::newRow("range name out of range") << "\"host_ranges\": [\n   ["
                                             << "\"host_ranges\": [\n   [99"
                                             << "/repetitions/0/host_ranges/0/0|name index 99";
    QTest::newRow("range thread out of range") << ",\"cpu_op\",1,"
                                               << ",\"cpu_op\",5,"
                                               << "/host_ranges/1/2|host thread 5";
    QTest::newRow("short range row") << ",\"cpu_op\",1,0,400000,-1]"
                                     << ",\"cpu_op\",1,0,400000]"
                                     << "/host_ranges/1|expected 6 values";
    QTest::newRow("launch of a missing op") << "\"kernel_launches\": [\n   [1,"
                                            << "\"kernel_launches\": [\n   [40,"
                                            << "/repetitions/0/kernel_launches/0/0|op 40";
    QTest::newRow("negative grid") << "[1,1024,2,1,"
                                   << "[1,-1024,2,1,"
                                   << "/kernel_launches/0/1 (grid_x)|out of range";
    QTest::newRow("grid past 2^32") << "[1,1024,2,1,"
                                    << "[1,4294967296,2,1,"
                                    << "/kernel_launches/0/1 (grid_x)|out of range";
    QTest::newRow("fractional registers") << ",256,1,1,40,"
                                          << ",256,1,1,40.5,"
                                          << "/kernel_launches/0/7|integer";
    QTest::newRow("flags past a byte") << ",\"async\",0,0,"
                                       << ",\"async\",300,0,"
                                       << "/repetitions/0/ops/0/13 (flags)|not valid";
}

void TestNativeFormat::badRangeAndLaunchRows()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, where);
    refusesEdited(engine::toNativeJson(traceWithRanges()), from, to, where);
}

// Format 8: the pieces of ops that ran as several records come back as they were written, in their own rows.
void TestNativeFormat::opPiecesRoundTrip()
{
    const auto t = test::withPieces(richTrace());
    const std::string text = engine::toNativeJson(t);
    QVERIFY(text.find("\"op_piece_columns\"") != std::string::npos);
    const auto r = engine::fromNativeJson(text, "pieces.sstrace");
    QCOMPARE(test::traceDifference(t, r), QString());
    const auto pieces = r.repetitions[1].piecesOf(1);
    QCOMPARE(pieces.size(), std::size_t(2));
    QCOMPARE(r.string(pieces[1].nameId), std::string("splitKreduce_kernel"));
    QVERIFY(r.repetitions[1].piecesOf(3)[0].kind == engine::PieceKind::Copy);
    QCOMPARE(r.repetitions[1].piecesOf(3)[0].dstDevice, std::int16_t(1));
    QVERIFY(r.repetitions[1].piecesOf(0).empty());
    QCOMPARE(engine::toNativeJson(r), text);
    // A trace without pieces writes no rows for them: older readers' files stay as they were.
    QVERIFY(engine::toNativeJson(richTrace()).find("\"op_pieces\"") == std::string::npos);
}

void TestNativeFormat::badOpPieces_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("where");
    // Repetition 0's piece rows [op, kind, start, end, bytes, name, channel, channel_type, src, dst]: op B
    // runs 100000..300000 ns as two kernels, op D 250000..350000 as one copy.
    QTest::newRow("unknown kind") << "[3,\"copy\""
                                  << "[3,\"dma\""
                                  << "/repetitions/0/op_pieces/2/1 (kind)|expected a piece kind";
    QTest::newRow("op out of range") << "[3,\"copy\""
                                     << "[9,\"copy\""
                                     << "repetition 0, op piece 2|op 9 is not an op of this repetition";
    QTest::newRow("outside its op") << "[1,\"kernel\",100000,"
                                    << "[1,\"kernel\",90000,"
                                    << "repetition 0, op piece 0|must lie inside the op's GPU time";
    QTest::newRow("ends before it starts") << "[1,\"kernel\",100000,180000,"
                                           << "[1,\"kernel\",100000,80000,"
                                           << "/op_pieces/0/3 (end_ns)|ends before it starts";
    QTest::newRow("out of order") << "[3,\"copy\""
                                  << "[0,\"copy\""
                                  << "repetition 0, op piece 2|op order, and by start";
    QTest::newRow("negative bytes") << ",250000,350000,2000000,"
                                    << ",250000,350000,-2,"
                                    << "/op_pieces/2/4 (bytes)|out of range";
    QTest::newRow("bad channel type") << "\"async_copy\",0,1]"
                                      << "\"dma\",0,1]"
                                      << "/op_pieces/2/7 (channel_type)|expected a channel type";
    QTest::newRow("device past int16") << "\"async_copy\",0,1]"
                                       << "\"async_copy\",0,40000]"
                                       << "/op_pieces/2/9 (dst_device)|out of range";
    QTest::newRow("short row") << "\"async_copy\",0,1]"
                               << "\"async_copy\",0]"
                               << "/op_pieces/2|expected 10 values";
    QTest::newRow("in a format 7 file") << "\"version\": 8"
                                        << "\"version\": 7"
                                        << "/repetitions/0/op_pieces|need trace format 8";
}

void TestNativeFormat::badOpPieces()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, where);
    refusesEdited(engine::toNativeJson(test::withPieces(richTrace())), from, to, where);
}

void TestNativeFormat::formatTwoNeedsItsTiming()
{
    auto text = engine::toNativeJson(test::handTrace(1));
    const std::string field = "\"timing\": \"events\"";
    const std::size_t timing = text.find(field);
    QVERIFY(timing != std::string::npos);
    // The file with its timing field replaced, read: refused, naming the file and /timing.
    auto refused = [&](const std::string &replacement, const std::string &file) {
        std::string bad = text;
        bad.replace(timing, field.size(), replacement);
        try {
            engine::fromNativeJson(bad, file);
        } catch (const engine::Error &e) {
            return QByteArray(e.what()).contains(QByteArray::fromStdString(file + ": /timing"));
        }
        return false;
    };
    QVERIFY2(refused("\"timing\": \"guessed\"", "bad.sstrace"), "an unknown timing source was accepted");
    QVERIFY2(refused("\"timing_was\": \"events\"", "missing.sstrace"),
             "a format 2 file without its timing source was accepted");
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

// Format 5: a P2P copy's two devices and the header's peer links survive a write and a read.
static engine::Trace twoGpuTrace()
{
    auto t = test::handTrace(1);
    engine::DeviceInfo second = t.devices[0];
    second.index = 1;
    t.devices.push_back(second);
    engine::OpRecord p2p = t.repetitions[0].ops[0];
    p2p.kind = engine::OpKind::CopyP2P;
    p2p.nameId = t.intern("peer copy");
    p2p.bytes = 64 << 20;
    p2p.srcMem = p2p.dstMem = engine::MemKind::Device;
    p2p.srcDevice = 0;
    p2p.dstDevice = 1;
    p2p.channel = 32767;
    t.repetitions[0].ops.push_back(p2p);
    t.peerLinks.push_back({0, 1, true, true, engine::LinkType::NvLink, 0, 18, 450});
    t.peerLinks.push_back({1, 0, true, false, engine::LinkType::Pcie, 1, 0, 63.015});
    return t;
}

void TestNativeFormat::peerCopiesRoundTrip()
{
    const auto t = twoGpuTrace();
    const std::string text = engine::toNativeJson(t);
    QVERIFY(text.find("\"src_device\"") != std::string::npos);
    QVERIFY(text.find("\"peer_links\"") != std::string::npos);
    const auto r = engine::fromNativeJson(text, "p2p.sstrace");
    QCOMPARE(r.formatVersion, engine::kTraceFormatVersion);
    QCOMPARE(test::traceDifference(t, r), QString());
    const auto &op = r.repetitions[0].ops.back();
    QCOMPARE(engine::toString(op.kind), std::string_view("p2p"));
    QCOMPARE(int(op.srcDevice), 0);
    QCOMPARE(int(op.dstDevice), 1);
    QCOMPARE(int(op.channel), 32767);
    QCOMPARE(r.peerLinks.size(), std::size_t(2));
    QCOMPARE(engine::toString(r.peerLinks[0].link), std::string_view("nvlink"));
    QCOMPARE(r.peerLinks[0].nvlinkCount, 18);
    QCOMPARE(r.peerLinks[1].peakGBps, 63.015);
    QVERIFY(!r.peerLinks[1].accessEnabled);
    // The analysis counts its bytes apart from the D2D copies, over the P2P copies' own busy time.
    const auto st = engine::analyzeRepetition(r, 0);
    QCOMPARE(st.p2pBytes, std::uint64_t(64) << 20);
    QVERIFY(st.p2pGBs > 0);
    QCOMPARE(st.d2dBytes, engine::analyzeRepetition(test::handTrace(1), 0).d2dBytes);
    // A trace without P2P copies or links writes neither key's values but the columns, and reads the same.
    const auto plain = engine::fromNativeJson(engine::toNativeJson(test::handTrace(1)), "plain.sstrace");
    QVERIFY(plain.peerLinks.empty());
    QCOMPARE(int(plain.repetitions[0].ops[0].srcDevice), -1);
}

// A version 4 file (23 values per op row, no peer links) reads as before; 25-value rows need version 5.
void TestNativeFormat::formatFourOpensWithoutDevices()
{
    const QString head = R"({"format":"streamscope-trace","version":4,"timing":"cupti","streams":[{"name":"s"}],)"
                         R"("host_threads":[],"strings":["a"],"repetitions":[{"index":0,"ops":[)";
    const QString v4 =
        R"([0,"kernel",0,-1,0,10,20,-1,-1,0,"none","none","none",0,0,-1,-1,-1,-1,3,"compute","none","none"])";
    const auto t = engine::fromNativeJson((head + v4 + "]}]}").toStdString(), "v4.sstrace");
    QCOMPARE(t.formatVersion, 4);
    QCOMPARE(int(t.repetitions[0].ops[0].channel), 3);
    QCOMPARE(int(t.repetitions[0].ops[0].srcDevice), -1);
    const QString v5row =
        R"([0,"kernel",0,-1,0,10,20,-1,-1,0,"none","none","none",0,0,-1,-1,-1,-1,3,"compute","none","none",0,1])";
    try {
        engine::fromNativeJson((head + v5row + "]}]}").toStdString(), "v4.sstrace");
        QFAIL("a version 4 file with version 5 rows was read");
    } catch (const engine::Error &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains("format version 4 has 23"), e.what());
    }
}

void TestNativeFormat::malformed_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("where");
    const QString head = R"({"format":"streamscope-trace","version":1,"streams":[{"name":"s"}],"host_threads":[],)"
                         R"("strings":["a"],"repetitions":[{"index":0,"ops":[)";
    const QString good = R"([0,"kernel",0,-1,0,10,20,-1,-1,0,"none","none","none",0,0])";
    QTest::newRow("empty file") << ""
                                << "not valid JSON";
    QTest::newRow("not JSON") << "hello"
                              << "not valid JSON";
    QTest::newRow("truncated") << head + good << "not valid JSON";
    QTest::newRow("top-level array") << "[1,2]"
                                     << "top level";
    QTest::newRow("other format") << R"({"format":"chrome","version":1})"
                                  << "/format";
    QTest::newRow("no format") << R"({"version":1})"
                               << "not a StreamScope trace";
    QTest::newRow("future version") << R"({"format":"streamscope-trace","version":99})"
                                    << "/version";
    QTest::newRow("version missing") << R"({"format":"streamscope-trace"})"
                                     << "/version";
    QTest::newRow("version is a string") << R"({"format":"streamscope-trace","version":"1"})"
                                         << "/version";
    QTest::newRow("short row") << head + R"([0,"kernel",0]]}]})"
                               << "/repetitions/0/ops/0/3";
    QTest::newRow("unknown kind") << head + R"([0,"warp",0,-1,0,10,20,-1,-1,0,"none","none","none",0,0]]}]})"
                                  << "/repetitions/0/ops/0/1";
    QTest::newRow("unknown memory kind") << head + R"([0,"h2d",0,-1,0,10,20,-1,-1,0,"vram","none","none",0,0]]}]})"
                                         << "memory kind";
    QTest::newRow("name index out of range")
        << head + R"([5,"kernel",0,-1,0,10,20,-1,-1,0,"none","none","none",0,0]]}]})"
        << "/repetitions/0/ops/0/0";
    QTest::newRow("fraction in a row") << head + R"([0,"kernel",0,-1,0,10.5,20,-1,-1,0,"none","none","none",0,0]]}]})"
                                       << "/repetitions/0/ops/0/5";
    QTest::newRow("stream out of range") << head + R"([0,"kernel",3,-1,0,10,20,-1,-1,0,"none","none","none",0,0]]}]})"
                                         << "/repetitions/0/ops/0/2";
    QTest::newRow("end before start") << head + R"([0,"kernel",0,-1,0,30,20,-1,-1,0,"none","none","none",0,0]]}]})"
                                      << "GPU end is before GPU start";
    QTest::newRow("object as row") << head + R"({"name":0}]}]})"
                                   << "expected an op row";
    QTest::newRow("device not an object") << R"({"format":"streamscope-trace","version":1,"devices":[3]})"
                                          << "/devices/0";
    QTest::newRow("bad compute capability")
        << R"({"format":"streamscope-trace","version":1,"devices":[{"compute_capability":"nine"}]})"
        << "/devices/0/compute_capability";
    // Integers are integers, in range, and times within engine/model/limits.h (issue #13).
    QTest::newRow("syntax error: line and column")
        << "{\n \"format\": \"streamscope-trace\",\n \"version\": 1,\n \"title\": tru\n}"
        << "bad.sstrace:4:";
    QTest::newRow("syntax error on one line: the column")
        << head + R"([0,"kernel",0,-1,0,10,20,-1,-1,0,"none","none","none",0,0]?]}]})"
        << "bad.sstrace:1:193: not valid JSON";
    QTest::newRow("float device field")
        << R"({"format":"streamscope-trace","version":1,"devices":[{"sm_count":1e10}]})"
        << "/devices/0/sm_count: expected an integer from -2147483648 to 2147483647, found 10000000000.0";
    QTest::newRow("fractional device field")
        << R"({"format":"streamscope-trace","version":1,"devices":[{"pcie_width":16.5}]})"
        << "/devices/0/pcie_width";
    const QString head5 = R"({"format":"streamscope-trace","version":5,"timing":"cupti","streams":[{"name":"s"}],)"
                          R"("host_threads":[],"strings":["a"],"repetitions":[{"index":0,"ops":[)";
    QTest::newRow("P2P device out of range")
        << head5
               + R"([0,"p2p",0,-1,0,10,20,-1,-1,0,"device","device","async",0,0,-1,-1,-1,-1,-1,"unknown","none","none",0,64]]}]})"
        << "/repetitions/0/ops/0/24 (dst_device): expected -1 (not recorded) or a device index below 64, found 64";
    QTest::newRow("channel beyond 16 bits")
        << head5
               + R"([0,"p2p",0,-1,0,10,20,-1,-1,0,"device","device","async",0,0,-1,-1,-1,-1,40000,"unknown","none","none",0,1]]}]})"
        << "/repetitions/0/ops/0/19 (channel): expected -1 (unknown) or a channel up to 32767, found 40000";
    QTest::newRow("peer link of unknown type")
        << R"({"format":"streamscope-trace","version":5,"timing":"cupti","peer_links":[{"src":0,"dst":1,"link":"wifi"}]})"
        << "/peer_links/0/link: expected \"unknown\", \"same\", \"pcie\" or \"nvlink\", found \"wifi\"";
    QTest::newRow("peer link device out of range")
        << R"({"format":"streamscope-trace","version":5,"timing":"cupti","peer_links":[{"src":0,"dst":70}]})"
        << "/peer_links/0/dst: expected a device index 0..63, found 70";
    QTest::newRow("version 2^32+1") << R"({"format":"streamscope-trace","version":4294967297})"
                                    << "/version: expected an integer from -2147483648 to 2147483647, found 4294967297";
    QTest::newRow("unsigned field negative")
        << R"({"format":"streamscope-trace","version":1,"devices":[{"total_mem_bytes":-1}]})"
        << "/devices/0/total_mem_bytes: expected an integer from 0 to";
    QTest::newRow("stream index 2^32")
        << head + R"([0,"kernel",4294967296,-1,0,10,20,-1,-1,0,"none","none","none",0,0]]}]})"
        << "/repetitions/0/ops/0/2 (stream): expected -1 (none) or an index up to 2147483647, found 4294967296";
    QTest::newRow("flags beyond 32 bits")
        << head + R"([0,"kernel",0,-1,0,10,20,-1,-1,0,"none","none","none",4294967296,0]]}]})"
        << "/repetitions/0/ops/0/13 (flags)";
    QTest::newRow("time beyond 146 years")
        << head + R"([0,"kernel",0,-1,0,9000000000000000000,9000000000000000001,-1,-1,0,"none","none","none",0,0]]}]})"
        << "/repetitions/0/ops/0/5 (gpu_start_ns): 9000000000000000000 ns is out of range";
    QTest::newRow("span beyond 13 days")
        << head + R"([0,"kernel",0,-1,0,0,4000000000000000000,-1,-1,0,"none","none","none",0,0]]}]})"
        << "repetition 0, op 0 (a): the trace would span 4000000000000000000 ns";
    QTest::newRow("repetition index beyond an int") << head + R"(]},{"index":4294967296,"ops":[]}]})"
                                                    << "/repetitions/1/index";
    QTest::newRow("stream name is a number") << R"({"format":"streamscope-trace","version":1,"streams":[{"name":7}]})"
                                             << "/streams/0/name";
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

// What the operations table and the details panel show beyond execution reaches the CSV: stream-ready,
// the event after the op, the time queued between ready and running (with CUPTI timing only, as the panel
// says it), a kernel's launch timestamps, the channel and the memory kinds as the driver saw them. Read by
// the header's names, as a notebook reads them; unknown values are empty.
void TestNativeFormat::csvCarriesReadinessChannelsAndDriverMemory()
{
    auto t = richTrace();
    t.timing = engine::TimingSource::Cupti;
    engine::OpRecord &copy = t.repetitions[0].ops[0]; // A: H2D s0, GPU [0,100) us
    copy.hostStartNs = copy.gpuStartNs - 40'000;
    copy.readyNs = copy.gpuStartNs - 30'000; // ready before its call ended: ready to run at the call's end
    copy.hostEndNs = copy.gpuStartNs - 10'000;
    copy.eventEndNs = copy.gpuEndNs + 1'500;
    copy.channel = 12;
    copy.channelType = engine::ChannelType::AsyncCopy;
    copy.driverSrcMem = engine::MemKind::Pageable;
    copy.driverDstMem = engine::MemKind::Device;
    engine::OpRecord &kernel = t.repetitions[0].ops[1];
    engine::KernelLaunch launch;
    launch.op = 1;
    launch.queuedNs = kernel.gpuStartNs - 7'000;
    launch.submittedNs = kernel.gpuStartNs - 4'000;
    t.repetitions[0].setKernelLatency({launch});
    kernel.channel = 3;
    kernel.channelType = engine::ChannelType::Compute;

    const std::int64_t origin = t.extent(0).first;
    const QStringList lines = QString::fromStdString(engine::toCsv(t)).split('\n', Qt::SkipEmptyParts);
    const QStringList header = lines[0].split(',');
    for (const char *name : {"ready_ns", "event_end_ns", "queued_duration_ns", "launch_queued_ns",
                             "launch_submitted_ns", "channel", "channel_type", "driver_src_mem", "driver_dst_mem"})
        QVERIFY2(header.contains(QLatin1String(name)), name);
    // Row 1 is the first op of repetition 0 (its name is quoted with commas: split after it).
    auto cells = [&](int line) {
        QString row = lines[line];
        if (row.contains('"'))
            row = row.left(row.indexOf(',')) + ",0,quoted" + row.mid(row.lastIndexOf('"') + 1);
        return row.split(',');
    };
    QCOMPARE(cells(1).size(), header.size());
    QCOMPARE(cells(2).size(), header.size());
    auto field = [&](int line, const char *name) {
        return cells(line).value(int(header.indexOf(QLatin1String(name))));
    };
    QCOMPARE(field(1, "ready_ns"), QString::number(copy.readyNs - origin));
    QCOMPARE(field(1, "event_end_ns"), QString::number(copy.eventEndNs - origin));
    QCOMPARE(field(1, "queued_duration_ns"), QStringLiteral("10000")); // the call's end to execution
    QCOMPARE(field(1, "queued_duration_ns").toLongLong(), copy.queuedDurationNs());
    QCOMPARE(field(1, "channel"), QStringLiteral("12"));
    QCOMPARE(field(1, "channel_type"), QStringLiteral("async_copy"));
    QCOMPARE(field(1, "driver_src_mem"), QStringLiteral("pageable"));
    QCOMPARE(field(1, "driver_dst_mem"), QStringLiteral("device"));
    QCOMPARE(field(1, "launch_queued_ns"), QString());
    QCOMPARE(field(2, "launch_queued_ns"), QString::number(launch.queuedNs - origin));
    QCOMPARE(field(2, "launch_submitted_ns"), QString::number(launch.submittedNs - origin));
    QCOMPARE(field(2, "channel_type"), QStringLiteral("compute"));
    QCOMPARE(field(2, "ready_ns"), QString());
    QCOMPARE(field(2, "driver_src_mem"), QString());
    // Event timing counts the wait as execution: no queued time is claimed.
    t.timing = engine::TimingSource::Events;
    const QStringList events = QString::fromStdString(engine::toCsv(t)).split('\n', Qt::SkipEmptyParts);
    const QStringList eventsRow = events[2].split(',');
    QCOMPARE(eventsRow.value(int(header.indexOf(QStringLiteral("queued_duration_ns")))), QString());
}

QTEST_APPLESS_MAIN(TestNativeFormat)
#include "tst_native_format.moc"
