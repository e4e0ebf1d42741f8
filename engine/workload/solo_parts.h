// The parts of a workload that `run --solo` runs alone (docs/measurement.md "The price of overlap"): each
// stream is a part of its own unless streams name a common "part" (StreamSpec::part), and then they run
// alone together. Parts must not wait on each other: a wait or an event sync that pairs with a record on a
// stream of another part could not run alone (it would wait for work that is not there, or for nothing),
// so such a workload is refused, naming the event and both parts; so is one whose collectives (made on
// every GPU of a communicator at once) are split between parts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/workload/workload.h"

namespace streamscope::engine {

struct SoloParts {
    std::vector<std::string> names; // each part's name, in the order of their first stream
    std::vector<std::int32_t> streamPart; // per Workload::streams entry: its part
    std::vector<std::int32_t> opPart; // per Workload::schedule entry: its stream's part
};

// Throws Error{InvalidInput} for a workload whose parts wait on each other, and for one with a single part
// (nothing would run beside anything: there is no overlap to price).
SoloParts soloParts(const Workload &workload);

// One rank's part of a workload (Workload::rankOf) has the whole workload's parts, in the same order on every
// rank, some of them without a stream of its own.
//
// How many parts the workload has (each stream, or the streams naming one part): a workload that asks for
// solo baselines itself ("solo": true) and has one part, such as a lesson's one-stream comparison variant,
// runs without them.
std::size_t countSoloParts(const Workload &workload);

} // namespace streamscope::engine
