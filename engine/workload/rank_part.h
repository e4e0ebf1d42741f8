// One rank's part of a workload that runs as one process per rank under MPI (`mpirun -np N streamscope-cli
// run --ranks`, docs/workload-format.md "Ranks"): rank r runs what the workload puts on its GPU r (the
// streams, their host threads and the buffers they use), on the GPU its process was given, and its
// collectives join one communicator of every rank's GPU. Nothing else may cross from one rank to another:
// a wait or an event sync on an event another rank records, a peer copy, a buffer of another GPU, a host
// thread driving streams on two GPUs. Each is refused, naming the op with its JSON path and line.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/workload/workload.h"

namespace streamscope::engine {

struct RankPart {
    Workload workload; // the rank's part, its devices moved to the process's GPU (Workload::rankOf says so)
    std::vector<std::int32_t> streams; // per part stream: its index in the whole workload's streams
    std::vector<std::int32_t> threads; // per part thread: its index in the whole workload's threads
    std::vector<std::int32_t> schedule; // per part schedule entry: its index in the whole workload's schedule
};

// Checks that a job of `ranks` processes can run the workload (its GPUs are exactly 0..ranks-1, one per
// rank) and that nothing crosses between ranks; Error{InvalidInput} naming what does and where.
void checkRankSplit(const Workload &workload, int ranks);

// Rank `rank`'s part (after checkRankSplit), on CUDA device `localDevice` of its process.
RankPart rankPart(const Workload &workload, int rank, int ranks, int localDevice);

} // namespace streamscope::engine
