// Chrome trace JSON import (see chrome_import.h): one pass over traceEvents collecting GPU slices,
// host API slices and flows, then host calls are linked to their GPU ops by correlation id (Kineto),
// by flow arrows where an event has no correlation arg, or by bind_id (StreamScope's own export).
#include "engine/formats/chrome_import.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "engine/formats/import_common.h"
#include "engine/model/api_names.h"
#include "engine/model/errors.h"
#include "engine/model/host_ranges.h"
#include "engine/model/limits.h"
#include "engine/util/file_util.h"
#include "engine/util/gzip.h"
#include "engine/util/json_limits.h"

namespace streamscope::engine {

namespace {

using nlohmann::json;

std::string typeName(const json &v)
{
    if (v.is_null())
        return "null";
    if (v.is_boolean())
        return "a boolean";
    if (v.is_number())
        return "a number";
    if (v.is_string())
        return "a string";
    if (v.is_array())
        return "an array";
    return "an object";
}

// Typed access to JSON values with errors that name the file and the JSON path.
class Reader {
public:
    explicit Reader(const std::string &file) : m_file(file) { }

    [[noreturn]] void fail(const std::string &path, const std::string &what) const
    {
        throw Error(ErrorKind::InvalidInput, m_file + ": " + path + ": " + what);
    }
    [[noreturn]] void wrongType(const std::string &path, const json &v, const char *expected) const
    {
        fail(path, std::string("expected ") + expected + ", found " + typeName(v));
    }

    const json *find(const json &obj, const char *key) const
    {
        auto it = obj.find(key);
        return it == obj.end() ? nullptr : &*it;
    }
    std::int64_t integer(const json &obj, const char *key, const std::string &path) const
    {
        const json *v = find(obj, key);
        if (!v)
            fail(path + "/" + key, "missing (an integer is required)");
        return integerValue(*v, path + "/" + key);
    }
    std::int64_t integerValue(const json &v, const std::string &path) const
    {
        if (v.is_number_unsigned()) {
            if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
                fail(path, "integer out of range");
            return static_cast<std::int64_t>(v.get<std::uint64_t>());
        }
        if (v.is_number_integer())
            return v.get<std::int64_t>();
        wrongType(path, v, "an integer");
    }
    std::optional<std::int64_t> optionalInteger(const json &obj, const char *key, const std::string &path) const
    {
        const json *v = find(obj, key);
        if (!v || v->is_null())
            return std::nullopt;
        return integerValue(*v, path + "/" + key);
    }
    std::string text(const json &obj, const char *key, const std::string &path) const
    {
        const json *v = find(obj, key);
        if (!v)
            fail(path + "/" + key, "missing (a string is required)");
        if (!v->is_string())
            wrongType(path + "/" + key, *v, "a string");
        return v->get<std::string>();
    }
    std::optional<std::string> optionalText(const json &obj, const char *key, const std::string &path) const
    {
        const json *v = find(obj, key);
        if (!v || v->is_null())
            return std::nullopt;
        if (!v->is_string())
            wrongType(path + "/" + key, *v, "a string");
        return v->get<std::string>();
    }
    bool optionalBool(const json &obj, const char *key, const std::string &path) const
    {
        const json *v = find(obj, key);
        if (!v || v->is_null())
            return false;
        if (!v->is_boolean())
            wrongType(path + "/" + key, *v, "true or false");
        return v->get<bool>();
    }
    // Microseconds (integer or fractional) to integer nanoseconds, exact for the integer part so
    // that epoch-based Kineto timestamps (~1.7e15 us) lose nothing.
    std::int64_t micros(const json &obj, const char *key, const std::string &path) const
    {
        const json *v = find(obj, key);
        if (!v)
            fail(path + "/" + key, "missing (a time in microseconds is required)");
        if (v->is_number_integer())
            return checkedTimes1000(integerValue(*v, path + "/" + key), path + "/" + key);
        if (!v->is_number_float())
            wrongType(path + "/" + key, *v, "a number (microseconds)");
        const double us = v->get<double>();
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
        return t;
    }
    // The end of a slice, ts + dur, within them too.
    void checkEnd(std::int64_t ts, std::int64_t dur, const std::string &path) const
    {
        std::int64_t end = 0;
        if (__builtin_add_overflow(ts, dur, &end) || !limits::isTimeInRange(end))
            fail(path, "ts + dur is out of range: " + timeOutOfRange());
    }
    const std::string &file() const { return m_file; }

private:
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

Category categoryOf(const std::string &cat)
{
    // Kineto's current names, its older capitalised ones, and StreamScope's own gpu_op / host_work.
    const std::string c = lowered(cat);
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
std::string idKey(const json *v)
{
    if (!v)
        return "";
    if (v->is_string())
        return "s:" + v->get<std::string>();
    return v->dump();
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

struct LaneKey {
    std::string pid, tid;
    std::int64_t ts;
    bool operator==(const LaneKey &o) const { return ts == o.ts && pid == o.pid && tid == o.tid; }
};
struct LaneKeyHash {
    std::size_t operator()(const LaneKey &k) const
    {
        return std::hash<std::string>()(k.pid) ^ (std::hash<std::string>()(k.tid) * 31)
               ^ std::hash<std::int64_t>()(k.ts);
    }
};

class ChromeImporter {
public:
    ChromeImporter(const json &root, const std::string &file) : m_root(root), m_r(file) { }

    Trace run()
    {
        const json *events = &m_root;
        std::string eventsPath = "";
        if (m_root.is_object()) {
            events = m_r.find(m_root, "traceEvents");
            if (!events)
                m_r.fail("/traceEvents",
                         "missing: a Chrome trace is an object with a traceEvents array, or an array of events");
            eventsPath = "/traceEvents";
            if (!events->is_array())
                m_r.wrongType(eventsPath, *events, "an array of events");
            readStreamscopeBlock();
            readDeviceProperties();
            readDistributedInfo();
        } else if (!m_root.is_array()) {
            m_r.wrongType("/", m_root, "an object with a traceEvents array, or an array of events");
        }
        m_trace.source = m_ours ? m_trace.source : "chrome-json";
        if (!m_ours)
            m_trace.timing = TimingSource::Profiler; // Kineto's GPU events are CUPTI executions
        m_trace.sourcePath = m_r.file();
        if (m_trace.title.empty())
            m_trace.title = std::filesystem::path(m_r.file()).filename().string();
        m_trace.metadata["importer"] = "chrome-json";

        for (m_eventIndex = 0; m_eventIndex < events->size(); ++m_eventIndex)
            readEvent((*events)[m_eventIndex], eventsPath + "/" + std::to_string(m_eventIndex));
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
    void readStreamscopeBlock()
    {
        const json *block = m_r.find(m_root, "streamscope");
        if (!block)
            return;
        const std::string p = "/streamscope";
        if (!block->is_object())
            m_r.wrongType(p, *block, "an object");
        if (m_r.text(*block, "format", p) != "streamscope-chrome")
            m_r.fail(p + "/format", "expected \"streamscope-chrome\"");
        m_ours = true;
        m_origin = m_r.integer(*block, "originNs", p);
        m_trace.formatVersion =
            static_cast<int>(m_r.optionalInteger(*block, "traceFormatVersion", p).value_or(kTraceFormatVersion));
        m_trace.source = m_r.optionalText(*block, "source", p).value_or("streamscope");
        if (const auto timing = m_r.optionalText(*block, "timing", p)) {
            const auto t = timingSourceFromString(*timing);
            if (!t)
                m_r.fail(p + "/timing", "expected \"cupti\", \"events\" or \"profiler\"");
            m_trace.timing = *t;
        } else {
            m_trace.timing = m_trace.source == "streamscope" ? TimingSource::Events : TimingSource::Profiler;
        }
        m_trace.timingNote = m_r.optionalText(*block, "timingNote", p).value_or("");
        m_trace.title = m_r.optionalText(*block, "title", p).value_or("");
        m_trace.toolVersion = m_r.optionalText(*block, "toolVersion", p).value_or("");
        m_trace.hostName = m_r.optionalText(*block, "hostName", p).value_or("");
        m_trace.createdUtc = m_r.optionalText(*block, "createdUtc", p).value_or("");
        // Each object of the required array `key`, with its JSON path.
        auto forEachObject = [&](const char *key, auto &&read) {
            const json *v = m_r.find(*block, key);
            if (!v)
                m_r.fail(p + "/" + key, "missing (an array is required)");
            if (!v->is_array())
                m_r.wrongType(p + "/" + key, *v, "an array");
            for (std::size_t i = 0; i < v->size(); ++i) {
                const std::string at = p + "/" + key + "/" + std::to_string(i);
                if (!(*v)[i].is_object())
                    m_r.wrongType(at, (*v)[i], "an object");
                read((*v)[i], at);
            }
        };
        forEachObject("streams", [&](const json &s, const std::string &sp) {
            StreamInfo info;
            info.name = m_r.text(s, "name", sp);
            info.device = static_cast<int>(m_r.integer(s, "device", sp));
            info.nativeId = m_r.integer(s, "nativeId", sp);
            info.priority = static_cast<int>(m_r.optionalInteger(s, "priority", sp).value_or(0));
            info.nonBlocking = m_r.optionalBool(s, "nonBlocking", sp);
            info.isDefault = m_r.optionalBool(s, "isDefault", sp);
            m_ourStreams.emplace(std::make_pair(std::int64_t(info.device), info.nativeId),
                                 static_cast<int>(m_trace.streams.size()));
            m_trace.streams.push_back(info);
        });
        forEachObject("hostThreads", [&](const json &t, const std::string &tp) {
            HostThreadInfo info;
            info.name = m_r.text(t, "name", tp);
            info.nativeId = static_cast<std::uint64_t>(m_r.optionalInteger(t, "nativeId", tp).value_or(0));
            info.processId = m_r.optionalInteger(t, "processId", tp).value_or(-1);
            m_trace.hostThreads.push_back(info);
        });
        forEachObject("devices", [&](const json &d, const std::string &dp) {
            DeviceInfo info;
            info.index = static_cast<int>(m_r.integer(d, "index", dp));
            info.name = m_r.optionalText(d, "name", dp).value_or("");
            info.ccMajor = static_cast<int>(m_r.optionalInteger(d, "ccMajor", dp).value_or(0));
            info.ccMinor = static_cast<int>(m_r.optionalInteger(d, "ccMinor", dp).value_or(0));
            info.smCount = static_cast<int>(m_r.optionalInteger(d, "smCount", dp).value_or(0));
            info.asyncEngineCount = static_cast<int>(m_r.optionalInteger(d, "asyncEngineCount", dp).value_or(0));
            info.totalMemBytes = static_cast<std::uint64_t>(m_r.optionalInteger(d, "totalMemBytes", dp).value_or(0));
            info.pciBusId = m_r.optionalText(d, "pciBusId", dp).value_or("");
            m_trace.devices.push_back(info);
        });
        if (const json *meta = m_r.find(*block, "metadata"); meta && meta->is_object())
            for (auto it = meta->begin(); it != meta->end(); ++it)
                if (it.value().is_string())
                    m_trace.metadata[it.key()] = it.value().get<std::string>();
    }

    // The PyTorch profiler's distributedInfo: which rank of a distributed job the trace is (the timeline
    // names the process by it).
    void readDistributedInfo()
    {
        if (m_ours)
            return;
        const json *info = m_r.find(m_root, "distributedInfo");
        if (!info || !info->is_object())
            return;
        // Informational only: a value of another type is left out rather than refused.
        for (const char *key : {"rank", "world_size"})
            if (const json *v = m_r.find(*info, key); v && v->is_number_integer())
                m_trace.metadata[key] = std::to_string(v->get<std::int64_t>());
    }

    void readDeviceProperties()
    {
        if (m_ours)
            return;
        const json *props = m_r.find(m_root, "deviceProperties");
        if (!props)
            return;
        if (!props->is_array())
            m_r.wrongType("/deviceProperties", *props, "an array");
        for (std::size_t i = 0; i < props->size(); ++i) {
            const std::string p = "/deviceProperties/" + std::to_string(i);
            const json &d = (*props)[i];
            if (!d.is_object())
                m_r.wrongType(p, d, "an object");
            DeviceInfo info;
            info.index = static_cast<int>(m_r.integer(d, "id", p));
            info.name = m_r.optionalText(d, "name", p).value_or("");
            info.ccMajor = static_cast<int>(m_r.optionalInteger(d, "computeMajor", p).value_or(0));
            info.ccMinor = static_cast<int>(m_r.optionalInteger(d, "computeMinor", p).value_or(0));
            info.smCount = static_cast<int>(m_r.optionalInteger(d, "numSms", p).value_or(0));
            info.totalMemBytes = static_cast<std::uint64_t>(m_r.optionalInteger(d, "totalGlobalMem", p).value_or(0));
            m_kinetoDevices.push_back(info);
        }
    }

    void readEvent(const json &e, const std::string &path)
    {
        if (!e.is_object())
            m_r.wrongType(path, e, "an event object");
        const std::string ph = m_r.text(e, "ph", path);
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
        const Category category = cat ? categoryOf(*cat) : Category::Ignored;
        if (category == Category::Ignored)
            return;
        if (category == Category::HostRange) {
            readHostRange(e, path, *hostRangeCategoryFromString(lowered(*cat)));
            return;
        }
        const std::string name = m_r.text(e, "name", path);
        const std::int64_t ts = m_r.offsetTime(m_r.micros(e, "ts", path), m_origin, path + "/ts");
        const std::int64_t dur = m_r.micros(e, "dur", path);
        if (dur < 0)
            m_r.fail(path + "/dur", "negative duration");
        m_r.checkEnd(ts, dur, path + "/dur");
        const json *args = m_r.find(e, "args");
        if (args && !args->is_object())
            m_r.wrongType(path + "/args", *args, "an object");
        static const json kNoArgs = json::object();
        const json &a = args ? *args : kNoArgs;
        const std::string ap = path + "/args";

        if (category == Category::Runtime || category == Category::HostWork) {
            PendingOp call;
            call.op.hostStartNs = ts;
            call.op.hostEndNs = ts + dur;
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
                    m_hostFlowPending.push_back(
                        {m_calls.size(), LaneKey{idKey(m_r.find(e, "pid")), idKey(m_r.find(e, "tid")), ts}});
            }
            const auto opName = m_r.optionalText(a, "op_name", ap);
            call.op.nameId = m_trace.intern(opName ? *opName : name);
            call.op.kind = category == Category::HostWork ? OpKind::HostWork : opKindOfApiCall(name);
            if (m_r.find(a, "kind")) {
                call.hostOnlyArgs = true;
                readOpArgs(a, ap, call.op, call.repetition);
            } else {
                call.op.flags = OpFlagImported;
            }
            m_calls.push_back(call);
            return;
        }

        OpRecord op;
        op.gpuStartNs = ts;
        op.gpuEndNs = ts + dur;
        op.nameId = m_trace.intern(name);
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
            link = bindId(e, path);
        } else {
            const std::int64_t stream = m_r.integer(a, "stream", ap);
            std::int64_t device = 0;
            if (auto d = m_r.optionalInteger(a, "device", ap))
                device = *d;
            else if (const json *pid = m_r.find(e, "pid"); pid && pid->is_number_integer())
                device = pid->get<std::int64_t>(); // Kineto puts GPU d on pid d
            op.stream = streamIndex(device, stream);
            if (op.correlation == 0)
                m_gpuFlowPending.push_back(
                    {m_gpuOps.size(), LaneKey{idKey(m_r.find(e, "pid")), idKey(m_r.find(e, "tid")), ts}});
        }
        m_gpuOps.push_back({op, link, m_eventIndex, false, repetition, launch});
    }

    // A kernel's launch details from its args, as Kineto writes them ("grid": [x, y, z], "block",
    // "shared memory", "registers per thread") and StreamScope's export adds ("static shared memory",
    // "dynamic shared memory", "demangled"). Returns the index into m_launches, -1 when the args have none.
    std::int32_t readLaunchArgs(const json &a, const std::string &ap)
    {
        KernelLaunch l;
        bool any = false;
        auto dims = [&](const char *key, std::uint32_t(&out)[3]) {
            const json *v = m_r.find(a, key);
            if (!v || v->is_null())
                return;
            const std::string p = ap + "/" + key;
            if (!v->is_array() || v->empty() || v->size() > 3)
                m_r.wrongType(p, *v, "an array of one to three integers");
            for (std::size_t i = 0; i < v->size(); ++i) {
                const std::int64_t x = m_r.integerValue((*v)[i], p + "/" + std::to_string(i));
                if (x < 0 || x > std::numeric_limits<std::uint32_t>::max())
                    m_r.fail(p + "/" + std::to_string(i),
                             "a launch dimension of " + std::to_string(x) + " is not possible");
                out[i] = static_cast<std::uint32_t>(x);
            }
            for (std::size_t i = v->size(); i < 3; ++i)
                out[i] = 1; // "grid": [64] is 64 x 1 x 1
            any = true;
        };
        dims("grid", l.grid);
        dims("block", l.block);
        auto size = [&](const char *key, std::int64_t max) -> std::int64_t {
            const auto v = m_r.optionalInteger(a, key, ap);
            if (!v)
                return -1;
            if (*v < 0 || *v > max)
                m_r.fail(ap + "/" + key, std::to_string(*v) + " is not a possible size");
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
        if (const auto full = m_r.optionalText(a, "demangled", ap)) {
            l.fullNameId = m_trace.intern(*full);
            any = true;
        }
        if (!any)
            return -1;
        m_launches.push_back(l);
        return static_cast<std::int32_t>(m_launches.size() - 1);
    }

    // A host range: Kineto's cpu_op, user_annotation and python_function slices (on their pid/tid), and
    // the NVTX and CPU ranges of StreamScope's own export (on the thread its ss_thread arg names).
    void readHostRange(const json &e, const std::string &path, HostRangeCategory category)
    {
        const json *args = m_r.find(e, "args");
        if (args && !args->is_object())
            m_r.wrongType(path + "/args", *args, "an object");
        static const json kNoArgs = json::object();
        const json &a = args ? *args : kNoArgs;
        const std::string ap = path + "/args";
        HostRange h;
        h.category = category;
        h.nameId = m_trace.intern(m_r.text(e, "name", path));
        h.startNs = m_r.micros(e, "ts", path) + m_origin;
        const std::int64_t dur = m_r.micros(e, "dur", path);
        if (dur < 0)
            m_r.fail(path + "/dur", "negative duration");
        if (h.startNs > std::numeric_limits<std::int64_t>::max() - dur)
            m_r.fail(path + "/dur", "the range ends past the largest time");
        h.endNs = h.startNs + dur;
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
                h.domainId = m_trace.intern(*domain);
        } else {
            h.hostThread = hostThread(m_r.find(e, "pid"), m_r.find(e, "tid"));
        }
        m_ranges.emplace_back(repetition, h);
    }

    // A unified-memory slice of StreamScope's export: a driver record of a repetition.
    void readActivity(const json &e, const std::string &path)
    {
        const std::string ap = path + "/args";
        const json *args = m_r.find(e, "args");
        if (!args || !args->is_object())
            m_r.fail(ap, "a unified_memory slice needs its args (kind, detail, value, address, op, repetition)");
        ActivityRecord a;
        const std::string kind = m_r.text(*args, "kind", ap);
        const auto k = activityKindFromString(kind);
        if (!k)
            m_r.fail(ap + "/kind", "unknown activity kind \"" + kind + "\"");
        a.kind = *k;
        const std::string detail = m_r.text(*args, "detail", ap);
        const auto d = activityDetailFromString(detail);
        if (!d)
            m_r.fail(ap + "/detail", "unknown activity detail \"" + detail + "\"");
        a.detail = *d;
        const std::int64_t value = m_r.integer(*args, "value", ap);
        const std::int64_t address = m_r.integer(*args, "address", ap);
        if (value < 0 || address < 0)
            m_r.fail(ap, "value and address must not be negative");
        a.value = static_cast<std::uint64_t>(value);
        a.address = static_cast<std::uint64_t>(address);
        const std::int64_t op = m_r.integer(*args, "op", ap);
        if (op < -1 || op > std::numeric_limits<std::int32_t>::max())
            m_r.fail(ap + "/op", "op index " + std::to_string(op) + " is not valid");
        a.op = static_cast<std::int32_t>(op);
        const std::int64_t repetition = m_r.integer(*args, "repetition", ap);
        if (repetition < 0 || repetition > std::numeric_limits<int>::max())
            m_r.fail(ap + "/repetition", "repetition " + std::to_string(repetition) + " is not valid");
        a.startNs = m_r.offsetTime(m_r.micros(e, "ts", path), m_origin, path + "/ts");
        const std::int64_t dur = m_r.micros(e, "dur", path);
        if (dur < 0)
            m_r.fail(path + "/dur", "negative duration");
        m_r.checkEnd(a.startNs, dur, path + "/dur");
        a.endNs = a.startNs + dur;
        m_activities.emplace_back(static_cast<int>(repetition), a);
    }

    // StreamScope's own args: kind, op_index, repetition, memory kinds, api, flags.
    void readOpArgs(const json &a, const std::string &ap, OpRecord &op, int &repetition)
    {
        // The stream: ss_stream where the export wrote one (streams sharing a device and native id),
        // else the one stream of /streamscope/streams with this device and native id.
        if (const auto native = m_r.optionalInteger(a, "stream", ap)) {
            const auto device = m_r.optionalInteger(a, "device", ap).value_or(0);
            const auto it = m_ourStreams.find({device, *native});
            if (it == m_ourStreams.end())
                m_r.fail(ap + "/stream", "no stream with device " + std::to_string(device) + " and nativeId "
                                             + std::to_string(*native) + " in /streamscope/streams");
            op.stream = it->second;
        }
        if (const auto kind = m_r.optionalText(a, "kind", ap)) {
            const auto k = opKindFromString(*kind);
            if (!k)
                m_r.fail(ap + "/kind", "unknown op kind \"" + *kind + "\"");
            op.kind = *k;
        }
        op.opIndex = static_cast<int>(m_r.optionalInteger(a, "op_index", ap).value_or(-1));
        repetition = static_cast<int>(m_r.optionalInteger(a, "repetition", ap).value_or(0));
        auto mem = [&](const char *key) {
            const auto s = m_r.optionalText(a, key, ap);
            if (!s)
                return MemKind::None;
            const auto m = memKindFromString(*s);
            if (!m)
                m_r.fail(ap + "/" + key, "unknown memory kind \"" + *s + "\"");
            return *m;
        };
        op.srcMem = mem("src_mem");
        op.dstMem = mem("dst_mem");
        if (const auto api = m_r.optionalText(a, "api", ap)) {
            const auto c = copyApiFromString(*api);
            if (!c)
                m_r.fail(ap + "/api", "unknown copy API \"" + *api + "\"");
            op.api = *c;
        }
        const std::int64_t flags = m_r.optionalInteger(a, "flags", ap).value_or(0);
        if (flags < 0 || flags > std::numeric_limits<std::uint8_t>::max())
            m_r.fail(ap + "/flags", "flags " + std::to_string(flags) + " are not valid (0..255)");
        op.flags = static_cast<std::uint8_t>(flags);
        op.readyNs = m_r.optionalInteger(a, "ready_ns", ap).value_or(kNoTime);
        op.eventEndNs = m_r.optionalInteger(a, "event_end_ns", ap).value_or(kNoTime);
        op.queuedNs = m_r.optionalInteger(a, "queued_ns", ap).value_or(kNoTime);
        op.submittedNs = m_r.optionalInteger(a, "submitted_ns", ap).value_or(kNoTime);
        op.channel = OpRecord::channelOf(m_r.optionalInteger(a, "channel", ap).value_or(-1));
        if (const auto t = m_r.optionalText(a, "channel_type", ap)) {
            const auto c = channelTypeFromString(*t);
            if (!c)
                m_r.fail(ap + "/channel_type", "unknown channel type \"" + *t + "\"");
            op.channelType = *c;
        }
        op.driverSrcMem = mem("driver_src_mem");
        op.driverDstMem = mem("driver_dst_mem");
        if (const auto s = m_r.optionalInteger(a, "ss_stream", ap)) {
            if (*s < 0 || *s >= static_cast<std::int64_t>(m_trace.streams.size()))
                m_r.fail(ap + "/ss_stream", "no stream " + std::to_string(*s) + " in /streamscope/streams");
            op.stream = static_cast<int>(*s);
        }
    }

    void readMetadataEvent(const json &e, const std::string &path)
    {
        if (m_ours)
            return;
        const auto name = m_r.optionalText(e, "name", path);
        if (!name || *name != "thread_name")
            return;
        const json *args = m_r.find(e, "args");
        if (!args || !args->is_object())
            return;
        if (const auto n = m_r.optionalText(*args, "name", path + "/args"))
            m_threadNames[idKey(m_r.find(e, "pid")) + "/" + idKey(m_r.find(e, "tid"))] = *n;
    }

    void readFlow(const json &e, const std::string &path, bool start)
    {
        if (m_ours)
            return; // bind_id pairs host and GPU slices already
        const auto cat = m_r.optionalText(e, "cat", path);
        if (!cat || (*cat != "ac2g" && *cat != "async_cpu_to_gpu"))
            return;
        const json *id = m_r.find(e, "id");
        if (!id)
            m_r.fail(path + "/id", "missing (a flow needs an id)");
        const std::int64_t flowId =
            id->is_string() ? static_cast<std::int64_t>(std::hash<std::string>()(id->get<std::string>()) >> 1)
                            : m_r.integerValue(*id, path + "/id");
        LaneKey key{idKey(m_r.find(e, "pid")), idKey(m_r.find(e, "tid")), m_r.micros(e, "ts", path)};
        (start ? m_flowStarts : m_flowEnds).emplace(std::move(key), static_cast<std::uint64_t>(flowId));
    }

    std::uint64_t bindId(const json &e, const std::string &path) const
    {
        const auto id = m_r.optionalInteger(e, "bind_id", path);
        if (id && *id <= 0)
            m_r.fail(path + "/bind_id", "expected a positive integer");
        return id ? static_cast<std::uint64_t>(*id) : 0;
    }

    int hostThread(const json *pid, const json *tid)
    {
        const std::string key = idKey(pid) + "/" + idKey(tid);
        auto it = m_threadIndex.find(key);
        if (it != m_threadIndex.end())
            return it->second;
        const int index = static_cast<int>(m_trace.hostThreads.size());
        HostThreadInfo t;
        // Kineto writes some thread ids as a signed 32-bit number (a pthread id cut to 32 bits: "tid":
        // -1220540864); they read as the OS prints them, unsigned (3074426432).
        std::string tidText = tid && tid->is_string() ? tid->get<std::string>() : tid ? tid->dump() : "?";
        if (tid && tid->is_number_integer()) {
            std::int64_t id = tid->get<std::int64_t>();
            if (id < 0 && id >= std::numeric_limits<std::int32_t>::min())
                id += std::int64_t(1) << 32;
            t.nativeId = static_cast<std::uint64_t>(id);
            tidText = std::to_string(t.nativeId);
        }
        if (pid && pid->is_number_integer() && pid->get<std::int64_t>() >= 0)
            t.processId = pid->get<std::int64_t>();
        t.name = "pid "
                 + (pid && pid->is_string() ? pid->get<std::string>()
                    : pid                   ? pid->dump()
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
        std::vector<PendingOp> all = std::move(m_gpuOps);
        for (auto &c : m_hostOnly)
            all.push_back(c);
        if (m_ours) {
            // GPU slices and host-only slices were written in trace order: keep the file's order.
            std::sort(all.begin(), all.end(), [](const PendingOp &a, const PendingOp &b) { return a.order < b.order; });
        } else {
            std::stable_sort(all.begin(), all.end(), [](const PendingOp &a, const PendingOp &b) {
                return importOrderKey(a.op) < importOrderKey(b.op);
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
        for (auto &c : all) {
            Repetition &rep = repetitionOf(c.repetition);
            if (c.launch >= 0) {
                KernelLaunch l = m_launches[static_cast<std::size_t>(c.launch)];
                l.op = static_cast<std::int32_t>(rep.ops.size());
                rep.kernelLaunches.push_back(l);
            }
            rep.ops.push_back(c.op);
        }
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
        for (Repetition &rep : m_trace.repetitions) {
            std::stable_sort(rep.activities.begin(), rep.activities.end(),
                             [](const ActivityRecord &x, const ActivityRecord &y) { return x.startNs < y.startNs; });
            layoutHostRanges(rep); // rows, and each op's launching range (its cpu_op or NVTX range)
            // A staged copy's call that waited for its stream: that wait moves no bytes.
            deriveStagedCopyReadiness(rep, m_trace.hostThreads);
        }
        std::sort(m_trace.repetitions.begin(), m_trace.repetitions.end(),
                  [](const Repetition &a, const Repetition &b) { return a.index < b.index; });
    }

    const json &m_root;
    Reader m_r;
    Trace m_trace;
    bool m_ours = false;
    std::size_t m_eventIndex = 0;
    std::int64_t m_origin = 0;
    std::vector<DeviceInfo> m_kinetoDevices;
    std::vector<PendingOp> m_gpuOps;
    std::vector<PendingOp> m_calls;
    std::vector<PendingOp> m_hostOnly;
    std::vector<std::pair<int, ActivityRecord>> m_activities; // (repetition, record), StreamScope's own files
    std::vector<std::pair<int, HostRange>> m_ranges; // (repetition, range)
    std::vector<KernelLaunch> m_launches; // PendingOp::launch indexes here
    std::map<std::pair<std::int64_t, std::int64_t>, int> m_streamIndex;
    std::map<std::pair<std::int64_t, std::int64_t>, int> m_ourStreams; // (device, nativeId) -> index, first wins
    std::vector<ImportedStream> m_streamKeys;
    std::unordered_map<std::string, int> m_threadIndex;
    std::vector<std::string> m_threadKeys;
    std::unordered_map<std::string, std::string> m_threadNames;
    std::unordered_map<LaneKey, std::uint64_t, LaneKeyHash> m_flowStarts, m_flowEnds;
    std::vector<std::pair<std::size_t, LaneKey>> m_hostFlowPending, m_gpuFlowPending;
};

} // namespace

namespace {

constexpr std::ptrdiff_t kProgressStep = 256 << 10;

// An input iterator over the text for nlohmann's parser that calls `at` each time the lexer has read
// another kProgressStep bytes (the progress and cancel checks of a long parse).
class ProgressIterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char *;
    using reference = const char &;

    // `next`: the offset from `begin` at which `at` is called next (offsets, so that no pointer is formed
    // past the text's end).
    ProgressIterator(const char *begin, const char *p, std::ptrdiff_t *next, std::function<void(const char *)> at) :
        m_begin(begin), m_p(p), m_next(next), m_at(std::move(at))
    {
    }
    reference operator*() const { return *m_p; }
    ProgressIterator &operator++()
    {
        ++m_p;
        if (m_next && m_p - m_begin >= *m_next) {
            *m_next = (m_p - m_begin) + kProgressStep;
            m_at(m_p);
        }
        return *this;
    }
    ProgressIterator operator++(int)
    {
        ProgressIterator old = *this;
        ++*this;
        return old;
    }
    bool operator==(const ProgressIterator &other) const { return m_p == other.m_p; }
    bool operator!=(const ProgressIterator &other) const { return m_p != other.m_p; }

private:
    const char *m_begin;
    const char *m_p;
    std::ptrdiff_t *m_next;
    std::function<void(const char *)> m_at;
};

} // namespace

namespace {

// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string nlohmannMessage(const json::exception &e)
{
    std::string what = e.what();
    if (const auto pos = what.find("] "); pos != std::string::npos)
        what = what.substr(pos + 2);
    return what;
}

} // namespace

Trace chromeTraceFromJson(std::string_view text, const std::string &fileName, const LoadControl &control, double from,
                          double to)
{
    json root;
    const double parseEnd = from + (to - from) * 0.8;
    checkJsonNesting(text, fileName); // nlohmann would build it; nothing after could walk it safely
    try {
        // Progress while parsing, which is most of a large trace's load: the bytes nlohmann's lexer has read,
        // counted by the input iterator, checked every 256 KiB (a cancel stops within a millisecond or
        // two). A parser callback would do it too but made the parse about 1.9x slower; this costs one
        // comparison per byte.
        if (control.progress || control.cancel) {
            const char *const begin = text.data();
            std::ptrdiff_t next = kProgressStep;
            ProgressIterator first(begin, begin, &next, [&](const char *at) {
                control.checkCancelled();
                control.report("parsing", from
                                              + (parseEnd - from) * static_cast<double>(at - begin)
                                                    / static_cast<double>(std::max<std::size_t>(1, text.size())));
            });
            const ProgressIterator last(begin, begin + text.size(), nullptr, {});
            root = json::parse(first, last);
        } else {
            root = json::parse(text.begin(), text.end());
        }
    } catch (const json::parse_error &e) {
        // Line and column of the byte where parsing stopped: what an editor shows.
        const std::size_t at = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
        throw Error(ErrorKind::InvalidInput,
                    fileName + ":" + lineColumnOfByte(text, at) + ": not valid JSON (" + nlohmannMessage(e) + ")");
    } catch (const json::exception &e) {
        // A number beyond a double (1e400) and the like: said with where the token is, not as an
        // internal error.
        const std::string what = nlohmannMessage(e);
        std::string where;
        if (const auto q = what.find('\''); q != std::string::npos) {
            const std::string token = what.substr(q + 1, what.find('\'', q + 1) - q - 1);
            if (const auto at = token.empty() ? std::string_view::npos : text.find(token); at != std::string_view::npos)
                where = ":" + lineColumnOfByte(text, at);
        }
        throw Error(ErrorKind::InvalidInput, fileName + where + ": not valid JSON (" + what + ")");
    }
    control.checkCancelled();
    control.report("importing", parseEnd);
    return ChromeImporter(root, fileName).run();
}

Trace importChromeTrace(const std::string &path)
{
    std::string content = readFile(path);
    if (isGzip(content))
        content = gunzip(content, path);
    return chromeTraceFromJson(content, path);
}

} // namespace streamscope::engine
