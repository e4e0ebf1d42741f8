// `streamscope-cli devices --json` (topology_json.h).
#include "engine/formats/topology_json.h"

#include <nlohmann/json.hpp>

#include "engine/formats/native_format.h"

namespace streamscope::engine {

std::string topologyToJson(const std::vector<DeviceInfo> &devices, const std::vector<PeerLink> &links,
                           const std::vector<bool> &nativeAtomics, const std::string &linkNote)
{
    using nlohmann::json;
    json out = json::object();
    out["devices"] = json::parse(devicesToJson(devices));
    out["peer_links"] = json::parse(peerLinksToJson(links));
    for (std::size_t i = 0; i < links.size() && i < nativeAtomics.size(); ++i)
        out["peer_links"][i]["native_atomics"] = bool(nativeAtomics[i]);
    if (!linkNote.empty())
        out["link_note"] = linkNote;
    return out.dump(2);
}

} // namespace streamscope::engine
