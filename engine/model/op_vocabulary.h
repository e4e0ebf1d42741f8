// The op vocabulary shared by the workload model (what to run) and the trace model (what ran): what an
// operation is, where a copy's bytes live, and which copy API issued it, with their names as files
// write them. Its own header so that engine/workload/ does not depend on the trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/model/op_kind.h"

namespace streamscope::engine {

// Where the bytes of a copy live, as CUDA sees them.
enum class MemKind : std::uint8_t { None, Pageable, Pinned, Registered, Managed, Device, Unknown };

// Which copy API issued a copy: cudaMemcpy (synchronous) or cudaMemcpyAsync.
enum class CopyApi : std::uint8_t { None, Sync, Async };

std::string_view toString(OpKind kind);
std::string_view toString(MemKind kind);
std::string_view toString(CopyApi api);
std::optional<OpKind> opKindFromString(std::string_view s);
std::optional<MemKind> memKindFromString(std::string_view s);
std::optional<CopyApi> copyApiFromString(std::string_view s);
bool isCopy(OpKind kind); // kOpKinds' copy column
bool isGpuWork(OpKind kind); // copies, kernels, memsets, prefetches: occupy an engine of the GPU (gpuWork column)

} // namespace streamscope::engine
