// LaneStateEdits (see lane_state_edits.h).
#include "ui/timeline/lane_state_edits.h"

#include "ui/timeline/lane_model.h"

namespace streamscope::ui {

std::optional<LaneViewState> LaneStateEdits::laneHidden(const LaneTree &tree, LaneViewState state, int lane,
                                                        bool hidden)
{
    if (lane < 0 || lane >= tree.model().laneCount())
        return std::nullopt;
    const QString key = tree.laneKey(lane);
    if (hidden) {
        state.hidden.insert(key);
        std::erase(state.pinned, key);
    } else {
        state.hidden.erase(key);
    }
    return state;
}

std::optional<LaneViewState> LaneStateEdits::lanePinned(const LaneTree &tree, LaneViewState state, int lane,
                                                        bool pinned)
{
    if (lane < 0 || lane >= tree.model().laneCount())
        return std::nullopt;
    const QString key = tree.laneKey(lane);
    std::erase(state.pinned, key);
    if (pinned) {
        state.pinned.push_back(key);
        state.hidden.erase(key);
    }
    return state;
}

std::optional<LaneViewState> LaneStateEdits::laneRenamed(const LaneTree &tree, LaneViewState state, int lane,
                                                         const QString &name)
{
    if (lane < 0 || lane >= tree.model().laneCount())
        return std::nullopt;
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty() || trimmed == tree.uniqueLabel(lane))
        state.names.erase(tree.laneKey(lane));
    else
        state.names[tree.laneKey(lane)] = trimmed;
    return state;
}

std::optional<LaneViewState> LaneStateEdits::groupCollapsed(const LaneTree &tree, LaneViewState state, int group,
                                                            bool collapsed)
{
    if (group < 0 || group >= int(tree.groups().size()))
        return std::nullopt;
    if (collapsed)
        state.collapsed.insert(tree.group(group).key);
    else
        state.collapsed.erase(tree.group(group).key);
    return state;
}

std::optional<LaneViewState> LaneStateEdits::allGroupsCollapsed(const LaneTree &tree, LaneViewState state,
                                                                bool collapsed)
{
    for (const LaneGroup &g : tree.groups()) {
        // Collapsing all folds the outermost groups (a folded process hides its devices anyway).
        if (collapsed && g.parent < 0)
            state.collapsed.insert(g.key);
        else if (!collapsed)
            state.collapsed.erase(g.key);
    }
    return state;
}

std::optional<LaneViewState> LaneStateEdits::rangesFolded(const LaneTree &tree, LaneViewState state, int firstLane,
                                                          bool folded)
{
    if (firstLane < 0 || firstLane >= tree.model().laneCount() || tree.rangeRowCount(firstLane) < 2)
        return std::nullopt;
    const QString key = tree.laneKey(firstLane);
    state.collapsed.erase(LaneTree::rangeFoldKey(key));
    state.collapsed.erase(LaneTree::rangeOpenKey(key));
    LaneViewState plain = state;
    // Only what differs from the default is kept.
    if (tree.rangesFolded(firstLane, plain) != folded)
        state.collapsed.insert(folded ? LaneTree::rangeFoldKey(key) : LaneTree::rangeOpenKey(key));
    return state;
}

std::optional<LaneViewState> LaneStateEdits::allRangesFolded(const LaneTree &tree, LaneViewState state, bool folded)
{
    for (const int lane : tree.rangeFirstLanes()) {
        const QString key = tree.laneKey(lane);
        state.collapsed.erase(LaneTree::rangeFoldKey(key));
        state.collapsed.erase(LaneTree::rangeOpenKey(key));
        if (tree.rangesFolded(lane, state) != folded)
            state.collapsed.insert(folded ? LaneTree::rangeFoldKey(key) : LaneTree::rangeOpenKey(key));
    }
    return state;
}

std::optional<LaneViewState> LaneStateEdits::laneRevealed(const LaneTree &tree, LaneViewState state, int lane)
{
    if (lane < 0)
        return std::nullopt;
    state.hidden.erase(tree.laneKey(lane));
    for (int g = tree.groupOfLane(lane); g >= 0; g = tree.group(g).parent)
        state.collapsed.erase(tree.group(g).key);
    return state;
}

} // namespace streamscope::ui
