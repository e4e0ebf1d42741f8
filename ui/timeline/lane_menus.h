// LaneMenus: the timeline's lane menus: the context menu of a row's label (hide, pin, rename, fold its
// NVTX rows; a group: collapse, hide its lanes) and the lane actions that do not depend on a row (the
// hidden lanes to show again, show all, collapse and expand all groups, fold all NVTX rows, fit the
// label column, reset), which the View menu's Lanes submenu shows too. The actions edit the view's
// LaneArrangement, with the view's widget as their context.
#pragma once

#include <QCoreApplication>

#include <functional>
#include <vector>

class QMenu;
class QWidget;

namespace streamscope::ui {

class LaneArrangement;
struct LaneRow;

class LaneMenus {
    // The view's translation context, where these strings have always been.
    Q_DECLARE_TR_FUNCTIONS(streamscope::ui::TimelineView)

public:
    // view: the actions' context, the rename dialog's parent and the menus' default parent; fitLabels fits
    // the label column.
    LaneMenus(LaneArrangement &lanes, QWidget &view, std::function<void()> fitLabels) :
        m_lanes(lanes), m_view(view), m_fitLabels(std::move(fitLabels))
    {
    }

    // The context menu of the row `row` of `rows` (the rows drawn now; any other value: the lane actions
    // only), parented to `parent` (the view when null); the caller owns it.
    QMenu *rowMenu(const std::vector<LaneRow> &rows, int row, QWidget *parent) const;
    // Adds the lane actions that do not depend on a row to `menu`.
    void fillLanesMenu(QMenu *menu) const;

private:
    LaneArrangement &m_lanes;
    QWidget &m_view;
    std::function<void()> m_fitLabels;
};

} // namespace streamscope::ui
