// Cancellation by signal, for the whole process: Ctrl-C (SIGINT) and SIGTERM set one flag that every
// long loop of the engine checks (readers through LoadControl::checkCancelled(), writers and parsers
// through throwIfInterrupted()), so that a command stops at the next check with Error{Cancelled} (exit
// 130) and its atomic writes leave nothing behind. Temporary files of writes in progress are registered
// here, and the signal handler removes them itself, so a process that dies at any point (the watchdog's
// _exit, a second Ctrl-C, the GUI's default death on SIGTERM) leaves no hidden temporary file.
#pragma once

#include <atomic>

namespace streamscope::engine {

enum class InterruptMode {
    // The CLI: a signal sets the flag and the work stops at its next check; if it has not ended
    // `graceMs` later (a loop without checks, a library call that takes long), the process removes its
    // temporary files and exits with 130 anyway. A second signal exits at once.
    Cooperative,
    // The GUI: a signal removes the temporary files, then the process dies as it would have.
    CleanUpAndDie,
};

// Installs the SIGINT and SIGTERM handlers (once; later calls change the grace only).
void installInterruptHandlers(InterruptMode mode, int graceMs = 700);
// The command finished: the watchdog no longer exits on its behalf (its own exit code stands).
void interruptibleWorkDone();

// Set by a signal (or by requestInterrupt, for tests); never cleared.
const std::atomic<bool> &interruptFlag();
bool interrupted();
void requestInterrupt();
// Throws Error{Cancelled} ("interrupted") when a signal arrived.
void throwIfInterrupted();

// The temporary files of writes in progress (AtomicFileWriter): a slot, or -1 when all 32 are in use
// (the file is then still removed on every path but a signal).
int registerTemporaryFile(const char *path);
void unregisterTemporaryFile(int slot);
// Removes every registered temporary file; async-signal-safe.
void removeTemporaryFiles();

} // namespace streamscope::engine
