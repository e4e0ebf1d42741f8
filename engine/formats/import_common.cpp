// Shared pieces of the importers (see import_common.h).
#include "engine/formats/import_common.h"

#include <algorithm>
#include <set>

namespace streamscope::engine {

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
