// The host link of a GPU as Linux reports it: PCIe generation and width from sysfs
// (/sys/bus/pci/devices/<domain:bus:dev.fn>/current_link_speed and current_link_width), and the
// theoretical per-direction payload peak they allow. Plain C++ so that it is tested without a GPU;
// the CUDA runner fills DeviceInfo with it.
#pragma once

#include <string>
#include <string_view>

namespace streamscope::engine {

struct PcieLink {
    int generation = 0; // 0 = unknown (no sysfs entry, e.g. in some VMs or containers)
    int width = 0; // lanes, 0 = unknown
    double peakGBs = 0; // per direction, 1e9 bytes per second; 0 = unknown
};

// "32.0 GT/s PCIe" (or "32 GT/s") -> 5; 0 when the text is not a known PCIe rate.
int pcieGenerationFromLinkSpeed(std::string_view speed);
// Per-direction payload bandwidth of one lane after line encoding, in GB/s: gen 3 0.985, gen 4 1.969,
// gen 5 3.938, gen 6 7.563 (FLIT); 0 for an unknown generation.
double pcieLaneGBs(int generation);
// Reads the link of the PCI device `busId` ("0000:3B:00.0" as cudaDeviceGetPCIBusId writes it; sysfs
// names are lower-case) under `sysfsDevices`. Missing files give zeros, never an error.
PcieLink readPcieLink(const std::string &busId, const std::string &sysfsDevices = "/sys/bus/pci/devices");

} // namespace streamscope::engine
