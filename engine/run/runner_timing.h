// The run's timing source, CUDA side: CUPTI (runner_cupti.h) while it works, the event pairs once it
// cannot be enabled or fails mid-run (the trace then says why). It ties each op's API call and each of
// the runner's timing events to CUPTI by external id, takes a repetition's records once the GPU is idle,
// hands them to the matcher (record_matching.h) and keeps what they came with for the trace's metadata.
// Private to streamscope_runner.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "engine/run/record_matching.h"
#include "engine/run/runner.h"
#include "engine/run/runner_cupti.h"

namespace streamscope::engine {

class RunTiming {
public:
    // `trace` gets the timing source, its note and its metadata; `report` says a change of source.
    RunTiming(Trace &trace, std::function<void(const std::string &)> report);
    RunTiming(const RunTiming &) = delete;
    RunTiming &operator=(const RunTiming &) = delete;

    // CUPTI first, before CUDA starts, so that kernels get their queued/submitted timestamps.
    void start(const Workload &workload, const RunOptions &options);
    // Unified-memory migrations and page faults of `device` where the workload has managed memory.
    void startUnifiedMemory(int device, bool managed);
    // Execution from the event pairs from now on, and for the repetitions already recorded.
    void fallBack(const std::string &why);

    cupti::Tracer *tracer() const { return m_tracer.get(); }
    // Ops whose API call CUPTI is told about (while it works).
    bool ties(const PlannedOp &op) const;
    // Around one op's API call: push its id (a refusal is noted), pop it after the call.
    bool push(std::uint64_t externalId, const std::string &context);
    void pop(bool pushed, const std::string &context);
    // After the repetition's ops were issued: where CUPTI refused a push or a pop, fall back, saying why.
    void fallBackIfBroken();

    // A new repetition: its event log starts empty.
    void newRepetition();
    // cudaEventRecord of one of the runner's timing events, tied to CUPTI where it gives event timestamps.
    void recordEvent(cudaEvent_t event, cudaStream_t stream, const std::string &context, std::uint32_t repSeq);
    // A warm-up's records: not kept, but they must not pile up.
    void discardRecords(const std::string &context);
    // The repetition's records made into its times (record_matching.h); `records` lacks only the event log.
    // Per device, whether CUPTI timed every op's events; nothing where the run fell back to events.
    MatchResult applyRecords(Repetition &rep, const std::string &context, std::int64_t previousRepEndNs,
                             RepetitionRecords records, const RecordMatcher &matcher);

    RecordCounts &counts() { return m_counts; }
    // The records' metadata (record_matching.h, describeRecords) where CUPTI timed the run.
    void describe();
    // An abandoned run: the tracer is left as it is (its destructor could block behind the GPU).
    void leak() { static_cast<void>(m_tracer.release()); }

private:
    void noteFailure(const std::string &why);
    bool flush(cupti::Batch &batch, const std::string &context, bool forced = true);
    bool takeRecords(cupti::Batch &batch, const std::string &context);

    Trace &m_trace;
    std::function<void(const std::string &)> m_report;
    std::unique_ptr<cupti::Tracer> m_tracer;
    std::string m_description;
    RecordCounts m_counts;
    std::mutex m_failureMutex;
    std::atomic<bool> m_broken{false};
    std::string m_failure;
    // The runner's timing events recorded in this repetition, in order, for CUPTI's event records to
    // find; several host threads record them.
    std::mutex m_eventLogMutex;
    std::vector<const void *> m_eventLog;
};

} // namespace streamscope::engine
