// Shared pieces of the importers (see import_common.h).
#include "engine/formats/import_common.h"

#include "engine/model/errors.h"

#include <algorithm>
#include <limits>
#include <set>

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

} // namespace streamscope::engine
