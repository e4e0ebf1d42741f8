// NsightSummaryModel: the per-kind and overall summary of a StreamScope-vs-Nsight comparison
// (engine::NsightDeltaSummary): samples, median and max |duration delta| (ns and %), median and max
// |start delta|. One row per op kind that occurs, then "all".
#pragma once

#include <QAbstractTableModel>

#include <vector>

#include "engine/analysis/nsight_compare.h"

namespace streamscope::ui {

class NsightSummaryModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        KindColumn,
        SamplesColumn,
        MedianDurationDeltaColumn,
        MedianDurationDeltaPctColumn,
        MaxDurationDeltaColumn,
        MaxDurationDeltaPctColumn,
        MedianStartDeltaColumn,
        MaxStartDeltaColumn,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit NsightSummaryModel(QObject *parent = nullptr);

    // The kinds' rows, then the overall one (the comparison's `kinds` and `overall`).
    void setSummaries(std::vector<engine::NsightDeltaSummary> kinds, engine::NsightDeltaSummary overall);
    const std::vector<engine::NsightDeltaSummary> &rows() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<engine::NsightDeltaSummary> m_rows;
};

} // namespace streamscope::ui
