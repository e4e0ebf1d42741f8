// Import of Nsight Systems' SQLite export (`nsys export --type sqlite`) into a StreamScope Trace:
// kernels, copies and memsets per (device, stream), runtime API calls on their host threads linked by
// correlationId, synchronisation calls as host-only ops, GPU info and stream names, kernels' launch
// details (grid, block, shared memory, registers), and NVTX ranges as host ranges: kernels keep their own
// (short, demangled) name and each op is tied to the innermost range around its API call; a capture of
// streamscope-cli (ranges "rep N" / "warmup N") names its ops after their op ranges and is split into its
// measured repetitions. Tables exist only when they
// have rows and columns differ across nsys versions (2021.2 to 2026.x are tested), so every table and
// column is looked up before use. The mapping is documented in docs/formats.md.
#pragma once

#include <string>

#include "engine/model/trace.h"
#include "engine/util/load_control.h"

namespace streamscope::engine {

// One repetition (index 0), ops sorted by GPU start (host-only ops by host start), times kept as
// Nsight's nanoseconds since session start. A file with NVTX ranges named "rep N" holds one repetition
// per such range instead (index N), without warm-ups, the runner's own calls or empty streams; what was
// dropped is counted in Trace::metadata ("nvtx.*"), and metadata["op_names"] = "nvtx" when ranges named ops. Memory
// follows the rows a table has (counted), never a number read from the file. Throws
// Error{Io} when the file cannot be opened and Error{InvalidInput} naming the file, table, column and row for a file
// that is not an Nsight export, a corrupt database, a table that lacks a needed column or a value of the wrong type.
// The file is opened defensively (nothing its schema computes is run: views, virtual tables and generated
// columns are refused; SQLite's work, memory and value lengths are bounded; a damaged b-tree is refused by
// PRAGMA quick_check), and every limit of docs/formats.md is checked before the rows it bounds are read.
// `control`'s cancel (and Ctrl-C) stops it with Error{Cancelled}, also in the middle of a query.
Trace importNsysSqlite(const std::string &path, const LoadControl &control = {});

} // namespace streamscope::engine
