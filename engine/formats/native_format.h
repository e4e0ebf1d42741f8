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
// The devices as the native file writes them (a JSON array), for `streamscope-cli devices --json`.
std::string devicesToJson(const std::vector<DeviceInfo> &devices);
// Throws Error{InvalidInput} naming the file, the JSON path and what was expected.
Trace fromNativeJson(std::string_view text, const std::string &fileName = "<trace>");
// Throws Error{Io} / Error{InvalidInput}.
void writeNativeTrace(const Trace &trace, const std::string &path);
Trace readNativeTrace(const std::string &path);

} // namespace streamscope::engine
