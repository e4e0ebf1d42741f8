// RunController: the GUI's client of `streamscope-cli` (docs/cli-protocol.md). Runs happen in a child
// process so that a CUDA fault, a hang or an out-of-memory cannot take the window down; this class
// starts the child, turns its JSON progress lines into signals, and ends it on Cancel (terminate,
// then kill after a grace period). It never links CUDA.
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>

namespace streamscope::ui {

// Why a run (or a device check) did not produce a trace. The first eight mirror the CLI's error kinds;
// the rest are what the GUI itself sees when the child misbehaves.
enum class RunFailureKind {
    InvalidInput,
    Io,
    NoGpu,
    Cuda,
    OutOfMemory,
    Cancelled,
    TimeLimit,
    Internal,
    StartFailed, // the CLI could not be started (not found, not executable)
    Crashed, // the child died from a signal we did not send (a crash, or SIGKILL from another program)
    ProtocolError, // a line on stdout that is not a JSON object, or an exit without a result
    Killed, // the child ignored Cancel and was killed after the grace period
};

struct RunFailure {
    RunFailureKind kind = RunFailureKind::Internal;
    int exitCode = -1;
    QString message; // says what and where; shown to the user as is
};

QString failureTitle(RunFailureKind kind);
// The failure an {"event":"error"} line's kind, or an exit code without one, stands for
// (engine/run/cli_protocol.h); Internal for what the protocol does not name.
RunFailureKind runFailureKindFromProtocol(const QString &kind);
RunFailureKind runFailureKindFromExitCode(int code);

class RunController : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, CheckingDevices, Running, Cancelling };
    Q_ENUM(State)

    explicit RunController(QObject *parent = nullptr);
    ~RunController() override; // ends a running child: the window must not leave orphans behind

    // The CLI to start: STREAMSCOPE_CLI if set, else streamscope-cli next to the executable, else the
    // build tree's app/ folder. Empty when none is found.
    static QString locateCli();

    // The program and arguments put before the subcommand. Tests point this at a fake child
    // (e.g. /bin/sh -c SCRIPT sh), which then receives the same arguments as the real CLI.
    void setProgram(const QString &program, const QStringList &leadingArguments = {});
    QString program() const { return m_program; }
    void setCancelGracePeriod(int milliseconds) { m_graceMs = milliseconds; }
    int cancelGracePeriod() const { return m_graceMs; }

    State state() const { return m_state; }
    bool isBusy() const { return m_state != State::Idle; }
    // The child's standard error so far (capped): the CLI's human summary and diagnostics.
    QString standardError() const { return m_stderr; }

    // `streamscope-cli devices --json`: emits devicesChecked(usable, message). Exit code 5 means no usable
    // GPU. Its standard output is the topology (one JSON document, not progress lines): the GPUs it lists
    // are counted in gpuCount().
    void checkDevices();
    // The GPUs the last device check found: 0 before one (or when none is usable), -1 when the CLI said
    // it found one but its list could not be read.
    int gpuCount() const { return m_gpuCount; }
    // `streamscope-cli run WORKLOAD -o OUTPUT --progress json`. Returns false (and emits runFailed) when busy.
    bool start(const QString &workloadPath, const QString &outputPath);
    // `streamscope-cli compare WORKLOAD --vary V... -o OUTPUT --progress json` (an experiment: every variant
    // of the grid in one child). repetitions / warmup < 0: each variant's workload decides. Ends like a run:
    // runFinished(the .sscompare) or runFailed; progress covers the whole grid. False when busy.
    bool startComparison(const QString &workloadPath, const QStringList &varyOptions, const QString &outputPath,
                         int repetitions = -1, int warmup = -1);
    // What times the runs and comparisons started from now on: "cupti" (the CLI's default) or "events";
    // passed to the child as --timing when it is not the default.
    void setTiming(const QString &timing) { m_timing = timing; }
    // Solo baselines on every run (run --solo; docs/measurement.md "The price of overlap").
    void setSolo(bool on) { m_solo = on; }
    bool solo() const { return m_solo; }
    QString timing() const { return m_timing; }
    // What the current (or last) child does.
    enum class Job { Devices, Run, Compare };
    Job job() const { return m_job; }
    // Asks the child to stop (SIGTERM); kills it if it is still alive after the grace period.
    void cancel();

signals:
    void stateChanged(streamscope::ui::RunController::State state);
    void devicesChecked(bool usable, const QString &message);
    void runStarted(const QString &workloadName, int repetitions, int ops);
    void deviceReported(const QString &name, const QString &computeCapability);
    // A comparison started: the variants' labels in grid order.
    void comparisonStarted(const QString &workloadName, const QStringList &variantLabels);
    // percent in [0, 100]; text is a one-line description of the phase.
    void progressChanged(int percent, const QString &text);
    void runFinished(const QString &outputPath);
    void runFailed(const streamscope::ui::RunFailure &failure);

private:
    void launch(const QStringList &arguments, State state, Job job);
    void setState(State state);
    void onReadyReadStdout();
    void onReadyReadStderr();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onErrorOccurred(QProcess::ProcessError error);
    void handleLine(const QByteArray &line);
    void failWithProtocolError(const QString &why);
    void finishRun(); // emits the one result of the current child and returns to Idle
    QString stderrTail() const;

    QString m_program;
    QStringList m_leadingArguments;
    int m_graceMs = 3000;
    State m_state = State::Idle;
    Job m_job = Job::Run;
    QProcess *m_process = nullptr; // owned through QObject parenting; replaced per child
    QTimer m_killTimer;
    QByteArray m_stdoutBuffer;
    int m_gpuCount = 0;
    QString m_stderr;
    QString m_outputPath;
    QString m_timing = QStringLiteral("cupti");
    bool m_solo = false;
    // What the child has told us so far; decides the one signal emitted when it ends.
    bool m_sawDone = false;
    bool m_cancelRequested = false;
    bool m_killedAfterGrace = false;
    bool m_reported = false; // a result (success or failure) was already emitted for this child
    bool m_hasErrorEvent = false;
    RunFailure m_errorEvent;
    QString m_doneOutput;
    QString m_protocolError;
};

} // namespace streamscope::ui

Q_DECLARE_METATYPE(streamscope::ui::RunFailure)
