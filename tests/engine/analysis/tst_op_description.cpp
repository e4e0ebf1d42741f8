// describeOp(): what the tooltip, the details panel and `streamscope-cli describe` say about an op, on the
// hand-made traces whose every figure is known (tests/engine/trace_fixture.h).
#include <QtTest>

#include <cstdio>

#include "engine/analysis/op_description.h"
#include "engine/model/errors.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope;
using engine::OpDescription;

class TestOpDescription : public QObject {
    Q_OBJECT
private slots:
    void copyOnTheRepetitionsAxis()
    {
        const engine::Trace t = test::handTrace(3);
        // D: D2H s1, repetition 1 (times doubled from 10 ms): GPU [10500, 10700) us, host [10012, 10704) us.
        const OpDescription d = engine::describeOp(t, 1, 3);
        QCOMPARE(d.name, std::string("D: D2H 2 MB"));
        QCOMPARE(d.kind, std::string_view("D2H copy"));
        QVERIFY(d.copy);
        QVERIFY(d.stream == &t.streams[1]);
        QCOMPARE(d.workloadIndex, 3);
        QVERIFY(d.host && d.gpu);
        QCOMPARE(d.host->startNs, std::int64_t(12'000));
        QCOMPARE(d.host->endNs, std::int64_t(704'000));
        QCOMPARE(d.host->durationNs, std::int64_t(692'000));
        QVERIFY(d.hostBlocking);
        QCOMPARE(d.gpu->startNs, std::int64_t(500'000));
        QCOMPARE(d.gpu->endNs, std::int64_t(700'000));
        QCOMPARE(d.gpu->durationNs, std::int64_t(200'000));
        QVERIFY(!d.cupti);
        QCOMPARE(d.timedBy, std::string("CUDA events"));
        QVERIFY(!d.streamReadyNs);
        QVERIFY(d.queueCause.empty());
        QCOMPARE(d.bytes, std::uint64_t(2'000'000));
        QCOMPARE(d.gbs, 10.0);
        QCOMPARE(d.srcMem, std::string_view("device"));
        QCOMPARE(d.dstMem, std::string_view("pinned"));
        QCOMPARE(d.copyCall, std::string_view("cudaMemcpyAsync"));
        QVERIFY(!d.range && !d.launch);

        const OpDescription kernel = engine::describeOp(t, 0, 1);
        QCOMPARE(kernel.kind, std::string_view("kernel"));
        QVERIFY(!kernel.copy && !kernel.hostBlocking);
        QVERIFY(kernel.copyCall.empty());
    }

    // A kernel launched with PDL: how its start met the end of the op before it on its stream.
    void programmaticDependentLaunch()
    {
        engine::Trace t = test::handTrace(1);
        engine::Repetition &rep = t.repetitions[0];
        // B (kernel, s0) follows A (H2D copy, s0, ends at 100 us); C is the first op on s1.
        rep.ops[1].flags |= engine::OpFlagPdl;
        rep.ops[2].flags |= engine::OpFlagPdl;
        QVERIFY(engine::describeOp(t, 0, 0).pdl.empty()); // not launched with PDL
        engine::PdlOverlap o = engine::pdlOverlap(rep, 1);
        QCOMPARE(o.before, 0);
        QCOMPARE(o.overlapNs, std::int64_t(0));
        std::string text = engine::describeOp(t, 0, 1).pdl;
        QVERIFY2(text.find("started 0 ns after 'A: H2D 1 MB' (op #0) ended") != std::string::npos, text.c_str());
        QVERIFY2(text.find("follows a H2D copy") != std::string::npos, text.c_str());

        rep.ops[0].kind = engine::OpKind::Kernel;
        rep.ops[0].gpuEndNs = 100'300;
        o = engine::pdlOverlap(rep, 1);
        QCOMPARE(o.overlapNs, std::int64_t(300));
        text = engine::describeOp(t, 0, 1).pdl;
        QVERIFY2(text.find("started 300 ns before 'A: H2D 1 MB' (op #0) ended, and waited for it") != std::string::npos,
                 text.c_str());
        rep.ops[0].gpuEndNs = 99'000;
        text = engine::describeOp(t, 0, 1).pdl;
        QVERIFY2(text.find(" after 'A: H2D 1 MB' (op #0) ended") != std::string::npos
                     && text.find("overlapping none of it") != std::string::npos,
                 text.c_str());

        QCOMPARE(engine::pdlOverlap(rep, 2).before, -1);
        text = engine::describeOp(t, 0, 2).pdl;
        QVERIFY2(text.find("nothing to overlap") != std::string::npos, text.c_str());
        QVERIFY(engine::formatOpDescription(t, engine::describeOp(t, 0, 2)).find("pdl: launched with")
                != std::string::npos);
    }

    void whatTimedIt()
    {
        engine::Trace t = test::handTrace(1);
        t.timing = engine::TimingSource::Cupti;
        t.repetitions[0].ops[0].readyNs = 1'000;
        OpDescription d = engine::describeOp(t, 0, 0);
        QVERIFY(d.cupti);
        QCOMPARE(d.timedBy, std::string("CUPTI"));
        QCOMPARE(d.streamReadyNs, std::optional<std::int64_t>(1'000));
        t.repetitions[0].ops[0].flags = engine::OpFlagEventTimed; // CUPTI's record never came
        d = engine::describeOp(t, 0, 0);
        QVERIFY(!d.cupti);
        QCOMPARE(d.timedBy, std::string("CUDA events"));
        QVERIFY(!d.streamReadyNs);
        t.timing = engine::TimingSource::Profiler;
        t.source = engine::TraceSource::NsysSqlite;
        QCOMPARE(engine::describeOp(t, 0, 0).timedBy, std::string("Nsight Systems"));
    }

    // A GEMM's arithmetic: its rate over the execution, the kernels cuBLAS chose, what the work is.
    void kernelWork()
    {
        engine::Trace t = test::handTrace(1);
        // Op 1, the kernel (handTrace's B), ran 2 x 4096^3 operations: 137 GFLOP.
        engine::KernelLaunch l;
        l.op = 1;
        l.flops = 2ull * 4096 * 4096 * 4096;
        l.workId = t.intern("GEMM 4096x4096x4096 bf16");
        l.fullNameId = t.intern("nvjet_tst_256x128 + splitKreduce_kernel");
        t.repetitions[0].kernelLaunches = {l};
        const OpDescription d = engine::describeOp(t, 0, 1);
        QVERIFY(d.launch);
        QVERIFY(d.gpu);
        const double expected = double(l.flops) / double(d.gpu->durationNs) / 1e3;
        QCOMPARE(d.teraflops, expected);
        const std::string text = engine::formatOpDescription(t, d);
        char line[96];
        std::snprintf(line, sizeof line, "\nwork: GEMM 4096x4096x4096 bf16, 137 GFLOP, %.1f TFLOP/s\n", expected);
        QVERIFY2(text.find(line) != std::string::npos, text.c_str());
        QVERIFY2(text.find("\nkernel: nvjet_tst_256x128 + splitKreduce_kernel\n") != std::string::npos, text.c_str());
        QCOMPARE(d.kernelTeraflops, 0.0); // no pieces: the op is its kernel
        // As pieces, its two kernels ran 180 of its 200 µs (withPieces): their rate beside the call's.
        const engine::Trace pieced = test::withPieces(t);
        const OpDescription e = engine::describeOp(pieced, 0, 1);
        QCOMPARE(e.kernelTeraflops, double(l.flops) / 180'000.0 / 1e3);
        std::snprintf(line, sizeof line, ", %.1f TFLOP/s (%.1f over its kernels)\n", expected, e.kernelTeraflops);
        QVERIFY2(engine::formatOpDescription(pieced, e).find(line) != std::string::npos,
                 engine::formatOpDescription(pieced, e).c_str());
        QCOMPARE(engine::formatFlops(999), std::string("999 FLOP"));
        QCOMPARE(engine::formatFlops(1'500'000'000), std::string("1.5 GFLOP"));
        QCOMPARE(engine::formatFlops(2'200'000'000'000'000ull), std::string("2.2 PFLOP"));
        // No execution, no rate.
        t.repetitions[0].ops[1].gpuStartNs = t.repetitions[0].ops[1].gpuEndNs = engine::kNoTime;
        QCOMPARE(engine::describeOp(t, 0, 1).teraflops, 0.0);
    }

    // One vocabulary: the kind's label ("P2P copy", not "p2p"), and a peer copy's call is the peer one.
    void peerCopy()
    {
        const engine::Trace t = test::twoGpuTrace();
        const OpDescription d = engine::describeOp(t, 0, 2);
        QCOMPARE(d.kind, std::string_view("P2P copy"));
        QCOMPARE(d.copyCall, std::string_view("cudaMemcpyPeerAsync"));
        const std::string text = engine::formatOpDescription(t, d);
        QVERIFY2(text.starts_with("C: P2P 20 MB\nkind: P2P copy\nstream: gpu0 copy\nop: #2\n"), text.c_str());
        QVERIFY2(text.find("\ncall: cudaMemcpyPeerAsync\n") != std::string::npos, text.c_str());
        QVERIFY2(text.find("\nmemory: device -> device\n") != std::string::npos, text.c_str());
    }

    // An op that ran as several records: what they were, how much of the op they covered, and each piece from
    // the op's start.
    void pieces()
    {
        const engine::Trace t = test::withPieces(test::handTrace(1));
        const OpDescription d = engine::describeOp(t, 0, 1); // two kernels: 80 µs, a 20 µs gap, 100 µs
        QCOMPARE(d.pieces.size(), std::size_t(2));
        QCOMPARE(d.piecesSummary, std::string("2 kernels; busy 180 µs of its 200 µs"));
        const std::string text = engine::formatOpDescription(t, d);
        QVERIFY2(text.find("\nran as: 2 kernels; busy 180 µs of its 200 µs\n"
                           "  piece 1: +0 ns, 80 µs: kernel nvjet_tst_128x64, channel 5\n"
                           "  piece 2: +100 µs, 100 µs: kernel splitKreduce_kernel, channel 5\n")
                     != std::string::npos,
                 text.c_str());
        // A copy-engine piece: bytes, its two GPUs, its channel and rate, and no kernel.
        const OpDescription copy = engine::describeOp(t, 0, 3);
        QCOMPARE(copy.piecesSummary, std::string("1 copy on copy engines, no kernel; busy 100 µs of its 100 µs"));
        QCOMPARE(engine::describePiece(t, copy.pieces[0]),
                 std::string("copy 1.91 MiB, GPU 0 -> GPU 1, copy engine channel 12, 20 GB/s"));
        QVERIFY(engine::describeOp(t, 0, 0).piecesSummary.empty());
        QCOMPARE(engine::summarisePieces({}, 100), std::string());
    }

    void noSuchOp()
    {
        const engine::Trace t = test::handTrace(2);
        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::describeOp(t, 2, 0));
        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::describeOp(t, 0, 4));
        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::describeOp(t, -1, 0));
    }
};

QTEST_APPLESS_MAIN(TestOpDescription)
#include "tst_op_description.moc"
