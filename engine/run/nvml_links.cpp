// NVLink facts from NVML (topology.h): NVML opened at run time, never linked.
//
// NVML is never linked: libnvidia-ml.so.1 comes with the driver, and a binary linked against it would
// not start where there is none (CI, a laptop opening traces). It is opened with dlopen when a query
// needs it and closed after. Its declarations are nvml.h's where the build has that header (the
// toolkit's cuda_nvml_dev component; the calls below then compile against NVIDIA's own declarations),
// else the few this file uses, copied from nvml.h (API version 13): the ABI libnvidia-ml.so.1 has kept
// since these functions appeared. Plain C++ (no CUDA), so tests drive it with a fake library.
#include "engine/run/topology.h"

#include <dlfcn.h>

#include <optional>
#include <string>
#include <vector>

#if __has_include(<nvml.h>)
#include <nvml.h>
#define STREAMSCOPE_HAVE_NVML_H 1
#else
extern "C" {
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef enum nvmlReturn_enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_UNKNOWN = 999, // so that every code the library returns is a value of the enum
} nvmlReturn_t;
typedef enum nvmlEnableState_enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 } nvmlEnableState_t;
typedef enum nvmlIntNvLinkDeviceType_enum {
    NVML_NVLINK_DEVICE_TYPE_GPU = 0x00,
    NVML_NVLINK_DEVICE_TYPE_IBMNPU = 0x01,
    NVML_NVLINK_DEVICE_TYPE_SWITCH = 0x02,
    NVML_NVLINK_DEVICE_TYPE_UNKNOWN = 0xFF
} nvmlIntNvLinkDeviceType_t;
typedef enum nvmlGpuP2PStatus_enum { NVML_P2P_STATUS_OK = 0, NVML_P2P_STATUS_UNKNOWN = 6 } nvmlGpuP2PStatus_t;
typedef enum nvmlGpuP2PCapsIndex_enum { NVML_P2P_CAPS_INDEX_NVLINK = 2 } nvmlGpuP2PCapsIndex_t;
typedef struct nvmlPciInfo_st {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;
#define NVML_NVLINK_MAX_LINKS 36
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive);
nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link, unsigned int *version);
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
                                                 nvmlIntNvLinkDeviceType_t *pNvLinkDeviceType);
nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2, nvmlGpuP2PCapsIndex_t p2pIndex,
                                    nvmlGpuP2PStatus_t *p2pStatus);
}
#endif

namespace streamscope::engine {

namespace {

// NVML, opened for one query. Each entry point is looked up by name; one the driver lacks stays null
// and the query says which.
class Nvml {
public:
    explicit Nvml(const char *library)
    {
        m_lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
        if (!m_lib) {
            const char *why = dlerror();
            m_error = std::string("NVML is not available, so the link types are unknown (dlopen: ")
                      + (why ? why : library) + ")";
            return;
        }
        load(init, "nvmlInit_v2");
        load(shutdown, "nvmlShutdown");
        load(errorString, "nvmlErrorString");
        load(handleByBusId, "nvmlDeviceGetHandleByPciBusId_v2");
        load(linkState, "nvmlDeviceGetNvLinkState");
        load(linkVersion, "nvmlDeviceGetNvLinkVersion");
        load(remotePci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
        load(remoteType, "nvmlDeviceGetNvLinkRemoteDeviceType");
        load(p2pStatus, "nvmlDeviceGetP2PStatus");
        if (!init || !shutdown || !handleByBusId || !linkState || !remotePci) {
            m_error = std::string("NVML (") + library
                      + ") lacks the NVLink queries, so the link types are unknown (driver too old)";
            return;
        }
        const nvmlReturn_t r = init();
        if (r != NVML_SUCCESS) {
            m_error =
                "NVML could not be initialised, so the link types are unknown (" + failure("nvmlInit_v2", r) + ")";
            return;
        }
        m_initialised = true;
    }
    ~Nvml()
    {
        if (m_initialised)
            shutdown();
        if (m_lib)
            dlclose(m_lib);
    }
    Nvml(const Nvml &) = delete;
    Nvml &operator=(const Nvml &) = delete;

    bool usable() const { return m_initialised; }
    const std::string &error() const { return m_error; }

    // "nvmlDeviceGetNvLinkState: NVML_ERROR_... code 3: Not Supported"
    std::string failure(const std::string &call, nvmlReturn_t r) const
    {
        return call + ": " + (errorString ? errorString(r) : "error") + " (NVML code " + std::to_string(int(r)) + ")";
    }

    decltype(&nvmlInit_v2) init = nullptr;
    decltype(&nvmlShutdown) shutdown = nullptr;
    decltype(&nvmlErrorString) errorString = nullptr;
    decltype(&nvmlDeviceGetHandleByPciBusId_v2) handleByBusId = nullptr;
    decltype(&nvmlDeviceGetNvLinkState) linkState = nullptr;
    decltype(&nvmlDeviceGetNvLinkVersion) linkVersion = nullptr;
    decltype(&nvmlDeviceGetNvLinkRemotePciInfo_v2) remotePci = nullptr;
    decltype(&nvmlDeviceGetNvLinkRemoteDeviceType) remoteType = nullptr;
    decltype(&nvmlDeviceGetP2PStatus) p2pStatus = nullptr;

private:
    template <typename F> void load(F &f, const char *name) { f = reinterpret_cast<F>(dlsym(m_lib, name)); }

    void *m_lib = nullptr;
    bool m_initialised = false;
    std::string m_error;
};

// The active NVLinks of one device. Not `known` (with the failed call in *note) where NVML could not say.
DeviceNvLinks readNvLinks(const Nvml &nvml, nvmlDevice_t device, const DeviceInfo &info, std::string *note)
{
    DeviceNvLinks links;
    const std::string where = "device " + std::to_string(info.index) + ": ";
    for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
        nvmlEnableState_t state = NVML_FEATURE_DISABLED;
        const nvmlReturn_t r = nvml.linkState(device, link, &state);
        // Not supported: the device has no NVLink (link 0) or no more links. An invalid argument: past the
        // device's last link (drivers whose NVML_NVLINK_MAX_LINKS is smaller than this header's).
        if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_INVALID_ARGUMENT)
            break;
        if (r != NVML_SUCCESS) {
            *note = where + nvml.failure("nvmlDeviceGetNvLinkState(link " + std::to_string(link) + ")", r);
            return links;
        }
        if (state != NVML_FEATURE_ENABLED)
            continue;
        NvLinkPort port;
        if (nvml.linkVersion) {
            const nvmlReturn_t v = nvml.linkVersion(device, link, &port.version);
            if (v != NVML_SUCCESS) {
                *note = where + nvml.failure("nvmlDeviceGetNvLinkVersion(link " + std::to_string(link) + ")", v)
                        + "; the NVLink peaks are unknown";
                port.version = 0;
            }
        }
        nvmlPciInfo_t pci{};
        const nvmlReturn_t p = nvml.remotePci(device, link, &pci);
        if (p != NVML_SUCCESS) {
            *note = where + nvml.failure("nvmlDeviceGetNvLinkRemotePciInfo_v2(link " + std::to_string(link) + ")", p);
            return links;
        }
        port.remoteBusId = pci.busId;
        // Without the remote type (drivers before 450): a link whose far end is one of the GPUs is a GPU link;
        // anything else is counted as a switch only if NVML says P2P over NVLink works (linkBetween).
        port.remote = NvLinkPort::Remote::Other;
        if (nvml.remoteType) {
            nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
            const nvmlReturn_t t = nvml.remoteType(device, link, &type);
            if (t == NVML_SUCCESS && type == NVML_NVLINK_DEVICE_TYPE_GPU)
                port.remote = NvLinkPort::Remote::Gpu;
            else if (t == NVML_SUCCESS && type == NVML_NVLINK_DEVICE_TYPE_SWITCH)
                port.remote = NvLinkPort::Remote::Switch;
            else if (t != NVML_SUCCESS && t != NVML_ERROR_NOT_SUPPORTED) {
                *note =
                    where + nvml.failure("nvmlDeviceGetNvLinkRemoteDeviceType(link " + std::to_string(link) + ")", t);
                return links;
            }
        } else {
            port.remote = NvLinkPort::Remote::Gpu; // matched against the GPUs' bus ids in linkBetween
        }
        links.active.push_back(std::move(port));
    }
    links.known = true;
    return links;
}

} // namespace

std::vector<LinkFacts> nvmlLinkFacts(const std::vector<DeviceInfo> &devices,
                                     const std::vector<std::pair<int, int>> &pairs, std::string *note,
                                     const char *library)
{
    std::vector<LinkFacts> facts(pairs.size());
    if (pairs.empty())
        return facts;
    const std::size_t n = devices.size();
    const Nvml nvml(library);
    if (!nvml.usable()) {
        *note = nvml.error();
        return facts;
    }
    // nvmlDevice_t is opaque (a pointer in NVIDIA's header, a struct in some copies of it): kept with a flag.
    std::vector<nvmlDevice_t> handles(n, nvmlDevice_t{});
    std::vector<char> haveHandle(n, 0);
    std::vector<DeviceNvLinks> links(n);
    for (std::size_t i = 0; i < n; ++i) {
        const nvmlReturn_t r = nvml.handleByBusId(devices[i].pciBusId.c_str(), &handles[i]);
        if (r != NVML_SUCCESS) {
            note->append(note->empty() ? "" : "; ")
                .append("device " + std::to_string(devices[i].index) + ": "
                        + nvml.failure("nvmlDeviceGetHandleByPciBusId_v2(" + devices[i].pciBusId + ")", r));
            continue;
        }
        haveHandle[i] = 1;
        std::string why;
        links[i] = readNvLinks(nvml, handles[i], devices[i], &why);
        if (!why.empty())
            note->append(note->empty() ? "" : "; ").append(why);
    }
    auto position = [&](int index) {
        for (std::size_t i = 0; i < n; ++i)
            if (devices[i].index == index)
                return i;
        return n;
    };
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const auto [src, dst] = pairs[k];
        const std::size_t s = position(src), d = position(dst);
        if (s == n || d == n)
            continue; // not a device of `devices`: unknown
        std::optional<bool> nvlinkP2p; // empty: NVML could not say
        if (nvml.p2pStatus && haveHandle[s] && haveHandle[d]) {
            nvmlGpuP2PStatus_t status = NVML_P2P_STATUS_UNKNOWN;
            const nvmlReturn_t r = nvml.p2pStatus(handles[s], handles[d], NVML_P2P_CAPS_INDEX_NVLINK, &status);
            if (r == NVML_SUCCESS)
                nvlinkP2p = status == NVML_P2P_STATUS_OK;
            else if (r == NVML_ERROR_NOT_SUPPORTED)
                nvlinkP2p = false;
            else
                note->append(note->empty() ? "" : "; ")
                    .append("device " + std::to_string(src) + " to device " + std::to_string(dst) + ": "
                            + nvml.failure("nvmlDeviceGetP2PStatus(NVLINK)", r));
        }
        facts[k] = linkBetween(devices[s], links[s], devices[d], links[d], nvlinkP2p);
    }
    return facts;
}

} // namespace streamscope::engine
