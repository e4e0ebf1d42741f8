// Runs the real streamscope-cli (STREAMSCOPE_CLI) from the repository root and collects its exit
// code and output: shared by the CLI tests.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

namespace streamscope::test {

struct CliResult {
    int code = -1; // -1: crashed, -2: timed out
    QString out, err;
};

// The CLI and the repository root: $STREAMSCOPE_CLI and $STREAMSCOPE_SOURCE_DIR where set (the GPU host
// runs the tests from another folder than they were built in), else where they were built.
inline QString cliPath()
{
    const QString env = qEnvironmentVariable("STREAMSCOPE_CLI");
    return env.isEmpty() ? QStringLiteral(STREAMSCOPE_CLI) : env;
}
inline QString sourceDir()
{
    const QString env = qEnvironmentVariable("STREAMSCOPE_SOURCE_DIR");
    return env.isEmpty() ? QStringLiteral(STREAMSCOPE_SOURCE_DIR) : env;
}

inline CliResult runCli(const QStringList &args, int timeoutMs = 300000)
{
    QProcess p;
    p.setWorkingDirectory(sourceDir());
    p.start(cliPath(), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {-2, QString(), QStringLiteral("timed out")};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

inline QString presetPath(const char *name)
{
    return sourceDir() + QStringLiteral("/resources/workloads/") + QString::fromUtf8(name);
}

} // namespace streamscope::test
