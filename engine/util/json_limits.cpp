// findExcessiveJsonNesting(): one pass over the bytes, outside strings and comments.
#include "engine/util/json_limits.h"

#include <algorithm>

#include "engine/model/errors.h"

namespace streamscope::engine {

std::optional<std::size_t> findExcessiveJsonNesting(std::string_view text, bool allowComments, int maxDepth)
{
    int depth = 0;
    const std::size_t n = text.size();
    for (std::size_t i = 0; i < n; ++i) {
        const char c = text[i];
        if (c == '"') {
            for (++i; i < n && text[i] != '"'; ++i)
                if (text[i] == '\\')
                    ++i; // the escaped character, whatever it is
            continue;
        }
        if (allowComments && c == '/' && i + 1 < n) {
            if (text[i + 1] == '/') {
                const std::size_t end = text.find('\n', i + 2);
                i = end == std::string_view::npos ? n : end;
                continue;
            }
            if (text[i + 1] == '*') {
                const std::size_t end = text.find("*/", i + 2);
                i = end == std::string_view::npos ? n : end + 1;
                continue;
            }
        }
        if (c == '[' || c == '{') {
            if (++depth > maxDepth)
                return i;
        } else if (c == ']' || c == '}') {
            depth = std::max(0, depth - 1); // unbalanced text is the parser's to report
        }
    }
    return std::nullopt;
}

std::string lineColumnOfByte(std::string_view text, std::size_t offset)
{
    offset = std::min(offset, text.size());
    const std::string_view before = text.substr(0, offset);
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    const std::size_t lineStart = before.rfind('\n');
    const std::size_t column = offset - (lineStart == std::string_view::npos ? 0 : lineStart + 1) + 1;
    return std::to_string(line) + ":" + std::to_string(column);
}

std::string excessiveNestingMessage(std::string_view text, std::size_t offset, const std::string &fileName,
                                    int maxDepth)
{
    const std::string limit = std::to_string(maxDepth);
    return fileName + ":" + lineColumnOfByte(text, offset) + ": nested deeper than " + limit
           + " levels of arrays and objects (StreamScope reads at most " + limit + ")";
}

void checkJsonNesting(std::string_view text, const std::string &fileName, bool allowComments, int maxDepth)
{
    if (const auto at = findExcessiveJsonNesting(text, allowComments, maxDepth))
        throw Error(ErrorKind::InvalidInput, excessiveNestingMessage(text, *at, fileName, maxDepth));
}

} // namespace streamscope::engine
