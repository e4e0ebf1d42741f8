// LaneMenus (see lane_menus.h).
#include "ui/timeline/lane_menus.h"

#include <QInputDialog>
#include <QMenu>

#include <algorithm>

#include "ui/timeline/lane_tree.h"
#include "ui/timeline/timeline_view.h"

namespace streamscope::ui {

QMenu *LaneMenus::rowMenu(int row, QWidget *parent) const
{
    TimelineView *v = &m_view;
    auto *menu = new QMenu(parent ? parent : v);
    const LaneTree *tree = v->laneTree();
    const std::vector<LaneRow> current = v->rows(); // a copy: the actions change the rows
    if (tree && row >= 0 && std::size_t(row) < current.size()) {
        const LaneRow r = current[std::size_t(row)];
        if (r.isGroup()) {
            const int group = r.group;
            menu->addAction(r.collapsed ? tr("Expand group") : tr("Collapse group"), v,
                            [v, group, collapsed = r.collapsed] { v->setGroupCollapsed(group, !collapsed); });
            menu->addAction(tr("Hide the group's lanes"), v, [v, group] {
                LaneViewState state = v->laneState();
                for (const int lane : v->laneTree()->group(group).allLanes)
                    state.hidden.insert(v->laneTree()->laneKey(lane));
                v->setLaneState(state);
            });
        } else if (r.lane >= 0) {
            const int lane = r.lane;
            const QString label = tree->label(lane, v->laneState());
            if (r.fold != LaneRow::Fold::None) {
                const bool folded = r.fold == LaneRow::Fold::Folded;
                menu->addAction(folded ? tr("Unfold its NVTX rows (%1)").arg(tree->rangeRowCount(r.foldLane))
                                       : tr("Fold its NVTX rows into one"),
                                v, [v, first = r.foldLane, folded] { v->setRangesFolded(first, !folded); });
            }
            menu->addAction(tr("Hide '%1'").arg(label), v, [v, lane] { v->setLaneHidden(lane, true); });
            menu->addAction(r.pinned ? tr("Unpin") : tr("Pin to top"), v,
                            [v, lane, pinned = r.pinned] { v->setLanePinned(lane, !pinned); });
            menu->addAction(tr("Rename…"), v, [v, lane, label] {
                bool ok = false;
                const QString name =
                    QInputDialog::getText(v, tr("Rename lane"), tr("Label for '%1' (empty: its own):").arg(label),
                                          QLineEdit::Normal, label, &ok);
                if (ok)
                    v->renameLane(lane, name);
            });
            if (v->laneState().names.count(tree->laneKey(lane)))
                menu->addAction(tr("Restore the name '%1'").arg(tree->uniqueLabel(lane)), v,
                                [v, lane] { v->renameLane(lane, {}); });
        }
        menu->addSeparator();
    }
    fillLanesMenu(menu);
    return menu;
}

void LaneMenus::fillLanesMenu(QMenu *menu) const
{
    TimelineView *v = &m_view;
    const LaneTree *tree = v->laneTree();
    const LaneViewState state = v->laneState();
    const std::vector<int> hidden = tree ? tree->hiddenLanes(state) : std::vector<int>{};
    QMenu *shown = menu->addMenu(tr("Hidden lanes (%1)").arg(hidden.size()));
    shown->setEnabled(!hidden.empty());
    for (const int lane : hidden)
        shown->addAction(tr("Show '%1'").arg(tree->label(lane, state)), v,
                         [v, lane] { v->setLaneHidden(lane, false); });
    if (!hidden.empty()) {
        shown->addSeparator();
        shown->addAction(tr("Show all"), v, [v] {
            LaneViewState s = v->laneState();
            s.hidden.clear();
            v->setLaneState(s);
        });
    }
    const bool groups = tree && !tree->groups().empty();
    QAction *collapse = menu->addAction(tr("Collapse all groups"), v, [v] { v->setAllGroupsCollapsed(true); });
    QAction *expand = menu->addAction(tr("Expand all groups"), v, [v] { v->setAllGroupsCollapsed(false); });
    collapse->setEnabled(groups);
    expand->setEnabled(groups && std::any_of(tree->groups().begin(), tree->groups().end(), [&](const LaneGroup &g) {
                           return state.collapsed.count(g.key) > 0;
                       }));
    const bool ranges = tree && !tree->rangeFirstLanes().empty();
    menu->addAction(tr("Fold all NVTX rows"), v, [v] { v->setAllRangesFolded(true); })->setEnabled(ranges);
    menu->addAction(tr("Unfold all NVTX rows"), v, [v] { v->setAllRangesFolded(false); })->setEnabled(ranges);
    menu->addAction(tr("Fit the label column"), v, [v] { v->fitLabelWidth(); })->setEnabled(v->laneModel() != nullptr);
    QAction *reset = menu->addAction(tr("Reset lanes (show, unpin, restore names)"), v, [v] { v->setLaneState({}); });
    reset->setEnabled(!(state == LaneViewState{}));
}

} // namespace streamscope::ui
