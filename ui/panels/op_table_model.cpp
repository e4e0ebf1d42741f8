// OpTableModel: a read-only table over engine::Repetition::ops, times relative to the repetition start.
#include "ui/panels/op_table_model.h"

#include "ui/document/trace_document.h"

#include "ui/common/format_units.h"
#include "ui/common/host_range_labels.h"
#include "ui/timeline/time_mapping.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace streamscope::ui {

OpTableModel::OpTableModel(QObject *parent) : QAbstractTableModel(parent)
{
}

void OpTableModel::setTrace(std::shared_ptr<const engine::Trace> trace, int repetition)
{
    std::shared_ptr<const engine::InterferenceReport> interference = m_interference;
    if (trace.get() != m_interferenceOf)
        interference = trace && !trace->solo.empty()
                           ? std::make_shared<const engine::InterferenceReport>(engine::analyzeInterference(*trace))
                           : nullptr;
    setTrace(std::move(trace), repetition, std::move(interference));
}

void OpTableModel::setTrace(std::shared_ptr<const engine::Trace> trace, int repetition,
                            std::shared_ptr<const engine::InterferenceReport> interference)
{
    beginResetModel();
    m_trace = std::move(trace);
    m_repetition =
        m_trace && !m_trace->repetitions.empty() ? qBound(0, repetition, int(m_trace->repetitions.size()) - 1) : 0;
    m_originNs = currentRepetition() ? m_trace->extent(m_repetition).first : 0;
    m_interferenceOf = m_trace.get();
    m_interference = std::move(interference);
    m_rangeHeader = tr("Range");
    if (const engine::Repetition *rep = currentRepetition(); rep && !rep->hostRanges.empty()) {
        const bool nvtx = std::any_of(rep->hostRanges.begin(), rep->hostRanges.end(), [](const engine::HostRange &h) {
            return h.category == engine::HostRangeCategory::Nvtx;
        });
        m_rangeHeader = nvtx ? hostRangeCategoryLabel(engine::HostRangeCategory::Nvtx)
                             : hostRangeCategoryLabel(engine::HostRangeCategory::CpuOp);
        m_rangeHeader[0] = m_rangeHeader[0].toUpper();
    }
    endResetModel();
}

void OpTableModel::setDocument(TraceDocument *document)
{
    m_documentConnections.clear();
    m_document = document;
    if (!document)
        return;
    m_documentConnections << connect(document, &TraceDocument::traceChanged, this, [this] {
        setTrace(m_document->trace(), m_document->repetition(), m_document->interference());
    });
    m_documentConnections << connect(document, &TraceDocument::repetitionChanged, this, &OpTableModel::setRepetition);
    setTrace(document->trace(), document->repetition(), document->interference());
}

void OpTableModel::setRepetition(int repetition)
{
    if (!m_trace || repetition == m_repetition)
        return;
    setTrace(m_trace, repetition);
}

const engine::Repetition *OpTableModel::currentRepetition() const
{
    if (!m_trace || m_repetition < 0 || m_repetition >= int(m_trace->repetitions.size()))
        return nullptr;
    return &m_trace->repetitions[std::size_t(m_repetition)];
}

int OpTableModel::rowCount(const QModelIndex &parent) const
{
    const engine::Repetition *rep = currentRepetition();
    return parent.isValid() || !rep ? 0 : int(rep->ops.size());
}

int OpTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const engine::OpRecord &op = currentRepetition()->ops[std::size_t(index.row())];
    const bool numeric = index.column() != StreamColumn && index.column() != NameColumn && index.column() != KindColumn
                         && index.column() != RangeColumn && index.column() != LaunchColumn;
    if (role == Qt::TextAlignmentRole)
        return numeric ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    const bool display = role != SortRole;
    switch (index.column()) {
    case IndexColumn: return display ? QVariant(index.row()) : QVariant(qint64(index.row()));
    case StreamColumn:
        if (op.stream >= 0 && op.stream < int(m_trace->streams.size()))
            return QString::fromStdString(m_trace->streams[std::size_t(op.stream)].name);
        return tr("host");
    case NameColumn: {
        if (role == Qt::ToolTipRole)
            if (const engine::KernelLaunch *l = currentRepetition()->launchOf(index.row());
                l && l->fullNameId != engine::kNoString)
                return QString::fromStdString(m_trace->string(l->fullNameId)); // the demangled signature
        return QString::fromStdString(m_trace->name(op));
    }
    case RangeColumn: return QString::fromStdString(m_trace->rangeName(*currentRepetition(), op));
    case KindColumn: {
        QString kind = QString::fromUtf8(engine::toString(op.kind).data(), qsizetype(engine::toString(op.kind).size()));
        if (op.flags & engine::OpFlagHostBlocking)
            kind += tr(" (blocks host)");
        return kind;
    }
    case StartColumn: {
        const std::int64_t start = op.hasGpu() ? op.gpuStartNs : op.hostStartNs;
        if (start == engine::kNoTime)
            return display ? QVariant() : QVariant(qint64(-1));
        return display ? QVariant(formatDuration(start - m_originNs)) : QVariant(qint64(start - m_originNs));
    }
    case DurationColumn:
        if (!op.hasGpu())
            return display ? QVariant() : QVariant(qint64(-1));
        return display ? QVariant(formatDuration(op.gpuDurationNs())) : QVariant(qint64(op.gpuDurationNs()));
    case BytesColumn:
        if (op.bytes == 0)
            return display ? QVariant() : QVariant(qint64(0));
        return display ? QVariant(formatBytes(op.bytes)) : QVariant(qint64(op.bytes));
    case BandwidthColumn: {
        const double gbs = engine::isCopy(op.kind) ? op.gbPerSecond() : 0.0;
        if (gbs <= 0)
            return display ? QVariant() : QVariant(0.0);
        return display ? QVariant(formatGBs(gbs)) : QVariant(gbs);
    }
    case HostCallColumn:
        if (!op.hasHost())
            return display ? QVariant() : QVariant(qint64(-1));
        return display ? QVariant(formatDuration(op.hostDurationNs())) : QVariant(qint64(op.hostDurationNs()));
    case LaunchColumn: {
        const engine::KernelLaunch *l = currentRepetition()->launchOf(index.row());
        if (!l || !l->hasGrid() || !l->hasBlock())
            return display ? QVariant() : QVariant(qint64(0));
        if (!display)
            return qint64(std::min<std::uint64_t>(l->threads(), std::uint64_t(INT64_MAX))); // sorts by threads
        QString text = QStringLiteral("%1×%2×%3 · %4×%5×%6")
                           .arg(l->grid[0])
                           .arg(l->grid[1])
                           .arg(l->grid[2])
                           .arg(l->block[0])
                           .arg(l->block[1])
                           .arg(l->block[2]);
        if (role == Qt::ToolTipRole) {
            text = tr("grid %1, block %2")
                       .arg(text.section(QStringLiteral(" · "), 0, 0), text.section(QStringLiteral(" · "), 1, 1));
            if (l->sharedBytes >= 0)
                text += tr(", %1 shared memory per block").arg(formatBytes(std::uint64_t(l->sharedBytes)));
            if (l->registersPerThread >= 0)
                text += tr(", %1 registers per thread").arg(l->registersPerThread);
        }
        return text;
    }
    case AloneColumn: {
        const engine::OpSlowdown *s =
            m_interference && m_interference->known && std::size_t(index.row()) < m_interference->ops.size()
                ? &m_interference->ops[std::size_t(index.row())]
                : nullptr;
        if (!s || !s->known() || !op.hasGpu())
            return display ? QVariant() : QVariant(0.0);
        const double change = double(op.gpuDurationNs()) / s->soloNs.median - 1.0;
        if (role == Qt::ToolTipRole)
            return tr("This repetition: %1 against %2 alone (median of %3 solo runs). Over every repetition: %4")
                .arg(formatDuration(op.gpuDurationNs()), formatDuration(std::llround(s->soloNs.median)))
                .arg(s->soloNs.count)
                .arg(QString::fromStdString(engine::describeSlowdown(*m_trace, *s)));
        return display ? QVariant(QStringLiteral("%1%2 %")
                                      .arg(change >= 0 ? QStringLiteral("+") : QString())
                                      .arg(change * 100, 0, 'f', 1))
                       : QVariant(change);
    }
    default: return {};
    }
}

QVariant OpTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case IndexColumn: return tr("#");
    case StreamColumn: return tr("Stream");
    case NameColumn: return tr("Name");
    case RangeColumn: return m_rangeHeader;
    case KindColumn: return tr("Kind");
    case StartColumn: return tr("Start");
    case DurationColumn: return tr("GPU time");
    case BytesColumn: return tr("Bytes");
    case BandwidthColumn: return tr("GB/s");
    case HostCallColumn: return tr("Host call");
    case LaunchColumn: return tr("Grid · block");
    case AloneColumn: return tr("vs alone");
    default: return {};
    }
}

OpTableProxy::OpTableProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(OpTableModel::SortRole);
}

void OpTableProxy::setDocument(TraceDocument *document)
{
    disconnect(m_connection);
    m_document = document;
    if (document)
        m_connection = connect(document, &TraceDocument::matchesChanged, this, [this] { invalidateFilter(); });
    invalidateFilter();
}

bool OpTableProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    if (left.column() == OpTableModel::IndexColumn && right.column() == OpTableModel::IndexColumn)
        return left.row() < right.row();
    return QSortFilterProxyModel::lessThan(left, right);
}

bool OpTableProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (sourceParent.isValid() || !m_document || !m_document->filtering())
        return true;
    return m_document->isMatch(sourceRow);
}

} // namespace streamscope::ui
