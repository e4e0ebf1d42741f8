// Tests of the PCIe link reader the CUDA runner uses for DeviceInfo: generation from sysfs's link speed
// text, per-lane peaks, and reading a (fake) sysfs tree, including the files being absent.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "engine/run/pcie_link.h"

using namespace streamscope::engine;

class TestPcieLink : public QObject {
    Q_OBJECT

private slots:
    void generation_data()
    {
        QTest::addColumn<QString>("speed");
        QTest::addColumn<int>("generation");
        QTest::newRow("gen1") << "2.5 GT/s PCIe" << 1;
        QTest::newRow("gen2") << "5.0 GT/s PCIe" << 2;
        QTest::newRow("gen3") << "8.0 GT/s PCIe" << 3;
        QTest::newRow("gen4") << "16.0 GT/s PCIe" << 4;
        QTest::newRow("gen5") << "32.0 GT/s PCIe" << 5;
        QTest::newRow("gen6") << "64.0 GT/s PCIe" << 6;
        QTest::newRow("old kernel spelling") << "8 GT/s" << 3;
        QTest::newRow("unknown rate") << "20.0 GT/s PCIe" << 0;
        QTest::newRow("unknown text") << "Unknown" << 0;
        QTest::newRow("empty") << "" << 0;
        QTest::newRow("no unit") << "32.0" << 0;
    }
    void generation()
    {
        QFETCH(QString, speed);
        QFETCH(int, generation);
        QCOMPARE(pcieGenerationFromLinkSpeed(speed.toStdString()), generation);
    }

    // Each generation's per-lane payload rate from the PCI-SIG's figures, computed here rather than
    // copied: the signalling rate in GT/s times the line encoding's efficiency (8b/10b for generations 1
    // and 2, 128b/130b for 3 to 5, FLIT mode's 242 of 256 bytes for 6), over 8 bits; the function's three
    // decimals within half a unit of the last. (The doubling from one generation to the next that this
    // test asserted followed from the constants it had just compared.)
    void lanePeaks()
    {
        const struct {
            int generation;
            double gts;
            double efficiency;
        } expected[] = {{1, 2.5, 8.0 / 10},   {2, 5, 8.0 / 10},     {3, 8, 128.0 / 130},
                        {4, 16, 128.0 / 130}, {5, 32, 128.0 / 130}, {6, 64, 242.0 / 256}};
        for (const auto &e : expected) {
            const double gbs = e.gts * e.efficiency / 8;
            QVERIFY2(std::abs(pcieLaneGBs(e.generation) - gbs) <= 0.0005 + 1e-12,
                     qPrintable(QStringLiteral("generation %1: %2 GB/s, the PCI-SIG's figures give %3")
                                    .arg(e.generation)
                                    .arg(pcieLaneGBs(e.generation))
                                    .arg(gbs)));
        }
        QCOMPARE(pcieLaneGBs(0), 0.0);
        QCOMPARE(pcieLaneGBs(7), 0.0);
    }

    void readsSysfs()
    {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QString dev = root.path() + "/0000:3b:00.0";
        QVERIFY(QDir().mkpath(dev));
        std::ofstream(QString(dev + "/current_link_speed").toStdString()) << "32.0 GT/s PCIe\n";
        std::ofstream(QString(dev + "/current_link_width").toStdString()) << "16\n";

        // cudaDeviceGetPCIBusId writes upper-case hex; some tools an 8-digit domain.
        for (const char *id : {"0000:3B:00.0", "00000000:3B:00.0", "0000:3b:00.0"}) {
            const PcieLink link = readPcieLink(id, root.path().toStdString());
            QCOMPARE(link.generation, 5);
            QCOMPARE(link.width, 16);
            QCOMPARE(link.peakGBs, 3.938 * 16);
        }
    }

    void missingSysfsGivesZeros()
    {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const PcieLink link = readPcieLink("0000:01:00.0", root.path().toStdString());
        QCOMPARE(link.generation, 0);
        QCOMPARE(link.width, 0);
        QCOMPARE(link.peakGBs, 0.0);
    }
};

QTEST_GUILESS_MAIN(TestPcieLink)
#include "tst_pcie_link.moc"
