// TimelineKeyFigure: a lesson's key figure on a timeline: the ops of the shown repetition that its query
// finds (engine::findOps), outlined, and its caption (in exports, in a box beside them; on screen it
// stands beside the timeline, in the explanation). A figure whose query names a host thread's lane is
// outlined in the host calls too.
#pragma once

#include <QString>

#include <vector>

#include "engine/analysis/op_query.h"

namespace streamscope::engine {
struct Trace;
}

namespace streamscope::ui {

struct TimelineOverlay;

class TimelineKeyFigure {
public:
    // An empty caption clears the figure. The ops are found by update().
    void set(const QString &caption, const engine::OpQuery &query);
    const QString &caption() const { return m_caption; }
    // The ops found in the shown repetition.
    const std::vector<int> &ops() const { return m_ops; }
    // Finds the figure's ops in a repetition of `trace` (none without a trace or its lanes: shown == false).
    void update(const engine::Trace *trace, int repetition, bool shown);
    // Adds the outlines to `overlay` (nothing without the lanes shown), and the caption where asked.
    void addTo(TimelineOverlay &overlay, const engine::Trace *trace, bool shown, bool caption) const;

private:
    QString m_caption;
    engine::OpQuery m_query;
    std::vector<int> m_ops; // in the shown repetition
};

} // namespace streamscope::ui
