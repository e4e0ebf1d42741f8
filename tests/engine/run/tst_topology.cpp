// Tests of the topology (engine/run/topology.h): NVLink rates by NVML version, what joins two GPUs (an
// NVLink bridge, an NVSwitch fabric, PCIe, unknown), and the table `streamscope-cli devices` prints, all
// from hand-made devices. Then the query itself: on the GPU host it must list every device and every
// ordered pair, agreeing with cudaDeviceCanAccessPeer and with the driver's own tool (nvidia-smi: bus ids,
// names, NVLink counts, PCIe), each peak within the published rates, and print the table for the record;
// without a GPU it skips, naming why, after checking that the refusal is the plain no-GPU error.
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

#include <map>
#include <string>
#include <vector>

#include "engine/model/errors.h"
#include "engine/run/runner.h"
#include "engine/run/topology.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope::engine;

namespace {

DeviceInfo h200(int index, const std::string &busId)
{
    DeviceInfo d;
    d.index = index;
    d.name = "NVIDIA H200";
    d.ccMajor = 9;
    d.ccMinor = 0;
    d.smCount = 132;
    d.asyncEngineCount = 3;
    d.totalMemBytes = 150'109'880'320ull;
    d.pciBusId = busId;
    d.pcieGeneration = 5;
    d.pcieWidth = 16;
    d.linkPeakGBs = 63.008;
    d.driverVersion = 13000;
    d.runtimeVersion = 13000;
    return d;
}

// `count` active links of NVLink 4.0 (nvmlNvlinkVersion_t 6) to `remote`.
DeviceNvLinks links(int count, NvLinkPort::Remote remote, const std::string &remoteBusId = "00000000:05:00.0",
                    unsigned version = 6)
{
    DeviceNvLinks l;
    l.known = true;
    for (int i = 0; i < count; ++i)
        l.active.push_back({version, remote, remoteBusId});
    return l;
}

PeerLink link(int src, int dst, LinkType type, int count, double peak, bool access = true, int rank = 0)
{
    return streamscope::test::makePeerLink(src, dst, type, count, peak, access, rank);
}

// The GPU-to-GPU cells of `nvidia-smi topo -m` ("X", "NV18", "SYS", "PIX", ...), by NVML's GPU indices:
// an independent reading of how the GPUs are joined (the driver's tool, not StreamScope's NVML calls).
// Empty when the text has no GPU matrix.
std::vector<std::vector<std::string>> topoMatrix(QString text)
{
    text.remove(QRegularExpression(QStringLiteral("\\x1b\\[[0-9;]*m"))); // its underlined header
    static const QRegularExpression gpu(QStringLiteral("^GPU(\\d+)$"));
    std::vector<std::vector<std::string>> cells;
    std::size_t columns = 0;
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        const QStringList tokens = line.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
        if (tokens.isEmpty())
            continue;
        if (columns == 0) {
            while (columns < std::size_t(tokens.size())
                   && tokens.at(qsizetype(columns)) == QStringLiteral("GPU%1").arg(columns))
                ++columns;
            continue;
        }
        const QRegularExpressionMatch m = gpu.match(tokens.first());
        if (!m.hasMatch() || m.captured(1).toULongLong() != cells.size() || std::size_t(tokens.size()) < columns + 1)
            continue;
        std::vector<std::string> row;
        for (std::size_t c = 0; c < columns; ++c)
            row.push_back(tokens.at(qsizetype(c + 1)).toStdString());
        cells.push_back(std::move(row));
    }
    if (cells.size() != columns)
        return {};
    return cells;
}

// A cell as the link it names: NVLink with its count ("NV18"), PCIe (PIX, PXB, PHB, NODE, SYS), or
// nothing ("X", anything else).
std::pair<LinkType, int> topoLink(const std::string &cell)
{
    static const QRegularExpression nv(QStringLiteral("^NV(\\d+)$"));
    const QRegularExpressionMatch m = nv.match(QString::fromStdString(cell));
    if (m.hasMatch())
        return {LinkType::NvLink, m.captured(1).toInt()};
    for (const char *pcie : {"PIX", "PXB", "PHB", "NODE", "SYS"})
        if (cell == pcie)
            return {LinkType::Pcie, 0};
    return {LinkType::Unknown, 0};
}

// Runs nvidia-smi with `arguments`; its standard output, or empty with `why` set.
QString nvidiaSmi(const QStringList &arguments, QString *why)
{
    QProcess p;
    p.start(QStringLiteral("nvidia-smi"), arguments);
    if (!p.waitForStarted(10'000)) {
        *why = QStringLiteral("nvidia-smi could not be started: ") + p.errorString();
        return {};
    }
    if (!p.waitForFinished(60'000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *why = QStringLiteral("nvidia-smi %1 failed: %2")
                   .arg(arguments.join(QLatin1Char(' ')), QString::fromUtf8(p.readAllStandardError()).trimmed());
        return {};
    }
    return QString::fromUtf8(p.readAllStandardOutput());
}

// The raw signalling rate of one PCIe lane in Gb/s (GT/s) by generation: the PCI-SIG's figures, from
// which the payload peak loses only its line encoding (8b/10b: 20 %, 128b/130b: 1.5 %, FLIT: ~5.5 %).
double pcieRawGTs(int generation)
{
    switch (generation) {
    case 1: return 2.5;
    case 2: return 5;
    case 3: return 8;
    case 4: return 16;
    case 5: return 32;
    case 6: return 64;
    default: return 0;
    }
}

} // namespace

class TestTopology : public QObject {
    Q_OBJECT

private slots:
    void nvlinkRates_data()
    {
        QTest::addColumn<unsigned>("version");
        QTest::addColumn<double>("gbs");
        QTest::addColumn<QString>("name");
        QTest::newRow("invalid") << 0u << 0.0 << "";
        QTest::newRow("1.0 P100") << 1u << 20.0 << "1.0";
        QTest::newRow("2.0 V100") << 2u << 25.0 << "2.0";
        QTest::newRow("3.1 A100 answers 5") << 5u << 25.0 << "3.1";
        QTest::newRow("4.0 H100/H200") << 6u << 25.0 << "4.0";
        QTest::newRow("5.0 B200") << 7u << 50.0 << "5.0";
        QTest::newRow("6.0 rate unpublished") << 8u << 0.0 << "6.0";
        QTest::newRow("beyond the enum") << 99u << 0.0 << "";
    }
    void nvlinkRates()
    {
        QFETCH(unsigned, version);
        QFETCH(double, gbs);
        QFETCH(QString, name);
        QCOMPARE(nvlinkLinkGBs(version), gbs);
        QCOMPARE(QString::fromStdString(nvlinkVersionName(version)), name);
    }

    // A GEMM's dense peak at the reported clock: an H100 SXM (132 SMs, 1,980 MHz) does 1,071 bf16 TFLOP/s,
    // as NVIDIA's figure of 989 at its 1,830 MHz boost scales; an A100 (108 SMs, 1,410 MHz) 312.
    void gemmPeaks()
    {
        DeviceInfo h100;
        h100.ccMajor = 9;
        h100.smCount = 132;
        h100.smClockKHz = 1'980'000;
        QCOMPARE(qRound(gemmPeakTflops(h100, GemmDtype::Bf16)), 1071);
        QCOMPARE(gemmPeakTflops(h100, GemmDtype::Fp16), gemmPeakTflops(h100, GemmDtype::Bf16));
        QCOMPARE(gemmPeakTflops(h100, GemmDtype::Tf32) * 2, gemmPeakTflops(h100, GemmDtype::Bf16));
        QCOMPARE(gemmPeakTflops(h100, GemmDtype::Fp8), 2 * gemmPeakTflops(h100, GemmDtype::Bf16));
        QCOMPARE(qRound(gemmPeakTflops(h100, GemmDtype::Fp32)), 67);
        DeviceInfo a100;
        a100.ccMajor = 8;
        a100.smCount = 108;
        a100.smClockKHz = 1'410'000;
        QCOMPARE(qRound(gemmPeakTflops(a100, GemmDtype::Bf16)), 312);
        QCOMPARE(gemmPeakTflops(a100, GemmDtype::Fp8), 0.0); // Ampere has no fp8
        DeviceInfo turing = a100;
        turing.ccMajor = 7;
        turing.ccMinor = 5;
        QCOMPARE(gemmPeakTflops(turing, GemmDtype::Bf16), 0.0); // not known
    }

    void busIds_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<bool>("same");
        QTest::newRow("CUDA vs NVML") << "0000:3B:00.0"
                                      << "00000000:3b:00.0" << true;
        QTest::newRow("same text") << "0000:05:00.0"
                                   << "0000:05:00.0" << true;
        QTest::newRow("other bus") << "0000:05:00.0"
                                   << "0000:06:00.0" << false;
        QTest::newRow("other function") << "0000:05:00.0"
                                        << "0000:05:00.1" << false;
        QTest::newRow("other domain") << "0001:05:00.0"
                                      << "0000:05:00.0" << false;
        QTest::newRow("empty") << ""
                               << "" << false;
        QTest::newRow("garbage") << "NVSwitch"
                                 << "NVSwitch" << false;
        QTest::newRow("trailing text") << "0000:05:00.0x"
                                       << "0000:05:00.0" << false;
    }
    void busIds()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(bool, same);
        QCOMPARE(sameBusId(a.toStdString(), b.toStdString()), same);
        QCOMPARE(sameBusId(b.toStdString(), a.toStdString()), same);
    }

    // Two GPUs bridged to each other: the links whose far end is the other GPU count, nothing else.
    void directBridge()
    {
        const DeviceInfo a = h200(0, "0000:05:00.0"), b = h200(1, "0000:06:00.0");
        DeviceNvLinks fromA = links(4, NvLinkPort::Remote::Gpu, "00000000:06:00.0");
        fromA.active.push_back({6, NvLinkPort::Remote::Gpu, "00000000:07:00.0"}); // to a third GPU
        const DeviceNvLinks fromB = links(4, NvLinkPort::Remote::Gpu, "00000000:05:00.0");
        const LinkFacts f = linkBetween(a, fromA, b, fromB, false);
        QCOMPARE(int(f.type), int(LinkType::NvLink));
        QCOMPARE(f.nvlinkCount, 4);
        QCOMPARE(f.peakGBps, 100.0);
    }

    // HGX H100/H200: 18 links each into the NVSwitches; NVML says NVLink P2P works: 18 x 25 = 450 GB/s.
    void nvswitchFabric()
    {
        const DeviceInfo a = h200(0, "0000:05:00.0"), b = h200(1, "0000:06:00.0");
        const DeviceNvLinks sw = links(18, NvLinkPort::Remote::Switch, "00000000:a1:00.0");
        LinkFacts f = linkBetween(a, sw, b, sw, true);
        QCOMPARE(int(f.type), int(LinkType::NvLink));
        QCOMPARE(f.nvlinkCount, 18);
        QCOMPARE(f.peakGBps, 450.0);
        // A side with links down: the pair gets what the fewer links carry.
        f = linkBetween(a, sw, b, links(12, NvLinkPort::Remote::Switch), true);
        QCOMPARE(f.nvlinkCount, 12);
        QCOMPARE(f.peakGBps, 300.0);
        // Switch links but NVML says no NVLink P2P between these two (another partition): PCIe.
        f = linkBetween(a, sw, b, sw, false);
        QCOMPARE(int(f.type), int(LinkType::Pcie));
        QCOMPARE(f.nvlinkCount, 0);
        // Switch links and NVML could not say: unknown, not guessed.
        f = linkBetween(a, sw, b, sw, std::nullopt);
        QCOMPARE(int(f.type), int(LinkType::Unknown));
        QCOMPARE(f.peakGBps, 0.0);
    }

    // The NVML query itself, through a fake libnvidia-ml.so.1 (tests/engine/run/fake_nvml.c): each
    // topology, and each failure named with the call and its error.
    void nvmlThroughFakeLibrary_data()
    {
        QTest::addColumn<QByteArray>("mode");
        QTest::addColumn<int>("type");
        QTest::addColumn<int>("count");
        QTest::addColumn<double>("peak");
        QTest::addColumn<QString>("note");
        QTest::newRow("HGX: NVSwitch") << QByteArray("switch") << int(LinkType::NvLink) << 18 << 450.0 << "";
        QTest::newRow("NVLink bridge") << QByteArray("bridge") << int(LinkType::NvLink) << 4 << 100.0 << "";
        QTest::newRow("PCIe only") << QByteArray("pcie") << int(LinkType::Pcie) << 0 << 63.008 << "";
        QTest::newRow("init fails") << QByteArray("initfail") << int(LinkType::Unknown) << 0 << 0.0
                                    << "NVML could not be initialised, so the link types are unknown (nvmlInit_v2: "
                                       "Driver Not Loaded (NVML code 9))";
        QTest::newRow("no handle") << QByteArray("nohandle") << int(LinkType::Unknown) << 0 << 0.0
                                   << "device 1: nvmlDeviceGetHandleByPciBusId_v2(0000:06:00.0): Not Found (NVML "
                                      "code 6)";
        QTest::newRow("P2P status fails") << QByteArray("p2perror") << int(LinkType::Unknown) << 0 << 0.0
                                          << "device 0 to device 1: nvmlDeviceGetP2PStatus(NVLINK): Unknown Error "
                                             "(NVML code 999); device 1 to device 0: nvmlDeviceGetP2PStatus(NVLINK): "
                                             "Unknown Error (NVML code 999)";
    }
    void nvmlThroughFakeLibrary()
    {
#ifndef STREAMSCOPE_FAKE_NVML
        QSKIP("this build has no fake NVML library (tests/CMakeLists.txt builds it with tst_topology)");
#else
        QFETCH(QByteArray, mode);
        QFETCH(int, type);
        QFETCH(int, count);
        QFETCH(double, peak);
        QFETCH(QString, note);
        qputenv("STREAMSCOPE_FAKE_NVML", mode);
        const std::vector<DeviceInfo> devices = {h200(0, "0000:05:00.0"), h200(1, "0000:06:00.0")};
        std::string why;
        const std::vector<LinkFacts> facts = nvmlLinkFacts(devices, {{0, 1}, {1, 0}}, &why, STREAMSCOPE_FAKE_NVML);
        qunsetenv("STREAMSCOPE_FAKE_NVML");
        QCOMPARE(QString::fromStdString(why), note);
        QCOMPARE(facts.size(), std::size_t(2));
        for (const LinkFacts &f : facts) {
            QCOMPARE(int(f.type), type);
            QCOMPARE(f.nvlinkCount, count);
            QCOMPARE(f.peakGBps, peak);
        }
#endif
    }

    // No NVML at all (no driver): every pair unknown, and the note says why; no pairs: NVML is not opened.
    void nvmlMissing()
    {
        const std::vector<DeviceInfo> devices = {h200(0, "0000:05:00.0"), h200(1, "0000:06:00.0")};
        std::string why;
        const auto facts = nvmlLinkFacts(devices, {{0, 1}, {1, 0}}, &why, "/nonexistent/libnvidia-ml.so.1");
        QCOMPARE(facts.size(), std::size_t(2));
        for (const LinkFacts &f : facts)
            QCOMPARE(int(f.type), int(LinkType::Unknown));
        QVERIFY2(why.find("NVML is not available, so the link types are unknown (dlopen: ") == 0, why.c_str());
        QVERIFY2(why.find("/nonexistent/libnvidia-ml.so.1") != std::string::npos, why.c_str());
        why.clear();
        QVERIFY(nvmlLinkFacts(devices, {}, &why, "/nonexistent/libnvidia-ml.so.1").empty());
        QVERIFY(why.empty());
    }

    // No NVLink: PCIe at the slower of the two host links; unknown PCIe gives no peak.
    void pcieOnly()
    {
        DeviceInfo a = h200(0, "0000:05:00.0"), b = h200(1, "0000:06:00.0");
        b.linkPeakGBs = 31.504; // gen4 x16
        const DeviceNvLinks none = links(0, NvLinkPort::Remote::Gpu);
        LinkFacts f = linkBetween(a, none, b, none, false);
        QCOMPARE(int(f.type), int(LinkType::Pcie));
        QCOMPARE(f.peakGBps, 31.504);
        b.linkPeakGBs = 0;
        f = linkBetween(a, none, b, none, false);
        QCOMPARE(int(f.type), int(LinkType::Pcie));
        QCOMPARE(f.peakGBps, 0.0);
    }

    // NVML could not say for one side: the type is unknown, not guessed; a link of an unknown NVLink
    // version gives the count without a peak.
    void unknownStaysUnknown()
    {
        const DeviceInfo a = h200(0, "0000:05:00.0"), b = h200(1, "0000:06:00.0");
        const LinkFacts f = linkBetween(a, links(18, NvLinkPort::Remote::Switch), b, DeviceNvLinks{}, true);
        QCOMPARE(int(f.type), int(LinkType::Unknown));
        QCOMPARE(f.nvlinkCount, 0);
        QCOMPARE(f.peakGBps, 0.0);
        const DeviceNvLinks future = links(2, NvLinkPort::Remote::Gpu, "00000000:06:00.0", 8);
        const LinkFacts g = linkBetween(a, future, b, links(0, NvLinkPort::Remote::Gpu), false);
        QCOMPARE(int(g.type), int(LinkType::NvLink));
        QCOMPARE(g.nvlinkCount, 2);
        QCOMPARE(g.peakGBps, 0.0);
    }

    void cells_data()
    {
        QTest::addColumn<int>("type");
        QTest::addColumn<bool>("access");
        QTest::addColumn<bool>("enabled");
        QTest::addColumn<int>("rank");
        QTest::addColumn<int>("count");
        QTest::addColumn<double>("peak");
        QTest::addColumn<QString>("cell");
        QTest::newRow("nvlink") << int(LinkType::NvLink) << true << false << 0 << 18 << 450.0
                                << "yes, NVLink x18, rank 0, 450 GB/s";
        QTest::newRow("enabled") << int(LinkType::NvLink) << true << true << 0 << 18 << 450.0
                                 << "yes (enabled), NVLink x18, rank 0, 450 GB/s";
        QTest::newRow("pcie") << int(LinkType::Pcie) << false << false << 1 << 0 << 63.008
                              << "no, PCIe, rank 1, 63 GB/s";
        QTest::newRow("unknown") << int(LinkType::Unknown) << true << false << 0 << 0 << 0.0
                                 << "yes, link unknown, rank 0";
        QTest::newRow("no rank recorded") << int(LinkType::Pcie) << true << false << -1 << 0 << 0.0 << "yes, PCIe";
    }
    void cells()
    {
        QFETCH(int, type);
        QFETCH(bool, access);
        QFETCH(bool, enabled);
        QFETCH(int, rank);
        QFETCH(int, count);
        QFETCH(double, peak);
        QFETCH(QString, cell);
        PeerLink l = link(0, 1, LinkType(type), count, peak, access, rank);
        l.accessEnabled = enabled;
        QCOMPARE(QString::fromStdString(peerLinkCell(l)), cell);
    }

    // The whole table of a two-GPU HGX H200 as `streamscope-cli devices` prints it.
    void table()
    {
        Topology t;
        t.devices = {h200(0, "0000:05:00.0"), h200(1, "0000:06:00.0")};
        t.pairs = {{link(0, 1, LinkType::NvLink, 18, 450), true, true},
                   {link(1, 0, LinkType::NvLink, 18, 450), false, true}};
        const std::string expected =
            "#   name                      cc    SMs   copy eng  memory      PCIe                      bus id\n"
            "0   NVIDIA H200               9.0   132   3         140 GiB     gen5 x16 (63 GB/s)        0000:05:00.0\n"
            "1   NVIDIA H200               9.0   132   3         140 GiB     gen5 x16 (63 GB/s)        0000:06:00.0\n"
            "driver 13.0, runtime 13.0\n"
            "\n"
            "peer links: row copies to column; peer access, link, performance rank (0 is the best), peak per "
            "direction\n"
            "         to 0"
            + std::string(41, ' ')
            + "to 1\n"
              "from 0   -"
            + std::string(44, ' ')
            + "yes, NVLink x18, rank 0, 450 GB/s, atomics\n"
              "from 1   yes, NVLink x18, rank 0, 450 GB/s"
            + std::string(12, ' ') + "-\n";
        // Line by line, so that a failure shows the line that differs.
        const QStringList actual = QString::fromStdString(topologyTable(t)).split('\n');
        const QStringList wanted = QString::fromStdString(expected).split('\n');
        for (qsizetype i = 0; i < std::min(actual.size(), wanted.size()); ++i)
            QCOMPARE(actual[i], wanted[i]);
        QCOMPARE(actual.size(), wanted.size());

        // The trace's header shows the same matrix, without the atomics only `devices` knows.
        const std::string matrix = peerLinkMatrix(t.devices, t.peerLinks());
        QVERIFY(matrix.find("from 0   -") != std::string::npos);
        QVERIFY(matrix.find("atomics") == std::string::npos);
        QCOMPARE(std::count(matrix.begin(), matrix.end(), '\n'), 4);
    }

    // One device: no matrix, said plainly; a link note (NVML absent) is printed under the table.
    void tableEdges()
    {
        Topology one;
        one.devices = {h200(0, "0000:05:00.0")};
        const std::string text = topologyTable(one);
        QVERIFY2(text.find("one device: no peer links") != std::string::npos, text.c_str());
        QVERIFY(text.find("peer links:") == std::string::npos);
        QVERIFY(peerLinkMatrix(one.devices, {}).empty());

        Topology noNvml;
        noNvml.devices = {h200(0, "0000:05:00.0"), h200(1, "0000:06:00.0")};
        noNvml.devices[1].pcieGeneration = 0; // sysfs said nothing
        noNvml.pairs = {{link(0, 1, LinkType::Unknown, 0, 0), false, true},
                        {link(1, 0, LinkType::Unknown, 0, 0), false, true}};
        noNvml.linkNote = "NVML is not available, so the link types are unknown (dlopen libnvidia-ml.so.1: x)";
        const std::string t2 = topologyTable(noNvml);
        QVERIFY2(t2.find("yes, link unknown, rank 0") != std::string::npos, t2.c_str());
        QVERIFY2(t2.find("\nNVML is not available") != std::string::npos, t2.c_str());
        QVERIFY2(t2.find("  ?  ") != std::string::npos, t2.c_str()); // the PCIe column of device 1

        // A trace that recorded links of devices it does not list still gets every row.
        const std::string m = peerLinkMatrix({}, {link(2, 3, LinkType::Pcie, 0, 0)});
        QVERIFY2(m.find("from 2") != std::string::npos && m.find("to 3") != std::string::npos, m.c_str());
        QVERIFY2(m.find("from 3   ?") != std::string::npos, m.c_str()); // 3 -> 2 was not recorded
    }

    // The reading of `nvidia-smi topo -m` that queryOnThisMachine compares with, on the two layouts the
    // GPU hosts have (two GPUs in an NVSwitch fabric with a NIC; one GPU), with the escape codes nvidia-smi
    // underlines its header with.
    void nvidiaSmiMatrixIsRead()
    {
        const QString two = QStringLiteral(
            "\t\x1b[4mGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n"
            "GPU0\t X \tNV18\tSYS\t0-47\t0\t\tN/A\n"
            "GPU1\tNV18\t X \tPHB\t0-47\t0\t\tN/A\n"
            "NIC0\tSYS\tPHB\t X \t\t\t\t\n\nLegend:\n\n  X    = Self\n"
            "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes\n"
            "  NV#  = Connection traversing a bonded set of # NVLinks\n\nNIC Legend:\n\n  NIC0: mlx5_0\n");
        const auto m2 = topoMatrix(two);
        QCOMPARE(m2.size(), std::size_t(2));
        QCOMPARE(m2[0], (std::vector<std::string>{"X", "NV18"}));
        QCOMPARE(m2[1], (std::vector<std::string>{"NV18", "X"}));
        QVERIFY(topoLink(m2[0][1]) == (std::pair<LinkType, int>{LinkType::NvLink, 18}));
        QVERIFY(topoLink("SYS") == (std::pair<LinkType, int>{LinkType::Pcie, 0}));
        QVERIFY(topoLink("PIX") == (std::pair<LinkType, int>{LinkType::Pcie, 0}));
        QVERIFY(topoLink("X").first == LinkType::Unknown);
        const auto m1 = topoMatrix(QStringLiteral("\tGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
                                                  "GPU0\t X \t0-15\t0\t\tN/A\n\nLegend:\n\n  X    = Self\n"));
        QCOMPARE(m1.size(), std::size_t(1));
        QCOMPARE(m1[0], std::vector<std::string>{"X"});
        QVERIFY(topoMatrix(QStringLiteral("No devices were found\n")).empty());
        // A row missing: not a matrix.
        QVERIFY(topoMatrix(QStringLiteral("\tGPU0\tGPU1\nGPU0\t X \tNV4\n")).empty());
    }

    // On the GPU host: the query lists every device and every ordered pair, each device and each pair as
    // the driver's own tool (nvidia-smi) sees it: the same bus ids and names, NVLink with the same link
    // count where `nvidia-smi topo -m` says NV#, PCIe where it names a PCIe path; each peak within what
    // the link's published rates allow. Prints the table (qInfo) for the record. Without a GPU: the no-GPU
    // error, then skip.
    void queryOnThisMachine()
    {
        Topology t;
        try {
            t = queryTopology();
        } catch (const Error &e) {
            QCOMPARE(e.kind(), ErrorKind::NoGpu);
            if (!runnerHasCuda())
                QVERIFY2(std::string(e.what()).find("no CUDA") != std::string::npos, e.what());
            QSKIP(e.what());
        }
        qInfo().noquote() << "\n" << QString::fromStdString(topologyTable(t));
        const std::size_t n = t.devices.size();
        QVERIFY(n >= 1);
        QCOMPARE(t.pairs.size(), n * (n - 1));
        for (std::size_t i = 0; i < n; ++i) {
            const DeviceInfo &d = t.devices[i];
            QCOMPARE(d.index, int(i));
            QVERIFY(!d.name.empty());
            QVERIFY(!d.pciBusId.empty());
            // The host link's peak: the lanes' raw rate less the line encoding only (PCI-SIG's rates).
            if (d.pcieGeneration > 0) {
                const double raw = pcieRawGTs(d.pcieGeneration) * d.pcieWidth / 8;
                QVERIFY2(d.linkPeakGBs >= 0.75 * raw && d.linkPeakGBs <= raw,
                         qPrintable(QStringLiteral("gen %1 x%2: %3 GB/s, raw %4 GB/s")
                                        .arg(d.pcieGeneration)
                                        .arg(d.pcieWidth)
                                        .arg(d.linkPeakGBs)
                                        .arg(raw)));
            } else {
                QCOMPARE(d.linkPeakGBs, 0.0);
            }
        }
        for (const PeerPair &p : t.pairs) {
            QVERIFY(p.link.src != p.link.dst);
            QVERIFY(p.link.src >= 0 && p.link.src < int(n) && p.link.dst >= 0 && p.link.dst < int(n));
            const QByteArray where = QByteArray::number(p.link.src) + " -> " + QByteArray::number(p.link.dst);
            QVERIFY2(p.link.accessSupported == p.canAccessPeer, where.constData());
            QVERIFY2(p.link.performanceRank >= 0, where.constData());
            if (p.link.link == LinkType::NvLink) {
                // NVIDIA's published rates: 20 (NVLink 1) to 50 GB/s (NVLink 5) per link and direction.
                QVERIFY2(p.link.nvlinkCount > 0, where.constData());
                QVERIFY2(p.link.peakGBps >= 20.0 * p.link.nvlinkCount && p.link.peakGBps <= 50.0 * p.link.nvlinkCount,
                         qPrintable(where + ": " + QByteArray::number(p.link.peakGBps) + " GB/s"));
                QVERIFY2(p.link.accessSupported, where.constData()); // NVLink carries peer access
            }
            if (p.link.link == LinkType::Pcie) {
                const DeviceInfo &a = t.devices[std::size_t(p.link.src)], &b = t.devices[std::size_t(p.link.dst)];
                const double slower =
                    a.linkPeakGBs > 0 && b.linkPeakGBs > 0 ? std::min(a.linkPeakGBs, b.linkPeakGBs) : 0;
                QCOMPARE(p.link.peakGBps, slower);
            }
            if (p.link.link == LinkType::Unknown)
                QVERIFY2(!t.linkNote.empty(), "an unknown link type must say why");
        }
        // Each ordered pair once.
        for (std::size_t i = 0; i < t.pairs.size(); ++i)
            for (std::size_t j = i + 1; j < t.pairs.size(); ++j)
                QVERIFY(t.pairs[i].link.src != t.pairs[j].link.src || t.pairs[i].link.dst != t.pairs[j].link.dst);
        // The runner's call (what every trace records) gives the same links.
        const std::vector<PeerLink> links = queryPeerLinks(listDevices());
        QCOMPARE(links.size(), t.pairs.size());
        for (std::size_t i = 0; i < links.size(); ++i) {
            QCOMPARE(links[i].src, t.pairs[i].link.src);
            QCOMPARE(links[i].dst, t.pairs[i].link.dst);
            QCOMPARE(int(links[i].link), int(t.pairs[i].link.link));
            QCOMPARE(links[i].accessSupported, t.pairs[i].link.accessSupported);
        }

        // The driver's own tool, independently. nvidia-smi numbers the GPUs in PCI order and ignores
        // CUDA_VISIBLE_DEVICES, so devices are matched by bus id.
        QString why;
        const QString list = nvidiaSmi(
            {QStringLiteral("--query-gpu=index,pci.bus_id,name"), QStringLiteral("--format=csv,noheader")}, &why);
        const QString topo =
            list.isEmpty() ? QString() : nvidiaSmi({QStringLiteral("topo"), QStringLiteral("-m")}, &why);
        if (list.isEmpty() || topo.isEmpty())
            QSKIP(qPrintable(QStringLiteral("every check of the query itself passed; it could not be compared with "
                                            "the driver's view: %1")
                                 .arg(why)));
        std::map<int, int> nvmlOf; // CUDA index -> nvidia-smi index
        int smiCount = 0;
        for (const QString &line : list.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            const QStringList f = line.split(QLatin1Char(','));
            QVERIFY2(f.size() >= 3, qPrintable(line));
            ++smiCount;
            for (const DeviceInfo &d : t.devices)
                if (sameBusId(d.pciBusId, f.at(1).trimmed().toStdString())) {
                    QVERIFY2(!nvmlOf.count(d.index), qPrintable(line));
                    nvmlOf[d.index] = f.at(0).trimmed().toInt();
                    QCOMPARE(QString::fromStdString(d.name), f.mid(2).join(QLatin1Char(',')).trimmed());
                }
        }
        QVERIFY2(nvmlOf.size() == n,
                 qPrintable(QStringLiteral("%1 of the %2 CUDA devices are in nvidia-smi's list:\n%3")
                                .arg(nvmlOf.size())
                                .arg(n)
                                .arg(list)));
        if (qEnvironmentVariableIsEmpty("CUDA_VISIBLE_DEVICES"))
            QCOMPARE(smiCount, int(n));
        const auto matrix = topoMatrix(topo);
        QVERIFY2(matrix.size() == std::size_t(smiCount), qPrintable(topo));
        for (const PeerPair &p : t.pairs) {
            const std::string &cell =
                matrix.at(std::size_t(nvmlOf.at(p.link.src))).at(std::size_t(nvmlOf.at(p.link.dst)));
            const auto [type, count] = topoLink(cell);
            const QByteArray where = QByteArray::number(p.link.src) + " -> " + QByteArray::number(p.link.dst) + ": "
                                     + QByteArray::fromStdString(peerLinkCell(p.link)) + ", nvidia-smi says "
                                     + QByteArray::fromStdString(cell) + "; " + QByteArray::fromStdString(t.linkNote);
            QVERIFY2(type != LinkType::Unknown, where.constData());
            QVERIFY2(p.link.link == type, where.constData());
            if (type == LinkType::NvLink)
                QVERIFY2(p.link.nvlinkCount == count, where.constData());
        }
    }
};

QTEST_APPLESS_MAIN(TestTopology)
#include "tst_topology.moc"
