// DiffStreamModel: the streams of a trace diff (engine/analysis/trace_diff.h), one row per stream pair
// with each side's op count and busy time and the busy-time verdict. The per-op rows are OpDeltaModel's
// (op_delta_model.h), shared with the Nsight comparison.
#pragma once

#include <QAbstractTableModel>

#include "engine/analysis/trace_diff.h"

namespace streamscope::ui {

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
