// gzip decompression for compressed trace files (PyTorch profiler traces usually come as .json.gz).
#pragma once

#include <string>
#include <string_view>

namespace streamscope::engine {

// True when the data starts with the gzip magic bytes.
bool isGzip(std::string_view data);

// Inflates a whole gzip stream (several members are concatenated, as gzip(1) does). Throws
// Error{InvalidInput} naming the file for corrupt or truncated data.
std::string gunzip(std::string_view data, const std::string &fileName);

} // namespace streamscope::engine
