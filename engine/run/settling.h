// Settling: what the runner knows and says when a run must stop while the GPU still works (a time limit,
// a cancel, a fault), beside run_watchdog.h, which decides when. The GPU's progress through each stream
// is followed by polling the ops' end events (PendingOps), so that a stopped or failed run can name the
// op each stream was still running; the messages for a run that is stopped, abandoned or broken by a
// kernel fault are written here. Plain C++: the CUDA queries come in through a callback (runner_cuda.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/model/errors.h"
#include "engine/run/run_plan.h"

namespace streamscope::engine {

// A stopped run (time limit, cancel) waits this long for its GPU work to end before it is abandoned
// (run_watchdog.h); the watchdog gives a host thread blocked inside a CUDA call a little longer.
inline constexpr std::int64_t kSettleNs = 1'000'000'000;
inline constexpr std::int64_t kWatchdogGraceNs = 1'500'000'000;

// Per stream, the repetition's ops that have an end event, and how far the GPU got through them.
class PendingOps {
public:
    enum class State { Done, NotReady, Failed };
    // Whether op `i` was issued in this repetition; the state of its end event (cudaEventQuery).
    using Issued = std::function<bool(std::size_t op)>;
    using Query = std::function<State(std::size_t op)>;

    // `streams[i]`: op i's stream (an opaque handle; null: no end event, not followed).
    explicit PendingOps(const std::vector<const void *> &streams = {});

    // A new repetition: nothing done yet.
    void restart();
    // Moves each stream's cursor past the issued ops whose end event has completed; false where a
    // query failed (a sticky error: the context is broken).
    bool advance(const Issued &issued, const Query &query);
    // The first unfinished issued op of each stream (kernels only, when `kernels`), as their contexts:
    // "stream 's0' op 1 (...): name; stream 's1' ...", four at most and how many more.
    std::string unfinished(const std::vector<PlannedOp> &ops, const Issued &issued, bool kernels = false) const;

private:
    struct Stream {
        const void *stream = nullptr;
        std::vector<std::size_t> ops;
        std::size_t next = 0;
    };
    std::vector<Stream> m_streams;
};

// The message of a run whose GPU work did not end within kSettleNs after `cause` (null: it failed with
// something that is not an Error) stopped it; `running` names what still ran.
std::string unsettledMessage(const Error *cause, const std::string &workloadName, const std::string &running);

// The message of a CUDA error that left the context broken (`stickyText`: the sticky error): a kernel
// faulted, whichever call reported it; `kernels`: the kernels still running (PendingOps::unfinished).
std::string faultMessage(const std::string &what, const std::string &stickyText, const std::string &kernels);

// A stop (time limit, cancel) while the GPU ran `running`.
Error stoppedWhileRunning(const Error &stop, const std::string &running);

} // namespace streamscope::engine
