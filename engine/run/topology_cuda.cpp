// The topology query (topology.h) with CUDA: peer access, performance rank and atomics for every ordered
// pair from the CUDA runtime, the link from NVML (nvml_links.cpp).
#include "engine/run/topology.h"

#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "engine/model/errors.h"
#include "engine/run/cuda_check.h"
#include "engine/run/runner.h"

namespace streamscope::engine {

namespace {

// CUDA's view of every ordered pair (access, rank, atomics), then NVML's (the link).
std::vector<PeerPair> queryPairs(const std::vector<DeviceInfo> &devices, std::string *note)
{
    std::vector<PeerPair> pairs;
    const std::size_t n = devices.size();
    if (n < 2)
        return pairs;
    for (const DeviceInfo &s : devices) {
        for (const DeviceInfo &d : devices) {
            if (s.index == d.index)
                continue;
            const std::string context = "device " + std::to_string(s.index) + " to device " + std::to_string(d.index);
            PeerPair pair;
            pair.link.src = s.index;
            pair.link.dst = d.index;
            int value = 0;
            STREAMSCOPE_CUDA_CHECK(context, cudaDeviceCanAccessPeer(&value, s.index, d.index));
            pair.canAccessPeer = value != 0;
            STREAMSCOPE_CUDA_CHECK(context,
                                   cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrAccessSupported, s.index, d.index));
            pair.link.accessSupported = value != 0;
            STREAMSCOPE_CUDA_CHECK(context,
                                   cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrPerformanceRank, s.index, d.index));
            pair.link.performanceRank = value;
            STREAMSCOPE_CUDA_CHECK(
                context, cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrNativeAtomicSupported, s.index, d.index));
            pair.nativeAtomics = value != 0;
            pairs.push_back(pair);
        }
    }

    std::vector<std::pair<int, int>> ends;
    ends.reserve(pairs.size());
    for (const PeerPair &p : pairs)
        ends.emplace_back(p.link.src, p.link.dst);
    const std::vector<LinkFacts> facts = nvmlLinkFacts(devices, ends, note);
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        pairs[i].link.link = facts[i].type;
        pairs[i].link.nvlinkCount = facts[i].nvlinkCount;
        pairs[i].link.peakGBps = facts[i].peakGBps;
    }
    return pairs;
}

} // namespace

std::vector<PeerLink> queryPeerLinks(const std::vector<DeviceInfo> &devices, std::string *linkNote)
{
    Topology t;
    t.pairs = queryPairs(devices, &t.linkNote);
    if (linkNote)
        *linkNote = t.linkNote;
    return t.peerLinks();
}

Topology queryTopology()
{
    Topology t;
    t.devices = listDevices();
    t.pairs = queryPairs(t.devices, &t.linkNote);
    return t;
}

} // namespace streamscope::engine
