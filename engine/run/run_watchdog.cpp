// The run's watchdog (see run_watchdog.h).
#include "engine/run/run_watchdog.h"

#include <cstdio>
#include <cstdlib>

#include "engine/model/units.h"
#include "engine/run/cli_protocol.h"

namespace streamscope::engine {

namespace {
// How often the watchdog looks at the cancel flag, which a signal handler sets without waking anyone.
constexpr auto kPoll = std::chrono::milliseconds(50);
} // namespace

RunWatchdog::RunWatchdog(std::string runName, std::int64_t limitNs, std::string limitSource,
                         const std::atomic<bool> *cancel, std::int64_t graceNs, Abandon abandon, Exit exit) :
    m_runName(std::move(runName)),
    m_limitNs(limitNs), m_limitSource(std::move(limitSource)), m_cancel(cancel), m_graceNs(graceNs),
    m_abandon(std::move(abandon)), m_exit(std::move(exit)), m_start(Clock::now())
{
    if (m_limitNs > 0 || m_cancel)
        m_thread = std::thread([this] { watch(); });
}

RunWatchdog::~RunWatchdog()
{
    finished();
    if (m_thread.joinable())
        m_thread.join();
}

void RunWatchdog::setActivity(std::string activity)
{
    const std::lock_guard lock(m_mutex);
    m_activity = std::move(activity);
}

std::string RunWatchdog::activity() const
{
    const std::lock_guard lock(m_mutex);
    return m_activity;
}

void RunWatchdog::setPhase(std::string phase)
{
    const std::lock_guard lock(m_mutex);
    m_phase = std::move(phase);
}

void RunWatchdog::describeCallWith(std::function<std::string()> describe)
{
    const std::lock_guard lock(m_mutex);
    m_describeCall = std::move(describe);
}

void RunWatchdog::finished()
{
    {
        const std::lock_guard lock(m_mutex);
        m_finished = true;
    }
    m_wake.notify_all();
}

Error RunWatchdog::stopError(bool timeUp) const
{
    if (!timeUp)
        return {ErrorKind::Cancelled, "run of workload '" + m_runName + "' cancelled"};
    std::string message = "run of workload '" + m_runName + "' passed its time limit of " + formatDuration(m_limitNs);
    if (!m_limitSource.empty())
        message += " (" + m_limitSource + ")";
    const std::lock_guard lock(m_mutex);
    if (!m_phase.empty())
        message += " during " + m_phase;
    return {ErrorKind::TimeLimit, message};
}

std::optional<Error> RunWatchdog::stopReason() const
{
    if (m_limitNs > 0 && Clock::now() - m_start >= std::chrono::nanoseconds(m_limitNs))
        return stopError(true);
    if (m_cancel && m_cancel->load(std::memory_order_relaxed))
        return stopError(false);
    return std::nullopt;
}

std::string RunWatchdog::abandonedMessage(const std::string &what)
{
    return what
           + ". CUDA cannot stop work that is running on the GPU, so the process ends to end it (the driver "
             "then frees the GPU); no trace was written";
}

void RunWatchdog::abandon(const Error &error)
{
    if (m_abandoned.exchange(true)) {
        // Another thread is ending the process already: wait for it (in a test, return).
        if (m_exit)
            return;
        for (;;)
            std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    if (m_abandon)
        m_abandon(error);
    else
        std::fprintf(stderr, "streamscope: %s\n", error.what());
    std::fflush(nullptr);
    const int code = protocol::exitCodeOf(error.kind());
    if (m_exit) {
        m_exit(code);
        return;
    }
    std::_Exit(code);
}

void RunWatchdog::watch()
{
    std::optional<Clock::time_point> stoppedAt;
    bool timeUp = false;
    std::unique_lock lock(m_mutex);
    while (!m_finished) {
        const Clock::time_point now = Clock::now();
        if (!stoppedAt) {
            timeUp = m_limitNs > 0 && now - m_start >= std::chrono::nanoseconds(m_limitNs);
            if (timeUp || (m_cancel && m_cancel->load(std::memory_order_relaxed)))
                stoppedAt = now;
        }
        if (stoppedAt && now - *stoppedAt >= std::chrono::nanoseconds(m_graceNs)) {
            std::string activity = m_activity;
            const std::function<std::string()> describe = m_describeCall;
            lock.unlock();
            if (describe)
                if (std::string call = describe(); !call.empty())
                    activity = std::move(call);
            const Error stop = stopError(timeUp);
            std::string what = stop.what();
            what +=
                activity.empty() ? ", and did not end within " : ", while " + activity + ", and did not end within ";
            what += formatDuration(m_graceNs);
            abandon(Error(stop.kind(), abandonedMessage(what)));
            return;
        }
        Clock::time_point next = now + kPoll;
        if (stoppedAt)
            next = std::min(next, *stoppedAt + std::chrono::nanoseconds(m_graceNs));
        else if (m_limitNs > 0)
            next = std::min(next, m_start + std::chrono::nanoseconds(m_limitNs));
        m_wake.wait_until(lock, next);
    }
}

} // namespace streamscope::engine
