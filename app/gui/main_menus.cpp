// MainMenus: see main_menus.h.
#include "app/gui/main_menus.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QToolBar>

#include "app/gui/child_windows.h"
#include "app/gui/file_actions.h"
#include "app/gui/window_host.h"
#include "ui/compare/diff_view.h"
#include "ui/panels/find_bar.h"
#include "ui/panels/shortcuts_overlay.h"
#include "ui/run/run_controller.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

namespace streamscope::gui {

std::vector<ActionSpec> MainMenus::fileMenu()
{
    return {
        {.text = tr("&New workload"), .triggered = [this] { m_host->newWorkload(); }, .shortcuts = {QKeySequence::New}},
        {.text = tr("&Open…"),
         .triggered = [this] { m_files->openDialog(); },
         .shortcuts = {QKeySequence::Open},
         .keep = &m_actions.open},
        {.text = tr("Open &recent"), .submenu = [this](QMenu *menu) { m_files->setRecentMenu(menu); }},
        {},
        {.text = tr("&Save workload"),
         .triggered = [this] { m_host->saveWorkload(); },
         .shortcuts = {QKeySequence::Save}},
        {.text = tr("Save workload &as…"),
         .triggered = [this] { m_host->saveWorkloadAs(); },
         .shortcuts = {QKeySequence::SaveAs}},
        {.text = tr("Save &trace as…"),
         .triggered = [this] { m_files->saveTraceDialog(); },
         .shortcuts = {QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_S)},
         .keep = &m_actions.saveTrace},
        {.text = tr("&Export timeline image…"),
         .triggered = [this] { m_files->exportImageDialog(); },
         .shortcuts = {QKeySequence(Qt::CTRL | Qt::Key_E)},
         .keep = &m_actions.exportImage},
        {.text = tr("Trans&parent image background"),
         .toolTip = tr("Exported images leave the background transparent (for slides)"),
         .checkable = true,
         .checked = QSettings().value(QStringLiteral("export/transparent"), false).toBool(),
         .toggled = [](bool on) { QSettings().setValue(QStringLiteral("export/transparent"), on); },
         .keep = &m_actions.transparent},
        {.text = tr("Export t&race…"),
         .triggered = [this] { m_files->exportTraceDialog(); },
         .keep = &m_actions.exportTrace},
        {.text = tr("Compare with &Nsight Systems…"), .triggered = [this] { m_children->compareWithNsightDialog(); }},
        {.text = tr("Open &comparison…"), .triggered = [this] { m_files->openComparisonDialog(); }},
        {.text = tr("&Diff two traces…"), .triggered = [this] { ui::DiffView::pickAndShow(m_host->hostWindow()); }},
        {},
        {.text = tr("&Quit"),
         .triggered = [this] { m_host->hostWindow()->close(); },
         .shortcuts = {QKeySequence::Quit},
         .setup = [](QAction *quit) { quit->setMenuRole(QAction::QuitRole); }},
    };
}

std::vector<ActionSpec> MainMenus::runMenu()
{
    const bool solo = QSettings().value(QStringLiteral("run/solo"), false).toBool();
    m_host->runController()->setSolo(solo);
    return {
        {.text = tr("&Run workload"),
         .triggered = [this] { m_host->runWorkload(); },
         .shortcuts = {QKeySequence(Qt::CTRL | Qt::Key_R), QKeySequence(Qt::Key_F5)},
         .keep = &m_actions.run},
        {.text = tr("Compare &variants…"),
         .triggered = [this] { m_host->compareWorkload(); },
         .shortcuts = {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R)},
         .keep = &m_actions.compare},
        {.text = tr("&Cancel run"),
         .triggered = [this] { m_host->cancelRun(); },
         .shortcuts = {QKeySequence(Qt::SHIFT | Qt::Key_F5)},
         .keep = &m_actions.cancel},
        {},
        // What times the runs: CUPTI (execution as the GPU ran it) or CUDA events, remembered.
        {.text = tr("&Timing"),
         .submenu =
             [this](QMenu *timing) {
                 auto *group = new QActionGroup(this);
                 const QString chosen =
                     QSettings().value(QStringLiteral("run/timing"), QStringLiteral("cupti")).toString();
                 const std::pair<QString, QString> sources[] = {
                     {QStringLiteral("cupti"), tr("&CUPTI: each op as the GPU ran it")},
                     {QStringLiteral("events"),
                      tr("CUDA &events: from when its stream reached it (queued time counts)")}};
                 for (const auto &[key, label] : sources) {
                     QAction *a = timing->addAction(label);
                     a->setCheckable(true);
                     a->setChecked(key == chosen);
                     a->setData(key);
                     group->addAction(a);
                 }
                 m_host->runController()->setTiming(chosen == QLatin1String("events") ? chosen
                                                                                      : QStringLiteral("cupti"));
                 connect(group, &QActionGroup::triggered, this, [this](QAction *a) {
                     m_host->runController()->setTiming(a->data().toString());
                     QSettings().setValue(QStringLiteral("run/timing"), a->data().toString());
                 });
             }},
        // Solo baselines on every run (each part alone after each repetition: what overlapping saved and
        // cost), remembered.
        {.text = tr("Measure &solo baselines (each stream alone too)"),
         .objectName = QStringLiteral("soloBaselinesAction"),
         .checkable = true,
         .checked = solo,
         .toggled =
             [this](bool on) {
                 m_host->runController()->setSolo(on);
                 QSettings().setValue(QStringLiteral("run/solo"), on);
             }},
        {.text = tr("Check for a &GPU"), .triggered = [this] { m_host->checkGpu(); }},
    };
}

std::vector<ActionSpec> MainMenus::viewMenu()
{
    auto *themes = new QActionGroup(this);
    return {
        {.text = tr("&Presentation mode"),
         .shortcuts = {QKeySequence(Qt::Key_F11)},
         .checkable = true,
         .toggled = [this](bool on) { m_host->setPresentationMode(on); },
         .keep = &m_actions.presentation},
        {.text = tr("&Light palette"), .checkable = true, .checked = true, .group = themes, .keep = &m_actions.light},
        {.text = tr("&Dark palette"),
         .checkable = true,
         .toggled = [this](bool dark) { m_host->setDarkTheme(dark); },
         .group = themes,
         .keep = &m_actions.dark},
        {},
        {.text = tr("Project &NVTX onto GPU lanes"),
         .objectName = QStringLiteral("projectNvtxAction"),
         .toolTip = tr("A row above each stream shows the NVTX range (or PyTorch op) each of "
                       "its operations was launched in, as Nsight Systems does"),
         .checkable = true,
         .toggled =
             [this](bool on) {
                 m_host->timeline()->setProjectNvtx(on);
                 QSettings().setValue(QStringLiteral("timeline/projectNvtx"), on);
             },
         .keep = &m_actions.projectNvtx},
        {.text = tr("&Fit timeline (F)"),
         .triggered = [this] { m_host->timeline()->fitAll(); },
         .shortcuts = {QKeySequence(Qt::CTRL | Qt::Key_0)}},
        {.text = tr("Zoom &back"),
         .triggered = [this] { m_host->timeline()->zoom()->back(); },
         .shortcuts = {QKeySequence::Back}},
        {.text = tr("Zoom fo&rward"),
         .triggered = [this] { m_host->timeline()->zoom()->forward(); },
         .shortcuts = {QKeySequence::Forward}},
        {.text = tr("F&ind ops…"),
         .triggered = [this] { m_host->findBar()->activate(); },
         .shortcuts = {QKeySequence::Find}},
        {.text = tr("Find &next"),
         .triggered = [this] { m_host->findBar()->findNext(); },
         .shortcuts = {QKeySequence::FindNext}},
        {.text = tr("Find &previous"),
         .triggered = [this] { m_host->findBar()->findPrevious(); },
         .shortcuts = {QKeySequence::FindPrevious}},
        {},
        // Solo baselines: each bar's time alone marked, the rest tinted (the trace must have them).
        {.text = tr("Time &alone in the bars (solo baselines)"),
         .objectName = QStringLiteral("showSlowdownAction"),
         .checkable = true,
         .checked = m_host->timeline()->showSlowdown(),
         .toggled = [this](bool on) { m_host->timeline()->setShowSlowdown(on); }},
        // Flows for everything in view, and follow flow (host call <-> GPU work of the selected op).
        {.text = tr("F&lows for everything in view"),
         .shortcuts = {QKeySequence(Qt::Key_L)},
         .checkable = true,
         .toggled = [this](bool on) { m_host->timeline()->setShowAllFlows(on); },
         .setup =
             [this](QAction *flows) {
                 connect(m_host->timeline(), &ui::TimelineView::showAllFlowsChanged, flows, &QAction::setChecked);
             }},
        {.text = tr("Follow flo&w (host call ↔ GPU work)"),
         .triggered = [this] { m_host->timeline()->followFlow(); },
         .shortcuts = {QKeySequence(Qt::Key_BracketRight)}},
        // The lane tree: hidden lanes to show again, collapse and expand all, reset (rows: their context menu).
        {.text = tr("L&anes"),
         .submenu =
             [this](QMenu *lanes) {
                 connect(lanes, &QMenu::aboutToShow, this, [this, lanes] {
                     lanes->clear();
                     m_host->timeline()->fillLanesMenu(lanes);
                 });
             }},
        {},
    };
}

std::vector<ActionSpec> MainMenus::helpMenu()
{
    return {
        // "?" arrives as Shift+? on most layouts, plain "?" on others.
        {.text = tr("&Keyboard and mouse"),
         .triggered = [this] { m_host->showShortcuts(); },
         .shortcuts = {QKeySequence(Qt::Key_Question), QKeySequence(Qt::SHIFT | Qt::Key_Question),
                       QKeySequence(Qt::Key_F1)}},
        {.text = tr("&About StreamScope"),
         .triggered =
             [this] {
                 QMessageBox::about(
                     m_host->hostWindow(), tr("About StreamScope"),
                     tr("<h3>StreamScope %1</h3><p>Shows what CUDA streams really do: overlap, idle gaps, "
                        "host blocking and achieved bandwidth, measured on a real GPU.</p>"
                        "<p>Runs go through <code>streamscope-cli</code>: %2</p>")
                         .arg(QApplication::applicationVersion(),
                              m_host->runController()->program().isEmpty()
                                  ? tr("not found")
                                  : m_host->runController()->program().toHtmlEscaped()));
             }},
    };
}

MainMenus::MainMenus(WindowHost *host, FileActions *files, ChildWindows *children) :
    QObject(host->hostWindow()), m_host(host), m_files(files), m_children(children)
{
    QMainWindow *window = host->hostWindow();
    QMenuBar *bar = window->menuBar();
    addActions(bar->addMenu(tr("&File")), this, fileMenu());
    addActions(bar->addMenu(tr("&Run")), this, runMenu());
    QMenu *view = bar->addMenu(tr("&View"));
    addActions(view, this, viewMenu());
    for (QDockWidget *dock : window->findChildren<QDockWidget *>())
        view->addAction(dock->toggleViewAction());
    QMenu *help = bar->addMenu(tr("&Help"));
    m_shortcuts = new ui::ShortcutsOverlay(window);
    addActions(help, this, helpMenu());

    QToolBar *toolbar = window->addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->addAction(m_actions.open);
    toolbar->addAction(m_actions.run);
    toolbar->addAction(m_actions.compare);
    toolbar->addAction(m_actions.cancel);
    toolbar->addSeparator();
    toolbar->addAction(m_actions.exportImage);
    toolbar->addAction(m_actions.presentation);
}

} // namespace streamscope::gui
