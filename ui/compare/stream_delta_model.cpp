// DiffStreamModel: see stream_delta_model.h.
#include "ui/compare/stream_delta_model.h"

#include <QBrush>
#include <QColor>

#include "ui/common/format_units.h"
#include "ui/common/verdict_brush.h"
#include "ui/timeline/time_mapping.h"

namespace streamscope::ui {

DiffStreamModel::DiffStreamModel(QObject *parent) : QAbstractTableModel(parent)
{
}

void DiffStreamModel::setDiff(const engine::TraceDiff &diff)
{
    beginResetModel();
    m_streams = diff.streams;
    endResetModel();
}

int DiffStreamModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_streams.size());
}

int DiffStreamModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiffStreamModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const engine::StreamPair &s = m_streams[std::size_t(index.row())];
    if (role == Qt::ForegroundRole && index.column() == VerdictColumn)
        return verdictBrush(s.busy.kind);
    if (role != Qt::DisplayRole)
        return {};
    const QString absent = QStringLiteral("(absent)");
    switch (index.column()) {
    case StreamAColumn: return s.a >= 0 ? QString::fromStdString(s.nameA) : absent;
    case StreamBColumn: return s.b >= 0 ? QString::fromStdString(s.nameB) : absent;
    case MatchColumn: return qs(engine::toString(s.method));
    case OpsAColumn: return s.opsA;
    case OpsBColumn: return s.opsB;
    case BusyAColumn: return s.busyA.count > 0 ? formatDuration(qint64(s.busyA.median)) : QStringLiteral("–");
    case BusyBColumn: return s.busyB.count > 0 ? formatDuration(qint64(s.busyB.median)) : QStringLiteral("–");
    case VerdictColumn: return QString::fromStdString(engine::describe(s.busy));
    default: return {};
    }
}

QVariant DiffStreamModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    switch (section) {
    case StreamAColumn: return tr("Stream in A");
    case StreamBColumn: return tr("Stream in B");
    case MatchColumn: return tr("Matched by");
    case OpsAColumn: return tr("Ops A");
    case OpsBColumn: return tr("Ops B");
    case BusyAColumn: return tr("Busy A");
    case BusyBColumn: return tr("Busy B");
    case VerdictColumn: return tr("B vs A (busy)");
    default: return {};
    }
}

} // namespace streamscope::ui
