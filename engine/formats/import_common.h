// What the two importers (Nsight Systems SQLite, Chrome/Kineto JSON) share: the lanes of an imported
// trace in (device, stream) order with one naming rule, and the order of its ops.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "engine/model/trace.h"

namespace streamscope::engine {

// The largest device id a trace holds: devices are ints in the model (StreamInfo::device, DeviceInfo::index).
// A reader refuses a larger (or a more negative) one where it reads it, naming the place: truncated, ids
// 2^32 apart became the same "GPU 0" (#24).
inline constexpr std::int64_t kMaxDeviceId = std::numeric_limits<int>::max();

// Empty when `id` is a device id the model can hold, else what is wrong with it, for the reader's message.
std::string deviceIdProblem(std::int64_t id);

// (device, native stream id) of each stream as the importer met it.
using ImportedStream = std::pair<std::int64_t, std::int64_t>;

// Appends one StreamInfo per key to trace.streams, sorted by (device, stream id), and returns for each
// key (in the given order) its index in trace.streams. Names are baseName(device, stream), "stream N"
// when none is given, prefixed with "GPU d " when several devices ran work. Every device id must pass
// deviceIdProblem() (the readers check it where they read it); one that does not throws Error{InvalidInput}.
std::vector<int>
addStreamsInOrder(Trace &trace, const std::vector<ImportedStream> &keys,
                  const std::function<std::string(std::int64_t device, std::int64_t stream)> &baseName = {});

// Imported ops are ordered by GPU start; host-only ops by the start of their call, among them.
inline std::int64_t importOrderKey(const OpRecord &op)
{
    return op.hasGpu() ? op.gpuStartNs : op.hostStartNs;
}

// Communication in an imported trace, classified by the call that launched it, as a run classifies it: a
// kernel whose launch ran inside a host range named for NCCL ("nccl:all_reduce", PyTorch's ProcessGroupNCCL
// annotation; "ncclAllReduce ...", NCCL's own or StreamScope's NVTX range) becomes a collective
// (OpKind::Collective); its own name is never read. Call after layoutHostRanges (it reads each op's
// launching range). Returns how many kernels it classified, and says so in trace.metadata["communication"].
std::size_t classifyCollectivesByRange(Trace &trace);

} // namespace streamscope::engine
