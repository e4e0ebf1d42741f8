// Progress and cancellation of a long read (a trace of a million ops, a 35k-event PyTorch trace), for
// the app's background loader: the reader reports what it is doing and how far along the whole load it
// is, and stops at the next check once cancel is set. Plain C++; an empty LoadControl costs nothing.
#pragma once

#include <atomic>
#include <functional>
#include <string_view>

#include "engine/model/errors.h"
#include "engine/util/interrupt.h"

namespace streamscope::engine {

struct LoadControl {
    // stage: "reading", "decompressing", "parsing", "importing"; fraction: 0..1 of the whole load.
    // Called on the loading thread.
    std::function<void(std::string_view stage, double fraction)> progress;
    // Set by another thread to stop the load: the reader throws Error{Cancelled} at its next check. A
    // signal to the process (interrupt.h: the CLI's Ctrl-C, SIGTERM) stops every load the same way.
    const std::atomic<bool> *cancel = nullptr;

    void report(std::string_view stage, double fraction) const
    {
        if (progress)
            progress(stage, fraction);
    }
    void checkCancelled() const
    {
        if (cancel && cancel->load(std::memory_order_relaxed))
            throw Error(ErrorKind::Cancelled, "loading cancelled");
        throwIfInterrupted();
    }
};

} // namespace streamscope::engine
