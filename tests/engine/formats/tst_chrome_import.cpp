// Chrome trace JSON import: the real PyTorch profiler (Kineto) traces in ../shared/data/real-traces
// (counts from their README, links checked against an independent count), a hand-made Kineto-style
// fixture (flows without correlation args, string pids), gzip, loadTrace's detection, and malformed
// inputs that must each give Error{InvalidInput} naming the file and the JSON path or line.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>

#include "engine/formats/chrome_export.h"
#include "engine/formats/chrome_import.h"
#include "engine/formats/native_format.h"
#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "tests/engine/gzip_fixture.h"
#include "tests/engine/trace_compare.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope;
using engine::MemKind;
using engine::OpKind;

class TestChromeImport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void realKinetoTraces_data();
    void realKinetoTraces();
    void kinetoFixture();
    void kinetoCpuSide();
    void realKinetoCollectives();
    void realKinetoKernelLaunch();
    void olderCategoryNamesAndArrayForm();
    void largestDeviceIdsStayApart();
    void gzipAndDetection();
    void ownExportThroughLoadTrace();
    void malformed_data();
    void malformed();
    void malformedGzip_data();
    void malformedGzip();
    void unknownFormatIsRejected();
    void textIsConsumedAndSkippedMembersAreNotParsed();
    void hostileSizesStopAtTheirLimit();

private:
    std::string write(const QString &name, const QByteArray &content);
    QTemporaryDir m_dir;
};

namespace {

QByteArray gzip(const QByteArray &data)
{
    const std::string packed =
        streamscope::testing::gzipped(std::string_view(data.constData(), std::size_t(data.size())));
    return QByteArray(packed.data(), qsizetype(packed.size()));
}

const char *kKernel = R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":5,"args":{"stream":7}})";

} // namespace

void TestChromeImport::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

std::string TestChromeImport::write(const QString &name, const QByteArray &content)
{
    const std::string path = m_dir.filePath(name).toStdString();
    std::ofstream(path, std::ios::binary).write(content.constData(), content.size());
    return path;
}

void TestChromeImport::realKinetoTraces_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("kernels"); // device:stream=count, from README.md
    QTest::addColumn<QString>("copies");
    QTest::addColumn<QString>("memsets");
    QTest::addColumn<int>("linkedGpuOps"); // GPU ops whose correlation matches a runtime call (counted with python)
    QTest::addColumn<int>("hostOnly"); // runtime calls that issued no GPU op in the file
    QTest::addColumn<int>("h2d");
    QTest::addColumn<int>("cpuOps"); // cat cpu_op, as counted with python
    QTest::addColumn<int>("annotations"); // cat user_annotation

    QTest::newRow("simple add, 2 streams") << "kineto_a100_simple_add_2streams.json.gz"
                                           << "NVIDIA A100-PG509-200"
                                           << "0:7=73 0:20=6"
                                           << "0:7=16"
                                           << "0:7=2 0:20=1" << 79 + 16 + 3 << 233 << 16 << 359 << 8;
    QTest::newRow("rank 3, 4 streams") << "kineto_a100_rank3_4streams.json.gz"
                                       << "NVIDIA A100-PG509-200"
                                       << "3:7=8298 3:20=210 3:21=60"
                                       << "3:7=24 3:20=60 3:22=144"
                                       << "3:7=642 3:20=12" << 8568 + 228 + 654 << 15242 << 150 << 40506 << 288;
    QTest::newRow("A100 80GB rank 0, 5 streams") << "kineto_a100-80gb_rank0_5streams.json.gz"
                                                 << "NVIDIA A100-SXM4-80GB"
                                                 << "0:7=5705 0:27=295 0:84=36 0:285=22 0:363=22"
                                                 << "0:7=1280 0:25=35 0:27=75"
                                                 << "0:7=277" << 5375 + 1250 + 250 << 27324 << 80 << 25185 << 360;
}

void TestChromeImport::realKinetoTraces()
{
    QFETCH(QString, file);
    QFETCH(QString, gpu);
    QFETCH(QString, kernels);
    QFETCH(QString, copies);
    QFETCH(QString, memsets);
    QFETCH(int, linkedGpuOps);
    QFETCH(int, hostOnly);
    QFETCH(int, h2d);
    QFETCH(int, cpuOps);
    QFETCH(int, annotations);
    const QString path = QStringLiteral(STREAMSCOPE_SHARED_DIR "/data/real-traces/") + file;
    if (!QFileInfo::exists(path))
        QSKIP("../shared/data/real-traces is not beside the checkout (CI has it): no real Kineto traces to test on");

    const auto t = engine::loadTrace(path.toStdString()); // .json.gz: detection and gunzip on the way
    QVERIFY(t.source == engine::TraceSource::ChromeJson);
    QCOMPARE(t.repetitions.size(), std::size_t(1));
    // Kernels as the file has them, NCCL's included (which are collectives: classified by their launching range).
    QCOMPARE(test::perStream(
                 t, [](const auto &op) { return op.kind == OpKind::Kernel || op.kind == OpKind::Collective; }, " "),
             kernels);
    QCOMPARE(test::perStream(
                 t, [](const auto &op) { return engine::isCopy(op.kind); }, " "),
             copies);
    QCOMPARE(test::perStream(
                 t, [](const auto &op) { return op.kind == OpKind::Memset; }, " "),
             memsets);
    QCOMPARE(test::countOps(t, [](const auto &op) { return op.hasGpu() && op.hasHost(); }), linkedGpuOps);
    QCOMPARE(test::countOps(t, [](const auto &op) { return !op.hasGpu() && op.hasHost(); }), hostOnly);
    QCOMPARE(test::countOps(t, [](const auto &op) { return op.kind == OpKind::CopyH2D; }), h2d);
    QCOMPARE(test::countOps(t, [](const auto &op) { return engine::isCopy(op.kind) && op.srcMem == MemKind::Unknown; }),
             0);
    QVERIFY(test::countOps(t, [](const auto &op) { return op.kind == OpKind::HostSync; }) > 0);
    QVERIFY(!t.devices.empty());
    QCOMPARE(QString::fromStdString(t.devices[0].name), gpu);
    // Every linked copy knows which API issued it.
    QCOMPARE(test::countOps(t,
                            [](const auto &op) {
                                return engine::isCopy(op.kind) && op.hasHost() && op.api == engine::CopyApi::None;
                            }),
             0);
    // sorted by start
    std::int64_t last = INT64_MIN;
    for (const auto &op : t.repetitions[0].ops) {
        const auto key = op.hasGpu() ? op.gpuStartNs : op.hostStartNs;
        QVERIFY(key >= last);
        last = key;
    }

    // The CPU side: every cpu_op and user_annotation as a host range on its thread, nested; kernels keep
    // their own names, each with its launch (grid, block, shared memory, registers) and the cpu_op that
    // launched it.
    const auto &rep = t.repetitions[0];
    int ops = 0, notes = 0, deepest = 0;
    for (const auto &r : rep.hostRanges) {
        ops += r.category == engine::HostRangeCategory::CpuOp;
        notes += r.category == engine::HostRangeCategory::UserAnnotation;
        deepest = std::max(deepest, r.depth);
        QVERIFY(r.hostThread >= 0 && r.hostThread < int(t.hostThreads.size()));
    }
    QCOMPARE(ops, cpuOps);
    QCOMPARE(notes, annotations);
    QVERIFY2(deepest >= 3, qPrintable(QString::number(deepest)));
    // Every kernel has its launch, NCCL's (collectives) included.
    const int kernelCount =
        test::countOps(t, [](const auto &op) { return op.kind == OpKind::Kernel || op.kind == OpKind::Collective; });
    QCOMPARE(int(rep.kernelLaunches.size()), kernelCount);
    int launchedInOps = 0;
    for (const auto &l : rep.kernelLaunches) {
        const auto &op = rep.ops[std::size_t(l.op)];
        QVERIFY(op.kind == OpKind::Kernel || op.kind == OpKind::Collective);
        QVERIFY(l.hasGrid() && l.hasBlock() && l.sharedBytes >= 0 && l.registersPerThread >= 0);
        if (const auto *range = rep.enclosingRange(op))
            launchedInOps += range->category == engine::HostRangeCategory::CpuOp;
    }
    QVERIFY2(launchedInOps > kernelCount / 2, qPrintable(QString::number(launchedInOps)));
}

void TestChromeImport::kinetoFixture()
{
    const auto t = engine::importChromeTrace(STREAMSCOPE_SOURCE_DIR "/tests/engine/fixtures/kineto_minimal.json");
    const auto &ops = t.repetitions.at(0).ops;
    QCOMPARE(ops.size(), std::size_t(5));
    QCOMPARE(test::enumName(ops[0].kind), test::enumName(OpKind::CopyH2D));
    QCOMPARE(test::enumName(ops[0].srcMem), test::enumName(MemKind::Pinned));
    QCOMPARE(test::enumName(ops[0].dstMem), test::enumName(MemKind::Device));
    QCOMPARE(ops[0].bytes, std::uint64_t(1048576));
    QCOMPARE(ops[0].gpuStartNs, std::int64_t(1'003'000));
    QCOMPARE(ops[0].gpuEndNs, std::int64_t(1'013'250)); // 10.25 us, to the nanosecond
    QCOMPARE(ops[0].hostStartNs, std::int64_t(1'001'000));
    QCOMPARE(test::enumName(ops[0].api), test::enumName(engine::CopyApi::Async));
    QCOMPARE(ops[0].correlation, std::uint64_t(11));
    QCOMPARE(test::enumName(ops[1].kind), test::enumName(OpKind::Kernel));
    QCOMPARE(t.name(ops[1]), std::string("void add_kernel<float>(float*, float const*, int)"));
    QCOMPARE(ops[1].hostStartNs, std::int64_t(1'010'000));
    // linked through the ac2g flow alone: no correlation arg on either side
    QCOMPARE(t.name(ops[2]), std::string("flow_linked_kernel"));
    QCOMPARE(ops[2].hostStartNs, std::int64_t(1'020'000));
    QCOMPARE(ops[2].correlation, std::uint64_t(13));
    QCOMPARE(test::enumName(ops[3].kind), test::enumName(OpKind::HostSync));
    QVERIFY(!ops[3].hasGpu());
    QCOMPARE(ops[3].hostEndNs - ops[3].hostStartNs, std::int64_t(20'500));
    QCOMPARE(test::enumName(ops[4].kind), test::enumName(OpKind::Memset));
    QCOMPARE(test::enumName(ops[4].dstMem), test::enumName(MemKind::Device));
    QCOMPARE(ops[4].bytes, std::uint64_t(4096));
    QCOMPARE(t.streams.size(), std::size_t(2));
    QCOMPARE(t.streams[1].name, std::string("stream 20"));
    QCOMPARE(ops[4].stream, 1);
    QCOMPARE(t.hostThreads.size(), std::size_t(1));
    QCOMPARE(t.hostThreads[0].name, std::string("thread 101 (python3)"));
    QCOMPARE(t.devices.size(), std::size_t(1));
    QCOMPARE(t.devices[0].name, std::string("Fixture GPU"));
    QCOMPARE(t.devices[0].smCount, 132);
}

// cpu_op, user_annotation and python_function slices: host ranges on their pid/tid, nested; a kernel's
// launch args, Kineto's short grid form, and malformed launch args named by their JSON path.
void TestChromeImport::kinetoCpuSide()
{
    const QByteArray text = R"json({"traceEvents":[
      {"ph":"X","cat":"python_function","name":"train.py(12): step","pid":7,"tid":7,"ts":0,"dur":100},
      {"ph":"X","cat":"user_annotation","name":"forward","pid":7,"tid":7,"ts":1,"dur":60},
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":7,"tid":7,"ts":2,"dur":20,"args":{"External id":3}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":7,"tid":7,"ts":5,"dur":4,"args":{"correlation":9}},
      {"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":30,"dur":10,
       "args":{"stream":7,"device":0,"correlation":9,"grid":[64],"block":[128,2,1],"shared memory":8192,
               "registers per thread":96}},
      {"ph":"X","cat":"cpu_op","name":"aten::add","pid":7,"tid":8,"ts":3,"dur":5},
      {"ph":"M","name":"thread_name","pid":7,"tid":8,"args":{"name":"autograd"}}
    ]})json";
    const auto t =
        engine::chromeTraceFromJson(std::string_view(text.constData(), std::size_t(text.size())), "cpu.json");
    const auto &rep = t.repetitions.at(0);
    QStringList ranges;
    for (const auto &r : rep.hostRanges)
        ranges << QStringLiteral("%1 %2@%3 on %4")
                      .arg(test::enumName(r.category), QString::fromStdString(t.string(r.nameId)))
                      .arg(r.depth)
                      .arg(QString::fromStdString(t.hostThreads[std::size_t(r.hostThread)].name));
    QCOMPARE(
        ranges.join(", "),
        QStringLiteral("python_function train.py(12): step@0 on pid 7 tid 7, user_annotation forward@1 on pid 7 tid "
                       "7, cpu_op aten::mm@2 on pid 7 tid 7, cpu_op aten::add@0 on autograd"));
    const auto kernel =
        std::find_if(rep.ops.begin(), rep.ops.end(), [](const auto &op) { return op.kind == OpKind::Kernel; });
    QVERIFY(kernel != rep.ops.end());
    QCOMPARE(t.name(*kernel), std::string("gemm_kernel"));
    QCOMPARE(t.rangeName(rep, *kernel), std::string("aten::mm"));
    const auto *l = rep.launchOf(int(kernel - rep.ops.begin()));
    QVERIFY(l);
    QCOMPARE(l->grid[0], 64u);
    QCOMPARE(l->grid[1], 1u); // [64] is 64 x 1 x 1
    QCOMPARE(l->block[1], 2u);
    QCOMPARE(l->sharedBytes, std::int64_t(8192));
    QCOMPARE(l->staticSharedBytes, -1); // Kineto gives the total only
    QCOMPARE(l->registersPerThread, 96);

    const std::string base = text.toStdString();
    auto refusal = [&](const std::string &from, const std::string &to) -> QString {
        std::string bad = base;
        bad.replace(bad.find(from), from.size(), to);
        try {
            engine::chromeTraceFromJson(bad, "cpu.json");
        } catch (const engine::Error &e) {
            return QString::fromUtf8(e.what());
        }
        return QStringLiteral("(accepted)");
    };
    QString msg = refusal("\"grid\":[64]", "\"grid\":[64,1,1,1]");
    QVERIFY2(msg.contains("/traceEvents/4/args/grid: expected an array of one to three integers"), qPrintable(msg));
    msg = refusal("\"grid\":[64]", "\"grid\":\"64\"");
    QVERIFY2(msg.contains("/traceEvents/4/args/grid"), qPrintable(msg));
    msg = refusal("\"block\":[128,2,1]", "\"block\":[128,-2,1]");
    QVERIFY2(msg.contains("/traceEvents/4/args/block/1: a launch dimension of -2 is not possible"), qPrintable(msg));
    msg = refusal("\"shared memory\":8192", "\"shared memory\":-1");
    QVERIFY2(msg.contains("/traceEvents/4/args/shared memory: -1 is not a possible size"), qPrintable(msg));
    msg = refusal("\"name\":\"aten::add\",\"pid\":7,\"tid\":8,\"ts\":3,\"dur\":5",
                  "\"name\":\"aten::add\",\"pid\":7,\"tid\":8,\"ts\":3,\"dur\":-5");
    QVERIFY2(msg.contains("/traceEvents/5/dur: negative duration"), qPrintable(msg));
}

void TestChromeImport::realKinetoCollectives()
{
    const QString path = QStringLiteral(STREAMSCOPE_SHARED_DIR "/data/real-traces/kineto_a100_rank3_4streams.json.gz");
    if (!QFileInfo::exists(path))
        QSKIP("../shared/data/real-traces is not beside the checkout (CI has it)");
    // Rank 3's 42 all-to-alls and 18 all-reduces, each launched inside PyTorch's user_annotation
    // "nccl:all_to_all" / "nccl:all_reduce" (counted with Python over the file's traceEvents): collectives by
    // that call; every other kernel stays a kernel.
    const auto t = engine::loadTrace(path.toStdString());
    int collectives = 0, ncclNamed = 0, mismatched = 0;
    for (const auto &rep : t.repetitions)
        for (const auto &op : rep.ops) {
            const bool collective = op.kind == OpKind::Collective;
            const bool named = t.name(op).rfind("ncclKernel", 0) == 0;
            collectives += collective;
            ncclNamed += named;
            mismatched += collective != named;
        }
    QCOMPARE(collectives, 60);
    QCOMPARE(ncclNamed, 60);
    QCOMPARE(mismatched, 0);
    QVERIFY(t.metadata.count("communication"));
}

void TestChromeImport::realKinetoKernelLaunch()
{
    const QString path = QStringLiteral(STREAMSCOPE_SHARED_DIR "/data/real-traces/kineto_a100_rank3_4streams.json.gz");
    if (!QFileInfo::exists(path))
        QSKIP("../shared/data/real-traces is not beside the checkout (CI has it)");
    // README's example kernel: a CUTLASS GEMM, 64 x 1 x 1 blocks of 128 threads, 48 KiB of shared memory,
    // 90 registers per thread, launched from a cpu_op.
    const auto t = engine::loadTrace(path.toStdString());
    const auto &rep = t.repetitions[0];
    const std::string name =
        "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_"
        "16x6_nn_align4::Params)";
    int seen = 0;
    for (std::size_t i = 0; i < rep.ops.size() && !seen; ++i) {
        if (t.name(rep.ops[i]) != name)
            continue;
        const auto *l = rep.launchOf(int(i));
        QVERIFY(l);
        if (l->grid[0] != 64)
            continue;
        ++seen;
        QCOMPARE(l->block[0], 128u);
        QCOMPARE(l->sharedBytes, std::int64_t(49152));
        QCOMPARE(l->registersPerThread, 90);
        const auto *range = rep.enclosingRange(rep.ops[i]);
        QVERIFY(range);
        QVERIFY2(QString::fromStdString(t.string(range->nameId)).startsWith("aten::"), t.string(range->nameId).c_str());
    }
    QCOMPARE(seen, 1);
}

void TestChromeImport::olderCategoryNamesAndArrayForm()
{
    // The JSON Array Format, and Kineto's older capitalised categories.
    const QByteArray text = R"json([
      {"ph":"X","cat":"Runtime","name":"cudaMemcpy","pid":1,"tid":2,"ts":0,"dur":30,"args":{"correlation":5}},
      {"ph":"X","cat":"Memcpy","name":"Memcpy DtoH (Device -> Pageable)","pid":0,"tid":7,"ts":1,"dur":20,"args":{"stream":7,"device":0,"correlation":5,"bytes":64}},
      {"ph":"X","cat":"Kernel","name":"k","pid":0,"tid":7,"ts":25,"dur":2,"args":{"stream":7}}
    ])json";
    const auto t =
        engine::chromeTraceFromJson(std::string_view(text.constData(), std::size_t(text.size())), "array.json");
    const auto &ops = t.repetitions.at(0).ops;
    QCOMPARE(ops.size(), std::size_t(2));
    QCOMPARE(test::enumName(ops[0].kind), test::enumName(OpKind::CopyD2H));
    QCOMPARE(test::enumName(ops[0].api), test::enumName(engine::CopyApi::Sync));
    QCOMPARE(test::enumName(ops[0].dstMem), test::enumName(MemKind::Pageable));
    QCOMPARE(test::enumName(ops[1].kind), test::enumName(OpKind::Kernel));
    QVERIFY(!ops[1].hasHost());
}

void TestChromeImport::largestDeviceIdsStayApart()
{
    // 2^31 - 1 is the largest device id the model holds: it stays its own GPU beside GPU 0 (ids beyond it
    // are refused, see malformed(); truncated, they became a second "GPU 0").
    const QByteArray text = R"json([
      {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":1,"dur":2,"args":{"stream":7,"device":0}},
      {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":5,"dur":2,"args":{"stream":7,"device":2147483647}}
    ])json";
    const auto t =
        engine::chromeTraceFromJson(std::string_view(text.constData(), std::size_t(text.size())), "ids.json");
    QCOMPARE(t.devices.size(), std::size_t(2));
    QCOMPARE(t.devices[0].index, 0);
    QCOMPARE(t.devices[1].index, 2147483647);
    QCOMPARE(t.streams.size(), std::size_t(2));
    QCOMPARE(t.streams[0].name, std::string("GPU 0 stream 7"));
    QCOMPARE(t.streams[1].name, std::string("GPU 2147483647 stream 7"));
    QCOMPARE(t.streams[1].device, 2147483647);
}

void TestChromeImport::gzipAndDetection()
{
    QFile f(STREAMSCOPE_SOURCE_DIR "/tests/engine/fixtures/kineto_minimal.json");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray json = f.readAll();
    const auto plain = engine::loadTrace(write("k.json", json));
    const auto packed = engine::loadTrace(write("k.json.gz", gzip(json)));
    const auto concatenated = engine::loadTrace(write("k2.json.gz", gzip(json.left(500)) + gzip(json.mid(500))));
    QCOMPARE(
        int(engine::detectFileKindOfContent(std::string_view(json.constData(), std::size_t(json.size())), "k.json")),
        int(engine::FileKind::ChromeJson));
    for (const auto *t : {&packed, &concatenated}) {
        const QString diff = test::traceDifference(plain, *t);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }
}

void TestChromeImport::ownExportThroughLoadTrace()
{
    // StreamScope's own export, gzip-compressed, comes back as the same trace through loadTrace.
    const auto t = test::handTrace(3);
    const std::string text = engine::toChromeJson(t);
    const auto back = engine::loadTrace(write("own.json.gz", gzip(QByteArray::fromStdString(text))));
    const QString diff = test::traceDifference(t, back);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    // and a native file is recognised as native, not as a Chrome trace
    const std::string native = engine::toNativeJson(t);
    QCOMPARE(int(engine::detectFileKindOfContent(native, "t.sstrace")), int(engine::FileKind::NativeTrace));
}

void TestChromeImport::malformed_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected"); // parts of the message, '|'-separated

    const QByteArray k = kKernel;
    auto events = [](const QByteArray &list) { return "{\"traceEvents\":[" + list + "]}"; };
    QTest::newRow("empty file") << QByteArray() << "empty file";
    QTest::newRow("only whitespace") << QByteArray("  \n\t ") << "empty file";
    QTest::newRow("truncated JSON") << QByteArray("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\n\"ts\":")
                                    << ":2:6: not valid JSON";
    QTest::newRow("trailing comma") << QByteArray("{\"traceEvents\":[" + k + ",]}") << ":1:|not valid JSON";
    QTest::newRow("number beyond a double")
        << QByteArray(R"({"traceEvents":[{"ph":"X","name":"k","ts":1e400,"dur":1,"pid":1,"tid":1}]})")
        << ":1:43: not valid JSON|number overflow parsing '1e400'";
    QTest::newRow("binary junk after a brace") << QByteArray("{\x01\x02\xff\xfe", 5) << ":1:2: not valid JSON";
    QTest::newRow("top level is a number") << QByteArray("42") << "not a trace StreamScope reads|it is text, not JSON";
    // ts + dur beyond 2^63 ns wrapped to a negative end (and its native export could not be read back).
    QTest::newRow("ts + dur wraps") << QByteArray(
        R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":4.6e15,"dur":4.7e15,"pid":0,"tid":7,)"
        R"("args":{"stream":7,"device":0}}]})")
                                    << "/traceEvents/0/dur: ts + dur is out of range";
    QTest::newRow("ts beyond 146 years") << QByteArray(
        R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":8e15,"dur":1,"pid":0,"tid":7,)"
        R"("args":{"stream":7,"device":0}}]})")
                                         << "/traceEvents/0/ts: StreamScope reads times within";
    QTest::newRow("slices 4e18 ns apart")
        << QByteArray(R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":4e15,"dur":1,"pid":0,"tid":7,)"
                      R"("args":{"stream":7,"device":0}},{"ph":"X","cat":"kernel","name":"k","ts":0,"dur":1,"pid":0,)"
                      R"("tid":7,"args":{"stream":7,"device":0}}]})")
        << "the trace would span";
    // -1 ns is "not recorded" inside StreamScope: a kernel starting there lost its GPU interval (#24).
    QTest::newRow("ts at -1 ns") << events(
        R"({"ph":"X","cat":"kernel","name":"k","ts":-0.001,"dur":1000,"args":{"stream":7}})")
                                 << "/traceEvents/0/ts: ts is -1 ns, the one time StreamScope cannot hold";
    QTest::newRow("slice ending at -1 ns")
        << events(R"({"ph":"X","cat":"kernel","name":"k","ts":-2,"dur":1.999,"args":{"stream":7}})")
        << "/traceEvents/0/dur: ts + dur is -1 ns";
    QTest::newRow("array of numbers") << QByteArray("[42]") << "/0: expected an event object, found a number";
    QTest::newRow("object without traceEvents") << QByteArray("{\"events\":[]}") << "/traceEvents: missing";
    QTest::newRow("traceEvents is an object")
        << QByteArray("{\"traceEvents\":{}}") << "/traceEvents: expected an array of events, found an object";
    QTest::newRow("event is a string") << events("\"x\"") << "/traceEvents/0: expected an event object, found a string";
    QTest::newRow("missing ph") << events(R"({"cat":"kernel","name":"k","ts":1,"dur":1,"args":{"stream":7}})")
                                << "/traceEvents/0/ph: missing";
    QTest::newRow("ph is a number") << events(R"({"ph":88})") << "/traceEvents/0/ph: expected a string, found a number";
    QTest::newRow("kernel without ts") << events(
        k + R"(,{"ph":"X","cat":"kernel","name":"k","dur":1,"args":{"stream":7}})")
                                       << "/traceEvents/1/ts: missing";
    QTest::newRow("ts is a string") << events(
        R"({"ph":"X","cat":"kernel","name":"k","ts":"10","dur":1,"args":{"stream":7}})")
                                    << "/traceEvents/0/ts: expected a number (microseconds), found a string";
    QTest::newRow("kernel without dur") << events(R"({"ph":"X","cat":"kernel","name":"k","ts":1,"args":{"stream":7}})")
                                        << "/traceEvents/0/dur: missing";
    QTest::newRow("negative dur") << events(
        R"({"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","ts":1,"dur":-3,"args":{"stream":7}})")
                                  << "/traceEvents/0/dur: negative duration";
    QTest::newRow("ts out of range") << events(
        R"({"ph":"X","cat":"kernel","name":"k","ts":1e300,"dur":1,"args":{"stream":7}})")
                                     << "/traceEvents/0/ts: time out of range";
    QTest::newRow("kernel without name") << events(R"({"ph":"X","cat":"kernel","ts":1,"dur":1,"args":{"stream":7}})")
                                         << "/traceEvents/0/name: missing";
    QTest::newRow("kernel without stream")
        << events(R"({"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1,"args":{"device":0}})")
        << "/traceEvents/0/args/stream: missing";
    QTest::newRow("stream is a string") << events(
        R"({"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1,"args":{"stream":"7"}})")
                                        << "/traceEvents/0/args/stream: expected an integer, found a string";
    // Device ids the model's int cannot hold: 2^32 was truncated to "GPU 0", beside the real GPU 0 (#24).
    QTest::newRow("device id 2^32") << events(
        k + R"(,{"ph":"X","cat":"kernel","name":"k","ts":2,"dur":1,"args":{"stream":7,"device":4294967296}})")
                                    << "/traceEvents/1/args/device: device id 4294967296 is beyond 2147483647";
    QTest::newRow("device id 2^31") << events(
        R"({"ph":"X","cat":"kernel","name":"k","ts":2,"dur":1,"args":{"stream":7,"device":2147483648}})")
                                    << "/traceEvents/0/args/device: device id 2147483648 is beyond 2147483647";
    QTest::newRow("device id below -2^31")
        << events(R"({"ph":"X","cat":"kernel","name":"k","ts":2,"dur":1,"args":{"stream":7,"device":-2147483649}})")
        << "/traceEvents/0/args/device: device id -2147483649 is below";
    QTest::newRow("device from pid 2^32")
        << events(R"({"ph":"X","cat":"kernel","name":"k","pid":4294967296,"ts":2,"dur":1,"args":{"stream":7}})")
        << "/traceEvents/0/pid: device id 4294967296 is beyond 2147483647";
    QTest::newRow("deviceProperties id 2^32")
        << QByteArray(R"({"deviceProperties":[{"id":4294967296,"name":"H100"}],"traceEvents":[)" + k + "]}")
        << "/deviceProperties/0/id: device id 4294967296 is beyond 2147483647";
    QTest::newRow("args is an array") << events(R"({"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1,"args":[7]})")
                                      << "/traceEvents/0/args: expected an object, found an array";
    QTest::newRow("negative bytes") << events(
        R"({"ph":"X","cat":"gpu_memset","name":"Memset","ts":1,"dur":1,"args":{"stream":7,"bytes":-1}})")
                                    << "/traceEvents/0/args/bytes: negative byte count";
    QTest::newRow("fractional bytes") << events(
        R"({"ph":"X","cat":"gpu_memset","name":"Memset","ts":1,"dur":1,"args":{"stream":7,"bytes":1.5}})")
                                      << "/traceEvents/0/args/bytes: expected an integer, found a number";
    QTest::newRow("correlation is a string")
        << events(R"({"ph":"X","cat":"cuda_runtime","name":"cudaMalloc","ts":1,"dur":1,"args":{"correlation":"x"}})")
        << "/traceEvents/0/args/correlation: expected an integer, found a string";
    QTest::newRow("flow without id") << events(k + R"(,{"ph":"s","cat":"ac2g","name":"ac2g","pid":1,"tid":1,"ts":1})")
                                     << "/traceEvents/1/id: missing";
    QTest::newRow("no GPU activity") << events(
        R"({"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":1,"dur":1})")
                                     << "/traceEvents: no GPU activity and no CUDA API calls";
    QTest::newRow("streamscope block, wrong format")
        << QByteArray(R"({"streamscope":{"format":"other"},"traceEvents":[]})")
        << "/streamscope/format: expected \"streamscope-chrome\"";
    const QByteArray block =
        R"("streamscope":{"format":"streamscope-chrome","originNs":0,"streams":[{"name":"s","device":0,"nativeId":1}],"hostThreads":[],"devices":[]})";
    QTest::newRow("streamscope block without streams")
        << QByteArray(R"({"streamscope":{"format":"streamscope-chrome","originNs":0},"traceEvents":[]})")
        << "/streamscope/streams: missing";
    QTest::newRow("ss_stream out of range")
        << "{" + block
               + R"(,"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1,"args":{"ss_stream":3}}]})"
        << "/traceEvents/0/args/ss_stream: no stream 3 in /streamscope/streams";
    QTest::newRow("unknown op kind")
        << "{" + block
               + R"(,"traceEvents":[{"ph":"X","cat":"gpu_op","name":"k","ts":1,"dur":1,"args":{"ss_stream":0,"kind":"teleport"}}]})"
        << "/traceEvents/0/args/kind: unknown op kind \"teleport\"";
    QTest::newRow("streamscope stream on device 2^32") << QByteArray(
        R"({"streamscope":{"format":"streamscope-chrome","originNs":0,"streams":[{"name":"s","device":4294967296,"nativeId":1}],"hostThreads":[],"devices":[]},"traceEvents":[]})")
                                                       << "/streamscope/streams/0/device: device id 4294967296 is "
                                                          "beyond 2147483647";
    QTest::newRow("streamscope device index 2^31") << QByteArray(
        R"({"streamscope":{"format":"streamscope-chrome","originNs":0,"streams":[],"hostThreads":[],"devices":[{"index":2147483648}]},"traceEvents":[]})")
                                                   << "/streamscope/devices/0/index: device id 2147483648 is beyond "
                                                      "2147483647";
    QTest::newRow("unknown memory kind")
        << "{" + block
               + R"(,"traceEvents":[{"ph":"X","cat":"gpu_memcpy","name":"c","ts":1,"dur":1,"args":{"ss_stream":0,"kind":"h2d","src_mem":"cloud"}}]})"
        << "/traceEvents/0/args/src_mem: unknown memory kind \"cloud\"";
}

void TestChromeImport::malformed()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);
    const std::string path = write("malformed.json", json);
    try {
        const auto t = engine::loadTrace(path);
        QFAIL(qPrintable(QString("no error; %1 ops read").arg(t.opCount())));
    } catch (const engine::Error &e) {
        const QString what = QString::fromUtf8(e.what());
        QCOMPARE(e.kind(), engine::ErrorKind::InvalidInput);
        QVERIFY2(what.startsWith(QString::fromStdString(path)),
                 qPrintable("message does not start with the file: " + what));
        for (const QString &part : expected.split('|', Qt::SkipEmptyParts))
            QVERIFY2(what.contains(part), qPrintable("'" + part + "' not in: " + what));
    }
}

void TestChromeImport::malformedGzip_data()
{
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<QString>("expected");
    const QByteArray good = gzip(QByteArray(R"({"traceEvents":[)") + kKernel + "]}");
    QTest::newRow("truncated gzip") << good.left(good.size() / 2) << "gzip data is truncated";
    QByteArray corrupt = good;
    for (int i = 12; i < corrupt.size() - 8; ++i)
        corrupt[i] = char(corrupt[i] ^ 0x5a);
    QTest::newRow("corrupt gzip") << corrupt << "corrupt gzip data";
    QTest::newRow("gzip magic only") << QByteArray("\x1f\x8b", 2) << "gzip data is truncated";
    QTest::newRow("junk after gzip") << good + QByteArray("junk") << "unexpected bytes after the gzip data";
    QTest::newRow("gzip of garbage") << gzip("not json at all") << "not a trace StreamScope reads";
    QTest::newRow("gzip of truncated JSON") << gzip("{\"traceEvents\":[") << ":1:17: not valid JSON";
}

void TestChromeImport::malformedGzip()
{
    QFETCH(QByteArray, data);
    QFETCH(QString, expected);
    const std::string path = write("bad.json.gz", data);
    try {
        engine::loadTrace(path);
        QFAIL("no error");
    } catch (const engine::Error &e) {
        QCOMPARE(e.kind(), engine::ErrorKind::InvalidInput);
        QVERIFY2(QString(e.what()).startsWith(QString::fromStdString(path)), e.what());
        QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
}

void TestChromeImport::unknownFormatIsRejected()
{
    const std::string path = write("notes.txt", "hello, this is not a trace");
    try {
        engine::loadTrace(path);
        QFAIL("no error");
    } catch (const engine::Error &e) {
        QCOMPARE(e.kind(), engine::ErrorKind::InvalidInput);
        QVERIFY2(QString(e.what()).contains("not a trace StreamScope reads"), e.what());
        // Said in words, never with the file's bytes (a comparison could name any file).
        QVERIFY2(QString(e.what()).contains("it is text, not JSON"), e.what());
        QVERIFY2(!QString(e.what()).contains("hello"), e.what());
    }
    try {
        engine::loadTrace(m_dir.filePath("missing.json").toStdString());
        QFAIL("no error");
    } catch (const engine::Error &e) {
        QCOMPARE(e.kind(), engine::ErrorKind::Io);
    }
}

// The reader parses one event at a time and frees the text once read (#24 item 1): chromeTraceFromText
// empties the string it is given; a top-level member it does not read is skipped by its extent, whatever
// its size, and the events after it are read; members it reads may stand after traceEvents.
void TestChromeImport::textIsConsumedAndSkippedMembersAreNotParsed()
{
    std::string text = R"({"traceEvents":[)" + std::string(kKernel) + "," + kKernel + R"(],"otherData":{"note":")"
                       + std::string(1 << 20, 'x')
                       + R"(","list":[1,2,[3,{"}":"]"}]]},"deviceProperties":[{"id":0,"name":"After the events"}]})";
    const std::size_t size = text.size();
    const engine::Trace t = engine::chromeTraceFromText(text, "consumed.json");
    QVERIFY(text.empty());
    QVERIFY(text.capacity() < size); // its memory given back, not only its length
    QCOMPARE(t.opCount(), std::size_t(2));
    QCOMPARE(t.devices.size(), std::size_t(1));
    QCOMPARE(t.devices[0].name, std::string("After the events"));
}

// Hostile sizes stop at their limit, named by the event, before the work they bound: a name beyond
// limits::kMaxTextBytes, and one event beyond what the reader parses as a value (its DOM is bounded).
void TestChromeImport::hostileSizesStopAtTheirLimit()
{
    const auto expectRefused = [](std::string text, const QString &part) {
        try {
            engine::chromeTraceFromText(text, "hostile.json");
            QFAIL("no error");
        } catch (const engine::Error &e) {
            QCOMPARE(e.kind(), engine::ErrorKind::InvalidInput);
            QVERIFY2(QString(e.what()).startsWith("hostile.json: "), e.what());
            QVERIFY2(QString(e.what()).contains(part), e.what());
        }
    };
    const std::string before = R"({"traceEvents":[)" + std::string(kKernel) + ",";
    expectRefused(before + R"({"ph":"X","cat":"kernel","name":")" + std::string((16 << 20) + 1, 'n')
                      + R"(","pid":0,"tid":7,"ts":10,"dur":5,"args":{"stream":7}}]})",
                  "/traceEvents/1/name: a name of 16777217 bytes, longer than StreamScope reads (at most 16 MiB)");
    std::string zeros;
    zeros.reserve(18 << 20);
    for (int i = 0; i < (9 << 20); ++i)
        zeros += "0,";
    expectRefused(
        before + R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":5,"args":{"stream":7,"x":[)"
            + zeros + "0]}}]}",
        " of JSON in one value, more than StreamScope reads (at most 17 MiB for an event)");
}

QTEST_GUILESS_MAIN(TestChromeImport)
#include "tst_chrome_import.moc"
