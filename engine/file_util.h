// Small file helpers shared by every reader and writer: whole-file reads and atomic writes
// (a temporary file in the same folder, flushed, then renamed over the target), so a crash or a
// full disk never leaves a half-written trace behind.
#pragma once

#include <string>
#include <string_view>

namespace streamscope::engine {

// Throws Error{Io} naming the path and the system's reason.
std::string readFile(const std::string &path);
void writeFileAtomically(const std::string &path, std::string_view data);

} // namespace streamscope::engine
