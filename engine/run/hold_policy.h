// Whether the runner may hold a workload's streams until a whole repetition is queued (nvbandwidth's
// method: the GPU starts only once the host has issued everything, so host issue costs stay out of
// the GPU timeline). Only where every op merely enqueues work: a blocking call (a synchronous or
// pageable copy, a host synchronisation) would deadlock on held streams or change what the lesson
// shows, host work is meant to overlap the GPU, and managed memory's driver work depends on when the
// GPU runs. Plain C++ (no CUDA) so that the policy is tested on every preset without a GPU.
#pragma once

#include <cstddef>
#include <string>

#include "engine/workload/workload.h"

namespace streamscope::engine {

// Beyond this many ops per repetition, queueing could fill CUDA's launch queues and block the host
// inside a call while the GPU waits for it.
inline constexpr std::size_t kMaxHeldOps = 256;

struct HoldDecision {
    bool hold = false;
    std::string reason; // why (not), for Trace::metadata["hold"]
};

HoldDecision decideHold(const Workload &workload, std::size_t maxOps = kMaxHeldOps);

} // namespace streamscope::engine
