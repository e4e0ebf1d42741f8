// CSV export: one row per op of every repetition, with times relative to the repetition's start, in
// nanoseconds; an unknown value is an empty field. The columns are docs/formats.md's ("CSV").
#pragma once

#include <string>

#include "engine/model/trace.h"

namespace streamscope::engine {

std::string toCsv(const Trace &trace);
void writeCsv(const Trace &trace, const std::string &path); // atomic; throws Error{Io}

} // namespace streamscope::engine
