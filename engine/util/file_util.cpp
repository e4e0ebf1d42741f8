// Whole-file reads and atomic writes (temporary file in the target's folder, fsync, rename).
#include "engine/util/file_util.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/model/errors.h"

namespace streamscope::engine {

namespace {
std::string systemReason()
{
    return std::strerror(errno);
}
} // namespace

std::string readFile(const std::string &path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw Error(ErrorKind::Io, path + ": is a folder, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(ErrorKind::Io, path + ": cannot open for reading: " + systemReason());
    // One read into a string of the file's size (a stringstream copies a 100 MB trace twice).
    std::string data;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec) {
        data.resize(static_cast<std::size_t>(size));
        in.read(data.data(), static_cast<std::streamsize>(size));
        data.resize(static_cast<std::size_t>(in.gcount()));
    }
    // Files whose size is not known in advance (pipes, /proc) are read to their end.
    char chunk[65536];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0)
        data.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (in.bad())
        throw Error(ErrorKind::Io, path + ": read error: " + systemReason());
    return data;
}

AtomicFileWriter::AtomicFileWriter(const std::string &path) : m_path(path)
{
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw Error(ErrorKind::Io, path + ": cannot write: folder '" + dir.string() + "' does not exist");
    // Only a regular file is replaced: renaming over a symbolic link, a FIFO or a device (/dev/stdout, as
    // root) would replace the link or the device node itself, not write where it leads.
    struct stat existing { };
    const bool exists = ::lstat(path.c_str(), &existing) == 0;
    if (exists && !S_ISREG(existing.st_mode)) {
        const char *what = S_ISLNK(existing.st_mode)    ? "a symbolic link"
                           : S_ISDIR(existing.st_mode)  ? "a folder"
                           : S_ISFIFO(existing.st_mode) ? "a FIFO"
                           : S_ISSOCK(existing.st_mode) ? "a socket"
                                                        : "a device";
        throw Error(ErrorKind::Io,
                    path + ": is " + std::string(what)
                        + ", not a regular file: StreamScope replaces only regular files or writes new ones");
    }
    std::random_device rd;
    m_temp = (dir / ("." + target.filename().string() + ".tmp" + std::to_string(rd() % 1000000))).string();
    // A new file gets the usual 0666 less the umask; a replaced one keeps its mode (a 0600 trace stays 0600).
    m_fd = ::open(m_temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, exists ? 0600 : 0666);
    if (m_fd < 0)
        throw Error(ErrorKind::Io, path + ": cannot create temporary file: " + systemReason());
    if (exists && ::fchmod(m_fd, existing.st_mode & 07777) != 0) {
        const std::string reason = systemReason();
        discard();
        throw Error(ErrorKind::Io, path + ": cannot keep the file's permissions: " + reason);
    }
}

AtomicFileWriter::~AtomicFileWriter()
{
    discard();
}

void AtomicFileWriter::discard()
{
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
        ::unlink(m_temp.c_str());
    }
}

void AtomicFileWriter::write(std::string_view data)
{
    if (m_fd < 0)
        throw Error(ErrorKind::Io, m_path + ": write after the file was committed or failed");
    const char *p = data.data();
    std::size_t left = data.size();
    while (left > 0) {
        const ssize_t n = ::write(m_fd, p, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const std::string reason = systemReason();
            discard();
            throw Error(ErrorKind::Io, m_path + ": write failed: " + reason);
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
}

void AtomicFileWriter::commit()
{
    if (m_fd < 0)
        throw Error(ErrorKind::Io, m_path + ": commit after the file was committed or failed");
    const int fd = m_fd;
    m_fd = -1;
    const bool synced = ::fsync(fd) == 0;
    const std::string syncReason = synced ? std::string() : systemReason();
    const bool closed = ::close(fd) == 0; // always, so that a failed fsync leaks no descriptor
    if (!synced || !closed) {
        const std::string reason = synced ? systemReason() : syncReason;
        ::unlink(m_temp.c_str());
        throw Error(ErrorKind::Io, m_path + ": cannot flush to disk: " + reason);
    }
    if (std::rename(m_temp.c_str(), m_path.c_str()) != 0) {
        const std::string reason = systemReason();
        ::unlink(m_temp.c_str());
        throw Error(ErrorKind::Io, m_path + ": cannot replace the file: " + reason);
    }
}

void writeFileAtomically(const std::string &path, std::string_view data)
{
    AtomicFileWriter file(path);
    file.write(data);
    file.commit();
}

} // namespace streamscope::engine
