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

inline CliResult runCli(const QStringList &args, int timeoutMs = 300000)
{
    QProcess p;
    p.setWorkingDirectory(STREAMSCOPE_SOURCE_DIR);
    p.start(STREAMSCOPE_CLI, args);
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
    return QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads/") + QString::fromUtf8(name);
}

} // namespace streamscope::test
