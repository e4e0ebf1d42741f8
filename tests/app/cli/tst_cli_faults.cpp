// streamscope-cli against GPU faults (issue #13, item 7), as a script or the app meets them: each ends
// with a clear message and its exit code (docs/cli-protocol.md), and the GPU is usable by the next run:
// memory that does not fit (device, pinned, managed), a device that does not exist, a kernel that never
// ends stopped by the run time limit (the workload's timeLimit and --time-limit; the host waiting in
// the GPU or blocked inside a call), Ctrl-C over such a kernel, and an illegal address (a sticky error).
// The workloads are tests/gpu/workloads/. Without a usable GPU the GPU tests skip, naming why; the
// option's usage errors are checked everywhere.
#include <QtTest>

#include "tests/app/cli/cli_process.h"

#include <nlohmann/json.hpp>

#include <csignal>

using namespace streamscope;

namespace {

using Result = test::CliResult;

QString workload(const char *name)
{
    return test::sourceDir() + QStringLiteral("/tests/gpu/workloads/") + QString::fromUtf8(name);
}

// The {"event":"error"} line of a --progress json run, or null.
nlohmann::json errorEvent(const Result &r)
{
    for (const QString &line : r.out.split('\n', Qt::SkipEmptyParts)) {
        const auto j = nlohmann::json::parse(line.toStdString(), nullptr, false);
        if (j.is_object() && j.value("event", "") == "error")
            return j;
    }
    return nullptr;
}

QByteArray show(const Result &r)
{
    return ("exit " + QString::number(r.code) + "\nstdout: " + r.out.right(3000) + "\nstderr: " + r.err.right(3000))
        .toUtf8();
}

} // namespace

class TestCliFaults : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_noGpu; // why not, when there is no usable GPU
    nlohmann::json m_devices;

    QString write(const QString &name, const QByteArray &text)
    {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
            return {};
        return f.fileName();
    }

    // The GPU is usable again: a short preset runs to the end.
    void nextRunWorks()
    {
        const Result r = test::runCli(
            {"run", test::presetPath("concurrent-kernels.json"), "--repeat", "1", "--warmup", "0", "--ops", "0"});
        QVERIFY2(r.code == 0, show(r));
    }

    std::uint64_t totalMemory() const { return m_devices.at(0).value("total_mem_bytes", std::uint64_t(0)); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const Result r = test::runCli({"devices", "--json"});
        if (r.code != 0) {
            m_noGpu = r.err.trimmed();
            qInfo() << "no GPU:" << m_noGpu;
            return;
        }
        m_devices = nlohmann::json::parse(r.out.toStdString(), nullptr, false);
        if (m_devices.is_object() && m_devices.contains("devices"))
            m_devices = m_devices["devices"];
        QVERIFY2(m_devices.is_array() && !m_devices.empty(), qPrintable(r.out));
    }

    // --time-limit wants a duration with its unit; a bare number is refused (usage, exit 2).
    void timeLimitOption_data()
    {
        QTest::addColumn<QString>("value");
        QTest::newRow("bare number") << "30";
        QTest::newRow("not a duration") << "soon";
        QTest::newRow("zero") << "0s";
        QTest::newRow("negative") << "-1s";
    }
    void timeLimitOption()
    {
        QFETCH(QString, value);
        const Result r = test::runCli({"run", workload("hang.json"), "--time-limit", value});
        QVERIFY2(r.code == 2, show(r));
        QVERIFY2(r.err.contains("--time-limit") && r.err.contains("duration"), show(r));
    }

    void deviceOutOfMemory()
    {
        if (!m_noGpu.isEmpty())
            QSKIP(qPrintable(m_noGpu));
        const QString file = write("huge-device.json", R"({"version": 1, "name": "huge",
            "buffers": [{"name": "d_huge", "kind": "device", "bytes": "64 TiB"}],
            "streams": [{"name": "s", "ops": [{"op": "kernel", "type": "memory", "buffer": "d_huge"}]}]})");
        const Result r = test::runCli({"run", file, "--progress", "json"});
        QVERIFY2(r.code == 7, show(r));
        const auto e = errorEvent(r);
        QVERIFY2(e.is_object() && e.value("kind", "") == "out_of_memory" && e.value("exit_code", 0) == 7, show(r));
        QVERIFY2(r.err.contains("buffer 'd_huge' (device, 64 TiB) does not fit in device memory")
                     && r.err.contains("free of"),
                 show(r));
        nextRunWorks();
    }

    void pinnedOutOfMemory()
    {
        if (!m_noGpu.isEmpty())
            QSKIP(qPrintable(m_noGpu));
        const QString file = write("huge-pinned.json", R"({"version": 1, "name": "huge pinned",
            "buffers": [{"name": "h_pinned", "kind": "pinned", "bytes": "64 TiB"}, {"name": "d", "kind": "device", "bytes": "1 MiB"}],
            "streams": [{"name": "s", "ops": [{"op": "copy", "src": "h_pinned", "dst": "d"}]}]})");
        const Result r = test::runCli({"run", file});
        QVERIFY2(r.code == 7, show(r));
        QVERIFY2(r.err.contains("buffer 'h_pinned' (pinned, 64 TiB) does not fit in host memory")
                     && r.err.contains("available"),
                 show(r));
        nextRunWorks();
    }

    // Managed memory beyond what the card has free is refused before it is asked for.
    void managedOversubscriptionRefused()
    {
        if (!m_noGpu.isEmpty())
            QSKIP(qPrintable(m_noGpu));
        const std::uint64_t total = totalMemory();
        QVERIFY(total > 0);
        const QString file =
            write("huge-managed.json", QByteArray(R"({"version": 1, "name": "oversubscribed",
            "buffers": [{"name": "m", "kind": "managed", "bytes": )")
                                           + QByteArray::number(qulonglong(total + (1ull << 30))) + R"(}],
            "streams": [{"name": "s", "ops": [{"op": "prefetch", "buffer": "m"}]}]})");
        const Result r = test::runCli({"run", file});
        QVERIFY2(r.code == 7, show(r));
        QVERIFY2(r.err.contains("never asks for more managed memory than the device has free"), show(r));
        nextRunWorks();
    }

    void badDeviceListsDevices()
    {
        if (!m_noGpu.isEmpty())
            QSKIP(qPrintable(m_noGpu));
        const Result r = test::runCli({"run", test::presetPath("overlap.json"), "--device", "63"});
        QVERIFY2(r.code == 3, show(r));
        const QString name = QString::fromStdString(m_devices.at(0).value("name", ""));
        QVERIFY2(r.err.contains("device 63 does not exist") && r.err.contains("this host has")
                     && r.err.contains("0 '" + name + "'"),
                 show(r));
    }

    // A kernel that never ends, the host polling for it: the workload's timeLimit (3 s) stops the run,
    // the error names the kernel the GPU was still running, exit 8; the process ended (the GPU with it)
    // within a few seconds of the limit, and the next run works. Not before: the limit counts from the
    // start of the run, and the stopped run waits 1 s for its GPU work (kSettleNs) before it ends.
    void hangStoppedByWorkloadTimeLimit()
    {
        if (!m_noGpu.isEmpty())
            QSKIP(qPrintable(m_noGpu));
        QElapsedTimer timer;
        timer.start();
        const Result r = test::runCli(
            {"run", workload("hang.json"), "--progress", "json", "-o", m_dir.filePath("hang.sstrace")}, 60000);
        const qint64 ms = timer.elapsed();
        qInfo("hang.json ended after %lld ms (time limit 3 s)", ms);
        QVERIFY2(r.code == 8, show(r));
        const auto e = errorEvent(r);
        QVERIFY2(e.is_object() && e.value("kind", "") == "time_limit" && e.value("exit_code", 0) == 8, show(r));
        const QString message = QString::fromStdString(e.value("message", ""));
        QVERIFY2(message.contains("passed its time limit of 3 s (the workload's \"timeLimit\")")
                     && message.contains("stream 'work' op 1") && message.contains("hang kernel")
                     && message.contains("CUDA cannot stop"),
                 qPrintable(message));
        QVERIFY2(ms >= 4000 && ms < 9000, qPrintable(QString::number(ms) + " ms; the limit and the settle give 4 s"));
        QVERIFY2(!QFile::exists(m_dir.filePath("hang.sstrace")), "a trace was written");
        nextRunWorks();
    }

    // --time-limit overrides the workload's; the host blocked inside cudaStreamSynchronize: the watchdog
    // ends the process, naming the call the host was in. Not before the limit (1.5 s) and the watchdog's
    // grace after it (kWatchdogGraceNs, 1.5 s): 3 s.
    void hangWithHostBlockedInACall()
    {
        if (!m_noGpu.isEmpty())
            QSKIP(qPrintable(m_noGpu));
        QElapsedTimer timer;
        timer.start();
        const Result r = test::runCli({"run", workload("hang-sync.json"), "--time-limit", "1500ms"}, 60000);
        const qint64 ms = timer.elapsed();
        qInfo("hang-sync.json ended after %lld ms (time limit 1.5 s)", ms);
        QVERIFY2(r.code == 8, show(r));
        QVERIFY2(r.err.contains("time limit of 1.5 s (the run's time limit)")
                     && r.err.contains("the host was in the call of stream 'work' op 1")
                     && r.err.contains("sync stream"),
                 show(r));
        QVERIFY2(ms >= 3000 && ms < 8000,
                 qPrintable(QString::number(ms) + " ms; the limit and the watchdog's grace give 3 s"));
        nextRunWorks();
    }

    // Ctrl-C (SIGTERM from the app) over a kernel that never ends: exit 130 within seconds, not never.
    void cancelOverHang()
    {
        if (!m_noGpu.isEmpty())
            QSKIP(qPrintable(m_noGpu));
        QProcess p;
        p.setWorkingDirectory(test::sourceDir());
        p.start(test::cliPath(), {"run", workload("hang.json"), "--time-limit", "120s", "--progress", "json"});
        QVERIFY(p.waitForStarted());
        QByteArray out;
        QElapsedTimer timer;
        timer.start();
        while (!out.contains("\"warmup\"") && timer.elapsed() < 30000 && p.state() == QProcess::Running) {
            p.waitForReadyRead(200);
            out += p.readAllStandardOutput();
        }
        QVERIFY2(out.contains("\"warmup\""), out.constData());
        QTest::qWait(500); // the hang kernel is running now
        timer.restart();
        p.terminate();
        QVERIFY(p.waitForFinished(10000));
        qInfo("cancelled over a hang kernel: ended %lld ms after SIGTERM", timer.elapsed());
        out += p.readAllStandardOutput();
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 130);
        QVERIFY2(out.contains("\"kind\":\"cancelled\""), out.constData());
        QVERIFY2(timer.elapsed() < 5000, "it took more than 5 s to end");
        nextRunWorks();
    }

    // An illegal address: the CLI names the kernel and the CUDA error, exits 6, and the next run (a new
    // process) works.
    void illegalAddressNamesTheKernel()
    {
        if (!m_noGpu.isEmpty())
            QSKIP(qPrintable(m_noGpu));
        const Result r = test::runCli({"run", workload("fault.json"), "--progress", "json"}, 60000);
        QVERIFY2(r.code == 6, show(r));
        const auto e = errorEvent(r);
        QVERIFY2(e.is_object() && e.value("kind", "") == "cuda" && e.value("exit_code", 0) == 6, show(r));
        const QString message = QString::fromStdString(e.value("message", ""));
        QVERIFY2(message.contains("cudaErrorIllegalAddress") && message.contains("stream 'work' op 1")
                     && message.contains("bad pointer write") && message.contains("sticky"),
                 qPrintable(message));
        nextRunWorks();
    }

    // A hang kernel without any time limit is refused before it runs.
    void hangWithoutTimeLimitRefused()
    {
        if (!m_noGpu.isEmpty())
            QSKIP(qPrintable(m_noGpu));
        const QString file = write("hang-nolimit.json", R"({"version": 1, "name": "no limit",
            "streams": [{"name": "s", "ops": [{"op": "kernel", "type": "hang"}]}]})");
        const Result r = test::runCli({"run", file}, 60000);
        QVERIFY2(r.code == 3, show(r));
        QVERIFY2(r.err.contains("a hang kernel never ends") && r.err.contains("--time-limit"), show(r));
    }
};

QTEST_GUILESS_MAIN(TestCliFaults)
#include "tst_cli_faults.moc"
