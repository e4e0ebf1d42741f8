// The comparison file (.sscompare): writing with each variant's native trace spliced in as it is
// written by toNativeJson (no second encoding of the largest part), reading with every problem named
// by file and JSON pointer.
#include "engine/experiment/comparison_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/formats/native_format.h"
#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "engine/model/limits.h"
#include "engine/util/file_util.h"
#include "engine/util/json_limits.h"

namespace streamscope::engine {

namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void fail(const std::string &fileName, const std::string &path, const std::string &message)
{
    throw Error(ErrorKind::InvalidInput, fileName + ": " + (path.empty() ? "/" : path) + ": " + message);
}

std::string found(const Json &v)
{
    std::string text = v.dump();
    if (text.size() > 40)
        text = text.substr(0, 37) + "...";
    return "found " + text;
}

const Json &member(const Json &obj, const std::string &key, const std::string &fileName, const std::string &path)
{
    const auto it = obj.find(key);
    if (it == obj.end())
        fail(fileName, path + "/" + key, "missing");
    return *it;
}

std::string stringMember(const Json &obj, const std::string &key, const std::string &fileName, const std::string &path,
                         bool required)
{
    const auto it = obj.find(key);
    if (it == obj.end()) {
        if (required)
            fail(fileName, path + "/" + key, "missing (expected a string)");
        return {};
    }
    if (!it->is_string())
        fail(fileName, path + "/" + key, "expected a string, " + found(*it));
    return it->get<std::string>();
}

// An integer that fits an int: nlohmann's get<int>() would read 2^32+1 as 1.
int intValue(const Json &v, const std::string &fileName, const std::string &path)
{
    constexpr auto kMin = std::numeric_limits<int>::min(), kMax = std::numeric_limits<int>::max();
    const bool inRange = v.is_number_unsigned()  ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(kMax)
                         : v.is_number_integer() ? v.get<std::int64_t>() >= kMin && v.get<std::int64_t>() <= kMax
                                                 : false;
    if (!inRange)
        fail(fileName, path,
             "expected an integer from " + std::to_string(kMin) + " to " + std::to_string(kMax) + ", " + found(v));
    return static_cast<int>(v.get<std::int64_t>());
}

// A variant's trace file: a relative path to a regular file in the comparison's folder or below it,
// symbolic links resolved (a comparison from someone else must not make StreamScope read /dev/zero,
// ~/.ssh or anything else outside the folder it came in). The path is checked, then the file opened once
// and what was opened checked again (its real path, by its descriptor): a link swapped in between the
// check and the read leads nowhere else. The trace is read through that descriptor.
class TraceFileHandle {
public:
    TraceFileHandle(const std::string &name, const std::string &baseDir, const std::string &fileName,
                    const std::string &path);
    ~TraceFileHandle()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    TraceFileHandle(const TraceFileHandle &) = delete;
    TraceFileHandle &operator=(const TraceFileHandle &) = delete;

    // The opened file itself, for readers that open by path (a magic link: no lookup through the folders).
    std::string descriptorPath() const { return "/proc/self/fd/" + std::to_string(m_fd); }
    const std::string &shownPath() const { return m_shown; }
    std::pair<dev_t, ino_t> identity() const { return {m_stat.st_dev, m_stat.st_ino}; }
    std::uint64_t size() const { return static_cast<std::uint64_t>(m_stat.st_size); }

private:
    int m_fd = -1;
    struct stat m_stat { };
    std::string m_shown; // the file as messages name it: the comparison's folder joined with the name
};

TraceFileHandle::TraceFileHandle(const std::string &name, const std::string &baseDir, const std::string &fileName,
                                 const std::string &path)
{
    namespace fs = std::filesystem;
    const fs::path p(name);
    const auto refuse = [&](const std::string &why) {
        fail(fileName, path,
             "the trace file \"" + name + "\" " + why
                 + ": a comparison's trace files must lie in its own folder or below it");
    };
    if (p.is_absolute())
        refuse("is an absolute path");
    for (const auto &part : p)
        if (part == "..")
            refuse("leads out of the folder (\"..\")");
    std::error_code ec;
    const fs::path given = baseDir.empty() ? fs::path(".") : fs::path(baseDir);
    const fs::path base = fs::canonical(given, ec);
    if (ec)
        throw Error(ErrorKind::Io, fileName + ": cannot resolve its folder: " + ec.message());
    const auto inside = [&](const fs::path &target) {
        const auto [baseEnd, targetAt] = std::mismatch(base.begin(), base.end(), target.begin(), target.end());
        return baseEnd == base.end();
    };
    // First by the path (so that a link to a device is never opened)...
    const fs::path target = fs::weakly_canonical(base / p, ec);
    if (ec)
        throw Error(ErrorKind::Io, fileName + ": " + path + ": cannot resolve \"" + name + "\": " + ec.message());
    if (!inside(target))
        refuse("leads out of the folder through a symbolic link");
    m_shown = (given / p).lexically_normal().string();
    // ...then by what was opened. O_NONBLOCK: a FIFO is opened at once, to be refused.
    m_fd = ::open(target.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (m_fd < 0)
        throw Error(ErrorKind::Io, m_shown + ": cannot open for reading: " + std::strerror(errno));
    const fs::path opened = fs::read_symlink(descriptorPath(), ec);
    if (ec || ::fstat(m_fd, &m_stat) != 0)
        throw Error(ErrorKind::Io,
                    m_shown + ": cannot tell what was opened: " + (ec ? ec.message() : std::strerror(errno)));
    if (!inside(opened))
        refuse("leads out of the folder through a symbolic link (it changed while it was opened)");
    if (!S_ISREG(m_stat.st_mode)) {
        const char *what = S_ISDIR(m_stat.st_mode)    ? "a folder"
                           : S_ISFIFO(m_stat.st_mode) ? "a FIFO"
                           : S_ISSOCK(m_stat.st_mode) ? "a socket"
                                                      : "a device";
        throw Error(ErrorKind::Io, fileName + ": " + path + ": " + m_shown + ": is " + what
                                       + ", not a regular file: StreamScope reads only regular files");
    }
}

// "/proc/self/fd/7" in a reader's message becomes the file's own name.
std::string replaceAll(std::string text, const std::string &from, const std::string &to)
{
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// The ops an embedded trace lists, counted in its JSON before it is read (0 where its shape is wrong: its
// reader says what is wrong with it).
std::size_t embeddedOpCount(const Json &trace)
{
    std::size_t n = 0;
    if (const auto reps = trace.find("repetitions"); reps != trace.end() && reps->is_array())
        for (const Json &rep : *reps)
            if (rep.is_object())
                if (const auto ops = rep.find("ops"); ops != rep.end() && ops->is_array())
                    n += ops->size();
    return n;
}

std::size_t opCount(const Trace &trace)
{
    std::size_t n = 0;
    for (const Repetition &rep : trace.repetitions)
        n += rep.ops.size();
    return n;
}

int intMember(const Json &obj, const std::string &key, const std::string &fileName, const std::string &path,
              int fallback)
{
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null())
        return fallback;
    return intValue(*it, fileName, path + "/" + key);
}

Axis axisAt(const Json &v, const std::string &fileName, const std::string &path)
{
    if (!v.is_string())
        fail(fileName, path, "expected an axis name, " + found(v));
    const auto axis = axisFromString(v.get<std::string>());
    if (!axis)
        fail(fileName, path,
             "unknown axis \"" + v.get<std::string>()
                 + "\" (memory, api, streams, order, chunks, size or connections)");
    return *axis;
}

} // namespace

namespace {

// A variant's settings: the comparison's axes, one value each, from the axis's values.
std::vector<AxisSetting> readSettings(const Json &settings, const std::vector<AxisValues> &axes,
                                      const std::string &fileName, const std::string &path)
{
    std::vector<AxisSetting> out;
    if (!settings.is_object())
        fail(fileName, path + "/settings", "expected an object of axis: value, " + found(settings));
    // Settings follow the comparison's axes, one value each, from the axis's values.
    for (const auto &a : axes) {
        const std::string key(toString(a.axis));
        const auto it = settings.find(key);
        if (it == settings.end())
            fail(fileName, path + "/settings/" + key, "missing (every variant sets every axis)");
        if (!it->is_string())
            fail(fileName, path + "/settings/" + key, "expected a string, " + found(*it));
        const std::string value = it->get<std::string>();
        if (std::find(a.values.begin(), a.values.end(), value) == a.values.end())
            fail(fileName, path + "/settings/" + key,
                 "\"" + value + "\" is not one of the values of the axis \"" + key + "\"");
        out.push_back({a.axis, value});
    }
    if (settings.size() != axes.size())
        for (const auto &[key, value] : settings.items())
            if (const auto axis = axisFromString(key);
                !axis || std::none_of(axes.begin(), axes.end(), [&](const AxisValues &a) { return a.axis == *axis; }))
                fail(fileName, path + "/settings/" + key, "not one of the comparison's axes");
    return out;
}

} // namespace

std::string toComparisonJson(const Comparison &c)
{
    Json head;
    head["format"] = kComparisonFormatName;
    head["version"] = kComparisonFormatVersion;
    head["title"] = c.title;
    head["workload_file"] = c.workloadFile;
    head["tool_version"] = c.toolVersion;
    head["created_utc"] = c.createdUtc;
    head["warmup"] = c.warmup >= 0 ? Json(c.warmup) : Json(nullptr);
    head["repetitions"] = c.repetitions >= 0 ? Json(c.repetitions) : Json(nullptr);
    head["base_workload"] = c.baseWorkloadJson;
    Json axes = Json::array();
    for (const auto &a : c.axes)
        axes.push_back({{"axis", toString(a.axis)}, {"values", a.values}});
    head["axes"] = axes;

    // The header as pretty JSON without its closing brace, then the variants written by hand so that
    // each trace's native text goes in as is.
    std::string out = head.dump(1);
    out.erase(out.find_last_of('}'));
    while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
        out.pop_back();
    out += ",\n \"variants\": [";
    for (std::size_t i = 0; i < c.variants.size(); ++i) {
        const VariantResult &v = c.variants[i];
        Json settings = Json::object();
        for (const auto &s : v.settings)
            settings[std::string(toString(s.axis))] = s.value;
        out += i == 0 ? "\n  {" : ",\n  {";
        out += "\"label\": " + Json(v.label).dump() + ", \"settings\": " + settings.dump() + ",\n   ";
        if (!v.failed.empty()) {
            out += "\"failed\": " + Json(v.failed).dump() + "}";
        } else if (!v.traceFile.empty()) {
            out += "\"trace_file\": " + Json(v.traceFile).dump() + "}";
        } else {
            out += "\"trace\": ";
            out += toNativeJson(v.trace);
            while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
                out.pop_back();
            out += "}";
        }
    }
    out += "\n ]\n}\n";
    return out;
}

Comparison fromComparisonJson(std::string_view text, const std::string &fileName, const std::string &baseDir)
{
    checkJsonNesting(text, fileName);
    Json root;
    try {
        root = Json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error &e) {
        throw Error(ErrorKind::InvalidInput,
                    fileName + ": not valid JSON (byte " + std::to_string(e.byte) + "): " + e.what());
    } catch (const nlohmann::json::exception &e) { // a number beyond a double, and the like
        throw Error(ErrorKind::InvalidInput, fileName + ": not valid JSON: " + e.what());
    }
    if (!root.is_object())
        fail(fileName, "", "expected a JSON object, " + found(root));
    const std::string format = stringMember(root, "format", fileName, "", true);
    if (format != kComparisonFormatName)
        fail(fileName, "/format",
             "expected \"" + std::string(kComparisonFormatName) + "\", found \"" + format
                 + "\": this is not a StreamScope comparison");
    Comparison c;
    c.formatVersion = intValue(member(root, "version", fileName, ""), fileName, "/version");
    if (c.formatVersion < 1 || c.formatVersion > kComparisonFormatVersion)
        fail(fileName, "/version",
             "this StreamScope reads comparison format version " + std::to_string(kComparisonFormatVersion)
                 + ", the file has version " + std::to_string(c.formatVersion));
    c.title = stringMember(root, "title", fileName, "", false);
    c.workloadFile = stringMember(root, "workload_file", fileName, "", false);
    c.toolVersion = stringMember(root, "tool_version", fileName, "", false);
    c.createdUtc = stringMember(root, "created_utc", fileName, "", false);
    c.baseWorkloadJson = stringMember(root, "base_workload", fileName, "", false);
    c.warmup = intMember(root, "warmup", fileName, "", -1);
    c.repetitions = intMember(root, "repetitions", fileName, "", -1);

    const Json &axes = member(root, "axes", fileName, "");
    if (!axes.is_array())
        fail(fileName, "/axes", "expected an array of axes, " + found(axes));
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const std::string path = "/axes/" + std::to_string(i);
        if (!axes[i].is_object())
            fail(fileName, path, "expected {\"axis\": ..., \"values\": [...]}, " + found(axes[i]));
        AxisValues a;
        a.axis = axisAt(member(axes[i], "axis", fileName, path), fileName, path + "/axis");
        for (const auto &prev : c.axes)
            if (prev.axis == a.axis)
                fail(fileName, path + "/axis", "the axis \"" + std::string(toString(a.axis)) + "\" appears twice");
        const Json &values = member(axes[i], "values", fileName, path);
        if (!values.is_array() || values.empty())
            fail(fileName, path + "/values", "expected a non-empty array of strings, " + found(values));
        for (std::size_t k = 0; k < values.size(); ++k) {
            if (!values[k].is_string())
                fail(fileName, path + "/values/" + std::to_string(k), "expected a string, " + found(values[k]));
            a.values.push_back(values[k].get<std::string>());
        }
        c.axes.push_back(std::move(a));
    }

    const Json &variants = member(root, "variants", fileName, "");
    if (!variants.is_array())
        fail(fileName, "/variants", "expected an array of variants, " + found(variants));
    // Every variant's trace is kept: together they hold at most limits::kMaxOps ops, checked before each
    // is read or copied. A file several variants name is read once (by its device and inode), and the
    // comparison with its distinct trace files is at most kMaxComparisonFileBytes.
    std::map<std::pair<dev_t, ino_t>, std::size_t> readFiles; // -> the first variant that read it
    std::vector<std::pair<std::size_t, std::size_t>> copies; // (variant, the variant whose trace it shares)
    std::uint64_t totalBytes = text.size();
    std::size_t totalOps = 0;
    const auto addOps = [&](std::size_t ops, const std::string &path) {
        if (ops > limits::kMaxOps - std::min(totalOps, limits::kMaxOps))
            fail(fileName, path,
                 "the comparison's traces together would hold " + std::to_string(totalOps + ops)
                     + " ops, more than StreamScope reads (at most " + std::to_string(limits::kMaxOps)
                     + " in all its variants)");
        totalOps += ops;
    };
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const std::string path = "/variants/" + std::to_string(i);
        const Json &v = variants[i];
        if (!v.is_object())
            fail(fileName, path, "expected a variant object, " + found(v));
        VariantResult r;
        r.label = stringMember(v, "label", fileName, path, true);
        r.settings = readSettings(member(v, "settings", fileName, path), c.axes, fileName, path);
        const auto trace = v.find("trace");
        const auto file = v.find("trace_file");
        if (const auto failed = v.find("failed"); failed != v.end()) {
            if (!failed->is_string() || failed->get<std::string>().empty())
                fail(fileName, path + "/failed", "expected why the variant failed, " + found(*failed));
            if (trace != v.end() || file != v.end())
                fail(fileName, path, "a failed variant has no trace");
            r.failed = failed->get<std::string>();
            c.variants.push_back(std::move(r));
            continue;
        }
        if ((trace == v.end()) == (file == v.end()))
            fail(fileName, path,
                 "expected either \"trace\" (an embedded trace), \"trace_file\" (a path) or \"failed\" (why it did "
                 "not run)");
        if (trace != v.end()) {
            if (!trace->is_object())
                fail(fileName, path + "/trace", "expected a StreamScope trace object, " + found(*trace));
            addOps(embeddedOpCount(*trace), path + "/trace");
            r.trace = fromNativeJson(trace->dump(), fileName + " " + path + "/trace");
        } else {
            if (!file->is_string() || file->get<std::string>().empty())
                fail(fileName, path + "/trace_file", "expected a path, " + found(*file));
            r.traceFile = file->get<std::string>();
            const std::string at = path + "/trace_file";
            const TraceFileHandle handle(r.traceFile, baseDir, fileName, at);
            if (const auto read = readFiles.find(handle.identity()); read != readFiles.end()) {
                // Counted now, copied once every variant has been counted: a comparison refused for its
                // total holds each distinct trace once, not a copy per variant up to the limit.
                addOps(opCount(c.variants[read->second].trace), at);
                copies.emplace_back(c.variants.size(), read->second);
            } else {
                if (handle.size()
                    > limits::kMaxComparisonFileBytes - std::min(totalBytes, limits::kMaxComparisonFileBytes))
                    fail(fileName, at,
                         handle.shownPath() + " makes the comparison and its trace files together more than "
                             + limits::describeBytes(limits::kMaxComparisonFileBytes)
                             + ", more than StreamScope reads as a comparison");
                totalBytes += handle.size();
                try {
                    r.trace = loadTrace(handle.descriptorPath());
                } catch (const Error &e) {
                    throw Error(e.kind(), fileName + ": " + at + ": "
                                              + replaceAll(e.what(), handle.descriptorPath(), handle.shownPath()));
                }
                r.trace.sourcePath = handle.shownPath();
                addOps(opCount(r.trace), at);
                readFiles.emplace(handle.identity(), c.variants.size());
            }
        }
        c.variants.push_back(std::move(r));
    }
    for (const auto &[to, from] : copies)
        c.variants[to].trace = c.variants[from].trace;
    return c;
}

void writeComparison(const Comparison &comparison, const std::string &path)
{
    std::string text;
    try {
        text = toComparisonJson(comparison);
    } catch (const nlohmann::json::exception &e) {
        // Text that cannot be JSON (a name that is not UTF-8): nothing is written, the file stays as it was.
        throw Error(ErrorKind::InvalidInput, path + ": the comparison cannot be written as JSON: " + e.what());
    }
    writeFileAtomically(path, text);
}

Comparison readComparison(const std::string &path)
{
    const std::filesystem::path p(path);
    const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
    return fromComparisonJson(readFile(path, limits::kMaxComparisonFileBytes, "a comparison"), path, dir);
}

std::vector<VariantSummary> summarizeComparison(const Comparison &comparison)
{
    std::vector<VariantSummary> out;
    out.reserve(comparison.variants.size());
    const VariantSummary *baseline = nullptr; // the first variant that ran
    for (const auto &v : comparison.variants) {
        VariantSummary s;
        s.label = v.label;
        s.failed = v.failed;
        if (s.failed.empty()) {
            s.summary = summarize(v.trace);
            s.vsFirst =
                compareSpreads(baseline ? baseline->summary.makespanNs : s.summary.makespanNs, s.summary.makespanNs);
        }
        out.push_back(std::move(s));
        if (!baseline && out.back().failed.empty())
            baseline = &out.back();
    }
    return out;
}

} // namespace streamscope::engine
