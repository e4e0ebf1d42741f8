// gzip decompression for compressed trace files (PyTorch profiler traces usually come as .json.gz).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "engine/model/limits.h"

namespace streamscope::engine {

// True when the data starts with the gzip magic bytes.
bool isGzip(std::string_view data);

// What a gzip file may decompress to: 100 times its own size (real traces compress 12-19 times), at least
// 256 MiB and never more than 2 GiB. A trace of tens of millions of ops fits; a "zip bomb" (a few MB
// that inflate to many GB) is refused before it exhausts the machine.
inline constexpr std::size_t kGunzipRatio = 100;
inline constexpr std::size_t kMinGunzipLimit = std::size_t(256) << 20;
inline constexpr std::size_t kMaxGunzipBytes = limits::kMaxTraceFileBytes; // 2 GiB, as an uncompressed trace
std::size_t gunzipLimit(std::size_t compressedBytes);
// gunzip() leaves at least this much capacity past the text where the gzip trailer tells the size: the
// padding simdjson reads past a text (SIMDJSON_PADDING), so that the Chrome reader parses it in place.
inline constexpr std::size_t kGunzipPadding = 64;

// Inflates a whole gzip stream (several members are concatenated, as gzip(1) does). Throws
// Error{InvalidInput} naming the file for corrupt or truncated data, or for data that decompresses to
// more than maxBytes (0: gunzipLimit of the data's size).
std::string gunzip(std::string_view data, const std::string &fileName, std::size_t maxBytes = 0);

} // namespace streamscope::engine
