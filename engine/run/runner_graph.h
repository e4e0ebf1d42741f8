// Graph mode (Workload::launch "graph", #28): a repetition's ops captured once into a CUDA graph and launched with one
// cudaGraphLaunch per repetition. The capture runs the ops' own calls (callOp, the same as stream mode) with the
// streams in capture: cudaStreamBeginCapture (thread-local mode) on an origin stream, every stream the ops use
// forked from it through an event, the ops issued in their order (their event records and waits become the
// graph's edges), every stream joined back, cudaStreamEndCapture. The graph is instantiated at once, so that
// what instantiation costs is measured apart and is in no repetition. One graph per set of ops: the whole
// workload, and each solo part (run --solo). Private to streamscope_runner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <cuda_runtime_api.h>

#include "engine/model/trace.h"
#include "engine/run/cuda_raii.h"
#include "engine/workload/workload.h"

namespace streamscope::engine {

namespace cupti {
class Tracer;
}

// Graph mode's part of a run (the runner's CudaRun drives it): one instantiated graph per set of ops, the CUPTI node
// ids tied to the ops, and the event that ends each repetition's launch.
class GraphRun {
public:
    GraphRun() = default;
    ~GraphRun();
    GraphRun(const GraphRun &) = delete;
    GraphRun &operator=(const GraphRun &) = delete;

    // Captures each set of ops (plan indices, in issue order; key -1: the whole workload, else a solo part's index)
    // and instantiates it: `call(op)` makes op's call as stream mode does, on `streamOf(op)`. CUPTI ties every node
    // to its op where `tracer` is given; false with `whyNot` where the tracer cannot track nodes (the ops then have
    // no execution time of their own). A call that fails names its op (`context(op)`) and the CUDA error, the
    // capture is ended and dropped, and the run fails with Error{InvalidInput} (the workload cannot be launched as
    // a graph as written).
    bool capture(const std::map<int, std::vector<std::size_t>> &sets, cudaStream_t origin, cupti::Tracer *tracer,
                 const std::function<cudaStream_t(std::size_t)> &streamOf, const std::function<void(std::size_t)> &call,
                 const std::function<std::string(std::size_t)> &context, std::string &whyNot);
    // One repetition: graph `key` launched on `stream` (the caller records end() after it). Returns the launch as
    // a host range of thread 0 (HostRangeCategory::Launch), named in `trace`.
    HostRange launch(int key, cudaStream_t stream, const std::string &context, Trace &trace);
    cudaEvent_t end() const { return m_end.get(); }
    // CUPTI's node ids -> ops, for the record matcher (RepetitionRecords::graphNodes).
    const std::unordered_map<std::uint64_t, std::int32_t> &nodeOps() const { return m_nodeOps; }
    // For the trace's metadata: "the workload's graph: 300 nodes, captured in 1.2 ms and instantiated in 1.6 ms,
    // before the first repetition" (each solo part's graph too).
    std::string description() const;
    // Leaves the graphs as they are (an abandoned run: destroying them could block behind the GPU).
    void leak() { m_graphs.clear(); }

private:
    struct Graph {
        cudaGraphExec_t exec = nullptr;
        std::size_t nodes = 0;
        std::int64_t captureNs = 0; // issuing the ops into the capture, host time
        std::int64_t instantiateNs = 0; // cudaGraphInstantiate, host time
    };
    void captureOne(int key, const std::vector<std::size_t> &ops, cudaStream_t origin,
                    const std::function<cudaStream_t(std::size_t)> &streamOf,
                    const std::function<void(std::size_t)> &call,
                    const std::function<std::string(std::size_t)> &context);

    std::map<int, Graph> m_graphs;
    cuda::Event m_end;
    std::unordered_map<std::uint64_t, std::int32_t> m_nodeOps;
};

// The trace's "launch" metadata and, for a graph not timed by CUPTI, what its ops lack (Trace::timingNote).
void describeLaunch(Trace &trace, LaunchMode launch, const std::string &graphs);

} // namespace streamscope::engine
