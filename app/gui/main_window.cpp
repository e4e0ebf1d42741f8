// MainWindow: wiring between the panels, the timeline and the run controller, plus file handling.
#include "app/gui/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include "app/gui/resource_paths.h"
#include "app/gui/theme.h"
#include "engine/analysis/op_query.h"
#include "engine/formats/native_format.h"
#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "engine/workload/workload_parser.h"
#include "ui/common/format_units.h"
#include "ui/common/screen_fit.h"
#include "ui/compare/comparison_window.h"
#include "ui/compare/diff_view.h"
#include "ui/compare/nsight_compare_view.h"
#include "ui/document/trace_document.h"
#include "ui/document/trace_loader.h"
#include "ui/editor/workload_editor.h"
#include "ui/editor/workload_tree_model.h"
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

namespace {

constexpr int kMaxRecentFiles = 8;
const char *const kRecentKey = "recentFiles";

} // namespace

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
    m_experimentQuestion = [](ui::ExperimentDialog &dialog) { return dialog.exec() == QDialog::Accepted; };
    m_discardQuestion = [this] {
        const auto button =
            QMessageBox::warning(this, tr("Unsaved workload"),
                                 tr("The workload \"%1\" has changes that are not saved.").arg(m_editor->displayName()),
                                 QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
        return button == QMessageBox::Save      ? DiscardAnswer::Save
               : button == QMessageBox::Discard ? DiscardAnswer::Discard
                                                : DiscardAnswer::Cancel;
    };
    m_saveInvalidQuestion = [this] {
        const auto button = QMessageBox::question(
            this, tr("Save a workload with problems?"),
            tr("The workload \"%1\" has %n problem(s) and will not run until they are fixed. Save it anyway?", nullptr,
               int(m_editor->issues().size()))
                .arg(m_editor->displayName()),
            QMessageBox::Save | QMessageBox::Cancel, QMessageBox::Cancel);
        return button == QMessageBox::Save;
    };
    createWidgets();
    createDocks();
    createActions();

    connect(m_runner, &ui::RunController::progressChanged, this, [this](int percent, const QString &text) {
        m_progress->setValue(percent);
        m_runStatus->setText(text);
    });
    connect(m_runner, &ui::RunController::deviceReported, this, [this](const QString &name, const QString &cc) {
        m_runStatus->setText(tr("Running on %1 (compute capability %2)").arg(name, cc));
    });
    connect(m_session, &ui::RunSession::traceReady, this, &MainWindow::onRunTraceReady);
    connect(m_session, &ui::RunSession::comparisonReady, this, &MainWindow::onRunComparisonReady);
    connect(m_session, &ui::RunSession::failed, this, &MainWindow::onRunFailed);
    connect(m_session, &ui::RunSession::gpuChanged, this, &MainWindow::onDevicesChecked);
    connect(m_runner, &ui::RunController::stateChanged, this, &MainWindow::updateRunActions);

    m_lessons->load(workloadsDir(), examplesDir());
    readSettings();
    updateRunActions();
    updateTitle();
    updateExplanation();
}

MainWindow::~MainWindow() = default;

void MainWindow::createWidgets()
{
    m_document = new ui::TraceDocument(this);
    m_timeline = new ui::TimelineView(this);
    m_timeline->setObjectName(QStringLiteral("timeline"));
    m_timeline->setDocument(m_document);

    // A line of plain text above the timeline, hidden until it has something to say.
    auto banner = [this](const QString &name, const QString &background, int margin) {
        auto *label = new QLabel(this);
        label->setObjectName(name);
        label->setWordWrap(true);
        label->setTextFormat(Qt::PlainText);
        label->setMargin(margin);
        label->setStyleSheet(QStringLiteral("background:%1; color:#000; border-radius:4px;").arg(background));
        label->hide();
        return label;
    };
    m_banner = banner(QStringLiteral("banner"), QStringLiteral("#f0e442"), 8);
    // One line; the runner's own words (the CLI's reason and the CUDA call's error) on demand.
    m_banner->setTextFormat(Qt::RichText);
    connect(m_banner, &QLabel::linkActivated, this, [this] {
        m_bannerDetailsShown = !m_bannerDetailsShown;
        showBanner(m_bannerText, m_bannerDetails);
    });
    // What timed the trace on screen, where that changes how to read it (a run that could not use
    // CUPTI, a recording from before CUPTI timing).
    m_timingBanner = banner(QStringLiteral("timingBanner"), QStringLiteral("#fbe3c4"), 6);

    m_errorBar = new QWidget(this);
    m_errorBar->setObjectName(QStringLiteral("errorBar"));
    m_errorBar->setStyleSheet(QStringLiteral("#errorBar { background:#d55e00; border-radius:4px; } "
                                             "#errorBar QLabel { color:#fff; }"));
    m_errorText = new QLabel(m_errorBar);
    m_errorText->setWordWrap(true);
    m_errorText->setTextFormat(Qt::PlainText);
    m_errorText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *dismiss = new QPushButton(tr("Dismiss"), m_errorBar);
    connect(dismiss, &QPushButton::clicked, this, &MainWindow::clearError);
    auto *errorLayout = new QHBoxLayout(m_errorBar);
    errorLayout->setContentsMargins(8, 6, 8, 6);
    errorLayout->addWidget(m_errorText, 1);
    errorLayout->addWidget(dismiss, 0, Qt::AlignTop);
    m_errorBar->hide();

    m_explanation = new QWidget(this);
    m_explanation->setObjectName(QStringLiteral("explanation"));
    m_explanationTitle = new QLabel(tr("What to look for"), m_explanation);
    m_explanationTitle->setObjectName(QStringLiteral("explanationTitle"));
    // Bold through the style sheet, not setFont(), so it still follows presentation mode's larger font.
    m_explanationTitle->setStyleSheet(QStringLiteral("font-weight: bold"));
    m_explanationTitle->setWordWrap(true);
    // The lesson's key figure: the one thing to look at, outlined in the timeline in the same colour.
    m_keyFigureLabel = new QLabel(m_explanation);
    m_keyFigureLabel->setObjectName(QStringLiteral("keyFigure"));
    m_keyFigureLabel->setWordWrap(true);
    m_keyFigureLabel->setTextFormat(Qt::PlainText);
    m_keyFigureLabel->setStyleSheet(
        QStringLiteral("font-weight: bold; border-left: 4px solid #c8008c; padding: 2px 0px 2px 6px;"));
    m_keyFigureLabel->hide();
    m_explanationText = new QTextBrowser(m_explanation);
    m_explanationText->setObjectName(QStringLiteral("explanationText"));
    m_explanationText->setFrameShape(QFrame::NoFrame);
    auto *explanationLayout = new QVBoxLayout(m_explanation);
    explanationLayout->setContentsMargins(8, 4, 4, 4);
    explanationLayout->addWidget(m_explanationTitle);
    explanationLayout->addWidget(m_keyFigureLabel);
    explanationLayout->addWidget(m_explanationText, 1);

    auto *split = new QSplitter(Qt::Horizontal, this);
    m_centralSplit = split;
    split->setObjectName(QStringLiteral("centralSplit"));
    split->addWidget(m_timeline);
    split->addWidget(m_explanation);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setCollapsible(0, false);
    m_explanation->setMinimumWidth(220);

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addWidget(m_banner);
    layout->addWidget(m_timingBanner);
    layout->addWidget(m_errorBar);
    m_findBar = new ui::FindBar(this);
    m_findBar->setDocument(m_document);
    m_findBar->hide();
    layout->addWidget(m_findBar);
    layout->addWidget(split, 1);
    setCentralWidget(central);

    // Opening a file: its own progress and Cancel, beside a run's (a run may go on while a file opens).
    m_loader = new ui::TraceLoader(this);
    m_loadProgress = new QProgressBar(this);
    m_loadProgress->setObjectName(QStringLiteral("loadProgress"));
    m_loadProgress->setRange(0, 100);
    m_loadProgress->setMaximumWidth(320);
    m_loadProgress->setTextVisible(true);
    m_loadProgress->hide();
    m_loadCancel = new QPushButton(tr("Cancel opening"), this);
    m_loadCancel->setObjectName(QStringLiteral("loadCancelButton"));
    m_loadCancel->hide();
    connect(m_loadCancel, &QPushButton::clicked, this, &MainWindow::cancelOpen);
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
    statusBar()->addPermanentWidget(m_loadProgress);
    statusBar()->addPermanentWidget(m_loadCancel);

    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 100);
    m_progress->setMaximumWidth(240);
    m_progress->setTextVisible(true);
    m_progress->hide();
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setObjectName(QStringLiteral("cancelButton"));
    m_cancelButton->hide();
    connect(m_cancelButton, &QPushButton::clicked, this, &MainWindow::cancelRun);
    m_runStatus = new QLabel(this);
    statusBar()->addWidget(m_runStatus, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancelButton);

    connect(m_document, &ui::TraceDocument::selectionChanged, this, &MainWindow::onOpSelected);
    connect(m_timeline, &ui::TimelineView::rangeSelected, this, [this](qint64 start, qint64 end) {
        if (end > start)
            statusBar()->showMessage(
                tr("Selected range: %1 (from %2 to %3)")
                    .arg(ui::formatDuration(end - start), ui::formatDuration(start), ui::formatDuration(end)),
                8000);
    });
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
    m_summary = new ui::SummaryPanel(this);
    m_details = new ui::DetailsPanel(this);
    m_opModel = new ui::OpTableModel(this);
    m_opProxy = new ui::OpTableProxy(this);
    m_opProxy->setSourceModel(m_opModel);
    m_opProxy->setDocument(m_document);
    m_opTable = new QTableView(this);
    m_opTable->setObjectName(QStringLiteral("opTable"));
    m_opTable->setModel(m_opProxy);
    m_opTable->setSortingEnabled(true);
    m_opTable->sortByColumn(ui::OpTableModel::IndexColumn, Qt::AscendingOrder);
    m_opTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_opTable->setSelectionMode(QAbstractItemView::ExtendedSelection); // several rows: the Range dock measures them
    m_opTable->verticalHeader()->hide();
    m_opTable->horizontalHeader()->setStretchLastSection(true);
    m_opTable->setAlternatingRowColors(true);
    // "vs alone" only where the trace has solo baselines to compare with (run --solo).
    const auto showAlone = [this] {
        const auto trace = m_document->trace();
        m_opTable->setColumnHidden(ui::OpTableModel::AloneColumn, !trace || trace->solo.empty());
    };
    connect(m_document, &ui::TraceDocument::traceChanged, this, showAlone);
    showAlone();

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
    m_opModel->setDocument(m_document);
    // The table's selection is the document's: one row selects that op, several make a multiple
    // selection; the document's selection (a click or Ctrl+click in the timeline) comes back to it.
    connect(m_opTable->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        if (m_syncingOpTable)
            return;
        std::vector<int> ops;
        for (const QModelIndex &row : m_opTable->selectionModel()->selectedRows())
            ops.push_back(m_opProxy->mapToSource(row).row());
        const QModelIndex current = m_opTable->currentIndex();
        const int primary = current.isValid() ? m_opProxy->mapToSource(current).row() : -1;
        if (ops.size() > 1) {
            // The op under the cursor is the one the details show: it goes last.
            if (const auto at = std::find(ops.begin(), ops.end(), primary); at != ops.end())
                std::rotate(at, at + 1, ops.end());
            m_document->selectOps(ops);
        } else if (ops.size() == 1) {
            m_document->selectOp(ops.front());
        }
    });
    connect(m_document, &ui::TraceDocument::selectedOpsChanged, this, &MainWindow::syncOpTableSelection);
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
    connect(m_editor, &ui::WorkloadEditor::issuesChanged, this, [this](int count) {
        // "The workload has problems" is over once they are fixed.
        if (count == 0 && m_errorFromEditorIssues)
            clearError();
    });
}

void MainWindow::createActions()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *newAction = file->addAction(tr("&New workload"), this, &MainWindow::newWorkload);
    newAction->setShortcut(QKeySequence::New);
    QAction *openAction = file->addAction(tr("&Open…"), this, &MainWindow::openDialog);
    openAction->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &recent"));
    file->addSeparator();
    QAction *saveAction = file->addAction(tr("&Save workload"), this, &MainWindow::saveWorkload);
    saveAction->setShortcut(QKeySequence::Save);
    QAction *saveAsAction = file->addAction(tr("Save workload &as…"), this, &MainWindow::saveWorkloadAs);
    saveAsAction->setShortcut(QKeySequence::SaveAs);
    m_saveTraceAction = file->addAction(tr("Save &trace as…"), this, &MainWindow::saveTraceDialog);
    m_saveTraceAction->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_S));
    m_exportImageAction = file->addAction(tr("&Export timeline image…"), this, &MainWindow::exportImageDialog);
    m_exportImageAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_transparentAction = file->addAction(tr("Trans&parent image background"));
    m_transparentAction->setCheckable(true);
    m_transparentAction->setToolTip(tr("Exported images leave the background transparent (for slides)"));
    m_transparentAction->setChecked(QSettings().value(QStringLiteral("export/transparent"), false).toBool());
    connect(m_transparentAction, &QAction::toggled, this,
            [](bool on) { QSettings().setValue(QStringLiteral("export/transparent"), on); });
    m_exportTraceAction = file->addAction(tr("Export t&race…"), this, &MainWindow::exportTraceDialog);
    file->addAction(tr("Compare with &Nsight Systems…"), this, &MainWindow::compareWithNsightDialog);
    file->addAction(tr("Open &comparison…"), this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Open a comparison"), QString(), tr("Comparisons (*.sscompare)"));
        if (!path.isEmpty())
            openComparison(path);
    });
    file->addAction(tr("&Diff two traces…"), this, [this] { ui::DiffView::pickAndShow(this); });
    file->addSeparator();
    QAction *quitAction = file->addAction(tr("&Quit"), this, &QWidget::close);
    quitAction->setShortcut(QKeySequence::Quit);
    quitAction->setMenuRole(QAction::QuitRole);

    QMenu *run = menuBar()->addMenu(tr("&Run"));
    m_runAction = run->addAction(tr("&Run workload"), this, &MainWindow::runWorkload);
    m_runAction->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_R), QKeySequence(Qt::Key_F5)});
    m_compareAction = run->addAction(tr("Compare &variants…"), this, &MainWindow::compareWorkload);
    m_compareAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    m_cancelAction = run->addAction(tr("&Cancel run"), this, &MainWindow::cancelRun);
    m_cancelAction->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    run->addSeparator();
    // What times the runs: CUPTI (execution as the GPU ran it) or CUDA events, remembered.
    QMenu *timing = run->addMenu(tr("&Timing"));
    auto *timingGroup = new QActionGroup(this);
    const QString chosen = QSettings().value(QStringLiteral("run/timing"), QStringLiteral("cupti")).toString();
    const std::pair<QString, QString> sources[] = {
        {QStringLiteral("cupti"), tr("&CUPTI: each op as the GPU ran it")},
        {QStringLiteral("events"), tr("CUDA &events: from when its stream reached it (queued time counts)")}};
    for (const auto &[key, label] : sources) {
        QAction *a = timing->addAction(label);
        a->setCheckable(true);
        a->setChecked(key == chosen);
        a->setData(key);
        timingGroup->addAction(a);
    }
    m_runner->setTiming(chosen == QLatin1String("events") ? chosen : QStringLiteral("cupti"));
    connect(timingGroup, &QActionGroup::triggered, this, [this](QAction *a) {
        m_runner->setTiming(a->data().toString());
        QSettings().setValue(QStringLiteral("run/timing"), a->data().toString());
    });
    // Solo baselines on every run (each part alone after each repetition: what overlapping saved and cost), remembered.
    QAction *solo = run->addAction(tr("Measure &solo baselines (each stream alone too)"));
    solo->setObjectName(QStringLiteral("soloBaselinesAction"));
    solo->setCheckable(true);
    solo->setChecked(QSettings().value(QStringLiteral("run/solo"), false).toBool());
    m_runner->setSolo(solo->isChecked());
    connect(solo, &QAction::toggled, this, [this](bool on) {
        m_runner->setSolo(on);
        QSettings().setValue(QStringLiteral("run/solo"), on);
    });
    run->addAction(tr("Check for a &GPU"), this, &MainWindow::checkGpu);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_presentationAction = m_viewMenu->addAction(tr("&Presentation mode"));
    m_presentationAction->setCheckable(true);
    m_presentationAction->setShortcut(QKeySequence(Qt::Key_F11));
    connect(m_presentationAction, &QAction::toggled, this, &MainWindow::setPresentationMode);
    auto *themes = new QActionGroup(this);
    m_lightAction = m_viewMenu->addAction(tr("&Light palette"));
    m_darkAction = m_viewMenu->addAction(tr("&Dark palette"));
    for (QAction *a : {m_lightAction, m_darkAction}) {
        a->setCheckable(true);
        themes->addAction(a);
    }
    m_lightAction->setChecked(true);
    connect(m_darkAction, &QAction::toggled, this, &MainWindow::setDarkTheme);
    m_viewMenu->addSeparator();
    m_projectNvtxAction = m_viewMenu->addAction(tr("Project &NVTX onto GPU lanes"));
    m_projectNvtxAction->setObjectName(QStringLiteral("projectNvtxAction"));
    m_projectNvtxAction->setCheckable(true);
    m_projectNvtxAction->setToolTip(tr("A row above each stream shows the NVTX range (or PyTorch op) each of "
                                       "its operations was launched in, as Nsight Systems does"));
    connect(m_projectNvtxAction, &QAction::toggled, this, [this](bool on) {
        m_timeline->setProjectNvtx(on);
        QSettings().setValue(QStringLiteral("timeline/projectNvtx"), on);
    });
    QAction *fit = m_viewMenu->addAction(tr("&Fit timeline (F)"), m_timeline, &ui::TimelineView::fitAll);
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    QAction *zoomBack = m_viewMenu->addAction(tr("Zoom &back"), this, [this] { m_timeline->zoom()->back(); });
    zoomBack->setShortcut(QKeySequence::Back);
    QAction *zoomForward = m_viewMenu->addAction(tr("Zoom fo&rward"), this, [this] { m_timeline->zoom()->forward(); });
    zoomForward->setShortcut(QKeySequence::Forward);
    QAction *find = m_viewMenu->addAction(tr("F&ind ops…"), m_findBar, &ui::FindBar::activate);
    find->setShortcut(QKeySequence::Find);
    QAction *findNext = m_viewMenu->addAction(tr("Find &next"), m_findBar, &ui::FindBar::findNext);
    findNext->setShortcut(QKeySequence::FindNext);
    QAction *findPrevious = m_viewMenu->addAction(tr("Find &previous"), m_findBar, &ui::FindBar::findPrevious);
    findPrevious->setShortcut(QKeySequence::FindPrevious);
    m_viewMenu->addSeparator();
    // Flows for everything in view, and follow flow (host call <-> GPU work of the selected op).
    // Solo baselines: each bar's time alone marked, the rest tinted (the trace must have them).
    QAction *slowdown = m_viewMenu->addAction(tr("Time &alone in the bars (solo baselines)"));
    slowdown->setObjectName(QStringLiteral("showSlowdownAction"));
    slowdown->setCheckable(true);
    slowdown->setChecked(m_timeline->showSlowdown());
    connect(slowdown, &QAction::toggled, m_timeline, &ui::TimelineView::setShowSlowdown);
    QAction *flows = m_viewMenu->addAction(tr("F&lows for everything in view"));
    flows->setCheckable(true);
    flows->setShortcut(QKeySequence(Qt::Key_L));
    connect(flows, &QAction::toggled, m_timeline, &ui::TimelineView::setShowAllFlows);
    connect(m_timeline, &ui::TimelineView::showAllFlowsChanged, flows, &QAction::setChecked);
    QAction *follow =
        m_viewMenu->addAction(tr("Follow flo&w (host call ↔ GPU work)"), m_timeline, &ui::TimelineView::followFlow);
    follow->setShortcut(QKeySequence(Qt::Key_BracketRight));
    // The lane tree: hidden lanes to show again, collapse and expand all, reset (rows: their context menu).
    QMenu *lanes = m_viewMenu->addMenu(tr("L&anes"));
    connect(lanes, &QMenu::aboutToShow, this, [this, lanes] {
        lanes->clear();
        m_timeline->fillLanesMenu(lanes);
    });
    m_viewMenu->addSeparator();
    for (QDockWidget *dock : findChildren<QDockWidget *>())
        m_viewMenu->addAction(dock->toggleViewAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    m_shortcuts = new ui::ShortcutsOverlay(this);
    QAction *keys = help->addAction(tr("&Keyboard and mouse"), this, &MainWindow::showShortcuts);
    // "?" arrives as Shift+? on most layouts, plain "?" on others.
    keys->setShortcuts(
        {QKeySequence(Qt::Key_Question), QKeySequence(Qt::SHIFT | Qt::Key_Question), QKeySequence(Qt::Key_F1)});
    help->addAction(tr("&About StreamScope"), this, [this] {
        QMessageBox::about(this, tr("About StreamScope"),
                           tr("<h3>StreamScope %1</h3><p>Shows what CUDA streams really do: overlap, idle gaps, "
                              "host blocking and achieved bandwidth, measured on a real GPU.</p>"
                              "<p>Runs go through <code>streamscope-cli</code>: %2</p>")
                               .arg(QApplication::applicationVersion(), m_runner->program().isEmpty()
                                                                            ? tr("not found")
                                                                            : m_runner->program().toHtmlEscaped()));
    });

    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->addAction(openAction);
    toolbar->addAction(m_runAction);
    toolbar->addAction(m_compareAction);
    toolbar->addAction(m_cancelAction);
    toolbar->addSeparator();
    toolbar->addAction(m_exportImageAction);
    toolbar->addAction(m_presentationAction);
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
        m_darkAction->setChecked(true);
    if (settings.value(QStringLiteral("timeline/projectNvtx"), false).toBool())
        m_projectNvtxAction->setChecked(true);
    updateRecentMenu();
}

void MainWindow::writeSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    // Presentation mode hides docks; keep the layout the user had outside it.
    settings.setValue(QStringLiteral("windowState"),
                      m_presentation ? property("stateBeforePresentation").toByteArray() : saveState());
    settings.setValue(QStringLiteral("darkTheme"), m_dark);
}

QStringList MainWindow::recentFiles() const
{
    return QSettings().value(QLatin1String(kRecentKey)).toStringList();
}

void MainWindow::addRecentFile(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    // Files of a run live in a temporary folder that goes away: not worth remembering.
    if (m_session->ownsFile(absolute))
        return;
    QStringList files = recentFiles();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    QSettings().setValue(QLatin1String(kRecentKey), files);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (int i = 0; i < files.size(); ++i) {
        const QString path = files[i];
        QAction *action = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()),
                                                  this, [this, path] { openFileInBackground(path); });
        action->setToolTip(path);
    }
    if (!files.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear the list"), this, [this] {
            QSettings().remove(QLatin1String(kRecentKey));
            updateRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!files.isEmpty());
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
    m_runAction->setEnabled(!busy && m_session->gpuUsable() && !m_editor->isEmpty());
    m_compareAction->setEnabled(!busy && m_session->gpuUsable() && !m_editor->isEmpty());
    m_compareAction->setToolTip(!m_session->gpuUsable() ? tr("No usable GPU: see the banner")
                                : m_editor->isEmpty()   ? tr("Open or write a workload first")
                                                        : tr("Run variants of the workload side by side"));
    m_runAction->setToolTip(!m_session->gpuUsable() ? tr("No usable GPU: see the banner")
                            : m_editor->isEmpty()   ? tr("Open or write a workload first")
                                                    : tr("Run the workload in the editor on the GPU"));
    m_cancelAction->setEnabled(busy);
    m_progress->setVisible(busy);
    m_cancelButton->setVisible(busy);
    m_cancelButton->setEnabled(m_runner->state() == ui::RunController::State::Running);
    const bool haveTrace = m_document->trace() != nullptr;
    m_saveTraceAction->setEnabled(haveTrace);
    m_exportImageAction->setEnabled(haveTrace);
    m_exportTraceAction->setEnabled(haveTrace);
}

void MainWindow::showError(const QString &what, const QString &message)
{
    m_errorFromEditorIssues = false;
    m_lastError = message.isEmpty() ? what : what + QStringLiteral(": ") + message;
    m_errorText->setText(m_lastError);
    m_errorBar->show();
    statusBar()->showMessage(what, 10000);
}

void MainWindow::clearError()
{
    m_errorFromEditorIssues = false;
    m_errorBar->hide();
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

void MainWindow::showBanner(const QString &text, const QString &details)
{
    if (details != m_bannerDetails)
        m_bannerDetailsShown = false;
    m_bannerText = text;
    m_bannerDetails = details;
    QString html = text.toHtmlEscaped();
    if (!details.isEmpty()) {
        html += QStringLiteral(" <a href=\"details\" style=\"color:#000\">%1</a>")
                    .arg(m_bannerDetailsShown ? tr("Hide details") : tr("Details"));
        if (m_bannerDetailsShown)
            html += QStringLiteral("<br>") + details.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    }
    m_banner->setText(html);
    m_banner->setToolTip(details);
    m_banner->setVisible(!text.isEmpty() && !m_presentation);
}

void MainWindow::showBannerDetails(bool on)
{
    m_bannerDetailsShown = on && !m_bannerDetails.isEmpty();
    showBanner(m_bannerText, m_bannerDetails);
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
    return m_timingBanner->isHidden() ? QString() : m_timingBanner->text();
}

QString MainWindow::bannerText() const
{
    if (m_banner->isHidden())
        return {};
    return m_bannerDetailsShown ? m_bannerText + QLatin1Char('\n') + m_bannerDetails : m_bannerText;
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
    addRecentFile(path);
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

// A comparison window on the file, in this window's presentation mode and palette; not shown yet.
// nullptr (and *error) when the file cannot be read.
ui::ComparisonWindow *MainWindow::newComparisonWindow(const QString &path, QString *error)
{
    auto *window = new ui::ComparisonWindow(this);
    window->setAttribute(Qt::WA_DeleteOnClose);
    if (!window->openFile(path, error)) {
        delete window;
        return nullptr;
    }
    window->setPresentationMode(m_presentation);
    window->setDarkPalette(m_dark);
    openOnMyScreen(window);
    m_lastComparison = window;
    return window;
}

bool MainWindow::openComparison(const QString &path)
{
    QString error;
    ui::ComparisonWindow *window = newComparisonWindow(path, &error);
    if (!window) {
        showError(tr("Could not open the comparison %1").arg(QFileInfo(path).fileName()), error);
        return false;
    }
    addRecentFile(path);
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
    if (auto *dock = findChild<QDockWidget *>(QStringLiteral("workloadDock"))) {
        dock->show();
        dock->raise();
    }
    addRecentFile(path);
    m_lessons->setCurrentLesson(m_lessons->lessonForPath(path)); // none for a workload that is no lesson's
    clearError();
    if (!m_editor->issues().empty()) {
        showError(tr("The workload %1 has problems").arg(QFileInfo(path).fileName()),
                  tr("%n problem(s), listed under the editor", nullptr, int(m_editor->issues().size())));
        m_errorFromEditorIssues = true;
    }
    updateTitle();
    updateRunActions();
    updateExplanation();
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
    m_opTable->resizeColumnsToContents();
    const engine::Trace *shown = m_document->trace().get();
    if (shown && shown->opCount() == 0)
        statusBar()->showMessage(tr("%1 holds no operations").arg(displayName), 10000);
    QString timing;
    if (shown && shown->source == "streamscope" && shown->timing == engine::TimingSource::Events
        && !shown->timingNote.empty())
        timing = tr("Timed by CUDA events, not CUPTI: %1. Each bar runs from when its stream reached the op, so "
                    "time spent waiting for a copy engine or a hardware queue is drawn as execution.")
                     .arg(QString::fromStdString(shown->timingNote));
    m_timingBanner->setText(timing);
    m_timingBanner->setVisible(!timing.isEmpty());
    updateTitle();
    updateRunActions();
    updateExplanation();
}

void MainWindow::setProjectNvtx(bool on)
{
    m_projectNvtxAction->setChecked(on); // toggled: the timeline follows
}

bool MainWindow::projectNvtx() const
{
    return m_projectNvtxAction->isChecked();
}

void MainWindow::setRepetition(int repetition)
{
    m_document->setRepetition(repetition);
}

void MainWindow::updateExplanation()
{
    // The lesson's explanation beside its timeline: the trace's own workload description first (it says
    // what this very run shows), else the lesson the trace or the editor's workload came from.
    QString title;
    QString text;
    if (m_document->trace() && !m_document->trace()->workloadJson.empty()) {
        try {
            const engine::WorkloadHeader header = engine::readWorkloadHeader(m_document->trace()->workloadJson);
            text = QString::fromStdString(header.description);
            title = QString::fromStdString(header.name);
        } catch (const engine::Error &) {
            // A trace whose embedded workload is broken still opens; the lesson's own text is used below.
        }
    }
    if (text.isEmpty() && !m_document->trace() && m_editor->isValid()) {
        // Nothing run yet: explain the workload about to be run.
        text = QString::fromStdString(m_editor->treeModel()->workload().description);
        title = QString::fromStdString(m_editor->treeModel()->workload().name);
    }
    if (text.isEmpty()) {
        const int lesson = m_lessons->lessonForPath(m_document->trace() ? m_document->path() : m_editor->filePath());
        if (lesson >= 0) {
            text = m_lessons->lessons()[std::size_t(lesson)].description;
            title = m_lessons->lessons()[std::size_t(lesson)].name;
        }
    }
    m_explanationText->setPlainText(text);
    m_explanationTitle->setText(title.isEmpty() ? tr("What to look for") : tr("What to look for: %1").arg(title));
    const engine::KeyFigure figure = currentKeyFigure();
    m_keyFigureLabel->setText(figure.caption.empty() ? QString()
                                                     : tr("Look at: %1").arg(QString::fromStdString(figure.caption)));
    m_keyFigureLabel->setVisible(!figure.caption.empty());
    engine::OpQuery query;
    query.text = figure.name;
    query.lane = figure.lane;
    if (const auto kind = engine::opKindFromString(figure.kind))
        query.kind = *kind;
    m_timeline->setKeyFigure(QString::fromStdString(figure.caption), query);
    const bool wasHidden = m_explanation->isHidden();
    m_explanation->setVisible(!text.isEmpty());
    if (wasHidden && !text.isEmpty()) {
        // A pane shown after the splitter was laid out gets no width of its own: give it a quarter.
        const int total = qMax(m_centralSplit->width(), 800);
        m_centralSplit->setSizes({total * 3 / 4, total / 4});
    }
}

engine::KeyFigure MainWindow::currentKeyFigure() const
{
    const std::shared_ptr<const engine::Trace> shown = m_document->trace();
    std::string name;
    if (shown && !shown->workloadJson.empty()) {
        try {
            const engine::WorkloadHeader header = engine::readWorkloadHeader(shown->workloadJson);
            if (!header.keyFigure.caption.empty())
                return header.keyFigure;
            name = header.name;
        } catch (const engine::Error &) {
            // Broken embedded workload: the lesson's own figure below.
        }
    }
    int lesson = m_lessons->lessonForPath(shown ? m_document->path() : m_editor->filePath());
    if (lesson < 0 && shown)
        for (std::size_t i = 0; i < m_lessons->lessons().size() && lesson < 0; ++i)
            if (!name.empty() && m_lessons->lessons()[i].name == QString::fromStdString(name))
                lesson = int(i);
    if (lesson >= 0)
        return m_lessons->lessons()[std::size_t(lesson)].keyFigure;
    if (!shown && m_editor->isValid())
        return m_editor->treeModel()->workload().keyFigure;
    return {};
}

// The operations table follows the document's selection (the timeline and the details bind to it).
void MainWindow::onOpSelected(int, int op)
{
    if (op < 0)
        return; // syncOpTableSelection() clears the table's rows
    const QModelIndex row = m_opProxy->mapFromSource(m_opModel->index(op, 0));
    if (row.isValid())
        m_opTable->scrollTo(row);
}

void MainWindow::syncOpTableSelection()
{
    QItemSelection rows;
    for (const int op : m_document->selectedOps()) {
        const QModelIndex row = m_opProxy->mapFromSource(m_opModel->index(op, 0));
        if (row.isValid())
            rows.select(row, row);
    }
    m_syncingOpTable = true;
    QItemSelectionModel *selection = m_opTable->selectionModel();
    const QModelIndex current = m_opProxy->mapFromSource(m_opModel->index(m_document->selectedOp(), 0));
    if (current.isValid() && current.row() != m_opTable->currentIndex().row())
        selection->setCurrentIndex(current, QItemSelectionModel::NoUpdate);
    selection->select(rows, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_syncingOpTable = false;
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
    return m_presentation ? QSize(1920, 1080)
                          : QSize(qMax(1280, m_timeline->width() * 2), qMax(720, m_timeline->height() * 2));
}

ui::ImageOptions MainWindow::exportImageOptions() const
{
    ui::ImageOptions options;
    // Twice the widget: the picture as on screen, every line and letter twice as large. In presentation
    // mode 1920x1080 at 1.5 (the layout of a 1280x720 screen).
    options.scale = m_presentation ? 0 : 2;
    options.transparent = transparentExports();
    options.title = m_timeline->exportTitle();
    // The key figures of the repetition shown, as presentation mode's strip gives them.
    options.figures = m_summary->model()->keyFiguresText();
    return options;
}

void MainWindow::setTransparentExports(bool on)
{
    m_transparentAction->setChecked(on);
}

bool MainWindow::transparentExports() const
{
    return m_transparentAction->isChecked();
}

void MainWindow::openLesson(int index)
{
    if (index < 0 || index >= int(m_lessons->lessons().size()))
        return;
    const ui::Lesson &lesson = m_lessons->lessons()[std::size_t(index)];
    m_lessons->setCurrentLesson(index);
    if (const auto run = m_lastRuns.find(QFileInfo(lesson.workloadPath).canonicalFilePath()); run != m_lastRuns.end()) {
        showTrace(run->second.trace, run->second.displayName, run->second.path);
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
    if (!m_document->trace()) {
        if (error)
            *error = tr("there is no trace to save");
        return false;
    }
    try {
        engine::writeNativeTrace(*m_document->trace(), path.toStdString());
    } catch (const engine::Error &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    m_document->setName(m_document->name(), path);
    addRecentFile(path);
    return true;
}

void MainWindow::fitToScreen()
{
    ui::fitToScreen(this);
}

void MainWindow::openOnMyScreen(QWidget *window) const
{
    // On this window's screen (left alone, it opened on the primary one wherever this window was), fitted
    // to it before it is shown and kept inside it. Where on the screen is the window manager's to decide:
    // a position set before the frame is known put the title bar above the screen under openbox.
    QScreen *mine = screen();
    window->setScreen(mine);
    if (mine && !mine->geometry().contains(window->pos()))
        window->move(mine->availableGeometry().topLeft());
    ui::fitToScreen(window);
    ui::keepOnScreen(window);
}

void MainWindow::setPresentationMode(bool on)
{
    if (on == m_presentation)
        return;
    m_presentation = on;
    m_presentationAction->setChecked(on);
    m_timeline->setPresentationMode(on);
    for (ui::ComparisonWindow *window : findChildren<ui::ComparisonWindow *>())
        window->setPresentationMode(on);
    auto *summaryDock = findChild<QDockWidget *>(QStringLiteral("summaryDock"));
    if (on) {
        // Only what an audience needs: the timeline, the explanation and a strip of key figures, in large
        // type, on the whole screen the window is on.
        setProperty("stateBeforePresentation", saveState());
        setProperty("fontBeforePresentation", font());
        m_geometryBeforePresentation = saveGeometry();
        QFont large = font();
        large.setPointSizeF(large.pointSizeF() * 1.35);
        setFont(large);
        QFont explanation = large;
        explanation.setPointSizeF(large.pointSizeF() * 1.1);
        m_explanationText->setFont(explanation);
        m_keyFigureLabel->setFont(explanation);
        // The heading as large as what it heads (its style sheet keeps it from following the window's font).
        m_explanationTitle->setFont(explanation);
        for (const char *name : {"lessonsDock", "workloadDock", "detailsDock", "opsDock", "rangeDock"})
            if (auto *dock = findChild<QDockWidget *>(QLatin1String(name)))
                dock->hide();
        m_summary->setCompact(true);
        // The strip takes at most three lines; the timeline gets the rest of the height.
        m_summary->setMaximumHeight(QFontMetrics(m_summary->font()).lineSpacing() * 3 + 16);
        if (summaryDock)
            summaryDock->show();
        // The banner speaks to the user at the desk ("pick a lesson on the left", with the lessons hidden).
        m_banner->hide();
        if (isVisible())
            setWindowState(windowState() | Qt::WindowFullScreen);
        else
            setGeometry(screen() ? screen()->geometry() : geometry());
        // The explanation gets a third of the width: large type needs the room.
        if (m_explanation->isVisible()) {
            const int total = qMax(m_centralSplit->width(), 800);
            m_centralSplit->setSizes({total * 2 / 3, total / 3});
        }
    } else {
        setWindowState(windowState() & ~Qt::WindowFullScreen);
        if (!m_geometryBeforePresentation.isEmpty())
            restoreGeometry(m_geometryBeforePresentation);
        setFont(property("fontBeforePresentation").value<QFont>());
        for (QWidget *w : {static_cast<QWidget *>(m_explanationText), static_cast<QWidget *>(m_keyFigureLabel),
                           static_cast<QWidget *>(m_explanationTitle)}) {
            w->setFont(QFont());
            w->setFont(font());
        }
        m_summary->setCompact(false);
        m_summary->setMaximumHeight(QWIDGETSIZE_MAX);
        restoreState(property("stateBeforePresentation").toByteArray());
        m_banner->setVisible(!m_bannerText.isEmpty());
        const int total = qMax(m_centralSplit->width(), 800);
        m_centralSplit->setSizes({total * 3 / 4, total / 4});
    }
}

void MainWindow::setDarkTheme(bool dark)
{
    m_dark = dark;
    applyTheme(dark ? Theme::Dark : Theme::Light);
    m_timeline->setDarkPalette(dark);
    for (ui::ComparisonWindow *window : findChildren<ui::ComparisonWindow *>())
        window->setDarkPalette(dark);
    (dark ? m_darkAction : m_lightAction)->setChecked(true);
}

// Whether the editor's workload can run now; if not, says why (`cannot` is the message's title).
bool MainWindow::checkRunnable(const QString &cannot)
{
    if (const QString why = m_session->whyNotRunnable(); !why.isEmpty()) {
        showError(cannot, why);
        return false;
    }
    m_editor->validateNow();
    if (m_editor->isEmpty()) {
        showError(tr("Nothing to run"), tr("open a workload from the lessons or File > Open, or start one with "
                                           "File > New workload"));
        return false;
    }
    if (!m_editor->isValid()) {
        showError(tr("The workload has problems"), tr("%n problem(s), listed under the editor; fix them and run again",
                                                      nullptr, int(m_editor->issues().size())));
        m_errorFromEditorIssues = true;
        return false;
    }
    return true;
}

bool MainWindow::runWorkload()
{
    if (!checkRunnable(tr("Cannot run")))
        return false;
    m_runWorkloadPath = QFileInfo(m_editor->filePath()).canonicalFilePath();
    QString error;
    if (!m_session->run(m_editor->text(), m_editor->displayName(), &error)) {
        showError(tr("Cannot run"), error);
        return false;
    }
    clearError();
    m_progress->setValue(0);
    m_runStatus->setText(tr("Starting streamscope-cli…"));
    return true;
}

bool MainWindow::compareWorkload()
{
    // The same checks as Run first: a dialog about a workload that cannot run would only waste time.
    if (!checkRunnable(tr("Cannot compare")))
        return false;
    ui::ExperimentDialog dialog(m_editor->text(), m_editor->displayName(), this);
    if (!m_experimentQuestion(dialog) || !dialog.canRun())
        return false;
    return startComparison(dialog.varyOptions(), dialog.repetitions(), dialog.warmup());
}

bool MainWindow::startComparison(const QStringList &varyOptions, int repetitions, int warmup)
{
    if (!checkRunnable(tr("Cannot compare")))
        return false;
    QString error;
    if (!m_session->compare(m_editor->text(), m_editor->displayName(), varyOptions, repetitions, warmup, &error)) {
        showError(tr("Cannot compare"), error);
        return false;
    }
    clearError();
    m_progress->setValue(0);
    m_runStatus->setText(tr("Starting streamscope-cli compare…"));
    return true;
}

void MainWindow::cancelRun()
{
    if (m_runner->state() == ui::RunController::State::Running) {
        m_runStatus->setText(tr("Cancelling…"));
        m_session->cancel();
    }
}

void MainWindow::checkGpu()
{
    m_session->checkDevices();
}

void MainWindow::onRunTraceReady(std::shared_ptr<const engine::Trace> trace, const QString &displayName,
                                 const QString &path)
{
    // The run's result is newer than a file still being opened: that open must not replace it later.
    if (m_loader->isLoading())
        m_loader->cancel();
    m_progress->setValue(100);
    m_runStatus->setText(tr("Run finished"));
    // A lesson's run is what a click on the lesson shows from now on (before its recorded example).
    if (!m_runWorkloadPath.isEmpty() && m_lessons->lessonForPath(m_runWorkloadPath) >= 0)
        m_lastRuns[m_runWorkloadPath] = {trace, displayName, path};
    showTrace(std::move(trace), displayName, path);
}

void MainWindow::onRunComparisonReady(const QString &path, const QString &displayName)
{
    if (m_loader->isLoading())
        m_loader->cancel();
    m_progress->setValue(100);
    m_runStatus->setText(tr("Comparison finished"));
    QString error;
    ui::ComparisonWindow *window = newComparisonWindow(path, &error);
    if (!window) {
        showError(tr("The comparison finished but its file could not be read"), error);
        return;
    }
    // It lives in the run folder until saved, and is marked so.
    window->setDisplayName(displayName);
    window->setUnsaved(true);
    window->show();
}

void MainWindow::onRunFailed(const QString &title, const QString &message)
{
    m_runStatus->setText(title);
    showError(title, message);
}

void MainWindow::onDevicesChecked(bool usable, const QString &message)
{
    m_lessons->setCanRun(usable);
    m_lessons->setGpuCount(usable ? m_runner->gpuCount() : 0);
    updateRunActions();
    if (usable) {
        showBanner(QString());
        return;
    }
    const QStringList examples = exampleTraces();
    // One line: the reason the runner gave first ("no usable GPU: no NVIDIA driver is installed (the
    // library ...) (cudaGetDeviceCount: cudaErrorInsufficientDriver: ...)" -> "no NVIDIA driver is
    // installed"), without its repeated "no usable GPU" and the CUDA call's own error, which named an old
    // driver beside a missing one; the whole message under Details.
    QString reason = message.trimmed().section(QLatin1Char('\n'), 0, 0);
    // "streamscope-cli devices: no usable GPU: ..." where the CLI's stderr says it.
    const QString prefix = QStringLiteral("no usable GPU:");
    if (const qsizetype at = reason.indexOf(prefix, 0, Qt::CaseInsensitive); at >= 0)
        reason = reason.mid(at + prefix.size()).trimmed();
    if (const qsizetype bracket = reason.indexOf(QStringLiteral(" (")); bracket > 0)
        reason = reason.left(bracket);
    QString text = reason.isEmpty() ? tr("No usable GPU here, so workloads cannot be run.")
                                    : tr("No usable GPU here (%1), so workloads cannot be run.").arg(reason);
    if (examples.isEmpty()) {
        text += tr(" Open a trace recorded elsewhere with File > Open (streamscope-cli run writes them).");
    } else {
        text += tr(" Showing example traces recorded on a real GPU: pick a lesson on the left.");
        if (!m_document->trace() && !isOpening()) // a file given to the app is being opened: it wins
            openFileInBackground(examples.first());
    }
    showBanner(text, message.trimmed());
}

bool MainWindow::maybeKeepWorkload()
{
    if (!m_editor->isModified())
        return true;
    switch (m_discardQuestion()) {
    case DiscardAnswer::Save: return saveWorkload();
    case DiscardAnswer::Discard: return true;
    case DiscardAnswer::Cancel: return false;
    }
    return false;
}

void MainWindow::newWorkload()
{
    if (!maybeKeepWorkload())
        return;
    m_editor->setText(ui::WorkloadEditor::templateText(), tr("untitled.json"));
    if (auto *dock = findChild<QDockWidget *>(QStringLiteral("workloadDock"))) {
        dock->show();
        dock->raise();
    }
    updateTitle();
    updateRunActions();
}

bool MainWindow::confirmSaveWithProblems()
{
    m_editor->commitPendingEdits();
    if (m_editor->isEmpty() || m_editor->issues().empty())
        return true;
    return m_saveInvalidQuestion();
}

bool MainWindow::saveWorkload()
{
    if (!confirmSaveWithProblems())
        return false;
    if (m_editor->filePath().isEmpty())
        return saveWorkloadToChosenPath();
    // Lessons are shipped files: save a copy rather than change what every user starts from.
    if (m_lessons->lessonForPath(m_editor->filePath()) >= 0 && !QFileInfo(m_editor->filePath()).isWritable())
        return saveWorkloadToChosenPath();
    QString error;
    if (!m_editor->saveFile(m_editor->filePath(), &error)) {
        showError(tr("Could not save the workload"), error);
        return false;
    }
    addRecentFile(m_editor->filePath());
    updateTitle();
    return true;
}

bool MainWindow::saveWorkloadAs()
{
    return confirmSaveWithProblems() && saveWorkloadToChosenPath();
}

bool MainWindow::saveWorkloadToChosenPath()
{
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save workload"), m_editor->displayName(), tr("Workloads (*.json)"));
    if (path.isEmpty())
        return false;
    QString error;
    if (!m_editor->saveFile(path, &error)) {
        showError(tr("Could not save the workload"), error);
        return false;
    }
    addRecentFile(path);
    updateTitle();
    return true;
}

void MainWindow::openDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a trace or workload"), QString(),
        tr("Traces and workloads (*.sstrace *.json *.json.gz *.sqlite *.sqlite3 *.gz *.sscompare);;StreamScope traces "
           "(*.sstrace);;"
           "Nsight Systems SQLite (*.sqlite *.sqlite3);;Chrome trace JSON (*.json *.json.gz);;All files (*)"));
    if (!path.isEmpty())
        openFileInBackground(path);
}

void MainWindow::exportImageDialog()
{
    if (!m_document->trace())
        return;
    QString selectedFilter;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export timeline image"), QFileInfo(m_document->name()).completeBaseName() + QStringLiteral(".png"),
        tr("PNG image (*.png);;SVG drawing (*.svg)"), &selectedFilter);
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive)
        && !path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
        path += selectedFilter.contains(QLatin1String("svg")) ? QStringLiteral(".svg") : QStringLiteral(".png");
    QString error;
    if (!exportImage(path, exportImageSize(), exportImageOptions(), &error))
        showError(tr("Could not export the image"), error);
    else
        statusBar()->showMessage(tr("Wrote %1").arg(path), 8000);
}

void MainWindow::saveTraceDialog()
{
    if (!m_document->trace())
        return;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Save trace"), QFileInfo(m_document->name()).completeBaseName() + QStringLiteral(".sstrace"),
        tr("StreamScope traces (*.sstrace)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".sstrace")))
        path += QStringLiteral(".sstrace");
    QString error;
    if (!saveTrace(path, &error))
        showError(tr("Could not save the trace"), error);
    else
        statusBar()->showMessage(tr("Wrote %1").arg(path), 8000);
}

bool MainWindow::exportTrace(const QString &path, QString *error)
{
    if (!m_document->trace()) {
        if (error)
            *error = tr("there is no trace to export");
        return false;
    }
    const auto format = engine::exportFormatFromPath(path.toStdString());
    if (!format) {
        if (error)
            *error = tr("%1: unknown export format (use .sstrace, .json for Chrome/Perfetto, or .csv)").arg(path);
        return false;
    }
    try {
        engine::exportTrace(*m_document->trace(), *format, path.toStdString());
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

void MainWindow::exportTraceDialog()
{
    if (!m_document->trace())
        return;
    const QString native = tr("StreamScope trace (*.sstrace)");
    const QString chrome = tr("Chrome trace JSON for Perfetto / chrome://tracing (*.json)");
    const QString csv = tr("CSV, one row per op (*.csv)");
    QString selectedFilter = chrome;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export trace"), QFileInfo(m_document->name()).completeBaseName() + QStringLiteral(".json"),
        chrome + QStringLiteral(";;") + native + QStringLiteral(";;") + csv, &selectedFilter);
    if (path.isEmpty())
        return;
    if (!engine::exportFormatFromPath(path.toStdString()))
        path += selectedFilter == native ? QStringLiteral(".sstrace")
                : selectedFilter == csv  ? QStringLiteral(".csv")
                                         : QStringLiteral(".json");
    QString error;
    if (!exportTrace(path, &error))
        showError(tr("Could not export the trace"), error);
    else
        statusBar()->showMessage(tr("Wrote %1").arg(path), 8000);
}

ui::NsightCompareView *MainWindow::compareWithNsight(const QString &nsightPath, const QString &ownPath, QString *error)
{
    auto *view = new ui::NsightCompareView(this);
    view->setWindowFlag(Qt::Window);
    view->setAttribute(Qt::WA_DeleteOnClose);
    bool ok = false;
    if (ownPath.isEmpty()) {
        std::shared_ptr<const engine::Trace> nsight;
        try {
            nsight = std::make_shared<engine::Trace>(engine::loadTrace(nsightPath.toStdString()));
            ok = true;
        } catch (const std::exception &e) {
            if (error)
                *error = QString::fromUtf8(e.what());
        }
        ok = ok
             && view->setTraces(m_document->trace(), nsight, m_document->name(), QFileInfo(nsightPath).fileName(),
                                error);
    } else {
        ok = view->openFiles(ownPath, nsightPath, error);
    }
    if (!ok) {
        delete view;
        return nullptr;
    }
    view->resize(1600, 1000);
    openOnMyScreen(view);
    view->show();
    return view;
}

void MainWindow::compareWithNsightDialog()
{
    QString ownPath;
    if (!m_document->trace()) {
        ownPath = QFileDialog::getOpenFileName(this, tr("StreamScope trace of the run"), {},
                                               tr("StreamScope traces (*.sstrace *.sstrace.gz);;All files (*)"));
        if (ownPath.isEmpty())
            return;
    }
    const QString nsightPath =
        QFileDialog::getOpenFileName(this, tr("Nsight Systems export of the same run"), {},
                                     tr("Nsight Systems SQLite export (*.sqlite);;All files (*)"));
    if (nsightPath.isEmpty())
        return;
    QString error;
    if (!compareWithNsight(nsightPath, ownPath, &error))
        showError(tr("Could not compare with %1").arg(QFileInfo(nsightPath).fileName()), error);
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
