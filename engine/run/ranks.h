// Ranks: a workload run as one process per rank under MPI (`mpirun -np N streamscope-cli run --ranks`,
// docs/measurement.md "Ranks"), and how rank 0 makes the ranks' traces one. Plain C++ without MPI: the CLI
// moves the bytes (app/cli/ranks_command.cpp), this says what they mean, so that it is tested without a job.
//
// The clocks: each rank times its ops on its own host's steady clock (CLOCK_MONOTONIC). Ranks whose kernel is
// the same (one boot id: the processes of one machine, containers included) share that clock exactly, and
// their offset is 0 with no error. Across machines the offset is measured, Cristian's way: rank 0 sends, the
// rank answers with its clock's reading, rank 0 notes when the answer came; of many such round trips the
// shortest bounds the error best (the reading was taken within it, so the offset is known to half of it).
// Rank 0's clock is the merged trace's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/trace.h"
#include "engine/workload/workload.h"

namespace streamscope::engine {

// One round trip: rank 0's clock when it sent and when the answer came, the rank's clock in between.
struct ClockSample {
    std::int64_t sentNs = 0;
    std::int64_t remoteNs = 0;
    std::int64_t receivedNs = 0;
};

// A rank's clock against rank 0's: host_ns on rank 0 = host_ns on the rank - offsetNs, to within errorNs.
struct ClockOffset {
    std::int64_t offsetNs = 0;
    std::int64_t errorNs = 0;
    bool sameClock = false; // the same kernel's clock (one boot id): offset 0 exactly
    // What the round trips measured (kept as a check where the clock is the same), and how many there were.
    std::int64_t measuredNs = 0;
    std::int64_t measuredErrorNs = 0;
    int samples = 0;
};

// The offset from the round trips (the shortest one's midpoint), and where both ranks have one boot id, 0
// with the measurement kept beside it. Error{Internal} where there is no sample or a sample runs backwards.
ClockOffset estimateClockOffset(const std::vector<ClockSample> &samples, bool sameClock);

// What rank 0 gathers from each rank.
struct RankTrace {
    Trace trace; // the rank's part as it ran (rank_part.h)
    std::string host; // its machine's name
    std::int64_t pid = -1;
    int localDevice = 0; // the CUDA device its part ran on, in its process
    ClockOffset clock; // against rank 0 (rank 0's: none)
};

// One trace of the whole workload from every rank's (index = rank): streams in the workload's order, each
// rank's GPU as device `rank` (the workload's numbering), each rank's host threads as a process of its own
// ("rank 1 · main", its pid), every time on rank 0's clock, ops in the workload's issue order; the
// repetitions every rank measured. Metadata says where each rank ran, its clock offset and error, and
// what it recorded differently from rank 0 ("rank1.<key>"). Error{InvalidInput} where a rank's trace does
// not fit its part of `workload` (another workload, another job size).
Trace mergeRankTraces(const Workload &workload, std::vector<RankTrace> ranks);

// The links between the ranks' GPUs where every rank ran on one machine, from that machine's links (Topology::
// peerLinks) and each rank's GPU there (index = rank): src and dst become ranks, as the merged trace numbers
// its devices. Peer access is what a process of the job had: off (each process enabled none).
std::vector<PeerLink> rankLinks(const std::vector<PeerLink> &host, const std::vector<int> &localDevices);

} // namespace streamscope::engine
