// SummaryModel: the summary of a trace as a table, one metric per row (makespan, busy % per stream,
// overlap, ideal bound and efficiency, bytes and GB/s per copy kind, host-blocked time), with the value
// of the chosen repetition beside the median, min and max over every repetition (engine::summarize).
#pragma once

#include <QAbstractTableModel>

#include <functional>
#include <memory>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/analysis/summary_metrics.h"
#include "engine/model/trace.h"

namespace streamscope::ui {

class SummaryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { MetricColumn, RepetitionColumn, MedianColumn, MinColumn, MaxColumn, ColumnCount };
    // Raw numeric value of a cell (ns, fraction, bytes or GB/s) for tests and sorting.
    static constexpr int RawValueRole = Qt::UserRole + 1;

    explicit SummaryModel(QObject *parent = nullptr);

    void setTrace(std::shared_ptr<const engine::Trace> trace);
    // The same with the trace's summary already computed (engine::summarize; a TraceDocument holds it).
    void setTrace(std::shared_ptr<const engine::Trace> trace, engine::TraceSummary summary);
    // Which repetition the "this repetition" column shows (index into Trace::repetitions).
    void setRepetition(int repetition);
    int repetition() const { return m_repetition; }
    const engine::TraceSummary &summary() const { return m_summary; }
    bool hasTrace() const { return m_trace != nullptr; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuildRows();

    std::shared_ptr<const engine::Trace> m_trace;
    engine::TraceSummary m_summary;
    int m_repetition = 0;
    std::vector<engine::SummaryMetric> m_rows; // engine::summaryMetrics: the CLI's list too
};

} // namespace streamscope::ui
