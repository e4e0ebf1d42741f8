// Import of Chrome Trace Event JSON with GPU streams: PyTorch profiler (Kineto) traces with `kernel`,
// `gpu_memcpy` and `gpu_memset` events carrying `stream`, `bytes` and `correlation` args, runtime and
// driver calls on host threads and `ac2g` flows; and StreamScope's own Chrome export (chrome_export.h),
// which comes back as the same ops, streams and repetitions. The mapping is in docs/formats.md.
#pragma once

#include <string>
#include <string_view>

#include "engine/model/trace.h"
#include "engine/util/load_control.h"

namespace streamscope::engine {

// Reads the file (gzip-compressed or not). Throws Error{Io} when it cannot be read and
// Error{InvalidInput} naming the file and the JSON path (or line and column) of what is wrong.
Trace importChromeTrace(const std::string &path);

// The same from JSON text already in memory, read by simdjson's on-demand parser one event at a time (no
// document is built: what the import costs beyond the text is what the trace keeps); fileName is only used in messages
// and Trace::sourcePath. `control` gets progress while the JSON is parsed (fraction `from`..`to` of its whole load) and
// may cancel it (Error{Cancelled}).
Trace chromeTraceFromJson(std::string_view text, const std::string &fileName, const LoadControl &control = {},
                          double from = 0.0, double to = 1.0);
// As chromeTraceFromJson without copying the text, which it consumes: `text` may gain capacity for
// simdjson's padding, and is emptied (its memory freed) once every event has been read, before the ops are
// linked and ordered. An allocation that fails is Error{Io} naming the file, never std::bad_alloc.
Trace chromeTraceFromText(std::string &text, const std::string &fileName, const LoadControl &control = {},
                          double from = 0.0, double to = 1.0);

} // namespace streamscope::engine
