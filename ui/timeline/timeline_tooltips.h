// TimelineToolTips: the text of the timeline's tooltips: an op (name, stream, start, duration, bytes, GB/s,
// memory kinds, host call, why it queued, the range it was launched in), a host range, a driver activity
// (page migration, page-fault group), and a row's label (its whole title, what a group holds). Pure text
// from the lanes: TimelineView shows it where the pointer is.
#pragma once

#include <QCoreApplication>
#include <QString>

#include "ui/timeline/lane_tree.h"

namespace streamscope::ui {

class LaneModel;

class TimelineToolTips {
    // The view's translation context, where these strings have always been.
    Q_DECLARE_TR_FUNCTIONS(streamscope::ui::TimelineView)

public:
    // An op of the model's repetition (Repetition::ops index); empty when there is none.
    static QString opText(const LaneModel &model, int op);
    // A host range (Repetition::hostRanges index); empty when there is none.
    static QString rangeText(const LaneModel &model, int range);
    // A driver activity (Repetition::activities index); empty when there is none.
    static QString activityText(const LaneModel &model, int activity);
    // A row's label: the whole of it (the column may cut it), and for a group what it holds.
    static QString rowText(const LaneModel &model, const LaneTree &tree, const LaneRow &row,
                           const LaneViewState &state);
};

} // namespace streamscope::ui
