// RunController: starts streamscope-cli as a child, parses its JSON progress lines and maps its exit to
// exactly one runFinished or runFailed per run (or one devicesChecked per device check).
#include "ui/run/run_controller.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

#include <csignal>
#include <cstring>

#include "engine/run/cli_protocol.h"

namespace streamscope::ui {

namespace {

constexpr qsizetype kMaxLineBytes = 1 << 20; // a progress line is tiny; a megabyte is garbage
constexpr qsizetype kMaxStderrChars = 64 * 1024;

namespace protocol = engine::protocol;
namespace field = engine::protocol::field;
namespace event = engine::protocol::event;

// A protocol name as a Qt key.
QLatin1String key(std::string_view name)
{
    return QLatin1String(name.data(), qsizetype(name.size()));
}

RunFailureKind kindFromError(engine::ErrorKind kind)
{
    switch (kind) {
    case engine::ErrorKind::InvalidInput: return RunFailureKind::InvalidInput;
    case engine::ErrorKind::Io: return RunFailureKind::Io;
    case engine::ErrorKind::NoGpu: return RunFailureKind::NoGpu;
    case engine::ErrorKind::Cuda: return RunFailureKind::Cuda;
    case engine::ErrorKind::OutOfMemory: return RunFailureKind::OutOfMemory;
    case engine::ErrorKind::Cancelled: return RunFailureKind::Cancelled;
    case engine::ErrorKind::TimeLimit: return RunFailureKind::TimeLimit;
    }
    return RunFailureKind::Internal;
}

} // namespace

RunFailureKind runFailureKindFromProtocol(const QString &kind)
{
    const auto error = protocol::errorKindFromName(kind.toStdString());
    return error ? kindFromError(*error) : RunFailureKind::Internal;
}

RunFailureKind runFailureKindFromExitCode(int code)
{
    const auto error = protocol::errorKindOfExitCode(code);
    return error ? kindFromError(*error) : RunFailureKind::Internal;
}

namespace {

QString phaseText(const QString &phase)
{
    if (phase == QLatin1String("calibrating"))
        return QObject::tr("Calibrating");
    if (phase == QLatin1String("warmup"))
        return QObject::tr("Warming up");
    if (phase == QLatin1String("measuring"))
        return QObject::tr("Measuring");
    if (phase == QLatin1String("preparing"))
        return QObject::tr("Preparing");
    return phase;
}

// Progress over the whole run: preparation and calibration are short, measuring dominates.
int phasePercent(const QString &phase, int repetition, int total)
{
    const double within = total > 0 ? double(qBound(0, repetition + 1, total)) / total : 0.0;
    if (phase == QLatin1String("preparing"))
        return 2;
    if (phase == QLatin1String("calibrating"))
        return 5;
    if (phase == QLatin1String("warmup"))
        return 5 + int(15 * within);
    if (phase == QLatin1String("measuring"))
        return 20 + int(79 * within);
    return -1; // unknown phase: keep the bar where it is
}

} // namespace

QString failureTitle(RunFailureKind kind)
{
    switch (kind) {
    case RunFailureKind::InvalidInput: return QObject::tr("Invalid workload");
    case RunFailureKind::Io: return QObject::tr("File error");
    case RunFailureKind::NoGpu: return QObject::tr("No usable GPU");
    case RunFailureKind::Cuda: return QObject::tr("CUDA error");
    case RunFailureKind::OutOfMemory: return QObject::tr("Out of memory");
    case RunFailureKind::Cancelled: return QObject::tr("Cancelled");
    case RunFailureKind::TimeLimit: return QObject::tr("Time limit reached");
    case RunFailureKind::Internal: return QObject::tr("Internal error in streamscope-cli");
    case RunFailureKind::StartFailed: return QObject::tr("streamscope-cli could not be started");
    case RunFailureKind::Crashed: return QObject::tr("streamscope-cli ended unexpectedly");
    case RunFailureKind::ProtocolError: return QObject::tr("Unexpected output from streamscope-cli");
    case RunFailureKind::Killed: return QObject::tr("streamscope-cli did not stop and was killed");
    }
    return QObject::tr("Unknown failure");
}

RunController::RunController(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<RunFailure>();
    m_program = locateCli();
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        if (m_process && m_process->state() != QProcess::NotRunning) {
            m_killedAfterGrace = true;
            m_process->kill();
        }
    });
}

RunController::~RunController()
{
    if (m_process) {
        m_process->disconnect(this);
        if (m_process->state() != QProcess::NotRunning) {
            m_process->kill();
            m_process->waitForFinished(2000);
        }
    }
}

QString RunController::locateCli()
{
    const QByteArray fromEnv = qgetenv("STREAMSCOPE_CLI");
    if (!fromEnv.isEmpty())
        return QString::fromLocal8Bit(fromEnv);
    const QString appDir = QCoreApplication::applicationDirPath();
    // Installed side by side; in the build tree the GUI lives in app/ and the CLI in app/ too, but
    // tests run from tests/, so also look one level up.
    for (const QString &candidate :
         {appDir + QStringLiteral("/streamscope-cli"), appDir + QStringLiteral("/../app/streamscope-cli"),
          appDir + QStringLiteral("/../bin/streamscope-cli")}) {
        const QFileInfo info(candidate);
        if (info.isFile() && info.isExecutable())
            return QDir::cleanPath(info.absoluteFilePath());
    }
    return {};
}

void RunController::setProgram(const QString &program, const QStringList &leadingArguments)
{
    m_program = program;
    m_leadingArguments = leadingArguments;
}

void RunController::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    emit stateChanged(state);
}

void RunController::checkDevices()
{
    if (isBusy())
        return;
    launch({QStringLiteral("devices"), QStringLiteral("--json")}, State::CheckingDevices, Job::Devices);
}

bool RunController::start(const QString &workloadPath, const QString &outputPath)
{
    if (isBusy()) {
        emit runFailed({RunFailureKind::Internal, -1, tr("A run is already in progress.")});
        return false;
    }
    m_outputPath = outputPath;
    QStringList arguments{QStringLiteral("run"),        workloadPath,          QStringLiteral("-o"), outputPath,
                          QStringLiteral("--progress"), QStringLiteral("json")};
    if (m_timing != QLatin1String("cupti"))
        arguments << QStringLiteral("--timing") << m_timing;
    if (m_solo)
        arguments << QStringLiteral("--solo");
    launch(arguments, State::Running, Job::Run);
    return true;
}

bool RunController::startComparison(const QString &workloadPath, const QStringList &varyOptions,
                                    const QString &outputPath, int repetitions, int warmup)
{
    if (isBusy()) {
        emit runFailed({RunFailureKind::Internal, -1, tr("A run is already in progress.")});
        return false;
    }
    m_outputPath = outputPath;
    QStringList arguments{QStringLiteral("compare"), workloadPath};
    for (const QString &v : varyOptions)
        arguments << QStringLiteral("--vary") << v;
    if (repetitions > 0)
        arguments << QStringLiteral("--repeat") << QString::number(repetitions);
    if (warmup >= 0)
        arguments << QStringLiteral("--warmup") << QString::number(warmup);
    arguments << QStringLiteral("-o") << outputPath << QStringLiteral("--progress") << QStringLiteral("json");
    if (m_timing != QLatin1String("cupti"))
        arguments << QStringLiteral("--timing") << m_timing;
    launch(arguments, State::Running, Job::Compare);
    return true;
}

void RunController::launch(const QStringList &arguments, State state, Job job)
{
    m_job = job;
    if (m_process) {
        m_process->disconnect(this);
        m_process->deleteLater();
    }
    m_stdoutBuffer.clear();
    m_stderr.clear();
    m_sawDone = m_cancelRequested = m_killedAfterGrace = m_reported = m_hasErrorEvent = false;
    m_errorEvent = {};
    m_doneOutput.clear();
    m_protocolError.clear();

    m_process = new QProcess(this);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &RunController::onReadyReadStdout);
    connect(m_process, &QProcess::readyReadStandardError, this, &RunController::onReadyReadStderr);
    connect(m_process, &QProcess::finished, this, &RunController::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &RunController::onErrorOccurred);
    setState(state);
    if (m_program.isEmpty()) {
        m_reported = true;
        const RunFailure failure{RunFailureKind::StartFailed, -1,
                                 tr("streamscope-cli was not found next to the application (%1) and "
                                    "STREAMSCOPE_CLI is not set.")
                                     .arg(QCoreApplication::applicationDirPath())};
        setState(State::Idle);
        if (state == State::CheckingDevices)
            emit devicesChecked(false, failure.message);
        else
            emit runFailed(failure);
        return;
    }
    m_process->start(m_program, m_leadingArguments + arguments);
}

void RunController::cancel()
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return;
    m_cancelRequested = true;
    setState(State::Cancelling);
    m_process->terminate();
    m_killTimer.start(m_graceMs);
}

void RunController::onReadyReadStdout()
{
    m_stdoutBuffer += m_process->readAllStandardOutput();
    if (m_job == Job::Devices) {
        // One pretty-printed JSON document, read whole when the child ends (a topology is a few KB).
        if (m_stdoutBuffer.size() > kMaxLineBytes)
            failWithProtocolError(tr("more than %1 bytes of device list").arg(kMaxLineBytes));
        return;
    }
    qsizetype newline;
    while ((newline = m_stdoutBuffer.indexOf('\n')) >= 0) {
        const QByteArray line = m_stdoutBuffer.left(newline).trimmed();
        m_stdoutBuffer.remove(0, newline + 1);
        if (!line.isEmpty())
            handleLine(line);
        if (!m_protocolError.isEmpty())
            return;
    }
    if (m_stdoutBuffer.size() > kMaxLineBytes)
        failWithProtocolError(tr("a line of more than %1 bytes without a newline").arg(kMaxLineBytes));
}

void RunController::onReadyReadStderr()
{
    m_stderr += QString::fromLocal8Bit(m_process->readAllStandardError());
    if (m_stderr.size() > kMaxStderrChars)
        m_stderr = m_stderr.right(kMaxStderrChars);
}

QString RunController::stderrTail() const
{
    QStringList lines = m_stderr.trimmed().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (lines.size() > 6)
        lines = lines.mid(lines.size() - 6);
    return lines.join(QLatin1Char('\n'));
}

void RunController::handleLine(const QByteArray &line)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(line, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        const QString shown = QString::fromUtf8(line.left(120));
        failWithProtocolError(tr("a line that is not a JSON object: \"%1\"").arg(shown));
        return;
    }
    const QJsonObject object = doc.object();
    const QString eventName = object.value(key(field::kEvent)).toString();
    if (eventName == key(event::kStart) && object.value(key(field::kVariants)).isArray()) {
        QStringList labels;
        for (const QJsonValue &v : object.value(key(field::kVariants)).toArray())
            labels << v.toString();
        emit comparisonStarted(object.value(key(field::kWorkload)).toString(), labels);
        emit progressChanged(1, tr("Started: %n variant(s)", nullptr, int(labels.size())));
    } else if (eventName == key(event::kStart)) {
        emit runStarted(object.value(key(field::kWorkload)).toString(), object.value(key(field::kRepetitions)).toInt(),
                        object.value(key(field::kOps)).toInt());
        emit progressChanged(1, tr("Started"));
    } else if (eventName == key(event::kDevice)) {
        emit deviceReported(object.value(key(field::kName)).toString(),
                            object.value(key(field::kComputeCapability)).toString());
    } else if (eventName == key(event::kProgress)) {
        const QString phase = object.value(key(field::kPhase)).toString();
        const int repetition = object.value(key(field::kRepetition)).toInt();
        const int total = object.value(key(field::kTotal)).toInt();
        const QString message = object.value(key(field::kMessage)).toString();
        QString text = phaseText(phase);
        if (total > 0)
            text += tr(" %1/%2").arg(qMin(repetition + 1, total)).arg(total);
        if (!message.isEmpty())
            text += QStringLiteral(": ") + message;
        if (object.contains(key(field::kFraction))) {
            // A comparison: the fraction covers the whole grid; say which variant runs.
            const double fraction = qBound(0.0, object.value(key(field::kFraction)).toDouble(), 1.0);
            const QString variantText = tr("Variant %1/%2 (%3): ")
                                            .arg(object.value(key(field::kVariant)).toInt() + 1)
                                            .arg(object.value(key(field::kVariants)).toInt())
                                            .arg(object.value(key(field::kLabel)).toString());
            // The message repeats the variant's label while preparing; the phase says enough.
            emit progressChanged(1 + int(98 * fraction),
                                 variantText + (phase == QLatin1String("preparing") ? phaseText(phase) : text));
            return;
        }
        const int percent = phasePercent(phase, repetition, total);
        if (percent >= 0)
            emit progressChanged(percent, text);
    } else if (eventName == key(event::kDone)) {
        m_sawDone = true;
        m_doneOutput = object.value(key(field::kOutput)).toString();
    } else if (eventName == key(event::kError)) {
        m_hasErrorEvent = true;
        m_errorEvent.kind = runFailureKindFromProtocol(object.value(key(field::kKind)).toString());
        m_errorEvent.exitCode = object.value(key(field::kExitCode)).toInt(-1);
        m_errorEvent.message = object.value(key(field::kMessage)).toString();
    }
    // Unknown events are ignored on purpose: later CLI versions add them (docs/cli-protocol.md).
}

void RunController::failWithProtocolError(const QString &why)
{
    m_protocolError = tr("streamscope-cli (%1) broke the progress protocol: %2").arg(m_program, why);
    // A child that talks garbage cannot be trusted to finish sensibly: end it now.
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->kill();
    }
}

void RunController::onErrorOccurred(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart || m_reported)
        return;
    m_reported = true;
    const RunFailure failure{RunFailureKind::StartFailed, -1,
                             tr("Could not start %1: %2").arg(m_program, m_process->errorString())};
    const State state = m_state;
    setState(State::Idle);
    if (state == State::CheckingDevices)
        emit devicesChecked(false, failure.message);
    else
        emit runFailed(failure);
}

void RunController::onFinished(int exitCode, QProcess::ExitStatus status)
{
    m_killTimer.stop();
    // Drain what is left: a last line without a trailing newline still counts.
    onReadyReadStderr();
    m_stdoutBuffer += m_process->readAllStandardOutput();
    if (m_job != Job::Devices && !m_stdoutBuffer.trimmed().isEmpty() && m_protocolError.isEmpty()) {
        m_stdoutBuffer += '\n';
        onReadyReadStdout();
    }
    if (m_reported)
        return;
    m_reported = true;
    const State state = m_state;
    setState(State::Idle);

    if (state == State::CheckingDevices) {
        m_gpuCount = 0;
        if (status == QProcess::NormalExit && exitCode == 0 && m_protocolError.isEmpty()) {
            // {"devices": [{"index": 0, "name": "NVIDIA H200", ...}, ...], "peer_links": [...]}
            const QJsonDocument doc = QJsonDocument::fromJson(m_stdoutBuffer);
            const QJsonArray devices = doc.object().value(QStringLiteral("devices")).toArray();
            QStringList names;
            for (const QJsonValue &d : devices)
                names << tr("GPU %1: %2")
                             .arg(d.toObject().value(QStringLiteral("index")).toInt())
                             .arg(d.toObject().value(QStringLiteral("name")).toString());
            m_gpuCount = devices.isEmpty() ? -1 : int(devices.size());
            emit devicesChecked(true, names.isEmpty() ? stderrTail() : names.join(QStringLiteral("; ")));
            return;
        }
        QString message = m_hasErrorEvent ? m_errorEvent.message : stderrTail();
        if (message.isEmpty())
            message = tr("streamscope-cli devices exited with code %1").arg(exitCode);
        emit devicesChecked(false, message);
        return;
    }

    RunFailure failure;
    failure.exitCode = status == QProcess::NormalExit ? exitCode : -1;
    if (m_cancelRequested) {
        failure.kind = m_killedAfterGrace ? RunFailureKind::Killed : RunFailureKind::Cancelled;
        const QString what = m_job == Job::Compare ? tr("The comparison") : tr("The run");
        const QString nothing = m_job == Job::Compare ? tr("No comparison was written.") : tr("No trace was written.");
        failure.message = m_killedAfterGrace ? tr("%1 did not stop within %2 s of Cancel, so it was killed. %3")
                                                   .arg(what)
                                                   .arg(m_graceMs / 1000.0)
                                                   .arg(nothing)
                                             : tr("%1 was cancelled. %2").arg(what, nothing);
        emit runFailed(failure);
        return;
    }
    if (!m_protocolError.isEmpty()) {
        failure.kind = RunFailureKind::ProtocolError;
        failure.message = m_protocolError;
        emit runFailed(failure);
        return;
    }
    if (status == QProcess::CrashExit) {
        failure.kind = RunFailureKind::Crashed;
        // On Unix QProcess gives a crashed child's signal as its exit code.
        const int signal = exitCode;
        const QString what = m_job == Job::Compare ? tr("the comparison") : tr("the run");
        const QString nothing = m_job == Job::Compare ? tr("No comparison was written.") : tr("No trace was written.");
        if (signal == SIGKILL)
            failure.message = tr("streamscope-cli was killed (SIGKILL) during %1: another program, or the system's "
                                 "out-of-memory killer, ended it. %2 Run again when the cause is gone.")
                                  .arg(what, nothing);
        else if (signal > 0)
            failure.message = tr("streamscope-cli crashed during %1 (signal %2, %3). %4")
                                  .arg(what)
                                  .arg(signal)
                                  .arg(QString::fromLocal8Bit(strsignal(signal)), nothing);
        else
            failure.message = tr("streamscope-cli crashed during %1. %2").arg(what, nothing);
        const QString tail = stderrTail();
        if (!tail.isEmpty())
            failure.message += QStringLiteral("\n") + tail;
        emit runFailed(failure);
        return;
    }
    if (exitCode == 0) {
        if (!m_sawDone) {
            failure.kind = RunFailureKind::ProtocolError;
            failure.message = tr("streamscope-cli exited successfully without reporting a result.");
            emit runFailed(failure);
            return;
        }
        emit runFinished(m_doneOutput.isEmpty() ? m_outputPath : m_doneOutput);
        return;
    }
    if (m_hasErrorEvent) {
        failure.kind = m_errorEvent.kind;
        failure.message = m_errorEvent.message;
    } else {
        failure.kind = runFailureKindFromExitCode(exitCode);
        failure.message = stderrTail();
        if (failure.message.isEmpty())
            failure.message = tr("streamscope-cli exited with code %1.").arg(exitCode);
    }
    emit runFailed(failure);
}

} // namespace streamscope::ui
