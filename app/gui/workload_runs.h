// WorkloadRuns: the Run menu's work for the main window: running the editor's workload and comparing its
// variants through streamscope-cli (ui::RunSession), cancelling, the progress and status in the status bar,
// what a finished run or comparison opens, the last run of each lesson (what a click on the lesson shows
// from then on), and the no-GPU banner when the check for a GPU finds none.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <memory>

#include "engine/model/trace.h"

class QLabel;
class QProgressBar;
class QPushButton;

namespace streamscope::ui {
class ExperimentDialog;
class RunSession;
class TraceLoader;
} // namespace streamscope::ui

namespace streamscope::gui {

class ChildWindows;
class MessageBars;
class WindowHost;

class WorkloadRuns : public QObject {
    Q_OBJECT
public:
    // Adds its progress, Cancel and status to the window's status bar.
    WorkloadRuns(WindowHost *host, ui::RunSession *session, MessageBars *messages, ChildWindows *children,
                 ui::TraceLoader *loader);

    // See MainWindow::runWorkload, compareWorkload, startComparison, setExperimentQuestion and cancelRun.
    bool run();
    bool compare();
    bool startComparison(const QStringList &varyOptions, int repetitions, int warmup);
    void setExperimentQuestion(std::function<bool(ui::ExperimentDialog &)> question)
    {
        m_experimentQuestion = std::move(question);
    }
    void cancel();
    // The progress and Cancel, shown while a run or a comparison is under way.
    void showBusy(bool busy);

    struct LastRun {
        std::shared_ptr<const engine::Trace> trace;
        QString displayName;
        QString path;
    };
    // The last run in this session of a lesson's workload (by its file); null when there is none.
    const LastRun *lastRun(const QString &workloadPath) const;

private:
    // Whether the editor's workload can run now; if not, says why (`cannot` is the message's title).
    bool checkRunnable(const QString &cannot);
    void started(const QString &status);
    void onTraceReady(std::shared_ptr<const engine::Trace> trace, const QString &displayName, const QString &path);
    void onComparisonReady(const QString &path, const QString &displayName);
    void onFailed(const QString &title, const QString &message);
    void onDevicesChecked(bool usable, const QString &message);

    WindowHost *m_host;
    ui::RunSession *m_session;
    MessageBars *m_messages;
    ChildWindows *m_children;
    ui::TraceLoader *m_loader;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
    QLabel *m_status;
    std::function<bool(ui::ExperimentDialog &)> m_experimentQuestion;
    std::map<QString, LastRun> m_lastRuns; // by canonical workload path
    QString m_runWorkloadPath; // the editor's file when the run started
};

} // namespace streamscope::gui
