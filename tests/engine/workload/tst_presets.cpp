// Tests of the lesson presets in resources/workloads: every file parses, has a name and a one-paragraph
// "what to look for" description, round-trips through workloadToJson, stays well under 2 s on a
// modest GPU by a conservative estimate, and builds the situation its lesson is about.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <set>

#include <QDir>
#include <QFileInfo>

#include "engine/analysis/op_query.h"
#include "engine/formats/trace_io.h"
#include "engine/model/units.h"
#include "engine/run/run_plan.h"
#include "engine/workload/workload_parser.h"
#include "tests/engine/workload/workload_compare.h"

using namespace streamscope::engine;
using streamscope::engine::testing::compareWorkloads;

namespace {

QString presetDir()
{
    return QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads");
}

Workload loadPreset(const QString &fileName)
{
    return loadWorkloadFile((presetDir() + '/' + fileName).toStdString());
}

// A pessimistic model of a run: every op one after another (no overlap at all) on a slow system:
// PCIe 3.0 with pageable copies at 5 GB/s and pinned at 10 GB/s, managed memory faulting at
// 2 GB/s, 40 SMs of 2048 resident threads, 10 µs of overhead per op. Buffers are allocated and
// touched once. If this stays under the budget, a real GPU is far under it.
double estimatedSeconds(const Workload &w)
{
    constexpr double pageableBps = 5e9, pinnedBps = 10e9, managedBps = 2e9, deviceBps = 200e9;
    constexpr double residentThreads = 40 * 2048, opOverhead = 10e-6;
    constexpr double slowTensorFlops = 50e12; // a T4's fp16 tensor cores: 65 TFLOP/s at best
    const auto copyRate = [&](const OpSpec &op) {
        const BufferSpec *src = w.findBuffer(op.src), *dst = w.findBuffer(op.dst);
        double rate = deviceBps;
        for (const BufferSpec *b : {src, dst}) {
            if (b->kind == BufferKind::Pageable)
                rate = std::min(rate, pageableBps);
            else if (b->kind == BufferKind::Pinned || b->kind == BufferKind::Registered)
                rate = std::min(rate, pinnedBps);
            else if (b->kind == BufferKind::Managed)
                rate = std::min(rate, managedBps);
        }
        return rate;
    };
    double perRep = 0;
    for (const StreamSpec &s : w.streams)
        for (const OpSpec &op : s.ops) {
            perRep += opOverhead;
            switch (op.type) {
            case OpType::Copy: perRep += double(op.bytes) / copyRate(op); break;
            case OpType::Kernel:
                if (op.kernelType == KernelType::Gemm) {
                    perRep += double(op.gemm.flops()) / slowTensorFlops;
                } else if (op.kernelType == KernelType::Compute) {
                    const double waves = std::ceil(double(op.blocks) * op.threadsPerBlock / residentThreads);
                    perRep += waves * double(op.durationNs) * 1e-9;
                } else {
                    const bool managed = w.findBuffer(op.buffer)->kind == BufferKind::Managed;
                    perRep += double(op.bytes) / (managed ? managedBps : deviceBps);
                }
                break;
            case OpType::Memset: perRep += double(op.bytes) / deviceBps; break;
            case OpType::Prefetch: perRep += double(op.bytes) / managedBps; break;
            case OpType::HostWork: perRep += double(op.hostNs) * 1e-9; break;
            default: break;
            }
        }
    double setup = 0.1; // context, calibration
    for (const BufferSpec &b : w.buffers)
        setup += double(b.bytes) / pageableBps; // allocate, pin or touch once
    return setup + perRep * (w.warmup + w.repetitions);
}

const OpSpec &op(const Workload &w, const ScheduledOp &so)
{
    return w.streams.at(so.stream).ops.at(so.op);
}

} // namespace

class TestPresets : public QObject {
    Q_OBJECT

private slots:
    void everyLessonHasAPreset();
    void parsesAndRoundTrips_data();
    void parsesAndRoundTrips();
    void bandwidth();
    void syncVsAsync();
    void overlapPipelines();
    void concurrentKernels();
    void defaultStream();
    void eventDependencies();
    void managed();
    void priorities();
    void perThreadDefaultStream();
    void peerCopies();
    void threadPerGpu();
    void keyFigures_data();
    void keyFigures();
};

void TestPresets::everyLessonHasAPreset()
{
    const QStringList files = QDir(presetDir()).entryList({"*.json"}, QDir::Files);
    for (const char *name :
         {"bandwidth.json", "sync-vs-async.json", "overlap.json", "overlap-breadth-first.json",
          "overlap-sequential.json", "concurrent-kernels.json", "default-stream.json", "event-dependencies.json",
          "managed.json", "priorities.json", "per-thread-default-stream.json", "peer-copies.json",
          "thread-per-gpu.json", "overlap-not-free.json"})
        QVERIFY2(files.contains(QString::fromLatin1(name)), name);
}

void TestPresets::parsesAndRoundTrips_data()
{
    QTest::addColumn<QString>("file");
    const QStringList files = QDir(presetDir()).entryList({"*.json"}, QDir::Files, QDir::Name);
    QVERIFY(!files.isEmpty());
    for (const QString &f : files)
        QTest::newRow(qPrintable(f)) << f;
}

void TestPresets::parsesAndRoundTrips()
{
    QFETCH(QString, file);
    Workload w;
    try {
        w = loadPreset(file);
    } catch (const Error &e) {
        QFAIL(e.what());
    }
    QVERIFY(!w.name.empty());
    QVERIFY2(w.name != QFileInfo(file).completeBaseName().toStdString(), "the preset names itself for the GUI");
    // One paragraph a teacher can read out: several sentences, no blank line.
    QVERIFY2(w.description.size() >= 300, w.description.c_str());
    QVERIFY2(w.description.find('\n') == std::string::npos, "the description is one paragraph");
    QVERIFY(w.opCount() > 0);

    const std::string json = workloadToJson(w);
    const Workload back = parseWorkload(json, "normalised.json");
    compareWorkloads(back, w);
    QCOMPARE(workloadToJson(back), json);

    const double seconds = estimatedSeconds(w);
    QVERIFY2(seconds < 1.5, qPrintable(QStringLiteral("%1: estimated %2 s on a slow system").arg(file).arg(seconds)));
    QVERIFY2(w.deviceBytes() <= (1ull << 30), "fits any GPU");
    // A GEMM's operands and workspace are the runner's: with them, a GEMM lesson still fits any GPU with
    // bf16 tensor cores (compute capability 8.0 and later: 4 GiB and more).
    std::uint64_t gemmBytes = 0;
    for (const BufferSpec &b : gemmBuffers(w, -1, w.device))
        gemmBytes += b.bytes;
    QVERIFY2(w.deviceBytes() + gemmBytes <= (2ull << 30), "fits any GPU with bf16 tensor cores");
}

void TestPresets::bandwidth()
{
    const Workload w = loadPreset("bandwidth.json");
    std::map<BufferKind, std::set<std::uint64_t>> h2dSizes, d2hSizes;
    for (const StreamSpec &s : w.streams)
        for (const OpSpec &o : s.ops)
            if (o.type == OpType::Copy) {
                QCOMPARE(o.api, CopyApi::Async);
                if (o.direction == CopyDirection::H2D)
                    h2dSizes[w.findBuffer(o.src)->kind].insert(o.bytes);
                else if (o.direction == CopyDirection::D2H)
                    d2hSizes[w.findBuffer(o.dst)->kind].insert(o.bytes);
            }
    for (const std::uint64_t size : {4ull << 10, 64ull << 10, 1ull << 20, 16ull << 20, 256ull << 20})
        for (const BufferKind kind : {BufferKind::Pageable, BufferKind::Pinned}) {
            QVERIFY2(h2dSizes[kind].count(size), (formatBytes(size) + " H2D " + std::string(toString(kind))).c_str());
            QVERIFY2(d2hSizes[kind].count(size), (formatBytes(size) + " D2H " + std::string(toString(kind))).c_str());
        }
    // The pinned lane must not share the link with the pageable one: it waits for its end.
    QCOMPARE(w.streams.size(), std::size_t(2));
    QCOMPARE(w.streams[0].ops.back().type, OpType::EventRecord);
    QCOMPARE(w.streams[1].ops.front().type, OpType::EventWait);
    QCOMPARE(w.streams[1].ops.front().event, w.streams[0].ops.back().event);
    QVERIFY(w.repetitions <= 3);
}

void TestPresets::syncVsAsync()
{
    const Workload w = loadPreset("sync-vs-async.json");
    int syncPinned = 0, asyncPinned = 0, asyncPageable = 0, hostWork = 0;
    for (const StreamSpec &s : w.streams)
        for (const OpSpec &o : s.ops) {
            hostWork += o.type == OpType::HostWork;
            if (o.type != OpType::Copy)
                continue;
            const BufferKind host = w.findBuffer(o.src)->kind;
            syncPinned += o.api == CopyApi::Sync && host == BufferKind::Pinned;
            asyncPinned += o.api == CopyApi::Async && host == BufferKind::Pinned;
            asyncPageable += o.api == CopyApi::Async && host == BufferKind::Pageable;
        }
    QVERIFY(syncPinned >= 1 && asyncPinned >= 1 && asyncPageable >= 1);
    QVERIFY(hostWork >= 3);
    // cudaMemcpy runs on the legacy default stream: the stream must be a blocking one for it to wait.
    QCOMPARE(w.streams.at(0).flags, StreamFlags::Default);
    QCOMPARE(w.defaultStream, DefaultStreamMode::Legacy);
}

void TestPresets::overlapPipelines()
{
    const Workload depth = loadPreset("overlap.json");
    const Workload breadth = loadPreset("overlap-breadth-first.json");
    const Workload sequential = loadPreset("overlap-sequential.json");

    std::int64_t kernelNs[3] = {0, 0, 0};
    const Workload *all[3] = {&depth, &breadth, &sequential};
    for (int i = 0; i < 3; ++i) {
        const Workload &w = *all[i];
        QCOMPARE(w.findBuffer("h_data")->bytes, std::uint64_t(16) << 20);
        QCOMPARE(w.findBuffer("h_data")->kind, BufferKind::Pinned);
        for (const StreamSpec &s : w.streams)
            for (const OpSpec &o : s.ops)
                if (o.type == OpType::Kernel)
                    kernelNs[i] += o.durationNs;
    }
    // The same work in all three: only the split and the issue order differ.
    QCOMPARE(kernelNs[0], kernelNs[2]);
    QCOMPARE(kernelNs[1], kernelNs[2]);

    for (const Workload *w : {&depth, &breadth}) {
        QCOMPARE(w->streams.size(), std::size_t(4));
        QCOMPARE(w->opCount(), std::size_t(12));
        for (const StreamSpec &s : w->streams) {
            QCOMPARE(s.ops.size(), std::size_t(3));
            QCOMPARE(s.ops[0].bytes, std::uint64_t(4) << 20);
            // About 60 µs per chunk: comparable to a 4 MiB copy on PCIe 4/5, as in Harris's article.
            QVERIFY(s.ops[1].durationNs >= 40'000 && s.ops[1].durationNs <= 100'000);
        }
    }
    // Depth-first: H2D, K, D2H of chunk 0, then of chunk 1, ...
    for (std::size_t i = 0; i < depth.schedule.size(); ++i) {
        QCOMPARE(depth.schedule[i].stream, int(i / 3));
        QCOMPARE(depth.schedule[i].op, int(i % 3));
    }
    // Breadth-first: all H2D, then all kernels, then all D2H.
    for (std::size_t i = 0; i < breadth.schedule.size(); ++i) {
        QCOMPARE(breadth.schedule[i].stream, int(i % 4));
        QCOMPARE(breadth.schedule[i].op, int(i / 4));
        const OpType expected = i / 4 == 1 ? OpType::Kernel : OpType::Copy;
        QCOMPARE(op(breadth, breadth.schedule[i]).type, expected);
    }
    QCOMPARE(sequential.streams.size(), std::size_t(1));
    QCOMPARE(sequential.opCount(), std::size_t(3));
    QCOMPARE(sequential.streams[0].ops[0].bytes, std::uint64_t(16) << 20);
}

void TestPresets::concurrentKernels()
{
    const Workload w = loadPreset("concurrent-kernels.json");
    QCOMPARE(w.streams.size(), std::size_t(8));
    std::set<std::string> names;
    for (const StreamSpec &s : w.streams) {
        names.insert(s.name);
        QVERIFY(!s.useDefaultStream);
        QCOMPARE(s.flags, StreamFlags::NonBlocking);
        QCOMPARE(s.ops.size(), std::size_t(1));
        QCOMPARE(s.ops[0].kernelType, KernelType::Compute);
        QCOMPARE(s.ops[0].durationNs, std::int64_t(1'000'000));
        // Small enough that eight fit on any GPU at once.
        QVERIFY(s.ops[0].blocks * s.ops[0].threadsPerBlock <= 1024);
    }
    QCOMPARE(names.size(), std::size_t(8));
}

void TestPresets::defaultStream()
{
    const Workload w = loadPreset("default-stream.json");
    QCOMPARE(w.defaultStream, DefaultStreamMode::Legacy);
    int onDefault = 0, blocking = 0, nonBlocking = 0;
    for (const StreamSpec &s : w.streams) {
        if (s.useDefaultStream)
            ++onDefault;
        else if (s.flags == StreamFlags::Default)
            ++blocking;
        else
            ++nonBlocking;
    }
    QCOMPARE(onDefault, 1);
    QVERIFY(blocking >= 2);
    QVERIFY(nonBlocking >= 1);
    // The default stream's kernel must be issued between two blocking streams' kernels.
    const auto &order = w.schedule;
    const auto defaultPos = std::find_if(order.begin(), order.end(),
                                         [&](const ScheduledOp &so) { return w.streams[so.stream].useDefaultStream; });
    QVERIFY(defaultPos != order.begin() && defaultPos != order.end() && defaultPos + 1 != order.end());
    QCOMPARE(w.streams[(defaultPos - 1)->stream].flags, StreamFlags::Default);
    QCOMPARE(w.streams[(defaultPos + 1)->stream].flags, StreamFlags::Default);
}

void TestPresets::eventDependencies()
{
    const Workload w = loadPreset("event-dependencies.json");
    int waits = 0, eventSyncs = 0;
    for (const StreamSpec &s : w.streams)
        for (const OpSpec &o : s.ops) {
            waits += o.type == OpType::EventWait;
            eventSyncs += o.type == OpType::Sync && o.syncTarget == SyncTarget::Event;
        }
    QVERIFY(waits >= 2);
    QVERIFY(eventSyncs >= 1);
    QVERIFY(w.streams.size() >= 3);
}

void TestPresets::managed()
{
    const Workload w = loadPreset("managed.json");
    QVERIFY(w.managedBytes() > 0);
    QVERIFY(w.managedBytes() <= (256ull << 20));
    for (const BufferSpec &b : w.buffers)
        QVERIFY(b.bytes <= (256ull << 20));
    bool prefetchToDevice = false, prefetchToHost = false, advise = false;
    std::set<std::string> kernelBuffers;
    for (const StreamSpec &s : w.streams)
        for (const OpSpec &o : s.ops) {
            prefetchToDevice |= o.type == OpType::Prefetch && o.location >= 0;
            prefetchToHost |= o.type == OpType::Prefetch && o.location < 0;
            advise |= o.type == OpType::Advise;
            if (o.type == OpType::Kernel && o.kernelType == KernelType::Memory) {
                QCOMPARE(w.findBuffer(o.buffer)->kind, BufferKind::Managed);
                kernelBuffers.insert(o.buffer);
            }
        }
    QVERIFY(prefetchToDevice && prefetchToHost && advise);
    QCOMPARE(kernelBuffers.size(), std::size_t(3)); // faults, prefetch, advice: one buffer each
}

void TestPresets::priorities()
{
    const Workload w = loadPreset("priorities.json");
    std::set<int> priorities;
    for (const StreamSpec &s : w.streams)
        priorities.insert(s.priority);
    QVERIFY(priorities.size() >= 2);
    QVERIFY(*priorities.begin() < 0); // a more urgent stream than the default 0
    // The low-priority backlog must be bigger than the GPU, or there is nothing to jump ahead of.
    const StreamSpec &bulk = w.streams.at(0);
    QCOMPARE(bulk.priority, 0);
    QVERIFY(bulk.ops.size() >= 2);
    QVERIFY(std::int64_t(bulk.ops[0].blocks) * bulk.ops[0].threadsPerBlock >= 132 * 2048);
}

// Two host threads, each issuing its kernels to "the default stream": one stream in legacy mode, one
// per thread in per-thread mode; the lesson compares the two.
void TestPresets::perThreadDefaultStream()
{
    const Workload w = loadPreset("per-thread-default-stream.json");
    QCOMPARE(w.defaultStream, DefaultStreamMode::Legacy);
    QCOMPARE(w.compare, std::vector<std::string>{"defaultStream=legacy,per-thread"});
    QCOMPARE(w.threadCount(), 2);
    QCOMPARE(w.usedDevices(), std::vector<int>{0});
    for (const StreamSpec &s : w.streams) {
        QVERIFY(s.useDefaultStream);
        QCOMPARE(int(s.ops.size()), 4);
        for (const OpSpec &op : s.ops) {
            QCOMPARE(op.type, OpType::Kernel);
            // Small enough that the two threads' kernels fit on the GPU together.
            QVERIFY(op.blocks * op.threadsPerBlock <= 1024);
        }
    }
    // Each thread drives one of the two streams.
    QCOMPARE(int(w.threads.size()), 2);
    QCOMPARE(w.threads[0].streams.size(), std::size_t(1));
    QVERIFY(w.threads[0].streams != w.threads[1].streams);
}

// Every copy is a peer copy, both directions, on a stream of the sending GPU; the lesson compares
// peer access on and off.
void TestPresets::peerCopies()
{
    const Workload w = loadPreset("peer-copies.json");
    QCOMPARE(w.usedDevices(), (std::vector<int>{0, 1}));
    QCOMPARE(w.peerAccess, PeerAccess::On);
    QCOMPARE(w.compare, std::vector<std::string>{"peerAccess=on,off"});
    std::set<std::pair<int, int>> directions;
    for (std::size_t s = 0; s < w.streams.size(); ++s)
        for (const OpSpec &op : w.streams[s].ops) {
            QCOMPARE(op.direction, CopyDirection::P2P);
            const int src = w.bufferDevice(*w.findBuffer(op.src));
            const int dst = w.bufferDevice(*w.findBuffer(op.dst));
            QCOMPARE(w.streamDevice(int(s)), src);
            directions.insert({src, dst});
        }
    QCOMPARE(directions, (std::set<std::pair<int, int>>{{0, 1}, {1, 0}}));
}

// One host thread per GPU, each driving the same pipeline on its own GPU; the lesson compares 2 GPUs
// with the same work folded onto one.
void TestPresets::threadPerGpu()
{
    const Workload w = loadPreset("thread-per-gpu.json");
    QCOMPARE(w.usedDevices(), (std::vector<int>{0, 1}));
    QCOMPARE(w.compare, std::vector<std::string>{"devices=2,1"});
    QCOMPARE(w.threadCount(), 2);
    for (int t = 0; t < 2; ++t) {
        QCOMPARE(w.threadDevice(t), t);
        QCOMPARE(w.threads[std::size_t(t)].streams.size(), std::size_t(1));
        const int s = w.threads[std::size_t(t)].streams[0];
        QCOMPARE(w.streamDevice(s), t);
        // The same pipeline on each: H2D, kernel, D2H per chunk.
        QCOMPARE(w.streams[std::size_t(s)].ops.size(), w.streams[0].ops.size());
    }
}

void TestPresets::keyFigures_data()
{
    QTest::addColumn<QString>("file");
    for (const QString &f : QDir(presetDir()).entryList({QStringLiteral("*.json")}, QDir::Files))
        QTest::newRow(qPrintable(f)) << f;
}

// Every lesson names the one figure to look at, and in its recorded example that figure is there: the
// ops it outlines exist in every repetition, of the kind it names.
void TestPresets::keyFigures()
{
    QFETCH(QString, file);
    const Workload w = loadPreset(file);
    QVERIFY2(!w.keyFigure.caption.empty(), "no keyFigure caption");
    QVERIFY2(w.keyFigure.caption.size() < 140, "a key figure is one line on a slide");
    QVERIFY2(!w.keyFigure.kind.empty() || !w.keyFigure.name.empty() || !w.keyFigure.lane.empty(),
             "the key figure outlines nothing");
    const QString example =
        QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/") + QFileInfo(file).completeBaseName() + ".sstrace";
    const std::vector<int> devices = w.usedDevices();
    if (!QFileInfo::exists(example) && devices.size() > 1) {
        // A lesson for several GPUs is recorded on a host that has them; until it is, its text must say
        // what it needs, since on a one-GPU machine the lesson list shows it without an example.
        QVERIFY2(w.description.find("needs two GPUs") != std::string::npos, w.description.c_str());
        return;
    }
    QVERIFY2(QFileInfo::exists(example), qPrintable(example + " is missing"));
    const Trace trace = loadTrace(example.toStdString());
    OpQuery query;
    query.text = w.keyFigure.name;
    query.lane = w.keyFigure.lane;
    if (!w.keyFigure.kind.empty())
        query.kind = opKindFromString(w.keyFigure.kind);
    for (int rep = 0; rep < int(trace.repetitions.size()); ++rep) {
        const std::vector<int> ops = findOps(trace, rep, query);
        QVERIFY2(!ops.empty(), qPrintable(QStringLiteral("repetition %1: the key figure finds no op").arg(rep)));
        for (const int op : ops)
            if (query.kind)
                QCOMPARE(trace.repetitions[std::size_t(rep)].ops[std::size_t(op)].kind, *query.kind);
    }
}

QTEST_APPLESS_MAIN(TestPresets)
#include "tst_presets.moc"
