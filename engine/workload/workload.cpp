// The workload model's names, look-ups, memory totals, generated op names and issue schedules.
#include "engine/workload/workload.h"

#include <algorithm>
#include <array>

#include "engine/model/limits.h"
#include "engine/model/units.h"

namespace streamscope::engine {

namespace {
constexpr std::array<std::string_view, 4> kDirectionLabels = {"H2D", "D2H", "D2D", "H2H"};

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
        case CopyDirection::H2H: s += " " + std::string(src) + " -> " + std::string(dst); break;
        }
        // The one distinction the sync-vs-async lesson is about, so it shows in every lane.
        if (op.api == CopyApi::Sync)
            s += " (sync)";
        return s;
    }
    case OpType::Kernel:
        switch (op.kernelType) {
        case KernelType::Compute: return "kernel " + formatDuration(op.durationNs);
        case KernelType::Memory: return "memory kernel " + formatBytes(op.bytes);
        case KernelType::Hang: return "hang kernel";
        case KernelType::Fault: return "fault kernel";
        }
        return "kernel";
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
    }
    return std::string(toString(op.type));
}

void buildSchedule(Workload &workload)
{
    workload.schedule.clear();
    workload.schedule.reserve(workload.opCount());
    const int streamCount = static_cast<int>(workload.streams.size());
    if (workload.issueOrder == IssueOrder::StreamOrder) {
        for (int s = 0; s < streamCount; ++s)
            for (int o = 0; o < static_cast<int>(workload.streams[s].ops.size()); ++o)
                workload.schedule.push_back({s, o});
        return;
    }
    std::size_t longest = 0;
    for (const StreamSpec &s : workload.streams)
        longest = std::max(longest, s.ops.size());
    for (std::size_t o = 0; o < longest; ++o)
        for (int s = 0; s < streamCount; ++s)
            if (o < workload.streams[s].ops.size())
                workload.schedule.push_back({s, static_cast<int>(o)});
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
