// Tests of range statistics in the app: a shift+drag in the timeline measures a range in the document;
// the Range panel lists what ran in it (numbers checked against the engine), zooms to it, exports it as
// CSV (atomically, read back) and clears when the selection goes (Escape) or the repetition changes.
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/main_window.h"
#include "tests/ui/test_traces.h"
#include "tests/ui/timeline/view_geometry.h"
#include "ui/common/format_units.h"
#include "ui/document/trace_document.h"
#include "ui/panels/range_panel.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

using namespace streamscope;

class TestRangePanel : public QObject {
    Q_OBJECT

private:
    // The widget x of a time (ns from the repetition's start) in the view as it is laid out now.
    static int xOf(ui::TimelineView &view, qint64 ns)
    {
        return int(std::lround(test::viewGeometry(view, view.rect()).mapping.toX(ns)));
    }

private slots:
    void shiftDragMeasuresARange()
    {
        ui::TraceDocument document;
        ui::TimelineView view;
        view.resize(1200, 400);
        view.setDocument(&document);
        ui::RangePanel panel;
        panel.setDocument(&document);
        QVERIFY(!panel.zoomButton()->isEnabled());
        QVERIFY(panel.headingText().contains(QStringLiteral("Shift+drag")));
        // Repetition 1 (the median) of the pipeline: stream 0 runs H2D [0,50) us, kernel [50,150), D2H
        // [150,220); stream 1 the same 60 us later. Its ops start 5 us after the first host call.
        document.setTrace(test::makePipelineTrace(3));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));

        QSignalSpy changed(&document, &ui::TraceDocument::rangeChanged);
        const int y = view.height() / 2;
        const int x0 = xOf(view, 55'000), x1 = xOf(view, 155'000);
        QTest::mousePress(&view, Qt::LeftButton, Qt::ShiftModifier, QPoint(x0, y));
        QMouseEvent move(QEvent::MouseMove, QPointF(x1, y), view.mapToGlobal(QPointF(x1, y)), Qt::NoButton,
                         Qt::LeftButton, Qt::ShiftModifier);
        QApplication::sendEvent(&view, &move);
        QTest::mouseRelease(&view, Qt::LeftButton, Qt::ShiftModifier, QPoint(x1, y));
        QVERIFY(changed.count() >= 1);
        QVERIFY(document.hasRange());
        const engine::RangeStatistics &s = document.rangeStatistics();
        // Pixels round the ends: about 100 us.
        QVERIFY2(qAbs(s.lengthNs() - 100'000) < 2'000, qPrintable(QString::number(s.lengthNs())));
        const engine::RangeStatistics expected =
            engine::rangeStatistics(*document.trace(), document.repetition(), s.startNs, s.endNs);
        QCOMPARE(s.ops, expected.ops);
        QVERIFY(s.ops >= 3);

        // The panel shows it: the names with the engine's numbers, the lanes, the totals.
        QVERIFY(panel.zoomButton()->isEnabled());
        QVERIFY2(panel.headingText().contains(QStringLiteral("Range")), qPrintable(panel.headingText()));
        QCOMPARE(panel.nameModel()->rowCount(), int(expected.names.size()));
        for (int r = 0; r < panel.nameModel()->rowCount(); ++r) {
            QCOMPARE(panel.nameModel()->item(r, 0)->text(),
                     QString::fromStdString(expected.names[std::size_t(r)].name));
            QCOMPARE(panel.nameModel()->item(r, 3)->data(ui::RangePanel::RawRole).toDouble(),
                     double(expected.names[std::size_t(r)].totalNs));
        }
        QCOMPARE(panel.laneModel()->rowCount(), int(expected.lanes.size()));
        QVERIFY2(panel.totalsText().contains(QStringLiteral("two GPU ops or more at once")),
                 qPrintable(panel.totalsText()));

        // Zoom to range.
        QSignalSpy zoom(&panel, &ui::RangePanel::zoomToRangeRequested);
        panel.zoomButton()->click();
        QCOMPARE(zoom.count(), 1);
        QCOMPARE(zoom.first().at(0).toLongLong(), s.startNs);
        QCOMPARE(zoom.first().at(1).toLongLong(), s.endNs);

        // CSV, read back.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("range.csv"));
        QString error;
        QVERIFY2(panel.exportCsv(path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString csv = QString::fromUtf8(file.readAll());
        QVERIFY(csv.startsWith(QStringLiteral("section,name,kind,count,total_ns")));
        QVERIFY(csv.contains(QStringLiteral("lane,copy0,stream,")));
        QVERIFY(!panel.exportCsv(dir.filePath(QStringLiteral("no/such/folder/range.csv")), &error));
        QVERIFY2(error.contains(QStringLiteral("no/such/folder")), qPrintable(error));

        // Escape clears the selection, hence the range.
        view.setFocus();
        QTest::keyClick(&view, Qt::Key_Escape);
        QVERIFY(!document.hasRange());
        QVERIFY(!panel.zoomButton()->isEnabled());
        QCOMPARE(panel.nameModel()->rowCount(), 0);

        // Another repetition drops a range.
        document.setRange(0, 50'000);
        QVERIFY(document.hasRange());
        document.setRepetition(0);
        QVERIFY(!document.hasRange());
    }

    void ctrlClickMeasuresSelectedOps()
    {
        ui::TraceDocument document;
        ui::TimelineView view;
        view.resize(1200, 400);
        view.setDocument(&document);
        ui::RangePanel panel;
        panel.setDocument(&document);
        document.setTrace(test::makePipelineTrace(3));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const auto &ops = document.trace()->repetitions[std::size_t(document.repetition())].ops;
        // The two kernels, on two streams.
        std::vector<int> kernels;
        for (int i = 0; i < int(ops.size()); ++i)
            if (ops[std::size_t(i)].kind == engine::OpKind::Kernel)
                kernels.push_back(i);
        QVERIFY(kernels.size() >= 2);
        const test::ViewGeometry g = test::viewGeometry(view, view.rect());
        const QPoint first = g.painter.gpuBarRect(g.layout, g.mapping, kernels[0]).center().toPoint();
        const QPoint second = g.painter.gpuBarRect(g.layout, g.mapping, kernels[1]).center().toPoint();

        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, first);
        QCOMPARE(document.selectedOp(), kernels[0]);
        QVERIFY(!document.hasRange());
        QTest::mouseClick(&view, Qt::LeftButton, Qt::ControlModifier, second);
        QCOMPARE(document.selectedOps(), (std::vector<int>{kernels[0], kernels[1]}));
        QCOMPARE(document.selectedOp(), kernels[1]);
        QVERIFY(document.hasRange());
        const engine::RangeStatistics &s = document.rangeStatistics();
        QCOMPARE(s.selectedOps, 2);
        QCOMPARE(s.ops, 2); // the copies between them do not count
        QCOMPARE(int(s.names.size()), 1);
        QCOMPARE(s.names.front().count, 2);
        QVERIFY2(panel.headingText().contains(QStringLiteral("2 selected ops")), qPrintable(panel.headingText()));

        // Ctrl+click again takes it out: one op left, no statistics; a plain click selects one op.
        QTest::mouseClick(&view, Qt::LeftButton, Qt::ControlModifier, second);
        QCOMPARE(document.selectedOps(), std::vector<int>{kernels[0]});
        QCOMPARE(document.selectedOp(), kernels[0]);
        QVERIFY(!document.hasRange());
        QTest::mouseClick(&view, Qt::LeftButton, Qt::ControlModifier, second);
        QCOMPARE(document.selectedOps().size(), std::size_t(2));
        QTest::mouseClick(&view, Qt::LeftButton, Qt::NoModifier, second);
        QCOMPARE(document.selectedOps(), std::vector<int>{kernels[1]});
        QVERIFY(!document.hasRange());

        // A time range measured by Shift+drag stays when one op is selected, and a selection of
        // several replaces it.
        document.setRange(0, 50'000);
        document.selectOp(kernels[0]);
        QVERIFY(document.hasRange());
        QCOMPARE(document.rangeStatistics().selectedOps, 0);
        document.toggleOpSelected(kernels[1]);
        QCOMPARE(document.rangeStatistics().selectedOps, 2);
        // Another repetition clears the selection.
        QSignalSpy cleared(&document, &ui::TraceDocument::selectedOpsChanged);
        document.setRepetition(0);
        QVERIFY(document.selectedOps().empty());
        QVERIFY(!document.hasRange());
        QCOMPARE(cleared.count(), 1);
    }

    void operationsTableSelectsSeveral()
    {
        gui::MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString example = QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/overlap.sstrace");
        QVERIFY2(window.openFile(example), qPrintable(window.lastError()));
        auto *table = window.findChild<QTableView *>(QStringLiteral("opTable"));
        QVERIFY(table);
        QCOMPARE(table->selectionMode(), QAbstractItemView::ExtendedSelection);
        QItemSelection rows;
        rows.select(table->model()->index(1, 0), table->model()->index(3, 0));
        table->selectionModel()->select(rows, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QCOMPARE(window.document()->selectedOps().size(), std::size_t(3));
        QCOMPARE(window.document()->rangeStatistics().selectedOps, 3);
        // The timeline's Ctrl+click shows in the table: the rows of the document's selection.
        window.document()->selectOp(0);
        window.document()->toggleOpSelected(5);
        QCOMPARE(table->selectionModel()->selectedRows().size(), 2);
        window.document()->selectOp(2);
        QCOMPARE(table->selectionModel()->selectedRows().size(), 1);
        if (const QString dir = qEnvironmentVariable("STREAMSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
            window.document()->selectOps({1, 2, 3, 4});
            QTest::qWait(200);
            QVERIFY(window.grab().save(dir + QStringLiteral("/selection-statistics.png")));
        }
    }

    void mainWindowRaisesTheRange_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }

    void mainWindowRaisesTheRange()
    {
        QFETCH(QSize, size);
        gui::MainWindow window;
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString example = QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/overlap.sstrace");
        QVERIFY2(window.openFile(example), qPrintable(window.lastError()));
        // The staircase: from the first H2D chunk's start to the last one's end.
        window.timeline()->zoom()->setSelection(120'000, 420'000);
        window.document()->setRange(120'000, 420'000);
        QTRY_VERIFY(window.rangePanel()->isVisible());
        QVERIFY2(window.rangePanel()->totalsText().contains(QStringLiteral("H2D")),
                 qPrintable(window.rangePanel()->totalsText()));
        // One row per stage of the pipeline, not per chunk ("H2D 4 MiB pinned [c0]", "[c1]", ...): the
        // lesson's 4 chunks of each stage are one row with their count.
        const QStandardItemModel *names = window.rangePanel()->nameModel();
        QVERIFY(names->rowCount() > 0);
        int chunks = 0;
        for (int r = 0; r < names->rowCount(); ++r) {
            QVERIFY2(!names->item(r, 0)->text().contains(QStringLiteral("[c")), qPrintable(names->item(r, 0)->text()));
            chunks = std::max(chunks, names->item(r, 2)->data(ui::RangePanel::RawRole).toInt());
        }
        QVERIFY(chunks > 1);
        // Room for the rows at the window's size: the table has the dock's height (it had two rows at 720p).
        QTRY_VERIFY2(window.rangePanel()->visibleNameRows() >= std::min(names->rowCount(), 4),
                     qPrintable(QString::number(window.rangePanel()->visibleNameRows())));
        // The status bar says the range's length as the panel does (it said "300000.00 µs"-like figures).
        emit window.timeline()->rangeSelected(120'000, 79'685'240);
        QCOMPARE(window.statusBar()->currentMessage(),
                 QStringLiteral("Selected range: %1 (from 120 µs to 79.7 ms)").arg(ui::formatDuration(79'565'240)));
        QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("79.6 ms")));
        if (const QString dir = qEnvironmentVariable("STREAMSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
            QTest::qWait(200);
            QVERIFY(window.grab().save(
                dir + QStringLiteral("/range-statistics-%1x%2.png").arg(size.width()).arg(size.height())));
        }
    }
};

QTEST_MAIN(TestRangePanel)
#include "tst_range_panel.moc"
