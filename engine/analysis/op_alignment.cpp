// alignOps(): the three matching passes over lanes of ops.
#include "engine/analysis/op_alignment.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace streamscope::engine {

std::string_view toString(MatchMethod method)
{
    return method == MatchMethod::ByName ? "name" : "order";
}

OpAlignment alignOps(const std::vector<AlignItem> &a, const std::vector<AlignItem> &b, const AlignOptions &options)
{
    OpAlignment result;
    result.a.resize(a.size());
    result.partnerOfB.assign(b.size(), -1);
    auto link = [&](std::size_t i, std::size_t j, MatchMethod method, bool across) {
        result.a[i].b = static_cast<int>(j);
        result.a[i].method = method;
        result.a[i].acrossLanes = across;
        result.partnerOfB[j] = static_cast<int>(i);
    };
    // Each side's items by lane number, then position (a stable sort keeps the given order in a lane).
    auto byLane = [](const std::vector<AlignItem> &items) {
        std::vector<std::size_t> order(items.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t x, std::size_t y) { return items[x].lane < items[y].lane; });
        return order;
    };
    const std::vector<std::size_t> orderA = byLane(a), orderB = byLane(b);

    // Pass 1: name and occurrence within the lane.
    std::map<std::pair<int, std::string_view>, std::vector<std::size_t>> bByLaneName;
    for (std::size_t j : orderB)
        bByLaneName[{b[j].lane, b[j].name}].push_back(j);
    std::map<std::pair<int, std::string_view>, int> seen;
    for (std::size_t i : orderA) {
        const int occurrence = seen[{a[i].lane, a[i].name}]++;
        result.a[i].occurrence = occurrence;
        const auto it = bByLaneName.find({a[i].lane, a[i].name});
        if (it != bByLaneName.end() && occurrence < static_cast<int>(it->second.size()))
            link(i, it->second[static_cast<std::size_t>(occurrence)], MatchMethod::ByName, false);
    }

    // Pass 2: by name across lanes, among the leftovers.
    if (options.acrossLanes) {
        std::map<std::string_view, std::vector<std::size_t>> leftoverB;
        for (std::size_t j : orderB)
            if (result.partnerOfB[j] < 0)
                leftoverB[b[j].name].push_back(j);
        std::map<std::string_view, std::size_t> next;
        for (std::size_t i : orderA) {
            if (result.a[i].b >= 0)
                continue;
            const auto it = leftoverB.find(a[i].name);
            if (it == leftoverB.end())
                continue;
            std::size_t &n = next[a[i].name];
            if (n < it->second.size())
                link(i, it->second[n++], MatchMethod::ByName, true);
        }
    }

    // Pass 3: in order within the lane (and identity), among the leftovers.
    if (options.order != OrderFallback::None) {
        const bool identity = options.order == OrderFallback::InLaneSameIdentity;
        using Key = std::tuple<int, OpKind, std::uint64_t>;
        auto key = [&](const AlignItem &item) {
            return identity ? Key{item.lane, item.kind, item.bytes} : Key{item.lane, OpKind::Other, 0};
        };
        // Only what has a size can be told apart without a name.
        auto pairable = [&](const AlignItem &item) {
            return !identity || isCopy(item.kind) || item.kind == OpKind::Memset;
        };
        std::map<Key, std::vector<std::size_t>> restB;
        for (std::size_t j : orderB)
            if (result.partnerOfB[j] < 0 && pairable(b[j]))
                restB[key(b[j])].push_back(j);
        std::map<Key, std::size_t> used;
        for (std::size_t i : orderA) {
            if (result.a[i].b >= 0 || !pairable(a[i]))
                continue;
            const auto it = restB.find(key(a[i]));
            if (it == restB.end())
                continue;
            std::size_t &u = used[key(a[i])];
            if (u < it->second.size())
                link(i, it->second[u++], MatchMethod::ByOrder, false);
        }
    }
    return result;
}

} // namespace streamscope::engine
