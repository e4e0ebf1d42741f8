// The published results of Mark Harris's "How to Overlap Data Transfers in CUDA C/C++" (NVIDIA
// developer blog, 2012, https://developer.nvidia.com/blog/how-overlap-data-transfers-cuda-cc/):
// his sample (4 streams, 4 chunks of 4 MiB of pinned floats, H2D -> kernel -> D2H per chunk) timed
// sequentially and in his two asynchronous issue orders on three Tesla cards. The overlap lesson shows
// these beside the user's own run of the same comparison (docs/comparisons.md).
#pragma once

#include <span>
#include <string_view>

namespace streamscope::engine {

struct HarrisResult {
    std::string_view device; // as the sample printed it, e.g. "Tesla C1060"
    std::string_view computeCapability;
    int copyEngines = 0; // asynchronous copy engines of the card
    double sequentialMs = 0; // cudaMemcpy H2D, one kernel, cudaMemcpy D2H
    double depthFirstMs = 0; // "asynchronous version 1": per chunk H2D, kernel, D2H
    double breadthFirstMs = 0; // "asynchronous version 2": every H2D, every kernel, every D2H
    std::string_view why; // one sentence: why the issue order matters on this card
};

// C1060, C2050 and K20c, in that order; the times are the blog's, in milliseconds, as printed.
std::span<const HarrisResult> harrisResults();

} // namespace streamscope::engine
