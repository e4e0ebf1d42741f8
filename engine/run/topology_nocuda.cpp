// The topology query of a build without the CUDA toolkit (topology.h): it says so.
#include "engine/model/errors.h"
#include "engine/run/topology.h"

namespace streamscope::engine {

namespace {
[[noreturn]] void noCuda()
{
    throw Error(ErrorKind::NoGpu, "this build has no CUDA (no CUDA toolkit at build time): it cannot list devices or "
                                  "their links; rebuild with the CUDA toolkit installed");
}
} // namespace

std::vector<PeerLink> queryPeerLinks(const std::vector<DeviceInfo> &, std::string *)
{
    noCuda();
}
Topology queryTopology()
{
    noCuda();
}

} // namespace streamscope::engine
