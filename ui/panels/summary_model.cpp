// SummaryModel: the rows are engine::summaryMetrics (the CLI's summary shows the same list), extractors
// over engine::RepetitionStats, so each metric's spread across repetitions comes from the same function
// that fills the per-repetition column.
#include "ui/panels/summary_model.h"

#include <QBrush>
#include <QFont>
#include <QRegularExpression>
#include <QStringList>

#include <cmath>

#include "ui/common/format_units.h"
#include "ui/timeline/time_mapping.h"

namespace streamscope::ui {

SummaryModel::SummaryModel(QObject *parent) : QAbstractTableModel(parent)
{
}

void SummaryModel::setTrace(std::shared_ptr<const engine::Trace> trace)
{
    engine::TraceSummary summary = trace ? engine::summarize(*trace) : engine::TraceSummary{};
    std::vector<engine::SummaryMetric> rows =
        trace ? engine::summaryMetrics(*trace, summary) : std::vector<engine::SummaryMetric>{};
    setTrace(std::move(trace), std::move(summary), std::move(rows));
}

void SummaryModel::setTrace(std::shared_ptr<const engine::Trace> trace, engine::TraceSummary summary,
                            std::vector<engine::SummaryMetric> rows)
{
    beginResetModel();
    m_trace = std::move(trace);
    m_summary = std::move(summary);
    m_repetition = m_summary.repetitions.empty() ? 0 : m_summary.medianRepetition;
    m_rows = m_trace ? std::move(rows) : std::vector<engine::SummaryMetric>{};
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
    case Qt::DisplayRole:
        // A metric no repetition has (the price of overlap without solo baselines) says why, once.
        if (std::isnan(value) && !row.whenUnknown.empty() && row.spread.count == 0)
            return index.column() == MedianColumn ? qs(row.whenUnknown) : QString();
        return qs(engine::formatMetric(row.unit, value));
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

std::vector<SummaryModel::KeyFigure> SummaryModel::keyFigures() const
{
    std::vector<KeyFigure> figures;
    if (!m_trace || m_summary.repetitions.empty())
        return figures;
    const auto &shown = m_summary.repetitions[std::size_t(m_repetition)];
    // In this order; the metrics are engine::summaryMetrics' rows, matched by name. With several GPUs
    // there is no trace-wide bandwidth (it would add links together): each GPU's host link and each
    // peer link has its own, and a peer link's share of its peak goes beside it.
    static const QRegularExpression wanted[] = {
        QRegularExpression(QStringLiteral("^Makespan$")),
        QRegularExpression(QStringLiteral("^Efficiency$")),
        QRegularExpression(QStringLiteral("^Host copy/compute overlap$")),
        QRegularExpression(QStringLiteral("^Concurrent GPU time$")),
        QRegularExpression(QStringLiteral("^(H2D|D2H|D2D|P2P) bandwidth$")),
        QRegularExpression(QStringLiteral("^GPU \\d+: (H2D|D2H) bandwidth$")),
        QRegularExpression(QStringLiteral("^P2P[^:]*: bandwidth$")),
        QRegularExpression(QStringLiteral("^Host blocked$")),
    };
    auto valueOf = [&](const engine::SummaryMetric &row) { return row.value(shown); };
    for (const QRegularExpression &pattern : wanted) {
        for (const engine::SummaryMetric &row : m_rows) {
            const QString name = qs(row.label);
            if (!pattern.match(name).hasMatch())
                continue;
            const double raw = valueOf(row);
            const QString value = qs(engine::formatMetric(row.unit, raw));
            // Nothing to read in a zero (no overlap in a one-stream lesson is said by the picture already),
            // or in what prints as one (a capture's few-byte copies: "0 GB/s"), except for the makespan and
            // the host-blocked time, whose zero is the point of a lesson.
            const bool keepZero = name == QLatin1String("Makespan") || name == QLatin1String("Host blocked");
            if (std::isnan(raw) || value.isEmpty() || value == QLatin1String("-")
                || ((raw == 0 || value == qs(engine::formatMetric(row.unit, 0))) && !keepZero))
                continue;
            KeyFigure figure{name, value, {}};
            if (name.startsWith(QLatin1String("P2P")) && name.contains(QLatin1Char(':'))) {
                // "P2P GPU 0→1: bandwidth" -> "P2P GPU 0→1 bandwidth", noted with its row "P2P GPU 0→1: of NVLink
                // peak".
                const QString link = name.section(QLatin1Char(':'), 0, 0);
                figure.name = link + QStringLiteral(" bandwidth");
                for (const engine::SummaryMetric &peak : m_rows) {
                    const QString peakName = qs(peak.label);
                    if (peakName.startsWith(link + QStringLiteral(": of ")) && !std::isnan(valueOf(peak)))
                        figure.note = qs(engine::formatMetric(peak.unit, valueOf(peak))) + QLatin1Char(' ')
                                      + peakName.mid(link.size() + 2);
                }
            } else if (name.startsWith(QLatin1String("GPU "))) {
                figure.name.remove(QLatin1Char(':')); // "GPU 1: D2H bandwidth" -> "GPU 1 D2H bandwidth"
            }
            figures.push_back(std::move(figure));
        }
    }
    return figures;
}

QString SummaryModel::keyFiguresText() const
{
    QStringList parts;
    for (const KeyFigure &figure : keyFigures())
        parts << figure.name + QLatin1Char(' ') + figure.value
                     + (figure.note.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(figure.note));
    return parts.join(QStringLiteral(" · "));
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
