// The run's watchdog: the time limit and cancellation for work the host cannot interrupt. CUDA offers
// no way to stop a kernel that is running: a host thread blocked in cudaStreamSynchronize behind a
// kernel that never ends stays blocked, and the context (its streams, its memory) cannot be released
// while the kernel runs. Only the end of the process ends that work: the driver then tears the
// context down, and the GPU is free again.
//
// So a run has two ways to stop. The runner checks stopReason() wherever it can (between ops, between
// repetitions, while it polls for the GPU to finish) and throws it; that works when the GPU work
// finishes or can be left to finish. Where it cannot (the host is blocked inside a CUDA call, or the
// GPU work does not finish within the grace period after the stop), the run is abandoned: the
// Abandon callback reports the error (the CLI prints its JSON error line and message), and the
// process exits with the error's exit code (cli_protocol.h) without running any destructor, since
// every CUDA call from then on could block too. Plain C++ (no CUDA), tested without a GPU.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "engine/model/errors.h"

namespace streamscope::engine {

class RunWatchdog {
public:
    // Reports the error that ends the process (it must not throw; it may write to stdout and stderr).
    // The process exits with the error's exit code right after it returns.
    using Abandon = std::function<void(const Error &)>;
    // What the watchdog does to end the process; std::_Exit by default. Tests replace it to watch.
    using Exit = std::function<void(int code)>;

    // limitNs <= 0: no time limit (cancellation is still watched). `limitSource` says where the limit
    // came from, for the message ("the workload's timeLimit", "--time-limit"). `cancel` may be null.
    // graceNs: how long after the stop the run may take to end by itself before it is abandoned.
    RunWatchdog(std::string runName, std::int64_t limitNs, std::string limitSource, const std::atomic<bool> *cancel,
                std::int64_t graceNs, Abandon abandon = {}, Exit exit = {});
    ~RunWatchdog(); // stops watching (as finished() does) and joins its thread
    RunWatchdog(const RunWatchdog &) = delete;
    RunWatchdog &operator=(const RunWatchdog &) = delete;

    // What the run is doing now, for the message if it is abandoned there ("repetition 2 of 5: stream
    // 's0' op 1: sync stream (cudaStreamSynchronize)"). Called by the run's thread.
    void setActivity(std::string activity);
    std::string activity() const;
    // Where the run is (the phase and repetition), kept apart from the activity within it.
    void setPhase(std::string phase);
    // Says where the host is blocked, when it is inside a call ("the host was in the call of stream 's0'
    // op 1: sync stream"); empty when it is not. Called from the watchdog's thread, so it must be safe
    // there; its answer, where not empty, replaces the activity in the message.
    void describeCallWith(std::function<std::string()> describe);

    // Why the run must stop now: Error{TimeLimit} past the limit, Error{Cancelled} once cancel is set;
    // none while it may go on.
    std::optional<Error> stopReason() const;
    // The run ended (returned or threw after cleaning up): the watchdog no longer abandons it.
    void finished();

    // The run's GPU work cannot be ended: reports `error` (once, whichever thread comes first) and ends
    // the process. Does not return (where a test's Exit returns, it waits for finished()).
    void abandon(const Error &error);

    // The message of an abandoned run: the error's, and why the process must end.
    static std::string abandonedMessage(const std::string &what);

    std::int64_t limitNs() const { return m_limitNs; }

private:
    using Clock = std::chrono::steady_clock;
    void watch();
    Error stopError(bool timeUp) const;

    std::string m_runName;
    std::int64_t m_limitNs;
    std::string m_limitSource;
    const std::atomic<bool> *m_cancel;
    std::int64_t m_graceNs;
    Abandon m_abandon;
    Exit m_exit;
    Clock::time_point m_start;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_finished = false;
    std::string m_activity;
    std::string m_phase;
    std::function<std::string()> m_describeCall;
    std::atomic<bool> m_abandoned{false};
    std::thread m_thread;
};

} // namespace streamscope::engine
