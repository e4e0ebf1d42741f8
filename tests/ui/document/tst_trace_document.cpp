// Tests of ui::TraceDocument and the views bound to it: the median repetition is shown first, a
// repetition change clears the selection, out-of-range values are refused, and a click in one view (the
// timeline, the summary's repetition selector) moves every other bound view through the document.
#include <QComboBox>
#include <QSignalSpy>
#include <QtTest>

#include "tests/ui/test_traces.h"
#include "ui/document/trace_document.h"
#include "ui/panels/details_panel.h"
#include "ui/panels/op_table_model.h"
#include "ui/panels/summary_panel.h"
#include "ui/timeline/timeline_view.h"

using namespace streamscope;

class TestTraceDocument : public QObject {
    Q_OBJECT

private slots:
    void setTraceShowsTheMedianRepetition()
    {
        ui::TraceDocument document;
        QSignalSpy traces(&document, &ui::TraceDocument::traceChanged);
        QSignalSpy repetitions(&document, &ui::TraceDocument::repetitionChanged);
        QSignalSpy selections(&document, &ui::TraceDocument::selectionChanged);
        QVERIFY(!document.hasTrace());
        auto trace = test::makePipelineTrace(3); // makespans grow with the index: repetition 1 is the median
        document.setTrace(trace, QStringLiteral("pipeline"), QStringLiteral("/tmp/pipeline.sstrace"));
        QVERIFY(document.hasTrace());
        QCOMPARE(document.trace().get(), trace.get());
        QCOMPARE(document.name(), QStringLiteral("pipeline"));
        QCOMPARE(document.path(), QStringLiteral("/tmp/pipeline.sstrace"));
        QCOMPARE(document.summary().repetitions.size(), std::size_t(3));
        QCOMPARE(document.summary().medianRepetition, 1);
        QCOMPARE(document.repetition(), 1);
        QCOMPARE(document.selectedOp(), -1);
        // One statistics entry per op of a repetition (6: two streams of H2D, kernel, D2H).
        QCOMPARE(document.opStatistics()->size(), std::size_t(6));
        QCOMPARE(traces.count(), 1);
        QCOMPARE(repetitions.count(), 1);
        QCOMPARE(repetitions.first().first().toInt(), 1);
        QCOMPARE(selections.count(), 1);
        QCOMPARE(selections.first().at(1).toInt(), -1);

        document.setTrace(nullptr);
        QVERIFY(!document.hasTrace());
        QVERIFY(document.summary().repetitions.empty());
        QVERIFY(document.opStatistics()->empty());
        QCOMPARE(document.repetition(), 0);
    }

    void repetitionAndSelection()
    {
        ui::TraceDocument document;
        document.selectOp(0); // no trace: nothing to select
        QCOMPARE(document.selectedOp(), -1);
        document.setTrace(test::makePipelineTrace(3));
        QSignalSpy repetitions(&document, &ui::TraceDocument::repetitionChanged);
        QSignalSpy selections(&document, &ui::TraceDocument::selectionChanged);

        document.selectOp(4);
        QCOMPARE(document.selectedOp(), 4);
        QCOMPARE(selections.count(), 1);
        QCOMPARE(selections.last().at(0).toInt(), 1);
        QCOMPARE(selections.last().at(1).toInt(), 4);
        document.selectOp(4); // the same: no signal
        QCOMPARE(selections.count(), 1);
        document.selectOp(6); // past the last op: clears
        QCOMPARE(document.selectedOp(), -1);
        QCOMPARE(selections.count(), 2);

        document.selectOp(2);
        document.setRepetition(0);
        QCOMPARE(document.repetition(), 0);
        QCOMPARE(document.selectedOp(), -1); // an op index means nothing in another repetition
        QCOMPARE(repetitions.count(), 1);
        QCOMPARE(selections.last().at(0).toInt(), 0);
        QCOMPARE(selections.last().at(1).toInt(), -1);
        document.setRepetition(99); // clamped to the last
        QCOMPARE(document.repetition(), 2);
        document.setRepetition(-5);
        QCOMPARE(document.repetition(), 0);
        QCOMPARE(repetitions.count(), 3);

        document.setName(QStringLiteral("saved"), QStringLiteral("/tmp/saved.sstrace"));
        QCOMPARE(document.name(), QStringLiteral("saved"));
        QCOMPARE(document.path(), QStringLiteral("/tmp/saved.sstrace"));
        QCOMPARE(document.repetition(), 0); // renaming keeps what is shown
    }

    void boundViewsFollowTheDocument()
    {
        ui::TraceDocument document;
        ui::TimelineView timeline;
        timeline.resize(800, 400);
        ui::SummaryPanel summary;
        ui::DetailsPanel details;
        ui::OpTableModel ops;
        timeline.setDocument(&document);
        summary.setDocument(&document);
        details.setDocument(&document);
        ops.setDocument(&document);
        QCOMPARE(timeline.document(), &document);

        document.setTrace(test::makePipelineTrace(3), QStringLiteral("pipeline"));
        QVERIFY(timeline.trace());
        QCOMPARE(timeline.repetition(), 1);
        QCOMPARE(summary.repetition(), 1);
        QCOMPARE(summary.repetitionSelector()->currentIndex(), 1);
        QCOMPARE(ops.repetition(), 1);
        QCOMPARE(ops.rowCount(), 6);
        const QString hint = details.plainText();

        // The document selects: the timeline and the details follow.
        document.selectOp(2);
        QCOMPARE(timeline.selectedOp().repetition, 1);
        QCOMPARE(timeline.selectedOp().op, 2);
        QVERIFY(details.plainText() != hint);
        QVERIFY2(details.plainText().contains(QStringLiteral("D2H 1 MiB pinned")), qPrintable(details.plainText()));
        // The kind in the tooltip's words (engine::describeOp), not the file's "d2h".
        QVERIFY2(details.plainText().contains(QStringLiteral("D2H copy")), qPrintable(details.plainText()));
        QVERIFY2(!details.plainText().contains(QStringLiteral("d2h")), qPrintable(details.plainText()));
        // How repeatable it was, from the document's statistics of the ops measured in every repetition.
        QVERIFY2(details.plainText().contains(QStringLiteral("GPU time over 3 repetitions")),
                 qPrintable(details.plainText()));
        QVERIFY2(details.plainText().contains(QStringLiteral("GB/s over 3 repetitions")),
                 qPrintable(details.plainText()));

        // A click in the timeline (selectOp is what a click calls) selects in the document.
        timeline.selectOp(1);
        QCOMPARE(document.selectedOp(), 1);
        QVERIFY2(details.plainText().contains(QStringLiteral("compute 100 us")), qPrintable(details.plainText()));
        timeline.selectOp(-1); // Escape
        QCOMPARE(document.selectedOp(), -1);
        QCOMPARE(details.plainText(), hint);

        // The summary's selector moves the document, hence the timeline and the operations.
        document.selectOp(3);
        summary.repetitionSelector()->setCurrentIndex(2);
        QCOMPARE(document.repetition(), 2);
        QCOMPARE(timeline.repetition(), 2);
        QCOMPARE(ops.repetition(), 2);
        QCOMPARE(document.selectedOp(), -1);
        QVERIFY(!timeline.selectedOp().isValid());
        QCOMPARE(details.plainText(), hint);

        // The document's repetition moves the selector.
        document.setRepetition(0);
        QCOMPARE(summary.repetitionSelector()->currentIndex(), 0);
        QCOMPARE(timeline.repetition(), 0);

        // A new trace replaces everything at its own median.
        document.setTrace(test::makePipelineTrace(5));
        QCOMPARE(summary.repetitionSelector()->count(), 5);
        QCOMPARE(timeline.repetition(), 2);
        QCOMPARE(ops.repetition(), 2);

        // Unbound views keep what they show and stop following.
        timeline.setDocument(nullptr);
        summary.setDocument(nullptr);
        document.setRepetition(4);
        QCOMPARE(timeline.repetition(), 2);
        QCOMPARE(summary.repetitionSelector()->currentIndex(), 2);
        QCOMPARE(ops.repetition(), 4); // still bound
        timeline.selectOp(0);
        QCOMPARE(document.selectedOp(), -1);
    }

    void bindingToADocumentWithATraceShowsItAtOnce()
    {
        ui::TraceDocument document;
        document.setTrace(test::makePipelineTrace(3));
        document.selectOp(5);
        ui::TimelineView timeline;
        timeline.setDocument(&document);
        QCOMPARE(timeline.trace().get(), document.trace().get());
        QCOMPARE(timeline.repetition(), 1);
        QCOMPARE(timeline.selectedOp().op, 5);
        ui::DetailsPanel details;
        details.setDocument(&document);
        QVERIFY(details.plainText().contains(QStringLiteral("D2H 1 MiB pinned")));
    }
};

QTEST_MAIN(TestTraceDocument)
#include "tst_trace_document.moc"
