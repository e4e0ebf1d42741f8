// NsightSummaryModel: per-kind and overall |delta| statistics, formatted as the CLI's nsight-compare.
#include "ui/compare/nsight_summary_model.h"
#include "ui/common/format_units.h"

#include <QFont>
#include <QString>

#include <cmath>

#include "ui/timeline/time_mapping.h"

namespace streamscope::ui {

namespace {

QString durationText(double ns)
{
    return formatDuration(qint64(std::llround(ns)));
}

QString pctText(double pct)
{
    return QString::number(pct, 'f', 1) + QStringLiteral(" %");
}

} // namespace

NsightSummaryModel::NsightSummaryModel(QObject *parent) : QAbstractTableModel(parent)
{
}

void NsightSummaryModel::setSummaries(std::vector<engine::NsightDeltaSummary> kinds, engine::NsightDeltaSummary overall)
{
    beginResetModel();
    m_rows = std::move(kinds);
    m_rows.push_back(std::move(overall));
    endResetModel();
}

int NsightSummaryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int NsightSummaryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant NsightSummaryModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() < 0 || index.row() >= rowCount() || index.column() < 0
        || index.column() >= ColumnCount)
        return {};
    const engine::NsightDeltaSummary &s = m_rows[std::size_t(index.row())];
    const bool overallRow = index.row() == rowCount() - 1;
    if (role == Qt::DisplayRole) {
        switch (Column(index.column())) {
        case KindColumn: return QString::fromStdString(s.label);
        case SamplesColumn: return s.samples;
        case MedianDurationDeltaColumn: return durationText(s.medianAbsDurationDeltaNs);
        case MedianDurationDeltaPctColumn: return pctText(s.medianAbsDurationDeltaPct);
        case MaxDurationDeltaColumn: return durationText(s.maxAbsDurationDeltaNs);
        case MaxDurationDeltaPctColumn: return pctText(s.maxAbsDurationDeltaPct);
        case MedianStartDeltaColumn: return durationText(s.medianAbsStartDeltaNs);
        case MaxStartDeltaColumn: return durationText(s.maxAbsStartDeltaNs);
        case ColumnCount: break;
        }
        return {};
    }
    if (role == SortRole) {
        switch (Column(index.column())) {
        case KindColumn: return QString::fromStdString(s.label);
        case SamplesColumn: return s.samples;
        case MedianDurationDeltaColumn: return s.medianAbsDurationDeltaNs;
        case MedianDurationDeltaPctColumn: return s.medianAbsDurationDeltaPct;
        case MaxDurationDeltaColumn: return s.maxAbsDurationDeltaNs;
        case MaxDurationDeltaPctColumn: return s.maxAbsDurationDeltaPct;
        case MedianStartDeltaColumn: return s.medianAbsStartDeltaNs;
        case MaxStartDeltaColumn: return s.maxAbsStartDeltaNs;
        case ColumnCount: break;
        }
        return {};
    }
    if (role == Qt::FontRole && overallRow) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == KindColumn ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                                            : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    return {};
}

QVariant NsightSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case KindColumn: return tr("Kind");
    case SamplesColumn: return tr("Samples");
    case MedianDurationDeltaColumn: return tr("Median |duration Δ|");
    case MedianDurationDeltaPctColumn: return tr("Median %");
    case MaxDurationDeltaColumn: return tr("Max |duration Δ|");
    case MaxDurationDeltaPctColumn: return tr("Max %");
    case MedianStartDeltaColumn: return tr("Median |start Δ|");
    case MaxStartDeltaColumn: return tr("Max |start Δ|");
    case ColumnCount: break;
    }
    return {};
}

} // namespace streamscope::ui
