// `mpirun -np N streamscope-cli run --ranks WORKLOAD`: the workload as one process per rank (docs/measurement.md
// "Ranks"). Rank r runs what the workload puts on its GPU r, on its own GPU (its place among its machine's
// ranks); the ranks' collectives join one NCCL communicator whose unique id rank 0 makes and MPI sends; the
// ranks start each repetition together (an MPI barrier); afterwards rank 0 measures each rank's clock offset
// and gathers the traces into one (engine/run/ranks.h), which it writes and summarises. A failure that every
// rank meets alike (the workload, its split into ranks) is said once by rank 0; one that a rank meets alone
// (inside its run) is said by that rank, naming it, and ends the job (MPI_Abort) with the error's exit code.
#pragma once

#include <atomic>
#include <iosfwd>

#include "app/cli/commands.h"

namespace streamscope::cli {

int cmdRunRanks(const RunArgs &args, const std::atomic<bool> &cancel, std::ostream &out, std::ostream &err);
// Whether this build has MPI (configure found it).
bool ranksAvailable();

} // namespace streamscope::cli
