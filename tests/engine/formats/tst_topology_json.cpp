// `streamscope-cli devices --json` from a hand-made topology (engine/formats/topology_json.h): its shape,
// and that its devices and peer links are exactly what a native trace's header writes for them, so that
// one reader takes both.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "engine/formats/native_format.h"
#include "engine/formats/topology_json.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope;
using nlohmann::json;

namespace {

// Access where NVLink joins the pair; the rank its source's index.
engine::PeerLink link(int src, int dst, engine::LinkType type, int count, double peak)
{
    return test::makePeerLink(src, dst, type, count, peak, type == engine::LinkType::NvLink, src);
}

} // namespace

class TestTopologyJson : public QObject {
    Q_OBJECT
private slots:
    void shape()
    {
        engine::Trace trace = test::handTrace(1);
        engine::DeviceInfo second = trace.devices.front();
        second.index = 1;
        second.pciBusId = "0000:06:00.0";
        trace.devices.push_back(second);
        trace.peerLinks = {link(0, 1, engine::LinkType::NvLink, 18, 450), link(1, 0, engine::LinkType::Pcie, 0, 63)};

        const json j =
            json::parse(engine::topologyToJson(trace.devices, trace.peerLinks, {true, false}, "NVML said nothing"));
        QVERIFY(j.is_object());
        QCOMPARE(j.size(), std::size_t(3));
        QCOMPARE(j.at("devices").size(), std::size_t(2));
        QCOMPARE(j.at("devices")[1].at("pci_bus_id").get<std::string>(), std::string("0000:06:00.0"));
        QCOMPARE(j.at("link_note").get<std::string>(), std::string("NVML said nothing"));
        const json &links = j.at("peer_links");
        QCOMPARE(links.size(), std::size_t(2));
        QCOMPARE(links[0].at("native_atomics").get<bool>(), true);
        QCOMPARE(links[1].at("native_atomics").get<bool>(), false);

        // Less nativeAtomics, each device and link is the native header's own object for it.
        const json header = json::parse(engine::toNativeJson(trace));
        QCOMPARE(j.at("devices"), header.at("devices"));
        json withoutAtomics = links;
        for (json &l : withoutAtomics)
            l.erase("native_atomics");
        QCOMPARE(withoutAtomics, header.at("peer_links"));

        // What a native reader makes of them is what went in.
        QCOMPARE(links[0].at("nvlink_count").get<int>(), 18);
        QCOMPARE(links[1].at("link").get<std::string>(), std::string("pcie"));
    }

    // One device, NVML fine: an empty link list and no note.
    void oneDevice()
    {
        const engine::Trace trace = test::handTrace(1);
        const json j = json::parse(engine::topologyToJson(trace.devices, {}, {}, ""));
        QCOMPARE(j.at("devices").size(), std::size_t(1));
        QVERIFY(j.at("peer_links").is_array() && j.at("peer_links").empty());
        QVERIFY(!j.contains("link_note"));
    }
};

QTEST_APPLESS_MAIN(TestTopologyJson)
#include "tst_topology_json.moc"
