// DiffView: the diff of any two traces (engine::diffTraces; native runs, Nsight Systems and Chrome
// imports alike) as a window: a summary of what changed (the makespan with its noise verdict, how many
// ops matched, how far starts and durations are apart) over the per-op and per-stream delta tables.
#pragma once

#include <QString>
#include <QWidget>

#include "engine/analysis/trace_diff.h"
#include "engine/model/trace.h"

class QLabel;
class QTabWidget;
class QTableView;

namespace streamscope::ui {

class DiffOpModel;
class DiffStreamModel;

class DiffView : public QWidget {
    Q_OBJECT

public:
    explicit DiffView(QWidget *parent = nullptr);

    // Diffs a against b (B relative to A) and shows it; names are what the summary calls them.
    void setTraces(const engine::Trace &a, const engine::Trace &b, const QString &nameA, const QString &nameB);
    // Loads two files with engine::loadTrace and diffs them; false with *error naming the file.
    bool openFiles(const QString &pathA, const QString &pathB, QString *error = nullptr);

    // Asks for two trace files and opens a DiffView window on them (deleted when closed); errors go
    // to a message box. Returns the window, or nullptr when the user cancelled or a file failed.
    static DiffView *pickAndShow(QWidget *parent);

    // The summary in words: "B is 1.85x faster (makespan 1.2 ms → 650 µs); 12 ops matched, ...".
    static QString summaryText(const engine::TraceDiff &diff, const QString &nameA, const QString &nameB);

    const engine::TraceDiff &diff() const { return m_diff; }
    DiffOpModel *opModel() const { return m_opModel; }
    DiffStreamModel *streamModel() const { return m_streamModel; }
    QString summary() const;

private:
    engine::TraceDiff m_diff;
    QLabel *m_summary = nullptr;
    QTabWidget *m_tabs = nullptr;
    DiffOpModel *m_opModel = nullptr;
    DiffStreamModel *m_streamModel = nullptr;
};

} // namespace streamscope::ui
