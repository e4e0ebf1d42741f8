// WorkloadRuns: see workload_runs.h.
#include "app/gui/workload_runs.h"

#include <QFileInfo>
#include <QLabel>
#include <QMainWindow>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>

#include "app/gui/child_windows.h"
#include "app/gui/message_bars.h"
#include "app/gui/resource_paths.h"
#include "app/gui/window_host.h"
#include "ui/compare/comparison_window.h"
#include "ui/document/trace_document.h"
#include "ui/document/trace_loader.h"
#include "ui/editor/workload_editor.h"
#include "ui/panels/lessons_panel.h"
#include "ui/run/experiment_dialog.h"
#include "ui/run/run_session.h"

namespace streamscope::gui {

WorkloadRuns::WorkloadRuns(WindowHost *host, ui::RunSession *session, MessageBars *messages, ChildWindows *children,
                           ui::TraceLoader *loader) :
    QObject(host->hostWindow()),
    m_host(host), m_session(session), m_messages(messages), m_children(children), m_loader(loader),
    m_progress(new QProgressBar(host->hostWindow())), m_cancel(new QPushButton(tr("Cancel"), host->hostWindow())),
    m_status(new QLabel(host->hostWindow()))
{
    m_experimentQuestion = [](ui::ExperimentDialog &dialog) { return dialog.exec() == QDialog::Accepted; };
    m_progress->setRange(0, 100);
    m_progress->setMaximumWidth(240);
    m_progress->setTextVisible(true);
    m_progress->hide();
    m_cancel->setObjectName(QStringLiteral("cancelButton"));
    m_cancel->hide();
    connect(m_cancel, &QPushButton::clicked, this, &WorkloadRuns::cancel);
    QStatusBar *bar = host->hostWindow()->statusBar();
    bar->addWidget(m_status, 1);
    bar->addPermanentWidget(m_progress);
    bar->addPermanentWidget(m_cancel);

    ui::RunController *runner = m_session->controller();
    connect(runner, &ui::RunController::progressChanged, this, [this](int percent, const QString &text) {
        m_progress->setValue(percent);
        m_status->setText(text);
    });
    connect(runner, &ui::RunController::deviceReported, this, [this](const QString &name, const QString &cc) {
        m_status->setText(tr("Running on %1 (compute capability %2)").arg(name, cc));
    });
    connect(m_session, &ui::RunSession::traceReady, this, &WorkloadRuns::onTraceReady);
    connect(m_session, &ui::RunSession::comparisonReady, this, &WorkloadRuns::onComparisonReady);
    connect(m_session, &ui::RunSession::failed, this, &WorkloadRuns::onFailed);
    connect(m_session, &ui::RunSession::gpuChanged, this, &WorkloadRuns::onDevicesChecked);
}

void WorkloadRuns::showBusy(bool busy)
{
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    m_cancel->setEnabled(m_session->controller()->state() == ui::RunController::State::Running);
}

const WorkloadRuns::LastRun *WorkloadRuns::lastRun(const QString &workloadPath) const
{
    const auto run = m_lastRuns.find(QFileInfo(workloadPath).canonicalFilePath());
    return run == m_lastRuns.end() ? nullptr : &run->second;
}

bool WorkloadRuns::checkRunnable(const QString &cannot)
{
    if (const QString why = m_session->whyNotRunnable(); !why.isEmpty()) {
        m_messages->showError(cannot, why);
        return false;
    }
    ui::WorkloadEditor *editor = m_host->workloadEditor();
    editor->validateNow();
    if (editor->isEmpty()) {
        m_messages->showError(tr("Nothing to run"), tr("open a workload from the lessons or File > Open, or start one "
                                                       "with File > New workload"));
        return false;
    }
    if (!editor->isValid()) {
        m_messages->showError(
            tr("The workload has problems"),
            tr("%n problem(s), listed under the editor; fix them and run again", nullptr, int(editor->issues().size())),
            true);
        return false;
    }
    return true;
}

void WorkloadRuns::started(const QString &status)
{
    m_messages->clearError();
    m_progress->setValue(0);
    m_status->setText(status);
}

bool WorkloadRuns::run()
{
    if (!checkRunnable(tr("Cannot run")))
        return false;
    const ui::WorkloadEditor *editor = m_host->workloadEditor();
    m_runWorkloadPath = QFileInfo(editor->filePath()).canonicalFilePath();
    QString error;
    if (!m_session->run(editor->text(), editor->displayName(), &error)) {
        m_messages->showError(tr("Cannot run"), error);
        return false;
    }
    started(tr("Starting streamscope-cli…"));
    return true;
}

bool WorkloadRuns::compare()
{
    // The same checks as Run first: a dialog about a workload that cannot run would only waste time.
    if (!checkRunnable(tr("Cannot compare")))
        return false;
    const ui::WorkloadEditor *editor = m_host->workloadEditor();
    ui::ExperimentDialog dialog(editor->text(), editor->displayName(), m_host->hostWindow());
    if (!m_experimentQuestion(dialog) || !dialog.canRun())
        return false;
    return startComparison(dialog.varyOptions(), dialog.repetitions(), dialog.warmup());
}

bool WorkloadRuns::startComparison(const QStringList &varyOptions, int repetitions, int warmup)
{
    if (!checkRunnable(tr("Cannot compare")))
        return false;
    const ui::WorkloadEditor *editor = m_host->workloadEditor();
    QString error;
    if (!m_session->compare(editor->text(), editor->displayName(), varyOptions, repetitions, warmup, &error)) {
        m_messages->showError(tr("Cannot compare"), error);
        return false;
    }
    started(tr("Starting streamscope-cli compare…"));
    return true;
}

void WorkloadRuns::cancel()
{
    if (m_session->controller()->state() == ui::RunController::State::Running) {
        m_status->setText(tr("Cancelling…"));
        m_session->cancel();
    }
}

void WorkloadRuns::onTraceReady(std::shared_ptr<const engine::Trace> trace, const QString &displayName,
                                const QString &path)
{
    // The run's result is newer than a file still being opened: that open must not replace it later.
    if (m_loader->isLoading())
        m_loader->cancel();
    m_progress->setValue(100);
    m_status->setText(tr("Run finished"));
    // A lesson's run is what a click on the lesson shows from now on (before its recorded example).
    if (!m_runWorkloadPath.isEmpty() && m_host->lessonsPanel()->lessonForPath(m_runWorkloadPath) >= 0)
        m_lastRuns[m_runWorkloadPath] = {trace, displayName, path};
    m_host->showTrace(std::move(trace), displayName, path);
}

void WorkloadRuns::onComparisonReady(const QString &path, const QString &displayName)
{
    if (m_loader->isLoading())
        m_loader->cancel();
    m_progress->setValue(100);
    m_status->setText(tr("Comparison finished"));
    QString error;
    ui::ComparisonWindow *window = m_children->newComparison(path, &error);
    if (!window) {
        m_messages->showError(tr("The comparison finished but its file could not be read"), error);
        return;
    }
    // It lives in the run folder until saved, and is marked so.
    window->setDisplayName(displayName);
    window->setUnsaved(true);
    window->show();
}

void WorkloadRuns::onFailed(const QString &title, const QString &message)
{
    m_status->setText(title);
    m_messages->showError(title, message);
}

void WorkloadRuns::onDevicesChecked(bool usable, const QString &message)
{
    ui::LessonsPanel *lessons = m_host->lessonsPanel();
    lessons->setCanRun(usable);
    lessons->setGpuCount(usable ? m_session->controller()->gpuCount() : 0);
    if (usable) {
        m_messages->showBanner(QString());
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
        // A file given to the app is being opened: it wins.
        if (!m_host->document()->trace() && !m_host->isOpening())
            m_host->openFileInBackground(examples.first());
    }
    m_messages->showBanner(text, message.trimmed());
}

} // namespace streamscope::gui
