// What the CUDA benchmarks' plain programs share (header-only, for the runner benchmarks): an event-timed copy
// loop on one non-blocking stream, the reference every "engine / plain" ratio is taken against.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "bench/bench_common.h"
#include "engine/run/cuda_check.h"
#include "engine/run/cuda_raii.h"

namespace streamscope::bench {

// Median GB/s of `reps` copies of `bytes` (after 3 warm-ups), each timed by an event pair around the
// one call `enqueue(stream)` makes. The stream is made on the current device.
template <typename Enqueue> double eventTimedGBs(std::uint64_t bytes, int reps, const char *context, Enqueue enqueue)
{
    engine::cuda::Stream stream(cudaStreamNonBlocking, 0, context);
    engine::cuda::Event a(cudaEventDefault, context), b(cudaEventDefault, context);
    std::vector<double> gbs;
    for (int i = 0; i < reps + 3; ++i) {
        STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(a.get(), stream.get()));
        STREAMSCOPE_CUDA_CHECK(context, enqueue(stream.get()));
        STREAMSCOPE_CUDA_CHECK(context, cudaEventRecord(b.get(), stream.get()));
        STREAMSCOPE_CUDA_CHECK(context, cudaEventSynchronize(b.get()));
        float ms = 0;
        STREAMSCOPE_CUDA_CHECK(context, cudaEventElapsedTime(&ms, a.get(), b.get()));
        if (i >= 3)
            gbs.push_back(double(bytes) / (double(ms) * 1e6));
    }
    return median(gbs);
}

// The repetition span the engine reports too: from `start` to the last of `ends` (one per stream), in
// ns, once they have all completed.
inline double spanToLastEnd(const char *context, cudaEvent_t start, const std::vector<engine::cuda::Event> &ends)
{
    double span = 0;
    for (const engine::cuda::Event &e : ends) {
        STREAMSCOPE_CUDA_CHECK(context, cudaEventSynchronize(e.get()));
        float ms = 0;
        STREAMSCOPE_CUDA_CHECK(context, cudaEventElapsedTime(&ms, start, e.get()));
        span = std::max(span, double(ms) * 1e6);
    }
    return span;
}

} // namespace streamscope::bench
