// Tests of engine/analysis/summary_metrics.h: the one list of summary metrics the CLI and the app show,
// read from the bundled examples recorded on a GPU, and per device on a hand-made trace of two GPUs.
#include <QtTest>

#include <algorithm>
#include <cmath>

#include "engine/analysis/summary_metrics.h"
#include "engine/formats/trace_io.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope::engine;

namespace {

Trace example(const char *name)
{
    return loadTrace(std::string(STREAMSCOPE_SOURCE_DIR "/resources/examples/") + name + ".sstrace");
}

const SummaryMetric *find(const std::vector<SummaryMetric> &metrics, const std::string &label)
{
    const auto it =
        std::find_if(metrics.begin(), metrics.end(), [&](const SummaryMetric &m) { return m.label == label; });
    return it == metrics.end() ? nullptr : &*it;
}

} // namespace

class TestSummaryMetrics : public QObject {
    Q_OBJECT

private slots:
    void overlapExample()
    {
        const Trace trace = example("overlap");
        const TraceSummary summary = summarize(trace);
        const auto metrics = summaryMetrics(trace, summary);
        // The same spreads summarize() gives, from the same per-repetition values.
        const SummaryMetric *makespan = find(metrics, "Makespan");
        QVERIFY(makespan);
        QCOMPARE(makespan->spread.median, summary.makespanNs.median);
        QCOMPARE(makespan->spread.min, summary.makespanNs.min);
        QCOMPARE(makespan->spread.count, summary.repetitions.size());
        QCOMPARE(find(metrics, "Efficiency")->spread.median, summary.efficiency.median);
        QVERIFY(find(metrics, "H2D bandwidth") && find(metrics, "D2H bandwidth"));
        // One busy row per stream; nothing for what the run did not do.
        for (const auto &s : trace.streams)
            QVERIFY2(find(metrics, "Busy: " + s.name), s.name.c_str());
        QVERIFY(!find(metrics, "D2D bytes"));
        QVERIFY(!find(metrics, "GPU page faults"));
        // Every value reads back through its own unit's formatter.
        for (const auto &m : metrics)
            QVERIFY2(!formatMetric(m.unit, m.spread.median).empty(), m.label.c_str());
        QCOMPARE(formatMetric(MetricUnit::Fraction, 0.5), std::string("50.0 %"));
        QCOMPARE(formatMetric(MetricUnit::Bytes, 16.0 * 1024 * 1024), std::string("16 MiB"));
        QCOMPARE(formatMetric(MetricUnit::Count, 177.4), std::string("177"));
    }

    // Launch cost (#28): the many-small-kernels lesson, recorded on an H200, launched 300 kernels of 2 us one call
    // each, and the GPU waited about 11 us after each for the next launch. The overlap lesson's streams hold no two
    // kernels one after the other: no gap row.
    void launchCostRows()
    {
        const Trace calls = example("many-small-kernels");
        const auto metrics = summaryMetrics(calls, summarize(calls));
        QCOMPARE(find(metrics, "Launch calls")->spread.median, 300.0);
        const SummaryMetric *gap = find(metrics, "Gap between kernels");
        QVERIFY(gap);
        QVERIFY2(gap->spread.median > 5'000 && gap->spread.median < 30'000,
                 qPrintable(QString::number(gap->spread.median)));
        // CUPTI's latency timestamps: each kernel started 0.67-0.69 us after its submission to the GPU, the 11 us
        // gaps being the host's launch calls, not the GPU's latency.
        const SummaryMetric *latency = find(metrics, "Kernel submitted to start");
        QVERIFY(latency);
        QVERIFY2(latency->spread.median > 300 && latency->spread.median < 2'000,
                 qPrintable(QString::number(latency->spread.median)));
        const Trace overlap = example("overlap");
        const auto rows = summaryMetrics(overlap, summarize(overlap));
        QCOMPARE(find(rows, "Launch calls")->spread.median, 12.0); // 4 chunks: H2D, kernel, D2H
        QVERIFY(!find(rows, "Gap between kernels"));

        // A graph: one launch for all its ops, and the kernels back to back.
        Trace graph = calls;
        for (Repetition &rep : graph.repetitions) {
            std::int64_t t = rep.ops.front().gpuStartNs;
            for (OpRecord &op : rep.ops) {
                op.hostStartNs = op.hostEndNs = kNoTime;
                op.flags |= OpFlagGraphNode;
                op.gpuEndNs = t + op.gpuDurationNs();
                op.gpuStartNs = t;
                t = op.gpuEndNs + 100;
            }
            HostRange launch;
            launch.startNs = rep.ops.front().gpuStartNs - 50'000;
            launch.endNs = launch.startNs + 40'000;
            launch.category = HostRangeCategory::Launch;
            launch.hostThread = 0;
            rep.hostRanges = {launch};
        }
        const auto asGraph = summaryMetrics(graph, summarize(graph));
        QCOMPARE(find(asGraph, "Launch calls")->spread.median, 1.0);
        QCOMPARE(find(asGraph, "Gap between kernels")->spread.median, 100.0);
        QCOMPARE(find(asGraph, "Host time in API calls")->spread.median, 40'000.0);
        QVERIFY(!find(asGraph, "PDL overlap")); // no kernel was launched with PDL

        // With PDL: each kernel starts 200 ns before the one ahead of it ends; the gaps close, and the overlap is
        // the PDL kernels' (the first has none before it).
        Trace pdl = graph;
        for (Repetition &rep : pdl.repetitions)
            for (std::size_t i = 0; i < rep.ops.size(); ++i) {
                OpRecord &op = rep.ops[i];
                op.flags |= OpFlagPdl;
                const std::int64_t shift = std::int64_t(i) * 300; // 100 ns gaps become 200 ns overlaps
                op.gpuStartNs -= shift;
                op.gpuEndNs -= shift;
            }
        const auto withPdl = summaryMetrics(pdl, summarize(pdl));
        QCOMPARE(find(withPdl, "Gap between kernels")->spread.median, 0.0);
        QCOMPARE(find(withPdl, "PDL overlap")->spread.median, 200.0);
    }

    void managedExampleHasUnifiedMemoryRows()
    {
        const Trace trace = example("managed");
        const auto metrics = summaryMetrics(trace, summarize(trace));
        const SummaryMetric *faults = find(metrics, "GPU page faults");
        QVERIFY(faults);
        QVERIFY(faults->spread.median > 100);
        QVERIFY(find(metrics, "Migrated to the GPU"));
        QVERIFY(!find(metrics, "H2D bytes")); // the lesson has no explicit copies
    }

    void bandwidthLeavesOutRepetitionsThatCopiedNothing()
    {
        // Repetition 0 copies nothing to the device: its H2D bandwidth does not apply (it is not 0 GB/s).
        Trace trace = example("overlap");
        for (OpRecord &op : trace.repetitions[0].ops)
            if (op.kind == OpKind::CopyH2D)
                op.kind = OpKind::Kernel;
        const TraceSummary summary = summarize(trace);
        const auto metrics = summaryMetrics(trace, summary);
        const SummaryMetric *h2d = find(metrics, "H2D bandwidth");
        QVERIFY(h2d);
        QCOMPARE(h2d->spread.count, trace.repetitions.size() - 1);
        QVERIFY(h2d->spread.min > 1);
        QVERIFY(std::isnan(h2d->value(summary.repetitions[0])));
        QCOMPARE(formatMetric(h2d->unit, h2d->value(summary.repetitions[0])), std::string("-"));
    }

    void perDeviceRowsOnTwoGpus()
    {
        const Trace trace = streamscope::test::twoGpuTrace();
        const TraceSummary summary = summarize(trace);
        const auto metrics = summaryMetrics(trace, summary);
        auto median = [&](const std::string &label) {
            const SummaryMetric *m = find(metrics, label);
            return m ? m->spread.median : -1.0;
        };
        // As worked out in trace_fixture.h.
        QCOMPARE(median("Makespan"), 750'000.0);
        QCOMPARE(median("GPU 0: busy"), 400.0 / 750.0);
        QCOMPARE(median("GPU 0: kernel time"), 200'000.0);
        QCOMPARE(median("GPU 0: copy time"), 200'000.0);
        QCOMPARE(median("GPU 0: bytes copied"), 25e6);
        QCOMPARE(median("GPU 1: busy"), 350.0 / 750.0);
        QCOMPARE(median("GPU 1: kernel time"), 200'000.0);
        QCOMPARE(median("GPU 1: copy time"), 150'000.0);
        QCOMPARE(median("GPU 1: bytes copied"), 15e6);
        QCOMPARE(median("P2P GPU 0→"
                        "1: bytes"),
                 20e6);
        QCOMPARE(median("P2P GPU 0→"
                        "1: bandwidth"),
                 200.0);
        QCOMPARE(median("P2P GPU 0→"
                        "1: of NVLink peak"),
                 200.0 / 450.0);
        QCOMPARE(median("P2P GPU 1→"
                        "0: bytes"),
                 10e6);
        QCOMPARE(median("P2P GPU 1→"
                        "0: bandwidth"),
                 200.0);
        QCOMPARE(formatMetric(MetricUnit::Fraction, median("P2P GPU 0→"
                                                           "1: of NVLink peak")),
                 std::string("44.4 %"));
        // Without the topology: the bandwidth still, no share of a peak nobody recorded.
        Trace unknown = trace;
        unknown.peerLinks.clear();
        const auto bare = summaryMetrics(unknown, summarize(unknown));
        QVERIFY(find(bare, "P2P GPU 0→"
                           "1: bandwidth"));
        QVERIFY(!find(bare, "P2P GPU 0→"
                            "1: of NVLink peak"));
        // In order: GPU 0's rows, then GPU 1's, after the per-stream rows.
        const auto at = [&](const std::string &label) {
            return std::find_if(metrics.begin(), metrics.end(),
                                [&](const SummaryMetric &m) { return m.label == label; })
                   - metrics.begin();
        };
        QVERIFY(at("Busy: gpu1 copy") < at("GPU 0: busy"));
        QVERIFY(at("GPU 0: bytes copied") < at("GPU 1: busy"));
        QVERIFY(at("GPU 1: bytes copied") < at("P2P GPU 0→"
                                               "1: bytes"));
        QVERIFY(at("P2P GPU 0→"
                   "1: of NVLink peak")
                < at("P2P GPU 1→"
                     "0: bytes"));
        const auto &links = summary.repetitions[0].peerLinks;
        QCOMPARE(links.size(), std::size_t(2));
        QCOMPARE(links[0].copies, 1);
        QCOMPARE(links[0].busyNs, std::int64_t(100'000));
        QVERIFY(links[1].link == LinkType::NvLink);
        const auto &devices = summary.repetitions[0].devices;
        QCOMPARE(devices.size(), std::size_t(2));
        QCOMPARE(devices[1].device, 1);
        QCOMPARE(devices[1].ops, 3);
        QCOMPARE(devices[1].d2hBytes, std::uint64_t(5'000'000));
        QCOMPARE(devices[0].h2dBytes, std::uint64_t(5'000'000));

        // One GPU (the bundled examples, or this trace on one device): no per-device rows at all.
        Trace one = trace;
        for (StreamInfo &s : one.streams)
            s.device = 0;
        const auto single = summaryMetrics(one, summarize(one));
        QVERIFY(std::none_of(single.begin(), single.end(),
                             [](const SummaryMetric &m) { return m.label.rfind("GPU 0:", 0) == 0; }));
        QVERIFY(summarize(one).repetitions[0].devices.empty());
    }

    // Collectives count as communication, classified by their kind (the call), not by kernel names: per GPU
    // the union of their executions, the part with a kernel beside them on the same GPU, and nccl-tests' bus
    // bandwidth. A trace without collectives has none of these rows.
    void communicationRows()
    {
        using streamscope::test::TraceBuilder;
        TraceBuilder b;
        b.device("GPU A").device("GPU B").thread("main");
        b.stream("compute0", 0).kernel(0, 1'000);
        b.stream("comm0", 0).op(OpKind::Collective, 500, 1'500, 1'000);
        b.stream("comm1", 1).op(OpKind::Collective, 500, 1'500, 1'000);
        // An NCCL kernel beside the collective on GPU 1 would be the collective's own: only other compute counts.
        b.op(OpKind::Collective, 1'400, 2'400, 1'000);
        Trace trace = b.build();
        Repetition &rep = trace.repetitions[0];
        for (int op : {1, 2, 3}) {
            KernelLaunch l;
            l.op = op;
            l.busBytes = op == 3 ? 2'000 : 1'000;
            rep.kernelLaunches.push_back(l);
        }
        const auto metrics = summaryMetrics(trace, summarize(trace));
        const SummaryMetric *time = find(metrics, "Communication time");
        QVERIFY(time);
        QCOMPARE(time->spread.median, 1'000.0 + 1'900.0); // GPU 0's 1,000 ns, GPU 1's union of 1,900
        QCOMPARE(find(metrics, "Communication beside compute")->spread.median, 500.0 / 2'900.0);
        QCOMPARE(find(metrics, "Collective bus bandwidth")->spread.median, (1.0 + 1.0 + 2.0) / 3);
        QVERIFY(!find(summaryMetrics(streamscope::test::twoGpuTrace(), summarize(streamscope::test::twoGpuTrace())),
                      "Communication time"));
    }

    void emptyTraceHasNone()
    {
        const Trace empty;
        QVERIFY(summaryMetrics(empty, summarize(empty)).empty());
    }
};

QTEST_APPLESS_MAIN(TestSummaryMetrics)
#include "tst_summary_metrics.moc"
