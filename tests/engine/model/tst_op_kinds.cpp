// The op-kind table (engine/model/op_kinds.h): every kind has its row, its names read back, and the
// columns give what the program gave per kind before the table (names, labels, calls, classes, colours),
// so that moving the knowledge into one table changed nothing a user sees.
#include <QtTest>

#include <set>

#include "engine/analysis/analysis.h"
#include "engine/analysis/copy_bytes.h"
#include "engine/model/api_names.h"
#include "engine/model/op_colors.h"
#include "engine/model/op_kinds.h"

using namespace streamscope::engine;

namespace {

// The colours as op_colors.h held them in two tables indexed by kind, before the op-kind table; then the
// kinds that came with their rows (collectives: brown, tan on dark; graphs recorded whole: slate).
constexpr std::uint32_t kLight[] = {0xff0072b2, 0xffd55e00, 0xffcc79a7, 0xff56b4e9, 0xff009e73, 0xfff0e442,
                                    0xff7f7f7f, 0xff5f5f5f, 0xff3a3a3a, 0xffe69f00, 0xffa0a0a0, 0xffa0a0a0,
                                    0xff56b4e9, 0xffb4b4b4, 0xff7b3f8c, 0xff8c510a, 0xff5a6478};
constexpr std::uint32_t kDark[] = {0xff3a9be0, 0xffd55e00, 0xffcc79a7, 0xff56b4e9, 0xff14b88a, 0xfff0e442,
                                   0xff9a9a9a, 0xffb0b0b0, 0xffd8d8d8, 0xffe69f00, 0xff808080, 0xff808080,
                                   0xff56b4e9, 0xff707070, 0xffb48ad0, 0xffdfc27d, 0xff9aa5bd};

OpRecord withGpu(OpKind kind)
{
    OpRecord op;
    op.kind = kind;
    op.gpuStartNs = 0;
    op.gpuEndNs = 100;
    return op;
}

struct Sums {
    std::uint64_t h2dBytes = 0, d2hBytes = 0, d2dBytes = 0, p2pBytes = 0;
};

} // namespace

class TestOpKinds : public QObject {
    Q_OBJECT
private slots:
    void everyKindHasItsRow()
    {
        QCOMPARE(kOpKindCount, std::size_t(OpKind::Count));
        std::set<std::string_view> names, labels;
        for (std::size_t i = 0; i < kOpKindCount; ++i) {
            const OpKindInfo &k = opKindInfo(OpKind(i));
            QCOMPARE(int(k.kind), int(i));
            QVERIFY(names.insert(k.name).second);
            QVERIFY(labels.insert(k.label).second);
            QCOMPARE(opKindFromString(toString(k.kind)), std::optional<OpKind>(k.kind));
        }
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, opKindInfo(OpKind::Count));
    }

    void columnsAsBefore()
    {
        QCOMPARE(std::size(kLight), kOpKindCount);
        for (std::size_t i = 0; i < kOpKindCount; ++i) {
            QCOMPARE(opColor(OpKind(i)), kLight[i]);
            QCOMPARE(opColor(OpKind(i), true), kDark[i]);
        }
        QCOMPARE(opKindInfo(OpKind::CopyP2P).label, std::string_view("P2P copy"));
        QCOMPARE(opKindInfo(OpKind::HostSync).label, std::string_view("host sync"));
        QCOMPARE(toString(OpKind::HostSync), std::string_view("sync"));
        // The engine classes engineClassOf() gave by hand: copies by direction, D2D as compute, peer and
        // host copies, prefetches and imported activities on another engine, markers and syncs on none.
        const std::pair<OpKind, EngineClass> classes[] = {
            {OpKind::CopyH2D, EngineClass::H2D},     {OpKind::CopyD2H, EngineClass::D2H},
            {OpKind::CopyD2D, EngineClass::Compute}, {OpKind::Kernel, EngineClass::Compute},
            {OpKind::Memset, EngineClass::Compute},  {OpKind::CopyH2H, EngineClass::Other},
            {OpKind::CopyP2P, EngineClass::Other},   {OpKind::Prefetch, EngineClass::Other},
            {OpKind::Other, EngineClass::Other},     {OpKind::EventRecord, EngineClass::None},
            {OpKind::EventWait, EngineClass::None},  {OpKind::HostSync, EngineClass::None},
            {OpKind::Advise, EngineClass::None},     {OpKind::Attach, EngineClass::None},
            {OpKind::HostWork, EngineClass::None},   {OpKind::Collective, EngineClass::Other},
            {OpKind::Graph, EngineClass::Other}};
        for (const auto &[kind, cls] : classes) {
            QCOMPARE(int(engineClassOf(withGpu(kind))), int(cls));
            OpRecord noGpu;
            noGpu.kind = kind;
            QCOMPARE(int(engineClassOf(noGpu)), int(EngineClass::None));
        }
    }

    void apiNames()
    {
        OpRecord op;
        op.stream = 0;
        const std::tuple<OpKind, CopyApi, const char *> calls[] = {
            {OpKind::CopyH2D, CopyApi::Sync, "cudaMemcpy"},
            {OpKind::CopyD2D, CopyApi::Async, "cudaMemcpyAsync"},
            {OpKind::CopyH2H, CopyApi::None, "cudaMemcpyAsync"},
            {OpKind::CopyP2P, CopyApi::Sync, "cudaMemcpyPeer"},
            {OpKind::CopyP2P, CopyApi::Async, "cudaMemcpyPeerAsync"},
            {OpKind::Kernel, CopyApi::None, "cudaLaunchKernel"},
            {OpKind::Memset, CopyApi::None, "cudaMemsetAsync"},
            {OpKind::HostSync, CopyApi::None, "cudaStreamSynchronize"},
            {OpKind::Attach, CopyApi::None, "cudaStreamAttachMemAsync"},
            {OpKind::HostWork, CopyApi::None, "host work"},
            {OpKind::Collective, CopyApi::None, "NCCL call"},
            {OpKind::Graph, CopyApi::None, "cudaGraphLaunch"},
            {OpKind::Other, CopyApi::None, "CUDA API call"}};
        for (const auto &[kind, api, name] : calls) {
            op.kind = kind;
            op.api = api;
            QCOMPARE(apiNameOf(op), std::string_view(name));
        }
        op.kind = OpKind::HostSync;
        op.stream = -1;
        QCOMPARE(apiNameOf(op), std::string_view("cudaDeviceSynchronize"));
    }

    void bytesGoToTheirDirection()
    {
        Sums s;
        for (std::size_t i = 0; i < kOpKindCount; ++i)
            addCopyBytes(s, OpKind(i), std::uint64_t(1) << i);
        QCOMPARE(s.h2dBytes, std::uint64_t(1) << int(OpKind::CopyH2D));
        QCOMPARE(s.d2hBytes, std::uint64_t(1) << int(OpKind::CopyD2H));
        QCOMPARE(s.d2dBytes, std::uint64_t(1) << int(OpKind::CopyD2D));
        QCOMPARE(s.p2pBytes, std::uint64_t(1) << int(OpKind::CopyP2P));
        addCopyBytes(s, OpKind::CopyH2D, std::numeric_limits<std::uint64_t>::max());
        QCOMPARE(s.h2dBytes, std::numeric_limits<std::uint64_t>::max()); // saturates
        struct Prorated {
            double h2dBytes = 0, d2hBytes = 0, d2dBytes = 0, p2pBytes = 0;
        } p;
        addCopyBytes(p, OpKind::CopyP2P, 0.5);
        addCopyBytes(p, OpKind::Kernel, 7.0);
        QCOMPARE(p.p2pBytes, 0.5);
        QCOMPARE(p.h2dBytes + p.d2hBytes + p.d2dBytes, 0.0);
    }
};

QTEST_APPLESS_MAIN(TestOpKinds)
#include "tst_op_kinds.moc"
