// WindowHost: what the main window's parts (file_actions.h, workload_runs.h, main_menus.h) ask of the
// window, so that they depend on this and not on main_window.h, which includes their headers: the window
// itself (the parent of their dialogs, with the status bar, menu bar and tool bar they fill), the document
// and the panels they read, and the window's commands they call. MainWindow implements it; each function
// is documented there.
#pragma once

#include <QSize>
#include <QString>

#include <memory>

class QMainWindow;

namespace streamscope::engine {
struct Trace;
} // namespace streamscope::engine

namespace streamscope::ui {
class FindBar;
class LessonsPanel;
class RunController;
class TimelineView;
class TraceDocument;
class WorkloadEditor;
struct ImageOptions;
} // namespace streamscope::ui

namespace streamscope::gui {

class WindowHost {
public:
    // The window itself.
    virtual QMainWindow *hostWindow() = 0;

    // What the parts read.
    virtual ui::TraceDocument *document() const = 0;
    virtual ui::WorkloadEditor *workloadEditor() const = 0;
    virtual ui::LessonsPanel *lessonsPanel() const = 0;
    virtual ui::TimelineView *timeline() const = 0;
    virtual ui::FindBar *findBar() const = 0;
    virtual ui::RunController *runController() const = 0;
    virtual bool isOpening() const = 0;
    virtual ui::ImageOptions exportImageOptions() const = 0;
    virtual QSize exportImageSize() const = 0;

    // Files: opening, showing and exporting.
    virtual void openFileInBackground(const QString &path) = 0;
    virtual bool openComparison(const QString &path) = 0;
    virtual void showTrace(std::shared_ptr<const engine::Trace> trace, const QString &displayName,
                           const QString &path) = 0;
    virtual bool exportImage(const QString &path, QSize size, const ui::ImageOptions &options, QString *error) = 0;

    // The commands of the menus.
    virtual void newWorkload() = 0;
    virtual bool saveWorkload() = 0;
    virtual bool saveWorkloadAs() = 0;
    virtual bool runWorkload() = 0;
    virtual bool compareWorkload() = 0;
    virtual void cancelRun() = 0;
    virtual void checkGpu() = 0;
    virtual void setPresentationMode(bool on) = 0;
    virtual void setDarkTheme(bool dark) = 0;
    virtual void showShortcuts() = 0;

protected:
    WindowHost() = default;
    virtual ~WindowHost() = default;
    WindowHost(const WindowHost &) = delete;
    WindowHost &operator=(const WindowHost &) = delete;
};

} // namespace streamscope::gui
