// Names of the runner's progress phases (shared by the CUDA and the no-CUDA runner).
#include "engine/runner.h"

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

} // namespace streamscope::engine
