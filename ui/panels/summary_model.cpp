// SummaryModel: the rows are engine::summaryMetrics (the CLI's summary shows the same list), extractors
// over engine::RepetitionStats, so each metric's spread across repetitions comes from the same function
// that fills the per-repetition column.
#include "ui/panels/summary_model.h"

#include <QBrush>
#include <QFont>

#include "ui/common/format_units.h"
#include "ui/timeline/time_mapping.h"

namespace streamscope::ui {

SummaryModel::SummaryModel(QObject *parent) : QAbstractTableModel(parent)
{
}

void SummaryModel::setTrace(std::shared_ptr<const engine::Trace> trace)
{
    engine::TraceSummary summary = trace ? engine::summarize(*trace) : engine::TraceSummary{};
    setTrace(std::move(trace), std::move(summary));
}

void SummaryModel::setTrace(std::shared_ptr<const engine::Trace> trace, engine::TraceSummary summary)
{
    beginResetModel();
    m_trace = std::move(trace);
    m_summary = std::move(summary);
    m_repetition = m_summary.repetitions.empty() ? 0 : m_summary.medianRepetition;
    rebuildRows();
    endResetModel();
}

void SummaryModel::setRepetition(int repetition)
{
    if (m_summary.repetitions.empty())
        return;
    repetition = qBound(0, repetition, int(m_summary.repetitions.size()) - 1);
    if (repetition == m_repetition)
        return;
    m_repetition = repetition;
    if (!m_rows.empty())
        emit dataChanged(index(0, RepetitionColumn), index(int(m_rows.size()) - 1, RepetitionColumn));
    emit headerDataChanged(Qt::Horizontal, RepetitionColumn, RepetitionColumn);
}

void SummaryModel::rebuildRows()
{
    m_rows = m_trace ? engine::summaryMetrics(*m_trace, m_summary) : std::vector<engine::SummaryMetric>{};
}

int SummaryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SummaryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SummaryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const engine::SummaryMetric &row = m_rows[std::size_t(index.row())];
    double value = 0;
    switch (index.column()) {
    case MetricColumn:
        if (role == Qt::DisplayRole)
            return qs(row.label);
        if (role == Qt::ToolTipRole)
            return qs(row.description);
        return {};
    case RepetitionColumn: value = row.value(m_summary.repetitions[std::size_t(m_repetition)]); break;
    case MedianColumn: value = row.spread.count ? row.spread.median : engine::kNotApplicable; break;
    case MinColumn: value = row.spread.count ? row.spread.min : engine::kNotApplicable; break;
    case MaxColumn: value = row.spread.count ? row.spread.max : engine::kNotApplicable; break;
    default: return {};
    }
    switch (role) {
    case Qt::DisplayRole: return qs(engine::formatMetric(row.unit, value));
    case RawValueRole: return value;
    case Qt::TextAlignmentRole: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
        if (index.column() == MedianColumn) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    default: return {};
    }
}

QVariant SummaryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case MetricColumn: return tr("Metric");
    case RepetitionColumn:
        return m_summary.repetitions.empty() ? tr("Repetition") : tr("Rep. %1").arg(m_repetition + 1);
    case MedianColumn: return tr("Median");
    case MinColumn: return tr("Min");
    case MaxColumn: return tr("Max");
    default: return {};
    }
}

} // namespace streamscope::ui
