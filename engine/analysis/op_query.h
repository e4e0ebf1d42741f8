// Finding ops: the query behind the app's find bar (and anything else that asks "which ops are these?").
// An op matches when every part given matches: its name, the NVTX range (or Kineto cpu_op) it was
// launched in or the CUDA API call that issued it contains the text (case-insensitive) or matches it as a
// regular expression (ECMAScript, case-insensitive); its kind is the kind asked for; it runs on the lane
// asked for (a stream's or a host thread's name); its duration (GPU, else host call) lies in the range.
// Names are few and ops many, so a query tests each distinct name once.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/trace.h"

namespace streamscope::engine {

struct OpQuery {
    std::string text; // empty: any name
    bool regex = false;
    std::optional<OpKind> kind;
    std::string lane; // a stream's or host thread's name, exactly; empty: any lane
    std::int64_t minDurationNs = 0;
    std::int64_t maxDurationNs = std::numeric_limits<std::int64_t>::max();

    // Nothing asked: every op matches, and a find bar shows no matches.
    bool isEmpty() const
    {
        return text.empty() && !kind && lane.empty() && minDurationNs <= 0
               && maxDurationNs == std::numeric_limits<std::int64_t>::max();
    }
};

// The ops of one repetition that match, as indexes into its ops, ordered by when they start (GPU start,
// else host call start; ties by index), the order a find bar walks them in. Throws Error{InvalidInput}
// naming the pattern and what is wrong with it when `regex` is set and the text is not a valid pattern,
// or when the duration range is empty.
std::vector<int> findOps(const Trace &trace, int repetition, const OpQuery &query);

// The duration findOps compares: the GPU interval, else the host call, else 0.
std::int64_t queryDurationNs(const OpRecord &op);

} // namespace streamscope::engine
