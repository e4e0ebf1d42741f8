// The runner's hold policy (see hold_policy.h).
#include "engine/run/hold_policy.h"

#include "engine/workload/kernel_types.h"

namespace streamscope::engine {

namespace {
// Memory the host or the driver takes part in copying or touching.
bool involvesHost(const Workload &w, const std::string &buffer)
{
    const BufferSpec *b = w.findBuffer(buffer);
    return b && (b->kind == BufferKind::Pageable || b->kind == BufferKind::Managed);
}
} // namespace

HoldDecision decideHold(const Workload &w, std::size_t maxOps)
{
    auto no = [](std::string reason) { return HoldDecision{false, std::move(reason)}; };
    if (w.launch == LaunchMode::Graph)
        return no("a graph is launched by one call, whose cost is part of what the run shows");
    if (w.opCount() > maxOps)
        return no("more than " + std::to_string(maxOps) + " ops per repetition");
    if (w.threadCount() > 1)
        for (const StreamSpec &s : w.streams)
            if (s.useDefaultStream)
                return no("the default streams of several host threads are each thread's own");
    for (const StreamSpec &s : w.streams) {
        for (const OpSpec &op : s.ops) {
            switch (op.type) {
            case OpType::Copy:
                if (op.api == CopyApi::Sync)
                    return no("synchronous copies block the host");
                if (op.direction == CopyDirection::H2H)
                    return no("host-to-host copies run on the host");
                if (involvesHost(w, op.src) || involvesHost(w, op.dst))
                    return no("copies from or to pageable or managed memory involve the host");
                if (op.direction == CopyDirection::P2P && w.peerAccess == PeerAccess::Off)
                    return no("peer copies without peer access are staged through the host by the driver");
                break;
            case OpType::Kernel:
                if (takes(op.kernelType, KernelField::BufferSpan) && involvesHost(w, op.buffer))
                    return no("kernels on managed or pageable memory make the driver migrate pages");
                break;
            case OpType::Memset:
                if (involvesHost(w, op.buffer))
                    return no("memsets of managed or pageable memory make the driver migrate pages");
                break;
            case OpType::EventRecord:
            case OpType::EventWait: break;
            case OpType::Prefetch:
            case OpType::Advise:
            case OpType::Attach: return no("managed memory operations involve the host");
            case OpType::Sync: return no("host synchronisations wait for the GPU");
            case OpType::HostWork: return no("host work is meant to overlap the GPU");
            case OpType::Collective:
                return no("NCCL's calls may wait on the host for the other GPUs' (its connections are made in "
                          "the first one)");
            }
        }
    }
    return {true, "every op only enqueues work"};
}

} // namespace streamscope::engine
