// Names of the runner's progress phases and timing modes (shared by the CUDA and the no-CUDA runner).
#include "engine/run/runner.h"

namespace streamscope::engine {

std::string_view toString(RunProgress::Phase phase)
{
    switch (phase) {
    case RunProgress::Phase::Preparing: return "preparing";
    case RunProgress::Phase::Calibrating: return "calibrating";
    case RunProgress::Phase::Warmup: return "warmup";
    case RunProgress::Phase::Measuring: return "measuring";
    case RunProgress::Phase::Done: return "done";
    }
    return "unknown";
}

std::string_view toString(TimingMode mode)
{
    return mode == TimingMode::Cupti ? "cupti" : "events";
}

std::optional<TimingMode> timingModeFromString(std::string_view s)
{
    if (s == "cupti")
        return TimingMode::Cupti;
    if (s == "events")
        return TimingMode::Events;
    return std::nullopt;
}

} // namespace streamscope::engine
