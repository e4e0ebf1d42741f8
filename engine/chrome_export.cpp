// Chrome Trace Event JSON export, written by hand into one string (see chrome_export.h for the layout).
#include "engine/chrome_export.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <set>

#include "engine/analysis.h"
#include "engine/api_names.h"
#include "engine/errors.h"
#include "engine/file_util.h"

namespace streamscope::engine {

namespace {

constexpr int kHostPid = 1;
constexpr int kCounterPid = 2;
constexpr int kGpuPidBase = 100; // GPU d is process 100 + d: no clash with the two above

// Appends JSON text. Numbers go through std::to_chars and strings through a scan that copies clean
// runs in one piece: this is where the time of a million-op export goes.
class JsonOut {
public:
    explicit JsonOut(std::string &out) : m_out(out) {}

    void raw(std::string_view s) { m_out.append(s); }
    void ch(char c) { m_out.push_back(c); }

    void integer(std::int64_t v)
    {
        char buf[24];
        auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_out.append(buf, r.ptr);
    }
    void unsignedInteger(std::uint64_t v)
    {
        char buf[24];
        auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_out.append(buf, r.ptr);
    }
    void real(double v)
    {
        if (!(v == v) || v == std::numeric_limits<double>::infinity() || v == -std::numeric_limits<double>::infinity()) {
            m_out.append("0"); // JSON has no NaN or infinity
            return;
        }
        char buf[32];
        auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_out.append(buf, r.ptr);
    }
    // Nanoseconds written as microseconds with the nanoseconds as an exact decimal fraction, so that
    // the importer gets the same integer back (doubles hold these exactly up to ~104 days).
    void micros(std::int64_t ns)
    {
        if (ns < 0) {
            m_out.push_back('-');
            ns = -ns;
        }
        unsignedInteger(static_cast<std::uint64_t>(ns / 1000));
        int frac = static_cast<int>(ns % 1000);
        if (frac == 0)
            return;
        char buf[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                       static_cast<char>('0' + frac % 10)};
        int len = 4;
        while (buf[len - 1] == '0')
            --len;
        m_out.append(buf, static_cast<std::size_t>(len));
    }
    void string(std::string_view s)
    {
        m_out.push_back('"');
        std::size_t clean = 0;
        while (clean < s.size()) {
            const auto c = static_cast<unsigned char>(s[clean]);
            if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80)
                break;
            ++clean;
        }
        m_out.append(s.data(), clean);
        if (clean < s.size())
            escapeRest(s.substr(clean));
        m_out.push_back('"');
    }
    // "key":
    void key(std::string_view k)
    {
        m_out.push_back('"');
        m_out.append(k);
        m_out.append("\":");
    }

private:
    void escapeRest(std::string_view s)
    {
        static constexpr char kHex[] = "0123456789abcdef";
        std::size_t i = 0;
        while (i < s.size()) {
            const auto c = static_cast<unsigned char>(s[i]);
            if (c == '"' || c == '\\') {
                m_out.push_back('\\');
                m_out.push_back(static_cast<char>(c));
                ++i;
            } else if (c < 0x20) {
                switch (c) {
                case '\n': m_out.append("\\n"); break;
                case '\t': m_out.append("\\t"); break;
                case '\r': m_out.append("\\r"); break;
                case '\b': m_out.append("\\b"); break;
                case '\f': m_out.append("\\f"); break;
                default:
                    m_out.append("\\u00");
                    m_out.push_back(kHex[c >> 4]);
                    m_out.push_back(kHex[c & 15]);
                }
                ++i;
            } else if (c < 0x80) {
                m_out.push_back(static_cast<char>(c));
                ++i;
            } else {
                // Imported names may hold bytes that are not UTF-8; strict JSON readers reject those,
                // so an invalid sequence becomes U+FFFD.
                const std::size_t len = validUtf8Length(s.substr(i));
                if (len == 0) {
                    m_out.append("\xEF\xBF\xBD");
                    ++i;
                } else {
                    m_out.append(s.data() + i, len);
                    i += len;
                }
            }
        }
    }
    static std::size_t validUtf8Length(std::string_view s)
    {
        const auto b0 = static_cast<unsigned char>(s[0]);
        std::size_t len = 0;
        std::uint32_t cp = 0;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            len = 2;
            cp = b0 & 0x1F;
        } else if (b0 >= 0xE0 && b0 <= 0xEF) {
            len = 3;
            cp = b0 & 0x0F;
        } else if (b0 >= 0xF0 && b0 <= 0xF4) {
            len = 4;
            cp = b0 & 0x07;
        } else {
            return 0;
        }
        if (s.size() < len)
            return 0;
        for (std::size_t k = 1; k < len; ++k) {
            const auto b = static_cast<unsigned char>(s[k]);
            if ((b & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (b & 0x3F);
        }
        // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8 either.
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        return len;
    }

    std::string &m_out;
};

// Perfetto requires the slices of one track to nest; ops of one stream may overlap (imports, or
// repetitions). Greedy interval partitioning: each slice goes on the first track whose last slice
// ended by its start, so every track holds disjoint slices and the first track keeps the most.
struct Interval {
    std::int64_t start;
    std::int64_t end;
    std::uint32_t op; // global op index
};

// Returns the number of tracks used; writes the track of each interval's op into trackOf.
int assignTracks(std::vector<Interval> &intervals, std::vector<std::uint32_t> &trackOf)
{
    auto byStart = [](const Interval &a, const Interval &b) {
        return a.start != b.start ? a.start < b.start : (a.end != b.end ? a.end > b.end : a.op < b.op);
    };
    if (!std::is_sorted(intervals.begin(), intervals.end(), byStart))
        std::sort(intervals.begin(), intervals.end(), byStart);
    std::vector<std::int64_t> lastEnd;
    for (const auto &iv : intervals) {
        std::size_t t = 0;
        while (t < lastEnd.size() && lastEnd[t] > iv.start)
            ++t;
        if (t == lastEnd.size())
            lastEnd.push_back(iv.end);
        else
            lastEnd[t] = iv.end;
        trackOf[iv.op] = static_cast<std::uint32_t>(t);
    }
    return static_cast<int>(lastEnd.size());
}

void writeMetadataEvent(JsonOut &j, std::string_view what, int pid, int tid, std::string_view argKey,
                        std::string_view textValue, std::int64_t intValue, bool isText)
{
    j.raw("{\"ph\":\"M\",\"name\":");
    j.string(what);
    j.raw(",\"pid\":");
    j.integer(pid);
    j.raw(",\"tid\":");
    j.integer(tid);
    j.raw(",\"args\":{");
    j.key(argKey);
    if (isText)
        j.string(textValue);
    else
        j.integer(intValue);
    j.raw("}},\n");
}

void nameProcess(JsonOut &j, int pid, std::string_view name, int sortIndex)
{
    writeMetadataEvent(j, "process_name", pid, 0, "name", name, 0, true);
    writeMetadataEvent(j, "process_sort_index", pid, 0, "sort_index", {}, sortIndex, false);
}

void nameThread(JsonOut &j, int pid, int tid, std::string_view name, int sortIndex)
{
    writeMetadataEvent(j, "thread_name", pid, tid, "name", name, 0, true);
    writeMetadataEvent(j, "thread_sort_index", pid, tid, "sort_index", {}, sortIndex, false);
}

std::string_view gpuCategory(OpKind kind)
{
    // Kineto's categories, so that tools written for PyTorch profiles (and our importer) know them.
    if (isCopy(kind))
        return "gpu_memcpy";
    if (kind == OpKind::Kernel)
        return "kernel";
    if (kind == OpKind::Memset)
        return "gpu_memset";
    return "gpu_op";
}

void writeStreamscopeBlock(JsonOut &j, const Trace &trace, std::int64_t originNs)
{
    j.raw("\"streamscope\":{\"format\":\"streamscope-chrome\",\"version\":1,\"traceFormatVersion\":");
    j.integer(trace.formatVersion);
    j.raw(",\"source\":");
    j.string(trace.source);
    j.raw(",\"title\":");
    j.string(trace.title);
    j.raw(",\"toolVersion\":");
    j.string(trace.toolVersion);
    j.raw(",\"hostName\":");
    j.string(trace.hostName);
    j.raw(",\"createdUtc\":");
    j.string(trace.createdUtc);
    j.raw(",\"originNs\":");
    j.integer(originNs);
    j.raw(",\n\"streams\":[");
    for (std::size_t i = 0; i < trace.streams.size(); ++i) {
        const auto &s = trace.streams[i];
        if (i)
            j.ch(',');
        j.raw("{\"name\":");
        j.string(s.name);
        j.raw(",\"device\":");
        j.integer(s.device);
        j.raw(",\"nativeId\":");
        j.integer(s.nativeId);
        j.raw(",\"priority\":");
        j.integer(s.priority);
        j.raw(s.nonBlocking ? ",\"nonBlocking\":true" : ",\"nonBlocking\":false");
        j.raw(s.isDefault ? ",\"isDefault\":true}" : ",\"isDefault\":false}");
    }
    j.raw("],\n\"hostThreads\":[");
    for (std::size_t i = 0; i < trace.hostThreads.size(); ++i) {
        if (i)
            j.ch(',');
        j.raw("{\"name\":");
        j.string(trace.hostThreads[i].name);
        j.raw(",\"nativeId\":");
        j.unsignedInteger(trace.hostThreads[i].nativeId);
        j.ch('}');
    }
    j.raw("],\n\"devices\":[");
    for (std::size_t i = 0; i < trace.devices.size(); ++i) {
        const auto &d = trace.devices[i];
        if (i)
            j.ch(',');
        j.raw("{\"index\":");
        j.integer(d.index);
        j.raw(",\"name\":");
        j.string(d.name);
        j.raw(",\"ccMajor\":");
        j.integer(d.ccMajor);
        j.raw(",\"ccMinor\":");
        j.integer(d.ccMinor);
        j.raw(",\"smCount\":");
        j.integer(d.smCount);
        j.raw(",\"asyncEngineCount\":");
        j.integer(d.asyncEngineCount);
        j.raw(",\"totalMemBytes\":");
        j.unsignedInteger(d.totalMemBytes);
        j.raw(",\"pciBusId\":");
        j.string(d.pciBusId);
        j.ch('}');
    }
    j.raw("],\n\"metadata\":{");
    bool first = true;
    for (const auto &[k, v] : trace.metadata) {
        if (!first)
            j.ch(',');
        first = false;
        j.string(k);
        j.ch(':');
        j.string(v);
    }
    j.raw("}},\n");
}

} // namespace

std::string toChromeJson(const Trace &trace, const ChromeExportOptions &options)
{
    const std::size_t opCount = trace.opCount();
    if (opCount >= std::numeric_limits<std::uint32_t>::max())
        throw Error(ErrorKind::InvalidInput, "Chrome export: too many ops (" + std::to_string(opCount) + ")");

    // Times are written relative to the earliest instant of the trace: small numbers keep their
    // nanoseconds exact, and the origin goes into the streamscope block for the way back.
    std::int64_t origin = std::numeric_limits<std::int64_t>::max();
    for (std::size_t r = 0; r < trace.repetitions.size(); ++r) {
        if (trace.repetitions[r].ops.empty())
            continue;
        const auto [lo, hi] = trace.extent(static_cast<int>(r));
        if (lo != hi || lo != 0)
            origin = std::min(origin, lo);
    }
    if (origin == std::numeric_limits<std::int64_t>::max())
        origin = 0;

    // Stream keys: Trace::streams, plus one pseudo stream for GPU ops that name no valid stream.
    const int streamCount = static_cast<int>(trace.streams.size());
    const int threadCount = static_cast<int>(trace.hostThreads.size());
    auto streamKey = [&](const OpRecord &op) { return op.stream >= 0 && op.stream < streamCount ? op.stream : streamCount; };
    auto threadKey = [&](const OpRecord &op) {
        return op.hostThread >= 0 && op.hostThread < threadCount ? op.hostThread : threadCount;
    };
    // A host-only op always gets its slice: without it the op would vanish from the file.
    auto writesHostSlice = [&](const OpRecord &op) { return op.hasHost() && (options.hostCalls || !op.hasGpu()); };

    std::vector<std::vector<Interval>> streamIntervals(static_cast<std::size_t>(streamCount) + 1);
    std::vector<std::vector<Interval>> threadIntervals(static_cast<std::size_t>(threadCount) + 1);
    {
        std::uint32_t g = 0;
        for (const auto &rep : trace.repetitions)
            for (const auto &op : rep.ops) {
                if (op.hasGpu())
                    streamIntervals[static_cast<std::size_t>(streamKey(op))].push_back({op.gpuStartNs, op.gpuEndNs, g});
                if (writesHostSlice(op))
                    threadIntervals[static_cast<std::size_t>(threadKey(op))].push_back({op.hostStartNs, op.hostEndNs, g});
                ++g;
            }
    }
    std::vector<std::uint32_t> gpuTrack(opCount, 0), hostTrack(opCount, 0);
    std::vector<int> streamTracks(streamIntervals.size(), 0), threadTracks(threadIntervals.size(), 0);
    for (std::size_t s = 0; s < streamIntervals.size(); ++s)
        streamTracks[s] = assignTracks(streamIntervals[s], gpuTrack);
    for (std::size_t t = 0; t < threadIntervals.size(); ++t)
        threadTracks[t] = assignTracks(threadIntervals[t], hostTrack);
    streamIntervals.clear();
    threadIntervals.clear();

    auto deviceOfKey = [&](int key) { return key < streamCount ? trace.streams[static_cast<std::size_t>(key)].device : 0; };
    // Track ids: the first track of each stream (and thread) in order, then its overflow tracks.
    std::vector<int> streamTidBase(streamTracks.size()), threadTidBase(threadTracks.size());
    {
        int next = 1;
        for (std::size_t s = 0; s < streamTracks.size(); ++s) {
            streamTidBase[s] = next;
            next += std::max(streamTracks[s], 1);
        }
        next = 1;
        for (std::size_t t = 0; t < threadTracks.size(); ++t) {
            threadTidBase[t] = next;
            next += std::max(threadTracks[t], 1);
        }
    }

    std::string out;
    out.reserve(opCount * (options.hostCalls ? 560 : 300) + 4096);
    JsonOut j(out);
    j.raw("{\"displayTimeUnit\":\"ns\",\n");
    writeStreamscopeBlock(j, trace, origin);
    j.raw("\"traceEvents\":[\n");

    // Processes and tracks.
    std::set<int> devices;
    for (const auto &d : trace.devices)
        devices.insert(d.index);
    for (std::size_t s = 0; s < streamTracks.size(); ++s)
        if (streamTracks[s] > 0 || static_cast<int>(s) < streamCount)
            devices.insert(deviceOfKey(static_cast<int>(s)));
    nameProcess(j, kHostPid, trace.hostName.empty() ? std::string("host") : "host " + trace.hostName, 0);
    int sortIndex = 1;
    for (int d : devices) {
        std::string name = "GPU " + std::to_string(d);
        for (const auto &info : trace.devices)
            if (info.index == d && !info.name.empty())
                name += ": " + info.name;
        nameProcess(j, kGpuPidBase + d, name, sortIndex++);
    }
    if (options.counters)
        nameProcess(j, kCounterPid, "StreamScope analysis", sortIndex++);

    int threadSort = 0;
    for (std::size_t t = 0; t < threadTracks.size(); ++t) {
        if (threadTracks[t] == 0)
            continue;
        const std::string base = t < static_cast<std::size_t>(threadCount)
                                     ? (trace.hostThreads[t].name.empty() ? "thread " + std::to_string(trace.hostThreads[t].nativeId)
                                                                          : trace.hostThreads[t].name)
                                     : std::string("host (thread not recorded)");
        for (int k = 0; k < threadTracks[t]; ++k)
            nameThread(j, kHostPid, threadTidBase[t] + k, k == 0 ? base : base + " (" + std::to_string(k + 1) + ")",
                       threadSort++);
    }
    int streamSort = 0;
    for (std::size_t s = 0; s < streamTracks.size(); ++s) {
        const bool real = static_cast<int>(s) < streamCount;
        if (!real && streamTracks[s] == 0)
            continue;
        const std::string base = real ? trace.streams[s].name : std::string("(no stream)");
        const int pid = kGpuPidBase + deviceOfKey(static_cast<int>(s));
        // A stream with no GPU op still gets its named track, so that every stream of the workload shows.
        for (int k = 0; k < std::max(streamTracks[s], 1); ++k)
            nameThread(j, pid, streamTidBase[s] + k, k == 0 ? base : base + " (" + std::to_string(k + 1) + ")",
                       streamSort++);
    }

    // Ops, in trace order (so that the importer gets them back in the same order).
    std::uint32_t g = 0;
    for (const auto &rep : trace.repetitions) {
        for (const auto &op : rep.ops) {
            const std::uint32_t link = g + 1; // flow and host/GPU pairing id, unique in the file
            const int sKey = streamKey(op);
            const int tKey = threadKey(op);
            const int gpuPid = kGpuPidBase + deviceOfKey(sKey);
            const int gpuTid = streamTidBase[static_cast<std::size_t>(sKey)] + static_cast<int>(gpuTrack[g]);
            const int hostTid = threadTidBase[static_cast<std::size_t>(tKey)] + static_cast<int>(hostTrack[g]);
            const bool gpu = op.hasGpu();
            const bool host = writesHostSlice(op);

            auto opArgs = [&] {
                if (op.stream >= 0 && op.stream < streamCount) {
                    j.raw("\"stream\":");
                    j.integer(trace.streams[static_cast<std::size_t>(op.stream)].nativeId);
                    j.raw(",\"device\":");
                    j.integer(trace.streams[static_cast<std::size_t>(op.stream)].device);
                    j.raw(",\"ss_stream\":");
                    j.integer(op.stream);
                    j.ch(',');
                }
                if (op.correlation != 0) {
                    j.raw("\"correlation\":");
                    j.unsignedInteger(op.correlation);
                    j.ch(',');
                }
                j.raw("\"kind\":\"");
                j.raw(toString(op.kind));
                j.raw("\",\"op_index\":");
                j.integer(op.opIndex);
                j.raw(",\"repetition\":");
                j.integer(rep.index);
                if (op.bytes != 0 || isCopy(op.kind) || op.kind == OpKind::Memset) {
                    j.raw(",\"bytes\":");
                    j.unsignedInteger(op.bytes);
                    j.raw(",\"GB/s\":");
                    j.real(op.gbPerSecond());
                }
                if (op.srcMem != MemKind::None) {
                    j.raw(",\"src_mem\":\"");
                    j.raw(toString(op.srcMem));
                    j.ch('"');
                }
                if (op.dstMem != MemKind::None) {
                    j.raw(",\"dst_mem\":\"");
                    j.raw(toString(op.dstMem));
                    j.ch('"');
                }
                if (op.api != CopyApi::None) {
                    j.raw(",\"api\":\"");
                    j.raw(toString(op.api));
                    j.ch('"');
                }
                if (op.flags != OpFlagNone) {
                    j.raw(",\"flags\":");
                    j.unsignedInteger(op.flags);
                }
                j.raw(",\"ss_link\":");
                j.unsignedInteger(link);
            };

            if (gpu) {
                j.raw("{\"ph\":\"X\",\"cat\":\"");
                j.raw(gpuCategory(op.kind));
                j.raw("\",\"name\":");
                j.string(trace.name(op));
                j.raw(",\"pid\":");
                j.integer(gpuPid);
                j.raw(",\"tid\":");
                j.integer(gpuTid);
                j.raw(",\"ts\":");
                j.micros(op.gpuStartNs - origin);
                j.raw(",\"dur\":");
                j.micros(op.gpuDurationNs());
                j.raw(",\"args\":{");
                opArgs();
                j.raw("}},\n");
            }
            if (host) {
                j.raw("{\"ph\":\"X\",\"cat\":\"");
                j.raw(op.kind == OpKind::HostWork ? "host_work" : "cuda_runtime");
                j.raw("\",\"name\":");
                j.string(apiNameOf(op));
                j.raw(",\"pid\":");
                j.integer(kHostPid);
                j.raw(",\"tid\":");
                j.integer(hostTid);
                j.raw(",\"ts\":");
                j.micros(op.hostStartNs - origin);
                j.raw(",\"dur\":");
                j.micros(op.hostDurationNs());
                j.raw(",\"args\":{\"op_name\":");
                j.string(trace.name(op));
                if (op.hostThread >= 0 && op.hostThread < threadCount) {
                    j.raw(",\"ss_thread\":");
                    j.integer(op.hostThread);
                }
                if (gpu) {
                    if (op.correlation != 0) {
                        j.raw(",\"correlation\":");
                        j.unsignedInteger(op.correlation);
                    }
                    j.raw(",\"ss_link\":");
                    j.unsignedInteger(link);
                } else {
                    j.ch(',');
                    opArgs();
                }
                j.raw("}},\n");
            }
            if (gpu && host && options.flows) {
                j.raw("{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":");
                j.unsignedInteger(link);
                j.raw(",\"pid\":");
                j.integer(kHostPid);
                j.raw(",\"tid\":");
                j.integer(hostTid);
                j.raw(",\"ts\":");
                j.micros(op.hostStartNs - origin);
                j.raw("},\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":");
                j.unsignedInteger(link);
                j.raw(",\"pid\":");
                j.integer(gpuPid);
                j.raw(",\"tid\":");
                j.integer(gpuTid);
                j.raw(",\"ts\":");
                j.micros(op.gpuStartNs - origin);
                j.raw("},\n");
            }
            ++g;
        }
    }

    if (options.counters) {
        // Counter steps per repetition; unchanged values are left out, a counter holds until its next step.
        for (std::size_t r = 0; r < trace.repetitions.size(); ++r) {
            if (trace.repetitions[r].ops.empty())
                continue;
            double lastH2d = -1, lastD2h = -1;
            for (const auto &step : bandwidthProfile(trace, static_cast<int>(r))) {
                if (step.h2dGBs == lastH2d && step.d2hGBs == lastD2h)
                    continue;
                lastH2d = step.h2dGBs;
                lastD2h = step.d2hGBs;
                j.raw("{\"ph\":\"C\",\"name\":\"copy bandwidth (GB/s)\",\"pid\":");
                j.integer(kCounterPid);
                j.raw(",\"tid\":0,\"ts\":");
                j.micros(step.timeNs - origin);
                j.raw(",\"args\":{\"H2D\":");
                j.real(step.h2dGBs);
                j.raw(",\"D2H\":");
                j.real(step.d2hGBs);
                j.raw("}},\n");
            }
            ActivityStep last{-1, -1, -1, -1, -1};
            for (const auto &step : activityProfile(trace, static_cast<int>(r))) {
                if (step.h2d == last.h2d && step.d2h == last.d2h && step.compute == last.compute && step.other == last.other)
                    continue;
                last = step;
                j.raw("{\"ph\":\"C\",\"name\":\"active ops\",\"pid\":");
                j.integer(kCounterPid);
                j.raw(",\"tid\":0,\"ts\":");
                j.micros(step.timeNs - origin);
                j.raw(",\"args\":{\"H2D\":");
                j.integer(step.h2d);
                j.raw(",\"D2H\":");
                j.integer(step.d2h);
                j.raw(",\"compute\":");
                j.integer(step.compute);
                j.raw(",\"other\":");
                j.integer(step.other);
                j.raw("}},\n");
            }
        }
    }

    // Strict JSON allows no trailing comma: drop the last one (the metadata events guarantee at least one).
    if (out.size() >= 2 && out[out.size() - 2] == ',')
        out.erase(out.size() - 2, 1);
    j.raw("]}\n");
    return out;
}

void writeChromeTrace(const Trace &trace, const std::string &path, const ChromeExportOptions &options)
{
    writeFileAtomically(path, toChromeJson(trace, options));
}

} // namespace streamscope::engine
