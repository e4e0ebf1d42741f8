// Tests of engine/util/json_locator.h: where each value and key of a JSON text starts, for every kind of
// token, through escapes, comments, multi-byte characters and a byte order mark; syntax errors.
#include <QtTest>

#include <malloc.h>

#include "engine/util/json_locator.h"

using namespace streamscope::engine;

class TestJsonLocator : public QObject {
    Q_OBJECT

private slots:
    void valuePositions_data();
    void valuePositions();
    void keyPositions();
    void missingPointerFallsBackToParent();
    void documentIsNlohmanns();
    void duplicateKeys();
    void syntaxErrors_data();
    void syntaxErrors();
    void byteOrderMark();
    void pointerEscaping();
    void escapedKeysAndRanges();
    void indexFollowsTheText();
    void compactPairLists();
    void compactPairListsKeepNoDom();
    void arraysKeptInText();
    void duplicatesInsideArraysKeptInText();
    void borrowedText();
};

namespace {
// Every kind of token, some after escapes and multi-byte characters, one per line or several on one.
const char *const kText = "{\n"
                          "  \"s\": \"a\\\"b\",\n" // line 2: string with an escaped quote
                          "  \"n\": -12.5e3,\n" // line 3: number before a comma
                          "  \"t\": true, \"f\": false,\n" // line 4: two literals
                          "  // a comment\n" // line 5
                          "  \"z\": null,\n" // line 6
                          "  \"\xC2\xB5\": [1, \"x\", {\"k\": 7}],\n" // line 7: key "µ", nested values
                          "  \"last\": 42\n" // line 8: number before a newline
                          "}\n";
} // namespace

void TestJsonLocator::valuePositions_data()
{
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::newRow("root") << "" << 1 << 1;
    QTest::newRow("string with escape") << "/s" << 2 << 8;
    QTest::newRow("number") << "/n" << 3 << 8;
    QTest::newRow("true") << "/t" << 4 << 8;
    QTest::newRow("false after true") << "/f" << 4 << 19;
    QTest::newRow("null after comment") << "/z" << 6 << 8;
    QTest::newRow("array after multi-byte key") << QString::fromUtf8("/\u00b5") << 7 << 8;
    QTest::newRow("array element") << QString::fromUtf8("/\u00b5/0") << 7 << 9;
    QTest::newRow("string element") << QString::fromUtf8("/\u00b5/1") << 7 << 12;
    QTest::newRow("object element") << QString::fromUtf8("/\u00b5/2") << 7 << 17;
    QTest::newRow("nested value") << QString::fromUtf8("/\u00b5/2/k") << 7 << 23;
    QTest::newRow("number before newline") << "/last" << 8 << 11;
}

void TestJsonLocator::valuePositions()
{
    QFETCH(QString, pointer);
    QFETCH(int, line);
    QFETCH(int, column);
    JsonLocator loc;
    QVERIFY2(loc.parse(kText), loc.syntaxError().c_str());
    const TextPosition p = loc.valuePosition(pointer.toStdString());
    QCOMPARE(p.line, line);
    QCOMPARE(p.column, column);
}

void TestJsonLocator::keyPositions()
{
    JsonLocator loc;
    QVERIFY(loc.parse(kText));
    QCOMPARE(loc.keyPosition("/f").line, 4);
    QCOMPARE(loc.keyPosition("/f").column, 14);
    QCOMPARE(loc.keyPosition(QString::fromUtf8("/\u00b5/2/k").toStdString()).column, 18);
    // Not an object member (an array element): the value's own position.
    QCOMPARE(loc.keyPosition(QString::fromUtf8("/\u00b5/1").toStdString()).column, 12);
}

void TestJsonLocator::missingPointerFallsBackToParent()
{
    JsonLocator loc;
    QVERIFY(loc.parse(kText));
    const TextPosition p = loc.valuePosition(QString::fromUtf8("/\u00b5/2/missing").toStdString());
    QCOMPARE(p.line, 7);
    QCOMPARE(p.column, 17);
    QCOMPARE(loc.valuePosition("/nothing/deeper").line, 1);
}

void TestJsonLocator::documentIsNlohmanns()
{
    JsonLocator loc;
    QVERIFY(loc.parse(kText));
    const auto &root = loc.root();
    QCOMPARE(root.at("s").get<std::string>(), std::string("a\"b"));
    QCOMPARE(root.at("n").get<double>(), -12500.0);
    QVERIFY(root.at("t").get<bool>());
    QVERIFY(root.at("z").is_null());
    QCOMPARE(root.at("\xC2\xB5").at(2).at("k").get<int>(), 7);
    // Keys keep the file's order (the GUI editor shows them as written).
    std::vector<std::string> keys;
    for (const auto &[k, v] : root.items())
        keys.push_back(k);
    QCOMPARE(keys, (std::vector<std::string>{"s", "n", "t", "f", "z", "\xC2\xB5", "last"}));
}

void TestJsonLocator::duplicateKeys()
{
    JsonLocator loc;
    QVERIFY(loc.parse("{\"a\": 1,\n \"b\": {\"c\": 1, \"c\": 2},\n \"a\": 3}"));
    QCOMPARE(loc.duplicateKeys(), (std::vector<std::string>{"/b/c", "/a"}));
    QCOMPARE(loc.root().at("a").get<int>(), 3); // the later value wins
    QCOMPARE(loc.keyPosition("/a").line, 3); // the later key is the one located
}

void TestJsonLocator::syntaxErrors_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::newRow("trailing comma") << "{\"a\": 1,\n}" << 2 << 1;
    QTest::newRow("missing colon") << "{\n  \"a\" 1\n}" << 2 << 7;
    QTest::newRow("bad literal") << "[tru]" << 1 << 5;
    QTest::newRow("unexpected end") << "{\"a\": [1, 2" << 1 << 11;
    QTest::newRow("text after the document") << "{}\n{}" << 2 << 1;
    QTest::newRow("comment when not allowed") << "// x\n{}" << 1 << 1;
}

void TestJsonLocator::syntaxErrors()
{
    QFETCH(QString, text);
    QFETCH(int, line);
    QFETCH(int, column);
    JsonLocator loc;
    const bool allowComments = !QByteArray(QTest::currentDataTag()).startsWith("comment");
    QVERIFY(!loc.parse(text.toStdString(), allowComments));
    QVERIFY(!loc.syntaxError().empty());
    QVERIFY2(loc.syntaxError().find("json.exception") == std::string::npos, loc.syntaxError().c_str());
    QVERIFY(loc.root().is_null());
    QCOMPARE(loc.syntaxErrorPosition().line, line);
    QCOMPARE(loc.syntaxErrorPosition().column, column);
}

void TestJsonLocator::byteOrderMark()
{
    JsonLocator loc;
    QVERIFY(loc.parse("\xEF\xBB\xBF{\"a\": 5}"));
    QCOMPARE(loc.valuePosition("").column, 1);
    QCOMPARE(loc.valuePosition("/a").column, 7);
}

void TestJsonLocator::pointerEscaping()
{
    JsonLocator loc;
    QVERIFY(loc.parse("{\"a/b\": {\"~c\": 1}}"));
    QCOMPARE(JsonLocator::child("", "a/b"), std::string("/a~1b"));
    QCOMPARE(JsonLocator::child("/a~1b", "~c"), std::string("/a~1b/~0c"));
    QCOMPARE(JsonLocator::child("/x", std::size_t(3)), std::string("/x/3"));
    QCOMPARE(JsonLocator::parent("/a~1b/~0c"), std::string("/a~1b"));
    QCOMPARE(JsonLocator::parent("/a"), std::string(""));
    QCOMPARE(loc.valuePosition("/a~1b/~0c").column, 16);
}

void TestJsonLocator::escapedKeysAndRanges()
{
    // Keys are read back from the text to resolve a pointer: one written with escapes is the key it decodes
    // to; a later duplicate wins inside a nested object too; ranges end at the closing bracket whatever
    // comments come before it.
    const std::string text = "{\"a\\u0062\": [1, {\"k\": 1, \"k\": [2, 3 /* c */ ] // d\n}],\n"
                             " \"q\\\"\": \"v\"}";
    JsonLocator loc;
    QVERIFY2(loc.parse(text), loc.syntaxError().c_str());
    QCOMPARE(loc.valuePosition("/ab").column, 13);
    QCOMPARE(loc.keyPosition("/ab/1/k").column, 26);
    const auto range = loc.valueRange("/ab/1/k");
    QVERIFY(range);
    QCOMPARE(text.substr(range->first, range->second - range->first), std::string("[2, 3 /* c */ ]"));
    const auto whole = loc.valueRange("/ab/1");
    QVERIFY(whole);
    QCOMPARE(text.substr(whole->first, whole->second - whole->first),
             std::string("{\"k\": 1, \"k\": [2, 3 /* c */ ] // d\n}"));
    QCOMPARE(loc.valuePosition("/q\"").line, 3);
    QCOMPARE(loc.valuePosition("/q\"").column, 9);
    QCOMPARE(loc.keyOffset("/q\""), std::optional<std::size_t>(text.find("\"q")));
    QVERIFY(!loc.keyOffset("/ab/0")); // an array element has no key
    QVERIFY(!loc.valueRange("/ab/2"));
    QVERIFY(!loc.valueRange("/ab/x"));
    QVERIFY(!loc.valueRange("/a"));
}

namespace {
std::size_t heapInUse()
{
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}
} // namespace

void TestJsonLocator::indexFollowsTheText()
{
    // A schedule-shaped document, 200k small arrays of 3 values each. The locator keeps the text and an index
    // of 12 bytes per value besides nlohmann's DOM; three hash maps keyed by JSON pointer took about 700
    // bytes per entry (a 27 MB workload of 1M schedule entries: 1.55 GB, #24).
    constexpr int kEntries = 200'000;
    std::string text = "{\"schedule\": [\n";
    for (int i = 0; i < kEntries; ++i)
        text += "  [\"a\", " + std::to_string(i) + (i + 1 < kEntries ? "],\n" : "]\n");
    text += "]}\n";
    const std::size_t values = 2 + std::size_t(kEntries) * 3;

    std::size_t before = heapInUse();
    std::size_t domBytes = 0;
    {
        const auto dom = nlohmann::ordered_json::parse(text);
        domBytes = heapInUse() - before;
    }
    if (domBytes == 0)
        QSKIP("the allocator does not report its use (a sanitizer build)");
    before = heapInUse();
    JsonLocator loc;
    QVERIFY(loc.parse(text));
    const std::size_t locatorBytes = heapInUse() - before;
    // Still exact: the last entry's op index, on the last line but two.
    QCOMPARE(loc.valuePosition("/schedule/199999/1").line, kEntries + 1);
    QCOMPARE(loc.valuePosition("/schedule/199999/1").column, 9);
    QCOMPARE(loc.keyPosition("/schedule").line, 1);
    const std::size_t beyondDom = locatorBytes > domBytes ? locatorBytes - domBytes : 0;
    QVERIFY2(beyondDom <= 2 * text.size() + 32 * values,
             qPrintable(QString("%1 bytes beside the DOM for %2 bytes of text and %3 values (%4 per value)")
                            .arg(beyondDom)
                            .arg(text.size())
                            .arg(values)
                            .arg(double(beyondDom) / double(values), 0, 'f', 1)));
}

void TestJsonLocator::compactPairLists()
{
    // Members accepted by keepPairListsCompact are read as pairs; anything else in them keeps its DOM;
    // the index still locates every element and its parts; an array elsewhere is a DOM as before.
    const std::string text =
        "{\"s\": [[\"a\", 0], [\"b\", -3],\n"
        "  [\"a\", 18446744073709551615], [\"a\", 1.5], {\"a\": 0}, [\"b\", [1]], 7, [\"a\", 2]],\n"
        " \"t\": [[\"a\", 0]], \"u\": {\"s\": [[\"c\", 1]]}}";
    JsonLocator loc;
    loc.keepPairListsCompact([](const std::string &pointer) { return pointer == "/s" || pointer == "/u/s"; });
    QVERIFY2(loc.parse(text), loc.syntaxError().c_str());
    QVERIFY(loc.root().at("s").is_array() && loc.root().at("s").empty());
    QCOMPARE(loc.root().at("t").size(), std::size_t(1)); // not asked for: a DOM
    QVERIFY(!loc.pairList("/t"));
    const JsonLocator::PairList *s = loc.pairList("/s");
    QVERIFY(s);
    QCOMPARE(s->names, (std::vector<std::string>{"a", "b"}));
    QCOMPARE(s->entries.size(), std::size_t(8));
    using Entry = JsonLocator::PairList::Entry;
    const auto same = [](const Entry &e, std::uint32_t name, std::int64_t number) {
        return e.name == name && e.number == number;
    };
    QVERIFY(same(s->entries[0], 0, 0));
    QVERIFY(same(s->entries[1], 1, -3));
    QVERIFY(same(s->entries[7], 0, 2));
    // Not pairs of a string and an int64: kept as they were written, in order.
    for (int i = 2; i <= 6; ++i)
        QVERIFY(same(s->entries[i], JsonLocator::PairList::kOther, i - 2));
    QCOMPARE(s->others.size(), std::size_t(5));
    QCOMPARE(s->others[0].dump(), std::string("[\"a\",18446744073709551615]"));
    QCOMPARE(s->others[1].dump(), std::string("[\"a\",1.5]"));
    QCOMPARE(s->others[2].dump(), std::string("{\"a\":0}"));
    QCOMPARE(s->others[3].dump(), std::string("[\"b\",[1]]"));
    QCOMPARE(s->others[4].dump(), std::string("7"));
    // Located as before.
    QCOMPARE(loc.valuePosition("/s/3/1").line, 2);
    QCOMPARE(loc.valuePosition("/s/3/1").column, static_cast<int>(text.find("1.5") - text.find('\n')));
    QCOMPARE(loc.valuePosition("/s/7/0").column, static_cast<int>(text.rfind("\"a\", 2") - text.find('\n')));
    QVERIFY(loc.pairList("/u/s"));
    QCOMPARE(loc.pairList("/u/s")->names, std::vector<std::string>{"c"});
    // The same from a DOM array.
    const JsonLocator::PairList fromDom =
        JsonLocator::PairList::fromArray(nlohmann::ordered_json::parse("[[\"x\", 1], [\"y\", 2], [\"x\", 3], [1, 2]]"));
    QCOMPARE(fromDom.names, (std::vector<std::string>{"x", "y"}));
    QVERIFY(same(fromDom.entries[2], 0, 3));
    QVERIFY(same(fromDom.entries[3], JsonLocator::PairList::kOther, 0));
    // A failed parse leaves none.
    QVERIFY(!loc.parse("{\"s\": [[\"a\", 0]"));
    QVERIFY(!loc.pairList("/s"));
}

void TestJsonLocator::compactPairListsKeepNoDom()
{
    // 200k schedule entries: compact, they cost their 16-byte entry and the index's 36 bytes (three values of
    // 12), not nlohmann's DOM of about 105 bytes more per entry (#24: 1M entries took 105 MB).
    constexpr int kEntries = 200'000;
    std::string text = "{\"schedule\": [\n";
    for (int i = 0; i < kEntries; ++i)
        text += "  [\"a\", " + std::to_string(i) + (i + 1 < kEntries ? "],\n" : "]\n");
    text += "]}\n";
    const std::size_t before = heapInUse();
    JsonLocator loc;
    loc.keepPairListsCompact([](const std::string &pointer) { return pointer == "/schedule"; });
    QVERIFY(loc.parse(text));
    const std::size_t bytes = heapInUse() - before;
    if (bytes == 0)
        QSKIP("the allocator does not report its use (a sanitizer build)");
    QCOMPARE(loc.pairList("/schedule")->entries.size(), std::size_t(kEntries));
    QCOMPARE(loc.valuePosition("/schedule/199999/1").line, kEntries + 1);
    QCOMPARE(loc.valuePosition("/schedule/199999/1").column, 9);
    // The text, its line starts (8 bytes a line), the index and the entries.
    const double perEntry = double(bytes - text.size()) / kEntries;
    QVERIFY2(perEntry <= 70, qPrintable(QString("%1 bytes per entry beside the text").arg(perEntry, 0, 'f', 1)));
}

void TestJsonLocator::arraysKeptInText()
{
    // Members accepted by keepArraysInText are empty in the DOM; each element is parsed from the text when asked,
    // as the DOM would have it, with the accepted arrays inside it empty in turn; the index locates every element
    // and their duplicate keys are reported; an array elsewhere is a DOM as before.
    const std::string text = "{\"s\": [{\"op\": 1, \"x\": [1, 2]}, // a comment\n"
                             "  {\"g\": [{\"op\": 2}, 3], \"k\": \"v\", \"k\": \"w\"}, -1.5e2, [[\"a\"]]],\n"
                             " \"t\": [4], \"u\": {\"s\": [5, 6]}}";
    JsonLocator loc;
    const auto keep = [](const std::string &pointer) {
        return pointer == "/s" || pointer == "/s/1/g" || pointer == "/u/s";
    };
    loc.keepArraysInText(keep);
    QVERIFY2(loc.parse(text), loc.syntaxError().c_str());
    const nlohmann::ordered_json expected = nlohmann::ordered_json::parse(text, nullptr, true, /*comments=*/true);
    QVERIFY(loc.root().at("s").is_array() && loc.root().at("s").empty());
    QVERIFY(loc.root().at("u").at("s").empty());
    QCOMPARE(loc.root().at("t"), expected.at("t")); // not asked for: a DOM
    QVERIFY(!loc.textArray("/t"));
    QVERIFY(!loc.textArray("/nothing"));
    const auto s = loc.textArray("/s");
    QVERIFY(s);
    QCOMPARE(s->size(), std::size_t(4));
    QCOMPARE(s->element(0), expected["s"][0]); // an array not accepted stays whole inside an element
    nlohmann::ordered_json group = expected["s"][1];
    group["g"] = nlohmann::ordered_json::array(); // accepted: empty, its elements asked for on their own
    QCOMPARE(s->element(1), group);
    QCOMPARE(s->element(1).at("k"), nlohmann::ordered_json("w")); // the last of duplicate keys, as nlohmann
    QCOMPARE(s->element(2), expected["s"][2]);
    QCOMPARE(s->element(3), expected["s"][3]);
    const auto g = loc.textArray("/s/1/g");
    QVERIFY(g);
    QCOMPARE(g->size(), std::size_t(2));
    QCOMPARE(g->element(0), expected["s"][1]["g"][0]);
    QCOMPARE(g->element(1), nlohmann::ordered_json(3));
    QCOMPARE(loc.textArray("/u/s")->element(1), nlohmann::ordered_json(6));
    // Located as before, duplicates found inside elements.
    QCOMPARE(loc.valuePosition("/s/1/g/1").line, 2);
    QCOMPARE(loc.valuePosition("/s/1/g/1").column, static_cast<int>(text.find("3]") - text.find('\n')));
    QCOMPARE(loc.duplicateKeys(), std::vector<std::string>{"/s/1/k"});
    // A failed parse leaves none.
    QVERIFY(!loc.parse("{\"s\": [1, 2"));
    QVERIFY(!loc.textArray("/s"));
}

void TestJsonLocator::duplicatesInsideArraysKeptInText()
{
    // No DOM is built inside an array kept in the text: duplicate keys are found from the keys of each object
    // there, nested or not, and a key seen in an inner object is no duplicate of the outer one's (and back).
    const std::string text = "{\"s\": [{\"a\": {\"b\": 1, \"c\": {\"b\": 2}, \"b\": 3}, \"b\": 4, \"a\": 5},\n"
                             "        {\"b\": [{\"b\": 6}, {\"b\": 7, \"b\": 8}], \"d\": 9}], \"b\": 0, \"b\": 1}";
    JsonLocator loc;
    loc.keepArraysInText([](const std::string &pointer) { return pointer == "/s"; });
    QVERIFY2(loc.parse(text), loc.syntaxError().c_str());
    const std::vector<std::string> expected = {"/s/0/a/b", "/s/0/a", "/s/1/b/1/b", "/b"};
    QCOMPARE(loc.duplicateKeys(), expected);
    // Each element as nlohmann reads it, located on its line, its members located too.
    const nlohmann::ordered_json dom = nlohmann::ordered_json::parse(text);
    const auto s = loc.textArray("/s");
    QVERIFY(s);
    QCOMPARE(s->size(), std::size_t(2));
    for (std::size_t i = 0; i < s->size(); ++i) {
        QCOMPARE(s->element(i), dom["s"][i]);
        QCOMPARE(s->elementLine(i), loc.valuePosition("/s/" + std::to_string(i)).line);
    }
    QCOMPARE(s->elementLine(1), 2);
    QCOMPARE(s->elementLine(2), 0); // no such element
    // What is inside an element is located by parsing it again: as a locator that keeps it all in its index
    // locates it, missing members falling back to the nearest value that exists.
    JsonLocator indexed;
    QVERIFY(indexed.parse(text));
    for (const char *pointer : {"/s/0", "/s/0/a", "/s/0/a/b", "/s/0/a/c", "/s/0/a/c/b", "/s/0/b", "/s/1/b/1",
                                "/s/1/b/1/b", "/s/1/d", "/s/0/missing", "/s/0/a/c/missing", "/s/1/b/7", "/s/2", "/b"}) {
        QCOMPARE(loc.valuePosition(pointer).line, indexed.valuePosition(pointer).line);
        QCOMPARE(loc.valuePosition(pointer).column, indexed.valuePosition(pointer).column);
        QCOMPARE(loc.keyPosition(pointer).column, indexed.keyPosition(pointer).column);
        QCOMPARE(loc.keyOffset(pointer), indexed.keyOffset(pointer));
        QCOMPARE(loc.valueRange(pointer), indexed.valueRange(pointer));
    }
    QCOMPARE(*loc.keyOffset("/s/0/a"), text.find("\"a\": 5")); // the last of duplicate keys, as nlohmann
    // The element parsed last is kept for the next question about it, never past the next parse.
    QVERIFY(loc.parse("{\"s\": [\n  {\"x\": 1, \"y\": 2}]}"));
    QCOMPARE(loc.valuePosition("/s/0/y").line, 2);
    QCOMPARE(loc.valuePosition("/s/0/y").column, 17);
    QVERIFY(loc.parse(text));
    QCOMPARE(loc.valuePosition("/s/1/b/1/b").line, 2);
    QCOMPARE(loc.keyPosition("/s/1/d").column, static_cast<int>(text.find("\"d\"") - text.find('\n')));
}

void TestJsonLocator::borrowedText()
{
    // A borrowed text is located where it is, as a copied one is.
    const std::string text = kText;
    JsonLocator borrowed, copied;
    QVERIFY(borrowed.parseBorrowed(text));
    QVERIFY(copied.parse(text));
    QCOMPARE(static_cast<const void *>(borrowed.text().data()), static_cast<const void *>(text.data()));
    QVERIFY(copied.text().data() != text.data());
    QCOMPARE(borrowed.root(), copied.root());
    for (const char *pointer : {"", "/s", "/n", "/z", "/last"}) {
        QCOMPARE(borrowed.valuePosition(pointer).line, copied.valuePosition(pointer).line);
        QCOMPARE(borrowed.valuePosition(pointer).column, copied.valuePosition(pointer).column);
        QCOMPARE(borrowed.lineOfOffset(*borrowed.keyOffset(pointer[0] ? pointer : "/s")),
                 copied.keyPosition(pointer[0] ? pointer : "/s").line);
    }
    // Parsed again from a text of its own, it no longer refers to the borrowed one.
    QVERIFY(borrowed.parse("{\"a\": 1}"));
    QVERIFY(borrowed.text().data() != text.data());
    QCOMPARE(borrowed.valuePosition("/a").column, 7);
}

QTEST_APPLESS_MAIN(TestJsonLocator)
#include "tst_json_locator.moc"
