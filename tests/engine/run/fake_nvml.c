// A fake libnvidia-ml.so.1 for tst_topology: two GPUs (0000:05:00.0 and 0000:06:00.0) linked as
// $STREAMSCOPE_FAKE_NVML says: "switch" (18 NVLink 4.0 links each into NVSwitches, NVLink P2P between
// them: HGX H200), "bridge" (4 links straight to each other), "pcie" (no NVLink), "initfail" (nvmlInit_v2
// fails), "nohandle" (the second GPU's handle cannot be found), "p2perror" (nvmlDeviceGetP2PStatus fails).
// C, as the real library is, with the C ABI of NVIDIA's nvml.h: enums are ints, handles opaque pointers.
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct FakeDevice {
    int index;
} FakeDevice;
static FakeDevice g_devices[2] = {{0}, {1}};
static const char *const kBusIds[2] = {"00000000:05:00.0", "00000000:06:00.0"};

static int mode(const char *name)
{
    const char *m = getenv("STREAMSCOPE_FAKE_NVML");
    return m && strcmp(m, name) == 0;
}

enum { kSuccess = 0, kInvalidArgument = 2, kNotSupported = 3, kNotFound = 6, kDriverNotLoaded = 9, kUnknown = 999 };

typedef struct PciInfo {
    char busIdLegacy[16];
    unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} PciInfo;

__attribute__((visibility("default"))) int nvmlInit_v2(void)
{
    return mode("initfail") ? kDriverNotLoaded : kSuccess;
}
__attribute__((visibility("default"))) int nvmlShutdown(void)
{
    return kSuccess;
}
__attribute__((visibility("default"))) const char *nvmlErrorString(int r)
{
    switch (r) {
    case kDriverNotLoaded: return "Driver Not Loaded";
    case kNotFound: return "Not Found";
    case kUnknown: return "Unknown Error";
    default: return "Fake Error";
    }
}
__attribute__((visibility("default"))) int nvmlDeviceGetHandleByPciBusId_v2(const char *busId, FakeDevice **device)
{
    for (int i = 0; i < 2; ++i) {
        // CUDA writes a 4-digit domain, NVML 8: compare from the bus on.
        if (strcasecmp(busId + strlen(busId) - 7, kBusIds[i] + strlen(kBusIds[i]) - 7) == 0) {
            if (i == 1 && mode("nohandle"))
                return kNotFound;
            *device = &g_devices[i];
            return kSuccess;
        }
    }
    return kNotFound;
}
__attribute__((visibility("default"))) int nvmlDeviceGetNvLinkState(FakeDevice *device, unsigned link, int *active)
{
    (void)device;
    if (mode("pcie"))
        return kNotSupported;
    const unsigned links = mode("bridge") ? 4 : 18;
    if (link >= links)
        return kInvalidArgument;
    *active = 1;
    return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetNvLinkVersion(FakeDevice *device, unsigned link,
                                                                      unsigned *version)
{
    (void)device;
    (void)link;
    *version = 6; // NVML_NVLINK_VERSION_4_0
    return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetNvLinkRemotePciInfo_v2(FakeDevice *device, unsigned link,
                                                                               PciInfo *pci)
{
    (void)link;
    memset(pci, 0, sizeof *pci);
    const char *remote = mode("bridge") ? kBusIds[1 - device->index] : "00000000:A1:00.0";
    strncpy(pci->busId, remote, sizeof pci->busId - 1);
    return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetNvLinkRemoteDeviceType(FakeDevice *device, unsigned link,
                                                                               int *type)
{
    (void)device;
    (void)link;
    *type = mode("bridge") ? 0 : 2; // GPU : SWITCH
    return kSuccess;
}
__attribute__((visibility("default"))) int nvmlDeviceGetP2PStatus(FakeDevice *a, FakeDevice *b, int index, int *status)
{
    (void)a;
    (void)b;
    if (mode("p2perror"))
        return kUnknown;
    *status = index == 2 && !mode("pcie") ? 0 : 5; // NVLINK: OK, else NOT_SUPPORTED
    return kSuccess;
}
