// Tests of engine/workload/pipeline_generator.h: the buffers, streams and ops of Harris's chunked
// pipeline, chunk sizes and offsets, chunk c on stream c % streams, depth-first versus breadth-first
// issue order, the names and provenance of the ops, and the specs it refuses (with the workload left
// as it was).
#include <QtTest>

#include <set>
#include <string>
#include <vector>

#include "engine/model/errors.h"
#include "engine/workload/pipeline_generator.h"
#include "tests/engine/workload/workload_compare.h"

using namespace streamscope::engine;

Q_DECLARE_METATYPE(streamscope::engine::BufferKind)
Q_DECLARE_METATYPE(streamscope::engine::CopyApi)

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

const OpSpec &opAt(const Workload &w, const ScheduledOp &s)
{
    return w.streams.at(std::size_t(s.stream)).ops.at(std::size_t(s.op));
}

// The chunk an op belongs to, from its " [cN]" tag; -1 without one.
int chunkOf(const OpSpec &op)
{
    const auto at = op.name.rfind(" [c");
    if (at == std::string::npos || op.name.back() != ']')
        return -1;
    return std::stoi(op.name.substr(at + 3, op.name.size() - at - 4));
}

// "H", "K" or "D" for the pipeline's three stages.
QString stageOf(const OpSpec &op)
{
    if (op.type == OpType::Kernel)
        return QStringLiteral("K");
    if (op.type == OpType::Copy && op.direction == CopyDirection::H2D)
        return QStringLiteral("H");
    if (op.type == OpType::Copy && op.direction == CopyDirection::D2H)
        return QStringLiteral("D");
    return QStringLiteral("?");
}

// The schedule as "H0 K0 D0 H1 ...".
QString issueText(const Workload &w)
{
    QStringList parts;
    for (const ScheduledOp &s : w.schedule)
        parts << stageOf(opAt(w, s)) + QString::number(chunkOf(opAt(w, s)));
    return parts.join(' ');
}

int errorKindOf(Workload &w, const PipelineSpec &spec, QString *message, const std::string &path = "/pipeline")
{
    try {
        generatePipeline(w, spec, path);
    } catch (const Error &e) {
        *message = QString::fromStdString(e.what());
        return int(e.kind());
    }
    return -1;
}

} // namespace

class TestPipelineGenerator : public QObject {
    Q_OBJECT

private slots:
    void orderNames()
    {
        QCOMPARE(qs(toString(PipelineOrder::DepthFirst)), QStringLiteral("depth-first"));
        QCOMPARE(qs(toString(PipelineOrder::BreadthFirst)), QStringLiteral("breadth-first"));
    }

    // The default spec is the lesson's: 16 MiB in 4 chunks on 4 streams, pinned, async, 60 us kernels.
    void defaultPipeline()
    {
        Workload w;
        generatePipeline(w, PipelineSpec{});
        QCOMPARE(int(w.buffers.size()), 2);
        QCOMPARE(w.buffers[0].name, std::string("h_data"));
        QCOMPARE(w.buffers[0].kind, BufferKind::Pinned);
        QCOMPARE(quint64(w.buffers[0].bytes), quint64(16ull << 20));
        QCOMPARE(w.buffers[1].name, std::string("d_data"));
        QCOMPARE(w.buffers[1].kind, BufferKind::Device);
        QCOMPARE(quint64(w.buffers[1].bytes), quint64(16ull << 20));
        QCOMPARE(int(w.streams.size()), 4);
        for (int s = 0; s < 4; ++s) {
            const StreamSpec &stream = w.streams[std::size_t(s)];
            QCOMPARE(stream.name, "stream" + std::to_string(s));
            QCOMPARE(stream.flags, StreamFlags::NonBlocking);
            QVERIFY(!stream.useDefaultStream);
            QCOMPARE(int(stream.ops.size()), 3);
            const OpSpec &h2d = stream.ops[0], &kernel = stream.ops[1], &d2h = stream.ops[2];
            const std::string tag = " [c" + std::to_string(s) + "]";
            QCOMPARE(h2d.name, "H2D 4 MiB pinned" + tag);
            QCOMPARE(QString::fromStdString(kernel.name),
                     QString::fromUtf8("kernel 60 \u00b5s") + QString::fromStdString(tag));
            QCOMPARE(d2h.name, "D2H 4 MiB pinned" + tag);
            QCOMPARE(h2d.type, OpType::Copy);
            QCOMPARE(h2d.direction, CopyDirection::H2D);
            QCOMPARE(h2d.api, CopyApi::Async);
            QCOMPARE(h2d.src, std::string("h_data"));
            QCOMPARE(h2d.dst, std::string("d_data"));
            QCOMPARE(d2h.direction, CopyDirection::D2H);
            QCOMPARE(d2h.api, CopyApi::Async);
            QCOMPARE(d2h.src, std::string("d_data"));
            QCOMPARE(d2h.dst, std::string("h_data"));
            QCOMPARE(kernel.type, OpType::Kernel);
            QCOMPARE(kernel.kernelType, KernelType::Compute);
            QCOMPARE(qint64(kernel.durationNs), qint64(60'000));
            QCOMPARE(kernel.blocks, 64);
            QCOMPARE(kernel.threadsPerBlock, 256);
            QVERIFY(kernel.buffer.empty());
        }
        QCOMPARE(w.schedule.size(), std::size_t(12));
    }

    void chunkSizesAndOffsets_data()
    {
        QTest::addColumn<quint64>("total");
        QTest::addColumn<int>("chunks");
        QTest::addColumn<int>("streams");
        QTest::newRow("4 x 4 MiB") << quint64(16ull << 20) << 4 << 4;
        QTest::newRow("3 chunks of 12 MiB") << quint64(12ull << 20) << 3 << 1;
        QTest::newRow("odd sizes") << quint64(3 * 7 * 1001) << 21 << 5;
        QTest::newRow("one byte chunks") << quint64(8) << 8 << 3;
        QTest::newRow("one chunk") << quint64(1000) << 1 << 1;
        QTest::newRow("past 4 GiB") << quint64(6ull << 30) << 3 << 2;
    }
    void chunkSizesAndOffsets()
    {
        QFETCH(quint64, total);
        QFETCH(int, chunks);
        QFETCH(int, streams);
        Workload w;
        PipelineSpec spec;
        spec.totalBytes = total;
        spec.chunks = chunks;
        spec.streams = streams;
        generatePipeline(w, spec);
        const quint64 chunk = total / quint64(chunks);
        QCOMPARE(quint64(w.buffers[0].bytes), total);
        QCOMPARE(quint64(w.buffers[1].bytes), total);
        QCOMPARE(int(w.opCount()), 3 * chunks);
        std::set<int> seen;
        quint64 copied = 0;
        for (const StreamSpec &s : w.streams)
            for (const OpSpec &op : s.ops) {
                const int c = chunkOf(op);
                QVERIFY2(c >= 0 && c < chunks, op.name.c_str());
                if (op.type != OpType::Copy)
                    continue;
                QCOMPARE(quint64(op.bytes), chunk);
                QCOMPARE(quint64(op.srcOffset), chunk * quint64(c));
                QCOMPARE(quint64(op.dstOffset), chunk * quint64(c));
                QVERIFY(op.srcOffset + op.bytes <= total);
                if (op.direction == CopyDirection::H2D) {
                    QVERIFY(seen.insert(c).second);
                    copied += op.bytes;
                }
            }
        // The chunks cover the buffer exactly once.
        QCOMPARE(copied, total);
        QCOMPARE(int(seen.size()), chunks);
    }

    // Bytes that do not divide into the chunks are refused, never rounded.
    void bytesNotDivisible_data()
    {
        QTest::addColumn<quint64>("total");
        QTest::addColumn<int>("chunks");
        QTest::newRow("10 in 3") << quint64(10) << 3;
        QTest::newRow("16 MiB + 1 in 4") << quint64((16ull << 20) + 1) << 4;
        QTest::newRow("fewer bytes than chunks") << quint64(3) << 4;
        QTest::newRow("zero bytes") << quint64(0) << 4;
    }
    void bytesNotDivisible()
    {
        QFETCH(quint64, total);
        QFETCH(int, chunks);
        PipelineSpec spec;
        spec.totalBytes = total;
        spec.chunks = chunks;
        spec.streams = 1;
        Workload w;
        QString message;
        QCOMPARE(errorKindOf(w, spec, &message), int(ErrorKind::InvalidInput));
        QVERIFY2(message.startsWith("pipeline at /pipeline: "), qPrintable(message));
        QVERIFY2(message.contains("positive multiple of the chunk count"), qPrintable(message));
    }

    void streamAssignment_data()
    {
        QTest::addColumn<int>("chunks");
        QTest::addColumn<int>("streams");
        QTest::newRow("one stream") << 4 << 1;
        QTest::newRow("two streams") << 8 << 2;
        QTest::newRow("uneven") << 7 << 3;
        QTest::newRow("as many as chunks") << 5 << 5;
    }
    void streamAssignment()
    {
        QFETCH(int, chunks);
        QFETCH(int, streams);
        Workload w;
        PipelineSpec spec;
        spec.totalBytes = quint64(chunks) * 4096;
        spec.chunks = chunks;
        spec.streams = streams;
        generatePipeline(w, spec);
        QCOMPARE(int(w.streams.size()), streams);
        for (int s = 0; s < streams; ++s) {
            const auto &ops = w.streams[std::size_t(s)].ops;
            // Stream s holds chunks s, s + K, s + 2K, ... each as H2D, kernel, D2H, in chunk order.
            const int expectedChunks = (chunks - s + streams - 1) / streams;
            QCOMPARE(int(ops.size()), 3 * expectedChunks);
            for (std::size_t i = 0; i < ops.size(); ++i) {
                QCOMPARE(chunkOf(ops[i]), s + int(i / 3) * streams);
                QCOMPARE(stageOf(ops[i]), QString("HKD").mid(int(i % 3), 1));
            }
        }
    }

    void depthFirst_data()
    {
        QTest::addColumn<int>("chunks");
        QTest::addColumn<int>("streams");
        QTest::addColumn<QString>("order");
        QTest::newRow("4 chunks 4 streams") << 4 << 4 << "H0 K0 D0 H1 K1 D1 H2 K2 D2 H3 K3 D3";
        // Chunk order, not stream order: chunk 1 (stream 1) before chunk 2 (stream 0).
        QTest::newRow("4 chunks 2 streams") << 4 << 2 << "H0 K0 D0 H1 K1 D1 H2 K2 D2 H3 K3 D3";
        QTest::newRow("1 chunk") << 1 << 1 << "H0 K0 D0";
    }
    void depthFirst()
    {
        QFETCH(int, chunks);
        QFETCH(int, streams);
        QFETCH(QString, order);
        Workload w;
        PipelineSpec spec;
        spec.chunks = chunks;
        spec.streams = streams;
        spec.totalBytes = quint64(chunks) << 20;
        spec.order = PipelineOrder::DepthFirst;
        generatePipeline(w, spec);
        QCOMPARE(issueText(w), order);
        QCOMPARE(w.issueOrder, IssueOrder::StreamOrder);
        for (const ScheduledOp &s : w.schedule)
            QCOMPARE(s.stream, chunkOf(opAt(w, s)) % streams);
    }

    void breadthFirst_data()
    {
        QTest::addColumn<int>("chunks");
        QTest::addColumn<int>("streams");
        QTest::addColumn<QString>("order");
        QTest::newRow("4 chunks 4 streams") << 4 << 4 << "H0 H1 H2 H3 K0 K1 K2 K3 D0 D1 D2 D3";
        QTest::newRow("4 chunks 2 streams") << 4 << 2 << "H0 H1 H2 H3 K0 K1 K2 K3 D0 D1 D2 D3";
        QTest::newRow("3 chunks 1 stream") << 3 << 1 << "H0 H1 H2 K0 K1 K2 D0 D1 D2";
    }
    void breadthFirst()
    {
        QFETCH(int, chunks);
        QFETCH(int, streams);
        QFETCH(QString, order);
        Workload w;
        PipelineSpec spec;
        spec.chunks = chunks;
        spec.streams = streams;
        spec.totalBytes = quint64(chunks) << 20;
        spec.order = PipelineOrder::BreadthFirst;
        generatePipeline(w, spec);
        QCOMPARE(issueText(w), order);
        QCOMPARE(w.issueOrder, IssueOrder::RoundRobin);
        for (const ScheduledOp &s : w.schedule)
            QCOMPARE(s.stream, chunkOf(opAt(w, s)) % streams);
    }

    // Both orders issue every op exactly once, and each stream's ops in the order the stream lists
    // them: the runner issues Workload::schedule as given, and the parser refuses a schedule that
    // issues a stream's ops out of order ("only their interleaving is free"), so a generated workload
    // that broke this would not read back from workloadToJson.
    void schedulesArePermutations_data()
    {
        QTest::addColumn<int>("order");
        QTest::addColumn<int>("chunks");
        QTest::addColumn<int>("streams");
        for (const PipelineOrder order : {PipelineOrder::DepthFirst, PipelineOrder::BreadthFirst})
            for (int chunks = 1; chunks <= 5; ++chunks)
                for (int streams = 1; streams <= chunks; ++streams)
                    QTest::addRow("%s %d chunks %d streams", toString(order).data(), chunks, streams)
                        << int(order) << chunks << streams;
    }
    void schedulesArePermutations()
    {
        QFETCH(int, order);
        QFETCH(int, chunks);
        QFETCH(int, streams);
        Workload w;
        PipelineSpec spec;
        spec.chunks = chunks;
        spec.streams = streams;
        spec.totalBytes = quint64(chunks) * 512;
        spec.order = PipelineOrder(order);
        generatePipeline(w, spec);
        QCOMPARE(w.schedule.size(), w.opCount());
        std::set<std::pair<int, int>> seen;
        std::vector<int> next(std::size_t(streams), 0);
        QString outOfOrder;
        for (const ScheduledOp &s : w.schedule) {
            QVERIFY(s.stream >= 0 && s.stream < streams);
            QVERIFY(s.op >= 0 && s.op < int(w.streams[std::size_t(s.stream)].ops.size()));
            QVERIFY(seen.insert({s.stream, s.op}).second);
            if (outOfOrder.isEmpty() && s.op != next[std::size_t(s.stream)])
                outOfOrder = QStringLiteral("stream%1 issues op %2 when op %3 is next")
                                 .arg(s.stream)
                                 .arg(s.op)
                                 .arg(next[std::size_t(s.stream)]);
            next[std::size_t(s.stream)] = s.op + 1;
        }
        // Each stream's list is its issue order (breadth-first with fewer streams than chunks once issued
        // a stream's ops out of its list order, which parseWorkload(workloadToJson(w)) refused).
        QVERIFY2(outOfOrder.isEmpty(), qPrintable(outOfOrder));
    }

    void hostMemoryAndApi_data()
    {
        QTest::addColumn<BufferKind>("memory");
        QTest::addColumn<CopyApi>("api");
        QTest::addColumn<QString>("h2dName");
        QTest::addColumn<QString>("d2hName");
        QTest::newRow("pageable async") << BufferKind::Pageable << CopyApi::Async << "H2D 1 MiB pageable [c0]"
                                        << "D2H 1 MiB pageable [c0]";
        QTest::newRow("registered async") << BufferKind::Registered << CopyApi::Async << "H2D 1 MiB registered [c0]"
                                          << "D2H 1 MiB registered [c0]";
        QTest::newRow("pinned sync") << BufferKind::Pinned << CopyApi::Sync << "H2D 1 MiB pinned (sync) [c0]"
                                     << "D2H 1 MiB pinned (sync) [c0]";
    }
    void hostMemoryAndApi()
    {
        QFETCH(BufferKind, memory);
        QFETCH(CopyApi, api);
        QFETCH(QString, h2dName);
        QFETCH(QString, d2hName);
        Workload w;
        PipelineSpec spec;
        spec.totalBytes = 2 << 20;
        spec.chunks = 2;
        spec.streams = 2;
        spec.hostMemory = memory;
        spec.api = api;
        spec.flags = StreamFlags::Default;
        generatePipeline(w, spec);
        QCOMPARE(w.buffers[0].kind, memory);
        QCOMPARE(w.buffers[1].kind, BufferKind::Device);
        const auto &ops = w.streams[0].ops;
        QCOMPARE(QString::fromStdString(ops[0].name), h2dName);
        QCOMPARE(QString::fromStdString(ops[2].name), d2hName);
        QCOMPARE(ops[0].api, api);
        QCOMPARE(ops[2].api, api);
        for (const StreamSpec &s : w.streams)
            QCOMPARE(s.flags, StreamFlags::Default);
    }

    // A memory kernel streams its own chunk of the device buffer.
    void memoryKernel()
    {
        Workload w;
        PipelineSpec spec;
        spec.totalBytes = 12ull << 20;
        spec.chunks = 3;
        spec.streams = 3;
        spec.kernelType = KernelType::Memory;
        spec.blocks = 7;
        spec.threadsPerBlock = 96;
        generatePipeline(w, spec);
        for (int c = 0; c < 3; ++c) {
            const OpSpec &k = w.streams[std::size_t(c)].ops[1];
            QCOMPARE(k.type, OpType::Kernel);
            QCOMPARE(k.kernelType, KernelType::Memory);
            QCOMPARE(k.buffer, std::string("d_data"));
            QCOMPARE(quint64(k.bytes), quint64(4ull << 20));
            QCOMPARE(quint64(k.dstOffset), quint64(4ull << 20) * quint64(c));
            QCOMPARE(qint64(k.durationNs), qint64(0));
            QCOMPARE(k.blocks, 7);
            QCOMPARE(k.threadsPerBlock, 96);
            QCOMPARE(k.name, "memory kernel 4 MiB [c" + std::to_string(c) + "]");
        }
    }

    void computeKernelDuration()
    {
        Workload w;
        PipelineSpec spec;
        spec.chunks = 2;
        spec.streams = 1;
        spec.kernelNs = 1'500'000;
        generatePipeline(w, spec);
        const OpSpec &k = w.streams[0].ops[4];
        QCOMPARE(qint64(k.durationNs), qint64(1'500'000));
        QCOMPARE(k.name, std::string("kernel 1.5 ms [c1]"));
    }

    void provenance()
    {
        Workload w;
        PipelineSpec spec;
        spec.chunks = 2;
        spec.streams = 2;
        generatePipeline(w, spec, "/variants/3/pipeline", 17);
        for (const StreamSpec &s : w.streams)
            for (const OpSpec &op : s.ops) {
                QCOMPARE(op.jsonPath, std::string("/variants/3/pipeline"));
                QCOMPARE(op.line, 17);
            }
        Workload d;
        generatePipeline(d, spec);
        QCOMPARE(d.streams[0].ops[0].jsonPath, std::string("/pipeline"));
        QCOMPARE(d.streams[0].ops[0].line, 0);
    }

    // Generated names are describe()'s with the chunk's tag.
    void namesAgreeWithDescribe()
    {
        Workload w;
        PipelineSpec spec;
        spec.chunks = 6;
        spec.streams = 4;
        spec.totalBytes = 6 * 1000;
        spec.hostMemory = BufferKind::Pageable;
        generatePipeline(w, spec);
        for (const StreamSpec &s : w.streams)
            for (const OpSpec &op : s.ops)
                QCOMPARE(op.name, describe(op, w) + " [c" + std::to_string(chunkOf(op)) + "]");
    }

    // The pipeline replaces buffers, streams and schedule; the rest of the workload stays.
    void replacesWhatWasThere()
    {
        Workload w;
        w.name = "kept";
        w.warmup = 3;
        w.repetitions = 9;
        w.maxConnections = 16;
        w.buffers = {{"old", BufferKind::Managed, 1}, {"h_data", BufferKind::Pageable, 5}};
        StreamSpec old;
        old.name = "old stream";
        old.ops.resize(5);
        w.streams = {old, old, old, old, old};
        w.schedule = {{4, 4}, {0, 0}};
        PipelineSpec spec;
        spec.chunks = 2;
        spec.streams = 2;
        generatePipeline(w, spec);
        QCOMPARE(w.name, std::string("kept"));
        QCOMPARE(w.warmup, 3);
        QCOMPARE(w.repetitions, 9);
        QCOMPARE(w.maxConnections, 16);
        QCOMPARE(int(w.buffers.size()), 2);
        QVERIFY(!w.findBuffer("old"));
        QCOMPARE(w.findBuffer("h_data")->kind, BufferKind::Pinned);
        QCOMPARE(int(w.streams.size()), 2);
        QCOMPARE(w.findStream("old stream"), -1);
        QCOMPARE(int(w.opCount()), 6);
        QCOMPARE(w.schedule.size(), std::size_t(6));
    }

    void refused_data()
    {
        QTest::addColumn<int>("chunks");
        QTest::addColumn<int>("streams");
        QTest::addColumn<BufferKind>("memory");
        QTest::addColumn<QString>("message");
        QTest::newRow("no chunks") << 0 << 1 << BufferKind::Pinned << "needs at least 1 chunk";
        QTest::newRow("negative chunks") << -4 << 1 << BufferKind::Pinned << "needs at least 1 chunk";
        QTest::newRow("no streams") << 4 << 0 << BufferKind::Pinned << "needs at least 1 stream";
        QTest::newRow("negative streams") << 4 << -1 << BufferKind::Pinned << "needs at least 1 stream";
        QTest::newRow("more streams than chunks") << 4 << 5 << BufferKind::Pinned << "more streams than chunks";
        QTest::newRow("device host memory")
            << 4 << 4 << BufferKind::Device << "host memory must be pageable, pinned or registered";
        QTest::newRow("managed host memory")
            << 4 << 4 << BufferKind::Managed << "host memory must be pageable, pinned or registered";
    }
    void refused()
    {
        QFETCH(int, chunks);
        QFETCH(int, streams);
        QFETCH(BufferKind, memory);
        QFETCH(QString, message);
        PipelineSpec spec;
        spec.chunks = chunks;
        spec.streams = streams;
        spec.hostMemory = memory;
        spec.totalBytes = 4 << 20;
        Workload w;
        w.buffers = {{"mine", BufferKind::Device, 64}};
        StreamSpec s;
        s.name = "mine";
        s.ops.resize(2);
        w.streams = {s};
        w.schedule = {{0, 1}, {0, 0}};
        w.issueOrder = IssueOrder::RoundRobin;
        QString what;
        QCOMPARE(errorKindOf(w, spec, &what, "/lessons/2/pipeline"), int(ErrorKind::InvalidInput));
        QVERIFY2(what.startsWith("pipeline at /lessons/2/pipeline: "), qPrintable(what));
        QVERIFY2(what.contains(message), qPrintable(what));
        // Nothing was changed.
        QCOMPARE(int(w.buffers.size()), 1);
        QCOMPARE(w.buffers[0].name, std::string("mine"));
        QCOMPARE(int(w.streams.size()), 1);
        QCOMPARE(int(w.streams[0].ops.size()), 2);
        QCOMPARE(int(w.schedule.size()), 2);
        QCOMPARE(w.schedule[0].op, 1);
    }
};

QTEST_APPLESS_MAIN(TestPipelineGenerator)
#include "tst_pipeline_generator.moc"
