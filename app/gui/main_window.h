// MainWindow: StreamScope's desktop window. The timeline in the centre with the lesson's "what to look
// for" beside it; lessons, the workload editor, the summary, the selected op's details and the op table
// in docks; Run/Cancel with progress through streamscope-cli (never CUDA in this process); open, save,
// drag and drop and image export of traces; presentation mode and light/dark palettes. Every failure is
// shown in a message bar in the window, which keeps working; an edited workload is never dropped
// without asking. The window wires these together; each part with a seam of its own lives in its own
// class beside it (lesson_pane.h, file_actions.h, workload_runs.h, presentation_mode.h, message_bars.h,
// child_windows.h, op_table.h, main_menus.h), as hotspot's main window delegates to its pages. Those
// that call back into the window see it through WindowHost (window_host.h), not through this header.
#pragma once

#include <QMainWindow>
#include <QStringList>

#include <functional>
#include <memory>
#include <vector>

#include "app/gui/file_actions.h"
#include "app/gui/window_host.h"
#include "engine/formats/trace_io.h"
#include "engine/model/trace.h"
#include "engine/workload/workload.h"
#include "ui/common/image_export.h"
#include "ui/compare/comparison_window.h"
#include "ui/run/run_controller.h"

class QProgressBar;
class QPushButton;
class QSplitter;

namespace streamscope::ui {
class DetailsPanel;
class LessonsPanel;
class OpTableModel;
class SummaryPanel;
class TimelineView;
class WorkloadEditor;
class NsightCompareView;
class ExperimentDialog;
class TraceLoader;
class TraceDocument;
struct TraceAnalysis;
class FindBar;
class RangePanel;
class ShortcutsOverlay;
class OpTableProxy;
class RunSession;
} // namespace streamscope::ui

namespace streamscope::gui {

class ChildWindows;
class LessonPane;
class MainMenus;
class MessageBars;
class OpTable;
class PresentationMode;
class WorkloadRuns;

class MainWindow : public QMainWindow, public WindowHost {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // WindowHost: the window its parts (file actions, runs, menus) are given.
    QMainWindow *hostWindow() override { return this; }

    // Opens a trace (any format engine::loadTrace reads), a workload or a comparison (in a window of its
    // own), told apart by content (engine::detectFileKind). The file is read on a background thread
    // (ui::TraceLoader) with its progress and a Cancel button in the status bar.
    // openFileInBackground returns at once (File > Open, recent files, drops, lessons); openFile waits
    // for the result while the window keeps painting (scripts, the command line, tests) and returns
    // whether the file was opened. Failures go to the message bar.
    void openFileInBackground(const QString &path) override;
    bool openFile(const QString &path);
    // Abandons the file being opened; what it would have shown is dropped.
    void cancelOpen();
    bool isOpening() const override;
    // Opens a .sscompare in its own comparison window (ui/compare/comparison_window.h).
    bool openComparison(const QString &path) override;
    bool openWorkload(const QString &path);
    // Shows a trace that is already in memory (a finished run, a test's trace).
    void showTrace(std::shared_ptr<const engine::Trace> trace, const QString &displayName,
                   const QString &path = {}) override;
    std::shared_ptr<const engine::Trace> trace() const;
    // The shown trace, its repetition and selection, which every view of the window follows.
    ui::TraceDocument *document() const override { return m_document; }

    // Writes the visible timeline to .png or .svg at size (pixels): lanes filling the picture, text at
    // the image's scale, the title (workload, GPU, date) and background as options asks.
    bool exportImage(const QString &path, QSize size, QString *error = nullptr);
    bool exportImage(const QString &path, QSize size, const ui::ImageOptions &options,
                     QString *error = nullptr) override;
    // What File > Export timeline image writes with (its size, scale, title and background).
    ui::ImageOptions exportImageOptions() const override;
    QSize exportImageSize() const override;
    // File > Transparent image background: exports leave the background transparent.
    void setTransparentExports(bool on);
    bool transparentExports() const;
    // Saves the shown trace in the native format (atomically).
    bool saveTrace(const QString &path, QString *error = nullptr);
    // Writes the shown trace through engine::exportTrace, the format chosen by the suffix (.sstrace,
    // .json for Chrome/Perfetto, .csv); failures come back in error, nothing is shown.
    bool exportTrace(const QString &path, QString *error = nullptr);
    // Opens a window comparing a StreamScope trace (ownPath, or the shown trace when empty) with the
    // Nsight Systems SQLite export of the same run; nullptr (and error) when either cannot be read or
    // paired. The window deletes itself when closed.
    ui::NsightCompareView *compareWithNsight(const QString &nsightPath, const QString &ownPath = {},
                                             QString *error = nullptr);

    // Presentation mode fills the screen the window is on (full screen), hides every dock but the
    // summary, which shrinks to a strip of the key figures, makes the lanes fill the height and the
    // explanation large, and hides the no-GPU banner. Off: the window, layout and font as before.
    void setPresentationMode(bool on) override;
    // Keeps the window, its frame included, inside the available geometry of its screen (the first
    // window, a restored geometry from a larger screen): ui::fitToScreen.
    void fitToScreen();
    // Opens lesson `index` of the lessons panel as one click does: its last run in this session, else its
    // example trace, else its workload in the editor; the explanation and key figure follow.
    void openLesson(int index);
    bool presentationMode() const;
    void setDarkTheme(bool dark) override;
    bool darkTheme() const { return m_dark; }
    // View > Project NVTX onto GPU lanes: a row above each stream with the NVTX range (or PyTorch op)
    // each op was launched in. Remembered across sessions.
    void setProjectNvtx(bool on);
    bool projectNvtx() const;
    void setRepetition(int repetition);

    // Starts streamscope-cli on what the editor holds; false (with a message) if it cannot start.
    bool runWorkload() override;
    // Run > Compare variants: asks what to vary (ExperimentDialog, starting from the lesson's own axes),
    // then runs `streamscope-cli compare` and opens the result in a comparison window.
    bool compareWorkload() override;
    // Starts the comparison without the dialog (the dialog's answers; --compare on the command line).
    bool startComparison(const QStringList &varyOptions, int repetitions = -1, int warmup = -1);
    // The comparison window opened by the last finished comparison (null once closed).
    ui::ComparisonWindow *lastComparison() const;
    // Tests and automation answer the experiment dialog instead of a user: return whether to run.
    void setExperimentQuestion(std::function<bool(ui::ExperimentDialog &)> question);
    void cancelRun() override;
    // File > New workload: the template in the editor, after asking about unsaved edits.
    void newWorkload() override;
    // Asks streamscope-cli whether a GPU is usable; without one, a banner says so and examples open.
    void checkGpu() override;

    // Asks what to do with an edited, unsaved workload; returns false when the user cancels. Tests
    // replace the question (a modal dialog) with an answer.
    using DiscardAnswer = FileActions::DiscardAnswer;
    void setDiscardQuestion(std::function<DiscardAnswer()> question);
    bool maybeKeepWorkload();
    // Saving a workload with problems asks first (it may be work in progress, but it will not run);
    // tests answer instead of the user: return whether to save anyway.
    void setSaveInvalidQuestion(std::function<bool()> question);
    // File > Save workload (Ctrl+S from any focus in the window or its floating docks): commits a value
    // still being typed, asks when the workload has problems, saves as when it has no file yet.
    bool saveWorkload() override;
    bool saveWorkloadAs() override;

    QString lastError() const;
    // The no-GPU banner: one line, and with its details shown (the runner's whole message) a second.
    QString bannerText() const;
    void showBannerDetails(bool on);
    QString timingBannerText() const; // empty when hidden
    void selectOp(int op); // op of the repetition shown, as a click on it would
    QStringList recentFiles() const;

    ui::TimelineView *timeline() const override { return m_timeline; }
    ui::SummaryPanel *summaryPanel() const { return m_summary; }
    ui::DetailsPanel *detailsPanel() const { return m_details; }
    ui::WorkloadEditor *workloadEditor() const override { return m_editor; }
    ui::LessonsPanel *lessonsPanel() const override { return m_lessons; }
    ui::OpTableModel *opTableModel() const;
    ui::OpTableProxy *opTableProxy() const;
    ui::FindBar *findBar() const override { return m_findBar; }
    ui::RangePanel *rangePanel() const { return m_range; }
    ui::ShortcutsOverlay *shortcutsOverlay() const { return m_shortcuts; }
    // Help > Keyboard and mouse (`?`, F1): every key and gesture on a card over the window.
    void showShortcuts() override;
    ui::RunController *runController() const override { return m_runner; }

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createWidgets();
    void createStatusBar();
    void createDocks();
    void createActions();
    void readSettings();
    void writeSettings() const;
    void updateTitle();
    void updateRunActions();
    void showError(const QString &what, const QString &message);
    void clearError();
    void onFileOpened(int id, const QString &path, engine::FileKind kind, std::shared_ptr<const engine::Trace> trace,
                      std::shared_ptr<ui::TraceAnalysis> analysis);
    void onOpenFailed(int id, const QString &path, const QString &message, bool cancelled);
    // showTrace with the trace's analysis when it was computed already (by the loader); null: computed here.
    void present(std::shared_ptr<const engine::Trace> trace, const QString &displayName, const QString &path,
                 std::shared_ptr<ui::TraceAnalysis> analysis);
    void showWorkloadDock();

    ui::TraceDocument *m_document = nullptr;

    ui::TimelineView *m_timeline = nullptr;
    ui::SummaryPanel *m_summary = nullptr;
    ui::DetailsPanel *m_details = nullptr;
    ui::WorkloadEditor *m_editor = nullptr;
    ui::LessonsPanel *m_lessons = nullptr;
    ui::FindBar *m_findBar = nullptr;
    ui::RangePanel *m_range = nullptr;
    ui::ShortcutsOverlay *m_shortcuts = nullptr;
    OpTable *m_opTable = nullptr; // the Operations dock
    ui::RunSession *m_session; // runs and comparisons: the CLI child, the run folder, whether a GPU is usable
    ui::RunController *m_runner; // m_session's, for progress and state

    MessageBars *m_messages = nullptr; // the no-GPU and timing banners, the error bar
    LessonPane *m_lessonPane = nullptr; // "what to look for" beside the timeline
    QSplitter *m_centralSplit = nullptr;
    FileActions *m_files = nullptr; // dialogs, recent files, the save policy
    ChildWindows *m_children = nullptr; // comparison and Nsight windows
    std::unique_ptr<PresentationMode> m_presentation;
    ui::TraceLoader *m_loader = nullptr;
    bool m_lastOpenOk = false;
    // Opening a file: its progress and Cancel in the status bar.
    QProgressBar *m_loadProgress = nullptr;
    QPushButton *m_loadCancel = nullptr;
    WorkloadRuns *m_runs = nullptr; // Run, Compare variants, Cancel, with their progress in the status bar
    MainMenus *m_menus = nullptr; // the menus and the tool bar, and the actions the window enables
    bool m_dark = false;
};

} // namespace streamscope::gui
