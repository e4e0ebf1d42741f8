// SummaryPanel: the trace's summary table (SummaryModel) under a repetition selector. Choosing a
// repetition here shows it in the timeline too; the median repetition is picked when a trace loads.
#pragma once

#include <QPointer>
#include <QWidget>

#include <memory>
#include <vector>

#include "engine/analysis/summary_metrics.h"
#include "engine/model/trace.h"
#include "ui/common/connection_list.h"
#include "ui/document/trace_document.h"

class QComboBox;
class QLabel;
class QTableView;

namespace streamscope::ui {

class SummaryModel;

class SummaryPanel : public QWidget {
    Q_OBJECT
public:
    explicit SummaryPanel(QWidget *parent = nullptr);

    void setTrace(std::shared_ptr<const engine::Trace> trace);
    // Binds the panel to a document: it shows the document's trace (its summary computed once there) and
    // repetition, and a repetition chosen here becomes the document's. nullptr unbinds.
    void setDocument(TraceDocument *document);
    int repetition() const;
    // The repetition whose makespan is the median (what the timeline shows first).
    int medianRepetition() const;
    SummaryModel *model() const { return m_model; }
    // Presentation mode: the table, heading and selector give way to one strip of the key figures of the
    // repetition shown (makespan, efficiency, overlap, concurrency, bandwidth, host blocked: those that
    // apply), in large type. Off: the full panel again.
    void setCompact(bool compact);
    bool isCompact() const { return m_compact; }
    // The strip's text (plain), for tests.
    QString stripText() const;
    QComboBox *repetitionSelector() const { return m_repetitions; }

public slots:
    void setRepetition(int repetition);

signals:
    void repetitionSelected(int repetition);

private:
    void showTrace(const std::shared_ptr<const engine::Trace> &trace, engine::TraceSummary computed,
                   std::vector<engine::SummaryMetric> rows);
    void updateStrip();

    SummaryModel *m_model;
    QPointer<TraceDocument> m_document;
    ConnectionList m_documentConnections;
    QLabel *m_heading;
    QComboBox *m_repetitions;
    QTableView *m_table;
    QLabel *m_strip;
    QWidget *m_full; // heading, selector and table
    bool m_compact = false;
};

} // namespace streamscope::ui
