// JsonLocator: nlohmann's SAX parser driven through a counting input iterator, building the DOM and
// an index from JSON pointer to the byte offset where each value and key starts.
#include "engine/util/json_locator.h"

#include "engine/util/interrupt.h"
#include "engine/util/json_limits.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace streamscope::engine {

namespace {

// An input iterator over the text that publishes how far the lexer has read. nlohmann's lexer pulls
// one character at a time through it, so when a SAX event fires, the furthest position tells where
// the token that caused it ends.
class CountingIterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char *;
    using reference = const char &;

    CountingIterator(const char *p, const char **furthest) : m_p(p), m_furthest(furthest) { }
    reference operator*() const { return *m_p; }
    CountingIterator &operator++()
    {
        ++m_p;
        if (m_furthest && m_p > *m_furthest)
            *m_furthest = m_p;
        return *this;
    }
    CountingIterator operator++(int)
    {
        CountingIterator old = *this;
        ++*this;
        return old;
    }
    bool operator==(const CountingIterator &other) const { return m_p == other.m_p; }
    bool operator!=(const CountingIterator &other) const { return m_p != other.m_p; }

private:
    const char *m_p;
    const char **m_furthest;
};

bool isNumberChar(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

} // namespace

// The SAX handler: rebuilds the DOM as nlohmann's own DOM parser would, and records offsets.
class JsonLocatorSax {
public:
    using Json = nlohmann::ordered_json;

    JsonLocatorSax(JsonLocator &locator, const char *begin, const char *const *furthest) :
        m_loc(locator), m_begin(begin), m_furthest(furthest)
    {
    }

    bool null() { return scalar(Json(nullptr), Token::Literal); }
    bool boolean(bool v) { return scalar(Json(v), Token::Literal); }
    bool number_integer(Json::number_integer_t v) { return scalar(Json(v), Token::Number); }
    bool number_unsigned(Json::number_unsigned_t v) { return scalar(Json(v), Token::Number); }
    bool number_float(Json::number_float_t v, const Json::string_t &) { return scalar(Json(v), Token::Number); }
    bool string(Json::string_t &v) { return scalar(Json(std::move(v)), Token::String); }
    bool binary(Json::binary_t &v) { return scalar(Json(Json::binary_t(std::move(v))), Token::Literal); }

    bool start_object(std::size_t) { return open(Json::object(), false); }
    bool start_array(std::size_t) { return open(Json::array(), true); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(Json::string_t &k)
    {
        Frame &f = m_frames.back();
        f.key = k;
        const std::string pointer = JsonLocator::child(f.pointer, k);
        if (f.container->contains(k))
            m_loc.m_duplicateKeys.push_back(pointer);
        m_loc.m_keyOffsets[pointer] = tokenStart(Token::String);
        return true;
    }

    bool parse_error(std::size_t position, const std::string &, const nlohmann::detail::exception &ex)
    {
        std::string message = ex.what();
        // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error while ..."
        // repeats a position we give ourselves; keep the part that says what is wrong.
        if (const auto p = message.find("syntax error"); p != std::string::npos)
            message = message.substr(p);
        else if (const auto q = message.find("] "); q != std::string::npos)
            message = message.substr(q + 2);
        m_loc.m_syntaxError = message;
        // `position` counts characters read, the end of input included: point at the last one read,
        // or at the text's last character for an unexpected end (not at an empty line after it).
        std::size_t offset = position > 0 ? position - 1 : 0;
        if (offset >= m_loc.m_text.size())
            offset = m_loc.m_text.empty() ? 0 : m_loc.m_text.size() - 1;
        m_loc.m_syntaxErrorPosition = m_loc.positionOfOffset(offset);
        return false;
    }

private:
    enum class Token { Container, String, Number, Literal };

    struct Frame {
        Json *container;
        bool isArray;
        std::size_t index = 0;
        std::string key;
        std::string pointer;
    };

    std::size_t consumed() const { return static_cast<std::size_t>(*m_furthest - m_begin); }

    // The offset of the first character of the token the lexer has just read.
    std::size_t tokenStart(Token token) const
    {
        const std::string &text = m_loc.m_text;
        const std::size_t n = consumed();
        if (n == 0)
            return 0;
        std::size_t end = n - 1; // last character handed to the lexer
        switch (token) {
        case Token::Container: return end;
        case Token::String: {
            // `end` is the closing quote; the opening one is the first quote before it that is not
            // escaped by an odd number of backslashes.
            std::size_t i = end;
            while (i > 0) {
                --i;
                if (text[i] != '"')
                    continue;
                std::size_t slashes = 0;
                while (i >= slashes + 1 && text[i - slashes - 1] == '\\')
                    ++slashes;
                if (slashes % 2 == 0)
                    return i;
            }
            return 0;
        }
        case Token::Number: {
            // The lexer reads one character past a number to know it ended.
            if (!isNumberChar(text[end]) && end > 0)
                --end;
            std::size_t i = end;
            while (i > 0 && isNumberChar(text[i - 1]))
                --i;
            return i;
        }
        case Token::Literal: {
            std::size_t i = end;
            while (i > 0 && text[i - 1] >= 'a' && text[i - 1] <= 'z')
                --i;
            return i;
        }
        }
        return end;
    }

    // Places a value in the document; returns where it now lives.
    Json *insert(Json value, Token token)
    {
        if ((++m_values & 0xFFFF) == 0)
            throwIfInterrupted(); // a long file in the CLI stops at Ctrl-C (interrupt.h)
        std::string pointer;
        Json *slot = nullptr;
        if (m_frames.empty()) {
            m_loc.m_root = std::move(value);
            slot = &m_loc.m_root;
        } else {
            Frame &f = m_frames.back();
            if (f.isArray) {
                pointer = JsonLocator::child(f.pointer, f.index++);
                f.container->push_back(std::move(value));
                slot = &f.container->back();
            } else {
                pointer = JsonLocator::child(f.pointer, f.key);
                slot = &(*f.container)[f.key];
                *slot = std::move(value);
            }
        }
        m_loc.m_valueOffsets[pointer] = tokenStart(token);
        m_lastPointer = std::move(pointer);
        return slot;
    }

    bool scalar(Json value, Token token)
    {
        insert(std::move(value), token);
        m_loc.m_valueEnds[m_lastPointer] = tokenEnd(token);
        return true;
    }

    // The offset just past the token the lexer has just read (a scalar's last character + 1).
    std::size_t tokenEnd(Token token) const
    {
        const std::size_t n = consumed();
        if (token == Token::Number && n > 0 && !isNumberChar(m_loc.m_text[n - 1]))
            return n - 1; // the lexer read one character past the number to know it ended
        return n;
    }

    bool open(Json value, bool isArray)
    {
        Json *slot = insert(std::move(value), Token::Container);
        m_frames.push_back(Frame{slot, isArray, 0, {}, m_lastPointer});
        return true;
    }

    bool close()
    {
        m_loc.m_valueEnds[m_frames.back().pointer] = consumed(); // just past the closing bracket
        m_frames.pop_back();
        return true;
    }

    JsonLocator &m_loc;
    const char *m_begin;
    const char *const *m_furthest;
    std::vector<Frame> m_frames;
    std::string m_lastPointer;
    std::size_t m_values = 0;
};

bool JsonLocator::parse(std::string_view text, bool allowComments)
{
    m_text.assign(text);
    // One pass: where each line starts, and how many UTF-8 continuation bytes precede each block of
    // kColumnBlock bytes, so that positionOfOffset() costs a binary search and at most one block's scan
    // (a minified file is one line: scanning it from its start for every op was quadratic).
    m_lineStarts.assign(1, 0);
    m_continuationsBefore.assign(1, 0);
    std::uint32_t continuations = 0;
    for (std::size_t i = 0; i < m_text.size(); ++i) {
        if (i % kColumnBlock == 0 && i > 0)
            m_continuationsBefore.push_back(continuations);
        const auto c = static_cast<unsigned char>(m_text[i]);
        if ((c & 0xC0) == 0x80)
            ++continuations;
        else if (c == '\n')
            m_lineStarts.push_back(i + 1);
    }
    m_root = nullptr;
    m_valueOffsets.clear();
    m_valueEnds.clear();
    m_keyOffsets.clear();
    m_duplicateKeys.clear();
    m_syntaxError.clear();
    m_syntaxErrorPosition = {};

    // Nested too deep for the JSON-path bookkeeping (its memory grows with the square of the depth):
    // refused as a syntax error at the bracket that goes one level too far.
    if (const auto at = findExcessiveJsonNesting(m_text, allowComments)) {
        m_syntaxError = "nested deeper than " + std::to_string(kMaxJsonDepth)
                        + " levels of arrays and objects (StreamScope reads at most " + std::to_string(kMaxJsonDepth)
                        + ")";
        m_syntaxErrorPosition = positionOfOffset(*at);
        return false;
    }
    const char *begin = m_text.data();
    const char *furthest = begin;
    JsonLocatorSax sax(*this, begin, &furthest);
    const bool ok = nlohmann::ordered_json::sax_parse(CountingIterator(begin, &furthest),
                                                      CountingIterator(begin + m_text.size(), nullptr), &sax,
                                                      nlohmann::ordered_json::input_format_t::json,
                                                      /*strict=*/true, allowComments);
    if (!ok) {
        m_root = nullptr;
        if (m_syntaxError.empty()) // a handler never refuses, but keep the contract of a message
            m_syntaxError = "syntax error";
    }
    return ok;
}

TextPosition JsonLocator::positionOfOffset(std::size_t offset) const
{
    if (m_lineStarts.empty())
        return {};
    offset = std::min(offset, m_text.size());
    const auto it = std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), offset);
    const auto line = static_cast<int>(it - m_lineStarts.begin());
    const std::size_t start = *(it - 1);
    // A UTF-8 byte order mark is invisible in editors: columns on the first line start after it.
    std::size_t from = start;
    if (start == 0 && m_text.compare(0, 3, "\xEF\xBB\xBF") == 0)
        from = std::min<std::size_t>(3, offset);
    // Characters are the bytes less the UTF-8 continuation bytes (columns count lead bytes only).
    const std::size_t characters = (offset - from) - (continuationsBefore(offset) - continuationsBefore(from));
    const std::size_t column = 1 + characters;
    return {line, static_cast<int>(std::min<std::size_t>(column, std::numeric_limits<int>::max()))};
}

std::size_t JsonLocator::continuationsBefore(std::size_t offset) const
{
    const std::size_t block = offset / kColumnBlock;
    std::size_t n = m_continuationsBefore[std::min(block, m_continuationsBefore.size() - 1)];
    for (std::size_t i = block * kColumnBlock; i < offset; ++i)
        if ((static_cast<unsigned char>(m_text[i]) & 0xC0) == 0x80)
            ++n;
    return n;
}

TextPosition JsonLocator::valuePosition(const std::string &pointer) const
{
    std::string p = pointer;
    while (true) {
        if (const auto it = m_valueOffsets.find(p); it != m_valueOffsets.end())
            return positionOfOffset(it->second);
        if (p.empty())
            return {};
        p = parent(p);
    }
}

std::optional<std::pair<std::size_t, std::size_t>> JsonLocator::valueRange(const std::string &pointer) const
{
    const auto start = m_valueOffsets.find(pointer);
    const auto end = m_valueEnds.find(pointer);
    if (start == m_valueOffsets.end() || end == m_valueEnds.end())
        return std::nullopt;
    return std::pair{start->second, end->second};
}

std::optional<std::size_t> JsonLocator::keyOffset(const std::string &pointer) const
{
    const auto it = m_keyOffsets.find(pointer);
    return it == m_keyOffsets.end() ? std::nullopt : std::optional(it->second);
}

TextPosition JsonLocator::keyPosition(const std::string &pointer) const
{
    if (const auto it = m_keyOffsets.find(pointer); it != m_keyOffsets.end())
        return positionOfOffset(it->second);
    return valuePosition(pointer);
}

std::string JsonLocator::child(const std::string &pointer, std::string_view key)
{
    std::string out = pointer;
    out.reserve(pointer.size() + key.size() + 1);
    out += '/';
    for (char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

std::string JsonLocator::child(const std::string &pointer, std::size_t index)
{
    return pointer + '/' + std::to_string(index);
}

std::string JsonLocator::parent(const std::string &pointer)
{
    const auto slash = pointer.rfind('/');
    return slash == std::string::npos ? std::string() : pointer.substr(0, slash);
}

} // namespace streamscope::engine
