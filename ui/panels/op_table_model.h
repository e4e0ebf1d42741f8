// OpTableModel: every op of one repetition of a trace as a flat table (index, stream, name, the NVTX range
// or PyTorch op it was launched in, kind, start, GPU duration, bytes, GB/s, host call time, a kernel's
// grid and block), sortable through a proxy. Selecting a row selects the op
// in the timeline; the model's rows are the repetition's ops in order, so row == op index.
#pragma once

#include <QAbstractTableModel>
#include <QPointer>
#include <QSortFilterProxyModel>

#include <memory>

#include "engine/analysis/interference.h"
#include "engine/model/trace.h"
#include "ui/common/connection_list.h"
#include "ui/document/trace_document.h"

namespace streamscope::ui {

class OpTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IndexColumn,
        StreamColumn,
        NameColumn,
        RangeColumn, // the host range it was launched in (its NVTX range, or Kineto's cpu_op)
        KindColumn,
        StartColumn,
        DurationColumn,
        BytesColumn,
        BandwidthColumn,
        HostCallColumn,
        LaunchColumn, // a kernel's grid and block: "244×1×6 · 128×1×1"
        AloneColumn, // with solo baselines: this execution against the op's median alone, "+19 %"
        ColumnCount
    };
    // The raw number behind a cell (ns, bytes, GB/s), so a proxy sorts numerically.
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit OpTableModel(QObject *parent = nullptr);

    void setTrace(std::shared_ptr<const engine::Trace> trace, int repetition);
    // The same with the trace's solo-baseline analysis already computed (a TraceDocument holds it; null for
    // a trace without solo baselines).
    void setTrace(std::shared_ptr<const engine::Trace> trace, int repetition,
                  std::shared_ptr<const engine::InterferenceReport> interference);
    void setRepetition(int repetition);
    int repetition() const { return m_repetition; }
    // Binds the model to a document: its rows are the ops of the document's repetition. nullptr unbinds.
    // (Selection is the view's: the window maps the table's current row to TraceDocument::selectOp.)
    void setDocument(TraceDocument *document);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const engine::Repetition *currentRepetition() const;

    std::shared_ptr<const engine::Trace> m_trace;
    QPointer<TraceDocument> m_document;
    ConnectionList m_documentConnections;
    int m_repetition = 0;
    std::int64_t m_originNs = 0; // start of the repetition: times are shown relative to it
    QString m_rangeHeader; // "NVTX range", "CPU op": what the repetition's ranges are
    // With solo baselines (interference.h), once per trace: the document's, or computed here.
    std::shared_ptr<const engine::InterferenceReport> m_interference;
    const engine::Trace *m_interferenceOf = nullptr;
};

// OpTableProxy: the operations table's sorting proxy (numbers sort as numbers, SortRole), which hides the
// ops that do not match while the document filters (FindBar's "Filter").
class OpTableProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit OpTableProxy(QObject *parent = nullptr);
    void setDocument(TraceDocument *document);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    // The index column's value is the row: compared without asking the model for it (a 35k-op trace
    // sorts its rows once per trace shown, on the GUI thread).
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QPointer<TraceDocument> m_document;
    QMetaObject::Connection m_connection;
};

} // namespace streamscope::ui
