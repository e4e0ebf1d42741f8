// Tests of the workload format v1 and v2 reader and writer (engine/workload/workload_parser.h): malformed files
// reported at the right JSON path, line and column; the meaning of valid files (defaults, inferred
// directions, repeats, generated names, issue order); the pipeline generator op by op; round trips
// through workloadToJson.
#include <QtTest>

#include <limits>
#include <string_view>

#include <QDir>
#include <QFile>

#include <nlohmann/json.hpp>

#include "engine/model/units.h"
#include "engine/workload/pipeline_generator.h"
#include "engine/workload/workload_parser.h"
#include "tests/engine/workload/workload_compare.h"
#include "tests/linear_time.h"

using namespace streamscope::engine;
using streamscope::engine::testing::compareWorkloads;

namespace {

// A valid workload; the malformed cases replace one of its lines. Line numbers are in the comments
// of the tests that use them (line 1 is "{").
const char *const kBase = R"({
  "version": 1,
  "name": "t",
  "issueOrder": "stream-order",
  "buffers": [
    {"name": "h_in", "kind": "pinned", "bytes": "4 MiB"},
    {"name": "d_in", "kind": "device", "bytes": "4 MiB"},
    {"name": "m", "kind": "managed", "bytes": "1 MiB"}
  ],
  "streams": [
    {"name": "s0", "ops": [
      {"op": "copy", "src": "h_in", "dst": "d_in", "bytes": "1 MiB"},
      {"op": "kernel", "duration": "10 us"},
      {"op": "record", "event": "e0"}
    ]},
    {"name": "s1", "ops": [
      {"op": "wait", "event": "e0"},
      {"op": "memset", "buffer": "d_in", "bytes": "1 MiB"},
      {"op": "sync"}
    ]}
  ]
}
)";

QString baseWithLine(int line, const QString &replacement)
{
    QStringList lines = QString::fromUtf8(kBase).split('\n');
    lines[line - 1] = replacement;
    return lines.join('\n');
}

Workload parseOrFail(const QString &text)
{
    try {
        return parseWorkload(text.toStdString(), "test.json");
    } catch (const WorkloadError &e) {
        qWarning("%s", e.what());
        throw;
    }
}

QString issuesText(const std::vector<WorkloadIssue> &issues)
{
    QString out;
    for (const WorkloadIssue &i : issues)
        out += QString::fromStdString(WorkloadError::formatIssue("test.json", i)) + '\n';
    return out;
}

// (stream, op) pairs for compact expectations.
using Order = std::vector<std::pair<int, int>>;
Order orderOf(const Workload &w)
{
    Order out;
    for (const ScheduledOp &so : w.schedule)
        out.emplace_back(so.stream, so.op);
    return out;
}

// A valid version 2 workload: two GPUs, two host threads, a peer copy and a cross-thread event. The
// malformed v2 cases replace one of its lines (line 1 is "{").
const char *const kTwoGpus = R"({
  "version": 2,
  "name": "two GPUs",
  "peerAccess": "on",
  "buffers": [
    {"name": "h", "kind": "pinned", "bytes": "4 MiB"},
    {"name": "d0", "kind": "device", "bytes": "4 MiB", "device": 0},
    {"name": "d1", "kind": "device", "bytes": "4 MiB", "device": 1}
  ],
  "streams": [
    {"name": "up", "device": 0, "ops": [
      {"op": "copy", "src": "h", "dst": "d0"},
      {"op": "copy", "src": "d0", "dst": "d1", "peer": true},
      {"op": "record", "event": "sent"}
    ]},
    {"name": "work", "device": 1, "ops": [
      {"op": "wait", "event": "sent"},
      {"op": "kernel", "duration": "20 us"},
      {"op": "copy", "src": "d1", "dst": "h"}
    ]}
  ],
  "threads": [
    {"name": "host0", "device": 0, "streams": ["up"]},
    {"name": "host1", "device": 1, "streams": ["work"]}
  ]
}
)";

QString twoGpusWithLine(int line, const QString &replacement)
{
    QStringList lines = QString::fromUtf8(kTwoGpus).split('\n');
    lines[line - 1] = replacement;
    return lines.join('\n');
}

} // namespace

class TestWorkloadParser : public QObject {
    Q_OBJECT

private slots:
    void baseIsValid();
    void bufferSizesCannotWrap();
    void minifiedFilesGiveColumnsInLinearTime();
    void malformed_data();
    void malformed();
    void malformedWholeFile_data();
    void malformedWholeFile();
    void everyTruncationIsReported();
    void severalIssuesSortedByLine();
    void errorMessageFormat();
    void readerSaysWhetherTextIsJson_data();
    void readerSaysWhetherTextIsJson();
    void columnsCountCharacters();
    void defaultsAndInference();
    void repeatsAndGroups();
    void describeNames();
    void gemmKernels();
    void collectives();
    void collectivesMismatched_data();
    void collectivesMismatched();
    void issueOrders();
    void explicitSchedule();
    void pipelineDepthFirst();
    void pipelineBreadthFirst();
    void pipelineFromJsonMatchesGenerator();
    void roundTrip_data();
    void roundTrip();
    void workloadQueries();
    void loadMissingFileIsIo();
    void loadFileNamesWorkload();
    void headerReadsCommentedLessons();
    void headerErrorsNameLineAndPath_data();
    void headerErrorsNameLineAndPath();
    void headerOfEveryPreset();
    void keyFigureParsedCheckedAndWritten();
    void versionTwoDevicesAndThreads();
    void versionTwoMalformed_data();
    void versionTwoMalformed();
    void versionTwoKeysInVersionOne();
    void versionTwoDeadlockAcrossThreads();
    void versionTwoRoundTrip_data();
    void versionTwoRoundTrip();
    void versionOneIsOneImplicitThread();
    void eventWaitsPairAcrossThreadsByRank();
    void versionTwoFuzzSeedsAreValid();
};

void TestWorkloadParser::baseIsValid()
{
    const Workload w = parseOrFail(QString::fromUtf8(kBase));
    QCOMPARE(w.name, std::string("t"));
    QCOMPARE(w.streams.size(), std::size_t(2));
    QCOMPARE(w.opCount(), std::size_t(6));
    QCOMPARE(w.issueOrder, IssueOrder::StreamOrder);
    const OpSpec &copy = w.streams[0].ops[0];
    QCOMPARE(copy.type, OpType::Copy);
    QCOMPARE(copy.direction, CopyDirection::H2D); // inferred from pinned -> device
    QCOMPARE(copy.bytes, std::uint64_t(1) << 20);
    QCOMPARE(copy.jsonPath, std::string("/streams/0/ops/0"));
    QCOMPARE(copy.line, 12);
    QCOMPARE(w.streams[0].ops[1].jsonPath, std::string("/streams/0/ops/1"));
    QCOMPARE(w.streams[0].ops[1].line, 13);
    QCOMPARE(w.streams[0].ops[1].durationNs, std::int64_t(10'000));
    QCOMPARE(w.streams[1].ops[2].jsonPath, std::string("/streams/1/ops/2"));
    QCOMPARE(w.streams[1].ops[2].line, 19);
    QVERIFY(validateWorkloadText(kBase, "base.json").empty());
}

void TestWorkloadParser::malformed_data()
{
    QTest::addColumn<int>("replaceLine");
    QTest::addColumn<QString>("replacement");
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("columnAt"); // the issue's column is where this text starts on its line; "" = unchecked
    QTest::addColumn<QString>("message"); // a part of the message

    QTest::newRow("syntax: missing comma") << 13 << R"(      {"op": "kernel" "duration": "10 us"},)"
                                           << "" << 13 << R"("duration")"
                                           << "invalid JSON";
    QTest::newRow("version missing") << 2 << R"(  "comment": "no version",)"
                                     << "/version" << 1 << "{"
                                     << "missing \"version\"";
    QTest::newRow("version unsupported") << 2 << R"(  "version": 3,)"
                                         << "/version" << 2 << "3"
                                         << "unsupported version 3";
    QTest::newRow("misspelled top-level key") << 3 << R"(  "nmae": "t",)"
                                              << "/nmae" << 3 << R"("nmae")"
                                              << "did you mean \"name\"";
    QTest::newRow("misspelled op key") << 12
                                       << R"(      {"op": "copy", "src": "h_in", "dst": "d_in", "byte": "1 MiB"},)"
                                       << "/streams/0/ops/0/byte" << 12 << R"("byte")"
                                       << "did you mean \"bytes\"";
    QTest::newRow("gemm without k") << 13 << R"(      {"op": "kernel", "type": "gemm", "m": 64, "n": 64},)"
                                    << "/streams/0/ops/1/k" << 13 << "{"
                                    << "missing \"k\"";
    QTest::newRow("gemm dimension too large")
        << 13 << R"(      {"op": "kernel", "type": "gemm", "m": 64, "n": 0, "k": 8},)"
        << "/streams/0/ops/1/n" << 13 << "0"
        << "expected an integer from 1 to 131072";
    QTest::newRow("gemm unknown dtype")
        << 13 << R"(      {"op": "kernel", "type": "gemm", "m": 8, "n": 8, "k": 8, "dtype": "bf17"},)"
        << "/streams/0/ops/1/dtype" << 13 << R"("bf17")"
        << "did you mean \"bf16\"";
    QTest::newRow("gemm takes no blocks")
        << 13 << R"(      {"op": "kernel", "type": "gemm", "m": 8, "n": 8, "k": 8, "blocks": 4},)"
        << "/streams/0/ops/1/blocks" << 13 << R"("blocks")"
        << "a GEMM kernel";
    QTest::newRow("misspelled op type") << 13 << R"(      {"op": "kernal", "duration": "10 us"},)"
                                        << "/streams/0/ops/1/op" << 13 << R"("kernal")"
                                        << "did you mean \"kernel\"";
    QTest::newRow("negative bytes") << 12 << R"(      {"op": "copy", "src": "h_in", "dst": "d_in", "bytes": -5},)"
                                    << "/streams/0/ops/0/bytes" << 12 << "-5"
                                    << "cannot be negative";
    QTest::newRow("zero bytes") << 12 << R"(      {"op": "copy", "src": "h_in", "dst": "d_in", "bytes": 0},)"
                                << "/streams/0/ops/0/bytes" << 12 << "0}"
                                << "more than 0 bytes";
    QTest::newRow("size with unknown unit")
        << 12 << R"(      {"op": "copy", "src": "h_in", "dst": "d_in", "bytes": "12 parsecs"},)"
        << "/streams/0/ops/0/bytes" << 12 << R"("12 parsecs")"
        << "expected a byte size";
    QTest::newRow("size of wrong type") << 12 << R"(      {"op": "copy", "src": "h_in", "dst": "d_in", "bytes": true},)"
                                        << "/streams/0/ops/0/bytes" << 12 << "true"
                                        << "expected a byte size";
    QTest::newRow("too many threads") << 13 << R"(      {"op": "kernel", "duration": "10 us", "threads": 2048},)"
                                      << "/streams/0/ops/1/threads" << 13 << "2048"
                                      << "at most 1024 threads";
    QTest::newRow("zero blocks") << 13 << R"(      {"op": "kernel", "duration": "10 us", "blocks": 0},)"
                                 << "/streams/0/ops/1/blocks" << 13 << "0}"
                                 << "out of range";
    QTest::newRow("fractional threads") << 13 << R"(      {"op": "kernel", "duration": "10 us", "threads": 1.5},)"
                                        << "/streams/0/ops/1/threads" << 13 << "1.5"
                                        << "expected an integer";
    QTest::newRow("unknown buffer") << 12 << R"(      {"op": "copy", "src": "h_inn", "dst": "d_in", "bytes": "1 MiB"},)"
                                    << "/streams/0/ops/0/src" << 12 << R"("h_inn")"
                                    << "did you mean \"h_in\"";
    QTest::newRow("copy past the end") << 12
                                       << R"(      {"op": "copy", "src": "h_in", "dst": "d_in", "bytes": "5 MiB"},)"
                                       << "/streams/0/ops/0/bytes" << 12 << R"("5 MiB")"
                                       << "runs past the end of src \"h_in\"";
    QTest::newRow("offset past the end")
        << 12 << R"(      {"op": "copy", "src": "h_in", "dst": "d_in", "dstOffset": "3.5 MiB", "bytes": "1 MiB"},)"
        << "/streams/0/ops/0/bytes" << 12 << R"("1 MiB")"
        << "runs past the end of dst \"d_in\"";
    QTest::newRow("direction against buffer kinds")
        << 12 << R"(      {"op": "copy", "src": "h_in", "dst": "d_in", "direction": "d2h"},)"
        << "/streams/0/ops/0/direction" << 12 << R"("d2h")"
        << "that copy is \"h2d\"";
    QTest::newRow("key of another op type")
        << 12 << R"(      {"op": "copy", "src": "h_in", "dst": "d_in", "duration": "1 ms"},)"
        << "/streams/0/ops/0/duration" << 12 << R"("duration")"
        << "does not apply to a copy op";
    QTest::newRow("wait on an event never recorded") << 17 << R"(      {"op": "wait", "event": "e1"},)"
                                                     << "/streams/1/ops/0/event" << 17 << R"("e1")"
                                                     << "is never recorded";
    QTest::newRow("wait before the record in issue order") << 4 << R"(  "issueOrder": "round-robin",)"
                                                           << "/streams/1/ops/0/event" << 17 << R"("e0")"
                                                           << "before any record of it is issued";
    QTest::newRow("duplicate buffer name") << 8 << R"(    {"name": "d_in", "kind": "managed", "bytes": "1 MiB"})"
                                           << "/buffers/2/name" << 8 << R"("d_in")"
                                           << "already declared";
    QTest::newRow("buffer without name") << 8 << R"(    {"kind": "managed", "bytes": "1 MiB"})"
                                         << "/buffers/2/name" << 8 << "{"
                                         << "missing \"name\"";
    QTest::newRow("misspelled buffer kind") << 6 << R"(    {"name": "h_in", "kind": "pinnned", "bytes": "4 MiB"},)"
                                            << "/buffers/0/kind" << 6 << R"("pinnned")"
                                            << "did you mean \"pinned\"";
    QTest::newRow("duplicate stream name") << 16 << R"(    {"name": "s0", "ops": [)"
                                           << "/streams/1/name" << 16 << R"("s0")"
                                           << "already declared";
    QTest::newRow("positive priority") << 11 << R"(    {"name": "s0", "priority": 1, "ops": [)"
                                       << "/streams/0/priority" << 11 << "1,"
                                       << "lower is more urgent";
    QTest::newRow("misspelled stream flags") << 11 << R"(    {"name": "s0", "flags": "nonblocking", "ops": [)"
                                             << "/streams/0/flags" << 11 << R"("nonblocking")"
                                             << "did you mean \"non-blocking\"";
    QTest::newRow("sync on an unknown stream") << 19 << R"(      {"op": "sync", "stream": "s2"})"
                                               << "/streams/1/ops/2/stream" << 19 << R"("s2")"
                                               << "no stream named \"s2\"";
    QTest::newRow("sync key for another target") << 19 << R"(      {"op": "sync", "target": "device", "stream": "s0"})"
                                                 << "/streams/1/ops/2/stream" << 19 << R"("stream")"
                                                 << "applies to \"target\": \"stream\" only";
    QTest::newRow("memory kernel on host memory")
        << 13 << R"(      {"op": "kernel", "type": "memory", "buffer": "h_in"},)"
        << "/streams/0/ops/1/buffer" << 13 << R"("h_in")"
        << "needs device or managed memory";
    QTest::newRow("prefetch of device memory") << 18 << R"(      {"op": "prefetch", "buffer": "d_in"},)"
                                               << "/streams/1/ops/1/buffer" << 18 << R"("d_in")"
                                               << "needs managed memory";
    QTest::newRow("misspelled advice") << 18 << R"(      {"op": "advise", "buffer": "m", "advice": "read-mostly"},)"
                                       << "/streams/1/ops/1/advice" << 18 << R"("read-mostly")"
                                       << "did you mean \"set-read-mostly\"";
    QTest::newRow("unknown location") << 18 << R"(      {"op": "prefetch", "buffer": "m", "location": "gpu"},)"
                                      << "/streams/1/ops/1/location" << 18 << R"("gpu")"
                                      << "unknown location";
    QTest::newRow("duration with unknown unit") << 13 << R"(      {"op": "kernel", "duration": "10 parsecs"},)"
                                                << "/streams/0/ops/1/duration" << 13 << R"("10 parsecs")"
                                                << "expected a duration";
    QTest::newRow("duration unit in upper case") << 13 << R"(      {"op": "kernel", "duration": "10 MS"},)"
                                                 << "/streams/0/ops/1/duration" << 13 << R"("10 MS")"
                                                 << "units are lower case";
    QTest::newRow("unknown buffer, nothing close") << 12 << R"(      {"op": "copy", "src": "zz", "dst": "d_in"},)"
                                                   << "/streams/0/ops/0/src" << 12 << R"("zz")"
                                                   << "the buffers are \"d_in\", \"h_in\" or \"m\"";
    QTest::newRow("negative duration") << 13 << R"(      {"op": "kernel", "duration": "-10 us"},)"
                                       << "/streams/0/ops/1/duration" << 13 << R"("-10 us")"
                                       << "cannot be negative";
    QTest::newRow("kernel of no kind") << 13 << R"(      {"op": "kernel", "blocks": 4},)"
                                       << "/streams/0/ops/1/type" << 13 << "{"
                                       << "missing \"type\"";
    QTest::newRow("op without op") << 13 << R"(      {"duration": "10 us"},)"
                                   << "/streams/0/ops/1/op" << 13 << "{"
                                   << "missing \"op\"";
    QTest::newRow("repeat zero") << 13 << R"(      {"op": "kernel", "duration": "10 us", "repeat": 0},)"
                                 << "/streams/0/ops/1/repeat" << 13 << "0}"
                                 << "out of range";
    QTest::newRow("too many ops")
        << 13
        << R"(      {"repeat": 1000000, "ops": [{"op": "kernel", "duration": 5}, {"op": "host", "duration": 5}]},)"
        << "/streams/0/ops/1/repeat" << 13 << "1000000"
        << "more than 1000000 ops";
    // Within the op count, but each repetition copies the op's strings: bounded in bytes, before expanding
    // (a 1.2 KB file once took 2.7 GB to validate).
    QTest::newRow("repeat of a long name")
        << 13
        << QStringLiteral(R"(      {"op": "kernel", "duration": 5, "repeat": 500000, "name": "%1"},)")
               .arg(QString(1000, QLatin1Char('k')))
        << "/streams/0/ops/1/repeat" << 13 << "500000"
        << "KiB makes the workload's ops take more than 512 MiB of memory";
    QTest::newRow("nested repeats of long names")
        << 13
        << QStringLiteral(
               R"(      {"repeat": 700, "ops": [{"repeat": 700, "ops": [{"op": "host", "duration": 5, "name": "%1"}]}]},)")
               .arg(QString(900, QLatin1Char('h')))
        << "/streams/0/ops/1/repeat" << 13 << "700,"
        << "700 times 700 ops of";
    QTest::newRow("negative device") << 3 << R"(  "device": -1,)"
                                     << "/device" << 3 << "-1"
                                     << "out of range";
    QTest::newRow("misspelled default stream mode") << 3 << R"(  "defaultStream": "legacyy",)"
                                                    << "/defaultStream" << 3 << R"("legacyy")"
                                                    << "did you mean \"legacy\"";
    QTest::newRow("memset value out of a byte") << 18 << R"(      {"op": "memset", "buffer": "d_in", "value": 256},)"
                                                << "/streams/1/ops/1/value" << 18 << "256"
                                                << "cudaMemset sets bytes";
    QTest::newRow("duplicate key")
        << 12 << R"(      {"op": "copy", "src": "h_in", "dst": "d_in", "bytes": "1 MiB", "bytes": "2 MiB"},)"
        << "/streams/0/ops/0/bytes" << 12 << R"("bytes": "2)"
        << "duplicate key \"bytes\"";
    QTest::newRow("empty event name") << 14 << R"(      {"op": "record", "event": ""})"
                                      << "/streams/0/ops/2/event" << 14 << R"("")"
                                      << "must not be empty";
    // The lesson's comparison axes ("compare", what `compare --vary` takes).
    QTest::newRow("compare not an array") << 3 << R"(  "compare": "memory=pinned",)"
                                          << "/compare" << 3 << R"("memory=pinned")"
                                          << "expected an array of comparison axes";
    QTest::newRow("compare entry not a string") << 3 << R"(  "compare": ["api=sync,async", 4],)"
                                                << "/compare/1" << 3 << "4]"
                                                << "expected a string";
    QTest::newRow("compare unknown axis") << 3 << R"(  "compare": ["colour=red"],)"
                                          << "/compare/0" << 3 << R"("colour=red")"
                                          << "colour";
    QTest::newRow("compare bad value") << 3 << R"(  "compare": ["api=sync,fast"],)"
                                       << "/compare/0" << 3 << R"("api=sync,fast")"
                                       << "fast";
    QTest::newRow("compare axis twice") << 3 << R"(  "compare": ["streams=1,2", "streams=4"],)"
                                        << "/compare/1" << 3 << R"("streams=4")"
                                        << "already varied";
    QTest::newRow("attach of device memory") << 18 << R"(      {"op": "attach", "buffer": "d_in"},)"
                                             << "/streams/1/ops/1/buffer" << 18 << R"("d_in")"
                                             << "needs managed memory";
}

void TestWorkloadParser::malformed()
{
    QFETCH(int, replaceLine);
    QFETCH(QString, replacement);
    QFETCH(QString, path);
    QFETCH(int, line);
    QFETCH(QString, columnAt);
    QFETCH(QString, message);

    const QString text = baseWithLine(replaceLine, replacement);
    const auto issues = validateWorkloadText(text.toStdString(), "test.json");
    QVERIFY2(issues.size() == 1, qPrintable("expected exactly one issue, got:\n" + issuesText(issues)));
    const WorkloadIssue &issue = issues.front();
    QCOMPARE(QString::fromStdString(issue.jsonPath), path);
    QCOMPARE(issue.line, line);
    QVERIFY2(QString::fromStdString(issue.message).contains(message), issue.message.c_str());
    if (!columnAt.isEmpty()) {
        const QString lineText = text.split('\n').at(line - 1);
        const int expected = int(lineText.indexOf(columnAt)) + 1;
        QVERIFY2(expected > 0, "test data: columnAt not on the line");
        // A syntax error points at the end of the offending token, anything else at its start.
        if (path.isEmpty())
            QCOMPARE(issue.column, expected + int(columnAt.size()) - 1);
        else
            QCOMPARE(issue.column, expected);
    }
    // parseWorkload throws the same issues.
    try {
        parseWorkload(text.toStdString(), "test.json");
        QFAIL("parseWorkload accepted a malformed workload");
    } catch (const WorkloadError &e) {
        QCOMPARE(e.kind(), ErrorKind::InvalidInput);
        QCOMPARE(e.issues().size(), std::size_t(1));
        QCOMPARE(e.issues().front().jsonPath, issue.jsonPath);
    }
}

void TestWorkloadParser::malformedWholeFile_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("message");

    QTest::newRow("not an object") << "[1, 2]"
                                   << "" << 1 << "expected a workload";
    QTest::newRow("empty text") << ""
                                << "" << 1 << "invalid JSON";
    QTest::newRow("truncated") << "{\n  \"version\": 1,\n  \"streams\": [\n"
                               << "" << 3 << "invalid JSON";
    QTest::newRow("unterminated string") << "{\n  \"version\": 1,\n  \"name\": \"abc\n}"
                                         << "" << 3 << "invalid JSON";
    QTest::newRow("streams not an array") << "{\n  \"version\": 1,\n  \"streams\": {\"s0\": []}\n}"
                                          << "/streams" << 3 << "expected an array of streams";
    QTest::newRow("no streams") << "{\n  \"version\": 1\n}"
                                << "/streams" << 1 << "missing \"streams\"";
    QTest::newRow("stream without ops")
        << "{\n  \"version\": 1,\n  \"streams\": [\n    {\"name\": \"a\", \"ops\": []}\n  ]\n}"
        << "/streams/0/ops" << 4 << "at least one op";
    QTest::newRow("two default streams")
        << "{\n  \"version\": 1,\n  \"streams\": [\n"
           "    {\"useDefaultStream\": true, \"ops\": [{\"op\": \"kernel\", \"duration\": \"1 ms\"}]},\n"
           "    {\"useDefaultStream\": true, \"ops\": [{\"op\": \"kernel\", \"duration\": \"1 ms\"}]}\n  ]\n}"
        << "/streams/1/useDefaultStream" << 5 << "only one";
    QTest::newRow("flags on the default stream") << "{\n  \"version\": 1,\n  \"streams\": [\n"
                                                    "    {\"useDefaultStream\": true, \"flags\": \"default\", \"ops\": "
                                                    "[{\"op\": \"host\", \"duration\": 5}]}\n  ]\n}"
                                                 << "/streams/0/flags" << 4 << "does not apply to the default stream";
    QTest::newRow("attach single on the default stream")
        << "{\n  \"version\": 1,\n  \"buffers\": [{\"name\": \"m\", \"kind\": \"managed\", \"bytes\": 4096}],\n"
           "  \"streams\": [\n    {\"useDefaultStream\": true, \"ops\": [\n"
           "      {\"op\": \"attach\", \"buffer\": \"m\"}\n    ]}\n  ]\n}"
        << "/streams/0/ops/0/mode" << 6 << "needs a stream of its own";
    QTest::newRow("pipeline chunks do not divide bytes")
        << "{\n  \"version\": 1,\n  \"pipeline\": {\n    \"bytes\": \"16 MiB\",\n    \"chunks\": 3,\n"
           "    \"kernel\": {\"type\": \"memory\"}\n  }\n}"
        << "/pipeline/chunks" << 5 << "do not split into 3 equal chunks";
    QTest::newRow("pipeline with more streams than chunks")
        << "{\n  \"version\": 1,\n  \"pipeline\": {\n    \"bytes\": \"16 MiB\",\n    \"chunks\": 2,\n"
           "    \"streams\": 4,\n    \"kernel\": {\"type\": \"memory\"}\n  }\n}"
        << "/pipeline/streams" << 6 << "at most 2 streams";
    QTest::newRow("pipeline with streams") << "{\n  \"version\": 1,\n  \"pipeline\": {\"bytes\": \"16 MiB\", "
                                              "\"chunks\": 4, \"kernel\": {\"type\": \"memory\"}},\n"
                                              "  \"streams\": []\n}"
                                           << "/streams" << 4 << "cannot be combined with \"pipeline\"";
    QTest::newRow("pipeline order misspelled")
        << "{\n  \"version\": 1,\n  \"pipeline\": {\"bytes\": \"16 MiB\", \"chunks\": 4,\n"
           "    \"order\": \"depth-frist\", \"kernel\": {\"type\": \"memory\"}}\n}"
        << "/pipeline/order" << 4 << "did you mean \"depth-first\"";
    QTest::newRow("pipeline on device host memory")
        << "{\n  \"version\": 1,\n  \"pipeline\": {\"bytes\": \"16 MiB\", \"chunks\": 4,\n"
           "    \"hostMemory\": \"device\", \"kernel\": {\"type\": \"memory\"}}\n}"
        << "/pipeline/hostMemory" << 4 << "\"device\" is not allowed for hostMemory in a pipeline";
    QTest::newRow("copy api none")
        << "{\n  \"version\": 1,\n  \"buffers\": [{\"name\": \"a\", \"kind\": \"device\", \"bytes\": 64}, "
           "{\"name\": \"b\", \"kind\": \"device\", \"bytes\": 64}],\n  \"streams\": [{\"ops\": [\n"
           "    {\"op\": \"copy\", \"src\": \"a\", \"dst\": \"b\", \"api\": \"none\"}\n  ]}]\n}"
        << "/streams/0/ops/0/api" << 5 << "expected sync or async";
    QTest::newRow("pipeline compute kernel without duration")
        << "{\n  \"version\": 1,\n  \"pipeline\": {\"bytes\": \"16 MiB\", \"chunks\": 4,\n"
           "    \"kernel\": {\"type\": \"compute\"}}\n}"
        << "/pipeline/kernel/duration" << 4 << "missing \"duration\"";
    QTest::newRow("schedule out of stream order") << "{\n  \"version\": 1,\n  \"streams\": [\n"
                                                     "    {\"name\": \"a\", \"ops\": [{\"op\": \"host\", \"duration\": "
                                                     "5}, {\"op\": \"host\", \"duration\": 6}]}\n  ],\n"
                                                     "  \"schedule\": [\n    [\"a\", 1],\n    [\"a\", 0]\n  ]\n}"
                                                  << "/schedule/0/1" << 7 << "must issue its ops in order";
    QTest::newRow("schedule leaves ops out") << "{\n  \"version\": 1,\n  \"streams\": [\n"
                                                "    {\"name\": \"a\", \"ops\": [{\"op\": \"host\", \"duration\": 5}, "
                                                "{\"op\": \"host\", \"duration\": 6}]}\n  ],\n"
                                                "  \"schedule\": [\n    [\"a\", 0]\n  ]\n}"
                                             << "/schedule" << 6 << "leaves out ops of stream \"a\"";
    QTest::newRow("schedule names an unknown stream")
        << "{\n  \"version\": 1,\n  \"streams\": [\n"
           "    {\"name\": \"a\", \"ops\": [{\"op\": \"host\", \"duration\": 5}]}\n  ],\n"
           "  \"schedule\": [\n    [\"b\", 0]\n  ]\n}"
        << "/schedule/0/0" << 7 << "no stream named \"b\"";
    // Schedules are read from compact pairs (JsonLocator::keepPairListsCompact); what is not a pair is
    // reported from its DOM as before.
    for (const char *entry : {"[\"a\", 1.5]", "{\"a\": 0}", "[\"a\", 0, 1]", "7", "[\"a\", 18446744073709551615]"}) {
        const bool wraps = std::string_view(entry).find("1844") != std::string_view::npos;
        QTest::newRow(qPrintable(QString("schedule entry %1").arg(entry)))
            << QString("{\n  \"version\": 1,\n  \"streams\": [\n"
                       "    {\"name\": \"a\", \"ops\": [{\"op\": \"host\", \"duration\": 5}]}\n  ],\n"
                       "  \"schedule\": [\n    [\"a\", 0],\n    %1\n  ]\n}")
                   .arg(entry)
            << (wraps ? "/schedule/1/1" : "/schedule/1") << 8
            << (wraps ? "op index -1 is out of range" : "expected a [stream name, op index] pair like");
    }
    QTest::newRow("thread schedule names an unknown stream")
        << "{\n  \"version\": 2,\n  \"streams\": [\n"
           "    {\"name\": \"a\", \"ops\": [{\"op\": \"host\", \"duration\": 5}]}\n  ],\n"
           "  \"threads\": [{\"streams\": [\"a\"], \"schedule\": [\n    [\"a\", 0], [\"b\", 0]\n  ]}]\n}"
        << "/threads/0/schedule/1/0" << 7 << "no stream named \"b\"";
    QTest::newRow("nested group error keeps its path")
        << "{\n  \"version\": 1,\n  \"streams\": [\n    {\"ops\": [\n      {\"repeat\": 2, \"ops\": [\n"
           "        {\"op\": \"host\", \"duration\": 5},\n        {\"op\": \"host\", \"durration\": 5}\n      ]}\n    "
           "]}\n  ]\n}"
        << "/streams/0/ops/0/ops/1/durration" << 7 << "did you mean \"duration\"";
}

void TestWorkloadParser::malformedWholeFile()
{
    QFETCH(QString, text);
    QFETCH(QString, path);
    QFETCH(int, line);
    QFETCH(QString, message);
    const auto issues = validateWorkloadText(text.toStdString(), "test.json");
    QVERIFY2(!issues.empty(), "no issue reported");
    const WorkloadIssue &issue = issues.front();
    QVERIFY2(QString::fromStdString(issue.jsonPath) == path && issue.line == line
                 && QString::fromStdString(issue.message).contains(message),
             qPrintable(issuesText(issues)));
    // Consequences of one mistake are not reported again as further issues.
    QVERIFY2(issues.size() == 1 || path == "/pipeline/kernel/duration", qPrintable(issuesText(issues)));
}

// Cutting a valid file anywhere must give a located syntax error, never a crash or a silent pass.
void TestWorkloadParser::everyTruncationIsReported()
{
    const std::string text = kBase;
    const std::size_t end = text.rfind('}'); // what follows the closing brace is only a newline
    for (std::size_t n = 0; n < end; ++n) {
        const auto issues = validateWorkloadText(text.substr(0, n), "cut.json");
        QVERIFY2(!issues.empty(), qPrintable(QStringLiteral("accepted the first %1 characters").arg(n)));
        QVERIFY2(issues.front().line >= 1 && issues.front().column >= 1, issuesText(issues).toUtf8().constData());
    }
}

void TestWorkloadParser::severalIssuesSortedByLine()
{
    QString text = baseWithLine(18, R"(      {"op": "memset", "buffer": "d_in", "value": 300},)");
    text = text.replace(R"("name": "t")", R"("name": "t", "warmpu": 2)");
    const auto issues = validateWorkloadText(text.toStdString(), "test.json");
    QCOMPARE(issues.size(), std::size_t(2));
    QCOMPARE(issues[0].line, 3);
    QCOMPARE(issues[0].jsonPath, std::string("/warmpu"));
    QVERIFY(QString::fromStdString(issues[0].message).contains("did you mean \"warmup\""));
    QCOMPARE(issues[1].line, 18);
    QCOMPARE(issues[1].jsonPath, std::string("/streams/1/ops/1/value"));
}

// Four 8 EiB buffers added up to 2^65 bytes, which wrapped to "0 B" and validated (issue #13).
void TestWorkloadParser::bufferSizesCannotWrap()
{
    const auto workload = [](const char *bytes, int count) {
        std::string buffers;
        for (int i = 0; i < count; ++i)
            buffers += (i ? "," : "") + std::string(R"({"name":"b)") + std::to_string(i)
                       + R"(","kind":"device","bytes":")" + bytes + "\"}";
        return R"({"version":1,"name":"x","buffers":[)" + buffers
               + R"(],"streams":[{"name":"s","ops":[{"op":"kernel","duration":"1 us"}]}]})";
    };
    auto issues = validateWorkloadText(workload("8 EiB", 4), "w.json");
    QCOMPARE(issues.size(), std::size_t(4));
    QVERIFY2(issuesText(issues).contains("/buffers/0/bytes: 8 EiB is more than StreamScope allocates for one buffer "
                                         "(at most 1 PiB)"),
             qPrintable(issuesText(issues)));
    // Each within the limit, together beyond it.
    issues = validateWorkloadText(workload("1 PiB", 3), "w.json");
    QCOMPARE(issues.size(), std::size_t(1));
    QVERIFY2(issuesText(issues).contains("/buffers: the device and managed buffers add up to ")
                 && issuesText(issues).contains("more than StreamScope allocates (at most 1 PiB of each)"),
             qPrintable(issuesText(issues)));
    const Workload ok = parseWorkload(workload("512 TiB", 2), "w.json");
    QCOMPARE(ok.deviceBytes(), std::uint64_t(1) << 50);
    // The totals saturate rather than wrap, whatever a workload made in memory holds.
    Workload huge = ok;
    huge.buffers.assign(4, BufferSpec{"b", BufferKind::Device, std::uint64_t(8) << 60});
    QCOMPARE(huge.deviceBytes(), std::numeric_limits<std::uint64_t>::max());
}

// A minified workload is one line: every op's position rescanned it from its start, so 1.4 MB took
// 26-49 s to validate (0.6 s pretty-printed). Positions are now a binary search and at most one
// 256-byte block's scan, and the columns count characters (UTF-8 lead bytes), as before. Timed against
// the same ops one per line (tests/linear_time.h: for 4x the ops this validation takes 5.4-8x the time
// with linear code, its path tables outgrowing the caches): about as long, where rescanning each line
// from its start took 34x as long (22.8 s against 0.66 s, put back on the build machine for #29).
void TestWorkloadParser::minifiedFilesGiveColumnsInLinearTime()
{
    auto workload = [](int ops, const char *separator) {
        std::string text = R"({"version":1,"name":"Größe","streams":[{"name":"s","ops":[)";
        for (int i = 0; i < ops; ++i)
            text +=
                (i ? std::string(",") + separator : std::string(separator)) + R"({"op":"kernel","duration":"1 us"})";
        text += std::string(",") + separator + R"({"op":"kernel","duration":"soon"}]}]})";
        return text;
    };
    constexpr int kOps = 40'000;
    const std::string minified = workload(kOps, "");
    const std::string pretty = workload(kOps, "\n");
    const std::size_t badAt = minified.size() - std::string(R"("soon"}]}]})").size();
    const auto issues = validateWorkloadText(minified, "w.json");
    QCOMPARE(issues.size(), std::size_t(1));
    QCOMPARE(issues[0].line, 1);
    QCOMPARE(issues[0].column, int(badAt) + 1 - 2); // "ö" and "ß" are two bytes each, one character
    QVERIFY2(QString::fromStdString(WorkloadError::formatIssue("w.json", issues[0]))
                 .startsWith(QStringLiteral("w.json:1:%1: /streams/0/ops/40000/duration").arg(issues[0].column)),
             issues[0].message.c_str());
    const auto prettyIssues = validateWorkloadText(pretty, "w.json");
    QCOMPARE(prettyIssues.size(), std::size_t(1));
    QCOMPARE(prettyIssues[0].line, kOps + 2);

    auto validate = [](const std::string &text) {
        return streamscope::test::elapsedNs(
            [&] { QCOMPARE(validateWorkloadText(text, "w.json").size(), std::size_t(1)); });
    };
    const streamscope::test::Timings t =
        streamscope::test::bestOfThree([&] { return validate(pretty); }, [&] { return validate(minified); });
    qInfo("%d ops validated: one per line in %.1f ms, all on one line in %.1f ms (x%.2f; linear about 1; "
          "rescanning each line: 34)",
          kOps, t.baseNs / 1e6, t.testedNs / 1e6, t.ratio());
    QVERIFY2(t.ratio() < streamscope::test::kSameSizeLimit,
             qPrintable(QStringLiteral("one line took %1x as long as one op per line").arg(t.ratio())));
}

void TestWorkloadParser::errorMessageFormat()
{
    const QString text = baseWithLine(12, R"(      {"op": "copy", "src": "h_in", "dst": "d_in", "bytes": "5 MiB"},)");
    try {
        parseWorkload(text.toStdString(), "lesson.json");
        QFAIL("accepted a copy past the end of its buffer");
    } catch (const WorkloadError &e) {
        const QString what = QString::fromUtf8(e.what());
        QVERIFY2(
            what.startsWith("lesson.json:12:61: /streams/0/ops/0/bytes: 5 MiB (5242880 bytes) at offset 0 runs past "
                            "the end of src \"h_in\", which has 4 MiB"),
            qPrintable(what));
        QCOMPARE(e.fileName(), std::string("lesson.json"));
    }
    try {
        parseWorkload("{\n  \"version\": 1,,\n}", "broken.json");
        QFAIL("accepted a syntax error");
    } catch (const WorkloadError &e) {
        const QString what = QString::fromUtf8(e.what());
        QVERIFY2(what.startsWith("broken.json:2:16: invalid JSON: syntax error"), qPrintable(what));
        QCOMPARE(e.issues().front().column, 16);
    }
}

void TestWorkloadParser::readerSaysWhetherTextIsJson_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("json");
    QTest::addColumn<bool>("valid");
    QTest::newRow("valid workload") << QByteArray(kBase) << true << true;
    QTest::newRow("JSON, not a workload") << QByteArray("{\"streams\": 3} // a comment") << true << false;
    QTest::newRow("an array") << QByteArray("[1, 2]") << true << false;
    QTest::newRow("syntax error") << QByteArray("{\"streams\": [}") << false << false;
    QTest::newRow("empty") << QByteArray() << false << false;
    // The reader refuses to parse this (nesting deeper than it reads), but it is JSON: the editor keeps
    // showing the structure it read rather than calling the text broken, as nlohmann::json::accept says.
    QTest::newRow("nested too deep") << QByteArray("{\"streams\": " + QByteArray(300, '[') + QByteArray(300, ']') + "}")
                                     << true << false;
}

void TestWorkloadParser::readerSaysWhetherTextIsJson()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, json);
    QFETCH(bool, valid);
    const std::string_view view(text.constData(), std::size_t(text.size()));
    std::vector<WorkloadIssue> issues;
    bool isJson = !json;
    readWorkloadText(view, "t.json", issues, &isJson);
    QCOMPARE(isJson, json);
    QCOMPARE(isJson, nlohmann::ordered_json::accept(view, /*ignore_comments=*/true));
    QCOMPARE(issues.empty(), valid);
}

void TestWorkloadParser::columnsCountCharacters()
{
    // A multi-byte character before the mistake: columns count characters, as editors show them.
    const QString text = baseWithLine(
        13, QString::fromUtf8(R"(      {"op": "kernel", "duration": 5, "name": "µ-kernel", "threads": 0},)"));
    const auto issues = validateWorkloadText(text.toStdString(), "test.json");
    QCOMPARE(issues.size(), std::size_t(1));
    QCOMPARE(issues[0].column, int(text.split('\n').at(12).indexOf("0}")) + 1);
}

void TestWorkloadParser::defaultsAndInference()
{
    const char *text = R"({
  "version": 1,
  "device": 1,
  "buffers": [
    {"name": "pageable", "kind": "pageable", "bytes": 8192},
    {"name": "registered", "kind": "registered", "bytes": "8 KiB"},
    {"name": "dev", "kind": "device", "bytes": "8 KiB"},
    {"name": "dev2", "kind": "device", "bytes": "8 KiB"},
    {"name": "man", "kind": "managed", "bytes": "8 KiB"}
  ],
  "streams": [
    {"ops": [
      {"op": "copy", "src": "dev", "dst": "pageable"},
      {"op": "copy", "src": "dev", "dst": "dev2", "srcOffset": "4 KiB"},
      {"op": "copy", "src": "pageable", "dst": "registered", "api": "sync"},
      {"op": "copy", "src": "pageable", "dst": "man", "bytes": 100},
      {"op": "kernel", "type": "memory", "buffer": "man", "offset": "2 KiB"},
      {"op": "kernel", "duration": 1500},
      {"op": "prefetch", "buffer": "man"},
      {"op": "prefetch", "buffer": "man", "location": "host"},
      {"op": "advise", "buffer": "man", "advice": "set-accessed-by", "location": 0},
      {"op": "sync", "target": "device"},
      {"op": "host", "duration": "1.5 ms"}
    ]}
  ]
})";
    const Workload w = parseOrFail(QString::fromUtf8(text));
    QCOMPARE(w.name, std::string("test")); // from the file name "test.json"
    QCOMPARE(w.device, 1);
    QCOMPARE(w.warmup, 1);
    QCOMPARE(w.repetitions, 5);
    QCOMPARE(w.defaultStream, DefaultStreamMode::Legacy);
    QCOMPARE(w.issueOrder, IssueOrder::RoundRobin);
    const StreamSpec &s = w.streams.at(0);
    QCOMPARE(s.name, std::string("stream0"));
    QCOMPARE(s.flags, StreamFlags::NonBlocking);
    QCOMPARE(s.priority, 0);
    QVERIFY(!s.useDefaultStream);
    const auto &ops = s.ops;
    QCOMPARE(ops.size(), std::size_t(11));
    QCOMPARE(ops[0].direction, CopyDirection::D2H);
    QCOMPARE(ops[0].bytes, std::uint64_t(8192));
    QCOMPARE(ops[0].api, CopyApi::Async);
    QCOMPARE(ops[1].direction, CopyDirection::D2D);
    QCOMPARE(ops[1].bytes, std::uint64_t(4096)); // what is left after the source offset
    QCOMPARE(ops[1].srcOffset, std::uint64_t(4096));
    QCOMPARE(ops[2].direction, CopyDirection::H2H);
    QCOMPARE(ops[2].api, CopyApi::Sync);
    QCOMPARE(ops[3].direction, CopyDirection::H2D); // managed counts as the device side
    QCOMPARE(ops[4].kernelType, KernelType::Memory);
    QCOMPARE(ops[4].buffer, std::string("man"));
    QCOMPARE(ops[4].dstOffset, std::uint64_t(2048));
    QCOMPARE(ops[4].bytes, std::uint64_t(6144));
    QCOMPARE(ops[4].blocks, 256);
    QCOMPARE(ops[4].threadsPerBlock, 256);
    QCOMPARE(ops[5].kernelType, KernelType::Compute);
    QCOMPARE(ops[5].durationNs, std::int64_t(1500)); // a bare number is nanoseconds
    QCOMPARE(ops[5].blocks, 1);
    QCOMPARE(ops[5].threadsPerBlock, 128);
    QCOMPARE(ops[6].location, 1); // "device" (the default) is the workload's device
    QCOMPARE(ops[6].bytes, std::uint64_t(8192));
    QCOMPARE(ops[7].location, -1);
    QCOMPARE(ops[8].advise, AdviseKind::SetAccessedBy);
    QCOMPARE(ops[8].location, 0);
    QCOMPARE(ops[9].syncTarget, SyncTarget::Device);
    QCOMPARE(ops[10].type, OpType::HostWork);
    QCOMPARE(ops[10].hostNs, std::int64_t(1'500'000));
}

void TestWorkloadParser::repeatsAndGroups()
{
    const char *text = R"({
  "version": 1,
  // comments are allowed: teachers annotate their files
  "streams": [
    {"name": "a", "ops": [
      {"op": "kernel", "duration": "1 us", "repeat": 3},
      {"repeat": 2, "ops": [
        {"op": "host", "duration": "2 us"},
        {"repeat": 2, "ops": [{"op": "record", "event": "x"}]}
      ]}
    ]}
  ]
})";
    const Workload w = parseOrFail(QString::fromUtf8(text));
    const auto &ops = w.streams.at(0).ops;
    QCOMPARE(ops.size(), std::size_t(3 + 2 * (1 + 2)));
    const std::vector<OpType> expected = {OpType::Kernel,   OpType::Kernel,      OpType::Kernel,
                                          OpType::HostWork, OpType::EventRecord, OpType::EventRecord,
                                          OpType::HostWork, OpType::EventRecord, OpType::EventRecord};
    for (std::size_t i = 0; i < ops.size(); ++i)
        QCOMPARE(ops[i].type, expected[i]);
    // Every copy of a repeated op points back at the one place it was written.
    QCOMPARE(ops[0].jsonPath, std::string("/streams/0/ops/0"));
    QCOMPARE(ops[2].jsonPath, std::string("/streams/0/ops/0"));
    QCOMPARE(ops[0].line, 6);
    QCOMPARE(ops[6].jsonPath, std::string("/streams/0/ops/1/ops/0"));
    QCOMPARE(ops[8].jsonPath, std::string("/streams/0/ops/1/ops/1/ops/0"));
    QCOMPARE(ops[8].line, 9);
}

void TestWorkloadParser::gemmKernels()
{
    const Workload w = parseOrFail(R"({"version": 1, "streams": [{"name": "s", "ops": [
      {"op": "kernel", "type": "gemm", "m": 8192, "n": 4096, "k": 1024, "dtype": "fp16"},
      {"op": "kernel", "type": "gemm", "m": 3, "n": 5, "k": 7}
    ]}]})");
    const OpSpec &a = w.streams[0].ops[0];
    QVERIFY(a.type == OpType::Kernel && a.kernelType == KernelType::Gemm);
    QCOMPARE(a.gemm.m, 8192);
    QCOMPARE(a.gemm.n, 4096);
    QCOMPARE(a.gemm.k, 1024);
    QVERIFY(a.gemm.dtype == GemmDtype::Fp16);
    QCOMPARE(describe(a, w), std::string("GEMM 8192x4096x1024 fp16"));
    // 2mnk operations; A and B in fp16, C in fp16.
    QCOMPARE(a.gemm.flops(), std::uint64_t(2) * 8192 * 4096 * 1024);
    QCOMPARE(a.gemm.operandBytes(), std::uint64_t(8192 * 1024 + 1024 * 4096 + 8192 * 4096) * 2);
    const OpSpec &b = w.streams[0].ops[1];
    QVERIFY(b.gemm.dtype == GemmDtype::Bf16); // the default
    QCOMPARE(b.gemm.flops(), std::uint64_t(2 * 3 * 5 * 7));
    // fp8: E4M3 inputs of one byte, a bf16 output of two.
    GemmShape fp8{16, 32, 64, GemmDtype::Fp8};
    QCOMPARE(fp8.operandBytes(), std::uint64_t(16 * 64 + 64 * 32 + 16 * 32 * 2));
    // The largest shape's figures do not wrap.
    GemmShape huge{int(kMaxGemmDim), int(kMaxGemmDim), int(kMaxGemmDim), GemmDtype::Fp32};
    QCOMPARE(huge.flops(), std::uint64_t(2) * 131072ull * 131072ull * 131072ull);
    QCOMPARE(huge.operandBytes(), std::uint64_t(3) * 131072ull * 131072ull * 4);
    // A pipeline's kernel is a compute or a memory kernel, never a GEMM.
    QVERIFY_THROWS_EXCEPTION(WorkloadError, parseWorkload(R"({"version": 1, "pipeline": {"bytes": "4 MiB",
        "chunks": 2, "kernel": {"type": "gemm"}}})",
                                                          "p.json"));
}

namespace {
// Two GPUs, a thread and a stream each, each stream's ops given (JSON op lists), with NCCL settings.
QString twoGpuCollectives(const QString &ops0, const QString &ops1, const QString &extra = {})
{
    return QStringLiteral(R"({"version": 2, %3
  "streams": [{"name": "comm0", "device": 0, "ops": [%1]},
              {"name": "comm1", "device": 1, "ops": [%2]}],
  "threads": [{"name": "t0", "device": 0, "streams": ["comm0"]}, {"name": "t1", "device": 1, "streams": ["comm1"]}]})")
        .arg(ops0, ops1, extra);
}
} // namespace

void TestWorkloadParser::collectives()
{
    const QString ops = QStringLiteral(R"(
      {"op": "collective", "type": "allreduce", "bytes": "256 MiB", "dtype": "bf16"},
      {"op": "collective", "type": "allgather", "count": 1024, "dtype": "fp32"},
      {"op": "collective", "type": "broadcast", "bytes": "1 MiB", "root": 1, "dtype": "int8"},
      {"op": "collective", "type": "reducescatter", "bytes": "64 MiB", "reduce": "max"})");
    const Workload w = parseOrFail(twoGpuCollectives(
        ops + R"(, {"op": "collective", "type": "send", "peer": 1, "bytes": "8 MiB"})",
        ops + R"(, {"op": "collective", "type": "recv", "peer": 0, "bytes": "8 MiB"})",
        R"("nccl": {"maxCTAs": 4, "minCTAs": 2, "ctaPolicy": "zero", "proto": "Simple", "symmetric": true},)"));
    QCOMPARE(w.collectiveDevices(), (std::vector<int>{0, 1}));
    QCOMPARE(w.nccl.maxCTAs, 4);
    QCOMPARE(w.nccl.minCTAs, 2);
    QCOMPARE(w.nccl.ctaPolicy, std::string("zero"));
    QCOMPARE(w.nccl.proto, std::string("Simple"));
    QVERIFY(w.nccl.symmetric);
    QVERIFY(parseWorkload(workloadToJson(w)).nccl == w.nccl); // written back as read
    const std::vector<OpSpec> &a = w.streams[0].ops;
    QVERIFY(a[0].type == OpType::Collective && a[0].collective.type == CollectiveType::AllReduce);
    QCOMPARE(a[0].bytes, std::uint64_t(256) << 20);
    QCOMPARE(describe(a[0], w), std::string("ncclAllReduce 256 MiB bf16"));
    QCOMPARE(a[1].bytes, std::uint64_t(4096)); // 1024 fp32 elements
    QVERIFY(a[2].collective.dtype == CollectiveDtype::Int8);
    QCOMPARE(a[2].collective.root, 1);
    QCOMPARE(describe(a[2], w), std::string("ncclBroadcast 1 MiB int8 from gpu1"));
    QVERIFY(a[3].collective.reduce == ReduceOp::Max);
    QVERIFY(a[3].collective.dtype == CollectiveDtype::Bf16); // the default
    QCOMPARE(describe(a[4], w), std::string("ncclSend 8 MiB bf16 -> gpu1"));
    QCOMPARE(describe(w.streams[1].ops[4], w), std::string("ncclRecv 8 MiB bf16 <- gpu0"));
    QVERIFY(opKindOf(a[0]) == OpKind::Collective);
    // nccl-tests' bus bandwidth factors and buffer sizes, for 2 and 8 ranks.
    const std::uint64_t mib = 1 << 20;
    QCOMPARE(busBytes(CollectiveType::AllReduce, 256 * mib, 2), 256 * mib);
    QCOMPARE(busBytes(CollectiveType::AllReduce, 256 * mib, 8), 448 * mib); // x 2 * 7 / 8
    QCOMPARE(busBytes(CollectiveType::AllGather, 256 * mib, 8), 224 * mib); // x 7 / 8
    QCOMPARE(busBytes(CollectiveType::Broadcast, 256 * mib, 8), 256 * mib);
    QCOMPARE(busBytes(CollectiveType::AllReduce, 256 * mib, 1), std::uint64_t(0)); // one rank moves nothing
    QCOMPARE(collectiveSendBytes(CollectiveType::AllGather, 256 * mib, 8), 32 * mib);
    QCOMPARE(collectiveRecvBytes(CollectiveType::AllGather, 256 * mib, 8), 256 * mib);
    QCOMPARE(collectiveRecvBytes(CollectiveType::ReduceScatter, 256 * mib, 8), 32 * mib);
    QCOMPARE(collectiveSendBytes(CollectiveType::Recv, mib, 2), std::uint64_t(0));
    // Written and read back the same.
    compareWorkloads(parseOrFail(QString::fromStdString(workloadToJson(w))), w);
}

void TestWorkloadParser::collectivesMismatched_data()
{
    QTest::addColumn<QString>("ops0");
    QTest::addColumn<QString>("ops1");
    QTest::addColumn<QString>("expected");
    const QString ar = QStringLiteral(R"({"op": "collective", "type": "allreduce", "bytes": "64 MiB"})");
    QTest::newRow("sizes differ") << ar << R"({"op": "collective", "type": "allreduce", "bytes": "32 MiB"})"
                                  << "collective 1 of GPU 1 is \"ncclAllReduce 32 MiB bf16\", but GPU 0's";
    QTest::newRow("dtypes differ") << ar
                                   << R"({"op": "collective", "type": "allreduce", "bytes": "64 MiB", "dtype": "fp16"})"
                                   << "every GPU makes the same collectives";
    QTest::newRow("one rank lacks one")
        << ar + "," + ar << ar << "collective 2 of GPU 0 (\"ncclAllReduce 64 MiB bf16\") has no counterpart on GPU 1";
    QTest::newRow("send without recv") << R"({"op": "collective", "type": "send", "peer": 1, "bytes": "1 MiB"})"
                                       << R"({"op": "collective", "type": "send", "peer": 0, "bytes": "1 MiB"})"
                                       << "has no matching recv on GPU 1";
    QTest::newRow("peer outside") << R"({"op": "collective", "type": "send", "peer": 3, "bytes": "1 MiB"})" << ar
                                  << "peer GPU 3 is not in the collectives' communicator";
    QTest::newRow("does not divide") << R"({"op": "collective", "type": "allgather", "bytes": 6, "dtype": "fp32"})"
                                     << R"({"op": "collective", "type": "allgather", "bytes": 6, "dtype": "fp32"})"
                                     << "is not a whole number of fp32 elements";
    QTest::newRow("does not divide among ranks") << R"({"op": "collective", "type": "reducescatter", "bytes": 6})"
                                                 << R"({"op": "collective", "type": "reducescatter", "bytes": 6})"
                                                 << "does not divide into 2 equal parts";
    QTest::newRow("reduce on a gather") << R"({"op": "collective", "type": "allgather", "bytes": 64, "reduce": "sum"})"
                                        << ar << "takes no \"reduce\"";
    QTest::newRow("unknown type") << R"({"op": "collective", "type": "allreduse", "bytes": 64})" << ar << "allreduce";
    QTest::newRow("no size") << R"({"op": "collective", "type": "allreduce"})" << ar << "missing \"bytes\"";
}

void TestWorkloadParser::collectivesMismatched()
{
    QFETCH(QString, ops0);
    QFETCH(QString, ops1);
    QFETCH(QString, expected);
    try {
        parseWorkload(twoGpuCollectives(ops0, ops1).toStdString(), "test.json");
        QFAIL("accepted");
    } catch (const WorkloadError &e) {
        const QString text = issuesText(e.issues());
        QVERIFY2(text.contains(expected), qPrintable(text));
    }
    // One thread driving both GPUs' collectives: each needs its own.
    const QString oneThread = QStringLiteral(R"({"version": 2,
  "streams": [{"name": "comm0", "device": 0, "ops": [{"op": "collective", "type": "allreduce", "bytes": 64}]},
              {"name": "comm1", "device": 1, "ops": [{"op": "collective", "type": "allreduce", "bytes": 64}]}]})");
    try {
        parseWorkload(oneThread.toStdString(), "test.json");
        QFAIL("accepted");
    } catch (const WorkloadError &e) {
        QVERIFY2(issuesText(e.issues()).contains("need a host thread of their own"),
                 qPrintable(issuesText(e.issues())));
    }
}

void TestWorkloadParser::describeNames()
{
    const char *text = R"({
  "version": 1,
  "buffers": [
    {"name": "h", "kind": "pinned", "bytes": "4 MiB"},
    {"name": "p", "kind": "pageable", "bytes": "4 MiB"},
    {"name": "d", "kind": "device", "bytes": "16 MiB"},
    {"name": "m", "kind": "managed", "bytes": "256 MiB"}
  ],
  "issueOrder": "stream-order",
  "streams": [
    {"name": "s0", "ops": [
      {"op": "copy", "src": "h", "dst": "d"},
      {"op": "copy", "src": "d", "dst": "p", "api": "sync"},
      {"op": "copy", "src": "p", "dst": "h"},
      {"op": "copy", "src": "h", "dst": "m"},
      {"op": "kernel", "duration": "1 ms"},
      {"op": "kernel", "buffer": "d"},
      {"op": "memset", "buffer": "d"},
      {"op": "record", "event": "e0"},
      {"op": "prefetch", "buffer": "m"},
      {"op": "prefetch", "buffer": "m", "location": "host"},
      {"op": "advise", "buffer": "m", "advice": "set-read-mostly"},
      {"op": "attach", "buffer": "m", "mode": "global"},
      {"op": "host", "duration": "50 us"},
      {"op": "sync"},
      {"op": "sync", "stream": "s1"},
      {"op": "sync", "event": "e0"},
      {"op": "sync", "target": "device"},
      {"op": "kernel", "name": "my kernel", "duration": 5}
    ]},
    {"name": "s1", "ops": [{"op": "wait", "event": "e0"}]}
  ]
})";
    const Workload w = parseOrFail(QString::fromUtf8(text));
    const QStringList expected = {"H2D 4 MiB pinned",
                                  "D2H 4 MiB pageable (sync)",
                                  "H2H 4 MiB pageable -> pinned",
                                  "H2D 4 MiB pinned -> managed",
                                  "kernel 1 ms",
                                  "memory kernel 16 MiB",
                                  "memset 16 MiB",
                                  "record e0",
                                  "prefetch 256 MiB -> gpu0",
                                  "prefetch 256 MiB -> host",
                                  "advise set-read-mostly 256 MiB",
                                  "attach m global",
                                  QString::fromUtf8("host work 50 \u00b5s"),
                                  "sync stream",
                                  "sync stream s1",
                                  "sync event e0",
                                  "sync device",
                                  "my kernel"};
    const auto &ops = w.streams.at(0).ops;
    QCOMPARE(ops.size(), std::size_t(expected.size()));
    for (std::size_t i = 0; i < ops.size(); ++i)
        QCOMPARE(QString::fromStdString(ops[i].name), expected[int(i)]);
    QCOMPARE(w.streams.at(1).ops.at(0).name, std::string("wait e0"));
    QCOMPARE(opKindOf(ops[0]), OpKind::CopyH2D);
    QCOMPARE(opKindOf(ops[1]), OpKind::CopyD2H);
    QCOMPARE(opKindOf(ops[2]), OpKind::CopyH2H);
    QCOMPARE(opKindOf(ops[7]), OpKind::EventRecord);
    QCOMPARE(opKindOf(ops[13]), OpKind::HostSync);
    QCOMPARE(opKindOf(ops[12]), OpKind::HostWork);
    QCOMPARE(memKindOf(BufferKind::Registered), MemKind::Registered);
    QCOMPARE(memKindOf(BufferKind::Device), MemKind::Device);
}

void TestWorkloadParser::issueOrders()
{
    const char *text = R"({
  "version": 1,
  "streams": [
    {"name": "a", "ops": [{"op": "host", "duration": 1}, {"op": "host", "duration": 2}, {"op": "host", "duration": 3}]},
    {"name": "b", "ops": [{"op": "host", "duration": 4}]},
    {"name": "c", "ops": [{"op": "host", "duration": 5}, {"op": "host", "duration": 6}]}
  ]
})";
    Workload w = parseOrFail(QString::fromUtf8(text));
    QCOMPARE(orderOf(w), (Order{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {2, 1}, {0, 2}}));
    w.issueOrder = IssueOrder::StreamOrder;
    buildSchedule(w);
    QCOMPARE(orderOf(w), (Order{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {2, 0}, {2, 1}}));
}

void TestWorkloadParser::explicitSchedule()
{
    const char *text = R"({
  "version": 1,
  "streams": [
    {"name": "a", "ops": [{"op": "wait", "event": "e"}, {"op": "host", "duration": 2}]},
    {"name": "b", "ops": [{"op": "record", "event": "e"}]}
  ],
  "schedule": [["b", 0], ["a", 0], ["a", 1]]
})";
    const Workload w = parseOrFail(QString::fromUtf8(text));
    QCOMPARE(orderOf(w), (Order{{1, 0}, {0, 0}, {0, 1}}));
    // The order is not round-robin, so the normalised JSON must keep it.
    const std::string json = workloadToJson(w);
    QVERIFY(json.find("\"schedule\"") != std::string::npos);
    compareWorkloads(parseWorkload(json), w);
}

// 4 chunks over 2 streams: stream 0 gets chunks 0 and 2, stream 1 gets chunks 1 and 3.
void TestWorkloadParser::pipelineDepthFirst()
{
    Workload w;
    PipelineSpec spec;
    spec.totalBytes = 8ull << 20;
    spec.chunks = 4;
    spec.streams = 2;
    spec.order = PipelineOrder::DepthFirst;
    spec.kernelType = KernelType::Compute;
    spec.kernelNs = 60'000;
    generatePipeline(w, spec);

    QCOMPARE(w.buffers.size(), std::size_t(2));
    QCOMPARE(w.buffers[0].kind, BufferKind::Pinned);
    QCOMPARE(w.buffers[0].bytes, std::uint64_t(8) << 20);
    QCOMPARE(w.buffers[1].kind, BufferKind::Device);
    QCOMPARE(w.streams.size(), std::size_t(2));
    QCOMPARE(w.streams[0].name, std::string("stream0"));
    QCOMPARE(w.streams[1].name, std::string("stream1"));
    QCOMPARE(w.streams[0].ops.size(), std::size_t(6));
    QCOMPARE(w.streams[1].ops.size(), std::size_t(6));

    // Stream 0's ops: chunk 0 (H2D, K, D2H) then chunk 2; offsets follow the chunk.
    const std::uint64_t chunk = 2ull << 20;
    const struct {
        int stream, op;
        OpType type;
        CopyDirection dir;
        std::uint64_t offset;
        const char *name;
    } expected[] = {
        {0, 0, OpType::Copy, CopyDirection::H2D, 0, "H2D 2 MiB pinned [c0]"},
        {0, 1, OpType::Kernel, CopyDirection::H2D, 0, "kernel 60 \u00b5s [c0]"},
        {0, 2, OpType::Copy, CopyDirection::D2H, 0, "D2H 2 MiB pinned [c0]"},
        {1, 0, OpType::Copy, CopyDirection::H2D, chunk, "H2D 2 MiB pinned [c1]"},
        {1, 1, OpType::Kernel, CopyDirection::H2D, chunk, "kernel 60 \u00b5s [c1]"},
        {1, 2, OpType::Copy, CopyDirection::D2H, chunk, "D2H 2 MiB pinned [c1]"},
        {0, 3, OpType::Copy, CopyDirection::H2D, 2 * chunk, "H2D 2 MiB pinned [c2]"},
        {0, 4, OpType::Kernel, CopyDirection::H2D, 2 * chunk, "kernel 60 \u00b5s [c2]"},
        {0, 5, OpType::Copy, CopyDirection::D2H, 2 * chunk, "D2H 2 MiB pinned [c2]"},
        {1, 3, OpType::Copy, CopyDirection::H2D, 3 * chunk, "H2D 2 MiB pinned [c3]"},
        {1, 4, OpType::Kernel, CopyDirection::H2D, 3 * chunk, "kernel 60 \u00b5s [c3]"},
        {1, 5, OpType::Copy, CopyDirection::D2H, 3 * chunk, "D2H 2 MiB pinned [c3]"},
    };
    QCOMPARE(w.schedule.size(), std::size_t(12));
    for (std::size_t i = 0; i < w.schedule.size(); ++i) {
        const auto &e = expected[i];
        QCOMPARE(w.schedule[i].stream, e.stream);
        QCOMPARE(w.schedule[i].op, e.op);
        const OpSpec &op = w.streams[e.stream].ops[e.op];
        QCOMPARE(op.type, e.type);
        QCOMPARE(QString::fromStdString(op.name), QString::fromUtf8(e.name));
        if (op.type == OpType::Copy) {
            QCOMPARE(op.direction, e.dir);
            QCOMPARE(op.bytes, chunk);
            QCOMPARE(op.srcOffset, e.offset);
            QCOMPARE(op.dstOffset, e.offset);
            QCOMPARE(op.src, std::string(e.dir == CopyDirection::H2D ? "h_data" : "d_data"));
            QCOMPARE(op.api, CopyApi::Async);
        } else {
            QCOMPARE(op.durationNs, std::int64_t(60'000));
        }
    }
}

void TestWorkloadParser::pipelineBreadthFirst()
{
    Workload w;
    PipelineSpec spec;
    spec.totalBytes = 8ull << 20;
    spec.chunks = 4;
    spec.streams = 2;
    spec.order = PipelineOrder::BreadthFirst;
    spec.kernelType = KernelType::Memory;
    spec.hostMemory = BufferKind::Pageable;
    generatePipeline(w, spec);
    // Every H2D in chunk order, then every kernel, then every D2H. Each stream's list is in the order the
    // host issues it (a CUDA stream runs its ops in issue order): stream 0 holds H2D c0, H2D c2, kernel c0,
    // kernel c2, D2H c0, D2H c2.
    const Order expected = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, // H2D c0..c3
                            {0, 2}, {1, 2}, {0, 3}, {1, 3}, // kernels c0..c3
                            {0, 4}, {1, 4}, {0, 5}, {1, 5}}; // D2H c0..c3
    QCOMPARE(orderOf(w), expected);
    const OpType stageType[] = {OpType::Copy, OpType::Kernel, OpType::Copy};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const OpSpec &op = w.streams[expected[i].first].ops[expected[i].second];
        const int stage = int(i / 4), chunk = int(i % 4);
        QCOMPARE(op.type, stageType[stage]);
        QVERIFY2(QString::fromStdString(op.name).endsWith(QStringLiteral("[c%1]").arg(chunk)), op.name.c_str());
        if (op.type == OpType::Kernel) {
            QCOMPARE(op.kernelType, KernelType::Memory);
            QCOMPARE(op.buffer, std::string("d_data"));
            QCOMPARE(op.dstOffset, std::uint64_t(chunk) * (2ull << 20));
            QCOMPARE(op.bytes, std::uint64_t(2) << 20);
        } else {
            QCOMPARE(op.direction, stage == 0 ? CopyDirection::H2D : CopyDirection::D2H);
            QVERIFY(QString::fromStdString(op.name).contains("pageable"));
        }
    }
    QVERIFY_THROWS_EXCEPTION(Error, [] {
        Workload bad;
        PipelineSpec s;
        s.chunks = 3; // 16 MiB does not split into 3
        generatePipeline(bad, s);
    }());
}

void TestWorkloadParser::pipelineFromJsonMatchesGenerator()
{
    const char *text = R"({
  "version": 1,
  "name": "p",
  "pipeline": {
    "bytes": "8 MiB",
    "chunks": 4,
    "streams": 2,
    "order": "breadth-first",
    "hostMemory": "pageable",
    "kernel": {"type": "memory", "blocks": 64, "threads": 256}
  }
})";
    const Workload fromJson = parseOrFail(QString::fromUtf8(text));
    Workload direct;
    direct.name = "p";
    PipelineSpec spec;
    spec.totalBytes = 8ull << 20;
    spec.chunks = 4;
    spec.streams = 2;
    spec.order = PipelineOrder::BreadthFirst;
    spec.hostMemory = BufferKind::Pageable;
    spec.kernelType = KernelType::Memory;
    generatePipeline(direct, spec);
    compareWorkloads(fromJson, direct);
    QCOMPARE(fromJson.streams[0].ops[0].jsonPath, std::string("/pipeline"));
    QCOMPARE(fromJson.streams[0].ops[0].line, 4);
}

void TestWorkloadParser::roundTrip_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("base") << QString::fromUtf8(kBase);
    QTest::newRow("every op kind") << QString::fromUtf8(R"({
  "version": 1, "name": "all", "description": "every op", "device": 2, "defaultStream": "per-thread",
  "issueOrder": "stream-order",
  "warmup": 0, "repetitions": 9,
  "buffers": [
    {"name": "h", "kind": "registered", "bytes": "1 MiB"},
    {"name": "d", "kind": "device", "bytes": "1 MiB"},
    {"name": "m", "kind": "managed", "bytes": "1 MiB"}
  ],
  "streams": [
    {"name": "def", "useDefaultStream": true, "ops": [
      {"op": "copy", "src": "h", "dst": "d", "srcOffset": 4096, "dstOffset": 8192, "bytes": 4096, "api": "sync"},
      {"op": "record", "event": "r"}
    ]},
    {"name": "hi", "flags": "default", "priority": -3, "ops": [
      {"op": "wait", "event": "r"},
      {"op": "kernel", "type": "memory", "buffer": "m", "offset": 4096, "bytes": 4096, "blocks": 3, "threads": 96},
      {"op": "memset", "buffer": "d", "offset": 16, "bytes": 16, "value": 7},
      {"op": "prefetch", "buffer": "m", "location": "host"},
      {"op": "advise", "buffer": "m", "advice": "set-preferred-location", "location": 1},
      {"op": "attach", "buffer": "m", "mode": "host"},
      {"op": "sync", "event": "r"},
      {"op": "sync", "stream": "def"},
      {"op": "host", "duration": "3 us", "repeat": 2}
    ]}
  ]
})");
    QTest::newRow("gemms") << QString::fromUtf8(R"({"version": 1, "name": "gemms", "streams": [
    {"name": "math", "ops": [
      {"op": "kernel", "type": "gemm", "m": 8192, "n": 4096, "k": 1024, "dtype": "fp8", "repeat": 2},
      {"op": "kernel", "type": "gemm", "m": 1, "n": 131072, "k": 3, "dtype": "tf32", "name": "skinny"},
      {"op": "kernel", "type": "gemm", "m": 256, "n": 256, "k": 256}
    ]}]})");
    QTest::newRow("pipeline") << QString::fromUtf8(
        R"({"version": 1, "compare": ["streams=1,2", "order=breadth-first,depth-first"],
      "pipeline": {"bytes": "4 MiB", "chunks": 4, "streams": 3,
      "kernel": {"type": "compute", "duration": "20 us"}}})");
}

void TestWorkloadParser::roundTrip()
{
    QFETCH(QString, text);
    const Workload w = parseOrFail(text);
    const std::string json = workloadToJson(w);
    const Workload back = parseWorkload(json, "normalised.json");
    compareWorkloads(back, w);
    QCOMPARE(workloadToJson(back), json); // normalising is idempotent
    // Sizes in bytes, durations in nanoseconds and GEMM shapes: every such field is a plain integer.
    const auto doc = nlohmann::json::parse(json);
    int checked = 0;
    for (const auto &stream : doc.at("streams"))
        for (const auto &op : stream.at("ops"))
            for (const char *key : {"bytes", "offset", "srcOffset", "dstOffset", "duration", "m", "n", "k"})
                if (op.contains(key)) {
                    QVERIFY2(op.at(key).is_number_unsigned(), op.dump().c_str());
                    ++checked;
                }
    QVERIFY(checked > 0);
    QCOMPARE(back.compare, w.compare);
}

void TestWorkloadParser::workloadQueries()
{
    const Workload w = parseOrFail(QString::fromUtf8(kBase));
    QCOMPARE(w.deviceBytes(), std::uint64_t(5) << 20); // device + managed
    QCOMPARE(w.managedBytes(), std::uint64_t(1) << 20);
    QCOMPARE(w.hostBytes(), std::uint64_t(4) << 20);
    QVERIFY(w.findBuffer("d_in") != nullptr);
    QCOMPARE(w.findBuffer("d_in")->kind, BufferKind::Device);
    QVERIFY(w.findBuffer("nope") == nullptr);
    QCOMPARE(w.findStream("s1"), 1);
    QCOMPARE(w.findStream("s9"), -1);
    QCOMPARE(toString(BufferKind::Managed), std::string_view("managed"));
    QCOMPARE(toString(OpType::HostWork), std::string_view("host"));
    QCOMPARE(toString(CopyDirection::D2H), std::string_view("d2h"));
}

void TestWorkloadParser::loadMissingFileIsIo()
{
    try {
        loadWorkloadFile("/nonexistent/streamscope/none.json");
        QFAIL("loaded a file that does not exist");
    } catch (const WorkloadError &) {
        QFAIL("a missing file is an I/O error, not an invalid workload");
    } catch (const Error &e) {
        QCOMPARE(e.kind(), ErrorKind::Io);
        QVERIFY(QString::fromUtf8(e.what()).contains("none.json"));
    }
}

void TestWorkloadParser::loadFileNamesWorkload()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("my-lesson.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"version": 1, "streams": [{"ops": [{"op": "kernel", "duration": "1 ms"}]}]})");
    f.close();
    const Workload w = loadWorkloadFile(path.toStdString());
    QCOMPARE(w.name, std::string("my-lesson"));
    QCOMPARE(w.streams.at(0).ops.at(0).durationNs, std::int64_t(1'000'000));

    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write("{\"version\": 1,\n \"streams\": 3}");
    f.close();
    try {
        loadWorkloadFile(path.toStdString());
        QFAIL("loaded an invalid workload");
    } catch (const WorkloadError &e) {
        QVERIFY2(QString::fromUtf8(e.what()).startsWith(path + ":2:13: /streams: "), e.what());
    }
}

void TestWorkloadParser::headerReadsCommentedLessons()
{
    // Comments as docs/workload-format.md allows them; only the header is read, so a body the full parser
    // would refuse (a typo in an op) does not stop the lesson list.
    const WorkloadHeader h = readWorkloadHeader(R"({
  // a teacher's note
  "name": "Annotated",
  /* several
     lines */
  "description": "Look for the gap.",
  "compare": ["memory=pageable,pinned", "api=sync,async"], // trailing comment
  "streams": [{"name": "s0", "ops": [{"op": "copyy"}]}]
})",
                                                "annotated.json");
    QCOMPARE(h.name, std::string("Annotated"));
    QCOMPARE(h.description, std::string("Look for the gap."));
    QCOMPARE(h.compare, (std::vector<std::string>{"memory=pageable,pinned", "api=sync,async"}));
    // Fields left out are empty.
    const WorkloadHeader bare = readWorkloadHeader(R"({"pipeline": {"bytes": "1 MiB"}})");
    QVERIFY(bare.name.empty() && bare.description.empty() && bare.compare.empty());
}

void TestWorkloadParser::headerErrorsNameLineAndPath_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected"); // what the message must contain
    QTest::newRow("syntax") << QStringLiteral("{\n  \"name\": \"x\",\n  oops\n}") << QStringLiteral("lesson.json:3");
    QTest::newRow("not an object") << QStringLiteral("[1, 2]")
                                   << QStringLiteral("lesson.json:1:1: expected a JSON object");
    QTest::newRow("name not a string") << QStringLiteral("{\n\"name\": 4}")
                                       << QStringLiteral("lesson.json:2:9: /name: expected a string");
    QTest::newRow("description not a string") << QStringLiteral("{\"description\": null}")
                                              << QStringLiteral("lesson.json:1:17: /description: expected a string");
    QTest::newRow("compare not an array") << QStringLiteral("{\n\n\"compare\": \"streams=1,2\"}")
                                          << QStringLiteral("lesson.json:3:12: /compare: expected an array");
    QTest::newRow("compare entry not a string") << QStringLiteral("{\"compare\": [\"streams=1,2\",\n 7]}")
                                                << QStringLiteral("lesson.json:2:2: /compare/1: expected a string");
    QTest::newRow("unknown axis") << QStringLiteral("{\"compare\": [\n\"colour=red\"]}")
                                  << QStringLiteral("lesson.json:2:1: /compare/0: --vary colour=red: unknown axis");
    QTest::newRow("key figure not an object") << QStringLiteral("{\n\"keyFigure\": \"staircase\"}")
                                              << QStringLiteral("lesson.json:2:14: /keyFigure: expected an object");
    QTest::newRow("key figure without caption")
        << QStringLiteral("{\"keyFigure\": {\"kind\": \"h2d\"}}")
        << QStringLiteral("lesson.json:1:15: /keyFigure: a key figure needs a caption");
    QTest::newRow("key figure kind") << QStringLiteral("{\"keyFigure\": {\"caption\": \"x\",\n \"kind\": \"h2dd\"}}")
                                     << QStringLiteral("lesson.json:2:10: /keyFigure/kind: unknown op kind \"h2dd\" "
                                                       "(did you mean \"h2d\"?)");
    QTest::newRow("key figure key") << QStringLiteral("{\"keyFigure\": {\"caption\": \"x\", \"stream\": \"s0\"}}")
                                    << QStringLiteral("/keyFigure/stream: unknown key \"stream\" in a key figure");
}

void TestWorkloadParser::headerErrorsNameLineAndPath()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    try {
        readWorkloadHeader(text.toStdString(), "lesson.json");
        QFAIL("no error");
    } catch (const WorkloadError &e) {
        QCOMPARE(e.kind(), ErrorKind::InvalidInput);
        QVERIFY2(QString::fromUtf8(e.what()).contains(expected), e.what());
    }
}

void TestWorkloadParser::keyFigureParsedCheckedAndWritten()
{
    const std::string text = R"({"version": 1, "keyFigure": {"caption": "the staircase", "kind": "h2d", "name": "4 MiB",
        "lane": "stream0"}, "pipeline": {"bytes": "16 MiB", "chunks": 4, "streams": 4,
        "kernel": {"type": "compute", "duration": "60 us"}}})";
    const Workload w = parseWorkload(text);
    QCOMPARE(w.keyFigure.caption, std::string("the staircase"));
    QCOMPARE(w.keyFigure.kind, std::string("h2d"));
    QCOMPARE(w.keyFigure.name, std::string("4 MiB"));
    QCOMPARE(w.keyFigure.lane, std::string("stream0"));
    // Written back by the normaliser (the editor's structure edits, a run's embedded workload).
    QVERIFY(parseWorkload(workloadToJson(w)).keyFigure == w.keyFigure);
    // The full parser reports what the header reader reports.
    try {
        parseWorkload(R"({"version": 1, "keyFigure": {"caption": "x", "kind": "kernal"},
            "pipeline": {"bytes": "1 MiB", "kernel": {"type": "memory"}}})");
        QFAIL("no error");
    } catch (const WorkloadError &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("/keyFigure/kind: unknown op kind \"kernal\"")),
                 e.what());
    }
}

void TestWorkloadParser::headerOfEveryPreset()
{
    // The header reader agrees with the full parser on every bundled lesson.
    const QDir dir(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads"));
    const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files);
    QVERIFY2(files.size() >= 10, qPrintable(dir.path()));
    for (const QString &f : files) {
        const std::string path = dir.filePath(f).toStdString();
        const Workload w = loadWorkloadFile(path);
        QFile file(dir.filePath(f));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const WorkloadHeader h = readWorkloadHeader(file.readAll().toStdString(), path);
        QCOMPARE(h.description, w.description);
        QCOMPARE(h.compare, w.compare);
        QVERIFY(h.keyFigure == w.keyFigure);
        if (!h.name.empty())
            QCOMPARE(h.name, w.name);
    }
}

void TestWorkloadParser::versionTwoDevicesAndThreads()
{
    const Workload w = parseOrFail(QString::fromUtf8(kTwoGpus));
    QCOMPARE(w.version, 2);
    QCOMPARE(w.peerAccess, PeerAccess::On);
    QCOMPARE(w.findBuffer("h")->device, -1);
    QCOMPARE(w.findBuffer("d1")->device, 1);
    QCOMPARE(w.bufferDevice(*w.findBuffer("d0")), 0);
    QCOMPARE(w.streamDevice(1), 1);
    QCOMPARE(w.threads.size(), std::size_t(2));
    QCOMPARE(w.threads[1].name, std::string("host1"));
    QCOMPARE(w.threads[1].device, 1);
    QCOMPARE(w.threads[1].streams, std::vector<int>{1});
    QCOMPARE(w.streams[0].thread, 0);
    QCOMPARE(w.streams[1].thread, 1);
    QCOMPARE(w.usedDevices(), (std::vector<int>{0, 1}));
    // Thread by thread: host0's three ops, then host1's.
    QCOMPARE(orderOf(w), (Order{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
    const auto ranges = w.threadRanges();
    QCOMPARE(ranges.size(), std::size_t(2));
    QCOMPARE(ranges[0], (std::pair<std::size_t, std::size_t>{0, 3}));
    QCOMPARE(ranges[1], (std::pair<std::size_t, std::size_t>{3, 6}));
    // The peer copy is inferred from the buffers' devices, and named by them.
    const OpSpec &peer = w.streams[0].ops[1];
    QCOMPARE(peer.direction, CopyDirection::P2P);
    QCOMPARE(peer.name, std::string("P2P 4 MiB gpu0 -> gpu1"));
    QCOMPARE(w.streams[0].ops[0].direction, CopyDirection::H2D);
    // The wait in host1 pairs with host0's record.
    const std::vector<int> paired = pairEventWaits(w);
    QCOMPARE(paired[3], 2);
    QCOMPARE(paired[0], -1);
    // A thread without "device" is on its first stream's device; without "streams" devices, the workload's.
    QString noDevice = twoGpusWithLine(24, R"(    {"name": "host1", "streams": ["work"]})");
    QCOMPARE(parseOrFail(noDevice).threads[1].device, 1);
    // --device (an override) moves only what names no device.
    QCOMPARE(w.bufferDevice(*w.findBuffer("h"), 3), 3);
    QCOMPARE(w.bufferDevice(*w.findBuffer("d1"), 3), 1);
}

void TestWorkloadParser::versionTwoMalformed_data()
{
    QTest::addColumn<int>("replaceLine");
    QTest::addColumn<QString>("replacement");
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("message");

    QTest::newRow("device as a name") << 8
                                      << R"(    {"name": "d1", "kind": "device", "bytes": "4 MiB", "device": "cuda:1"})"
                                      << "/buffers/2/device" << 8 << "(did you mean 1?)";
    QTest::newRow("device out of range") << 8
                                         << R"(    {"name": "d1", "kind": "device", "bytes": "4 MiB", "device": 64})"
                                         << "/buffers/2/device" << 8 << "out of range";
    QTest::newRow("host buffer with a device")
        << 6 << R"(    {"name": "h", "kind": "pinned", "bytes": "4 MiB", "device": 1},)"
        << "/buffers/0/device" << 6 << "host memory";
    QTest::newRow("peer copy on one device")
        << 13
        << R"(      {"op": "copy", "src": "d0", "dst": "d0", "bytes": "1 MiB", "dstOffset": "2 MiB", "peer": true},)"
        << "/streams/0/ops/1/peer" << 13 << "both on device 0";
    QTest::newRow("peer copy from host memory")
        << 13 << R"(      {"op": "copy", "src": "h", "dst": "d1", "peer": true},)"
        << "/streams/0/ops/1/peer" << 13 << "\"h\" is pinned memory";
    QTest::newRow("peer false between GPUs")
        << 13 << R"(      {"op": "copy", "src": "d0", "dst": "d1", "peer": false},)"
        << "/streams/0/ops/1/peer" << 13 << "is a peer copy";
    QTest::newRow("peer copy sync") << 13 << R"(      {"op": "copy", "src": "d0", "dst": "d1", "api": "sync"},)"
                                    << "/streams/0/ops/1/api" << 13 << "cudaMemcpyPeerAsync";
    QTest::newRow("direction d2d between GPUs")
        << 13 << R"(      {"op": "copy", "src": "d0", "dst": "d1", "direction": "d2d"},)"
        << "/streams/0/ops/1/direction" << 13 << "that copy is \"p2p\"";
    QTest::newRow("stream driven by two threads")
        << 24 << R"(    {"name": "host1", "device": 1, "streams": ["work", "up"]})"
        << "/threads/1/streams/1" << 24 << "already driven by thread \"host0\"";
    QTest::newRow("thread with no streams") << 24 << R"(    {"name": "host1", "device": 1, "streams": []})"
                                            << "/threads/1/streams" << 24 << "drives no stream";
    QTest::newRow("stream driven by no thread")
        << 22 << R"(  "threads": [{"name": "only", "streams": ["up"]}], "threadz": [)"
        << "/threads" << 22 << "stream \"work\" is driven by no thread";
    QTest::newRow("unknown stream in a thread") << 24 << R"(    {"name": "host1", "device": 1, "streams": ["wrok"]})"
                                                << "/threads/1/streams/0" << 24 << "(did you mean \"work\"?)";
    QTest::newRow("thread name twice") << 24 << R"(    {"name": "host0", "device": 1, "streams": ["work"]})"
                                       << "/threads/1/name" << 24 << "already declared";
    QTest::newRow("thread schedule with another thread's stream")
        << 24 << R"(    {"name": "host1", "streams": ["work"], "schedule": [["up", 0]]})"
        << "/threads/1/schedule/0/0" << 24 << "not one of this thread's streams";
    QTest::newRow("thread issueOrder and schedule")
        << 24
        << R"(    {"name": "host1", "streams": ["work"], "issueOrder": "round-robin", "schedule": [["work", 0], ["work", 1], ["work", 2]]})"
        << "/threads/1/schedule" << 24 << "not both";
    QTest::newRow("event recorded on two devices")
        << 19 << R"(      {"op": "record", "event": "sent"})"
        << "/streams/1/ops/2/event" << 19 << "a CUDA event belongs to one device";
    QTest::newRow("wait on an event never recorded") << 19 << R"(      {"op": "wait", "event": "mine"})"
                                                     << "/streams/1/ops/2/event" << 19 << "is never recorded";
    QTest::newRow("peerAccess unknown") << 4 << R"(  "peerAccess": "yes",)"
                                        << "/peerAccess" << 4 << "expected on or off";
}

void TestWorkloadParser::versionTwoMalformed()
{
    QFETCH(int, replaceLine);
    QFETCH(QString, replacement);
    QFETCH(QString, path);
    QFETCH(int, line);
    QFETCH(QString, message);
    const QString text = twoGpusWithLine(replaceLine, replacement);
    const auto issues = validateWorkloadText(text.toStdString(), "test.json");
    QVERIFY2(!issues.empty(), "accepted");
    const WorkloadIssue &issue = issues.front();
    QVERIFY2(QString::fromStdString(issue.jsonPath) == path, qPrintable(issuesText(issues)));
    QCOMPARE(issue.line, line);
    QVERIFY2(QString::fromStdString(issue.message).contains(message), qPrintable(issuesText(issues)));
}

void TestWorkloadParser::versionTwoKeysInVersionOne()
{
    // Every version 2 key in a version 1 file, each named with its line.
    const QString text = QStringLiteral(R"({
  "version": 1,
  "peerAccess": "off",
  "buffers": [{"name": "d", "kind": "device", "bytes": 4096, "device": 1}],
  "streams": [{"name": "s", "device": 1, "ops": [{"op": "copy", "src": "d", "dst": "d", "bytes": 16, "dstOffset": 16, "peer": false}]}],
  "threads": [{"name": "t", "streams": ["s"]}]
})");
    const auto issues = validateWorkloadText(text.toStdString(), "v1.json");
    const QString all = issuesText(issues);
    for (const char *path :
         {"/peerAccess", "/buffers/0/device", "/streams/0/device", "/streams/0/ops/0/peer", "/threads"})
        QVERIFY2(all.contains(QStringLiteral("%1: \"").arg(QLatin1String(path))), qPrintable(all));
    QVERIFY2(all.count(QStringLiteral("write \"version\": 2")) == 5, qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("test.json:6:3: /threads")), qPrintable(all));
}

void TestWorkloadParser::versionTwoDeadlockAcrossThreads()
{
    // Each thread waits for the other's record before issuing its own: neither can go on.
    const QString text = QStringLiteral(R"({
  "version": 2,
  "streams": [
    {"name": "a", "ops": [{"op": "wait", "event": "fromB"}, {"op": "record", "event": "fromA"}]},
    {"name": "b", "ops": [{"op": "wait", "event": "fromA"}, {"op": "record", "event": "fromB"}]}
  ],
  "threads": [{"name": "ta", "streams": ["a"]}, {"name": "tb", "streams": ["b"]}]
})");
    const auto issues = validateWorkloadText(text.toStdString(), "deadlock.json");
    QCOMPARE(issues.size(), std::size_t(1));
    const QString message = QString::fromStdString(issues.front().message);
    QCOMPARE(QString::fromStdString(issues.front().jsonPath), QStringLiteral("/streams/0/ops/0/event"));
    QCOMPARE(issues.front().line, 4);
    QVERIFY2(message.contains(QStringLiteral("thread \"ta\" waits at /streams/0/ops/0 (line 4) for \"fromB\" "
                                             "recorded by thread \"tb\" at /streams/1/ops/1 (line 5)")),
             qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("thread \"tb\" waits")), qPrintable(message));
    // The same waits in the other order go on: a records first.
    QString fixed = text;
    fixed.replace(QStringLiteral(R"({"op": "wait", "event": "fromB"}, {"op": "record", "event": "fromA"})"),
                  QStringLiteral(R"({"op": "record", "event": "fromA"}, {"op": "wait", "event": "fromB"})"));
    QVERIFY2(validateWorkloadText(fixed.toStdString(), "fixed.json").empty(),
             qPrintable(issuesText(validateWorkloadText(fixed.toStdString(), "fixed.json"))));
}

void TestWorkloadParser::versionTwoRoundTrip_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("two GPUs") << QString::fromUtf8(kTwoGpus);
    QTest::newRow("thread schedules, peer access off, per-thread default streams") << QStringLiteral(R"({
  "version": 2, "device": 1, "peerAccess": "off", "defaultStream": "per-thread", "issueOrder": "stream-order",
  "buffers": [{"name": "a", "kind": "device", "bytes": "1 MiB", "device": 0},
              {"name": "b", "kind": "device", "bytes": "1 MiB"},
              {"name": "m", "kind": "managed", "bytes": "1 MiB", "device": 0}],
  "streams": [
    {"name": "s0", "device": 0, "ops": [{"op": "kernel", "duration": "5 us"}, {"op": "record", "event": "e"}]},
    {"name": "s1", "device": 0, "ops": [{"op": "memset", "buffer": "a"}, {"op": "kernel", "duration": "5 us"}]},
    {"name": "def", "useDefaultStream": true, "ops": [{"op": "wait", "event": "e"}, {"op": "copy", "src": "a", "dst": "b"}]},
    {"name": "def0", "device": 0, "useDefaultStream": true, "ops": [{"op": "sync", "event": "e"}]}
  ],
  "threads": [
    {"name": "t0", "streams": ["s0", "s1"], "schedule": [["s1", 0], ["s0", 0], ["s0", 1], ["s1", 1]]},
    {"name": "t1", "streams": ["def"], "issueOrder": "round-robin"},
    {"name": "t2", "device": 0, "streams": ["def0"]}
  ]
})");
    QTest::newRow("version 2 without threads") << QStringLiteral(R"({
  "version": 2, "buffers": [{"name": "a", "kind": "device", "bytes": 4096}, {"name": "b", "kind": "device", "bytes": 4096, "device": 1}],
  "streams": [{"name": "s", "ops": [{"op": "copy", "src": "a", "dst": "b"}]}]
})");
}

void TestWorkloadParser::versionTwoRoundTrip()
{
    QFETCH(QString, text);
    const Workload w = parseOrFail(text);
    const std::string json = workloadToJson(w);
    const Workload back = parseWorkload(json, "normalised.json");
    compareWorkloads(back, w);
    QCOMPARE(workloadToJson(back), json);
    const auto doc = nlohmann::json::parse(json);
    QCOMPARE(doc.at("version").get<int>(), 2);
    QVERIFY(doc.contains("peerAccess"));
    if (!w.threads.empty()) {
        // A thread whose order its issueOrder says keeps that; a hand-made one keeps its schedule.
        const auto &threads = doc.at("threads");
        QCOMPARE(threads.size(), w.threads.size());
        for (std::size_t t = 0; t < w.threads.size(); ++t)
            QVERIFY(threads[t].contains("issueOrder") != threads[t].contains("schedule"));
        QVERIFY(!doc.contains("schedule"));
    }
}

void TestWorkloadParser::versionOneIsOneImplicitThread()
{
    const Workload w = parseOrFail(QString::fromUtf8(kBase));
    QCOMPARE(w.version, 1);
    QVERIFY(w.threads.empty());
    QCOMPARE(w.threadCount(), 1);
    QCOMPARE(w.threadName(0), std::string("main"));
    QCOMPARE(w.threadRanges().front(), (std::pair<std::size_t, std::size_t>{0, w.schedule.size()}));
    for (const StreamSpec &s : w.streams) {
        QCOMPARE(s.device, -1);
        QCOMPARE(s.thread, 0);
    }
    QCOMPARE(w.usedDevices(), std::vector<int>{0});
    QCOMPARE(w.usedDevices(2), std::vector<int>{2});
    // Written back as version 1, without any version 2 key.
    const auto doc = nlohmann::json::parse(workloadToJson(w));
    QCOMPARE(doc.at("version").get<int>(), 1);
    for (const char *key : {"threads", "peerAccess"})
        QVERIFY(!doc.contains(key));
    for (const auto &b : doc.at("buffers"))
        QVERIFY(!b.contains("device"));
}

void TestWorkloadParser::eventWaitsPairAcrossThreadsByRank()
{
    // A producer records "chunk" three times; the consumer waits three times and syncs on it once more.
    const Workload w = parseOrFail(QStringLiteral(R"({
  "version": 2,
  "streams": [
    {"name": "p", "ops": [{"repeat": 3, "ops": [{"op": "kernel", "duration": "5 us"}, {"op": "record", "event": "chunk"}]}]},
    {"name": "c", "ops": [{"repeat": 3, "ops": [{"op": "wait", "event": "chunk"}, {"op": "kernel", "duration": "5 us"}]},
                          {"op": "sync", "event": "chunk"}]}
  ],
  "threads": [{"name": "producer", "streams": ["p"]}, {"name": "consumer", "streams": ["c"]}]
})"));
    const std::vector<int> paired = pairEventWaits(w);
    // Producer: schedule 0..5 (kernel, record) x 3; consumer: 6..12.
    QCOMPARE(paired[6], 1);
    QCOMPARE(paired[8], 3);
    QCOMPARE(paired[10], 5);
    QCOMPARE(paired[12], 5); // beyond the records: the last one
    QCOMPARE(paired[7], -1);
}

void TestWorkloadParser::versionTwoFuzzSeedsAreValid()
{
    // The fuzzer starts from these: they must reach past validation into threads and peer copies.
    for (const char *name : {"v2-two-gpus.json", "v2-threads-one-gpu.json"}) {
        const Workload w = loadWorkloadFile(std::string(STREAMSCOPE_SOURCE_DIR "/tests/fuzz/corpus/workload/") + name);
        QCOMPARE(w.version, 2);
        QCOMPARE(w.threads.size(), std::size_t(2));
    }
}

QTEST_APPLESS_MAIN(TestWorkloadParser)
#include "tst_workload_parser.moc"
