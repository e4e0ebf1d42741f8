// LaneStateEdits: what each of the user's lane actions makes of a lane arrangement (LaneViewState):
// hide, pin, rename a lane, collapse a group or all of them, fold a thread's NVTX rows or all of them,
// reveal a lane (shown, its groups opened). Pure functions of the lane tree and the state; nullopt where
// the lane or group does not exist. TimelineView applies the result (to its document, or its own state).
#pragma once

#include <QString>

#include <optional>

#include "ui/timeline/lane_tree.h"

namespace streamscope::ui {

class LaneStateEdits {
public:
    // A hidden lane is unpinned too; a pinned one shown.
    static std::optional<LaneViewState> laneHidden(const LaneTree &tree, LaneViewState state, int lane, bool hidden);
    static std::optional<LaneViewState> lanePinned(const LaneTree &tree, LaneViewState state, int lane, bool pinned);
    // An empty name (or the lane's own unique label) restores its own label.
    static std::optional<LaneViewState> laneRenamed(const LaneTree &tree, LaneViewState state, int lane,
                                                    const QString &name);
    static std::optional<LaneViewState> groupCollapsed(const LaneTree &tree, LaneViewState state, int group,
                                                       bool collapsed);
    // Collapsing all folds the outermost groups; expanding all opens every group.
    static std::optional<LaneViewState> allGroupsCollapsed(const LaneTree &tree, LaneViewState state, bool collapsed);
    // A thread's NVTX rows by their first lane; only what differs from the default is kept in the state.
    static std::optional<LaneViewState> rangesFolded(const LaneTree &tree, LaneViewState state, int firstLane,
                                                     bool folded);
    static std::optional<LaneViewState> allRangesFolded(const LaneTree &tree, LaneViewState state, bool folded);
    // The lane shown and every group around it opened.
    static std::optional<LaneViewState> laneRevealed(const LaneTree &tree, LaneViewState state, int lane);
};

} // namespace streamscope::ui
