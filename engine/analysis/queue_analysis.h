// Why an op queued: between being ready to run (its stream reached it and its host call returned) and
// executing, what held it. Read from the execution intervals of one repetition of a trace timed by
// CUPTI (or a profiler); with events there is no queued time to explain.
#pragma once

#include <cstdint>
#include <string>

#include "engine/model/trace.h"

namespace streamscope::engine {

enum class QueueCause : std::uint8_t {
    None, // it did not queue (or the trace cannot tell)
    CopyEngine, // its copy channel was busy with another copy, or its direction of the host link
    HardwareQueue, // false serialisation: it started the moment an op of another stream finished, while
                   // its own stream had nothing pending: the two streams share a hardware queue
    GpuBusy, // other work occupied the GPU
    Latency, // a short wait with nothing else running in it: the GPU starting the op once its
             // stream was ready (launch and cross-engine dependency latency)
};

struct QueueExplanation {
    QueueCause cause = QueueCause::None;
    std::int64_t queuedNs = 0;
    int blockerOp = -1; // index into the repetition's ops: the op it waited behind, -1 if none
    std::string text; // one sentence for a tooltip or the details panel
};

// What op `opIndex` of repetition `repetition` waited for. Ops queued for less than `minimumNs` are
// taken as not queued; waits under `latencyNs` that no other op explains are latency.
QueueExplanation explainQueued(const Trace &trace, int repetition, int opIndex, std::int64_t minimumNs = 2'000,
                               std::int64_t latencyNs = 20'000);

std::string_view toString(QueueCause cause);

} // namespace streamscope::engine
