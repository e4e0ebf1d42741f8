// LaneArrangement: the lane tree over the timeline's current lanes (LaneTree) and how its rows are
// arranged (LaneViewState: hidden, pinned and renamed lanes, collapsed groups, folded NVTX rows). The
// arrangement is the document's (TraceDocument::laneState) when the view is bound to one, else its own.
// The user's lane actions (hide, pin, rename, collapse, fold, reveal) are edits of it (LaneStateEdits);
// the view draws the rows it gives and redraws them when it changes (its own: the callback; the
// document's: TraceDocument::laneStateChanged).
#pragma once

#include <QPointer>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

#include "ui/document/trace_document.h"
#include "ui/timeline/lane_tree.h"

namespace streamscope::ui {

class LaneModel;

class LaneArrangement {
public:
    // ownStateChanged: called when the arrangement's own state (no document) changes.
    explicit LaneArrangement(std::function<void()> ownStateChanged);
    ~LaneArrangement();
    LaneArrangement(const LaneArrangement &) = delete;
    LaneArrangement &operator=(const LaneArrangement &) = delete;

    // The lanes to arrange (nullptr: none). The tree points into them: they must outlive it, so the
    // tree is dropped (setLanes(nullptr)) before they are.
    void setLanes(const LaneModel *lanes);
    // The tree of the current lanes; nullptr without lanes.
    const LaneTree *tree() const { return m_tree.get(); }
    // Whose arrangement it is: the document's (nullptr: its own).
    void setDocument(TraceDocument *document) { m_document = document; }

    LaneViewState state() const;
    void setState(const LaneViewState &state);
    // Model lanes (LaneModel indexes) and groups (LaneTree::groups indexes) by what the user does.
    void setLaneHidden(int lane, bool hidden);
    void setLanePinned(int lane, bool pinned);
    void renameLane(int lane, const QString &name); // empty: back to its own label
    void setGroupCollapsed(int group, bool collapsed);
    void setAllGroupsCollapsed(bool collapsed);
    // A thread's NVTX rows folded into their outermost one (false: every depth shown); by default they
    // are folded when there are more than LaneTree::kOpenRangeRows. firstLane: their outermost row's
    // lane (LaneRow::foldLane of the row that carries the fold).
    void setRangesFolded(int firstLane, bool folded);
    void setAllRangesFolded(bool folded);
    // Brings a lane into the rows: shows it and opens the groups around it.
    void revealLane(int lane);

private:
    // Applies an edit made of the tree and the state (none without a tree; nullopt: nothing to do).
    void apply(const std::function<std::optional<LaneViewState>(const LaneTree &, const LaneViewState &)> &edit);

    std::unique_ptr<LaneTree> m_tree;
    QPointer<TraceDocument> m_document;
    LaneViewState m_own; // without a document
    std::function<void()> m_ownStateChanged;
};

} // namespace streamscope::ui
