// MainWindow: the wiring between the document, the timeline, the panels in their docks and the run
// session. What has a seam of its own lives apart: the lesson pane (lesson_pane.h), the file dialogs,
// recent files and save policy (file_actions.h), presentation mode (presentation_mode.h), the banners and
// the error bar (message_bars.h), the comparison and Nsight windows (child_windows.h), and the menus,
// declared as tables of actions (action_table.h).
#include "app/gui/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include "app/gui/child_windows.h"
#include "app/gui/lesson_pane.h"
#include "app/gui/main_menus.h"
#include "app/gui/message_bars.h"
#include "app/gui/op_table.h"
#include "app/gui/presentation_mode.h"
#include "app/gui/resource_paths.h"
#include "app/gui/theme.h"
#include "app/gui/workload_runs.h"
#include "ui/common/format_units.h"
#include "ui/common/screen_fit.h"
#include "ui/compare/comparison_window.h"
#include "ui/compare/diff_view.h"
#include "ui/compare/nsight_compare_view.h"
#include "ui/document/trace_document.h"
#include "ui/document/trace_loader.h"
#include "ui/editor/workload_editor.h"
#include "ui/panels/details_panel.h"
#include "ui/panels/find_bar.h"
#include "ui/panels/lessons_panel.h"
#include "ui/panels/op_table_model.h"
#include "ui/panels/range_panel.h"
#include "ui/panels/shortcuts_overlay.h"
#include "ui/panels/summary_model.h"
#include "ui/panels/summary_panel.h"
#include "ui/run/experiment_dialog.h"
#include "ui/run/run_session.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

// The resources are compiled into the static streamscope_gui library, so they must be registered
// explicitly; Q_INIT_RESOURCE has to be used outside any namespace.
static void initStreamscopeResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace streamscope::gui {

MainWindow::MainWindow(QWidget *parent) :
    QMainWindow(parent), m_session(new ui::RunSession(this)), m_runner(m_session->controller())
{
    initStreamscopeResources();
    setObjectName(QStringLiteral("MainWindow"));
    setAcceptDrops(true);
    // Inside its screen when shown, and whenever a layout (the find bar beside the lessons) would widen it.
    ui::keepOnScreen(this);
    setWindowIcon(QIcon(QStringLiteral(":/icons/streamscope.svg")));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
    createWidgets();
    createDocks();
    m_presentation = std::make_unique<PresentationMode>(
        PresentationMode::Parts{this, m_timeline, m_summary, m_lessonPane, m_centralSplit, m_messages, m_children});
    createActions();

    connect(m_session, &ui::RunSession::gpuChanged, this, &MainWindow::updateRunActions);
    connect(m_runner, &ui::RunController::stateChanged, this, &MainWindow::updateRunActions);

    m_lessons->load(workloadsDir(), examplesDir());
    readSettings();
    updateRunActions();
    updateTitle();
    m_lessonPane->refresh();
}

MainWindow::~MainWindow() = default;

void MainWindow::createWidgets()
{
    m_document = new ui::TraceDocument(this);
    m_timeline = new ui::TimelineView(this);
    m_timeline->setObjectName(QStringLiteral("timeline"));
    m_timeline->setDocument(m_document);

    m_messages = new MessageBars(this);
    connect(m_messages, &MessageBars::errorShown, this,
            [this](const QString &what) { statusBar()->showMessage(what, 10000); });
    m_files = new FileActions(this, m_session, m_messages);
    connect(m_files, &FileActions::workloadSaved, this, &MainWindow::updateTitle);
    m_children = new ChildWindows(this, m_document, m_messages);

    m_lessonPane = new LessonPane(m_document, m_timeline, this);
    auto *split = new QSplitter(Qt::Horizontal, this);
    m_centralSplit = split;
    split->setObjectName(QStringLiteral("centralSplit"));
    split->addWidget(m_timeline);
    split->addWidget(m_lessonPane);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setCollapsible(0, false);
    m_lessonPane->setMinimumWidth(220);

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addWidget(m_messages->banner());
    layout->addWidget(m_messages->timingBanner());
    layout->addWidget(m_messages->errorBar());
    m_findBar = new ui::FindBar(this);
    m_findBar->setDocument(m_document);
    m_findBar->hide();
    layout->addWidget(m_findBar);
    layout->addWidget(split, 1);
    setCentralWidget(central);
    createStatusBar();

    connect(m_timeline, &ui::TimelineView::rangeSelected, this, [this](qint64 start, qint64 end) {
        if (end > start)
            statusBar()->showMessage(
                tr("Selected range: %1 (from %2 to %3)")
                    .arg(ui::formatDuration(end - start), ui::formatDuration(start), ui::formatDuration(end)),
                8000);
    });
}

void MainWindow::createStatusBar()
{
    // Opening a file: its own progress and Cancel, beside a run's (a run may go on while a file opens).
    m_loader = new ui::TraceLoader(this);
    auto *loadProgress = m_loadProgress = new QProgressBar(this);
    loadProgress->setObjectName(QStringLiteral("loadProgress"));
    loadProgress->setRange(0, 100);
    loadProgress->setMaximumWidth(320);
    loadProgress->setTextVisible(true);
    loadProgress->hide();
    auto *loadCancel = m_loadCancel = new QPushButton(tr("Cancel opening"), this);
    loadCancel->setObjectName(QStringLiteral("loadCancelButton"));
    loadCancel->hide();
    connect(loadCancel, &QPushButton::clicked, this, &MainWindow::cancelOpen);
    connect(m_loader, &ui::TraceLoader::progressChanged, this, [this](int, int percent, const QString &stage) {
        m_loadProgress->setValue(percent);
        m_loadProgress->setFormat(tr("Opening %1: %2 %p%").arg(QFileInfo(m_loader->currentPath()).fileName(), stage));
    });
    connect(m_loader, &ui::TraceLoader::loadingChanged, this, [this](bool loading) {
        m_loadProgress->setVisible(loading);
        m_loadCancel->setVisible(loading);
        if (loading)
            m_loadProgress->setValue(0);
    });
    connect(m_loader, &ui::TraceLoader::opened, this, &MainWindow::onFileOpened);
    connect(m_loader, &ui::TraceLoader::failed, this, &MainWindow::onOpenFailed);
    statusBar()->addPermanentWidget(loadProgress);
    statusBar()->addPermanentWidget(loadCancel);

    m_runs = new WorkloadRuns(this, m_session, m_messages, m_children, m_loader);
}

void MainWindow::createDocks()
{
    auto makeDock = [this](const QString &title, const QString &name, QWidget *widget, Qt::DockWidgetArea area) {
        auto *dock = new QDockWidget(title, this);
        dock->setObjectName(name); // saveState() keys on it
        dock->setWidget(widget);
        addDockWidget(area, dock);
        return dock;
    };
    m_lessons = new ui::LessonsPanel(this);
    m_editor = new ui::WorkloadEditor(this);
    m_lessonPane->follow(m_editor, m_lessons);
    m_summary = new ui::SummaryPanel(this);
    m_details = new ui::DetailsPanel(this);
    m_opTable = new OpTable(m_document, this);

    QDockWidget *lessons = makeDock(tr("Lessons"), QStringLiteral("lessonsDock"), m_lessons, Qt::LeftDockWidgetArea);
    QDockWidget *editor = makeDock(tr("Workload"), QStringLiteral("workloadDock"), m_editor, Qt::LeftDockWidgetArea);
    tabifyDockWidget(lessons, editor);
    lessons->raise();
    QDockWidget *summary = makeDock(tr("Summary"), QStringLiteral("summaryDock"), m_summary, Qt::BottomDockWidgetArea);
    QDockWidget *details = makeDock(tr("Details"), QStringLiteral("detailsDock"), m_details, Qt::BottomDockWidgetArea);
    QDockWidget *ops = makeDock(tr("Operations"), QStringLiteral("opsDock"), m_opTable, Qt::BottomDockWidgetArea);
    m_range = new ui::RangePanel(this);
    m_range->setDocument(m_document);
    QDockWidget *range = makeDock(tr("Range"), QStringLiteral("rangeDock"), m_range, Qt::BottomDockWidgetArea);
    splitDockWidget(summary, details, Qt::Horizontal);
    tabifyDockWidget(details, ops);
    tabifyDockWidget(ops, range);
    details->raise();
    // A range measured in the timeline brings its statistics to the front; "Zoom to range" shows it.
    connect(m_document, &ui::TraceDocument::rangeChanged, this, [this, range] {
        // Not while rows are being picked in the operations table (a tab of the same dock group).
        const bool fromTable = m_document->rangeStatistics().selectedOps > 0 && m_opTable->hasFocus();
        if (m_document->hasRange() && !fromTable)
            range->raise();
    });
    connect(m_range, &ui::RangePanel::zoomToRangeRequested, this,
            [this](qint64 start, qint64 end) { m_timeline->zoom()->setWindow(start, end); });
    resizeDocks({lessons}, {380}, Qt::Horizontal);
    resizeDocks({summary}, {300}, Qt::Vertical);
    resizeDocks({summary, details}, {560, 520}, Qt::Horizontal);

    // The summary's repetition, the timeline's click, the details and the operations follow the document.
    m_summary->setDocument(m_document);
    m_details->setDocument(m_document);
    m_opTable->bind();
    connect(m_lessons, &ui::LessonsPanel::lessonActivated, this, &MainWindow::openLesson);
    connect(m_lessons, &ui::LessonsPanel::workloadOpenRequested, this,
            [this](const QString &path) { openWorkload(path); });
    connect(m_lessons, &ui::LessonsPanel::exampleOpenRequested, this,
            [this](const QString &path) { openFileInBackground(path); });
    connect(m_lessons, &ui::LessonsPanel::comparisonOpenRequested, this,
            [this](const QString &path) { openComparison(path); });
    connect(m_lessons, &ui::LessonsPanel::compareRequested, this, [this](const QString &path) {
        // The lesson's workload goes into the editor (asking about unsaved edits), then its comparison.
        if (openWorkload(path))
            compareWorkload();
    });
    connect(m_editor, &ui::WorkloadEditor::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_editor, &ui::WorkloadEditor::issuesChanged, this, &MainWindow::updateRunActions);
    connect(m_editor, &ui::WorkloadEditor::issuesChanged, m_messages, &MessageBars::editorIssuesChanged);
}

void MainWindow::createActions()
{
    m_menus = new MainMenus(this, m_files, m_children);
    m_shortcuts = m_menus->shortcutsOverlay();
}

void MainWindow::readSettings()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray()))
        resize(1600, 1000);
    // A first start on a 1280x720 projector, or a geometry saved on a larger screen: inside the screen.
    fitToScreen();
    if (!restoreState(settings.value(QStringLiteral("windowState")).toByteArray())) {
        // First start: give the docks useful sizes once the window has its own.
        QTimer::singleShot(0, this, [this] {
            auto dock = [this](const char *name) { return findChild<QDockWidget *>(QLatin1String(name)); };
            resizeDocks({dock("lessonsDock")}, {width() / 4}, Qt::Horizontal);
            resizeDocks({dock("summaryDock")}, {height() * 3 / 10}, Qt::Vertical);
            resizeDocks({dock("summaryDock"), dock("detailsDock")}, {width() / 2, width() / 2}, Qt::Horizontal);
        });
    }
    if (settings.value(QStringLiteral("darkTheme"), false).toBool())
        m_menus->actions().dark->setChecked(true);
    if (settings.value(QStringLiteral("timeline/projectNvtx"), false).toBool())
        m_menus->actions().projectNvtx->setChecked(true);
    m_files->updateRecentMenu();
}

void MainWindow::writeSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    // Presentation mode hides docks; keep the layout the user had outside it.
    settings.setValue(QStringLiteral("windowState"), m_presentation->layoutToKeep());
    settings.setValue(QStringLiteral("darkTheme"), m_dark);
}

QStringList MainWindow::recentFiles() const
{
    return m_files->recentFiles();
}

void MainWindow::updateTitle()
{
    QStringList parts;
    if (!m_document->name().isEmpty())
        parts << m_document->name();
    if (!m_editor->isEmpty())
        parts << m_editor->displayName() + (m_editor->isModified() ? QStringLiteral("*") : QString());
    parts << QStringLiteral("StreamScope");
    setWindowTitle(parts.join(QStringLiteral(" — ")));
    setWindowModified(m_editor->isModified());
}

void MainWindow::updateRunActions()
{
    const bool busy = m_runner->isBusy() && m_runner->state() != ui::RunController::State::CheckingDevices;
    const bool gpu = m_session->gpuUsable();
    m_menus->actions().run->setEnabled(!busy && gpu && !m_editor->isEmpty());
    m_menus->actions().compare->setEnabled(!busy && gpu && !m_editor->isEmpty());
    m_menus->actions().compare->setToolTip(!gpu                  ? tr("No usable GPU: see the banner")
                                           : m_editor->isEmpty() ? tr("Open or write a workload first")
                                                                 : tr("Run variants of the workload side by side"));
    m_menus->actions().run->setToolTip(!gpu                  ? tr("No usable GPU: see the banner")
                                       : m_editor->isEmpty() ? tr("Open or write a workload first")
                                                             : tr("Run the workload in the editor on the GPU"));
    m_menus->actions().cancel->setEnabled(busy);
    m_runs->showBusy(busy);
    const bool haveTrace = m_document->trace() != nullptr;
    m_menus->actions().saveTrace->setEnabled(haveTrace);
    m_menus->actions().exportImage->setEnabled(haveTrace);
    m_menus->actions().exportTrace->setEnabled(haveTrace);
}

void MainWindow::showError(const QString &what, const QString &message)
{
    m_messages->showError(what, message);
}

void MainWindow::clearError()
{
    m_messages->clearError();
}

QString MainWindow::lastError() const
{
    return m_messages->lastError();
}

void MainWindow::showShortcuts()
{
    // Every action of every menu (submenus included), so the card lists what the menus list.
    QList<QAction *> actions;
    std::function<void(QMenu *)> collect = [&](QMenu *menu) {
        for (QAction *a : menu->actions()) {
            if (a->menu())
                collect(a->menu());
            else
                actions << a;
        }
    };
    for (QAction *top : menuBar()->actions())
        if (top->menu())
            collect(top->menu());
    m_shortcuts->showFor(actions);
}

void MainWindow::showBannerDetails(bool on)
{
    m_messages->showBannerDetails(on);
}

ui::OpTableModel *MainWindow::opTableModel() const
{
    return m_opTable->opModel();
}

ui::OpTableProxy *MainWindow::opTableProxy() const
{
    return m_opTable->proxy();
}

std::shared_ptr<const engine::Trace> MainWindow::trace() const
{
    return m_document->trace();
}

void MainWindow::selectOp(int op)
{
    m_document->selectOp(op);
}

QString MainWindow::timingBannerText() const
{
    return m_messages->timingBannerText();
}

QString MainWindow::bannerText() const
{
    return m_messages->bannerText();
}

void MainWindow::openFileInBackground(const QString &path)
{
    // The loader builds the first lanes too, as the timeline would now (View > Project NVTX included).
    m_loader->setLaneBuilder(m_timeline->laneBuilder());
    m_loader->open(path);
}

bool MainWindow::openFile(const QString &path)
{
    m_loader->setLaneBuilder(m_timeline->laneBuilder());
    const int id = m_loader->open(path);
    return m_loader->waitFor(id) && m_lastOpenOk;
}

void MainWindow::cancelOpen()
{
    m_loader->cancel();
}

bool MainWindow::isOpening() const
{
    return m_loader->isLoading();
}

void MainWindow::onFileOpened(int, const QString &path, engine::FileKind kind,
                              std::shared_ptr<const engine::Trace> trace, std::shared_ptr<ui::TraceAnalysis> analysis)
{
    // Read once on the loader's thread: a workload or a comparison goes to its own reader here.
    if (kind == engine::FileKind::Workload) {
        m_lastOpenOk = openWorkload(path);
        return;
    }
    if (kind == engine::FileKind::Comparison) {
        m_lastOpenOk = openComparison(path);
        return;
    }
    const QString name = QString::fromStdString(trace->title).isEmpty() ? QFileInfo(path).fileName()
                                                                        : QString::fromStdString(trace->title);
    present(std::move(trace), name, path, std::move(analysis));
    m_files->addRecentFile(path);
    // An example trace: show its lesson in the list too; any other trace (an Nsight or PyTorch capture, a
    // run saved elsewhere) is no lesson's, so none stays selected as if it were.
    m_lessons->setCurrentLesson(m_lessons->lessonForPath(path));
    clearError();
    m_lastOpenOk = true;
}

void MainWindow::onOpenFailed(int, const QString &path, const QString &message, bool cancelled)
{
    m_lastOpenOk = false;
    if (cancelled) {
        // What was shown stays shown; the status bar says the open was abandoned.
        statusBar()->showMessage(tr("Opening %1 was cancelled").arg(QFileInfo(path).fileName()), 8000);
        return;
    }
    showError(tr("Could not open %1").arg(QFileInfo(path).fileName()), message);
}

bool MainWindow::openComparison(const QString &path)
{
    QString error;
    ui::ComparisonWindow *window = m_children->newComparison(path, &error);
    if (!window) {
        showError(tr("Could not open the comparison %1").arg(QFileInfo(path).fileName()), error);
        return false;
    }
    m_files->addRecentFile(path);
    clearError();
    window->show();
    return true;
}

bool MainWindow::openWorkload(const QString &path)
{
    if (!maybeKeepWorkload())
        return false;
    QString error;
    if (!m_editor->loadFile(path, &error)) {
        showError(tr("Could not open the workload %1").arg(QFileInfo(path).fileName()), error);
        return false;
    }
    showWorkloadDock();
    m_files->addRecentFile(path);
    m_lessons->setCurrentLesson(m_lessons->lessonForPath(path)); // none for a workload that is no lesson's
    clearError();
    if (!m_editor->issues().empty()) {
        m_messages->showError(tr("The workload %1 has problems").arg(QFileInfo(path).fileName()),
                              tr("%n problem(s), listed under the editor", nullptr, int(m_editor->issues().size())),
                              true);
    }
    updateTitle();
    updateRunActions();
    m_lessonPane->refresh();
    return true;
}

void MainWindow::showTrace(std::shared_ptr<const engine::Trace> trace, const QString &displayName, const QString &path)
{
    present(std::move(trace), displayName, path, nullptr);
}

void MainWindow::present(std::shared_ptr<const engine::Trace> trace, const QString &displayName, const QString &path,
                         std::shared_ptr<ui::TraceAnalysis> analysis)
{
    if (analysis && trace)
        m_document->setTrace(std::move(trace), std::move(*analysis), displayName, path);
    else
        m_document->setTrace(std::move(trace), displayName, path);
    m_opTable->fitColumns();
    const engine::Trace *shown = m_document->trace().get();
    if (shown && shown->opCount() == 0)
        statusBar()->showMessage(tr("%1 holds no operations").arg(displayName), 10000);
    QString timing;
    if (shown && shown->source == engine::TraceSource::StreamScope && shown->timing == engine::TimingSource::Events
        && !shown->timingNote.empty())
        timing = tr("Timed by CUDA events, not CUPTI: %1. Each bar runs from when its stream reached the op, so "
                    "time spent waiting for a copy engine or a hardware queue is drawn as execution.")
                     .arg(QString::fromStdString(shown->timingNote));
    else if (shown && shown->source != engine::TraceSource::StreamScope && !shown->timingNote.empty())
        timing = QString::fromStdString(shown->timingNote); // what the file lacks (an Nsight capture's graphs)
    m_messages->setTimingText(timing);
    updateTitle();
    updateRunActions();
    m_lessonPane->refresh();
}

void MainWindow::setProjectNvtx(bool on)
{
    m_menus->actions().projectNvtx->setChecked(on); // toggled: the timeline follows
}

bool MainWindow::projectNvtx() const
{
    return m_menus->actions().projectNvtx->isChecked();
}

void MainWindow::setRepetition(int repetition)
{
    m_document->setRepetition(repetition);
}

bool MainWindow::exportImage(const QString &path, QSize size, QString *error)
{
    return exportImage(path, size, exportImageOptions(), error);
}

bool MainWindow::exportImage(const QString &path, QSize size, const ui::ImageOptions &options, QString *error)
{
    if (!m_document->trace()) {
        if (error)
            *error = tr("there is no trace to export");
        return false;
    }
    return m_timeline->exportImage(path, size, options, error);
}

QSize MainWindow::exportImageSize() const
{
    // Slides want a fixed 16:9 picture in presentation mode; otherwise the timeline at twice its size.
    return presentationMode() ? QSize(1920, 1080)
                              : QSize(qMax(1280, m_timeline->width() * 2), qMax(720, m_timeline->height() * 2));
}

ui::ImageOptions MainWindow::exportImageOptions() const
{
    ui::ImageOptions options;
    // Twice the widget: the picture as on screen, every line and letter twice as large. In presentation
    // mode 1920x1080 at 1.5 (the layout of a 1280x720 screen).
    options.scale = presentationMode() ? 0 : 2;
    options.transparent = transparentExports();
    options.title = m_timeline->exportTitle();
    // The key figures of the repetition shown, as presentation mode's strip gives them.
    options.figures = m_summary->model()->keyFiguresText();
    return options;
}

void MainWindow::setTransparentExports(bool on)
{
    m_menus->actions().transparent->setChecked(on);
}

bool MainWindow::transparentExports() const
{
    return m_menus->actions().transparent->isChecked();
}

void MainWindow::openLesson(int index)
{
    if (index < 0 || index >= int(m_lessons->lessons().size()))
        return;
    const ui::Lesson &lesson = m_lessons->lessons()[std::size_t(index)];
    m_lessons->setCurrentLesson(index);
    if (const WorkloadRuns::LastRun *run = m_runs->lastRun(lesson.workloadPath)) {
        showTrace(run->trace, run->displayName, run->path);
        clearError();
        return;
    }
    if (!lesson.examplePath.isEmpty())
        openFileInBackground(lesson.examplePath);
    else if (lesson.error.isEmpty())
        openWorkload(lesson.workloadPath);
    else
        showError(tr("Cannot open the lesson %1").arg(lesson.name), lesson.error);
}

bool MainWindow::saveTrace(const QString &path, QString *error)
{
    return m_files->saveTrace(path, error);
}

bool MainWindow::exportTrace(const QString &path, QString *error)
{
    return m_files->exportTrace(path, error);
}

ui::NsightCompareView *MainWindow::compareWithNsight(const QString &nsightPath, const QString &ownPath, QString *error)
{
    return m_children->compareWithNsight(nsightPath, ownPath, error);
}

ui::ComparisonWindow *MainWindow::lastComparison() const
{
    return m_children->lastComparison();
}

void MainWindow::fitToScreen()
{
    ui::fitToScreen(this);
}

void MainWindow::setPresentationMode(bool on)
{
    if (m_presentation->set(on))
        m_menus->actions().presentation->setChecked(on);
}

bool MainWindow::presentationMode() const
{
    return m_presentation->isOn();
}

void MainWindow::setDarkTheme(bool dark)
{
    m_dark = dark;
    applyTheme(dark ? Theme::Dark : Theme::Light);
    m_timeline->setDarkPalette(dark);
    m_children->setDarkPalette(dark);
    (dark ? m_menus->actions().dark : m_menus->actions().light)->setChecked(true);
}

bool MainWindow::runWorkload()
{
    return m_runs->run();
}

bool MainWindow::compareWorkload()
{
    return m_runs->compare();
}

bool MainWindow::startComparison(const QStringList &varyOptions, int repetitions, int warmup)
{
    return m_runs->startComparison(varyOptions, repetitions, warmup);
}

void MainWindow::setExperimentQuestion(std::function<bool(ui::ExperimentDialog &)> question)
{
    m_runs->setExperimentQuestion(std::move(question));
}

void MainWindow::cancelRun()
{
    m_runs->cancel();
}

void MainWindow::checkGpu()
{
    m_session->checkDevices();
}

bool MainWindow::maybeKeepWorkload()
{
    return m_files->maybeKeepWorkload();
}

void MainWindow::setDiscardQuestion(std::function<DiscardAnswer()> question)
{
    m_files->setDiscardQuestion(std::move(question));
}

void MainWindow::setSaveInvalidQuestion(std::function<bool()> question)
{
    m_files->setSaveInvalidQuestion(std::move(question));
}

bool MainWindow::saveWorkload()
{
    return m_files->saveWorkload();
}

bool MainWindow::saveWorkloadAs()
{
    return m_files->saveWorkloadAs();
}

void MainWindow::showWorkloadDock()
{
    if (auto *dock = findChild<QDockWidget *>(QStringLiteral("workloadDock"))) {
        dock->show();
        dock->raise();
    }
}

void MainWindow::newWorkload()
{
    if (!maybeKeepWorkload())
        return;
    m_editor->setText(ui::WorkloadEditor::templateText(), tr("untitled.json"));
    showWorkloadDock();
    updateTitle();
    updateRunActions();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!maybeKeepWorkload()) {
        event->ignore();
        return;
    }
    if (m_runner->isBusy())
        m_runner->cancel();
    writeSettings();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls() && !event->mimeData()->urls().isEmpty()
        && event->mimeData()->urls().first().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty())
        return;
    event->acceptProposedAction();
    openFileInBackground(urls.first().toLocalFile());
}

} // namespace streamscope::gui
