// One door for trace files: loadTrace() recognises every format StreamScope reads (native .sstrace,
// Nsight Systems SQLite export, Chrome/Kineto JSON, gzip-compressed or not) by content, not by name;
// exportTrace() writes native, Chrome JSON or CSV atomically. The CLI's `export` and `open` and the
// GUI's File > Open / Export call these.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "trace.h"

namespace streamscope::engine {

enum class ExportFormat { Native, Chrome, Csv };

// Which reader loadTrace() picked, for messages and tests.
enum class TraceFileKind { Native, NsysSqlite, ChromeJson };

// Looks at the content: SQLite's magic header means an Nsight Systems export, gzip magic is inflated
// first, JSON whose "format" is "streamscope-trace" is native and any other JSON object or array is a
// Chrome trace. Throws Error{Io} when the file cannot be read and Error{InvalidInput} (naming the
// file and what was found) when it is none of these or is malformed.
Trace loadTrace(const std::string &path);
TraceFileKind detectTraceFileKind(std::string_view content, const std::string &fileName);

// Throws Error{Io}; the target is replaced only once everything is written.
void exportTrace(const Trace &trace, ExportFormat format, const std::string &path);

// "native" / "sstrace", "chrome" / "json" / "perfetto", "csv" (case-sensitive, as the CLI documents).
std::optional<ExportFormat> exportFormatFromString(std::string_view name);
// By extension: .sstrace, .json, .csv; nullopt for anything else.
std::optional<ExportFormat> exportFormatFromPath(std::string_view path);
std::string_view toString(ExportFormat format);

} // namespace streamscope::engine
