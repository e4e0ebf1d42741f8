// An op's engine and host blocking, and interval unions (see op_intervals.h).
#include "engine/analysis/op_intervals.h"

#include <algorithm>
#include <limits>

namespace streamscope::engine {

namespace {
constexpr std::int64_t kBlockingMinNs = 5'000; // below this a host call is launch cost, not blocking
} // namespace

EngineClass engineClassOf(const OpRecord &op)
{
    return op.hasGpu() ? opKindInfo(op.kind).engine : EngineClass::None;
}

bool isHostBlocking(const OpRecord &op)
{
    if (!op.hasHost() || op.kind == OpKind::HostWork)
        return false;
    const std::int64_t host = op.hostDurationNs();
    if (host < kBlockingMinNs)
        return false;
    if (op.kind == OpKind::HostSync)
        return true;
    if (!op.hasGpu())
        return false;
    // A call as long as half its GPU part, that returned only once that part was (nearly) done: it waited
    // for the work. Durations alone are not enough: a 1 MiB cudaMemcpyAsync whose call took 12 us beside
    // its 20 us copy returned while the copy still ran, and was marked blocking. "Nearly": the last
    // quarter, or 5 us, of the GPU part may follow the call's return (a staged copy's last DMA).
    const std::int64_t gpu = op.gpuDurationNs();
    // A kernel shorter than half its own launch call ran and ended inside the call (2 us kernels launched in 7 us
    // each, the launch-cost lesson): the call did not wait for it.
    if (op.kind == OpKind::Kernel && 2 * gpu < host)
        return false;
    const std::int64_t slack = std::max<std::int64_t>(kBlockingMinNs, gpu / 4);
    return host >= gpu / 2 + gpu % 2 && op.hostEndNs >= saturatingSub(op.gpuEndNs, slack);
}

std::int64_t unionLength(std::vector<std::pair<std::int64_t, std::int64_t>> intervals)
{
    std::sort(intervals.begin(), intervals.end());
    std::int64_t total = 0;
    std::int64_t curStart = 0, curEnd = std::numeric_limits<std::int64_t>::min();
    for (const auto &[s, e] : intervals) {
        if (e <= s)
            continue;
        if (s > curEnd) {
            if (curEnd > curStart)
                total = saturatingAdd(total, saturatingSub(curEnd, curStart));
            curStart = s;
            curEnd = e;
        } else {
            curEnd = std::max(curEnd, e);
        }
    }
    if (curEnd > curStart)
        total = saturatingAdd(total, saturatingSub(curEnd, curStart));
    return total;
}

} // namespace streamscope::engine
