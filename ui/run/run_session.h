// RunSession: running the editor's workload, and comparing its variants, as the window's user sees it.
// It owns the RunController (streamscope-cli as a child), the temporary folder where each run's workload
// and output live ("run-N.json", "run-N.sstrace", "comparison-N.sscompare"), the run count that names
// them, and whether a usable GPU was found. What comes back is a trace to show or a comparison to open,
// with the name the window gives it, or a failure with a title and a message; the window decides how to
// show them. MainWindow only assembles widgets around it.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

#include "engine/model/trace.h"
#include "ui/run/run_controller.h"

namespace streamscope::ui {

class RunSession : public QObject {
    Q_OBJECT
public:
    explicit RunSession(QObject *parent = nullptr);
    ~RunSession() override; // a child still running is ended (RunController's destructor)

    RunController *controller() const { return m_controller; }

    // Why a run or comparison cannot start now (a run under way, no usable GPU), empty when it can.
    QString whyNotRunnable() const;
    // Writes the workload text to the run folder and starts `streamscope-cli run` on it; `name` is what
    // the result is called ("overlap.json" -> "overlap (run 3, not saved)" unless the trace has a title).
    // False, with *error, when it cannot start.
    bool run(const QString &workloadText, const QString &name, QString *error);
    // The same for `streamscope-cli compare` over the vary options (ExperimentDialog's answers).
    bool compare(const QString &workloadText, const QString &name, const QStringList &varyOptions, int repetitions,
                 int warmup, QString *error);
    // Stops a running child (not a device check); true when there was one to stop.
    bool cancel();
    // Asks streamscope-cli whether a GPU is usable: gpuChanged follows.
    void checkDevices();

    bool gpuUsable() const { return m_gpuUsable; }
    int runCount() const { return m_runCount; }
    // Whether path lies in the run folder (a file that goes away with the session: not a recent file).
    bool ownsFile(const QString &path) const;

signals:
    // A run finished and its trace was read.
    void traceReady(std::shared_ptr<const engine::Trace> trace, const QString &displayName, const QString &path);
    // A comparison finished: its .sscompare, and the name to give its window ("overlap comparison 2").
    void comparisonReady(const QString &path, const QString &displayName);
    // A run or comparison failed, or its result could not be read: a title and a message for the user.
    void failed(const QString &title, const QString &message);
    // What the last device check (or a run that found no GPU) said.
    void gpuChanged(bool usable, const QString &message);

private:
    bool prepare(const QString &workloadText, QString *workloadPath, QString *error);
    void onFinished(const QString &outputPath);
    void onFailed(const RunFailure &failure);

    RunController *m_controller;
    std::unique_ptr<QTemporaryDir> m_runDir;
    int m_runCount = 0;
    bool m_gpuUsable = true; // until the CLI says otherwise
    QString m_name; // the workload's name for the run or comparison under way
};

} // namespace streamscope::ui
