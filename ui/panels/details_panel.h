// DetailsPanel: everything known about the selected op (kind, stream, GPU and host times relative to the
// repetition start, bytes, achieved GB/s, memory kinds, copy API, whether it blocked the host) and how the
// same op varied across repetitions (median, min and max GPU time).
#pragma once

#include <QPointer>
#include <QWidget>

#include <memory>
#include <vector>

#include "engine/analysis/interference.h"
#include "engine/analysis/op_statistics.h"
#include "engine/model/trace.h"
#include "ui/common/connection_list.h"
#include "ui/document/trace_document.h"

class QTextBrowser;

namespace streamscope::ui {

class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget *parent = nullptr);

    void setTrace(std::shared_ptr<const engine::Trace> trace);
    // The same with the trace's analysis already computed (a TraceDocument holds it): its per-op
    // statistics and its solo-baseline analysis (null for a trace without solo baselines).
    void setTrace(std::shared_ptr<const engine::Trace> trace,
                  std::shared_ptr<const std::vector<engine::OpStatistics>> statistics,
                  std::shared_ptr<const engine::InterferenceReport> interference);
    // Binds the panel to a document: it shows the document's selected op. nullptr unbinds.
    void setDocument(TraceDocument *document);
    // op == -1 (or out of range) shows a hint instead.
    void showOp(int repetition, int op);
    // The panel's text without markup (tests, copy to clipboard).
    QString plainText() const;

private:
    std::shared_ptr<const engine::Trace> m_trace;
    QPointer<TraceDocument> m_document;
    ConnectionList m_documentConnections;
    // engine::repeatedOpStatistics(*m_trace), once per trace (the document's, shared). Never null.
    std::shared_ptr<const std::vector<engine::OpStatistics>> m_opStatistics =
        std::make_shared<const std::vector<engine::OpStatistics>>();
    // With solo baselines: each op alone against the mix (null without them).
    std::shared_ptr<const engine::InterferenceReport> m_interference;
    QTextBrowser *m_text;
};

} // namespace streamscope::ui
