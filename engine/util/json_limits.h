// Limits every JSON reader enforces before it parses, so that a file from someone else can never crash
// or exhaust the machine: nesting deeper than kMaxJsonDepth arrays and objects is refused, named by
// file, line and column. Real files nest a few levels (a workload 4, a Chrome trace's args 6); a file
// nested hundreds of levels deep is hostile or broken, and the parsers' memory (the workload parser's
// JSON-path bookkeeping grows with the square of the depth) or a recursive walk over it would not
// survive it. The scan is linear and allocates nothing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace streamscope::engine {

inline constexpr int kMaxJsonDepth = 256;

// "LINE:COLUMN" of a byte offset, both counted from 1, the column in bytes: where an editor puts the
// cursor for a parser's byte position (the readers' error messages).
std::string lineColumnOfByte(std::string_view text, std::size_t offset);

// Where the first JSON syntax error of `text` is and what it is: a linear pass of nlohmann's SAX parser
// that builds nothing (for readers whose own fast parser says only that the text is not JSON). None when
// the text is valid JSON. `message` is the parser's, without its own position ("syntax error while
// parsing value - invalid literal; last read: 'tru,'").
struct JsonSyntaxError {
    std::size_t offset = 0; // byte offset of the character where parsing stopped
    std::string message;
};
std::optional<JsonSyntaxError> findJsonSyntaxError(std::string_view text);

// The offset of the first '[' or '{' that opens a level deeper than maxDepth, or nothing. Strings (with
// their escapes) are skipped, and so are // and /* */ comments when allowComments is set.
std::optional<std::size_t> findExcessiveJsonNesting(std::string_view text, bool allowComments = false,
                                                    int maxDepth = kMaxJsonDepth);

// The message for such a file: "FILE:LINE:COLUMN: nested deeper than 256 levels of arrays and objects
// (StreamScope reads at most 256)". Line and column count from 1, columns in bytes.
std::string excessiveNestingMessage(std::string_view text, std::size_t offset, const std::string &fileName,
                                    int maxDepth = kMaxJsonDepth);

// Throws Error{InvalidInput} with that message when the text nests too deep.
void checkJsonNesting(std::string_view text, const std::string &fileName, bool allowComments = false,
                      int maxDepth = kMaxJsonDepth);

} // namespace streamscope::engine
