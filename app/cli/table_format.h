// Helpers shared by the CLI's commands: the JSON progress lines (their names and exit codes are
// engine/run/cli_protocol.h's), error reports, and the cells of its terminal tables (durations, percentages, rates,
// median [min .. max]).
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/analysis/analysis.h"
#include "engine/model/errors.h"
#include "engine/run/cli_protocol.h"

namespace streamscope::cli {

namespace protocol = engine::protocol;
namespace event = engine::protocol::event;
namespace field = engine::protocol::field;

std::string ms(double ns); // "1.23 ms", "447 µs"
std::string pct(double f); // 0.5 -> "50.0 %"
std::string gbs(double v); // "12.3 GB/s"
// "median  [min .. max]", the median alone for one sample, "-" for none.
std::string spreadText(const engine::Spread &s, std::string (*fmt)(double));
std::string padRight(std::string s, std::size_t width);

// One JSON line on `out`, flushed at once (a reading GUI must not wait on a buffer).
void emit(std::ostream &out, const nlohmann::json &line);

// A command's failure: the {"event":"error"} line in JSON mode, "streamscope-cli COMMAND: message" on
// `err` always. Returns the exit code.
int reportError(const engine::Error &e, const char *command, bool jsonMode, std::ostream &out, std::ostream &err);
// The same for anything else thrown (a bug): kind "internal", exit code 1.
int reportInternalError(const std::exception &e, const char *command, bool jsonMode, std::ostream &out,
                        std::ostream &err);

} // namespace streamscope::cli
