// JsonLocator: a JSON document parsed by nlohmann::json together with where every value and every
// object key starts in the text (line and column), addressed by JSON pointer ("/streams/1/ops/3").
// nlohmann's DOM keeps no positions, so the text goes through its SAX parser with an input iterator
// that counts the characters the lexer has consumed; each SAX event is then located in the text.
// The index keeps 12 bytes per value (where it starts, where its children are), not the pointers: a
// pointer is resolved by walking the index from the root, reading keys back from the text (a 27 MB
// workload of 1M schedule entries took 1.55 GB with three string-keyed maps, #24). Arrays the reader
// names can stay out of the DOM: as compact pairs (keepPairListsCompact) or in the text, each element
// parsed when asked (keepArraysInText): the elements of those get no DOM even while the text is parsed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace streamscope::engine {

struct TextPosition {
    int line = 0; // 1-based; 0 = unknown
    int column = 0; // 1-based, in characters (UTF-8 code points), not bytes
};

class JsonLocator {
public:
    // An array of [string, integer] pairs kept compact instead of as a DOM (a workload's schedule: a
    // million entries took 105 MB as nlohmann values, 16 bytes each here). Entries that are not such a
    // pair (or whose integer is beyond int64) keep their DOM in `others`, for the reader to report.
    struct PairList {
        static constexpr std::uint32_t kOther = UINT32_MAX;
        struct Entry {
            std::uint32_t name = 0; // index into `names`; kOther: `number` indexes `others`
            std::int64_t number = 0;
        };
        std::vector<std::string> names; // the distinct strings, each once
        std::vector<Entry> entries; // one per element, in the text's order
        std::vector<nlohmann::ordered_json> others;

        // The same from a DOM array (when the array was not kept compact).
        static PairList fromArray(const nlohmann::ordered_json &array);
        // Adds one element: compact when it is a [string, integer] pair.
        void add(nlohmann::ordered_json &&value);
        // Drops what add() needed to find names already seen.
        void finish()
        {
            m_nameIndex.clear();
            entries.shrink_to_fit();
        }

    private:
        std::map<std::string, std::uint32_t, std::less<>> m_nameIndex;
    };

    // Object members whose value is an array and whose JSON pointer `keep` accepts are read as PairLists
    // (pairList()): the DOM holds an empty array in their place, the index locates every element as
    // usual. Applies to the next parse.
    void keepPairListsCompact(std::function<bool(const std::string &pointer)> keep) { m_keepCompact = std::move(keep); }
    // The compact array at `pointer`; null when there is none.
    const PairList *pairList(const std::string &pointer) const;

    // Object members whose value is an array and whose JSON pointer `keep` accepts stay in the text
    // (textArray()): the DOM holds an empty array in their place and each element is parsed from the text
    // when asked, so that the DOM of all of them never exists at once (a workload's op lists: 1M ops took
    // about 400 bytes each as nlohmann values, #24); parse() builds none of it either. The index locates
    // every element, and what is inside one by parsing that element again when asked (see kNotIndexed);
    // the elements' duplicate keys are reported as anywhere else. Nothing inside such an array is kept
    // compact (keepPairListsCompact is not asked there). Applies to the next parse.
    void keepArraysInText(std::function<bool(const std::string &pointer)> keep) { m_keepInText = std::move(keep); }

    // An array kept in the text: its size, and each element as a DOM of its own, parsed from the text (the
    // arrays inside it that keepArraysInText accepts are empty there in turn). Valid while the locator is
    // neither parsed again nor destroyed.
    class TextArray {
    public:
        std::size_t size() const { return m_count; }
        nlohmann::ordered_json element(std::size_t index) const;
        // The line element `index` starts on (its first byte): what valuePosition() of its pointer says,
        // without walking the pointer from the root.
        int elementLine(std::size_t index) const;

    private:
        friend class JsonLocator;
        TextArray(const JsonLocator &locator, std::string pointer, std::uint32_t first, std::uint32_t count) :
            m_loc(&locator), m_pointer(std::move(pointer)), m_first(first), m_count(count)
        {
        }
        const JsonLocator *m_loc;
        std::string m_pointer;
        std::uint32_t m_first; // the first element's node
        std::uint32_t m_count;
    };
    // The array kept in the text at `pointer`; none when there is no array there or keepArraysInText does
    // not accept `pointer`.
    std::optional<TextArray> textArray(const std::string &pointer) const;

    // Parses `text`. Comments (// and /* */) are allowed when `allowComments`, since teachers annotate
    // workload files. Returns false on a syntax error (see syntaxError()/syntaxErrorPosition()).
    bool parse(std::string_view text, bool allowComments = true);
    // The same, keeping `text` itself instead of a copy (a workload read from its file).
    bool parseOwned(std::string &&text, bool allowComments = true);
    // The same, keeping only a view of `text`, which the caller keeps alive and unchanged for as long as
    // the locator is used (the editor's text, validated where it is: a 55 MB workload was held twice, #24).
    bool parseBorrowed(std::string_view text, bool allowComments = true);

    // The document, objects keeping the key order of the file. Null after a failed parse.
    const nlohmann::ordered_json &root() const { return m_root; }

    // Where the value at `pointer` starts. For a pointer with no value (a missing key) the position
    // of the nearest enclosing value that exists, so that "missing key" issues point at the object.
    TextPosition valuePosition(const std::string &pointer) const;
    // Where the key of the object member at `pointer` starts (for unknown or misspelled keys); the
    // value's position when `pointer` is not an object member.
    TextPosition keyPosition(const std::string &pointer) const;
    // Byte offsets [begin, end) of the value at `pointer` in the text (a string's quotes and a container's
    // brackets included); none when the pointer has no value.
    std::optional<std::pair<std::size_t, std::size_t>> valueRange(const std::string &pointer) const;
    // Byte offset of the opening quote of the key of the object member at `pointer`.
    std::optional<std::size_t> keyOffset(const std::string &pointer) const;
    std::string_view text() const { return m_text; }
    // Position of a byte offset into the parsed text.
    TextPosition positionOfOffset(std::size_t offset) const;
    // Its line alone (what positionOfOffset() says, without counting the column).
    int lineOfOffset(std::size_t offset) const;

    // Members whose key appeared twice in the same object (the later value wins, as in nlohmann).
    const std::vector<std::string> &duplicateKeys() const { return m_duplicateKeys; }

    const std::string &syntaxError() const { return m_syntaxError; }
    TextPosition syntaxErrorPosition() const { return m_syntaxErrorPosition; }

    // JSON pointer helpers (RFC 6901 escaping of '~' and '/').
    static std::string child(const std::string &pointer, std::string_view key);
    static std::string child(const std::string &pointer, std::size_t index);
    static std::string parent(const std::string &pointer);

private:
    friend class JsonLocatorSax;

    // One value of the document. The children of a container are consecutive in m_nodes, in the text's
    // order (an object's duplicate keys included: the last one is the one found, as nlohmann keeps it).
    // An element of an array kept in the text that is an object or an array (an op) has no children in the
    // index unless it holds such an array itself (a group's ops): what is inside it is found by parsing its
    // text again when asked (locateInside), which an issue does, not every op (3 of an op's 4 values: 36 MB
    // of 1M ops, #24).
    static constexpr std::uint32_t kNotIndexed = UINT32_MAX;
    struct Node {
        std::uint32_t anchor = 0; // an object member's key (its opening quote), else the value's first byte
        std::uint32_t first = 0; // a container's first child in m_nodes; kNotIndexed: none indexed (above)
        std::uint32_t count = 0; // a container's number of children (indexed); 0 for a scalar
    };
    struct Found {
        std::uint32_t node = 0;
        bool member = false; // an object member: its anchor is its key
    };
    // The value at `pointer`; else none, with *deepest (when given) the nearest enclosing value found, and
    // *rest (when given) where the part of `pointer` inside *deepest starts when *deepest is a container
    // whose children are not indexed (else npos).
    std::optional<Found> find(const std::string &pointer, Found *deepest = nullptr, std::size_t *rest = nullptr) const;
    // What is at `rest` (a JSON pointer) inside `element`, a container whose children are not indexed, its
    // text parsed again: byte offsets into this locator's text.
    struct Inside {
        std::optional<std::pair<std::size_t, std::size_t>> range; // the value's [begin, end); none if missing
        std::optional<std::size_t> key; // its key's opening quote, for an object member
        std::size_t deepest = 0; // where the nearest enclosing value that exists starts
    };
    Inside locateInside(const Found &element, const std::string &rest) const;
    // The element locateInside parsed last, kept for the next question (an op's issues come together: an op
    // of 20,000 unknown keys was parsed again for each), and which node it is.
    mutable std::unique_ptr<JsonLocator> m_inside;
    mutable std::uint32_t m_insideNode = 0;
    bool m_indexOnly = false; // builds no DOM at all (locateInside's locators)
    std::size_t valueBegin(const Found &f) const;
    std::size_t valueEnd(const Found &f) const;
    std::size_t containerEnd(std::size_t open) const; // just past the array or object that opens at `open`
    std::size_t skipSpace(std::size_t offset) const; // whitespace and comments
    std::size_t stringEnd(std::size_t quote) const; // just past the string that starts at `quote`
    bool keyEquals(std::uint32_t keyQuote, std::string_view key) const;

    static constexpr std::size_t kColumnBlock = 256;
    std::size_t continuationsBefore(std::size_t offset) const;

    bool parseText(bool allowComments); // parses m_text
    std::string m_ownedText; // the text when the locator keeps it (parse, parseOwned)
    std::string_view m_text; // kept (m_ownedText or the caller's): positions are computed on demand
    std::vector<std::uint32_t> m_lineStarts; // byte offset where each line starts
    std::vector<std::uint32_t> m_continuationsBefore; // per block of kColumnBlock bytes: UTF-8 continuation
                                                      // bytes before it
    nlohmann::ordered_json m_root;
    std::vector<Node> m_nodes; // the root is the last one (empty after a failed parse)
    std::vector<std::string> m_duplicateKeys;
    std::function<bool(const std::string &)> m_keepCompact;
    std::function<bool(const std::string &)> m_keepInText;
    bool m_allowComments = true; // of the last parse, for the elements parsed again from the text
    std::map<std::string, PairList, std::less<>> m_pairLists; // by JSON pointer
    std::string m_syntaxError;
    TextPosition m_syntaxErrorPosition;
};

} // namespace streamscope::engine
