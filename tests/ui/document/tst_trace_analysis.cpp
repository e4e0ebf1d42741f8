// Tests of ui::TraceAnalysis and its way to the views: analyzeTrace computes the summary, its metrics,
// the per-op statistics, the solo-baseline analysis and (given a builder) the first lanes; the loader
// computes it on its thread and hands it over whole; the document keeps what it is given (nothing is
// computed again); every view bound to the document shares the document's one interference analysis;
// the timeline shows the lanes the loader built when they fit, and builds its own when they do not.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <string>
#include <thread>

#include "engine/formats/native_format.h"
#include "engine/model/errors.h"
#include "tests/common/trace_builder.h"
#include "tests/engine/trace_fixture.h"
#include "tests/ui/test_traces.h"
#include "ui/document/trace_analysis.h"
#include "ui/document/trace_document.h"
#include "ui/document/trace_loader.h"
#include "ui/panels/details_panel.h"
#include "ui/panels/op_table_model.h"
#include "ui/panels/summary_panel.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_view.h"

using namespace streamscope;

namespace {

// Two streams with solo baselines for three rounds (as tst_lane_model's): the kernel ran 20 % slower in
// the mix than alone.
std::shared_ptr<engine::Trace> makeSoloTrace()
{
    test::TraceBuilder b;
    b.stream({"mem", 0, 1, 0, true, false}).stream({"copy", 0, 2, 0, true, false}).thread("main", 1);
    b.device(engine::DeviceInfo{});
    engine::Trace &t = b.trace();
    t.solo.parts = {"mem", "copy"};
    t.solo.streamPart = {0, 1};
    const auto us = [](std::int64_t v) { return v * 1000; };
    for (int r = 0; r < 3; ++r) {
        const std::int64_t base = r * 10'000;
        b.repetition();
        b.onStream(0).kernel(us(base), us(base + 1200 + r)).named("kernel").host(us(base - 5), us(base - 4));
        b.last().opIndex = 0;
        const engine::OpRecord k = b.last();
        b.onStream(1).d2d(us(base + 100), us(base + 1100), 1 << 20).named("copy").host(us(base - 3), us(base - 2));
        b.last().opIndex = 1;
        const engine::OpRecord c = b.last();
        for (int part = 0; part < 2; ++part) {
            engine::SoloRun run;
            run.part = part;
            run.round = r;
            engine::OpRecord op = part == 0 ? k : c;
            op.gpuStartNs = (base + 5000) * 1000;
            op.gpuEndNs = op.gpuStartNs + 1'000'000;
            run.ops = {op};
            t.solo.runs.push_back(run);
        }
    }
    return std::make_shared<engine::Trace>(t);
}

ui::LaneBuilder plainLanes()
{
    return [](const engine::Trace &trace, int repetition, const engine::InterferenceReport *interference) {
        return std::make_shared<const ui::LaneModel>(trace, repetition, ui::LaneOptions{}, interference);
    };
}

} // namespace

class TestTraceAnalysis : public QObject {
    Q_OBJECT

private slots:
    void analyzeTraceComputesEverything()
    {
        const auto trace = makeSoloTrace();
        const ui::TraceAnalysis a = ui::analyzeTrace(*trace, plainLanes());
        QCOMPARE(a.summary.repetitions.size(), std::size_t(3));
        QCOMPARE(a.opStatistics->size(), std::size_t(2));
        QVERIFY(a.interference);
        QVERIFY(a.interference->known);
        QCOMPARE(a.interference->ops.size(), std::size_t(2));
        // The metrics read the same report: the price-of-overlap rows have values.
        const auto saved = std::find_if(a.summaryMetrics.begin(), a.summaryMetrics.end(),
                                        [](const engine::SummaryMetric &m) { return m.label == "Overlap saved"; });
        QVERIFY(saved != a.summaryMetrics.end());
        QCOMPARE(saved->spread.count, 3);
        // The lanes of the repetition a document shows first, with the slowed segment the report gives.
        QVERIFY(a.lanes);
        QCOMPARE(&a.lanes->trace(), trace.get());
        QCOMPARE(a.lanes->repetition(), a.summary.medianRepetition);
        const ui::Lane &mem = a.lanes->lane(a.lanes->streamLane(0));
        QCOMPARE(mem.slowed.size(), std::size_t(1));

        // No builder: no lanes. No solo baselines: no report, and the metrics say the price is unknown.
        const auto plain = test::makePipelineTrace(3);
        const ui::TraceAnalysis p = ui::analyzeTrace(*plain);
        QVERIFY(!p.lanes);
        QVERIFY(!p.interference);
        QCOMPARE(p.opStatistics->size(), std::size_t(6));
        QVERIFY(std::any_of(p.summaryMetrics.begin(), p.summaryMetrics.end(),
                            [](const engine::SummaryMetric &m) { return m.label == "Price of overlap"; }));

        // Cancelled: it stops at its next step.
        std::atomic<bool> cancel{true};
        try {
            ui::analyzeTrace(*plain, plainLanes(), &cancel);
            QFAIL("a cancelled analysis went on");
        } catch (const engine::Error &e) {
            QCOMPARE(e.kind(), engine::ErrorKind::Cancelled);
        }
    }

    // The document shows the analysis it is given: nothing of it is computed again on the GUI thread.
    void documentKeepsTheAnalysisItIsGiven()
    {
        const auto trace = test::makePipelineTrace(3);
        ui::TraceAnalysis a = ui::analyzeTrace(*trace, plainLanes());
        a.opStatistics = std::make_shared<const std::vector<engine::OpStatistics>>(
            std::vector<engine::OpStatistics>(1)); // marked: a document that computed its own would have 6
        const ui::LaneModel *lanes = a.lanes.get();
        ui::TraceDocument document;
        document.setTrace(trace, std::move(a), QStringLiteral("pipeline"));
        QCOMPARE(document.opStatistics()->size(), std::size_t(1));
        QCOMPARE(document.repetition(), 1); // the summary's median repetition
        QCOMPARE(document.name(), QStringLiteral("pipeline"));
        // The lanes go to the first view that takes them; the document keeps none.
        const std::shared_ptr<const ui::LaneModel> taken = document.takeLanes();
        QCOMPARE(taken.get(), lanes);
        QVERIFY(!document.takeLanes());
    }

    // One analysis of the solo baselines per trace: the summary (through its metrics), the details and
    // the operations table hold the document's report rather than analysing the trace again.
    void everyViewSharesTheDocumentsInterference()
    {
        ui::TraceDocument document;
        document.setTrace(makeSoloTrace());
        const std::shared_ptr<const engine::InterferenceReport> report = document.interference();
        QVERIFY(report && report->known);
        const long alone = report.use_count();
        ui::DetailsPanel details;
        details.setDocument(&document);
        QCOMPARE(report.use_count(), alone + 1);
        ui::OpTableModel ops;
        ops.setDocument(&document);
        QCOMPARE(report.use_count(), alone + 2);
        ui::SummaryPanel summary;
        summary.setDocument(&document);
        QVERIFY(report.use_count() > alone + 2); // its rows' copies of the document's metrics
        // What they show comes from it: the kernel's slowdown in the table's "vs alone" column.
        QCOMPARE(ops.data(ops.index(0, ui::OpTableModel::AloneColumn)).toString().isEmpty(), false);
        // The timeline builds other repetitions' lanes with the same report: the slowed segment again.
        ui::TimelineView view;
        view.setDocument(&document);
        document.setRepetition(0);
        QVERIFY(view.laneModel());
        QCOMPARE(view.laneModel()->repetition(), 0);
        QCOMPARE(view.laneModel()->lane(view.laneModel()->streamLane(0)).slowed.size(), std::size_t(1));
    }

    // While the GUI thread is busy, the loader's progress waits as one figure, the newest, not as a queue
    // of every percent (each of which repainted the progress bar in turn: tens of milliseconds held at
    // once when the GUI thread came back).
    void progressWaitsAsOneFigure()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("many.json"));
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(R"({"traceEvents":[)");
            for (int i = 0; i < 120000; ++i)
                file.write(QStringLiteral(R"(%1{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%2,"dur":1,)"
                                          R"("args":{"stream":7}})")
                               .arg(i ? QStringLiteral(",") : QString())
                               .arg(i * 2)
                               .toUtf8());
            file.write("]}");
        }
        ui::TraceLoader loader;
        std::vector<std::pair<int, QString>> progress;
        connect(&loader, &ui::TraceLoader::progressChanged, this,
                [&](int, int percent, const QString &stage) { progress.emplace_back(percent, stage); });
        bool opened = false;
        connect(&loader, &ui::TraceLoader::opened, this, [&] { opened = true; });
        loader.open(path);
        QCOMPARE(progress.size(), std::size_t(1)); // "reading", 0 %, at once
        progress.clear();
        // The GUI thread busy while the file is read (it reports a figure per percent read).
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        QCoreApplication::sendPostedEvents(&loader);
        int figures = 0; // of the reading stages ("analysing" comes once, at 100 %, after them)
        int newest = 0;
        for (const auto &[percent, stage] : progress)
            if (stage != QStringLiteral("analysing")) {
                ++figures;
                newest = percent;
            }
        if (newest < 3)
            QSKIP("the file was not read far enough in 1.5 s to tell (a loaded machine)");
        QCOMPARE(figures, 1);
        QTRY_VERIFY_WITH_TIMEOUT(opened, 60000);
    }

    // A file opened by the loader arrives analysed, with the lanes the timeline would build; the timeline
    // bound to the document shows those very lanes. Lanes built with other options are not used.
    void loaderHandsTheTimelineItsLanes()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("pipeline.sstrace"));
        engine::writeNativeTrace(*test::makePipelineTrace(3), path.toStdString());

        ui::TraceDocument document;
        ui::TimelineView view;
        view.setDocument(&document);
        ui::TraceLoader loader;
        std::shared_ptr<const engine::Trace> trace;
        std::shared_ptr<ui::TraceAnalysis> analysis;
        connect(&loader, &ui::TraceLoader::opened, this,
                [&](int, const QString &, engine::FileKind, std::shared_ptr<const engine::Trace> t,
                    std::shared_ptr<ui::TraceAnalysis> a) {
                    trace = std::move(t);
                    analysis = std::move(a);
                });
        loader.setLaneBuilder(view.laneBuilder());
        QVERIFY(loader.waitFor(loader.open(path)));
        QVERIFY(trace && analysis);
        QCOMPARE(analysis->summary.repetitions.size(), std::size_t(3));
        QCOMPARE(analysis->opStatistics->size(), std::size_t(6));
        QVERIFY(analysis->lanes);
        const ui::LaneModel *built = analysis->lanes.get();
        document.setTrace(trace, std::move(*analysis), QStringLiteral("pipeline"), path);
        QCOMPARE(view.laneModel(), built);
        QCOMPARE(view.laneModel()->repetition(), document.repetition());

        // Lanes built before View > Project NVTX was switched on are not what the view shows now.
        loader.setLaneBuilder(view.laneBuilder());
        view.setProjectNvtx(true);
        QVERIFY(loader.waitFor(loader.open(path)));
        QVERIFY(analysis && analysis->lanes);
        const std::shared_ptr<const ui::LaneModel> stale = analysis->lanes; // alive: its address stays its own
        document.setTrace(trace, std::move(*analysis), QStringLiteral("pipeline"), path);
        QVERIFY(view.laneModel() != stale.get());
        QVERIFY(!stale->options().projectNvtx);
        QVERIFY(view.laneModel()->options().projectNvtx);
    }
};

QTEST_MAIN(TestTraceAnalysis)
#include "tst_trace_analysis.moc"
