// The kernel-type table (engine/workload/kernel_types.h): every type has its row in the enum's order, and
// what the parser reads, the writer writes, the messages name and describe() shows of a kernel op all come
// from the row: each type reads exactly its fields' keys, refuses every other type's, and round-trips.
#include <QtTest>

#include <nlohmann/json.hpp>
#include <set>

#include "engine/workload/kernel_types.h"
#include "engine/workload/workload_names.h"
#include "engine/workload/workload_parser.h"
#include "workload_compare.h"

using namespace streamscope::engine;
using streamscope::engine::testing::compareWorkloads;

namespace {

// A value for each key of every field, unlike every default, so that a key read wrongly shows.
const nlohmann::json kSamples = {{"duration", "7 us"}, {"buffer", "d"}, {"offset", 4096}, {"bytes", 65536},
                                 {"m", 256},           {"n", 512},      {"k", 128},       {"dtype", "fp16"},
                                 {"blocks", 3},        {"threads", 64}, {"pdl", true}};

// A workload with one kernel op of `type`, with every key of its fields (and `extra`, when given).
std::string workloadWith(const KernelTypeInfo &row, const std::string &extra = {})
{
    nlohmann::json op = {{"op", "kernel"}, {"type", row.name}};
    for (const KernelField field : row.fields)
        for (const std::string_view key : fieldKeys(field))
            op[std::string(key)] = kSamples.at(std::string(key));
    if (!extra.empty())
        op[extra] = kSamples.at(extra);
    const nlohmann::json w = {
        {"version", 2},
        {"name", "t"},
        {"buffers", {{{"name", "d"}, {"kind", "device"}, {"bytes", "1 MiB"}}}},
        {"streams", {{{"name", "s0"}, {"ops", {op}}}}},
    };
    return w.dump(2);
}

} // namespace

class TestKernelTypes : public QObject {
    Q_OBJECT
private slots:
    void rowsFollowTheEnum()
    {
        QCOMPARE(kernelTypes().size(), std::size_t(KernelType::Count));
        std::set<std::string_view> names;
        for (std::size_t i = 0; i < std::size_t(KernelType::Count); ++i) {
            const auto type = KernelType(i);
            const KernelTypeInfo &row = kernelTypeInfo(type);
            QVERIFY(row.type == type);
            QCOMPARE(enumName(type), row.name);
            QVERIFY(enumFromName<KernelType>(row.name) == type);
            QVERIFY(names.insert(row.name).second);
            const auto keys = kernelKeys(type);
            QCOMPARE(std::vector<std::string>(keys.begin(), keys.begin() + 4),
                     (std::vector<std::string>{"op", "name", "repeat", "type"}));
        }
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, kernelTypeInfo(KernelType::Count));
    }

    // Each type reads every key of its fields, and the writer gives back what was read.
    void eachTypeReadsAndWritesItsFields()
    {
        for (const KernelTypeInfo &row : kernelTypes()) {
            const QByteArray type(row.name.data(), qsizetype(row.name.size()));
            const Workload w = parseWorkload(workloadWith(row), "t.json");
            const OpSpec &op = w.streams.at(0).ops.at(0);
            QVERIFY2(op.kernelType == row.type, type);
            QCOMPARE(op.durationNs, takes(row.type, KernelField::Duration) ? 7000 : 0);
            QCOMPARE(op.buffer, takes(row.type, KernelField::BufferSpan) ? std::string("d") : std::string());
            QCOMPARE(op.bytes, takes(row.type, KernelField::BufferSpan) ? std::uint64_t(65536) : std::uint64_t(0));
            QCOMPARE(op.dstOffset, takes(row.type, KernelField::BufferSpan) ? std::uint64_t(4096) : std::uint64_t(0));
            if (takes(row.type, KernelField::Gemm))
                QVERIFY2((op.gemm == GemmShape{256, 512, 128, GemmDtype::Fp16}), type);
            else
                QVERIFY2(op.gemm == GemmShape{}, type);
            const bool shaped = takes(row.type, KernelField::LaunchShape);
            QCOMPARE(op.blocks, shaped ? 3 : row.blocks);
            QCOMPARE(op.threadsPerBlock, shaped ? 64 : row.threads);
            QCOMPARE(op.pdl, takes(row.type, KernelField::Pdl));
            QCOMPARE(describe(op, w), row.describe(op));

            const std::string written = workloadToJson(w);
            const auto json = nlohmann::json::parse(written);
            std::set<std::string> keys;
            for (const auto &[key, value] : json["streams"][0]["ops"][0].items())
                keys.insert(key);
            auto expected = kernelKeys(row.type);
            expected.erase(std::find(expected.begin(), expected.end(), "repeat"));
            QCOMPARE(keys, std::set<std::string>(expected.begin(), expected.end()));
            compareWorkloads(parseWorkload(written, "t.json"), w);
        }
    }

    // A key another type takes is refused, naming this type as its row does and the keys it takes.
    void eachTypeRefusesTheOthersKeys()
    {
        int refused = 0;
        for (const KernelTypeInfo &row : kernelTypes()) {
            const auto own = kernelKeys(row.type);
            for (const auto &[key, value] : kSamples.items()) {
                if (std::find(own.begin(), own.end(), key) != own.end())
                    continue;
                const auto issues = validateWorkloadText(workloadWith(row, key), "t.json");
                QVERIFY2(!issues.empty(), (std::string(row.name) + " took " + key).c_str());
                QCOMPARE(issues.front().jsonPath, "/streams/0/ops/0/" + key);
                QVERIFY2(issues.front().message.find("does not apply to " + std::string(row.what)) != std::string::npos,
                         issues.front().message.c_str());
                ++refused;
            }
        }
        QVERIFY(refused >= 20); // every type refuses some keys: the test looked at them
    }

    void displayNames()
    {
        Workload w;
        OpSpec op;
        op.type = OpType::Kernel;
        op.durationNs = 7000;
        op.bytes = 65536;
        op.gemm = {256, 512, 128, GemmDtype::Fp16};
        const auto named = [&](KernelType type) {
            op.kernelType = type;
            return describe(op, w);
        };
        QCOMPARE(named(KernelType::Compute), std::string("kernel 7 \u00b5s"));
        QCOMPARE(named(KernelType::Memory), std::string("memory kernel 64 KiB"));
        QCOMPARE(named(KernelType::Hang), std::string("hang kernel"));
        QCOMPARE(named(KernelType::Fault), std::string("fault kernel"));
        QCOMPARE(named(KernelType::Gemm), std::string("GEMM 256x512x128 fp16"));
        QCOMPARE(named(KernelType::Empty), std::string("empty kernel"));
    }

    // A pipeline's kernel is one of the types whose row says it may be.
    void pipelinesTakeTheirTypes()
    {
        for (const KernelTypeInfo &row : kernelTypes()) {
            nlohmann::json kernel = {{"type", row.name}};
            if (row.type == KernelType::Compute)
                kernel["duration"] = "5 us";
            const nlohmann::json pipeline = {{"bytes", "4 MiB"}, {"chunks", 2}, {"kernel", kernel}};
            const std::string text = nlohmann::json{{"version", 1}, {"name", "p"}, {"pipeline", pipeline}}.dump();
            const auto issues = validateWorkloadText(text, "p.json");
            QVERIFY2(issues.empty() == row.pipeline,
                     (std::string(row.name) + ": " + (issues.empty() ? "no issue" : issues.front().message)).c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestKernelTypes)
#include "tst_kernel_types.moc"
