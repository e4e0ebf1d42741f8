// Tests of engine/analysis/op_statistics.h: each op over every repetition, on the bundled examples.
#include <QtTest>

#include <algorithm>

#include "engine/analysis/op_statistics.h"
#include "engine/formats/trace_io.h"

using namespace streamscope::engine;

namespace {

Trace example(const char *name)
{
    return loadTrace(std::string(STREAMSCOPE_SOURCE_DIR "/resources/examples/") + name + ".sstrace");
}

} // namespace

class TestOpStatistics : public QObject {
    Q_OBJECT

private slots:
    void overlapExample()
    {
        const Trace trace = example("overlap");
        const auto ops = opStatistics(trace);
        QCOMPARE(ops.size(), trace.repetitions.front().ops.size());
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const OpStatistics &s = ops[i];
            QCOMPARE(s.index, int(i));
            QVERIFY(s.first);
            QCOMPARE(s.gpuNs.count, trace.repetitions.size());
            // The median over repetitions of the same op (same opIndex) in each.
            std::vector<double> gpu;
            for (const Repetition &rep : trace.repetitions)
                for (const OpRecord &op : rep.ops)
                    if (op.opIndex == s.index)
                        gpu.push_back(double(op.gpuDurationNs()));
            QCOMPARE(s.gpuNs.median, spreadOf(gpu).median);
            if (isCopy(s.first->kind)) {
                QCOMPARE(s.gbPerSecond.count, trace.repetitions.size());
                QVERIFY(s.gbPerSecond.median > 1 && s.gbPerSecond.median < 63.1); // under the link
            } else {
                QCOMPARE(s.gbPerSecond.count, std::size_t(0));
            }
            QVERIFY(s.startNs.min >= 0);
        }
    }

    // The window keeps only ops measured more than once: none for a trace of one repetition, and an op
    // that only one repetition has is left out of a trace of several.
    void repeatedOnlyKeepsOpsMeasuredTwice()
    {
        Trace trace = example("overlap");
        const std::size_t perRepetition = trace.repetitions.front().ops.size();
        QVERIFY(trace.repetitions.size() >= 2);
        QCOMPARE(repeatedOpStatistics(trace).size(), perRepetition);
        // An op of the last repetition only (an index no other repetition has).
        OpRecord extra = trace.repetitions.back().ops.front();
        extra.opIndex = 100000;
        trace.repetitions.back().ops.push_back(extra);
        QCOMPARE(opStatistics(trace).size(), perRepetition + 1);
        const auto repeated = repeatedOpStatistics(trace);
        QCOMPARE(repeated.size(), perRepetition);
        QVERIFY(
            std::none_of(repeated.begin(), repeated.end(), [](const OpStatistics &s) { return s.index == 100000; }));
        // One repetition: nothing is repeated, however many ops.
        trace.repetitions.resize(1);
        QVERIFY(repeatedOpStatistics(trace).empty());
        QCOMPARE(opStatistics(trace).size(), perRepetition);
    }

    void prefetchIsRatedByItsMigrations()
    {
        const Trace trace = example("managed");
        bool seen = false;
        for (const OpStatistics &s : opStatistics(trace)) {
            // The prefetch to the GPU (the ones back to the host find nothing to move in this lesson).
            if (s.first->kind != OpKind::Prefetch || trace.name(*s.first).find("-> gpu") == std::string::npos)
                continue;
            QCOMPARE(s.first->gbPerSecond(), 0.0); // a prefetch has no requested-size rate of its own
            QVERIFY2(s.gbPerSecond.count > 0, trace.name(*s.first).c_str());
            QVERIFY(s.gbPerSecond.median > 10 && s.gbPerSecond.median < 63.1);
            seen = true;
        }
        QVERIFY2(seen, "the managed example has a prefetch that moved data");
    }

    void emptyTrace() { QVERIFY(opStatistics(Trace{}).empty()); }

    void firstRowsOnly()
    {
        // The CLI's table asks for its rows only: the same statistics as the whole call's first ones, and
        // the count of all (its "... N more ops"). Ops out of index order in a repetition are sorted.
        Trace trace = example("overlap");
        std::reverse(trace.repetitions.back().ops.begin(), trace.repetitions.back().ops.end());
        const auto all = opStatistics(trace);
        std::size_t total = 0;
        const auto first = opStatistics(trace, 3, &total);
        QCOMPARE(total, all.size());
        QCOMPARE(first.size(), std::size_t(3));
        for (std::size_t i = 0; i < first.size(); ++i) {
            QCOMPARE(first[i].index, all[i].index);
            QCOMPARE(first[i].index, int(i));
            QCOMPARE(first[i].first, all[i].first);
            QCOMPARE(first[i].first, &trace.repetitions.front().ops[i]);
            QCOMPARE(first[i].gpuNs.median, all[i].gpuNs.median);
            QCOMPARE(first[i].startNs.max, all[i].startNs.max);
            QCOMPARE(first[i].gpuNs.count, trace.repetitions.size());
        }
        QCOMPARE(opStatistics(trace, 0, &total).size(), std::size_t(0));
        QCOMPARE(total, all.size());
    }
};

QTEST_APPLESS_MAIN(TestOpStatistics)
#include "tst_op_statistics.moc"
