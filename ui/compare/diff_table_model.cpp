// DiffOpModel, DiffStreamModel: see diff_table_model.h.
#include "ui/compare/diff_table_model.h"

#include <QBrush>
#include <QColor>

#include "ui/common/format_units.h"
#include "ui/timeline/time_mapping.h"

namespace streamscope::ui {

namespace {

QString signedDuration(double ns)
{
    const QString text = formatDuration(qint64(ns < 0 ? -ns : ns));
    return ns > 0 ? QStringLiteral("+") + text : ns < 0 ? QStringLiteral("−") + text : text;
}

QString gbs(const engine::Spread &s)
{
    return s.count > 0 && s.median > 0 ? formatGBs(s.median) : QStringLiteral("–");
}

QVariant verdictBrush(const engine::Verdict &v)
{
    // Noise in grey: within run-to-run spread, not a change.
    switch (v.kind) {
    case engine::VerdictKind::Faster: return QBrush(QColor(0x1b, 0x7f, 0x3b));
    case engine::VerdictKind::Slower: return QBrush(QColor(0xb0, 0x30, 0x30));
    default: return QBrush(QColor(0x80, 0x80, 0x80));
    }
}

} // namespace

DiffOpModel::DiffOpModel(QObject *parent) : QAbstractTableModel(parent)
{
}

void DiffOpModel::setDiff(const engine::TraceDiff &diff)
{
    beginResetModel();
    m_ops = diff.ops;
    m_unmatched = diff.unmatched;
    endResetModel();
}

int DiffOpModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_ops.size() + m_unmatched.size());
}

int DiffOpModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiffOpModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role == Qt::TextAlignmentRole)
        return index.column() <= MatchColumn ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                             : int(Qt::AlignRight | Qt::AlignVCenter);
    const auto row = std::size_t(index.row());
    if (row < m_ops.size())
        return matchedData(m_ops[row], index.column(), role);
    return unmatchedData(m_unmatched[row - m_ops.size()], index.column(), role);
}

QVariant DiffOpModel::matchedData(const engine::OpDelta &d, int column, int role) const
{
    if (role == SortRole) {
        switch (column) {
        case StartAColumn: return d.a.startNs.median;
        case StartDeltaColumn: return d.startDeltaNs;
        case DurationAColumn: return d.a.durationNs.median;
        case DurationBColumn: return d.b.durationNs.median;
        case DurationDeltaColumn: return d.durationDeltaNs;
        case VerdictColumn: return d.duration.ratio;
        case GBsAColumn: return d.a.gbPerSecond.median;
        case GBsBColumn: return d.b.gbPerSecond.median;
        default: return {};
        }
    }
    if (role == Qt::ForegroundRole && column == VerdictColumn)
        return verdictBrush(d.duration);
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case StreamColumn: return QString::fromStdString(d.stream);
    case NameAColumn: return QString::fromStdString(d.a.name);
    case NameBColumn: return QString::fromStdString(d.b.name);
    case MatchColumn: return qs(engine::toString(d.method));
    case StartAColumn: return d.a.hasTime ? formatDuration(qint64(d.a.startNs.median)) : QStringLiteral("–");
    case StartDeltaColumn: return d.a.hasTime && d.b.hasTime ? signedDuration(d.startDeltaNs) : QStringLiteral("–");
    case DurationAColumn: return d.a.hasTime ? formatDuration(qint64(d.a.durationNs.median)) : QStringLiteral("–");
    case DurationBColumn: return d.b.hasTime ? formatDuration(qint64(d.b.durationNs.median)) : QStringLiteral("–");
    case DurationDeltaColumn:
        return d.a.hasTime && d.b.hasTime ? signedDuration(d.durationDeltaNs) : QStringLiteral("–");
    case VerdictColumn: return QString::fromStdString(engine::describe(d.duration));
    case GBsAColumn: return gbs(d.a.gbPerSecond);
    case GBsBColumn: return gbs(d.b.gbPerSecond);
    default: return {};
    }
}

QVariant DiffOpModel::unmatchedData(const engine::UnmatchedOp &u, int column, int role) const
{
    const bool isA = u.side == 'A';
    if (role == Qt::ForegroundRole)
        return QBrush(QColor(0x90, 0x60, 0x20));
    if (role == SortRole) {
        if (column == (isA ? DurationAColumn : DurationBColumn))
            return u.op.durationNs.median;
        if (column == StartAColumn && isA)
            return u.op.startNs.median;
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case StreamColumn: return QString::fromStdString(u.stream);
    case NameAColumn: return isA ? QString::fromStdString(u.op.name) : QString();
    case NameBColumn: return isA ? QString() : QString::fromStdString(u.op.name);
    case MatchColumn: return isA ? tr("only in A") : tr("only in B");
    case StartAColumn: return isA && u.op.hasTime ? formatDuration(qint64(u.op.startNs.median)) : QString();
    case DurationAColumn: return isA && u.op.hasTime ? formatDuration(qint64(u.op.durationNs.median)) : QString();
    case DurationBColumn: return !isA && u.op.hasTime ? formatDuration(qint64(u.op.durationNs.median)) : QString();
    case GBsAColumn: return isA ? gbs(u.op.gbPerSecond) : QString();
    case GBsBColumn: return isA ? QString() : gbs(u.op.gbPerSecond);
    default: return QString();
    }
}

QVariant DiffOpModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    switch (section) {
    case StreamColumn: return tr("Stream");
    case NameAColumn: return tr("Op in A");
    case NameBColumn: return tr("Op in B");
    case MatchColumn: return tr("Matched by");
    case StartAColumn: return tr("Start A");
    case StartDeltaColumn: return tr("Δ start");
    case DurationAColumn: return tr("Duration A");
    case DurationBColumn: return tr("Duration B");
    case DurationDeltaColumn: return tr("Δ duration");
    case VerdictColumn: return tr("B vs A");
    case GBsAColumn: return tr("GB/s A");
    case GBsBColumn: return tr("GB/s B");
    default: return {};
    }
}

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
        return verdictBrush(s.busy);
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
