// The runner's set-up plan (see run_plan.h).
#include "engine/run/run_plan.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "engine/model/errors.h"
#include "engine/model/units.h"
#include "engine/workload/capture_check.h"
#include "engine/workload/kernel_types.h"

namespace streamscope::engine {

namespace {

// The buffers of the given kinds, largest first: "'a' (device, 100 GiB), 'b' (managed, 50 GiB)".
std::string largestBuffers(const Workload &workload, std::initializer_list<BufferKind> kinds, std::size_t most = 3)
{
    std::vector<const BufferSpec *> list;
    for (const BufferSpec &b : workload.buffers)
        if (std::find(kinds.begin(), kinds.end(), b.kind) != kinds.end())
            list.push_back(&b);
    std::stable_sort(list.begin(), list.end(),
                     [](const BufferSpec *x, const BufferSpec *y) { return x->bytes > y->bytes; });
    std::string text;
    for (std::size_t i = 0; i < list.size() && i < most; ++i)
        text += (i ? ", " : "") + quoted(list[i]->name) + " (" + std::string(toString(list[i]->kind)) + ", "
                + formatBytes(list[i]->bytes) + ")";
    if (list.size() > most)
        text += " and " + std::to_string(list.size() - most) + " more";
    return text;
}

void checkHostMemoryFits(const Workload &workload, std::uint64_t hostBytes, std::uint64_t managedBytes,
                         const HostMemory &host)
{
    // Managed buffers start each repetition resident on the host, so they need host memory too.
    const std::uint64_t needHost = addBytes(hostBytes, managedBytes);
    if (host.availableBytes == 0 || needHost <= host.availableBytes)
        return;
    const std::string hostText =
        "the host has " + formatBytes(host.availableBytes) + " available (" + host.source + ")";
    for (const BufferSpec &b : workload.buffers)
        if (b.kind != BufferKind::Device && b.bytes > host.availableBytes)
            throw Error(ErrorKind::OutOfMemory, "buffer " + quoted(b.name) + " (" + std::string(toString(b.kind)) + ", "
                                                    + formatBytes(b.bytes)
                                                    + ") does not fit in host memory: " + hostText);
    throw Error(ErrorKind::OutOfMemory,
                "workload " + quoted(workload.name) + " does not fit in host memory: its buffers "
                    + largestBuffers(workload, {BufferKind::Pageable, BufferKind::Pinned, BufferKind::Registered,
                                                BufferKind::Managed})
                    + " need " + formatBytes(needHost) + " (pageable, pinned and registered " + formatBytes(hostBytes)
                    + " + managed " + formatBytes(managedBytes) + ") but " + hostText);
}

const BufferSpec &bufferNamed(const Workload &workload, const std::string &name, const std::string &context)
{
    const BufferSpec *b = workload.findBuffer(name);
    if (!b)
        throw Error(ErrorKind::InvalidInput, context + ": no buffer named " + quoted(name));
    return *b;
}

void planCopy(PlannedOp &op, const Workload &workload, int override, const std::vector<PeerLink> &links)
{
    const OpSpec &spec = *op.spec;
    const BufferSpec &src = bufferNamed(workload, spec.src, op.context);
    const BufferSpec &dst = bufferNamed(workload, spec.dst, op.context);
    if (spec.srcOffset + spec.bytes > src.bytes || spec.dstOffset + spec.bytes > dst.bytes)
        throw Error(ErrorKind::InvalidInput,
                    op.context + ": the copy runs past the end of "
                        + quoted(spec.srcOffset + spec.bytes > src.bytes ? spec.src : spec.dst));
    op.srcBuffer = &src;
    op.dstBuffer = &dst;
    op.srcOffset = spec.srcOffset;
    op.dstOffset = spec.dstOffset;
    op.srcMem = memKindOf(src.kind);
    op.dstMem = memKindOf(dst.kind);
    op.bytes = spec.bytes;
    if (spec.direction == CopyDirection::P2P) {
        op.srcDevice = workload.bufferDevice(src, override);
        op.dstDevice = workload.bufferDevice(dst, override);
        op.stagedPeer = std::none_of(links.begin(), links.end(), [&](const PeerLink &l) {
            return l.src == op.srcDevice && l.dst == op.dstDevice && l.accessEnabled;
        });
    }
    op.onDefaultStream = spec.api == CopyApi::Sync;
}

// A kernel, memset, prefetch, advise or attach: the buffer it works on, where it has one.
void planBufferOp(PlannedOp &op, const Workload &workload)
{
    const OpSpec &spec = *op.spec;
    const bool needsBuffer = spec.type != OpType::Kernel || takes(spec.kernelType, KernelField::BufferSpan);
    if (needsBuffer) {
        const BufferSpec &target = bufferNamed(workload, spec.buffer, op.context);
        // Buffer ops keep their offset into the buffer in dstOffset. Attach always names the whole
        // allocation (CUDA requires it for cudaMallocManaged memory).
        const std::uint64_t offset = spec.type == OpType::Attach ? 0 : spec.dstOffset;
        if (offset >= target.bytes)
            throw Error(ErrorKind::InvalidInput, op.context + ": offset " + std::to_string(offset)
                                                     + " is past the end of buffer " + quoted(spec.buffer));
        op.targetBuffer = &target;
        op.targetOffset = offset;
        op.bytes = spec.bytes == 0 || spec.type == OpType::Attach ? target.bytes - offset : spec.bytes;
        if (offset + op.bytes > target.bytes)
            throw Error(ErrorKind::InvalidInput, op.context + ": " + formatBytes(op.bytes) + " at offset "
                                                     + std::to_string(offset) + " runs past the end of buffer "
                                                     + quoted(spec.buffer) + " (" + formatBytes(target.bytes) + ")");
        op.dstMem = memKindOf(target.kind);
    }
    op.hostOnly = spec.type == OpType::Advise; // cudaMemAdvise is not stream-ordered
}

// A collective's place in the communicator (every GPU whose streams hold collectives, in device order) and
// its bus bytes.
// `devices`: Workload::collectiveDevices, once for the whole plan. In one rank's part (Workload::rankOf) the
// communicator is the whole workload's, and the op's GPU is the rank's.
void planCollective(PlannedOp &op, const Workload &workload, const std::vector<int> &localDevices, Trace &trace)
{
    const bool rankPart = workload.rankOf.rank >= 0;
    const std::vector<int> &devices = rankPart ? workload.rankOf.communicator : localDevices;
    const OpSpec &spec = *op.spec;
    const auto rankOf = [&](int device) {
        const auto it = std::find(devices.begin(), devices.end(), device);
        return it == devices.end() ? -1 : int(it - devices.begin());
    };
    op.ranks = int(devices.size());
    op.rank = rankOf(rankPart ? workload.rankOf.rank : op.device);
    const CollectiveSpec &c = spec.collective;
    if (c.type == CollectiveType::Broadcast)
        op.peerRank = c.root < 0 ? 0 : rankOf(c.root);
    else if (c.type == CollectiveType::Send || c.type == CollectiveType::Recv)
        op.peerRank = rankOf(c.peer);
    if ((c.type == CollectiveType::Broadcast || c.type == CollectiveType::Send || c.type == CollectiveType::Recv)
        && op.peerRank < 0)
        throw Error(ErrorKind::InvalidInput, op.context + ": its "
                                                 + (c.type == CollectiveType::Broadcast ? "root" : "peer")
                                                 + " GPU is not in the collectives' communicator");
    op.bytes = spec.bytes;
    op.busBytes = std::max<std::uint64_t>(busBytes(c.type, spec.bytes, op.ranks), 1);
    op.workId = trace.intern(describe(spec, workload) + " over " + std::to_string(op.ranks)
                             + (op.ranks == 1 ? " GPU" : " GPUs"));
}

PlannedOp planOp(const Workload &workload, std::size_t index, const std::vector<PeerLink> &links,
                 const OpPlanOptions &options, const std::vector<int> &collectiveDevices, Trace &trace)
{
    const ScheduledOp &at = workload.schedule[index];
    if (at.stream < 0 || std::size_t(at.stream) >= workload.streams.size() || at.op < 0
        || std::size_t(at.op) >= workload.streams[std::size_t(at.stream)].ops.size())
        throw Error(ErrorKind::InvalidInput,
                    "workload " + quoted(workload.name) + ": schedule entry " + std::to_string(index) + " names no op");
    const StreamSpec &stream = workload.streams[std::size_t(at.stream)];
    const OpSpec &spec = stream.ops[std::size_t(at.op)];

    PlannedOp op;
    op.spec = &spec;
    op.stream = at.stream;
    op.opInStream = at.op;
    op.name = spec.name.empty() ? describe(spec, workload) : spec.name;
    op.nameId = trace.intern(op.name);
    op.context = opContext(stream, at.op, op.name);
    op.kind = opKindOf(spec);
    op.device = workload.streamDevice(at.stream, options.override);
    if (isGemm(spec)) { // no buffer of the workload's: its operands are the runner's own
        op.flops = spec.gemm.flops();
        op.workId = trace.intern(describe(spec, workload));
    }
    if (isCollective(spec)) // nor a collective: its buffers are the runner's too
        planCollective(op, workload, collectiveDevices, trace);
    op.thread = stream.thread;
    if (spec.type == OpType::Kernel && spec.kernelType == KernelType::Hang && options.timeLimitNs <= 0)
        throw Error(ErrorKind::InvalidInput,
                    op.context
                        + ": a hang kernel never ends, and only the end of its process stops it: give "
                          "the run a time limit (\"timeLimit\" in the workload, or streamscope-cli run "
                          "--time-limit)");
    switch (spec.type) {
    case OpType::Copy: planCopy(op, workload, options.override, links); break;
    case OpType::Kernel:
    case OpType::Memset:
    case OpType::Prefetch:
    case OpType::Advise:
    case OpType::Attach: planBufferOp(op, workload); break;
    case OpType::EventRecord:
    case OpType::EventWait: break; // paired below, once every record is planned
    case OpType::Sync:
        op.hostOnly = true;
        if (spec.syncTarget == SyncTarget::Stream) {
            op.syncStream = at.stream;
            if (!spec.syncStream.empty()) {
                op.syncStream = workload.findStream(spec.syncStream);
                if (op.syncStream < 0)
                    throw Error(ErrorKind::InvalidInput, op.context + ": no stream named " + quoted(spec.syncStream));
            }
        }
        break;
    case OpType::HostWork: op.hostOnly = true; break;
    case OpType::Collective: break;
    }
    op.instrumented = !op.hostOnly && options.instrument;
    return op;
}

// A kernel launched with PDL starts early only if nothing stands between it and the kernel before it on its
// stream: an event recorded there (the op's begin event, its predecessor's end event) would be that kernel's
// successor instead, and the overlap would be lost (measured on an H100: a chain of 500 one-block kernels took
// 0.72 us a kernel with PDL, 3.9 us with an event between each two, 1.8 us without PDL). So a PDL kernel and
// the GPU op before it on its stream go without their events; CUPTI times them. So does a kernel with
// "pdl": false, so that it compares with its PDL twin like for like (the pdl axis writes false for off).
void dropEventsAroundPdl(std::vector<PlannedOp> &ops)
{
    std::map<int, std::size_t> lastOnStream; // workload stream -> index of its last GPU op so far
    for (std::size_t i = 0; i < ops.size(); ++i) {
        PlannedOp &op = ops[i];
        if (op.hostOnly || op.onDefaultStream)
            continue;
        if (op.kind == OpKind::Kernel && op.spec && (op.spec->pdl || op.spec->pdlGiven)) {
            op.instrumented = false;
            if (const auto before = lastOnStream.find(op.stream); before != lastOnStream.end())
                ops[before->second].instrumented = false;
        }
        lastOnStream[op.stream] = i;
    }
}

} // namespace

std::string describePdl(const std::vector<PlannedOp> &ops, bool timedByEvents, const std::vector<DeviceInfo> &devices)
{
    std::set<int> onDevices;
    std::size_t count = 0, without = 0;
    for (const PlannedOp &op : ops) {
        if (op.kind != OpKind::Kernel || !op.spec)
            continue;
        if (op.spec->pdl) {
            ++count;
            onDevices.insert(op.device);
        } else if (op.spec->pdlGiven) {
            ++without;
        }
    }
    if (count == 0 && without == 0)
        return {};
    if (count == 0)
        return std::to_string(without) + (without == 1 ? " kernel" : " kernels")
               + " with \"pdl\": false, launched without programmatic dependent launch"
               + (timedByEvents ? std::string()
                                : "; each, and the op before it on its stream, without timing events as a PDL kernel "
                                  "would be, to compare with it (CUPTI times them)");
    std::string text =
        std::to_string(count) + (count == 1 ? " kernel" : " kernels") + " launched with programmatic dependent launch";
    if (timedByEvents)
        return text
               + "; timed by CUDA events, whose records stand between the kernels: none could start before the "
                 "kernel ahead of it ended, so PDL changed nothing here";
    std::string older;
    for (const DeviceInfo &d : devices)
        if (onDevices.count(d.index) && d.ccMajor > 0 && d.ccMajor < 9)
            older += (older.empty() ? "" : ", ") + std::string("GPU ") + std::to_string(d.index)
                     + " (compute capability " + std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor) + ")";
    text += "; each, and the op before it on its stream, without timing events (CUPTI times them)";
    if (!older.empty())
        text += "; " + older + " has no PDL before compute capability 9.0: its kernels ran as launched without";
    return text;
}

// "stream 'copy0' op 3 (/streams/0/ops/3, line 12): H2D 256 MiB pinned"
std::string opContext(const StreamSpec &stream, int opInStream, const std::string &name)
{
    return opLocation(stream, opInStream) + ": " + name;
}

std::string quoted(const std::string &name)
{
    return "'" + name + "'";
}

std::uint64_t addBytes(std::uint64_t a, std::uint64_t b)
{
    return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

std::string describeDevices(const std::vector<DeviceInfo> &devices)
{
    std::string text =
        "this host has " + std::to_string(devices.size()) + (devices.size() == 1 ? " CUDA device:" : " CUDA devices:");
    for (const DeviceInfo &d : devices) {
        text += " " + std::to_string(d.index) + " " + quoted(d.name) + " (cc " + std::to_string(d.ccMajor) + "."
                + std::to_string(d.ccMinor) + ", " + formatBytes(d.totalMemBytes) + ")";
        if (&d != &devices.back())
            text += ";";
    }
    return text;
}

DevicePlan planDevices(const Workload &workload, int override, const std::vector<DeviceInfo> &devices)
{
    DevicePlan plan;
    plan.primary = workload.threadDevice(0, override);
    plan.used = workload.usedDevices(override);
    for (const int d : plan.used)
        if (d < 0 || d >= int(devices.size()))
            throw Error(ErrorKind::InvalidInput, "workload " + quoted(workload.name) + " uses device "
                                                     + std::to_string(d)
                                                     + ", which does not exist: " + describeDevices(devices));
    // An fp8 GEMM needs the tensor cores of compute capability 8.9 (Ada) or later.
    for (std::size_t s = 0; s < workload.streams.size(); ++s)
        for (std::size_t i = 0; i < workload.streams[s].ops.size(); ++i) {
            const OpSpec &op = workload.streams[s].ops[i];
            if (!isGemm(op) || op.gemm.dtype != GemmDtype::Fp8)
                continue;
            const DeviceInfo &d = devices[std::size_t(workload.streamDevice(int(s), override))];
            if (d.ccMajor * 10 + d.ccMinor < 89)
                throw Error(ErrorKind::InvalidInput,
                            opContext(workload.streams[s], int(i), describe(op, workload))
                                + ": an fp8 GEMM needs compute capability 8.9 or later, and device "
                                + std::to_string(d.index) + " " + quoted(d.name) + " has " + std::to_string(d.ccMajor)
                                + "." + std::to_string(d.ccMinor));
        }
    // A GPU's collectives come from one host thread: the CLI's --device can fold two GPUs' threads onto one
    // GPU, whose communicator rank would then be driven from two threads at once.
    std::map<int, int> collectiveThread; // device -> the thread that issues its collectives
    for (std::size_t s = 0; s < workload.streams.size(); ++s) {
        const StreamSpec &stream = workload.streams[s];
        if (std::none_of(stream.ops.begin(), stream.ops.end(), isCollective))
            continue;
        const int device = workload.streamDevice(int(s), override);
        const auto [it, first] = collectiveThread.emplace(device, stream.thread);
        if (!first && it->second != stream.thread)
            throw Error(
                ErrorKind::InvalidInput,
                "workload " + quoted(workload.name) + ": threads " + quoted(workload.threadName(it->second)) + " and "
                    + quoted(workload.threadName(stream.thread)) + " both issue collectives on device "
                    + std::to_string(device)
                    + (override >= 0 ? " (--device " + std::to_string(override) + " puts every GPU's on it)" : "")
                    + ": each GPU of a communicator is driven by one thread; run it on its own GPUs");
    }
    return plan;
}

std::vector<BufferSpec> gemmBuffers(const Workload &workload, int override, int device)
{
    std::vector<BufferSpec> buffers;
    std::set<std::tuple<std::int32_t, std::int32_t, std::int32_t, GemmDtype>> shapes;
    for (std::size_t s = 0; s < workload.streams.size(); ++s) {
        if (workload.streamDevice(int(s), override) != device)
            continue;
        bool any = false;
        for (const OpSpec &op : workload.streams[s].ops) {
            if (!isGemm(op))
                continue;
            any = true;
            if (shapes.emplace(op.gemm.m, op.gemm.n, op.gemm.k, op.gemm.dtype).second)
                buffers.push_back(
                    {"GEMM operands of " + describe(op, workload), BufferKind::Device, op.gemm.operandBytes(), device});
        }
        if (any)
            buffers.push_back({"cuBLAS workspace of stream " + quoted(workload.streams[s].name), BufferKind::Device,
                               kGemmWorkspaceBytes, device});
    }
    return buffers;
}

CollectiveBytes collectiveBytes(const Workload &workload, int override, int device)
{
    const int ranks = workload.communicatorSize(override);
    CollectiveBytes b;
    for (std::size_t s = 0; s < workload.streams.size(); ++s) {
        if (workload.streamDevice(int(s), override) != device)
            continue;
        for (const OpSpec &op : workload.streams[s].ops) {
            if (!isCollective(op))
                continue;
            b.send = std::max(b.send, collectiveSendBytes(op.collective.type, op.bytes, ranks));
            b.recv = std::max(b.recv, collectiveRecvBytes(op.collective.type, op.bytes, ranks));
        }
    }
    // Symmetric windows are the same size on every rank: a rank that only sends still registers a receive
    // buffer as large as its peer's.
    if (workload.nccl.symmetric && (b.send > 0 || b.recv > 0))
        b.send = b.recv = std::max(b.send, b.recv);
    return b;
}

std::vector<BufferSpec> collectiveBuffers(const Workload &workload, int override, int device)
{
    const CollectiveBytes b = collectiveBytes(workload, override, device);
    std::vector<BufferSpec> buffers;
    if (b.send > 0)
        buffers.push_back({"the collectives' send buffer", BufferKind::Device, b.send, device});
    if (b.recv > 0)
        buffers.push_back({"the collectives' receive buffer", BufferKind::Device, b.recv, device});
    return buffers;
}

Workload buffersOn(const Workload &workload, int override, int device, bool withHost)
{
    Workload w;
    w.name = workload.name;
    for (const BufferSpec &b : workload.buffers) {
        const bool deviceSide = b.kind == BufferKind::Device || b.kind == BufferKind::Managed;
        if (deviceSide ? workload.bufferDevice(b, override) == device : withHost)
            w.buffers.push_back(b);
    }
    for (BufferSpec &b : gemmBuffers(workload, override, device))
        w.buffers.push_back(std::move(b));
    for (BufferSpec &b : collectiveBuffers(workload, override, device))
        w.buffers.push_back(std::move(b));
    return w;
}

void checkMemoryFits(const Workload &workload, const DeviceInfo &device, bool all, std::uint64_t freeBytes,
                     std::uint64_t totalBytes, const std::function<HostMemory()> &host)
{
    std::uint64_t deviceBytes = 0, managedBytes = 0, hostBytes = 0;
    for (const BufferSpec &b : workload.buffers) {
        switch (b.kind) {
        case BufferKind::Device: deviceBytes = addBytes(deviceBytes, b.bytes); break;
        case BufferKind::Managed: managedBytes = addBytes(managedBytes, b.bytes); break;
        case BufferKind::Pageable:
        case BufferKind::Pinned:
        case BufferKind::Registered: hostBytes = addBytes(hostBytes, b.bytes); break;
        }
    }
    const std::string deviceText = "device " + std::to_string(device.index) + " " + quoted(device.name) + " has "
                                   + formatBytes(freeBytes) + " free of " + formatBytes(totalBytes);
    const std::string reserveText = formatBytes(kDeviceReserveBytes) + " kept free for the CUDA runtime";
    const std::uint64_t room = freeBytes > kDeviceReserveBytes ? freeBytes - kDeviceReserveBytes : 0;
    // Managed memory could be oversubscribed on this platform, but a lesson that pages its managed buffers
    // to death measures the pager, and oversubscription can hang the GPU: it counts against free memory.
    if (managedBytes > room) {
        throw Error(ErrorKind::OutOfMemory,
                    "workload " + quoted(workload.name) + ": managed buffers "
                        + largestBuffers(workload, {BufferKind::Managed}) + " need " + formatBytes(managedBytes)
                        + ", more than the device has free (" + deviceText + ", " + reserveText
                        + "): StreamScope never asks for more managed memory than the device has "
                          "free, since oversubscribing it can hang the GPU");
    }
    if (!all)
        return;
    for (const BufferSpec &b : workload.buffers)
        if ((b.kind == BufferKind::Device || b.kind == BufferKind::Managed) && b.bytes > room)
            throw Error(ErrorKind::OutOfMemory,
                        "buffer " + quoted(b.name) + " (" + std::string(toString(b.kind)) + ", " + formatBytes(b.bytes)
                            + ") does not fit in device memory: " + deviceText + " (" + reserveText + ")");
    const std::uint64_t needDevice = addBytes(deviceBytes, managedBytes);
    if (needDevice > room) {
        throw Error(ErrorKind::OutOfMemory,
                    "workload " + quoted(workload.name) + " does not fit in device memory: its buffers "
                        + largestBuffers(workload, {BufferKind::Device, BufferKind::Managed}) + " need "
                        + formatBytes(needDevice) + " (device " + formatBytes(deviceBytes) + " + managed "
                        + formatBytes(managedBytes) + ") but " + deviceText + " (" + reserveText + ")");
    }
    checkHostMemoryFits(workload, hostBytes, managedBytes, host());
}

PeerAccessPlan planPeerAccess(const Workload &workload, const std::vector<int> &devices,
                              const std::function<bool(int, int)> &canAccess)
{
    PeerAccessPlan plan;
    if (devices.size() < 2) {
        plan.metadata = "one device";
        return plan;
    }
    std::string topology, cannot;
    for (const int a : devices)
        for (const int b : devices) {
            if (a == b)
                continue;
            const bool can = canAccess(a, b);
            const std::string pair = std::to_string(a) + "->" + std::to_string(b);
            topology += (topology.empty() ? "" : ", ") + pair + (can ? " yes" : " no");
            if (!can)
                cannot += (cannot.empty() ? "" : ", ") + pair;
            plan.pairs.emplace_back(a, b);
        }
    plan.enable = workload.peerAccess == PeerAccess::On;
    if (plan.enable && !cannot.empty())
        throw Error(ErrorKind::InvalidInput,
                    "workload " + quoted(workload.name) + ": \"peerAccess\": \"on\", but device pairs " + cannot
                        + " cannot access each other (cudaDeviceCanAccessPeer; the topology: " + topology
                        + "); set \"peerAccess\": \"off\" to copy between them through host memory");
    plan.metadata = plan.enable
                        ? "on: peer copies go directly between the GPUs (cudaDeviceEnablePeerAccess; " + topology + ")"
                        : "off: the driver stages peer copies through host memory (cudaMemcpyPeerAsync without peer "
                          "access; cudaDeviceCanAccessPeer: "
                              + topology + ")";
    return plan;
}

void markPeerAccess(std::vector<PeerLink> &links, const Workload &workload, const std::vector<int> &used)
{
    for (PeerLink &link : links)
        link.accessEnabled = workload.peerAccess == PeerAccess::On && link.accessSupported
                             && std::find(used.begin(), used.end(), link.src) != used.end()
                             && std::find(used.begin(), used.end(), link.dst) != used.end();
}

std::vector<int> defaultStreamDevices(const Workload &workload, int thread, int override)
{
    std::vector<int> devices;
    for (std::size_t i = 0; i < workload.streams.size(); ++i) {
        const int device = workload.streamDevice(int(i), override);
        if (workload.streams[i].thread == thread && std::find(devices.begin(), devices.end(), device) == devices.end())
            devices.push_back(device);
    }
    if (devices.empty())
        devices.push_back(workload.threadDevice(thread, override));
    return devices;
}

std::vector<PlannedOp> planOps(const Workload &workload, const std::vector<PeerLink> &links,
                               const OpPlanOptions &options, Trace &trace)
{
    // The parser always fills the schedule; a Workload built in code must call buildSchedule().
    if (workload.schedule.size() != workload.opCount())
        throw Error(ErrorKind::InvalidInput, "workload " + quoted(workload.name) + ": the schedule lists "
                                                 + std::to_string(workload.schedule.size())
                                                 + " ops but the streams hold " + std::to_string(workload.opCount())
                                                 + " (call buildSchedule after changing the ops)");
    // A workload launched as a graph: what a capture cannot hold is refused before anything runs (the parser
    // says the same of a workload file; a Workload built in code, or varied by an axis, is checked here).
    if (workload.launch == LaunchMode::Graph)
        if (const std::vector<CaptureProblem> problems = captureProblems(workload); !problems.empty()) {
            const CaptureProblem &first = problems.front();
            throw Error(ErrorKind::InvalidInput,
                        "workload " + quoted(workload.name) + " cannot be launched as a graph (\"launch\": \"graph\"): "
                            + (first.where.empty() ? first.jsonPath : first.where) + ": " + first.message
                            + (problems.size() > 1 ? " (and " + std::to_string(problems.size() - 1) + " more)" : ""));
        }
    std::vector<PlannedOp> ops;
    ops.reserve(workload.schedule.size());
    const std::vector<int> collectiveDevices = workload.collectiveDevices(options.override);
    for (std::size_t index = 0; index < workload.schedule.size(); ++index)
        ops.push_back(planOp(workload, index, links, options, collectiveDevices, trace));
    // Each wait and event sync waits for the one record it pairs with (workload.h, pairEventWaits).
    const std::vector<int> paired = pairEventWaits(workload);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        PlannedOp &op = ops[i];
        const bool waits = op.spec->type == OpType::EventWait
                           || (op.spec->type == OpType::Sync && op.spec->syncTarget == SyncTarget::Event);
        if (!waits)
            continue;
        if (i >= paired.size() || paired[i] < 0)
            throw Error(ErrorKind::InvalidInput, op.context + ": event " + quoted(op.spec->event)
                                                     + " is not recorded before this wait (validate the workload)");
        op.pairedRecord = paired[i];
        op.crossThread = ops[std::size_t(paired[i])].thread != op.thread;
    }
    if (!options.timedByEvents)
        dropEventsAroundPdl(ops);
    return ops;
}

OpRecord issuedRecord(const PlannedOp &op, std::size_t index, int hostThread)
{
    OpRecord r;
    r.nameId = op.nameId;
    r.kind = op.kind;
    r.srcMem = op.srcMem;
    r.dstMem = op.dstMem;
    r.api = op.spec && op.spec->type == OpType::Copy ? op.spec->api : CopyApi::None;
    r.bytes = op.bytes;
    r.srcDevice = static_cast<std::int8_t>(op.srcDevice); // -1 but for peer copies; devices are < 64
    r.dstDevice = static_cast<std::int8_t>(op.dstDevice);
    if (op.stagedPeer)
        r.flags |= OpFlagStagedPeer;
    if (op.kind == OpKind::Kernel && op.spec && op.spec->pdl)
        r.flags |= OpFlagPdl;
    r.opIndex = int(index);
    r.stream = op.hostOnly ? -1 : op.stream;
    r.hostThread = hostThread;
    return r;
}

} // namespace streamscope::engine
