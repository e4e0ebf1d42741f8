// libFuzzer harness for the Chrome trace and PyTorch/Kineto importer (engine/formats/chrome_import):
// chromeTraceFromJson on any text. Seeds: tests/fuzz/corpus/chrome/ (StreamScope's own Chrome export of
// the examples and Kineto traces, trimmed).
//
// Inputs stay JSON text (seeds and kept crashes are plain trace files), but most are mutated by structure,
// not bytes (LLVMFuzzerCustomMutator): a mutated byte of a JSON file is mostly a syntax error that the
// reader refuses at once, so events with hostile values would be rare. The mutator parses the input and
// changes its events: a field set to a hostile value (huge, negative, -1, NaN and other tokens JSON does
// not have, a value of the wrong type), a field removed, an event duplicated (duplicate ids and flows),
// deleted, moved or added from a template, a value nested deep, a long name full of escapes, a device id
// beyond 2^31. A text that does not parse is mutated as bytes. Everything is deterministic in `seed`.
#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/formats/chrome_import.h"
#include "tests/fuzz/fuzz_common.h"

using namespace streamscope;
using Json = nlohmann::json;

extern "C" size_t LLVMFuzzerMutate(std::uint8_t *data, size_t size, size_t maxSize);

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string fileName = "fuzz.json";
    fuzz::expectCleanError([&] { engine::chromeTraceFromJson(fuzz::asText(data, size), fileName); }, fileName);
    return 0;
}

namespace {

using Rng = std::minstd_rand;

// A string value starting with this marker is written as the raw token after it (NaN, 1e400, ...): values
// nlohmann cannot hold, put into the text after dump().
constexpr const char *kRaw = "\x01raw:";

// The fields an event's reader looks at, top level and in args.
const std::array<const char *, 11> kEventFields = {"ph",  "cat", "name", "ts",   "dur", "pid",
                                                   "tid", "id",  "bp",   "args", "s"};
const std::array<const char *, 18> kArgFields = {"stream",      "device",        "bytes",
                                                 "correlation", "External id",   "grid",
                                                 "block",       "shared memory", "registers per thread",
                                                 "kind",        "op_index",      "repetition",
                                                 "ss_stream",   "src_mem",       "dst_mem",
                                                 "api",         "name",          "labels"};
const std::array<const char *, 14> kCategories = {
    "kernel", "gpu_memcpy", "gpu_memset",      "cuda_runtime",    "cuda_driver",         "ac2g",  "cpu_op", "Kernel",
    "Memcpy", "Runtime",    "python_function", "user_annotation", "gpu_user_annotation", "gpu_op"};
const std::array<const char *, 9> kPhases = {"X", "s", "f", "t", "M", "B", "E", "i", "C"};

// A hostile value: edge integers (2^31, 2^32, 2^53 + 1, INT64 and UINT64 limits, -1), tokens JSON or
// StreamScope cannot hold as numbers, wrong types.
Json hostileValue(Rng &rng)
{
    switch (rng() % 26) {
    case 0: return -1;
    case 1: return 0;
    case 2: return 2147483647;
    case 3: return 2147483648LL;
    case 4: return 4294967296LL;
    case 5: return -2147483649LL;
    case 6: return 9007199254740993LL;
    case 7: return std::numeric_limits<std::int64_t>::max();
    case 8: return std::numeric_limits<std::int64_t>::min();
    case 9: return std::numeric_limits<std::uint64_t>::max();
    case 10: return 1e300;
    case 11: return -1e300;
    case 12: return -0.001; // -1 ns
    case 13: return 4.6e15;
    case 14: return std::string(kRaw) + "NaN";
    case 15: return std::string(kRaw) + "-Infinity";
    case 16: return std::string(kRaw) + "1e400";
    case 17: return std::string(kRaw) + "18446744073709551616";
    case 18: return std::string(kRaw) + "-0";
    case 19: return nullptr;
    case 20: return true;
    case 21: return "";
    case 22: return "7";
    case 23: return Json::array({1, 2, 3});
    case 24: return Json::object({{"x", 1}});
    default: return static_cast<std::int64_t>((std::uint64_t(rng()) << 32) ^ rng());
    }
}

// A name long enough to matter, full of what must be escaped or may not be printed raw.
std::string hostileName(Rng &rng)
{
    static const std::array<const char *, 9> pieces = {"\x1b[31m", "\"",           "\\",       "/", "\n",
                                                       "\x01",     "\xe2\x80\xae", "\xff\xfe", "k"};
    std::string s;
    const std::size_t length = 1 + rng() % (rng() % 4 == 0 ? 65536 : 64);
    while (s.size() < length)
        s += pieces[rng() % pieces.size()];
    return s; // nlohmann writes invalid UTF-8 as escapes (dump's error handler: replace)
}

// A value nested `depth` levels deep in arrays or objects.
Json nested(Json inner, std::size_t depth, Rng &rng)
{
    const bool objects = rng() % 2;
    for (std::size_t i = 0; i < depth; ++i)
        inner = objects ? Json::object({{"a", std::move(inner)}}) : Json::array({std::move(inner)});
    return inner;
}

Json templateEvent(Rng &rng)
{
    Json e = {{"ph", "X"},
              {"cat", kCategories[rng() % kCategories.size()]},
              {"name", rng() % 2 ? "k" : "cudaLaunchKernel"},
              {"pid", rng() % 3},
              {"tid", 7},
              {"ts", static_cast<int>(rng() % 1000)},
              {"dur", static_cast<int>(rng() % 100)},
              {"args", {{"stream", 7}, {"correlation", static_cast<int>(rng() % 8)}}}};
    if (rng() % 4 == 0) {
        e["ph"] = rng() % 2 ? "s" : "f";
        e["id"] = static_cast<int>(rng() % 8);
        e["cat"] = "ac2g";
    }
    return e;
}

// The events: traceEvents of the object form, or the array form itself; null when there are none.
Json *eventsOf(Json &doc)
{
    if (doc.is_array())
        return &doc;
    if (doc.is_object() && doc.contains("traceEvents") && doc["traceEvents"].is_array())
        return &doc["traceEvents"];
    return nullptr;
}

// One structural change to `doc`.
void mutate(Json &doc, Rng &rng)
{
    Json *events = eventsOf(doc);
    if (!events) {
        doc = Json::object({{"traceEvents", Json::array({templateEvent(rng)})}});
        return;
    }
    if (events->empty() || rng() % 12 == 0) {
        events->insert(events->begin() + static_cast<long>(events->empty() ? 0 : rng() % (events->size() + 1)),
                       templateEvent(rng));
        return;
    }
    Json &e = (*events)[rng() % events->size()];
    if (!e.is_object()) {
        e = templateEvent(rng);
        return;
    }
    const bool inArgs = rng() % 2 && e.contains("args") && e["args"].is_object();
    Json &target = inArgs ? e["args"] : e;
    const char *field = inArgs ? kArgFields[rng() % kArgFields.size()] : kEventFields[rng() % kEventFields.size()];
    switch (rng() % 11) {
    case 0:
    case 1:
    case 2: target[field] = hostileValue(rng); break;
    case 3: target.erase(field); break;
    case 4: { // the same event again (duplicate ids, flows and correlations), maybe at another place
        const Json copy = e;
        events->insert(events->begin() + static_cast<long>(rng() % (events->size() + 1)), copy);
        break;
    }
    case 5: events->erase(events->begin() + static_cast<long>(rng() % events->size())); break;
    case 6: std::swap((*events)[rng() % events->size()], (*events)[rng() % events->size()]); break;
    case 7: target[field] = nested(hostileValue(rng), 1 + rng() % (rng() % 4 == 0 ? 2000 : 40), rng); break;
    case 8: e["name"] = hostileName(rng); break;
    case 9:
        if (rng() % 2)
            e["cat"] = kCategories[rng() % kCategories.size()];
        else
            e["ph"] = kPhases[rng() % kPhases.size()];
        break;
    default: { // a device id beyond what an int holds, in args or (Kineto's GPU d on pid d) the pid
        const std::int64_t id = rng() % 2 ? (std::int64_t(1) << 32) + rng() % 4 : 2147483648LL;
        if (rng() % 2 && e.contains("args") && e["args"].is_object())
            e["args"]["device"] = id;
        else
            e["pid"] = id;
        break;
    }
    }
}

// dump(), with the raw tokens put in place of their marked strings.
std::string render(const Json &doc)
{
    std::string text = doc.dump(-1, ' ', false, Json::error_handler_t::replace);
    const std::string marker = "\"\\u0001raw:";
    for (std::size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at)) {
        const std::size_t end = text.find('"', at + marker.size());
        if (end == std::string::npos)
            break;
        text.replace(at, end + 1 - at, text.substr(at + marker.size(), end - at - marker.size()));
    }
    return text;
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(std::uint8_t *data, size_t size, size_t maxSize, unsigned int seed)
{
    Rng rng(seed);
    // One in eight mutations, and every input that is not JSON, as bytes: the syntax keeps being fuzzed.
    Json doc = rng() % 8 == 0 ? Json(Json::value_t::discarded)
                              : Json::parse(fuzz::asText(data, size), nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded())
        return LLVMFuzzerMutate(data, size, maxSize);
    const unsigned changes = 1 + rng() % 3;
    for (unsigned i = 0; i < changes; ++i)
        mutate(doc, rng);
    const std::string text = render(doc);
    if (text.size() > maxSize)
        return LLVMFuzzerMutate(data, size, maxSize);
    std::memcpy(data, text.data(), text.size());
    return text.size();
}
