// The signal flag, the temporary-file registry and the CLI's watchdog (see interrupt.h). Everything
// the handler touches is a lock-free atomic or a fixed buffer, and it calls only async-signal-safe
// functions (unlink, sem_post, _exit, signal, raise).
#include "engine/util/interrupt.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <semaphore.h>
#include <thread>
#include <unistd.h>

#include "engine/model/errors.h"

namespace streamscope::engine {

namespace {

constexpr int kSlots = 32;
// protocol::ExitCancelled (engine/run/cli_protocol.h, a layer above; tst_cli_protocol checks they agree).
constexpr int kExitCancelled = 130;
constexpr std::size_t kPathBytes = 4096;

// Free -> Filling -> Ready (registered) -> Removed (by the handler; freed by its writer, which owns it).
enum SlotState : int { Free = 0, Filling = 1, Ready = 2, Removed = 3 };

struct TemporarySlot {
    std::atomic<int> state{Free};
    char path[kPathBytes];
};

TemporarySlot g_slots[kSlots];
std::atomic<bool> g_interrupted{false};
std::atomic<bool> g_workDone{false};
std::atomic<int> g_signals{0};
std::atomic<int> g_graceMs{700};
std::atomic<InterruptMode> g_mode{InterruptMode::Cooperative};
sem_t g_wake;
std::atomic<bool> g_installed{false};

static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

void exitCancelled()
{
    removeTemporaryFiles();
    ::_exit(kExitCancelled);
}

extern "C" void onInterruptSignal(int sig)
{
    const int saved = errno;
    g_interrupted.store(true);
    removeTemporaryFiles();
    if (g_mode.load() == InterruptMode::CleanUpAndDie) {
        std::signal(sig, SIG_DFL);
        std::raise(sig);
        errno = saved;
        return;
    }
    if (g_signals.fetch_add(1) >= 1) // the second Ctrl-C: the user means it
        ::_exit(kExitCancelled);
    ::sem_post(&g_wake);
    errno = saved;
}

// Waits for the first signal, then gives the work graceMs to stop by itself.
void watchdog()
{
    while (::sem_wait(&g_wake) != 0) { } // EINTR: wait again
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(g_graceMs.load());
    while (std::chrono::steady_clock::now() < deadline) {
        if (g_workDone.load())
            return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!g_workDone.load())
        exitCancelled();
}

} // namespace

void installInterruptHandlers(InterruptMode mode, int graceMs)
{
    g_mode.store(mode);
    g_graceMs.store(graceMs);
    if (g_installed.exchange(true))
        return;
    if (mode == InterruptMode::Cooperative) {
        ::sem_init(&g_wake, 0, 0);
        std::thread(watchdog).detach();
    }
    struct sigaction action { };
    action.sa_handler = onInterruptSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
}

void interruptibleWorkDone()
{
    g_workDone.store(true);
}

const std::atomic<bool> &interruptFlag()
{
    return g_interrupted;
}

bool interrupted()
{
    return g_interrupted.load(std::memory_order_relaxed);
}

void requestInterrupt()
{
    g_interrupted.store(true);
}

void throwIfInterrupted()
{
    if (interrupted())
        throw Error(ErrorKind::Cancelled, "interrupted");
}

int registerTemporaryFile(const char *path)
{
    const std::size_t length = std::strlen(path);
    if (length >= kPathBytes)
        return -1;
    for (int i = 0; i < kSlots; ++i) {
        int expected = Free;
        if (g_slots[i].state.compare_exchange_strong(expected, Filling)) {
            std::memcpy(g_slots[i].path, path, length + 1);
            g_slots[i].state.store(Ready);
            return i;
        }
    }
    return -1;
}

void unregisterTemporaryFile(int slot)
{
    if (slot >= 0 && slot < kSlots)
        g_slots[slot].state.store(Free);
}

void removeTemporaryFiles()
{
    for (auto &slot : g_slots) {
        int expected = Ready;
        // Removed, not Free: the slot stays its writer's until the writer unregisters it.
        if (slot.state.compare_exchange_strong(expected, Removed))
            ::unlink(slot.path);
    }
}

} // namespace streamscope::engine
