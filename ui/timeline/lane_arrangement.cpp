// LaneArrangement (see lane_arrangement.h).
#include "ui/timeline/lane_arrangement.h"

#include "ui/timeline/lane_model.h"
#include "ui/timeline/lane_state_edits.h"

namespace streamscope::ui {

LaneArrangement::LaneArrangement(std::function<void()> ownStateChanged) : m_ownStateChanged(std::move(ownStateChanged))
{
}

LaneArrangement::~LaneArrangement() = default;

void LaneArrangement::setLanes(const LaneModel *lanes)
{
    m_tree.reset();
    if (lanes)
        m_tree = std::make_unique<LaneTree>(*lanes);
}

LaneViewState LaneArrangement::state() const
{
    return m_document ? m_document->laneState() : m_own;
}

void LaneArrangement::setState(const LaneViewState &state)
{
    if (m_document) {
        m_document->setLaneState(state); // laneStateChanged redraws the rows
        return;
    }
    if (state == m_own)
        return;
    m_own = state;
    m_ownStateChanged();
}

void LaneArrangement::apply(
    const std::function<std::optional<LaneViewState>(const LaneTree &, const LaneViewState &)> &edit)
{
    if (!m_tree)
        return;
    if (auto state = edit(*m_tree, this->state()))
        setState(*state);
}

void LaneArrangement::setLaneHidden(int lane, bool hidden)
{
    apply([&](const LaneTree &tree, const LaneViewState &s) {
        return LaneStateEdits::laneHidden(tree, s, lane, hidden);
    });
}

void LaneArrangement::setLanePinned(int lane, bool pinned)
{
    apply([&](const LaneTree &tree, const LaneViewState &s) {
        return LaneStateEdits::lanePinned(tree, s, lane, pinned);
    });
}

void LaneArrangement::renameLane(int lane, const QString &name)
{
    apply(
        [&](const LaneTree &tree, const LaneViewState &s) { return LaneStateEdits::laneRenamed(tree, s, lane, name); });
}

void LaneArrangement::setGroupCollapsed(int group, bool collapsed)
{
    apply([&](const LaneTree &tree, const LaneViewState &s) {
        return LaneStateEdits::groupCollapsed(tree, s, group, collapsed);
    });
}

void LaneArrangement::setAllGroupsCollapsed(bool collapsed)
{
    apply([&](const LaneTree &tree, const LaneViewState &s) {
        return LaneStateEdits::allGroupsCollapsed(tree, s, collapsed);
    });
}

void LaneArrangement::setRangesFolded(int firstLane, bool folded)
{
    apply([&](const LaneTree &tree, const LaneViewState &s) {
        return LaneStateEdits::rangesFolded(tree, s, firstLane, folded);
    });
}

void LaneArrangement::setAllRangesFolded(bool folded)
{
    apply(
        [&](const LaneTree &tree, const LaneViewState &s) { return LaneStateEdits::allRangesFolded(tree, s, folded); });
}

void LaneArrangement::revealLane(int lane)
{
    apply([&](const LaneTree &tree, const LaneViewState &s) { return LaneStateEdits::laneRevealed(tree, s, lane); });
}

} // namespace streamscope::ui
