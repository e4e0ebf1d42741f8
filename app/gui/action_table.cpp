// Actions declared as data: see action_table.h.
#include "app/gui/action_table.h"

#include <QAction>
#include <QActionGroup>
#include <QMenu>

namespace streamscope::gui {

void addActions(QMenu *menu, QObject *context, const std::vector<ActionSpec> &rows)
{
    for (const ActionSpec &row : rows) {
        if (row.text.isEmpty()) {
            menu->addSeparator();
            continue;
        }
        if (row.submenu) {
            QMenu *sub = menu->addMenu(row.text);
            if (row.keepMenu)
                *row.keepMenu = sub;
            row.submenu(sub);
            continue;
        }
        QAction *action = menu->addAction(row.text);
        if (!row.objectName.isEmpty())
            action->setObjectName(row.objectName);
        if (row.checkable) {
            action->setCheckable(true);
            action->setChecked(row.checked);
        }
        if (!row.toolTip.isEmpty())
            action->setToolTip(row.toolTip);
        if (!row.shortcuts.isEmpty())
            action->setShortcuts(row.shortcuts);
        if (row.group)
            row.group->addAction(action);
        if (row.triggered)
            QObject::connect(action, &QAction::triggered, context, row.triggered);
        if (row.toggled)
            QObject::connect(action, &QAction::toggled, context, row.toggled);
        if (row.keep)
            *row.keep = action;
        if (row.setup)
            row.setup(action);
    }
}

} // namespace streamscope::gui
