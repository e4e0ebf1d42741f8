// The axes an experiment varies a workload along (host memory kind, copy API, stream count, issue order,
// chunk count, transfer size, hardware queues, peer access, GPU count,
// default stream, overlapped or serial, NCCL's thread-block budget, streams or a graph), the values a user types after
// --vary AXIS= or writes in a workload's "compare" list, and their checking. In engine/workload/ because the workload
// parser checks a lesson's "compare" list with them; experiments (engine/experiment/) apply them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace streamscope::engine {

// What an experiment varies. The values are the words a user types after --vary AXIS=.
enum class Axis : std::uint8_t {
    Memory, // pageable | pinned | registered | managed: host buffers' kind, the pipeline's hostMemory
    Api, // sync | async: every copy's api, the pipeline's api
    Streams, // a count: the pipeline's streams
    Order, // depth-first | breadth-first: the pipeline's order
    Chunks, // a count: the pipeline's chunks
    Size, // a byte size: the pipeline's bytes, or every copy's bytes (buffers grown to fit)
    Connections, // 1..32: the workload's maxConnections (hardware queues); each variant runs in a process of its own
    PeerAccess, // on | off: a version 2 workload's peerAccess (peer copies direct, or staged through the host)
    Devices, // a count: the GPUs a version 2 workload's devices are mapped onto (device d runs on d mod N)
    DefaultStream, // legacy | per-thread: the workload's defaultStream (what stream 0 means, per host thread or not)
    Schedule, // overlapped | serial: the workload as written, or every stream waiting for the one before ("serial":
              // true)
    MaxCtas, // default | 1..64: the collectives' "nccl": {"maxCTAs"} (the thread blocks NCCL may take from compute)
    CtaPolicy, // default | efficiency | zero: the collectives' "nccl": {"ctaPolicy"} (zero: copy-engine collectives)
    Launch, // streams | graph: the workload's "launch" (each op's own call, or one CUDA graph per repetition)
    Pdl, // off | on: every kernel op's "pdl" whose type takes it (programmatic dependent launch)
};

std::string_view toString(Axis axis);
std::optional<Axis> axisFromString(std::string_view name);
// "memory, api, ..., defaultStream": every axis's name, for messages.
std::string axisNameList(std::string_view lastSeparator = ", ");

struct AxisValues {
    Axis axis = Axis::Memory;
    std::vector<std::string> values; // normalised ("4 MiB" for sizes), in the order given
};

struct AxisSetting {
    Axis axis = Axis::Memory;
    std::string value;
};

// "memory=pinned, api=async": the settings in axis order.
std::string variantLabel(const std::vector<AxisSetting> &settings);

// "memory=pageable,pinned" (the text of one --vary option) -> the axis and its values, checked and
// normalised. Throws Error{InvalidInput} saying what is wrong with the option and what is accepted.
AxisValues parseVaryOption(std::string_view text);

// One value of an axis, checked and normalised ("16MiB" -> "16 MiB"); throws Error{InvalidInput} whose
// message starts with `where` ("--vary api=x: ") and lists what the axis accepts.
std::string checkedAxisValue(Axis axis, std::string value, const std::string &where);

} // namespace streamscope::engine
