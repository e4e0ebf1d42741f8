// Tests of how the workload reader reads op lists (engine/workload/workload_parser.cpp, #24): one op at a
// time from the text (JsonLocator::TextArray), never the DOM of all of them. Sections in any order (the
// streams before the buffers their ops name), issues inside op lists and groups with their path, line and
// column, and the reader's peak heap for many ops written out one by one.
//
// The peak is observed by replacing the global operator new and delete in this test program: they count the
// bytes live and the most there were at once.
#include <QtTest>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include <malloc.h>

#include "engine/workload/workload_parser.h"
#include "tests/engine/workload/workload_compare.h"

namespace {
std::atomic<std::size_t> g_live{0};
std::atomic<std::size_t> g_peak{0};

void *counted(std::size_t size)
{
    void *p = std::malloc(size == 0 ? 1 : size);
    if (!p)
        throw std::bad_alloc();
    const std::size_t live = g_live.fetch_add(malloc_usable_size(p)) + malloc_usable_size(p);
    std::size_t peak = g_peak.load();
    while (live > peak && !g_peak.compare_exchange_weak(peak, live)) { }
    return p;
}

void uncounted(void *p) noexcept
{
    if (!p)
        return;
    g_live.fetch_sub(malloc_usable_size(p));
    std::free(p);
}
} // namespace

void *operator new(std::size_t size)
{
    return counted(size);
}
void *operator new[](std::size_t size)
{
    return counted(size);
}
void operator delete(void *p) noexcept
{
    uncounted(p);
}
void operator delete[](void *p) noexcept
{
    uncounted(p);
}
void operator delete(void *p, std::size_t) noexcept
{
    uncounted(p);
}
void operator delete[](void *p, std::size_t) noexcept
{
    uncounted(p);
}
// The nothrow forms too (std::stable_sort's temporary buffer uses them): left to the runtime, they would
// allocate where the replaced delete frees (a mismatch AddressSanitizer reports).
void *operator new(std::size_t size, const std::nothrow_t &) noexcept
{
    try {
        return counted(size);
    } catch (...) {
        return nullptr;
    }
}
void *operator new[](std::size_t size, const std::nothrow_t &) noexcept
{
    try {
        return counted(size);
    } catch (...) {
        return nullptr;
    }
}
void operator delete(void *p, const std::nothrow_t &) noexcept
{
    uncounted(p);
}
void operator delete[](void *p, const std::nothrow_t &) noexcept
{
    uncounted(p);
}

using namespace streamscope::engine;
using streamscope::engine::testing::compareWorkloads;

class TestWorkloadOpLists : public QObject {
    Q_OBJECT

private slots:
    void sectionsInAnyOrder();
    void issuesInsideOpLists_data();
    void issuesInsideOpLists();
    void duplicateKeyInsideAnOp();
    void peakHeapHasNoDomOfAllOps();
};

namespace {
// Buffers, streams (an op list with a group and a comment) and the version in the usual order.
const char *const kUsualOrder = R"({
  "version": 1,
  "name": "order", "issueOrder": "stream-order",
  "buffers": [{"name": "h", "kind": "pinned", "bytes": "1 MiB"}, {"name": "d", "kind": "device", "bytes": "1 MiB"}],
  "streams": [
    {"name": "s0", "ops": [
      {"op": "copy", "src": "h", "dst": "d", "bytes": "4 KiB"},
      // a comment between ops
      {"repeat": 3, "ops": [{"op": "memset", "buffer": "d", "bytes": "1 KiB"}, {"op": "record", "event": "e"}]}
    ]},
    {"name": "s1", "ops": [{"op": "wait", "event": "e"}, {"op": "copy", "src": "d", "dst": "h", "bytes": "4 KiB"}]}
  ]
}
)";

// The same sections, streams first and the version last: the ops name buffers declared after them.
const char *const kStreamsFirst = R"({
  "streams": [
    {"name": "s0", "ops": [
      {"op": "copy", "src": "h", "dst": "d", "bytes": "4 KiB"},
      // a comment between ops
      {"repeat": 3, "ops": [{"op": "memset", "buffer": "d", "bytes": "1 KiB"}, {"op": "record", "event": "e"}]}
    ]},
    {"name": "s1", "ops": [{"op": "wait", "event": "e"}, {"op": "copy", "src": "d", "dst": "h", "bytes": "4 KiB"}]}
  ],
  "buffers": [{"name": "h", "kind": "pinned", "bytes": "1 MiB"}, {"name": "d", "kind": "device", "bytes": "1 MiB"}],
  "name": "order", "issueOrder": "stream-order",
  "version": 1
}
)";

QString issuesText(const std::vector<WorkloadIssue> &issues)
{
    QString out;
    for (const WorkloadIssue &i : issues)
        out += QString::fromStdString(WorkloadError::formatIssue("test.json", i)) + '\n';
    return out;
}

// A workload of `ops` memsets written out one by one, one per line.
std::string literalOps(int ops)
{
    std::string text = "{\"version\": 1, \"name\": \"literal\",\n"
                       " \"buffers\": [{\"name\": \"d\", \"kind\": \"device\", \"bytes\": \"1 MiB\"}],\n"
                       " \"streams\": [{\"name\": \"a\", \"ops\": [\n";
    for (int i = 0; i < ops; ++i)
        text += std::string("    {\"op\": \"memset\", \"buffer\": \"d\", \"bytes\": \"4 KiB\"}")
                + (i + 1 < ops ? ",\n" : "\n");
    text += " ]}]\n}\n";
    return text;
}
} // namespace

void TestWorkloadOpLists::sectionsInAnyOrder()
{
    const Workload usual = parseWorkload(kUsualOrder, "usual.json");
    const Workload streamsFirst = parseWorkload(kStreamsFirst, "first.json");
    compareWorkloads(streamsFirst, usual);
    QCOMPARE(streamsFirst.streams.at(0).ops.size(), std::size_t(7));
    // Where each op came from, in the file that has it.
    const OpSpec &memset = streamsFirst.streams[0].ops[3];
    QCOMPARE(memset.jsonPath, std::string("/streams/0/ops/1/ops/0")); // the comment is no element
    QCOMPARE(memset.line, 6);
    QCOMPARE(streamsFirst.streams[1].ops[1].jsonPath, std::string("/streams/1/ops/1"));
    QCOMPARE(streamsFirst.streams[1].ops[1].line, 8);

    // A buffer named by an op before the buffers are read is still checked against them.
    std::string wrong = kStreamsFirst;
    wrong.replace(wrong.find("\"buffer\": \"d\""), 13, "\"buffer\": \"x\"");
    const auto issues = validateWorkloadText(wrong, "test.json");
    QVERIFY2(issues.size() == 1, qPrintable(issuesText(issues)));
    QCOMPARE(issues[0].jsonPath, std::string("/streams/0/ops/1/ops/0/buffer"));
    QCOMPARE(issues[0].line, 6);
    QCOMPARE(issues[0].column, 56);
    QVERIFY2(issues[0].message.find("\"x\"") != std::string::npos, issues[0].message.c_str());
}

void TestWorkloadOpLists::issuesInsideOpLists_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("message"); // a part of it

    // Each replaces text in kUsualOrder; columns are where the value (or the key, for a key's issue) starts.
    // Paths, lines and columns as the reader gave them with the DOM of the whole file (checked against it).
    QTest::newRow("misspelled key in a group's op")
        << R"({"op": "memset", "buffer": "d", "bytes")"
        << R"({"op": "memset", "buffer": "d", "byts")"
        << "/streams/0/ops/1/ops/0/byts" << 9 << 61 << "did you mean \"bytes\"";
    QTest::newRow("not an object in a group") << R"({"op": "record", "event": "e"})"
                                              << "7"
                                              << "/streams/0/ops/1/ops/1" << 9 << 80 << "got the number 7";
    QTest::newRow("empty group")
        << R"("ops": [{"op": "memset", "buffer": "d", "bytes": "1 KiB"}, {"op": "record", "event": "e"}])"
        << R"("ops": [])"
        << "/streams/0/ops/1/ops" << 9 << 28 << "expected a non-empty array of ops, got an array";
    QTest::newRow("group's ops not an array")
        << R"("ops": [{"op": "memset", "buffer": "d", "bytes": "1 KiB"}, {"op": "record", "event": "e"}])"
        << R"("ops": {"op": "kernel"})"
        << "/streams/0/ops/1/ops" << 9 << 28 << "got an object";
    QTest::newRow("empty stream")
        << R"([{"op": "wait", "event": "e"}, {"op": "copy", "src": "d", "dst": "h", "bytes": "4 KiB"}])"
        << "[]"
        << "/streams/1/ops" << 11 << 27 << "a stream needs at least one op";
    QTest::newRow("unknown op after a comment") << R"({"repeat": 3, "ops")"
                                                << R"({"repeat": 3, "op": "memcpy", "ops")"
                                                << "/streams/0/ops/1/op" << 9 << 27 << "unknown";
    QTest::newRow("repeat out of range") << R"("repeat": 3)"
                                         << R"("repeat": 0)"
                                         << "/streams/0/ops/1/repeat" << 9 << 18 << "from 1 to 1000000";
}

void TestWorkloadOpLists::issuesInsideOpLists()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, path);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, message);

    QString text = QString::fromUtf8(kUsualOrder);
    QVERIFY2(text.count(from) == 1, "test data: the text to replace is not there once");
    text.replace(from, to);
    const auto issues = validateWorkloadText(text.toStdString(), "test.json");
    QVERIFY2(!issues.empty(), "no issue");
    const WorkloadIssue &issue = issues.front();
    QVERIFY2(QString::fromStdString(issue.jsonPath) == path, qPrintable(issuesText(issues)));
    QCOMPARE(issue.line, line);
    QCOMPARE(issue.column, column);
    QVERIFY2(QString::fromStdString(issue.message).contains(message), issue.message.c_str());
}

void TestWorkloadOpLists::duplicateKeyInsideAnOp()
{
    // An op's duplicate key is found while the op list is parsed, although its DOM is not kept.
    std::string text = kUsualOrder;
    const std::string from = R"({"op": "wait", "event": "e"})";
    text.replace(text.find(from), from.size(), R"({"op": "wait", "event": "e", "event": "e"})");
    const auto issues = validateWorkloadText(text, "test.json");
    QVERIFY2(issues.size() == 1, qPrintable(issuesText(issues)));
    QCOMPARE(issues[0].jsonPath, std::string("/streams/1/ops/0/event"));
    QCOMPARE(issues[0].line, 11);
    QCOMPARE(issues[0].column, 57);
    QVERIFY2(issues[0].message.find("duplicate key \"event\"") != std::string::npos, issues[0].message.c_str());
}

void TestWorkloadOpLists::peakHeapHasNoDomOfAllOps()
{
    // 100k ops written out one by one (5.4 MB). What the reader keeps is the workload (an op: OpSpec and its
    // JSON path, with no room to spare); besides it, at its peak, JsonLocator's index (12 bytes an op: what is
    // inside one is found by parsing it again when an issue asks) and its line starts, not a copy of the text
    // (readWorkloadText reads it where it is). nlohmann's DOM of every op was about 400 bytes more per op (#24:
    // 1M ops took 871 MB to validate, 480 MB read one at a time); the text copied, the ops vector grown by
    // doubling and the index of each op's members were 259 bytes more.
    constexpr int kOps = 100'000;
    const std::string text = literalOps(kOps);
    const std::size_t before = g_live.load();
    g_peak.store(before);
    std::vector<WorkloadIssue> issues;
    const Workload w = readWorkloadText(text, "literal.json", issues);
    QVERIFY2(issues.empty(), qPrintable(issuesText(issues)));
    QCOMPARE(w.streams.at(0).ops.size(), std::size_t(kOps));
    QCOMPARE(w.streams[0].ops.back().line, kOps + 3);
    const std::size_t kept = g_live.load() - before;
    const std::size_t peak = g_peak.load() - before;
    const double keptPerOp = double(kept) / kOps;
    const double besidePerOp = (double(peak) - double(kept)) / kOps;
    qInfo("kept %.0f bytes per op; at the peak, %.0f bytes per op more", keptPerOp, besidePerOp);
    // An OpSpec, its JSON path (/streams/0/ops/99999: 32 bytes of heap) and a little: no spare capacity.
    QVERIFY2(keptPerOp <= double(sizeof(OpSpec) + 48), qPrintable(QString("%1 bytes per op kept").arg(keptPerOp)));
    QVERIFY2(besidePerOp <= 50, qPrintable(QString("%1 bytes per op beside the workload").arg(besidePerOp, 0, 'f', 1)));
}

QTEST_APPLESS_MAIN(TestWorkloadOpLists)
#include "tst_workload_op_lists.moc"
