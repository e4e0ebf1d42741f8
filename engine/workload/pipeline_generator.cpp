// Expansion of a PipelineSpec into buffers, streams, ops and the host's issue order.
#include "engine/workload/pipeline_generator.h"

#include <array>

#include "engine/model/errors.h"

namespace streamscope::engine {

std::string_view toString(PipelineOrder order)
{
    return order == PipelineOrder::DepthFirst ? "depth-first" : "breadth-first";
}

std::string chunkTag(int chunk)
{
    return " [c" + std::to_string(chunk) + "]";
}

std::string_view withoutChunkTag(std::string_view name)
{
    if (name.size() < 5 || name.back() != ']')
        return name;
    const std::size_t open = name.rfind(" [c");
    if (open == std::string_view::npos || open + 4 >= name.size())
        return name;
    for (std::size_t i = open + 3; i + 1 < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9')
            return name;
    return name.substr(0, open);
}

void generatePipeline(Workload &w, const PipelineSpec &spec, const std::string &jsonPath, int line)
{
    const auto fail = [&](const std::string &what) {
        throw Error(ErrorKind::InvalidInput, "pipeline at " + jsonPath + ": " + what);
    };
    if (spec.chunks < 1)
        fail("needs at least 1 chunk");
    if (spec.streams < 1)
        fail("needs at least 1 stream");
    if (spec.streams > spec.chunks)
        fail("more streams than chunks would leave streams idle");
    if (spec.totalBytes == 0 || spec.totalBytes % static_cast<std::uint64_t>(spec.chunks) != 0)
        fail("total bytes must be a positive multiple of the chunk count");
    if (spec.hostMemory == BufferKind::Device || spec.hostMemory == BufferKind::Managed)
        fail("host memory must be pageable, pinned or registered");

    const std::uint64_t chunkBytes = spec.totalBytes / static_cast<std::uint64_t>(spec.chunks);
    w.buffers = {BufferSpec{"h_data", spec.hostMemory, spec.totalBytes},
                 BufferSpec{"d_data", BufferKind::Device, spec.totalBytes}};
    w.streams.clear();
    for (int s = 0; s < spec.streams; ++s) {
        StreamSpec stream;
        stream.name = "stream" + std::to_string(s);
        stream.flags = spec.flags;
        w.streams.push_back(std::move(stream));
    }

    // Each chunk's three ops (H2D, kernel, D2H), made first; then every op goes to the end of its stream's
    // list in the order the host issues it, so that each stream's list is its issue order (the parser
    // requires it of a schedule, and a CUDA stream runs its ops in that order anyway).
    std::vector<std::array<OpSpec, 3>> chunks(static_cast<std::size_t>(spec.chunks));
    for (int c = 0; c < spec.chunks; ++c) {
        const std::uint64_t offset = chunkBytes * static_cast<std::uint64_t>(c);
        const std::string tag = chunkTag(c);

        OpSpec h2d;
        h2d.type = OpType::Copy;
        h2d.direction = CopyDirection::H2D;
        h2d.api = spec.api;
        h2d.src = "h_data";
        h2d.dst = "d_data";
        h2d.srcOffset = h2d.dstOffset = offset;
        h2d.bytes = chunkBytes;

        OpSpec kernel;
        kernel.type = OpType::Kernel;
        kernel.kernelType = spec.kernelType;
        kernel.blocks = spec.blocks;
        kernel.threadsPerBlock = spec.threadsPerBlock;
        if (spec.kernelType == KernelType::Compute) {
            kernel.durationNs = spec.kernelNs;
        } else {
            kernel.buffer = "d_data";
            kernel.dstOffset = offset;
            kernel.bytes = chunkBytes;
        }

        OpSpec d2h = h2d;
        d2h.direction = CopyDirection::D2H;
        d2h.src = "d_data";
        d2h.dst = "h_data";

        auto &stages = chunks[static_cast<std::size_t>(c)];
        stages = {std::move(h2d), std::move(kernel), std::move(d2h)};
        for (OpSpec &op : stages) {
            op.name = describe(op, w) + tag;
            op.jsonPath = jsonPath;
            op.line = line;
        }
    }

    w.schedule.clear();
    w.issueOrder = spec.order == PipelineOrder::DepthFirst ? IssueOrder::StreamOrder : IssueOrder::RoundRobin;
    auto issue = [&](int c, int k) {
        const int s = c % spec.streams;
        std::vector<OpSpec> &ops = w.streams[static_cast<std::size_t>(s)].ops;
        w.schedule.push_back({s, static_cast<int>(ops.size())});
        ops.push_back(std::move(chunks[static_cast<std::size_t>(c)][static_cast<std::size_t>(k)]));
    };
    if (spec.order == PipelineOrder::DepthFirst) {
        for (int c = 0; c < spec.chunks; ++c)
            for (int k = 0; k < 3; ++k)
                issue(c, k);
    } else {
        for (int k = 0; k < 3; ++k)
            for (int c = 0; c < spec.chunks; ++c)
                issue(c, k);
    }
}

} // namespace streamscope::engine
