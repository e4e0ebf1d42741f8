// Chrome Trace Event JSON export: opens in Perfetto UI, chrome://tracing and speedscope.
// Layout: one process for the host (a track per host thread), one per GPU (a track per stream, plus
// "stream X (2)" overflow tracks where slices would partially overlap, which Perfetto forbids), and one
// for the derived counters (H2D/D2H GB/s, active ops). Every op is a complete event whose args carry
// what StreamScope knows of it; API calls link to their GPU ops with flow arrows (a shared bind_id,
// flow_out on the host slice and flow_in on the GPU slice). A top-level "streamscope" object keeps
// streams, threads and devices so that chrome_import.h reads the file back into the same ops. The
// layout is documented in docs/formats.md.
#pragma once

#include <string>

#include "engine/model/trace.h"

namespace streamscope::engine {

struct ChromeExportOptions {
    bool hostCalls = true; // host API slices on their threads' tracks
    bool flows = true; // arrows from each API call to its GPU op (needs hostCalls)
    bool counters = true; // bandwidth and activity counter tracks, one step list per repetition
    int threads = 0; // 0: as many as the machine has from 4 cores up, for traces of 100k ops and more
};

// Streams the whole trace into one string with a hand-written writer: a million ops take well under a
// second (bench/bench_formats.cpp), where building an nlohmann::json tree would take many.
std::string toChromeJson(const Trace &trace, const ChromeExportOptions &options = {});

// Atomic write (engine/util/file_util.h): big traces go to the file part by part as threads finish them,
// so the writing overlaps the serialising; the bytes are toChromeJson's. Throws Error{Io}.
void writeChromeTrace(const Trace &trace, const std::string &path, const ChromeExportOptions &options = {});

} // namespace streamscope::engine
