#include "ui/run/run_session.h"
#include "ui/common/display_text.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include "engine/formats/native_format.h"
#include "engine/model/errors.h"

namespace streamscope::ui {

RunSession::RunSession(QObject *parent) : QObject(parent), m_controller(new RunController(this))
{
    connect(m_controller, &RunController::runFinished, this, &RunSession::onFinished);
    connect(m_controller, &RunController::runFailed, this, &RunSession::onFailed);
    connect(m_controller, &RunController::devicesChecked, this, [this](bool usable, const QString &message) {
        m_gpuUsable = usable;
        emit gpuChanged(usable, message);
    });
}

RunSession::~RunSession() = default;

QString RunSession::whyNotRunnable() const
{
    if (m_controller->isBusy())
        return tr("a run is already in progress");
    if (!m_gpuUsable)
        return tr("streamscope-cli found no usable GPU (see the banner); use Run > Check for a GPU after fixing the "
                  "driver or device");
    return {};
}

bool RunSession::prepare(const QString &workloadText, QString *workloadPath, QString *error)
{
    if (const QString why = whyNotRunnable(); !why.isEmpty()) {
        *error = why;
        return false;
    }
    if (!m_runDir) {
        m_runDir = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/streamscope-XXXXXX"));
        if (!m_runDir->isValid()) {
            *error = tr("no temporary folder could be created: %1").arg(m_runDir->errorString());
            m_runDir.reset();
            return false;
        }
    }
    ++m_runCount;
    *workloadPath = m_runDir->filePath(QStringLiteral("run-%1.json").arg(m_runCount));
    QFile file(*workloadPath);
    if (!file.open(QIODevice::WriteOnly) || file.write(workloadText.toUtf8()) < 0 || !file.flush()) {
        *error = tr("%1: %2").arg(*workloadPath, file.errorString());
        return false;
    }
    file.close();
    return true;
}

bool RunSession::run(const QString &workloadText, const QString &name, QString *error)
{
    QString workloadPath;
    if (!prepare(workloadText, &workloadPath, error))
        return false;
    m_name = name;
    const QString outputPath = m_runDir->filePath(QStringLiteral("run-%1.sstrace").arg(m_runCount));
    if (!m_controller->start(workloadPath, outputPath)) {
        *error = tr("streamscope-cli could not be started");
        return false;
    }
    return true;
}

bool RunSession::compare(const QString &workloadText, const QString &name, const QStringList &varyOptions,
                         int repetitions, int warmup, QString *error)
{
    QString workloadPath;
    if (!prepare(workloadText, &workloadPath, error))
        return false;
    m_name = name;
    const QString outputPath = m_runDir->filePath(QStringLiteral("comparison-%1.sscompare").arg(m_runCount));
    if (!m_controller->startComparison(workloadPath, varyOptions, outputPath, repetitions, warmup)) {
        *error = tr("streamscope-cli could not be started");
        return false;
    }
    return true;
}

bool RunSession::cancel()
{
    if (m_controller->state() != RunController::State::Running)
        return false;
    m_controller->cancel();
    return true;
}

void RunSession::checkDevices()
{
    m_controller->checkDevices();
}

bool RunSession::ownsFile(const QString &path) const
{
    return m_runDir && QFileInfo(path).absoluteFilePath().startsWith(m_runDir->path() + QLatin1Char('/'));
}

void RunSession::onFinished(const QString &outputPath)
{
    QString name = m_name;
    if (m_controller->job() == RunController::Job::Compare) {
        if (name.endsWith(QLatin1String(".json")))
            name.chop(5);
        // It lives in the run folder until saved: named after the workload and the run.
        emit comparisonReady(outputPath, tr("%1 comparison %2").arg(name).arg(m_runCount));
        return;
    }
    try {
        auto trace = std::make_shared<engine::Trace>(engine::readNativeTrace(outputPath.toStdString()));
        if (!trace->title.empty())
            name = displayText(trace->title);
        emit traceReady(std::move(trace), tr("%1 (run %2, not saved)").arg(name).arg(m_runCount), outputPath);
    } catch (const engine::Error &e) {
        emit failed(tr("The run finished but its trace could not be read"), QString::fromUtf8(e.what()));
    }
}

void RunSession::onFailed(const RunFailure &failure)
{
    if (failure.kind == RunFailureKind::NoGpu) {
        m_gpuUsable = false;
        emit gpuChanged(false, failure.message);
    }
    emit failed(failureTitle(failure.kind), failure.message);
}

} // namespace streamscope::ui
