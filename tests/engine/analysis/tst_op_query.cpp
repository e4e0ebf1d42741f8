// Tests of engine::findOps: text (substring without case, regular expression, the CUDA call's name, the
// NVTX range it was launched in), kind, lane and duration, each alone and together, the start-time order,
// and the errors.
#include <QtTest>

#include "engine/analysis/op_query.h"
#include "engine/model/errors.h"
#include "engine/model/host_ranges.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope;
using engine::OpKind;
using engine::OpQuery;

class TestOpQuery : public QObject {
    Q_OBJECT

private:
    // The names of the matches, in the order findOps gives them.
    static QStringList names(const engine::Trace &t, int repetition, const OpQuery &q)
    {
        QStringList out;
        for (int i : engine::findOps(t, repetition, q))
            out << QString::fromStdString(t.name(t.repetitions[std::size_t(repetition)].ops[std::size_t(i)]));
        return out;
    }

private slots:
    void text()
    {
        const engine::Trace t = test::handTrace(3);
        OpQuery q;
        QVERIFY(q.isEmpty());
        QCOMPARE(names(t, 0, q).size(), 4); // nothing asked: every op, by start
        q.text = "h2d";
        QVERIFY(!q.isEmpty());
        QCOMPARE(names(t, 0, q), (QStringList{"A: H2D 1 MB", "C: H2D 1 MB"})); // without case
        q.text = "cudaLaunchKernel"; // the call that issued it
        QCOMPARE(names(t, 0, q), QStringList{"B: kernel"});
        q.text = "cudaMemcpyAsync";
        QCOMPARE(names(t, 0, q).size(), 3);
        q.text = "no such op";
        QVERIFY(names(t, 0, q).isEmpty());
        q.text = "^[ab]:";
        QVERIFY(names(t, 0, q).isEmpty()); // not a pattern unless asked
        q.regex = true;
        QCOMPARE(names(t, 0, q), (QStringList{"A: H2D 1 MB", "B: kernel"}));
        q.text = "[0-9] mb$";
        QCOMPARE(names(t, 0, q).size(), 3);
    }

    // The NVTX range (or Kineto cpu_op) an op was launched in matches too: "forward" finds the kernels of
    // the forward pass, whatever they are called.
    void rangeName()
    {
        engine::Trace t = test::handTrace(1);
        engine::HostRange forward;
        forward.nameId = t.intern("model.forward");
        forward.hostThread = 0;
        forward.startNs = 0;
        forward.endNs = 3'000; // A and B were launched in it (host calls at 0 and 2 us), not C and D
        t.repetitions[0].hostRanges.push_back(forward);
        engine::layoutHostRanges(t.repetitions[0]);
        OpQuery q;
        q.text = "FORWARD";
        QCOMPARE(names(t, 0, q), (QStringList{"A: H2D 1 MB", "B: kernel"}));
        q.kind = OpKind::Kernel;
        QCOMPARE(names(t, 0, q), QStringList{"B: kernel"});
        q = {};
        q.regex = true;
        q.text = "^model\\.";
        QCOMPARE(names(t, 0, q).size(), 2);
    }

    void kindLaneDuration()
    {
        const engine::Trace t = test::handTrace(3);
        OpQuery q;
        q.kind = OpKind::CopyH2D;
        QCOMPARE(names(t, 0, q), (QStringList{"A: H2D 1 MB", "C: H2D 1 MB"}));
        q.lane = "s1";
        QCOMPARE(names(t, 0, q), QStringList{"C: H2D 1 MB"});
        q = {};
        q.lane = "main"; // the host thread: every op was issued there
        QCOMPARE(names(t, 0, q).size(), 4);
        q.lane = "s9";
        QVERIFY(names(t, 0, q).isEmpty());
        // Durations in repetition 0: A 100 us, B 200 us, C 100 us, D 100 us; repetition 2 is 3x longer.
        q = {};
        q.minDurationNs = 150'000;
        QCOMPARE(names(t, 0, q), QStringList{"B: kernel"});
        QCOMPARE(names(t, 2, q).size(), 4);
        q.maxDurationNs = 250'000;
        QCOMPARE(names(t, 0, q), QStringList{"B: kernel"});
        QVERIFY(names(t, 2, q).isEmpty());
        QCOMPARE(engine::queryDurationNs(t.repetitions[0].ops[1]), std::int64_t(200'000));
        // Everything at once.
        q = {};
        q.text = "mb";
        q.kind = OpKind::CopyD2H;
        q.lane = "s1";
        q.minDurationNs = 50'000;
        QCOMPARE(names(t, 1, q), QStringList{"D: D2H 2 MB"});
    }

    void orderedByStart()
    {
        engine::Trace t = test::handTrace(1);
        // Make D start first: the matches follow the time, not the issue order.
        auto &d = t.repetitions[0].ops[3];
        d.gpuStartNs = -5'000;
        OpQuery q;
        q.text = "mb";
        QCOMPARE(names(t, 0, q), (QStringList{"D: D2H 2 MB", "A: H2D 1 MB", "C: H2D 1 MB"}));
        QVERIFY(engine::findOps(t, 5, q).empty()); // no such repetition
        QVERIFY(engine::findOps(t, -1, q).empty());
    }

    void errors()
    {
        const engine::Trace t = test::handTrace(1);
        OpQuery q;
        q.text = "([unclosed";
        q.regex = true;
        try {
            engine::findOps(t, 0, q);
            QFAIL("a broken pattern was accepted");
        } catch (const engine::Error &e) {
            QCOMPARE(e.kind(), engine::ErrorKind::InvalidInput);
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("([unclosed")), e.what());
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("regular expression")), e.what());
        }
        q = {};
        q.minDurationNs = 10;
        q.maxDurationNs = 5;
        QVERIFY_THROWS_EXCEPTION(engine::Error, engine::findOps(t, 0, q));
    }
};

QTEST_MAIN(TestOpQuery)
#include "tst_op_query.moc"
