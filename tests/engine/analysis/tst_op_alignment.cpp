// Tests of engine::alignOps, the one aligner behind the trace diff and the Nsight comparison: names and
// occurrences within a lane, the pass across lanes, the two order fallbacks, and what stays unmatched.
#include <QtTest>

#include "engine/analysis/op_alignment.h"

using namespace streamscope::engine;

namespace QTest {
// QCOMPARE on the enum: compared and printed as its number.
inline bool qCompare(MatchMethod t1, MatchMethod t2, const char *actual, const char *expected, const char *file,
                     int line)
{
    return qCompare(static_cast<int>(t1), static_cast<int>(t2), actual, expected, file, line);
}
} // namespace QTest

class TestOpAlignment : public QObject {
    Q_OBJECT

private slots:
    void nameAndOccurrenceWithinALane()
    {
        // Lane 0: A = x, y, x; B = x, x, y (the second x of A is the second x of B).
        const std::vector<AlignItem> a{{0, "x", OpKind::Kernel}, {0, "y", OpKind::Kernel}, {0, "x", OpKind::Kernel}};
        const std::vector<AlignItem> b{{0, "x", OpKind::Kernel}, {0, "x", OpKind::Kernel}, {0, "y", OpKind::Kernel}};
        const OpAlignment r = alignOps(a, b, {false, OrderFallback::None});
        QCOMPARE(r.a.size(), std::size_t(3));
        QCOMPARE(r.a[0].b, 0);
        QCOMPARE(r.a[1].b, 2);
        QCOMPARE(r.a[2].b, 1);
        QCOMPARE(r.a[2].occurrence, 1);
        QCOMPARE(r.a[0].occurrence, 0);
        for (const auto &m : r.a) {
            QCOMPARE(m.method, MatchMethod::ByName);
            QVERIFY(!m.acrossLanes);
        }
        QCOMPARE(r.partnerOfB, (std::vector<int>{0, 2, 1}));
    }

    void lanesKeepTheirOps()
    {
        // The same name in two lanes: each matches its own lane, even when the items are interleaved.
        const std::vector<AlignItem> a{{1, "k", OpKind::Kernel}, {0, "k", OpKind::Kernel}};
        const std::vector<AlignItem> b{{0, "k", OpKind::Kernel}, {1, "k", OpKind::Kernel}};
        const OpAlignment r = alignOps(a, b, {false, OrderFallback::None});
        QCOMPARE(r.a[0].b, 1);
        QCOMPARE(r.a[1].b, 0);
        // Without the pass across lanes, a name in another lane stays unmatched.
        const OpAlignment apart = alignOps({{0, "memcpy", OpKind::CopyH2D}}, {{7, "memcpy", OpKind::CopyH2D}},
                                           {false, OrderFallback::InLane});
        QCOMPARE(apart.a[0].b, -1);
        QCOMPARE(apart.partnerOfB, std::vector<int>{-1});
    }

    void acrossLanesForLeftoversOnly()
    {
        // A synchronous copy issued on stream 1 that Nsight shows on the default stream (lane 9); stream
        // 1's own copy named the same matches in its lane first.
        const std::vector<AlignItem> a{{1, "H2D", OpKind::CopyH2D}, {1, "H2D", OpKind::CopyH2D}};
        const std::vector<AlignItem> b{{1, "H2D", OpKind::CopyH2D}, {9, "H2D", OpKind::CopyH2D}};
        const OpAlignment r = alignOps(a, b, {true, OrderFallback::None});
        QCOMPARE(r.a[0].b, 0);
        QVERIFY(!r.a[0].acrossLanes);
        QCOMPARE(r.a[1].b, 1);
        QVERIFY(r.a[1].acrossLanes);
        QCOMPARE(r.a[1].method, MatchMethod::ByName);
    }

    void orderFallbacks()
    {
        // Names differ between the tools: "scale" vs "scale_kernel", "H2D 4 MiB" vs "memcpy HtoD", a
        // 1 MiB vs a 4 MiB D2H, and an API call on each side.
        const std::vector<AlignItem> a{{0, "scale", OpKind::Kernel},
                                       {0, "H2D 4 MiB", OpKind::CopyH2D, 4 << 20},
                                       {0, "D2H 1 MiB", OpKind::CopyD2H, 1 << 20},
                                       {0, "cudaFree", OpKind::Other}};
        const std::vector<AlignItem> b{{0, "memcpy HtoD", OpKind::CopyH2D, 4 << 20},
                                       {0, "scale_kernel", OpKind::Kernel},
                                       {0, "memcpy DtoH", OpKind::CopyD2H, 4 << 20},
                                       {0, "cudaMalloc", OpKind::Other}};
        // By identity: the copy of one kind and size only; kernels, other sizes and API calls never.
        const OpAlignment identity = alignOps(a, b, {false, OrderFallback::InLaneSameIdentity});
        QCOMPARE(identity.a[0].b, -1);
        QCOMPARE(identity.a[1].b, 0);
        QCOMPARE(identity.a[1].method, MatchMethod::ByOrder);
        QCOMPARE(identity.a[2].b, -1);
        QCOMPARE(identity.a[3].b, -1);
        QCOMPARE(identity.partnerOfB, (std::vector<int>{1, -1, -1, -1}));
        // In the lane whatever the kind (the same run seen by two tools): position with position.
        const OpAlignment lane = alignOps(a, b, {false, OrderFallback::InLane});
        for (int i = 0; i < 4; ++i)
            QCOMPARE(lane.a[std::size_t(i)].b, i);
        // None: nothing pairs.
        const OpAlignment none = alignOps(a, b, {false, OrderFallback::None});
        for (const auto &m : none.a)
            QCOMPARE(m.b, -1);
        // Memsets count as sized.
        const OpAlignment memset = alignOps({{0, "memset 1 MiB", OpKind::Memset, 1 << 20}},
                                            {{0, "[CUDA memset]", OpKind::Memset, 1 << 20}}, {});
        QCOMPARE(memset.a[0].b, 0);
    }

    void orderSkipsWhatNamesMatched()
    {
        // B's second op matched A's by name; the order pass pairs the leftovers around it.
        const std::vector<AlignItem> a{{0, "p", OpKind::Kernel}, {0, "same", OpKind::Kernel}, {0, "q", OpKind::Kernel}};
        const std::vector<AlignItem> b{{0, "P", OpKind::Kernel},
                                       {0, "same", OpKind::Kernel},
                                       {0, "Q", OpKind::Kernel},
                                       {0, "extra", OpKind::Kernel}};
        const OpAlignment r = alignOps(a, b, {false, OrderFallback::InLane});
        QCOMPARE(r.a[0].b, 0);
        QCOMPARE(r.a[1].b, 1);
        QCOMPARE(r.a[1].method, MatchMethod::ByName);
        QCOMPARE(r.a[2].b, 2);
        QCOMPARE(r.a[2].method, MatchMethod::ByOrder);
        QCOMPARE(r.partnerOfB[3], -1); // B has one more: unmatched
    }

    void emptySides()
    {
        QVERIFY(alignOps({}, {}, {}).a.empty());
        const OpAlignment r = alignOps({}, {{0, "x", OpKind::Kernel}}, {true, OrderFallback::InLane});
        QCOMPARE(r.partnerOfB, std::vector<int>{-1});
        QCOMPARE(toString(MatchMethod::ByOrder), std::string_view("order"));
    }
};

QTEST_MAIN(TestOpAlignment)
#include "tst_op_alignment.moc"
