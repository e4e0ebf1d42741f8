// The machine's topology as `streamscope-cli devices --json` writes it (docs/cli-protocol.md): the
// devices and the peer links exactly as a native trace's header writes them, so that one reader takes
// both, plus what only the live query knows.
#pragma once

#include <string>
#include <vector>

#include "engine/model/trace.h"

namespace streamscope::engine {

// {"devices": [...], "peer_links": [...], "link_note": "..."}: each link as the native header writes it,
// with "native_atomics" from `nativeAtomics` (one per link; missing entries write nothing); "link_note"
// only when not empty. Indented by two spaces.
std::string topologyToJson(const std::vector<DeviceInfo> &devices, const std::vector<PeerLink> &links,
                           const std::vector<bool> &nativeAtomics, const std::string &linkNote);

} // namespace streamscope::engine
