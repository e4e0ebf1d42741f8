// The chunked copy/compute pipeline of Mark Harris's "How to Overlap Data Transfers in CUDA C/C++":
// N chunks over K streams of H2D -> kernel -> D2H, issued depth-first (per chunk: H2D, kernel, D2H;
// his "version 1") or breadth-first (every H2D, then every kernel, then every D2H; "version 2").
// The workload parser expands a file's "pipeline" object with it; the GUI may call it directly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/workload/workload.h"

namespace streamscope::engine {

enum class PipelineOrder : std::uint8_t { DepthFirst, BreadthFirst };

std::string_view toString(PipelineOrder order); // "depth-first" | "breadth-first"

struct PipelineSpec {
    std::uint64_t totalBytes = 16ull << 20; // split evenly into `chunks`
    int chunks = 4;
    int streams = 4; // chunk c runs on stream c % streams
    PipelineOrder order = PipelineOrder::DepthFirst;
    BufferKind hostMemory = BufferKind::Pinned;
    CopyApi api = CopyApi::Async;
    StreamFlags flags = StreamFlags::NonBlocking;
    KernelType kernelType = KernelType::Compute;
    std::int64_t kernelNs = 60'000; // compute kernel: duration per chunk
    int blocks = 64;
    int threadsPerBlock = 256;
};

// Replaces the workload's buffers, streams and schedule: buffers "h_data" (hostMemory) and "d_data"
// (device), both totalBytes; streams "stream0".."stream<K-1>"; for chunk c at offset c*chunkBytes an
// H2D h_data -> d_data, a kernel on that chunk (a memory kernel streams it: dstOffset = the chunk's
// offset), and a D2H back. Ops are named like "H2D 4 MiB pinned [c0]" and carry jsonPath/line.
// Throws Error{InvalidInput} when the spec cannot make a pipeline (no chunks, bytes not divisible by
// chunks, more streams than chunks, a device host memory kind); the parser checks these first to
// name the JSON path.
// The tag that names chunk c in its ops' names (" [c3]"), and a name without it: "H2D 4 MiB pinned [c3]"
// -> "H2D 4 MiB pinned" (every chunk's op of one stage; names without the tag are returned whole).
std::string chunkTag(int chunk);
std::string_view withoutChunkTag(std::string_view name);

void generatePipeline(Workload &workload, const PipelineSpec &spec, const std::string &jsonPath = "/pipeline",
                      int line = 0);

} // namespace streamscope::engine
