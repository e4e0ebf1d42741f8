// One door for trace files: loadTrace() recognises every format StreamScope reads (native .sstrace,
// Nsight Systems SQLite export, Chrome/Kineto JSON, gzip-compressed or not) by content, not by name;
// exportTrace() writes native, Chrome JSON or CSV atomically. The CLI's `export` and `open` and the
// GUI's File > Open / Export call these.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/trace.h"
#include "engine/util/load_control.h"

namespace streamscope::engine {

enum class ExportFormat { Native, Chrome, Csv };

// The "format" of a comparison file (engine/experiment/comparison_file.h writes and reads it); here
// because file-kind detection must know it and formats come before experiments.
inline constexpr std::string_view kComparisonFormatName = "streamscope-comparison";

// Every kind of file StreamScope opens, told apart by content (names lie: a .json is a workload, a
// native trace or a Chrome trace).
enum class FileKind { Workload, Comparison, NativeTrace, NsysSqlite, ChromeJson, Unknown };
std::string_view toString(FileKind kind);

// The formats StreamScope reads traces from, one entry each, in the order the Open dialog lists them:
// the kind detectFileKind() gives them, their name, the file names they usually have, and their reader.
// loadTrace() and openFile() pick the reader here; the app's Open dialogs build their filters from it.
struct TraceFormat {
    FileKind kind;
    std::string_view name; // "Nsight Systems SQLite export"
    std::string_view patterns; // "*.sqlite *.sqlite3" (the dialog's filter; content decides, not names)
    // Reads `content` (inflated already; only its magic header for SQLite, which reads `path` itself).
    Trace (*read)(std::string &content, const std::string &path, bool wasGzip, const LoadControl &control);
};
const std::vector<TraceFormat> &traceFormats();
// "Traces (*.sstrace ...);;StreamScope trace (*.sstrace);;...;;All files (*)": a Qt file dialog filter of
// every trace format (and, with `workloads`, workloads and comparisons too).
std::string traceFileDialogFilter(bool workloads);
// "StreamScope trace (*.sstrace *.sstrace.gz);;All files (*)": a Qt file dialog filter for one kind of
// file (a format of traceFormats(), a workload or a comparison), its entry as traceFileDialogFilter
// writes it; "All files (*)" alone for Unknown.
std::string fileDialogFilter(FileKind kind);

// Reads a trace of any format in traceFormats(), told apart by content (detectFileKind). Throws
// Error{Io} when the file cannot be read and Error{InvalidInput} (naming the file and what was found)
// when it is no trace (a workload, a comparison, anything else) or is malformed.
Trace loadTrace(const std::string &path, const LoadControl &control = {});

// The one file-kind detection of StreamScope: the app's Open, its drag and drop, the command line and
// the CLI call it. SQLite's magic -> NsysSqlite; gzip is inflated first; a "format" of
// "streamscope-comparison" -> Comparison, of "streamscope-trace" -> NativeTrace; a JSON object (comments
// allowed) with "traceEvents" -> ChromeJson, with "streams", "pipeline" or "buffers" -> Workload; any
// other JSON -> ChromeJson. Text that is not valid JSON but names "streams" or "pipeline" (a workload
// being written by hand) -> Workload, so that the editor shows where it is broken; text that is not
// JSON at all -> Unknown. Throws Error{Io} when the file cannot be read.
FileKind detectFileKind(const std::string &path);
FileKind detectFileKindOfContent(std::string_view content, std::string_view fileName);

// Opening any file the app is given, reading it once: its kind, and for a trace the trace itself
// (loaded as loadTrace does, with `control`'s progress and cancel). A workload or a comparison comes back
// without a trace, for their own readers. Throws what loadTrace throws for a trace that cannot be read,
// and Error{InvalidInput} for a file that is none of these kinds.
struct OpenedFile {
    FileKind kind = FileKind::Unknown;
    std::optional<Trace> trace;
};
OpenedFile openFile(const std::string &path, const LoadControl &control = {});

// Throws Error{Io}; the target is replaced only once everything is written.
void exportTrace(const Trace &trace, ExportFormat format, const std::string &path);

// "native" / "sstrace", "chrome" / "json" / "perfetto", "csv" (case-sensitive, as the CLI documents).
std::optional<ExportFormat> exportFormatFromString(std::string_view name);
// By extension: .sstrace, .json, .csv; nullopt for anything else.
std::optional<ExportFormat> exportFormatFromPath(std::string_view path);
std::string_view toString(ExportFormat format);

} // namespace streamscope::engine
