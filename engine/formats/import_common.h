// What the two importers (Nsight Systems SQLite, Chrome/Kineto JSON) share: the lanes of an imported
// trace in (device, stream) order with one naming rule, and the order of its ops.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/trace.h"

namespace streamscope::engine {

// (device, native stream id) of each stream as the importer met it.
using ImportedStream = std::pair<std::int64_t, std::int64_t>;

// Appends one StreamInfo per key to trace.streams, sorted by (device, stream id), and returns for each
// key (in the given order) its index in trace.streams. Names are baseName(device, stream), "stream N"
// when none is given, prefixed with "GPU d " when several devices ran work.
std::vector<int>
addStreamsInOrder(Trace &trace, const std::vector<ImportedStream> &keys,
                  const std::function<std::string(std::int64_t device, std::int64_t stream)> &baseName = {});

// Imported ops are ordered by GPU start; host-only ops by the start of their call, among them.
inline std::int64_t importOrderKey(const OpRecord &op)
{
    return op.hasGpu() ? op.gpuStartNs : op.hostStartNs;
}

} // namespace streamscope::engine
