// ComparisonTableModel: the delta table of a comparison, one row per variant against the first one
// (the baseline): median makespan and its min..max, speedup with the noise verdict of
// engine::compareSpreads, achieved H2D/D2H GB/s, host-blocked time, overlap and efficiency.
#pragma once

#include <QAbstractTableModel>

#include <vector>

#include "engine/experiment/comparison_file.h"

namespace streamscope::ui {

class ComparisonTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        VariantColumn,
        MakespanColumn,
        RangeColumn,
        VerdictColumn,
        H2DColumn,
        D2HColumn,
        HostBlockedColumn,
        OverlapColumn,
        EfficiencyColumn,
        ColumnCount
    };
    // The raw number behind a cell (ns, GB/s, fractions, the verdict's ratio) for sorting and tests.
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit ComparisonTableModel(QObject *parent = nullptr);

    void setSummaries(std::vector<engine::VariantSummary> summaries);
    const std::vector<engine::VariantSummary> &summaries() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<engine::VariantSummary> m_rows;
};

} // namespace streamscope::ui
