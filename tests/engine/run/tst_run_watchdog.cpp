// Tests of the run's watchdog (engine/run/run_watchdog.h) without a GPU: a run stops at its time limit
// or on cancel; one that does not end within the grace period (a host blocked inside a CUDA call) is
// abandoned once, with a message that says where it was and why the process ends, and the exit code of
// its error; one that ends in time is left alone. The process's exit is replaced by a recorder.
#include <QtTest>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "engine/run/cli_protocol.h"
#include "engine/run/run_watchdog.h"

using namespace streamscope::engine;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kMs = 1'000'000;

// What an abandoned run reported, and the exit code it would have ended the process with.
struct Recorder {
    std::mutex mutex;
    int reports = 0;
    std::string message;
    ErrorKind kind = ErrorKind::Io;
    std::atomic<int> exitCode{-1};

    RunWatchdog::Abandon abandon()
    {
        return [this](const Error &e) {
            const std::lock_guard lock(mutex);
            ++reports;
            message = e.what();
            kind = e.kind();
        };
    }
    RunWatchdog::Exit exit()
    {
        return [this](int code) { exitCode = code; };
    }
    bool waitForExit(std::chrono::milliseconds most)
    {
        const auto until = std::chrono::steady_clock::now() + most;
        while (exitCode < 0 && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(5ms);
        return exitCode >= 0;
    }
};

} // namespace

class TestRunWatchdog : public QObject {
    Q_OBJECT

private slots:
    void noLimitNoStop()
    {
        Recorder r;
        RunWatchdog watch("w", 0, {}, nullptr, 100 * kMs, r.abandon(), r.exit());
        std::this_thread::sleep_for(30ms);
        QVERIFY(!watch.stopReason());
    }

    void timeLimitStopsTheRun()
    {
        Recorder r;
        RunWatchdog watch("overlap", 40 * kMs, "the workload's \"timeLimit\"", nullptr, 5000 * kMs, r.abandon(),
                          r.exit());
        watch.setPhase("repetition 2 of 5");
        QVERIFY(!watch.stopReason());
        std::this_thread::sleep_for(60ms);
        const auto stop = watch.stopReason();
        QVERIFY(stop);
        QCOMPARE(stop->kind(), ErrorKind::TimeLimit);
        const QByteArray what = stop->what();
        QVERIFY2(what.contains("'overlap'") && what.contains("time limit of 40 ms")
                     && what.contains("the workload's \"timeLimit\"") && what.contains("repetition 2 of 5"),
                 what.constData());
        QCOMPARE(protocol::exitCodeOf(stop->kind()), 8);
        watch.finished(); // the run ended by itself within the grace period: nothing is abandoned
        std::this_thread::sleep_for(30ms);
        QCOMPARE(r.exitCode.load(), -1);
    }

    void cancelStopsTheRun()
    {
        Recorder r;
        std::atomic<bool> cancel = false;
        RunWatchdog watch("w", 0, {}, &cancel, 5000 * kMs, r.abandon(), r.exit());
        QVERIFY(!watch.stopReason());
        cancel = true;
        const auto stop = watch.stopReason();
        QVERIFY(stop);
        QCOMPARE(stop->kind(), ErrorKind::Cancelled);
        QVERIFY2(QByteArray(stop->what()).contains("cancelled"), stop->what());
    }

    // A host thread blocked past the limit and the grace period: the watchdog reports once, naming
    // where the run was and why the process ends, and exits with the time limit's code.
    void stuckRunIsAbandoned()
    {
        Recorder r;
        const auto started = std::chrono::steady_clock::now();
        RunWatchdog watch("hang", 50 * kMs, "the run's time limit", nullptr, 100 * kMs, r.abandon(), r.exit());
        watch.setPhase("warm-up 1 of 1");
        watch.setActivity("waiting for the GPU to finish the repetition's work");
        watch.describeCallWith(
            [] { return std::string("the host was in the call of stream 'work' op 1: sync stream"); });
        QVERIFY(r.waitForExit(3000ms));
        const auto took = std::chrono::steady_clock::now() - started;
        QVERIFY2(took >= 150ms, "abandoned before the limit and the grace period had passed");
        QCOMPARE(r.exitCode.load(), int(protocol::ExitTimeLimit));
        QCOMPARE(r.reports, 1);
        QCOMPARE(r.kind, ErrorKind::TimeLimit);
        const QByteArray what = QByteArray::fromStdString(r.message);
        QVERIFY2(what.contains("time limit of 50 ms") && what.contains("warm-up 1 of 1")
                     && what.contains("stream 'work' op 1: sync stream") && what.contains("did not end within 100 ms")
                     && what.contains("CUDA cannot stop") && what.contains("no trace was written"),
                 what.constData());
    }

    // Cancelled while blocked: the exit code is the cancel's (130), the activity is named when no call is.
    // Not before the grace period after the cancel (80 ms); a hang guard of 3 s after it.
    void stuckCancelIsAbandoned()
    {
        Recorder r;
        std::atomic<bool> cancel = false;
        RunWatchdog watch("w", 0, {}, &cancel, 80 * kMs, r.abandon(), r.exit());
        watch.setActivity("waiting for the GPU work it had queued to end");
        watch.describeCallWith([] { return std::string(); });
        std::this_thread::sleep_for(20ms);
        QCOMPARE(r.exitCode.load(), -1);
        const auto cancelled = std::chrono::steady_clock::now();
        cancel = true;
        QVERIFY(r.waitForExit(3000ms));
        // Less 1 ms: the watchdog reads its clock just before it looks at the flag, so a cancel in between
        // starts its grace period a few microseconds early.
        QVERIFY2(std::chrono::steady_clock::now() - cancelled >= 79ms, "abandoned before the grace period had passed");
        QCOMPARE(r.exitCode.load(), int(protocol::ExitCancelled));
        QVERIFY2(QByteArray::fromStdString(r.message).contains("waiting for the GPU work it had queued to end"),
                 r.message.c_str());
    }

    // The run's own thread and the watchdog both abandoning: one report, one exit.
    void abandonedOnce()
    {
        Recorder r;
        RunWatchdog watch("w", 0, {}, nullptr, 100 * kMs, r.abandon(), r.exit());
        std::thread other([&] { watch.abandon(Error(ErrorKind::TimeLimit, "first")); });
        watch.abandon(Error(ErrorKind::TimeLimit, "second"));
        other.join();
        QCOMPARE(r.reports, 1);
        QCOMPARE(r.exitCode.load(), int(protocol::ExitTimeLimit));
    }

    void abandonedMessageSaysWhy()
    {
        const std::string m = RunWatchdog::abandonedMessage("run of workload 'x' passed its time limit of 2 s");
        QVERIFY2(m.rfind("run of workload 'x' passed its time limit of 2 s. CUDA cannot stop work that is running on "
                         "the GPU, so the process ends",
                         0)
                     == 0,
                 m.c_str());
        QVERIFY(m.find("no trace was written") != std::string::npos);
    }

    // Destroyed while the run is still fine: the thread ends at once, nothing reported.
    void destroyedEarly()
    {
        Recorder r;
        const auto started = std::chrono::steady_clock::now();
        {
            RunWatchdog watch("w", 10'000 * kMs, {}, nullptr, 100 * kMs, r.abandon(), r.exit());
        }
        QVERIFY(std::chrono::steady_clock::now() - started < 1000ms);
        QCOMPARE(r.reports, 0);
    }
};

QTEST_APPLESS_MAIN(TestRunWatchdog)
#include "tst_run_watchdog.moc"
