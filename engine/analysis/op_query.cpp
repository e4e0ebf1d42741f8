// findOps(): per-name matching (once per distinct name), then kind, lane and duration per op.
#include "engine/analysis/op_query.h"

#include <algorithm>
#include <regex>

#include "engine/model/api_names.h"
#include "engine/model/errors.h"
#include "engine/util/name_suggestion.h"

namespace streamscope::engine {

std::int64_t queryDurationNs(const OpRecord &op)
{
    if (op.hasGpu())
        return op.gpuDurationNs();
    if (op.hasHost())
        return op.hostDurationNs();
    return 0;
}

std::vector<int> findOps(const Trace &trace, int repetition, const OpQuery &query)
{
    if (query.minDurationNs > query.maxDurationNs)
        throw Error(ErrorKind::InvalidInput, "find: the duration range is empty (at least "
                                                 + std::to_string(query.minDurationNs) + " ns, at most "
                                                 + std::to_string(query.maxDurationNs) + " ns)");
    std::optional<std::regex> pattern;
    if (query.regex && !query.text.empty()) {
        try {
            pattern.emplace(query.text, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
        } catch (const std::regex_error &e) {
            throw Error(ErrorKind::InvalidInput,
                        "find: '" + query.text + "' is not a valid regular expression (" + e.what() + ")");
        }
    }
    const std::string needle = asciiLower(query.text);
    auto textMatches = [&](std::string_view s) {
        if (pattern)
            return std::regex_search(s.begin(), s.end(), *pattern);
        return asciiLower(s).find(needle) != std::string::npos;
    };
    std::vector<int> result;
    if (repetition < 0 || repetition >= static_cast<int>(trace.repetitions.size()))
        return result;

    const Repetition &rep = trace.repetitions[static_cast<std::size_t>(repetition)];
    // Each distinct name tested once: 0 unknown, 1 no, 2 yes.
    std::vector<std::uint8_t> nameMatch(trace.strings.size(), 0);
    auto stringMatches = [&](std::uint32_t id) {
        if (id >= nameMatch.size())
            return false;
        std::uint8_t &m = nameMatch[id];
        if (m == 0)
            m = textMatches(trace.strings[id]) ? 2 : 1;
        return m == 2;
    };
    auto nameMatches = [&](const OpRecord &op) {
        if (query.text.empty())
            return true;
        if (stringMatches(op.nameId))
            return true;
        // The NVTX range (or Kineto cpu_op) it was launched in: "forward" finds the kernels of the forward pass.
        if (const HostRange *range = rep.enclosingRange(op); range && stringMatches(range->nameId))
            return true;
        // The call that issued it ("cudaMemcpyAsync"), where the runner or the import knows it.
        if (op.kind == OpKind::Other || op.kind == OpKind::HostWork || !op.hasHost())
            return false;
        return textMatches(apiNameOf(op));
    };
    auto laneMatches = [&](const OpRecord &op) {
        if (query.lane.empty())
            return true;
        if (op.stream >= 0 && op.stream < static_cast<int>(trace.streams.size())
            && trace.streams[static_cast<std::size_t>(op.stream)].name == query.lane)
            return true;
        return op.hostThread >= 0 && op.hostThread < static_cast<int>(trace.hostThreads.size())
               && trace.hostThreads[static_cast<std::size_t>(op.hostThread)].name == query.lane;
    };

    const auto &ops = rep.ops;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const OpRecord &op = ops[i];
        if (query.kind && op.kind != *query.kind)
            continue;
        const std::int64_t d = queryDurationNs(op);
        if (d < query.minDurationNs || d > query.maxDurationNs)
            continue;
        if (!laneMatches(op) || !nameMatches(op))
            continue;
        result.push_back(static_cast<int>(i));
    }
    auto startOf = [&](int i) {
        const OpRecord &op = ops[static_cast<std::size_t>(i)];
        return op.hasGpu() ? op.gpuStartNs : op.hasHost() ? op.hostStartNs : std::numeric_limits<std::int64_t>::max();
    };
    std::stable_sort(result.begin(), result.end(), [&](int a, int b) { return startOf(a) < startOf(b); });
    return result;
}

} // namespace streamscope::engine
