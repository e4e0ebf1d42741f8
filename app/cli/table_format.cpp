// Helpers shared by the CLI's commands (see table_format.h).
#include "app/cli/table_format.h"

#include <iomanip>
#include <ostream>
#include <sstream>

#include "app/cli/terminal_text.h"
#include "engine/model/units.h"

namespace streamscope::cli {

using engine::ErrorKind;

std::string ms(double ns)
{
    return engine::formatDuration(static_cast<std::int64_t>(ns));
}

std::string pct(double f)
{
    return engine::formatPercent(f);
}

std::string gbs(double v)
{
    return engine::formatRate(v);
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
        emit(out, {{field::kEvent, event::kError},
                   {field::kKind, protocol::kindName(e.kind())},
                   {field::kExitCode, protocol::exitCodeOf(e.kind())},
                   {field::kMessage, e.what()}});
    err << "streamscope-cli " << command << ": " << clampLines(e.what()) << "\n";
    return protocol::exitCodeOf(e.kind());
}

int reportInternalError(const std::exception &e, const char *command, bool jsonMode, std::ostream &out,
                        std::ostream &err)
{
    if (jsonMode)
        emit(out, {{field::kEvent, event::kError},
                   {field::kKind, protocol::kInternalKindName},
                   {field::kExitCode, protocol::ExitInternal},
                   {field::kMessage, e.what()}});
    err << "streamscope-cli " << command << ": internal error: " << clampLines(e.what()) << "\n";
    return protocol::ExitInternal;
}

} // namespace streamscope::cli
