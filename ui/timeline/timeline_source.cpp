// TimelineSource (see timeline_source.h).
#include "ui/timeline/timeline_source.h"

#include <algorithm>

namespace streamscope::ui {

TimelineSource::TimelineSource(QObject *parent) : QObject(parent)
{
}

TimelineSource::~TimelineSource() = default;

void TimelineSource::setTrace(std::shared_ptr<const engine::Trace> trace, int repetition)
{
    m_trace = std::move(trace);
    m_repetition = repetition;
    rebuild(true);
}

void TimelineSource::setRepetition(int repetition)
{
    if (repetition == m_repetition && m_lanes)
        return;
    m_repetition = repetition;
    rebuild(true);
}

void TimelineSource::setLaneOptions(const LaneOptions &options)
{
    if (options == m_laneOptions)
        return;
    m_laneOptions = options;
    // The same repetition with other rows: only the lanes are built again, and the tree over them (it
    // points into them, and the rows it gives are what the painter draws: without it the groups, pins
    // and names were lost).
    if (m_lanes)
        rebuild(false);
}

void TimelineSource::rebuild(bool reset)
{
    m_arrangement.setLanes(nullptr);
    m_lanes.reset();
    if (m_trace && !m_trace->repetitions.empty()) {
        m_repetition = std::clamp(m_repetition, 0, int(m_trace->repetitions.size()) - 1);
        m_lanes = makeLanes();
        m_arrangement.setLanes(m_lanes.get());
    }
    emit lanesChanged(reset);
}

std::shared_ptr<const LaneModel> TimelineSource::makeLanes()
{
    const bool documents = m_document && m_document->trace() == m_trace;
    if (documents) {
        std::shared_ptr<const LaneModel> lanes = m_document->takeLanes();
        if (lanes && &lanes->trace() == m_trace.get() && lanes->repetition() == m_repetition
            && lanes->options() == m_laneOptions)
            return lanes;
    }
    return std::make_shared<const LaneModel>(*m_trace, m_repetition, m_laneOptions,
                                             documents ? m_document->interference().get() : nullptr);
}

LaneBuilder TimelineSource::laneBuilder() const
{
    return [options = m_laneOptions](const engine::Trace &trace, int repetition,
                                     const engine::InterferenceReport *interference) {
        return std::make_shared<const LaneModel>(trace, repetition, options, interference);
    };
}

void TimelineSource::setDocument(TraceDocument *document)
{
    m_documentConnections.clear();
    m_document = document;
    m_arrangement.setDocument(document);
    if (!document)
        return;
    m_documentConnections << connect(document, &TraceDocument::traceChanged, this,
                                     [this] { setTrace(m_document->trace(), m_document->repetition()); });
    m_documentConnections << connect(document, &TraceDocument::repetitionChanged, this,
                                     [this](int repetition) { setRepetition(repetition); });
    m_documentConnections << connect(document, &TraceDocument::selectionChanged, this,
                                     &TimelineSource::documentSelected);
    m_documentConnections << connect(document, &TraceDocument::matchesChanged, this,
                                     &TimelineSource::documentOverlayChanged);
    m_documentConnections << connect(document, &TraceDocument::selectedOpsChanged, this,
                                     &TimelineSource::documentOverlayChanged);
    m_documentConnections << connect(document, &TraceDocument::laneStateChanged, this,
                                     &TimelineSource::arrangementChanged);
}

bool TimelineSource::showsDocument() const
{
    return m_document && m_document->trace() == m_trace && m_document->repetition() == m_repetition;
}

} // namespace streamscope::ui
