// Edits of JSON text that keep everything else as it was written: comments, key order, spacing and short
// forms ("16 MiB", "repeat" groups, a "pipeline"). The workload editor's structured edits (a field, a new
// op, a removed buffer) go through these, so the text stays the one truth and a one-field edit changes
// one value. Positions come from JsonLocator; values are written on one line ({"op": "kernel", ...}).
// Every function parses `text` (comments allowed) and throws Error{InvalidInput} when it does not parse
// or when the pointer does not name what the edit needs (naming the pointer).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace streamscope::engine {

// `value` written as on one line: {"a": 1, "b": [2, 3]} (nlohmann's dump() leaves out the spaces).
std::string inlineJson(const nlohmann::ordered_json &value);

// Sets member `key` of the object at `objectPointer` ("" is the document): its value is replaced where
// it is, or the member is added after the object's last one.
std::string jsonSetMember(std::string_view text, const std::string &objectPointer, std::string_view key,
                          const nlohmann::ordered_json &value);
// Removes member `key` of the object at `objectPointer` (nothing happens when it has none).
std::string jsonRemoveMember(std::string_view text, const std::string &objectPointer, std::string_view key);
// Replaces the value at `pointer` where it is.
std::string jsonReplaceValue(std::string_view text, const std::string &pointer, const nlohmann::ordered_json &value);
// Appends `value` to the array at `arrayPointer`, on a line of its own indented as the last element.
std::string jsonAppendElement(std::string_view text, const std::string &arrayPointer,
                              const nlohmann::ordered_json &value);
// Inserts `value` before element `index` of the array (at its end when index is its size).
std::string jsonInsertElement(std::string_view text, const std::string &arrayPointer, std::size_t index,
                              const nlohmann::ordered_json &value);
// Removes element `index` of the array at `arrayPointer`, with its comma and the rest of its line.
std::string jsonRemoveElement(std::string_view text, const std::string &arrayPointer, std::size_t index);
// Swaps elements `a` and `b` of the array at `arrayPointer` (their texts, comments inside them included).
std::string jsonSwapElements(std::string_view text, const std::string &arrayPointer, std::size_t a, std::size_t b);

} // namespace streamscope::engine
