// Tests of engine/util/json_edit.h: edits of JSON text change the one thing they concern and keep the
// rest as written (comments, spacing, key order, short forms), and name the pointer when they cannot.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "engine/model/errors.h"
#include "engine/util/json_edit.h"

using namespace streamscope::engine;
using Json = nlohmann::ordered_json;

namespace {

// A workload-like text with comments, one-line objects in multi-line arrays, and short forms.
const char *const kText = "{\n"
                          "  // a teacher's note\n"
                          "  \"name\": \"lesson\",\n"
                          "  \"buffers\": [\n"
                          "    {\"name\": \"h\", \"kind\": \"pinned\", \"bytes\": \"16 MiB\"}, // host side\n"
                          "    {\"name\": \"d\", \"kind\": \"device\", \"bytes\": \"16 MiB\"}\n"
                          "  ],\n"
                          "  \"streams\": [\n"
                          "    {\"name\": \"s0\", \"ops\": [\n"
                          "      {\"repeat\": 3, \"ops\": [{\"op\": \"kernel\", \"duration\": \"10 us\"}]},\n"
                          "      {\"op\": \"copy\", \"src\": \"h\", \"dst\": \"d\", \"bytes\": \"1 MiB\"}\n"
                          "    ]}\n"
                          "  ]\n"
                          "}\n";

Json parsed(const std::string &text)
{
    return Json::parse(text, nullptr, true, /*ignore_comments=*/true);
}

int lines(const std::string &text)
{
    return int(std::count(text.begin(), text.end(), '\n'));
}

} // namespace

class TestJsonEdit : public QObject {
    Q_OBJECT

private slots:
    void replaceAMemberKeepsEverythingElse()
    {
        const std::string out = jsonSetMember(kText, "/streams/0/ops/0/ops/0", "duration", "20 us");
        QCOMPARE(lines(out), lines(kText));
        QVERIFY(out.find("// a teacher's note") != std::string::npos);
        QVERIFY(out.find("// host side") != std::string::npos);
        QVERIFY(out.find("{\"repeat\": 3, \"ops\": [{\"op\": \"kernel\", \"duration\": \"20 us\"}]}")
                != std::string::npos);
        // Exactly one span changed: what is before and after it is the original text.
        const std::string original(kText);
        const std::size_t at = original.find("\"10 us\"");
        QCOMPARE(out.substr(0, at), original.substr(0, at));
        QCOMPARE(out.substr(at + 7), original.substr(at + 7));
    }

    void addAMember()
    {
        // A one-line object stays on one line; a multi-line object gets a line of its own.
        const std::string oneLine = jsonSetMember(kText, "/buffers/1", "offset", 4096);
        QVERIFY(oneLine.find("{\"name\": \"d\", \"kind\": \"device\", \"bytes\": \"16 MiB\", \"offset\": 4096}")
                != std::string::npos);
        const std::string top = jsonSetMember(kText, "", "repetitions", 10);
        QVERIFY(top.find("  ],\n  \"repetitions\": 10\n}") != std::string::npos);
        QCOMPARE(parsed(top)["repetitions"], Json(10));
        // An empty object.
        QCOMPARE(jsonSetMember("{}", "", "a", 1), std::string("{\"a\": 1}"));
    }

    void removeAMember()
    {
        const std::string out = jsonRemoveMember(kText, "/buffers/0", "kind");
        QCOMPARE(parsed(out)["buffers"][0], (Json{{"name", "h"}, {"bytes", "16 MiB"}}));
        QVERIFY(out.find("// host side") != std::string::npos);
        // The last member: the comma before it goes.
        const std::string last = jsonRemoveMember(kText, "/buffers/1", "bytes");
        QVERIFY(last.find("{\"name\": \"d\", \"kind\": \"device\"}") != std::string::npos);
        QCOMPARE(jsonRemoveMember(kText, "/buffers/1", "absent"), std::string(kText));
    }

    void appendAndInsertElements()
    {
        const Json buffer = {{"name", "x"}, {"kind", "device"}, {"bytes", "4 MiB"}};
        const std::string out = jsonAppendElement(kText, "/buffers", buffer);
        QVERIFY(
            out.find(
                "  \"bytes\": \"16 MiB\"},\n    {\"name\": \"x\", \"kind\": \"device\", \"bytes\": \"4 MiB\"}\n  ],")
                != std::string::npos
            || out.find("\"bytes\": \"16 MiB\"},\n    {\"name\": \"x\"") != std::string::npos);
        QCOMPARE(parsed(out)["buffers"].size(), std::size_t(3));
        QCOMPARE(parsed(out)["buffers"][2], buffer);
        const std::string first = jsonInsertElement(kText, "/buffers", 0, buffer);
        QCOMPARE(parsed(first)["buffers"][0], buffer);
        QCOMPARE(parsed(first)["buffers"][1]["name"], Json("h"));
        QCOMPARE(lines(first), lines(kText) + 1);
        QCOMPARE(jsonAppendElement("{\"a\": []}", "/a", 1), std::string("{\"a\": [1]}"));
    }

    void removeElements()
    {
        // The first of two: its line goes whole, comment included.
        const std::string out = jsonRemoveElement(kText, "/buffers", 0);
        QCOMPARE(parsed(out)["buffers"].size(), std::size_t(1));
        QVERIFY(out.find("host side") == std::string::npos);
        QCOMPARE(lines(out), lines(kText) - 1);
        // The last: the comma before it goes, the array stays valid.
        const std::string last = jsonRemoveElement(kText, "/streams/0/ops", 1);
        QCOMPARE(parsed(last)["streams"][0]["ops"].size(), std::size_t(1));
        QVERIFY(last.find("\"repeat\": 3") != std::string::npos);
        QCOMPARE(jsonRemoveElement("[1, 2, 3]", "", 1), std::string("[1, 3]"));
        QCOMPARE(jsonRemoveElement("[1, 2, 3]", "", 2), std::string("[1, 2]"));
        QCOMPARE(jsonRemoveElement("[1]", "", 0), std::string("[]"));
    }

    void removalsKeepTheNeighboursComments()
    {
        // The last buffer, after a line that ends in a comment: the comma before it goes, the comment stays.
        const std::string last = jsonRemoveElement(kText, "/buffers", 1);
        QVERIFY2(Json::accept(last, true), last.c_str());
        QCOMPARE(parsed(last)["buffers"].size(), std::size_t(1));
        QVERIFY(last.find("\"16 MiB\"} // host side") != std::string::npos);
        QCOMPARE(lines(last), lines(kText) - 1);
        // A comma inside a comment is not the separator.
        QCOMPARE(jsonRemoveElement("[1 /* a, b */, 2]", "", 0), std::string("[2]"));
        QCOMPARE(jsonRemoveElement("[1 /* a, b */, 2]", "", 1), std::string("[1 /* a, b */]"));
        // A comment line above the last member.
        const std::string member = jsonRemoveMember("{\n  \"a\": 1,\n  // about b\n  \"b\": 2\n}", "", "b");
        QVERIFY2(Json::accept(member, true), member.c_str());
        QCOMPARE(parsed(member), (Json{{"a", 1}}));
        // CRLF text stays valid.
        const std::string crlf = jsonRemoveElement("[\r\n  1,\r\n  2\r\n]", "", 1);
        QVERIFY2(Json::accept(crlf, true), crlf.c_str());
        QCOMPARE(parsed(crlf), Json::array({1}));
    }

    void swapElements()
    {
        const std::string out = jsonSwapElements(kText, "/streams/0/ops", 0, 1);
        const Json ops = parsed(out)["streams"][0]["ops"];
        QCOMPARE(ops[0]["op"], Json("copy"));
        QCOMPARE(ops[1]["repeat"], Json(3));
        QCOMPARE(lines(out), lines(kText));
        QCOMPARE(jsonSwapElements("[1, 2]", "", 1, 0), std::string("[2, 1]"));
    }

    void refusalsNameThePointer_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("not an object") << 0;
        QTest::newRow("not an array") << 1;
        QTest::newRow("no such element") << 2;
        QTest::newRow("syntax error") << 3;
    }
    void refusalsNameThePointer()
    {
        QFETCH(int, which);
        try {
            switch (which) {
            case 0: jsonSetMember(kText, "/buffers", "x", 1); break;
            case 1: jsonAppendElement(kText, "/name", 1); break;
            case 2: jsonRemoveElement(kText, "/buffers", 7); break;
            default: jsonSetMember("{\"a\": ", "", "b", 1); break;
            }
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), ErrorKind::InvalidInput);
            const QString what = QString::fromUtf8(e.what());
            if (which == 0)
                QVERIFY2(what.contains(QStringLiteral("/buffers")), e.what());
            if (which == 1)
                QVERIFY2(what.contains(QStringLiteral("/name")), e.what());
            if (which == 2)
                QVERIFY2(what.contains(QStringLiteral("/buffers")) && what.contains(QStringLiteral("7")), e.what());
            if (which == 3)
                QVERIFY2(what.contains(QStringLiteral("line 1")), e.what());
        }
    }

    void inlineJsonIsOneSpacedLine()
    {
        QCOMPARE(inlineJson(Json{{"op", "kernel"}, {"duration", 1000}, {"dims", {1, 2}}}),
                 std::string("{\"op\": \"kernel\", \"duration\": 1000, \"dims\": [1, 2]}"));
        QCOMPARE(inlineJson(Json("a\"b")), std::string("\"a\\\"b\""));
    }
};

QTEST_APPLESS_MAIN(TestJsonEdit)
#include "tst_json_edit.moc"
