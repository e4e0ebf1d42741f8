// The sweep line the analysis draws its profiles from (engine internal): each op in flight on a copy or
// compute engine contributes a +1 edge where its transfer starts and a -1 edge where it ends, carrying
// its achieved GB/s and a tag the caller chooses (its engine class, say). Sorted by time, ends before
// starts at one instant, so back-to-back ops do not count as concurrent and their rates do not add up.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/model/trace.h"

namespace streamscope::engine {

template <typename Tag> struct TransferEdge {
    std::int64_t t;
    int delta;
    Tag tag;
    double gbs;
};

// `tagOf(op)` returns std::optional<Tag>: the op's tag, or nothing to leave it out. Ops without a
// transfer interval (no GPU time, or one that ends before it starts) are left out.
template <typename TagOf> auto transferEdges(const std::vector<OpRecord> &ops, TagOf tagOf)
{
    using Tag = typename decltype(tagOf(std::declval<const OpRecord &>()))::value_type;
    std::vector<TransferEdge<Tag>> edges;
    edges.reserve(ops.size() * 2);
    for (const OpRecord &op : ops) {
        if (!op.hasGpu() || op.transferEndNs() <= op.transferStartNs())
            continue;
        const auto tag = tagOf(op);
        if (!tag)
            continue;
        // A staged (pageable) copy is in flight over its host call as well as its DMA, less any wait for
        // its stream (OpRecord::transferStartNs): the CPU copies through the staging buffer there.
        const double gbs = op.gbPerSecond();
        edges.push_back({op.transferStartNs(), +1, *tag, gbs});
        edges.push_back({op.transferEndNs(), -1, *tag, gbs});
    }
    std::sort(edges.begin(), edges.end(),
              [](const auto &a, const auto &b) { return a.t != b.t ? a.t < b.t : a.delta < b.delta; });
    return edges;
}

} // namespace streamscope::engine
