// LaneMenus (see lane_menus.h).
#include "ui/timeline/lane_menus.h"

#include <QInputDialog>
#include <QMenu>

#include <algorithm>

#include "ui/timeline/lane_arrangement.h"
#include "ui/timeline/lane_tree.h"

namespace streamscope::ui {

QMenu *LaneMenus::rowMenu(const std::vector<LaneRow> &rows, int row, QWidget *parent) const
{
    LaneArrangement *a = &m_lanes;
    QWidget *v = &m_view;
    auto *menu = new QMenu(parent ? parent : v);
    const LaneTree *tree = a->tree();
    const std::vector<LaneRow> current = rows; // a copy: the actions change the rows
    if (tree && row >= 0 && std::size_t(row) < current.size()) {
        const LaneRow r = current[std::size_t(row)];
        if (r.isGroup()) {
            const int group = r.group;
            menu->addAction(r.collapsed ? tr("Expand group") : tr("Collapse group"), v,
                            [a, group, collapsed = r.collapsed] { a->setGroupCollapsed(group, !collapsed); });
            menu->addAction(tr("Hide the group's lanes"), v, [a, group] {
                LaneViewState state = a->state();
                for (const int lane : a->tree()->group(group).allLanes)
                    state.hidden.insert(a->tree()->laneKey(lane));
                a->setState(state);
            });
        } else if (r.lane >= 0) {
            const int lane = r.lane;
            const QString label = tree->label(lane, a->state());
            if (r.fold != LaneRow::Fold::None) {
                const bool folded = r.fold == LaneRow::Fold::Folded;
                menu->addAction(folded ? tr("Unfold its NVTX rows (%1)").arg(tree->rangeRowCount(r.foldLane))
                                       : tr("Fold its NVTX rows into one"),
                                v, [a, first = r.foldLane, folded] { a->setRangesFolded(first, !folded); });
            }
            menu->addAction(tr("Hide '%1'").arg(label), v, [a, lane] { a->setLaneHidden(lane, true); });
            menu->addAction(r.pinned ? tr("Unpin") : tr("Pin to top"), v,
                            [a, lane, pinned = r.pinned] { a->setLanePinned(lane, !pinned); });
            menu->addAction(tr("Rename…"), v, [a, v, lane, label] {
                bool ok = false;
                const QString name =
                    QInputDialog::getText(v, tr("Rename lane"), tr("Label for '%1' (empty: its own):").arg(label),
                                          QLineEdit::Normal, label, &ok);
                if (ok)
                    a->renameLane(lane, name);
            });
            if (a->state().names.count(tree->laneKey(lane)))
                menu->addAction(tr("Restore the name '%1'").arg(tree->uniqueLabel(lane)), v,
                                [a, lane] { a->renameLane(lane, {}); });
        }
        menu->addSeparator();
    }
    fillLanesMenu(menu);
    return menu;
}

void LaneMenus::fillLanesMenu(QMenu *menu) const
{
    LaneArrangement *a = &m_lanes;
    QWidget *v = &m_view;
    const LaneTree *tree = a->tree();
    const LaneViewState state = a->state();
    const std::vector<int> hidden = tree ? tree->hiddenLanes(state) : std::vector<int>{};
    QMenu *shown = menu->addMenu(tr("Hidden lanes (%1)").arg(hidden.size()));
    shown->setEnabled(!hidden.empty());
    for (const int lane : hidden)
        shown->addAction(tr("Show '%1'").arg(tree->label(lane, state)), v,
                         [a, lane] { a->setLaneHidden(lane, false); });
    if (!hidden.empty()) {
        shown->addSeparator();
        shown->addAction(tr("Show all"), v, [a] {
            LaneViewState s = a->state();
            s.hidden.clear();
            a->setState(s);
        });
    }
    const bool groups = tree && !tree->groups().empty();
    QAction *collapse = menu->addAction(tr("Collapse all groups"), v, [a] { a->setAllGroupsCollapsed(true); });
    QAction *expand = menu->addAction(tr("Expand all groups"), v, [a] { a->setAllGroupsCollapsed(false); });
    collapse->setEnabled(groups);
    expand->setEnabled(groups && std::any_of(tree->groups().begin(), tree->groups().end(), [&](const LaneGroup &g) {
                           return state.collapsed.count(g.key) > 0;
                       }));
    const bool ranges = tree && !tree->rangeFirstLanes().empty();
    menu->addAction(tr("Fold all NVTX rows"), v, [a] { a->setAllRangesFolded(true); })->setEnabled(ranges);
    menu->addAction(tr("Unfold all NVTX rows"), v, [a] { a->setAllRangesFolded(false); })->setEnabled(ranges);
    menu->addAction(tr("Fit the label column"), v, m_fitLabels)->setEnabled(tree != nullptr); // no tree: no lanes
    QAction *reset = menu->addAction(tr("Reset lanes (show, unpin, restore names)"), v, [a] { a->setState({}); });
    reset->setEnabled(!(state == LaneViewState{}));
}

} // namespace streamscope::ui
