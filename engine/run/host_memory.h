// How much host memory a run may still take: MemAvailable from /proc/meminfo, lowered to what the
// process's control group still allows (a container's memory limit: /proc/meminfo shows the whole
// machine's memory there, and going past the limit gets the process killed, not an allocation error).
// Plain C++ so that the reading is tested without a GPU; the runner compares the workload's host
// buffers with it before allocating, and names it when an allocation fails.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace streamscope::engine {

struct HostMemory {
    std::uint64_t availableBytes = 0; // 0: unknown (no check)
    std::string source; // what the figure is: "MemAvailable in /proc/meminfo", "the control group's memory.max"
};

HostMemory hostMemoryAvailable();

// The parts, for the tests: MemAvailable (in bytes) from /proc/meminfo's text; what a cgroup still
// allows from its limit and usage files' text (v2 memory.max and memory.current, v1 limit_in_bytes and
// usage_in_bytes), none for "max" or an unreadable text.
std::optional<std::uint64_t> memAvailableFromMeminfo(std::string_view meminfo);
std::optional<std::uint64_t> cgroupRoom(std::string_view limit, std::string_view usage);
// The cgroup v2 path of this process ("/user.slice/...") from /proc/self/cgroup's text; none without one.
std::optional<std::string> cgroupV2Path(std::string_view procSelfCgroup);

} // namespace streamscope::engine
