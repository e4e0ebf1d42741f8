// The run's timing source, CUDA side (see runner_timing.h).
#include "engine/run/runner_timing.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "engine/run/cuda_check.h"

namespace streamscope::engine {

RunTiming::RunTiming(Trace &trace, std::function<void(const std::string &)> report) :
    m_trace(trace), m_report(std::move(report))
{
}

void RunTiming::start(const Workload &workload, const RunOptions &options)
{
    if (options.timing == TimingMode::Events) {
        m_trace.timing = TimingSource::Events;
        m_trace.timingNote = options.instrument ? "timed by CUDA events, as asked (--timing events)"
                                                : "not instrumented (overhead benchmark)";
        return;
    }
    // Kernel latency timestamps lose unified-memory records: with them, on the H200, CUPTI delivered
    // the whole of a repetition's migrations and fault groups in 2 runs of the managed lesson out of 6
    // (the rest lacked their last migrations, every fault group and the prefetch after them); without
    // them in 6 out of 6. So a workload with managed memory goes without them.
    const bool managed = std::any_of(workload.buffers.begin(), workload.buffers.end(),
                                     [](const BufferSpec &b) { return b.kind == BufferKind::Managed; });
    std::string why;
    m_tracer = cupti::Tracer::start(why, options.kernelLatency && !managed);
    if (!m_tracer) {
        fallBack("CUPTI could not be enabled: " + why);
        return;
    }
    // A GEMM's kernels are cuBLAS's, a collective's NCCL's, launched through the driver API: only the driver
    // call carries the op's external id to them.
    const bool library = std::any_of(workload.streams.begin(), workload.streams.end(), [](const StreamSpec &s) {
        return std::any_of(s.ops.begin(), s.ops.end(), isLibraryOp);
    });
    if (library && !m_tracer->enableDriverCalls(why)) {
        fallBack("CUPTI could not tie cuBLAS's and NCCL's kernels to their ops: " + why);
        return;
    }
    m_trace.timing = TimingSource::Cupti;
    m_description = m_tracer->description();
    if (!options.instrument)
        m_trace.timingNote = "CUPTI alone, without the per-op events (overhead benchmark): no stream-ready, "
                             "no event end, so queued time counts from the host call";
    if (managed && options.kernelLatency)
        m_trace.metadata["kernel_latency"] = "off: with them CUPTI loses unified-memory records (managed memory)";
}

// CUPTI configures the counters through the driver, so CUDA must have started. Where the platform cannot
// count them, the run goes on without and says so.
void RunTiming::startUnifiedMemory(int device, bool managed)
{
    if (!m_tracer || !managed)
        return;
    std::string why;
    if (m_tracer->enableUnifiedMemory(device, why)) {
        m_description = m_tracer->description();
        return;
    }
    m_trace.metadata["unified_memory_records"] = "not collected: " + why;
    m_report("unified-memory migrations and page faults are not recorded (" + why + ")");
}

// Every op keeps its events (stream-ready and event end), so nothing measured is lost.
void RunTiming::fallBack(const std::string &why)
{
    m_tracer.reset();
    m_trace.timing = TimingSource::Events;
    m_trace.timingNote = why + "; timed by CUDA events instead (queued time counts as execution)";
    m_report(m_trace.timingNote);
    for (Repetition &rep : m_trace.repetitions)
        useEventExecution(rep);
}

// Those that make a record (record_matching.h), and the synchronisation calls whose waits the driver
// records (cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize, cudaStreamWaitEvent).
bool RunTiming::ties(const PlannedOp &op) const
{
    return m_tracer && !m_broken.load()
           && ((!op.hostOnly && expectsRecord(op.kind)) || op.kind == OpKind::HostSync || op.kind == OpKind::EventWait);
}

bool RunTiming::push(std::uint64_t externalId, const std::string &context)
{
    std::string why;
    if (m_tracer->push(externalId, why))
        return true;
    noteFailure("CUPTI failed at " + context + ": " + why);
    return false;
}

void RunTiming::pop(bool pushed, const std::string &context)
{
    std::string why;
    if (pushed && !m_tracer->pop(why))
        noteFailure("CUPTI failed at " + context + ": " + why);
}

// CUPTI refused a push or a pop on some host thread: no op is tied to it from now on, and once the
// threads have issued the repetition the run falls back to events, saying why (the first reason).
void RunTiming::noteFailure(const std::string &why)
{
    const std::lock_guard lock(m_failureMutex);
    if (!m_broken.exchange(true))
        m_failure = why;
}

void RunTiming::fallBackIfBroken()
{
    if (m_broken.load())
        fallBack(m_failure);
}

void RunTiming::newRepetition()
{
    const std::lock_guard lock(m_eventLogMutex);
    m_eventLog.clear();
}

// Where CUPTI gives event timestamps, an external id around the call brings the moment the GPU reached the
// event back on CUPTI's clock (record_matching.h), the clock execution is on: no anchor between them.
void RunTiming::recordEvent(cudaEvent_t event, cudaStream_t stream, const std::string &context, std::uint32_t repSeq)
{
    std::uint64_t id = 0;
    if (m_tracer && m_tracer->eventTimestamps() && !m_broken.load()) {
        const std::lock_guard lock(m_eventLogMutex);
        m_eventLog.push_back(event);
        id = eventExternalId(repSeq, m_eventLog.size());
    }
    std::string why;
    const bool pushed = id != 0 && m_tracer->push(id, why);
    const cudaError_t err = cudaEventRecord(event, stream);
    if (pushed && !m_tracer->pop(why))
        noteFailure("CUPTI failed at " + context + ": " + why);
    STREAMSCOPE_CUDA_CHECK(context, err);
}

// Flushes CUPTI's records into `batch` (appending); on failure falls back to events naming it, and
// returns false.
bool RunTiming::flush(cupti::Batch &batch, const std::string &context, bool forced)
{
    std::string why;
    if (m_tracer->flush(batch, why, forced))
        return true;
    fallBack("CUPTI failed during " + context + ": " + why);
    return false;
}

// Unified-memory records come from the UVM driver on a path of their own and complete later than the
// others: a forced flush right after the repetition handed them over unfinished (no start time) on the
// H200, and they never came again. So where they are on, take the completed buffers until no
// unified-memory record has come for four polls 5 ms apart (half a second at most; the device is idle,
// nothing is measured), then force out the rest.
bool RunTiming::takeRecords(cupti::Batch &batch, const std::string &context)
{
    if (m_tracer && m_tracer->unifiedMemory()) {
        int quiet = 0;
        for (int poll = 0; poll < 100 && quiet < 4; ++poll) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            const std::size_t before = batch.records.size();
            if (!flush(batch, context, /*forced=*/false))
                return false;
            const bool any =
                std::any_of(batch.records.begin() + std::ptrdiff_t(before), batch.records.end(),
                            [](const cupti::GpuRecord &g) { return g.kind == cupti::GpuRecord::Kind::UnifiedMemory; });
            quiet = any ? 0 : quiet + 1;
        }
    }
    return flush(batch, context);
}

void RunTiming::discardRecords(const std::string &context)
{
    if (!m_tracer)
        return;
    cupti::Batch discarded;
    takeRecords(discarded, context);
}

MatchResult RunTiming::applyRecords(Repetition &rep, const std::string &context, std::int64_t previousRepEndNs,
                                    RepetitionRecords records, const RecordMatcher &matcher)
{
    cupti::Batch batch;
    if (!takeRecords(batch, context))
        return {};
    m_counts.incompleteUnifiedMemoryRecords += batch.incomplete;
    m_counts.lateUnifiedMemoryRecords += lateUnifiedMemoryRecords(batch, previousRepEndNs);
    if (batch.dropped > 0)
        throw Error(ErrorKind::Cuda, context + ": CUPTI dropped " + std::to_string(batch.dropped)
                                         + " activity records, so some ops have no execution time; "
                                           "run with fewer ops per repetition, or --timing events");
    records.unifiedMemory = m_tracer->unifiedMemory();
    {
        const std::lock_guard lock(m_eventLogMutex);
        records.eventLog = m_eventLog;
    }
    MatchResult result = matcher.apply(rep, batch, records, m_trace.metadata,
                                       [this](std::string_view name) { return m_trace.intern(name); });
    m_counts.missingRecords += result.missingRecords;
    m_counts.unifiedMemoryRecords += result.unifiedMemoryRecords;
    return result;
}

void RunTiming::describe()
{
    if (m_trace.timing == TimingSource::Cupti)
        describeRecords(m_trace, m_counts, m_description, m_tracer && m_tracer->unifiedMemory());
}

} // namespace streamscope::engine
