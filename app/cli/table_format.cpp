// Helpers shared by the CLI's commands (see table_format.h).
#include "app/cli/table_format.h"

#include <iomanip>
#include <ostream>
#include <sstream>

#include "app/cli/commands.h"
#include "engine/units.h"

namespace streamscope::cli {

using engine::ErrorKind;

int exitCodeOf(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::InvalidInput: return ExitInvalidInput;
    case ErrorKind::Io: return ExitIo;
    case ErrorKind::NoGpu: return ExitNoGpu;
    case ErrorKind::Cuda: return ExitCuda;
    case ErrorKind::OutOfMemory: return ExitOutOfMemory;
    case ErrorKind::Cancelled: return ExitCancelled;
    }
    return ExitInternal;
}

const char *kindName(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::InvalidInput: return "invalid_input";
    case ErrorKind::Io: return "io";
    case ErrorKind::NoGpu: return "no_gpu";
    case ErrorKind::Cuda: return "cuda";
    case ErrorKind::OutOfMemory: return "out_of_memory";
    case ErrorKind::Cancelled: return "cancelled";
    }
    return "internal";
}

std::string ms(double ns) { return engine::formatDuration(static_cast<std::int64_t>(ns)); }

std::string pct(double f)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << f * 100.0 << " %";
    return s.str();
}

std::string gbs(double v)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(v >= 100 ? 0 : (v >= 10 ? 1 : 2)) << v << " GB/s";
    return s.str();
}

std::string spreadText(const engine::Spread &s, std::string (*fmt)(double))
{
    if (s.count == 0)
        return "-";
    if (s.count == 1)
        return fmt(s.median);
    return fmt(s.median) + "  [" + fmt(s.min) + " .. " + fmt(s.max) + "]";
}

std::string padRight(std::string s, std::size_t width)
{
    // Width in characters, not bytes: "µs" must line up with "ms".
    std::size_t chars = 0;
    for (unsigned char c : s)
        chars += (c & 0xC0) != 0x80;
    if (chars < width)
        s.append(width - chars, ' ');
    return s;
}

void emit(std::ostream &out, const nlohmann::json &line)
{
    out << line.dump() << "\n";
    out.flush();
}

int reportError(const engine::Error &e, const char *command, bool jsonMode, std::ostream &out, std::ostream &err)
{
    if (jsonMode)
        emit(out, {{"event", "error"},
                   {"kind", kindName(e.kind())},
                   {"exit_code", exitCodeOf(e.kind())},
                   {"message", e.what()}});
    err << "streamscope-cli " << command << ": " << e.what() << "\n";
    return exitCodeOf(e.kind());
}

int reportInternalError(const std::exception &e, const char *command, bool jsonMode, std::ostream &out,
                        std::ostream &err)
{
    if (jsonMode)
        emit(out, {{"event", "error"}, {"kind", "internal"}, {"exit_code", ExitInternal}, {"message", e.what()}});
    err << "streamscope-cli " << command << ": internal error: " << e.what() << "\n";
    return ExitInternal;
}

} // namespace streamscope::cli
