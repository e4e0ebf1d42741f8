// LaneMenus: the timeline's lane menus: the context menu of a row's label (hide, pin, rename, fold its
// NVTX rows; a group: collapse, hide its lanes) and the lane actions that do not depend on a row (the
// hidden lanes to show again, show all, collapse and expand all groups, fold all NVTX rows, fit the
// label column, reset), which the View menu's Lanes submenu shows too. The actions act through the
// view's public lane API (TimelineView::setLaneHidden and the others), with the view as their context.
#pragma once

#include <QCoreApplication>

class QMenu;
class QWidget;

namespace streamscope::ui {

class TimelineView;

class LaneMenus {
    // The view's translation context, where these strings have always been.
    Q_DECLARE_TR_FUNCTIONS(streamscope::ui::TimelineView)

public:
    explicit LaneMenus(TimelineView &view) : m_view(view) { }

    // The context menu of a row's label (TimelineView::rows index; any other value: the lane actions
    // only), parented to `parent` (the view when null); the caller owns it.
    QMenu *rowMenu(int row, QWidget *parent) const;
    // Adds the lane actions that do not depend on a row to `menu`.
    void fillLanesMenu(QMenu *menu) const;

private:
    TimelineView &m_view;
};

} // namespace streamscope::ui
