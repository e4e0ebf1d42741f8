// findExcessiveJsonNesting(): one pass over the bytes, outside strings and comments.
#include "engine/util/json_limits.h"

#include <algorithm>
#include <nlohmann/json.hpp>

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

namespace {

// A SAX handler that keeps nothing but the first error.
struct SyntaxOnly {
    using Json = nlohmann::json;
    std::optional<JsonSyntaxError> error;
    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(Json::number_integer_t) { return true; }
    bool number_unsigned(Json::number_unsigned_t) { return true; }
    bool number_float(Json::number_float_t, const Json::string_t &) { return true; }
    bool string(Json::string_t &) { return true; }
    bool binary(Json::binary_t &) { return true; }
    bool start_object(std::size_t) { return true; }
    bool end_object() { return true; }
    bool start_array(std::size_t) { return true; }
    bool end_array() { return true; }
    bool key(Json::string_t &) { return true; }
    bool parse_error(std::size_t position, const std::string &, const nlohmann::detail::exception &ex)
    {
        std::string message = ex.what();
        if (const auto p = message.find("syntax error"); p != std::string::npos)
            message = message.substr(p);
        else if (const auto q = message.find("] "); q != std::string::npos)
            message = message.substr(q + 2);
        error = JsonSyntaxError{position > 0 ? position - 1 : 0, std::move(message)};
        return false;
    }
};

} // namespace

std::optional<JsonSyntaxError> findJsonSyntaxError(std::string_view text)
{
    SyntaxOnly sax;
    try {
        nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
    } catch (const nlohmann::json::exception &e) {
        return JsonSyntaxError{0, e.what()};
    }
    if (sax.error)
        sax.error->offset = std::min(sax.error->offset, text.empty() ? 0 : text.size() - 1);
    return sax.error;
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
