// Format detection for loading, and format dispatch for export (see trace_io.h).
#include "engine/trace_io.h"

#include <cctype>
#include <cstring>

#include "engine/chrome_export.h"
#include "engine/chrome_import.h"
#include "engine/csv_export.h"
#include "engine/errors.h"
#include "engine/file_util.h"
#include "engine/gzip.h"
#include "engine/native_format.h"
#include "engine/nsys_import.h"

namespace streamscope::engine {

namespace {

constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A "format" key whose value is "streamscope-trace", anywhere in the text. The native writer puts no
// such pair anywhere but at the top level, and a Chrome trace has none (ours says "streamscope-chrome").
bool hasNativeFormatKey(std::string_view text)
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
            const std::string value = "\"" + std::string(kNativeFormatName) + "\"";
            if (text.substr(i, value.size()) == value)
                return true;
        }
        pos += key.size();
    }
    return false;
}

std::string describeStart(std::string_view content)
{
    std::string shown;
    for (std::size_t i = 0; i < content.size() && i < 16; ++i) {
        const auto c = static_cast<unsigned char>(content[i]);
        if (std::isprint(c))
            shown.push_back(static_cast<char>(c));
        else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            shown += buf;
        }
    }
    return shown;
}

} // namespace

TraceFileKind detectTraceFileKind(std::string_view content, const std::string &fileName)
{
    if (content.substr(0, kSqliteMagic.size()) == kSqliteMagic)
        return TraceFileKind::NsysSqlite;
    std::size_t i = 0;
    // A UTF-8 byte order mark is allowed before JSON by some writers.
    if (content.substr(0, 3) == "\xEF\xBB\xBF")
        i = 3;
    while (i < content.size() && isSpace(content[i]))
        ++i;
    if (i == content.size())
        throw Error(ErrorKind::InvalidInput, fileName + ": empty file: not a trace");
    if (content[i] == '{' || content[i] == '[')
        return hasNativeFormatKey(content) ? TraceFileKind::Native : TraceFileKind::ChromeJson;
    throw Error(ErrorKind::InvalidInput,
                fileName + ": not a trace StreamScope reads (expected a StreamScope .sstrace, an Nsight Systems "
                           "SQLite export or a Chrome/Kineto JSON trace, optionally gzip-compressed); it starts with \""
                    + describeStart(content) + "\"");
}

Trace loadTrace(const std::string &path)
{
    std::string content = readFile(path);
    if (content.substr(0, kSqliteMagic.size()) == kSqliteMagic) {
        content.clear();
        content.shrink_to_fit(); // SQLite reads the file itself
        return importNsysSqlite(path);
    }
    if (isGzip(content))
        content = gunzip(content, path);
    Trace trace;
    switch (detectTraceFileKind(content, path)) {
    case TraceFileKind::Native:
        trace = fromNativeJson(content, path);
        break;
    case TraceFileKind::ChromeJson:
        trace = chromeTraceFromJson(content, path);
        break;
    case TraceFileKind::NsysSqlite:
        // Only a gzip-compressed SQLite file gets here: SQLite cannot open it from memory.
        throw Error(ErrorKind::InvalidInput,
                    path + ": a gzip-compressed SQLite file: decompress it first (gunzip) and open the .sqlite");
    }
    if (trace.sourcePath.empty())
        trace.sourcePath = path;
    return trace;
}

void exportTrace(const Trace &trace, ExportFormat format, const std::string &path)
{
    switch (format) {
    case ExportFormat::Native:
        writeNativeTrace(trace, path);
        return;
    case ExportFormat::Chrome:
        writeChromeTrace(trace, path);
        return;
    case ExportFormat::Csv:
        writeCsv(trace, path);
        return;
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
    case ExportFormat::Native:
        return "native";
    case ExportFormat::Chrome:
        return "chrome";
    case ExportFormat::Csv:
        return "csv";
    }
    return "native";
}

} // namespace streamscope::engine
