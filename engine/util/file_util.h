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

// The same atomic write in pieces, for writers that produce a big file part by part (the Chrome
// export writes each finished part while later ones are still being serialised). The target is
// replaced only by commit(); a writer destroyed without it removes its temporary file. Throws
// Error{Io} naming the target path.
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
};

} // namespace streamscope::engine
