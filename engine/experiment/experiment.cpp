// Variant expansion (JSON edits of the base workload, re-parsed) and the experiment loop.
#include "engine/experiment/experiment.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "engine/model/errors.h"
#include "engine/model/units.h"
#include "engine/workload/kernel_types.h"
#include "engine/workload/workload_names.h"
#include "engine/workload/workload_parser.h"

namespace streamscope::engine {

namespace {

using Json = nlohmann::ordered_json;

bool isHostKind(const Json &kind)
{
    return kind.is_string() && (kind == "pageable" || kind == "pinned" || kind == "registered");
}

// Every copy op of a stream's op list, through groups ({"repeat": N, "ops": [...]}) at any depth.
void forEachCopy(Json &ops, const std::function<void(Json &)> &fn)
{
    if (!ops.is_array())
        return;
    for (Json &op : ops) {
        if (!op.is_object())
            continue;
        if (const auto it = op.find("op"); it != op.end()) {
            if (*it == "copy")
                fn(op);
        } else if (const auto inner = op.find("ops"); inner != op.end()) {
            forEachCopy(*inner, fn);
        }
    }
}

std::uint64_t bytesOf(const Json &v)
{
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>();
    if (v.is_number_integer())
        return static_cast<std::uint64_t>(std::max<std::int64_t>(0, v.get<std::int64_t>()));
    if (v.is_string())
        return parseByteSize(v.get<std::string>()).value_or(0);
    return 0;
}

std::string variantName(const std::vector<AxisSetting> &settings, int index, int count)
{
    return "variant " + std::to_string(index + 1) + " of " + std::to_string(count) + " (" + variantLabel(settings)
           + ")";
}

[[noreturn]] void cannotApply(const std::string &variant, const ExperimentSpec &spec, const std::string &why)
{
    throw Error(ErrorKind::InvalidInput, (spec.workloadFile.empty() ? std::string("<workload>") : spec.workloadFile)
                                             + ": " + variant + ": " + why);
}

bool isVersionTwo(const Json &root)
{
    const auto v = root.find("version");
    return v != root.end() && v->is_number_integer() && v->get<std::int64_t>() >= 2;
}

// Every op of a stream's op list, through groups, as forEachCopy does for copies.
void forEachOp(Json &ops, const std::function<void(Json &)> &fn)
{
    if (!ops.is_array())
        return;
    for (Json &op : ops) {
        if (!op.is_object())
            continue;
        if (op.contains("op"))
            fn(op);
        else if (const auto inner = op.find("ops"); inner != op.end())
            forEachOp(*inner, fn);
    }
}

// Whether a kernel op in a file may be launched with PDL: its type's row takes "pdl" (kernel_types.h); a kernel
// without a type has the one the parser gives it (kernelTypeFromKeys).
bool takesPdl(const Json &op)
{
    if (op["op"] != "kernel")
        return false;
    const auto t = op.find("type");
    const std::optional<KernelType> type = t != op.end() && t->is_string()
                                               ? enumFromName<KernelType>(t->get<std::string>())
                                               : kernelTypeFromKeys(op.contains("duration"), op.contains("buffer"));
    return type && takes(*type, KernelField::Pdl);
}

// pdl=on|off: every kernel whose type takes "pdl" gets true or false. Off is written, not left out: such a kernel
// is timed as its PDL twin is (no timing events beside it, run_plan.cpp), so the two compare like for like.
void setPdl(Json &root, bool on, const std::string &variant, const ExperimentSpec &spec)
{
    int changed = 0;
    if (auto streams = root.find("streams"); streams != root.end() && streams->is_array())
        for (Json &st : *streams)
            if (st.is_object() && st.contains("ops"))
                forEachOp(st["ops"], [&](Json &op) {
                    if (!takesPdl(op))
                        return;
                    op["pdl"] = on;
                    ++changed;
                });
    if (changed == 0)
        cannotApply(variant, spec,
                    std::string("pdl=") + (on ? "on" : "off")
                        + " launches compute and memory kernels with programmatic dependent launch or without, and the "
                          "workload has none");
}

// devices=N: every device index d the workload names (its default device, buffers, streams, threads,
// prefetch and advise locations) becomes d mod N, so that a workload written for two GPUs runs on one
// (devices=1) or as written (devices=2). A copy between device buffers that land on one GPU is then a
// device-to-device copy: its "peer" and "p2p" direction go.
void mapDevices(Json &root, int n, const ExperimentSpec &spec, const std::string &variant)
{
    if (!isVersionTwo(root))
        cannotApply(variant, spec,
                    "devices=" + std::to_string(n)
                        + " maps the devices a version 2 workload names onto that many GPUs, and this workload is "
                          "version 1 (it runs on one device)");
    std::set<std::int64_t> named;
    const auto map = [&](Json &obj, const char *key) {
        const auto it = obj.find(key);
        if (it == obj.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0)
            return;
        named.insert(it->get<std::int64_t>());
        *it = it->get<std::int64_t>() % n;
    };
    if (!root.contains("device"))
        named.insert(0); // the default device, which buffers, streams and threads naming none run on
    map(root, "device");
    const std::int64_t defaultDevice =
        root.contains("device") && root["device"].is_number_integer() ? root["device"].get<std::int64_t>() : 0;
    std::map<std::string, std::int64_t> bufferDevice;
    if (auto buffers = root.find("buffers"); buffers != root.end() && buffers->is_array())
        for (Json &b : *buffers)
            if (b.is_object()) {
                map(b, "device");
                if (b.contains("name") && b["name"].is_string())
                    bufferDevice[b["name"].get<std::string>()] = b.contains("device") && b["device"].is_number_integer()
                                                                     ? b["device"].get<std::int64_t>()
                                                                     : defaultDevice;
            }
    if (auto threads = root.find("threads"); threads != root.end() && threads->is_array())
        for (Json &t : *threads)
            if (t.is_object())
                map(t, "device");
    if (auto streams = root.find("streams"); streams != root.end() && streams->is_array())
        for (Json &st : *streams) {
            if (!st.is_object())
                continue;
            map(st, "device");
            if (!st.contains("ops"))
                continue;
            forEachOp(st["ops"], [&](Json &op) {
                map(op, "location");
                if (op["op"] != "copy")
                    return;
                const auto src = op.find("src"), dst = op.find("dst");
                if (src == op.end() || dst == op.end() || !src->is_string() || !dst->is_string())
                    return;
                const auto a = bufferDevice.find(src->get<std::string>());
                const auto b = bufferDevice.find(dst->get<std::string>());
                if (a == bufferDevice.end() || b == bufferDevice.end() || a->second != b->second)
                    return;
                op.erase("peer");
                if (const auto d = op.find("direction"); d != op.end() && *d == "p2p")
                    *d = "d2d";
            });
        }
    if (named.size() < 2 && n > 1)
        cannotApply(variant, spec,
                    "devices=" + std::to_string(n)
                        + " spreads the devices the workload names over that many GPUs, and this workload names "
                          "one device: give its buffers, streams and threads the devices they run on (0, 1, ...)");
}

void applyOne(Json &root, const AxisSetting &s, const ExperimentSpec &spec, const std::string &variant)
{
    const auto pipeline = root.find("pipeline");
    const bool isPipeline = pipeline != root.end() && pipeline->is_object();
    const std::string axis(toString(s.axis));
    switch (s.axis) {
    case Axis::Memory:
        if (isPipeline) {
            (*pipeline)["hostMemory"] = s.value;
        } else {
            int changed = 0;
            if (auto buffers = root.find("buffers"); buffers != root.end() && buffers->is_array())
                for (Json &b : *buffers)
                    if (b.is_object() && b.contains("kind") && isHostKind(b["kind"])) {
                        b["kind"] = s.value;
                        ++changed;
                    }
            if (changed == 0)
                cannotApply(
                    variant, spec,
                    "memory=" + s.value
                        + " changes the kind of host buffers (pageable, pinned or registered), and the workload "
                          "has none");
        }
        return;
    case Axis::Api:
        if (isPipeline) {
            (*pipeline)["api"] = s.value;
        } else {
            int changed = 0;
            if (auto streams = root.find("streams"); streams != root.end() && streams->is_array())
                for (Json &st : *streams)
                    if (st.is_object() && st.contains("ops"))
                        forEachCopy(st["ops"], [&](Json &op) {
                            op["api"] = s.value;
                            ++changed;
                        });
            if (changed == 0)
                cannotApply(variant, spec, "api=" + s.value + " changes the API of copies, and the workload has none");
        }
        return;
    case Axis::Streams:
    case Axis::Order:
    case Axis::Chunks:
        if (!isPipeline)
            cannotApply(variant, spec,
                        axis + "=" + s.value + " changes the \"" + axis
                            + "\" of a \"pipeline\" (docs/workload-format.md), and this workload has no \"pipeline\": "
                              "write its streams as a pipeline, or vary memory, api or size");
        if (s.axis == Axis::Order)
            (*pipeline)["order"] = s.value;
        else
            (*pipeline)[axis] = std::stoi(s.value);
        return;
    case Axis::Connections: root["maxConnections"] = std::stoi(s.value); return;
    case Axis::MaxCtas:
    case Axis::CtaPolicy: {
        // Only where there are collectives to set; "default" leaves NCCL its own choice.
        bool collectives = false;
        if (auto streams = root.find("streams"); streams != root.end() && streams->is_array())
            for (Json &st : *streams)
                if (st.is_object() && st.contains("ops"))
                    forEachOp(st["ops"], [&](Json &op) { collectives = collectives || op["op"] == "collective"; });
        if (!collectives)
            cannotApply(variant, spec,
                        axis + "=" + s.value + " sets how NCCL's collectives use the GPU, and the workload has none");
        if (s.value == "default") {
            if (auto nccl = root.find("nccl"); nccl != root.end() && nccl->is_object())
                nccl->erase(axis);
        } else if (s.axis == Axis::MaxCtas) {
            root["nccl"]["maxCTAs"] = std::stoi(s.value);
        } else {
            root["nccl"]["ctaPolicy"] = s.value;
        }
        return;
    }
    case Axis::PeerAccess:
        if (!isVersionTwo(root))
            cannotApply(variant, spec,
                        "peerAccess=" + s.value
                            + " sets a version 2 workload's \"peerAccess\" (its peer copies between GPUs), and this "
                              "workload is version 1");
        root["peerAccess"] = s.value;
        return;
    case Axis::Devices: mapDevices(root, std::stoi(s.value), spec, variant); return;
    case Axis::DefaultStream: root["defaultStream"] = s.value; return;
    case Axis::Launch: root["launch"] = s.value; return;
    case Axis::Pdl: setPdl(root, s.value == "on", variant, spec); return;
    case Axis::Schedule:
        // serial: every stream waits for the one before it (the parser inserts the events), so nothing overlaps
        // across streams; such a workload has no parts that could run alone, so no solo baselines either.
        if (s.value == "serial") {
            root["serial"] = true;
            root.erase("solo");
        } else {
            root.erase("serial");
        }
        return;
    case Axis::Size: {
        const std::uint64_t bytes = parseByteSize(s.value).value_or(0);
        if (isPipeline) {
            (*pipeline)["bytes"] = bytes;
            return;
        }
        // Every copy moves `bytes`; a buffer too small for a copy at its offset grows to fit.
        std::map<std::string, std::uint64_t> need;
        int changed = 0;
        if (auto streams = root.find("streams"); streams != root.end() && streams->is_array())
            for (Json &st : *streams)
                if (st.is_object() && st.contains("ops"))
                    forEachCopy(st["ops"], [&](Json &op) {
                        op["bytes"] = bytes;
                        ++changed;
                        for (const char *side : {"src", "dst"}) {
                            const auto name = op.find(side);
                            if (name == op.end() || !name->is_string())
                                continue;
                            const auto offset = op.find(std::string(side) + "Offset");
                            const std::uint64_t end = bytes + (offset == op.end() ? 0 : bytesOf(*offset));
                            auto &n = need[name->get<std::string>()];
                            n = std::max(n, end);
                        }
                    });
        if (changed == 0)
            cannotApply(variant, spec, "size=" + s.value + " changes the size of copies, and the workload has none");
        if (auto buffers = root.find("buffers"); buffers != root.end() && buffers->is_array())
            for (Json &b : *buffers) {
                if (!b.is_object() || !b.contains("name") || !b["name"].is_string())
                    continue;
                const auto it = need.find(b["name"].get<std::string>());
                if (it != need.end() && (!b.contains("bytes") || bytesOf(b["bytes"]) < it->second))
                    b["bytes"] = it->second;
            }
        return;
    }
    }
}

std::string utcNow()
{
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

} // namespace

std::string applySettings(const ExperimentSpec &spec, const std::vector<AxisSetting> &settings)
{
    Json root = Json::parse(spec.workloadText, nullptr, true, /*ignore_comments=*/true);
    for (const auto &s : settings)
        applyOne(root, s, spec, variantLabel(settings));
    return root.dump(2);
}

std::vector<Variant> expandVariants(const ExperimentSpec &spec)
{
    const std::string file = spec.workloadFile.empty() ? std::string("<workload>") : spec.workloadFile;
    // The base first, with its own file name and lines, so that its mistakes are not blamed on a variant.
    const Workload base = parseWorkload(spec.workloadText, file);
    std::size_t count = 1;
    for (std::size_t i = 0; i < spec.axes.size(); ++i) {
        if (spec.axes[i].values.empty())
            throw Error(ErrorKind::InvalidInput,
                        "the axis " + std::string(toString(spec.axes[i].axis)) + " has no values");
        // Values built by a program (the GUI) get the checks --vary options get.
        const std::string axisName(toString(spec.axes[i].axis));
        const auto &values = spec.axes[i].values;
        for (std::size_t v = 0; v < values.size(); ++v)
            if (std::find(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(v), values[v])
                != values.begin() + static_cast<std::ptrdiff_t>(v))
                throw Error(ErrorKind::InvalidInput, "the axis " + axisName + ": \"" + values[v] + "\" is given twice");
        for (const auto &value : values)
            if (checkedAxisValue(spec.axes[i].axis, value, "the axis " + axisName + ": ") != value)
                throw Error(ErrorKind::InvalidInput, "the axis " + axisName + ": \"" + value
                                                         + "\" is not in its normal form (parseVaryOption gives it)");
        for (std::size_t k = 0; k < i; ++k)
            if (spec.axes[k].axis == spec.axes[i].axis)
                throw Error(ErrorKind::InvalidInput, "the axis " + std::string(toString(spec.axes[i].axis))
                                                         + " is varied twice; give its values in one --vary");
        count *= spec.axes[i].values.size();
        if (count > static_cast<std::size_t>(kMaxExperimentVariants))
            throw Error(ErrorKind::InvalidInput, "the axes make more than " + std::to_string(kMaxExperimentVariants)
                                                     + " variants; vary fewer values at once");
    }
    std::vector<Variant> out;
    out.reserve(count);
    for (std::size_t n = 0; n < count; ++n) {
        Variant v;
        v.index = static_cast<int>(n);
        // Mixed radix, last axis fastest: the grid reads in the order the --vary options were given.
        std::size_t rest = n;
        v.settings.resize(spec.axes.size());
        for (std::size_t i = spec.axes.size(); i-- > 0;) {
            const auto &values = spec.axes[i].values;
            v.settings[i] = {spec.axes[i].axis, values[rest % values.size()]};
            rest /= values.size();
        }
        v.label = variantLabel(v.settings);
        const std::string name = variantName(v.settings, v.index, static_cast<int>(count));
        if (spec.axes.empty()) {
            v.workload = base;
            v.workloadJson = spec.workloadText;
        } else {
            Json root = Json::parse(spec.workloadText, nullptr, true, true);
            for (const auto &s : v.settings)
                applyOne(root, s, spec, name);
            v.workloadJson = root.dump(2);
            try {
                v.workload = parseWorkload(v.workloadJson, file);
            } catch (const WorkloadError &e) {
                // Lines would point into the edited text, not the user's file: name the variant and the
                // JSON path instead.
                std::string message = file + ": " + name + " is not a valid workload:";
                for (const auto &issue : e.issues())
                    message +=
                        "\n  " + (issue.jsonPath.empty() ? std::string() : issue.jsonPath + ": ") + issue.message;
                throw Error(ErrorKind::InvalidInput, message);
            }
        }
        out.push_back(std::move(v));
    }
    return out;
}

Comparison runExperiment(const ExperimentSpec &spec, const std::vector<Variant> &variants, const RunOptions &options,
                         const WorkloadRunner &runner, const ExperimentProgressCallback &progress,
                         const std::atomic<bool> *cancel)
{
    Comparison c;
    c.workloadFile = spec.workloadFile;
    c.baseWorkloadJson = spec.workloadText;
    c.axes = spec.axes;
    c.warmup = options.warmup;
    c.repetitions = options.repetitions;
    c.toolVersion = STREAMSCOPE_VERSION;
    c.createdUtc = utcNow();
    c.title = variants.empty() ? std::string() : variants.front().workload.name;

    // Progress counts repetitions (warm-up and measured) over every variant.
    std::vector<int> units;
    int totalUnits = 0;
    for (const auto &v : variants) {
        const int w = options.warmup >= 0 ? options.warmup : v.workload.warmup;
        const int r = options.repetitions >= 0 ? options.repetitions : v.workload.repetitions;
        units.push_back(std::max(1, w + r));
        totalUnits += units.back();
    }
    int doneUnits = 0;
    std::optional<Error> firstFailure;
    const int count = static_cast<int>(variants.size());
    for (int i = 0; i < count; ++i) {
        const Variant &v = variants[i];
        if (cancel && cancel->load())
            throw Error(ErrorKind::Cancelled, "cancelled before " + variantName(v.settings, i, count));
        const int warm = options.warmup >= 0 ? options.warmup : v.workload.warmup;
        auto report = [&](const RunProgress &p) {
            if (!progress)
                return;
            int within = 0;
            if (p.phase == RunProgress::Phase::Warmup)
                within = p.repetition;
            else if (p.phase == RunProgress::Phase::Measuring)
                within = warm + p.repetition;
            else if (p.phase == RunProgress::Phase::Done)
                within = units[i];
            within = std::clamp(within, 0, units[i]);
            ExperimentProgress e;
            e.variant = i;
            e.variantCount = count;
            e.label = v.label;
            e.run = p;
            e.fraction = totalUnits > 0 ? static_cast<double>(doneUnits + within) / totalUnits : 1.0;
            progress(e);
        };
        report({RunProgress::Phase::Preparing, 0, 0, "variant " + v.label});
        VariantResult r;
        r.label = v.label;
        r.settings = v.settings;
        try {
            r.trace = runner(v.workload, options, report, cancel);
        } catch (const Error &e) {
            // What went wrong in this variant alone (a capture that failed, a CUDA error, memory it could not
            // have, a workload the run refused) marks it failed and the others run; what ends every variant
            // (no GPU, a cancel, a file that cannot be written) ends the comparison.
            if (e.kind() != ErrorKind::Cuda && e.kind() != ErrorKind::OutOfMemory
                && e.kind() != ErrorKind::InvalidInput)
                throw;
            r.failed = variantName(v.settings, i, count) + ": " + e.what();
            if (!firstFailure)
                firstFailure = Error(e.kind(), r.failed);
            c.variants.push_back(std::move(r));
            report({RunProgress::Phase::Done, 0, 0, "variant " + v.label + " failed"});
            doneUnits += units[i];
            continue;
        }
        r.trace.workloadJson = workloadToJson(v.workload);
        if (r.trace.sourcePath.empty())
            r.trace.sourcePath = spec.workloadFile;
        r.trace.metadata["comparison.variant"] = v.label;
        c.variants.push_back(std::move(r));
        report({RunProgress::Phase::Done, 0, 0, "variant " + v.label + " done"});
        doneUnits += units[i];
    }
    // Nothing ran: the comparison fails as its first variant did.
    if (firstFailure
        && std::all_of(c.variants.begin(), c.variants.end(), [](const VariantResult &v) { return !v.failed.empty(); }))
        throw *firstFailure;
    return c;
}

} // namespace streamscope::engine
