// The native trace file: versioned JSON. The header (device, workload, calibration, streams) is
// ordinary JSON through nlohmann; the ops, which can number in the millions, are written as compact
// rows with std::to_chars and read back with simdjson's On-Demand parser straight into OpRecords,
// so a million-op trace never exists as a JSON DOM.
#include "engine/formats/native_format.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <simdjson.h>
#include <type_traits>

#include "engine/formats/trace_header.h"
#include "engine/model/errors.h"
#include "engine/model/host_ranges.h"
#include "engine/model/limits.h"
#include "engine/util/file_util.h"
#include "engine/util/interrupt.h"
#include "engine/util/json_limits.h"

namespace streamscope::engine {

using nlohmann::json;

namespace {

// The order of the values in each op row. Written into the file so readers can check it. Format 1's
// rows are the first 15 columns; format 2 appended 8 more (gpu_* became execution, see trace.h), format 5
// the devices of a copy's two ends (P2P copies).
constexpr std::array<std::string_view, 25> kOpColumns = {
    "name",           "kind",           "stream",       "host_thread", "op_index",     "gpu_start_ns", "gpu_end_ns",
    "host_start_ns",  "host_end_ns",    "bytes",        "src_mem",     "dst_mem",      "api",          "flags",
    "correlation",    "ready_ns",       "event_end_ns", "queued_ns",   "submitted_ns", "channel",      "channel_type",
    "driver_src_mem", "driver_dst_mem", "src_device",   "dst_device"};
constexpr std::size_t kOpColumnsV1 = 15;
constexpr std::size_t kOpColumnsV2 = 23; // formats 2 to 4

constexpr std::size_t opColumnsFor(int version)
{
    return version <= 1 ? kOpColumnsV1 : version <= 4 ? kOpColumnsV2 : kOpColumns.size();
}

// The values of each activity row (format 3): driver records of unified memory and synchronisation.
constexpr std::array<std::string_view, 7> kActivityColumns = {"kind",    "start_ns", "end_ns", "value",
                                                              "address", "op",       "detail"};

// Format 4: each repetition's host ranges and kernel launch details. String columns (name, domain,
// full_name) index /strings, -1 for none; the category is its name.
constexpr std::array<std::string_view, 6> kHostRangeColumns = {"name",     "category", "host_thread",
                                                               "start_ns", "end_ns",   "domain"};
// Format 6 adds "flops" and "work" (a string column) to each kernel launch row, format 7 "bus_bytes".
constexpr std::size_t kKernelLaunchColumnsV4 = 12;
constexpr std::size_t kKernelLaunchColumnsV6 = 14;
constexpr std::array<std::string_view, 15> kKernelLaunchColumns = {"op",
                                                                   "grid_x",
                                                                   "grid_y",
                                                                   "grid_z",
                                                                   "block_x",
                                                                   "block_y",
                                                                   "block_z",
                                                                   "registers_per_thread",
                                                                   "shared_bytes",
                                                                   "static_shared_bytes",
                                                                   "dynamic_shared_bytes",
                                                                   "full_name",
                                                                   "flops",
                                                                   "work",
                                                                   "bus_bytes"};

// Format 8: the pieces of ops that ran as several GPU records (OpPiece). "name" indexes /strings (-1: none);
// "kind" and "channel_type" are their names.
constexpr std::array<std::string_view, 10> kOpPieceColumns = {
    "op", "kind", "start_ns", "end_ns", "bytes", "name", "channel", "channel_type", "src_device", "dst_device"};

// Solo baselines (trace.h SoloBaselines): each solo run's ops as rows of the times that differ from the
// mixed repetitions; the rest of each op (name, kind, stream, bytes...) is the same op's in repetition 0.
// "op" indexes a repetition's ops.
constexpr std::array<std::string_view, 8> kSoloOpColumns = {"op",           "gpu_start_ns",  "gpu_end_ns",  "ready_ns",
                                                            "event_end_ns", "host_start_ns", "host_end_ns", "flags"};

// A solo run's op row as read, before it is joined to its op in repetition 0.
struct SoloRow {
    std::int64_t values[kSoloOpColumns.size()] = {};
};

bool isTextColumn(std::size_t col)
{
    return col == 1 || (col >= 10 && col <= 12) || (col >= 20 && col <= 22);
}

json peerLinkToJson(const PeerLink &l)
{
    return json{{"src", l.src},
                {"dst", l.dst},
                {"access_supported", l.accessSupported},
                {"access_enabled", l.accessEnabled},
                {"link", toString(l.link)},
                {"performance_rank", l.performanceRank},
                {"nvlink_count", l.nvlinkCount},
                {"peak_gbps", l.peakGBps}};
}

// Sets out's members from record's fields that the native format has (trace_header.h).
template <typename Record, typename Fields>
void writeNativeFields(json &out, const Record &record, const Fields &fields)
{
    header::forEachField(fields, [&](const auto &field) {
        if (field.native && !field.omitted(record))
            out[field.native] = record.*field.member;
    });
}

json deviceToJson(const DeviceInfo &d)
{
    json j = json::object();
    writeNativeFields(j, d, header::kDeviceIdentityFields);
    j["compute_capability"] = std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor);
    writeNativeFields(j, d, header::kDevicePropertyFields);
    return j;
}

// Reads a header value with a clear error naming the file and JSON path.
class HeaderReader {
public:
    explicit HeaderReader(const std::string &file) : m_file(file) { }

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
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            // An integer, in range: nlohmann would turn 1e10 into -2147483648 and 2^32+1 into 1.
            out = integer<T>(*it, path + "/" + key);
        } else {
            try {
                out = it->get<T>();
            } catch (const json::exception &) {
                fail(path + "/" + key, std::string("expected ") + expected<T>() + ", found " + it->type_name());
            }
        }
    }

    template <typename T> T integer(const json &v, const std::string &path) const
    {
        using Limits = std::numeric_limits<T>;
        const auto range = [] {
            return "an integer from " + std::to_string(Limits::min()) + " to " + std::to_string(Limits::max());
        };
        if (!v.is_number_integer()) {
            std::string shown = v.dump();
            if (shown.size() > 40)
                shown = shown.substr(0, 37) + "...";
            fail(path, "expected " + range() + ", found " + (v.is_number() ? shown : std::string(v.type_name())));
        }
        if (v.is_number_unsigned()) {
            const auto u = v.get<std::uint64_t>();
            if (u > static_cast<std::uint64_t>(Limits::max()))
                fail(path, "expected " + range() + ", found " + std::to_string(u));
            return static_cast<T>(u);
        }
        const auto i = v.get<std::int64_t>();
        if (i < static_cast<std::int64_t>(Limits::min())
            || (i > 0 && static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(Limits::max())))
            fail(path, "expected " + range() + ", found " + std::to_string(i));
        return static_cast<T>(i);
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

// Reads record's fields that the native format has (trace_header.h) from obj, each optional.
template <typename Record, typename Fields>
void readNativeFields(const json &obj, const std::string &path, Record &record, const Fields &fields,
                      const HeaderReader &r)
{
    header::forEachField(fields, [&](const auto &field) {
        if (field.native)
            r.get(obj, path, field.native, record.*field.member);
    });
}

DeviceInfo deviceFromJson(const json &j, const std::string &path, const HeaderReader &r)
{
    if (!j.is_object())
        r.fail(path, "expected an object describing a device");
    DeviceInfo d;
    readNativeFields(j, path, d, header::kDeviceIdentityFields, r);
    std::string cc;
    r.get(j, path, "compute_capability", cc);
    if (!cc.empty()) {
        const auto dot = cc.find('.');
        if (dot == std::string::npos)
            r.fail(path + "/compute_capability", "expected \"MAJOR.MINOR\", found \"" + cc + "\"");
        const auto number = [&](std::string_view part, int &out) {
            const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
            if (ec != std::errc() || end != part.data() + part.size() || part.empty() || out < 0 || out > 99)
                r.fail(path + "/compute_capability", "expected \"MAJOR.MINOR\", found \"" + cc + "\"");
        };
        number(std::string_view(cc).substr(0, dot), d.ccMajor);
        number(std::string_view(cc).substr(dot + 1), d.ccMinor);
    }
    readNativeFields(j, path, d, header::kDevicePropertyFields, r);
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

// One value of a row: a number as it is, a name (an enum's string) quoted.
template <typename T> void appendValue(std::string &out, const T &v)
{
    if constexpr (std::is_convertible_v<T, std::string_view>)
        appendQuoted(out, v);
    else if constexpr (std::is_signed_v<T>)
        appendInt(out, std::int64_t(v));
    else
        appendUInt(out, std::uint64_t(v));
}

// Row `index` of a table (ops, activities, ...): its values in the order of the table's columns.
template <typename... T> void appendRow(std::string &out, std::size_t index, const T &...values)
{
    out += index ? ",\n   [" : "\n   [";
    bool first = true;
    ((out += first ? "" : ",", first = false, appendValue(out, values)), ...);
    out += ']';
}

// Reads the whole file with simdjson's On-Demand parser (GB/s, so a million-op trace loads in a
// fraction of a second): every top-level member but /repetitions is handed to nlohmann as its raw
// JSON text and becomes the header DOM; the op rows go straight into OpRecords. Names and stream
// indexes are checked after the whole file is read, so the order of the members does not matter.
class NativeReader {
public:
    NativeReader(Trace &trace, std::string fileName) : m_trace(trace), m_file(std::move(fileName)) { }

    json header = json::object();

    // `padded`: the text with SIMDJSON_PADDING bytes of room after it (a padded copy of the text beside it
    // was 53 MB of a 500k-op file's 273 MB peak, #24).
    void read(simdjson::padded_string_view padded)
    {
        namespace od = simdjson::ondemand;
        const std::string_view text(padded.data(), padded.size());
        m_text = text;
        od::parser parser;
        od::document doc;
        if (const auto err = parser.iterate(padded).get(doc))
            syntax(err, text.size());
        od::object root;
        if (const auto err = doc.get_object().get(root)) {
            // simdjson only says "not an object": tell valid JSON of another type from garbage.
            if (err == simdjson::INCORRECT_TYPE && json::accept(text))
                fail("/", "expected a JSON object at the top level");
            syntax(err, text.size());
        }
        for (auto field : root) {
            std::string_view key;
            if (const auto err = field.unescaped_key().get(key))
                syntax(err, text.size());
            od::value value;
            if (const auto err = field.value().get(value))
                syntax(err, text.size());
            if (key == "repetitions") {
                readRepetitions(value, text.size());
                continue;
            }
            if (key == "solo") {
                readSolo(value, text.size());
                continue;
            }
            json parsed = toDom(value, text.size());
            header[std::string(key)] = std::move(parsed);
        }
    }

    // /solo: parts, stream_part and missing as a small DOM (soloHeader); each run's op rows straight into
    // soloRows, joined to repetition 0's ops once the whole file is read (soloRuns).
    json soloHeader = json::object();
    struct SoloRunRows {
        std::int64_t part = -1, round = -1;
        std::vector<SoloRow> rows;
    };
    std::vector<SoloRunRows> soloRuns;
    bool hasSolo = false;
    // Per repetition: its kernels' latency timestamps from the op rows, sorted by op.
    std::vector<std::vector<KernelLaunch>> latency;

private:
    // A member that is not op rows, handed to nlohmann as its raw JSON text (a small DOM).
    json toDom(simdjson::ondemand::value &value, std::size_t size) const
    {
        namespace od = simdjson::ondemand;
        std::string_view raw;
        od::json_type type;
        if (const auto err = value.type().get(type))
            syntax(err, size);
        simdjson::error_code err = simdjson::SUCCESS;
        if (type == od::json_type::object) {
            od::object o;
            err = value.get_object().get(o);
            if (!err)
                err = o.raw_json().get(raw);
        } else if (type == od::json_type::array) {
            od::array a;
            err = value.get_array().get(a);
            if (!err)
                err = a.raw_json().get(raw);
        } else {
            raw = value.raw_json_token();
        }
        if (err)
            syntax(err, size);
        json parsed = json::parse(raw, nullptr, false);
        if (parsed.is_discarded()) // simdjson let it through lazily: say where, as for any syntax error
            syntax(simdjson::TAPE_ERROR, size);
        return parsed;
    }

    void readSolo(simdjson::ondemand::value &value, std::size_t size)
    {
        namespace od = simdjson::ondemand;
        hasSolo = true;
        od::object solo;
        if (value.get_object().get(solo))
            fail("/solo", "expected an object (the solo baselines)");
        for (auto field : solo) {
            std::string_view key;
            if (const auto err = field.unescaped_key().get(key))
                syntax(err, size);
            od::value v;
            if (const auto err = field.value().get(v))
                syntax(err, size);
            if (key != "runs") {
                json parsed = toDom(v, size);
                soloHeader[std::string(key)] = std::move(parsed);
                continue;
            }
            od::array runs;
            if (v.get_array().get(runs))
                fail("/solo/runs", "expected an array of solo runs");
            std::size_t r = 0;
            for (auto runValue : runs) {
                const std::string path = "/solo/runs/" + std::to_string(r);
                od::object run;
                if (const auto err = runValue.get_object().get(run)) {
                    if (err == simdjson::INCORRECT_TYPE)
                        fail(path, "expected an object for each solo run");
                    syntax(err, size);
                }
                if (soloRuns.size() >= limits::kMaxRepetitions)
                    fail(path, "more than " + std::to_string(limits::kMaxRepetitions)
                                   + " solo runs: StreamScope reads at most that many");
                SoloRunRows &out = soloRuns.emplace_back();
                for (auto f : run) {
                    std::string_view k;
                    if (const auto err = f.unescaped_key().get(k))
                        syntax(err, size);
                    if (k == "part" || k == "round") {
                        std::int64_t n = 0;
                        if (f.value().get_int64().get(n) || n < 0 || n > std::numeric_limits<std::int32_t>::max())
                            fail(path + "/" + std::string(k), "expected an integer from 0 to 2147483647");
                        (k == "part" ? out.part : out.round) = n;
                    } else if (k == "ops") {
                        od::array rows;
                        if (f.value().get_array().get(rows))
                            fail(path + "/ops", "expected an array of solo op rows");
                        std::size_t i = 0;
                        readIntegerRows(rows, path + "/ops", kSoloOpColumns, size,
                                        [&](const std::string &cellPath, std::size_t col, const Cell &cell) {
                                            if (col == 0) {
                                                countRow(path + "/ops", i++);
                                                out.rows.emplace_back();
                                            }
                                            out.rows.back().values[col] =
                                                cellInteger(cellPath, cell, std::numeric_limits<std::int64_t>::min(),
                                                            std::numeric_limits<std::int64_t>::max());
                                        });
                    }
                }
                if (out.part < 0)
                    fail(path + "/part", "a solo run needs the part it ran");
                if (out.round < 0)
                    fail(path + "/round", "a solo run needs the round it followed");
                ++r;
            }
        }
    }

    [[noreturn]] void fail(const std::string &path, const std::string &what) const
    {
        throw Error(ErrorKind::InvalidInput, m_file + ": " + path + ": " + what);
    }

    // simdjson says what but not where: the text's first syntax error is found again (one linear pass,
    // only on this path) to name its line and column.
    [[noreturn]] void syntax(simdjson::error_code err, std::size_t size) const
    {
        if (size == 0)
            throw Error(ErrorKind::InvalidInput, m_file + ": not valid JSON (the file is empty)");
        if (const auto e = findJsonSyntaxError(m_text))
            throw Error(ErrorKind::InvalidInput,
                        m_file + ":" + lineColumnOfByte(m_text, e->offset) + ": not valid JSON (" + e->message + ")");
        throw Error(ErrorKind::InvalidInput, m_file + ": not valid JSON: " + simdjson::error_message(err));
    }

    void readRepetitions(simdjson::ondemand::value &value, std::size_t size)
    {
        namespace od = simdjson::ondemand;
        od::array reps;
        if (value.get_array().get(reps))
            fail("/repetitions", "expected an array of repetitions");
        std::size_t r = 0;
        for (auto repValue : reps) {
            const std::string path = "/repetitions/" + std::to_string(r);
            od::object rep;
            if (const auto err = repValue.get_object().get(rep)) {
                if (err == simdjson::INCORRECT_TYPE)
                    fail(path, "expected an object for each repetition");
                syntax(err, size);
            }
            if (m_trace.repetitions.size() >= limits::kMaxRepetitions)
                fail(path, "more than " + std::to_string(limits::kMaxRepetitions)
                               + " repetitions: StreamScope reads at most that many");
            m_trace.repetitions.emplace_back();
            Repetition &out = m_trace.repetitions.back();
            out.index = static_cast<int>(r);
            for (auto field : rep) {
                std::string_view key;
                if (const auto err = field.unescaped_key().get(key))
                    syntax(err, size);
                if (key == "index") {
                    std::int64_t index = 0;
                    if (field.value().get_int64().get(index) || index < 0
                        || index > std::numeric_limits<std::int32_t>::max())
                        fail(path + "/index", "expected an integer from 0 to 2147483647");
                    out.index = static_cast<int>(index);
                } else if (key == "ops") {
                    od::array ops;
                    if (field.value().get_array().get(ops))
                        fail(path + "/ops", "expected an array of op rows");
                    latency.resize(m_trace.repetitions.size());
                    readRows(ops, path + "/ops", out.ops, latency.back(), size);
                } else if (key == "activities") {
                    od::array rows;
                    if (field.value().get_array().get(rows))
                        fail(path + "/activities", "expected an array of activity rows");
                    readActivities(rows, path + "/activities", out.activities, size);
                } else if (key == "host_ranges") {
                    od::array rows;
                    if (field.value().get_array().get(rows))
                        fail(path + "/host_ranges", "expected an array of host range rows");
                    readIntegerRows(rows, path + "/host_ranges", kHostRangeColumns, size,
                                    [&](const std::string &rowPath, std::size_t col, const Cell &cell) {
                                        if (col == 0)
                                            out.hostRanges.emplace_back();
                                        setRange(out.hostRanges.back(), rowPath, col, cell);
                                    });
                } else if (key == "kernel_launches") {
                    od::array rows;
                    if (field.value().get_array().get(rows))
                        fail(path + "/kernel_launches", "expected an array of kernel launch rows");
                    const std::size_t width =
                        readIntegerRows(rows, path + "/kernel_launches", kKernelLaunchColumns, size,
                                        [&](const std::string &rowPath, std::size_t col, const Cell &cell) {
                                            if (col == 0)
                                                out.kernelLaunches.emplace_back();
                                            setLaunch(out.kernelLaunches.back(), rowPath, col, cell);
                                        },
                                        {kKernelLaunchColumnsV4, kKernelLaunchColumnsV6});
                    if (width != 0 && launchRowWidth != 0 && width != launchRowWidth)
                        fail(path + "/kernel_launches", "kernel launch rows have " + std::to_string(width)
                                                            + " values here and " + std::to_string(launchRowWidth)
                                                            + " in an earlier repetition");
                    if (width != 0)
                        launchRowWidth = width;
                } else if (key == "op_pieces") {
                    od::array rows;
                    if (field.value().get_array().get(rows))
                        fail(path + "/op_pieces", "expected an array of op piece rows");
                    std::size_t i = 0;
                    readIntegerRows(rows, path + "/op_pieces", kOpPieceColumns, size,
                                    [&](const std::string &rowPath, std::size_t col, const Cell &cell) {
                                        if (col == 0) {
                                            countRow(path + "/op_pieces", i++);
                                            out.opPieces.emplace_back();
                                        }
                                        setPiece(out.opPieces.back(), rowPath, col, cell);
                                    });
                }
            }
            ++r;
        }
    }

    // Kernels' latency timestamps go into `latency` (sorted by op), set on the repetition's kernel
    // launches once the whole file is read and checked (Repetition::setKernelLatency).
    void readRows(simdjson::ondemand::array &rows, const std::string &path, std::vector<OpRecord> &ops,
                  std::vector<KernelLaunch> &latency, std::size_t size)
    {
        namespace od = simdjson::ondemand;
        std::size_t i = 0;
        for (auto rowValue : rows) {
            od::array row;
            if (const auto err = rowValue.get_array().get(row)) {
                if (err == simdjson::INCORRECT_TYPE)
                    fail(path + "/" + std::to_string(i), "expected an op row (an array), found something else");
                syntax(err, size);
            }
            countRow(path, i);
            OpRecord op;
            KernelLaunch launch;
            launch.op = static_cast<std::int32_t>(ops.size());
            std::size_t col = 0;
            for (auto cell : row) {
                if (col >= kOpColumns.size())
                    rowFail(path, i, col, "too many values");
                if (isTextColumn(col)) {
                    std::string_view text;
                    if (const auto err = cell.get_string().get(text))
                        err == simdjson::INCORRECT_TYPE ? rowFail(path, i, col, "expected a string")
                                                        : syntax(err, size);
                    setText(op, path, i, col, text);
                } else {
                    std::int64_t v = 0;
                    if (const auto err = cell.get_int64().get(v))
                        err == simdjson::INCORRECT_TYPE || err == simdjson::NUMBER_ERROR
                            ? rowFail(path, i, col, "expected an integer")
                            : syntax(err, size);
                    setNumber(op, launch, path, i, col, v);
                }
                ++col;
            }
            // Every row has the same width: format 1's, 2's or 5's (checked against /version later).
            if (rowWidth == 0 && (col == kOpColumnsV1 || col == kOpColumnsV2 || col == kOpColumns.size()))
                rowWidth = col;
            if (col != rowWidth)
                rowFail(path, i, col,
                        "expected " + std::to_string(rowWidth ? rowWidth : kOpColumns.size()) + " values, found "
                            + std::to_string(col));
            ops.push_back(op);
            if (launch.hasLatency())
                latency.push_back(launch);
            ++i;
        }
    }

    void readActivities(simdjson::ondemand::array &rows, const std::string &path, std::vector<ActivityRecord> &out,
                        std::size_t size)
    {
        namespace od = simdjson::ondemand;
        std::size_t i = 0;
        for (auto rowValue : rows) {
            const std::string rowPath = path + "/" + std::to_string(i);
            od::array row;
            if (const auto err = rowValue.get_array().get(row)) {
                if (err == simdjson::INCORRECT_TYPE)
                    fail(rowPath, "expected an activity row (an array), found something else");
                syntax(err, size);
            }
            countRow(path, i);
            ActivityRecord a;
            std::size_t col = 0;
            for (auto cell : row) {
                const std::string cellPath = rowPath + "/" + std::to_string(col) + " ("
                                             + std::string(col < kActivityColumns.size() ? kActivityColumns[col] : "?")
                                             + ")";
                if (col >= kActivityColumns.size())
                    fail(cellPath, "too many values: an activity row has " + std::to_string(kActivityColumns.size()));
                if (col == 0 || col == 6) {
                    std::string_view text;
                    if (const auto err = cell.get_string().get(text))
                        err == simdjson::INCORRECT_TYPE ? fail(cellPath, "expected a string") : syntax(err, size);
                    if (col == 0) {
                        const auto kind = activityKindFromString(text);
                        if (!kind)
                            fail(cellPath, "unknown activity kind \"" + std::string(text) + "\"");
                        a.kind = *kind;
                    } else {
                        const auto detail = activityDetailFromString(text);
                        if (!detail)
                            fail(cellPath, "unknown activity detail \"" + std::string(text) + "\"");
                        a.detail = *detail;
                    }
                } else if (col == 3 || col == 4) {
                    std::uint64_t v = 0;
                    if (const auto err = cell.get_uint64().get(v))
                        err == simdjson::INCORRECT_TYPE || err == simdjson::NUMBER_ERROR
                            ? fail(cellPath, "expected an unsigned integer")
                            : syntax(err, size);
                    (col == 3 ? a.value : a.address) = v;
                } else {
                    std::int64_t v = 0;
                    if (const auto err = cell.get_int64().get(v))
                        err == simdjson::INCORRECT_TYPE || err == simdjson::NUMBER_ERROR
                            ? fail(cellPath, "expected an integer")
                            : syntax(err, size);
                    if ((col == 1 || col == 2) && !limits::isTimeInRange(v))
                        fail(cellPath, timeOutOfRange(v));
                    if (col == 1)
                        a.startNs = v;
                    else if (col == 2)
                        a.endNs = v;
                    else if (v < -1 || v > std::numeric_limits<std::int32_t>::max())
                        fail(cellPath, "op index " + std::to_string(v) + " is not valid");
                    else
                        a.op = static_cast<std::int32_t>(v);
                }
                ++col;
            }
            if (col != kActivityColumns.size())
                fail(rowPath,
                     "expected " + std::to_string(kActivityColumns.size()) + " values, found " + std::to_string(col));
            out.push_back(a);
            ++i;
        }
    }

    // One value of a host range or kernel launch row: an integer, or (the range's category) a string.
    struct Cell {
        std::int64_t number = 0;
        std::string_view text;
        bool isText = false;
    };

    // Rows of `columns.size()` values each (integers, one text column at most), each value handed to
    // `set` with its row's path; a row of another width fails naming it.
    template <std::size_t N, typename Set>
    // The rows' width (0: no rows). Every row has all `columns`, or (an older format's) the first
    // `oldWidths` of them, the same in every row.
    std::size_t readIntegerRows(simdjson::ondemand::array &rows, const std::string &path,
                                const std::array<std::string_view, N> &columns, std::size_t size, Set &&set,
                                std::initializer_list<std::size_t> oldWidths = {})
    {
        namespace od = simdjson::ondemand;
        std::size_t i = 0;
        std::size_t width = 0;
        for (auto rowValue : rows) {
            const std::string rowPath = path + "/" + std::to_string(i);
            od::array row;
            if (const auto err = rowValue.get_array().get(row)) {
                if (err == simdjson::INCORRECT_TYPE)
                    fail(rowPath, "expected a row (an array), found something else");
                syntax(err, size);
            }
            std::size_t col = 0;
            for (auto value : row) {
                if (col >= columns.size())
                    fail(rowPath, "too many values: a row has " + std::to_string(columns.size()));
                const std::string cellPath =
                    rowPath + "/" + std::to_string(col) + " (" + std::string(columns[col]) + ")";
                Cell cell;
                od::json_type type;
                if (const auto err = value.type().get(type))
                    syntax(err, size);
                if (type == od::json_type::string) {
                    if (const auto err = value.get_string().get(cell.text))
                        syntax(err, size);
                    cell.isText = true;
                } else if (const auto err = value.get_int64().get(cell.number)) {
                    err == simdjson::INCORRECT_TYPE || err == simdjson::NUMBER_ERROR
                        ? fail(cellPath, "expected an integer")
                        : syntax(err, size);
                }
                set(cellPath, col, cell);
                ++col;
            }
            if (width == 0
                && (col == columns.size() || std::find(oldWidths.begin(), oldWidths.end(), col) != oldWidths.end()))
                width = col;
            if (col != width)
                fail(rowPath, "expected " + std::to_string(width ? width : columns.size()) + " values, found "
                                  + std::to_string(col));
            ++i;
        }
        return width;
    }

    std::int64_t cellInteger(const std::string &cellPath, const Cell &cell, std::int64_t lo, std::int64_t hi) const
    {
        if (cell.isText)
            fail(cellPath, "expected an integer, found a string");
        if (cell.number < lo || cell.number > hi)
            fail(cellPath, std::to_string(cell.number) + " is out of range (" + std::to_string(lo) + ".."
                               + std::to_string(hi) + ")");
        return cell.number;
    }

    // A string index column: -1 for none, else checked against /strings after the whole file is read.
    std::uint32_t cellString(const std::string &cellPath, const Cell &cell) const
    {
        const std::int64_t v = cellInteger(cellPath, cell, -1, std::numeric_limits<std::int32_t>::max());
        return v < 0 ? kNoString : static_cast<std::uint32_t>(v);
    }

    void setRange(HostRange &r, const std::string &cellPath, std::size_t col, const Cell &cell) const
    {
        switch (col) {
        case 0:
            r.nameId = cellString(cellPath, cell);
            if (r.nameId == kNoString)
                fail(cellPath, "a host range needs a name");
            break;
        case 1: {
            if (!cell.isText)
                fail(cellPath, "expected a string (nvtx, cpu_op, user_annotation or python_function)");
            const auto category = hostRangeCategoryFromString(cell.text);
            if (!category)
                fail(cellPath, "unknown host range category \"" + std::string(cell.text) + "\"");
            r.category = *category;
            break;
        }
        case 2:
            r.hostThread =
                static_cast<std::int32_t>(cellInteger(cellPath, cell, -1, std::numeric_limits<std::int32_t>::max()));
            break;
        // The times every reader lets a host range have (limits::checkTraceLimits): what one wrote, this reads.
        case 3: r.startNs = cellInteger(cellPath, cell, -limits::kMaxTimeNs, limits::kMaxTimeNs); break;
        case 4:
            r.endNs = cellInteger(cellPath, cell, -limits::kMaxTimeNs, limits::kMaxTimeNs);
            if (r.endNs < r.startNs)
                fail(cellPath, "a host range ends before it starts");
            break;
        default: r.domainId = cellString(cellPath, cell); break;
        }
    }

    void setLaunch(KernelLaunch &l, const std::string &cellPath, std::size_t col, const Cell &cell) const
    {
        constexpr std::int64_t kU32 = std::numeric_limits<std::uint32_t>::max();
        constexpr std::int64_t kI32 = std::numeric_limits<std::int32_t>::max();
        switch (col) {
        case 0: l.op = static_cast<std::int32_t>(cellInteger(cellPath, cell, 0, kI32)); break;
        case 1:
        case 2:
        case 3: l.grid[col - 1] = static_cast<std::uint32_t>(cellInteger(cellPath, cell, 0, kU32)); break;
        case 4:
        case 5:
        case 6: l.block[col - 4] = static_cast<std::uint32_t>(cellInteger(cellPath, cell, 0, kU32)); break;
        case 7: l.registersPerThread = static_cast<std::int32_t>(cellInteger(cellPath, cell, -1, kI32)); break;
        case 8: l.sharedBytes = cellInteger(cellPath, cell, -1, std::numeric_limits<std::int64_t>::max()); break;
        case 9: l.staticSharedBytes = static_cast<std::int32_t>(cellInteger(cellPath, cell, -1, kI32)); break;
        case 10: l.dynamicSharedBytes = static_cast<std::int32_t>(cellInteger(cellPath, cell, -1, kI32)); break;
        case 11: l.fullNameId = cellString(cellPath, cell); break;
        case 12:
            l.flops =
                static_cast<std::uint64_t>(cellInteger(cellPath, cell, 0, std::numeric_limits<std::int64_t>::max()));
            break;
        case 13: l.workId = cellString(cellPath, cell); break;
        default:
            l.busBytes =
                static_cast<std::uint64_t>(cellInteger(cellPath, cell, 0, std::numeric_limits<std::int64_t>::max()));
            break;
        }
    }

    void setPiece(OpPiece &p, const std::string &cellPath, std::size_t col, const Cell &cell) const
    {
        constexpr std::int64_t kI32 = std::numeric_limits<std::int32_t>::max();
        constexpr std::int64_t kI16 = std::numeric_limits<std::int16_t>::max();
        switch (col) {
        case 0: p.op = static_cast<std::int32_t>(cellInteger(cellPath, cell, 0, kI32)); break;
        case 1: {
            const auto kind = cell.isText ? pieceKindFromString(cell.text) : std::nullopt;
            if (!kind)
                fail(cellPath, "expected a piece kind (kernel, copy or memset)");
            p.kind = *kind;
            break;
        }
        case 2: p.startNs = cellInteger(cellPath, cell, -limits::kMaxTimeNs, limits::kMaxTimeNs); break;
        case 3:
            p.endNs = cellInteger(cellPath, cell, -limits::kMaxTimeNs, limits::kMaxTimeNs);
            if (p.endNs < p.startNs)
                fail(cellPath, "a piece ends before it starts");
            break;
        case 4:
            p.bytes =
                static_cast<std::uint64_t>(cellInteger(cellPath, cell, 0, std::numeric_limits<std::int64_t>::max()));
            break;
        case 5: p.nameId = cellString(cellPath, cell); break;
        case 6: p.channel = static_cast<std::int32_t>(cellInteger(cellPath, cell, -1, kI32)); break;
        case 7: {
            const auto type = cell.isText ? channelTypeFromString(cell.text) : std::nullopt;
            if (!type)
                fail(cellPath, "expected a channel type (unknown, compute or async_copy)");
            p.channelType = *type;
            break;
        }
        case 8: p.srcDevice = static_cast<std::int16_t>(cellInteger(cellPath, cell, -1, kI16)); break;
        default: p.dstDevice = static_cast<std::int16_t>(cellInteger(cellPath, cell, -1, kI16)); break;
        }
    }

public:
    std::size_t rowWidth = 0; // values per op row, 0 before the first row
    std::size_t launchRowWidth = 0; // values per kernel launch row, 0 before the first row

private:
    [[noreturn]] void rowFail(const std::string &path, std::size_t row, std::size_t col, const std::string &what) const
    {
        const std::string name = col < kOpColumns.size() ? std::string(kOpColumns[col]) : "?";
        fail(path + "/" + std::to_string(row) + "/" + std::to_string(col) + " (" + name + ")", what);
    }

    static std::string timeOutOfRange(std::int64_t v)
    {
        return std::to_string(v) + " ns is out of range: StreamScope reads times within ±"
               + std::to_string(limits::kMaxTimeNs) + " ns (" + limits::describeSpan(limits::kMaxTimeNs) + ")";
    }

    void setNumber(OpRecord &op, KernelLaunch &launch, const std::string &path, std::size_t row, std::size_t col,
                   std::int64_t v) const
    {
        // Indexes and ids: 32-bit, -1 for none (a wrapped 2^32 would have been stream 0).
        const auto int32 = [&]() -> std::int32_t {
            if (v < -1 || v > std::numeric_limits<std::int32_t>::max())
                rowFail(path, row, col, "expected -1 (none) or an index up to 2147483647, found " + std::to_string(v));
            return static_cast<std::int32_t>(v);
        };
        const auto time = [&]() -> std::int64_t {
            if (!limits::isTimeInRange(v))
                rowFail(path, row, col, timeOutOfRange(v));
            return v;
        };
        switch (col) {
        case 0:
            if (v < 0 || v > std::numeric_limits<std::uint32_t>::max())
                rowFail(path, row, col, "name index " + std::to_string(v) + " is not valid");
            op.nameId = static_cast<std::uint32_t>(v);
            break;
        case 2: op.stream = int32(); break;
        case 3: op.hostThread = int32(); break;
        case 4: op.opIndex = int32(); break;
        case 5: op.gpuStartNs = time(); break;
        case 6: op.gpuEndNs = time(); break;
        case 7: op.hostStartNs = time(); break;
        case 8: op.hostEndNs = time(); break;
        case 9:
            if (v < 0)
                rowFail(path, row, col, "bytes must not be negative");
            op.bytes = static_cast<std::uint64_t>(v);
            break;
        case 13:
            if (v < 0 || v > std::numeric_limits<std::uint8_t>::max())
                rowFail(path, row, col, "flags " + std::to_string(v) + " are not valid (0..255)");
            op.flags = static_cast<std::uint8_t>(v);
            break;
        case 14:
            if (v < 0)
                rowFail(path, row, col, "a correlation id must not be negative");
            op.correlation = static_cast<std::uint64_t>(v);
            break;
        case 15: op.readyNs = time(); break;
        case 16: op.eventEndNs = time(); break;
        case 17: launch.queuedNs = time(); break;
        case 18: launch.submittedNs = time(); break;
        case 19:
            if (v < -1 || v > std::numeric_limits<std::int16_t>::max())
                rowFail(path, row, col, "expected -1 (unknown) or a channel up to 32767, found " + std::to_string(v));
            op.channel = static_cast<std::int16_t>(v);
            break;
        case 23:
        case 24: {
            if (v < -1 || v >= static_cast<std::int64_t>(limits::kMaxDevices))
                rowFail(path, row, col,
                        "expected -1 (not recorded) or a device index below " + std::to_string(limits::kMaxDevices)
                            + ", found " + std::to_string(v));
            (col == 23 ? op.srcDevice : op.dstDevice) = static_cast<std::int8_t>(v);
            break;
        }
        default: rowFail(path, row, col, "expected a string, found a number");
        }
    }

    // An enum-valued column: the value its name reads back as, or an error naming the unknown name.
    template <typename E>
    void setEnum(E &out, std::optional<E> parsed, const std::string &path, std::size_t row, std::size_t col,
                 std::string_view v, const char *what) const
    {
        if (!parsed)
            rowFail(path, row, col, std::string("unknown ") + what + " \"" + std::string(v) + "\"");
        out = *parsed;
    }

    void setText(OpRecord &op, const std::string &path, std::size_t row, std::size_t col, std::string_view v) const
    {
        switch (col) {
        case 1: setEnum(op.kind, opKindFromString(v), path, row, col, v, "op kind"); break;
        case 10: setEnum(op.srcMem, memKindFromString(v), path, row, col, v, "memory kind"); break;
        case 11: setEnum(op.dstMem, memKindFromString(v), path, row, col, v, "memory kind"); break;
        case 12: setEnum(op.api, copyApiFromString(v), path, row, col, v, "copy API"); break;
        case 20: setEnum(op.channelType, channelTypeFromString(v), path, row, col, v, "channel type"); break;
        case 21: setEnum(op.driverSrcMem, memKindFromString(v), path, row, col, v, "memory kind"); break;
        case 22: setEnum(op.driverDstMem, memKindFromString(v), path, row, col, v, "memory kind"); break;
        default: rowFail(path, row, col, "expected a number, found a string");
        }
    }

    // Every cell of every row: the limits of engine/model/limits.h checked as the rows are read.
    void countRow(const std::string &path, std::size_t row)
    {
        if (++m_rows > limits::kMaxOps)
            fail(path + "/" + std::to_string(row), "more than " + std::to_string(limits::kMaxOps)
                                                       + " ops and activities: StreamScope reads at most "
                                                       + std::to_string(limits::kMaxOps) + " ops per trace");
        if (m_rows % 65536 == 0)
            throwIfInterrupted();
    }

    Trace &m_trace;
    std::string m_file;
    std::string_view m_text;
    std::size_t m_rows = 0;
};

} // namespace

std::string devicesToJson(const std::vector<DeviceInfo> &devices)
{
    json arr = json::array();
    for (const auto &d : devices)
        arr.push_back(deviceToJson(d));
    return arr.dump(2);
}

std::string peerLinksToJson(const std::vector<PeerLink> &links)
{
    json arr = json::array();
    for (const auto &l : links)
        arr.push_back(peerLinkToJson(l));
    return arr.dump(2);
}

namespace {

// The native format's header: every member but the repetitions (and the solo baselines), which
// toNativeJson writes after it by hand. readNativeHeader reads it back.
json nativeHeader(const Trace &trace)
{
    json head = json::object();
    head["format"] = kNativeFormatName;
    head["version"] = kTraceFormatVersion;
    head["source"] = toString(trace.source);
    writeNativeFields(head, trace, header::kTraceFields);
    head["metadata"] = trace.metadata;
    head["timing"] = toString(trace.timing);
    if (!trace.timingNote.empty())
        head["timing_note"] = trace.timingNote;
    head["devices"] = json::array();
    for (const auto &d : trace.devices)
        head["devices"].push_back(deviceToJson(d));
    if (!trace.peerLinks.empty()) {
        head["peer_links"] = json::array();
        for (const auto &l : trace.peerLinks)
            head["peer_links"].push_back(peerLinkToJson(l));
    }
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
    for (const auto &s : trace.streams) {
        json stream = json::object();
        writeNativeFields(stream, s, header::kStreamFields);
        head["streams"].push_back(std::move(stream));
    }
    head["host_threads"] = json::array();
    for (const auto &t : trace.hostThreads) {
        json thread = json::object();
        writeNativeFields(thread, t, header::kHostThreadFields);
        head["host_threads"].push_back(std::move(thread));
    }
    head["op_columns"] = kOpColumns;
    head["activity_columns"] = kActivityColumns;
    head["host_range_columns"] = kHostRangeColumns;
    head["kernel_launch_columns"] = kKernelLaunchColumns;
    head["op_piece_columns"] = kOpPieceColumns;
    head["strings"] = trace.strings;
    return head;
}

} // namespace

std::string toNativeJson(const Trace &trace)
{
    const json head = nativeHeader(trace);

    // The header, less its closing brace, then the repetitions written by hand. Imported names may hold
    // bytes that are not UTF-8 (an Nsight StringIds value is any bytes): each invalid one is written as
    // U+FFFD, as the Chrome export does, so that what is written is JSON this reader reads back (strict
    // dumping threw, an internal error).
    std::string out = head.dump(1, ' ', false, json::error_handler_t::replace);
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
        std::size_t launch = 0; // the first kernel launch at or after op i
        for (std::size_t i = 0; i < rep.ops.size(); ++i) {
            const OpRecord &op = rep.ops[i];
            // A kernel's latency timestamps are kept with its launch, written in its op row.
            while (launch < rep.kernelLaunches.size() && rep.kernelLaunches[launch].op < static_cast<std::int64_t>(i))
                ++launch;
            const bool hasLaunch =
                launch < rep.kernelLaunches.size() && rep.kernelLaunches[launch].op == static_cast<std::int64_t>(i);
            const std::int64_t queued = hasLaunch ? rep.kernelLaunches[launch].queuedNs : kNoTime;
            const std::int64_t submitted = hasLaunch ? rep.kernelLaunches[launch].submittedNs : kNoTime;
            // In the order of kOpColumns.
            appendRow(out, i, op.nameId, toString(op.kind), op.stream, op.hostThread, op.opIndex, op.gpuStartNs,
                      op.gpuEndNs, op.hostStartNs, op.hostEndNs, op.bytes, toString(op.srcMem), toString(op.dstMem),
                      toString(op.api), op.flags, op.correlation, op.readyNs, op.eventEndNs, queued, submitted,
                      op.channel, toString(op.channelType), toString(op.driverSrcMem), toString(op.driverDstMem),
                      op.srcDevice, op.dstDevice);
        }
        out += ']';
        if (!rep.activities.empty()) {
            out += ", \"activities\": [";
            for (std::size_t i = 0; i < rep.activities.size(); ++i) {
                const ActivityRecord &a = rep.activities[i];
                appendRow(out, i, toString(a.kind), a.startNs, a.endNs, a.value, a.address, a.op, toString(a.detail));
            }
            out += ']';
        }
        auto stringIndex = [](std::uint32_t id) { return id == kNoString ? std::int64_t(-1) : std::int64_t(id); };
        if (!rep.hostRanges.empty()) {
            out += ", \"host_ranges\": [";
            for (std::size_t i = 0; i < rep.hostRanges.size(); ++i) {
                const HostRange &h = rep.hostRanges[i];
                appendRow(out, i, h.nameId, toString(h.category), h.hostThread, h.startNs, h.endNs,
                          stringIndex(h.domainId));
            }
            out += ']';
        }
        // The rows of the launches with details (one with only latency timestamps has its op row's).
        if (std::any_of(rep.kernelLaunches.begin(), rep.kernelLaunches.end(),
                        [](const KernelLaunch &l) { return l.hasDetails(); })) {
            out += ", \"kernel_launches\": [";
            std::size_t row = 0;
            for (const KernelLaunch &l : rep.kernelLaunches) {
                if (!l.hasDetails())
                    continue;
                appendRow(out, row++, l.op, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
                          l.registersPerThread, l.sharedBytes, l.staticSharedBytes, l.dynamicSharedBytes,
                          stringIndex(l.fullNameId), l.flops, stringIndex(l.workId), l.busBytes);
            }
            out += ']';
        }
        if (!rep.opPieces.empty()) {
            out += ", \"op_pieces\": [";
            for (std::size_t i = 0; i < rep.opPieces.size(); ++i) {
                const OpPiece &p = rep.opPieces[i];
                appendRow(out, i, p.op, toString(p.kind), p.startNs, p.endNs, p.bytes, stringIndex(p.nameId), p.channel,
                          toString(p.channelType), p.srcDevice, p.dstDevice);
            }
            out += ']';
        }
        out += '}';
    }
    out += "\n ]";
    if (!trace.solo.empty()) {
        const SoloBaselines &solo = trace.solo;
        json head2 = {{"parts", solo.parts}, {"stream_part", solo.streamPart}, {"op_columns", kSoloOpColumns}};
        if (!solo.missing.empty())
            head2["missing"] = solo.missing;
        std::string soloHead = head2.dump();
        soloHead.pop_back(); // '}'
        out += ",\n \"solo\": " + soloHead + ", \"runs\": [";
        for (std::size_t r = 0; r < solo.runs.size(); ++r) {
            const SoloRun &run = solo.runs[r];
            out += r ? ",\n  {\"part\": " : "\n  {\"part\": ";
            appendInt(out, run.part);
            out += ", \"round\": ";
            appendInt(out, run.round);
            out += ", \"ops\": [";
            for (std::size_t i = 0; i < run.ops.size(); ++i) {
                const OpRecord &op = run.ops[i];
                appendRow(out, i, op.opIndex, op.gpuStartNs, op.gpuEndNs, op.readyNs, op.eventEndNs, op.hostStartNs,
                          op.hostEndNs, op.flags);
            }
            out += "]}";
        }
        out += "\n ]}";
    }
    out += "\n}\n";
    return out;
}

namespace {

// /solo, checked and joined to repetition 0's ops (kSoloOpColumns).
template <typename Runs> void readSoloBaselines(Trace &trace, const json &h, const Runs &runs, HeaderReader &r)
{
    SoloBaselines &solo = trace.solo;
    if (!h.contains("parts") || !h["parts"].is_array() || h["parts"].size() < 2)
        r.fail("/solo/parts", "expected the names of two parts or more");
    if (h["parts"].size() > limits::kMaxStreams)
        r.fail("/solo/parts", "more parts than streams can be (" + std::to_string(limits::kMaxStreams) + ")");
    for (std::size_t i = 0; i < h["parts"].size(); ++i) {
        if (!h["parts"][i].is_string())
            r.fail("/solo/parts/" + std::to_string(i), "expected a part's name");
        solo.parts.push_back(h["parts"][i].get<std::string>());
    }
    if (!h.contains("stream_part") || !h["stream_part"].is_array() || h["stream_part"].size() != trace.streams.size())
        r.fail("/solo/stream_part",
               "expected each stream's part (" + std::to_string(trace.streams.size()) + " values)");
    for (std::size_t i = 0; i < h["stream_part"].size(); ++i) {
        const json &v = h["stream_part"][i];
        if (!v.is_number_integer() || v.get<std::int64_t>() < -1
            || v.get<std::int64_t>() >= std::int64_t(solo.parts.size()))
            r.fail("/solo/stream_part/" + std::to_string(i),
                   "expected a part index 0.." + std::to_string(solo.parts.size() - 1) + " or -1");
        solo.streamPart.push_back(v.get<std::int32_t>());
    }
    if (h.contains("missing")) {
        if (!h["missing"].is_string())
            r.fail("/solo/missing", "expected a sentence");
        solo.missing = h["missing"].get<std::string>();
    }
    if (trace.repetitions.empty())
        r.fail("/solo", "solo baselines need the repetitions they are the baselines of");
    const std::vector<OpRecord> &ops = trace.repetitions.front().ops;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        const auto &in = runs[k];
        const std::string path = "/solo/runs/" + std::to_string(k);
        if (in.part >= std::int64_t(solo.parts.size()))
            r.fail(path + "/part", "part " + std::to_string(in.part) + " is not in /solo/parts");
        SoloRun &run = solo.runs.emplace_back();
        run.part = int(in.part);
        run.round = int(in.round);
        run.ops.reserve(in.rows.size());
        for (std::size_t i = 0; i < in.rows.size(); ++i) {
            const std::int64_t *v = in.rows[i].values;
            const std::string p = path + "/ops/" + std::to_string(i);
            if (v[0] < 0 || v[0] >= std::int64_t(ops.size()))
                r.fail(p + "/0", "op " + std::to_string(v[0]) + " is not an op of the repetitions ("
                                     + std::to_string(ops.size()) + " ops)");
            OpRecord op = ops[std::size_t(v[0])];
            if (op.stream < 0 || solo.streamPart[std::size_t(op.stream)] != run.part)
                r.fail(p + "/0",
                       "op " + std::to_string(v[0]) + " is not on a stream of part " + std::to_string(run.part));
            for (std::size_t c = 1; c <= 6; ++c)
                if (!limits::isTimeInRange(v[c]))
                    r.fail(p + "/" + std::to_string(c), "expected a time (ns) or -1 for none");
            if (v[7] < 0 || v[7] > 255)
                r.fail(p + "/7", "expected flags 0..255");
            op.opIndex = std::int32_t(v[0]);
            op.gpuStartNs = v[1];
            op.gpuEndNs = v[2];
            op.readyNs = v[3];
            op.eventEndNs = v[4];
            op.hostStartNs = v[5];
            op.hostEndNs = v[6];
            op.flags = std::uint8_t(v[7]);
            op.hostRange = -1;
            if (op.hasGpu() && op.gpuEndNs < op.gpuStartNs)
                r.fail(p + "/2", "GPU end is before GPU start");
            if (op.hasHost() && op.hostEndNs < op.hostStartNs)
                r.fail(p + "/6", "host end is before host start");
            run.ops.push_back(op);
        }
    }
}

// /peer_links: what the run recorded of each ordered pair of GPUs.
void readPeerLinks(const json &h, Trace &trace, HeaderReader &r)
{
    if (h.contains("peer_links")) {
        const json &links = h["peer_links"];
        if (!links.is_array())
            r.fail("/peer_links", "expected an array");
        if (links.size() > limits::kMaxDevices * limits::kMaxDevices)
            r.fail("/peer_links", "more than " + std::to_string(limits::kMaxDevices * limits::kMaxDevices) + " links ("
                                      + std::to_string(limits::kMaxDevices) + " devices at most)");
        for (std::size_t i = 0; i < links.size(); ++i) {
            const std::string p = "/peer_links/" + std::to_string(i);
            if (!links[i].is_object())
                r.fail(p, "expected an object");
            PeerLink l;
            r.get(links[i], p, "src", l.src, true);
            r.get(links[i], p, "dst", l.dst, true);
            for (const auto &[name, value] : {std::pair{"src", l.src}, std::pair{"dst", l.dst}})
                if (value < 0 || value >= static_cast<int>(limits::kMaxDevices))
                    r.fail(p + "/" + name, "expected a device index 0.." + std::to_string(limits::kMaxDevices - 1)
                                               + ", found " + std::to_string(value));
            r.get(links[i], p, "access_supported", l.accessSupported);
            r.get(links[i], p, "access_enabled", l.accessEnabled);
            std::string link = "unknown";
            r.get(links[i], p, "link", link);
            const auto type = linkTypeFromString(link);
            if (!type)
                r.fail(p + "/link", "expected \"unknown\", \"same\", \"pcie\" or \"nvlink\", found \"" + link + "\"");
            l.link = *type;
            r.get(links[i], p, "performance_rank", l.performanceRank);
            r.get(links[i], p, "nvlink_count", l.nvlinkCount);
            r.get(links[i], p, "peak_gbps", l.peakGBps);
            if (!(l.peakGBps >= 0 && l.peakGBps < 1e6))
                r.fail(p + "/peak_gbps", "expected 0 (unknown) or a peak in GB/s below 1e6");
            trace.peerLinks.push_back(l);
        }
    }
}

// /streams, /host_threads and /strings: the tables the op rows index.
void readStreamsThreadsAndStrings(const json &h, Trace &trace, HeaderReader &r)
{
    if (h.contains("streams")) {
        if (!h["streams"].is_array())
            r.fail("/streams", "expected an array");
        for (std::size_t i = 0; i < h["streams"].size(); ++i) {
            const std::string p = "/streams/" + std::to_string(i);
            const json &s = h["streams"][i];
            if (!s.is_object())
                r.fail(p, "expected an object describing a stream");
            StreamInfo info;
            readNativeFields(s, p, info, header::kStreamFields, r);
            trace.streams.push_back(std::move(info));
        }
    }
    if (h.contains("host_threads") && h["host_threads"].is_array())
        for (std::size_t i = 0; i < h["host_threads"].size(); ++i) {
            const std::string p = "/host_threads/" + std::to_string(i);
            HostThreadInfo t;
            readNativeFields(h["host_threads"][i], p, t, header::kHostThreadFields, r);
            trace.hostThreads.push_back(std::move(t));
        }
    if (h.contains("strings")) {
        if (!h["strings"].is_array())
            r.fail("/strings", "expected an array of op names");
        for (std::size_t i = 0; i < h["strings"].size(); ++i) {
            if (!h["strings"][i].is_string())
                r.fail("/strings/" + std::to_string(i), "expected a string");
            trace.strings.push_back(h["strings"][i].get<std::string>());
        }
    }
}

// Every index an op row, activity, host range or kernel launch holds points into the file (host ranges are
// laid out on their threads' rows here too).
void checkCrossReferences(Trace &trace, HeaderReader &r)
{
    // Cross-references, so that every later consumer can index without checking.
    for (std::size_t r2 = 0; r2 < trace.repetitions.size(); ++r2)
        for (std::size_t i = 0; i < trace.repetitions[r2].ops.size(); ++i) {
            const OpRecord &op = trace.repetitions[r2].ops[i];
            const std::string p = "/repetitions/" + std::to_string(r2) + "/ops/" + std::to_string(i);
            if (op.nameId >= trace.strings.size())
                r.fail(p + "/0", "name index " + std::to_string(op.nameId) + " is not in /strings ("
                                     + std::to_string(trace.strings.size()) + " names)");
            if (op.stream < -1 || op.stream >= static_cast<int>(trace.streams.size()))
                r.fail(p + "/2", "stream " + std::to_string(op.stream) + " is not in /streams ("
                                     + std::to_string(trace.streams.size()) + " streams)");
            if (op.hostThread < -1 || op.hostThread >= static_cast<int>(trace.hostThreads.size()))
                r.fail(p + "/3", "host thread " + std::to_string(op.hostThread) + " is not in /host_threads");
            if (op.hasGpu() && op.gpuEndNs < op.gpuStartNs)
                r.fail(p + "/6", "GPU end is before GPU start");
            if (op.hasHost() && op.hostEndNs < op.hostStartNs)
                r.fail(p + "/8", "host end is before host start");
        }
    for (std::size_t r2 = 0; r2 < trace.repetitions.size(); ++r2) {
        const Repetition &rep = trace.repetitions[r2];
        for (std::size_t i = 0; i < rep.activities.size(); ++i) {
            const ActivityRecord &a = rep.activities[i];
            const std::string p = "/repetitions/" + std::to_string(r2) + "/activities/" + std::to_string(i);
            if (a.op >= static_cast<std::int64_t>(rep.ops.size()))
                r.fail(p + "/5", "op " + std::to_string(a.op) + " is not an op of this repetition ("
                                     + std::to_string(rep.ops.size()) + " ops)");
            if (a.startNs == kNoTime || a.endNs < a.startNs)
                r.fail(p + "/2", "an activity needs a start, and an end no earlier than it");
        }
    }
    // Host ranges and kernel launches (format 4): every index they hold points into the file.
    const auto strings = trace.strings.size();
    const auto threads = trace.hostThreads.size();
    for (std::size_t r2 = 0; r2 < trace.repetitions.size(); ++r2) {
        Repetition &rep = trace.repetitions[r2];
        const std::string base = "/repetitions/" + std::to_string(r2);
        if (trace.formatVersion < 8 && !rep.opPieces.empty())
            r.fail(base + "/op_pieces",
                   "op pieces need trace format 8, the file has version " + std::to_string(trace.formatVersion));
        if (trace.formatVersion < 4 && (!rep.hostRanges.empty() || !rep.kernelLaunches.empty()))
            r.fail(base, "host ranges and kernel launches need trace format 4, the file has version "
                             + std::to_string(trace.formatVersion));
        for (std::size_t i = 0; i < rep.hostRanges.size(); ++i) {
            const HostRange &h = rep.hostRanges[i];
            const std::string p = base + "/host_ranges/" + std::to_string(i);
            if (h.nameId >= strings)
                r.fail(p + "/0", "name index " + std::to_string(h.nameId) + " is not in /strings ("
                                     + std::to_string(strings) + " names)");
            if (h.domainId != kNoString && h.domainId >= strings)
                r.fail(p + "/5", "domain index " + std::to_string(h.domainId) + " is not in /strings");
            if (h.hostThread >= static_cast<std::int64_t>(threads))
                r.fail(p + "/2", "host thread " + std::to_string(h.hostThread) + " is not in /host_threads");
        }
        for (std::size_t i = 0; i < rep.kernelLaunches.size(); ++i) {
            const KernelLaunch &l = rep.kernelLaunches[i];
            const std::string p = base + "/kernel_launches/" + std::to_string(i);
            if (static_cast<std::size_t>(l.op) >= rep.ops.size())
                r.fail(p + "/0", "op " + std::to_string(l.op) + " is not an op of this repetition ("
                                     + std::to_string(rep.ops.size()) + " ops)");
            if (i > 0 && l.op <= rep.kernelLaunches[i - 1].op)
                r.fail(p + "/0", "kernel launches must be in op order, one per op");
            if (l.fullNameId != kNoString && l.fullNameId >= strings)
                r.fail(p + "/11", "name index " + std::to_string(l.fullNameId) + " is not in /strings");
            if (l.workId != kNoString && l.workId >= strings)
                r.fail(p + "/13", "work index " + std::to_string(l.workId) + " is not in /strings");
        }
        layoutHostRanges(rep);
    }
}

// Reads the native header (nativeHeader writes it) into trace, whose repetitions are read already: their
// op rows are `rowWidth` values wide (0: no rows), which the format version must agree with.
void readNativeHeader(const json &h, std::size_t rowWidth, Trace &trace, HeaderReader &r)
{
    std::string format;
    r.get(h, "", "format", format);
    if (format != kNativeFormatName)
        r.fail("/format", "expected \"" + std::string(kNativeFormatName) + "\", found "
                              + (h.contains("format") ? h["format"].dump() : std::string("nothing"))
                              + ": this is not a StreamScope trace");
    r.get(h, "", "version", trace.formatVersion, true);
    if (trace.formatVersion < 1 || trace.formatVersion > kTraceFormatVersion)
        r.fail("/version", "this StreamScope reads trace format versions 1.." + std::to_string(kTraceFormatVersion)
                               + ", the file has version " + std::to_string(trace.formatVersion));
    const std::size_t columns = opColumnsFor(trace.formatVersion);
    if (h.contains("op_columns")) {
        const json &cols = h["op_columns"];
        bool same = cols.is_array() && cols.size() == columns;
        for (std::size_t i = 0; same && i < columns; ++i)
            same = cols[i].is_string() && cols[i].get<std::string>() == kOpColumns[i];
        if (!same)
            r.fail("/op_columns", "unexpected op columns " + cols.dump() + " for format version "
                                      + std::to_string(trace.formatVersion));
    }
    if (rowWidth != 0 && rowWidth != columns)
        r.fail("/repetitions", "op rows have " + std::to_string(rowWidth) + " values, but format version "
                                   + std::to_string(trace.formatVersion) + " has " + std::to_string(columns));
    std::string source = "streamscope";
    r.get(h, "", "source", source);
    if (const auto known = traceSourceFromString(source))
        trace.source = *known;
    else
        r.fail("/source", "expected \"streamscope\", \"nsys-sqlite\" or \"chrome-json\", found \"" + source + "\"");
    if (trace.formatVersion >= 2) {
        std::string timing;
        r.get(h, "", "timing", timing, true);
        const auto source = timingSourceFromString(timing);
        if (!source)
            r.fail("/timing", "expected \"cupti\", \"events\" or \"profiler\", found \"" + timing + "\"");
        trace.timing = *source;
        r.get(h, "", "timing_note", trace.timingNote);
    } else {
        // Format 1 had only the event pair: execution and stream-ready are the same moment.
        if (trace.source == TraceSource::StreamScope) {
            trace.timing = TimingSource::Events;
            trace.timingNote = "trace format 1: timed by CUDA events only (recorded before StreamScope timed "
                               "execution with CUPTI), so queued time is drawn as execution";
            for (Repetition &rep : trace.repetitions)
                for (OpRecord &op : rep.ops) {
                    op.readyNs = op.gpuStartNs;
                    op.eventEndNs = op.gpuEndNs;
                }
        } else {
            trace.timing = TimingSource::Profiler;
        }
    }
    readNativeFields(h, "", trace, header::kTraceFields, r);
    if (h.contains("metadata") && h["metadata"].is_object())
        for (const auto &[k, v] : h["metadata"].items())
            trace.metadata[k] = v.is_string() ? v.get<std::string>() : v.dump();
    if (h.contains("devices")) {
        if (!h["devices"].is_array())
            r.fail("/devices", "expected an array");
        for (std::size_t i = 0; i < h["devices"].size(); ++i)
            trace.devices.push_back(deviceFromJson(h["devices"][i], "/devices/" + std::to_string(i), r));
    }
    readPeerLinks(h, trace, r);
    if (h.contains("calibration") && h["calibration"].is_object()) {
        const json &c = h["calibration"];
        r.get(c, "/calibration", "sm_clock_hz", trace.calibration.smClockHz);
        r.get(c, "/calibration", "spin_overhead_ns", trace.calibration.spinOverheadNs);
        r.get(c, "/calibration", "event_pair_overhead_ns", trace.calibration.eventPairOverheadNs);
        r.get(c, "/calibration", "gpu_to_host_offset_ns", trace.calibration.gpuToHostOffsetNs);
    }
    if (h.contains("workload") && !h["workload"].is_null())
        trace.workloadJson = h["workload"].is_string() ? h["workload"].get<std::string>() : h["workload"].dump(2);
    readStreamsThreadsAndStrings(h, trace, r);
}

} // namespace

namespace {
Trace fromPaddedNativeJson(simdjson::padded_string_view text, const std::string &fileName)
{
    checkJsonNesting(text, fileName);
    Trace trace;
    NativeReader reader(trace, fileName);
    reader.read(text);
    const json &h = reader.header;
    HeaderReader r(fileName);
    readNativeHeader(h, reader.rowWidth, trace, r);
    const std::size_t launchWidth = trace.formatVersion >= 7   ? kKernelLaunchColumns.size()
                                    : trace.formatVersion >= 6 ? kKernelLaunchColumnsV6
                                                               : kKernelLaunchColumnsV4;
    if (trace.formatVersion >= 4 && reader.launchRowWidth != 0 && reader.launchRowWidth != launchWidth)
        r.fail("/repetitions", "kernel launch rows have " + std::to_string(reader.launchRowWidth)
                                   + " values, but format version " + std::to_string(trace.formatVersion) + " has "
                                   + std::to_string(launchWidth));
    checkCrossReferences(trace, r);
    for (std::size_t i = 0; i < reader.latency.size() && i < trace.repetitions.size(); ++i)
        trace.repetitions[i].setKernelLatency(reader.latency[i]);
    if (reader.hasSolo)
        readSoloBaselines(trace, reader.soloHeader, reader.soloRuns, r);
    limits::checkTraceLimits(trace, fileName);
    rebuildStringIndex(trace);
    return trace;
}
} // namespace

Trace fromNativeJson(std::string_view text, const std::string &fileName)
{
    const simdjson::padded_string padded(text);
    return fromPaddedNativeJson(padded, fileName);
}

Trace fromNativeJson(std::string &text, const std::string &fileName)
{
    // Read in place: the string's capacity gives simdjson its padding (readFile and gunzip leave room).
    static_assert(kReadFilePadding >= simdjson::SIMDJSON_PADDING);
    if (text.capacity() < text.size() + simdjson::SIMDJSON_PADDING)
        text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
    return fromPaddedNativeJson(simdjson::padded_string_view(text.data(), text.size(), text.capacity()), fileName);
}

void writeNativeTrace(const Trace &trace, const std::string &path)
{
    memoryChecked(path + ": not enough memory to write these " + std::to_string(trace.opCount()) + " ops",
                  [&] { writeFileAtomically(path, toNativeJson(trace)); });
}

Trace readNativeTrace(const std::string &path)
{
    std::string text = readFile(path);
    Trace t = fromNativeJson(text, path);
    if (t.sourcePath.empty())
        t.sourcePath = path;
    return t;
}

} // namespace streamscope::engine
