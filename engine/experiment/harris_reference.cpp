// The blog's figures, copied as printed by its sample (async.cu). The copy-engine counts of the C1060
// (one) and the C2050 (two, one per direction) are the blog's own words; the K20c's two engines are
// its deviceQuery "asyncEngineCount" (the blog credits Hyper-Q instead).
#include "engine/experiment/harris_reference.h"

#include <array>

namespace streamscope::engine {

namespace {

constexpr std::array<HarrisResult, 3> kResults = {{
    {"Tesla C1060", "1.3", 1, 12.92381, 13.63690, 8.84588,
     "With one copy engine, depth-first issue queues each chunk's D2H before the next chunk's H2D, so the "
     "engine waits on every kernel and nothing overlaps; breadth-first issues every H2D first, so copies in "
     "overlap kernels (8/12 of the sequential time)."},
    {"Tesla C2050", "2.0", 2, 9.984512, 5.735584, 7.597984,
     "With one copy engine per direction, depth-first lets a chunk's D2H run beside the next chunk's H2D and "
     "halves the time; breadth-first is slower here because kernels issued back to back on different streams "
     "delay the signal that starts each D2H until all kernels finish (9/12 of the sequential time)."},
    {"Tesla K20c", "3.5", 2, 7.101760, 3.974144, 3.967616,
     "Hyper-Q gives every stream its own hardware queue, so with two copy engines both issue orders overlap "
     "copies and kernels alike and the order no longer matters."},
}};

} // namespace

std::span<const HarrisResult> harrisResults()
{
    return kResults;
}

} // namespace streamscope::engine
