// OpDeltaModel: see op_delta_model.h.
#include "ui/compare/op_delta_model.h"

#include <QBrush>
#include <QColor>

#include "ui/common/format_units.h"
#include "ui/common/verdict_brush.h"

namespace streamscope::ui {

namespace {

const QString kDash = QStringLiteral("–");

std::optional<double> gbsOf(const engine::Spread &s)
{
    return s.count > 0 && s.median > 0 ? std::optional<double>(s.median) : std::nullopt;
}

std::optional<double> percentOf(const OpDeltaRow &row)
{
    if (!row.durationDelta || !row.durationA || *row.durationA <= 0)
        return std::nullopt;
    return 100.0 * *row.durationDelta / *row.durationA;
}

} // namespace

OpDeltaModel::OpDeltaModel(QObject *parent) : QAbstractTableModel(parent)
{
}

void OpDeltaModel::setSideNames(const QString &a, const QString &b)
{
    m_sideA = a;
    m_sideB = b;
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    if (!m_rows.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void OpDeltaModel::setDiff(const engine::TraceDiff &diff)
{
    std::vector<OpDeltaRow> rows;
    rows.reserve(diff.ops.size() + diff.unmatched.size());
    for (const engine::OpDelta &d : diff.ops) {
        OpDeltaRow row;
        row.lane = QString::fromStdString(d.stream);
        row.nameA = QString::fromStdString(d.a.name);
        row.nameB = QString::fromStdString(d.b.name);
        row.kind = d.a.kind;
        row.match = d.method == engine::MatchMethod::ByOrder ? OpDeltaRow::Match::ByOrder : OpDeltaRow::Match::ByName;
        if (d.a.hasTime) {
            row.startA = d.a.startNs.median;
            row.durationA = d.a.durationNs.median;
        }
        if (d.b.hasTime)
            row.durationB = d.b.durationNs.median;
        if (d.a.hasTime && d.b.hasTime) {
            row.startDelta = d.startDeltaNs;
            row.durationDelta = d.durationDeltaNs;
        }
        row.gbpsA = gbsOf(d.a.gbPerSecond);
        row.gbpsB = gbsOf(d.b.gbPerSecond);
        row.verdict = d.duration;
        rows.push_back(std::move(row));
    }
    m_matched = int(rows.size());
    for (const engine::UnmatchedOp &u : diff.unmatched) {
        const bool isA = u.side == 'A';
        OpDeltaRow row;
        row.lane = QString::fromStdString(u.stream);
        (isA ? row.nameA : row.nameB) = QString::fromStdString(u.op.name);
        row.kind = u.op.kind;
        row.match = isA ? OpDeltaRow::Match::OnlyA : OpDeltaRow::Match::OnlyB;
        if (u.op.hasTime) {
            (isA ? row.durationA : row.durationB) = u.op.durationNs.median;
            if (isA)
                row.startA = u.op.startNs.median;
        }
        (isA ? row.gbpsA : row.gbpsB) = gbsOf(u.op.gbPerSecond);
        rows.push_back(std::move(row));
    }
    setRows(std::move(rows));
    setSideNames(QStringLiteral("A"), QStringLiteral("B"));
}

void OpDeltaModel::setNsightComparison(const engine::NsightComparison &comparison)
{
    std::vector<OpDeltaRow> rows;
    rows.reserve(comparison.ops.size());
    for (const engine::NsightOpDelta &op : comparison.ops) {
        OpDeltaRow row;
        row.lane = QString::fromStdString(op.lane);
        if (op.nsightLane != op.lane) {
            row.laneB = QString::fromStdString(op.nsightLane);
            row.laneNote = QString::fromStdString(op.laneNote);
        }
        row.nameA = QString::fromStdString(op.name);
        row.nameB = QString::fromStdString(op.nsightName);
        row.kind = op.kind;
        row.match = op.byOrder ? OpDeltaRow::Match::ByOrder : OpDeltaRow::Match::ByName;
        row.samples = op.samples;
        if (op.samples > 0) {
            row.durationA = op.ownDurationNs;
            row.durationB = op.nsightDurationNs;
            row.durationDelta = op.durationDeltaNs;
            row.startDelta = op.startDeltaNs;
        }
        rows.push_back(std::move(row));
    }
    // The comparison counts the ops found on one side only, but keeps no rows for them.
    m_matched = int(rows.size());
    setRows(std::move(rows));
    setSideNames(QStringLiteral("StreamScope"), QStringLiteral("Nsight"));
}

void OpDeltaModel::setRows(std::vector<OpDeltaRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_hasColumn.fill(false);
    for (int column : {StreamColumn, NameAColumn, KindColumn, MatchColumn})
        m_hasColumn[std::size_t(column)] = true;
    for (const OpDeltaRow &row : m_rows) {
        m_hasColumn[NameBColumn] = m_hasColumn[NameBColumn] || row.nameB != row.nameA;
        m_hasColumn[SamplesColumn] = m_hasColumn[SamplesColumn] || row.samples >= 0;
        m_hasColumn[StartAColumn] = m_hasColumn[StartAColumn] || row.startA.has_value();
        m_hasColumn[StartDeltaColumn] = m_hasColumn[StartDeltaColumn] || row.startDelta.has_value();
        m_hasColumn[DurationAColumn] = m_hasColumn[DurationAColumn] || row.durationA.has_value();
        m_hasColumn[DurationBColumn] = m_hasColumn[DurationBColumn] || row.durationB.has_value();
        m_hasColumn[DurationDeltaColumn] = m_hasColumn[DurationDeltaColumn] || row.durationDelta.has_value();
        m_hasColumn[DurationDeltaPctColumn] = m_hasColumn[DurationDeltaPctColumn] || percentOf(row).has_value();
        m_hasColumn[VerdictColumn] = m_hasColumn[VerdictColumn] || row.verdict.has_value();
        m_hasColumn[GBsAColumn] = m_hasColumn[GBsAColumn] || row.gbpsA.has_value();
        m_hasColumn[GBsBColumn] = m_hasColumn[GBsBColumn] || row.gbpsB.has_value();
    }
    endResetModel();
}

bool OpDeltaModel::hasColumn(int column) const
{
    return column >= 0 && column < ColumnCount && m_hasColumn[std::size_t(column)];
}

int OpDeltaModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int OpDeltaModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpDeltaModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const OpDeltaRow &row = m_rows[std::size_t(index.row())];
    const int column = index.column();
    const bool oneSide = row.match == OpDeltaRow::Match::OnlyA || row.match == OpDeltaRow::Match::OnlyB;
    switch (role) {
    case Qt::DisplayRole: return display(row, column);
    case SortRole: return sortValue(row, column);
    case Qt::ToolTipRole: return toolTip(row, column);
    case Qt::TextAlignmentRole:
        return column >= SamplesColumn ? int(Qt::AlignRight | Qt::AlignVCenter) : int(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (oneSide)
            return QBrush(QColor(0x90, 0x60, 0x20));
        if (column == VerdictColumn && row.verdict)
            return verdictBrush(row.verdict->kind);
        return {};
    default: return {};
    }
}

QVariant OpDeltaModel::display(const OpDeltaRow &row, int column) const
{
    // An aligned op without a value shows a dash; the missing side of a one-sided op stays empty.
    const bool oneSide = row.match == OpDeltaRow::Match::OnlyA || row.match == OpDeltaRow::Match::OnlyB;
    const QString none = oneSide ? QString() : kDash;
    auto duration = [&](const std::optional<double> &ns) { return ns ? formatDuration(qint64(*ns)) : none; };
    auto delta = [&](const std::optional<double> &ns) { return ns ? formatSignedDuration(*ns) : none; };
    auto rate = [&](const std::optional<double> &gbs) { return gbs ? formatGBs(*gbs) : none; };
    switch (column) {
    case StreamColumn: return row.laneB.isEmpty() ? row.lane : tr("%1 (%2: %3)").arg(row.lane, m_sideB, row.laneB);
    case NameAColumn: return row.nameA;
    case NameBColumn: return row.nameB;
    case KindColumn: return qs(engine::toString(row.kind));
    case MatchColumn:
        switch (row.match) {
        case OpDeltaRow::Match::ByName: return row.laneB.isEmpty() ? tr("name") : tr("name, other stream");
        case OpDeltaRow::Match::ByOrder: return tr("order");
        case OpDeltaRow::Match::OnlyA: return tr("only in %1").arg(m_sideA);
        case OpDeltaRow::Match::OnlyB: return tr("only in %1").arg(m_sideB);
        }
        return {};
    case SamplesColumn: return row.samples >= 0 ? QVariant(row.samples) : QVariant(QString());
    case StartAColumn: return row.match == OpDeltaRow::Match::OnlyB ? QString() : duration(row.startA);
    case StartDeltaColumn: return oneSide ? QString() : delta(row.startDelta);
    case DurationAColumn: return row.match == OpDeltaRow::Match::OnlyB ? QString() : duration(row.durationA);
    case DurationBColumn: return row.match == OpDeltaRow::Match::OnlyA ? QString() : duration(row.durationB);
    case DurationDeltaColumn: return oneSide ? QString() : delta(row.durationDelta);
    case DurationDeltaPctColumn: {
        const auto pct = percentOf(row);
        if (!pct)
            return oneSide ? QString() : kDash;
        return QStringLiteral("%1%2 %").arg(*pct < 0 ? QString() : QStringLiteral("+"), QString::number(*pct, 'f', 1));
    }
    case VerdictColumn: return row.verdict ? QString::fromStdString(engine::describe(*row.verdict)) : QString();
    case GBsAColumn: return row.match == OpDeltaRow::Match::OnlyB ? QString() : rate(row.gbpsA);
    case GBsBColumn: return row.match == OpDeltaRow::Match::OnlyA ? QString() : rate(row.gbpsB);
    default: return {};
    }
}

QVariant OpDeltaModel::sortValue(const OpDeltaRow &row, int column) const
{
    auto number = [](const std::optional<double> &v) { return v ? QVariant(*v) : QVariant(); };
    switch (column) {
    case StreamColumn: return row.lane;
    case NameAColumn: return row.nameA;
    case NameBColumn: return row.nameB;
    case KindColumn: return int(row.kind);
    case MatchColumn: return int(row.match);
    case SamplesColumn: return row.samples;
    case StartAColumn: return number(row.startA);
    case StartDeltaColumn: return number(row.startDelta);
    case DurationAColumn: return number(row.durationA);
    case DurationBColumn: return number(row.durationB);
    case DurationDeltaColumn: return number(row.durationDelta);
    case DurationDeltaPctColumn: return number(percentOf(row));
    case VerdictColumn: return row.verdict ? QVariant(row.verdict->ratio) : QVariant();
    case GBsAColumn: return number(row.gbpsA);
    case GBsBColumn: return number(row.gbpsB);
    default: return {};
    }
}

QVariant OpDeltaModel::toolTip(const OpDeltaRow &row, int column) const
{
    switch (column) {
    case StreamColumn:
        if (!row.laneB.isEmpty())
            return tr("%1 shows this op on %2: %3")
                .arg(m_sideB, row.laneB,
                     row.laneNote.isEmpty() ? tr("a synchronous cudaMemcpy runs on the legacy default stream whatever "
                                                 "stream the workload named")
                                            : row.laneNote);
        return {};
    case MatchColumn:
        if (row.match == OpDeltaRow::Match::ByOrder)
            return tr("No op of %1 carries this name in this stream; paired with %1's \"%2\" by its position")
                .arg(m_sideB, row.nameB);
        return {};
    case StartDeltaColumn: return tr("%1 - %2, each start from its repetition's start").arg(m_sideB, m_sideA);
    case DurationDeltaColumn:
    case DurationDeltaPctColumn:
        return tr("%1 - %2 (% of %2's duration): negative means %2 measured a longer interval").arg(m_sideB, m_sideA);
    default: return {};
    }
}

QVariant OpDeltaModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    switch (section) {
    case StreamColumn: return tr("Stream");
    case NameAColumn: return tr("Op in %1").arg(m_sideA);
    case NameBColumn: return tr("Op in %1").arg(m_sideB);
    case KindColumn: return tr("Kind");
    case MatchColumn: return tr("Matched by");
    case SamplesColumn: return tr("Reps");
    case StartAColumn: return tr("Start %1").arg(m_sideA);
    case StartDeltaColumn: return tr("Δ start");
    case DurationAColumn: return tr("Duration %1").arg(m_sideA);
    case DurationBColumn: return tr("Duration %1").arg(m_sideB);
    case DurationDeltaColumn: return tr("Δ duration");
    case DurationDeltaPctColumn: return tr("Δ duration %");
    case VerdictColumn: return tr("%1 vs %2").arg(m_sideB, m_sideA);
    case GBsAColumn: return tr("GB/s %1").arg(m_sideA);
    case GBsBColumn: return tr("GB/s %1").arg(m_sideB);
    default: return {};
    }
}

} // namespace streamscope::ui
