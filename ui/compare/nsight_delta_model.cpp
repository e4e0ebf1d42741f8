// NsightDeltaModel: one row per compared op slot, numbers formatted as the CLI's nsight-compare table.
#include "ui/compare/nsight_delta_model.h"
#include "ui/common/format_units.h"

#include <QString>

#include <cmath>

#include "ui/timeline/time_mapping.h"

namespace streamscope::ui {

namespace {

// "+12.3 µs" / "-134 µs": the sign is the point of a delta column.
QString formatSignedDuration(double ns)
{
    const qint64 rounded = qint64(std::llround(ns));
    const QString magnitude = formatDuration(rounded < 0 ? -rounded : rounded);
    return (rounded < 0 ? QStringLiteral("-") : QStringLiteral("+")) + magnitude;
}

} // namespace

NsightDeltaModel::NsightDeltaModel(QObject *parent) : QAbstractTableModel(parent)
{
}

void NsightDeltaModel::setOps(std::vector<engine::NsightOpDelta> ops)
{
    beginResetModel();
    m_ops = std::move(ops);
    endResetModel();
}

int NsightDeltaModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_ops.size());
}

int NsightDeltaModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant NsightDeltaModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() < 0 || index.row() >= rowCount() || index.column() < 0
        || index.column() >= ColumnCount)
        return {};
    const engine::NsightOpDelta &op = m_ops[std::size_t(index.row())];
    const double pct = op.ownDurationNs > 0 ? 100.0 * op.durationDeltaNs / op.ownDurationNs : 0.0;
    const bool otherLane = op.nsightLane != op.lane;

    if (role == Qt::DisplayRole) {
        switch (Column(index.column())) {
        case LaneColumn:
            return otherLane ? QStringLiteral("%1 (Nsight: %2)")
                                   .arg(QString::fromStdString(op.lane), QString::fromStdString(op.nsightLane))
                             : QString::fromStdString(op.lane);
        case OpColumn:
            return op.byOrder ? QStringLiteral("%1 (by order)").arg(QString::fromStdString(op.name))
                              : QString::fromStdString(op.name);
        case KindColumn:
            return QString::fromUtf8(engine::toString(op.kind).data(), qsizetype(engine::toString(op.kind).size()));
        case SamplesColumn: return op.samples;
        case OwnDurationColumn: return formatDuration(qint64(std::llround(op.ownDurationNs)));
        case NsightDurationColumn: return formatDuration(qint64(std::llround(op.nsightDurationNs)));
        case DurationDeltaColumn: return formatSignedDuration(op.durationDeltaNs);
        case DurationDeltaPctColumn:
            return QStringLiteral("%1%2 %").arg(pct < 0 ? QStringLiteral("") : QStringLiteral("+"),
                                                QString::number(pct, 'f', 1));
        case StartDeltaColumn: return formatSignedDuration(op.startDeltaNs);
        case ColumnCount: break;
        }
        return {};
    }
    if (role == SortRole) {
        switch (Column(index.column())) {
        case LaneColumn: return QString::fromStdString(op.lane);
        case OpColumn: return QString::fromStdString(op.name);
        case KindColumn: return int(op.kind);
        case SamplesColumn: return op.samples;
        case OwnDurationColumn: return op.ownDurationNs;
        case NsightDurationColumn: return op.nsightDurationNs;
        case DurationDeltaColumn: return op.durationDeltaNs;
        case DurationDeltaPctColumn: return pct;
        case StartDeltaColumn: return op.startDeltaNs;
        case ColumnCount: break;
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() >= SamplesColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                                               : QVariant(int(Qt::AlignLeft | Qt::AlignVCenter));
    if (role == Qt::ToolTipRole) {
        if (index.column() == LaneColumn && otherLane)
            return tr("Nsight saw this op on %1: a synchronous cudaMemcpy runs on the legacy default stream "
                      "whatever stream the workload named")
                .arg(QString::fromStdString(op.nsightLane));
        if (index.column() == OpColumn && op.byOrder)
            return tr("No Nsight op carries this name; paired with Nsight's %1 by its position in the lane")
                .arg(QString::fromStdString(op.nsightName));
        if (index.column() == StartDeltaColumn)
            return tr("Nsight - StreamScope, each start measured from its repetition's first GPU start");
        if (index.column() == DurationDeltaColumn || index.column() == DurationDeltaPctColumn)
            return tr("Nsight - StreamScope: negative means the CUDA events measured a longer interval");
    }
    return {};
}

QVariant NsightDeltaModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case LaneColumn: return tr("Lane");
    case OpColumn: return tr("Op");
    case KindColumn: return tr("Kind");
    case SamplesColumn: return tr("Reps");
    case OwnDurationColumn: return tr("StreamScope");
    case NsightDurationColumn: return tr("Nsight");
    case DurationDeltaColumn: return tr("Duration Δ");
    case DurationDeltaPctColumn: return tr("Duration Δ %");
    case StartDeltaColumn: return tr("Start Δ");
    case ColumnCount: break;
    }
    return {};
}

} // namespace streamscope::ui
