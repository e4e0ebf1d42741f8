// MainMenus: the main window's menus and tool bar, declared as tables of actions (action_table.h), one
// table per menu: File, Run, View (the docks' toggles after it), Help. It keeps the actions the window
// enables, checks or reads, and the keyboard card (Help > Keyboard and mouse).
#pragma once

#include <QObject>

#include <vector>

#include "app/gui/action_table.h"

class QAction;

namespace streamscope::ui {
class ShortcutsOverlay;
} // namespace streamscope::ui

namespace streamscope::gui {

class ChildWindows;
class FileActions;
class WindowHost;

class MainMenus : public QObject {
    Q_OBJECT
public:
    // Fills the window's menu bar and adds its tool bar; call once its docks exist (View lists them).
    MainMenus(WindowHost *host, FileActions *files, ChildWindows *children);

    struct Actions {
        QAction *open = nullptr;
        QAction *run = nullptr;
        QAction *compare = nullptr;
        QAction *cancel = nullptr;
        QAction *presentation = nullptr;
        QAction *dark = nullptr;
        QAction *light = nullptr;
        QAction *projectNvtx = nullptr;
        QAction *saveTrace = nullptr;
        QAction *exportImage = nullptr;
        QAction *exportTrace = nullptr;
        QAction *transparent = nullptr;
    };
    const Actions &actions() const { return m_actions; }
    ui::ShortcutsOverlay *shortcutsOverlay() const { return m_shortcuts; }

private:
    std::vector<ActionSpec> fileMenu();
    std::vector<ActionSpec> runMenu();
    std::vector<ActionSpec> viewMenu();
    std::vector<ActionSpec> helpMenu();

    WindowHost *m_host;
    FileActions *m_files;
    ChildWindows *m_children;
    ui::ShortcutsOverlay *m_shortcuts = nullptr;
    Actions m_actions;
};

} // namespace streamscope::gui
