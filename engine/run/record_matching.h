// CUPTI record matching: the activity records a repetition left (runner_cupti.h, plain structs) made into
// its ops' times, without CUDA, so that it is tested with synthetic records:
//  - execution records (kernel, memcpy, memset) and synchronisation records carry the external id the
//    runner pushed around the op's API call, (repetition sequence << 32) | (op index + 1): an op's
//    execution is its record's interval, or the span of several (a copy the driver split); an op that
//    expected a record and got none keeps its event timing and is flagged (OpFlagEventTimed); in graph
//    mode a record's graph node names the op, and its start the repetition;
//  - event records, where CUPTI gives them, carry kEventRecordTag | (sequence << 32) | the place of the
//    runner's cudaEventRecord in the repetition's event log: they become the ops' stream-ready and end
//    moments, on execution's own clock, where they agree with the anchor's mapping;
//  - unified-memory records carry no id: each belongs to the op that touches its pages and ran when it
//    started; a prefetch's migrations are its execution (CUDA makes no memcpy record for it). A
//    repetition whose unified-memory records CUPTI lost in part is detected, so that it runs again.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/model/trace.h"
#include "engine/run/run_plan.h"
#include "engine/run/runner_cupti.h"

namespace streamscope::engine {

// The external id around the runner's own cudaEventRecord calls: this bit, the repetition in bits 32..61,
// and the record's place in the repetition's event log (1-based) below.
inline constexpr std::uint64_t kEventRecordTag = 1ull << 62;

// The op instance CUPTI carries: which repetition (counted over warm-ups too) and which op.
std::uint64_t opExternalId(std::uint32_t repSeq, std::size_t op);
// A timing event's id: `place` is its 1-based place in the repetition's event log.
std::uint64_t eventExternalId(std::uint32_t repSeq, std::size_t place);

// Ops whose API call makes a kernel, memcpy or memset record (kOpKinds' record column: copies, kernels,
// memsets, collectives). Event records and waits, prefetches (unified-memory traffic, not a memcpy) and
// attaches keep their event timing.
bool expectsRecord(OpKind kind);

// A staged peer copy (OpFlagStagedPeer) is timed as the interval its stream spent on it: CUPTI records
// only two fragments of it (a D2H and an H2D of some 20 us that each claim all its bytes), so its
// execution runs from the later of its call's start and stream-ready to its end event.
void timeStagedPeer(OpRecord &r);

// Execution from the event pair for every op that has one (a run that fell back to events mid-way); the
// repetition's op pieces, CUPTI's, are dropped.
void useEventExecution(Repetition &rep);

// Every library op of `ops` (PlannedOp::library: a GEMM's arithmetic, a collective's bus bytes) that ran in
// `rep` gets a KernelLaunch with its flops or bus bytes and its work, beside what the records gave (none where the run
// was timed by events). Keeps them sorted.
void addKernelWork(Repetition &rep, const std::vector<PlannedOp> &ops);

// The unified-memory records of `batch` that started before `previousRepEndNs`: an earlier repetition's,
// already recorded.
std::uint64_t lateUnifiedMemoryRecords(const cupti::Batch &batch, std::int64_t previousRepEndNs);

// The median execution of the kernel records with external id `externalId` (the calibration's empty spin
// kernels); none where there are none.
std::optional<double> medianKernelNs(const cupti::Batch &batch, std::uint64_t externalId);

// Where an op's memory lies (virtual addresses, 0: none), for the unified-memory records.
struct OpMemory {
    std::uint64_t target = 0, src = 0, dst = 0;
};

struct AddressRange {
    std::uint64_t base = 0;
    std::uint64_t bytes = 0;
};

// The events an op's interval was timed by (opaque handles: the runner's cudaEvent_t), null where it has none.
struct OpEvents {
    const void *begin = nullptr; // the event that marked its stream-ready (its own, or one it shared)
    const void *end = nullptr;
};

// What the matcher needs of the repetition besides its records.
struct RepetitionRecords {
    std::uint32_t repSeq = 0;
    std::int64_t repStartNs = 0; // when the repetition began on the host
    bool unifiedMemory = false; // the tracer collects unified-memory records
    std::vector<bool> inRun; // per op: ran in this repetition (a solo run runs one part)
    std::vector<const void *> eventLog; // the runner's timing events, in the order it recorded them
    std::vector<OpEvents> events; // per op
    // Graph mode: CUPTI's id of each node of the repetition's graphs -> its op (cupti::Tracer::graphNodeOps). A record
    // of one of those nodes that started in the repetition (at or after repStartNs) belongs to the node's op, whatever
    // its correlation; null: stream mode, records name their op by id.
    const std::unordered_map<std::uint64_t, std::int32_t> *graphNodes = nullptr;
};

struct MatchResult {
    std::map<int, bool> eventsFromCupti; // per device: every instrumented op got both its events from CUPTI
    int missingRecords = 0; // ops that expected a record and got none (flagged event-timed)
    std::uint64_t unifiedMemoryRecords = 0;
    bool unifiedMemoryLost = false; // CUPTI lost part of the repetition's unified-memory records
};

// A repetition whose unified-memory records CUPTI lost runs again, this many times in all at most.
inline constexpr int kUnifiedMemoryAttempts = 5;

// What the matching met over a run's measured repetitions, for the trace's metadata.
struct RecordCounts {
    std::uint64_t unifiedMemoryRecords = 0; // those dropped included
    std::uint64_t lateUnifiedMemoryRecords = 0; // came after their repetition had been recorded
    std::uint64_t incompleteUnifiedMemoryRecords = 0; // came without a start time
    int unifiedMemoryRetries = 0; // repetitions that ran again
    std::vector<int> unifiedMemoryIncomplete; // repetitions (0-based) that still lacked them after every attempt
    int missingRecords = 0; // ops that expected a record and got none
};

// A CUPTI-timed trace's metadata about its records ("cupti": `cuptiDescription`, "unified_memory_*",
// "cupti_missing_records") and what of it the timing note says. `unifiedMemoryOn`: the tracer collected
// unified-memory records to the end.
void describeRecords(Trace &trace, const RecordCounts &counts, const std::string &cuptiDescription,
                     bool unifiedMemoryOn);

class RecordMatcher {
public:
    // `ops` (the run's plan) must outlive the matcher; `memory` is per op; `buffers` are every buffer's
    // addresses.
    RecordMatcher(const std::vector<PlannedOp> &ops, std::vector<OpMemory> memory, std::vector<AddressRange> buffers);

    // Makes the batch's records the repetition's times: event moments first, then execution, then the
    // unified-memory and synchronisation activities. `rep` holds the times from the anchor's mapping. A
    // device whose CUPTI event moments disagree with that mapping keeps it, saying so in `metadata`.
    // The kernels a library op ran (PlannedOp::library: a cuBLAS GEMM, an NCCL collective) become its KernelLaunch: the
    // longest one's launch, every kernel's name in the order they ran (interned by `intern`; none kept without it).
    MatchResult apply(Repetition &rep, const cupti::Batch &batch, const RepetitionRecords &context,
                      std::map<std::string, std::string> &metadata,
                      const std::function<std::uint32_t(std::string_view)> &intern = {}) const;

private:
    std::map<int, bool> applyEventTimestamps(Repetition &rep, const cupti::Batch &batch,
                                             const RepetitionRecords &context,
                                             std::map<std::string, std::string> &metadata) const;
    void applyActivities(Repetition &rep, const std::vector<const cupti::GpuRecord *> &records,
                         const RepetitionRecords &context, MatchResult &result) const;
    bool touches(std::size_t op, std::uint64_t address) const;
    int unifiedMemoryOwner(const Repetition &rep, const cupti::GpuRecord &g) const;
    bool unifiedMemoryComplete(const Repetition &rep) const;
    // From the library ops' records, sorted by op and then start: the launches of those that ran kernels, and
    // Repetition::opPieces of those that ran as several records (or as one that is not a kernel).
    static void applyLaunches(Repetition &rep,
                              const std::vector<std::pair<std::size_t, const cupti::GpuRecord *>> &records,
                              const std::function<std::uint32_t(std::string_view)> &intern);
    static void applyPieces(Repetition &rep,
                            const std::vector<std::pair<std::size_t, const cupti::GpuRecord *>> &records,
                            const std::function<std::uint32_t(std::string_view)> &intern);

    const std::vector<PlannedOp> &m_ops;
    std::vector<OpMemory> m_memory;
    std::vector<AddressRange> m_buffers;
};

} // namespace streamscope::engine
