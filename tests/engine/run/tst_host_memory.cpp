// Tests of the host memory a run may take (engine/run/host_memory.h): MemAvailable read from
// /proc/meminfo's text, and lowered to what a control group (a container's memory limit) still allows.
#include <QtTest>

#include "engine/run/host_memory.h"

using namespace streamscope::engine;

class TestHostMemory : public QObject {
    Q_OBJECT

private slots:
    void meminfo()
    {
        const char *text = "MemTotal:       131072000 kB\nMemFree:         1000 kB\nMemAvailable:   "
                           "120000000 kB\nBuffers:          20 kB\n";
        QCOMPARE(memAvailableFromMeminfo(text), std::optional<std::uint64_t>(120000000ull * 1024));
        QVERIFY(!memAvailableFromMeminfo("MemTotal: 12 kB\n"));
        QVERIFY(!memAvailableFromMeminfo("MemAvailable: lots kB\n"));
        QVERIFY(!memAvailableFromMeminfo("MemAvailable: 99999999999999999999 kB\n"));
        QVERIFY(!memAvailableFromMeminfo(""));
    }

    void cgroupLimits()
    {
        QCOMPARE(cgroupRoom("1073741824\n", "268435456\n"), std::optional<std::uint64_t>(805306368));
        QCOMPARE(cgroupRoom("100\n", "200\n"), std::optional<std::uint64_t>(0)); // over the limit already
        QVERIFY(!cgroupRoom("max\n", "268435456\n")); // no limit
        QVERIFY(!cgroupRoom("", ""));
        QCOMPARE(cgroupV2Path("0::/user.slice/session-2.scope\n"),
                 std::optional<std::string>("/user.slice/session-2.scope"));
        QCOMPARE(cgroupV2Path("12:memory:/docker/abc\n0::/\n"), std::optional<std::string>("/"));
        QVERIFY(!cgroupV2Path("12:memory:/docker/abc\n"));
    }

    // On this machine: a figure, and where it came from.
    void thisHost()
    {
        const HostMemory m = hostMemoryAvailable();
        QVERIFY2(m.availableBytes > (64ull << 20), m.source.c_str());
        QVERIFY(!m.source.empty());
        qInfo("%llu MiB available: %s", static_cast<unsigned long long>(m.availableBytes >> 20), m.source.c_str());
    }
};

QTEST_APPLESS_MAIN(TestHostMemory)
#include "tst_host_memory.moc"
