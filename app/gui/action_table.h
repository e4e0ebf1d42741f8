// Actions declared as data: a menu is a table of ActionSpec rows (an action, a separator or a submenu),
// which addActions turns into QActions, rather than a hand-written block of calls for each action.
#pragma once

#include <QKeySequence>
#include <QList>
#include <QString>

#include <functional>
#include <vector>

class QAction;
class QActionGroup;
class QMenu;
class QObject;

namespace streamscope::gui {

// Every member has a default, so that a row names only what it sets (designated initializers).
struct ActionSpec {
    QString text{}; // empty: a separator
    std::function<void()> triggered{}; // what a click does (in the context object given to addActions)
    QList<QKeySequence> shortcuts{};
    QString objectName{};
    QString toolTip{};
    // A checkable action: its state before any connection is made, and what follows when it changes.
    bool checkable = false;
    bool checked = false;
    std::function<void(bool)> toggled{};
    QActionGroup *group = nullptr; // exclusive choices (the palettes)
    QAction **keep = nullptr; // where the window keeps the action
    std::function<void(QAction *)> setup{}; // anything else, once the action is made
    // A submenu instead of an action, handed to this once (to fill it, or to fill it on each aboutToShow).
    std::function<void(QMenu *)> submenu{};
    QMenu **keepMenu = nullptr;
};

// Appends the rows to menu, in order; the slots run in `context` (they end with it).
void addActions(QMenu *menu, QObject *context, const std::vector<ActionSpec> &rows);

} // namespace streamscope::gui
