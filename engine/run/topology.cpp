// The plain parts of the topology (topology.h): NVLink rates, what joins two devices, and the tables.
#include "engine/run/topology.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "engine/model/units.h"

namespace streamscope::engine {

std::vector<PeerLink> Topology::peerLinks() const
{
    std::vector<PeerLink> links;
    links.reserve(pairs.size());
    for (const PeerPair &p : pairs)
        links.push_back(p.link);
    return links;
}

double nvlinkLinkGBs(unsigned nvmlVersion)
{
    // Per link and direction, in GB/s. nvmlDeviceGetNvLinkVersion returns nvml.h's nvmlNvlinkVersion_t
    // (NVML_NVLINK_VERSION_1_0 = 1, 2_0 = 2, 2_2 = 3, 3_0 = 4, 3_1 = 5, 4_0 = 6, 5_0 = 7, 6_0 = 8; an
    // A100 answers 5, not 3: hwloc issue #658, and the NVML API reference's enum since 2025).
    // The rates are NVIDIA's per-GPU totals divided by the GPU's links and by two directions
    // (nvidia.com/en-us/data-center/nvlink/, the P100 and V100 whitepapers):
    //   1.0  P100: 4 links, 160 GB/s bidirectional -> 20 GB/s per link and direction
    //   2.x  V100: 6 links, 300 GB/s               -> 25
    //   3.x  A100: 12 links, 600 GB/s              -> 25
    //   4.0  H100/H200 SXM: 18 links, 900 GB/s     -> 25 (450 GB/s per direction in all)
    //   5.0  B200: 18 links, 1800 GB/s             -> 50
    // NVLink 6.0's link count is not published with its total, so its rate is not assumed here.
    switch (nvmlVersion) {
    case 1: return 20;
    case 2:
    case 3:
    case 4:
    case 5:
    case 6: return 25;
    case 7: return 50;
    default: return 0;
    }
}

double gemmPeakTflops(const DeviceInfo &d, GemmDtype dtype)
{
    double perSm = 0;
    const int cc = d.ccMajor * 10 + d.ccMinor;
    if (cc == 90 || cc == 80) {
        const double half = cc == 90 ? 4096 : 2048;
        switch (dtype) {
        case GemmDtype::Fp32: perSm = cc == 90 ? 256 : 128; break;
        case GemmDtype::Tf32: perSm = half / 2; break;
        case GemmDtype::Fp16:
        case GemmDtype::Bf16: perSm = half; break;
        case GemmDtype::Fp8: perSm = cc == 90 ? half * 2 : 0; break;
        }
    }
    return perSm * d.smCount * d.smClockKHz * 1e3 / 1e12;
}

std::string nvlinkVersionName(unsigned nvmlVersion)
{
    static constexpr const char *kNames[] = {"", "1.0", "2.0", "2.2", "3.0", "3.1", "4.0", "5.0", "6.0"};
    return nvmlVersion < std::size(kNames) ? kNames[nvmlVersion] : "";
}

bool sameBusId(const std::string &a, const std::string &b)
{
    // domain:bus:device.function, all hexadecimal.
    auto parse = [](const std::string &id, unsigned long out[4]) {
        const char *p = id.c_str();
        for (int i = 0; i < 4; ++i) {
            char *end = nullptr;
            out[i] = std::strtoul(p, &end, 16);
            if (end == p)
                return false;
            const char expected = i < 2 ? ':' : '.';
            if (i < 3) {
                if (*end != expected)
                    return false;
                p = end + 1;
            } else if (*end != '\0') {
                return false;
            }
        }
        return true;
    };
    unsigned long x[4] = {}, y[4] = {};
    return parse(a, x) && parse(b, y) && std::equal(x, x + 4, y);
}

LinkFacts linkBetween(const DeviceInfo &src, const DeviceNvLinks &srcLinks, const DeviceInfo &dst,
                      const DeviceNvLinks &dstLinks, std::optional<bool> nvlinkP2pOk)
{
    LinkFacts facts;
    if (!srcLinks.known || !dstLinks.known)
        return facts;
    auto peak = [](const std::vector<const NvLinkPort *> &ports) {
        double sum = 0;
        for (const NvLinkPort *p : ports) {
            const double rate = nvlinkLinkGBs(p->version);
            if (rate <= 0)
                return 0.0; // one link of an unknown rate: the sum would be wrong
            sum += rate;
        }
        return sum;
    };
    std::vector<const NvLinkPort *> direct;
    for (const NvLinkPort &p : srcLinks.active)
        if (p.remote == NvLinkPort::Remote::Gpu && sameBusId(p.remoteBusId, dst.pciBusId))
            direct.push_back(&p);
    if (!direct.empty()) {
        facts.type = LinkType::NvLink;
        facts.nvlinkCount = int(direct.size());
        facts.peakGBps = peak(direct);
        return facts;
    }
    std::vector<const NvLinkPort *> srcSwitch, dstSwitch;
    for (const NvLinkPort &p : srcLinks.active)
        if (p.remote == NvLinkPort::Remote::Switch)
            srcSwitch.push_back(&p);
    for (const NvLinkPort &p : dstLinks.active)
        if (p.remote == NvLinkPort::Remote::Switch)
            dstSwitch.push_back(&p);
    const bool bothSwitched = !srcSwitch.empty() && !dstSwitch.empty();
    if (bothSwitched && !nvlinkP2pOk)
        return facts; // NVLink through the switches or not: NVML could not say
    if (bothSwitched && *nvlinkP2pOk) {
        // Through the switches a copy is as fast as the side with fewer links lets it be.
        facts.type = LinkType::NvLink;
        const auto &fewer = srcSwitch.size() <= dstSwitch.size() ? srcSwitch : dstSwitch;
        facts.nvlinkCount = int(fewer.size());
        facts.peakGBps = peak(fewer);
        return facts;
    }
    facts.type = LinkType::Pcie;
    if (src.linkPeakGBs > 0 && dst.linkPeakGBs > 0)
        facts.peakGBps = std::min(src.linkPeakGBs, dst.linkPeakGBs);
    return facts;
}

namespace {

std::string pad(std::string s, std::size_t width)
{
    if (s.size() < width)
        s.append(width - s.size(), ' ');
    return s;
}

std::string matrix(const std::vector<DeviceInfo> &devices, const std::vector<PeerLink> &links,
                   const std::vector<std::string> &suffixes)
{
    if (links.empty())
        return {};
    // Rows and columns are the devices the links name, in index order (a trace may record a subset).
    std::vector<int> indexes;
    indexes.reserve(devices.size() + 2 * links.size());
    for (const DeviceInfo &d : devices)
        indexes.push_back(d.index);
    for (const PeerLink &l : links)
        for (int i : {l.src, l.dst})
            if (std::find(indexes.begin(), indexes.end(), i) == indexes.end())
                indexes.push_back(i);
    std::sort(indexes.begin(), indexes.end());
    auto cell = [&](int src, int dst) -> std::string {
        if (src == dst)
            return "-";
        for (std::size_t i = 0; i < links.size(); ++i)
            if (links[i].src == src && links[i].dst == dst)
                return peerLinkCell(links[i]) + (i < suffixes.size() ? suffixes[i] : "");
        return "?";
    };
    std::size_t width = 6;
    for (int s : indexes)
        for (int d : indexes)
            width = std::max(width, cell(s, d).size() + 3);
    std::ostringstream out;
    out << "peer links: row copies to column; peer access, link, performance rank (0 is the best), peak per "
           "direction\n";
    auto line = [&out](std::string row) {
        while (!row.empty() && row.back() == ' ')
            row.pop_back();
        out << row << "\n";
    };
    std::string header = pad("", 9);
    for (int d : indexes)
        header += pad("to " + std::to_string(d), width);
    line(header);
    for (int s : indexes) {
        std::string row = pad("from " + std::to_string(s), 9);
        for (int d : indexes)
            row += pad(cell(s, d), width);
        line(row);
    }
    return out.str();
}

} // namespace

std::string peerLinkCell(const PeerLink &link)
{
    std::string text = link.accessSupported ? "yes" : "no";
    if (link.accessEnabled)
        text += " (enabled)";
    switch (link.link) {
    case LinkType::NvLink:
        text += ", NVLink";
        if (link.nvlinkCount > 0)
            text += " x" + std::to_string(link.nvlinkCount);
        break;
    case LinkType::Pcie: text += ", PCIe"; break;
    case LinkType::SameDevice: text += ", same device"; break;
    case LinkType::Unknown: text += ", link unknown"; break;
    }
    if (link.performanceRank >= 0)
        text += ", rank " + std::to_string(link.performanceRank);
    if (link.peakGBps > 0)
        text += ", " + formatRate(link.peakGBps);
    return text;
}

std::string peerLinkMatrix(const std::vector<DeviceInfo> &devices, const std::vector<PeerLink> &links)
{
    return matrix(devices, links, {});
}

std::string topologyTable(const Topology &topology)
{
    std::ostringstream out;
    out << pad("#", 4) << pad("name", 26) << pad("cc", 6) << pad("SMs", 6) << pad("copy eng", 10) << pad("memory", 12)
        << pad("PCIe", 26) << "bus id\n";
    for (const DeviceInfo &d : topology.devices) {
        std::string pcie = "?";
        if (d.pcieGeneration > 0) {
            pcie = "gen" + std::to_string(d.pcieGeneration) + " x" + std::to_string(d.pcieWidth);
            if (d.linkPeakGBs > 0)
                pcie += " (" + formatRate(d.linkPeakGBs) + ")";
        }
        out << pad(std::to_string(d.index), 4) << pad(d.name, 26)
            << pad(std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor), 6) << pad(std::to_string(d.smCount), 6)
            << pad(std::to_string(d.asyncEngineCount), 10) << pad(formatBytes(d.totalMemBytes), 12) << pad(pcie, 26)
            << d.pciBusId << "\n";
    }
    if (!topology.devices.empty()) {
        const DeviceInfo &d = topology.devices.front();
        out << "driver " << d.driverVersion / 1000 << "." << (d.driverVersion % 1000) / 10 << ", runtime "
            << d.runtimeVersion / 1000 << "." << (d.runtimeVersion % 1000) / 10 << "\n";
    }
    if (topology.pairs.empty()) {
        if (topology.devices.size() == 1)
            out << "\none device: no peer links\n";
    } else {
        std::vector<std::string> atomics;
        for (const PeerPair &p : topology.pairs)
            atomics.push_back(p.nativeAtomics ? ", atomics" : "");
        out << "\n" << matrix(topology.devices, topology.peerLinks(), atomics);
    }
    if (!topology.linkNote.empty())
        out << "\n" << topology.linkNote << "\n";
    return out.str();
}

} // namespace streamscope::engine
