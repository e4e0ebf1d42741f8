// Typed errors at the engine's boundary. Library code throws these and never exits; the CLI maps
// ErrorKind to its documented exit codes and the GUI shows what() in place.
#pragma once

#include <new>
#include <stdexcept>
#include <string>

namespace streamscope::engine {

enum class ErrorKind {
    InvalidInput, // a workload or trace file that is malformed: what() names file, line, JSON path
    Io, // a file that cannot be read or written
    NoGpu, // no CUDA driver, no device, or built without CUDA
    Cuda, // a CUDA call failed: what() names stream, op index, op and the CUDA error
    OutOfMemory, // the workload does not fit (device, managed or host memory), with the numbers
    Cancelled, // the user (or a signal) cancelled a run
    TimeLimit, // a run passed its time limit (the workload's timeLimit, or --time-limit)
};

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string &message) : std::runtime_error(message), m_kind(kind) { }
    ErrorKind kind() const { return m_kind; }

private:
    ErrorKind m_kind;
};

// Runs `work`. An allocation that fails inside it (a file near the size limits on a machine short of memory,
// or under a memory cap such as `ulimit -v`) is the machine's limit, not a bug: Error{Io, message}, which
// names the file (exit 4 in the CLI), never std::bad_alloc (exit 1, or an abort where it meets a noexcept
// destructor).
template <typename Work> auto memoryChecked(const std::string &message, Work &&work)
{
    try {
        return work();
    } catch (const std::bad_alloc &) {
        throw Error(ErrorKind::Io, message);
    }
}

} // namespace streamscope::engine
