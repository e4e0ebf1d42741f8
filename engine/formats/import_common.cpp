// Shared pieces of the importers (see import_common.h).
#include "engine/formats/import_common.h"

#include "engine/model/errors.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string_view>

namespace streamscope::engine {

std::string deviceIdProblem(std::int64_t id)
{
    if (id >= std::numeric_limits<int>::min() && id <= kMaxDeviceId)
        return {};
    const bool high = id > kMaxDeviceId;
    return "device id " + std::to_string(id) + " is " + (high ? "beyond " : "below ")
           + std::to_string(high ? kMaxDeviceId : std::int64_t(std::numeric_limits<int>::min())) + ", the "
           + (high ? "largest" : "smallest") + " StreamScope holds (docs/formats.md, \"Limits\")";
}

std::vector<int> addStreamsInOrder(Trace &trace, const std::vector<ImportedStream> &keys,
                                   const std::function<std::string(std::int64_t, std::int64_t)> &baseName)
{
    std::vector<int> order(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<int>(i);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
    std::set<std::int64_t> devices;
    for (const auto &k : keys)
        devices.insert(k.first);
    std::vector<int> index(keys.size());
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
        const auto [device, stream] = keys[static_cast<std::size_t>(order[pos])];
        index[static_cast<std::size_t>(order[pos])] = static_cast<int>(trace.streams.size());
        StreamInfo s;
        if (const std::string problem = deviceIdProblem(device); !problem.empty())
            throw Error(ErrorKind::InvalidInput, problem); // the readers name the place first: not reached
        s.device = static_cast<int>(device);
        s.nativeId = stream;
        std::string name = baseName ? baseName(device, stream) : std::string();
        if (name.empty())
            name = "stream " + std::to_string(stream);
        s.name = devices.size() > 1 ? "GPU " + std::to_string(device) + " " + name : name;
        trace.streams.push_back(std::move(s));
    }
    return index;
}

namespace {

bool namedForNccl(std::string_view name)
{
    return name.size() >= 4 && (name[0] == 'n' || name[0] == 'N') && (name[1] == 'c' || name[1] == 'C')
           && (name[2] == 'c' || name[2] == 'C') && (name[3] == 'l' || name[3] == 'L');
}

} // namespace

std::size_t classifyCollectivesByRange(Trace &trace)
{
    std::size_t classified = 0;
    for (Repetition &rep : trace.repetitions) {
        if (rep.hostRanges.empty())
            continue;
        // Whether each range is NCCL's or inside one of its thread's: one sweep over the ranges (sorted by
        // start, the enclosing one first) with a stack of the open ranges per thread.
        std::vector<char> nccl(rep.hostRanges.size(), 0);
        std::map<std::int32_t, std::vector<std::size_t>> open;
        for (std::size_t i = 0; i < rep.hostRanges.size(); ++i) {
            const HostRange &r = rep.hostRanges[i];
            std::vector<std::size_t> &stack = open[r.hostThread];
            while (!stack.empty() && rep.hostRanges[stack.back()].endNs <= r.startNs)
                stack.pop_back();
            nccl[i] = char((!stack.empty() && nccl[stack.back()]) || namedForNccl(trace.string(r.nameId)));
            stack.push_back(i);
        }
        for (OpRecord &op : rep.ops)
            if (op.kind == OpKind::Kernel && op.hostRange >= 0 && std::size_t(op.hostRange) < nccl.size()
                && nccl[std::size_t(op.hostRange)]) {
                op.kind = OpKind::Collective;
                classified += 1;
            }
    }
    if (classified > 0)
        trace.metadata["communication"] =
            std::to_string(classified)
            + " kernels launched inside NCCL's host ranges (\"nccl...\": PyTorch's ProcessGroupNCCL, NCCL's or "
              "StreamScope's NVTX) are collectives, classified by that call, not by their names";
    return classified;
}

} // namespace streamscope::engine
