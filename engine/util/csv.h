// CSV (RFC 4180) fields, for every CSV StreamScope writes (the trace export, range statistics).
#pragma once

#include <string>
#include <string_view>

namespace streamscope::engine {

// Appends s as one field: as it is, or quoted (with inner quotes doubled) when it holds a comma, a quote
// or a line break.
inline void appendCsvField(std::string &out, std::string_view s)
{
    if (s.find_first_of(",\"\n\r") == std::string_view::npos) {
        out.append(s);
        return;
    }
    out += '"';
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    out += '"';
}

inline std::string csvField(std::string_view s)
{
    std::string out;
    appendCsvField(out, s);
    return out;
}

} // namespace streamscope::engine
