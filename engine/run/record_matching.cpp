// CUPTI record matching (see record_matching.h).
#include "engine/run/record_matching.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>

#include "engine/model/op_kinds.h"

namespace streamscope::engine {

namespace {

// A kernel's name as people read it: CUPTI gives a C++ kernel's mangled name ("_Z40ncclDevKernel_AllReduce_..."),
// where cuBLAS's kernels have plain ones.
std::string demangled(const char *name)
{
    if (name[0] == '_' && name[1] == 'Z') {
        int status = 0;
        char *readable = abi::__cxa_demangle(name, nullptr, nullptr, &status);
        std::string out = status == 0 && readable ? std::string(readable) : std::string(name);
        std::free(readable); // NOLINT: __cxa_demangle allocates with malloc
        return out;
    }
    return name;
}

// Calls `fill(launch, k)` on the launch of op `ops[k]` (ops increasing), adding a launch where an op has
// none, in one merge that keeps Repetition::kernelLaunches sorted by op (as Repetition::setKernelLatency).
template <typename Fill> void fillLaunches(Repetition &rep, const std::vector<std::int32_t> &ops, Fill fill)
{
    if (ops.empty())
        return;
    const std::vector<KernelLaunch> &had = rep.kernelLaunches;
    std::vector<KernelLaunch> merged;
    merged.reserve(had.size() + ops.size());
    std::size_t i = 0;
    for (std::size_t k = 0; k < ops.size(); ++k) {
        while (i < had.size() && had[i].op < ops[k])
            merged.push_back(had[i++]);
        if (i < had.size() && had[i].op == ops[k])
            merged.push_back(had[i++]);
        else
            merged.push_back(KernelLaunch{.op = ops[k]});
        fill(merged.back(), k);
    }
    merged.insert(merged.end(), had.begin() + static_cast<std::ptrdiff_t>(i), had.end());
    rep.kernelLaunches = std::move(merged);
}

} // namespace

std::uint64_t opExternalId(std::uint32_t repSeq, std::size_t op)
{
    return (std::uint64_t(repSeq) << 32) | std::uint64_t(op + 1);
}

std::uint64_t eventExternalId(std::uint32_t repSeq, std::size_t place)
{
    return kEventRecordTag | (std::uint64_t(repSeq) << 32) | std::uint64_t(place);
}

bool expectsRecord(OpKind kind)
{
    return opKindInfo(kind).record != GpuRecord::None; // kOpKinds' record column
}

void timeStagedPeer(OpRecord &r)
{
    if (!r.stagedPeer() || r.eventEndNs == kNoTime)
        return;
    std::int64_t start = r.readyNs != kNoTime ? r.readyNs : r.hostStartNs;
    if (r.hostStartNs != kNoTime)
        start = std::max(start, r.hostStartNs);
    if (start == kNoTime)
        return;
    r.gpuStartNs = start;
    r.gpuEndNs = std::max(start, r.eventEndNs);
}

void useEventExecution(Repetition &rep)
{
    rep.opPieces.clear(); // CUPTI's records: times of another clock than the events now timing the ops
    for (OpRecord &r : rep.ops)
        if (r.readyNs != kNoTime) {
            r.gpuStartNs = r.readyNs;
            r.gpuEndNs = r.eventEndNs;
            timeStagedPeer(r);
        }
}

std::uint64_t lateUnifiedMemoryRecords(const cupti::Batch &batch, std::int64_t previousRepEndNs)
{
    std::uint64_t late = 0;
    for (const cupti::GpuRecord &g : batch.records)
        if (g.kind == cupti::GpuRecord::Kind::UnifiedMemory && g.startNs < previousRepEndNs)
            late += 1;
    return late;
}

std::optional<double> medianKernelNs(const cupti::Batch &batch, std::uint64_t externalId)
{
    std::vector<double> ns;
    for (const cupti::GpuRecord &g : batch.records)
        if (g.externalId == externalId && g.kind == cupti::GpuRecord::Kind::Kernel && g.endNs > g.startNs)
            ns.push_back(double(g.endNs - g.startNs));
    if (ns.empty())
        return std::nullopt;
    std::nth_element(ns.begin(), ns.begin() + std::ptrdiff_t(ns.size() / 2), ns.end());
    return ns[ns.size() / 2];
}

void describeRecords(Trace &trace, const RecordCounts &counts, const std::string &cuptiDescription,
                     bool unifiedMemoryOn)
{
    auto &md = trace.metadata;
    md["cupti"] = cuptiDescription;
    // Every measured repetition moves the managed buffers (the runner sends them back to the host
    // first), so a run with none of their records did not get them: say so.
    if (unifiedMemoryOn && counts.unifiedMemoryRecords == 0 && !trace.repetitions.empty())
        md["unified_memory_records"] = "enabled, but CUPTI delivered none in this run";
    if (counts.unifiedMemoryRetries > 0)
        md["unified_memory_retries"] = std::to_string(counts.unifiedMemoryRetries)
                                       + " repetitions ran again: CUPTI had lost part of their unified-memory "
                                         "records (a prefetch to the GPU came without all its migrations, or "
                                         "migrations on demand without their page faults)";
    if (!counts.unifiedMemoryIncomplete.empty()) {
        std::string list;
        for (const int r : counts.unifiedMemoryIncomplete)
            list += (list.empty() ? "" : ", ") + std::to_string(r + 1);
        md["unified_memory_incomplete_repetitions"] =
            "repetitions " + list + " lack part of their unified-memory records after "
            + std::to_string(kUnifiedMemoryAttempts) + " attempts each (CUPTI lost them)";
        trace.timingNote += (trace.timingNote.empty() ? "" : "; ") + md["unified_memory_incomplete_repetitions"];
    }
    if (counts.incompleteUnifiedMemoryRecords > 0)
        md["unified_memory_incomplete_records"] =
            std::to_string(counts.incompleteUnifiedMemoryRecords)
            + " unified-memory records came without a start time and are left out";
    if (counts.lateUnifiedMemoryRecords > 0)
        md["unified_memory_late_records"] =
            std::to_string(counts.lateUnifiedMemoryRecords)
            + " unified-memory records came after their repetition had been recorded and are left out";
    if (counts.missingRecords > 0) {
        md["cupti_missing_records"] = std::to_string(counts.missingRecords);
        trace.timingNote = std::to_string(counts.missingRecords)
                           + " ops had no CUPTI record and keep their event timing (flagged event-timed)";
    }
}

RecordMatcher::RecordMatcher(const std::vector<PlannedOp> &ops, std::vector<OpMemory> memory,
                             std::vector<AddressRange> buffers) :
    m_ops(ops),
    m_memory(std::move(memory)), m_buffers(std::move(buffers))
{
    m_memory.resize(m_ops.size());
}

MatchResult RecordMatcher::apply(Repetition &rep, const cupti::Batch &batch, const RepetitionRecords &context,
                                 std::map<std::string, std::string> &metadata,
                                 const std::function<std::uint32_t(std::string_view)> &intern) const
{
    MatchResult result;
    result.eventsFromCupti = applyEventTimestamps(rep, batch, context, metadata);
    std::vector<int> seen(rep.ops.size(), 0);
    std::vector<const cupti::GpuRecord *> activities;
    std::vector<std::pair<std::size_t, const cupti::GpuRecord *>> libraryRecords; // (op, record), library ops'
    std::vector<KernelLaunch> latency; // kernels' latency timestamps, for their launches
    for (const cupti::GpuRecord &g : batch.records) {
        if (g.kind == cupti::GpuRecord::Kind::Event)
            continue; // applied above
        if (g.kind == cupti::GpuRecord::Kind::UnifiedMemory || g.kind == cupti::GpuRecord::Kind::Synchronization) {
            result.unifiedMemoryRecords += g.kind == cupti::GpuRecord::Kind::UnifiedMemory;
            activities.push_back(&g);
            continue;
        }
        std::uint64_t index = 0;
        if (context.graphNodes && g.graphNodeId != 0) {
            // A node of the repetition's graph: its node names the op. Not its correlation: CUPTI gives a graph's
            // node records the correlation of another call than their launch (on an H200 with CUDA 13.0, the same
            // one in every repetition, an earlier cudaEventRecord's), so they are the repetition's by time.
            const auto node = context.graphNodes->find(g.graphNodeId);
            if (node == context.graphNodes->end() || g.startNs < context.repStartNs)
                continue; // no op's node, or an earlier repetition's
            index = std::uint64_t(node->second);
        } else {
            if ((g.externalId >> 32) != context.repSeq)
                continue; // the runner's own work (hold, calibration) or an earlier repetition
            index = (g.externalId & 0xffffffffu) - 1;
        }
        if (index >= rep.ops.size())
            continue;
        OpRecord &r = rep.ops[index];
        if (seen[index]++ == 0) {
            r.gpuStartNs = g.startNs;
            r.gpuEndNs = g.endNs;
        } else { // one API call, several records (a copy the driver split): their span
            r.gpuStartNs = std::min(r.gpuStartNs, g.startNs);
            r.gpuEndNs = std::max(r.gpuEndNs, g.endNs);
        }
        if (index < m_ops.size() && m_ops[index].library())
            libraryRecords.emplace_back(index, &g);
        r.correlation = g.correlationId;
        r.channel = OpRecord::channelOf(g.channel);
        r.channelType = g.channelType;
        if (g.kind == cupti::GpuRecord::Kind::Kernel) {
            if (g.queuedNs != kNoTime || g.submittedNs != kNoTime) {
                KernelLaunch l;
                l.op = static_cast<std::int32_t>(index);
                l.queuedNs = g.queuedNs;
                l.submittedNs = g.submittedNs;
                latency.push_back(l);
            }
        } else if (g.kind == cupti::GpuRecord::Kind::Memcpy) {
            r.driverSrcMem = g.srcKind;
            r.driverDstMem = g.dstKind;
        }
    }
    for (std::size_t i = 0; i < rep.ops.size() && i < m_ops.size(); ++i)
        if (seen[i] == 0 && i < context.inRun.size() && context.inRun[i] && !m_ops[i].hostOnly
            && expectsRecord(m_ops[i].kind)) {
            result.missingRecords += 1;
            rep.ops[i].flags |= OpFlagEventTimed;
        }
    // By op, the last record of an op winning as it did on the op (one record per kernel).
    std::stable_sort(latency.begin(), latency.end(),
                     [](const KernelLaunch &a, const KernelLaunch &b) { return a.op < b.op; });
    latency.erase(latency.begin(),
                  std::unique(latency.rbegin(), latency.rend(), [](const KernelLaunch &a, const KernelLaunch &b) {
                      return a.op == b.op;
                  }).base());
    rep.setKernelLatency(latency);
    applyActivities(rep, activities, context, result);
    // By op, then in the order they ran: how the launches and the pieces read them.
    std::stable_sort(libraryRecords.begin(), libraryRecords.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first < b.first : a.second->startNs < b.second->startNs;
    });
    applyLaunches(rep, libraryRecords, intern);
    applyPieces(rep, libraryRecords, intern);
    return result;
}

void RecordMatcher::applyPieces(Repetition &rep,
                                const std::vector<std::pair<std::size_t, const cupti::GpuRecord *>> &records,
                                const std::function<std::uint32_t(std::string_view)> &intern)
{
    std::vector<OpPiece> pieces;
    for (std::size_t i = 0; i < records.size();) {
        std::size_t end = i;
        while (end < records.size() && records[end].first == records[i].first)
            ++end;
        // One kernel is the op itself (a GEMM that ran as one kernel, an NCCL collective's kernel).
        const bool whole = end - i == 1 && records[i].second->kind == cupti::GpuRecord::Kind::Kernel;
        for (; i < end; ++i) {
            if (whole)
                continue;
            const cupti::GpuRecord &g = *records[i].second;
            OpPiece p;
            p.op = static_cast<std::int32_t>(records[i].first);
            p.startNs = g.startNs;
            p.endNs = g.endNs;
            p.kind = g.kind == cupti::GpuRecord::Kind::Kernel   ? PieceKind::Kernel
                     : g.kind == cupti::GpuRecord::Kind::Memset ? PieceKind::Memset
                                                                : PieceKind::Copy;
            p.bytes = p.kind == PieceKind::Kernel ? 0 : g.bytes;
            p.channel = g.channel >= 0 ? g.channel : -1; // CUPTI's unsigned id, past INT32_MAX: not recorded
            p.channelType = g.channelType;
            auto device = [](std::int32_t d) { return static_cast<std::int16_t>(d >= 0 && d < 32768 ? d : -1); };
            p.srcDevice = device(g.srcDeviceId);
            p.dstDevice = device(g.dstDeviceId);
            if (intern && g.name && *g.name && p.kind == PieceKind::Kernel)
                p.nameId = intern(demangled(g.name));
            pieces.push_back(p);
        }
    }
    rep.opPieces = std::move(pieces);
}

void RecordMatcher::applyLaunches(Repetition &rep,
                                  const std::vector<std::pair<std::size_t, const cupti::GpuRecord *>> &records,
                                  const std::function<std::uint32_t(std::string_view)> &intern)
{
    // Per op that ran kernels: its longest kernel and every kernel's name, in the order they ran.
    std::vector<std::int32_t> ops;
    std::vector<std::pair<const cupti::GpuRecord *, std::string>> ran;
    for (std::size_t i = 0; i < records.size();) {
        const std::size_t op = records[i].first;
        const cupti::GpuRecord *longest = nullptr;
        std::string names;
        for (; i < records.size() && records[i].first == op; ++i) {
            const cupti::GpuRecord *g = records[i].second;
            if (g->kind != cupti::GpuRecord::Kind::Kernel)
                continue; // a copy-engine collective's copies: pieces, not a launch
            if (!longest || g->endNs - g->startNs > longest->endNs - longest->startNs)
                longest = g;
            if (g->name && *g->name)
                names += (names.empty() ? "" : " + ") + demangled(g->name);
        }
        if (!longest)
            continue;
        ops.push_back(std::int32_t(op));
        ran.emplace_back(longest, std::move(names));
    }
    // Into the op's launch where its latency timestamps made one already, else a new one.
    fillLaunches(rep, ops, [&](KernelLaunch &l, std::size_t k) {
        const auto &[longest, names] = ran[k];
        std::copy(std::begin(longest->grid), std::end(longest->grid), std::begin(l.grid));
        std::copy(std::begin(longest->block), std::end(longest->block), std::begin(l.block));
        l.registersPerThread = longest->registersPerThread;
        l.staticSharedBytes = longest->staticSharedBytes;
        l.dynamicSharedBytes = longest->dynamicSharedBytes;
        if (l.staticSharedBytes >= 0 && l.dynamicSharedBytes >= 0)
            l.sharedBytes = std::int64_t(l.staticSharedBytes) + l.dynamicSharedBytes;
        if (intern && !names.empty())
            l.fullNameId = intern(names);
    });
}

void addKernelWork(Repetition &rep, const std::vector<PlannedOp> &ops)
{
    std::vector<std::int32_t> worked;
    for (std::size_t i = 0; i < ops.size() && i < rep.ops.size(); ++i)
        if (ops[i].library() && rep.ops[i].hasGpu())
            worked.push_back(std::int32_t(i));
    fillLaunches(rep, worked, [&](KernelLaunch &l, std::size_t k) {
        const PlannedOp &op = ops[std::size_t(worked[k])];
        l.flops = op.flops;
        l.busBytes = op.busBytes;
        l.workId = op.workId;
    });
}

std::map<int, bool> RecordMatcher::applyEventTimestamps(Repetition &rep, const cupti::Batch &batch,
                                                        const RepetitionRecords &context,
                                                        std::map<std::string, std::string> &metadata) const
{
    std::map<int, bool> whole;
    std::unordered_map<const void *, std::int64_t> moment;
    for (const cupti::GpuRecord &g : batch.records) {
        if (g.kind != cupti::GpuRecord::Kind::Event || !(g.externalId & kEventRecordTag)
            || ((g.externalId & ~kEventRecordTag) >> 32) != context.repSeq)
            continue;
        const std::uint64_t slot = (g.externalId & 0xffffffffu) - 1;
        if (slot < context.eventLog.size())
            moment[context.eventLog[slot]] = g.startNs;
    }
    const auto eventsOf = [&](std::size_t i) { return i < context.events.size() ? context.events[i] : OpEvents{}; };
    // A check of CUPTI's conversion against the anchor's: per device, the median difference must lie
    // within what the anchor can be off by (a few us; 50 us allows for a noisy host). A CUPTI that gave
    // raw GPU timestamps would be off by far more, and is not used.
    std::map<int, std::vector<std::int64_t>> offsets;
    for (std::size_t i = 0; i < m_ops.size() && i < rep.ops.size(); ++i)
        if (m_ops[i].instrumented)
            if (const auto b = moment.find(eventsOf(i).begin); b != moment.end() && rep.ops[i].readyNs != kNoTime)
                offsets[m_ops[i].device].push_back(b->second - rep.ops[i].readyNs);
    std::map<int, bool> agrees;
    for (auto &[device, d] : offsets) {
        std::nth_element(d.begin(), d.begin() + std::ptrdiff_t(d.size() / 2), d.end());
        agrees[device] = std::llabs(d[d.size() / 2]) <= 50'000;
        if (!agrees[device])
            metadata["clock_events_refused.device" + std::to_string(device)] =
                "CUPTI's event timestamps differed from the anchor's mapping by " + std::to_string(d[d.size() / 2])
                + " ns (median): the anchor was kept";
    }
    for (std::size_t i = 0; i < m_ops.size() && i < rep.ops.size(); ++i) {
        const PlannedOp &op = m_ops[i];
        if (!op.instrumented)
            continue;
        OpRecord &r = rep.ops[i];
        const OpEvents events = eventsOf(i);
        const auto b = moment.find(events.begin), e = moment.find(events.end);
        const bool both = b != moment.end() && e != moment.end() && agrees[op.device];
        whole.try_emplace(op.device, true).first->second &= both;
        if (!both)
            continue;
        // Until CUPTI's execution records are applied, every op's execution is its event pair.
        r.readyNs = r.gpuStartNs = b->second;
        r.eventEndNs = r.gpuEndNs = e->second;
    }
    return whole;
}

// The repetition's unified-memory and synchronisation records, tied to their ops. A prefetch that
// moved data gets its migrations' span as its execution (CUDA makes no memcpy record for it).
void RecordMatcher::applyActivities(Repetition &rep, const std::vector<const cupti::GpuRecord *> &records,
                                    const RepetitionRecords &context, MatchResult &result) const
{
    for (const cupti::GpuRecord *g : records) {
        ActivityRecord a;
        a.kind = g->activity;
        a.detail = g->detail;
        a.startNs = g->startNs;
        a.endNs = g->endNs;
        a.value = g->value;
        a.address = g->address;
        if (g->kind == cupti::GpuRecord::Kind::Synchronization) {
            if ((g->externalId >> 32) != context.repSeq)
                continue; // the runner's own synchronisation
            const std::uint64_t index = (g->externalId & 0xffffffffu) - 1;
            if (index >= rep.ops.size())
                continue;
            a.op = int(index);
        } else {
            a.op = unifiedMemoryOwner(rep, *g);
            // Before the repetition: the runner moving managed buffers back to the host.
            if (a.op < 0 && a.startNs < context.repStartNs)
                continue;
        }
        rep.activities.push_back(a);
    }
    std::stable_sort(rep.activities.begin(), rep.activities.end(),
                     [](const ActivityRecord &x, const ActivityRecord &y) { return x.startNs < y.startNs; });
    if (context.unifiedMemory && !unifiedMemoryComplete(rep))
        result.unifiedMemoryLost = true;
    std::vector<std::pair<std::int64_t, std::int64_t>> span(rep.ops.size(), {kNoTime, kNoTime});
    for (const ActivityRecord &a : rep.activities) {
        if (!a.isMigration() || a.op < 0 || rep.ops[std::size_t(a.op)].kind != OpKind::Prefetch)
            continue;
        auto &[lo, hi] = span[std::size_t(a.op)];
        lo = lo == kNoTime ? a.startNs : std::min(lo, a.startNs);
        hi = hi == kNoTime ? a.endNs : std::max(hi, a.endNs);
    }
    for (std::size_t i = 0; i < rep.ops.size(); ++i)
        if (span[i].first != kNoTime) {
            rep.ops[i].gpuStartNs = span[i].first;
            rep.ops[i].gpuEndNs = std::max(span[i].first, span[i].second);
        }
}

// Whether an op reads or writes the page at `address`: its buffer, or a copy's source or destination.
bool RecordMatcher::touches(std::size_t op, std::uint64_t address) const
{
    const std::uint64_t bytes = m_ops[op].bytes;
    auto within = [&](std::uint64_t base) { return base && address >= base && address - base < bytes; };
    const OpMemory &m = m_memory[op];
    return within(m.target) || within(m.src) || within(m.dst);
}

// A unified-memory record carries no correlation id: it belongs to the op that touches its pages
// (a prefetch, a kernel, a copy of that buffer) and ran when it started: the op's host call, its
// event pair and its execution, with a little slack for the event clock's anchor. -1 when none did.
int RecordMatcher::unifiedMemoryOwner(const Repetition &rep, const cupti::GpuRecord &g) const
{
    constexpr std::int64_t kSlackNs = 20'000;
    int best = -1;
    std::int64_t bestDistance = kSlackNs + 1;
    for (std::size_t i = 0; i < rep.ops.size() && i < m_ops.size(); ++i) {
        if (!touches(i, g.address))
            continue;
        const OpRecord &r = rep.ops[i];
        std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
        for (const std::int64_t t : {r.hostStartNs, r.readyNs, r.gpuStartNs})
            if (t != kNoTime)
                lo = std::min(lo, t);
        for (const std::int64_t t : {r.hostEndNs, r.eventEndNs, r.gpuEndNs})
            if (t != kNoTime)
                hi = std::max(hi, t);
        if (lo > hi)
            continue;
        const std::int64_t distance = g.startNs < lo ? lo - g.startNs : g.startNs > hi ? g.startNs - hi : 0;
        if (distance < bestDistance) {
            best = int(i);
            bestDistance = distance;
        }
    }
    return best;
}

// Whether CUPTI delivered the repetition's unified-memory records whole. On the H200 it sometimes
// did not: a repetition then lacked the tail of its records (the last migrations, every fault group,
// the prefetch after them), intermittently, whatever the flushing. Two things must hold in a whole one:
//  - the runner moves every managed buffer to the host before a repetition, so a prefetch to the GPU
//    of a buffer that no earlier GPU op of the repetition touched (anywhere in it) must migrate what
//    it asked for, give or take a large page at its ends (records are page-aligned): one with none,
//    or far less (19 of its 32 migrations once), lost records;
//  - a kernel's migrations to the GPU on demand (cause: coherence) follow GPU page faults, so such
//    migrations without any fault group in the repetition lost the fault groups. (A copy or memset
//    of managed memory migrates without GPU faults: it is not asked to have them.)
bool RecordMatcher::unifiedMemoryComplete(const Repetition &rep) const
{
    // The buffer an address lies in (by its base), or 0.
    auto bufferOf = [&](std::uint64_t p) -> std::uint64_t {
        for (const AddressRange &b : m_buffers)
            if (p >= b.base && p < b.base + b.bytes)
                return b.base;
        return 0;
    };
    std::vector<std::uint64_t> touched;
    auto wasTouched = [&](std::uint64_t p) {
        const std::uint64_t base = bufferOf(p);
        return std::find(touched.begin(), touched.end(), base) != touched.end();
    };
    constexpr std::uint64_t kPageSlack = std::uint64_t(2) << 20; // a large page, at either end
    bool complete = true;
    for (std::size_t i = 0; i < m_ops.size(); ++i) {
        const PlannedOp &op = m_ops[i];
        const OpMemory &memory = m_memory[i];
        const bool prefetch = op.kind == OpKind::Prefetch;
        if (prefetch && op.spec && op.spec->location < 0)
            continue; // to the host: the buffer is there already
        if (prefetch && memory.target && !wasTouched(memory.target)) {
            std::uint64_t moved = 0;
            for (const ActivityRecord &a : rep.activities)
                if (a.op == int(i) && a.kind == ActivityKind::MigrationH2D)
                    moved += a.value;
            if (moved == 0 || moved + 2 * kPageSlack < op.bytes)
                complete = false;
        }
        if (!op.hostOnly)
            for (const std::uint64_t p : {memory.target, memory.src, memory.dst})
                if (const std::uint64_t base = p ? bufferOf(p) : 0)
                    touched.push_back(base);
    }
    const bool kernelOnDemand = std::any_of(rep.activities.begin(), rep.activities.end(), [&](const ActivityRecord &a) {
        return a.kind == ActivityKind::MigrationH2D && a.detail == ActivityDetail::Coherence && a.op >= 0
               && std::size_t(a.op) < m_ops.size() && m_ops[std::size_t(a.op)].kind == OpKind::Kernel;
    });
    const bool faults = std::any_of(rep.activities.begin(), rep.activities.end(),
                                    [](const ActivityRecord &a) { return a.kind == ActivityKind::GpuPageFaults; });
    if (kernelOnDemand && !faults)
        complete = false;
    return complete;
}

} // namespace streamscope::engine
