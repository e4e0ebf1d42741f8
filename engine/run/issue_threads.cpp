// Issue on several host threads (see issue_threads.h).
#include "engine/run/issue_threads.h"

#include <algorithm>
#include <chrono>

#include <sys/syscall.h>
#include <unistd.h>

#include "engine/model/errors.h"

namespace streamscope::engine {

std::vector<std::vector<std::size_t>> issueSchedule(const std::vector<PlannedOp> &ops, int threadCount)
{
    std::vector<std::vector<std::size_t>> schedule(std::size_t(std::max(threadCount, 1)));
    for (std::size_t i = 0; i < ops.size(); ++i)
        schedule.at(std::size_t(ops[i].thread)).push_back(i);
    return schedule;
}

IssueProgress::IssueProgress(std::size_t ops) : m_count(ops), m_issued(std::make_unique<std::atomic<bool>[]>(ops))
{
}

void IssueProgress::restart()
{
    for (std::size_t i = 0; i < m_count; ++i)
        m_issued[i].store(false);
}

void IssueProgress::markIssued(std::size_t op)
{
    m_issued[op].store(true);
}

void IssueProgress::notify()
{
    const std::lock_guard lock(m_mutex);
    m_changed.notify_all();
}

void IssueProgress::abort()
{
    m_aborted.store(true);
}

void IssueProgress::throwIfAborted() const
{
    if (m_aborted.load())
        throw Error(ErrorKind::Cancelled, kOtherThreadStopped);
}

void IssueProgress::waitFor(std::size_t op, const std::function<void()> &checkStop)
{
    std::unique_lock lock(m_mutex);
    while (!m_issued[op].load()) {
        throwIfAborted();
        checkStop();
        m_changed.wait_for(lock, std::chrono::milliseconds(1));
    }
}

IssueThreads::IssueThreads(int count, IssueProgress &progress, Bind bind, Issue issue) :
    m_progress(progress), m_bind(std::move(bind)), m_issue(std::move(issue))
{
    for (int t = 0; t < count; ++t) {
        auto worker = std::make_unique<Worker>();
        worker->index = t;
        m_threads.push_back(std::move(worker));
    }
    for (auto &worker : m_threads) {
        Worker *w = worker.get();
        w->thread = std::thread([this, w] { loop(*w); });
    }
    // Wait until each has bound its device and said who it is.
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [&] { return m_ready == m_threads.size(); });
}

IssueThreads::~IssueThreads()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_cv.notify_all();
    for (auto &worker : m_threads)
        if (worker->thread.joinable())
            worker->thread.join();
}

void IssueThreads::loop(Worker &worker)
{
    worker.tid = std::uint64_t(syscall(SYS_gettid));
    worker.startError = m_bind(worker.index, worker.tid);
    std::uint64_t seen = 0;
    {
        const std::lock_guard lock(m_mutex);
        m_ready += 1;
    }
    m_cv.notify_all();
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_cv.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop)
                return;
            seen = m_generation;
        }
        std::exception_ptr failure;
        try {
            m_issue(worker.index);
        } catch (...) {
            failure = std::current_exception();
            m_progress.abort();
        }
        {
            const std::lock_guard lock(m_mutex);
            // The error that stopped the others wins over their "another host thread stopped".
            const bool echo = failure && isEcho(failure);
            if (failure && (!m_failure || (m_failureIsEcho && !echo))) {
                m_failure = failure;
                m_failureIsEcho = echo;
            }
            m_done += 1;
        }
        m_cv.notify_all();
        m_progress.notify();
    }
}

bool IssueThreads::isEcho(const std::exception_ptr &failure)
{
    try {
        std::rethrow_exception(failure);
    } catch (const Error &e) {
        return e.kind() == ErrorKind::Cancelled && std::string(e.what()) == kOtherThreadStopped;
    } catch (...) {
        return false;
    }
}

void IssueThreads::runRepetition()
{
    {
        const std::lock_guard lock(m_mutex);
        m_done = 0;
        m_failure = nullptr;
        m_failureIsEcho = false;
        m_progress.clearAbort();
        m_generation += 1;
    }
    m_cv.notify_all();
    std::exception_ptr failure;
    {
        std::unique_lock lock(m_mutex);
        m_cv.wait(lock, [&] { return m_done == m_threads.size(); });
        failure = m_failure;
    }
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace streamscope::engine
