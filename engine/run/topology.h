// The machine's GPU topology: every CUDA device (DeviceInfo, as the runner records it) and every ordered
// pair of devices: can the first reach the second's memory directly (cudaDeviceCanAccessPeer and
// cudaDeviceGetP2PAttribute: access supported, performance rank, native atomics), over NVLink or PCIe,
// with how many NVLinks and the link's theoretical peak per direction. `streamscope-cli devices` prints
// it; the runner records its peer links in every trace (Trace::peerLinks).
//
// NVLink facts come from NVML, loaded at run time with dlopen("libnvidia-ml.so.1") and never linked,
// so that the binaries start on machines without the NVIDIA driver (CI, laptops). Without NVML the link
// type is LinkType::Unknown and Topology::linkNote says why.
//
// queryTopology and queryPeerLinks are built from topology_cuda.cpp with the CUDA toolkit and from
// topology_nocuda.cpp without it (then they throw Error{NoGpu} saying this build has no CUDA). The rest
// is plain C++ (topology.cpp, nvml_links.cpp), tested without a GPU (NVML through a fake library).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/trace.h"
#include "engine/workload/workload.h"

namespace streamscope::engine {

// One ordered pair of devices (src != dst): the trace's PeerLink and what only `devices` shows.
struct PeerPair {
    PeerLink link;
    bool nativeAtomics = false; // cudaDevP2PAttrNativeAtomicSupported
    bool canAccessPeer = false; // cudaDeviceCanAccessPeer (agrees with link.accessSupported on a sane driver)
};

struct Topology {
    std::vector<DeviceInfo> devices; // by index
    std::vector<PeerPair> pairs; // every ordered pair src != dst, by src then dst
    // Why link types are unknown or incomplete (NVML absent, or a call that failed, named with its error);
    // empty when NVML answered for every device.
    std::string linkNote;

    std::vector<PeerLink> peerLinks() const;
};

// Every device and every pair. Throws Error{NoGpu} (no driver, no device, a build without CUDA) or
// Error{Cuda} naming the call that failed.
Topology queryTopology();
// The pairs of `devices` (as listDevices() returned them) as the trace records them; `linkNote`, when
// given, receives Topology::linkNote. Throws as queryTopology does.
std::vector<PeerLink> queryPeerLinks(const std::vector<DeviceInfo> &devices, std::string *linkNote = nullptr);

// ---------------------------------------------------------------------------------------------------
// Plain parts, tested without a GPU or NVML.

// Per-direction bandwidth of one NVLink in GB/s (1e9 bytes/s) for NVML's nvmlNvlinkVersion_t value
// (nvmlDeviceGetNvLinkVersion returns that enum, not the generation: 4.0 is 6); 0 for a version this
// build does not know.
double nvlinkLinkGBs(unsigned nvmlVersion);

// A GEMM's dense TFLOP/s peak at the SM clock the device reports (DeviceInfo::smClockKHz), where known:
// per SM and clock, 16-bit operands do 4,096 operations on the tensor cores of Hopper (cc 9.0) and 2,048 on
// Ampere (8.0); TF32 half that, FP8 twice (Hopper), FP32 without tensor cores 256 (Hopper) or 128 (Ampere).
// 0 = not known. A measured rate above it is a timing error.
double gemmPeakTflops(const DeviceInfo &d, GemmDtype dtype);
// The generation as people name it ("4.0") for the same value; empty when unknown.
std::string nvlinkVersionName(unsigned nvmlVersion);

// One NVLink of a device as NVML reports it.
struct NvLinkPort {
    enum class Remote { Gpu, Switch, Other };
    unsigned version = 0; // nvmlNvlinkVersion_t
    Remote remote = Remote::Other;
    std::string remoteBusId; // of the device at the other end ("00000000:3B:00.0")
};

// The active NVLinks of one device; `known` is false where NVML could not say.
struct DeviceNvLinks {
    bool known = false;
    std::vector<NvLinkPort> active;
};

// What joins `src` to `dst`: links straight to the other GPU (an NVLink bridge, or GPUs wired to each
// other), else links into a shared NVSwitch fabric when NVML says NVLink P2P works between them (HGX
// H100/H200: 18 links each into the switches, so a pair has min(18, 18) links), else PCIe. The peak is
// links x nvlinkLinkGBs; over PCIe the slower of the two devices' PCIe links (DeviceInfo::linkPeakGBs).
// Unknown when either side's links are not known, or when both reach switches and NVML could not say
// whether NVLink P2P works between them (`nvlinkP2pOk` empty).
struct LinkFacts {
    LinkType type = LinkType::Unknown;
    int nvlinkCount = 0;
    double peakGBps = 0;
};
LinkFacts linkBetween(const DeviceInfo &src, const DeviceNvLinks &srcLinks, const DeviceInfo &dst,
                      const DeviceNvLinks &dstLinks, std::optional<bool> nvlinkP2pOk);

// NVML's view of each ordered pair (DeviceInfo::index values) of `devices`, in the order given: what
// joins them (linkBetween) from the NVLinks NVML reports for each device. Opens `library` with dlopen and
// closes it after. Where it cannot be opened or initialised every pair is Unknown and *note says why; a
// call that fails leaves the pairs it concerns Unknown and is named in *note with its error.
inline constexpr const char *kNvmlLibrary = "libnvidia-ml.so.1";
std::vector<LinkFacts> nvmlLinkFacts(const std::vector<DeviceInfo> &devices,
                                     const std::vector<std::pair<int, int>> &pairs, std::string *note,
                                     const char *library = kNvmlLibrary);

// PCI bus ids compared as numbers: "0000:3B:00.0" (CUDA) equals "00000000:3b:00.0" (NVML).
bool sameBusId(const std::string &a, const std::string &b);

// The text `streamscope-cli devices` prints: the devices, then the pair matrix (rows: source, columns:
// destination), then the link note.
std::string topologyTable(const Topology &topology);
// The pair matrix alone, for a trace's header (no atomics column: traces do not record it). Empty when
// there are no links.
std::string peerLinkMatrix(const std::vector<DeviceInfo> &devices, const std::vector<PeerLink> &links);
// One link as a cell: "yes, NVLink x18, rank 0, 450 GB/s"; "no, PCIe, rank 1, 63 GB/s"; "yes, link unknown,
// rank 0".
std::string peerLinkCell(const PeerLink &link);

} // namespace streamscope::engine
