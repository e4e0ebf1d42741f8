// PCIe link generation, width and peak from sysfs (see pcie_link.h).
#include "engine/run/pcie_link.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

namespace streamscope::engine {

namespace {
std::string readFirstLine(const std::string &path)
{
    std::ifstream in(path);
    std::string line;
    if (in)
        std::getline(in, line);
    return line;
}
} // namespace

int pcieGenerationFromLinkSpeed(std::string_view speed)
{
    // Transfer rates per lane: 2.5, 5, 8, 16, 32, 64 GT/s for generations 1 to 6.
    const std::string text(speed);
    char *end = nullptr;
    const double gts = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || text.find("GT/s") == std::string::npos)
        return 0;
    struct Rate {
        double gts;
        int generation;
    };
    static constexpr Rate rates[] = {{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}};
    for (const Rate &r : rates) {
        if (gts > r.gts * 0.9 && gts < r.gts * 1.1)
            return r.generation;
    }
    return 0;
}

double pcieLaneGBs(int generation)
{
    // 8b/10b encoding for generations 1 and 2, 128b/130b for 3 to 5, FLIT mode for 6.
    switch (generation) {
    case 1: return 0.25;
    case 2: return 0.5;
    case 3: return 0.985;
    case 4: return 1.969;
    case 5: return 3.938;
    case 6: return 7.563;
    default: return 0;
    }
}

PcieLink readPcieLink(const std::string &busId, const std::string &sysfsDevices)
{
    std::string id = busId;
    std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    // sysfs writes a 4-digit domain; some tools write 8 ("00000000:3b:00.0").
    const std::size_t colon = id.find(':');
    if (colon == 8 && id.compare(0, 4, "0000") == 0)
        id.erase(0, 4);
    const std::string dir = sysfsDevices + "/" + id + "/";
    PcieLink link;
    link.generation = pcieGenerationFromLinkSpeed(readFirstLine(dir + "current_link_speed"));
    link.width = std::max(0, std::atoi(readFirstLine(dir + "current_link_width").c_str()));
    link.peakGBs = link.generation > 0 ? pcieLaneGBs(link.generation) * link.width : 0;
    return link;
}

} // namespace streamscope::engine
