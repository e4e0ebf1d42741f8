// Host memory available to a run (see host_memory.h).
#include "engine/run/host_memory.h"

#include <charconv>
#include <fstream>
#include <sstream>

namespace streamscope::engine {

namespace {

std::string readText(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        return {};
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::optional<std::uint64_t> parseNumber(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r'))
        text.remove_suffix(1);
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        return std::nullopt;
    return value;
}

} // namespace

std::optional<std::uint64_t> memAvailableFromMeminfo(std::string_view meminfo)
{
    constexpr std::string_view kKey = "MemAvailable:";
    std::size_t at = 0;
    while (at < meminfo.size()) {
        const std::size_t end = std::min(meminfo.find('\n', at), meminfo.size());
        std::string_view line = meminfo.substr(at, end - at);
        at = end + 1;
        if (line.substr(0, kKey.size()) != kKey)
            continue;
        line.remove_prefix(kKey.size());
        if (line.size() >= 3 && line.substr(line.size() - 3) == " kB")
            line.remove_suffix(3);
        const auto kb = parseNumber(line);
        if (!kb || *kb > UINT64_MAX / 1024)
            return std::nullopt;
        return *kb * 1024;
    }
    return std::nullopt;
}

std::optional<std::uint64_t> cgroupRoom(std::string_view limit, std::string_view usage)
{
    const auto max = parseNumber(limit); // "max" (no limit) does not parse
    const auto used = parseNumber(usage);
    if (!max || !used)
        return std::nullopt;
    return *max > *used ? *max - *used : 0;
}

std::optional<std::string> cgroupV2Path(std::string_view procSelfCgroup)
{
    std::size_t at = 0;
    while (at < procSelfCgroup.size()) {
        const std::size_t end = std::min(procSelfCgroup.find('\n', at), procSelfCgroup.size());
        const std::string_view line = procSelfCgroup.substr(at, end - at);
        at = end + 1;
        if (line.substr(0, 3) == "0::")
            return std::string(line.substr(3));
    }
    return std::nullopt;
}

HostMemory hostMemoryAvailable()
{
    HostMemory m;
    if (const auto available = memAvailableFromMeminfo(readText("/proc/meminfo"))) {
        m.availableBytes = *available;
        m.source = "MemAvailable in /proc/meminfo";
    }
    auto lower = [&m](std::optional<std::uint64_t> room, std::string source) {
        if (room && (m.availableBytes == 0 || *room < m.availableBytes)) {
            m.availableBytes = *room;
            m.source = std::move(source);
        }
    };
    // cgroup v2: this process's group, else the root of the mount (a container's own group).
    std::string dir = "/sys/fs/cgroup";
    if (const auto path = cgroupV2Path(readText("/proc/self/cgroup")); path && *path != "/")
        if (!readText(dir + *path + "/memory.max").empty())
            dir += *path;
    if (const std::string max = readText(dir + "/memory.max"); !max.empty()) {
        lower(cgroupRoom(max, readText(dir + "/memory.current")),
              "the memory its control group still allows (" + dir + "/memory.max less memory.current)");
    } else { // cgroup v1
        const std::string v1 = "/sys/fs/cgroup/memory";
        lower(cgroupRoom(readText(v1 + "/memory.limit_in_bytes"), readText(v1 + "/memory.usage_in_bytes")),
              "the memory its control group still allows (" + v1 + "/memory.limit_in_bytes less usage)");
    }
    return m;
}

} // namespace streamscope::engine
