// DiffView: the one view of op deltas between two traces. For a diff of any two traces
// (engine::diffTraces; native runs, Nsight Systems and Chrome imports alike) it is a window: a summary of
// what changed (the makespan with its noise verdict, how many ops matched, how far starts and durations
// are apart) over the per-op and per-stream delta tables. For a StreamScope run against Nsight's capture
// of it (engine::compareWithNsight) it is the lower half of NsightCompareView: the per-kind summary of
// |deltas| beside the same per-op table. Both fill the one OpDeltaModel.
#pragma once

#include <QString>
#include <QWidget>

#include "engine/analysis/nsight_compare.h"
#include "engine/analysis/trace_diff.h"
#include "engine/model/trace.h"

class QLabel;
class QTabWidget;
class QTableView;

namespace streamscope::ui {

class DiffStreamModel;
class NsightSummaryModel;
class OpDeltaModel;

class DiffView : public QWidget {
    Q_OBJECT

public:
    explicit DiffView(QWidget *parent = nullptr);

    // Diffs a against b (B relative to A) and shows it; names are what the summary calls them.
    void setTraces(const engine::Trace &a, const engine::Trace &b, const QString &nameA, const QString &nameB);
    // Shows a StreamScope-vs-Nsight comparison: the per-kind summary beside the per-op table, no
    // summary line (the comparison view has its own headline) and no stream tab.
    void setNsightComparison(const engine::NsightComparison &comparison);
    // Loads two files with engine::loadTrace and diffs them; false with *error naming the file.
    bool openFiles(const QString &pathA, const QString &pathB, QString *error = nullptr);

    // Asks for two trace files and opens a DiffView window on them (deleted when closed); errors go
    // to a message box. Returns the window, or nullptr when the user cancelled or a file failed.
    static DiffView *pickAndShow(QWidget *parent);

    // The summary in words: "B is 1.85x faster (makespan 1.2 ms → 650 µs); 12 ops matched, ...".
    static QString summaryText(const engine::TraceDiff &diff, const QString &nameA, const QString &nameB);

    const engine::TraceDiff &diff() const { return m_diff; }
    OpDeltaModel *opModel() const { return m_opModel; }
    DiffStreamModel *streamModel() const { return m_streamModel; }
    NsightSummaryModel *kindModel() const { return m_kindModel; }
    // The per-op table (its model is a sorting proxy over opModel()).
    QTableView *opTable() const { return m_opTable; }
    QString summary() const;

private:
    engine::TraceDiff m_diff;
    QLabel *m_summary = nullptr;
    void showOpColumns();

    QTabWidget *m_tabs = nullptr;
    OpDeltaModel *m_opModel = nullptr;
    DiffStreamModel *m_streamModel = nullptr;
    NsightSummaryModel *m_kindModel = nullptr;
    QTableView *m_opTable = nullptr;
    QTableView *m_streamTable = nullptr;
    QTableView *m_kindTable = nullptr;
};

} // namespace streamscope::ui
