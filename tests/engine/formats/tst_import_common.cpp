// Tests of engine/formats/import_common.h: the lanes of an imported trace in (device, stream) order,
// the returned index of each key, the naming rule ("stream N", a base name, "GPU d " with several
// devices), appending after existing streams, and the order key of imported ops.
#include <QtTest>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/formats/import_common.h"

using namespace streamscope::engine;

namespace {

QStringList namesOf(const Trace &t)
{
    QStringList names;
    for (const auto &s : t.streams)
        names << QString::fromStdString(s.name);
    return names;
}

QList<int> toList(const std::vector<int> &v)
{
    return QList<int>(v.begin(), v.end());
}

} // namespace

class TestImportCommon : public QObject {
    Q_OBJECT

private slots:
    void sortedByDeviceThenStream()
    {
        Trace t;
        // As an importer meets them: out of order, on one device.
        const std::vector<ImportedStream> keys = {{0, 13}, {0, 7}, {0, 21}, {0, 14}};
        const std::vector<int> index = addStreamsInOrder(t, keys);
        QCOMPARE(toList(index), QList<int>({1, 0, 3, 2}));
        QCOMPARE(namesOf(t), QStringList({"stream 7", "stream 13", "stream 14", "stream 21"}));
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const StreamInfo &s = t.streams[std::size_t(index[i])];
            QCOMPARE(qint64(s.nativeId), qint64(keys[i].second));
            QCOMPARE(s.device, int(keys[i].first));
            // Importers know nothing else about the stream: the rest keeps its defaults.
            QCOMPARE(s.priority, 0);
            QVERIFY(!s.nonBlocking);
            QVERIFY(!s.isDefault);
        }
    }

    // Stream ids compare as numbers, not as text ("stream 10" after "stream 9"), negative ids first.
    void numericOrder()
    {
        Trace t;
        const auto index = addStreamsInOrder(t, {{0, 10}, {0, 9}, {0, -1}, {0, 100}});
        QCOMPARE(namesOf(t), QStringList({"stream -1", "stream 9", "stream 10", "stream 100"}));
        QCOMPARE(toList(index), QList<int>({2, 1, 0, 3}));
    }

    void severalDevicesArePrefixed()
    {
        Trace t;
        const std::vector<ImportedStream> keys = {{1, 7}, {0, 13}, {1, 3}, {0, 7}};
        const auto index = addStreamsInOrder(t, keys);
        QCOMPARE(namesOf(t), QStringList({"GPU 0 stream 7", "GPU 0 stream 13", "GPU 1 stream 3", "GPU 1 stream 7"}));
        QCOMPARE(toList(index), QList<int>({3, 1, 2, 0}));
        QCOMPARE(t.streams[0].device, 0);
        QCOMPARE(t.streams[3].device, 1);
        // The same stream id on two devices is two lanes.
        QCOMPARE(qint64(t.streams[0].nativeId), qint64(7));
        QCOMPARE(qint64(t.streams[3].nativeId), qint64(7));
    }

    // One device, whatever its number, is not prefixed.
    void oneDeviceIsNotPrefixed()
    {
        Trace t;
        addStreamsInOrder(t, {{3, 2}, {3, 1}});
        QCOMPARE(namesOf(t), QStringList({"stream 1", "stream 2"}));
        QCOMPARE(t.streams[0].device, 3);
    }

    void baseNames()
    {
        Trace t;
        std::vector<std::pair<qint64, qint64>> asked;
        const auto index = addStreamsInOrder(
            t, {{1, 20}, {0, 7}, {1, 5}}, [&](std::int64_t device, std::int64_t stream) -> std::string {
                asked.emplace_back(device, stream);
                if (stream == 5)
                    return {}; // none: the default name
                return "compute " + std::to_string(device) + "." + std::to_string(stream);
            });
        QCOMPARE(namesOf(t), QStringList({"GPU 0 compute 0.7", "GPU 1 stream 5", "GPU 1 compute 1.20"}));
        QCOMPARE(toList(index), QList<int>({2, 0, 1}));
        // Asked once per key with the key's own device and stream.
        QCOMPARE(int(asked.size()), 3);
        std::sort(asked.begin(), asked.end());
        QVERIFY((asked == std::vector<std::pair<qint64, qint64>>{{0, 7}, {1, 5}, {1, 20}}));
    }

    void baseNameOnOneDevice()
    {
        Trace t;
        addStreamsInOrder(t, {{0, 7}}, [](std::int64_t, std::int64_t stream) {
            return "Stream " + std::to_string(stream) + " (default)";
        });
        QCOMPARE(namesOf(t), QStringList({"Stream 7 (default)"}));
    }

    void appendsAfterExistingStreams()
    {
        Trace t;
        t.streams.push_back(StreamInfo{"host lane", 0, -1, 0, false, false});
        t.streams.push_back(StreamInfo{"earlier", 0, 99, 0, false, false});
        const auto index = addStreamsInOrder(t, {{0, 4}, {0, 2}});
        QCOMPARE(toList(index), QList<int>({3, 2}));
        QCOMPARE(namesOf(t), QStringList({"host lane", "earlier", "stream 2", "stream 4"}));
    }

    void noKeys()
    {
        Trace t;
        t.streams.push_back(StreamInfo{"kept", 0, 1, 0, false, false});
        QVERIFY(addStreamsInOrder(t, {}).empty());
        QCOMPARE(namesOf(t), QStringList({"kept"}));
    }

    // One StreamInfo per key: a key given twice gets two lanes, each key its own index.
    void duplicateKeys()
    {
        Trace t;
        const auto index = addStreamsInOrder(t, {{0, 5}, {0, 3}, {0, 5}});
        QCOMPARE(int(t.streams.size()), 3);
        QCOMPARE(index[1], 0);
        QVERIFY(index[0] != index[2]);
        QCOMPARE(QList<int>({index[0], index[2]}).contains(1), true);
        QCOMPARE(QList<int>({index[0], index[2]}).contains(2), true);
        QCOMPARE(namesOf(t), QStringList({"stream 3", "stream 5", "stream 5"}));
    }

    void orderKey_data()
    {
        QTest::addColumn<qint64>("gpuStart");
        QTest::addColumn<qint64>("gpuEnd");
        QTest::addColumn<qint64>("hostStart");
        QTest::addColumn<qint64>("hostEnd");
        QTest::addColumn<qint64>("key");
        QTest::newRow("GPU op") << qint64(500) << qint64(600) << qint64(100) << qint64(150) << qint64(500);
        QTest::newRow("GPU op without host call")
            << qint64(500) << qint64(600) << qint64(kNoTime) << qint64(kNoTime) << qint64(500);
        QTest::newRow("host-only op") << qint64(kNoTime) << qint64(kNoTime) << qint64(100) << qint64(150)
                                      << qint64(100);
        QTest::newRow("half a GPU part is host-only")
            << qint64(500) << qint64(kNoTime) << qint64(100) << qint64(150) << qint64(100);
    }
    void orderKey()
    {
        QFETCH(qint64, gpuStart);
        QFETCH(qint64, gpuEnd);
        QFETCH(qint64, hostStart);
        QFETCH(qint64, hostEnd);
        QFETCH(qint64, key);
        OpRecord op;
        op.gpuStartNs = gpuStart;
        op.gpuEndNs = gpuEnd;
        op.hostStartNs = hostStart;
        op.hostEndNs = hostEnd;
        QCOMPARE(qint64(importOrderKey(op)), key);
    }
};

QTEST_APPLESS_MAIN(TestImportCommon)
#include "tst_import_common.moc"
