// Tests of flows on the timeline: with "flows for everything in view" on, the arrows drawn are exactly
// the ops in the window that have both a host call and GPU work on lanes that are shown (counted here
// independently from the trace), past the limit none is drawn and a line says so, and "follow flow"
// moves the selection between a call and its GPU work, bringing the other end into view (opening its
// group, moving the window), from the View menu's action as from the key.
#include <QAction>
#include <QMenuBar>
#include <QtTest>

#include "app/gui/main_window.h"
#include "engine/formats/trace_io.h"
#include "timeline_test_trace.h"
#include "ui/document/trace_document.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/lane_tree.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"
#include "view_geometry.h"

using namespace streamscope;
using ui::TimelineView;

namespace {

QString torchrun()
{
    return QStringLiteral(STREAMSCOPE_SHARED_DIR "/data/real-traces/nsys-2026.2.1_2xh100_torchrun_windowed.sqlite");
}

// Flows in [start, end): ops with a call and GPU work, both lanes shown, either end in the window.
int expectedFlows(const TimelineView &view, qint64 start, qint64 end)
{
    const ui::LaneModel &m = *view.laneModel();
    const test::ViewGeometry g = test::viewGeometry(view, view.rect());
    int count = 0;
    for (int i = 0; i < m.opCount(); ++i) {
        const engine::OpRecord &o = m.op(i);
        if (!o.hasGpu() || !o.hasHost())
            continue;
        if (g.layout.rowOf(m.streamLane(o.stream)) < 0 || g.layout.rowOf(m.hostLane(o.hostThread)) < 0)
            continue;
        const bool gpu = m.gpuEnd(o) >= start && m.gpuStart(o) < end;
        const bool host = m.hostEnd(o) >= start && m.hostStart(o) < end;
        count += gpu || host;
    }
    return count;
}

int differingPixels(const QImage &a, const QImage &b, const QRect &area)
{
    int n = 0;
    for (int y = area.top(); y <= area.bottom(); ++y)
        for (int x = area.left(); x <= area.right(); ++x)
            n += a.pixel(x, y) != b.pixel(x, y);
    return n;
}

} // namespace

class TestTimelineFlows : public QObject {
    Q_OBJECT

private slots:
    void flowsInViewMatchTheOps_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("at"); // where the windows start, ns
        QTest::newRow("torchrun") << "nsys-2026.2.1_2xh100_torchrun_windowed.sqlite" << qint64(100'000'000);
        QTest::newRow("kineto") << "kineto_a100-80gb_rank0_5streams.json.gz" << qint64(12'000'000);
    }

    void flowsInViewMatchTheOps()
    {
        QFETCH(QString, file);
        QFETCH(qint64, at);
        const QString path = QStringLiteral(STREAMSCOPE_SHARED_DIR "/data/real-traces/") + file;
        if (!QFileInfo::exists(path))
            QSKIP("../shared/data/real-traces is not beside the checkout (CI has it): no real traces to test on");
        ui::TraceDocument document;
        document.setTrace(std::make_shared<const engine::Trace>(engine::loadTrace(path.toStdString())), file, path);
        TimelineView view;
        view.resize(1920, 1080);
        view.setDocument(&document);
        view.setShowAllFlows(true);
        // The whole 300 ms: thousands of flows, over the limit: none drawn, and a line says so.
        bool capped = false;
        view.flowsInView(&capped);
        QVERIFY(capped);
        QVERIFY(expectedFlows(view, view.windowStartNs(), view.windowEndNs()) > ui::TimelinePainter::kMaxFlows);

        // Windows of 0.5, 2 and 8 ms: the count is the ops' own.
        for (const qint64 width : {500'000LL, 2'000'000LL, 8'000'000LL}) {
            view.zoom()->setWindow(at, at + width);
            const int expected = expectedFlows(view, view.windowStartNs(), view.windowEndNs());
            QVERIFY(expected > 0);
            QCOMPARE(view.flowsInView(&capped), expected);
            QVERIFY(!capped);
        }
        // A stream hidden: its flows go with it; its process folded: those of its threads too.
        view.zoom()->setWindow(at, at + 2'000'000);
        const int all = view.flowsInView();
        view.laneArrangement().setLaneHidden(view.laneModel()->streamLane(0), true);
        const int without = view.flowsInView();
        QVERIFY(without < all);
        QCOMPARE(without, expectedFlows(view, view.windowStartNs(), view.windowEndNs()));
        view.laneArrangement().setState({});
        QCOMPARE(view.flowsInView(), all);

        // Drawn: flows on change the plot's pixels, off gives the picture back.
        QImage off(view.size(), QImage::Format_RGB32), on(view.size(), QImage::Format_RGB32),
            again(view.size(), QImage::Format_RGB32);
        view.setShowAllFlows(false);
        view.render(&off);
        view.setShowAllFlows(true);
        view.render(&on);
        view.setShowAllFlows(false);
        view.render(&again);
        const QRect plot = test::viewGeometry(view, view.rect()).layout.plot;
        QVERIFY(differingPixels(off, on, plot) > all * 5);
        QCOMPARE(differingPixels(off, again, plot), 0);
        if (const QString out = qEnvironmentVariable("STREAMSCOPE_SCREENSHOT_DIR"); !out.isEmpty())
            on.save(out + QStringLiteral("/flows-%1.png").arg(QString::fromLatin1(QTest::currentDataTag())));
    }

    void followFlowSelectsThePartner()
    {
        auto trace = test::makeTimelineTrace();
        TimelineView view;
        view.resize(1200, 500);
        view.setTrace(trace);
        // Nothing selected: nothing to follow.
        QVERIFY(!view.followFlow());
        // Zoom on op 1's call (host [12, 15) µs): its GPU work (130..330 µs) is out of view.
        view.zoom()->setWindow(10'000, 20'000);
        const test::ViewGeometry g = test::viewGeometry(view, view.rect());
        const QRectF call = g.painter.hostBarRect(g.layout, g.mapping, 1);
        QVERIFY(!call.isEmpty());
        QTest::mouseClick(&view, Qt::LeftButton, {}, call.center().toPoint());
        QCOMPARE(view.selectedOp().op, 1);
        QCOMPARE(view.selectedEnd(), TimelineView::OpEnd::Host);
        // (Selecting showed both ends; zoom back on the call.)
        view.zoom()->setWindow(10'000, 20'000);
        // Follow: the GPU end, brought into view at the same zoom, or wide enough for the op.
        QVERIFY(view.followFlow());
        QCOMPARE(view.selectedOp().op, 1);
        QCOMPARE(view.selectedEnd(), TimelineView::OpEnd::Gpu);
        const ui::LaneModel &m = *view.laneModel();
        QVERIFY(view.windowStartNs() <= m.gpuStart(m.op(1)) && m.gpuEnd(m.op(1)) <= view.windowEndNs());
        QCOMPARE(view.windowEndNs() - view.windowStartNs(), qint64(200'000 * 5 / 4)); // wider than the op
        // And back to the call, from a window on the GPU work alone.
        view.zoom()->setWindow(200'000, 300'000);
        QVERIFY(view.followFlow());
        QCOMPARE(view.selectedEnd(), TimelineView::OpEnd::Host);
        QVERIFY(view.windowStartNs() <= m.hostStart(m.op(1)) && m.hostEnd(m.op(1)) <= view.windowEndNs());
        QCOMPARE(view.windowEndNs() - view.windowStartNs(), qint64(100'000));
        // A host-only op (the sync) has no partner.
        view.selectOp(3);
        QVERIFY(!view.followFlow());
        QCOMPARE(view.selectedOp().op, 3);
    }

    void followFlowOpensTheGroup()
    {
        if (!QFileInfo::exists(torchrun()))
            QSKIP("../shared/data/real-traces is not beside the checkout (CI has it): no real traces to test on");
        gui::MainWindow window;
        window.resize(1280, 720);
        QVERIFY(window.openFile(torchrun()));
        TimelineView *view = window.timeline();
        QTRY_VERIFY(view->laneModel() != nullptr);
        // The View menu has both, with their keys.
        QAction *flows = nullptr, *follow = nullptr;
        for (QAction *menu : window.menuBar()->actions())
            if (menu->menu())
                for (QAction *a : menu->menu()->actions()) {
                    if (a->text().startsWith(QStringLiteral("F&lows")))
                        flows = a;
                    if (a->text().startsWith(QStringLiteral("Follow flo&w")))
                        follow = a;
                }
        QVERIFY(flows && follow);
        QCOMPARE(flows->shortcut(), QKeySequence(Qt::Key_L));
        QCOMPARE(follow->shortcut(), QKeySequence(Qt::Key_BracketRight));
        flows->trigger();
        QVERIFY(view->showAllFlows());
        view->setShowAllFlows(false);
        QVERIFY(!flows->isChecked()); // the action follows the view

        // An op of process 145 whose group is folded: following from its call opens it.
        const ui::LaneModel &m = *view->laneModel();
        int op = -1;
        for (int i = 0; i < m.opCount() && op < 0; ++i)
            if (m.op(i).hasGpu() && m.op(i).hasHost() && m.op(i).stream == m.lane(m.streamLane(1)).source)
                op = i;
        QVERIFY(op >= 0);
        const int group = view->laneTree()->groupOfLane(m.streamLane(1));
        QVERIFY(group >= 0);
        view->selectOp(op);
        view->laneArrangement().setGroupCollapsed(group, true);
        QVERIFY(std::none_of(view->rows().begin(), view->rows().end(),
                             [&](const ui::LaneRow &r) { return r.lane == m.streamLane(1); }));
        follow->trigger();
        QCOMPARE(view->selectedEnd(), TimelineView::OpEnd::Gpu);
        QVERIFY(std::any_of(view->rows().begin(), view->rows().end(),
                            [&](const ui::LaneRow &r) { return r.lane == m.streamLane(1); }));
        QCOMPARE(view->selectedOp().op, op);
    }
};

QTEST_MAIN(TestTimelineFlows)
#include "tst_timeline_flows.moc"
