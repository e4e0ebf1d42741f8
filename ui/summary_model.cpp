// SummaryModel: rows are extractors over engine::RepetitionStats, so each metric's spread across
// repetitions comes from the same function that fills the per-repetition column.
#include "ui/summary_model.h"

#include <QBrush>
#include <QFont>

#include "ui/format_units.h"
#include "ui/time_mapping.h"

namespace streamscope::ui {

SummaryModel::SummaryModel(QObject *parent) : QAbstractTableModel(parent) {}

void SummaryModel::setTrace(std::shared_ptr<const engine::Trace> trace)
{
    beginResetModel();
    m_trace = std::move(trace);
    m_summary = m_trace ? engine::summarize(*m_trace) : engine::TraceSummary{};
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
    using RS = engine::RepetitionStats;
    m_rows.clear();
    if (!m_trace || m_summary.repetitions.empty())
        return;
    auto add = [this](QString label, QString tip, Unit unit, std::function<double(const RS &)> fn) {
        m_rows.push_back({std::move(label), std::move(tip), unit, std::move(fn), {}});
    };
    add(tr("Makespan"), tr("First host call or GPU start to the last GPU end or host return"), Unit::Duration,
        [](const RS &r) { return double(r.makespanNs); });
    add(tr("GPU span"), tr("First GPU start to last GPU end"), Unit::Duration,
        [](const RS &r) { return double(r.gpuSpanNs); });
    add(tr("Ideal bound"), tr("The busiest engine's time: the makespan if everything overlapped perfectly"),
        Unit::Duration, [](const RS &r) { return double(r.idealBoundNs); });
    add(tr("Efficiency"), tr("Ideal bound / makespan"), Unit::Fraction, [](const RS &r) { return r.efficiency; });
    add(tr("Copy/compute overlap"),
        tr("Time with a copy and a kernel both active, over the smaller of copy and compute busy time"),
        Unit::Fraction, [](const RS &r) { return r.overlapFraction; });
    add(tr("Concurrent GPU time"), tr("Time with two or more GPU operations active"), Unit::Duration,
        [](const RS &r) { return double(r.concurrentNs); });
    for (std::size_t s = 0; s < m_trace->streams.size(); ++s) {
        add(tr("Busy: %1").arg(QString::fromStdString(m_trace->streams[s].name)),
            tr("Union of this stream's GPU intervals over the makespan"), Unit::Fraction,
            [s](const RS &r) { return s < r.streams.size() ? r.streams[s].busyFraction : 0.0; });
    }
    struct CopyKind {
        const char *name;
        std::uint64_t RS::*bytes;
        double RS::*gbs;
    };
    for (const CopyKind &kind : {CopyKind{"H2D", &RS::h2dBytes, &RS::h2dGBs}, CopyKind{"D2H", &RS::d2hBytes, &RS::d2hGBs},
                                 CopyKind{"D2D", &RS::d2dBytes, &RS::d2dGBs}}) {
        // Directions a workload never uses would only add rows of zeros.
        bool used = false;
        for (const RS &r : m_summary.repetitions)
            used = used || r.*kind.bytes > 0;
        if (!used)
            continue;
        const QString name = QString::fromLatin1(kind.name);
        add(tr("%1 bytes").arg(name), tr("Bytes copied in this direction"), Unit::Bytes,
            [b = kind.bytes](const RS &r) { return double(r.*b); });
        add(tr("%1 bandwidth").arg(name), tr("Bytes over the union time of the copies in this direction"),
            Unit::Bandwidth, [g = kind.gbs](const RS &r) { return r.*g; });
    }
    // Unified memory, from the driver's records (runs with managed memory, timed by CUPTI).
    bool unified = false;
    for (const RS &r : m_summary.repetitions)
        unified = unified || r.unifiedMemory.any();
    if (unified) {
        bool toGpu = false, toHost = false; // a direction nothing moved in would only add rows of zeros
        for (const RS &r : m_summary.repetitions) {
            toGpu = toGpu || r.unifiedMemory.h2dBytes > 0;
            toHost = toHost || r.unifiedMemory.d2hBytes > 0;
        }
        if (toGpu) {
            add(tr("Migrated to the GPU"), tr("Managed memory the driver moved to the GPU (page faults and prefetches)"),
                Unit::Bytes, [](const RS &r) { return double(r.unifiedMemory.h2dBytes); });
            add(tr("Migration throughput to the GPU"), tr("Those bytes over the union time of the migrations"),
                Unit::Bandwidth, [](const RS &r) { return r.unifiedMemory.h2dGBs; });
        }
        if (toHost) {
            add(tr("Migrated to the host"), tr("Managed memory the driver moved to the host"), Unit::Bytes,
                [](const RS &r) { return double(r.unifiedMemory.d2hBytes); });
            add(tr("Migration throughput to the host"), tr("Those bytes over the union time of the migrations"),
                Unit::Bandwidth, [](const RS &r) { return r.unifiedMemory.d2hGBs; });
        }
        add(tr("GPU page faults"), tr("Faults the GPU raised on managed memory that was not resident"), Unit::Count,
            [](const RS &r) { return double(r.unifiedMemory.gpuPageFaults); });
        add(tr("Page-fault handling"), tr("Union of the time the driver spent on fault groups, until their replay"),
            Unit::Duration, [](const RS &r) { return double(r.unifiedMemory.gpuFaultNs); });
    }
    add(tr("Host time in API calls"), tr("Time the host thread spent inside CUDA calls"), Unit::Duration,
        [](const RS &r) { return double(r.hostCallNs); });
    add(tr("Host blocked"), tr("The part of that spent in calls that waited for the GPU"), Unit::Duration,
        [](const RS &r) { return double(r.hostBlockedNs); });

    for (Row &row : m_rows) {
        std::vector<double> samples;
        samples.reserve(m_summary.repetitions.size());
        for (const RS &r : m_summary.repetitions)
            samples.push_back(row.value(r));
        row.spread = engine::spreadOf(std::move(samples));
    }
}

QString SummaryModel::format(Unit unit, double value) const
{
    switch (unit) {
    case Unit::Duration: return formatDuration(qint64(value));
    case Unit::Fraction: return formatPercent(value);
    case Unit::Bytes: return formatBytes(std::uint64_t(value));
    case Unit::Bandwidth: return formatGBs(value);
    case Unit::Count: return QString::number(qint64(value));
    }
    return {};
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
    const Row &row = m_rows[std::size_t(index.row())];
    double value = 0;
    switch (index.column()) {
    case MetricColumn:
        if (role == Qt::DisplayRole)
            return row.label;
        if (role == Qt::ToolTipRole)
            return row.toolTip;
        return {};
    case RepetitionColumn: value = row.value(m_summary.repetitions[std::size_t(m_repetition)]); break;
    case MedianColumn: value = row.spread.median; break;
    case MinColumn: value = row.spread.min; break;
    case MaxColumn: value = row.spread.max; break;
    default: return {};
    }
    switch (role) {
    case Qt::DisplayRole: return format(row.unit, value);
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
        return m_summary.repetitions.empty()
                   ? tr("Repetition")
                   : tr("Rep. %1").arg(m_repetition + 1);
    case MedianColumn: return tr("Median");
    case MinColumn: return tr("Min");
    case MaxColumn: return tr("Max");
    default: return {};
    }
}

} // namespace streamscope::ui
