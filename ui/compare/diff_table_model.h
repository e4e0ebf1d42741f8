// DiffOpModel and DiffStreamModel: a trace diff (engine/analysis/trace_diff.h) as two tables. DiffOpModel has
// one row per aligned op (A's stream order, then position) followed by the ops left unmatched on
// either side; DiffStreamModel one row per stream pair with the busy-time verdict.
#pragma once

#include <QAbstractTableModel>

#include "engine/analysis/trace_diff.h"

namespace streamscope::ui {

class DiffOpModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        StreamColumn,
        NameAColumn,
        NameBColumn,
        MatchColumn,
        StartAColumn,
        StartDeltaColumn,
        DurationAColumn,
        DurationBColumn,
        DurationDeltaColumn,
        VerdictColumn,
        GBsAColumn,
        GBsBColumn,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1; // raw numbers (ns, GB/s) behind the cells

    explicit DiffOpModel(QObject *parent = nullptr);
    void setDiff(const engine::TraceDiff &diff);
    // Rows 0..matchedRows()-1 are aligned ops; the rest are unmatched ops.
    int matchedRows() const { return int(m_ops.size()); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant matchedData(const engine::OpDelta &d, int column, int role) const;
    QVariant unmatchedData(const engine::UnmatchedOp &u, int column, int role) const;

    std::vector<engine::OpDelta> m_ops;
    std::vector<engine::UnmatchedOp> m_unmatched;
};

class DiffStreamModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        StreamAColumn,
        StreamBColumn,
        MatchColumn,
        OpsAColumn,
        OpsBColumn,
        BusyAColumn,
        BusyBColumn,
        VerdictColumn,
        ColumnCount
    };

    explicit DiffStreamModel(QObject *parent = nullptr);
    void setDiff(const engine::TraceDiff &diff);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<engine::StreamPair> m_streams;
};

} // namespace streamscope::ui
