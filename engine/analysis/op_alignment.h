// The one op aligner: which op of trace A is which op of trace B. Both comparisons use it: the trace
// diff (any two traces, per-op medians; trace_diff.h) and the Nsight comparison (a run against Nsight's
// capture of it, op by op per repetition; nsight_compare.h). Ops are grouped in lanes (the caller gives
// equal lane numbers to lanes it has paired, e.g. streams of the same name) and matched in passes:
//   1. by name and occurrence within the lane: the k-th op named N in a lane with the k-th op named N
//      in the same lane of the other side;
//   2. optionally across lanes, by name, among what is left: a synchronous cudaMemcpy issued "on" a
//      workload stream runs on the legacy default stream, where Nsight shows it;
//   3. optionally by order within the lane among what is left: all kinds (the same run seen by two
//      tools, where the order is the identity), or only ops of the same identity, kind and size
//      (a copy or memset another tool names differently). Kernels and API calls are never paired by
//      order there: they carry no size, so only their names say which is which, and a 240 us kernel is
//      not "faster" than a 60 us one it happens to follow.
// Names are compared as given: normalise them first (normalizeOpName) to match across tools.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/op_vocabulary.h"

namespace streamscope::engine {

enum class MatchMethod : std::uint8_t { ByName, ByOrder };
std::string_view toString(MatchMethod method); // "name" | "order"

struct AlignItem {
    int lane = 0; // items of equal lane numbers on the two sides are in corresponding lanes
    std::string name; // the name matched by (already normalised if wanted)
    OpKind kind = OpKind::Other;
    std::uint64_t bytes = 0; // a copy's or memset's size (identity in pass 3)
};

enum class OrderFallback : std::uint8_t {
    None, // leftovers stay unmatched
    InLane, // leftovers of a lane paired in order, whatever their kind
    InLaneSameIdentity, // leftovers of a lane paired in order among copies and memsets of one kind and size
};

struct AlignOptions {
    bool acrossLanes = false; // pass 2
    OrderFallback order = OrderFallback::InLaneSameIdentity; // pass 3
};

struct OpAlignment {
    struct Match {
        int b = -1; // index into B's items, -1: none
        MatchMethod method = MatchMethod::ByName;
        bool acrossLanes = false; // matched in pass 2 (B's item lies in another lane)
        int occurrence = 0; // how many items of this name come before it in A's lane
    };
    std::vector<Match> a; // one per item of A
    std::vector<int> partnerOfB; // index into A's items, -1: none
};

// Items in each lane are taken in the order given (their position in the lane). Pass 2 visits A's
// leftovers by lane number, then position, and B's of one name by lane number, then position.
OpAlignment alignOps(const std::vector<AlignItem> &a, const std::vector<AlignItem> &b, const AlignOptions &options);

} // namespace streamscope::engine
