// The capture checker: what a workload launched as a CUDA graph ("launch": "graph") cannot hold, or would hold
// changed, each named with its place and what CUDA does with it. The runner captures a repetition's ops with
// stream capture (cudaStreamBeginCapture in thread-local mode on an origin stream, every workload stream forked
// from it and joined back); what the capture meets is:
//  - a call that fails inside a capture and invalidates it: host synchronisation (cudaStreamSynchronize and
//    cudaDeviceSynchronize: cudaErrorStreamCaptureUnsupported; cudaEventSynchronize on a captured event:
//    cudaErrorCapturedEvent), managed-memory prefetch, advice and attach (cudaErrorStreamCaptureUnsupported);
//  - a call that succeeds but is not captured: a synchronous cudaMemcpy runs at once on the default stream,
//    outside the graph; host work runs once, at capture;
//  - a call captured without an error that no longer measures what it did: a copy of pageable memory (the host
//    no longer waits in the copy's call while the driver stages it);
//  - what StreamScope's graph mode leaves out: the legacy default stream (cudaStreamLegacy cannot be captured),
//    several host threads or GPUs (one thread captures one GPU's streams), NCCL collectives.
// Each was checked on an H200 with CUDA 13.0 (docs/measurement.md, "Launching as a graph"). The parser reports
// them as issues of the workload; the run plan refuses a workload that has any.
#pragma once

#include <string>
#include <vector>

#include "engine/workload/workload.h"

namespace streamscope::engine {

struct CaptureProblem {
    std::string jsonPath; // the op (/streams/1/ops/3), its stream's key, or the workload's ("/threads")
    std::string where; // for messages without a file: "stream 's0' op 3 (/streams/0/ops/3, line 12)", or ""
    std::string message; // what CUDA does with it in a capture, and what to do instead
};

// Every problem, workload-wide first, then the ops' in issue order. Empty: the workload can be captured.
std::vector<CaptureProblem> captureProblems(const Workload &workload);

} // namespace streamscope::engine
