// Whole-file reads and atomic writes (temporary file in the target's folder, fsync, rename).
#include "engine/util/file_util.h"

#include <algorithm>
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
#include "engine/util/interrupt.h"

namespace streamscope::engine {

namespace {
std::string systemReason()
{
    return std::strerror(errno);
}
} // namespace

namespace {

// Opens a file for reading if it is a regular file; Error{Io} otherwise. O_NONBLOCK so that opening a
// FIFO returns at once (to be refused) instead of waiting for a writer.
int openRegularFile(const std::string &path, struct stat &st)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        throw Error(ErrorKind::Io, path + ": cannot open for reading: " + systemReason());
    if (::fstat(fd, &st) != 0) {
        const std::string reason = systemReason();
        ::close(fd);
        throw Error(ErrorKind::Io, path + ": cannot read: " + reason);
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        const char *what = S_ISDIR(st.st_mode)    ? "a folder"
                           : S_ISFIFO(st.st_mode) ? "a FIFO"
                           : S_ISSOCK(st.st_mode) ? "a socket"
                                                  : "a device";
        throw Error(ErrorKind::Io,
                    path + ": is " + std::string(what) + ", not a regular file: StreamScope reads only regular files");
    }
    return fd;
}

// Reads up to `want` bytes at `out`, in pieces (checking for an interrupt between them); returns how many.
std::size_t readUpTo(int fd, char *out, std::size_t want, const std::string &path)
{
    constexpr std::size_t kPiece = std::size_t(16) << 20;
    std::size_t got = 0;
    while (got < want) {
        throwIfInterrupted();
        const ssize_t n = ::read(fd, out + got, std::min(kPiece, want - got));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw Error(ErrorKind::Io, path + ": read error: " + systemReason());
        }
        if (n == 0)
            break;
        got += static_cast<std::size_t>(n);
    }
    return got;
}

struct FileDescriptor {
    int fd;
    ~FileDescriptor() { ::close(fd); }
};

} // namespace

std::string readFile(const std::string &path, std::uint64_t maxBytes, std::string_view what)
{
    struct stat st { };
    const FileDescriptor file{openRegularFile(path, st)};
    const auto size = static_cast<std::uint64_t>(st.st_size);
    const auto tooLarge = [&](const std::string &size) {
        return Error(ErrorKind::InvalidInput, path + ": " + size + ", larger than StreamScope reads as "
                                                  + std::string(what) + " (at most " + limits::describeBytes(maxBytes)
                                                  + ")");
    };
    if (size > maxBytes)
        throw tooLarge(std::to_string(size) + " bytes");
    // One read into a string of the file's size (a stringstream copies a 100 MB trace twice); a file that
    // grows while it is read is read to the limit and one byte more, to tell.
    std::string data(static_cast<std::size_t>(size) + kReadFilePadding, '\0');
    data.resize(readUpTo(file.fd, data.data(), static_cast<std::size_t>(size), path)); // keeps the capacity
    char chunk[65536];
    for (;;) {
        const std::size_t n = readUpTo(file.fd, chunk, sizeof chunk, path);
        if (n == 0)
            break;
        if (data.size() + n > maxBytes)
            throw tooLarge("more than " + std::to_string(maxBytes) + " bytes");
        data.append(chunk, n);
    }
    return data;
}

std::string readFileHead(const std::string &path, std::size_t n)
{
    struct stat st { };
    const FileDescriptor file{openRegularFile(path, st)};
    std::string data(n, '\0');
    data.resize(readUpTo(file.fd, data.data(), n, path));
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
    // A write-protected file is not replaced, as cp would not replace it: renaming over it needs only the
    // folder's permission, so the file's own is checked here. Root may write anything, so for root a file
    // without any write bit counts as protected.
    if (exists && (::access(path.c_str(), W_OK) != 0 || (existing.st_mode & 0222) == 0)) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", unsigned(existing.st_mode & 07777));
        throw Error(ErrorKind::Io, path + ": is write-protected (mode " + mode
                                       + "): StreamScope does not replace it; make it writable (chmod u+w) or "
                                         "write to another file");
    }
    std::random_device rd;
    m_temp = (dir / ("." + target.filename().string() + ".tmp" + std::to_string(rd() % 1000000))).string();
    // A new file gets the usual 0666 less the umask; a replaced one keeps its mode (a 0600 trace stays 0600).
    m_fd = ::open(m_temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, exists ? 0600 : 0666);
    if (m_fd < 0)
        throw Error(ErrorKind::Io, path + ": cannot create temporary file: " + systemReason());
    m_slot = registerTemporaryFile(m_temp.c_str());
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
    unregisterTemporaryFile(m_slot);
    m_slot = -1;
}

void AtomicFileWriter::write(std::string_view data)
{
    if (m_fd < 0)
        throw Error(ErrorKind::Io, m_path + ": write after the file was committed or failed");
    if (interrupted()) {
        discard();
        throwIfInterrupted();
    }
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
    if (interrupted()) {
        discard();
        throwIfInterrupted();
    }
    const int fd = m_fd;
    m_fd = -1;
    const bool synced = ::fsync(fd) == 0;
    const std::string syncReason = synced ? std::string() : systemReason();
    const bool closed = ::close(fd) == 0; // always, so that a failed fsync leaks no descriptor
    if (!synced || !closed) {
        const std::string reason = synced ? systemReason() : syncReason;
        ::unlink(m_temp.c_str());
        unregisterTemporaryFile(m_slot);
        m_slot = -1;
        throw Error(ErrorKind::Io, m_path + ": cannot flush to disk: " + reason);
    }
    // The last moment to stop: an interrupt after this leaves the new file complete.
    const bool stop = interrupted();
    if (stop || std::rename(m_temp.c_str(), m_path.c_str()) != 0) {
        const std::string reason = systemReason();
        ::unlink(m_temp.c_str());
        unregisterTemporaryFile(m_slot);
        m_slot = -1;
        throwIfInterrupted(); // the handler may have removed the file before the rename
        throw Error(ErrorKind::Io, m_path + ": cannot replace the file: " + reason);
    }
    unregisterTemporaryFile(m_slot);
    m_slot = -1;
}

void writeFileAtomically(const std::string &path, std::string_view data)
{
    AtomicFileWriter file(path);
    file.write(data);
    file.commit();
}

} // namespace streamscope::engine
