// Tests of the JSON nesting limit: the scan (strings, escapes, comments, unbalanced text), the message
// (file, line, column), and every reader refusing a file nested too deep with exit-3-style InvalidInput
// instead of exhausting memory (the workload parser took 3 GB for 80 KB) or its stack.
#include <QtTest>

#include <string>

#include "engine/experiment/comparison_file.h"
#include "engine/formats/chrome_import.h"
#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "engine/util/json_limits.h"
#include "engine/workload/workload_parser.h"

using namespace streamscope::engine;

class TestJsonLimits : public QObject {
    Q_OBJECT

private:
    static std::string nested(int depth, const std::string &inner = "1")
    {
        return std::string(std::size_t(depth), '[') + inner + std::string(std::size_t(depth), ']');
    }
    // Expects `f` to throw Error{InvalidInput} saying the nesting is too deep.
    template <typename F> static void expectRefused(F f, const char *what)
    {
        try {
            f();
            QFAIL(qPrintable(QStringLiteral("%1: a file nested too deep was accepted").arg(what)));
        } catch (const Error &e) {
            QCOMPARE(e.kind(), ErrorKind::InvalidInput);
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("nested deeper than 256 levels")), e.what());
        }
    }

private slots:
    void scan()
    {
        QVERIFY(!findExcessiveJsonNesting(nested(kMaxJsonDepth)));
        QCOMPARE(findExcessiveJsonNesting(nested(kMaxJsonDepth + 1)).value(), std::size_t(kMaxJsonDepth));
        // Brackets inside strings (escaped quotes included) do not count.
        const std::string inString = "[\"" + std::string(400, '[') + "\\\"" + std::string(400, '{') + "\"]";
        QVERIFY(!findExcessiveJsonNesting(inString));
        // Nor inside comments, when comments are allowed; without, they do.
        const std::string inComment = "// " + std::string(400, '[') + "\n/* " + std::string(400, '{') + " */ {}";
        QVERIFY(!findExcessiveJsonNesting(inComment, true));
        QVERIFY(findExcessiveJsonNesting(inComment, false).has_value());
        // Unbalanced closing brackets do not let later nesting through.
        QVERIFY(findExcessiveJsonNesting("]]]]" + nested(kMaxJsonDepth + 1)).has_value());
        // Objects and arrays count alike; a smaller limit works too.
        QCOMPARE(findExcessiveJsonNesting("{\"a\":[{\"b\":[]}]}", false, 3).value(), std::size_t(11));
    }

    void message()
    {
        const std::string text = "{\n  \"x\": " + nested(300) + "\n}";
        const auto at = findExcessiveJsonNesting(text);
        QVERIFY(at);
        QCOMPARE(QString::fromStdString(excessiveNestingMessage(text, *at, "deep.json")),
                 QStringLiteral("deep.json:2:263: nested deeper than 256 levels of arrays and objects (StreamScope "
                                "reads at most 256)"));
        QVERIFY_THROWS_EXCEPTION(Error, checkJsonNesting(text, "deep.json"));
        checkJsonNesting("{\"fine\": [[1]]}", "fine.json"); // no throw
    }

    void everyReaderRefuses()
    {
        // 300,000 levels: the size that took the workload parser's memory past 3 GB at 80 KB.
        const std::string deep = nested(300'000);
        const std::string workload = "{\"version\": 1, \"name\": \"x\", \"notes\": " + deep + "}";
        try {
            parseWorkload(workload, "deep-workload.json");
            QFAIL("the workload parser accepted it");
        } catch (const Error &e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("nested deeper than 256 levels")), e.what());
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("deep-workload.json")), e.what());
        }
        expectRefused([&] { readWorkloadHeader(workload); }, "workload header");
        expectRefused([&] { chromeTraceFromJson("{\"traceEvents\": " + deep + "}", "deep-trace.json"); }, "chrome");
        expectRefused([&] { fromComparisonJson("{\"format\": " + deep + "}", "deep.sscompare", "."); }, "comparison");
        // Kind detection classifies it by its words without parsing it (no crash, no gigabytes).
        QVERIFY(detectFileKindOfContent("{\"traceEvents\": " + deep + "}", "x.json") == FileKind::ChromeJson);
    }
};

QTEST_MAIN(TestJsonLimits)
#include "tst_json_limits.moc"
