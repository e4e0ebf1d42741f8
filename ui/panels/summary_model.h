// SummaryModel: the summary of a trace as a table, one metric per row (makespan, busy % per stream,
// overlap, ideal bound and efficiency, bytes and GB/s per copy kind, host-blocked time), with the value
// of the chosen repetition beside the median, min and max over every repetition (engine::summarize).
#pragma once

#include <QAbstractTableModel>
#include <QString>

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
    // The same with the trace's summary and its rows already computed (engine::summarize and
    // engine::summaryMetrics of this trace; a TraceDocument holds them).
    void setTrace(std::shared_ptr<const engine::Trace> trace, engine::TraceSummary summary,
                  std::vector<engine::SummaryMetric> rows);
    // Which repetition the "this repetition" column shows (index into Trace::repetitions).
    void setRepetition(int repetition);
    int repetition() const { return m_repetition; }
    const engine::TraceSummary &summary() const { return m_summary; }
    bool hasTrace() const { return m_trace != nullptr; }

    // The figures a class reads off a lesson, for the repetition shown: makespan, efficiency, copy/compute
    // overlap, concurrent GPU time, the achieved bandwidth of every copy direction (trace-wide on one
    // GPU; with several, each GPU's host link and each peer link, against its peak where known) and the
    // host-blocked time, those the trace has a value for. Presentation mode's strip and exported slides
    // show them.
    struct KeyFigure {
        QString name; // "H2D bandwidth", "GPU 1 D2H bandwidth", "P2P GPU 0→1 bandwidth"
        QString value; // "51.7 GB/s"
        QString note; // what the value is against, or empty: "44.4 % of NVLink peak"
    };
    std::vector<KeyFigure> keyFigures() const;
    // The same as one line of plain text ("Makespan 649 µs · ... · P2P GPU 0→1 bandwidth 200 GB/s (44.4 % of
    // NVLink peak) · ..."), empty without a trace.
    QString keyFiguresText() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const engine::Trace> m_trace;
    engine::TraceSummary m_summary;
    int m_repetition = 0;
    std::vector<engine::SummaryMetric> m_rows; // engine::summaryMetrics: the CLI's list too
};

} // namespace streamscope::ui
