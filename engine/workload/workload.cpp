// The workload model's names, look-ups, memory totals, generated op names and issue schedules.
#include "engine/workload/workload.h"

#include <algorithm>
#include <array>
#include <map>

#include "engine/model/limits.h"
#include "engine/model/units.h"

namespace streamscope::engine {

namespace {
constexpr std::array<std::string_view, 5> kDirectionLabels = {"H2D", "D2H", "D2D", "H2H", "P2P"};

std::string locationName(int location)
{
    return location < 0 ? "host" : "gpu" + std::to_string(location);
}

std::string_view kindName(const Workload &w, const std::string &buffer)
{
    const BufferSpec *b = w.findBuffer(buffer);
    return b ? toString(b->kind) : std::string_view("?");
}
} // namespace

MemKind memKindOf(BufferKind kind)
{
    switch (kind) {
    case BufferKind::Pageable: return MemKind::Pageable;
    case BufferKind::Pinned: return MemKind::Pinned;
    case BufferKind::Registered: return MemKind::Registered;
    case BufferKind::Managed: return MemKind::Managed;
    case BufferKind::Device: return MemKind::Device;
    }
    return MemKind::Unknown;
}

OpKind opKindOf(const OpSpec &op)
{
    switch (op.type) {
    case OpType::Copy:
        switch (op.direction) {
        case CopyDirection::H2D: return OpKind::CopyH2D;
        case CopyDirection::D2H: return OpKind::CopyD2H;
        case CopyDirection::D2D: return OpKind::CopyD2D;
        case CopyDirection::H2H: return OpKind::CopyH2H;
        case CopyDirection::P2P: return OpKind::CopyP2P;
        }
        return OpKind::Other;
    case OpType::Kernel: return OpKind::Kernel;
    case OpType::Memset: return OpKind::Memset;
    case OpType::EventRecord: return OpKind::EventRecord;
    case OpType::EventWait: return OpKind::EventWait;
    case OpType::Sync: return OpKind::HostSync;
    case OpType::Prefetch: return OpKind::Prefetch;
    case OpType::Advise: return OpKind::Advise;
    case OpType::Attach: return OpKind::Attach;
    case OpType::HostWork: return OpKind::HostWork;
    case OpType::Collective: return OpKind::Collective;
    }
    return OpKind::Other;
}

std::string describe(const OpSpec &op, const Workload &workload)
{
    switch (op.type) {
    case OpType::Copy: {
        std::string s =
            std::string(kDirectionLabels.at(static_cast<std::size_t>(op.direction))) + " " + formatBytes(op.bytes);
        const std::string_view src = kindName(workload, op.src), dst = kindName(workload, op.dst);
        switch (op.direction) {
        case CopyDirection::H2D:
            s += " " + std::string(src);
            if (dst == toString(BufferKind::Managed))
                s += " -> managed";
            break;
        case CopyDirection::D2H:
            if (src == toString(BufferKind::Managed))
                s += " managed ->";
            s += " " + std::string(dst);
            break;
        case CopyDirection::D2D: break;
        case CopyDirection::P2P: {
            const BufferSpec *from = workload.findBuffer(op.src), *to = workload.findBuffer(op.dst);
            if (from && to)
                s += " gpu" + std::to_string(workload.bufferDevice(*from)) + " -> gpu"
                     + std::to_string(workload.bufferDevice(*to));
            break;
        }
        case CopyDirection::H2H: s += " " + std::string(src) + " -> " + std::string(dst); break;
        }
        // The one distinction the sync-vs-async lesson is about, so it shows in every lane.
        if (op.api == CopyApi::Sync)
            s += " (sync)";
        return s;
    }
    case OpType::Kernel: return describeKernel(op);
    case OpType::Memset: return "memset " + formatBytes(op.bytes);
    case OpType::EventRecord: return "record " + op.event;
    case OpType::EventWait: return "wait " + op.event;
    case OpType::Sync:
        switch (op.syncTarget) {
        case SyncTarget::Stream: return op.syncStream.empty() ? "sync stream" : "sync stream " + op.syncStream;
        case SyncTarget::Event: return "sync event " + op.event;
        case SyncTarget::Device: return "sync device";
        }
        return "sync";
    case OpType::Prefetch: return "prefetch " + formatBytes(op.bytes) + " -> " + locationName(op.location);
    case OpType::Advise: {
        std::string s = "advise " + std::string(toString(op.advise)) + " " + formatBytes(op.bytes);
        if (op.advise != AdviseKind::SetReadMostly && op.advise != AdviseKind::UnsetReadMostly)
            s += " " + locationName(op.location);
        return s;
    }
    case OpType::Attach: return "attach " + op.buffer + " " + std::string(toString(op.attach));
    case OpType::HostWork: return "host work " + formatDuration(op.hostNs);
    case OpType::Collective: {
        // The NCCL call by its name, as Nsight Systems' NCCL ranges and PyTorch's traces show it.
        const CollectiveSpec &c = op.collective;
        std::string s =
            std::string(ncclFunction(c.type)) + " " + formatBytes(op.bytes) + " " + std::string(toString(c.dtype));
        if (reduces(c.type) && c.reduce != ReduceOp::Sum)
            s += " " + std::string(toString(c.reduce));
        if (c.type == CollectiveType::Broadcast && c.root >= 0)
            s += " from gpu" + std::to_string(c.root);
        if (c.type == CollectiveType::Send && c.peer >= 0)
            s += " -> gpu" + std::to_string(c.peer);
        if (c.type == CollectiveType::Recv && c.peer >= 0)
            s += " <- gpu" + std::to_string(c.peer);
        return s;
    }
    }
    return std::string(toString(op.type));
}

std::vector<ScheduledOp> scheduleOf(const Workload &workload, const std::vector<int> &streams, IssueOrder order)
{
    std::vector<ScheduledOp> out;
    if (order == IssueOrder::StreamOrder) {
        for (const int s : streams)
            for (int o = 0; o < static_cast<int>(workload.streams[s].ops.size()); ++o)
                out.push_back({s, o});
        return out;
    }
    std::size_t longest = 0;
    for (const int s : streams)
        longest = std::max(longest, workload.streams[s].ops.size());
    for (std::size_t o = 0; o < longest; ++o)
        for (const int s : streams)
            if (o < workload.streams[s].ops.size())
                out.push_back({s, static_cast<int>(o)});
    return out;
}

void buildSchedule(Workload &workload)
{
    workload.schedule.clear();
    workload.schedule.reserve(workload.opCount());
    if (workload.threads.empty()) {
        std::vector<int> all(workload.streams.size());
        for (std::size_t s = 0; s < all.size(); ++s)
            all[s] = static_cast<int>(s);
        workload.schedule = scheduleOf(workload, all, workload.issueOrder);
        return;
    }
    for (const ThreadSpec &t : workload.threads) {
        const std::vector<ScheduledOp> part = scheduleOf(workload, t.streams, t.issueOrder);
        workload.schedule.insert(workload.schedule.end(), part.begin(), part.end());
    }
}

int Workload::bufferDevice(const BufferSpec &buffer, int override) const
{
    if (buffer.device >= 0)
        return buffer.device;
    return override >= 0 ? override : device;
}

int Workload::streamDevice(int stream, int override) const
{
    const int d = streams.at(static_cast<std::size_t>(stream)).device;
    if (d >= 0)
        return d;
    return override >= 0 ? override : device;
}

int Workload::threadDevice(int thread, int override) const
{
    const int d = threads.empty() ? -1 : threads.at(static_cast<std::size_t>(thread)).device;
    if (d >= 0)
        return d;
    return override >= 0 ? override : device;
}

std::string Workload::threadName(int thread) const
{
    return threads.empty() ? std::string("main") : threads.at(static_cast<std::size_t>(thread)).name;
}

std::vector<int> Workload::usedDevices(int override) const
{
    std::vector<int> out;
    const auto add = [&](int d) {
        if (std::find(out.begin(), out.end(), d) == out.end())
            out.push_back(d);
    };
    for (const BufferSpec &b : buffers)
        if (b.kind == BufferKind::Device || b.kind == BufferKind::Managed)
            add(bufferDevice(b, override));
    for (std::size_t s = 0; s < streams.size(); ++s)
        add(streamDevice(static_cast<int>(s), override));
    for (int t = 0; t < threadCount(); ++t)
        add(threadDevice(t, override));
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::pair<std::size_t, std::size_t>> Workload::threadRanges() const
{
    std::vector<std::pair<std::size_t, std::size_t>> out(static_cast<std::size_t>(threadCount()), {0, 0});
    std::size_t begin = 0;
    for (int t = 0; t < threadCount(); ++t) {
        std::size_t end = begin;
        while (end < schedule.size()) {
            const auto s = static_cast<std::size_t>(schedule[end].stream);
            if (s >= streams.size() || streams[s].thread != t)
                break;
            ++end;
        }
        out[static_cast<std::size_t>(t)] = {begin, end};
        begin = end;
    }
    return out;
}

std::optional<std::pair<std::size_t, std::size_t>> firstWaitAcross(const Workload &workload,
                                                                   const std::function<int(std::size_t)> &groupOf)
{
    const std::vector<int> paired = pairEventWaits(workload);
    for (std::size_t i = 0; i < paired.size(); ++i)
        if (paired[i] >= 0 && groupOf(i) != groupOf(std::size_t(paired[i])))
            return std::pair(i, std::size_t(paired[i]));
    return std::nullopt;
}

std::string opLocation(const StreamSpec &stream, int opInStream)
{
    const OpSpec &spec = stream.ops.at(static_cast<std::size_t>(opInStream));
    std::string text = "stream '" + stream.name + "' op " + std::to_string(opInStream);
    if (!spec.jsonPath.empty() || spec.line > 0) {
        text += " (" + spec.jsonPath;
        if (spec.line > 0)
            text += std::string(spec.jsonPath.empty() ? "" : ", ") + "line " + std::to_string(spec.line);
        text += ")";
    }
    return text;
}

std::vector<int> pairEventWaits(const Workload &workload)
{
    std::vector<int> paired(workload.schedule.size(), -1);
    const auto opAt = [&](std::size_t i) -> const OpSpec & {
        const ScheduledOp &so = workload.schedule[i];
        return workload.streams[static_cast<std::size_t>(so.stream)].ops[static_cast<std::size_t>(so.op)];
    };
    const auto threadAt = [&](std::size_t i) {
        return workload.streams[static_cast<std::size_t>(workload.schedule[i].stream)].thread;
    };
    // Per event: each thread's records in its order (schedule indices).
    std::map<std::string, std::map<int, std::vector<int>>> records;
    for (std::size_t i = 0; i < workload.schedule.size(); ++i)
        if (opAt(i).type == OpType::EventRecord)
            records[opAt(i).event][threadAt(i)].push_back(static_cast<int>(i));
    // Per (waiting thread, event): how many waits on another thread's records it has made so far.
    std::map<std::pair<int, std::string>, std::size_t> rank;
    std::map<std::pair<int, std::string>, int> latest; // latest own record per (thread, event)
    for (std::size_t i = 0; i < workload.schedule.size(); ++i) {
        const OpSpec &op = opAt(i);
        const int thread = threadAt(i);
        if (op.type == OpType::EventRecord) {
            latest[{thread, op.event}] = static_cast<int>(i);
            continue;
        }
        const bool waits =
            op.type == OpType::EventWait || (op.type == OpType::Sync && op.syncTarget == SyncTarget::Event);
        if (!waits || op.event.empty())
            continue;
        const auto own = latest.find({thread, op.event});
        if (own != latest.end()) {
            paired[i] = own->second;
            continue;
        }
        const auto byThread = records.find(op.event);
        if (byThread == records.end())
            continue;
        // Another thread's records: the first thread (by index) that records it, other than this one.
        for (const auto &[recorder, list] : byThread->second) {
            if (recorder == thread || list.empty())
                continue;
            std::size_t &k = rank[{thread, op.event}];
            paired[i] = list[std::min(k, list.size() - 1)];
            ++k;
            break;
        }
    }
    return paired;
}

const BufferSpec *Workload::findBuffer(const std::string &bufferName) const
{
    for (const BufferSpec &b : buffers)
        if (b.name == bufferName)
            return &b;
    return nullptr;
}

int Workload::findStream(const std::string &streamName) const
{
    for (std::size_t i = 0; i < streams.size(); ++i)
        if (streams[i].name == streamName)
            return static_cast<int>(i);
    return -1;
}

std::uint64_t elementBytes(GemmDtype dtype, bool output)
{
    switch (dtype) {
    case GemmDtype::Fp32:
    case GemmDtype::Tf32: return 4;
    case GemmDtype::Fp16:
    case GemmDtype::Bf16: return 2;
    case GemmDtype::Fp8: return output ? 2 : 1; // E4M3 in, bf16 out
    }
    return 4;
}

std::uint64_t elementBytes(CollectiveDtype dtype)
{
    switch (dtype) {
    case CollectiveDtype::Fp32: return 4;
    case CollectiveDtype::Fp16:
    case CollectiveDtype::Bf16: return 2;
    case CollectiveDtype::Int8: return 1;
    }
    return 4;
}

bool reduces(CollectiveType type)
{
    return type == CollectiveType::AllReduce || type == CollectiveType::ReduceScatter;
}

std::string_view ncclFunction(CollectiveType type)
{
    switch (type) {
    case CollectiveType::AllReduce: return "ncclAllReduce";
    case CollectiveType::AllGather: return "ncclAllGather";
    case CollectiveType::ReduceScatter: return "ncclReduceScatter";
    case CollectiveType::Broadcast: return "ncclBroadcast";
    case CollectiveType::AllToAll: return "ncclAlltoAll";
    case CollectiveType::Send: return "ncclSend";
    case CollectiveType::Recv: return "ncclRecv";
    }
    return "nccl";
}

std::uint64_t busBytes(CollectiveType type, std::uint64_t bytes, int ranks)
{
    const auto n = static_cast<std::uint64_t>(std::max(ranks, 1));
    const auto scaled = [&](std::uint64_t num, std::uint64_t den) {
        return static_cast<std::uint64_t>(static_cast<long double>(bytes) * num / den); // no overflow for 2^64 B
    };
    switch (type) {
    case CollectiveType::AllReduce: return scaled(2 * (n - 1), n);
    case CollectiveType::AllGather:
    case CollectiveType::ReduceScatter:
    case CollectiveType::AllToAll: return scaled(n - 1, n);
    case CollectiveType::Broadcast:
    case CollectiveType::Send:
    case CollectiveType::Recv: return bytes;
    }
    return bytes;
}

std::uint64_t collectiveSendBytes(CollectiveType type, std::uint64_t bytes, int ranks)
{
    const auto n = static_cast<std::uint64_t>(std::max(ranks, 1));
    if (type == CollectiveType::AllGather)
        return bytes / n;
    return type == CollectiveType::Recv ? 0 : bytes;
}

std::uint64_t collectiveRecvBytes(CollectiveType type, std::uint64_t bytes, int ranks)
{
    const auto n = static_cast<std::uint64_t>(std::max(ranks, 1));
    if (type == CollectiveType::ReduceScatter)
        return bytes / n;
    return type == CollectiveType::Send ? 0 : bytes;
}

std::vector<int> Workload::collectiveDevices(int override) const
{
    std::vector<int> out;
    for (std::size_t s = 0; s < streams.size(); ++s) {
        const bool any = std::any_of(streams[s].ops.begin(), streams[s].ops.end(),
                                     [](const OpSpec &op) { return op.type == OpType::Collective; });
        const int d = streamDevice(static_cast<int>(s), override);
        if (any && std::find(out.begin(), out.end(), d) == out.end())
            out.push_back(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

int Workload::communicatorSize(int override) const
{
    return rankOf.rank >= 0 ? static_cast<int>(rankOf.communicator.size())
                            : static_cast<int>(collectiveDevices(override).size());
}

std::uint64_t GemmShape::flops() const
{
    return 2 * std::uint64_t(std::max(m, 0)) * std::uint64_t(std::max(n, 0)) * std::uint64_t(std::max(k, 0));
}

std::uint64_t GemmShape::operandBytes() const
{
    const std::uint64_t um = std::uint64_t(std::max(m, 0)), un = std::uint64_t(std::max(n, 0)),
                        uk = std::uint64_t(std::max(k, 0));
    const std::uint64_t in = elementBytes(dtype, false), out = elementBytes(dtype, true);
    return saturatingAdd(saturatingAdd(um * uk * in, uk * un * in), um * un * out);
}

std::size_t Workload::opCount() const
{
    std::size_t n = 0;
    for (const StreamSpec &s : streams)
        n += s.ops.size();
    return n;
}

std::uint64_t Workload::deviceBytes() const
{
    std::uint64_t n = 0;
    for (const BufferSpec &b : buffers)
        if (b.kind == BufferKind::Device || b.kind == BufferKind::Managed)
            n = saturatingAdd(n, b.bytes);
    return n;
}

std::uint64_t Workload::managedBytes() const
{
    std::uint64_t n = 0;
    for (const BufferSpec &b : buffers)
        if (b.kind == BufferKind::Managed)
            n = saturatingAdd(n, b.bytes);
    return n;
}

std::uint64_t Workload::hostBytes() const
{
    std::uint64_t n = 0;
    for (const BufferSpec &b : buffers)
        if (b.kind == BufferKind::Pageable || b.kind == BufferKind::Pinned || b.kind == BufferKind::Registered)
            n = saturatingAdd(n, b.bytes);
    return n;
}

} // namespace streamscope::engine
