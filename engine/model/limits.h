// The limits of what StreamScope reads, in one place (docs/formats.md, "Limits"): every reader checks
// them and names the limit in its error, so that a file from someone else can never hang the app, fill
// the machine's memory or make arithmetic wrap. Each is far above any real capture (the largest real
// traces seen: 1M ops, 35k-event PyTorch traces, nsys captures of minutes) and far below what breaks.
// The saturating arithmetic the analysis uses where a sum of values read from files could wrap is in
// saturating.h (included here).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "engine/model/saturating.h"

namespace streamscope::engine {

struct Trace;

namespace limits {

// Time values (nanoseconds) lie within ±kMaxTimeNs, about 146 years: nanoseconds since the Unix epoch
// fit until the year 2116, and the difference of any two fits in an int64 with room to spare.
inline constexpr std::int64_t kMaxTimeNs = (std::int64_t(1) << 62) - 1;
// A trace spans at most kMaxSpanNs from its first to its last instant (2^50 ns, about 13 days): every
// sum of durations inside it then fits, and the timeline's ruler has a sane range.
inline constexpr std::int64_t kMaxSpanNs = std::int64_t(1) << 50;
// Ops per trace (every repetition together), repetitions, streams and host threads (the timeline's
// lanes), devices.
inline constexpr std::size_t kMaxOps = 10'000'000;
inline constexpr std::size_t kMaxActivities = 10'000'000;
inline constexpr std::size_t kMaxRepetitions = 100'000;
inline constexpr std::size_t kMaxStreams = 10'000;
inline constexpr std::size_t kMaxHostThreads = 10'000;
inline constexpr std::size_t kMaxDevices = 64;
// Host ranges (NVTX ranges, Kineto CPU ops, annotations and Python calls), every repetition together.
inline constexpr std::size_t kMaxHostRanges = 10'000'000;
// Text a reader keeps (names of ops, ranges, threads, devices, metadata): each value at most
// kMaxTextBytes (a demangled kernel name is at most a few KiB), all of a trace together at most
// kMaxTotalTextBytes. Bytes, not counts: a count of names says nothing of the memory they take.
inline constexpr std::size_t kMaxTextBytes = std::size_t(16) << 20; // 16 MiB
inline constexpr std::uint64_t kMaxTotalTextBytes = std::uint64_t(1) << 30; // 1 GiB
// File sizes, checked before a byte is parsed: a JSON trace (native or Chrome/Kineto, also after gzip
// inflation), a comparison (it may embed its variants' traces), a workload.
inline constexpr std::uint64_t kMaxTraceFileBytes = std::uint64_t(2) << 30; // 2 GiB
inline constexpr std::uint64_t kMaxComparisonFileBytes = std::uint64_t(2) << 30; // 2 GiB
inline constexpr std::uint64_t kMaxWorkloadFileBytes = std::uint64_t(64) << 20; // 64 MiB
// An Nsight Systems SQLite export is not read whole (SQLite pages it in as the importer asks, and what it
// keeps is bounded by the counts above), so its cap only keeps a mistaken file from being scanned for
// minutes: the largest real exports, of captures minutes long, are a few GiB.
inline constexpr std::uint64_t kMaxNsysFileBytes = std::uint64_t(32) << 30; // 32 GiB
// A workload's buffers, each and all of one kind together: 1 PiB (no machine has that much memory,
// and every sum of sizes then fits in 64 bits).
inline constexpr std::uint64_t kMaxBufferBytes = std::uint64_t(1) << 50;

// "2 GiB", "13 days": the limits as messages write them.
std::string describeBytes(std::uint64_t bytes);
std::string describeSpan(std::int64_t ns);

// A time a trace may hold: kNoTime (-1, "not recorded") or within ±kMaxTimeNs.
constexpr bool isTimeInRange(std::int64_t ns)
{
    return ns >= -kMaxTimeNs && ns <= kMaxTimeNs;
}

// Throws Error{InvalidInput} "FILE: repetition R, op I: ..." (or ": N ops, more than ...") when the
// trace breaks one of the limits above: a time out of range, an end before its start, a span beyond
// kMaxSpanNs, too many ops, repetitions, streams, host threads, devices or host ranges, more text than
// kMaxTotalTextBytes; host ranges are checked as ops are (times in range, in order, inside the span), op
// pieces against their op (inside its GPU time, in order, names in the strings).
// Every reader calls it on the trace it made (the native and Chrome readers also check each value as they
// read it, naming its JSON path), so that whatever a reader accepts, the native reader reads back.
void checkTraceLimits(const Trace &trace, const std::string &fileName);

} // namespace limits

} // namespace streamscope::engine
