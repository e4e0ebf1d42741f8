// TimelineSelection: the timeline's selected op (of the shown repetition), which end of it was picked or
// followed to (its host call or its GPU work), and the op under the pointer. Selecting an op brings it
// into view (the window moved at the same zoom, its row scrolled to, unless it was just clicked there);
// follow flow moves the selection between the op's two ends, revealing the other end's lane. It acts on
// the view through TimelineHost and says what changed through the view's signals.
#pragma once

#include <QCoreApplication>

#include "ui/timeline/timeline_host.h"

namespace streamscope::ui {

class TimelineSelection {
    // The view's translation context, where these strings have always been.
    Q_DECLARE_TR_FUNCTIONS(streamscope::ui::TimelineView)

public:
    enum class End { Both, Host, Gpu }; // the order of TimelineOverlay::End

    explicit TimelineSelection(TimelineHost &host) : m_host(host) { }

    TimelineOpRef selected() const { return m_selected; }
    End end() const { return m_end; }
    TimelineOpRef hovered() const { return m_hovered; }

    // Selects an op of the shown repetition (-1 clears) and brings it into view if it is outside.
    void select(int op);
    // A click on `ref` (invalid: on no op) at its `end`: selected, without scrolling away from what was
    // clicked. A click on one op of a multiple selection (the document's) selects that op alone.
    void click(TimelineOpRef ref, End end);
    // Which end follow flow starts from.
    void setEnd(End end) { m_end = end; }
    // From the selected op's host call to its GPU work and back (from the GPU end when neither was
    // picked); false, with a tooltip saying why, when nothing is selected or the op has one end only.
    bool followFlow();
    void setHovered(TimelineOpRef ref);
    // The lanes were built again: nothing is selected or hovered. True when an op was selected.
    bool reset();

private:
    // Moves the window, at the same zoom unless the span is wider, so that it shows [startNs, endNs).
    void bringIntoView(qint64 startNs, qint64 endNs);
    // The row showing an op's GPU work (host: its host call) else its other end, -1 when neither is shown.
    int rowOfOp(const TimelineLayout &layout, int op, bool host) const;

    TimelineHost &m_host;
    TimelineOpRef m_selected;
    End m_end = End::Both;
    TimelineOpRef m_hovered;
    bool m_selectingByClick = false; // select() from a click: what was clicked is in view, no scrolling
};

} // namespace streamscope::ui
