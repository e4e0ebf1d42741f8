// Issue on several host threads. A workload with threads (workload.h) issues each thread's ops from a
// std::thread of its own, as a real program's threads would:
//  - issueSchedule: the ops each thread issues, in Workload::schedule order;
//  - IssueProgress: which ops of the repetition have been issued; a wait on an event that another thread
//    records holds until that thread has issued the record; the first thread that fails aborts the others
//    at their next op;
//  - IssueThreads: one std::thread per workload thread, started (and bound to its device) before anything
//    is timed; each repetition releases them together and waits until every one has issued its part, then
//    rethrows the first error one of them met (an "another host thread of the run stopped" gives way to
//    the error that stopped it).
// Plain C++: the CUDA calls come in through the callbacks (runner_cuda.cpp), so that the threading is
// tested without a GPU.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/run/run_plan.h"

namespace streamscope::engine {

// The message of the Error{Cancelled} a thread stops with when another thread of the run failed.
inline constexpr const char *kOtherThreadStopped = "another host thread of the run stopped";

// Each host thread's ops (indices into `ops`, in their order there), threadCount entries.
std::vector<std::vector<std::size_t>> issueSchedule(const std::vector<PlannedOp> &ops, int threadCount);

class IssueProgress {
public:
    explicit IssueProgress(std::size_t ops = 0);

    // A new repetition: no op issued. (An abort stays until clearAbort.)
    void restart();
    void markIssued(std::size_t op);
    bool issued(std::size_t op) const { return op < m_count && m_issued[op].load(); }
    // Wakes the threads that wait for a record (after a record was issued, or a thread finished).
    void notify();

    // A thread failed: the others stop at their next op (throwIfAborted) or wait (waitFor).
    void abort();
    void clearAbort() { m_aborted.store(false); }
    bool aborted() const { return m_aborted.load(); }
    // Throws Error{Cancelled, kOtherThreadStopped} once another thread aborted the repetition.
    void throwIfAborted() const;

    // Holds until `op` has been issued, calling `checkStop` (which throws to stop) about every
    // millisecond; throws as throwIfAborted does when another thread failed meanwhile.
    void waitFor(std::size_t op, const std::function<void()> &checkStop);

private:
    std::size_t m_count = 0;
    std::unique_ptr<std::atomic<bool>[]> m_issued;
    std::atomic<bool> m_aborted{false};
    std::mutex m_mutex;
    std::condition_variable m_changed;
};

class IssueThreads {
public:
    // Called first on each new thread (its index and the kernel's id of it): binds it to its device and
    // names it; returns why it could not ("" when it could).
    using Bind = std::function<std::string(int thread, std::uint64_t tid)>;
    // One repetition's part of a thread, on that thread; throws to stop the repetition.
    using Issue = std::function<void(int thread)>;

    // Starts `count` threads and waits until each has bound itself. `progress` must outlive them.
    IssueThreads(int count, IssueProgress &progress, Bind bind, Issue issue);
    ~IssueThreads(); // stops the threads and joins them
    IssueThreads(const IssueThreads &) = delete;
    IssueThreads &operator=(const IssueThreads &) = delete;

    int count() const { return int(m_threads.size()); }
    std::uint64_t tid(int thread) const { return m_threads[std::size_t(thread)]->tid; } // the kernel's thread id
    const std::string &startError(int thread) const { return m_threads[std::size_t(thread)]->startError; }

    // Releases every thread on one repetition and waits until all have issued their part; rethrows the
    // first error one of them met (the others stop at their next op).
    void runRepetition();

private:
    struct Worker {
        int index = 0;
        std::uint64_t tid = 0;
        std::string startError;
        std::thread thread;
    };
    void loop(Worker &worker);
    static bool isEcho(const std::exception_ptr &failure);

    IssueProgress &m_progress;
    Bind m_bind;
    Issue m_issue;
    std::vector<std::unique_ptr<Worker>> m_threads;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::size_t m_ready = 0;
    std::size_t m_done = 0;
    std::uint64_t m_generation = 0;
    bool m_stop = false;
    std::exception_ptr m_failure;
    bool m_failureIsEcho = false;
};

} // namespace streamscope::engine
