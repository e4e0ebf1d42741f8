// layoutHostRanges: per thread, rows by a heap of busy rows, ops tied to ranges by a stack sweep.
#include "engine/model/host_ranges.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <unordered_map>

namespace streamscope::engine {

namespace {

bool rangeBefore(const HostRange &a, const HostRange &b)
{
    if (a.startNs != b.startNs)
        return a.startNs < b.startNs;
    if (a.endNs != b.endNs)
        return a.endNs > b.endNs; // the enclosing one first
    return a.hostThread < b.hostThread;
}

} // namespace

void layoutHostRanges(Repetition &rep)
{
    std::vector<HostRange> &ranges = rep.hostRanges;
    if (!std::is_sorted(ranges.begin(), ranges.end(), rangeBefore))
        std::stable_sort(ranges.begin(), ranges.end(), rangeBefore);
    for (OpRecord &op : rep.ops)
        op.hostRange = -1;
    if (ranges.empty())
        return;

    // The ranges and the op queries of each thread, each list in time order.
    struct ThreadWork {
        std::vector<std::uint32_t> ranges;
        std::vector<std::uint32_t> ops;
    };
    std::unordered_map<std::int32_t, ThreadWork> threads;
    for (std::uint32_t i = 0; i < ranges.size(); ++i)
        threads[ranges[i].hostThread].ranges.push_back(i);
    for (std::uint32_t i = 0; i < rep.ops.size(); ++i) {
        const OpRecord &op = rep.ops[i];
        if (!op.hasHost())
            continue;
        if (auto it = threads.find(op.hostThread); it != threads.end())
            it->second.ops.push_back(i);
    }

    using Busy = std::pair<std::int64_t, std::int32_t>; // (end, row)
    for (auto &[thread, work] : threads) {
        // Rows: the lowest free one at each start.
        std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
        std::priority_queue<std::int32_t, std::vector<std::int32_t>, std::greater<>> free;
        std::int32_t rows = 0;
        for (const std::uint32_t r : work.ranges) {
            HostRange &range = ranges[r];
            while (!busy.empty() && busy.top().first <= range.startNs) {
                free.push(busy.top().second);
                busy.pop();
            }
            std::int32_t row;
            if (free.empty()) {
                row = rows++;
            } else {
                row = free.top();
                free.pop();
            }
            range.depth = row;
            busy.emplace(std::max(range.endNs, range.startNs), row);
        }

        // Ops: the latest-starting range still open at the call's start. Ranges go on the stack in start
        // order; one that ended before the query time never holds a later query, so it is dropped when it
        // is on top. Each range is pushed and popped once.
        std::stable_sort(work.ops.begin(), work.ops.end(), [&](std::uint32_t a, std::uint32_t b) {
            return rep.ops[a].hostStartNs < rep.ops[b].hostStartNs;
        });
        std::vector<std::uint32_t> stack;
        std::size_t next = 0;
        for (const std::uint32_t o : work.ops) {
            OpRecord &op = rep.ops[o];
            const std::int64_t t = op.hostStartNs;
            while (next < work.ranges.size() && ranges[work.ranges[next]].startNs <= t) {
                const std::uint32_t r = work.ranges[next++];
                while (!stack.empty() && ranges[stack.back()].endNs < ranges[r].startNs)
                    stack.pop_back();
                stack.push_back(r);
            }
            while (!stack.empty() && ranges[stack.back()].endNs < t)
                stack.pop_back();
            if (!stack.empty())
                op.hostRange = static_cast<std::int32_t>(stack.back());
        }
    }
}

std::vector<int> hostRangeRows(const Repetition &rep, std::size_t threadCount)
{
    std::vector<int> rows(threadCount + 1, 0);
    for (const HostRange &r : rep.hostRanges) {
        const std::size_t slot = r.hostThread >= 0 && static_cast<std::size_t>(r.hostThread) < threadCount
                                     ? static_cast<std::size_t>(r.hostThread) + 1
                                     : 0;
        rows[slot] = std::max(rows[slot], r.depth + 1);
    }
    return rows;
}

} // namespace streamscope::engine
