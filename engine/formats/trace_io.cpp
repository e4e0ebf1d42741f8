// Format detection for loading, and format dispatch for export (see trace_io.h).
#include "engine/formats/trace_io.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>

#include "engine/formats/chrome_export.h"
#include "engine/formats/chrome_import.h"
#include "engine/formats/csv_export.h"
#include "engine/formats/native_format.h"
#include "engine/formats/nsys_import.h"
#include "engine/model/errors.h"
#include "engine/model/limits.h"
#include "engine/util/file_util.h"
#include "engine/util/gzip.h"
#include "engine/util/interrupt.h"
#include "engine/util/json_limits.h"

namespace streamscope::engine {

namespace {

constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

// What memoryChecked (engine/model/errors.h) says when a file's reading runs out of memory.
std::string cannotReadForMemory(const std::string &path)
{
    return path + ": not enough memory to read it";
}

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// A "format" key whose value is `format`, anywhere in the text. The native and comparison writers put
// no such pair anywhere but at the top level (traces embedded in a comparison are objects inside it, so
// a comparison is looked for first), and a Chrome trace has none (ours says "streamscope-chrome").
bool hasFormatKey(std::string_view text, std::string_view format)
{
    constexpr std::string_view key = "\"format\"";
    std::size_t pos = 0;
    while ((pos = text.find(key, pos)) != std::string_view::npos) {
        std::size_t i = pos + key.size();
        while (i < text.size() && isSpace(text[i]))
            ++i;
        if (i < text.size() && text[i] == ':') {
            ++i;
            while (i < text.size() && isSpace(text[i]))
                ++i;
            const std::string value = "\"" + std::string(format) + "\"";
            if (text.substr(i, value.size()) == value)
                return true;
        }
        pos += key.size();
    }
    return false;
}

bool hasNativeFormatKey(std::string_view text)
{
    return hasFormatKey(text, kNativeFormatName);
}

// The keys of a JSON document's top-level object, read without building the document (nlohmann's SAX
// interface): a workload up to its own size limit is told from a trace by its keys at the cost of one scan,
// where a whole DOM costs ten times the text. Stops at "traceEvents", which settles it.
class TopLevelKeys : public nlohmann::json_sax<nlohmann::json> {
public:
    bool object = false; // the document is an object
    bool traceEvents = false;
    bool workloadKey = false; // "streams", "pipeline" or "buffers"
    bool malformed = false;

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override
    {
        if (m_depth == 0)
            object = true;
        ++m_depth;
        return true;
    }
    bool key(string_t &name) override
    {
        if (m_depth == 1) {
            if (name == "traceEvents") {
                traceEvents = true;
                return false; // settled
            }
            if (name == "streams" || name == "pipeline" || name == "buffers")
                workloadKey = true;
        }
        return true;
    }
    bool end_object() override
    {
        --m_depth;
        return true;
    }
    bool start_array(std::size_t) override
    {
        ++m_depth;
        return true;
    }
    bool end_array() override
    {
        --m_depth;
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) override
    {
        malformed = true;
        return false;
    }

private:
    int m_depth = 0;
};

// Whether the top-level object has a "streams" or "pipeline" key, found by a scan that follows only strings,
// comments and brackets and stops at that key (a workload's first few lines), where TopLevelKeys parses the
// whole text (0.5 s of a 55 MB workload of 1M ops, #24). In valid JSON the strings at depth 1 of an object
// that a ':' follows are its keys; a key written with escapes is not found.
bool hasTopLevelWorkloadKey(std::string_view text)
{
    const std::size_t n = text.size();
    int depth = 0;
    std::size_t i = 0;
    while (i < n) {
        const char c = text[i];
        if (c == '/' && i + 1 < n && (text[i + 1] == '/' || text[i + 1] == '*')) {
            const std::size_t end = text[i + 1] == '/' ? text.find('\n', i) : text.find("*/", i + 2);
            i = end == std::string_view::npos ? n : end + (text[i + 1] == '/' ? 1 : 2);
        } else if (c == '"') {
            std::size_t j = i + 1;
            while (j < n && text[j] != '"')
                j += text[j] == '\\' ? 2 : 1;
            if (j >= n)
                return false;
            const std::string_view string = text.substr(i + 1, j - i - 1);
            i = j + 1;
            if (depth == 1 && (string == "streams" || string == "pipeline")) {
                while (i < n && isSpace(text[i]))
                    ++i;
                if (i < n && text[i] == ':')
                    return true;
            }
        } else if (c == '{' || c == '[') {
            if (depth == 0 && c != '{')
                return false; // not an object
            ++depth;
            ++i;
        } else if (c == '}' || c == ']') {
            if (--depth <= 0)
                return false; // the object ended
            ++i;
        } else {
            ++i;
        }
    }
    return false;
}

// What a file that is no trace starts with, in words: never its bytes (a comparison's trace file or a
// mistaken path could name a file whose contents are nobody's business).
std::string describeStart(std::string_view content)
{
    const std::string_view head = content.substr(0, 64);
    const bool text = std::all_of(head.begin(), head.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return c >= 0x80 || std::isprint(c) || isSpace(ch);
    });
    return text ? "it is text, not JSON" : "it is binary data";
}

} // namespace

std::string_view toString(FileKind kind)
{
    switch (kind) {
    case FileKind::Workload: return "workload";
    case FileKind::Comparison: return "comparison";
    case FileKind::NativeTrace: return "native trace";
    case FileKind::NsysSqlite: return "Nsight Systems SQLite export";
    case FileKind::ChromeJson: return "Chrome trace JSON";
    case FileKind::Unknown: break;
    }
    return "unknown";
}

FileKind detectFileKindOfContent(std::string_view content, std::string_view fileName)
{
    if (content.substr(0, kSqliteMagic.size()) == kSqliteMagic)
        return FileKind::NsysSqlite;
    std::string inflated;
    if (isGzip(content)) {
        try {
            inflated = gunzip(content, std::string(fileName));
        } catch (const Error &) {
            return FileKind::Unknown;
        }
        content = inflated;
    }
    if (hasFormatKey(content, kComparisonFormatName))
        return FileKind::Comparison;
    if (hasNativeFormatKey(content))
        return FileKind::NativeTrace;
    std::size_t i = content.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    while (i < content.size() && isSpace(content[i]))
        ++i;
    const bool startsLikeJson = i < content.size() && (content[i] == '{' || content[i] == '[' || content[i] == '/');
    if (!startsLikeJson)
        return FileKind::Unknown;
    if (content.size() <= limits::kMaxWorkloadFileBytes) {
        // Told by its first keys where nothing further on can change the answer: a top-level "streams" or
        // "pipeline" key, and no "traceEvents" anywhere (nor a \u escape that could spell it in a key). Valid
        // or broken further on, nested too deep or not, such a text is a workload below as well.
        if (content.find("traceEvents") == std::string_view::npos && content.find("\\u") == std::string_view::npos
            && hasTopLevelWorkloadKey(content.substr(i)))
            return FileKind::Workload;
        // Nested too deep to parse safely: classified by its words, and its reader says what is wrong.
        const bool tooDeep = findExcessiveJsonNesting(content.substr(i), /*allowComments=*/true).has_value();
        TopLevelKeys keys;
        if (!tooDeep) {
            const std::string_view json = content.substr(i);
            nlohmann::json::sax_parse(json.begin(), json.end(), &keys, nlohmann::json::input_format_t::json,
                                      /*strict=*/true, /*ignore_comments=*/true);
        }
        if (!tooDeep && !keys.malformed && keys.object)
            return keys.workloadKey && !keys.traceEvents ? FileKind::Workload : FileKind::ChromeJson;
        if (tooDeep || keys.malformed) {
            const bool workloadWords = content.find("\"streams\"") != std::string_view::npos
                                       || content.find("\"pipeline\"") != std::string_view::npos;
            if (workloadWords && content.find("\"traceEvents\"") == std::string_view::npos)
                return FileKind::Workload;
        }
    }
    return content[i] == '/' ? FileKind::Unknown : FileKind::ChromeJson;
}

FileKind detectFileKind(const std::string &path)
{
    if (readFileHead(path, kSqliteMagic.size()) == kSqliteMagic)
        return FileKind::NsysSqlite; // SQLite reads the file itself: never read whole here
    return memoryChecked(cannotReadForMemory(path), [&] { return detectFileKindOfContent(readFile(path), path); });
}

namespace {

// What is not a trace, said as the readers say it: the file and what it is instead.
[[noreturn]] void throwNotATrace(std::string_view content, const std::string &path, FileKind kind)
{
    std::size_t i = content.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0; // a UTF-8 byte order mark
    while (i < content.size() && isSpace(content[i]))
        ++i;
    if (i == content.size())
        throw Error(ErrorKind::InvalidInput, path + ": empty file: not a trace");
    std::string what = describeStart(content);
    if (kind == FileKind::Workload || kind == FileKind::Comparison)
        what = "it is a " + std::string(toString(kind)) + " (open it in the app, or run it with streamscope-cli "
               + (kind == FileKind::Workload ? "run" : "compare") + ")";
    throw Error(ErrorKind::InvalidInput,
                path
                    + ": not a trace StreamScope reads (expected a StreamScope .sstrace, an Nsight Systems "
                      "SQLite export or a Chrome/Kineto JSON trace, optionally gzip-compressed); "
                    + what);
}

Trace readNative(std::string &content, const std::string &path, bool, const LoadControl &control)
{
    control.report("parsing", 0.15);
    return fromNativeJson(content, path); // (checks its own limits)
}

Trace readNsys(std::string &content, const std::string &path, bool wasGzip, const LoadControl &control)
{
    if (wasGzip) // SQLite cannot open it from memory
        throw Error(ErrorKind::InvalidInput,
                    path + ": a gzip-compressed SQLite file: decompress it first (gunzip) and open the .sqlite");
    content.clear();
    content.shrink_to_fit(); // SQLite reads the file itself
    control.report("importing", 0.15);
    Trace trace = importNsysSqlite(path, control);
    limits::checkTraceLimits(trace, path);
    return trace;
}

Trace readChrome(std::string &content, const std::string &path, bool, const LoadControl &control)
{
    Trace trace = chromeTraceFromText(content, path, control, 0.15, 0.95);
    limits::checkTraceLimits(trace, path);
    return trace;
}

// A trace from content already read (and inflated); `path` for SQLite, which reads the file itself, and
// for messages. Progress runs from 0.1 (the file read) to 1.
Trace traceFromContent(std::string &content, const std::string &path, bool wasGzip, const LoadControl &given,
                       FileKind kind)
{
    // The readers check for cancellation where they are given a flag: the process's interrupt flag
    // (the CLI's Ctrl-C and SIGTERM) when the caller has none of its own.
    LoadControl control = given;
    if (!control.cancel)
        control.cancel = &interruptFlag();
    control.checkCancelled();
    const auto &formats = traceFormats();
    const auto format = std::find_if(formats.begin(), formats.end(), [&](const auto &f) { return f.kind == kind; });
    if (format == formats.end())
        throwNotATrace(content, path, kind);
    Trace trace = format->read(content, path, wasGzip, control);
    control.checkCancelled();
    control.report("done", 1.0);
    if (trace.sourcePath.empty())
        trace.sourcePath = path;
    return trace;
}

FileKind kindOfContent(std::string_view content, const std::string &path)
{
    return content.substr(0, kSqliteMagic.size()) == kSqliteMagic ? FileKind::NsysSqlite
                                                                  : detectFileKindOfContent(content, path);
}

} // namespace

namespace {

// The whole file, or for an SQLite database only its magic header (SQLite reads the file itself, and a
// database may be larger than any JSON trace).
std::string readTraceContent(const std::string &path)
{
    std::string head = readFileHead(path, kSqliteMagic.size());
    if (head == kSqliteMagic)
        return head;
    return readFile(path, limits::kMaxTraceFileBytes, "a trace");
}

} // namespace

namespace {

// Reads, inflates and detects a file once; a trace comes back read. A workload or a comparison comes back
// without one, unless `traceRequired`, where the trace readers' dispatch names it as no trace.
OpenedFile openFileUnchecked(const std::string &path, const LoadControl &control, bool traceRequired)
{
    control.report("reading", 0.0);
    std::string content = readTraceContent(path);
    control.checkCancelled();
    const bool wasGzip = isGzip(content);
    if (wasGzip) {
        control.report("decompressing", 0.05);
        content = gunzip(content, path);
        control.checkCancelled();
    }
    control.report("detecting", 0.1);
    OpenedFile opened;
    opened.kind = kindOfContent(content, path);
    if (!traceRequired && (opened.kind == FileKind::Workload || opened.kind == FileKind::Comparison))
        return opened;
    // Traces, and anything else: the trace readers say what is wrong with it.
    opened.trace = traceFromContent(content, path, wasGzip, control, opened.kind);
    return opened;
}

} // namespace

const std::vector<TraceFormat> &traceFormats()
{
    static const std::vector<TraceFormat> formats = {
        {FileKind::NativeTrace, "StreamScope trace", "*.sstrace *.sstrace.gz", readNative},
        {FileKind::NsysSqlite, "Nsight Systems SQLite export", "*.sqlite *.sqlite3", readNsys},
        {FileKind::ChromeJson, "Chrome/Kineto trace JSON", "*.json *.json.gz *.pt.trace.json", readChrome},
    };
    return formats;
}

namespace {

// The dialog's entry for one kind of file: "StreamScope trace (*.sstrace *.sstrace.gz)"; empty for Unknown.
std::string dialogEntry(FileKind kind)
{
    for (const TraceFormat &f : traceFormats())
        if (f.kind == kind)
            return std::string(f.name) + " (" + std::string(f.patterns) + ")";
    switch (kind) {
    case FileKind::Workload: return "StreamScope workload (*.json)";
    case FileKind::Comparison: return "StreamScope comparison (*.sscompare)";
    default: return {};
    }
}

} // namespace

std::string fileDialogFilter(FileKind kind)
{
    const std::string entry = dialogEntry(kind);
    return entry.empty() ? "All files (*)" : entry + ";;All files (*)";
}

std::string traceFileDialogFilter(bool workloads)
{
    std::vector<std::string> patterns;
    auto add = [&](std::string_view list) {
        std::size_t at = 0;
        while (at < list.size()) {
            const std::size_t end = std::min(list.find(' ', at), list.size());
            const std::string pattern(list.substr(at, end - at));
            if (std::find(patterns.begin(), patterns.end(), pattern) == patterns.end())
                patterns.push_back(pattern);
            at = end + 1;
        }
    };
    for (const TraceFormat &f : traceFormats())
        add(f.patterns);
    if (workloads)
        add("*.json *.gz *.sscompare");
    std::string filter = workloads ? "Traces and workloads (" : "Traces (";
    for (std::size_t i = 0; i < patterns.size(); ++i)
        filter += (i ? " " : "") + patterns[i];
    filter += ")";
    for (const TraceFormat &f : traceFormats())
        filter += ";;" + dialogEntry(f.kind);
    if (workloads)
        filter += ";;" + dialogEntry(FileKind::Workload) + ";;" + dialogEntry(FileKind::Comparison);
    return filter + ";;All files (*)";
}

OpenedFile openFile(const std::string &path, const LoadControl &control)
{
    return memoryChecked(cannotReadForMemory(path), [&] { return openFileUnchecked(path, control, false); });
}

Trace loadTrace(const std::string &path, const LoadControl &control)
{
    return memoryChecked(cannotReadForMemory(path),
                         [&] { return std::move(*openFileUnchecked(path, control, true).trace); });
}

void exportTrace(const Trace &trace, ExportFormat format, const std::string &path)
{
    switch (format) {
    case ExportFormat::Native: writeNativeTrace(trace, path); return;
    case ExportFormat::Chrome: writeChromeTrace(trace, path); return;
    case ExportFormat::Csv: writeCsv(trace, path); return;
    }
}

std::optional<ExportFormat> exportFormatFromString(std::string_view name)
{
    if (name == "native" || name == "sstrace")
        return ExportFormat::Native;
    if (name == "chrome" || name == "json" || name == "perfetto")
        return ExportFormat::Chrome;
    if (name == "csv")
        return ExportFormat::Csv;
    return std::nullopt;
}

std::optional<ExportFormat> exportFormatFromPath(std::string_view path)
{
    if (path.ends_with(".sstrace"))
        return ExportFormat::Native;
    if (path.ends_with(".json"))
        return ExportFormat::Chrome;
    if (path.ends_with(".csv"))
        return ExportFormat::Csv;
    return std::nullopt;
}

std::string_view toString(ExportFormat format)
{
    switch (format) {
    case ExportFormat::Native: return "native";
    case ExportFormat::Chrome: return "chrome";
    case ExportFormat::Csv: return "csv";
    }
    return "native";
}

} // namespace streamscope::engine
