// The capture checker (capture_check.h).
#include "engine/workload/capture_check.h"

namespace streamscope::engine {

namespace {

bool pageable(const Workload &w, const std::string &buffer)
{
    const BufferSpec *b = w.findBuffer(buffer);
    return b && b->kind == BufferKind::Pageable;
}

// What capturing the op does, where it cannot be captured as it runs on a stream; empty where it can.
std::string opProblem(const Workload &w, const OpSpec &op)
{
    switch (op.type) {
    case OpType::Copy:
        if (op.api == CopyApi::Sync)
            return "cudaMemcpy is synchronous: issued while the streams are captured, it runs at once on the default "
                   "stream and is not captured (CUDA gives no error), so it would run once, at capture, and in no "
                   "repetition; give it \"api\": \"async\"";
        if (pageable(w, op.src) || pageable(w, op.dst))
            return "a copy of pageable memory is captured without an error, but it no longer measures what it does "
                   "on a stream: there the host waits in the call while the driver stages the bytes through a pinned "
                   "buffer (what the pageable and pinned lessons show), and a graph makes no such call; use pinned "
                   "memory to launch it as a graph";
        return {};
    case OpType::Sync:
        switch (op.syncTarget) {
        case SyncTarget::Stream:
            return "cudaStreamSynchronize inside a capture fails with cudaErrorStreamCaptureUnsupported and "
                   "invalidates the capture: a graph cannot make the host wait; leave it out, or launch on streams";
        case SyncTarget::Event:
            return "cudaEventSynchronize on an event recorded inside a capture fails with cudaErrorCapturedEvent and "
                   "invalidates the capture: a graph cannot make the host wait; leave it out, or launch on streams";
        case SyncTarget::Device:
            return "cudaDeviceSynchronize inside a capture fails with cudaErrorStreamCaptureUnsupported and "
                   "invalidates the capture: a graph cannot make the host wait; leave it out, or launch on streams";
        }
        return {};
    case OpType::HostWork:
        return "host work is not captured (a graph holds GPU work): it would run once, at capture, and in no "
               "repetition";
    case OpType::Prefetch:
        return "cudaMemPrefetchAsync inside a capture fails with cudaErrorStreamCaptureUnsupported and invalidates the "
               "capture";
    case OpType::Advise:
        return "cudaMemAdvise inside a capture fails with cudaErrorStreamCaptureUnsupported and invalidates the "
               "capture "
               "(it is advice to the driver, not work a graph can hold)";
    case OpType::Attach:
        return "cudaStreamAttachMemAsync inside a capture fails with cudaErrorStreamCaptureUnsupported and "
               "invalidates the capture";
    case OpType::Collective:
        return "StreamScope's graph mode does not capture NCCL calls (NCCL can be captured, under rules of its own "
               "for communicators and buffers); launch collectives on streams";
    case OpType::Kernel:
    case OpType::Memset:
    case OpType::EventRecord:
    case OpType::EventWait: return {};
    }
    return {};
}

} // namespace

std::vector<CaptureProblem> captureProblems(const Workload &w)
{
    std::vector<CaptureProblem> out;
    if (w.threadCount() > 1)
        out.push_back({"/threads",
                       {},
                       "a workload launched as a graph is captured by one host thread; this one has "
                           + std::to_string(w.threadCount()) + " (\"threads\"): launch it on streams"});
    if (const std::vector<int> devices = w.usedDevices(); devices.size() > 1)
        out.push_back({"/launch",
                       {},
                       "a workload launched as a graph captures one GPU's streams; this one uses "
                           + std::to_string(devices.size()) + " GPUs: launch it on streams"});
    for (std::size_t s = 0; s < w.streams.size(); ++s) {
        const StreamSpec &stream = w.streams[s];
        if (stream.useDefaultStream && w.defaultStream == DefaultStreamMode::Legacy)
            out.push_back({"/streams/" + std::to_string(s) + "/useDefaultStream", "stream '" + stream.name + "'",
                           "the legacy default stream (cudaStreamLegacy) cannot be captured: give the stream one of "
                           "its own, or \"defaultStream\": \"per-thread\""});
    }
    for (const ScheduledOp &at : w.schedule) {
        const StreamSpec &stream = w.streams[std::size_t(at.stream)];
        const OpSpec &op = stream.ops[std::size_t(at.op)];
        if (std::string message = opProblem(w, op); !message.empty())
            out.push_back({op.jsonPath, opLocation(stream, at.op), std::move(message)});
    }
    return out;
}

} // namespace streamscope::engine
