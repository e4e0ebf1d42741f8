// Chrome trace JSON import (see chrome_import.h): one pass over traceEvents collecting GPU slices,
// host API slices and flows, then host calls are linked to their GPU ops by correlation id (Kineto),
// by flow arrows where an event has no correlation arg, or by bind_id (StreamScope's own export).
#include "engine/formats/chrome_import.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "engine/formats/import_common.h"
#include "engine/formats/trace_header.h"
#include "engine/model/api_names.h"
#include "engine/model/errors.h"
#include "engine/model/host_ranges.h"
#include "engine/model/limits.h"
#include "engine/util/file_util.h"
#include "engine/util/gzip.h"
#include "engine/util/json_limits.h"

namespace streamscope::engine {

namespace {

namespace dom = simdjson::dom;
// One JSON value of the event being read (or of a header block): simdjson's DOM of that event alone,
// valid until the next event is parsed.
using Value = dom::element;
using OptValue = std::optional<Value>;

std::string typeName(const Value &v)
{
    switch (v.type()) {
    case dom::element_type::NULL_VALUE: return "null";
    case dom::element_type::BOOL: return "a boolean";
    case dom::element_type::INT64:
    case dom::element_type::UINT64:
    case dom::element_type::DOUBLE: return "a number";
    case dom::element_type::STRING: return "a string";
    case dom::element_type::ARRAY: return "an array";
    case dom::element_type::OBJECT: break;
    }
    return "an object";
}

bool isString(const Value &v)
{
    return v.type() == dom::element_type::STRING;
}
bool isInteger(const Value &v)
{
    return v.type() == dom::element_type::INT64 || v.type() == dom::element_type::UINT64;
}
bool isArray(const Value &v)
{
    return v.type() == dom::element_type::ARRAY;
}
bool isObject(const Value &v)
{
    return v.type() == dom::element_type::OBJECT;
}
bool isNull(const Value &v)
{
    return v.type() == dom::element_type::NULL_VALUE;
}
// Only for a value that isString().
std::string_view stringOf(const Value &v)
{
    return v.get_string().value_unsafe();
}
// Only for a value that isInteger(): an unsigned one beyond int64 wraps, as nlohmann's get<int64_t> did.
std::int64_t looseInteger(const Value &v)
{
    return v.type() == dom::element_type::UINT64 ? static_cast<std::int64_t>(v.get_uint64().value_unsafe())
                                                 : v.get_int64().value_unsafe();
}
// Only for an array: its elements in order.
dom::array arrayOf(const Value &v)
{
    return v.get_array().value_unsafe();
}

// The value's JSON text, compact (for ids that are neither strings nor integers).
std::string compactJson(const Value &v)
{
    if (isInteger(v))
        return v.type() == dom::element_type::UINT64 ? std::to_string(v.get_uint64().value_unsafe())
                                                     : std::to_string(v.get_int64().value_unsafe());
    return simdjson::minify(v);
}

// Typed access to JSON values with errors that name the file and the JSON path.
class Reader {
public:
    explicit Reader(const std::string &file) : m_file(file) { }

    [[noreturn]] void fail(const std::string &path, const std::string &what) const
    {
        throw Error(ErrorKind::InvalidInput, m_file + ": " + path + ": " + what);
    }
    [[noreturn]] void wrongType(const std::string &path, const Value &v, const char *expected) const
    {
        fail(path, std::string("expected ") + expected + ", found " + typeName(v));
    }

    // The member `key` of an object (none for another value, as for an object without it).
    OptValue find(const Value &obj, std::string_view key) const
    {
        Value out;
        if (!isObject(obj) || obj.at_key(key).get(out) != simdjson::SUCCESS)
            return std::nullopt;
        return out;
    }
    std::int64_t integer(const Value &obj, const char *key, const std::string &path) const
    {
        const OptValue v = find(obj, key);
        if (!v)
            fail(path + "/" + key, "missing (an integer is required)");
        return integerValue(*v, path + "/" + key);
    }
    std::int64_t integerValue(const Value &v, const std::string &path) const
    {
        if (v.type() == dom::element_type::UINT64) // simdjson keeps int64 for every value that fits one
            fail(path, "integer out of range");
        if (v.type() == dom::element_type::INT64)
            return v.get_int64().value_unsafe();
        wrongType(path, v, "an integer");
    }
    // A device id (an integer the model's int holds: import_common.h), refused with its path otherwise.
    std::int64_t deviceId(std::int64_t id, const std::string &path) const
    {
        if (const std::string problem = deviceIdProblem(id); !problem.empty())
            fail(path, problem);
        return id;
    }
    std::optional<std::int64_t> optionalInteger(const Value &obj, const char *key, const std::string &path) const
    {
        const OptValue v = find(obj, key);
        if (!v || isNull(*v))
            return std::nullopt;
        return integerValue(*v, path + "/" + key);
    }
    // A string member; the view lives as long as the value it was read from.
    std::string_view text(const Value &obj, const char *key, const std::string &path) const
    {
        const OptValue v = find(obj, key);
        if (!v)
            fail(path + "/" + key, "missing (a string is required)");
        if (!isString(*v))
            wrongType(path + "/" + key, *v, "a string");
        return stringOf(*v);
    }
    std::optional<std::string_view> optionalText(const Value &obj, const char *key, const std::string &path) const
    {
        const OptValue v = find(obj, key);
        if (!v || isNull(*v))
            return std::nullopt;
        if (!isString(*v))
            wrongType(path + "/" + key, *v, "a string");
        return stringOf(*v);
    }
    bool optionalBool(const Value &obj, const char *key, const std::string &path) const
    {
        const OptValue v = find(obj, key);
        if (!v || isNull(*v))
            return false;
        if (v->type() != dom::element_type::BOOL)
            wrongType(path + "/" + key, *v, "true or false");
        return v->get_bool().value_unsafe();
    }
    // Microseconds (integer or fractional) to integer nanoseconds, exact for the integer part so
    // that epoch-based Kineto timestamps (~1.7e15 us) lose nothing.
    std::int64_t micros(const Value &obj, const char *key, const std::string &path) const
    {
        const OptValue v = find(obj, key);
        if (!v)
            fail(path + "/" + key, "missing (a time in microseconds is required)");
        if (isInteger(*v))
            return checkedTimes1000(integerValue(*v, path + "/" + key), path + "/" + key);
        if (v->type() != dom::element_type::DOUBLE)
            wrongType(path + "/" + key, *v, "a number (microseconds)");
        const double us = v->get_double().value_unsafe();
        if (!std::isfinite(us) || std::fabs(us) > 9.0e15)
            fail(path + "/" + key, "time out of range");
        const double whole = std::floor(us);
        return checkedTimes1000(static_cast<std::int64_t>(whole), path + "/" + key)
               + std::llround((us - whole) * 1000.0);
    }
    // A time plus the trace's origin, within the limits of engine/model/limits.h (no wrap).
    std::int64_t offsetTime(std::int64_t ns, std::int64_t origin, const std::string &path) const
    {
        std::int64_t t = 0;
        if (__builtin_add_overflow(ns, origin, &t) || !limits::isTimeInRange(t))
            fail(path, timeOutOfRange());
        if (t == kNoTime)
            fail(path, noTime("ts"));
        return t;
    }
    // The end of a slice, ts + dur, within them too.
    void checkEnd(std::int64_t ts, std::int64_t dur, const std::string &path) const
    {
        std::int64_t end = 0;
        if (__builtin_add_overflow(ts, dur, &end) || !limits::isTimeInRange(end))
            fail(path, "ts + dur is out of range: " + timeOutOfRange());
        if (end == kNoTime)
            fail(path, noTime("ts + dur"));
    }
    // A slice's start and end: its ts plus the trace's origin, and ts + dur, each within the limits, dur not
    // negative.
    std::pair<std::int64_t, std::int64_t> sliceSpan(const Value &e, const std::string &path, std::int64_t origin) const
    {
        const std::int64_t ts = offsetTime(micros(e, "ts", path), origin, path + "/ts");
        const std::int64_t dur = micros(e, "dur", path);
        if (dur < 0)
            fail(path + "/dur", "negative duration");
        checkEnd(ts, dur, path + "/dur");
        return {ts, ts + dur};
    }
    // A slice's args, which it must have: refused as `needs` says otherwise ("an op_piece slice needs its args
    // (...)").
    Value requiredArgs(const Value &e, const std::string &ap, std::string_view needs) const
    {
        const OptValue args = find(e, "args");
        if (!args || !isObject(*args))
            fail(ap, std::string(needs));
        return *args;
    }
    // The value of `key` where it is given, a name `from` knows (one of StreamScope's spellings of an enum); a name
    // it does not know is refused as "unknown WHAT "name"", followed by `choices` where given.
    template <typename From>
    auto optionalNamed(const Value &obj, const char *key, const std::string &ap, From from, std::string_view what,
                       std::string_view choices = {}) const -> decltype(from(std::string_view()))
    {
        const auto name = optionalText(obj, key, ap);
        if (!name)
            return std::nullopt;
        const auto value = from(*name);
        if (!value)
            fail(ap + "/" + key,
                 "unknown " + std::string(what) + " \"" + std::string(*name) + "\"" + std::string(choices));
        return value;
    }
    // The same for a key the object must have.
    template <typename From>
    auto named(const Value &obj, const char *key, const std::string &ap, From from, std::string_view what,
               std::string_view choices = {}) const
    {
        static_cast<void>(text(obj, key, ap)); // refused, naming it, where missing
        return *optionalNamed(obj, key, ap, from, what, choices);
    }
    // The repetition a slice of StreamScope's own export names in its args.
    int repetition(const Value &args, const std::string &ap) const
    {
        const std::int64_t v = integer(args, "repetition", ap);
        if (v < 0 || v > std::numeric_limits<int>::max())
            fail(ap + "/repetition", "repetition " + std::to_string(v) + " is not valid");
        return static_cast<int>(v);
    }
    const std::string &file() const { return m_file; }

private:
    // -1 ns is StreamScope's "no time" (kNoTime): a slice there silently lost its GPU interval (a 1 ms
    // kernel vanished from every figure, #24), so it is refused as the Nsight importer refuses it.
    static std::string noTime(const char *what)
    {
        return std::string(what)
               + " is -1 ns, the one time StreamScope cannot hold (it means \"not recorded\" inside StreamScope; "
                 "docs/formats.md, \"Limits\")";
    }
    static std::string timeOutOfRange()
    {
        return "StreamScope reads times within ±" + std::to_string(limits::kMaxTimeNs) + " ns ("
               + limits::describeSpan(limits::kMaxTimeNs) + ")";
    }
    std::int64_t checkedTimes1000(std::int64_t us, const std::string &path) const
    {
        if (us > INT64_MAX / 1000 || us < INT64_MIN / 1000)
            fail(path, "time out of range");
        return us * 1000;
    }
    std::string m_file;
};

std::string lowered(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

enum class Category { Kernel, Memcpy, Memset, GpuOther, Runtime, HostWork, HostRange, Ignored };

Category categoryOf(std::string_view cat)
{
    // Kineto's current names, its older capitalised ones, and StreamScope's own gpu_op / host_work.
    const std::string c = lowered(std::string(cat));
    if (c == "kernel")
        return Category::Kernel;
    if (c == "gpu_memcpy" || c == "memcpy")
        return Category::Memcpy;
    if (c == "gpu_memset" || c == "memset")
        return Category::Memset;
    if (c == "gpu_op")
        return Category::GpuOther;
    if (c == "cuda_runtime" || c == "cuda_driver" || c == "runtime" || c == "driver")
        return Category::Runtime;
    if (c == "host_work")
        return Category::HostWork;
    // Kineto's CPU side (aten operators, record_function blocks, Python calls) and StreamScope's own
    // export of NVTX ranges: host ranges on their thread.
    if (hostRangeCategoryFromString(c))
        return Category::HostRange;
    return Category::Ignored;
}

MemKind memKindFromLabel(std::string_view label)
{
    if (label == "Pageable")
        return MemKind::Pageable;
    if (label == "Pinned")
        return MemKind::Pinned;
    if (label == "Device" || label == "Array")
        return MemKind::Device;
    if (label == "Managed")
        return MemKind::Managed;
    return MemKind::Unknown;
}

// "Memcpy HtoD (Pinned -> Device)": direction and memory kinds, as Kineto names copies.
void parseMemcpyName(std::string_view name, OpRecord &op)
{
    op.kind = OpKind::Other;
    if (name.find("HtoD") != std::string_view::npos || name.find("HtoA") != std::string_view::npos)
        op.kind = OpKind::CopyH2D;
    else if (name.find("DtoH") != std::string_view::npos || name.find("AtoH") != std::string_view::npos)
        op.kind = OpKind::CopyD2H;
    else if (name.find("PtoP") != std::string_view::npos)
        op.kind = OpKind::CopyP2P; // Kineto names no devices: srcDevice/dstDevice stay unknown
    else if (name.find("DtoD") != std::string_view::npos || name.find("AtoA") != std::string_view::npos
             || name.find("DtoA") != std::string_view::npos || name.find("AtoD") != std::string_view::npos)
        op.kind = OpKind::CopyD2D;
    else if (name.find("HtoH") != std::string_view::npos)
        op.kind = OpKind::CopyH2H;
    const auto open = name.find('(');
    const auto arrow = name.find(" -> ");
    const auto close = name.rfind(')');
    if (open != std::string_view::npos && arrow != std::string_view::npos && close != std::string_view::npos
        && open < arrow && arrow < close) {
        op.srcMem = memKindFromLabel(name.substr(open + 1, arrow - open - 1));
        op.dstMem = memKindFromLabel(name.substr(arrow + 4, close - arrow - 4));
    } else {
        op.srcMem = op.dstMem = MemKind::Unknown;
    }
}

// A Chrome pid or tid: an integer or (Kineto's "Spans", "Traces") a string.
std::string idKey(const OptValue &v)
{
    if (!v)
        return "";
    if (isString(*v))
        return "s:" + std::string(stringOf(*v));
    return compactJson(*v);
}

// An op as read, before host calls are linked to GPU ops: a GPU slice, or an API call (its host part,
// and for host-only ops everything).
struct PendingOp {
    OpRecord op;
    std::uint64_t link = 0; // StreamScope export: bind_id shared by an op's host and GPU slices
    std::size_t order = 0; // position of the event in traceEvents
    bool hostOnlyArgs = false; // carries the full op args (StreamScope export of a host-only op)
    int repetition = 0;
    std::int32_t launch = -1; // index into ChromeImporter::m_launches: the kernel's launch details
};

// Where a flow starts or ends: a (pid, tid) lane, numbered as first met, and a time. 16 bytes, kept for
// every event without a correlation until the flows are matched.
struct LaneKey {
    std::uint32_t lane = 0;
    std::int64_t ts = 0;
    bool operator==(const LaneKey &o) const { return ts == o.ts && lane == o.lane; }
};
struct LaneKeyHash {
    std::size_t operator()(const LaneKey &k) const
    {
        return std::hash<std::int64_t>()(k.ts) ^ (std::size_t(k.lane) * 0x9E3779B97F4A7C15ull);
    }
};

constexpr std::size_t kProgressStep = 256 << 10;
// The JSON text of one event (or one header block) at most: a name may be limits::kMaxTextBytes, and no
// real event has more than a few KiB besides. Bounds the DOM of one value (simdjson's tape takes 8 bytes
// per token).
constexpr std::size_t kMaxValueBytes = limits::kMaxTextBytes + (std::size_t(1) << 20);

// The first syntax error of a text, as nlohmann's parser reports it, found by its SAX interface (which
// builds nothing): where simdjson says only what is wrong, this says where.
struct FirstSyntaxError {
    using Json = nlohmann::json;
    std::optional<std::size_t> position; // bytes read when the parser stopped
    std::string message;
    int id = 0; // nlohmann's exception id: 406 is a number beyond a double
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(Json::number_integer_t) { return true; }
    bool number_unsigned(Json::number_unsigned_t) { return true; }
    bool number_float(Json::number_float_t, const Json::string_t &) { return true; }
    bool string(Json::string_t &) { return true; }
    bool binary(Json::binary_t &) { return true; }
    bool start_object(std::size_t) { return true; }
    bool end_object() { return true; }
    bool start_array(std::size_t) { return true; }
    bool end_array() { return true; }
    bool key(Json::string_t &) { return true; }
    bool parse_error(std::size_t at, const std::string &, const nlohmann::detail::exception &e)
    {
        position = at;
        id = e.id;
        message = e.what();
        if (const auto p = message.find("] "); p != std::string::npos)
            message = message.substr(p + 2); // without "[json.exception.parse_error.101] "
        if (const auto p = message.find("syntax error"); p != std::string::npos)
            message = message.substr(p); // without nlohmann's own "parse error at line 1, column 2: "
        return false;
    }
};

// A kernel's launch details from its args, as Kineto writes them ("grid": [x, y, z], "block",
// "shared memory", "registers per thread") and StreamScope's export adds ("static shared memory",
// "dynamic shared memory", "demangled", "flops", "work", "bus bytes"); nothing when the args have none. `intern` keeps
// the demangled name.
std::optional<KernelLaunch>
launchFromArgs(const Reader &r, const Value &a, const std::string &ap,
               const std::function<std::uint32_t(std::string_view, const std::string &)> &intern)
{
    KernelLaunch l;
    bool any = false;
    auto dims = [&](const char *key, std::uint32_t(&out)[3]) {
        const OptValue v = r.find(a, key);
        if (!v || isNull(*v))
            return;
        const std::string p = ap + "/" + key;
        const std::size_t n = isArray(*v) ? arrayOf(*v).size() : 0;
        if (n == 0 || n > 3)
            r.wrongType(p, *v, "an array of one to three integers");
        std::size_t i = 0;
        for (const Value item : arrayOf(*v)) {
            const std::int64_t x = r.integerValue(item, p + "/" + std::to_string(i));
            if (x < 0 || x > std::numeric_limits<std::uint32_t>::max())
                r.fail(p + "/" + std::to_string(i), "a launch dimension of " + std::to_string(x) + " is not possible");
            out[i++] = static_cast<std::uint32_t>(x);
        }
        for (i = n; i < 3; ++i)
            out[i] = 1; // "grid": [64] is 64 x 1 x 1
        any = true;
    };
    dims("grid", l.grid);
    dims("block", l.block);
    auto size = [&](const char *key, std::int64_t max) -> std::int64_t {
        const auto v = r.optionalInteger(a, key, ap);
        if (!v)
            return -1;
        if (*v < 0 || *v > max)
            r.fail(ap + "/" + key, std::to_string(*v) + " is not a possible size");
        any = true;
        return *v;
    };
    constexpr std::int64_t kI32 = std::numeric_limits<std::int32_t>::max();
    l.registersPerThread = static_cast<std::int32_t>(size("registers per thread", kI32));
    l.sharedBytes = size("shared memory", std::numeric_limits<std::int64_t>::max());
    l.staticSharedBytes = static_cast<std::int32_t>(size("static shared memory", kI32));
    l.dynamicSharedBytes = static_cast<std::int32_t>(size("dynamic shared memory", kI32));
    if (l.sharedBytes < 0 && (l.staticSharedBytes >= 0 || l.dynamicSharedBytes >= 0))
        l.sharedBytes = std::int64_t(std::max(0, l.staticSharedBytes)) + std::max(0, l.dynamicSharedBytes);
    if (const auto full = r.optionalText(a, "demangled", ap)) {
        l.fullNameId = intern(*full, ap + "/demangled");
        any = true;
    }
    // StreamScope's export: a kernel's arithmetic ("flops", and "work", what it is).
    if (const auto flops = r.optionalInteger(a, "flops", ap)) {
        if (*flops < 0)
            r.fail(ap + "/flops", std::to_string(*flops) + " is not a possible count of operations");
        l.flops = static_cast<std::uint64_t>(*flops);
        any = true;
    }
    if (const auto work = r.optionalText(a, "work", ap)) {
        l.workId = intern(*work, ap + "/work");
        any = true;
    }
    // A collective's bus bytes (nccl-tests' busbw numerator).
    if (const auto bus = r.optionalInteger(a, "bus bytes", ap)) {
        if (*bus < 0)
            r.fail(ap + "/bus bytes", std::to_string(*bus) + " is not a possible count of bytes");
        l.busBytes = static_cast<std::uint64_t>(*bus);
        any = true;
    }
    if (!any)
        return std::nullopt;
    return l;
}

// An op_piece slice of StreamScope's own export (chrome_export.cpp's writePieces): its repetition and the piece,
// whose op index says whose; checkTraceLimits checks that it lies inside that op. `intern` keeps a kernel's name.
std::pair<int, OpPiece>
pieceFromSlice(const Reader &r, const Value &e, const std::string &path, std::int64_t origin,
               const std::function<std::uint32_t(std::string_view, const std::string &)> &intern)
{
    const std::string ap = path + "/args";
    const Value args = r.requiredArgs(e, ap, "an op_piece slice needs its args (repetition, op, kind)");
    OpPiece p;
    p.kind = r.named(args, "kind", ap, pieceKindFromString, "piece kind", " (kernel, copy or memset)");
    const std::int64_t op = r.integer(args, "op", ap);
    if (op < 0 || op > std::numeric_limits<std::int32_t>::max())
        r.fail(ap + "/op", "op index " + std::to_string(op) + " is not valid");
    p.op = static_cast<std::int32_t>(op);
    const int repetition = r.repetition(args, ap);
    const std::int64_t bytes = r.optionalInteger(args, "bytes", ap).value_or(0);
    if (bytes < 0)
        r.fail(ap + "/bytes", "bytes must not be negative");
    p.bytes = static_cast<std::uint64_t>(bytes);
    const std::int64_t channel = r.optionalInteger(args, "channel", ap).value_or(-1);
    if (channel < -1 || channel > std::numeric_limits<std::int32_t>::max())
        r.fail(ap + "/channel", "channel " + std::to_string(channel) + " is not valid");
    p.channel = static_cast<std::int32_t>(channel);
    p.channelType =
        r.optionalNamed(args, "channel_type", ap, channelTypeFromString, "channel type").value_or(ChannelType::Unknown);
    for (const auto &[key, device] : {std::pair{"src_device", &p.srcDevice}, std::pair{"dst_device", &p.dstDevice}}) {
        const std::int64_t d = r.optionalInteger(args, key, ap).value_or(-1);
        if (d < -1 || d > std::numeric_limits<std::int16_t>::max())
            r.fail(ap + "/" + key, "device " + std::to_string(d) + " is not valid");
        *device = static_cast<std::int16_t>(d);
    }
    if (p.kind == PieceKind::Kernel && !r.optionalBool(args, "unnamed", ap))
        p.nameId = intern(r.text(e, "name", path), path + "/name");
    std::tie(p.startNs, p.endNs) = r.sliceSpan(e, path, origin);
    return {repetition, p};
}

// The pieces read (pieceFromSlice) put into their repetitions (`repIndex`: a repetition's index to its place in
// trace.repetitions), each repetition's in op order and by start.
void attachPieces(Trace &trace, const std::map<int, std::size_t> &repIndex,
                  const std::vector<std::pair<int, OpPiece>> &pieces, const std::string &file)
{
    for (const auto &[repetition, p] : pieces) {
        const auto it = repIndex.find(repetition);
        if (it == repIndex.end() || p.op >= static_cast<std::int64_t>(trace.repetitions[it->second].ops.size()))
            throw Error(ErrorKind::InvalidInput, file + ": an op_piece slice of repetition "
                                                     + std::to_string(repetition) + " names op " + std::to_string(p.op)
                                                     + ", which that repetition does not have");
        trace.repetitions[it->second].opPieces.push_back(p);
    }
    for (Repetition &rep : trace.repetitions)
        std::stable_sort(rep.opPieces.begin(), rep.opPieces.end(), [](const OpPiece &x, const OpPiece &y) {
            return x.op != y.op ? x.op < y.op : x.startNs < y.startNs;
        });
}

// StreamScope's own args: kind, op_index, repetition, memory kinds, api, flags. `ourStreams` maps (device,
// native id) to the streams of the /streamscope block, `streamCount` of them.
void readOpArgs(const Reader &r, const std::map<std::pair<std::int64_t, std::int64_t>, int> &ourStreams,
                std::size_t streamCount, const Value &a, const std::string &ap, OpRecord &op, int &repetition)
{
    // The stream: ss_stream where the export wrote one (streams sharing a device and native id),
    // else the one stream of /streamscope/streams with this device and native id.
    if (const auto native = r.optionalInteger(a, "stream", ap)) {
        const auto device = r.optionalInteger(a, "device", ap).value_or(0);
        const auto it = ourStreams.find({device, *native});
        if (it == ourStreams.end())
            r.fail(ap + "/stream", "no stream with device " + std::to_string(device) + " and nativeId "
                                       + std::to_string(*native) + " in /streamscope/streams");
        op.stream = it->second;
    }
    if (const auto kind = r.optionalNamed(a, "kind", ap, opKindFromString, "op kind"))
        op.kind = *kind;
    op.opIndex = static_cast<int>(r.optionalInteger(a, "op_index", ap).value_or(-1));
    repetition = static_cast<int>(r.optionalInteger(a, "repetition", ap).value_or(0));
    auto mem = [&](const char *key) {
        return r.optionalNamed(a, key, ap, memKindFromString, "memory kind").value_or(MemKind::None);
    };
    op.srcMem = mem("src_mem");
    op.dstMem = mem("dst_mem");
    if (const auto api = r.optionalNamed(a, "api", ap, copyApiFromString, "copy API"))
        op.api = *api;
    const std::int64_t flags = r.optionalInteger(a, "flags", ap).value_or(0);
    if (flags < 0 || flags > std::numeric_limits<std::uint8_t>::max())
        r.fail(ap + "/flags", "flags " + std::to_string(flags) + " are not valid (0..255)");
    op.flags = static_cast<std::uint8_t>(flags);
    op.readyNs = r.optionalInteger(a, "ready_ns", ap).value_or(kNoTime);
    op.eventEndNs = r.optionalInteger(a, "event_end_ns", ap).value_or(kNoTime);
    op.channel = OpRecord::channelOf(r.optionalInteger(a, "channel", ap).value_or(-1));
    if (const auto type = r.optionalNamed(a, "channel_type", ap, channelTypeFromString, "channel type"))
        op.channelType = *type;
    op.driverSrcMem = mem("driver_src_mem");
    op.driverDstMem = mem("driver_dst_mem");
    if (const auto s = r.optionalInteger(a, "ss_stream", ap)) {
        if (*s < 0 || *s >= static_cast<std::int64_t>(streamCount))
            r.fail(ap + "/ss_stream", "no stream " + std::to_string(*s) + " in /streamscope/streams");
        op.stream = static_cast<int>(*s);
    }
}

// The text of a Chrome trace and how its values are found in it: extents found by a scan of JSON's brackets
// and strings (valueEnd), each value then parsed as a DOM of its own, a syntax error located by line and
// column. ChromeImporter reads the header and the events on top of it.
class ChromeTextScanner {
protected:
    ChromeTextScanner(simdjson::padded_string_view text, const std::string &file) : m_text(text), m_r(file) { }

    // simdjson says what but not where: the text's first syntax error is found again (one linear pass of
    // nlohmann's SAX parser, which builds nothing, only on this path) to name its line and column.
    [[noreturn]] void syntax(simdjson::error_code err) const
    {
        const std::string_view text(m_text.data(), m_text.size());
        if (err == simdjson::MEMALLOC)
            throw Error(ErrorKind::Io, m_r.file() + ": not enough memory to read it ("
                                           + limits::describeBytes(text.size()) + " of JSON)");
        if (text.empty())
            throw Error(ErrorKind::InvalidInput, m_r.file() + ": not valid JSON (the file is empty)");
        FirstSyntaxError first;
        try {
            nlohmann::json::sax_parse(text.begin(), text.end(), &first);
        } catch (const nlohmann::json::exception &e) {
            first.position = 0;
            first.message = e.what();
        }
        if (first.position) {
            // Line and column of the byte where parsing stopped, what an editor shows; for a number beyond a
            // double, of the number itself.
            std::size_t at = std::min(*first.position > 0 ? *first.position - 1 : 0, text.size());
            if (first.id == 406)
                if (const auto q = first.message.find('\''); q != std::string::npos) {
                    const std::string token = first.message.substr(q + 1, first.message.find('\'', q + 1) - q - 1);
                    if (const auto found = token.empty() ? std::string_view::npos : text.find(token);
                        found != std::string_view::npos)
                        at = found;
                }
            throw Error(ErrorKind::InvalidInput,
                        m_r.file() + ":" + lineColumnOfByte(text, at) + ": not valid JSON (" + first.message + ")");
        }
        throw Error(ErrorKind::InvalidInput, m_r.file() + ": not valid JSON (" + simdjson::error_message(err) + ")");
    }

    static bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
    std::size_t skipSpace(std::size_t pos) const
    {
        while (pos < m_text.size() && isSpace(m_text.data()[pos]))
            ++pos;
        return pos;
    }

    // Where the JSON value that starts at `pos` ends (one past its last byte): a string to its closing
    // quote (escapes skipped), an object or array to its closing bracket (strings inside skipped), anything
    // else to the next delimiter. Only extents: simdjson checks what is inside when the value is parsed,
    // and a text that is not JSON is reported by syntax() with its line and column.
    // `levels`: the arrays and objects open around the value; one nested deeper than kMaxJsonDepth in all is
    // refused here, before anything parses it (this scan is the nesting check: the text is scanned once).
    std::size_t valueEnd(std::size_t pos, int levels) const
    {
        const char *const text = m_text.data();
        const std::size_t size = m_text.size();
        const auto stringEnd = [&](std::size_t i) { // i: just past the opening quote
            for (;;) {
                const void *hit = std::memchr(text + i, '"', size - i);
                if (!hit)
                    syntax(simdjson::UNCLOSED_STRING);
                std::size_t q = static_cast<std::size_t>(static_cast<const char *>(hit) - text);
                std::size_t backslashes = 0;
                while (q - backslashes > i && text[q - backslashes - 1] == '\\')
                    ++backslashes;
                if (backslashes % 2 == 0)
                    return q + 1;
                i = q + 1;
            }
        };
        if (pos >= size)
            syntax(simdjson::TAPE_ERROR);
        const char first = text[pos];
        if (first == '"')
            return stringEnd(pos + 1);
        if (first == '{' || first == '[') {
            std::size_t depth = 0;
            for (std::size_t i = pos; i < size;) {
                const char c = text[i];
                if (c == '"') {
                    i = stringEnd(i + 1);
                    continue;
                }
                if (c == '{' || c == '[') {
                    if (levels + static_cast<int>(++depth) > kMaxJsonDepth)
                        throw Error(ErrorKind::InvalidInput,
                                    excessiveNestingMessage(std::string_view(text, size), i, m_r.file()));
                } else if ((c == '}' || c == ']') && --depth == 0)
                    return i + 1;
                ++i;
            }
            syntax(simdjson::INCOMPLETE_ARRAY_OR_OBJECT);
        }
        std::size_t i = pos;
        while (i < size && !isSpace(text[i]) && text[i] != ',' && text[i] != ']' && text[i] != '}')
            ++i;
        return i;
    }

    // The value text[begin, end) as a DOM of its own (the text is padded, so simdjson parses it in place).
    // One value is at most kMaxValueBytes: an event, a header block.
    Value parseValue(std::size_t begin, std::size_t end, const std::string &path = {})
    {
        if (end - begin > kMaxValueBytes)
            m_r.fail(path.empty() ? "/" : path, limits::describeBytes(end - begin)
                                                    + " of JSON in one value, more than StreamScope reads (at most "
                                                    + limits::describeBytes(kMaxValueBytes) + " for an event)");
        Value v;
        if (const auto err = m_dom.parse(m_text.data() + begin, end - begin, false).get(v))
            syntax(err);
        return v;
    }

    // Where the top-level object's members of interest are (the last one where a key repeats, as for every
    // member): traceEvents' value, and the extents of streamscope, deviceProperties and distributedInfo.
    struct Members {
        std::optional<std::size_t> events;
        std::optional<std::pair<std::size_t, std::size_t>> block, props, info;
    };
    Members findMembers(std::size_t pos)
    {
        const std::string_view text(m_text.data(), m_text.size());
        Members m;
        auto &[events, block, props, info] = m;
        pos = skipSpace(pos + 1);
        if (pos < text.size() && text[pos] == '}') {
            pos = pos + 1;
        } else {
            for (;;) {
                if (pos >= text.size() || text[pos] != '"')
                    syntax(simdjson::TAPE_ERROR);
                const std::size_t keyEnd = valueEnd(pos, 1);
                std::string_view key = text.substr(pos + 1, keyEnd - pos - 2);
                std::string unescaped;
                if (key.find('\\') != std::string_view::npos) { // "trace\u0045vents": simdjson unescapes it
                    const Value k = parseValue(pos, keyEnd);
                    unescaped = std::string(stringOf(k));
                    key = unescaped;
                }
                pos = skipSpace(keyEnd);
                if (pos >= text.size() || text[pos] != ':')
                    syntax(simdjson::TAPE_ERROR);
                const std::size_t valueAt = skipSpace(pos + 1);
                const std::size_t end = valueEnd(valueAt, 1);
                if (key == "traceEvents")
                    events = valueAt;
                else if (key == "streamscope")
                    block = {valueAt, end};
                else if (key == "deviceProperties")
                    props = {valueAt, end};
                else if (key == "distributedInfo")
                    info = {valueAt, end};
                pos = skipSpace(end);
                if (pos < text.size() && text[pos] == ',') {
                    pos = skipSpace(pos + 1);
                    continue;
                }
                if (pos < text.size() && text[pos] == '}') {
                    ++pos;
                    break;
                }
                syntax(simdjson::TAPE_ERROR);
            }
        }
        if (skipSpace(pos) != text.size())
            syntax(simdjson::TRAILING_CONTENT);
        return m;
    }

    simdjson::padded_string_view m_text;
    Reader m_r;
    dom::parser m_dom; // one event (or header block) at a time
};

class ChromeImporter : ChromeTextScanner {
public:
    // `text` stays unchanged and must outlive the importer (the names of what is read are views into it
    // until they are interned).
    ChromeImporter(simdjson::padded_string_view text, const std::string &file, const LoadControl &control, double from,
                   double to) :
        ChromeTextScanner(text, file),
        m_control(control), m_from(from), m_to(to)
    {
    }

    // One pass over the text that builds no document of it: the top-level members and the events are
    // found by a scan of their extents (JSON's brackets and strings, see valueEnd), and each member of
    // interest and each event is parsed by simdjson as a DOM of that value alone, which the next replaces.
    // The members the events depend on (the streamscope block, deviceProperties, distributedInfo) are read
    // first wherever they stand. simdjson's on-demand parser over the whole text would keep an index of
    // 4 bytes per token of it (twice the text for a file of tiny events); this keeps one event's DOM.
    // What stays is what the trace keeps. `release` is called once the text has been read, the parser's
    // buffers freed before it, so that the text can be too before the ops are linked and sorted.
    Trace run(const std::function<void()> &release)
    {
        const std::string_view text(m_text.data(), m_text.size());
        std::size_t pos = skipSpace(text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0);
        if (pos == text.size())
            syntax(simdjson::EMPTY);
        std::string eventsPath;
        std::size_t eventsAt = pos;
        if (text[pos] == '{') {
            eventsPath = "/traceEvents";
            eventsAt = readHeader(pos);
        } else if (text[pos] == '[') {
            if (skipSpace(valueEnd(pos, 0)) != text.size())
                syntax(simdjson::TRAILING_CONTENT);
        } else {
            m_r.wrongType("/", parseValue(pos, valueEnd(pos, 0)),
                          "an object with a traceEvents array, or an array of events");
        }
        m_trace.source = m_ours ? m_trace.source : TraceSource::ChromeJson;
        if (!m_ours)
            m_trace.timing = TimingSource::Profiler; // Kineto's GPU events are CUPTI executions
        m_trace.sourcePath = m_r.file();
        if (m_trace.title.empty())
            m_trace.title = std::filesystem::path(m_r.file()).filename().string();
        m_trace.metadata["importer"] = "chrome-json";

        readEvents(eventsAt, eventsPath);
        m_dom = dom::parser{};
        release();
        m_control.checkCancelled();
        m_control.report("importing", m_from + (m_to - m_from) * 0.9);
        if (!m_ours && m_gpuOps.empty() && m_calls.empty())
            m_r.fail(
                eventsPath.empty() ? "/" : eventsPath,
                "no GPU activity and no CUDA API calls: expected events of category kernel, gpu_memcpy, gpu_memset or "
                "cuda_runtime (a PyTorch profiler trace with CUDA activities, or a StreamScope export)");
        link();
        finish();
        rebuildStringIndex(m_trace);
        return std::move(m_trace);
    }

private:
    // The top-level object's members: the ones of interest are read (the streamscope block first, then
    // deviceProperties and distributedInfo), the others skipped. Returns where traceEvents' value starts
    // (the last one where a key repeats, as for every member).
    std::size_t readHeader(std::size_t pos)
    {
        const auto [events, block, props, info] = findMembers(pos);
        if (!events)
            m_r.fail("/traceEvents",
                     "missing: a Chrome trace is an object with a traceEvents array, or an array of events");
        if (m_text.data()[*events] != '[')
            m_r.wrongType("/traceEvents", parseValue(*events, valueEnd(*events, 1), "/traceEvents"),
                          "an array of events");
        if (block)
            readStreamscopeBlock(parseValue(block->first, block->second, "/streamscope"));
        if (props)
            readDeviceProperties(parseValue(props->first, props->second, "/deviceProperties"));
        if (info)
            readDistributedInfo(parseValue(info->first, info->second, "/distributedInfo"));
        return *events;
    }

    // Each event of the array that starts at `pos`, in order, read as it comes.
    void readEvents(std::size_t pos, const std::string &eventsPath)
    {
        const std::string_view text(m_text.data(), m_text.size());
        std::size_t nextReport = kProgressStep;
        m_eventIndex = 0;
        pos = skipSpace(pos + 1);
        if (pos < text.size() && text[pos] == ']')
            return;
        for (;;) {
            const std::size_t end = valueEnd(pos, eventsPath.empty() ? 1 : 2);
            if (end >= nextReport) {
                nextReport = end + kProgressStep;
                m_control.checkCancelled();
                m_control.report("importing", m_from
                                                  + (m_to - m_from) * 0.9 * static_cast<double>(end)
                                                        / static_cast<double>(std::max<std::size_t>(1, text.size())));
            }
            const std::string path = eventsPath + "/" + std::to_string(m_eventIndex);
            readEvent(parseValue(pos, end, path), path);
            checkCounts(path);
            ++m_eventIndex;
            pos = skipSpace(end);
            if (pos < text.size() && text[pos] == ',') {
                pos = skipSpace(pos + 1);
                if (pos < text.size() && text[pos] == ']')
                    syntax(simdjson::TAPE_ERROR); // a trailing comma
                continue;
            }
            if (pos < text.size() && text[pos] == ']')
                return;
            syntax(simdjson::TAPE_ERROR);
        }
    }

    // The limits of engine/model/limits.h on what has been read so far, checked after each event: a file
    // past one is refused as soon as it passes it, not once everything has been read. Each call either
    // issues GPU ops or stays an op of its own, so the trace will have at least max(GPU ops, calls) ops.
    void checkCounts(const std::string &path) const
    {
        const auto tooMany = [&](std::size_t count, const char *what, std::size_t limit) {
            if (count > limit)
                m_r.fail(path, std::to_string(count) + " " + what
                                   + " by this event, more than StreamScope reads (at most " + std::to_string(limit)
                                   + ")");
        };
        tooMany(std::max(m_gpuOps.size(), m_calls.size()), "ops", limits::kMaxOps);
        tooMany(m_ranges.size(), "host ranges", limits::kMaxHostRanges);
        tooMany(m_activities.size(), "activity records", limits::kMaxActivities);
        tooMany(m_streamKeys.size(), "streams", limits::kMaxStreams);
        tooMany(m_trace.hostThreads.size(), "host threads", limits::kMaxHostThreads);
    }

    // A name into the trace's string table, within the limits on text: each name at most kMaxTextBytes,
    // all names together at most kMaxTotalTextBytes (counted as they are added, so that a file of many
    // long distinct names stops at the limit).
    std::uint32_t intern(std::string_view name, const std::string &path)
    {
        if (name.size() > limits::kMaxTextBytes)
            m_r.fail(path, "a name of " + limits::describeBytes(name.size())
                               + ", longer than StreamScope reads (at most "
                               + limits::describeBytes(limits::kMaxTextBytes) + ")");
        const std::size_t before = m_trace.strings.size();
        const std::uint32_t id = m_trace.intern(name);
        if (m_trace.strings.size() != before) {
            m_textBytes += name.size();
            if (m_textBytes > limits::kMaxTotalTextBytes)
                m_r.fail(path, "more than " + limits::describeBytes(limits::kMaxTotalTextBytes)
                                   + " of names, more than StreamScope reads (at most "
                                   + limits::describeBytes(limits::kMaxTotalTextBytes) + ")");
        }
        return id;
    }

    // Reads record's fields that the Chrome block has (trace_header.h) from obj (at path): required ones
    // must be there; an absent optional one leaves its default.
    template <typename Record, typename Fields>
    void readChromeFields(const Value &obj, const std::string &path, Record &record, const Fields &fields) const
    {
        header::forEachField(fields, [&](const auto &field) {
            if (!field.chrome)
                return;
            auto &out = record.*field.member;
            using Out = std::remove_cvref_t<decltype(out)>;
            const bool required = field.need != header::Need::Optional;
            if constexpr (std::is_same_v<Out, std::string>) {
                if (required)
                    out = m_r.text(obj, field.chrome, path);
                else if (const auto text = m_r.optionalText(obj, field.chrome, path))
                    out = *text;
            } else if constexpr (std::is_same_v<Out, bool>) {
                out = m_r.optionalBool(obj, field.chrome, path);
            } else if constexpr (std::is_integral_v<Out>) {
                if (required) {
                    std::int64_t v = m_r.integer(obj, field.chrome, path);
                    if (field.need == header::Need::DeviceIndex)
                        v = m_r.deviceId(v, path + "/" + field.chrome);
                    out = static_cast<Out>(v);
                } else if (const auto v = m_r.optionalInteger(obj, field.chrome, path)) {
                    out = static_cast<Out>(*v);
                }
            } else {
                static_assert(std::is_floating_point_v<Out>); // none in the block (trace_header.h checks)
            }
        });
    }

    // StreamScope's own header in its Chrome export (chrome_export.cpp's writeStreamscopeBlock writes it).
    void readStreamscopeBlock(const Value &block)
    {
        const std::string p = "/streamscope";
        if (!isObject(block))
            m_r.wrongType(p, block, "an object");
        if (m_r.text(block, "format", p) != "streamscope-chrome")
            m_r.fail(p + "/format", "expected \"streamscope-chrome\"");
        m_ours = true;
        m_origin = m_r.integer(block, "originNs", p);
        m_trace.formatVersion =
            static_cast<int>(m_r.optionalInteger(block, "traceFormatVersion", p).value_or(kTraceFormatVersion));
        const std::string_view source = m_r.optionalText(block, "source", p).value_or("streamscope");
        const auto known = traceSourceFromString(source);
        if (!known)
            m_r.fail(p + "/source", "expected \"streamscope\", \"nsys-sqlite\" or \"chrome-json\"");
        m_trace.source = *known;
        if (const auto timing = m_r.optionalText(block, "timing", p)) {
            const auto t = timingSourceFromString(*timing);
            if (!t)
                m_r.fail(p + "/timing", "expected \"cupti\", \"events\" or \"profiler\"");
            m_trace.timing = *t;
        } else {
            m_trace.timing = m_trace.source == TraceSource::StreamScope ? TimingSource::Events : TimingSource::Profiler;
        }
        m_trace.timingNote = m_r.optionalText(block, "timingNote", p).value_or("");
        readChromeFields(block, p, m_trace, header::kTraceFields);
        // Each object of the required array `key`, with its JSON path.
        auto forEachObject = [&](const char *key, auto &&read) {
            const OptValue v = m_r.find(block, key);
            if (!v)
                m_r.fail(p + "/" + key, "missing (an array is required)");
            if (!isArray(*v))
                m_r.wrongType(p + "/" + key, *v, "an array");
            std::size_t i = 0;
            for (const Value item : arrayOf(*v)) {
                const std::string at = p + "/" + key + "/" + std::to_string(i++);
                if (!isObject(item))
                    m_r.wrongType(at, item, "an object");
                read(item, at);
            }
        };
        forEachObject("streams", [&](const Value &s, const std::string &sp) {
            StreamInfo info;
            readChromeFields(s, sp, info, header::kStreamFields);
            m_ourStreams.emplace(std::make_pair(std::int64_t(info.device), info.nativeId),
                                 static_cast<int>(m_trace.streams.size()));
            m_trace.streams.push_back(info);
        });
        forEachObject("hostThreads", [&](const Value &t, const std::string &tp) {
            HostThreadInfo info;
            readChromeFields(t, tp, info, header::kHostThreadFields);
            m_trace.hostThreads.push_back(info);
        });
        forEachObject("devices", [&](const Value &d, const std::string &dp) {
            DeviceInfo info;
            readChromeFields(d, dp, info, header::kDeviceIdentityFields);
            readChromeFields(d, dp, info, header::kDevicePropertyFields);
            m_trace.devices.push_back(info);
        });
        if (const OptValue meta = m_r.find(block, "metadata"); meta && isObject(*meta)) {
            const dom::object members = meta->get_object().value_unsafe();
            for (const auto [key, value] : members)
                if (isString(value))
                    m_trace.metadata[std::string(key)] = std::string(stringOf(value));
        }
    }

    // The PyTorch profiler's distributedInfo: which rank of a distributed job the trace is (the timeline
    // names the process by it).
    void readDistributedInfo(const Value &info)
    {
        if (m_ours || !isObject(info))
            return;
        // Informational only: a value of another type is left out rather than refused.
        for (const char *key : {"rank", "world_size"})
            if (const OptValue v = m_r.find(info, key); v && isInteger(*v))
                m_trace.metadata[key] = std::to_string(looseInteger(*v));
    }

    void readDeviceProperties(const Value &props)
    {
        if (m_ours)
            return;
        if (!isArray(props))
            m_r.wrongType("/deviceProperties", props, "an array");
        std::size_t i = 0;
        for (const Value d : arrayOf(props)) {
            const std::string p = "/deviceProperties/" + std::to_string(i++);
            if (!isObject(d))
                m_r.wrongType(p, d, "an object");
            DeviceInfo info;
            info.index = static_cast<int>(m_r.deviceId(m_r.integer(d, "id", p), p + "/id"));
            info.name = m_r.optionalText(d, "name", p).value_or("");
            info.ccMajor = static_cast<int>(m_r.optionalInteger(d, "computeMajor", p).value_or(0));
            info.ccMinor = static_cast<int>(m_r.optionalInteger(d, "computeMinor", p).value_or(0));
            info.smCount = static_cast<int>(m_r.optionalInteger(d, "numSms", p).value_or(0));
            info.totalMemBytes = static_cast<std::uint64_t>(m_r.optionalInteger(d, "totalGlobalMem", p).value_or(0));
            m_kinetoDevices.push_back(info);
        }
    }

    void readEvent(const Value &e, const std::string &path)
    {
        if (!isObject(e))
            m_r.wrongType(path, e, "an event object");
        const std::string_view ph = m_r.text(e, "ph", path);
        if (ph == "M") {
            readMetadataEvent(e, path);
            return;
        }
        if (ph == "s" || ph == "f") {
            readFlow(e, path, ph == "s");
            return;
        }
        if (ph != "X")
            return; // instants, counters, async events: nothing StreamScope models
        const auto cat = m_r.optionalText(e, "cat", path);
        if (m_ours && cat && *cat == "unified_memory") {
            readActivity(e, path);
            return;
        }
        if (m_ours && cat && *cat == "op_piece") {
            readPiece(e, path);
            return;
        }
        const Category category = cat ? categoryOf(*cat) : Category::Ignored;
        if (category == Category::Ignored)
            return;
        if (category == Category::HostRange) {
            readHostRange(e, path, *hostRangeCategoryFromString(lowered(std::string(*cat))));
            return;
        }
        const std::string_view name = m_r.text(e, "name", path);
        const auto [ts, end] = m_r.sliceSpan(e, path, m_origin);
        const OptValue args = m_r.find(e, "args");
        if (args && !isObject(*args))
            m_r.wrongType(path + "/args", *args, "an object");
        const Value &a = args ? *args : m_noArgs;
        const std::string ap = path + "/args";

        if (category == Category::Runtime || category == Category::HostWork) {
            PendingOp call;
            call.op.hostStartNs = ts;
            call.op.hostEndNs = end;
            call.op.correlation = static_cast<std::uint64_t>(
                std::max<std::int64_t>(0, m_r.optionalInteger(a, "correlation", ap).value_or(0)));
            call.link = m_ours ? bindId(e, path) : 0;
            call.order = m_eventIndex;
            if (m_ours) {
                const auto thread = m_r.optionalInteger(a, "ss_thread", ap).value_or(-1);
                if (thread < -1 || thread >= static_cast<std::int64_t>(m_trace.hostThreads.size()))
                    m_r.fail(ap + "/ss_thread",
                             "no host thread " + std::to_string(thread) + " in /streamscope/hostThreads");
                call.op.hostThread = static_cast<int>(thread);
            } else {
                call.op.hostThread = hostThread(m_r.find(e, "pid"), m_r.find(e, "tid"));
                if (call.op.correlation == 0)
                    m_hostFlowPending.push_back({m_calls.size(), LaneKey{laneOf(e), ts}});
            }
            const auto opName = m_r.optionalText(a, "op_name", ap);
            call.op.nameId = intern(opName ? *opName : name, opName ? ap + "/op_name" : path + "/name");
            call.op.kind = category == Category::HostWork ? OpKind::HostWork : opKindOfApiCall(name);
            if (m_r.find(a, "kind")) {
                call.hostOnlyArgs = true;
                readOpArgs(a, ap, call.op, call.repetition);
                call.launch = readLatencyArgs(a, ap, call.launch);
            } else {
                call.op.flags = OpFlagImported;
            }
            m_calls.push_back(call);
            return;
        }

        OpRecord op;
        op.gpuStartNs = ts;
        op.gpuEndNs = end;
        op.nameId = intern(name, path + "/name");
        op.flags = OpFlagImported;
        if (category == Category::Kernel)
            op.kind = OpKind::Kernel;
        else if (category == Category::Memcpy)
            parseMemcpyName(name, op);
        else if (category == Category::Memset) {
            op.kind = OpKind::Memset;
            const auto open = name.find('('), close = name.rfind(')');
            op.dstMem = open != std::string::npos && close != std::string::npos && open < close
                            ? memKindFromLabel(std::string_view(name).substr(open + 1, close - open - 1))
                            : MemKind::Unknown;
        }
        const auto bytes = m_r.optionalInteger(a, "bytes", ap);
        if (bytes && *bytes < 0)
            m_r.fail(ap + "/bytes", "negative byte count");
        op.bytes = static_cast<std::uint64_t>(bytes.value_or(0));
        op.correlation = static_cast<std::uint64_t>(
            std::max<std::int64_t>(0, m_r.optionalInteger(a, "correlation", ap).value_or(0)));
        std::int32_t launch = -1;
        if (category == Category::Kernel)
            launch = readLaunchArgs(a, ap);
        int repetition = 0;
        std::uint64_t link = 0;
        if (m_ours) {
            readOpArgs(a, ap, op, repetition);
            launch = readLatencyArgs(a, ap, launch);
            link = bindId(e, path);
        } else {
            const std::int64_t stream = m_r.integer(a, "stream", ap);
            std::int64_t device = 0;
            if (auto d = m_r.optionalInteger(a, "device", ap))
                device = m_r.deviceId(*d, ap + "/device");
            else if (const OptValue pid = m_r.find(e, "pid"); pid && isInteger(*pid))
                device = m_r.deviceId(m_r.integerValue(*pid, path + "/pid"), path + "/pid"); // GPU d on pid d
            op.stream = streamIndex(device, stream);
            if (op.correlation == 0)
                m_gpuFlowPending.push_back({m_gpuOps.size(), LaneKey{laneOf(e), ts}});
        }
        m_gpuOps.push_back({op, link, m_eventIndex, false, repetition, launch});
    }

    // A kernel's launch details from its args (launchFromArgs), kept in m_launches: the index there, -1
    // when the args have none.
    std::int32_t readLaunchArgs(const Value &a, const std::string &ap)
    {
        const auto l = launchFromArgs(
            m_r, a, ap, [this](std::string_view name, const std::string &path) { return intern(name, path); });
        if (!l)
            return -1;
        m_launches.push_back(*l);
        return static_cast<std::int32_t>(m_launches.size() - 1);
    }

    // A kernel's latency timestamps (queued_ns, submitted_ns: StreamScope's export) on its launch in
    // m_launches, one added where the args held no launch details: the launch's index (`launch` without them).
    std::int32_t readLatencyArgs(const Value &a, const std::string &ap, std::int32_t launch)
    {
        const auto queued = m_r.optionalInteger(a, "queued_ns", ap);
        const auto submitted = m_r.optionalInteger(a, "submitted_ns", ap);
        if (!queued && !submitted)
            return launch;
        if (launch < 0) {
            m_launches.emplace_back();
            launch = static_cast<std::int32_t>(m_launches.size() - 1);
        }
        KernelLaunch &l = m_launches[static_cast<std::size_t>(launch)];
        l.queuedNs = queued.value_or(kNoTime);
        l.submittedNs = submitted.value_or(kNoTime);
        return launch;
    }

    // A host range: Kineto's cpu_op, user_annotation and python_function slices (on their pid/tid), and
    // the NVTX and CPU ranges of StreamScope's own export (on the thread its ss_thread arg names).
    void readHostRange(const Value &e, const std::string &path, HostRangeCategory category)
    {
        const OptValue args = m_r.find(e, "args");
        if (args && !isObject(*args))
            m_r.wrongType(path + "/args", *args, "an object");
        const Value &a = args ? *args : m_noArgs;
        const std::string ap = path + "/args";
        HostRange h;
        h.category = category;
        h.nameId = intern(m_r.text(e, "name", path), path + "/name");
        std::tie(h.startNs, h.endNs) = m_r.sliceSpan(e, path, m_origin);
        int repetition = 0;
        if (m_ours) {
            const auto thread = m_r.optionalInteger(a, "ss_thread", ap).value_or(-1);
            if (thread < -1 || thread >= static_cast<std::int64_t>(m_trace.hostThreads.size()))
                m_r.fail(ap + "/ss_thread",
                         "no host thread " + std::to_string(thread) + " in /streamscope/hostThreads");
            h.hostThread = static_cast<std::int32_t>(thread);
            const auto rep = m_r.optionalInteger(a, "repetition", ap).value_or(0);
            if (rep < 0 || rep > std::numeric_limits<int>::max())
                m_r.fail(ap + "/repetition", "repetition " + std::to_string(rep) + " is not valid");
            repetition = static_cast<int>(rep);
            if (const auto domain = m_r.optionalText(a, "domain", ap))
                h.domainId = intern(*domain, ap + "/domain");
        } else {
            h.hostThread = hostThread(m_r.find(e, "pid"), m_r.find(e, "tid"));
        }
        m_ranges.emplace_back(repetition, h);
    }

    // A unified-memory slice of StreamScope's export: a driver record of a repetition.
    void readActivity(const Value &e, const std::string &path)
    {
        const std::string ap = path + "/args";
        const Value args = m_r.requiredArgs(
            e, ap, "a unified_memory slice needs its args (kind, detail, value, address, op, repetition)");
        ActivityRecord a;
        a.kind = m_r.named(args, "kind", ap, activityKindFromString, "activity kind");
        a.detail = m_r.named(args, "detail", ap, activityDetailFromString, "activity detail");
        const std::int64_t value = m_r.integer(args, "value", ap);
        const std::int64_t address = m_r.integer(args, "address", ap);
        if (value < 0 || address < 0)
            m_r.fail(ap, "value and address must not be negative");
        a.value = static_cast<std::uint64_t>(value);
        a.address = static_cast<std::uint64_t>(address);
        const std::int64_t op = m_r.integer(args, "op", ap);
        if (op < -1 || op > std::numeric_limits<std::int32_t>::max())
            m_r.fail(ap + "/op", "op index " + std::to_string(op) + " is not valid");
        a.op = static_cast<std::int32_t>(op);
        const int repetition = m_r.repetition(args, ap);
        std::tie(a.startNs, a.endNs) = m_r.sliceSpan(e, path, m_origin);
        m_activities.emplace_back(repetition, a);
    }

    // A piece of an op (StreamScope's export writes them nested in the op's GPU slice).
    void readPiece(const Value &e, const std::string &path)
    {
        m_pieces.emplace_back(pieceFromSlice(
            m_r, e, path, m_origin, [this](std::string_view n, const std::string &at) { return intern(n, at); }));
        if (m_pieces.size() > limits::kMaxOps)
            m_r.fail(path, "more than " + std::to_string(limits::kMaxOps) + " op pieces, more than StreamScope reads");
    }

    // StreamScope's own args (readOpArgs above).
    void readOpArgs(const Value &a, const std::string &ap, OpRecord &op, int &repetition) const
    {
        streamscope::engine::readOpArgs(m_r, m_ourStreams, m_trace.streams.size(), a, ap, op, repetition);
    }

    void readMetadataEvent(const Value &e, const std::string &path)
    {
        if (m_ours)
            return;
        const auto name = m_r.optionalText(e, "name", path);
        if (!name || *name != "thread_name")
            return;
        const OptValue args = m_r.find(e, "args");
        if (!args || !isObject(*args))
            return;
        if (const auto n = m_r.optionalText(*args, "name", path + "/args"))
            m_threadNames[idKey(m_r.find(e, "pid")) + "/" + idKey(m_r.find(e, "tid"))] = *n;
    }

    void readFlow(const Value &e, const std::string &path, bool start)
    {
        if (m_ours)
            return; // bind_id pairs host and GPU slices already
        const auto cat = m_r.optionalText(e, "cat", path);
        if (!cat || (*cat != "ac2g" && *cat != "async_cpu_to_gpu"))
            return;
        const OptValue id = m_r.find(e, "id");
        if (!id)
            m_r.fail(path + "/id", "missing (a flow needs an id)");
        const std::int64_t flowId = isString(*id)
                                        ? static_cast<std::int64_t>(std::hash<std::string_view>()(stringOf(*id)) >> 1)
                                        : m_r.integerValue(*id, path + "/id");
        LaneKey key{laneOf(e), m_r.micros(e, "ts", path)};
        (start ? m_flowStarts : m_flowEnds).emplace(key, static_cast<std::uint64_t>(flowId));
    }

    std::uint64_t bindId(const Value &e, const std::string &path) const
    {
        const auto id = m_r.optionalInteger(e, "bind_id", path);
        if (id && *id <= 0)
            m_r.fail(path + "/bind_id", "expected a positive integer");
        return id ? static_cast<std::uint64_t>(*id) : 0;
    }

    // The number of an event's (pid, tid) lane, for flows.
    std::uint32_t laneOf(const Value &e)
    {
        const auto [it, inserted] = m_laneIds.emplace(idKey(m_r.find(e, "pid")) + "/" + idKey(m_r.find(e, "tid")),
                                                      static_cast<std::uint32_t>(m_laneIds.size()));
        return it->second;
    }

    int hostThread(const OptValue &pid, const OptValue &tid)
    {
        const std::string key = idKey(pid) + "/" + idKey(tid);
        auto it = m_threadIndex.find(key);
        if (it != m_threadIndex.end())
            return it->second;
        const int index = static_cast<int>(m_trace.hostThreads.size());
        HostThreadInfo t;
        // Kineto writes some thread ids as a signed 32-bit number (a pthread id cut to 32 bits: "tid":
        // -1220540864); they read as the OS prints them, unsigned (3074426432).
        std::string tidText = tid && isString(*tid) ? std::string(stringOf(*tid)) : tid ? compactJson(*tid) : "?";
        if (tid && isInteger(*tid)) {
            std::int64_t id = looseInteger(*tid);
            if (id < 0 && id >= std::numeric_limits<std::int32_t>::min())
                id += std::int64_t(1) << 32;
            t.nativeId = static_cast<std::uint64_t>(id);
            tidText = std::to_string(t.nativeId);
        }
        if (pid && isInteger(*pid) && looseInteger(*pid) >= 0)
            t.processId = looseInteger(*pid);
        t.name = "pid "
                 + (pid && isString(*pid) ? std::string(stringOf(*pid))
                    : pid                 ? compactJson(*pid)
                                          : "?")
                 + " tid " + tidText;
        m_trace.hostThreads.push_back(t);
        m_threadIndex.emplace(key, index);
        m_threadKeys.push_back(key);
        return index;
    }

    int streamIndex(std::int64_t device, std::int64_t stream)
    {
        auto [it, inserted] =
            m_streamIndex.emplace(std::make_pair(device, stream), static_cast<int>(m_streamKeys.size()));
        if (inserted)
            m_streamKeys.emplace_back(device, stream);
        return it->second;
    }

    void link()
    {
        // Events without a correlation arg: take the id of the flow that starts or ends on them.
        for (const auto &[index, key] : m_hostFlowPending)
            if (auto it = m_flowStarts.find(key); it != m_flowStarts.end())
                m_calls[index].op.correlation = it->second;
        for (const auto &[index, key] : m_gpuFlowPending)
            if (auto it = m_flowEnds.find(key); it != m_flowEnds.end())
                m_gpuOps[index].op.correlation = it->second;

        // One call may issue several GPU ops (a graph launch, a batched copy): each takes its host interval.
        std::unordered_map<std::uint64_t, std::size_t> callByKey;
        for (std::size_t i = 0; i < m_calls.size(); ++i) {
            const std::uint64_t key = m_ours ? m_calls[i].link : m_calls[i].op.correlation;
            if (key != 0 && !m_calls[i].hostOnlyArgs)
                callByKey.emplace(key, i); // a second call with the same id: the first one issued the op
        }
        std::vector<bool> used(m_calls.size(), false);
        for (auto &g : m_gpuOps) {
            const std::uint64_t key = m_ours ? g.link : g.op.correlation;
            auto it = key != 0 ? callByKey.find(key) : callByKey.end();
            if (it == callByKey.end())
                continue;
            used[it->second] = true;
            const OpRecord &call = m_calls[it->second].op;
            g.op.hostStartNs = call.hostStartNs;
            g.op.hostEndNs = call.hostEndNs;
            g.op.hostThread = call.hostThread;
            if (!m_ours && isCopy(g.op.kind))
                g.op.api =
                    m_trace.strings[call.nameId].find("Async") != std::string::npos ? CopyApi::Async : CopyApi::Sync;
        }
        for (std::size_t i = 0; i < m_calls.size(); ++i)
            if (!used[i])
                m_hostOnly.push_back(m_calls[i]);
        m_calls = {}; // what is left of them is in m_hostOnly
        m_hostFlowPending = {};
        m_gpuFlowPending = {};
        m_flowStarts = {};
        m_flowEnds = {};
    }

    void finish()
    {
        if (!m_ours) {
            // Lanes in (device, stream) order; GPU names from deviceProperties.
            const std::vector<int> remap = addStreamsInOrder(m_trace, m_streamKeys);
            for (auto &g : m_gpuOps)
                g.op.stream = remap[static_cast<std::size_t>(g.op.stream)];
            std::set<std::int64_t> devices;
            for (const auto &k : m_streamKeys)
                devices.insert(k.first);
            for (std::int64_t device : devices) {
                DeviceInfo info;
                info.index = static_cast<int>(device);
                for (const auto &k : m_kinetoDevices)
                    if (k.index == device)
                        info = k;
                m_trace.devices.push_back(info);
            }
            for (std::size_t t = 0; t < m_threadKeys.size(); ++t)
                if (auto it = m_threadNames.find(m_threadKeys[t]); it != m_threadNames.end() && !it->second.empty())
                    m_trace.hostThreads[t].name = it->second;
        }

        // Ops in file order for StreamScope's export (its issue order), by start time otherwise.
        // Sorted as indices (GPU slices, then host-only calls), not as copies of the pending ops: each op is
        // copied once, into its repetition, reserved to its size.
        const std::size_t gpuCount = m_gpuOps.size();
        const auto pending = [&](std::uint32_t i) -> const PendingOp & {
            return i < gpuCount ? m_gpuOps[i] : m_hostOnly[i - gpuCount];
        };
        std::vector<std::uint32_t> order(gpuCount + m_hostOnly.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = static_cast<std::uint32_t>(i);
        if (m_ours) {
            // GPU slices and host-only slices were written in trace order: keep the file's order.
            std::stable_sort(order.begin(), order.end(),
                             [&](std::uint32_t a, std::uint32_t b) { return pending(a).order < pending(b).order; });
        } else {
            std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
                return importOrderKey(pending(a).op) < importOrderKey(pending(b).op);
            });
        }
        std::map<int, std::size_t> repIndex;
        auto repetitionOf = [&](int index) -> Repetition & {
            auto [it, inserted] = repIndex.emplace(index, m_trace.repetitions.size());
            if (inserted) {
                Repetition rep;
                rep.index = index;
                m_trace.repetitions.push_back(std::move(rep));
            }
            return m_trace.repetitions[it->second];
        };
        {
            std::map<int, std::size_t> counts;
            for (const std::uint32_t i : order)
                if (counts[pending(i).repetition]++ == 0)
                    repetitionOf(pending(i).repetition);
            for (const auto &[repetition, count] : counts)
                repetitionOf(repetition).ops.reserve(count);
        }
        for (const std::uint32_t i : order) {
            const PendingOp &c = pending(i);
            Repetition &rep = repetitionOf(c.repetition);
            if (c.launch >= 0) {
                KernelLaunch l = m_launches[static_cast<std::size_t>(c.launch)];
                l.op = static_cast<std::int32_t>(rep.ops.size());
                rep.kernelLaunches.push_back(l);
            }
            rep.ops.push_back(c.op);
        }
        order = {};
        m_gpuOps = {};
        m_hostOnly = {};
        for (auto &[repetition, range] : m_ranges)
            repetitionOf(repetition).hostRanges.push_back(range);
        m_ranges.clear();
        for (auto &[repetition, a] : m_activities) {
            const auto it = repIndex.find(repetition);
            if (it == repIndex.end())
                continue; // a repetition without ops: nothing to tie the record to
            Repetition &rep = m_trace.repetitions[it->second];
            if (a.op >= static_cast<std::int64_t>(rep.ops.size()))
                throw Error(ErrorKind::InvalidInput,
                            m_r.file() + ": a unified_memory slice of repetition " + std::to_string(repetition)
                                + " names op " + std::to_string(a.op) + ", which that repetition does not have");
            rep.activities.push_back(a);
        }
        attachPieces(m_trace, repIndex, m_pieces, m_r.file());
        m_pieces = {};
        for (Repetition &rep : m_trace.repetitions) {
            std::stable_sort(rep.activities.begin(), rep.activities.end(),
                             [](const ActivityRecord &x, const ActivityRecord &y) { return x.startNs < y.startNs; });
            layoutHostRanges(rep); // rows, and each op's launching range (its cpu_op or NVTX range)
            // A staged copy's call that waited for its stream: that wait moves no bytes.
            deriveStagedCopyReadiness(rep, m_trace.hostThreads);
        }
        std::sort(m_trace.repetitions.begin(), m_trace.repetitions.end(),
                  [](const Repetition &a, const Repetition &b) { return a.index < b.index; });
        if (!m_ours) // (StreamScope's own export keeps the kinds it recorded)
            classifyCollectivesByRange(m_trace);
    }

    const LoadControl &m_control;
    double m_from, m_to;
    dom::parser m_emptyParser;
    Value m_noArgs = m_emptyParser.parse(std::string_view("{}")).value_unsafe(); // an event without args
    Trace m_trace;
    bool m_ours = false;
    std::uint64_t m_textBytes = 0; // of the names interned so far
    std::size_t m_eventIndex = 0;
    std::int64_t m_origin = 0;
    std::vector<DeviceInfo> m_kinetoDevices;
    // Deques: growing one copies nothing (a vector's doubling held the old and the new array at once).
    std::deque<PendingOp> m_gpuOps;
    std::deque<PendingOp> m_calls;
    std::deque<PendingOp> m_hostOnly;
    std::vector<std::pair<int, ActivityRecord>> m_activities; // (repetition, record), StreamScope's own files
    std::vector<std::pair<int, OpPiece>> m_pieces; // (repetition, piece), StreamScope's own files
    std::vector<std::pair<int, HostRange>> m_ranges; // (repetition, range)
    std::vector<KernelLaunch> m_launches; // PendingOp::launch indexes here
    std::map<std::pair<std::int64_t, std::int64_t>, int> m_streamIndex;
    std::map<std::pair<std::int64_t, std::int64_t>, int> m_ourStreams; // (device, nativeId) -> index, first wins
    std::vector<ImportedStream> m_streamKeys;
    std::unordered_map<std::string, int> m_threadIndex;
    std::vector<std::string> m_threadKeys;
    std::unordered_map<std::string, std::string> m_threadNames;
    std::unordered_map<std::string, std::uint32_t> m_laneIds; // "pid/tid" -> lane number, for flows
    std::unordered_map<LaneKey, std::uint64_t, LaneKeyHash> m_flowStarts, m_flowEnds;
    std::vector<std::pair<std::size_t, LaneKey>> m_hostFlowPending, m_gpuFlowPending;
};

} // namespace

Trace chromeTraceFromText(std::string &text, const std::string &fileName, const LoadControl &control, double from,
                          double to)
{
    const std::size_t size = text.size();
    const auto import = [&] {
        // simdjson reads up to SIMDJSON_PADDING bytes past the text: the string's own capacity gives them
        // (gunzip and readFile leave room; another string grows once, which may double its capacity).
        static_assert(kReadFilePadding >= simdjson::SIMDJSON_PADDING);
        if (text.capacity() < size + simdjson::SIMDJSON_PADDING)
            text.reserve(size + simdjson::SIMDJSON_PADDING);
        return ChromeImporter(simdjson::padded_string_view(text.data(), size, text.capacity()), fileName, control, from,
                              to)
            .run([&] { std::string().swap(text); });
    };
    return memoryChecked(fileName + ": not enough memory to read it (" + limits::describeBytes(size) + " of JSON)",
                         import);
}

Trace chromeTraceFromJson(std::string_view text, const std::string &fileName, const LoadControl &control, double from,
                          double to)
{
    std::string copy;
    copy.reserve(text.size() + simdjson::SIMDJSON_PADDING);
    copy.assign(text);
    return chromeTraceFromText(copy, fileName, control, from, to);
}

Trace importChromeTrace(const std::string &path)
{
    std::string content = readFile(path);
    if (isGzip(content))
        content = gunzip(content, path);
    return chromeTraceFromText(content, path);
}

} // namespace streamscope::engine
