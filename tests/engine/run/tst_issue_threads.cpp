// Tests of issue on several host threads without a GPU: each thread's ops, a wait that holds until another
// thread has issued the record it pairs with, the first real error winning over the "another host thread
// stopped" of the threads it aborted, a thread that could not bind, cancellation of a held wait, and
// repetitions run one after another on the same threads.
#include <QtTest>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/model/errors.h"
#include "engine/run/issue_threads.h"

using namespace streamscope::engine;

namespace {

QByteArray failure(IssueThreads &threads, ErrorKind expected)
{
    try {
        threads.runRepetition();
    } catch (const Error &e) {
        return e.kind() == expected ? QByteArray(e.what()) : "wrong kind: " + QByteArray(e.what());
    }
    return "no error";
}

} // namespace

class TestIssueThreads : public QObject {
    Q_OBJECT

private slots:
    void schedule()
    {
        std::vector<PlannedOp> ops(5);
        ops[1].thread = 1;
        ops[3].thread = 1;
        ops[4].thread = 2;
        QCOMPARE(issueSchedule(ops, 3), (std::vector<std::vector<std::size_t>>{{0, 2}, {1, 3}, {4}}));
        QCOMPARE(issueSchedule({}, 1), std::vector<std::vector<std::size_t>>(1));
    }

    // Thread 1 waits for op 0, which thread 0 issues only after a while: the wait holds until then, and
    // every repetition starts with nothing issued.
    void crossThreadWait()
    {
        IssueProgress progress(2);
        std::mutex mutex;
        std::vector<std::string> order;
        auto note = [&](std::string what) {
            const std::lock_guard lock(mutex);
            order.push_back(std::move(what));
        };
        IssueThreads threads(
            2, progress, [](int, std::uint64_t) { return std::string(); },
            [&](int t) {
                if (t == 0) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(20));
                    note("record");
                    progress.markIssued(0);
                    progress.notify();
                } else {
                    progress.waitFor(0, [] {});
                    note("wait");
                    progress.markIssued(1);
                }
            });
        QCOMPARE(threads.count(), 2);
        QVERIFY(threads.tid(0) != 0 && threads.tid(1) != 0 && threads.tid(0) != threads.tid(1));
        for (int rep = 0; rep < 3; ++rep) {
            progress.restart();
            QVERIFY(!progress.issued(0));
            threads.runRepetition();
            QVERIFY(progress.issued(0) && progress.issued(1));
        }
        QCOMPARE(order, (std::vector<std::string>{"record", "wait", "record", "wait", "record", "wait"}));
    }

    // Thread 1 fails; thread 0, holding in a wait for a record that never comes, stops with the echo,
    // and the caller sees thread 1's error, whichever thread finished first. The next repetition runs.
    void firstRealErrorWins()
    {
        IssueProgress progress(1);
        std::atomic<bool> fail{true};
        IssueThreads threads(
            2, progress, [](int, std::uint64_t) { return std::string(); },
            [&](int t) {
                if (t == 0) {
                    progress.waitFor(0, [] {});
                    return;
                }
                if (fail.load()) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
                    throw Error(ErrorKind::Cuda, "stream 's1' op 0: cudaMemcpyAsync failed");
                }
                progress.markIssued(0);
                progress.notify();
            });
        progress.restart();
        QCOMPARE(failure(threads, ErrorKind::Cuda), QByteArray("stream 's1' op 0: cudaMemcpyAsync failed"));
        QVERIFY(progress.aborted());
        fail = false;
        progress.restart();
        threads.runRepetition(); // the abort is cleared: both threads issue again
        QVERIFY(!progress.aborted());
        QVERIFY(progress.issued(0));
    }

    void abortedThreadsStop()
    {
        IssueProgress progress(1);
        progress.abort();
        bool threw = false;
        try {
            progress.throwIfAborted();
        } catch (const Error &e) {
            threw = e.kind() == ErrorKind::Cancelled && std::string(e.what()) == kOtherThreadStopped;
        }
        QVERIFY(threw);
        progress.clearAbort();
        progress.throwIfAborted();
        // A held wait sees the stop its check throws (a time limit, a cancel).
        bool stopped = false;
        try {
            progress.waitFor(0, [] { throw Error(ErrorKind::TimeLimit, "time limit"); });
        } catch (const Error &e) {
            stopped = e.kind() == ErrorKind::TimeLimit;
        }
        QVERIFY(stopped);
    }

    void startErrors()
    {
        IssueProgress progress(0);
        std::vector<std::uint64_t> tids(3);
        IssueThreads threads(
            3, progress,
            [&](int t, std::uint64_t tid) {
                tids[std::size_t(t)] = tid;
                return t == 2 ? std::string("cudaSetDevice(5): invalid device ordinal") : std::string();
            },
            [](int) {});
        QVERIFY(threads.startError(0).empty());
        QCOMPARE(threads.startError(2), std::string("cudaSetDevice(5): invalid device ordinal"));
        for (int t = 0; t < 3; ++t)
            QCOMPARE(threads.tid(t), tids[std::size_t(t)]);
    }

    // Something that is not an Error still stops the repetition and reaches the caller.
    void otherExceptions()
    {
        IssueProgress progress(0);
        IssueThreads threads(
            2, progress, [](int, std::uint64_t) { return std::string(); },
            [](int t) {
                if (t == 1)
                    throw std::runtime_error("bad_alloc-like");
            });
        bool caught = false;
        try {
            threads.runRepetition();
        } catch (const std::runtime_error &e) {
            caught = std::string(e.what()) == "bad_alloc-like";
        }
        QVERIFY(caught);
    }
};

QTEST_GUILESS_MAIN(TestIssueThreads)
#include "tst_issue_threads.moc"
