// The workload format's parts for lessons and tests of faults: the "hang" and "fault" kernel types and
// the run time limit ("timeLimit"): what they accept, what they refuse (with line and path), their
// names, and that they survive the normalised form stored in traces.
#include <QtTest>

#include <cstdlib>

#include "engine/workload/workload_parser.h"

using namespace streamscope::engine;

namespace {

std::string withOp(const std::string &op, const std::string &top = {})
{
    return R"({"version": 1, "name": "f", )" + top + R"("streams": [{"name": "s", "ops": [)" + op + "]}]}";
}

QByteArray issuesOf(const std::string &text)
{
    QByteArray all;
    for (const WorkloadIssue &i : validateWorkloadText(text, "f.json"))
        all += QByteArray::fromStdString(WorkloadError::formatIssue("f.json", i)) + "\n";
    return all;
}

} // namespace

class TestWorkloadFaults : public QObject {
    Q_OBJECT

private slots:
    void hangAndFaultKernels()
    {
        const Workload w = parseWorkload(
            withOp(R"({"op": "kernel", "type": "hang"}, {"op": "kernel", "type": "fault", "blocks": 2, "threads": 64})",
                   R"("timeLimit": "2 s", )"));
        const auto &ops = w.streams.at(0).ops;
        QCOMPARE(ops.size(), std::size_t(2));
        QCOMPARE(ops[0].kernelType, KernelType::Hang);
        QCOMPARE(ops[0].name, std::string("hang kernel"));
        QCOMPARE(ops[0].blocks, 1);
        QCOMPARE(ops[0].threadsPerBlock, 1);
        QCOMPARE(ops[1].kernelType, KernelType::Fault);
        QCOMPARE(ops[1].name, std::string("fault kernel"));
        QCOMPARE(ops[1].blocks, 2);
        QCOMPARE(ops[1].threadsPerBlock, 64);
        QCOMPARE(w.timeLimitNs, std::int64_t(2'000'000'000));
    }

    // They take no duration or buffer, and a pipeline cannot be made of them.
    void refusedWhereTheyMeanNothing()
    {
        QByteArray e = issuesOf(withOp(R"({"op": "kernel", "type": "hang", "duration": "1 ms"})"));
        QVERIFY2(e.contains("/streams/0/ops/0/duration") && e.contains("hang kernel"), e.constData());
        e = issuesOf(withOp(R"({"op": "kernel", "type": "fault", "bytes": 4096})"));
        QVERIFY2(e.contains("/streams/0/ops/0/bytes"), e.constData());
        e = issuesOf(R"({"version": 1, "pipeline": {"bytes": "4 MiB", "chunks": 2, "kernel": {"type": "hang"}}})");
        QVERIFY2(e.contains("/pipeline/kernel/type") && e.contains("compute") && !e.contains("\"hang\", "),
                 e.constData());
        e = issuesOf(withOp(R"({"op": "kernel", "type": "hangs"})"));
        QVERIFY2(e.contains("did you mean \"hang\""), e.constData());
    }

    void timeLimitValues_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<qint64>("ns"); // -1: refused
        QTest::addColumn<QString>("message");
        QTest::newRow("seconds") << "\"30 s\"" << qint64(30'000'000'000) << "";
        QTest::newRow("milliseconds") << "\"500ms\"" << qint64(500'000'000) << "";
        QTest::newRow("nanoseconds") << "1000000" << qint64(1'000'000) << "";
        QTest::newRow("zero") << "0" << qint64(-1) << "longer than 0";
        QTest::newRow("negative") << "\"-2 s\"" << qint64(-1) << "negative";
        QTest::newRow("upper case") << "\"2 S\"" << qint64(-1) << "lower case";
        QTest::newRow("not a duration") << "true" << qint64(-1) << "expected a duration";
    }

    void timeLimitValues()
    {
        QFETCH(QString, value);
        QFETCH(qint64, ns);
        QFETCH(QString, message);
        const std::string text =
            withOp(R"({"op": "kernel", "duration": "1 ms"})", "\"timeLimit\": " + value.toStdString() + ", ");
        if (ns >= 0) {
            QCOMPARE(parseWorkload(text).timeLimitNs, std::int64_t(ns));
            return;
        }
        const QByteArray e = issuesOf(text);
        QVERIFY2(e.contains("f.json:1:42: /timeLimit: ") && e.contains(message.toUtf8()), e.constData());
    }

    // The normalised form (stored in traces, and what `compare` runs its variants from) keeps them.
    void roundTrip()
    {
        const Workload w = parseWorkload(withOp(
            R"({"op": "kernel", "type": "hang"}, {"op": "kernel", "type": "fault"})", R"("timeLimit": "1.5 s", )"));
        const std::string json = workloadToJson(w);
        QVERIFY2(json.find("\"timeLimit\": 1500000000") != std::string::npos, json.c_str());
        const Workload back = parseWorkload(json);
        QCOMPARE(back.timeLimitNs, w.timeLimitNs);
        QCOMPARE(back.streams.at(0).ops.at(0).kernelType, KernelType::Hang);
        QCOMPARE(back.streams.at(0).ops.at(1).kernelType, KernelType::Fault);
        QCOMPARE(workloadToJson(back), json);
        // Without a limit, none is written.
        QVERIFY(workloadToJson(parseWorkload(withOp(R"({"op": "kernel", "duration": "1 ms"})"))).find("timeLimit")
                == std::string::npos);
    }

    // The fault workloads the GPU tests run are valid.
    void faultWorkloadsAreValid()
    {
        for (const char *name : {"hang.json", "hang-sync.json", "fault.json"}) {
            const char *env = std::getenv("STREAMSCOPE_SOURCE_DIR");
            const std::string root = env && *env ? env : STREAMSCOPE_SOURCE_DIR;
            const Workload w = loadWorkloadFile(root + "/tests/gpu/workloads/" + name);
            QVERIFY2(!w.streams.empty(), name);
        }
    }
};

QTEST_APPLESS_MAIN(TestWorkloadFaults)
#include "tst_workload_faults.moc"
