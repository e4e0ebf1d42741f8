// NsightDeltaModel: the per-op table of a StreamScope-vs-Nsight comparison (engine::compareWithNsight),
// one row per op slot: lane, op, kind, repetitions compared, both median durations, the duration delta
// (ns and % of StreamScope's) and the start delta. Deltas are Nsight - StreamScope, as the CLI prints.
#pragma once

#include <QAbstractTableModel>

#include <vector>

#include "engine/analysis/nsight_compare.h"

namespace streamscope::ui {

class NsightDeltaModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        LaneColumn,
        OpColumn,
        KindColumn,
        SamplesColumn,
        OwnDurationColumn,
        NsightDurationColumn,
        DurationDeltaColumn,
        DurationDeltaPctColumn,
        StartDeltaColumn,
        ColumnCount
    };
    // The raw number behind a cell (ns, %, counts) for sorting and tests; text columns give their text.
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit NsightDeltaModel(QObject *parent = nullptr);

    void setOps(std::vector<engine::NsightOpDelta> ops);
    const std::vector<engine::NsightOpDelta> &ops() const { return m_ops; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<engine::NsightOpDelta> m_ops;
};

} // namespace streamscope::ui
