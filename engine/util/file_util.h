// Small file helpers shared by every reader and writer: whole-file reads and atomic writes
// (a temporary file in the same folder, flushed, then renamed over the target), so a crash or a
// full disk never leaves a half-written trace behind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/model/limits.h"

namespace streamscope::engine {

// Reads a whole regular file of at most maxBytes (engine/model/limits.h). Throws Error{Io} naming the
// path and the system's reason when it cannot be read, and when it is not a regular file (a device such
// as /dev/zero would be read without end, a FIFO could block for ever); Error{InvalidInput} naming the
// size and the limit when it is larger than maxBytes (`what`: "a JSON trace", "a workload", ...).
// Stops with Error{Cancelled} when the process is interrupted (engine/util/interrupt.h).
// The string's capacity is at least its size + kReadFilePadding, so that a JSON parser that reads past the
// end (simdjson) takes the text as it is: reserving the room afterwards doubled a 284 MB trace (#24).
inline constexpr std::size_t kReadFilePadding = 64;
std::string readFile(const std::string &path, std::uint64_t maxBytes = limits::kMaxTraceFileBytes,
                     std::string_view what = "a JSON trace");
// The first n bytes (fewer when the file is shorter), with readFile's checks but no size limit.
std::string readFileHead(const std::string &path, std::size_t n);
void writeFileAtomically(const std::string &path, std::string_view data);

// The same atomic write in pieces, for writers that produce a big file part by part (the Chrome
// export writes each finished part while later ones are still being serialised). The target is
// replaced only by commit(); a writer destroyed without it removes its temporary file. Throws
// Error{Io} naming the target path, or Error{Cancelled} when the process is interrupted (its temporary
// file is removed then too, also by the signal handler when the process dies before it unwinds).
class AtomicFileWriter {
public:
    explicit AtomicFileWriter(const std::string &path);
    ~AtomicFileWriter();
    AtomicFileWriter(const AtomicFileWriter &) = delete;
    AtomicFileWriter &operator=(const AtomicFileWriter &) = delete;

    void write(std::string_view data);
    void commit(); // flush to disk, then rename over the target

private:
    void discard();

    std::string m_path;
    std::string m_temp;
    int m_fd = -1;
    int m_slot = -1; // in the interrupt handler's registry of temporary files
};

} // namespace streamscope::engine
