// JSON text edits through JsonLocator's offsets (see json_edit.h).
#include "engine/util/json_edit.h"

#include <algorithm>
#include <iterator>

#include "engine/model/errors.h"
#include "engine/util/json_locator.h"

namespace streamscope::engine {

namespace {

using Json = nlohmann::ordered_json;

JsonLocator locate(std::string_view text)
{
    JsonLocator locator;
    if (!locator.parse(text)) {
        const TextPosition at = locator.syntaxErrorPosition();
        throw Error(ErrorKind::InvalidInput, "line " + std::to_string(at.line) + ": " + locator.syntaxError()
                                                 + ": the text must be valid JSON to be edited");
    }
    return locator;
}

const Json &valueAt(const JsonLocator &locator, const std::string &pointer, Json::value_t type, const char *what)
{
    const Json::json_pointer p(pointer);
    if (!locator.root().contains(p) || locator.root().at(p).type() != type)
        throw Error(ErrorKind::InvalidInput, "\"" + pointer + "\" is not " + what + " in the text");
    return locator.root().at(p);
}

std::pair<std::size_t, std::size_t> rangeOf(const JsonLocator &locator, const std::string &pointer)
{
    const auto range = locator.valueRange(pointer);
    if (!range)
        throw Error(ErrorKind::InvalidInput, "\"" + pointer + "\" has no value in the text");
    return *range;
}

// The whitespace that starts the line holding `offset`, and whether only whitespace comes before it.
std::string indentOf(std::string_view text, std::size_t offset, bool *onlySpaceBefore = nullptr)
{
    std::size_t start = text.rfind('\n', offset == 0 ? 0 : offset - 1);
    start = start == std::string_view::npos ? 0 : start + 1;
    std::size_t i = start;
    while (i < offset && (text[i] == ' ' || text[i] == '\t'))
        ++i;
    if (onlySpaceBefore)
        *onlySpaceBefore = i == offset;
    return std::string(text.substr(start, i - start));
}

std::string splice(std::string_view text, std::size_t begin, std::size_t end, std::string_view with)
{
    std::string out;
    out.reserve(text.size() + with.size());
    out.append(text.substr(0, begin));
    out.append(with);
    out.append(text.substr(end));
    return out;
}

bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

// The offset of the comma in [from, to), skipping comments (a comma inside one is not the separator);
// npos when there is none.
std::size_t commaBetween(std::string_view text, std::size_t from, std::size_t to)
{
    for (std::size_t i = from; i < to; ++i) {
        if (text.substr(i, 2) == "//") {
            const std::size_t eol = text.find('\n', i);
            i = eol == std::string_view::npos ? to : eol;
        } else if (text.substr(i, 2) == "/*") {
            const std::size_t close = text.find("*/", i + 2);
            i = close == std::string_view::npos ? to : close + 1;
        } else if (text[i] == ',') {
            return i;
        }
    }
    return std::string_view::npos;
}

// The end of the line holding `offset` when only blanks and a // comment follow it there (the newline
// included), else npos.
std::size_t restOfLineIfEmpty(std::string_view text, std::size_t offset)
{
    std::size_t i = offset;
    while (i < text.size() && isBlank(text[i]))
        ++i;
    if (text.substr(i, 2) == "//")
        i = text.find('\n', i) == std::string_view::npos ? text.size() : text.find('\n', i);
    if (i >= text.size())
        return text.size();
    return text[i] == '\n' ? i + 1 : std::string_view::npos;
}

std::size_t lineBeginOf(std::string_view text, std::size_t offset)
{
    const std::size_t nl = text.rfind('\n', offset == 0 ? 0 : offset - 1);
    return offset == 0 || nl == std::string_view::npos ? 0 : nl + 1;
}

// Removes [begin, end) (a value or a member) with the comma that separates it from its neighbours: the
// comma after it when it has a next sibling (starting at `nextBegin`), else the comma before it (after
// the previous sibling's end `prevEnd`). An element on lines of its own goes with them (a // comment
// after it included); comments that belong to its neighbours stay.
std::string removeWithComma(std::string_view text, std::size_t begin, std::size_t end, bool hasPrev,
                            std::size_t prevEnd, bool hasNext, std::size_t nextBegin)
{
    bool ownLine = false;
    indentOf(text, begin, &ownLine);
    if (hasNext) {
        const std::size_t comma = commaBetween(text, end, nextBegin);
        std::size_t cut = comma == std::string_view::npos ? end : comma + 1;
        if (ownLine) {
            if (const std::size_t eol = restOfLineIfEmpty(text, cut); eol != std::string_view::npos)
                return splice(text, lineBeginOf(text, begin), eol, "");
        }
        while (cut < nextBegin && isBlank(text[cut]))
            ++cut;
        return splice(text, begin, cut, "");
    }
    // The last one: remove it (with its own line when it has one), then the comma before it.
    std::size_t from = begin;
    std::size_t to = end;
    if (ownLine) {
        if (const std::size_t eol = restOfLineIfEmpty(text, end); eol != std::string_view::npos) {
            from = lineBeginOf(text, begin);
            to = eol;
        }
    }
    if (!ownLine || from == begin) {
        // Inline: the blanks before it go too ("[1, 2]" -> "[1]").
        while (from > 0 && isBlank(text[from - 1]))
            --from;
    }
    std::string out = splice(text, from, to, "");
    if (hasPrev) {
        const std::size_t comma = commaBetween(out, prevEnd, from);
        if (comma != std::string_view::npos)
            out.erase(comma, 1);
    }
    return out;
}

} // namespace

std::string inlineJson(const Json &value)
{
    if (value.is_object()) {
        std::string out = "{";
        bool first = true;
        for (const auto &[k, v] : value.items()) {
            out += first ? "" : ", ";
            first = false;
            out += Json(k).dump() + ": " + inlineJson(v);
        }
        return out + "}";
    }
    if (value.is_array()) {
        std::string out = "[";
        for (std::size_t i = 0; i < value.size(); ++i)
            out += (i ? ", " : "") + inlineJson(value[i]);
        return out + "]";
    }
    return value.dump();
}

std::string jsonSetMember(std::string_view text, const std::string &objectPointer, std::string_view key,
                          const Json &value)
{
    const JsonLocator locator = locate(text);
    const Json &object = valueAt(locator, objectPointer, Json::value_t::object, "an object");
    const std::string member = JsonLocator::child(objectPointer, key);
    if (object.contains(std::string(key))) {
        const auto [begin, end] = rangeOf(locator, member);
        return splice(text, begin, end, inlineJson(value));
    }
    const std::string entry = Json(std::string(key)).dump() + ": " + inlineJson(value);
    const auto [objBegin, objEnd] = rangeOf(locator, objectPointer);
    if (object.empty())
        return splice(text, objBegin + 1, objBegin + 1, entry);
    const std::string last = JsonLocator::child(objectPointer, std::prev(object.end()).key());
    const auto [lastBegin, lastEnd] = rangeOf(locator, last);
    const std::size_t lastKey = locator.keyOffset(last).value_or(lastBegin);
    bool ownLine = false;
    const std::string indent = indentOf(text, lastKey, &ownLine);
    // Members on lines of their own get a new line; a one-line object stays on one line.
    const bool multiLine = text.substr(objBegin, objEnd - objBegin).find('\n') != std::string_view::npos && ownLine;
    return splice(text, lastEnd, lastEnd, multiLine ? ",\n" + indent + entry : ", " + entry);
}

std::string jsonRemoveMember(std::string_view text, const std::string &objectPointer, std::string_view key)
{
    const JsonLocator locator = locate(text);
    const Json &object = valueAt(locator, objectPointer, Json::value_t::object, "an object");
    if (!object.contains(std::string(key)))
        return std::string(text);
    const std::string member = JsonLocator::child(objectPointer, key);
    const auto [valueBegin, end] = rangeOf(locator, member);
    const std::size_t begin = locator.keyOffset(member).value_or(valueBegin);
    std::size_t nextBegin = end, prevEnd = 0;
    bool hasNext = false, hasPrev = false;
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it.key() != key)
            continue;
        if (std::next(it) != object.end()) {
            const std::string next = JsonLocator::child(objectPointer, std::next(it).key());
            nextBegin = locator.keyOffset(next).value_or(rangeOf(locator, next).first);
            hasNext = true;
        }
        if (it != object.begin()) {
            prevEnd = rangeOf(locator, JsonLocator::child(objectPointer, std::prev(it).key())).second;
            hasPrev = true;
        }
    }
    return removeWithComma(text, begin, end, hasPrev, prevEnd, hasNext, nextBegin);
}

std::string jsonReplaceValue(std::string_view text, const std::string &pointer, const Json &value)
{
    const JsonLocator locator = locate(text);
    const auto [begin, end] = rangeOf(locator, pointer);
    return splice(text, begin, end, inlineJson(value));
}

std::string jsonInsertElement(std::string_view text, const std::string &arrayPointer, std::size_t index,
                              const Json &value)
{
    const JsonLocator locator = locate(text);
    const Json &array = valueAt(locator, arrayPointer, Json::value_t::array, "an array");
    if (index >= array.size())
        return jsonAppendElement(text, arrayPointer, value);
    const auto [begin, end] = rangeOf(locator, JsonLocator::child(arrayPointer, index));
    bool ownLine = false;
    const std::string indent = indentOf(text, begin, &ownLine);
    return splice(text, begin, begin, inlineJson(value) + (ownLine ? ",\n" + indent : std::string(", ")));
}

std::string jsonAppendElement(std::string_view text, const std::string &arrayPointer, const Json &value)
{
    const JsonLocator locator = locate(text);
    const Json &array = valueAt(locator, arrayPointer, Json::value_t::array, "an array");
    const auto [arrBegin, arrEnd] = rangeOf(locator, arrayPointer);
    if (array.empty())
        return splice(text, arrBegin + 1, arrEnd - 1, inlineJson(value));
    const auto [lastBegin, lastEnd] = rangeOf(locator, JsonLocator::child(arrayPointer, array.size() - 1));
    bool ownLine = false;
    const std::string indent = indentOf(text, lastBegin, &ownLine);
    return splice(text, lastEnd, lastEnd, ownLine ? ",\n" + indent + inlineJson(value) : ", " + inlineJson(value));
}

std::string jsonRemoveElement(std::string_view text, const std::string &arrayPointer, std::size_t index)
{
    const JsonLocator locator = locate(text);
    const Json &array = valueAt(locator, arrayPointer, Json::value_t::array, "an array");
    if (index >= array.size())
        throw Error(ErrorKind::InvalidInput, "\"" + arrayPointer + "\" has no element " + std::to_string(index));
    const auto [begin, end] = rangeOf(locator, JsonLocator::child(arrayPointer, index));
    const bool hasNext = index + 1 < array.size();
    const std::size_t nextBegin = hasNext ? rangeOf(locator, JsonLocator::child(arrayPointer, index + 1)).first : end;
    const bool hasPrev = index > 0;
    const std::size_t prevEnd = hasPrev ? rangeOf(locator, JsonLocator::child(arrayPointer, index - 1)).second : 0;
    return removeWithComma(text, begin, end, hasPrev, prevEnd, hasNext, nextBegin);
}

std::string jsonSwapElements(std::string_view text, const std::string &arrayPointer, std::size_t a, std::size_t b)
{
    const JsonLocator locator = locate(text);
    const Json &array = valueAt(locator, arrayPointer, Json::value_t::array, "an array");
    if (a >= array.size() || b >= array.size())
        throw Error(ErrorKind::InvalidInput,
                    "\"" + arrayPointer + "\" has no element " + std::to_string(std::max(a, b)));
    if (a == b)
        return std::string(text);
    if (a > b)
        std::swap(a, b);
    const auto [aBegin, aEnd] = rangeOf(locator, JsonLocator::child(arrayPointer, a));
    const auto [bBegin, bEnd] = rangeOf(locator, JsonLocator::child(arrayPointer, b));
    const std::string aText(text.substr(aBegin, aEnd - aBegin));
    const std::string bText(text.substr(bBegin, bEnd - bBegin));
    std::string out = splice(text, bBegin, bEnd, aText);
    return splice(out, aBegin, aEnd, bText);
}

} // namespace streamscope::engine
