// Tests of settling without a GPU: how far each stream got (its ops' end events polled in order, only
// those issued), the ops a stop or a fault found running (kernels only where asked, four at most), and the
// messages of a run that is stopped, abandoned or broken by a kernel fault.
#include <QtTest>

#include <string>
#include <vector>

#include "engine/model/errors.h"
#include "engine/run/settling.h"

using namespace streamscope::engine;

namespace {

std::vector<PlannedOp> ops(int count)
{
    std::vector<PlannedOp> list(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        list[std::size_t(i)].context = "op " + std::to_string(i);
        list[std::size_t(i)].kind = i % 2 ? OpKind::Kernel : OpKind::CopyH2D;
    }
    return list;
}

} // namespace

class TestSettling : public QObject {
    Q_OBJECT

private slots:
    void progressPerStream()
    {
        const std::vector<PlannedOp> plan = ops(5);
        int a = 0, b = 0;
        // Ops 0, 1, 3 on stream a; 2 on b; 4 has no end event.
        PendingOps pending({&a, &a, &b, &a, nullptr});
        std::vector<bool> issued(5, true), done(5, false);
        const auto isIssued = [&](std::size_t i) { return bool(issued[i]); };
        const auto query = [&](std::size_t i) {
            return done[i] ? PendingOps::State::Done : PendingOps::State::NotReady;
        };
        QVERIFY(pending.advance(isIssued, query));
        QCOMPARE(pending.unfinished(plan, isIssued), std::string("op 0; op 2"));
        QCOMPARE(pending.unfinished(plan, isIssued, /*kernels=*/true), std::string("op 1"));
        done[0] = done[2] = true;
        QVERIFY(pending.advance(isIssued, query));
        QCOMPARE(pending.unfinished(plan, isIssued), std::string("op 1"));
        // Op 3 done before op 1: a stream's cursor waits for its ops in order.
        done[3] = true;
        QVERIFY(pending.advance(isIssued, query));
        QCOMPARE(pending.unfinished(plan, isIssued), std::string("op 1"));
        // Not issued yet (another thread's, or a solo run's other part): not named, not polled.
        issued[1] = false;
        QCOMPARE(pending.unfinished(plan, isIssued), std::string());
        // A new repetition starts every stream over.
        issued[1] = true;
        pending.restart();
        done.assign(5, false);
        QCOMPARE(pending.unfinished(plan, isIssued), std::string("op 0; op 2"));
        // A failed query (a sticky error) stops the polling.
        QVERIFY(!pending.advance(isIssued, [](std::size_t) { return PendingOps::State::Failed; }));
    }

    void atMostFour()
    {
        const std::vector<PlannedOp> plan = ops(6);
        std::vector<int> streams(6);
        std::vector<const void *> handles;
        for (int &s : streams)
            handles.push_back(&s);
        PendingOps pending(handles);
        const auto all = [](std::size_t) { return true; };
        QCOMPARE(pending.unfinished(plan, all), std::string("op 0; op 1; op 2; op 3; and 2 more"));
    }

    void messages()
    {
        const Error stop(ErrorKind::TimeLimit, "the run passed its time limit of 2 s");
        QCOMPARE(unsettledMessage(&stop, "w", "op 1"),
                 std::string("the run passed its time limit of 2 s; its GPU work did not end within 1 s (still "
                             "running: op 1)"));
        // Where the cause names the running op already, it is not named twice.
        const Error named(ErrorKind::TimeLimit, "time limit, while the GPU ran op 1");
        QCOMPARE(unsettledMessage(&named, "w", "op 1"),
                 std::string("time limit, while the GPU ran op 1; its GPU work did not end within 1 s"));
        QCOMPARE(unsettledMessage(nullptr, "w", ""),
                 std::string("run of workload 'w' failed; its GPU work did not end within 1 s"));

        QCOMPARE(
            faultMessage("sync: cudaStreamSynchronize: x", "cudaErrorIllegalAddress: an illegal memory access", "op 1"),
            std::string("sync: cudaStreamSynchronize: x; a kernel failed on the GPU (cudaErrorIllegalAddress: an "
                        "illegal memory access, a sticky error: CUDA reports it from whichever call comes next, "
                        "and the process cannot use CUDA again): op 1"));
        QVERIFY(faultMessage("e", "s", "op 1; op 3").ends_with("; the kernels still running were: op 1; op 3"));
        QVERIFY(faultMessage("e", "s", "").ends_with("CUDA again)"));

        const Error stopped = stoppedWhileRunning(stop, "op 1");
        QCOMPARE(stopped.kind(), ErrorKind::TimeLimit);
        QCOMPARE(std::string(stopped.what()),
                 std::string("the run passed its time limit of 2 s, while the GPU ran op 1"));
        QCOMPARE(std::string(stoppedWhileRunning(stop, "").what()), std::string(stop.what()));
    }
};

QTEST_GUILESS_MAIN(TestSettling)
#include "tst_settling.moc"
