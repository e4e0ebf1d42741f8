// Expansion of a PipelineSpec into buffers, streams, ops and the host's issue order.
#include "engine/pipeline_generator.h"

#include "engine/errors.h"

namespace streamscope::engine {

std::string_view toString(PipelineOrder order)
{
    return order == PipelineOrder::DepthFirst ? "depth-first" : "breadth-first";
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

    // Per chunk, where its three ops landed: (stream, op index) for H2D, kernel, D2H.
    struct ChunkOps {
        ScheduledOp stage[3];
    };
    std::vector<ChunkOps> chunks(static_cast<std::size_t>(spec.chunks));
    for (int c = 0; c < spec.chunks; ++c) {
        const int s = c % spec.streams;
        const std::uint64_t offset = chunkBytes * static_cast<std::uint64_t>(c);
        const std::string tag = " [c" + std::to_string(c) + "]";
        std::vector<OpSpec> &ops = w.streams[static_cast<std::size_t>(s)].ops;

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

        OpSpec *stages[3] = {&h2d, &kernel, &d2h};
        for (int k = 0; k < 3; ++k) {
            OpSpec &op = *stages[k];
            op.name = describe(op, w) + tag;
            op.jsonPath = jsonPath;
            op.line = line;
            chunks[static_cast<std::size_t>(c)].stage[k] = {s, static_cast<int>(ops.size())};
            ops.push_back(std::move(op));
        }
    }

    w.schedule.clear();
    if (spec.order == PipelineOrder::DepthFirst) {
        w.issueOrder = IssueOrder::StreamOrder;
        for (const ChunkOps &c : chunks)
            for (const ScheduledOp &op : c.stage)
                w.schedule.push_back(op);
    } else {
        w.issueOrder = IssueOrder::RoundRobin;
        for (int k = 0; k < 3; ++k)
            for (const ChunkOps &c : chunks)
                w.schedule.push_back(c.stage[k]);
    }
}

} // namespace streamscope::engine
