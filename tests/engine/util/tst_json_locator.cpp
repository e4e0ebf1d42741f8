// Tests of engine/util/json_locator.h: where each value and key of a JSON text starts, for every kind of
// token, through escapes, comments, multi-byte characters and a byte order mark; syntax errors.
#include <QtTest>

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

QTEST_APPLESS_MAIN(TestJsonLocator)
#include "tst_json_locator.moc"
