// JsonLocator: nlohmann's SAX parser driven through a counting input iterator, building the DOM and
// an index from JSON pointer to the byte offset where each value and key starts.
#include "engine/util/json_locator.h"

#include "engine/util/interrupt.h"
#include "engine/util/json_limits.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <memory>

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
        if (m_furthest) // the lexer's iterator, only ever moved forward (the end has none)
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

// The DOM of one element of an array kept in the text (JsonLocator::TextArray::element), as the locator's
// own parse builds it: the arrays in it that the locator keeps in the text stay empty, their elements
// skipped.
class ElementSax {
public:
    using Json = nlohmann::ordered_json;

    ElementSax(const std::function<bool(const std::string &)> &keepInText, std::string pointer) :
        m_keepInText(keepInText), m_pointer(std::move(pointer))
    {
    }
    Json take() { return std::move(m_root); }

    bool null() { return scalar(Json(nullptr)); }
    bool boolean(bool v) { return scalar(Json(v)); }
    bool number_integer(Json::number_integer_t v) { return scalar(Json(v)); }
    bool number_unsigned(Json::number_unsigned_t v) { return scalar(Json(v)); }
    bool number_float(Json::number_float_t v, const Json::string_t &) { return scalar(Json(v)); }
    bool string(Json::string_t &v) { return scalar(Json(std::move(v))); }
    bool binary(Json::binary_t &v) { return scalar(Json(Json::binary_t(std::move(v)))); }

    bool start_object(std::size_t) { return open(Json::object(), false); }
    bool start_array(std::size_t) { return open(Json::array(), true); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(Json::string_t &k)
    {
        if (m_skipped == 0)
            m_frames.back().key = std::move(k);
        return true;
    }
    // The text was parsed once already: an error here would be a defect (what was built by then is returned).
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) { return false; }

private:
    struct Frame {
        Json *container;
        bool isArray;
        std::string pointer; // the container's
        std::string key; // the member being read (objects)
    };

    // Places a value; returns where it now lives.
    Json *insert(Json &&value)
    {
        if (m_frames.empty()) {
            m_root = std::move(value);
            return &m_root;
        }
        Frame &f = m_frames.back();
        if (f.isArray) {
            f.container->push_back(std::move(value));
            return &f.container->back();
        }
        Json *slot = &(*f.container)[f.key];
        *slot = std::move(value);
        return slot;
    }

    bool scalar(Json &&value)
    {
        if (m_skipped == 0)
            insert(std::move(value));
        return true;
    }

    bool open(Json &&value, bool isArray)
    {
        if (m_skipped > 0) {
            ++m_skipped;
            return true;
        }
        std::string pointer;
        if (m_frames.empty()) {
            pointer = std::move(m_pointer);
        } else {
            const Frame &f = m_frames.back();
            pointer =
                f.isArray ? JsonLocator::child(f.pointer, f.container->size()) : JsonLocator::child(f.pointer, f.key);
        }
        const bool member = !m_frames.empty() && !m_frames.back().isArray;
        Json *slot = insert(std::move(value));
        if (!isArray) // room for a few members at once (an op has three to eight), not grown one by one
            slot->get_ref<Json::object_t &>().reserve(kObjectRoom);
        if (isArray && member && m_keepInText(pointer)) {
            m_skipped = 1; // stays empty
            return true;
        }
        m_frames.push_back(Frame{slot, isArray, std::move(pointer), {}});
        return true;
    }

    bool close()
    {
        if (m_skipped > 0)
            --m_skipped;
        else
            m_frames.pop_back();
        return true;
    }

    static constexpr std::size_t kObjectRoom = 8;
    const std::function<bool(const std::string &)> &m_keepInText;
    std::string m_pointer; // the element's
    Json m_root;
    std::vector<Frame> m_frames;
    int m_skipped = 0; // depth inside an array kept in the text
};

} // namespace

// The SAX handler: rebuilds the DOM as nlohmann's own DOM parser would, and indexes where each value
// (an object member: its key) starts. A container's children wait on a stack shared by all open containers
// (each frame knows where its own start) until it closes, then go to m_nodes together, so that they are
// consecutive there. Inside an array kept in the text nothing of the DOM is built: only the index, and the
// keys of each object there (on a stack of their own) to find duplicates.
class JsonLocatorSax {
public:
    using Json = nlohmann::ordered_json;
    using Node = JsonLocator::Node;

    JsonLocatorSax(JsonLocator &locator, const char *begin, const char *const *furthest) :
        m_loc(locator), m_begin(begin), m_furthest(furthest)
    {
    }

    bool null()
    {
        return scalar(Token::Literal, [] { return Json(nullptr); });
    }
    bool boolean(bool v)
    {
        return scalar(Token::Literal, [v] { return Json(v); });
    }
    bool number_integer(Json::number_integer_t v)
    {
        return scalar(Token::Number, [v] { return Json(v); });
    }
    bool number_unsigned(Json::number_unsigned_t v)
    {
        return scalar(Token::Number, [v] { return Json(v); });
    }
    bool number_float(Json::number_float_t v, const Json::string_t &)
    {
        return scalar(Token::Number, [v] { return Json(v); });
    }
    bool string(Json::string_t &v)
    {
        return scalar(Token::String, [&v] { return Json(std::move(v)); });
    }
    bool binary(Json::binary_t &v)
    {
        return scalar(Token::Literal, [&v] { return Json(Json::binary_t(std::move(v))); });
    }

    bool start_object(std::size_t) { return open(false); }
    bool start_array(std::size_t) { return open(true); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(Json::string_t &k)
    {
        Frame &f = m_frames.back();
        f.key = k;
        f.keyAnchor = static_cast<std::uint32_t>(tokenStart(Token::String));
        bool duplicate = false;
        if (f.inText) {
            const auto first = m_keys.begin() + static_cast<std::ptrdiff_t>(f.keysBegin);
            duplicate = std::find(first, m_keys.end(), k) != m_keys.end();
            m_keys.push_back(std::move(k));
        } else {
            duplicate = f.container->contains(k);
        }
        if (duplicate)
            m_loc.m_duplicateKeys.push_back(pointerOfKey());
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
        Json *container = nullptr; // null inside an array kept in the text
        bool isArray = false;
        bool inText = false; // an array kept in the text, or inside one: no DOM
        bool textList = false; // an array kept in the text itself
        bool element = false; // a container that is an element of one: its children are not indexed...
        bool keepIndexed = false; // ...unless it holds such an array itself
        std::uint32_t anchor = 0; // the container's own node
        std::string key; // the member being read (objects)
        std::uint32_t keyAnchor = 0;
        std::size_t childrenBegin = 0; // where its children start in m_children
        std::size_t keysBegin = 0; // where its keys start in m_keys (an object inside an array kept in the text)
        std::size_t nodesBegin = 0; // m_nodes' size when it opened: its descendants' nodes come after
        // A compact array (JsonLocator::keepPairListsCompact): its elements, its pointer. The element being
        // read waits in `pending`, dropped once added.
        std::unique_ptr<JsonLocator::PairList> pairs;
        std::unique_ptr<Json> pending;
        std::string pointer;
    };

    std::size_t consumed() const { return static_cast<std::size_t>(*m_furthest - m_begin); }

    // The children frame `i` has read so far.
    std::size_t childCount(std::size_t i) const
    {
        const std::size_t end = i + 1 < m_frames.size() ? m_frames[i + 1].childrenBegin : m_children.size();
        return end - m_frames[i].childrenBegin;
    }

    // The JSON pointer of the member whose key was just read (a duplicate key's report, and the member
    // arrays keepPairListsCompact and keepArraysInText are asked about).
    std::string pointerOfKey() const
    {
        std::string pointer;
        for (std::size_t i = 0; i < m_frames.size(); ++i) {
            const Frame &f = m_frames[i];
            pointer = f.isArray ? JsonLocator::child(pointer, childCount(i)) : JsonLocator::child(pointer, f.key);
        }
        return pointer;
    }

    // The offset of the first character of the token the lexer has just read.
    std::size_t tokenStart(Token token) const
    {
        const std::string_view text = m_loc.m_text;
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

    // Where a value's node starts: an object member's key, else the value's first character.
    std::uint32_t anchorOf(Token token) const
    {
        if (!m_frames.empty() && !m_frames.back().isArray)
            return m_frames.back().keyAnchor;
        return static_cast<std::uint32_t>(tokenStart(token));
    }

    // Places a value in the document (`make` builds it; not called inside an array kept in the text);
    // returns where it now lives, null when nowhere.
    template <typename Make> Json *insert(Make &&make)
    {
        if ((++m_values & 0xFFFF) == 0)
            throwIfInterrupted(); // a long file in the CLI stops at Ctrl-C (interrupt.h)
        if (m_frames.empty()) {
            m_loc.m_root = make();
            return &m_loc.m_root;
        }
        Frame &f = m_frames.back();
        if (f.inText)
            return nullptr;
        if (f.pending) { // an element of a compact array waits until it is complete
            *f.pending = make();
            return f.pending.get();
        }
        if (f.isArray) {
            f.container->push_back(make());
            return &f.container->back();
        }
        Json *slot = &(*f.container)[f.key];
        *slot = make();
        return slot;
    }

    // A finished node goes to its container's children, or (the root) to the index's end.
    void place(const Node &node)
    {
        if (m_frames.empty())
            m_loc.m_nodes.push_back(node);
        else
            m_children.push_back(node);
    }

    template <typename Make> bool scalar(Token token, Make &&make)
    {
        Node node;
        node.anchor = anchorOf(token);
        insert(make);
        place(node);
        addPending();
        return true;
    }

    bool open(bool isArray)
    {
        const bool outerInText = m_frames.empty() ? m_loc.m_indexOnly : m_frames.back().inText;
        // Only an object member can be a compact array or one kept in the text; asked before the member's key
        // is overwritten. Nothing inside an array kept in the text is compact.
        const bool member = isArray && !m_frames.empty() && !m_frames.back().isArray;
        bool compact = member && !outerInText && m_loc.m_keepCompact;
        bool inText = member && m_loc.m_keepInText;
        std::string pointer;
        if (compact || inText) {
            pointer = pointerOfKey();
            compact = compact && m_loc.m_keepCompact(pointer);
            inText = inText && !compact && m_loc.m_keepInText(pointer);
        }
        if (inText && outerInText) // inside elements of another: they keep their children indexed, to find it
            for (Frame &f : m_frames)
                f.keepIndexed = true;
        Frame frame;
        frame.anchor = anchorOf(Token::Container);
        frame.container = insert([isArray] { return isArray ? Json::array() : Json::object(); });
        frame.isArray = isArray;
        frame.inText = outerInText || inText;
        frame.textList = inText;
        frame.element = !m_frames.empty() && m_frames.back().textList;
        frame.childrenBegin = m_children.size();
        frame.keysBegin = m_keys.size();
        frame.nodesBegin = m_loc.m_nodes.size();
        if (compact) {
            frame.pairs = std::make_unique<JsonLocator::PairList>();
            frame.pointer = std::move(pointer);
            frame.pending = std::make_unique<Json>();
        }
        m_frames.push_back(std::move(frame));
        return true;
    }

    bool close()
    {
        Frame &f = m_frames.back();
        Node node;
        node.anchor = f.anchor;
        const auto children = m_children.begin() + static_cast<std::ptrdiff_t>(f.childrenBegin);
        if (f.element && !f.keepIndexed) { // found from its text when asked (JsonLocator::locateInside)
            node.first = JsonLocator::kNotIndexed;
            m_loc.m_nodes.resize(f.nodesBegin); // its descendants'
        } else {
            node.first = static_cast<std::uint32_t>(m_loc.m_nodes.size());
            node.count = static_cast<std::uint32_t>(m_children.size() - f.childrenBegin);
            m_loc.m_nodes.insert(m_loc.m_nodes.end(), children, m_children.end());
        }
        m_children.erase(children, m_children.end());
        m_keys.resize(f.keysBegin);
        if (f.pairs) {
            f.pairs->finish();
            m_loc.m_pairLists.insert_or_assign(std::move(f.pointer), std::move(*f.pairs));
        }
        m_frames.pop_back();
        place(node);
        addPending();
        return true;
    }

    // A value just completed inside a compact array goes to its PairList.
    void addPending()
    {
        if (m_frames.empty() || !m_frames.back().pending)
            return;
        Frame &f = m_frames.back();
        f.pairs->add(std::move(*f.pending));
    }

    JsonLocator &m_loc;
    const char *m_begin;
    const char *const *m_furthest;
    std::vector<Frame> m_frames;
    std::vector<Node> m_children; // the finished children of every open container, innermost last
    std::vector<std::string> m_keys; // the keys read so far of the open objects inside arrays kept in the text
    std::size_t m_values = 0;
};

bool JsonLocator::parse(std::string_view text, bool allowComments)
{
    return parseOwned(std::string(text), allowComments);
}

bool JsonLocator::parseOwned(std::string &&text, bool allowComments)
{
    m_ownedText = std::move(text);
    m_text = m_ownedText;
    return parseText(allowComments);
}

bool JsonLocator::parseBorrowed(std::string_view text, bool allowComments)
{
    m_ownedText = std::string();
    m_text = text;
    return parseText(allowComments);
}

bool JsonLocator::parseText(bool allowComments)
{
    m_inside.reset();
    m_allowComments = allowComments;
    m_root = nullptr;
    m_nodes.clear();
    m_pairLists.clear();
    m_duplicateKeys.clear();
    m_syntaxError.clear();
    m_syntaxErrorPosition = {};
    m_lineStarts.assign(1, 0);
    m_continuationsBefore.assign(1, 0);
    // The index holds offsets in 32 bits: a larger text (no workload is near it) is refused.
    if (m_text.size() >= std::numeric_limits<std::uint32_t>::max()) {
        m_syntaxError = "larger than 4 GiB, the most StreamScope reads here";
        m_syntaxErrorPosition = {1, 1};
        return false;
    }
    // One pass: where each line starts, and how many UTF-8 continuation bytes precede each block of
    // kColumnBlock bytes, so that positionOfOffset() costs a binary search and at most one block's scan
    // (a minified file is one line: scanning it from its start for every op was quadratic).
    std::uint32_t continuations = 0;
    for (std::size_t i = 0; i < m_text.size(); ++i) {
        if (i % kColumnBlock == 0 && i > 0)
            m_continuationsBefore.push_back(continuations);
        const auto c = static_cast<unsigned char>(m_text[i]);
        if ((c & 0xC0) == 0x80)
            ++continuations;
        else if (c == '\n')
            m_lineStarts.push_back(static_cast<std::uint32_t>(i + 1));
    }
    m_lineStarts.shrink_to_fit(); // kept with the text
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
    // Kept while the document is read: no room for more (the vector grew by doubling: up to half of it spare).
    m_nodes.shrink_to_fit();
    if (!ok) {
        m_root = nullptr;
        m_nodes.clear();
        m_pairLists.clear();
        if (m_syntaxError.empty()) // a handler never refuses, but keep the contract of a message
            m_syntaxError = "syntax error";
    }
    return ok;
}

JsonLocator::PairList JsonLocator::PairList::fromArray(const nlohmann::ordered_json &array)
{
    PairList list;
    for (const auto &element : array)
        list.add(nlohmann::ordered_json(element));
    list.finish();
    return list;
}

void JsonLocator::PairList::add(nlohmann::ordered_json &&value)
{
    // An integer beyond int64 stays a DOM value, read as the DOM reader reads it.
    const bool pair =
        value.is_array() && value.size() == 2 && value[0].is_string()
        && ((value[1].is_number_integer() && !value[1].is_number_unsigned())
            || (value[1].is_number_unsigned() && value[1].get<std::uint64_t>() <= std::uint64_t(INT64_MAX)));
    if (!pair) {
        entries.push_back({kOther, static_cast<std::int64_t>(others.size())});
        others.push_back(std::move(value));
        return;
    }
    const auto &name = value[0].get_ref<const std::string &>();
    auto it = m_nameIndex.find(name);
    if (it == m_nameIndex.end()) {
        it = m_nameIndex.emplace(name, static_cast<std::uint32_t>(names.size())).first;
        names.push_back(name);
    }
    entries.push_back({it->second, value[1].get<std::int64_t>()});
}

std::optional<JsonLocator::TextArray> JsonLocator::textArray(const std::string &pointer) const
{
    if (!m_keepInText || !m_keepInText(pointer))
        return std::nullopt;
    const auto f = find(pointer);
    if (!f || !f->member)
        return std::nullopt;
    const std::size_t begin = valueBegin(*f);
    if (begin >= m_text.size() || m_text[begin] != '[')
        return std::nullopt;
    const Node &node = m_nodes[f->node];
    return TextArray(*this, pointer, node.first, node.count);
}

nlohmann::ordered_json JsonLocator::TextArray::element(std::size_t index) const
{
    if (index >= m_count)
        return {};
    const Found f{m_first + static_cast<std::uint32_t>(index), false};
    const char *text = m_loc->m_text.data();
    ElementSax sax(m_loc->m_keepInText, child(m_pointer, index));
    nlohmann::ordered_json::sax_parse(text + m_loc->valueBegin(f), text + m_loc->valueEnd(f), &sax,
                                      nlohmann::ordered_json::input_format_t::json, /*strict=*/true,
                                      m_loc->m_allowComments);
    return sax.take();
}

int JsonLocator::TextArray::elementLine(std::size_t index) const
{
    if (index >= m_count)
        return 0;
    return m_loc->lineOfOffset(m_loc->valueBegin(Found{m_first + static_cast<std::uint32_t>(index), false}));
}

const JsonLocator::PairList *JsonLocator::pairList(const std::string &pointer) const
{
    const auto it = m_pairLists.find(pointer);
    return it == m_pairLists.end() ? nullptr : &it->second;
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

int JsonLocator::lineOfOffset(std::size_t offset) const
{
    if (m_lineStarts.empty())
        return 0;
    offset = std::min(offset, m_text.size());
    return static_cast<int>(std::upper_bound(m_lineStarts.begin(), m_lineStarts.end(), offset) - m_lineStarts.begin());
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

std::size_t JsonLocator::skipSpace(std::size_t i) const
{
    const std::size_t n = m_text.size();
    while (i < n) {
        const char c = m_text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ++i;
        } else if (c == '/' && i + 1 < n && m_text[i + 1] == '/') {
            const auto eol = m_text.find('\n', i);
            i = eol == std::string::npos ? n : eol + 1;
        } else if (c == '/' && i + 1 < n && m_text[i + 1] == '*') {
            const auto close = m_text.find("*/", i + 2);
            i = close == std::string::npos ? n : close + 2;
        } else {
            break;
        }
    }
    return i;
}

std::size_t JsonLocator::stringEnd(std::size_t quote) const
{
    std::size_t i = quote + 1;
    while (i < m_text.size() && m_text[i] != '"')
        i += m_text[i] == '\\' ? 2 : 1;
    return std::min(i + 1, m_text.size());
}

std::size_t JsonLocator::containerEnd(std::size_t open) const
{
    int depth = 0;
    std::size_t i = open;
    while (i < m_text.size()) {
        const char c = m_text[i];
        if (c == '"') {
            i = stringEnd(i);
            continue;
        }
        if (c == '/' && i + 1 < m_text.size() && (m_text[i + 1] == '/' || m_text[i + 1] == '*')) {
            i = skipSpace(i); // a comment (the text parsed: '/' is nothing else outside strings)
            continue;
        }
        if (c == '[' || c == '{')
            ++depth;
        else if ((c == ']' || c == '}') && --depth == 0)
            return i + 1;
        ++i;
    }
    return m_text.size();
}

bool JsonLocator::keyEquals(std::uint32_t keyQuote, std::string_view key) const
{
    const std::size_t end = stringEnd(keyQuote); // just past the closing quote
    const std::string_view raw = std::string_view(m_text).substr(keyQuote + 1, end - keyQuote - 2);
    if (raw.find('\\') == std::string_view::npos)
        return raw == key;
    // A key with escapes ("\u00b5", "\/"): decoded as the parser decoded it (rare, and short).
    const auto decoded = nlohmann::json::parse(std::string_view(m_text).substr(keyQuote, end - keyQuote), nullptr,
                                               /*allow_exceptions=*/false);
    return decoded.is_string() && decoded.get_ref<const std::string &>() == key;
}

std::size_t JsonLocator::valueBegin(const Found &f) const
{
    const std::size_t anchor = m_nodes[f.node].anchor;
    if (!f.member)
        return anchor;
    std::size_t i = skipSpace(stringEnd(anchor)); // the key, then ':'
    return skipSpace(std::min(i + 1, m_text.size()));
}

std::size_t JsonLocator::valueEnd(const Found &f) const
{
    const Node &node = m_nodes[f.node];
    const std::size_t begin = valueBegin(f);
    if (begin >= m_text.size())
        return m_text.size();
    const char c = m_text[begin];
    if (c == '"')
        return stringEnd(begin);
    if ((c == '[' || c == '{') && node.first == kNotIndexed)
        return containerEnd(begin);
    if (c == '[' || c == '{') {
        // Past the last child (or the opening bracket), then the closing bracket.
        const std::size_t after = node.count == 0 ? begin + 1 : valueEnd(Found{node.first + node.count - 1, c == '{'});
        return std::min(skipSpace(after) + 1, m_text.size());
    }
    std::size_t i = begin; // a number or a literal
    while (i < m_text.size() && (isNumberChar(m_text[i]) || (m_text[i] >= 'a' && m_text[i] <= 'z')))
        ++i;
    return i;
}

std::optional<JsonLocator::Found> JsonLocator::find(const std::string &pointer, Found *deepest, std::size_t *rest) const
{
    if (rest)
        *rest = std::string::npos;
    if (m_nodes.empty())
        return std::nullopt;
    Found at{static_cast<std::uint32_t>(m_nodes.size() - 1), false};
    if (deepest)
        *deepest = at;
    std::size_t pos = 0;
    std::string token;
    while (pos < pointer.size()) {
        if (pointer[pos] != '/')
            return std::nullopt;
        if (m_nodes[at.node].first == kNotIndexed) { // the rest is inside `at`: locateInside
            if (rest)
                *rest = pos;
            return std::nullopt;
        }
        const std::size_t next = std::min(pointer.find('/', pos + 1), pointer.size());
        token.clear();
        for (std::size_t i = pos + 1; i < next; ++i) { // RFC 6901: ~1 is '/', ~0 is '~'
            if (pointer[i] == '~' && i + 1 < next && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
                token += pointer[++i] == '1' ? '/' : '~';
                continue;
            }
            token += pointer[i];
        }
        pos = next;
        const Node &node = m_nodes[at.node];
        const std::size_t begin = valueBegin(at);
        const char c = begin < m_text.size() ? m_text[begin] : '\0';
        std::optional<std::uint32_t> child;
        if (c == '[') {
            if (token.empty() || token.size() > 10 || token.find_first_not_of("0123456789") != std::string::npos)
                return std::nullopt;
            const std::uint64_t index = std::stoull(token);
            if (index < node.count)
                child = node.first + static_cast<std::uint32_t>(index);
        } else if (c == '{') {
            for (std::uint32_t i = 0; i < node.count; ++i) // the last of duplicate keys is nlohmann's
                if (keyEquals(m_nodes[node.first + i].anchor, token))
                    child = node.first + i;
        }
        if (!child)
            return std::nullopt;
        at = Found{*child, c == '{'};
        if (deepest)
            *deepest = at;
    }
    return at;
}

JsonLocator::Inside JsonLocator::locateInside(const Found &element, const std::string &rest) const
{
    const std::size_t begin = valueBegin(element);
    if (!m_inside || m_insideNode != element.node) { // the element alone, which parsed as part of the text
        m_inside = std::make_unique<JsonLocator>();
        m_inside->m_indexOnly = true;
        m_inside->parseBorrowed(m_text.substr(begin, valueEnd(element) - begin), m_allowComments);
        m_insideNode = element.node;
    }
    const JsonLocator &sub = *m_inside;
    Inside inside;
    Found deepest;
    if (const auto f = sub.find(rest, &deepest)) {
        inside.range = std::pair{begin + sub.valueBegin(*f), begin + sub.valueEnd(*f)};
        if (f->member)
            inside.key = begin + sub.m_nodes[f->node].anchor;
    }
    inside.deepest = sub.m_nodes.empty() ? begin : begin + sub.valueBegin(deepest);
    return inside;
}

TextPosition JsonLocator::valuePosition(const std::string &pointer) const
{
    Found deepest;
    std::size_t rest = std::string::npos;
    if (const auto f = find(pointer, &deepest, &rest))
        return positionOfOffset(valueBegin(*f));
    if (rest != std::string::npos) {
        const Inside inside = locateInside(deepest, pointer.substr(rest));
        return positionOfOffset(inside.range ? inside.range->first : inside.deepest);
    }
    return m_nodes.empty() ? TextPosition{} : positionOfOffset(valueBegin(deepest));
}

std::optional<std::pair<std::size_t, std::size_t>> JsonLocator::valueRange(const std::string &pointer) const
{
    Found deepest;
    std::size_t rest = std::string::npos;
    if (const auto f = find(pointer, &deepest, &rest))
        return std::pair{valueBegin(*f), valueEnd(*f)};
    if (rest != std::string::npos)
        return locateInside(deepest, pointer.substr(rest)).range;
    return std::nullopt;
}

std::optional<std::size_t> JsonLocator::keyOffset(const std::string &pointer) const
{
    Found deepest;
    std::size_t rest = std::string::npos;
    if (const auto f = find(pointer, &deepest, &rest))
        return f->member ? std::optional<std::size_t>(m_nodes[f->node].anchor) : std::nullopt;
    if (rest != std::string::npos)
        return locateInside(deepest, pointer.substr(rest)).key;
    return std::nullopt;
}

TextPosition JsonLocator::keyPosition(const std::string &pointer) const
{
    if (const auto offset = keyOffset(pointer))
        return positionOfOffset(*offset);
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
    const std::string digits = std::to_string(index);
    std::string out;
    out.reserve(pointer.size() + 1 + digits.size()); // exactly: a workload keeps one per op (OpSpec::jsonPath)
    out += pointer;
    out += '/';
    out += digits;
    return out;
}

std::string JsonLocator::parent(const std::string &pointer)
{
    const auto slash = pointer.rfind('/');
    return slash == std::string::npos ? std::string() : pointer.substr(0, slash);
}

} // namespace streamscope::engine
