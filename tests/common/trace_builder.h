// TraceBuilder: the one way the tests of every layer (engine, ui, app) make a trace by hand.
//
//     const engine::Trace t = TraceBuilder()
//                                 .device("Test GPU")
//                                 .thread("main", 42)
//                                 .stream("s0")
//                                 .h2d(0, 100'000, 1_MiB).host(0, 2'000).memory(Pinned, Device).api(Async)
//                                 .kernel(100'000, 300'000).named("B: kernel")
//                                 .build();
//
// Times are nanoseconds on the trace's clock, as OpRecord holds them. An op goes to the current stream (the
// last one added or chosen with onStream()) of the current repetition (the first is opened by the first op;
// repetition() opens the next), with the current host thread (the last added, -1 before any), the next op
// index of its repetition and, unless named(), its kind's name (interned at build(), so that the names the
// test gives are interned in the order it gives them). The modifiers after an op (named, host,
// memory, ...) change that op; last() hands it over for anything else.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "engine/model/trace.h"

namespace streamscope::test {

constexpr std::uint64_t operator""_KiB(unsigned long long v)
{
    return std::uint64_t(v) << 10;
}
constexpr std::uint64_t operator""_MiB(unsigned long long v)
{
    return std::uint64_t(v) << 20;
}
constexpr std::uint64_t operator""_MB(unsigned long long v)
{
    return std::uint64_t(v) * 1'000'000;
}

class TraceBuilder {
public:
    TraceBuilder() = default;
    // Goes on from a trace made elsewhere (a fixture): its streams, threads and repetitions stay, the ops go
    // to its last stream, thread and repetition until told otherwise.
    explicit TraceBuilder(engine::Trace base) :
        m_trace(std::move(base)), m_stream(int(m_trace.streams.size()) - 1),
        m_thread(int(m_trace.hostThreads.size()) - 1)
    {
    }

    TraceBuilder &title(std::string title)
    {
        m_trace.title = std::move(title);
        return *this;
    }
    TraceBuilder &timing(engine::TimingSource timing)
    {
        m_trace.timing = timing;
        return *this;
    }
    // A device, indexed in the order added.
    TraceBuilder &device(std::string name = "Test GPU", int ccMajor = 9, double linkPeakGBs = 0)
    {
        engine::DeviceInfo d;
        d.index = int(m_trace.devices.size());
        d.name = std::move(name);
        d.ccMajor = ccMajor;
        d.linkPeakGBs = linkPeakGBs;
        m_trace.devices.push_back(std::move(d));
        return *this;
    }
    TraceBuilder &device(engine::DeviceInfo d)
    {
        m_trace.devices.push_back(std::move(d));
        return *this;
    }
    // A stream, the current one from now on: on `device`, its native id one more than its index,
    // non-blocking (a workload's streams are), priority 0.
    TraceBuilder &stream(std::string name, int device = 0)
    {
        return stream(
            engine::StreamInfo{std::move(name), device, std::int64_t(m_trace.streams.size()) + 1, 0, true, false});
    }
    TraceBuilder &stream(engine::StreamInfo s)
    {
        m_trace.streams.push_back(std::move(s));
        m_stream = int(m_trace.streams.size()) - 1;
        return *this;
    }
    // The stream of the next ops: an index into the streams added, or -1 for host-only ops.
    TraceBuilder &onStream(int index)
    {
        m_stream = index;
        return *this;
    }
    // A host thread, the current one from now on.
    TraceBuilder &thread(std::string name, std::uint64_t nativeId = 0)
    {
        engine::HostThreadInfo t;
        t.name = std::move(name);
        t.nativeId = nativeId;
        m_trace.hostThreads.push_back(std::move(t));
        m_thread = int(m_trace.hostThreads.size()) - 1;
        return *this;
    }
    // The host thread of the next ops: an index into the threads added, or -1.
    TraceBuilder &onThread(int index)
    {
        m_thread = index;
        return *this;
    }
    // Drops every repetition (a fixture's), for ops of the test's own.
    TraceBuilder &withoutRepetitions()
    {
        m_trace.repetitions.clear();
        return *this;
    }
    // Opens the next repetition (Repetition::index: its position), the current one from now on.
    TraceBuilder &repetition()
    {
        engine::Repetition r;
        r.index = int(m_trace.repetitions.size());
        m_trace.repetitions.push_back(std::move(r));
        m_repetition = -1;
        return *this;
    }
    // The repetition of the next ops: an index into those opened (or the base trace's).
    TraceBuilder &onRepetition(int index)
    {
        m_repetition = index;
        return *this;
    }

    // An op of any kind with GPU time [gpuStartNs, gpuEndNs) (engine::kNoTime for none).
    TraceBuilder &op(engine::OpKind kind, std::int64_t gpuStartNs, std::int64_t gpuEndNs, std::uint64_t bytes = 0)
    {
        if (m_trace.repetitions.empty())
            repetition();
        engine::Repetition &rep = current();
        engine::OpRecord o;
        o.kind = kind;
        o.nameId = engine::kNoString; // named(), or its kind's name at build()
        o.stream = m_stream;
        o.hostThread = m_thread;
        o.opIndex = int(rep.ops.size());
        o.gpuStartNs = gpuStartNs;
        o.gpuEndNs = gpuEndNs;
        o.bytes = bytes;
        rep.ops.push_back(o);
        return *this;
    }
    TraceBuilder &h2d(std::int64_t startNs, std::int64_t endNs, std::uint64_t bytes)
    {
        return op(engine::OpKind::CopyH2D, startNs, endNs, bytes);
    }
    TraceBuilder &d2h(std::int64_t startNs, std::int64_t endNs, std::uint64_t bytes)
    {
        return op(engine::OpKind::CopyD2H, startNs, endNs, bytes);
    }
    TraceBuilder &d2d(std::int64_t startNs, std::int64_t endNs, std::uint64_t bytes)
    {
        return op(engine::OpKind::CopyD2D, startNs, endNs, bytes);
    }
    // A peer copy from device src to device dst.
    TraceBuilder &p2p(std::int64_t startNs, std::int64_t endNs, std::uint64_t bytes, int src, int dst)
    {
        op(engine::OpKind::CopyP2P, startNs, endNs, bytes);
        last().srcDevice = std::int8_t(src);
        last().dstDevice = std::int8_t(dst);
        return *this;
    }
    TraceBuilder &kernel(std::int64_t startNs, std::int64_t endNs)
    {
        return op(engine::OpKind::Kernel, startNs, endNs);
    }
    TraceBuilder &memset(std::int64_t startNs, std::int64_t endNs, std::uint64_t bytes = 0)
    {
        return op(engine::OpKind::Memset, startNs, endNs, bytes);
    }
    // A host-only op (a sync, host work, an API call): no stream, no GPU time, its host call [startNs, endNs).
    TraceBuilder &hostOp(engine::OpKind kind, std::int64_t startNs, std::int64_t endNs)
    {
        const int stream = m_stream;
        m_stream = -1;
        op(kind, engine::kNoTime, engine::kNoTime);
        m_stream = stream;
        return host(startNs, endNs);
    }

    // A copy of op `index` of the current repetition, appended to it (its stream, thread, times and all; the
    // modifiers then say what differs).
    TraceBuilder &like(int index)
    {
        const engine::OpRecord o = current().ops.at(std::size_t(index));
        current().ops.push_back(o);
        return *this;
    }

    // Modifiers of the last op.
    // Moves it to another stream and host thread (-1: none).
    TraceBuilder &on(int stream, int thread)
    {
        last().stream = stream;
        last().hostThread = thread;
        return *this;
    }
    TraceBuilder &correlation(std::uint64_t id)
    {
        last().correlation = id;
        return *this;
    }
    TraceBuilder &named(const std::string &name)
    {
        last().nameId = m_trace.intern(name);
        return *this;
    }
    TraceBuilder &host(std::int64_t startNs, std::int64_t endNs)
    {
        last().hostStartNs = startNs;
        last().hostEndNs = endNs;
        return *this;
    }
    TraceBuilder &memory(engine::MemKind src, engine::MemKind dst)
    {
        last().srcMem = src;
        last().dstMem = dst;
        return *this;
    }
    TraceBuilder &api(engine::CopyApi api)
    {
        last().api = api;
        return *this;
    }
    // Stream-ready (the event before it) and the event after it.
    TraceBuilder &events(std::int64_t readyNs, std::int64_t endNs)
    {
        last().readyNs = readyNs;
        last().eventEndNs = endNs;
        return *this;
    }
    TraceBuilder &channel(std::int16_t channel, engine::ChannelType type)
    {
        last().channel = channel;
        last().channelType = type;
        return *this;
    }
    TraceBuilder &opIndex(int index)
    {
        last().opIndex = index;
        return *this;
    }
    TraceBuilder &flags(std::uint8_t flags)
    {
        last().flags = flags;
        return *this;
    }
    engine::OpRecord &last() { return current().ops.back(); }

    // The trace as built so far, for what the builder has no verb for (peer links, metadata, activities).
    engine::Trace &trace() { return m_trace; }

    engine::Trace build()
    {
        for (engine::Repetition &rep : m_trace.repetitions)
            for (engine::OpRecord &o : rep.ops)
                if (o.nameId == engine::kNoString)
                    o.nameId = m_trace.intern(engine::toString(o.kind));
        return std::move(m_trace);
    }
    std::shared_ptr<engine::Trace> buildShared() { return std::make_shared<engine::Trace>(build()); }

private:
    engine::Repetition &current()
    {
        return m_repetition >= 0 ? m_trace.repetitions.at(std::size_t(m_repetition)) : m_trace.repetitions.back();
    }

    engine::Trace m_trace;
    int m_repetition = -1; // -1: the last
    int m_stream = -1;
    int m_thread = -1;
};

} // namespace streamscope::test
