// Chrome Trace Event JSON export, written by hand into one string (see chrome_export.h for the layout).
#include "engine/formats/chrome_export.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <set>
#include <span>
#include <thread>
#include <type_traits>

#include "engine/analysis/analysis.h"
#include "engine/analysis/interference.h"
#include "engine/formats/trace_header.h"
#include "engine/model/api_names.h"
#include "engine/model/errors.h"
#include "engine/model/limits.h"
#include "engine/model/op_kinds.h"
#include "engine/model/units.h"
#include "engine/util/file_util.h"
#include "engine/util/interrupt.h"

namespace streamscope::engine {

namespace {

constexpr int kHostPid = 1;
constexpr int kCounterPid = 2;
constexpr int kGpuPidBase = 100; // GPU d is process 100 + d: no clash with the two above

// Writes JSON text through a raw pointer into a buffer that grows by doubling: std::string::append
// per token was most of the time of a million-op export. The buffer is left uninitialised (a generous
// reservation costs only address space: pages are touched when written), which std::string::resize
// cannot do. Numbers go through std::to_chars; strings through a scan that copies clean runs in one piece.
class JsonOut {
public:
    explicit JsonOut(std::size_t capacity) { grow(capacity); }

    std::string_view view() const { return {m_data.get(), used()}; }
    std::string take() const { return std::string(view()); }
    std::size_t capacity() const { return m_capacity; }

    [[gnu::always_inline]] void raw(std::string_view s)
    {
        room(s.size());
        std::memcpy(m_p, s.data(), s.size());
        m_p += s.size();
    }
    void ch(char c)
    {
        room(1);
        *m_p++ = c;
    }

    void integer(std::int64_t v)
    {
        room(24);
        m_p = std::to_chars(m_p, m_p + 24, v).ptr;
    }
    void unsignedInteger(std::uint64_t v)
    {
        room(24);
        m_p = std::to_chars(m_p, m_p + 24, v).ptr;
    }
    void real(double v)
    {
        if (!(v == v) || v == std::numeric_limits<double>::infinity()
            || v == -std::numeric_limits<double>::infinity()) {
            ch('0'); // JSON has no NaN or infinity
            return;
        }
        room(32);
        m_p = std::to_chars(m_p, m_p + 32, v).ptr;
    }
    // A rate to three decimals (GB/s to the MB/s): the shortest round-trip form of a quotient takes 17
    // digits, which were ~10 % of a million-op file and carry nothing a reader can use.
    void thousandths(double v)
    {
        if (!(v == v) || v > 9e15 || v < -9e15) {
            real(v); // NaN, infinities and the absurdly large keep real()'s handling
            return;
        }
        micros(static_cast<std::int64_t>(std::llround(v * 1000.0)));
    }
    // Nanoseconds written as microseconds with the nanoseconds as an exact decimal fraction, so that
    // the importer gets the same integer back (doubles hold these exactly up to ~104 days).
    void micros(std::int64_t ns)
    {
        room(32);
        if (ns < 0) {
            *m_p++ = '-';
            ns = -ns;
        }
        m_p = std::to_chars(m_p, m_p + 24, static_cast<std::uint64_t>(ns / 1000)).ptr;
        int frac = static_cast<int>(ns % 1000);
        if (frac == 0)
            return;
        char buf[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                       static_cast<char>('0' + frac % 10)};
        int len = 4;
        while (buf[len - 1] == '0')
            --len;
        std::memcpy(m_p, buf, static_cast<std::size_t>(len));
        m_p += len;
    }
    void string(std::string_view s)
    {
        std::size_t clean = 0;
        while (clean < s.size()) {
            const auto c = static_cast<unsigned char>(s[clean]);
            if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80)
                break;
            ++clean;
        }
        room(clean + 2);
        *m_p++ = '"';
        std::memcpy(m_p, s.data(), clean);
        m_p += clean;
        if (clean < s.size())
            escapeRest(s.substr(clean));
        ch('"');
    }
    // A string as a quoted, escaped JSON token, for names written many times.
    static std::string quoted(std::string_view s)
    {
        JsonOut j(s.size() + 16);
        j.string(s);
        return j.take();
    }
    // "key":
    void key(std::string_view k)
    {
        ch('"');
        raw(k);
        raw("\":");
    }

private:
    void escapeRest(std::string_view s)
    {
        static constexpr char kHex[] = "0123456789abcdef";
        std::size_t i = 0;
        while (i < s.size()) {
            const auto c = static_cast<unsigned char>(s[i]);
            if (c == '"' || c == '\\') {
                ch('\\');
                ch(static_cast<char>(c));
                ++i;
            } else if (c < 0x20) {
                switch (c) {
                case '\n': raw("\\n"); break;
                case '\t': raw("\\t"); break;
                case '\r': raw("\\r"); break;
                case '\b': raw("\\b"); break;
                case '\f': raw("\\f"); break;
                default:
                    raw("\\u00");
                    ch(kHex[c >> 4]);
                    ch(kHex[c & 15]);
                }
                ++i;
            } else if (c < 0x80) {
                ch(static_cast<char>(c));
                ++i;
            } else {
                // Imported names may hold bytes that are not UTF-8; strict JSON readers reject those,
                // so an invalid sequence becomes U+FFFD.
                const std::size_t len = validUtf8Length(s.substr(i));
                if (len == 0) {
                    raw("\xEF\xBF\xBD");
                    ++i;
                } else {
                    raw(s.substr(i, len));
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

    [[gnu::always_inline]] void room(std::size_t n)
    {
        if (static_cast<std::size_t>(m_end - m_p) < n)
            grow(n);
    }
    std::size_t used() const { return static_cast<std::size_t>(m_p - m_data.get()); }
    void grow(std::size_t n)
    {
        const std::size_t size = m_data ? used() : 0;
        const std::size_t capacity = std::max(m_capacity * 2, size + n + 4096);
        std::unique_ptr<char[]> bigger(new char[capacity]); // deliberately not value-initialised
        if (size)
            std::memcpy(bigger.get(), m_data.get(), size);
        m_data = std::move(bigger);
        m_capacity = capacity;
        m_p = m_data.get() + size;
        m_end = m_data.get() + capacity;
    }

    std::unique_ptr<char[]> m_data;
    std::size_t m_capacity = 0;
    char *m_p = nullptr;
    char *m_end = nullptr;
};

// Perfetto requires the slices of one track to nest; ops of one stream may overlap (imports, or
// repetitions). Greedy interval partitioning: each slice goes on the first track whose last slice
// ended by its start, so every track holds disjoint slices and the first track keeps the most.
struct Interval {
    std::int64_t start;
    std::int64_t end;
    std::uint32_t op; // global op index
};

// Where the slices of one stream's (or thread's) ops went.
struct TrackPlan {
    int tracks = 0;
    std::vector<std::int64_t> firstStart; // per track: the start of its earliest slice
};

// Writes the track of each interval's op into trackOf, and sets touchesNext[op] where the next slice on
// the same track begins exactly where the op's slice ends (consecutive ops of a stream that share an
// event): those are the slices whose written durations durationBeforeNext() fits.
TrackPlan assignTracks(std::vector<Interval> &intervals, std::vector<std::uint32_t> &trackOf,
                       std::vector<std::uint8_t> &touchesNext)
{
    auto byStart = [](const Interval &a, const Interval &b) {
        return a.start != b.start ? a.start < b.start : (a.end != b.end ? a.end > b.end : a.op < b.op);
    };
    if (!std::is_sorted(intervals.begin(), intervals.end(), byStart))
        std::sort(intervals.begin(), intervals.end(), byStart);
    // The tracks whose last slice has ended by the current start are free for every later one too (starts
    // only grow): they wait in `idle`, the lowest first, the others in `busy` by when they end. A scan of
    // every track for each slice was quadratic: 500k ops at one timestamp (500k tracks) took 75 s (#24).
    using Ending = std::pair<std::int64_t, std::uint32_t>; // last slice's end, track
    std::priority_queue<Ending, std::vector<Ending>, std::greater<>> busy;
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> idle;
    TrackPlan plan;
    std::vector<std::int64_t> lastEnd;
    std::vector<std::uint32_t> lastOp;
    for (const auto &iv : intervals) {
        while (!busy.empty() && busy.top().first <= iv.start) {
            idle.push(busy.top().second);
            busy.pop();
        }
        std::uint32_t t = 0;
        if (idle.empty()) {
            t = static_cast<std::uint32_t>(lastEnd.size());
            lastEnd.push_back(iv.end);
            lastOp.push_back(iv.op);
            plan.firstStart.push_back(iv.start);
        } else {
            t = idle.top();
            idle.pop();
            if (lastEnd[t] == iv.start)
                touchesNext[lastOp[t]] = 1;
            lastEnd[t] = iv.end;
            lastOp[t] = iv.op;
        }
        busy.push({iv.end, t});
        trackOf[iv.op] = t;
    }
    plan.tracks = static_cast<int>(lastEnd.size());
    return plan;
}

// The duration to write, in microseconds, for a slice [startNs, startNs + durNs] whose successor on its
// track begins at exactly its end; times relative to the file's origin, trackFirstNs the start of the
// track's earliest slice. Readers parse ts and dur into doubles and add them, and the sum of the two
// roundings can land one ulp past the successor's parsed ts (2176.57 + 60.8 = 2237.3700000000003 >
// 2237.37): speedscope then opens the successor before closing the slice, leaves the slice open to the
// end of the profile and stacks every later slice under it. speedscope also first subtracts the track's
// earliest ts from every ts, which rounds differently, so both sums must stay at or before the
// successor: the exact duration where it does (nearly always), otherwise the largest double below it
// that does. That is picoseconds short (a quarter nanosecond at most), so readers that round to the
// nanosecond (Perfetto's llround(us * 1000), chrome_import.h) still get durNs.
double durationBeforeNext(std::int64_t startNs, std::int64_t durNs, std::int64_t trackFirstNs)
{
    // A quotient of integers below 2^53 is correctly rounded, so these are the doubles a reader parses
    // from the exact decimals that JsonOut::micros writes.
    const double start = static_cast<double>(startNs) / 1000.0;
    const double end = static_cast<double>(startNs + durNs) / 1000.0;
    const double first = static_cast<double>(trackFirstNs) / 1000.0;
    const double startRebased = start - first;
    const double endRebased = end - first;
    auto fits = [&](double dur) { return start + dur <= end && startRebased + dur <= endRebased; };
    const double exact = static_cast<double>(durNs) / 1000.0;
    if (fits(exact))
        return exact;
    // A quarter nanosecond short is the most we allow: well inside the half nanosecond that rounding
    // to the nanosecond forgives. It always fits below ~5 days from the origin, where one ulp of a
    // timestamp is still far smaller; past that the exact duration is kept.
    const double floorDur = (static_cast<double>(durNs) - 0.25) / 1000.0;
    if (floorDur < 0.0 || !fits(floorDur))
        return exact;
    // Positive doubles order like their bit patterns: bisect for the largest one that fits.
    std::uint64_t lo = std::bit_cast<std::uint64_t>(floorDur); // fits
    std::uint64_t hi = std::bit_cast<std::uint64_t>(exact); // does not
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (fits(std::bit_cast<double>(mid)) ? lo : hi) = mid;
    }
    return std::bit_cast<double>(lo);
}

// A touching slice's dur: the exact decimal when it fits, else the fitted double in its shortest
// round-trip form (66.55999999999995 for 66.56).
void writeDurationBeforeNext(JsonOut &j, std::int64_t startNs, std::int64_t durNs, std::int64_t trackFirstNs)
{
    const double dur = durationBeforeNext(startNs, durNs, trackFirstNs);
    if (dur == static_cast<double>(durNs) / 1000.0)
        j.micros(durNs);
    else
        j.real(dur);
}

// A slice's place and time: ,"pid":..,"tid":..,"ts":..,"dur":.. with times relative to the file's
// origin; a slice that touches the next one on its track gets the duration that stays before it.
void writeSlicePlacement(JsonOut &j, int pid, int tid, std::int64_t startNs, std::int64_t durNs, bool touchesNext,
                         std::int64_t trackFirstNs)
{
    j.raw(",\"pid\":");
    j.integer(pid);
    j.raw(",\"tid\":");
    j.integer(tid);
    j.raw(",\"ts\":");
    j.micros(startNs);
    j.raw(",\"dur\":");
    if (touchesNext)
        writeDurationBeforeNext(j, startNs, durNs, trackFirstNs);
    else
        j.micros(durNs);
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

// Whether an op's pieces can be nested slices under its own on one track: none begins before the one before it
// ends (pieces that ran at once, copies on several copy engines, would partly overlap, which Perfetto drops).
bool piecesNest(std::span<const OpPiece> pieces)
{
    for (std::size_t i = 1; i < pieces.size(); ++i)
        if (pieces[i].startNs < pieces[i - 1].endNs)
            return false;
    return true;
}

std::string_view gpuCategory(OpKind kind)
{
    // Kineto's categories, so that tools written for PyTorch profiles (and our importer) know them.
    switch (opKindInfo(kind).record) {
    case GpuRecord::Memcpy: return "gpu_memcpy";
    case GpuRecord::Kernel: return "kernel";
    case GpuRecord::Memset: return "gpu_memset";
    case GpuRecord::None: break;
    }
    return "gpu_op";
}

// The driver's unified-memory records (Repetition::activities) as slices on tracks of the GPU's
// process, after its streams (tids from firstTid): H2D migrations, D2H migrations, GPU page-fault
// groups, and the instants (CPU faults, thrashing, remote maps) as zero-length slices. Each group is
// spread over as many tracks as its records overlap. Synchronisation records are left out: the host
// call of the op they belong to is already there.
void writeUnifiedMemory(JsonOut &j, const Trace &trace, std::int64_t origin, int pid, int firstTid)
{
    struct Group {
        const char *track;
        bool (*holds)(ActivityKind);
    };
    static constexpr Group kGroups[] = {
        {"page migration H2D", [](ActivityKind k) { return k == ActivityKind::MigrationH2D; }},
        {"page migration D2H", [](ActivityKind k) { return k == ActivityKind::MigrationD2H; }},
        {"GPU page faults", [](ActivityKind k) { return k == ActivityKind::GpuPageFaults; }},
        {"unified memory events",
         [](ActivityKind k) {
             return k == ActivityKind::CpuPageFault || k == ActivityKind::Thrashing || k == ActivityKind::Throttling
                    || k == ActivityKind::RemoteMap;
         }},
    };
    int tid = firstTid;
    for (const Group &group : kGroups) {
        std::vector<const ActivityRecord *> records;
        std::vector<int> repOf;
        std::vector<Interval> intervals;
        for (std::size_t r = 0; r < trace.repetitions.size(); ++r)
            for (const ActivityRecord &a : trace.repetitions[r].activities)
                if (group.holds(a.kind)) {
                    intervals.push_back({a.startNs, a.endNs, static_cast<std::uint32_t>(records.size())});
                    records.push_back(&a);
                    repOf.push_back(trace.repetitions[r].index);
                }
        if (records.empty())
            continue;
        std::vector<std::uint32_t> trackOf(records.size(), 0);
        std::vector<std::uint8_t> touchesNext(records.size(), 0);
        const TrackPlan plan = assignTracks(intervals, trackOf, touchesNext);
        for (int k = 0; k < plan.tracks; ++k)
            nameThread(j, pid, tid + k,
                       k == 0 ? std::string(group.track)
                              : std::string(group.track) + " (" + std::to_string(k + 1) + ")",
                       1000 + tid + k);
        for (std::size_t i = 0; i < records.size(); ++i) {
            const ActivityRecord &a = *records[i];
            std::string name;
            switch (a.kind) {
            case ActivityKind::MigrationH2D: name = "UM H2D " + formatBytes(a.value); break;
            case ActivityKind::MigrationD2H: name = "UM D2H " + formatBytes(a.value); break;
            case ActivityKind::GpuPageFaults: name = std::to_string(a.value) + " GPU page faults"; break;
            default: name = std::string(toString(a.kind)); break;
            }
            j.raw("{\"ph\":\"X\",\"cat\":\"unified_memory\",\"name\":");
            j.string(name);
            writeSlicePlacement(j, pid, tid + static_cast<int>(trackOf[i]), a.startNs - origin, a.durationNs(),
                                touchesNext[i] != 0, plan.firstStart[trackOf[i]] - origin);
            j.raw(",\"args\":{\"kind\":");
            j.string(toString(a.kind));
            j.raw(",\"detail\":");
            j.string(toString(a.detail));
            j.raw(",\"value\":");
            j.unsignedInteger(a.value);
            j.raw(",\"address\":");
            j.unsignedInteger(a.address);
            j.raw(",\"op\":");
            j.integer(a.op);
            j.raw(",\"repetition\":");
            j.integer(repOf[i]);
            j.raw("}},\n");
        }
        tid += plan.tracks;
    }
}

// Writes record's fields that the Chrome block has (trace_header.h), each as "name":value after a comma
// unless `first` (then clears it).
template <typename Record, typename Fields>
void writeChromeFields(JsonOut &j, const Record &record, const Fields &fields, bool &first)
{
    header::forEachField(fields, [&](const auto &field) {
        if (!field.chrome || field.omitted(record))
            return;
        j.raw(first ? "\"" : ",\"");
        first = false;
        j.raw(field.chrome);
        j.raw("\":");
        const auto &value = record.*field.member;
        using Value = std::remove_cvref_t<decltype(value)>;
        if constexpr (std::is_same_v<Value, std::string>)
            j.string(value);
        else if constexpr (std::is_same_v<Value, bool>)
            j.raw(value ? "true" : "false");
        else if constexpr (std::is_floating_point_v<Value>)
            j.real(value);
        else if constexpr (std::is_unsigned_v<Value>)
            j.unsignedInteger(value);
        else
            j.integer(value);
    });
}

// One object of the block's arrays: record's fields from each list in turn.
template <typename Record, typename... Fields>
void writeChromeObject(JsonOut &j, const Record &record, const Fields &...fields)
{
    bool first = true;
    j.ch('{');
    (writeChromeFields(j, record, fields, first), ...);
    j.ch('}');
}

// StreamScope's own header in its Chrome export (chrome_import.cpp's readStreamscopeBlock reads it back).
void writeStreamscopeBlock(JsonOut &j, const Trace &trace, std::int64_t originNs)
{
    j.raw("\"streamscope\":{\"format\":\"streamscope-chrome\",\"version\":1,\"traceFormatVersion\":");
    j.integer(trace.formatVersion);
    j.raw(",\"source\":");
    j.string(toString(trace.source));
    bool noneYet = false; // the block's members so far: a comma before each field
    writeChromeFields(j, trace, header::kTraceFields, noneYet);
    j.raw(",\"originNs\":");
    j.integer(originNs);
    j.raw(",\"timing\":\"");
    j.raw(toString(trace.timing));
    j.ch('"');
    if (!trace.timingNote.empty()) {
        j.raw(",\"timingNote\":");
        j.string(trace.timingNote);
    }
    j.raw(",\n\"streams\":[");
    for (std::size_t i = 0; i < trace.streams.size(); ++i) {
        if (i)
            j.ch(',');
        writeChromeObject(j, trace.streams[i], header::kStreamFields);
    }
    j.raw("],\n\"hostThreads\":[");
    for (std::size_t i = 0; i < trace.hostThreads.size(); ++i) {
        if (i)
            j.ch(',');
        writeChromeObject(j, trace.hostThreads[i], header::kHostThreadFields);
    }
    j.raw("],\n\"devices\":[");
    for (std::size_t i = 0; i < trace.devices.size(); ++i) {
        if (i)
            j.ch(',');
        writeChromeObject(j, trace.devices[i], header::kDeviceIdentityFields, header::kDevicePropertyFields);
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

// Hands the text to a sink in order, part by part. Every event ends with ",\n"; strict JSON allows no
// comma after the last one, so each part's final ",\n" is held back until another part follows.
class PartEmitter {
public:
    explicit PartEmitter(const std::function<void(std::string_view)> &sink) : m_sink(sink) { }
    void part(std::string_view text)
    {
        if (text.empty())
            return;
        if (m_commaPending)
            m_sink(",\n");
        m_commaPending = text.size() >= 2 && text.substr(text.size() - 2) == ",\n";
        m_sink(m_commaPending ? text.substr(0, text.size() - 2) : text);
    }
    void finish() { m_sink(m_commaPending ? "\n]}\n" : "]}\n"); }

private:
    const std::function<void(std::string_view)> &m_sink;
    bool m_commaPending = false;
};

// A repetition's counter profiles: two per op at most, kept while the parts of its counters are written.
struct CounterProfile {
    std::vector<BandwidthStep> bandwidth;
    std::vector<ActivityStep> activity;
};

// One export, planned once and written in parts. The constructor decides everything that spans ops:
// the time origin, each op's track (overflow tracks where a stream's or thread's ops overlap), the track
// ids, the escaped names. Then the header (streamscope block, processes, tracks, unified memory), the ops
// in chunks and the counters per repetition are independent parts, which several threads may write.
class ChromeWriter {
public:
    ChromeWriter(const Trace &trace, const ChromeExportOptions &options);
    // The text before the first op: the streamscope block, process and track names, unified memory.
    void writeHeader(JsonOut &j) const;
    // Ops [gBegin, gEnd) of the whole trace, in trace order (op g being op g - repStart[r] of repetition r).
    void writeOps(JsonOut &j, std::size_t gBegin, std::size_t gEnd) const;
    // Repetition r's counter steps (empty for a repetition without ops), computed once for all its parts.
    CounterProfile counterProfile(std::size_t r) const;
    // One counter event per step of either profile, carrying every series (Perfetto draws a track per
    // arg); a step where nothing changed is left out, a counter holds until its next step. Part `part`
    // of `parts`: the steps from the time of activity step size * part / parts to that of the next
    // part's first, each part starting from the state the steps before it left, so that the parts
    // joined are the text of one pass (a repetition's steps in one part were about 1 GB for 3M ops, #24).
    void writeCounters(JsonOut &j, const CounterProfile &profile, std::size_t part, std::size_t parts) const;

private:
    // Host ranges (NVTX, Kineto's CPU ops): the ranges of one host thread at one depth go on a track of
    // their own (with overflow tracks where repetitions overlap in time), after the thread's call tracks,
    // so every track holds disjoint slices and the rows read as the nesting.
    struct RangeGroup {
        int slot = 0; // threadKey of the ranges
        int depth = 0;
        std::string label; // "NVTX" or "CPU ops"
        TrackPlan plan;
        int tidBase = 0;
    };
    void planRanges(int firstTid);
    void writeRanges(JsonOut &j) const;
    void writeOpArgs(JsonOut &j, const Repetition &rep, const OpRecord &op, std::size_t at) const;
    // The op's pieces (OpPiece) as slices nested inside its GPU slice on the same track.
    void writePieces(JsonOut &j, const Repetition &rep, std::size_t at, int pid, int tid, bool touchesNext,
                     std::int64_t trackFirstNs) const;

    // Stream keys: Trace::streams, plus one pseudo stream for GPU ops that name no valid stream.
    int streamKey(const OpRecord &op) const
    {
        return op.stream >= 0 && op.stream < streamCount ? op.stream : streamCount;
    }
    int threadKey(const OpRecord &op) const
    {
        return op.hostThread >= 0 && op.hostThread < threadCount ? op.hostThread : threadCount;
    }
    // A host-only op always gets its slice: without it the op would vanish from the file.
    bool writesHostSlice(const OpRecord &op) const { return op.hasHost() && (options.hostCalls || !op.hasGpu()); }
    int deviceOfKey(int key) const
    {
        return key < streamCount ? trace.streams[static_cast<std::size_t>(key)].device : 0;
    }
    const std::string &quotedName(const OpRecord &op) const
    {
        return op.nameId < quotedNames.size() ? quotedNames[op.nameId] : emptyName;
    }

    const Trace &trace;
    const ChromeExportOptions &options;
    std::size_t opCount = 0;
    std::int64_t origin = 0;
    int streamCount = 0;
    int threadCount = 0;
    std::vector<std::uint32_t> gpuTrack, hostTrack;
    std::vector<std::uint8_t> gpuTouchesNext, hostTouchesNext;
    std::vector<int> streamTracks, threadTracks;
    std::vector<std::vector<std::int64_t>> streamTrackFirst, threadTrackFirst;
    std::vector<int> streamTidBase, threadTidBase;
    bool ambiguousStreams = false;
    std::vector<std::string> quotedNames;
    std::string emptyName = "\"\"";
    std::vector<std::size_t> repStart;
    // With solo baselines (run --solo): each op's median execution alone (interference.h), for its args.
    InterferenceReport interference;
    std::vector<RangeGroup> rangeGroups; // by (slot, depth)
    std::vector<std::uint32_t> rangeGroupOf, rangeTrack; // per range of the whole trace, in trace order
    std::vector<std::uint8_t> rangeTouchesNext;
};

ChromeWriter::ChromeWriter(const Trace &trace, const ChromeExportOptions &options) :
    trace(trace), options(options), opCount(trace.opCount())
{
    // Times are written relative to the earliest instant of the trace: small numbers keep their
    // nanoseconds exact, and the origin goes into the streamscope block for the way back.
    origin = std::numeric_limits<std::int64_t>::max();
    for (std::size_t r = 0; r < trace.repetitions.size(); ++r) {
        if (trace.repetitions[r].ops.empty())
            continue;
        const auto [lo, hi] = trace.extent(static_cast<int>(r));
        if (lo != hi || lo != 0)
            origin = std::min(origin, lo);
    }
    if (origin == std::numeric_limits<std::int64_t>::max())
        origin = 0;

    streamCount = static_cast<int>(trace.streams.size());
    threadCount = static_cast<int>(trace.hostThreads.size());

    std::vector<std::vector<Interval>> streamIntervals(static_cast<std::size_t>(streamCount) + 1);
    std::vector<std::vector<Interval>> threadIntervals(static_cast<std::size_t>(threadCount) + 1);
    {
        std::uint32_t g = 0;
        for (const auto &rep : trace.repetitions)
            for (const auto &op : rep.ops) {
                if (op.hasGpu())
                    streamIntervals[static_cast<std::size_t>(streamKey(op))].push_back({op.gpuStartNs, op.gpuEndNs, g});
                if (writesHostSlice(op))
                    threadIntervals[static_cast<std::size_t>(threadKey(op))].push_back(
                        {op.hostStartNs, op.hostEndNs, g});
                ++g;
            }
    }
    gpuTrack.assign(opCount, 0);
    hostTrack.assign(opCount, 0);
    gpuTouchesNext.assign(opCount, 0);
    hostTouchesNext.assign(opCount, 0);
    streamTracks.assign(streamIntervals.size(), 0);
    threadTracks.assign(threadIntervals.size(), 0);
    streamTrackFirst.resize(streamIntervals.size());
    threadTrackFirst.resize(threadIntervals.size());
    for (std::size_t s = 0; s < streamIntervals.size(); ++s) {
        auto plan = assignTracks(streamIntervals[s], gpuTrack, gpuTouchesNext);
        streamTracks[s] = plan.tracks;
        streamTrackFirst[s] = std::move(plan.firstStart);
    }
    for (std::size_t t = 0; t < threadIntervals.size(); ++t) {
        auto plan = assignTracks(threadIntervals[t], hostTrack, hostTouchesNext);
        threadTracks[t] = plan.tracks;
        threadTrackFirst[t] = std::move(plan.firstStart);
    }
    streamIntervals.clear();
    threadIntervals.clear();

    // Track ids: the first track of each stream (and thread) in order, then its overflow tracks.
    streamTidBase.resize(streamTracks.size());
    threadTidBase.resize(threadTracks.size());
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

    // The importer finds an op's stream by (device, native id); only where two streams share those
    // (hand-made traces) does every op carry its stream index too.
    {
        std::set<std::pair<int, std::int64_t>> seen;
        for (const auto &st : trace.streams)
            ambiguousStreams |= !seen.insert({st.device, st.nativeId}).second;
    }

    // Op names are few and written many times: escape each once.
    quotedNames.reserve(trace.strings.size());
    for (const auto &name : trace.strings)
        quotedNames.push_back(JsonOut::quoted(name));

    // Ops go in trace order (so that the importer gets them back in the same order), op g of the whole
    // trace being op g - repStart[r] of repetition r.
    if (!trace.solo.empty())
        interference = analyzeInterference(trace);
    repStart.assign(trace.repetitions.size() + 1, 0);
    for (std::size_t r = 0; r < trace.repetitions.size(); ++r)
        repStart[r + 1] = repStart[r] + trace.repetitions[r].ops.size();

    int nextHostTid = 1;
    for (std::size_t t = 0; t < threadTracks.size(); ++t)
        nextHostTid = std::max(nextHostTid, threadTidBase[t] + std::max(threadTracks[t], 1));
    planRanges(nextHostTid);
}

void ChromeWriter::planRanges(int firstTid)
{
    std::map<std::pair<int, int>, std::size_t> groupIndex;
    std::vector<std::vector<Interval>> intervals;
    std::uint32_t g = 0;
    for (const auto &rep : trace.repetitions)
        for (const HostRange &h : rep.hostRanges) {
            const int slot = h.hostThread >= 0 && h.hostThread < threadCount ? h.hostThread : threadCount;
            auto [it, inserted] = groupIndex.emplace(std::make_pair(slot, h.depth), rangeGroups.size());
            if (inserted) {
                RangeGroup group;
                group.slot = slot;
                group.depth = h.depth;
                rangeGroups.push_back(std::move(group));
                intervals.emplace_back();
            }
            if (h.category == HostRangeCategory::Nvtx)
                rangeGroups[it->second].label = "NVTX";
            rangeGroupOf.push_back(static_cast<std::uint32_t>(it->second));
            intervals[it->second].push_back({h.startNs, h.endNs, g++});
        }
    rangeTrack.assign(g, 0);
    rangeTouchesNext.assign(g, 0);
    // Tids in (thread, depth) order, so that a thread's rows follow each other.
    std::vector<std::size_t> order;
    order.reserve(groupIndex.size());
    for (const auto &[key, index] : groupIndex)
        order.push_back(index);
    int tid = firstTid;
    for (const std::size_t i : order) {
        RangeGroup &group = rangeGroups[i];
        if (group.label.empty())
            group.label = "CPU ops";
        group.plan = assignTracks(intervals[i], rangeTrack, rangeTouchesNext);
        group.tidBase = tid;
        tid += group.plan.tracks;
    }
}

void ChromeWriter::writeRanges(JsonOut &j) const
{
    std::uint32_t g = 0;
    for (const auto &rep : trace.repetitions)
        for (const HostRange &h : rep.hostRanges) {
            const RangeGroup &group = rangeGroups[rangeGroupOf[g]];
            const std::uint32_t track = rangeTrack[g];
            j.raw("{\"ph\":\"X\",\"cat\":\"");
            j.raw(toString(h.category));
            j.raw("\",\"name\":");
            j.raw(h.nameId < quotedNames.size() ? quotedNames[h.nameId] : emptyName);
            writeSlicePlacement(j, kHostPid, group.tidBase + static_cast<int>(track), h.startNs - origin,
                                h.durationNs(), rangeTouchesNext[g] != 0, group.plan.firstStart[track] - origin);
            j.raw(",\"args\":{\"ss_thread\":");
            j.integer(h.hostThread >= 0 && h.hostThread < threadCount ? h.hostThread : -1);
            j.raw(",\"repetition\":");
            j.integer(rep.index);
            j.raw(",\"depth\":");
            j.integer(h.depth);
            if (h.domainId != kNoString && h.domainId < trace.strings.size()) {
                j.raw(",\"domain\":");
                j.string(trace.strings[h.domainId]);
            }
            j.raw("}},\n");
            ++g;
        }
}

void ChromeWriter::writeHeader(JsonOut &j) const
{
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
        const bool ranges = std::any_of(rangeGroups.begin(), rangeGroups.end(),
                                        [&](const RangeGroup &group) { return group.slot == static_cast<int>(t); });
        if (threadTracks[t] == 0 && !ranges)
            continue;
        const std::string base =
            t < static_cast<std::size_t>(threadCount)
                ? (trace.hostThreads[t].name.empty() ? "thread " + std::to_string(trace.hostThreads[t].nativeId)
                                                     : trace.hostThreads[t].name)
                : std::string("host (thread not recorded)");
        for (int k = 0; k < threadTracks[t]; ++k)
            nameThread(j, kHostPid, threadTidBase[t] + k, k == 0 ? base : base + " (" + std::to_string(k + 1) + ")",
                       threadSort++);
        // Its host ranges' rows, right under it (rangeGroups is in (thread, depth) order of tids).
        std::vector<const RangeGroup *> rows;
        for (const RangeGroup &group : rangeGroups)
            if (group.slot == static_cast<int>(t))
                rows.push_back(&group);
        std::sort(rows.begin(), rows.end(),
                  [](const RangeGroup *a, const RangeGroup *b) { return a->depth < b->depth; });
        for (const RangeGroup *group : rows) {
            const std::string row =
                base + " · " + group->label + (group->depth > 0 ? " (depth " + std::to_string(group->depth) + ")" : "");
            for (int k = 0; k < group->plan.tracks; ++k)
                nameThread(j, kHostPid, group->tidBase + k, k == 0 ? row : row + " (" + std::to_string(k + 1) + ")",
                           threadSort++);
        }
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

    {
        int nextTid = 1;
        for (std::size_t s = 0; s < streamTracks.size(); ++s)
            nextTid = std::max(nextTid, streamTidBase[s] + std::max(streamTracks[s], 1));
        writeUnifiedMemory(j, trace, origin, kGpuPidBase + (trace.devices.empty() ? 0 : trace.devices.front().index),
                           nextTid);
    }
    writeRanges(j);
}

// The args of an op's slice (its GPU slice, or the host slice of a host-only op): where it ran, what it
// moved, the measurement's other intervals, its solo baseline, range and launch details. `at` is the op's
// index in `rep`.
void ChromeWriter::writeOpArgs(JsonOut &j, const Repetition &rep, const OpRecord &op, std::size_t at) const
{
    if (op.stream >= 0 && op.stream < streamCount) {
        j.raw("\"stream\":");
        j.integer(trace.streams[static_cast<std::size_t>(op.stream)].nativeId);
        j.raw(",\"device\":");
        j.integer(trace.streams[static_cast<std::size_t>(op.stream)].device);
        if (ambiguousStreams) {
            j.raw(",\"ss_stream\":");
            j.integer(op.stream);
        }
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
        j.thousandths(op.gbPerSecond());
    }
    // An enum-valued arg, left out at its "none"/"unknown" value (the importer's default).
    auto name = [&](const char *key, auto value, auto absent) {
        if (value == absent)
            return;
        j.raw(key);
        j.ch('"');
        j.raw(toString(value));
        j.ch('"');
    };
    name(",\"src_mem\":", op.srcMem, MemKind::None);
    name(",\"dst_mem\":", op.dstMem, MemKind::None);
    name(",\"api\":", op.api, CopyApi::None);
    if (op.flags != OpFlagNone) {
        j.raw(",\"flags\":");
        j.unsignedInteger(op.flags);
    }
    // The measurement's other intervals, in absolute ns on the trace's clock (as the
    // native format keeps them), so that a round trip loses nothing.
    auto time = [&](const char *key, std::int64_t v) {
        if (v == kNoTime)
            return;
        j.raw(key);
        j.integer(v);
    };
    time(",\"ready_ns\":", op.readyNs);
    time(",\"event_end_ns\":", op.eventEndNs);
    const KernelLaunch *launch = rep.launchOf(static_cast<int>(at));
    if (launch) {
        time(",\"queued_ns\":", launch->queuedNs);
        time(",\"submitted_ns\":", launch->submittedNs);
    }
    if (const std::int64_t q = op.queuedDurationNs(); q > 0 && trace.timing != TimingSource::Events) {
        j.raw(",\"queued_us\":");
        j.thousandths(double(q) / 1e3);
    }
    if (op.channel >= 0) {
        j.raw(",\"channel\":");
        j.integer(op.channel);
    }
    name(",\"channel_type\":", op.channelType, ChannelType::Unknown);
    name(",\"driver_src_mem\":", op.driverSrcMem, MemKind::None);
    name(",\"driver_dst_mem\":", op.driverDstMem, MemKind::None);
    // Solo baselines: its median execution alone, and this execution over it (1.19: 19 % slower).
    if (interference.known && at < interference.ops.size() && interference.ops[at].known() && op.hasGpu()) {
        j.raw(",\"alone_ns\":");
        j.integer(std::llround(interference.ops[at].soloNs.median));
        j.raw(",\"slowdown\":");
        j.thousandths(double(op.gpuDurationNs()) / interference.ops[at].soloNs.median);
    }
    // The range it was launched in, under its category's name ("nvtx": "forward"), for readers of
    // the file; the importer ties ops to ranges again from the ranges themselves.
    if (const HostRange *range = rep.enclosingRange(op)) {
        j.raw(",\"");
        j.raw(toString(range->category));
        j.raw("\":");
        j.raw(range->nameId < quotedNames.size() ? quotedNames[range->nameId] : emptyName);
    }
    // Pieces that ran at once cannot nest under the op's slice: how many were left out, and why.
    if (const auto pieces = rep.piecesOf(static_cast<int>(at)); !piecesNest(pieces)) {
        j.raw(",\"pieces_left_out\":");
        j.string(std::to_string(pieces.size()) + " pieces, some of which ran at once, which nested slices cannot show");
    }
    // Launch details under Kineto's names, so that tools written for PyTorch profiles read them.
    if (const KernelLaunch *l = launch; l && l->hasDetails()) {
        auto dims = [&](const char *key, const std::uint32_t(&v)[3]) {
            j.raw(key);
            j.unsignedInteger(v[0]);
            j.ch(',');
            j.unsignedInteger(v[1]);
            j.ch(',');
            j.unsignedInteger(v[2]);
            j.ch(']');
        };
        if (l->hasGrid())
            dims(",\"grid\":[", l->grid);
        if (l->hasBlock())
            dims(",\"block\":[", l->block);
        auto count = [&](const char *key, std::int64_t v) {
            if (v < 0)
                return;
            j.raw(key);
            j.integer(v);
        };
        count(",\"registers per thread\":", l->registersPerThread);
        count(",\"shared memory\":", l->sharedBytes);
        count(",\"static shared memory\":", l->staticSharedBytes);
        count(",\"dynamic shared memory\":", l->dynamicSharedBytes);
        if (l->fullNameId != kNoString && l->fullNameId < quotedNames.size()) {
            j.raw(",\"demangled\":");
            j.raw(quotedNames[l->fullNameId]);
        }
        if (l->flops > 0) {
            j.raw(",\"flops\":");
            j.unsignedInteger(l->flops);
        }
        if (l->workId != kNoString && l->workId < quotedNames.size()) {
            j.raw(",\"work\":");
            j.raw(quotedNames[l->workId]);
        }
        if (l->busBytes > 0) {
            j.raw(",\"bus bytes\":");
            j.unsignedInteger(l->busBytes);
        }
    }
}

// Each piece under the op's slice, category "op_piece" (the importer reads them back into the op's pieces when
// the file is StreamScope's; other readers see slices nested in the op): a kernel by its name, a copy or memset
// by what it moved. The piece that ends where a touching op's slice is cut ends where the cut is.
void ChromeWriter::writePieces(JsonOut &j, const Repetition &rep, std::size_t at, int pid, int tid, bool touchesNext,
                               std::int64_t trackFirstNs) const
{
    const OpRecord &op = rep.ops[at];
    const auto pieces = rep.piecesOf(static_cast<int>(at));
    if (!piecesNest(pieces))
        return; // said in the op's args (writeOpArgs: pieces_left_out)
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        const OpPiece &p = pieces[i];
        j.raw("{\"ph\":\"X\",\"cat\":\"op_piece\",\"name\":");
        const bool named = p.kind == PieceKind::Kernel && p.nameId < quotedNames.size();
        if (named)
            j.raw(quotedNames[p.nameId]);
        else
            j.string(p.kind == PieceKind::Kernel ? std::string("kernel")
                                                 : std::string(toString(p.kind)) + " " + formatBytes(p.bytes));
        // A piece that ends where the next begins (the next piece, or after the op the next op on the track)
        // ends before it, as touching op slices do.
        const bool touches =
            (i + 1 < pieces.size() && pieces[i + 1].startNs == p.endNs) || (touchesNext && p.endNs == op.gpuEndNs);
        writeSlicePlacement(j, pid, tid, p.startNs - origin, p.durationNs(), touches, trackFirstNs);
        j.raw(",\"args\":{\"repetition\":");
        j.integer(rep.index);
        j.raw(",\"op\":");
        j.integer(static_cast<std::int64_t>(at));
        j.raw(",\"kind\":\"");
        j.raw(toString(p.kind));
        j.ch('"');
        if (p.kind == PieceKind::Kernel && !named)
            j.raw(",\"unnamed\":true");
        if (p.bytes > 0) {
            j.raw(",\"bytes\":");
            j.unsignedInteger(p.bytes);
            j.raw(",\"GB/s\":");
            j.thousandths(p.gbPerSecond());
        }
        if (p.channel >= 0) {
            j.raw(",\"channel\":");
            j.integer(p.channel);
        }
        if (p.channelType != ChannelType::Unknown) {
            j.raw(",\"channel_type\":\"");
            j.raw(toString(p.channelType));
            j.ch('"');
        }
        for (const auto &[key, d] :
             {std::pair{",\"src_device\":", p.srcDevice}, std::pair{",\"dst_device\":", p.dstDevice}})
            if (d >= 0) {
                j.raw(key);
                j.integer(d);
            }
        j.raw("}},\n");
    }
}

void ChromeWriter::writeOps(JsonOut &j, std::size_t gBegin, std::size_t gEnd) const
{
    std::size_t r =
        static_cast<std::size_t>(std::upper_bound(repStart.begin(), repStart.end(), gBegin) - repStart.begin()) - 1;
    for (std::size_t g = gBegin; g < gEnd; ++g) {
        // Ctrl-C or SIGTERM stops a part within a few thousand ops, not when the part is done (under a
        // sanitizer a part of 100k ops took most of a second, and every part in progress was waited for).
        if (((g - gBegin) & 4095) == 0)
            throwIfInterrupted();
        while (g >= repStart[r + 1])
            ++r;
        const Repetition &rep = trace.repetitions[r];
        const OpRecord &op = rep.ops[g - repStart[r]];
        const auto link = static_cast<std::uint32_t>(g + 1); // pairs an op's host and GPU slices; unique in the file
        const int sKey = streamKey(op);
        const int tKey = threadKey(op);
        const int gpuPid = kGpuPidBase + deviceOfKey(sKey);
        const int gpuTid = streamTidBase[static_cast<std::size_t>(sKey)] + static_cast<int>(gpuTrack[g]);
        const int hostTid = threadTidBase[static_cast<std::size_t>(tKey)] + static_cast<int>(hostTrack[g]);
        const bool gpu = op.hasGpu();
        const bool host = writesHostSlice(op);

        auto opArgs = [&] { writeOpArgs(j, rep, op, g - repStart[r]); };
        // Flow events v2: the host slice's bind_id flows out to the GPU slice with the same bind_id,
        // which costs no extra events. bind_id also pairs the two slices for the importer, so it is
        // written even when arrows are off.
        auto bind = [&](const char *direction) {
            j.raw(",\"bind_id\":");
            j.unsignedInteger(link);
            if (options.flows)
                j.raw(direction);
        };

        if (gpu) {
            j.raw("{\"ph\":\"X\",\"cat\":\"");
            j.raw(gpuCategory(op.kind));
            j.raw("\",\"name\":");
            j.raw(quotedName(op));
            writeSlicePlacement(j, gpuPid, gpuTid, op.gpuStartNs - origin, op.gpuDurationNs(), gpuTouchesNext[g] != 0,
                                streamTrackFirst[static_cast<std::size_t>(sKey)][gpuTrack[g]] - origin);
            if (host)
                bind(",\"flow_in\":true");
            j.raw(",\"args\":{");
            opArgs();
            j.raw("}},\n");
            writePieces(j, rep, g - repStart[r], gpuPid, gpuTid, gpuTouchesNext[g] != 0,
                        streamTrackFirst[static_cast<std::size_t>(sKey)][gpuTrack[g]] - origin);
        }
        if (host) {
            j.raw("{\"ph\":\"X\",\"cat\":\"");
            j.raw(op.kind == OpKind::HostWork ? "host_work" : "cuda_runtime");
            j.raw("\",\"name\":");
            j.string(apiNameOf(op));
            writeSlicePlacement(j, kHostPid, hostTid, op.hostStartNs - origin, op.hostDurationNs(),
                                hostTouchesNext[g] != 0,
                                threadTrackFirst[static_cast<std::size_t>(tKey)][hostTrack[g]] - origin);
            if (gpu)
                bind(",\"flow_out\":true");
            // The host slice of a GPU op needs no more than its thread: the arrow leads to the GPU
            // slice that carries the op's name and args. A host-only op carries them itself.
            j.raw(",\"args\":{\"ss_thread\":");
            j.integer(op.hostThread >= 0 && op.hostThread < threadCount ? op.hostThread : -1);
            if (gpu) {
                if (op.correlation != 0) {
                    j.raw(",\"correlation\":");
                    j.unsignedInteger(op.correlation);
                }
            } else {
                j.raw(",\"op_name\":");
                j.raw(quotedName(op));
                j.ch(',');
                opArgs();
            }
            j.raw("}},\n");
        }
    }
}

CounterProfile ChromeWriter::counterProfile(std::size_t r) const
{
    CounterProfile profile;
    if (trace.repetitions[r].ops.empty())
        return profile;
    profile.bandwidth = bandwidthProfile(trace, static_cast<int>(r));
    profile.activity = activityProfile(trace, static_cast<int>(r));
    return profile;
}

void ChromeWriter::writeCounters(JsonOut &j, const CounterProfile &profile, std::size_t part, std::size_t parts) const
{
    const auto &bandwidth = profile.bandwidth;
    const auto &activity = profile.activity;
    // The first step of part k in `steps`: the first at or after the border's time (activity times are
    // distinct and increasing, bandwidth times increasing). Without activity steps part 0 takes all.
    auto firstOf = [&](const auto &steps, std::size_t k) -> std::size_t {
        if (k == 0)
            return 0;
        if (k >= parts || activity.empty())
            return steps.size();
        const std::int64_t border = activity[activity.size() * k / parts].timeNs;
        return static_cast<std::size_t>(
            std::lower_bound(steps.begin(), steps.end(), border,
                             [](const auto &step, std::int64_t t) { return step.timeNs < t; })
            - steps.begin());
    };
    std::size_t b = firstOf(bandwidth, part), a = firstOf(activity, part);
    const std::size_t bEnd = firstOf(bandwidth, part + 1), aEnd = firstOf(activity, part + 1);
    // The state at the part's start: the last step of each profile before it.
    BandwidthStep bw = b > 0 ? bandwidth[b - 1] : BandwidthStep{};
    ActivityStep act = a > 0 ? activity[a - 1] : ActivityStep{};
    bool first = a == 0 && b == 0;
    for (std::size_t steps = 0; b < bEnd || a < aEnd; ++steps) {
        if ((steps & 4095) == 0)
            throwIfInterrupted();
        const std::int64_t t = std::min(b < bEnd ? bandwidth[b].timeNs : std::numeric_limits<std::int64_t>::max(),
                                        a < aEnd ? activity[a].timeNs : std::numeric_limits<std::int64_t>::max());
        bool changed = first;
        first = false;
        for (; b < bEnd && bandwidth[b].timeNs == t; ++b) {
            changed |= bandwidth[b].h2dGBs != bw.h2dGBs || bandwidth[b].d2hGBs != bw.d2hGBs;
            bw = bandwidth[b];
        }
        for (; a < aEnd && activity[a].timeNs == t; ++a) {
            const auto &s = activity[a];
            changed |= s.h2d != act.h2d || s.d2h != act.d2h || s.compute != act.compute || s.other != act.other;
            act = s;
        }
        if (!changed)
            continue;
        // Counters belong to their process: a tid would be ignored by every viewer.
        j.raw("{\"ph\":\"C\",\"name\":\"GPU\",\"pid\":");
        j.integer(kCounterPid);
        j.raw(",\"ts\":");
        j.micros(t - origin);
        j.raw(",\"args\":{\"H2D GB/s\":");
        j.thousandths(bw.h2dGBs);
        j.raw(",\"D2H GB/s\":");
        j.thousandths(bw.d2hGBs);
        j.raw(",\"active H2D\":");
        j.integer(act.h2d);
        j.raw(",\"active D2H\":");
        j.integer(act.d2h);
        j.raw(",\"active compute\":");
        j.integer(act.compute);
        j.raw(",\"active other\":");
        j.integer(act.other);
        j.raw("}},\n");
    }
}

// A part of the export for a worker: ops [begin, end) of the whole trace, or part `begin` of `end` of
// repetition rep's counter steps.
struct PartTask {
    bool counters = false;
    std::size_t rep = 0;
    std::size_t begin = 0, end = 0;
    std::size_t bytes = 0; // its text's expected size, reserved ahead
};

// What the parts waiting for the sink may hold together (their buffers' capacity): the next part to be
// written always starts, a later one only within this. Parts of 100k ops are about 50 MB, but ops with
// long names or args make them larger.
constexpr std::size_t kInFlightBytes = std::size_t(256) << 20;

// Writes the parts with `threads` workers and hands each to emit in order as soon as it and every part
// before it are done, so that writing overlaps serialising. A worker starts a part only when fewer than
// `threads` parts wait for the sink and their bytes stay within kInFlightBytes: the workers ran ahead of a
// slower disk, holding up to the whole export (#24). Since no more than `threads` parts are ever under way,
// more threads would only wait, each with a malloc arena reserving address space of its own: on 16 cores
// those passed a 3 GB address-space cap (#24). A repetition's counter profile is computed by the first of
// its parts to start and freed when the last one is done.
void writeParts(const ChromeWriter &writer, const std::vector<PartTask> &tasks, std::size_t repCount, unsigned threads,
                PartEmitter &emit)
{
    struct ProfileSlot {
        std::once_flag once;
        CounterProfile profile;
        std::atomic<std::size_t> left{0}; // its parts not yet done
    };
    std::unique_ptr<ProfileSlot[]> profiles(new ProfileSlot[repCount]);
    for (const PartTask &task : tasks)
        if (task.counters)
            ++profiles[task.rep].left;
    const std::size_t count = tasks.size();
    std::vector<std::unique_ptr<JsonOut>> parts(count);
    std::vector<std::exception_ptr> errors(count);
    std::vector<std::size_t> held(count, 0); // bytes counted in inFlight for each part; guarded by mutex
    std::vector<char> done(count, 0); // guarded by mutex
    std::mutex mutex;
    std::condition_variable changed;
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false}; // the sink failed: the workers need not finish (set under mutex)
    std::size_t admitted = 0, written = 0, inFlight = 0; // guarded by mutex
    auto mayStart = [&](std::size_t t) {
        return t == admitted
               && (t == written || (t < written + threads && inFlight + tasks[t].bytes <= kInFlightBytes));
    };
    auto worker = [&] {
        for (std::size_t t; !stop && (t = next.fetch_add(1)) < count;) {
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] { return stop || mayStart(t); });
                if (stop)
                    break;
                ++admitted;
                held[t] = tasks[t].bytes;
                inFlight += held[t];
            }
            changed.notify_all();
            const PartTask &task = tasks[t];
            try {
                parts[t] = std::make_unique<JsonOut>(task.bytes);
                if (!task.counters) {
                    writer.writeOps(*parts[t], task.begin, task.end);
                } else {
                    ProfileSlot &slot = profiles[task.rep];
                    std::call_once(slot.once, [&] { slot.profile = writer.counterProfile(task.rep); });
                    writer.writeCounters(*parts[t], slot.profile, task.begin, task.end);
                    if (--slot.left == 0)
                        slot.profile = {};
                }
            } catch (...) {
                errors[t] = std::current_exception();
            }
            {
                const std::lock_guard lock(mutex);
                const std::size_t bytes = parts[t] ? parts[t]->capacity() : 0;
                inFlight = inFlight - held[t] + bytes;
                held[t] = bytes;
                done[t] = 1;
            }
            changed.notify_all();
        }
    };
    std::vector<std::thread> pool;
    for (std::size_t i = 0; i < std::min<std::size_t>(threads, count); ++i)
        pool.emplace_back(worker);
    // This thread hands each finished part to the sink (writes it) while the later ones are being serialised.
    std::exception_ptr failure;
    for (std::size_t t = 0; t < count && !failure; ++t) {
        {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return done[t] != 0; });
        }
        try {
            if (errors[t])
                std::rethrow_exception(errors[t]);
            emit.part(parts[t]->view());
        } catch (...) {
            failure = std::current_exception();
            const std::lock_guard lock(mutex);
            stop = true;
        }
        parts[t].reset(); // give the memory back as we go
        {
            const std::lock_guard lock(mutex);
            written = t + 1;
            inFlight -= held[t];
            held[t] = 0;
        }
        changed.notify_all();
    }
    for (auto &thread : pool)
        thread.join();
    if (failure)
        std::rethrow_exception(failure);
}

// The whole export, handed to sink in order: toChromeJson appends the parts to a string,
// writeChromeTrace writes each to the file as soon as it and every part before it are done, so that
// writing overlaps serialising. `tooLarge`, when given, is called with the estimated size before anything
// is handed to the sink if the estimate passes limits::kMaxTraceFileBytes (the most StreamScope reads back).
void buildChromeJson(const Trace &trace, const ChromeExportOptions &options,
                     const std::function<void(std::string_view)> &sink, bool toFile,
                     const std::function<void(std::uint64_t estimate)> &tooLarge = {})
{
    const std::size_t opCount = trace.opCount();
    if (opCount >= std::numeric_limits<std::uint32_t>::max())
        throw Error(ErrorKind::InvalidInput, "Chrome export: too many ops (" + std::to_string(opCount) + ")");
    const ChromeWriter writer(trace, options);
    if (tooLarge && opCount > 0) {
        // The size from a sample of ops spread over the trace (their slices and flows; the counters come on
        // top, so this is below the real size): an export that would pass the limit is refused before a
        // byte is written, not after gigabytes.
        constexpr std::size_t kSamples = 8, kPerSample = 1024;
        JsonOut sample(kSamples * kPerSample * 600 + 4096);
        std::size_t sampled = 0;
        if (opCount <= kSamples * kPerSample) {
            writer.writeOps(sample, 0, opCount);
            sampled = opCount;
        } else {
            for (std::size_t k = 0; k < kSamples; ++k) {
                const std::size_t begin = (opCount - kPerSample) * k / (kSamples - 1);
                writer.writeOps(sample, begin, begin + kPerSample);
                sampled += kPerSample;
            }
        }
        const double perOp = double(sample.view().size()) / double(std::max<std::size_t>(1, sampled));
        const auto estimate = static_cast<std::uint64_t>(perOp * double(opCount));
        if (estimate > limits::kMaxTraceFileBytes)
            tooLarge(estimate);
    }

    // Big traces are written by several threads, in chunks of ops and of each repetition's counter
    // steps: tracks and names are decided above, so the parts are independent. Into a string they
    // are joined in order, which costs one copy of the text: with fewer than 4 cores that copy eats the
    // gain, so small machines (and small traces) write in place. Into a file nothing is copied and the
    // writing overlaps the serialising, which pays from 2 cores.
    const std::size_t repCount = trace.repetitions.size();
    const unsigned hardware = std::thread::hardware_concurrency();
    const unsigned cores = options.threads > 0 ? static_cast<unsigned>(options.threads)
                                               : (hardware >= (toFile ? 2u : 4u) ? std::min(16u, hardware) : 1u);
    // Into a file, chunks of at most 100k ops (about 50 MB), however many threads: a part waits in memory
    // until it is written, and an export that passes the size limit stops within one part of it. The same
    // for a repetition's counter steps (two per op at most, about 30 MB per 100k ops).
    const auto chunksOf = [&](std::size_t ops) {
        return toFile && cores > 1 ? ops / 100'000 + 1
                                   : std::min<std::size_t>(cores, ops / (options.threads > 0 ? 1 : 100'000) + 1);
    };
    const std::size_t opChunks = chunksOf(opCount);
    // The parts of a repetition's counters wait for its profile, computed by the first: a repetition of
    // at most 100k ops (the usual case) is one part, so that repetitions go in parallel.
    const auto counterParts = [&](std::size_t ops) {
        if (options.threads > 0)
            return chunksOf(ops);
        const std::size_t parts = std::max<std::size_t>(1, (ops + 99'999) / 100'000);
        return toFile && cores > 1 ? parts : std::min<std::size_t>(cores, parts);
    };
    PartEmitter emit(sink);
    // Per op: ~300 bytes of GPU slice, ~130 of host slice, ~300 of counter steps (two per op), where this
    // buffer takes the ops too; else the header alone (it grows if it needs more).
    const std::size_t opBytes = 360 + (options.hostCalls ? 180 : 0), counterBytes = 360;
    const bool inPlace = cores == 1 || opChunks == 1;
    JsonOut j(inPlace ? opCount * (opBytes + (options.counters ? counterBytes : 0)) + 65536 : 65536);
    writer.writeHeader(j);
    if (inPlace) {
        writer.writeOps(j, 0, opCount);
        if (options.counters)
            for (std::size_t r = 0; r < repCount; ++r)
                writer.writeCounters(j, writer.counterProfile(r), 0, 1);
        emit.part(j.view());
    } else {
        emit.part(j.view());
        std::vector<PartTask> tasks;
        for (std::size_t c = 0; c < opChunks; ++c) {
            const std::size_t begin = opCount * c / opChunks, end = opCount * (c + 1) / opChunks;
            tasks.push_back({false, 0, begin, end, (end - begin) * opBytes + 4096});
        }
        for (std::size_t r = 0; options.counters && r < repCount; ++r) {
            const std::size_t ops = trace.repetitions[r].ops.size(), parts = counterParts(ops);
            for (std::size_t k = 0; k < parts; ++k)
                tasks.push_back({true, r, k, parts, (ops * (k + 1) / parts - ops * k / parts) * counterBytes + 4096});
        }
        writeParts(writer, tasks, repCount, std::min<unsigned>(cores, 4), emit);
    }
    emit.finish();
}

} // namespace

std::string toChromeJson(const Trace &trace, const ChromeExportOptions &options)
{
    std::string text;
    buildChromeJson(
        trace, options,
        [&](std::string_view part) {
            if (text.empty())
                text.reserve(part.size() + trace.opCount() * 560); // one allocation for the usual size
            text.append(part);
        },
        false);
    return text;
}

void writeChromeTrace(const Trace &trace, const std::string &path, const ChromeExportOptions &options)
{
    // What StreamScope writes it reads back: a Chrome file is read whole, at most limits::kMaxTraceFileBytes,
    // and the export takes about 1 KB per op (slices, flows and counter steps), so from about 2 million ops
    // it would pass the limit. Refused before the target is touched: by an estimate before anything is
    // written, and by the count of what is written (the temporary file is removed, the target stays as it was).
    const auto refuse = [&](std::uint64_t bytes, bool estimated) {
        return Error(ErrorKind::Io, path + ": the Chrome export of these " + std::to_string(trace.opCount())
                                        + " ops would take " + (estimated ? "about " : "more than ")
                                        + limits::describeBytes(bytes) + ", more than StreamScope reads back (at most "
                                        + limits::describeBytes(limits::kMaxTraceFileBytes)
                                        + "); export the native format (.sstrace) instead");
    };
    const auto write = [&] {
        AtomicFileWriter file(path);
        std::uint64_t written = 0;
        buildChromeJson(
            trace, options,
            [&](std::string_view part) {
                written += part.size();
                if (written > limits::kMaxTraceFileBytes)
                    throw refuse(written, false);
                file.write(part);
            },
            true, [&](std::uint64_t estimate) { throw refuse(estimate, true); });
        file.commit();
    };
    // Out of memory: exit 4 naming the file, the temporary file removed and the target as it was.
    memoryChecked(path + ": not enough memory to write the Chrome export of these " + std::to_string(trace.opCount())
                      + " ops",
                  write);
}

} // namespace streamscope::engine
