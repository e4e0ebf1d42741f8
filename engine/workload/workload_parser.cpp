// Workload formats 1 and 2: reading (structure, then meaning) with located issues, and normalised writing.
// The reader walks the document from JsonLocator and collects every issue it finds; it carries on
// after an issue wherever the rest can still be checked, and stays silent about consequences of an
// issue already reported (an op naming a buffer whose own entry was invalid, for example). The DOM it walks
// leaves out the op lists and the schedules: ops are parsed one at a time from the text once the rest is
// known (sections may come in any order), schedules kept as compact pairs (#24).
#include "engine/workload/workload_parser.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <unordered_set>

#include "engine/model/limits.h"
#include "engine/model/op_kinds.h"
#include "engine/model/units.h"
#include "engine/util/file_util.h"
#include "engine/util/json_locator.h"
#include "engine/util/name_suggestion.h"
#include "engine/workload/capture_check.h"
#include "engine/workload/kernel_types.h"
#include "engine/workload/pipeline_generator.h"
#include "engine/workload/variation_axes.h"
#include "engine/workload/workload_names.h"

namespace streamscope::engine {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kMaxOps = 1'000'000; // after expanding repeats: a trace of 1e6 ops per repetition
constexpr std::int64_t kMaxRepeat = 1'000'000;
// What the ops take in memory after expanding repeats (each op's fixed part and its strings: name, JSON
// path, buffer, event and stream names): a repeat copies every string of its op, so a short file with long
// names could ask for gigabytes within kMaxOps. Checked before a repeat is expanded. A million ops with
// names of a few dozen characters take about 400 MiB.
constexpr std::uint64_t kMaxOpBytes = std::uint64_t(512) << 20;
constexpr int kMaxGroupDepth = 16;
constexpr int kMaxThreadsPerBlock = 1024; // every CUDA GPU since Fermi
constexpr std::int64_t kMaxBlocks = std::numeric_limits<std::int32_t>::max(); // gridDim.x limit
constexpr std::size_t kUnitRoom = 64; // ops of one op list element kept room for from one element to the next
constexpr int kMinPriority = -10; // CUDA clamps to the device's range, typically -5..0
constexpr int kMaxDevice = kMaxDeviceIndex;
constexpr int kMaxChunks = 4096;

std::string quote(std::string_view s)
{
    return "\"" + std::string(s) + "\"";
}

// What one op takes in memory: its fixed part, and each string longer than fits inside std::string itself.
std::uint64_t opFootprint(const OpSpec &op)
{
    constexpr std::size_t kInline = 15; // libstdc++'s short-string buffer
    std::uint64_t bytes = sizeof(OpSpec);
    for (const std::string *s : {&op.name, &op.jsonPath, &op.src, &op.dst, &op.buffer, &op.event, &op.syncStream})
        if (s->size() > kInline)
            bytes += s->size() + 1;
    return bytes;
}

// Gives back the room a string was built with beyond its length (a name appended piece by piece): the ops are
// kept, a million of them, and were kept as copies, exactly as long, before they were moved (#24).
void fitStrings(OpSpec &op)
{
    for (std::string *s : {&op.name, &op.jsonPath, &op.src, &op.dst, &op.buffer, &op.event, &op.syncStream})
        s->shrink_to_fit();
}

// "keyFigure": {"caption": "...", "kind": "h2d", "name": "...", "lane": "stream0"}. Both readers (the
// full parser and readWorkloadHeader) read it here; a problem comes back as (JSON pointer, message).
struct KeyFigureProblem {
    std::string pointer;
    std::string message;
};
std::optional<KeyFigureProblem> readKeyFigure(const Json &v, const std::string &path, KeyFigure &out)
{
    if (!v.is_object())
        return KeyFigureProblem{path, "expected an object like {\"caption\": \"H2D copies run one after another\", "
                                      "\"kind\": \"h2d\"} (the lesson's one figure to look at)"};
    static const std::vector<std::string> keys = {"caption", "kind", "name", "lane"};
    for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string at = path + "/" + it.key();
        if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
            std::string message = "unknown key \"" + it.key() + "\" in a key figure";
            if (std::string near = didYouMean(it.key(), keys); !near.empty())
                message += near;
            else
                message += "; expected caption, kind, name or lane";
            return KeyFigureProblem{at, message};
        }
        if (!it.value().is_string())
            return KeyFigureProblem{at, "expected a string"};
    }
    const auto text = [&](const char *key) { return v.contains(key) ? v[key].get<std::string>() : std::string(); };
    KeyFigure figure{text("caption"), text("kind"), text("name"), text("lane")};
    if (figure.caption.empty())
        return KeyFigureProblem{v.contains("caption") ? path + "/caption" : path,
                                "a key figure needs a caption: the one thing to look at, in words"};
    if (!figure.kind.empty() && !opKindFromString(figure.kind)) {
        std::vector<std::string> kinds;
        kinds.reserve(kOpKinds.size());
        for (const OpKindInfo &k : kOpKinds)
            kinds.emplace_back(k.name);
        return KeyFigureProblem{path + "/kind",
                                "unknown op kind \"" + figure.kind + "\"" + didYouMean(figure.kind, kinds)};
    }
    out = std::move(figure);
    return std::nullopt;
}

std::string joinNames(const std::vector<std::string> &names)
{
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0)
            out += i + 1 == names.size() ? " or " : ", ";
        out += names[i];
    }
    return out;
}

// " (did you mean \"h_in\"?)", or when nothing is close and the names are few, what there is:
// "; the buffers are h_in, d_in".
std::string suggestName(const std::string &name, const std::vector<std::string> &names, std::string_view what)
{
    if (std::string near = didYouMean(name, names); !near.empty())
        return near;
    if (names.empty())
        return "; there are no " + std::string(what);
    if (names.size() == 1)
        return "; the only one is " + quote(names.front());
    if (names.size() <= 8) {
        std::vector<std::string> quoted;
        quoted.reserve(names.size());
        for (const std::string &n : names)
            quoted.push_back(quote(n));
        return "; the " + std::string(what) + " are " + joinNames(quoted);
    }
    return {};
}

// "a string", "the number 12", ... for "got ..." in messages.
std::string describeValue(const Json &v)
{
    std::string text = v.dump();
    if (text.size() > 40)
        text = text.substr(0, 37) + "...";
    switch (v.type()) {
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "the string " + text;
    case Json::value_t::boolean: return text;
    case Json::value_t::null: return "null";
    default: return "the number " + text;
    }
}

bool isHostKind(BufferKind k)
{
    return k == BufferKind::Pageable || k == BufferKind::Pinned || k == BufferKind::Registered;
}

std::string kindPhrase(const BufferSpec &b)
{
    return quote(b.name) + " is " + std::string(toString(b.kind)) + " memory";
}

CopyDirection inferDirection(BufferKind src, BufferKind dst)
{
    const bool srcHost = isHostKind(src), dstHost = isHostKind(dst);
    if (srcHost && dstHost)
        return CopyDirection::H2H;
    if (srcHost)
        return CopyDirection::H2D;
    if (dstHost)
        return CopyDirection::D2H;
    return CopyDirection::D2D;
}

std::string fileStem(std::string_view fileName)
{
    if (fileName.empty() || fileName.front() == '<')
        return "workload";
    std::string_view s = fileName;
    if (const auto slash = s.find_last_of("/\\"); slash != std::string_view::npos)
        s.remove_prefix(slash + 1);
    if (const auto dot = s.rfind('.'); dot != std::string_view::npos && dot > 0)
        s = s.substr(0, dot);
    return std::string(s);
}

// Consumes "/" and an array index at the front of `rest`.
bool skipIndex(std::string_view &rest)
{
    if (rest.size() < 2 || rest.front() != '/')
        return false;
    const std::size_t digits = std::min(rest.find_first_not_of("0123456789", 1), rest.size()) - 1;
    rest.remove_prefix(1 + digits);
    return digits > 0;
}

// "/schedule" and "/threads/N/schedule": issue orders, read from compact [stream, op] pairs, not a DOM
// (1M entries: 105 MB as a DOM, #24).
bool isSchedule(const std::string &pointer)
{
    constexpr std::string_view kThreads = "/threads", kSchedule = "/schedule";
    std::string_view rest = pointer;
    if (rest.starts_with(kThreads)) {
        rest.remove_prefix(kThreads.size());
        if (!skipIndex(rest))
            return false;
    }
    return rest == kSchedule;
}

// "/streams/N/ops" and a group's "/streams/N/ops/I/ops" (at any depth): op lists, read one op at a time
// from the text (JsonLocator::TextArray), never as the DOM of all of them (1M ops: 400 MB as a DOM, #24).
bool isOpList(const std::string &pointer)
{
    constexpr std::string_view kStreams = "/streams", kOps = "/ops";
    std::string_view rest = pointer;
    if (!rest.starts_with(kStreams))
        return false;
    rest.remove_prefix(kStreams.size());
    if (!skipIndex(rest) || !rest.starts_with(kOps))
        return false;
    rest.remove_prefix(kOps.size());
    while (!rest.empty()) {
        if (!skipIndex(rest) || !rest.starts_with(kOps))
            return false;
        rest.remove_prefix(kOps.size());
    }
    return true;
}

// "serial": true (the comparison axis schedule=serial): every stream after the first waits for the one before
// it, through an event recorded after that stream's last op, so nothing of two streams overlaps. Each thread
// issues its streams stream by stream, so that a wait always comes after the record it pairs with.
void serializeStreams(Workload &w)
{
    for (std::size_t i = 1; i < w.streams.size(); ++i) {
        const StreamSpec &before = w.streams[i - 1];
        const std::string event = "serial: " + before.name + " done";
        OpSpec record;
        record.type = OpType::EventRecord;
        record.event = event;
        record.name = "record " + event;
        record.jsonPath = "/serial";
        OpSpec wait = record;
        wait.type = OpType::EventWait;
        wait.name = "wait for " + before.name;
        w.streams[i - 1].ops.push_back(record);
        w.streams[i].ops.insert(w.streams[i].ops.begin(), wait);
    }
    w.issueOrder = IssueOrder::StreamOrder;
    for (ThreadSpec &t : w.threads)
        t.issueOrder = IssueOrder::StreamOrder;
    buildSchedule(w);
}

// What the readers of one workload share: the document, the issues found so far, and what has been read
// (the workload and the names declared, valid or not). WorkloadReader owns it; the section readers below
// work on it through a WorkloadReadContext.
struct WorkloadReadState {
    JsonLocator doc;
    std::vector<WorkloadIssue> issues;
    Workload workload;
    std::set<std::string> declaredBuffers; // includes buffers whose entry was invalid
    std::set<std::string> declaredStreams;
    bool hasThreads = false; // a version 2 file with "threads"
    std::set<std::string> suggestedKeys; // pointers of keys offered as "did you mean"
    std::size_t opsInFinishedStreams = 0;
    std::uint64_t opBytesInFinishedStreams = 0; // opFootprint of their ops, summed
    bool tooManyOps = false;
};

// The reading context every section reader derives from: located issues and typed access to JSON values
// over a shared WorkloadReadState (its members under the names the readers use).
class WorkloadReadContext {
protected:
    explicit WorkloadReadContext(WorkloadReadState &state) :
        m_doc(state.doc), m_issues(state.issues), m_w(state.workload), m_declaredBuffers(state.declaredBuffers),
        m_declaredStreams(state.declaredStreams), m_hasThreads(state.hasThreads), m_suggestedKeys(state.suggestedKeys),
        m_opsInFinishedStreams(state.opsInFinishedStreams), m_opBytesInFinishedStreams(state.opBytesInFinishedStreams),
        m_tooManyOps(state.tooManyOps)
    {
    }
    // The members refer into one WorkloadReadState: a copy would share it without owning it.
    WorkloadReadContext(const WorkloadReadContext &) = delete;
    WorkloadReadContext &operator=(const WorkloadReadContext &) = delete;

    // ---- issues
    void issueAt(const std::string &path, std::string message)
    {
        const TextPosition p = m_doc.valuePosition(path);
        m_issues.push_back({path, p.line, p.column, std::move(message)});
    }
    void issueAtKey(const std::string &path, std::string message)
    {
        const TextPosition p = m_doc.keyPosition(path);
        m_issues.push_back({path, p.line, p.column, std::move(message)});
    }
    int lineOf(const std::string &path) const { return m_doc.valuePosition(path).line; }
    // The op list at `path` (a stream's "ops" or a group's), an array kept in the text by read() (isOpList).
    JsonLocator::TextArray opList(const std::string &path) const { return m_doc.textArray(path).value(); }

    // ---- typed access; each returns nullopt when the key is absent or its value is invalid (then
    // an issue has been added). `required` adds a "missing" issue when absent.
    static const Json *member(const Json &obj, std::string_view key)
    {
        const auto it = obj.find(std::string(key));
        return it == obj.end() ? nullptr : &*it;
    }
    bool expectObject(const Json &v, const std::string &path, std::string_view what);
    void checkKeys(const Json &obj, const std::string &path, const std::vector<std::string> &allowed,
                   std::string_view what, const std::vector<std::string> &otherKnown = {});
    void missing(const std::string &path, std::string_view key, std::string_view what, std::string_view hint);
    std::optional<std::string> readString(const Json &obj, const std::string &path, std::string_view key, bool required,
                                          std::string_view what, std::string_view hint = {});
    std::optional<std::int64_t> readInt(const Json &obj, const std::string &path, std::string_view key,
                                        std::int64_t min, std::int64_t max, bool required, std::string_view what,
                                        std::string_view rangeHint = {});
    std::optional<bool> readBool(const Json &obj, const std::string &path, std::string_view key);
    std::optional<std::uint64_t> readBytes(const Json &obj, const std::string &path, std::string_view key,
                                           bool required, bool allowZero, std::string_view what);
    std::optional<std::int64_t> readDuration(const Json &obj, const std::string &path, std::string_view key,
                                             bool required, std::string_view what);
    template <typename E>
    std::optional<E> readEnum(const Json &obj, const std::string &path, std::string_view key, bool required,
                              std::string_view what, const std::vector<E> &excluded = {});
    std::optional<int> readLocation(const Json &obj, const std::string &path, std::string_view key);
    // A CUDA device index (0..63); strings such as "gpu1" or "cuda:1" are refused naming the index meant.
    std::optional<int> readDevice(const Json &obj, const std::string &path, std::string_view what);
    // Version 2 keys in a version 1 file: each one present is reported; true when there was none.
    bool versionTwoOnly(const Json &obj, const std::string &path, const std::vector<std::string> &keys,
                        std::string_view what);
    const BufferSpec *readBufferRef(const Json &obj, const std::string &path, std::string_view key,
                                    std::string_view what);

    std::string whereOf(const OpSpec &op) const; // "/streams/1/ops/3 (line 12)"
    // An op's span of `bytes` at `offset` in `b`; else an issue on the op's "bytes" (`opPath` + "/bytes").
    bool checkSpan(const BufferSpec &b, std::uint64_t offset, std::uint64_t bytes, const std::string &opPath,
                   std::string_view role);
    std::vector<std::string> bufferNames() const;
    std::vector<std::string> streamNames() const;

    JsonLocator &m_doc;
    std::vector<WorkloadIssue> &m_issues;
    Workload &m_w;
    std::set<std::string> &m_declaredBuffers;
    std::set<std::string> &m_declaredStreams;
    bool &m_hasThreads;
    std::set<std::string> &m_suggestedKeys;
    std::size_t &m_opsInFinishedStreams;
    std::uint64_t &m_opBytesInFinishedStreams;
    bool &m_tooManyOps;
};

// The ops of a stream: groups with their repeats (within the limits on ops and their memory), and each op by
// its type (copy, kernel, memset/prefetch/advise, sync).
class OpReader : WorkloadReadContext {
public:
    explicit OpReader(WorkloadReadState &state) : WorkloadReadContext(state) { }

    // `ops` is read one op at a time: the DOM of all of them never exists at once.
    void readOps(const JsonLocator::TextArray &ops, const std::string &path, std::vector<OpSpec> &out, int depth);

private:
    std::optional<OpSpec> readOp(const Json &o, const std::string &path, int line);
    void readCopy(const Json &o, const std::string &path, OpSpec &op);
    void readKernel(const Json &o, const std::string &path, OpSpec &op);
    void readGemm(const Json &o, const std::string &path, OpSpec &op, std::string_view what);
    void readCollective(const Json &o, const std::string &path, OpSpec &op);
    // memset, prefetch, advise: a buffer, an offset into it and a byte count (default: to its end)
    void readBufferSpan(const Json &o, const std::string &path, OpSpec &op, std::string_view what, bool managedOnly);
    void readSync(const Json &o, const std::string &path, OpSpec &op);
};

// Host threads (version 2) and issue orders: the workload's "schedule" and each thread's.
class ScheduleReader : WorkloadReadContext {
public:
    explicit ScheduleReader(WorkloadReadState &state) : WorkloadReadContext(state) { }

    // An explicit issue order over `streams` (all of them when empty); false when it was invalid.
    bool readSchedule(const Json &v, const std::string &path, const std::vector<int> &streams,
                      std::vector<ScheduledOp> &out);
    void readThreads(const Json &v, const std::string &path);
};

// The checks across sections once everything is read: default streams, the streams ops name, events
// (recorded before waited on, on one device and thread) and deadlocks between threads.
class WorkloadChecks : WorkloadReadContext {
public:
    explicit WorkloadChecks(WorkloadReadState &state) : WorkloadReadContext(state) { }

    void checkDefaultStreams();
    void checkStreamReferences();
    void checkEvents();
    // The collectives across the communicator's GPUs: the same calls in the same order on each (NCCL's rule),
    // sends paired with receives, one host thread per GPU, sizes that divide among the ranks.
    void checkCollectives();

private:
    void checkEventDevices();
    void checkDeadlocks(const std::vector<int> &paired);
};

// The reader of a whole workload file: the top level and its sections (buffers, pipeline, streams), handing
// ops, schedules and the final checks to the readers above.
class WorkloadReader : WorkloadReadState, WorkloadReadContext {
public:
    explicit WorkloadReader(std::string_view fileName) :
        WorkloadReadContext(static_cast<WorkloadReadState &>(*this)), m_fileName(fileName), m_ops(*this),
        m_schedule(*this), m_checks(*this)
    {
    }

    // The text goes to the document, which keeps it for positions; readBorrowed() keeps a view of it, which
    // the caller keeps alive while reading.
    Workload read(std::string &&text);
    Workload readBorrowed(std::string_view text);
    std::vector<WorkloadIssue> takeIssues();
    bool parsedJson() const { return m_parsedJson; } // the text was JSON the reader could parse

private:
    // ---- sections
    void readTop(const Json &root);
    void readCompare(const Json &v, const std::string &path);
    void readNccl(const Json &v, const std::string &path);
    void readBuffers(const Json &v, const std::string &path);
    void readPipeline(const Json &v, const std::string &path);
    void readStreams(const Json &v, const std::string &path);
    Workload readDocument(bool parsed);

    std::string m_fileName;
    bool m_parsedJson = false;
    bool m_serial = false; // "serial": true (serializeStreams)
    OpReader m_ops;
    ScheduleReader m_schedule;
    WorkloadChecks m_checks;
};

// ------------------------------------------------------------------------------------------------
// typed access

bool WorkloadReadContext::expectObject(const Json &v, const std::string &path, std::string_view what)
{
    if (v.is_object())
        return true;
    issueAt(path, "expected " + std::string(what) + " (a JSON object), got " + describeValue(v));
    return false;
}

void WorkloadReadContext::checkKeys(const Json &obj, const std::string &path, const std::vector<std::string> &allowed,
                                    std::string_view what, const std::vector<std::string> &otherKnown)
{
    for (const auto &[key, value] : obj.items()) {
        if (std::find(allowed.begin(), allowed.end(), key) != allowed.end())
            continue;
        const std::string keyPath = JsonLocator::child(path, key);
        if (std::find(otherKnown.begin(), otherKnown.end(), key) != otherKnown.end()) {
            issueAtKey(keyPath,
                       quote(key) + " does not apply to " + std::string(what) + ", which takes " + joinNames(allowed));
            continue;
        }
        std::string message = "unknown key " + quote(key) + " in " + std::string(what);
        if (const auto near = nearestName(key, allowed)) {
            message += " (did you mean " + quote(*near) + "?)";
            m_suggestedKeys.insert(JsonLocator::child(path, *near));
        } else
            message += "; expected " + joinNames(allowed);
        issueAtKey(keyPath, message);
    }
}

void WorkloadReadContext::missing(const std::string &path, std::string_view key, std::string_view what,
                                  std::string_view hint)
{
    // A misspelled key already reported with this key as the suggestion says it all.
    if (m_suggestedKeys.count(JsonLocator::child(path, key)))
        return;
    std::string message = "missing " + quote(key) + ": " + std::string(what) + " needs it";
    if (!hint.empty())
        message += " (" + std::string(hint) + ")";
    issueAt(JsonLocator::child(path, key), message);
}

std::optional<std::string> WorkloadReadContext::readString(const Json &obj, const std::string &path,
                                                           std::string_view key, bool required, std::string_view what,
                                                           std::string_view hint)
{
    const Json *v = member(obj, key);
    if (!v) {
        if (required)
            missing(path, key, what, hint);
        return std::nullopt;
    }
    const auto p = [&] { return JsonLocator::child(path, key); }; // only for issues
    if (!v->is_string()) {
        issueAt(p(), "expected a string" + (hint.empty() ? std::string() : " (" + std::string(hint) + ")") + ", got "
                         + describeValue(*v));
        return std::nullopt;
    }
    std::string s = v->get<std::string>();
    if (s.empty()) {
        issueAt(p(), "must not be empty");
        return std::nullopt;
    }
    return s;
}

std::optional<std::int64_t> WorkloadReadContext::readInt(const Json &obj, const std::string &path, std::string_view key,
                                                         std::int64_t min, std::int64_t max, bool required,
                                                         std::string_view what, std::string_view rangeHint)
{
    const Json *v = member(obj, key);
    if (!v) {
        if (required)
            missing(path, key, what, {});
        return std::nullopt;
    }
    const auto p = [&] { return JsonLocator::child(path, key); }; // only for issues
    const auto range = [&] { return "an integer from " + std::to_string(min) + " to " + std::to_string(max); };
    std::optional<std::int64_t> value;
    if (v->is_number_unsigned()) {
        const auto u = v->get<std::uint64_t>();
        value = u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                    ? std::numeric_limits<std::int64_t>::max()
                    : static_cast<std::int64_t>(u);
    } else if (v->is_number_integer()) {
        value = v->get<std::int64_t>();
    }
    if (!value) {
        issueAt(p(), "expected " + range() + ", got " + describeValue(*v));
        return std::nullopt;
    }
    if (*value < min || *value > max) {
        std::string message = std::to_string(*value) + " is out of range: expected " + range();
        if (!rangeHint.empty())
            message += " (" + std::string(rangeHint) + ")";
        issueAt(p(), message);
        return std::nullopt;
    }
    return value;
}

std::optional<bool> WorkloadReadContext::readBool(const Json &obj, const std::string &path, std::string_view key)
{
    const Json *v = member(obj, key);
    if (!v)
        return std::nullopt;
    if (!v->is_boolean()) {
        issueAt(JsonLocator::child(path, key), "expected true or false, got " + describeValue(*v));
        return std::nullopt;
    }
    return v->get<bool>();
}

std::optional<std::uint64_t> WorkloadReadContext::readBytes(const Json &obj, const std::string &path,
                                                            std::string_view key, bool required, bool allowZero,
                                                            std::string_view what)
{
    const Json *v = member(obj, key);
    if (!v) {
        if (required)
            missing(path, key, what, "a byte size such as 4096 or \"16 MiB\"");
        return std::nullopt;
    }
    const auto p = [&] { return JsonLocator::child(path, key); }; // only for issues
    std::optional<std::uint64_t> bytes;
    if (v->is_number_unsigned()) {
        bytes = v->get<std::uint64_t>();
    } else if (v->is_number_integer()) { // only negative integers land here
        issueAt(p(), "a size cannot be negative, got " + v->dump());
        return std::nullopt;
    } else if (v->is_string()) {
        const std::string s = v->get<std::string>();
        bytes = parseByteSize(s);
        if (!bytes) {
            if (s.find('-') != std::string::npos)
                issueAt(p(), "a size cannot be negative, got " + quote(s));
            else
                issueAt(p(), "expected a byte size such as 4096, \"64 KiB\", \"1.5 GiB\" or \"16 MB\" (a whole number "
                             "of bytes), got "
                                 + quote(s));
            return std::nullopt;
        }
    } else {
        issueAt(p(), "expected a byte size such as 4096 or \"16 MiB\", got " + describeValue(*v));
        return std::nullopt;
    }
    if (*bytes == 0 && !allowZero) {
        issueAt(p(), "must be more than 0 bytes");
        return std::nullopt;
    }
    return bytes;
}

std::optional<std::int64_t> WorkloadReadContext::readDuration(const Json &obj, const std::string &path,
                                                              std::string_view key, bool required,
                                                              std::string_view what)
{
    const Json *v = member(obj, key);
    if (!v) {
        if (required)
            missing(path, key, what, "a duration such as \"60 us\" or \"1 ms\"");
        return std::nullopt;
    }
    const auto p = [&] { return JsonLocator::child(path, key); }; // only for issues
    std::optional<std::int64_t> ns;
    if (v->is_number_unsigned()) {
        const auto u = v->get<std::uint64_t>();
        if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            ns = static_cast<std::int64_t>(u);
    } else if (v->is_number_integer()) {
        issueAt(p(), "a duration cannot be negative, got " + v->dump());
        return std::nullopt;
    } else if (v->is_string()) {
        const std::string s = v->get<std::string>();
        ns = parseDuration(s);
        if (!ns && s.find('-') != std::string::npos) {
            issueAt(p(), "a duration cannot be negative, got " + quote(s));
            return std::nullopt;
        }
        std::string lower = s;
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (!ns && parseDuration(lower)) {
            issueAt(p(), "duration units are lower case (ns, us, ms, s), got " + quote(s));
            return std::nullopt;
        }
    }
    if (!ns) {
        issueAt(p(), "expected a duration such as \"60 us\", \"1.5 ms\", \"2 s\" or a whole number of nanoseconds, got "
                         + describeValue(*v));
        return std::nullopt;
    }
    if (*ns == 0) {
        issueAt(p(), "must be longer than 0 ns");
        return std::nullopt;
    }
    return ns;
}

template <typename E>
std::optional<E> WorkloadReadContext::readEnum(const Json &obj, const std::string &path, std::string_view key,
                                               bool required, std::string_view what, const std::vector<E> &excluded)
{
    const Json *v = member(obj, key);
    if (v && v->is_string()) { // the usual case, a name allowed here: no list of names to build
        const auto e = enumFromName<E>(v->get_ref<const std::string &>());
        if (e && std::find(excluded.begin(), excluded.end(), *e) == excluded.end())
            return e;
    }
    std::vector<std::string> names;
    for (std::size_t i = 0; i < enumNames<E>().size(); ++i)
        if (std::find(excluded.begin(), excluded.end(), static_cast<E>(i)) == excluded.end())
            names.emplace_back(enumNames<E>()[i]);
    if (!v) {
        if (required)
            missing(path, key, what, "one of " + joinNames(names));
        return std::nullopt;
    }
    const std::string p = JsonLocator::child(path, key);
    if (!v->is_string()) {
        issueAt(p, "expected one of " + joinNames(names) + ", got " + describeValue(*v));
        return std::nullopt;
    }
    const std::string s = v->get<std::string>();
    if (std::find(names.begin(), names.end(), s) != names.end())
        return enumFromName<E>(s);
    if (enumFromName<E>(s)) {
        issueAt(p, quote(s) + " is not allowed for " + std::string(key) + " in " + std::string(what) + "; expected "
                       + joinNames(names));
        return std::nullopt;
    }
    std::string message = "unknown " + std::string(key) + " " + quote(s);
    if (const auto near = nearestName(s, names))
        message += " (did you mean " + quote(*near) + "?)";
    else
        message += "; expected " + joinNames(names);
    issueAt(p, message);
    return std::nullopt;
}

std::optional<int> WorkloadReadContext::readLocation(const Json &obj, const std::string &path, std::string_view key)
{
    const Json *v = member(obj, key);
    if (!v)
        return std::nullopt;
    const std::string p = JsonLocator::child(path, key);
    if (v->is_string()) {
        const std::string s = v->get<std::string>();
        if (s == "device")
            return m_w.device;
        if (s == "host")
            return -1;
        issueAt(p, "unknown location " + quote(s) + didYouMean(s, {"device", "host"})
                       + "; expected \"device\" (the workload's GPU), \"host\" or a device index");
        return std::nullopt;
    }
    if (v->is_number_integer() && v->get<std::int64_t>() >= -1 && v->get<std::int64_t>() <= kMaxDevice)
        return static_cast<int>(v->get<std::int64_t>());
    issueAt(p, "expected \"device\", \"host\" or a device index from 0 to " + std::to_string(kMaxDevice)
                   + " (-1 = host), got " + describeValue(*v));
    return std::nullopt;
}

std::optional<int> WorkloadReadContext::readDevice(const Json &obj, const std::string &path, std::string_view what)
{
    const Json *v = member(obj, "device");
    if (!v)
        return std::nullopt;
    const std::string p = JsonLocator::child(path, "device");
    if (v->is_string()) {
        // "gpu1", "cuda:1", "1": what other tools call a device; say which index that is.
        std::string s = v->get<std::string>();
        std::string digits;
        for (auto it = s.rbegin(); it != s.rend() && std::isdigit(static_cast<unsigned char>(*it)); ++it)
            digits.insert(digits.begin(), *it);
        std::string message = "expected a CUDA device index, a number from 0 to " + std::to_string(kMaxDevice)
                              + " (streamscope-cli devices lists them), got the string " + quote(s);
        if (!digits.empty() && digits.size() <= 2)
            message += " (did you mean " + std::to_string(std::stoi(digits)) + "?)";
        issueAt(p, message);
        return std::nullopt;
    }
    const auto d = readInt(obj, path, "device", 0, kMaxDevice, false, what,
                           "a CUDA device index; streamscope-cli devices lists the machine's");
    return d ? std::optional<int>(static_cast<int>(*d)) : std::nullopt;
}

bool WorkloadReadContext::versionTwoOnly(const Json &obj, const std::string &path, const std::vector<std::string> &keys,
                                         std::string_view what)
{
    if (m_w.version >= 2)
        return true;
    bool none = true;
    for (const std::string &key : keys)
        if (member(obj, key)) {
            issueAtKey(JsonLocator::child(path, key),
                       quote(key) + " in " + std::string(what)
                           + " is part of workload format version 2: write \"version\": 2 to use it");
            none = false;
        }
    return none;
}

std::string WorkloadReadContext::whereOf(const OpSpec &op) const
{
    std::string out = op.jsonPath;
    if (op.line > 0)
        out += " (line " + std::to_string(op.line) + ")";
    return out;
}

const BufferSpec *WorkloadReadContext::readBufferRef(const Json &obj, const std::string &path, std::string_view key,
                                                     std::string_view what)
{
    const auto name = readString(obj, path, key, true, what, "the name of a buffer");
    if (!name)
        return nullptr;
    if (const BufferSpec *b = m_w.findBuffer(*name))
        return b;
    if (m_declaredBuffers.count(*name) == 0) // an invalid buffer entry was reported already
        issueAt(JsonLocator::child(path, key),
                "no buffer named " + quote(*name) + suggestName(*name, bufferNames(), "buffers"));
    return nullptr;
}

bool WorkloadReadContext::checkSpan(const BufferSpec &b, std::uint64_t offset, std::uint64_t bytes,
                                    const std::string &opPath, std::string_view role)
{
    if (offset <= b.bytes && bytes <= b.bytes - offset)
        return true;
    issueAt(opPath + "/bytes", formatBytes(bytes) + " (" + std::to_string(bytes) + " bytes) at offset "
                                   + std::to_string(offset) + " runs past the end of " + std::string(role) + " "
                                   + quote(b.name) + ", which has " + formatBytes(b.bytes) + " ("
                                   + std::to_string(b.bytes) + " bytes)");
    return false;
}

std::vector<std::string> WorkloadReadContext::bufferNames() const
{
    return {m_declaredBuffers.begin(), m_declaredBuffers.end()};
}

std::vector<std::string> WorkloadReadContext::streamNames() const
{
    std::vector<std::string> names;
    for (const StreamSpec &s : m_w.streams)
        names.push_back(s.name);
    return names;
}

// ------------------------------------------------------------------------------------------------
// sections

Workload WorkloadReader::read(std::string &&text)
{
    m_doc.keepPairListsCompact(isSchedule);
    m_doc.keepArraysInText(isOpList);
    return readDocument(m_doc.parseOwned(std::move(text)));
}

Workload WorkloadReader::readBorrowed(std::string_view text)
{
    m_doc.keepPairListsCompact(isSchedule);
    m_doc.keepArraysInText(isOpList);
    return readDocument(m_doc.parseBorrowed(text));
}

Workload WorkloadReader::readDocument(bool parsed)
{
    m_parsedJson = parsed;
    if (!parsed) {
        const TextPosition p = m_doc.syntaxErrorPosition();
        m_issues.push_back({"", p.line, p.column, "invalid JSON: " + m_doc.syntaxError()});
        return std::move(m_w);
    }
    for (const std::string &dup : m_doc.duplicateKeys())
        issueAtKey(dup, "duplicate key " + quote(dup.substr(dup.rfind('/') + 1))
                            + ": it is already set earlier in this object");
    readTop(m_doc.root());
    if (m_serial && m_issues.empty())
        serializeStreams(m_w);
    // What a CUDA graph cannot hold, or would hold changed (capture_check.h), once the rest is right.
    if (m_w.launch == LaunchMode::Graph && m_issues.empty())
        for (const CaptureProblem &problem : captureProblems(m_w))
            issueAt(problem.jsonPath, problem.message);
    // Moved out, not copied (a million ops are hundreds of megabytes): read() is the reader's last use of it.
    return std::move(m_w);
}

std::vector<WorkloadIssue> WorkloadReader::takeIssues()
{
    // Repeated ops report the same issue once per copy: keep one.
    std::vector<WorkloadIssue> out;
    std::set<std::pair<std::string, std::string>> seen;
    for (WorkloadIssue &i : m_issues)
        if (seen.insert({i.jsonPath, i.message}).second)
            out.push_back(std::move(i));
    std::stable_sort(out.begin(), out.end(), [](const WorkloadIssue &a, const WorkloadIssue &b) {
        const int la = a.line > 0 ? a.line : std::numeric_limits<int>::max();
        const int lb = b.line > 0 ? b.line : std::numeric_limits<int>::max();
        return la != lb ? la < lb : a.column < b.column;
    });
    return out;
}

void WorkloadReader::readTop(const Json &root)
{
    const std::string path;
    if (!expectObject(root, path, "a workload"))
        return;
    // The version decides how the rest reads: check it alone first, and stop if it is not ours.
    const Json *version = member(root, "version");
    if (!version) {
        issueAt("/version", "missing \"version\": a workload file must say which format it uses, "
                            "\"version\": 1");
        return;
    }
    if (!version->is_number_integer() || version->get<std::int64_t>() < 1
        || version->get<std::int64_t>() > kWorkloadFormatVersion) {
        issueAt("/version", "unsupported version " + version->dump() + ": this StreamScope reads workload format "
                                + "versions 1 and " + std::to_string(kWorkloadFormatVersion));
        return;
    }
    m_w.version = static_cast<int>(version->get<std::int64_t>());

    static const std::vector<std::string> kTopKeys = {
        "version",        "name",       "description", "device",      "peerAccess", "defaultStream",
        "maxConnections", "issueOrder", "warmup",      "repetitions", "timeLimit",  "buffers",
        "streams",        "threads",    "schedule",    "pipeline",    "compare",    "keyFigure",
        "solo",           "serial",     "nccl",        "launch"};
    versionTwoOnly(root, path, {"threads", "peerAccess"}, "a workload");
    checkKeys(root, path, kTopKeys, "a workload");
    m_w.name = readString(root, path, "name", false, "a workload").value_or(fileStem(m_fileName));
    if (const Json *d = member(root, "description"); d && !d->is_string())
        issueAt("/description", "expected a string (the lesson's \"what to look for\" text), got " + describeValue(*d));
    else if (d)
        m_w.description = d->get<std::string>();
    m_w.device = readDevice(root, path, "a workload").value_or(0);
    m_w.peerAccess = readEnum<PeerAccess>(root, path, "peerAccess", false, "a workload").value_or(PeerAccess::On);
    m_w.defaultStream = readEnum<DefaultStreamMode>(root, path, "defaultStream", false, "a workload")
                            .value_or(DefaultStreamMode::Legacy);
    m_w.maxConnections =
        static_cast<int>(readInt(root, path, "maxConnections", 1, 32, false, "a workload").value_or(0));
    m_w.launch = readEnum<LaunchMode>(root, path, "launch", false, "a workload").value_or(LaunchMode::Streams);
    if (const Json *nccl = member(root, "nccl"))
        readNccl(*nccl, "/nccl");
    m_w.issueOrder =
        readEnum<IssueOrder>(root, path, "issueOrder", false, "a workload").value_or(IssueOrder::RoundRobin);
    m_w.warmup = static_cast<int>(readInt(root, path, "warmup", 0, kMaxWarmup, false, "a workload").value_or(1));
    m_w.repetitions =
        static_cast<int>(readInt(root, path, "repetitions", 1, kMaxRepetitions, false, "a workload").value_or(5));
    m_w.timeLimitNs = readDuration(root, path, "timeLimit", false, "a workload").value_or(0);
    m_w.solo = readBool(root, path, "solo").value_or(false);
    m_serial = readBool(root, path, "serial").value_or(false);
    if (m_serial && m_w.solo)
        issueAt("/serial", "\"serial\" makes every stream wait for the one before it, so no part could run alone: "
                           "it cannot be combined with \"solo\"");

    if (const Json *compare = member(root, "compare"))
        readCompare(*compare, "/compare");
    if (const Json *figure = member(root, "keyFigure"))
        if (const auto problem = readKeyFigure(*figure, "/keyFigure", m_w.keyFigure))
            issueAt(problem->pointer, problem->message);

    if (const Json *pipeline = member(root, "pipeline")) {
        for (const char *key : {"buffers", "streams", "issueOrder", "schedule", "threads"})
            if (member(root, key))
                issueAtKey(JsonLocator::child("", key),
                           quote(key)
                               + " cannot be combined with \"pipeline\", which generates its own buffers, "
                                 "streams and issue order");
        readPipeline(*pipeline, "/pipeline");
        return;
    }

    const Json *threads = m_w.version >= 2 ? member(root, "threads") : nullptr;
    m_hasThreads = threads != nullptr;
    if (const Json *buffers = member(root, "buffers"))
        readBuffers(*buffers, "/buffers");
    const Json *streams = member(root, "streams");
    if (!streams) {
        issueAt("/streams", "missing \"streams\": a workload needs a list of streams with their ops, or a "
                            "\"pipeline\"");
        return;
    }
    readStreams(*streams, "/streams");
    if (m_tooManyOps)
        return;
    if (threads) {
        if (member(root, "schedule"))
            issueAtKey("/schedule", "with \"threads\", each thread has its own issue order: move the "
                                    "\"schedule\" into the thread that issues those streams' ops");
        m_schedule.readThreads(*threads, "/threads");
    } else if (const Json *schedule = member(root, "schedule")) {
        m_schedule.readSchedule(*schedule, "/schedule", {}, m_w.schedule);
    } else {
        buildSchedule(m_w);
    }
    m_checks.checkDefaultStreams();
    m_checks.checkStreamReferences();
    // Event order is only meaningful once every op is right (an invalid record would show up as a
    // wait on an event never recorded).
    if (m_issues.empty())
        m_checks.checkEvents();
    if (m_issues.empty())
        m_checks.checkCollectives();
}

void WorkloadReader::readNccl(const Json &v, const std::string &path)
{
    const std::string what = "the NCCL settings";
    if (!expectObject(v, path, what))
        return;
    checkKeys(v, path, {"minCTAs", "maxCTAs", "ctaPolicy", "algo", "proto", "symmetric"}, what);
    NcclSettings &n = m_w.nccl;
    const std::string_view ctas = "thread blocks (channels) a collective may use, 1 to 64";
    n.minCTAs = static_cast<int>(readInt(v, path, "minCTAs", 1, 64, false, what, ctas).value_or(0));
    n.maxCTAs = static_cast<int>(readInt(v, path, "maxCTAs", 1, 64, false, what, ctas).value_or(0));
    if (n.minCTAs > 0 && n.maxCTAs > 0 && n.minCTAs > n.maxCTAs)
        issueAt(JsonLocator::child(path, "minCTAs"),
                "minCTAs " + std::to_string(n.minCTAs) + " is above maxCTAs " + std::to_string(n.maxCTAs));
    static const std::vector<std::string> kPolicies = {"default", "efficiency", "zero"};
    if (const auto policy = readString(v, path, "ctaPolicy", false, what)) {
        if (std::find(kPolicies.begin(), kPolicies.end(), *policy) == kPolicies.end())
            issueAt(JsonLocator::child(path, "ctaPolicy"), "unknown CTA policy " + quote(*policy)
                                                               + didYouMean(*policy, kPolicies)
                                                               + ": one of \"default\", \"efficiency\", \"zero\"");
        else
            n.ctaPolicy = *policy;
    }
    n.symmetric = readBool(v, path, "symmetric").value_or(false);
    // NCCL_ALGO and NCCL_PROTO take lists with exclusions ("^NVLS", "Ring,Tree"): NCCL checks them itself;
    // here only what could never be one (a character outside NCCL's list syntax).
    for (const char *key : {"algo", "proto"}) {
        const auto value = readString(v, path, key, false, what);
        if (!value)
            continue;
        const bool fine = !value->empty() && std::all_of(value->begin(), value->end(), [](char ch) {
            return std::isalnum(static_cast<unsigned char>(ch)) || ch == ',' || ch == '^' || ch == '_' || ch == ':';
        });
        if (!fine)
            issueAt(JsonLocator::child(path, key),
                    quote(*value) + " is not a list of NCCL "
                        + (std::string_view(key) == "algo" ? "algorithms (\"Ring\", \"Tree\", \"NVLS\", ...)"
                                                           : "protocols (\"LL\", \"LL128\", \"Simple\")"));
        else
            (std::string_view(key) == "algo" ? n.algo : n.proto) = *value;
    }
}

void WorkloadReader::readCompare(const Json &v, const std::string &path)
{
    if (!v.is_array()) {
        issueAt(path, "expected an array of comparison axes like [\"memory=pageable,pinned\", \"api=sync,async\"] "
                      "(what `streamscope-cli compare --vary` takes), got "
                          + describeValue(v));
        return;
    }
    std::vector<Axis> seen;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string at = path + "/" + std::to_string(i);
        if (!v[i].is_string()) {
            issueAt(at, "expected a string such as \"streams=1,2,4\", got " + describeValue(v[i]));
            continue;
        }
        try {
            AxisValues axis = parseVaryOption(v[i].get<std::string>());
            if (std::find(seen.begin(), seen.end(), axis.axis) != seen.end()) {
                issueAt(at, "the axis " + std::string(toString(axis.axis))
                                + " is already varied; give all its "
                                  "values in one entry");
                continue;
            }
            seen.push_back(axis.axis);
            m_w.compare.push_back(v[i].get<std::string>());
        } catch (const Error &e) {
            issueAt(at, e.what());
        }
    }
}

void WorkloadReader::readBuffers(const Json &v, const std::string &path)
{
    if (!v.is_array()) {
        issueAt(path, "expected an array of buffers like [{\"name\": \"h_in\", \"kind\": \"pinned\", \"bytes\": "
                      "\"16 MiB\"}], got "
                          + describeValue(v));
        return;
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string p = JsonLocator::child(path, i);
        const Json &b = v[i];
        if (!expectObject(b, p, "a buffer like {\"name\": \"h_in\", \"kind\": \"pinned\", \"bytes\": \"16 MiB\"}"))
            continue;
        versionTwoOnly(b, p, {"device"}, "a buffer");
        checkKeys(b, p, {"name", "kind", "bytes", "device"}, "a buffer");
        const auto name = readString(b, p, "name", true, "a buffer");
        const auto kind = readEnum<BufferKind>(b, p, "kind", true, "a buffer");
        const auto bytes = readBytes(b, p, "bytes", true, false, "a buffer");
        const auto device = m_w.version >= 2 ? readDevice(b, p, "a buffer") : std::nullopt;
        if (device && kind && isHostKind(*kind)) {
            issueAt(p + "/device", quote(std::string(toString(*kind)))
                                       + " memory is host memory, which every GPU reaches: only device and managed "
                                         "buffers have a device");
            continue;
        }
        if (name && !m_declaredBuffers.insert(*name).second) {
            issueAt(p + "/name", "a buffer named " + quote(*name) + " is already declared");
            continue;
        }
        if (bytes && *bytes > limits::kMaxBufferBytes) {
            issueAt(p + "/bytes", formatBytes(*bytes) + " is more than StreamScope allocates for one buffer (at most "
                                      + limits::describeBytes(limits::kMaxBufferBytes) + ")");
            continue;
        }
        if (name && kind && bytes)
            m_w.buffers.push_back({*name, *kind, *bytes, device.value_or(-1)});
    }
    // Saturating: 4 x 8 EiB once added up to "0 B".
    std::uint64_t device = 0, host = 0;
    for (const BufferSpec &b : m_w.buffers) {
        std::uint64_t &total = isHostKind(b.kind) ? host : device;
        total = saturatingAdd(total, b.bytes);
    }
    for (const auto &[total, what] : {std::pair{device, "device and managed"}, std::pair{host, "host"}})
        if (total > limits::kMaxBufferBytes)
            issueAt(path, std::string("the ") + what + " buffers add up to " + formatBytes(total)
                              + ", more than StreamScope allocates (at most "
                              + limits::describeBytes(limits::kMaxBufferBytes) + " of each)");
}

void WorkloadReader::readPipeline(const Json &v, const std::string &path)
{
    if (!expectObject(v, path, "a pipeline"))
        return;
    checkKeys(v, path, {"bytes", "chunks", "streams", "order", "hostMemory", "api", "flags", "kernel"}, "a pipeline");
    PipelineSpec spec;
    bool ok = true;
    const auto bytes = readBytes(v, path, "bytes", true, false, "a pipeline");
    const auto chunks = readInt(v, path, "chunks", 1, kMaxChunks, true, "a pipeline");
    const auto streams = readInt(v, path, "streams", 1, kMaxChunks, false, "a pipeline");
    ok = bytes && chunks && (streams || !member(v, "streams"));
    if (const Json *order = member(v, "order")) {
        const std::string p = path + "/order";
        const std::vector<std::string> names = {"depth-first", "breadth-first"};
        if (order->is_string() && order->get<std::string>() == names[0]) {
            spec.order = PipelineOrder::DepthFirst;
        } else if (order->is_string() && order->get<std::string>() == names[1]) {
            spec.order = PipelineOrder::BreadthFirst;
        } else {
            ok = false;
            const std::string s = order->is_string() ? order->get<std::string>() : std::string();
            issueAt(p, "unknown order " + (order->is_string() ? quote(s) : describeValue(*order)) + didYouMean(s, names)
                           + "; expected \"depth-first\" (per chunk: H2D, kernel, D2H) or "
                             "\"breadth-first\" (all H2D, all kernels, all D2H)");
        }
    }
    const Json *hostMemory = member(v, "hostMemory");
    const auto host =
        readEnum<BufferKind>(v, path, "hostMemory", false, "a pipeline", {BufferKind::Managed, BufferKind::Device});
    ok = ok && (host || !hostMemory);
    spec.hostMemory = host.value_or(BufferKind::Pinned);
    const auto api = readEnum<CopyApi>(v, path, "api", false, "a pipeline", {CopyApi::None});
    ok = ok && (api || !member(v, "api"));
    spec.api = api.value_or(CopyApi::Async);
    const auto flags = readEnum<StreamFlags>(v, path, "flags", false, "a pipeline");
    ok = ok && (flags || !member(v, "flags"));
    spec.flags = flags.value_or(StreamFlags::NonBlocking);

    const Json *kernel = member(v, "kernel");
    const std::string kp = path + "/kernel";
    if (!kernel) {
        missing(path, "kernel", "a pipeline",
                "{\"type\": \"compute\", \"duration\": \"60 us\"} or {\"type\": \"memory\"}");
        ok = false;
    } else if (!expectObject(*kernel, kp, "a pipeline kernel")) {
        ok = false;
    } else {
        std::vector<KernelType> notInPipelines; // the kernel-type table says which may be one
        for (const KernelTypeInfo &row : kernelTypes())
            if (!row.pipeline)
                notInPipelines.push_back(row.type);
        const auto type = readEnum<KernelType>(*kernel, kp, "type", true, "a pipeline kernel", notInPipelines);
        ok = ok && type;
        spec.kernelType = type.value_or(KernelType::Compute);
        if (spec.kernelType == KernelType::Compute) {
            checkKeys(*kernel, kp, {"type", "duration", "blocks", "threads"}, "a compute kernel");
            const auto ns = readDuration(*kernel, kp, "duration", true, "a compute kernel");
            ok = ok && ns;
            spec.kernelNs = ns.value_or(0);
        } else {
            checkKeys(*kernel, kp, {"type", "blocks", "threads"}, "a pipeline memory kernel (it streams its chunk)",
                      {"duration"});
        }
        const auto blocks = readInt(*kernel, kp, "blocks", 1, kMaxBlocks, false, "a kernel");
        const auto threads = readInt(*kernel, kp, "threads", 1, kMaxThreadsPerBlock, false, "a kernel",
                                     "a block has at most 1024 threads");
        ok = ok && (blocks || !member(*kernel, "blocks")) && (threads || !member(*kernel, "threads"));
        spec.blocks = static_cast<int>(blocks.value_or(64));
        spec.threadsPerBlock = static_cast<int>(threads.value_or(256));
    }
    if (!ok)
        return;
    spec.totalBytes = *bytes;
    spec.chunks = static_cast<int>(*chunks);
    spec.streams = static_cast<int>(streams.value_or(*chunks));
    if (spec.totalBytes % static_cast<std::uint64_t>(spec.chunks) != 0) {
        issueAt(path + "/chunks", std::to_string(spec.totalBytes) + " bytes do not split into "
                                      + std::to_string(spec.chunks)
                                      + " equal chunks: choose a chunk count that "
                                        "divides \"bytes\"");
        return;
    }
    if (spec.streams > spec.chunks) {
        issueAt(path + "/streams", std::to_string(spec.streams) + " streams for " + std::to_string(spec.chunks)
                                       + " chunks would leave streams without work: use at most "
                                       + std::to_string(spec.chunks) + " streams");
        return;
    }
    generatePipeline(m_w, spec, path, lineOf(path));
    if (spec.kernelType == KernelType::Compute) // generated op jsonPaths point at what made them
        for (StreamSpec &s : m_w.streams)
            for (OpSpec &op : s.ops)
                if (op.type == OpType::Kernel) {
                    op.jsonPath = kp;
                    op.line = lineOf(kp);
                }
}

void WorkloadReader::readStreams(const Json &v, const std::string &path)
{
    if (!v.is_array()) {
        issueAt(path,
                "expected an array of streams like [{\"name\": \"s0\", \"ops\": [...]}], got " + describeValue(v));
        return;
    }
    if (v.empty()) {
        issueAt(path, "a workload needs at least one stream");
        return;
    }
    int defaultStreamIndex = -1;
    for (std::size_t i = 0; i < v.size() && !m_tooManyOps; ++i) {
        const std::string p = JsonLocator::child(path, i);
        const Json &s = v[i];
        if (!expectObject(s, p, "a stream like {\"name\": \"s0\", \"ops\": [...]}"))
            continue;
        versionTwoOnly(s, p, {"device"}, "a stream");
        checkKeys(s, p, {"name", "device", "flags", "priority", "useDefaultStream", "part", "ops"}, "a stream");
        StreamSpec stream;
        stream.name = readString(s, p, "name", false, "a stream").value_or("stream" + std::to_string(i));
        if (m_w.version >= 2)
            stream.device = readDevice(s, p, "a stream").value_or(-1);
        if (!m_declaredStreams.insert(stream.name).second)
            issueAt(p + "/name", "a stream named " + quote(stream.name) + " is already declared");
        stream.part = readString(s, p, "part", false, "a stream").value_or("");
        if (member(s, "part") && stream.part.empty())
            issueAt(p + "/part", "a part needs a name (the streams that run alone together under `run --solo`)");
        stream.useDefaultStream = readBool(s, p, "useDefaultStream").value_or(false);
        if (stream.useDefaultStream) {
            // With threads, one per thread (each thread has its own per-thread default stream): checked
            // once the threads are read.
            if (defaultStreamIndex >= 0 && !m_hasThreads)
                issueAt(p + "/useDefaultStream", "stream " + std::to_string(defaultStreamIndex)
                                                     + " already uses the default stream: there is only one");
            defaultStreamIndex = static_cast<int>(i);
            for (const char *key : {"flags", "priority"})
                if (member(s, key))
                    issueAtKey(JsonLocator::child(p, key),
                               quote(key) + " does not apply to the default stream, which CUDA creates itself");
        }
        stream.flags = readEnum<StreamFlags>(s, p, "flags", false, "a stream").value_or(StreamFlags::NonBlocking);
        stream.priority = static_cast<int>(
            readInt(s, p, "priority", kMinPriority, 0, false, "a stream",
                    "CUDA priorities are 0 or negative, lower is more urgent; the device's range is typically -5..0")
                .value_or(0));
        const Json *ops = member(s, "ops");
        if (!ops) {
            missing(p, "ops", "a stream", "a list of operations");
        } else if (!ops->is_array()) {
            issueAt(p + "/ops", "expected an array of ops like [{\"op\": \"kernel\", \"duration\": \"1 ms\"}], got "
                                    + describeValue(*ops));
        } else if (const JsonLocator::TextArray list = opList(p + "/ops"); list.size() == 0) {
            issueAt(p + "/ops", "a stream needs at least one op");
        } else {
            m_ops.readOps(list, p + "/ops", stream.ops, 0);
        }
        if (stream.useDefaultStream)
            for (const OpSpec &op : stream.ops)
                if (op.type == OpType::Attach && op.attach == AttachKind::Single)
                    issueAt(op.jsonPath + "/mode", "cudaStreamAttachMemAsync with \"single\" needs a stream of its "
                                                   "own, not the default stream: use \"global\" or \"host\"");
        m_opsInFinishedStreams += stream.ops.size();
        for (const OpSpec &op : stream.ops)
            m_opBytesInFinishedStreams += opFootprint(op);
        m_w.streams.push_back(std::move(stream));
    }
}

void OpReader::readOps(const JsonLocator::TextArray &ops, const std::string &path, std::vector<OpSpec> &out, int depth)
{
    std::uint64_t outBytes = 0;
    for (const OpSpec &op : out)
        outBytes += opFootprint(op);
    // A stream's list written out op by op (1M of them, #24) makes one op per element: room for them at once
    // instead of moving every op each time the vector doubles. Never more than the ops' memory limit lets
    // be kept (elements that are no op make none: the room left is address space, not memory).
    if (depth == 0 && out.empty())
        out.reserve(std::min<std::size_t>(ops.size(), (kMaxOpBytes - std::min(m_opBytesInFinishedStreams, kMaxOpBytes))
                                                          / sizeof(OpSpec)));
    std::vector<OpSpec> unit; // the ops of one element (a group's, repeats not expanded)
    for (std::size_t i = 0; i < ops.size() && !m_tooManyOps; ++i) {
        const std::string p = JsonLocator::child(path, i);
        const Json item = ops.element(i); // this op's DOM alone, freed at the end of the iteration
        if (!expectObject(item, p, "an op like {\"op\": \"copy\", ...} or a group {\"repeat\": 4, \"ops\": [...]}"))
            continue;
        // Reused from op to op; a large group's room is given back.
        if (unit.capacity() > kUnitRoom)
            std::vector<OpSpec>().swap(unit);
        unit.clear();
        if (!member(item, "op") && member(item, "ops")) {
            checkKeys(item, p, {"repeat", "ops"}, "a group of ops");
            const Json &inner = item["ops"];
            if (depth + 1 >= kMaxGroupDepth)
                issueAt(p, "groups nest deeper than " + std::to_string(kMaxGroupDepth) + " levels");
            else if (!inner.is_array() || opList(p + "/ops").size() == 0)
                issueAt(p + "/ops", "expected a non-empty array of ops, got " + describeValue(inner));
            else
                readOps(opList(p + "/ops"), p + "/ops", unit, depth + 1);
        } else if (auto op = readOp(item, p, ops.elementLine(i))) {
            fitStrings(*op);
            unit.push_back(std::move(*op));
        }
        const auto repeat = readInt(item, p, "repeat", 1, kMaxRepeat, false, "an op").value_or(1);
        if (unit.empty())
            continue;
        const std::string at = member(item, "repeat") ? p + "/repeat" : p;
        const std::size_t already = m_opsInFinishedStreams + out.size();
        if (unit.size() > (kMaxOps - std::min(already, kMaxOps)) / static_cast<std::size_t>(repeat)) {
            issueAt(at, "this makes more than " + std::to_string(kMaxOps) + " ops in the workload; repeat fewer times");
            m_tooManyOps = true;
            return;
        }
        // Bytes before copies: unitBytes * repeat cannot wrap (at most kMaxOpBytes-sized units, each
        // op's strings bounded by the 64 MiB file, times at most kMaxRepeat).
        std::uint64_t unitBytes = 0;
        for (const OpSpec &op : unit)
            unitBytes += opFootprint(op);
        const std::uint64_t alreadyBytes = m_opBytesInFinishedStreams + outBytes;
        const std::uint64_t room = kMaxOpBytes - std::min(alreadyBytes, kMaxOpBytes);
        if (unitBytes > room / static_cast<std::uint64_t>(repeat)) {
            const std::string each =
                unit.size() == 1 ? "an op of " + formatBytes(unitBytes)
                                 : std::to_string(unit.size()) + " ops of " + formatBytes(unitBytes) + " together";
            issueAt(at, (repeat > 1 ? std::to_string(repeat) + " times " : std::string()) + each
                            + " makes the workload's ops take more than " + formatBytes(kMaxOpBytes)
                            + " of memory, the most StreamScope reads (after repeats, names and JSON paths "
                              "included); repeat fewer times or shorten the names");
            m_tooManyOps = true;
            return;
        }
        // Room for every copy at once (a repeat of a million would otherwise double the vector twenty times,
        // each time holding the old and the new), growing geometrically still for op after op.
        if (const std::size_t needed = out.size() + unit.size() * static_cast<std::size_t>(repeat);
            needed > out.capacity())
            out.reserve(std::max(needed, 2 * out.capacity()));
        for (std::int64_t r = 1; r < repeat; ++r)
            out.insert(out.end(), unit.begin(), unit.end());
        out.insert(out.end(), std::make_move_iterator(unit.begin()),
                   std::make_move_iterator(unit.end())); // the last copy
        outBytes += unitBytes * static_cast<std::uint64_t>(repeat);
    }
    if (depth == 0 && out.capacity() > 2 * out.size() + kUnitRoom) // elements that made no op: no room kept for them
        out.shrink_to_fit();
}

std::optional<OpSpec> OpReader::readOp(const Json &o, const std::string &path, int line)
{
    const auto type = readEnum<OpType>(o, path, "op", true, "an op");
    if (!type)
        return std::nullopt; // missing or unknown, reported
    OpSpec op;
    op.type = *type;
    op.jsonPath = path;
    op.line = line;
    const std::size_t issuesBefore = m_issues.size();
    const std::vector<std::string> common = {"op", "name", "repeat"};
    const auto keys = [&](std::vector<std::string> specific) {
        specific.insert(specific.begin(), common.begin(), common.end());
        return specific;
    };
    static const std::vector<std::string> kAllOpKeys = {
        "direction", "api",    "src",    "dst",     "srcOffset", "dstOffset", "bytes",  "type",   "duration",
        "buffer",    "offset", "blocks", "threads", "value",     "event",     "target", "stream", "location",
        "advice",    "mode",   "peer",   "count",   "dtype",     "reduce",    "root"};
    const std::string what = "a " + std::string(toString(*type)) + " op";

    switch (*type) {
    case OpType::Copy:
        versionTwoOnly(o, path, {"peer"}, what);
        checkKeys(o, path, keys({"direction", "api", "src", "dst", "srcOffset", "dstOffset", "bytes", "peer"}), what,
                  kAllOpKeys);
        readCopy(o, path, op);
        break;
    case OpType::Kernel: readKernel(o, path, op); break;
    case OpType::Memset:
        checkKeys(o, path, keys({"buffer", "offset", "bytes", "value"}), what, kAllOpKeys);
        readBufferSpan(o, path, op, what, false);
        op.value =
            static_cast<int>(readInt(o, path, "value", 0, 255, false, what, "cudaMemset sets bytes").value_or(0));
        break;
    case OpType::EventRecord:
    case OpType::EventWait:
        checkKeys(o, path, keys({"event"}), what, kAllOpKeys);
        op.event = readString(o, path, "event", true, what, "an event name").value_or("");
        break;
    case OpType::Sync:
        checkKeys(o, path, keys({"target", "stream", "event"}), what, kAllOpKeys);
        readSync(o, path, op);
        break;
    case OpType::Prefetch:
        checkKeys(o, path, keys({"buffer", "offset", "bytes", "location"}), what, kAllOpKeys);
        readBufferSpan(o, path, op, what, true);
        op.location = readLocation(o, path, "location").value_or(m_w.device);
        break;
    case OpType::Advise:
        checkKeys(o, path, keys({"buffer", "offset", "bytes", "advice", "location"}), what, kAllOpKeys);
        readBufferSpan(o, path, op, what, true);
        op.advise = readEnum<AdviseKind>(o, path, "advice", true, what).value_or(AdviseKind::SetReadMostly);
        op.location = readLocation(o, path, "location").value_or(m_w.device);
        break;
    case OpType::Attach:
        checkKeys(o, path, keys({"buffer", "mode"}), what, kAllOpKeys);
        if (const BufferSpec *b = readBufferRef(o, path, "buffer", what)) {
            op.buffer = b->name;
            if (b->kind != BufferKind::Managed)
                issueAt(path + "/buffer", "cudaStreamAttachMemAsync needs managed memory, but " + kindPhrase(*b));
        }
        op.attach = readEnum<AttachKind>(o, path, "mode", false, what).value_or(AttachKind::Single);
        break;
    case OpType::HostWork:
        checkKeys(o, path, keys({"duration"}), what, kAllOpKeys);
        op.hostNs = readDuration(o, path, "duration", true, what).value_or(0);
        break;
    case OpType::Collective:
        checkKeys(o, path, keys({"type", "bytes", "count", "dtype", "reduce", "root", "peer"}), "a collective",
                  kAllOpKeys);
        readCollective(o, path, op);
        break;
    }
    if (const auto name = readString(o, path, "name", false, what))
        op.name = *name;
    else if (m_issues.size() == issuesBefore)
        op.name = describe(op, m_w);
    return op;
}

void OpReader::readCopy(const Json &o, const std::string &path, OpSpec &op)
{
    const std::string what = "a copy";
    const BufferSpec *src = readBufferRef(o, path, "src", what);
    const BufferSpec *dst = readBufferRef(o, path, "dst", what);
    op.src = src ? src->name : std::string();
    op.dst = dst ? dst->name : std::string();
    op.srcOffset = readBytes(o, path, "srcOffset", false, true, what).value_or(0);
    op.dstOffset = readBytes(o, path, "dstOffset", false, true, what).value_or(0);
    const auto bytes = readBytes(o, path, "bytes", false, false, what);
    const auto direction = readEnum<CopyDirection>(o, path, "direction", false, what);
    op.api = readEnum<CopyApi>(o, path, "api", false, what, {CopyApi::None}).value_or(CopyApi::Async);
    if (!src || !dst) {
        op.direction = direction.value_or(CopyDirection::H2D);
        op.bytes = bytes.value_or(0);
        return;
    }
    const bool srcDeviceMemory = src->kind == BufferKind::Device, dstDeviceMemory = dst->kind == BufferKind::Device;
    const int srcDevice = m_w.bufferDevice(*src), dstDevice = m_w.bufferDevice(*dst);
    CopyDirection inferred = inferDirection(src->kind, dst->kind);
    if (srcDeviceMemory && dstDeviceMemory && srcDevice != dstDevice)
        inferred = CopyDirection::P2P;
    op.direction = inferred;
    const auto peer = m_w.version >= 2 ? readBool(o, path, "peer") : std::nullopt;
    const auto onDevice = [&](const BufferSpec &b) {
        return quote(b.name) + " is on device " + std::to_string(m_w.bufferDevice(b));
    };
    if (peer && *peer && inferred != CopyDirection::P2P) {
        if (!srcDeviceMemory || !dstDeviceMemory)
            issueAt(path + "/peer", "a peer copy (cudaMemcpyPeerAsync) copies between device memory of two GPUs, but "
                                        + kindPhrase(srcDeviceMemory ? *dst : *src));
        else
            issueAt(path + "/peer", "a peer copy (cudaMemcpyPeerAsync) copies between two GPUs, but src and dst are "
                                    "both on device "
                                        + std::to_string(srcDevice)
                                        + ": give one of them another \"device\", or drop \"peer\" for a "
                                          "device-to-device copy");
        return;
    }
    if (peer && !*peer && inferred == CopyDirection::P2P) {
        issueAt(path + "/peer", "src " + onDevice(*src) + " and dst " + onDevice(*dst)
                                    + ": a copy between device memory of two GPUs is a peer copy "
                                      "(cudaMemcpyPeerAsync); drop \"peer\": false");
        return;
    }
    if (inferred == CopyDirection::P2P && op.api == CopyApi::Sync) {
        issueAt(path + "/api", "a peer copy is issued with cudaMemcpyPeerAsync on its stream; \"api\": \"sync\" "
                               "(cudaMemcpy) does not apply to it");
        return;
    }
    if (direction && *direction != inferred) {
        static const char *const kMeaning[] = {
            "from host memory (pageable, pinned, registered) to device or managed memory",
            "from device or managed memory to host memory (pageable, pinned, registered)",
            "between device or managed buffers", "between host buffers (pageable, pinned, registered)",
            "between device buffers of two GPUs"};
        std::string srcPhrase = kindPhrase(*src), dstPhrase = kindPhrase(*dst);
        if (m_w.version >= 2 && srcDeviceMemory && dstDeviceMemory) {
            srcPhrase = onDevice(*src);
            dstPhrase = onDevice(*dst);
        }
        issueAt(path + "/direction", quote(toString(*direction)) + " copies " + kMeaning[static_cast<int>(*direction)]
                                         + ", but src " + srcPhrase + " and dst " + dstPhrase + ": that copy is "
                                         + quote(toString(inferred)));
    }
    if (op.srcOffset > src->bytes) {
        issueAt(path + "/srcOffset", "offset " + std::to_string(op.srcOffset) + " is past the end of "
                                         + quote(src->name) + " (" + std::to_string(src->bytes) + " bytes)");
        return;
    }
    if (op.dstOffset > dst->bytes) {
        issueAt(path + "/dstOffset", "offset " + std::to_string(op.dstOffset) + " is past the end of "
                                         + quote(dst->name) + " (" + std::to_string(dst->bytes) + " bytes)");
        return;
    }
    if (!bytes) {
        if (member(o, "bytes"))
            return; // invalid, reported
        op.bytes = std::min(src->bytes - op.srcOffset, dst->bytes - op.dstOffset);
        if (op.bytes == 0)
            issueAt(path, "nothing to copy: the offsets are at the end of the buffers; give \"bytes\"");
        return;
    }
    op.bytes = *bytes;
    if (checkSpan(*src, op.srcOffset, op.bytes, path, "src"))
        checkSpan(*dst, op.dstOffset, op.bytes, path, "dst");
}

void OpReader::readKernel(const Json &o, const std::string &path, OpSpec &op)
{
    static const std::vector<std::string> kOther = {
        "direction", "api",      "src",    "dst",   "srcOffset", "dstOffset", "value",  "event", "target",
        "stream",    "location", "advice", "mode",  "duration",  "buffer",    "offset", "bytes", "peer",
        "m",         "n",        "k",      "dtype", "blocks",    "threads",   "pdl"};
    const auto type = readEnum<KernelType>(o, path, "type", false, "a kernel op");
    if (type) {
        op.kernelType = *type;
    } else if (member(o, "type")) {
        return; // invalid type, reported
    } else if (const auto inferred =
                   kernelTypeFromKeys(member(o, "duration") != nullptr, member(o, "buffer") != nullptr)) {
        op.kernelType = *inferred;
    } else {
        missing(path, "type", "a kernel op",
                "\"compute\" with a \"duration\", \"memory\" with a \"buffer\" to stream, or \"gemm\" with m, n, k");
        return;
    }
    // The type's row (kernel_types.h) says which keys it takes and how it launches where the file says not.
    const KernelTypeInfo &info = kernelTypeInfo(op.kernelType);
    const std::string what(info.what);
    checkKeys(o, path, kernelKeys(op.kernelType), what, kOther);
    op.blocks = info.blocks;
    op.threadsPerBlock = info.threads;
    for (const KernelField field : info.fields) {
        switch (field) {
        case KernelField::Duration: op.durationNs = readDuration(o, path, "duration", true, what).value_or(0); break;
        case KernelField::BufferSpan: readBufferSpan(o, path, op, what, false); break;
        case KernelField::Gemm: readGemm(o, path, op, what); break;
        case KernelField::LaunchShape:
            if (const auto blocks = readInt(o, path, "blocks", 1, kMaxBlocks, false, "a kernel op"))
                op.blocks = static_cast<int>(*blocks);
            if (const auto threads = readInt(o, path, "threads", 1, kMaxThreadsPerBlock, false, "a kernel op",
                                             "a block has at most 1024 threads"))
                op.threadsPerBlock = static_cast<int>(*threads);
            break;
        case KernelField::Pdl:
            if (const auto pdl = readBool(o, path, "pdl")) {
                op.pdl = *pdl;
                op.pdlGiven = true;
            }
            break;
        }
    }
}

void OpReader::readCollective(const Json &o, const std::string &path, OpSpec &op)
{
    const std::string what = "a collective";
    CollectiveSpec &c = op.collective;
    const auto type = readEnum<CollectiveType>(o, path, "type", true, what);
    if (!type)
        return; // missing or unknown, reported
    c.type = *type;
    c.dtype = readEnum<CollectiveDtype>(o, path, "dtype", false, what).value_or(CollectiveDtype::Bf16);
    const std::uint64_t element = elementBytes(c.dtype);
    // Its size: "bytes" as nccl-tests counts them, or "count" elements of its dtype (NCCL's own argument).
    const Json *count = member(o, "count");
    if (count && member(o, "bytes")) {
        issueAtKey(JsonLocator::child(path, "count"), "give \"bytes\" or \"count\" (elements of its dtype), not both");
    } else if (count) {
        if (const auto n = readInt(o, path, "count", 1, std::int64_t(1) << 50, true, what, "elements of its dtype"))
            op.bytes = static_cast<std::uint64_t>(*n) * element;
    } else if (const auto bytes = readBytes(o, path, "bytes", false, false, what)) {
        op.bytes = *bytes;
        if (op.bytes % element != 0)
            issueAt(JsonLocator::child(path, "bytes"), formatBytes(op.bytes) + " is not a whole number of "
                                                           + std::string(toString(c.dtype)) + " elements ("
                                                           + std::to_string(element) + " bytes each)");
    } else {
        missing(path, "bytes", what, "its size, e.g. \"256 MiB\" (or \"count\" elements of its dtype)");
    }
    if (reduces(c.type)) {
        c.reduce = readEnum<ReduceOp>(o, path, "reduce", false, what).value_or(ReduceOp::Sum);
    } else if (member(o, "reduce")) {
        issueAtKey(JsonLocator::child(path, "reduce"), "only an allreduce or a reducescatter reduces; "
                                                           + std::string(toString(c.type)) + " takes no \"reduce\"");
    }
    const bool pointToPoint = c.type == CollectiveType::Send || c.type == CollectiveType::Recv;
    if (c.type == CollectiveType::Broadcast) {
        if (member(o, "root"))
            c.root = static_cast<int>(readInt(o, path, "root", 0, kMaxDeviceIndex, false, what,
                                              "the GPU (device index) whose data is broadcast")
                                          .value_or(-1));
    } else if (member(o, "root")) {
        issueAtKey(JsonLocator::child(path, "root"), "only a broadcast has a \"root\"");
    }
    if (pointToPoint) {
        c.peer = static_cast<int>(readInt(o, path, "peer", 0, kMaxDeviceIndex, true, what,
                                          c.type == CollectiveType::Send ? "the GPU (device index) it sends to"
                                                                         : "the GPU (device index) it receives from")
                                      .value_or(-1));
    } else if (member(o, "peer")) {
        issueAtKey(JsonLocator::child(path, "peer"), "only a send or a recv has a \"peer\"");
    }
}

void OpReader::readGemm(const Json &o, const std::string &path, OpSpec &op, std::string_view what)
{
    const auto dim = [&](std::string_view key) {
        return static_cast<std::int32_t>(
            readInt(o, path, key, 1, kMaxGemmDim, true, what, "C (m x n) = A (m x k) x B (k x n)").value_or(0));
    };
    op.gemm.m = dim("m");
    op.gemm.n = dim("n");
    op.gemm.k = dim("k");
    op.gemm.dtype = readEnum<GemmDtype>(o, path, "dtype", false, what).value_or(GemmDtype::Bf16);
}

void OpReader::readBufferSpan(const Json &o, const std::string &path, OpSpec &op, std::string_view what,
                              bool managedOnly)
{
    const BufferSpec *b = readBufferRef(o, path, "buffer", what);
    const auto offset = readBytes(o, path, "offset", false, true, what);
    const auto bytes = readBytes(o, path, "bytes", false, false, what);
    op.dstOffset = offset.value_or(0);
    op.bytes = bytes.value_or(0);
    if (!b)
        return;
    op.buffer = b->name;
    if (managedOnly && b->kind != BufferKind::Managed) {
        issueAt(path + "/buffer",
                std::string(what) + " needs managed memory (cudaMallocManaged), but " + kindPhrase(*b));
        return;
    }
    if (!managedOnly && b->kind != BufferKind::Device && b->kind != BufferKind::Managed) {
        issueAt(path + "/buffer",
                std::string(what) + " runs on the GPU and needs device or managed memory, but " + kindPhrase(*b));
        return;
    }
    if (op.dstOffset >= b->bytes) {
        issueAt(path + "/offset", "offset " + std::to_string(op.dstOffset) + " is at or past the end of "
                                      + quote(b->name) + " (" + std::to_string(b->bytes) + " bytes)");
        return;
    }
    if (!bytes) {
        if (!member(o, "bytes"))
            op.bytes = b->bytes - op.dstOffset;
        return;
    }
    checkSpan(*b, op.dstOffset, op.bytes, path, "buffer");
}

void OpReader::readSync(const Json &o, const std::string &path, OpSpec &op)
{
    const std::string what = "a sync op";
    const auto target = readEnum<SyncTarget>(o, path, "target", false, what);
    if (!target && member(o, "target"))
        return;
    op.syncTarget = target.value_or(member(o, "event") ? SyncTarget::Event : SyncTarget::Stream);
    if (op.syncTarget != SyncTarget::Stream && member(o, "stream"))
        issueAtKey(path + "/stream", "\"stream\" applies to \"target\": \"stream\" only");
    if (op.syncTarget != SyncTarget::Event && member(o, "event"))
        issueAtKey(path + "/event", "\"event\" applies to \"target\": \"event\" only");
    if (op.syncTarget == SyncTarget::Stream)
        op.syncStream = readString(o, path, "stream", false, what, "a stream name").value_or("");
    if (op.syncTarget == SyncTarget::Event)
        op.event = readString(o, path, "event", true, "a sync on an event", "an event name").value_or("");
}

bool ScheduleReader::readSchedule(const Json &v, const std::string &path, const std::vector<int> &streams,
                                  std::vector<ScheduledOp> &out)
{
    const std::string shape = "an array of [stream name, op index] pairs, e.g. [[\"s0\", 0], [\"s1\", 0]]";
    if (!v.is_array()) {
        issueAt(path, "expected " + shape + ", got " + describeValue(v));
        return false;
    }
    const auto allowed = [&](int s) {
        return streams.empty() || std::find(streams.begin(), streams.end(), s) != streams.end();
    };
    // Read compact (JsonLocator::keepPairListsCompact in read()); from the DOM when it was not.
    const JsonLocator::PairList *compact = m_doc.pairList(path);
    JsonLocator::PairList fromDom;
    if (!compact) {
        fromDom = JsonLocator::PairList::fromArray(v);
        compact = &fromDom;
    }
    std::vector<int> streamOfName(compact->names.size());
    for (std::size_t n = 0; n < compact->names.size(); ++n)
        streamOfName[n] = m_w.findStream(compact->names[n]);
    std::vector<int> nextOp(m_w.streams.size(), 0);
    std::vector<ScheduledOp> order;
    order.reserve(compact->entries.size());
    bool ok = true;
    for (std::size_t i = 0; i < compact->entries.size(); ++i) {
        const auto p = [&] { return JsonLocator::child(path, i); }; // only for an issue
        const JsonLocator::PairList::Entry &entry = compact->entries[i];
        std::string name;
        std::int64_t index = 0;
        int s = -1;
        if (entry.name != JsonLocator::PairList::kOther) {
            name = compact->names[entry.name];
            index = entry.number;
            s = streamOfName[entry.name];
        } else {
            const Json &e = compact->others[static_cast<std::size_t>(entry.number)];
            if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number_integer()) {
                issueAt(p(), "expected a [stream name, op index] pair like [\"s0\", 3], got " + describeValue(e));
                ok = false;
                continue;
            }
            name = e[0].get<std::string>();
            index = e[1].get<std::int64_t>();
            s = m_w.findStream(name);
        }
        if (s < 0) {
            issueAt(p() + "/0", "no stream named " + quote(name) + suggestName(name, streamNames(), "streams"));
            ok = false;
            continue;
        }
        if (!allowed(s)) {
            issueAt(p() + "/0", "stream " + quote(name)
                                    + " is not one of this thread's streams: a thread issues only "
                                      "the ops of the streams it lists");
            ok = false;
            continue;
        }
        const auto count = static_cast<std::int64_t>(m_w.streams[s].ops.size());
        if (index < 0 || index >= count) {
            issueAt(p() + "/1", "op index " + std::to_string(index) + " is out of range: stream " + quote(name)
                                    + " has " + std::to_string(count) + " ops (after repeats), 0 to "
                                    + std::to_string(count - 1));
            ok = false;
            continue;
        }
        // A stream runs its ops in the order they are issued, so a schedule that issued them out of
        // order would silently rewrite the stream: only their interleaving is free.
        if (index != nextOp[s]) {
            issueAt(p() + "/1", "stream " + quote(name) + " must issue its ops in order: expected op "
                                    + std::to_string(nextOp[s]) + " next, got " + std::to_string(index));
            ok = false;
            continue;
        }
        ++nextOp[s];
        order.push_back({s, static_cast<int>(index)});
    }
    if (!ok)
        return false;
    for (std::size_t s = 0; s < m_w.streams.size(); ++s)
        if (allowed(static_cast<int>(s)) && nextOp[s] != static_cast<int>(m_w.streams[s].ops.size())) {
            issueAt(path, "the schedule leaves out ops of stream " + quote(m_w.streams[s].name) + ": it issues "
                              + std::to_string(nextOp[s]) + " of its " + std::to_string(m_w.streams[s].ops.size())
                              + " ops");
            return false;
        }
    if (out.empty())
        out = std::move(order);
    else
        out.insert(out.end(), order.begin(), order.end());
    return true;
}

void ScheduleReader::readThreads(const Json &v, const std::string &path)
{
    if (!v.is_array() || v.empty()) {
        issueAt(path, "expected a non-empty array of host threads like [{\"name\": \"gpu0\", \"device\": 0, "
                      "\"streams\": [\"s0\"]}], got "
                          + describeValue(v));
        return;
    }
    if (v.size() > static_cast<std::size_t>(kMaxThreads)) {
        issueAt(path,
                std::to_string(v.size()) + " host threads: a workload has at most " + std::to_string(kMaxThreads));
        return;
    }
    const IssueOrder defaultOrder = m_w.issueOrder;
    std::vector<int> owner(m_w.streams.size(), -1); // which thread drives each stream
    std::vector<std::string> ownerPath(m_w.streams.size());
    std::set<std::string> names;
    std::vector<const Json *> schedules;
    bool ok = true;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string p = JsonLocator::child(path, i);
        const Json &t = v[i];
        ThreadSpec thread;
        thread.jsonPath = p;
        thread.line = lineOf(p);
        thread.name = "thread" + std::to_string(i);
        const int index = static_cast<int>(m_w.threads.size());
        if (!expectObject(t, p, "a host thread like {\"name\": \"gpu0\", \"device\": 0, \"streams\": [\"s0\"]}")) {
            ok = false;
            m_w.threads.push_back(std::move(thread));
            schedules.push_back(nullptr);
            continue;
        }
        checkKeys(t, p, {"name", "device", "streams", "issueOrder", "schedule"}, "a host thread");
        thread.name = readString(t, p, "name", false, "a host thread").value_or(thread.name);
        if (!names.insert(thread.name).second)
            issueAt(p + "/name", "a thread named " + quote(thread.name) + " is already declared");
        const auto device = readDevice(t, p, "a host thread");
        thread.issueOrder = readEnum<IssueOrder>(t, p, "issueOrder", false, "a host thread").value_or(defaultOrder);
        if (member(t, "issueOrder") && member(t, "schedule"))
            issueAtKey(p + "/schedule", "a thread takes \"issueOrder\" or \"schedule\", not both");
        const Json *streams = member(t, "streams");
        if (!streams) {
            missing(p, "streams", "a host thread", "the names of the streams whose ops it issues");
            ok = false;
        } else if (!streams->is_array()) {
            issueAt(p + "/streams",
                    "expected an array of stream names like [\"s0\", \"s1\"], got " + describeValue(*streams));
            ok = false;
        } else if (streams->empty()) {
            issueAt(p + "/streams", "thread " + quote(thread.name)
                                        + " drives no stream: give it the streams whose ops it issues, or remove it");
            ok = false;
        } else {
            for (std::size_t k = 0; k < streams->size(); ++k) {
                const std::string sp = JsonLocator::child(p + "/streams", k);
                const Json &name = (*streams)[k];
                if (!name.is_string()) {
                    issueAt(sp, "expected a stream name, got " + describeValue(name));
                    ok = false;
                    continue;
                }
                const std::string n = name.get<std::string>();
                const int s = m_w.findStream(n);
                if (s < 0) {
                    if (m_declaredStreams.count(n) == 0)
                        issueAt(sp, "no stream named " + quote(n) + suggestName(n, streamNames(), "streams"));
                    ok = false;
                    continue;
                }
                if (owner[s] == index) {
                    issueAt(sp, "stream " + quote(n) + " is listed twice in this thread");
                    ok = false;
                    continue;
                }
                if (owner[s] >= 0) {
                    issueAt(sp, "stream " + quote(n) + " is already driven by thread "
                                    + quote(m_w.threads[owner[s]].name) + " (" + ownerPath[s]
                                    + "): a stream is driven by one host thread, which issues its ops in order");
                    ok = false;
                    continue;
                }
                owner[s] = index;
                ownerPath[s] = sp;
                thread.streams.push_back(s);
            }
        }
        // A thread is bound to its device; by default the device of its first stream.
        thread.device = device ? *device : (thread.streams.empty() ? -1 : m_w.streams[thread.streams.front()].device);
        m_w.threads.push_back(std::move(thread));
        schedules.push_back(member(t, "schedule"));
    }
    for (std::size_t s = 0; s < m_w.streams.size(); ++s)
        if (owner[s] < 0 && ok) {
            issueAt(path,
                    "stream " + quote(m_w.streams[s].name)
                        + " is driven by no thread: list it in the \"streams\" of the thread that issues its ops");
            ok = false;
        }
    if (!ok)
        return;
    for (std::size_t s = 0; s < m_w.streams.size(); ++s)
        m_w.streams[s].thread = owner[s];
    m_w.schedule.clear();
    for (std::size_t t = 0; t < m_w.threads.size(); ++t) {
        ThreadSpec &thread = m_w.threads[t];
        if (schedules[t]) {
            if (!readSchedule(*schedules[t], thread.jsonPath + "/schedule", thread.streams, m_w.schedule))
                ok = false;
        } else {
            const auto part = scheduleOf(m_w, thread.streams, thread.issueOrder);
            m_w.schedule.insert(m_w.schedule.end(), part.begin(), part.end());
        }
    }
    if (!ok)
        m_w.schedule.clear();
}

void WorkloadChecks::checkDefaultStreams()
{
    if (!m_hasThreads)
        return;
    for (const ThreadSpec &t : m_w.threads) {
        int first = -1;
        for (const int s : t.streams) {
            if (!m_w.streams[s].useDefaultStream)
                continue;
            if (first < 0) {
                first = s;
                continue;
            }
            issueAt("/streams/" + std::to_string(s) + "/useDefaultStream",
                    "thread " + quote(t.name) + " already issues to the default stream through stream "
                        + quote(m_w.streams[first].name) + ": a thread has one default stream");
        }
    }
}

void WorkloadChecks::checkStreamReferences()
{
    for (const StreamSpec &s : m_w.streams)
        for (const OpSpec &op : s.ops)
            if (op.type == OpType::Sync && op.syncTarget == SyncTarget::Stream && !op.syncStream.empty()
                && m_w.findStream(op.syncStream) < 0 && m_declaredStreams.count(op.syncStream) == 0)
                issueAt(op.jsonPath + "/stream", "no stream named " + quote(op.syncStream)
                                                     + suggestName(op.syncStream, streamNames(), "streams"));
}

void WorkloadChecks::checkEvents()
{
    checkEventDevices();
    if (!m_issues.empty())
        return;
    std::set<std::string> everRecorded;
    std::vector<std::string> recordedNames;
    for (const StreamSpec &s : m_w.streams)
        for (const OpSpec &op : s.ops)
            if (op.type == OpType::EventRecord && everRecorded.insert(op.event).second)
                recordedNames.push_back(op.event);
    const std::vector<int> paired = pairEventWaits(m_w);
    for (std::size_t i = 0; i < m_w.schedule.size(); ++i) {
        const ScheduledOp &so = m_w.schedule[i];
        const OpSpec &op = m_w.streams[so.stream].ops[so.op];
        const bool waits =
            op.type == OpType::EventWait || (op.type == OpType::Sync && op.syncTarget == SyncTarget::Event);
        if (!waits || op.event.empty() || paired[i] >= 0)
            continue;
        const std::string verb = op.type == OpType::EventWait ? "cudaStreamWaitEvent" : "cudaEventSynchronize";
        if (!everRecorded.count(op.event)) {
            issueAt(op.jsonPath + "/event", "event " + quote(op.event) + " is never recorded"
                                                + didYouMean(op.event, recordedNames)
                                                + ": add {\"op\": \"record\", \"event\": " + quote(op.event)
                                                + "} on the stream that must finish first");
        } else if (m_hasThreads) {
            const ThreadSpec &t = m_w.threads[m_w.streams[so.stream].thread];
            issueAt(op.jsonPath + "/event",
                    "event " + quote(op.event) + " is waited on before any record of it is issued in thread "
                        + quote(t.name) + ": " + verb
                        + " on an event never recorded returns at once and orders nothing; issue the record "
                          "first in this thread's order, or record it in another thread (a wait on another "
                          "thread's event waits for that thread to record it)");
        } else {
            issueAt(op.jsonPath + "/event",
                    "event " + quote(op.event) + " is waited on before any record of it is issued (\"issueOrder\": "
                        + quote(enumName(m_w.issueOrder)) + "): " + verb
                        + " on an event never recorded returns at once and orders nothing; issue the record first "
                          "(move it earlier, use \"issueOrder\": \"stream-order\" with the recording stream first, "
                          "or give a \"schedule\")");
        }
    }
    if (m_issues.empty() && m_hasThreads)
        checkDeadlocks(paired);
}

void WorkloadChecks::checkCollectives()
{
    const std::vector<int> devices = m_w.collectiveDevices();
    if (devices.empty())
        return;
    const int ranks = static_cast<int>(devices.size());
    const auto inComm = [&](int d) { return std::find(devices.begin(), devices.end(), d) != devices.end(); };
    const auto gpus = [&] {
        std::string out;
        for (const int d : devices)
            out += (out.empty() ? "" : ", ") + std::to_string(d);
        return out;
    };
    // Per device, its collectives in issue order, and the thread that issues them.
    std::map<int, std::vector<const OpSpec *>> calls;
    std::map<int, std::pair<int, const OpSpec *>> issuer; // device -> (thread, its first collective)
    std::map<int, std::pair<int, const OpSpec *>> threadDevice; // thread -> (device, its first collective)
    for (const ScheduledOp &so : m_w.schedule) {
        const OpSpec &op = m_w.streams[so.stream].ops[so.op];
        if (op.type != OpType::Collective)
            continue;
        const int device = m_w.streamDevice(so.stream), thread = m_w.streams[so.stream].thread;
        const CollectiveSpec &c = op.collective;
        const auto [it, first] = issuer.emplace(device, std::pair{thread, &op});
        const auto [tt, tfirst] = threadDevice.emplace(thread, std::pair{device, &op});
        if (!first && it->second.first != thread) {
            issueAt(op.jsonPath, "the collectives of GPU " + std::to_string(device) + " are issued here by thread "
                                     + quote(m_w.threadName(thread)) + " and at " + whereOf(*it->second.second)
                                     + " by thread " + quote(m_w.threadName(it->second.first))
                                     + ": a GPU's NCCL communicator is driven by one host thread");
            return;
        }
        if (!tfirst && tt->second.first != device) {
            issueAt(op.jsonPath, "thread " + quote(m_w.threadName(thread)) + " issues collectives for GPU "
                                     + std::to_string(device) + " here and for GPU " + std::to_string(tt->second.first)
                                     + " at " + whereOf(*tt->second.second)
                                     + ": each GPU's collectives need a host thread of their own (each waits for the "
                                       "others' to start); add a thread per GPU under \"threads\"");
            return;
        }
        const std::uint64_t element = elementBytes(c.dtype);
        const bool divides = c.type == CollectiveType::AllGather || c.type == CollectiveType::ReduceScatter
                             || c.type == CollectiveType::AllToAll;
        if (divides && op.bytes % (element * std::uint64_t(ranks)) != 0) {
            issueAt(op.jsonPath + "/bytes", formatBytes(op.bytes) + " does not divide into " + std::to_string(ranks)
                                                + " equal parts of whole " + std::string(toString(c.dtype))
                                                + " elements, one per GPU of the communicator (" + gpus() + ")");
            return;
        }
        if (c.type == CollectiveType::Broadcast && c.root >= 0 && !inComm(c.root)) {
            issueAt(op.jsonPath + "/root", "root GPU " + std::to_string(c.root)
                                               + " is not in the collectives' communicator (GPUs " + gpus()
                                               + ": those whose streams hold collectives)");
            return;
        }
        if ((c.type == CollectiveType::Send || c.type == CollectiveType::Recv)
            && (c.peer == device || !inComm(c.peer))) {
            issueAt(op.jsonPath + "/peer", c.peer == device
                                               ? "a GPU cannot " + std::string(toString(c.type)) + " to itself"
                                               : "peer GPU " + std::to_string(c.peer)
                                                     + " is not in the collectives' communicator (GPUs " + gpus()
                                                     + "): give it a stream with the matching "
                                                     + (c.type == CollectiveType::Send ? "recv" : "send"));
            return;
        }
        calls[device].push_back(&op);
    }
    // The same collectives in the same order on every GPU (sends and receives aside), as NCCL requires: a
    // missing or different one would leave the others waiting for it until the time limit.
    const auto describeCall = [&](const OpSpec &op) { return quote(describe(op, m_w)); };
    const auto collectivesOf = [&](int device) {
        std::vector<const OpSpec *> out;
        for (const OpSpec *op : calls[device])
            if (op->collective.type != CollectiveType::Send && op->collective.type != CollectiveType::Recv)
                out.push_back(op);
        return out;
    };
    const std::vector<const OpSpec *> reference = collectivesOf(devices.front());
    for (std::size_t d = 1; d < devices.size(); ++d) {
        const std::vector<const OpSpec *> mine = collectivesOf(devices[d]);
        for (std::size_t i = 0; i < std::max(mine.size(), reference.size()); ++i) {
            if (i >= mine.size() || i >= reference.size()) {
                const bool lacks = i >= mine.size();
                const OpSpec &extra = lacks ? *reference[i] : *mine[i];
                issueAt(extra.jsonPath, "collective " + std::to_string(i + 1) + " of GPU "
                                            + std::to_string(lacks ? devices.front() : devices[d]) + " ("
                                            + describeCall(extra) + ") has no counterpart on GPU "
                                            + std::to_string(lacks ? devices[d] : devices.front())
                                            + ": every GPU of the communicator makes the same collectives, in the "
                                              "same order");
                return;
            }
            const OpSpec &a = *reference[i], &b = *mine[i];
            if (a.collective != b.collective || a.bytes != b.bytes) {
                issueAt(b.jsonPath, "collective " + std::to_string(i + 1) + " of GPU " + std::to_string(devices[d])
                                        + " is " + describeCall(b) + ", but GPU " + std::to_string(devices.front())
                                        + "'s at " + whereOf(a) + " is " + describeCall(a)
                                        + ": every GPU makes the same collectives (type, size, dtype, reduction, "
                                          "root), in the same order");
                return;
            }
        }
    }
    // Each send has its receive on the peer, of the same size and dtype, in the same order.
    for (const int from : devices) {
        for (const int to : devices) {
            std::vector<const OpSpec *> sends, recvs;
            for (const OpSpec *op : calls[from])
                if (op->collective.type == CollectiveType::Send && op->collective.peer == to)
                    sends.push_back(op);
            for (const OpSpec *op : calls[to])
                if (op->collective.type == CollectiveType::Recv && op->collective.peer == from)
                    recvs.push_back(op);
            for (std::size_t i = 0; i < std::max(sends.size(), recvs.size()); ++i) {
                if (i >= sends.size() || i >= recvs.size()) {
                    const OpSpec &lone = i >= sends.size() ? *recvs[i] : *sends[i];
                    issueAt(lone.jsonPath, describeCall(lone) + " has no matching "
                                               + (i >= sends.size() ? "send on GPU " + std::to_string(from)
                                                                    : "recv on GPU " + std::to_string(to))
                                               + ": each send pairs with a receive on its peer, in order");
                    return;
                }
                if (sends[i]->bytes != recvs[i]->bytes || sends[i]->collective.dtype != recvs[i]->collective.dtype) {
                    issueAt(recvs[i]->jsonPath, describeCall(*recvs[i]) + " receives what " + whereOf(*sends[i])
                                                    + " sends (" + describeCall(*sends[i])
                                                    + "): a receive has its send's size and dtype");
                    return;
                }
            }
        }
    }
}

// A CUDA event belongs to one device (a record on a stream of another device fails), and with several
// threads, to one thread: which of two threads' records a wait meant would depend on timing.
void WorkloadChecks::checkEventDevices()
{
    struct First {
        const OpSpec *op = nullptr;
        int device = 0;
        int thread = 0;
    };
    std::map<std::string, First> first;
    for (const ScheduledOp &so : m_w.schedule) {
        const OpSpec &op = m_w.streams[so.stream].ops[so.op];
        if (op.type != OpType::EventRecord)
            continue;
        const int device = m_w.streamDevice(so.stream), thread = m_w.streams[so.stream].thread;
        const auto [it, inserted] = first.emplace(op.event, First{&op, device, thread});
        if (inserted)
            continue;
        if (it->second.device != device)
            issueAt(op.jsonPath + "/event", "event " + quote(op.event) + " is recorded here on device "
                                                + std::to_string(device) + " and at " + whereOf(*it->second.op)
                                                + " on device " + std::to_string(it->second.device)
                                                + ": a CUDA event belongs to one device; use an event per device");
        else if (it->second.thread != thread)
            issueAt(op.jsonPath + "/event",
                    "event " + quote(op.event) + " is recorded here by thread " + quote(m_w.threadName(thread))
                        + " and at " + whereOf(*it->second.op) + " by thread "
                        + quote(m_w.threadName(it->second.thread))
                        + ": an event is recorded by one thread, so that every wait knows which record it waits for");
    }
}

// A wait on another thread's event holds its thread until that thread has issued the record: threads
// that wait for each other's records in crossed order would never go on. Issues every thread as the
// runner would until none can go on.
void WorkloadChecks::checkDeadlocks(const std::vector<int> &paired)
{
    const auto ranges = m_w.threadRanges();
    const std::size_t n = ranges.size();
    std::vector<std::size_t> next(n);
    std::vector<char> issued(m_w.schedule.size(), 0);
    for (std::size_t t = 0; t < n; ++t)
        next[t] = ranges[t].first;
    for (bool moved = true; moved;) {
        moved = false;
        for (std::size_t t = 0; t < n; ++t)
            while (next[t] < ranges[t].second) {
                const int wait = paired[next[t]];
                if (wait >= 0 && !issued[static_cast<std::size_t>(wait)])
                    break;
                issued[next[t]++] = 1;
                moved = true;
            }
    }
    std::string cycle;
    const OpSpec *firstBlocked = nullptr;
    for (std::size_t t = 0; t < n; ++t) {
        if (next[t] >= ranges[t].second)
            continue;
        const ScheduledOp &at = m_w.schedule[next[t]];
        const OpSpec &op = m_w.streams[at.stream].ops[at.op];
        const ScheduledOp &rec = m_w.schedule[static_cast<std::size_t>(paired[next[t]])];
        const OpSpec &record = m_w.streams[rec.stream].ops[rec.op];
        if (!firstBlocked)
            firstBlocked = &op;
        cycle += (cycle.empty() ? "" : "; ") + std::string("thread ") + quote(m_w.threadName(int(t))) + " waits at "
                 + whereOf(op) + " for " + quote(op.event) + " recorded by thread "
                 + quote(m_w.threadName(m_w.streams[rec.stream].thread)) + " at " + whereOf(record);
    }
    if (firstBlocked)
        issueAt(firstBlocked->jsonPath + "/event",
                "the threads wait for each other's records and none can go on: " + cycle
                    + "; reorder a thread's ops (its \"issueOrder\" or \"schedule\") so that a record comes before "
                      "the wait that the other thread's record waits for");
}

} // namespace

// ------------------------------------------------------------------------------------------------
// public API

namespace {
std::string joinIssues(std::string_view fileName, const std::vector<WorkloadIssue> &issues)
{
    std::string out;
    for (const WorkloadIssue &i : issues) {
        if (!out.empty())
            out += '\n';
        out += WorkloadError::formatIssue(fileName, i);
    }
    return out;
}
} // namespace

WorkloadError::WorkloadError(std::string fileName, std::vector<WorkloadIssue> issues) :
    Error(ErrorKind::InvalidInput, joinIssues(fileName, issues)), m_fileName(std::move(fileName)),
    m_issues(std::move(issues))
{
}

std::string WorkloadError::formatIssue(std::string_view fileName, const WorkloadIssue &issue)
{
    std::string out(fileName);
    if (issue.line > 0)
        out += ":" + std::to_string(issue.line);
    if (issue.line > 0 && issue.column > 0)
        out += ":" + std::to_string(issue.column);
    out += ": ";
    if (!issue.jsonPath.empty())
        out += issue.jsonPath + ": ";
    out += issue.message;
    return out;
}

std::vector<WorkloadIssue> validateWorkloadText(std::string_view jsonText, std::string_view fileName)
{
    WorkloadReader reader(fileName);
    try {
        reader.readBorrowed(jsonText);
    } catch (const std::exception &e) {
        // The reader reports problems as issues; an exception here is a defect, but the editor
        // calling this must still get an answer rather than a crash.
        return {WorkloadIssue{"", 0, 0, std::string("internal error while validating: ") + e.what()}};
    }
    return reader.takeIssues();
}

Workload readWorkloadText(std::string_view jsonText, std::string_view fileName, std::vector<WorkloadIssue> &issues,
                          bool *isJson)
{
    WorkloadReader reader(fileName);
    Workload w;
    try {
        w = reader.readBorrowed(jsonText);
        issues = reader.takeIssues();
    } catch (const std::exception &e) {
        issues = {WorkloadIssue{"", 0, 0, std::string("internal error while validating: ") + e.what()}};
    }
    // Text the reader parsed is JSON; what it refused (a syntax error, nesting too deep) is asked again.
    if (isJson)
        *isJson = reader.parsedJson() || nlohmann::ordered_json::accept(jsonText, /*ignore_comments=*/true);
    return w;
}

namespace {
Workload parseOwnedText(std::string &&jsonText, std::string_view fileName)
{
    WorkloadReader reader(fileName);
    Workload w = reader.read(std::move(jsonText));
    auto issues = reader.takeIssues();
    if (!issues.empty())
        throw WorkloadError(std::string(fileName), std::move(issues));
    return w;
}
} // namespace

Workload parseWorkload(std::string_view jsonText, std::string_view fileName)
{
    return parseOwnedText(std::string(jsonText), fileName);
}

Workload loadWorkloadFile(const std::string &path)
{
    // The text goes to the reader, which keeps it for positions, instead of a copy of it (27 MB of 27).
    return parseOwnedText(readFile(path, limits::kMaxWorkloadFileBytes, "a workload"), path);
}

namespace {
Json locationJson(int location)
{
    return location < 0 ? Json("host") : Json(location);
}

Json opToJson(const OpSpec &op)
{
    Json j;
    j["op"] = enumName(op.type);
    j["name"] = op.name;
    const auto span = [&] {
        j["buffer"] = op.buffer;
        if (op.dstOffset != 0)
            j["offset"] = op.dstOffset;
        j["bytes"] = op.bytes;
    };
    switch (op.type) {
    case OpType::Copy:
        j["direction"] = enumName(op.direction);
        j["api"] = enumName(op.api);
        j["src"] = op.src;
        j["dst"] = op.dst;
        if (op.srcOffset != 0)
            j["srcOffset"] = op.srcOffset;
        if (op.dstOffset != 0)
            j["dstOffset"] = op.dstOffset;
        j["bytes"] = op.bytes;
        break;
    case OpType::Kernel:
        j["type"] = enumName(op.kernelType);
        for (const KernelField field : kernelTypeInfo(op.kernelType).fields) {
            switch (field) {
            case KernelField::Duration: j["duration"] = op.durationNs; break;
            case KernelField::BufferSpan: span(); break;
            case KernelField::Gemm:
                j["m"] = op.gemm.m;
                j["n"] = op.gemm.n;
                j["k"] = op.gemm.k;
                j["dtype"] = enumName(op.gemm.dtype);
                break;
            case KernelField::LaunchShape:
                j["blocks"] = op.blocks;
                j["threads"] = op.threadsPerBlock;
                break;
            case KernelField::Pdl:
                if (op.pdl || op.pdlGiven)
                    j["pdl"] = op.pdl;
                break;
            }
        }
        break;
    case OpType::Memset:
        span();
        j["value"] = op.value;
        break;
    case OpType::EventRecord:
    case OpType::EventWait: j["event"] = op.event; break;
    case OpType::Sync:
        j["target"] = enumName(op.syncTarget);
        if (op.syncTarget == SyncTarget::Stream && !op.syncStream.empty())
            j["stream"] = op.syncStream;
        if (op.syncTarget == SyncTarget::Event)
            j["event"] = op.event;
        break;
    case OpType::Prefetch:
        span();
        j["location"] = locationJson(op.location);
        break;
    case OpType::Advise:
        span();
        j["advice"] = enumName(op.advise);
        j["location"] = locationJson(op.location);
        break;
    case OpType::Attach:
        j["buffer"] = op.buffer;
        j["mode"] = enumName(op.attach);
        break;
    case OpType::HostWork: j["duration"] = op.hostNs; break;
    case OpType::Collective:
        j["type"] = enumName(op.collective.type);
        j["bytes"] = op.bytes;
        j["dtype"] = enumName(op.collective.dtype);
        if (reduces(op.collective.type))
            j["reduce"] = enumName(op.collective.reduce);
        if (op.collective.root >= 0)
            j["root"] = op.collective.root;
        if (op.collective.peer >= 0)
            j["peer"] = op.collective.peer;
        break;
    }
    return j;
}
} // namespace

namespace {
bool usesVersionTwo(const Workload &w)
{
    if (!w.threads.empty() || w.peerAccess != PeerAccess::On)
        return true;
    for (const BufferSpec &b : w.buffers)
        if (b.device >= 0)
            return true;
    for (const StreamSpec &s : w.streams) {
        if (s.device >= 0)
            return true;
        for (const OpSpec &op : s.ops)
            if (op.type == OpType::Copy && op.direction == CopyDirection::P2P)
                return true;
    }
    return false;
}

bool sameOrder(const std::vector<ScheduledOp> &a, std::vector<ScheduledOp>::const_iterator begin,
               std::vector<ScheduledOp>::const_iterator end)
{
    return std::equal(a.begin(), a.end(), begin, end,
                      [](const ScheduledOp &x, const ScheduledOp &y) { return x.stream == y.stream && x.op == y.op; });
}
} // namespace

std::string workloadToJson(const Workload &w)
{
    const int version = usesVersionTwo(w) ? 2 : std::clamp(w.version, 1, kWorkloadFormatVersion);
    Json j;
    j["version"] = version;
    j["name"] = w.name;
    if (!w.description.empty())
        j["description"] = w.description;
    if (!w.compare.empty())
        j["compare"] = w.compare;
    if (!w.keyFigure.caption.empty()) {
        Json figure;
        figure["caption"] = w.keyFigure.caption;
        for (const auto &[key, value] : {std::pair<const char *, const std::string &>{"kind", w.keyFigure.kind},
                                         {"name", w.keyFigure.name},
                                         {"lane", w.keyFigure.lane}})
            if (!value.empty())
                figure[key] = value;
        j["keyFigure"] = figure;
    }
    j["device"] = w.device;
    if (version >= 2)
        j["peerAccess"] = enumName(w.peerAccess);
    j["defaultStream"] = enumName(w.defaultStream);
    if (w.maxConnections > 0)
        j["maxConnections"] = w.maxConnections;
    if (w.launch != LaunchMode::Streams)
        j["launch"] = enumName(w.launch);
    if (!w.nccl.empty()) {
        Json n = Json::object();
        if (w.nccl.minCTAs > 0)
            n["minCTAs"] = w.nccl.minCTAs;
        if (w.nccl.maxCTAs > 0)
            n["maxCTAs"] = w.nccl.maxCTAs;
        for (const auto &[key, value] : {std::pair<const char *, const std::string &>{"ctaPolicy", w.nccl.ctaPolicy},
                                         {"algo", w.nccl.algo},
                                         {"proto", w.nccl.proto}})
            if (!value.empty())
                n[key] = value;
        if (w.nccl.symmetric)
            n["symmetric"] = true;
        j["nccl"] = n;
    }
    j["issueOrder"] = enumName(w.issueOrder);
    j["warmup"] = w.warmup;
    j["repetitions"] = w.repetitions;
    if (w.timeLimitNs > 0)
        j["timeLimit"] = w.timeLimitNs;
    if (w.solo)
        j["solo"] = true;
    j["buffers"] = Json::array();
    for (const BufferSpec &b : w.buffers) {
        Json jb{{"name", b.name}, {"kind", enumName(b.kind)}, {"bytes", b.bytes}};
        if (b.device >= 0)
            jb["device"] = b.device;
        j["buffers"].push_back(std::move(jb));
    }
    j["streams"] = Json::array();
    for (const StreamSpec &s : w.streams) {
        Json js;
        js["name"] = s.name;
        if (s.device >= 0)
            js["device"] = s.device;
        if (!s.part.empty())
            js["part"] = s.part;
        if (s.useDefaultStream) {
            js["useDefaultStream"] = true;
        } else {
            js["flags"] = enumName(s.flags);
            js["priority"] = s.priority;
        }
        js["ops"] = Json::array();
        for (const OpSpec &op : s.ops)
            js["ops"].push_back(opToJson(op));
        j["streams"].push_back(std::move(js));
    }
    const auto pairs = [&](std::vector<ScheduledOp>::const_iterator begin,
                           std::vector<ScheduledOp>::const_iterator end) {
        Json list = Json::array();
        for (auto it = begin; it != end; ++it)
            list.push_back(Json::array({w.streams.at(it->stream).name, it->op}));
        return list;
    };
    if (!w.threads.empty()) {
        // Each thread's issue order: its issueOrder where that says it, else its own schedule.
        const auto ranges = w.threadRanges();
        j["threads"] = Json::array();
        for (std::size_t t = 0; t < w.threads.size(); ++t) {
            const ThreadSpec &thread = w.threads[t];
            Json jt;
            jt["name"] = thread.name;
            if (thread.device >= 0)
                jt["device"] = thread.device;
            jt["streams"] = Json::array();
            for (const int s : thread.streams)
                jt["streams"].push_back(w.streams.at(static_cast<std::size_t>(s)).name);
            const auto begin = w.schedule.begin() + static_cast<std::ptrdiff_t>(ranges[t].first);
            const auto end = w.schedule.begin() + static_cast<std::ptrdiff_t>(ranges[t].second);
            if (w.schedule.empty() || sameOrder(scheduleOf(w, thread.streams, thread.issueOrder), begin, end))
                jt["issueOrder"] = enumName(thread.issueOrder);
            else
                jt["schedule"] = pairs(begin, end);
            j["threads"].push_back(std::move(jt));
        }
        return j.dump(2) + "\n";
    }
    // Write the issue order out only when "issueOrder" cannot say it (pipelines, hand-made orders).
    Workload rebuilt;
    rebuilt.issueOrder = w.issueOrder;
    rebuilt.streams = w.streams;
    buildSchedule(rebuilt);
    if (!w.schedule.empty() && !sameOrder(rebuilt.schedule, w.schedule.begin(), w.schedule.end()))
        j["schedule"] = pairs(w.schedule.begin(), w.schedule.end());
    return j.dump(2) + "\n";
}

WorkloadHeader readWorkloadHeader(std::string_view jsonText, std::string_view fileName)
{
    JsonLocator locator;
    // Neither the ops nor the schedules are read here: no DOM of them (a trace's workload may have 1M ops).
    locator.keepArraysInText(isOpList);
    locator.keepPairListsCompact(isSchedule);
    auto fail = [&](const std::string &pointer, TextPosition at, std::string message) {
        throw WorkloadError(std::string(fileName), {WorkloadIssue{pointer, at.line, at.column, std::move(message)}});
    };
    if (!locator.parse(jsonText))
        fail("", locator.syntaxErrorPosition(), locator.syntaxError());
    const auto &root = locator.root();
    if (!root.is_object())
        fail("", locator.valuePosition(""), "expected a JSON object (a workload), got " + describeValue(root));
    WorkloadHeader header;
    auto text = [&](const char *key, std::string &out) {
        const auto it = root.find(key);
        if (it == root.end())
            return;
        const std::string pointer = JsonLocator::child("", key);
        if (!it->is_string())
            fail(pointer, locator.valuePosition(pointer), std::string("expected a string, got ") + describeValue(*it));
        out = it->get<std::string>();
    };
    text("name", header.name);
    text("description", header.description);
    if (const auto it = root.find("compare"); it != root.end()) {
        const std::string pointer = JsonLocator::child("", "compare");
        if (!it->is_array())
            fail(pointer, locator.valuePosition(pointer),
                 "expected an array of comparison axes like [\"memory=pageable,pinned\"], got " + describeValue(*it));
        for (std::size_t i = 0; i < it->size(); ++i) {
            const std::string at = JsonLocator::child(pointer, i);
            const auto &v = (*it)[i];
            if (!v.is_string())
                fail(at, locator.valuePosition(at),
                     "expected a string such as \"streams=1,2,4\", got " + describeValue(v));
            try {
                parseVaryOption(v.get<std::string>());
            } catch (const Error &e) {
                fail(at, locator.valuePosition(at), e.what());
            }
            header.compare.push_back(v.get<std::string>());
        }
    }
    if (const auto it = root.find("keyFigure"); it != root.end())
        if (const auto problem = readKeyFigure(*it, "/keyFigure", header.keyFigure))
            fail(problem->pointer, locator.valuePosition(problem->pointer), problem->message);
    return header;
}

} // namespace streamscope::engine
