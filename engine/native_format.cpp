// The native trace file: versioned JSON. The header (device, workload, calibration, streams) is
// ordinary JSON through nlohmann; the ops, which can number in the millions, are written as compact
// rows with std::to_chars and read back through nlohmann's SAX interface straight into OpRecords,
// so a million-op trace never exists as a JSON DOM.
#include "engine/native_format.h"

#include <array>
#include <charconv>
#include <deque>
#include <nlohmann/json.hpp>

#include "engine/errors.h"
#include "engine/file_util.h"

namespace streamscope::engine {

using nlohmann::json;

namespace {

// The order of the values in each op row. Written into the file so readers can check it.
constexpr std::array<std::string_view, 15> kOpColumns = {
    "name", "kind", "stream", "host_thread", "op_index", "gpu_start_ns", "gpu_end_ns", "host_start_ns",
    "host_end_ns", "bytes", "src_mem", "dst_mem", "api", "flags", "correlation"};

json deviceToJson(const DeviceInfo &d)
{
    return json{{"index", d.index},
                {"name", d.name},
                {"compute_capability", std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor)},
                {"sm_count", d.smCount},
                {"async_engine_count", d.asyncEngineCount},
                {"concurrent_kernels", d.concurrentKernels},
                {"managed_memory", d.managedMemory},
                {"concurrent_managed_access", d.concurrentManagedAccess},
                {"total_mem_bytes", d.totalMemBytes},
                {"l2_bytes", d.l2Bytes},
                {"sm_clock_khz", d.smClockKHz},
                {"mem_clock_khz", d.memClockKHz},
                {"mem_bus_width_bits", d.memBusWidthBits},
                {"pci_bus_id", d.pciBusId},
                {"pcie_generation", d.pcieGeneration},
                {"pcie_width", d.pcieWidth},
                {"link_peak_gbs", d.linkPeakGBs},
                {"priority_least", d.priorityLeast},
                {"priority_greatest", d.priorityGreatest},
                {"driver_version", d.driverVersion},
                {"runtime_version", d.runtimeVersion}};
}

// Reads a header value with a clear error naming the file and JSON path.
class HeaderReader {
public:
    explicit HeaderReader(const std::string &file) : m_file(file) {}

    [[noreturn]] void fail(const std::string &path, const std::string &what) const
    {
        throw Error(ErrorKind::InvalidInput, m_file + ": " + path + ": " + what);
    }

    template <typename T>
    void get(const json &obj, const std::string &path, const char *key, T &out, bool required = false) const
    {
        auto it = obj.find(key);
        if (it == obj.end() || it->is_null()) {
            if (required)
                fail(path + "/" + key, "missing (required)");
            return;
        }
        try {
            out = it->get<T>();
        } catch (const json::exception &) {
            fail(path + "/" + key, std::string("expected ") + expected<T>() + ", found " + it->type_name());
        }
    }

private:
    template <typename T> static const char *expected()
    {
        if constexpr (std::is_same_v<T, std::string>)
            return "a string";
        else if constexpr (std::is_same_v<T, bool>)
            return "true or false";
        else
            return "a number";
    }
    std::string m_file;
};

DeviceInfo deviceFromJson(const json &j, const std::string &path, const HeaderReader &r)
{
    if (!j.is_object())
        r.fail(path, "expected an object describing a device");
    DeviceInfo d;
    r.get(j, path, "index", d.index);
    r.get(j, path, "name", d.name);
    std::string cc;
    r.get(j, path, "compute_capability", cc);
    if (!cc.empty()) {
        const auto dot = cc.find('.');
        if (dot == std::string::npos)
            r.fail(path + "/compute_capability", "expected \"MAJOR.MINOR\", found \"" + cc + "\"");
        d.ccMajor = std::atoi(cc.substr(0, dot).c_str());
        d.ccMinor = std::atoi(cc.substr(dot + 1).c_str());
    }
    r.get(j, path, "sm_count", d.smCount);
    r.get(j, path, "async_engine_count", d.asyncEngineCount);
    r.get(j, path, "concurrent_kernels", d.concurrentKernels);
    r.get(j, path, "managed_memory", d.managedMemory);
    r.get(j, path, "concurrent_managed_access", d.concurrentManagedAccess);
    r.get(j, path, "total_mem_bytes", d.totalMemBytes);
    r.get(j, path, "l2_bytes", d.l2Bytes);
    r.get(j, path, "sm_clock_khz", d.smClockKHz);
    r.get(j, path, "mem_clock_khz", d.memClockKHz);
    r.get(j, path, "mem_bus_width_bits", d.memBusWidthBits);
    r.get(j, path, "pci_bus_id", d.pciBusId);
    r.get(j, path, "pcie_generation", d.pcieGeneration);
    r.get(j, path, "pcie_width", d.pcieWidth);
    r.get(j, path, "link_peak_gbs", d.linkPeakGBs);
    r.get(j, path, "priority_least", d.priorityLeast);
    r.get(j, path, "priority_greatest", d.priorityGreatest);
    r.get(j, path, "driver_version", d.driverVersion);
    r.get(j, path, "runtime_version", d.runtimeVersion);
    return d;
}

void appendInt(std::string &out, std::int64_t v)
{
    char buf[24];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, p);
}

void appendUInt(std::string &out, std::uint64_t v)
{
    char buf[24];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, p);
}

void appendQuoted(std::string &out, std::string_view s)
{
    out += '"';
    out.append(s);
    out += '"';
}

// SAX handler: builds a DOM for everything but /repetitions/N/ops, whose rows go straight into
// OpRecords. Keeps the JSON path for error messages.
class NativeSax {
public:
    NativeSax(Trace &trace, std::string file) : m_trace(trace), m_file(std::move(file)) {}

    json header = json::object();
    std::string error;

    bool null() { return scalar(json(nullptr)); }
    bool boolean(bool v) { return scalar(json(v)); }
    bool number_integer(json::number_integer_t v) { return m_inRow ? rowInt(v) : scalar(json(v)); }
    bool number_unsigned(json::number_unsigned_t v)
    {
        return m_inRow ? rowInt(static_cast<std::int64_t>(v)) : scalar(json(v));
    }
    bool number_float(json::number_float_t v, const std::string &)
    {
        if (m_inRow)
            return rowFail("expected an integer, found a fraction");
        return scalar(json(v));
    }
    bool string(std::string &v) { return m_inRow ? rowString(v) : scalar(json(std::move(v))); }
    bool binary(json::binary_t &) { return failAt("binary values are not allowed"); }

    bool start_object(std::size_t)
    {
        if (m_inRow)
            return rowFail("expected a value, found an object");
        if (m_inOps)
            return failAt("expected an op row (an array), found an object");
        if (m_stack.empty()) {
            m_stack.push_back(&header);
            m_paths.push_back("");
            return true;
        }
        json *node = insert(json::object());
        m_stack.push_back(node);
        return true;
    }
    bool key(std::string &k)
    {
        m_key = k;
        if (m_stack.size() == 1) { // top level
            m_inRepetitions = (k == "repetitions");
        }
        if (m_stack.size() == 3 && m_repDepthKey && k == "ops")
            m_opsKeyPending = true;
        return true;
    }
    bool end_object()
    {
        if (m_stack.size() == 3 && m_inRepetitions && m_repDepthKey) {
            // finishing one repetition object: take its index
            json &rep = *m_stack.back();
            if (rep.contains("index") && rep["index"].is_number_integer())
                m_trace.repetitions.back().index = rep["index"].get<int>();
        }
        popContainer();
        return true;
    }
    bool start_array(std::size_t)
    {
        if (m_inRow)
            return rowFail("expected a value, found an array");
        if (m_inOps) {
            m_inRow = true;
            m_col = 0;
            m_op = OpRecord{};
            return true;
        }
        if (m_stack.empty())
            return failAt("expected a JSON object at the top level, found an array");
        if (m_stack.size() == 1 && m_inRepetitions) {
            m_repDepthKey = true; // the repetitions array itself: do not store in the DOM
            m_stack.push_back(nullptr);
            m_paths.push_back("/repetitions");
            m_repCount = 0;
            return true;
        }
        if (m_opsKeyPending) {
            m_opsKeyPending = false;
            m_inOps = true;
            m_rowIndex = 0;
            return true;
        }
        json *node = insert(json::array());
        m_stack.push_back(node);
        return true;
    }
    bool end_array()
    {
        if (m_inRow) {
            if (m_col != kOpColumns.size())
                return rowFail("expected " + std::to_string(kOpColumns.size()) + " values, found " +
                               std::to_string(m_col));
            m_trace.repetitions.back().ops.push_back(m_op);
            m_inRow = false;
            ++m_rowIndex;
            return true;
        }
        if (m_inOps) {
            m_inOps = false;
            return true;
        }
        if (m_stack.size() == 2 && m_repDepthKey) {
            m_repDepthKey = false;
            m_inRepetitions = false;
            m_stack.pop_back();
            m_paths.pop_back();
            return true;
        }
        popContainer();
        return true;
    }
    bool parse_error(std::size_t position, const std::string &, const nlohmann::detail::exception &ex)
    {
        if (error.empty())
            error = m_file + ": not valid JSON at byte " + std::to_string(position) + ": " + ex.what();
        return false;
    }

private:
    json *insert(json value)
    {
        json *parent = m_stack.back();
        if (parent == nullptr) { // an element of /repetitions
            m_trace.repetitions.emplace_back();
            m_trace.repetitions.back().index = static_cast<int>(m_repCount);
            m_paths.push_back("/repetitions/" + std::to_string(m_repCount++));
            m_repObjects.push_back(std::move(value));
            return &m_repObjects.back();
        }
        if (parent->is_object()) {
            m_paths.push_back(m_paths.back() + "/" + m_key);
            return &((*parent)[m_key] = std::move(value));
        }
        m_paths.push_back(m_paths.back() + "/" + std::to_string(parent->size()));
        parent->push_back(std::move(value));
        return &parent->back();
    }
    bool scalar(json value)
    {
        if (m_stack.empty())
            return failAt("expected a JSON object at the top level");
        json *parent = m_stack.back();
        if (parent == nullptr)
            return failAt("expected an object for each repetition");
        if (parent->is_object())
            (*parent)[m_key] = std::move(value);
        else
            parent->push_back(std::move(value));
        return true;
    }
    void popContainer()
    {
        m_stack.pop_back();
        if (!m_paths.empty())
            m_paths.pop_back();
    }
    std::string rowPath() const
    {
        return m_paths.back() + "/ops/" + std::to_string(m_rowIndex) + "/" + std::to_string(m_col);
    }
    bool failAt(const std::string &what)
    {
        if (error.empty())
            error = m_file + ": " + (m_paths.empty() ? std::string("/") : m_paths.back()) + ": " + what;
        return false;
    }
    bool rowFail(const std::string &what)
    {
        if (error.empty()) {
            const std::string col = m_col < kOpColumns.size() ? std::string(kOpColumns[m_col]) : "?";
            error = m_file + ": " + rowPath() + " (" + col + "): " + what;
        }
        return false;
    }
    bool rowInt(std::int64_t v)
    {
        switch (m_col) {
        case 0:
            if (v < 0 || static_cast<std::uint64_t>(v) >= m_trace.strings.size())
                return rowFail("name index " + std::to_string(v) + " is not in /strings (" +
                               std::to_string(m_trace.strings.size()) + " names)");
            m_op.nameId = static_cast<std::uint32_t>(v);
            break;
        case 2: m_op.stream = static_cast<std::int32_t>(v); break;
        case 3: m_op.hostThread = static_cast<std::int32_t>(v); break;
        case 4: m_op.opIndex = static_cast<std::int32_t>(v); break;
        case 5: m_op.gpuStartNs = v; break;
        case 6: m_op.gpuEndNs = v; break;
        case 7: m_op.hostStartNs = v; break;
        case 8: m_op.hostEndNs = v; break;
        case 9:
            if (v < 0)
                return rowFail("bytes must not be negative");
            m_op.bytes = static_cast<std::uint64_t>(v);
            break;
        case 13: m_op.flags = static_cast<std::uint32_t>(v); break;
        case 14: m_op.correlation = static_cast<std::uint64_t>(v); break;
        default:
            return rowFail(m_col < kOpColumns.size() ? "expected a string, found a number" : "too many values");
        }
        ++m_col;
        return true;
    }
    bool rowString(const std::string &v)
    {
        switch (m_col) {
        case 1: {
            auto k = opKindFromString(v);
            if (!k)
                return rowFail("unknown op kind \"" + v + "\"");
            m_op.kind = *k;
            break;
        }
        case 10:
        case 11: {
            auto k = memKindFromString(v);
            if (!k)
                return rowFail("unknown memory kind \"" + v + "\"");
            (m_col == 10 ? m_op.srcMem : m_op.dstMem) = *k;
            break;
        }
        case 12: {
            auto a = copyApiFromString(v);
            if (!a)
                return rowFail("unknown copy API \"" + v + "\"");
            m_op.api = *a;
            break;
        }
        default:
            return rowFail(m_col < kOpColumns.size() ? "expected a number, found a string" : "too many values");
        }
        ++m_col;
        return true;
    }

    Trace &m_trace;
    std::string m_file;
    std::vector<json *> m_stack;
    std::vector<std::string> m_paths;
    std::deque<json> m_repObjects; // deque: pointers to the open one stay valid
    std::string m_key;
    bool m_inRepetitions = false;
    bool m_repDepthKey = false;
    bool m_opsKeyPending = false;
    bool m_inOps = false;
    bool m_inRow = false;
    std::size_t m_col = 0;
    std::size_t m_rowIndex = 0;
    std::size_t m_repCount = 0;
    OpRecord m_op;

public:
    // Strings must be known before rows reference them: the writer puts /strings first; a reader
    // of a hand-edited file where they come later gets a clear error from rowInt.
    void takeStrings()
    {
        if (m_trace.strings.empty() && header.contains("strings") && header["strings"].is_array())
            for (const auto &s : header["strings"])
                m_trace.strings.push_back(s.is_string() ? s.get<std::string>() : std::string());
    }
};

// nlohmann calls key() before the value; /strings arrives before /repetitions because the writer
// orders it so. To make the strings usable while streaming, intercept the end of /strings.
class NativeSaxWithStrings : public NativeSax {
public:
    using NativeSax::NativeSax;
    bool end_array()
    {
        const bool ok = NativeSax::end_array();
        takeStrings();
        return ok;
    }
};

} // namespace

std::string toNativeJson(const Trace &trace)
{
    json head = json::object();
    head["format"] = kNativeFormatName;
    head["version"] = kTraceFormatVersion;
    head["source"] = trace.source;
    head["title"] = trace.title;
    head["tool_version"] = trace.toolVersion;
    head["host"] = trace.hostName;
    head["created_utc"] = trace.createdUtc;
    if (!trace.sourcePath.empty())
        head["source_path"] = trace.sourcePath;
    head["metadata"] = trace.metadata;
    head["devices"] = json::array();
    for (const auto &d : trace.devices)
        head["devices"].push_back(deviceToJson(d));
    head["calibration"] = {{"sm_clock_hz", trace.calibration.smClockHz},
                           {"spin_overhead_ns", trace.calibration.spinOverheadNs},
                           {"event_pair_overhead_ns", trace.calibration.eventPairOverheadNs},
                           {"gpu_to_host_offset_ns", trace.calibration.gpuToHostOffsetNs}};
    json workload = nullptr;
    if (!trace.workloadJson.empty()) {
        workload = json::parse(trace.workloadJson, nullptr, false);
        if (workload.is_discarded())
            workload = trace.workloadJson; // keep it verbatim rather than lose it
    }
    head["workload"] = workload;
    head["streams"] = json::array();
    for (const auto &s : trace.streams)
        head["streams"].push_back({{"name", s.name},
                                   {"device", s.device},
                                   {"native_id", s.nativeId},
                                   {"priority", s.priority},
                                   {"non_blocking", s.nonBlocking},
                                   {"default", s.isDefault}});
    head["host_threads"] = json::array();
    for (const auto &t : trace.hostThreads)
        head["host_threads"].push_back({{"name", t.name}, {"native_id", t.nativeId}});
    head["op_columns"] = kOpColumns;
    head["strings"] = trace.strings;

    // The header, less its closing brace, then the repetitions written by hand.
    std::string out = head.dump(1);
    out.pop_back(); // '}'
    while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
        out.pop_back();
    out.reserve(out.size() + trace.opCount() * 80 + 64);
    out += ",\n \"repetitions\": [";
    for (std::size_t r = 0; r < trace.repetitions.size(); ++r) {
        const auto &rep = trace.repetitions[r];
        out += r ? ",\n  {\"index\": " : "\n  {\"index\": ";
        appendInt(out, rep.index);
        out += ", \"ops\": [";
        for (std::size_t i = 0; i < rep.ops.size(); ++i) {
            const OpRecord &op = rep.ops[i];
            out += i ? ",\n   [" : "\n   [";
            appendUInt(out, op.nameId);
            out += ',';
            appendQuoted(out, toString(op.kind));
            out += ',';
            appendInt(out, op.stream);
            out += ',';
            appendInt(out, op.hostThread);
            out += ',';
            appendInt(out, op.opIndex);
            out += ',';
            appendInt(out, op.gpuStartNs);
            out += ',';
            appendInt(out, op.gpuEndNs);
            out += ',';
            appendInt(out, op.hostStartNs);
            out += ',';
            appendInt(out, op.hostEndNs);
            out += ',';
            appendUInt(out, op.bytes);
            out += ',';
            appendQuoted(out, toString(op.srcMem));
            out += ',';
            appendQuoted(out, toString(op.dstMem));
            out += ',';
            appendQuoted(out, toString(op.api));
            out += ',';
            appendUInt(out, op.flags);
            out += ',';
            appendUInt(out, op.correlation);
            out += ']';
        }
        out += "]}";
    }
    out += "\n ]\n}\n";
    return out;
}

Trace fromNativeJson(std::string_view text, const std::string &fileName)
{
    Trace trace;
    trace.strings.clear();
    NativeSaxWithStrings sax(trace, fileName);
    const bool ok = json::sax_parse(text.begin(), text.end(), &sax);
    if (!ok)
        throw Error(ErrorKind::InvalidInput,
                    sax.error.empty() ? fileName + ": not a valid StreamScope trace" : sax.error);
    const json &h = sax.header;
    HeaderReader r(fileName);
    std::string format;
    r.get(h, "", "format", format);
    if (format != kNativeFormatName)
        r.fail("/format", "expected \"" + std::string(kNativeFormatName) + "\", found " +
                              (h.contains("format") ? h["format"].dump() : std::string("nothing")) +
                              ": this is not a StreamScope trace");
    r.get(h, "", "version", trace.formatVersion, true);
    if (trace.formatVersion < 1 || trace.formatVersion > kTraceFormatVersion)
        r.fail("/version", "this StreamScope reads trace format versions 1.." + std::to_string(kTraceFormatVersion) +
                               ", the file has version " + std::to_string(trace.formatVersion));
    if (h.contains("op_columns")) {
        const json &cols = h["op_columns"];
        bool same = cols.is_array() && cols.size() == kOpColumns.size();
        for (std::size_t i = 0; same && i < kOpColumns.size(); ++i)
            same = cols[i].is_string() && cols[i].get<std::string>() == kOpColumns[i];
        if (!same)
            r.fail("/op_columns", "unexpected op columns " + cols.dump());
    }
    r.get(h, "", "source", trace.source);
    r.get(h, "", "title", trace.title);
    r.get(h, "", "tool_version", trace.toolVersion);
    r.get(h, "", "host", trace.hostName);
    r.get(h, "", "created_utc", trace.createdUtc);
    r.get(h, "", "source_path", trace.sourcePath);
    if (h.contains("metadata") && h["metadata"].is_object())
        for (const auto &[k, v] : h["metadata"].items())
            trace.metadata[k] = v.is_string() ? v.get<std::string>() : v.dump();
    if (h.contains("devices")) {
        if (!h["devices"].is_array())
            r.fail("/devices", "expected an array");
        for (std::size_t i = 0; i < h["devices"].size(); ++i)
            trace.devices.push_back(deviceFromJson(h["devices"][i], "/devices/" + std::to_string(i), r));
    }
    if (h.contains("calibration") && h["calibration"].is_object()) {
        const json &c = h["calibration"];
        r.get(c, "/calibration", "sm_clock_hz", trace.calibration.smClockHz);
        r.get(c, "/calibration", "spin_overhead_ns", trace.calibration.spinOverheadNs);
        r.get(c, "/calibration", "event_pair_overhead_ns", trace.calibration.eventPairOverheadNs);
        r.get(c, "/calibration", "gpu_to_host_offset_ns", trace.calibration.gpuToHostOffsetNs);
    }
    if (h.contains("workload") && !h["workload"].is_null())
        trace.workloadJson = h["workload"].is_string() ? h["workload"].get<std::string>() : h["workload"].dump(2);
    if (h.contains("streams")) {
        if (!h["streams"].is_array())
            r.fail("/streams", "expected an array");
        for (std::size_t i = 0; i < h["streams"].size(); ++i) {
            const std::string p = "/streams/" + std::to_string(i);
            const json &s = h["streams"][i];
            if (!s.is_object())
                r.fail(p, "expected an object describing a stream");
            StreamInfo info;
            r.get(s, p, "name", info.name);
            r.get(s, p, "device", info.device);
            r.get(s, p, "native_id", info.nativeId);
            r.get(s, p, "priority", info.priority);
            r.get(s, p, "non_blocking", info.nonBlocking);
            r.get(s, p, "default", info.isDefault);
            trace.streams.push_back(std::move(info));
        }
    }
    if (h.contains("host_threads") && h["host_threads"].is_array())
        for (std::size_t i = 0; i < h["host_threads"].size(); ++i) {
            const std::string p = "/host_threads/" + std::to_string(i);
            HostThreadInfo t;
            r.get(h["host_threads"][i], p, "name", t.name);
            r.get(h["host_threads"][i], p, "native_id", t.nativeId);
            trace.hostThreads.push_back(std::move(t));
        }
    // Cross-references, so that every later consumer can index without checking.
    for (std::size_t r2 = 0; r2 < trace.repetitions.size(); ++r2)
        for (std::size_t i = 0; i < trace.repetitions[r2].ops.size(); ++i) {
            const OpRecord &op = trace.repetitions[r2].ops[i];
            const std::string p = "/repetitions/" + std::to_string(r2) + "/ops/" + std::to_string(i);
            if (op.stream < -1 || op.stream >= static_cast<int>(trace.streams.size()))
                r.fail(p + "/2", "stream " + std::to_string(op.stream) + " is not in /streams (" +
                                     std::to_string(trace.streams.size()) + " streams)");
            if (op.hostThread < -1 || op.hostThread >= static_cast<int>(trace.hostThreads.size()))
                r.fail(p + "/3", "host thread " + std::to_string(op.hostThread) + " is not in /host_threads");
            if (op.hasGpu() && op.gpuEndNs < op.gpuStartNs)
                r.fail(p + "/6", "GPU end is before GPU start");
            if (op.hasHost() && op.hostEndNs < op.hostStartNs)
                r.fail(p + "/8", "host end is before host start");
        }
    rebuildStringIndex(trace);
    return trace;
}

void writeNativeTrace(const Trace &trace, const std::string &path)
{
    writeFileAtomically(path, toNativeJson(trace));
}

Trace readNativeTrace(const std::string &path)
{
    Trace t = fromNativeJson(readFile(path), path);
    if (t.sourcePath.empty())
        t.sourcePath = path;
    return t;
}

} // namespace streamscope::engine
