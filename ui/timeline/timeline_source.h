// TimelineSource: what the timeline shows and where it comes from: one repetition of a trace, the lane
// options, the lanes built for them (the document's analysis hands over the first ones,
// TraceDocument::takeLanes, when they are of the same trace, repetition and options) and the lane tree
// over them with its arrangement (LaneArrangement); and the document the view is bound to, if any,
// whose trace, repetition, lane arrangement, selection and find matches the view follows. The view
// redraws on its signals; what the user does in the view goes back to the document through the view.
#pragma once

#include <QObject>
#include <QPointer>

#include <memory>

#include "engine/model/trace.h"
#include "ui/common/connection_list.h"
#include "ui/document/trace_document.h"
#include "ui/timeline/lane_arrangement.h"
#include "ui/timeline/lane_model.h"

namespace streamscope::ui {

class TimelineSource : public QObject {
    Q_OBJECT

public:
    explicit TimelineSource(QObject *parent = nullptr);
    ~TimelineSource() override;

    // Shows one repetition of a trace (nullptr: none; the repetition is clamped to the trace's): the
    // lanes are built again (lanesChanged(true)). The source keeps the trace alive.
    void setTrace(std::shared_ptr<const engine::Trace> trace, int repetition);
    const std::shared_ptr<const engine::Trace> &trace() const { return m_trace; }
    // Another repetition of the trace, as setTrace; nothing when it is the one shown and has lanes.
    void setRepetition(int repetition);
    int repetition() const { return m_repetition; }
    // Other lane options: the same repetition's lanes built again (lanesChanged(false)) where there are
    // lanes; op indexes do not change.
    void setLaneOptions(const LaneOptions &options);
    const LaneOptions &laneOptions() const { return m_laneOptions; }
    // How the lanes of a repetition are built with the lane options as they are now (TimelineView::laneBuilder).
    LaneBuilder laneBuilder() const;
    // The lanes of the shown repetition; nullptr without a trace (or one without repetitions).
    const LaneModel *lanes() const { return m_lanes.get(); }
    LaneArrangement &arrangement() { return m_arrangement; }
    const LaneArrangement &arrangement() const { return m_arrangement; }

    // Binds to a document (nullptr unbinds): its trace and repetition are shown from then on (the caller
    // shows the current ones, setTrace), its lane arrangement is the rows', and its selection and
    // matches are signalled.
    void setDocument(TraceDocument *document);
    TraceDocument *document() const { return m_document; }
    // Whether the document's trace and repetition are the ones shown: then its matches, selection and
    // range are this view's.
    bool showsDocument() const;

signals:
    // The lanes were built again: for another trace or repetition (reset: the selection, window and
    // key figure mean nothing now), or for other lane options (op indexes unchanged).
    void lanesChanged(bool reset);
    // The rows' arrangement changed (the document's or the view's own).
    void arrangementChanged();
    // The document selected an op (-1: none) of a repetition.
    void documentSelected(int repetition, int op);
    // The document's find matches or multiple selection changed: what is drawn over the lanes.
    void documentOverlayChanged();

private:
    void rebuild(bool reset);
    // The lanes of m_trace's m_repetition: the document's when they fit, else built here.
    std::shared_ptr<const LaneModel> makeLanes();

    std::shared_ptr<const engine::Trace> m_trace;
    int m_repetition = 0;
    LaneOptions m_laneOptions;
    QPointer<TraceDocument> m_document;
    ConnectionList m_documentConnections;
    std::shared_ptr<const LaneModel> m_lanes;
    LaneArrangement m_arrangement{[this] { emit arrangementChanged(); }}; // the tree over m_lanes and its rows
};

} // namespace streamscope::ui
