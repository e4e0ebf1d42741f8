// StreamScope's native trace file (.sstrace): versioned JSON that keeps everything (device, workload,
// calibration, every repetition's ops). Written atomically. Documented in docs/trace-format.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/model/trace.h"

namespace streamscope::engine {

inline constexpr std::string_view kNativeFormatName = "streamscope-trace";

std::string toNativeJson(const Trace &trace);
// The devices and the peer links as the native file's header writes them (JSON arrays), for
// `streamscope-cli devices --json` (topology_json.h).
std::string devicesToJson(const std::vector<DeviceInfo> &devices);
std::string peerLinksToJson(const std::vector<PeerLink> &links);
// Throws Error{InvalidInput} naming the file, the JSON path and what was expected.
Trace fromNativeJson(std::string_view text, const std::string &fileName = "<trace>");
// The same read in place: `text` gets room for simdjson's padding if it has none (no copy of it).
Trace fromNativeJson(std::string &text, const std::string &fileName = "<trace>");
// Throws Error{Io} / Error{InvalidInput}.
void writeNativeTrace(const Trace &trace, const std::string &path);
Trace readNativeTrace(const std::string &path);

} // namespace streamscope::engine
