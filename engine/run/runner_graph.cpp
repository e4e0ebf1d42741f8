// Graph mode: capture, instantiation and launch (runner_graph.h).
#include "engine/run/runner_graph.h"

#include <algorithm>
#include <exception>

#include "engine/model/errors.h"
#include "engine/model/units.h"
#include "engine/run/cuda_check.h"
#include "engine/run/cuda_raii.h"
#include "engine/run/runner_calls.h"
#include "engine/run/runner_cupti.h"

namespace streamscope::engine {

namespace {

// Ends a capture that failed and drops what it held; the stream is usable again.
void abandonCapture(cudaStream_t origin)
{
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(origin, &partial);
    if (partial)
        cudaGraphDestroy(partial);
    cudaGetLastError();
}

[[noreturn]] void captureFailed(const std::string &where, const std::string &what)
{
    throw Error(ErrorKind::InvalidInput,
                "capturing the repetition's graph (\"launch\": \"graph\"): " + where + ": " + what
                    + "; the workload cannot be launched as a graph as it is written (launch it on streams)");
}

} // namespace

GraphRun::~GraphRun()
{
    for (auto &[key, graph] : m_graphs)
        if (graph.exec)
            cudaGraphExecDestroy(graph.exec);
}

void GraphRun::captureOne(int key, const std::vector<std::size_t> &ops, cudaStream_t origin,
                          const std::function<cudaStream_t(std::size_t)> &streamOf,
                          const std::function<void(std::size_t)> &call,
                          const std::function<std::string(std::size_t)> &context)
{
    const std::string what =
        key < 0 ? std::string("the repetition's graph") : "solo part " + std::to_string(key) + "'s graph";
    std::vector<cudaStream_t> streams;
    for (const std::size_t op : ops)
        if (const cudaStream_t s = streamOf(op); std::find(streams.begin(), streams.end(), s) == streams.end())
            streams.push_back(s);
    const cuda::Event fork(cudaEventDisableTiming, "capturing " + what + ": its fork event");
    std::vector<cuda::Event> joins;
    for (std::size_t i = 0; i < streams.size(); ++i)
        joins.emplace_back(cudaEventDisableTiming, "capturing " + what + ": a join event");

    Graph graph;
    const std::int64_t start = hostNowNs();
    STREAMSCOPE_CUDA_CHECK("capturing " + what, cudaStreamBeginCapture(origin, cudaStreamCaptureModeThreadLocal));
    try {
        STREAMSCOPE_CUDA_CHECK("capturing " + what + ": forking", cudaEventRecord(fork.get(), origin));
        for (const cudaStream_t s : streams)
            STREAMSCOPE_CUDA_CHECK("capturing " + what + ": forking", cudaStreamWaitEvent(s, fork.get(), 0));
    } catch (const Error &) {
        abandonCapture(origin);
        throw;
    }
    for (const std::size_t op : ops) {
        try {
            call(op);
        } catch (const Error &e) {
            abandonCapture(origin);
            captureFailed(context(op), e.what());
        } catch (...) {
            abandonCapture(origin);
            throw;
        }
    }
    try {
        for (std::size_t i = 0; i < streams.size(); ++i) {
            STREAMSCOPE_CUDA_CHECK("capturing " + what + ": joining", cudaEventRecord(joins[i].get(), streams[i]));
            STREAMSCOPE_CUDA_CHECK("capturing " + what + ": joining", cudaStreamWaitEvent(origin, joins[i].get(), 0));
        }
    } catch (const Error &) {
        abandonCapture(origin);
        throw;
    }
    cudaGraph_t captured = nullptr;
    if (const cudaError_t e = cudaStreamEndCapture(origin, &captured); e != cudaSuccess) {
        if (captured)
            cudaGraphDestroy(captured);
        cudaGetLastError();
        captureFailed(what, std::string("cudaStreamEndCapture: ") + cuda::errorText(e));
    }
    graph.captureNs = hostNowNs() - start;
    cudaGraphGetNodes(captured, nullptr, &graph.nodes);
    const std::int64_t instantiate = hostNowNs();
    const cudaError_t e = cudaGraphInstantiate(&graph.exec, captured, 0);
    graph.instantiateNs = hostNowNs() - instantiate;
    cudaGraphDestroy(captured);
    if (e != cudaSuccess) {
        cudaGetLastError();
        captureFailed(what, std::string("cudaGraphInstantiate: ") + cuda::errorText(e));
    }
    m_graphs[key] = graph;
}

std::string GraphRun::description() const
{
    std::string out;
    for (const auto &[key, graph] : m_graphs) {
        out += out.empty() ? "" : "; ";
        out += (key < 0 ? std::string("the workload's graph: ") : "solo part " + std::to_string(key) + "'s: ")
               + std::to_string(graph.nodes) + " nodes, captured in " + formatDuration(graph.captureNs)
               + " and instantiated in " + formatDuration(graph.instantiateNs);
    }
    return out.empty() ? out : out + ", before the first repetition";
}

bool GraphRun::capture(const std::map<int, std::vector<std::size_t>> &sets, cudaStream_t origin, cupti::Tracer *tracer,
                       const std::function<cudaStream_t(std::size_t)> &streamOf,
                       const std::function<void(std::size_t)> &call,
                       const std::function<std::string(std::size_t)> &context, std::string &whyNot)
{
    const bool nodes = tracer && tracer->trackGraphNodes(whyNot);
    m_end = cuda::Event(cudaEventDefault, "the graph's end event");
    const auto tied = [&](std::size_t op) {
        if (nodes)
            tracer->setCaptureOp(int(op));
        call(op);
    };
    try {
        for (const auto &[key, ops] : sets)
            captureOne(key, ops, origin, streamOf, tied, context);
    } catch (...) {
        if (nodes)
            tracer->setCaptureOp(-1);
        throw;
    }
    if (nodes) {
        tracer->setCaptureOp(-1);
        m_nodeOps = tracer->graphNodeOps();
    }
    return nodes || !tracer;
}

HostRange GraphRun::launch(int key, cudaStream_t stream, const std::string &context, Trace &trace)
{
    HostRange launch;
    launch.startNs = hostNowNs();
    const Graph &graph = m_graphs.at(key);
    STREAMSCOPE_CUDA_CHECK(context + ": launching its graph", cudaGraphLaunch(graph.exec, stream));
    launch.endNs = hostNowNs();
    launch.nameId = trace.intern("cudaGraphLaunch (" + std::to_string(graph.nodes) + " nodes)");
    launch.hostThread = 0;
    launch.category = HostRangeCategory::Launch;
    return launch;
}

void describeLaunch(Trace &trace, LaunchMode launch, const std::string &graphs)
{
    if (launch == LaunchMode::Streams) {
        trace.metadata["launch"] = "streams: one call per op";
        return;
    }
    trace.metadata["launch"] = "graph: " + graphs;
    if (trace.timing != TimingSource::Cupti)
        trace.timingNote += std::string(trace.timingNote.empty() ? "" : "; ")
                            + "launched as a graph, whose ops are timed by CUPTI's records of its nodes alone: "
                              "without them the ops have no execution time, and the repetitions' spans come from "
                              "events";
}

} // namespace streamscope::engine
