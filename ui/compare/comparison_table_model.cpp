// ComparisonTableModel: see comparison_table_model.h.
#include "ui/compare/comparison_table_model.h"

#include <QBrush>
#include <QColor>

#include "ui/common/display_text.h"
#include "ui/common/format_units.h"
#include "ui/common/verdict_brush.h"
#include "ui/timeline/time_mapping.h"

namespace streamscope::ui {

namespace {

QString spreadGBs(const engine::Spread &s)
{
    return s.count > 0 && s.median > 0 ? formatGBs(s.median) : QStringLiteral("–");
}

} // namespace

ComparisonTableModel::ComparisonTableModel(QObject *parent) : QAbstractTableModel(parent)
{
}

void ComparisonTableModel::setSummaries(std::vector<engine::VariantSummary> summaries)
{
    beginResetModel();
    m_rows = std::move(summaries);
    endResetModel();
}

int ComparisonTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ComparisonTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ComparisonTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const engine::VariantSummary &row = m_rows[std::size_t(index.row())];
    const engine::TraceSummary &s = row.summary;
    // The baseline is the first variant that ran.
    int first = 0;
    while (std::size_t(first) < m_rows.size() && !m_rows[std::size_t(first)].failed.empty())
        ++first;
    const bool baseline = index.row() == first;
    const int column = index.column();
    // A variant that failed: its label, "failed", and why (the whole message in the tooltip); no figures.
    if (!row.failed.empty()) {
        if (role == SortRole)
            return column == VariantColumn ? QVariant(index.row()) : QVariant();
        if (role == Qt::DisplayRole)
            return column == VariantColumn    ? QString::fromStdString(row.label)
                   : column == MakespanColumn ? tr("failed")
                   : column == VerdictColumn  ? displayText(row.failed, 60)
                                              : QStringLiteral("–");
        if (role == Qt::ToolTipRole)
            return QString::fromStdString(row.failed);
        if (role == Qt::ForegroundRole && (column == MakespanColumn || column == VerdictColumn))
            return QBrush(QColor(0xd5, 0x5e, 0x00));
        if (role == Qt::TextAlignmentRole)
            return column == VariantColumn || column == VerdictColumn ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                                                      : int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    }

    if (role == SortRole) {
        switch (column) {
        case VariantColumn: return index.row();
        case MakespanColumn: return s.makespanNs.median;
        case RangeColumn: return s.makespanNs.max - s.makespanNs.min;
        case VerdictColumn: return baseline ? 1.0 : row.vsFirst.ratio;
        case H2DColumn: return s.h2dGBs.median;
        case D2HColumn: return s.d2hGBs.median;
        case HostBlockedColumn: return s.hostBlockedNs.median;
        case OverlapColumn: return s.overlapFraction.median;
        case EfficiencyColumn: return s.efficiency.median;
        default: return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (column) {
        case VariantColumn: return QString::fromStdString(row.label);
        case MakespanColumn: return formatDuration(qint64(s.makespanNs.median));
        case RangeColumn:
            return QStringLiteral("%1 – %2").arg(formatDuration(qint64(s.makespanNs.min)),
                                                 formatDuration(qint64(s.makespanNs.max)));
        case VerdictColumn: return baseline ? tr("baseline") : QString::fromStdString(engine::describe(row.vsFirst));
        case H2DColumn: return spreadGBs(s.h2dGBs);
        case D2HColumn: return spreadGBs(s.d2hGBs);
        case HostBlockedColumn: return formatDuration(qint64(s.hostBlockedNs.median));
        case OverlapColumn: return formatPercent(s.overlapFraction.median);
        case EfficiencyColumn: return formatPercent(s.efficiency.median);
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole)
        return column == VariantColumn ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && column == VerdictColumn && !baseline) {
        return verdictBrush(row.vsFirst.kind); // noise grey: the table must not look like it calls a winner
    }
    if (role == Qt::ToolTipRole) {
        if (column == VerdictColumn && row.vsFirst.kind == engine::VerdictKind::Noise)
            return tr("The min..max ranges of the two makespans overlap: the difference is within "
                      "run-to-run noise, so no winner is called.");
        if (column == EfficiencyColumn)
            return tr("Ideal bound (busiest engine's time) / makespan");
        if (column == HostBlockedColumn)
            return tr("Median time the host thread was held by blocking calls");
    }
    return {};
}

QVariant ComparisonTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    switch (section) {
    case VariantColumn: return tr("Variant");
    case MakespanColumn: return tr("Makespan (median)");
    case RangeColumn: return tr("Min – max");
    case VerdictColumn: return tr("vs first");
    case H2DColumn: return tr("H2D");
    case D2HColumn: return tr("D2H");
    case HostBlockedColumn: return tr("Host blocked");
    case OverlapColumn: return tr("Overlap");
    case EfficiencyColumn: return tr("Efficiency");
    default: return {};
    }
}

} // namespace streamscope::ui
