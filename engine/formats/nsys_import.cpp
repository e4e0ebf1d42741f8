// Nsight Systems SQLite import (see nsys_import.h). Reads with SQLite's C API through two small RAII
// wrappers; every query names only columns that PRAGMA table_info found, optional ones read as NULL.
#include "engine/formats/nsys_import.h"

#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>

#include "engine/formats/import_common.h"
#include "engine/model/api_names.h"
#include "engine/model/errors.h"
#include "engine/model/host_ranges.h"
#include "engine/model/limits.h"
#include "engine/util/interrupt.h"

namespace streamscope::engine {

namespace {

// ---- SQLite, opened defensively --------------------------------------------------------------------
//
// A database runs what its schema says: a generated column, a view or a CHECK constraint is SQL that the
// file chooses and SQLite evaluates as it is read (a 12 KB file whose StringIds.value was a generated
// column took 4.6 GB and over a minute, #24). So the file is opened read-only with SQLite's defensive
// settings (no triggers, no views, no schema-defined functions that are not innocuous), each value is
// bounded in length (limits::kMaxTextBytes), SQLite's own memory is capped, its work is counted in
// virtual-machine steps against a budget proportional to the file's size (and stops at a cancel or
// Ctrl-C), and the importer refuses views, virtual tables and generated columns wherever it expects a
// table (checkSchema) and a damaged b-tree (PRAGMA quick_check) before it reads a row.

// SQLite's work: the progress handler runs every kStepsPerCheck virtual-machine steps; a file may take
// kStepsPerByte steps per byte of its size, at least kMinSteps. The ten real exports of
// ../shared/data/real-traces take 0.16 to 0.69 steps per byte (the 23k-kernel capture: 2.5 million steps
// for 3.7 MB): a scan takes a step per column read and a few per row, under half a step per byte. The
// budget is six times the most they take and stops a query a file makes SQLite run in seconds per 100
// MB (a StringIds without its key made each name a scan of the table: 100 million steps, 3 s, for a
// 1.1 MB file whose 30k names would have taken over a minute; docs/formats.md, "Limits").
constexpr int kStepsPerCheck = 1000;
constexpr std::uint64_t kStepsPerByte = 4;
constexpr std::uint64_t kMinSteps = 100'000'000;
// SQLite's heap (page cache, one row's values, the schema), for every database the process has open: the
// values StreamScope keeps are copied out, so SQLite itself needs a few MiB per import.
constexpr std::int64_t kSqliteHeapBytes = std::int64_t(1) << 30;
// Rows of a table that describes the capture (enums, GPUs, streams, thread names), counted before it is
// read: a real export has at most thousands.
constexpr std::size_t kMaxDescriptionRows = 1'000'000;

class Database {
public:
    Database(const std::string &path, const LoadControl &control) : m_path(path), m_control(control)
    {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec))
            throw Error(ErrorKind::Io, path + ": cannot open: " + (ec ? ec.message() : std::string("no such file")));
        const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
        if (!ec && bytes > limits::kMaxNsysFileBytes)
            throw Error(ErrorKind::InvalidInput, path + ": the file is " + limits::describeBytes(bytes)
                                                     + ", more than the limit of "
                                                     + limits::describeBytes(limits::kMaxNsysFileBytes)
                                                     + " for an Nsight Systems export (docs/formats.md, \"Limits\")");
        m_budget = std::max<std::uint64_t>(kMinSteps, (ec ? 0 : bytes) * kStepsPerByte) / kStepsPerCheck;
        static const bool heapCapped = [] {
            if (sqlite3_hard_heap_limit64(-1) == 0 || sqlite3_hard_heap_limit64(-1) > kSqliteHeapBytes)
                sqlite3_hard_heap_limit64(kSqliteHeapBytes);
            return true;
        }();
        (void)heapCapped;
        const int rc = sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READONLY, nullptr);
        if (rc != SQLITE_OK) {
            const std::string why = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
            sqlite3_close(m_db);
            m_db = nullptr;
            throw Error(ErrorKind::Io, path + ": cannot open as SQLite: " + why);
        }
        // Nothing the file's schema defines runs: no triggers or views, no functions in it that are not
        // innocuous, no writes to the schema, no extensions.
        for (const int option : {SQLITE_DBCONFIG_ENABLE_TRIGGER, SQLITE_DBCONFIG_ENABLE_VIEW,
                                 SQLITE_DBCONFIG_TRUSTED_SCHEMA, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION})
            sqlite3_db_config(m_db, option, 0, nullptr);
        sqlite3_db_config(m_db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
        // The longest value (and row) SQLite makes or reads, and small bounds on what a query may be.
        sqlite3_limit(m_db, SQLITE_LIMIT_LENGTH, static_cast<int>(limits::kMaxTextBytes));
        sqlite3_limit(m_db, SQLITE_LIMIT_SQL_LENGTH, 100'000);
        sqlite3_limit(m_db, SQLITE_LIMIT_EXPR_DEPTH, 100);
        sqlite3_limit(m_db, SQLITE_LIMIT_COMPOUND_SELECT, 10);
        sqlite3_limit(m_db, SQLITE_LIMIT_FUNCTION_ARG, 8);
        sqlite3_limit(m_db, SQLITE_LIMIT_ATTACHED, 0);
        sqlite3_limit(m_db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000);
        sqlite3_limit(m_db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
        sqlite3_limit(m_db, SQLITE_LIMIT_WORKER_THREADS, 0);
        sqlite3_progress_handler(m_db, kStepsPerCheck, &Database::onProgress, this);
        // query_only: nothing is written. ignore_check_constraints: the quick check would evaluate every
        // CHECK constraint on every row, an expression of the file's choosing (one that printed a 16 MiB
        // string took 10 ms a row).
        sqlite3_exec(m_db, "PRAGMA query_only = 1; PRAGMA ignore_check_constraints = 1", nullptr, nullptr, nullptr);
    }
    ~Database() { sqlite3_close(m_db); }
    Database(const Database &) = delete;
    Database &operator=(const Database &) = delete;

    sqlite3 *handle() const { return m_db; }
    const std::string &path() const { return m_path; }
    // Virtual-machine steps so far, in thousands (tests compare work by it).
    std::uint64_t checks() const { return m_checks; }

    // Why a call into SQLite failed, as StreamScope says it: a cancel, the work budget, a value beyond the
    // length limit, SQLite's memory cap, or SQLite's own message (a corrupt page, a missing table).
    [[noreturn]] void fail(const std::string &what, int rc) const
    {
        if (m_cancelled) {
            m_control.checkCancelled(); // throws Error{Cancelled}, or the interrupt's
            throw Error(ErrorKind::Cancelled, "loading cancelled");
        }
        if (m_exhausted)
            throw Error(ErrorKind::InvalidInput,
                        m_path + ": " + what + ": SQLite did more than " + std::to_string(m_budget * kStepsPerCheck)
                            + " steps of work, the most StreamScope lets an export of this size take ("
                            + std::to_string(kStepsPerByte) + " per byte, at least " + std::to_string(kMinSteps)
                            + "; docs/formats.md, \"Limits\"); a real Nsight export takes under one per byte");
        const int primary = rc & 0xff;
        if (primary == SQLITE_TOOBIG)
            throw Error(ErrorKind::InvalidInput, m_path + ": " + what + ": a value longer than "
                                                     + limits::describeBytes(limits::kMaxTextBytes)
                                                     + ", the most StreamScope reads (docs/formats.md, \"Limits\")");
        if (primary == SQLITE_NOMEM)
            throw Error(ErrorKind::InvalidInput, m_path + ": " + what + ": SQLite needed more than "
                                                     + limits::describeBytes(kSqliteHeapBytes)
                                                     + " of memory to read it (docs/formats.md, \"Limits\")");
        throw Error(ErrorKind::InvalidInput, m_path + ": " + what + ": " + sqlite3_errmsg(m_db));
    }

private:
    static int onProgress(void *self)
    {
        auto *db = static_cast<Database *>(self);
        if ((db->m_control.cancel && db->m_control.cancel->load(std::memory_order_relaxed)) || interrupted()) {
            db->m_cancelled = true;
            return 1;
        }
        if (++db->m_checks > db->m_budget) {
            db->m_exhausted = true;
            return 1;
        }
        return 0;
    }

    std::string m_path;
    LoadControl m_control;
    sqlite3 *m_db = nullptr;
    std::uint64_t m_budget = 0; // progress checks allowed
    std::uint64_t m_checks = 0;
    bool m_cancelled = false;
    bool m_exhausted = false;
};

class Statement {
public:
    Statement(const Database &db, const std::string &sql, const std::string &what) : m_db(db), m_what(what)
    {
        if (const int rc = sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &m_stmt, nullptr); rc != SQLITE_OK)
            db.fail(what, rc);
    }
    ~Statement() { sqlite3_finalize(m_stmt); }
    Statement(const Statement &) = delete;
    Statement &operator=(const Statement &) = delete;

    // True while there is a row; a corrupt page, a non-database file, a value too long or work beyond the
    // budget fails here with the operation named.
    bool step()
    {
        const int rc = sqlite3_step(m_stmt);
        if (rc == SQLITE_ROW)
            return true;
        if (rc == SQLITE_DONE)
            return false;
        m_db.fail(m_what, rc);
    }
    void reset() { sqlite3_reset(m_stmt); }
    void bind(int index, std::int64_t value) { sqlite3_bind_int64(m_stmt, index, value); }
    sqlite3_stmt *get() const { return m_stmt; }
    // Column i as text (its bytes, NUL included where the file has them), empty for NULL.
    std::string text(int i) const
    {
        const auto *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, i));
        return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, i))) : std::string();
    }

private:
    const Database &m_db;
    std::string m_what;
    sqlite3_stmt *m_stmt = nullptr;
};

// ---- schema look-up --------------------------------------------------------------------------------

std::string joined(const std::set<std::string> &names)
{
    std::string s;
    for (const auto &n : names) {
        if (!s.empty())
            s += ", ";
        s += n;
    }
    return s;
}

// SQLite's multi-line report as one line of a message.
std::string oneLine(std::string text)
{
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
}

// The columns of a table, each one a value stored in the file: a generated column (computed by an
// expression of the file's choosing as it is read) or a virtual table's hidden column is refused, naming
// it. Nsight writes plain tables only.
std::set<std::string> storedColumns(const Database &db, const std::string &table)
{
    std::set<std::string> present;
    Statement info(db, "PRAGMA table_xinfo(\"" + table + "\")", "reading the columns of table " + table);
    while (info.step()) {
        std::string name = info.text(1);
        // hidden: 0 a stored column, 1 a virtual table's hidden column, 2 and 3 a generated column.
        if (const auto hidden = sqlite3_column_int64(info.get(), 6); hidden != 0)
            throw Error(ErrorKind::InvalidInput,
                        db.path() + ": table " + table + ", column " + name + ": "
                            + (hidden == 1 ? std::string("a hidden column of a virtual table")
                                           : std::string("a generated column (GENERATED ALWAYS AS ...)"))
                            + ": StreamScope reads values stored in the file, never ones the file computes "
                              "(an Nsight export has none)");
        present.insert(std::move(name));
    }
    return present;
}

// The columns a query of one table reads: required ones must exist, optional ones read as NULL where
// the nsys version that wrote the file did not have them.
class TableQuery {
public:
    TableQuery(const Database &db, std::string table, const std::vector<std::string> &required,
               const std::vector<std::string> &optional) :
        m_db(db),
        m_table(std::move(table))
    {
        const std::set<std::string> present = storedColumns(db, m_table);
        for (const auto &c : required)
            if (!present.count(c))
                throw Error(ErrorKind::InvalidInput, db.path() + ": table " + m_table + " lacks column '" + c
                                                         + "' (it has: " + joined(present) + ")");
        std::string sql = "SELECT rowid";
        for (const auto &c : required) {
            sql += ", \"" + c + "\"";
            m_columns.push_back(c);
        }
        for (const auto &c : optional) {
            sql += present.count(c) ? ", \"" + c + "\"" : ", NULL";
            m_columns.push_back(c);
        }
        sql += " FROM \"" + m_table + "\"";
        m_statement = std::make_unique<Statement>(db, sql, "reading table " + m_table);
    }

    bool step() { return m_statement->step(); }
    std::int64_t rowid() const { return sqlite3_column_int64(m_statement->get(), 0); }

    // Column i of the query (0 = first named column).
    std::int64_t integer(int i) const
    {
        sqlite3_stmt *s = m_statement->get();
        const int type = sqlite3_column_type(s, i + 1);
        if (type != SQLITE_INTEGER)
            badType(i, type, "an integer");
        return sqlite3_column_int64(s, i + 1);
    }
    std::optional<std::int64_t> optionalInteger(int i) const
    {
        sqlite3_stmt *s = m_statement->get();
        const int type = sqlite3_column_type(s, i + 1);
        if (type == SQLITE_NULL)
            return std::nullopt;
        if (type != SQLITE_INTEGER)
            badType(i, type, "an integer or NULL");
        return sqlite3_column_int64(s, i + 1);
    }
    std::optional<std::string> optionalText(int i) const
    {
        sqlite3_stmt *s = m_statement->get();
        const int type = sqlite3_column_type(s, i + 1);
        if (type == SQLITE_NULL)
            return std::nullopt;
        if (type != SQLITE_TEXT)
            badType(i, type, "text or NULL");
        return std::string(reinterpret_cast<const char *>(sqlite3_column_text(s, i + 1)),
                           static_cast<std::size_t>(sqlite3_column_bytes(s, i + 1)));
    }
    double optionalReal(int i) const
    {
        sqlite3_stmt *s = m_statement->get();
        const int type = sqlite3_column_type(s, i + 1);
        if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
            return sqlite3_column_double(s, i + 1);
        return 0;
    }

    [[noreturn]] void invalid(int i, const std::string &what) const
    {
        throw Error(ErrorKind::InvalidInput, m_db.path() + ": table " + m_table + ", row " + std::to_string(rowid())
                                                 + ", column " + m_columns[static_cast<std::size_t>(i)] + ": " + what);
    }

private:
    [[noreturn]] void badType(int i, int type, const char *expected) const
    {
        static const char *const kTypeNames[] = {"?", "INTEGER", "REAL", "TEXT", "BLOB", "NULL"};
        invalid(i, std::string("expected ") + expected + ", found " + kTypeNames[type >= 1 && type <= 5 ? type : 0]);
    }

    const Database &m_db;
    std::string m_table;
    std::vector<std::string> m_columns;
    std::unique_ptr<Statement> m_statement;
};

// ---- enum tables and their fall-backs ---------------------------------------------------------------

// id -> symbol name (e.g. CUDA_MEMCPY_KIND_HTOD) from an ENUM_* table, empty when the file has none.
// `keep` is told the bytes of each name kept.
template <typename KeepText>
std::unordered_map<std::int64_t, std::string> readEnum(const Database &db, const std::set<std::string> &tables,
                                                       const std::string &table, KeepText keep)
{
    std::unordered_map<std::int64_t, std::string> values;
    if (!tables.count(table))
        return values;
    TableQuery q(db, table, {"id", "name"}, {});
    while (q.step())
        if (auto name = q.optionalText(1)) {
            keep(name->size());
            values[q.integer(0)] = std::move(*name);
        }
    return values;
}

// The part of an enum symbol after its last "KIND_": "CUDA_MEMCPY_KIND_UVM_HTOD" -> "UVM_HTOD",
// "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC" -> "DEVICE_STATIC". Nsight and CUPTI spell both this way.
std::string_view enumSuffix(std::string_view symbol)
{
    const auto pos = symbol.rfind("KIND_");
    return pos == std::string_view::npos ? symbol : symbol.substr(pos + 5);
}

// Files without ENUM tables (schema 2.9.1 and older): copyKind is CUPTI's CUpti_ActivityMemcpyKind
// plus Nsight's three unified-memory kinds, the same numbers as every file that has the table.
std::string_view fallbackCopyKind(std::int64_t id)
{
    static constexpr std::string_view kNames[] = {"UNKNOWN", "HTOD",     "DTOH",     "HTOA",    "ATOH",
                                                  "ATOA",    "ATOD",     "DTOA",     "DTOD",    "HTOH",
                                                  "PTOP",    "UVM_HTOD", "UVM_DTOH", "UVM_DTOD"};
    return id >= 0 && id < 14 ? kNames[id] : "UNKNOWN";
}

// srcKind/dstKind follow Nsight's own numbering in every version (0 = Pageable), not CUPTI's
// (0 = Unknown): HtoD rows of pre-ENUM exports are (0|1 -> 2), as the files with the table say.
std::string_view fallbackMemKind(std::int64_t id)
{
    static constexpr std::string_view kNames[] = {"PAGEABLE", "PINNED",        "DEVICE",         "ARRAY",
                                                  "MANAGED",  "DEVICE_STATIC", "MANAGED_STATIC", "UNKNOWN"};
    return id >= 0 && id < 8 ? kNames[id] : "UNKNOWN";
}

struct CopyKindInfo {
    OpKind kind = OpKind::Other;
    bool unified = false; // a unified-memory migration rather than a cudaMemcpy*
    std::string_view label; // "HtoD", ...
};

CopyKindInfo copyKindOf(std::string_view suffix)
{
    const bool unified = suffix.starts_with("UVM_");
    if (unified)
        suffix.remove_prefix(4);
    CopyKindInfo info;
    info.unified = unified;
    if (suffix == "HTOD" || suffix == "HTOA")
        info = {OpKind::CopyH2D, unified, "HtoD"};
    else if (suffix == "DTOH" || suffix == "ATOH")
        info = {OpKind::CopyD2H, unified, "DtoH"};
    else if (suffix == "DTOD" || suffix == "ATOA" || suffix == "ATOD" || suffix == "DTOA")
        info = {OpKind::CopyD2D, unified, "DtoD"};
    else if (suffix == "PTOP")
        info = {OpKind::CopyP2P, unified, "PtoP"};
    else if (suffix == "HTOH")
        info = {OpKind::CopyH2H, unified, "HtoH"};
    else
        info = {OpKind::Other, unified, "copy of unknown kind"};
    return info;
}

MemKind memKindOf(std::string_view suffix)
{
    if (suffix == "PAGEABLE")
        return MemKind::Pageable;
    if (suffix == "PINNED")
        return MemKind::Pinned;
    if (suffix == "DEVICE" || suffix == "DEVICE_STATIC" || suffix == "ARRAY")
        return MemKind::Device;
    if (suffix == "MANAGED" || suffix == "MANAGED_STATIC")
        return MemKind::Managed;
    return MemKind::Unknown;
}

std::string_view memLabel(MemKind kind)
{
    switch (kind) {
    case MemKind::Pageable: return "Pageable";
    case MemKind::Pinned: return "Pinned";
    case MemKind::Registered: return "Registered";
    case MemKind::Managed: return "Managed";
    case MemKind::Device: return "Device";
    case MemKind::None:
    case MemKind::Unknown: break;
    }
    return "Unknown";
}

// ---- the importer --------------------------------------------------------------------------------

constexpr std::int64_t kNoStream = 0xFFFFFFFFll; // CUPTI's "no stream" in SYNCHRONIZATION rows

// Correlation ids are per process (CUPTI numbers each process's calls from 1): a multi-process export
// such as a torchrun capture repeats them, so calls and GPU ops are matched on (pid, correlation).
std::uint64_t pidOf(std::int64_t globalId)
{
    return static_cast<std::uint64_t>((globalId >> 24) & 0xFFFFFF);
}
std::uint64_t correlationKey(std::uint64_t pid, std::uint64_t correlation)
{
    return (pid << 40) ^ correlation;
}

struct RuntimeCall {
    std::int64_t start = 0, end = 0;
    std::int64_t globalTid = 0;
    std::uint64_t correlation = 0;
    std::int64_t nameId = 0;
    bool used = false;
};

// A cudaGraphLaunch whose nodes the export recorded one by one: its call as a launch range, and the nodes it ran
// (the first one's index among the importer's ops places the range in its repetition).
struct GraphLaunch {
    HostRange range;
    std::size_t nodes = 0;
    std::int64_t firstNode = -1;
};

struct SyncRow {
    std::int64_t start = 0, end = 0;
    std::int64_t device = 0, context = -1, stream = kNoStream;
    std::uint64_t correlation = 0;
    std::optional<std::uint64_t> pid;
    std::int64_t syncType = -1;
};

struct StreamKey {
    std::int64_t device;
    std::int64_t stream;
    bool operator<(const StreamKey &o) const { return device != o.device ? device < o.device : stream < o.stream; }
};

struct StreamAttrs {
    int priority = 0;
    std::int64_t flag = -1;
};

// One NVTX range: push/pop ranges nest on their thread; start/end ranges are placed on the thread
// that started them.
struct NvtxRange {
    std::int64_t start = 0, end = 0;
    std::int64_t globalTid = 0;
    std::uint32_t name = 0; // index into NsysImporter::m_rangeNames
    std::int64_t domain = 0; // NVTX_EVENTS.domainId, 0 = the default domain
    std::int32_t thread = -1; // index into Trace::hostThreads
};

// StreamScope's CLI brackets each repetition in "rep N", each warm-up in "warmup N" and each op's
// API call in a range named after the op; any other text is an op (or user) range.
enum class RangeRole : std::uint8_t { Op, Repetition, Warmup };

// "rep 12" -> 12 when text is prefix followed by digits only.
std::optional<int> numberAfter(std::string_view text, std::string_view prefix)
{
    if (!text.starts_with(prefix) || text.size() == prefix.size() || text.size() > prefix.size() + 9)
        return std::nullopt;
    int n = 0;
    for (char c : text.substr(prefix.size())) {
        if (c < '0' || c > '9')
            return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return n;
}

// The CUDA tables of an Nsight export read into ops, runtime calls and synchronisations, with the
// bookkeeping they share: strings (StringIds), streams, host threads and the text kept.
// The database of an Nsight Systems export and its tables: which are there, and the checks before a row
// is read (a plain table of stored values for each one read, an undamaged file, row counts within the limits).
class NsysDatabase {
protected:
    NsysDatabase(const std::string &path, const LoadControl &control) : m_db(path, control), m_path(path) { }

    void readTableList()
    {
        // The first read of the file: a file that is not a database (or is damaged) fails here. A view or
        // a virtual table is not a table: a view named after a table the importer reads is refused by
        // checkSchema, a virtual table here.
        Statement s(m_db, "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'view')",
                    "reading the list of tables");
        while (s.step()) {
            std::string name = s.text(1);
            if (s.text(0) == "view") {
                m_views.insert(std::move(name));
                continue;
            }
            std::string sql = s.text(2).substr(0, 32);
            std::transform(sql.begin(), sql.end(), sql.begin(), [](unsigned char c) { return std::toupper(c); });
            if (sql.starts_with("CREATE VIRTUAL"))
                m_virtualTables.insert(name);
            m_tables.insert(std::move(name));
        }
        checkSchema();
        if (!m_tables.count("StringIds"))
            throw Error(ErrorKind::InvalidInput,
                        m_path + ": not an Nsight Systems export: it has no StringIds table (tables: "
                            + (m_tables.empty() ? std::string("none") : joined(m_tables)) + ")");
        static const char *const kActivity[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                                "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME"};
        if (std::none_of(std::begin(kActivity), std::end(kActivity),
                         [&](const char *t) { return m_tables.count(t) > 0; }))
            throw Error(ErrorKind::InvalidInput,
                        m_path
                            + ": this Nsight Systems export holds no CUDA activity (no CUPTI_ACTIVITY_KIND_KERNEL, "
                              "_MEMCPY, _MEMSET or _RUNTIME table): profile with `nsys profile -t cuda`");
    }

    bool has(const char *table) const { return m_tables.count(table) > 0; }

    // Every table the importer reads is a plain table of stored values: a view (a query of the file's
    // choosing, run as it is read) or a virtual table in its place is refused, naming it; generated
    // columns are refused as each table's columns are looked up (storedColumns).
    void checkSchema()
    {
        static const char *const kRead[] = {"StringIds",
                                            "META_DATA_EXPORT",
                                            "EXPORT_META_DATA",
                                            "ENUM_CUDA_MEMCPY_OPER",
                                            "ENUM_CUDA_MEM_KIND",
                                            "ENUM_NSYS_EVENT_TYPE",
                                            "TARGET_INFO_GPU",
                                            "TARGET_INFO_CUDA_DEVICE",
                                            "TARGET_INFO_CUDA_STREAM",
                                            "TARGET_INFO_CUDA_NULL_STREAM",
                                            "TARGET_INFO_CUDA_CONTEXT_INFO",
                                            "TARGET_INFO_NVTX_CUDA_STREAM",
                                            "CUPTI_ACTIVITY_KIND_KERNEL",
                                            "CUPTI_ACTIVITY_KIND_MEMCPY",
                                            "CUPTI_ACTIVITY_KIND_MEMSET",
                                            "CUPTI_ACTIVITY_KIND_RUNTIME",
                                            "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                            "NVTX_EVENTS",
                                            "ThreadNames"};
        for (const char *table : kRead) {
            if (m_views.count(table))
                throw Error(ErrorKind::InvalidInput,
                            m_path + ": " + table
                                + " is a view, not a table: StreamScope reads values stored in the file, never "
                                  "a query the file defines (an Nsight export has no views)");
            if (m_virtualTables.count(table))
                throw Error(ErrorKind::InvalidInput,
                            m_path + ": " + table
                                + " is a virtual table, not a table: StreamScope reads values stored in the file "
                                  "(an Nsight export has no virtual tables)");
            if (has(table))
                storedColumns(m_db, table); // refuses generated columns
        }
    }

    // A damaged b-tree reads as rows that were never written (142 ops of a capture of 120, #24): SQLite's
    // quick check (every page's structure, without comparing indexes to their tables) refuses it first.
    void checkIntegrity()
    {
        Statement s(m_db, "PRAGMA quick_check(1)", "checking the database (PRAGMA quick_check)");
        const std::string result = s.step() ? s.text(0) : std::string("no result");
        if (result != "ok")
            throw Error(ErrorKind::InvalidInput,
                        m_path + ": the database is damaged (SQLite's quick_check: " + oneLine(result.substr(0, 300))
                            + "): StreamScope does not read a damaged export; export the capture again");
    }

    // What each table would become, counted before a row is read: the limits refuse a file without
    // reading (or keeping) what they bound (12M kernels were read whole, 3 GB, before, #24).
    void checkRowCounts()
    {
        const auto count = [&](const char *table) -> std::size_t { return has(table) ? rowCount(table) : 0; };
        const auto refuse = [&](const std::string &what, std::size_t n, const std::string &limit) {
            throw Error(ErrorKind::InvalidInput, m_path + ": " + what + ": " + std::to_string(n)
                                                     + " rows, more than StreamScope reads (" + limit
                                                     + "; docs/formats.md, \"Limits\")");
        };
        const std::string ops = "at most " + std::to_string(limits::kMaxOps) + " ops";
        const std::size_t kernels = count("CUPTI_ACTIVITY_KIND_KERNEL"), copies = count("CUPTI_ACTIVITY_KIND_MEMCPY"),
                          memsets = count("CUPTI_ACTIVITY_KIND_MEMSET");
        if (kernels + copies + memsets > limits::kMaxOps) // each row is an op
            refuse("tables CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY and _MEMSET together", kernels + copies + memsets, ops);
        // Each call is an op or the host side of one; some versions record a launch twice.
        if (const std::size_t calls = count("CUPTI_ACTIVITY_KIND_RUNTIME"); calls > 2 * limits::kMaxOps)
            refuse("table CUPTI_ACTIVITY_KIND_RUNTIME", calls, ops + ", at most two calls recorded for each");
        if (const std::size_t syncs = count("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"); syncs > limits::kMaxOps)
            refuse("table CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", syncs, ops);
        if (const std::size_t ranges = count("NVTX_EVENTS"); ranges > limits::kMaxHostRanges + limits::kMaxOps)
            refuse("table NVTX_EVENTS", ranges,
                   "at most " + std::to_string(limits::kMaxHostRanges) + " host ranges, and as many marks as ops");
        for (const char *table :
             {"ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND", "ENUM_NSYS_EVENT_TYPE", "TARGET_INFO_GPU",
              "TARGET_INFO_CUDA_DEVICE", "TARGET_INFO_CUDA_STREAM", "TARGET_INFO_CUDA_NULL_STREAM",
              "TARGET_INFO_CUDA_CONTEXT_INFO", "TARGET_INFO_NVTX_CUDA_STREAM", "ThreadNames"})
            if (const std::size_t n = count(table); n > kMaxDescriptionRows)
                refuse(std::string("table ") + table, n,
                       "at most " + std::to_string(kMaxDescriptionRows) + " rows of a table that describes");
    }

    // The number of rows of a table: what to reserve for them. Counted, never taken from max(rowid): a
    // row id is any number a file chooses, and one huge id in a tiny file reserved gigabytes (#13).
    std::size_t rowCount(const char *table)
    {
        if (auto it = m_rowCounts.find(table); it != m_rowCounts.end())
            return it->second;
        Statement s(m_db, std::string("SELECT count(*) FROM \"") + table + "\"",
                    std::string("reading table ") + table + " (counting its rows)");
        const std::size_t n =
            s.step() ? static_cast<std::size_t>(std::max<std::int64_t>(0, sqlite3_column_int64(s.get(), 0))) : 0;
        m_rowCounts.emplace(table, n);
        return n;
    }

    Database m_db;
    std::string m_path;
    std::set<std::string> m_tables;
    std::set<std::string> m_views, m_virtualTables;
    std::map<std::string, std::size_t> m_rowCounts; // rowCount's, each table counted once
};

class NsysTableReader : protected NsysDatabase {
protected:
    NsysTableReader(const std::string &path, const LoadControl &control) : NsysDatabase(path, control) { }

    // Text kept from the file (StringIds values, range names), all together: bytes, not a count.
    void keepText(std::size_t bytes, const char *table)
    {
        m_textBytes += bytes;
        if (m_textBytes > limits::kMaxTotalTextBytes)
            throw Error(ErrorKind::InvalidInput, m_path + ": table " + table + ": more than "
                                                     + limits::describeBytes(limits::kMaxTotalTextBytes)
                                                     + " of text, the most StreamScope keeps of a trace "
                                                       "(docs/formats.md, \"Limits\")");
    }

    void readMetadata()
    {
        // META_DATA_EXPORT from 2023.3 (schema 3.4), EXPORT_META_DATA before, nothing in 2021.2 and older.
        const char *table = has("META_DATA_EXPORT")   ? "META_DATA_EXPORT"
                            : has("EXPORT_META_DATA") ? "EXPORT_META_DATA"
                                                      : nullptr;
        if (!table) {
            m_trace.metadata["nsys.version"] = "unknown (the export has no metadata table: nsys 2021.2 or older)";
            return;
        }
        TableQuery q(m_db, table, {"name"}, {"value"});
        while (q.step()) {
            const auto name = q.optionalText(0);
            const auto value = q.optionalText(1);
            if (!name || !value)
                continue;
            if (*name == "EXPORT_PRODUCT_VERSION") {
                m_trace.metadata["nsys.version"] = *value;
                m_trace.toolVersion = "Nsight Systems " + *value;
            } else if (*name == "EXPORT_SCHEMA_VERSION") {
                m_trace.metadata["nsys.schema"] = *value;
            } else if (*name == "EXPORT_TIME_UTC") {
                m_trace.createdUtc = *value;
            } else if (*name == "EXPORT_HOST") {
                m_trace.hostName = *value;
            } else if (*name == "DERIVED_WINDOW_NS" || *name == "DERIVED_FROM") {
                m_trace.metadata["nsys." + *name] = *value;
            }
        }
    }

    void readEnums()
    {
        m_copyKinds = readEnum(m_db, m_tables, "ENUM_CUDA_MEMCPY_OPER",
                               [&](std::size_t n) { keepText(n, "ENUM_CUDA_MEMCPY_OPER"); });
        m_memKinds =
            readEnum(m_db, m_tables, "ENUM_CUDA_MEM_KIND", [&](std::size_t n) { keepText(n, "ENUM_CUDA_MEM_KIND"); });
        m_trace.metadata["nsys.enums"] =
            m_copyKinds.empty() || m_memKinds.empty()
                ? "not in the file: copy and memory kinds read with Nsight's fixed numbering"
                : "read from ENUM_CUDA_MEMCPY_OPER and ENUM_CUDA_MEM_KIND";
    }

    CopyKindInfo copyKind(std::int64_t id) const
    {
        auto it = m_copyKinds.find(id);
        return copyKindOf(it != m_copyKinds.end() ? enumSuffix(it->second) : fallbackCopyKind(id));
    }

    MemKind memKind(std::optional<std::int64_t> id) const
    {
        if (!id)
            return MemKind::Unknown;
        auto it = m_memKinds.find(*id);
        return memKindOf(it != m_memKinds.end() ? enumSuffix(it->second) : fallbackMemKind(*id));
    }

    void readDevices()
    {
        if (has("TARGET_INFO_GPU")) {
            TableQuery q(m_db, "TARGET_INFO_GPU", {"id"},
                         {"name", "busLocation", "l2CacheSize", "totalMemory", "clockRate", "smCount", "asyncEngines",
                          "computeMajor", "computeMinor"});
            while (q.step()) {
                DeviceInfo d;
                d.index = static_cast<int>(deviceId(q, 0));
                d.name = q.optionalText(1).value_or("");
                d.pciBusId = q.optionalText(2).value_or("");
                d.l2Bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(0, q.optionalInteger(3).value_or(0)));
                d.totalMemBytes =
                    static_cast<std::uint64_t>(std::max<std::int64_t>(0, q.optionalInteger(4).value_or(0)));
                d.smClockKHz = static_cast<int>(q.optionalInteger(5).value_or(0) / 1000);
                d.smCount = static_cast<int>(q.optionalInteger(6).value_or(0));
                d.asyncEngineCount = static_cast<int>(q.optionalInteger(7).value_or(0));
                d.ccMajor = static_cast<int>(q.optionalInteger(8).value_or(0));
                d.ccMinor = static_cast<int>(q.optionalInteger(9).value_or(0));
                // Several VMs or processes may list the same GPU: keep one entry per device id.
                if (std::none_of(m_trace.devices.begin(), m_trace.devices.end(),
                                 [&](const DeviceInfo &e) { return e.index == d.index; })) {
                    if (m_trace.devices.size() == limits::kMaxDevices)
                        q.invalid(0, "more than " + std::to_string(limits::kMaxDevices)
                                         + " devices, the most StreamScope reads (docs/formats.md, \"Limits\")");
                    keepText(d.name.size() + d.pciBusId.size(), "TARGET_INFO_GPU");
                    m_trace.devices.push_back(std::move(d));
                }
            }
        }
        if (has("TARGET_INFO_CUDA_DEVICE")) {
            TableQuery q(m_db, "TARGET_INFO_CUDA_DEVICE", {"cudaId"}, {"numMultiprocessors"});
            while (q.step())
                for (auto &d : m_trace.devices)
                    if (d.index == q.integer(0) && d.smCount == 0)
                        d.smCount = static_cast<int>(q.optionalInteger(1).value_or(0));
        }
        std::sort(m_trace.devices.begin(), m_trace.devices.end(),
                  [](const DeviceInfo &a, const DeviceInfo &b) { return a.index < b.index; });
    }

    // Attributes and names of the streams that ran work (what is kept follows the ops, not the rows).
    void readStreamAttributes()
    {
        std::set<std::int64_t> ran;
        for (const StreamKey &k : m_streamKeys)
            ran.insert(k.stream);
        if (has("TARGET_INFO_CUDA_STREAM")) {
            TableQuery q(m_db, "TARGET_INFO_CUDA_STREAM", {"streamId"}, {"priority", "flag"});
            while (q.step())
                if (ran.count(q.integer(0)))
                    m_streamAttrs[q.integer(0)] = {static_cast<int>(q.optionalInteger(1).value_or(0)),
                                                   q.optionalInteger(2).value_or(-1)};
        }
        if (has("TARGET_INFO_CUDA_NULL_STREAM")) {
            TableQuery q(m_db, "TARGET_INFO_CUDA_NULL_STREAM", {"streamId"}, {});
            while (q.step())
                if (ran.count(q.integer(0)))
                    m_nullStreams.insert(q.integer(0));
        }
        if (has("TARGET_INFO_CUDA_CONTEXT_INFO")) {
            TableQuery q(m_db, "TARGET_INFO_CUDA_CONTEXT_INFO", {}, {"nullStreamId"});
            while (q.step())
                if (auto id = q.optionalInteger(0); id && ran.count(*id))
                    m_nullStreams.insert(*id);
        }
        // Names given with nvtxNameCudaStream. Older exports keep them in this table; see docs/formats.md.
        if (has("TARGET_INFO_NVTX_CUDA_STREAM")) {
            TableQuery q(m_db, "TARGET_INFO_NVTX_CUDA_STREAM", {"name", "streamId"}, {"deviceId"});
            while (q.step())
                if (ran.count(q.integer(1)))
                    if (auto name = q.optionalText(0)) {
                        keepText(name->size(), "TARGET_INFO_NVTX_CUDA_STREAM");
                        m_nvtxStreamNames[{q.optionalInteger(2).value_or(-1), q.integer(1)}] = std::move(*name);
                    }
        }
    }

    std::uint32_t stringId(std::int64_t id)
    {
        auto it = m_stringCache.find(id);
        if (it != m_stringCache.end())
            return it->second;
        const std::uint32_t sid = m_trace.intern(stringValue(id));
        m_stringCache.emplace(id, sid);
        return sid;
    }

    // The text of a StringIds row, or a placeholder naming the id when the row is missing.
    std::string stringValue(std::int64_t id)
    {
        if (!m_stringQuery)
            m_stringQuery = std::make_unique<Statement>(m_db, "SELECT value FROM StringIds WHERE id = ?",
                                                        "reading table StringIds");
        m_stringQuery->reset();
        m_stringQuery->bind(1, id);
        std::string value;
        if (m_stringQuery->step() && sqlite3_column_type(m_stringQuery->get(), 0) == SQLITE_TEXT)
            value = m_stringQuery->text(0);
        else
            value = "[string " + std::to_string(id) + " missing from StringIds]";
        keepText(value.size(), "StringIds");
        return value;
    }

    int streamIndex(std::int64_t device, std::int64_t stream)
    {
        const StreamKey key{device, stream};
        if (m_lastStream >= 0 && m_lastKey.device == device && m_lastKey.stream == stream)
            return m_lastStream;
        auto it = m_streamIndex.find(key);
        int index;
        if (it != m_streamIndex.end()) {
            index = it->second;
        } else {
            if (m_streamKeys.size() == limits::kMaxStreams)
                throw Error(ErrorKind::InvalidInput,
                            m_path + ": device " + std::to_string(device) + ", stream " + std::to_string(stream)
                                + ": more than " + std::to_string(limits::kMaxStreams)
                                + " streams, the most StreamScope reads (docs/formats.md, \"Limits\")");
            index = static_cast<int>(m_streamKeys.size());
            m_streamKeys.push_back(key);
            m_streamIndex.emplace(key, index);
        }
        m_lastKey = key;
        m_lastStream = index;
        return index;
    }

    // The device id in `column`, refused with table, row and column when the model's int cannot hold it.
    static std::int64_t deviceId(const TableQuery &q, int column)
    {
        const std::int64_t id = q.integer(column);
        if (const std::string problem = deviceIdProblem(id); !problem.empty())
            q.invalid(column, problem);
        return id;
    }

    void addGpuOp(OpRecord op, std::int64_t device, std::int64_t stream, std::optional<std::int64_t> correlation,
                  std::optional<std::int64_t> globalPid)
    {
        op.stream = streamIndex(device, stream);
        op.correlation = correlation && *correlation > 0 ? static_cast<std::uint64_t>(*correlation) : 0;
        op.flags |= OpFlagImported;
        m_ops.push_back(op);
        m_opPid.push_back(globalPid ? std::optional(pidOf(*globalPid)) : std::nullopt);
    }

    // The runtime call with this correlation id, in this process when the row says which process it is.
    RuntimeCall *findCall(std::uint64_t correlation, std::optional<std::uint64_t> pid)
    {
        if (correlation == 0)
            return nullptr;
        if (pid) {
            auto it = m_callByCorrelation.find(correlationKey(*pid, correlation));
            return it == m_callByCorrelation.end() ? nullptr : &m_calls[it->second];
        }
        // Rows that name no process (old exports) match on the id alone; built only when first needed.
        if (m_callByBareCorrelation.empty())
            for (std::uint32_t i = 0; i < m_calls.size(); ++i)
                if (m_calls[i].correlation != 0)
                    m_callByBareCorrelation.emplace(m_calls[i].correlation, i);
        auto it = m_callByBareCorrelation.find(correlation);
        return it == m_callByBareCorrelation.end() ? nullptr : &m_calls[it->second];
    }

    // An op with the GPU interval of a CUPTI activity row (its first two columns, start and end), checked.
    OpRecord gpuInterval(const TableQuery &q)
    {
        OpRecord op;
        op.gpuStartNs = q.integer(0);
        op.gpuEndNs = q.integer(1);
        checkTimes(q, op.gpuStartNs, op.gpuEndNs);
        return op;
    }

    // Times within the limits (so that every difference of two fits in an int64) and in order; endColumn
    // is the end's index in the query, for the message.
    void checkTimes(const TableQuery &q, std::int64_t start, std::int64_t end, int endColumn = 1)
    {
        const auto outOfRange = [](std::int64_t ns) {
            return "(" + std::to_string(ns) + " ns) is beyond the limit of ±" + std::to_string(limits::kMaxTimeNs)
                   + " ns (docs/formats.md, \"Limits\")";
        };
        // -1 ns is StreamScope's "no time" (kNoTime): a start or end there would silently drop the interval
        // (a 1 GiB copy vanished from every figure, #24), so it is refused like a time beyond the limits.
        const auto noTime = [](const char *what) {
            return std::string(what)
                   + " is -1 ns, the one time StreamScope cannot hold (it means \"not recorded\" inside "
                     "StreamScope; docs/formats.md, \"Limits\")";
        };
        if (!limits::isTimeInRange(start))
            q.invalid(0, "start " + outOfRange(start));
        if (!limits::isTimeInRange(end))
            q.invalid(endColumn, "end " + outOfRange(end));
        if (start == kNoTime)
            q.invalid(0, noTime("start"));
        if (end == kNoTime)
            q.invalid(endColumn, noTime("end"));
        if (end < start)
            q.invalid(endColumn, "end (" + std::to_string(end) + ") is before start (" + std::to_string(start) + ")");
    }

    void readKernels()
    {
        if (!has("CUPTI_ACTIVITY_KIND_KERNEL"))
            return;
        const std::size_t kernels = rowCount("CUPTI_ACTIVITY_KIND_KERNEL");
        m_ops.reserve(kernels + (has("CUPTI_ACTIVITY_KIND_MEMCPY") ? rowCount("CUPTI_ACTIVITY_KIND_MEMCPY") : 0));
        m_opPid.reserve(m_ops.capacity());
        m_launches.reserve(kernels);
        TableQuery q(m_db, "CUPTI_ACTIVITY_KIND_KERNEL", {"start", "end", "deviceId", "streamId"},
                     {"correlationId", "shortName", "demangledName", "globalPid", "gridX", "gridY", "gridZ", "blockX",
                      "blockY", "blockZ", "staticSharedMemory", "dynamicSharedMemory", "registersPerThread",
                      "graphNodeId"});
        while (q.step()) {
            OpRecord op = gpuInterval(q);
            op.kind = OpKind::Kernel;
            // The kernel's own name: the short one ("flash_fwd_kernel") keeps lanes readable, the demangled
            // signature goes with the launch details; the demangled one alone when it is all there is.
            const auto shortName = q.optionalInteger(5);
            const auto demangled = q.optionalInteger(6);
            if (!shortName && !demangled)
                q.invalid(5, "neither shortName nor demangledName is set");
            op.nameId = stringId(shortName ? *shortName : *demangled);
            KernelLaunch launch;
            launch.op = static_cast<std::int32_t>(m_ops.size()); // m_ops' index until finishOps
            if (shortName && demangled) {
                const std::uint32_t full = stringId(*demangled);
                if (full != op.nameId)
                    launch.fullNameId = full;
            }
            // Every number is checked against what it can be before it is kept (a file may say anything).
            auto dimension = [&](int column) -> std::uint32_t {
                const auto v = q.optionalInteger(column);
                if (v && (*v < 0 || *v > std::numeric_limits<std::uint32_t>::max()))
                    q.invalid(column, "a launch dimension of " + std::to_string(*v) + " is not possible");
                return v ? static_cast<std::uint32_t>(*v) : 0;
            };
            for (int d = 0; d < 3; ++d) {
                launch.grid[d] = dimension(8 + d);
                launch.block[d] = dimension(11 + d);
            }
            auto size = [&](int column) -> std::int32_t {
                const auto v = q.optionalInteger(column);
                if (v && (*v < 0 || *v > std::numeric_limits<std::int32_t>::max()))
                    q.invalid(column, std::to_string(*v) + " is not a possible size");
                return v ? static_cast<std::int32_t>(*v) : -1;
            };
            launch.staticSharedBytes = size(14);
            launch.dynamicSharedBytes = size(15);
            launch.registersPerThread = size(16);
            if (launch.staticSharedBytes >= 0 || launch.dynamicSharedBytes >= 0)
                launch.sharedBytes =
                    std::int64_t(std::max(0, launch.staticSharedBytes)) + std::max(0, launch.dynamicSharedBytes);
            if (launch.hasGrid() || launch.hasBlock() || launch.sharedBytes >= 0 || launch.registersPerThread >= 0
                || launch.fullNameId != kNoString)
                m_launches.push_back(launch);
            markGraphNode(op, q.optionalInteger(17));
            addGpuOp(op, deviceId(q, 2), q.integer(3), q.optionalInteger(4), q.optionalInteger(7));
        }
    }

    void readMemcpys()
    {
        if (!has("CUPTI_ACTIVITY_KIND_MEMCPY"))
            return;
        TableQuery q(m_db, "CUPTI_ACTIVITY_KIND_MEMCPY", {"start", "end", "deviceId", "streamId", "bytes", "copyKind"},
                     {"correlationId", "srcKind", "dstKind", "globalPid", "srcDeviceId", "dstDeviceId", "graphNodeId"});
        std::map<std::tuple<int, int, int, bool>, std::uint32_t> names;
        const auto deviceIndex = [](std::optional<std::int64_t> id) -> std::int8_t {
            return id && *id >= 0 && *id < static_cast<std::int64_t>(limits::kMaxDevices)
                       ? static_cast<std::int8_t>(*id)
                       : std::int8_t(-1);
        };
        while (q.step()) {
            OpRecord op = gpuInterval(q);
            const std::int64_t bytes = q.integer(4);
            if (bytes < 0)
                q.invalid(4, "negative byte count " + std::to_string(bytes));
            op.bytes = static_cast<std::uint64_t>(bytes);
            const CopyKindInfo info = copyKind(q.integer(5));
            op.kind = info.kind;
            // A copy between two GPUs: PtoP, or a DtoD whose ends the export places on two devices.
            const std::int8_t srcDevice = deviceIndex(q.optionalInteger(10));
            const std::int8_t dstDevice = deviceIndex(q.optionalInteger(11));
            if (!info.unified
                && (op.kind == OpKind::CopyP2P
                    || (op.kind == OpKind::CopyD2D && srcDevice >= 0 && dstDevice >= 0 && srcDevice != dstDevice))) {
                op.kind = OpKind::CopyP2P;
                op.srcDevice = srcDevice;
                op.dstDevice = dstDevice;
            }
            op.srcMem = memKind(q.optionalInteger(7));
            op.dstMem = memKind(q.optionalInteger(8));
            if (info.unified) {
                // Page migrations of managed memory: Nsight records both sides as Unknown (7).
                op.srcMem = MemKind::Managed;
                op.dstMem = MemKind::Managed;
            }
            const auto key = std::make_tuple(static_cast<int>(op.kind), static_cast<int>(op.srcMem),
                                             static_cast<int>(op.dstMem), info.unified);
            auto it = names.find(key);
            if (it == names.end()) {
                const std::string name = info.unified ? "UVM " + std::string(info.label) + " migration"
                                                      : "Memcpy " + std::string(info.label) + " ("
                                                            + std::string(memLabel(op.srcMem)) + " -> "
                                                            + std::string(memLabel(op.dstMem)) + ")";
                it = names.emplace(key, m_trace.intern(name)).first;
            }
            op.nameId = it->second;
            markGraphNode(op, q.optionalInteger(12));
            addGpuOp(op, deviceId(q, 2), q.integer(3), q.optionalInteger(6), q.optionalInteger(9));
        }
    }

    void readMemsets()
    {
        if (!has("CUPTI_ACTIVITY_KIND_MEMSET"))
            return;
        TableQuery q(m_db, "CUPTI_ACTIVITY_KIND_MEMSET", {"start", "end", "deviceId", "streamId", "bytes"},
                     {"correlationId", "memKind", "globalPid", "graphNodeId"});
        while (q.step()) {
            OpRecord op = gpuInterval(q);
            const std::int64_t bytes = q.integer(4);
            if (bytes < 0)
                q.invalid(4, "negative byte count " + std::to_string(bytes));
            op.bytes = static_cast<std::uint64_t>(bytes);
            op.kind = OpKind::Memset;
            op.dstMem = memKind(q.optionalInteger(6));
            op.nameId = m_trace.intern("Memset (" + std::string(memLabel(op.dstMem)) + ")");
            markGraphNode(op, q.optionalInteger(8));
            addGpuOp(op, deviceId(q, 2), q.integer(3), q.optionalInteger(5), q.optionalInteger(7));
        }
    }

    // A node of a CUDA graph (an export taken with --cuda-graph-trace=node): its record names its node, and its
    // correlation is the graph's launch, which becomes a launch range on the host (linkHostCalls).
    void markGraphNode(OpRecord &op, std::optional<std::int64_t> graphNodeId)
    {
        if (!graphNodeId)
            return;
        op.flags |= OpFlagGraphNode;
        ++m_graphNodes;
    }

    // Graphs recorded whole (an export taken without --cuda-graph-trace=node, Nsight's default): each launch's
    // execution is one row, on the stream it was launched on, and what ran inside it is not in the file. Each
    // becomes one op of kind Graph, so that the GPU is not drawn idle while it ran, and the trace says what is
    // missing.
    void readGraphTraces()
    {
        if (!has("CUPTI_ACTIVITY_KIND_GRAPH_TRACE"))
            return;
        TableQuery q(m_db, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", {"start", "end", "deviceId", "streamId", "graphId"},
                     {"correlationId", "globalPid"});
        std::map<std::int64_t, std::uint32_t> names;
        std::set<std::int64_t> graphs;
        std::size_t launches = 0;
        while (q.step()) {
            OpRecord op = gpuInterval(q);
            op.kind = OpKind::Graph;
            const std::int64_t graph = q.integer(4);
            auto name = names.find(graph);
            if (name == names.end())
                name = names.emplace(graph, m_trace.intern("CUDA graph " + std::to_string(graph))).first;
            op.nameId = name->second;
            graphs.insert(graph);
            ++launches;
            addGpuOp(op, deviceId(q, 2), q.integer(3), q.optionalInteger(5), q.optionalInteger(6));
        }
        if (launches == 0)
            return;
        const std::string note =
            std::to_string(launches) + (launches == 1 ? " launch" : " launches") + " of "
            + std::to_string(graphs.size()) + (graphs.size() == 1 ? " CUDA graph" : " CUDA graphs")
            + " recorded whole: Nsight Systems ran without --cuda-graph-trace=node, so the kernels, copies and memsets "
              "inside them are not in this file; each is drawn as one \"CUDA graph\" op on its stream";
        m_trace.metadata["cuda_graphs"] = note;
        m_trace.timingNote = note;
    }

    void readRuntime()
    {
        if (!has("CUPTI_ACTIVITY_KIND_RUNTIME"))
            return;
        TableQuery q(m_db, "CUPTI_ACTIVITY_KIND_RUNTIME", {"start", "end", "nameId"}, {"globalTid", "correlationId"});
        const std::size_t rows = rowCount("CUPTI_ACTIVITY_KIND_RUNTIME");
        m_calls.reserve(rows);
        m_callByCorrelation.reserve(rows);
        while (q.step()) {
            RuntimeCall c;
            c.start = q.integer(0);
            c.end = q.integer(1);
            checkTimes(q, c.start, c.end);
            c.nameId = q.integer(2);
            c.globalTid = q.optionalInteger(3).value_or(0);
            c.correlation = static_cast<std::uint64_t>(std::max<std::int64_t>(0, q.optionalInteger(4).value_or(0)));
            const auto index = static_cast<std::uint32_t>(m_calls.size());
            m_calls.push_back(c);
            if (c.correlation == 0)
                continue;
            // Some versions record one call twice under one correlationId (cudaLaunchKernel and
            // cudaLaunchKernel_v7000): the longer one is the call as the application made it.
            auto [it, inserted] = m_callByCorrelation.emplace(correlationKey(pidOf(c.globalTid), c.correlation), index);
            if (!inserted) {
                RuntimeCall &other = m_calls[it->second];
                if (c.end - c.start > other.end - other.start) {
                    other.used = true; // hidden behind the outer call
                    it->second = index;
                } else {
                    m_calls.back().used = true;
                }
            }
        }
    }

    void readSynchronization()
    {
        if (!has("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"))
            return;
        TableQuery q(m_db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", {"start", "end", "streamId"},
                     {"deviceId", "contextId", "correlationId", "syncType", "globalPid"});
        while (q.step()) {
            SyncRow s;
            s.start = q.integer(0);
            s.end = q.integer(1);
            checkTimes(q, s.start, s.end);
            s.stream = q.integer(2);
            s.device = q.optionalInteger(3).value_or(0);
            s.context = q.optionalInteger(4).value_or(-1);
            s.correlation = static_cast<std::uint64_t>(std::max<std::int64_t>(0, q.optionalInteger(5).value_or(0)));
            s.syncType = q.optionalInteger(6).value_or(-1);
            if (const auto pid = q.optionalInteger(7))
                s.pid = pidOf(*pid);
            m_syncs.push_back(s);
        }
    }

    int hostThread(std::int64_t globalTid)
    {
        auto it = m_threadIndex.find(globalTid);
        if (it != m_threadIndex.end())
            return it->second;
        if (m_trace.hostThreads.size() == limits::kMaxHostThreads)
            throw Error(ErrorKind::InvalidInput, m_path + ": thread " + std::to_string(globalTid) + ": more than "
                                                     + std::to_string(limits::kMaxHostThreads)
                                                     + " host threads, the most StreamScope reads (docs/formats.md, "
                                                       "\"Limits\")");
        const int index = static_cast<int>(m_trace.hostThreads.size());
        HostThreadInfo t;
        // Nsight's serialized GlobalId: bits 24..47 hold the pid, bits 0..23 the tid.
        t.nativeId = static_cast<std::uint64_t>(globalTid & 0xFFFFFF);
        const auto pid = (globalTid >> 24) & 0xFFFFFF;
        t.processId = pid;
        t.name = "pid " + std::to_string(pid) + " tid " + std::to_string(t.nativeId);
        m_trace.hostThreads.push_back(t);
        m_threadIndex.emplace(globalTid, index);
        m_threadTids.push_back(globalTid);
        return index;
    }

    void linkHostCalls()
    {
        // GPU ops take the host interval of the API call that issued them; a graph's nodes share their launch,
        // which becomes a launch range on its thread (graphLaunches) and leaves them no call of their own.
        std::map<const RuntimeCall *, GraphLaunch> launches;
        m_launchStartOf.assign(m_ops.size(), kNoTime);
        for (std::size_t i = 0; i < m_ops.size(); ++i) {
            OpRecord &op = m_ops[i];
            RuntimeCall *call = findCall(op.correlation, m_opPid[i]);
            if (!call)
                continue; // e.g. a windowed export that cut the call off
            RuntimeCall &c = *call;
            c.used = true;
            if (op.flags & OpFlagGraphNode) {
                op.hostThread = hostThread(c.globalTid);
                m_launchStartOf[i] = c.start; // what places it among NVTX ranges (findEnclosingRanges)
                GraphLaunch &launch = launches[&c];
                launch.nodes += 1;
                if (launch.firstNode < 0)
                    launch.firstNode = std::int64_t(i);
                continue;
            }
            op.hostStartNs = c.start;
            op.hostEndNs = c.end;
            op.hostThread = hostThread(c.globalTid);
            if (isCopy(op.kind)) {
                const std::string &api = m_trace.strings[stringId(c.nameId)];
                op.api = api.find("Async") != std::string::npos ? CopyApi::Async : CopyApi::Sync;
            }
        }
        for (const auto &[call, launch] : launches) {
            GraphLaunch l = launch;
            l.range.startNs = call->start;
            l.range.endNs = call->end;
            l.range.hostThread = hostThread(call->globalTid);
            l.range.category = HostRangeCategory::Launch;
            // "cudaGraphLaunch_v10000": the suffix names an ABI, not another call.
            std::string name = m_trace.strings[stringId(call->nameId)];
            name = name.substr(0, name.find('_'));
            l.range.nameId =
                m_trace.intern(name + " (" + std::to_string(l.nodes) + (l.nodes == 1 ? " node)" : " nodes)"));
            m_graphLaunches.push_back(l);
        }
        if (!m_graphLaunches.empty())
            m_trace.metadata["cuda_graphs"] = std::to_string(m_graphLaunches.size()) + " graph launches, "
                                              + std::to_string(m_graphNodes)
                                              + " node executions recorded one by one (--cuda-graph-trace=node)";
        std::unordered_map<std::uint64_t, const SyncRow *> syncByCorrelation; // by correlationKey
        for (const auto &s : m_syncs)
            if (s.correlation != 0 && s.pid)
                syncByCorrelation.emplace(correlationKey(*s.pid, s.correlation), &s);
        std::set<const SyncRow *> syncsUsed;
        // Every other API call becomes a host-only op on its thread: synchronisations matter most, but
        // cudaMalloc and friends also hold the host, and the timeline should show it.
        for (const auto &c : m_calls) {
            if (c.used)
                continue;
            OpRecord op;
            op.hostStartNs = c.start;
            op.hostEndNs = c.end;
            op.hostThread = hostThread(c.globalTid);
            op.nameId = stringId(c.nameId);
            op.kind = opKindOfApiCall(m_trace.strings[op.nameId]);
            op.correlation = c.correlation;
            op.flags = OpFlagImported;
            if (auto it = syncByCorrelation.find(correlationKey(pidOf(c.globalTid), c.correlation));
                c.correlation != 0 && it != syncByCorrelation.end()) {
                op.kind = OpKind::HostSync;
                op.stream = knownStream(*it->second);
                syncsUsed.insert(it->second);
            }
            m_ops.push_back(op);
        }
        // Synchronisations whose API call is not in the file (a windowed export): still host time spent waiting.
        const std::uint32_t syncName = m_syncs.empty() ? 0 : m_trace.intern("synchronization");
        for (const auto &s : m_syncs) {
            if (syncsUsed.count(&s) || findCall(s.correlation, s.pid))
                continue;
            OpRecord op;
            op.hostStartNs = s.start;
            op.hostEndNs = s.end;
            op.kind = OpKind::HostSync;
            op.nameId = syncName;
            op.correlation = s.correlation;
            op.stream = knownStream(s);
            op.flags = OpFlagImported;
            m_ops.push_back(op);
        }
    }

    // The stream a synchronisation waited on, when that stream ran GPU work in this file.
    int knownStream(const SyncRow &s) const
    {
        if (s.stream == kNoStream || s.stream < 0)
            return -1;
        auto it = m_streamIndex.find({s.device, s.stream});
        return it == m_streamIndex.end() ? -1 : it->second;
    }

    Trace m_trace;
    std::uint64_t m_textBytes = 0; // text kept so far (keepText)
    std::unordered_map<std::int64_t, std::string> m_copyKinds, m_memKinds;
    std::unordered_map<std::int64_t, StreamAttrs> m_streamAttrs;
    std::set<std::int64_t> m_nullStreams;
    std::map<StreamKey, std::string> m_nvtxStreamNames;
    std::unordered_map<std::int64_t, std::uint32_t> m_stringCache;
    std::unique_ptr<Statement> m_stringQuery;
    std::map<StreamKey, int> m_streamIndex;
    std::vector<StreamKey> m_streamKeys;
    StreamKey m_lastKey{0, 0};
    int m_lastStream = -1;
    std::vector<OpRecord> m_ops;
    std::vector<std::optional<std::uint64_t>> m_opPid; // per m_ops entry: the process that issued it, when known
    std::vector<RuntimeCall> m_calls;
    std::unordered_map<std::uint64_t, std::uint32_t> m_callByCorrelation; // by correlationKey(pid, id)
    std::vector<GraphLaunch> m_graphLaunches; // linkHostCalls'
    std::size_t m_graphNodes = 0; // ops that ran as nodes of a graph (markGraphNode)
    std::vector<std::int64_t> m_launchStartOf; // per op: a graph node's launch call's start, kNoTime for others
    std::unordered_map<std::uint64_t, std::uint32_t> m_callByBareCorrelation; // for rows that name no process
    std::vector<SyncRow> m_syncs;
    std::unordered_map<std::int64_t, int> m_threadIndex;
    std::vector<std::int64_t> m_threadTids; // globalTid of each Trace::hostThreads entry
    std::vector<KernelLaunch> m_launches; // KernelLaunch::op indexes m_ops until finishOps
};

// The importer: the tables read (NsysTableReader), then the NVTX ranges and what they mean to a StreamScope
// capture, and the trace assembled from it all.
class NsysImporter : NsysTableReader {
public:
    NsysImporter(const std::string &path, const LoadControl &control) : NsysTableReader(path, control) { }

    Trace run()
    {
        readTableList();
        checkIntegrity();
        checkRowCounts();
        m_trace.source = TraceSource::NsysSqlite;
        m_trace.timing = TimingSource::Profiler; // Nsight Systems times GPU work with CUPTI
        m_trace.sourcePath = m_path;
        m_trace.title = std::filesystem::path(m_path).filename().string();
        m_trace.metadata["importer"] = "nsys-sqlite";
        readMetadata();
        readEnums();
        readDevices();
        readKernels();
        readMemcpys();
        readMemsets();
        readGraphTraces();
        readStreamAttributes(); // for the streams that ran work, now known
        readRuntime();
        readSynchronization();
        linkHostCalls();
        readNvtx();
        applyNvtx();
        finishStreams();
        finishOps();
        rebuildStringIndex(m_trace);
        classifyCollectivesByRange(m_trace);
        return std::move(m_trace);
    }

private:
    std::uint32_t rangeName(std::string text)
    {
        auto it = m_rangeNameIndex.find(text);
        if (it != m_rangeNameIndex.end())
            return it->second;
        const auto index = static_cast<std::uint32_t>(m_rangeNames.size());
        RangeRole role = RangeRole::Op;
        int number = -1;
        if (const auto n = numberAfter(text, "rep ")) {
            role = RangeRole::Repetition;
            number = *n;
        } else if (const auto w = numberAfter(text, "warmup ")) {
            role = RangeRole::Warmup;
            number = *w;
        }
        keepText(text.size(), "NVTX_EVENTS");
        m_rangeRoles.push_back(role);
        m_rangeRepNumbers.push_back(number);
        m_rangeNameIndex.emplace(text, index);
        m_rangeNames.push_back(std::move(text));
        return index;
    }

    void readNvtx()
    {
        if (!has("NVTX_EVENTS"))
            return;
        // NvtxPushPopRange and NvtxStartEndRange: 59 and 60 in every export that lists ENUM_NSYS_EVENT_TYPE,
        // read from the table where it exists in case a version renumbers them.
        // NvtxDomainCreate (75) names a domain: its text, for the domainId the ranges carry.
        std::int64_t pushPop = 59, startEnd = 60, domainCreate = 75;
        for (const auto &[id, name] :
             readEnum(m_db, m_tables, "ENUM_NSYS_EVENT_TYPE", [](std::size_t) {})) { // not kept
            if (name == "NvtxPushPopRange")
                pushPop = id;
            else if (name == "NvtxStartEndRange")
                startEnd = id;
            else if (name == "NvtxDomainCreate")
                domainCreate = id;
        }
        // Before 2021.x the text was inline only; later versions intern repeated texts through textId.
        TableQuery q(m_db, "NVTX_EVENTS", {"start", "eventType"}, {"end", "text", "textId", "globalTid", "domainId"});
        while (q.step()) {
            const std::int64_t type = q.integer(1);
            if (type == domainCreate) {
                const auto id = q.optionalInteger(6);
                auto text = q.optionalText(3);
                if (!text)
                    if (const auto textId = q.optionalInteger(4))
                        text = stringValue(*textId);
                if (id && text && *id != 0) {
                    keepText(text->size(), "NVTX_EVENTS");
                    m_domainNames[*id] = std::move(*text);
                }
                continue;
            }
            if (type != pushPop && type != startEnd)
                continue;
            const auto end = q.optionalInteger(2);
            if (!end)
                continue; // a range still open when the capture stopped encloses nothing we can place
            NvtxRange r;
            r.start = q.integer(0);
            r.end = *end;
            checkTimes(q, r.start, r.end, 2);
            r.globalTid = q.optionalInteger(5).value_or(0);
            r.thread = hostThread(r.globalTid); // before finishStreams names the threads
            r.domain = q.optionalInteger(6).value_or(0);
            if (auto text = q.optionalText(3)) {
                r.name = rangeName(std::move(*text));
            } else if (const auto textId = q.optionalInteger(4)) {
                auto it = m_rangeNameByTextId.find(*textId);
                if (it == m_rangeNameByTextId.end())
                    it = m_rangeNameByTextId.emplace(*textId, rangeName(stringValue(*textId))).first;
                r.name = it->second;
            } else {
                r.name = rangeName("(unnamed range)"); // a range with a payload only: still drawn
            }
            m_ranges.push_back(r);
        }
        m_trace.metadata["nvtx.ranges"] = std::to_string(m_ranges.size());
    }

    // One sweep per thread: for each op with a host call, the innermost NVTX range on its thread that
    // encloses the call's start (opRange) and the "rep N"/"warmup N" range around it (opRep), indexes into
    // m_ranges or -1; for each range, the "rep N"/"warmup N" range it lies in (m_rangeRep).
    void findEnclosingRanges(std::vector<std::int32_t> &opRange, std::vector<std::int32_t> &opRep)
    {
        constexpr std::int32_t kNone = -1;
        struct Query {
            std::int64_t time;
            std::uint32_t index;
            bool isRange; // a range's own start (to find the repetition a call-less range lies in)
        };
        struct ThreadWork {
            std::vector<std::uint32_t> ranges;
            std::vector<Query> queries;
        };
        std::unordered_map<std::int64_t, ThreadWork> threads;
        for (std::uint32_t i = 0; i < m_ranges.size(); ++i) {
            ThreadWork &w = threads[m_ranges[i].globalTid];
            w.ranges.push_back(i);
            w.queries.push_back({m_ranges[i].start, i, true});
        }
        for (std::uint32_t i = 0; i < m_ops.size(); ++i) {
            const OpRecord &op = m_ops[i];
            // A graph's node has no call of its own: its launch's places it.
            const std::int64_t at = op.hasHost()                 ? op.hostStartNs
                                    : i < m_launchStartOf.size() ? m_launchStartOf[i]
                                                                 : kNoTime;
            if (at == kNoTime || op.hostThread < 0)
                continue;
            auto it = threads.find(m_threadTids[static_cast<std::size_t>(op.hostThread)]);
            if (it != threads.end())
                it->second.queries.push_back({at, i, false});
        }

        m_rangeRep.assign(m_ranges.size(), kNone);
        const auto role = [&](std::uint32_t range) { return m_rangeRoles[m_ranges[range].name]; };
        for (auto &[tid, w] : threads) {
            // One sweep per thread over ranges sorted by start (outer first on ties) and queries sorted by
            // time, with two stacks in start order: every range, and the "rep N"/"warmup N" ones alone.
            // A range that ended before the query time holds no later query, so it is dropped when it is
            // on top; the top left is then the latest-starting range still open, the innermost one. Each
            // range is pushed and popped once: O(n log n) for the sorts, where walking down the stack for
            // the repetition made 100k nested ranges quadratic (14 s, #13).
            std::sort(w.ranges.begin(), w.ranges.end(), [&](std::uint32_t a, std::uint32_t b) {
                const NvtxRange &ra = m_ranges[a], &rb = m_ranges[b];
                return ra.start != rb.start ? ra.start < rb.start : ra.end > rb.end;
            });
            std::stable_sort(w.queries.begin(), w.queries.end(),
                             [](const Query &a, const Query &b) { return a.time < b.time; });
            std::vector<std::uint32_t> stack, reps;
            auto prune = [&](std::vector<std::uint32_t> &st, std::int64_t t) {
                while (!st.empty() && m_ranges[st.back()].end < t)
                    st.pop_back();
            };
            std::size_t next = 0;
            for (const Query &q : w.queries) {
                while (next < w.ranges.size() && m_ranges[w.ranges[next]].start <= q.time) {
                    const std::uint32_t r = w.ranges[next++];
                    prune(stack, m_ranges[r].start);
                    stack.push_back(r);
                    if (role(r) != RangeRole::Op) {
                        prune(reps, m_ranges[r].start);
                        reps.push_back(r);
                    }
                }
                prune(stack, q.time);
                prune(reps, q.time);
                const std::int32_t rep = reps.empty() ? kNone : static_cast<std::int32_t>(reps.back());
                if (q.isRange) {
                    m_rangeRep[q.index] = rep;
                } else if (!stack.empty()) {
                    opRange[q.index] = static_cast<std::int32_t>(stack.back());
                    opRep[q.index] = rep;
                }
            }
        }
    }

    // For each op with a host call: the innermost NVTX range on the call's thread that encloses the
    // call's start, and the "rep N"/"warmup N" range around it; for each range, the "rep N" range it
    // lies in. A capture of streamscope-cli (ranges "rep N") names its ops after their op ranges (the
    // workload's op names, as StreamScope's own trace has them) and is split into its repetitions; any
    // other capture keeps the CUDA names (the kernel's own) and the range becomes the op's NVTX range
    // (OpRecord::hostRange, set once the ranges are in their repetitions).
    void applyNvtx()
    {
        if (m_ranges.empty())
            return;
        constexpr std::int32_t kNone = -1;
        std::vector<std::int32_t> opRange(m_ops.size(), kNone), opRep(m_ops.size(), kNone);
        findEnclosingRanges(opRange, opRep);
        const auto role = [&](std::uint32_t range) { return m_rangeRoles[m_ranges[range].name]; };

        m_splitByRepetition = std::any_of(m_ranges.begin(), m_ranges.end(), [&](const NvtxRange &r) {
            return m_rangeRoles[r.name] == RangeRole::Repetition;
        });
        if (!m_splitByRepetition)
            return; // the CUDA names stay; the ranges go into the repetition as host ranges (finishOps)
        std::unordered_map<std::uint32_t, std::uint32_t> internedName; // range name -> Trace::strings index
        const auto opName = [&](std::uint32_t rangeNameIndex) {
            auto it = internedName.find(rangeNameIndex);
            if (it == internedName.end())
                it = internedName.emplace(rangeNameIndex, m_trace.intern(m_rangeNames[rangeNameIndex])).first;
            return it->second;
        };
        std::size_t named = 0;
        for (std::size_t i = 0; i < m_ops.size(); ++i)
            if (opRange[i] != kNone && role(static_cast<std::uint32_t>(opRange[i])) == RangeRole::Op) {
                m_ops[i].nameId = opName(m_ranges[static_cast<std::size_t>(opRange[i])].name);
                ++named;
            }
        if (named > 0)
            m_trace.metadata["op_names"] = "nvtx";
        m_trace.metadata["nvtx.named_ops"] = std::to_string(named);
        const std::vector<std::int32_t> &rangeRep = m_rangeRep;

        // A StreamScope run: one op per op range. A range that issued GPU work is that work (helper calls
        // in it, such as cuKernelGetName, are dropped); a range without GPU work keeps its longest call (the
        // cudaStreamSynchronize of a "sync" op); a range without any call is host work done on purpose.
        std::vector<char> rangeHasGpu(m_ranges.size(), 0);
        std::vector<std::int32_t> rangeLongestCall(m_ranges.size(), kNone);
        for (std::size_t i = 0; i < m_ops.size(); ++i) {
            if (opRange[i] == kNone)
                continue;
            const auto r = static_cast<std::size_t>(opRange[i]);
            if (m_ops[i].hasGpu()) {
                rangeHasGpu[r] = 1;
            } else if (rangeLongestCall[r] == kNone
                       || m_ops[i].hostDurationNs()
                              > m_ops[static_cast<std::size_t>(rangeLongestCall[r])].hostDurationNs()) {
                rangeLongestCall[r] = static_cast<std::int32_t>(i);
            }
        }
        std::size_t warmup = 0, outside = 0, runner = 0, helpers = 0;
        m_opRepetition.assign(m_ops.size(), -1);
        for (std::size_t i = 0; i < m_ops.size(); ++i) {
            if (opRep[i] == kNone) {
                ++outside;
                continue;
            }
            const NvtxRange &rep = m_ranges[static_cast<std::size_t>(opRep[i])];
            if (m_rangeRoles[rep.name] == RangeRole::Warmup) {
                ++warmup;
                continue;
            }
            // Launched by the repetition's graph: a node, or a graph recorded whole; no op range of its own.
            if ((m_ops[i].flags & OpFlagGraphNode) || m_ops[i].kind == OpKind::Graph) {
                m_opRepetition[i] = m_rangeRepNumbers[rep.name];
                continue;
            }
            if (opRange[i] == kNone || role(static_cast<std::uint32_t>(opRange[i])) != RangeRole::Op) {
                ++runner; // the runner's own calls between ops: timing events, the hold kernel, the final sync
                continue;
            }
            const auto r = static_cast<std::size_t>(opRange[i]);
            if (!m_ops[i].hasGpu() && (rangeHasGpu[r] || rangeLongestCall[r] != static_cast<std::int32_t>(i))) {
                ++helpers;
                continue;
            }
            m_opRepetition[i] = m_rangeRepNumbers[rep.name];
        }
        std::vector<char> rangeHasOp(m_ranges.size(), 0);
        for (std::size_t i = 0; i < m_ops.size(); ++i)
            if (opRange[i] != kNone)
                rangeHasOp[static_cast<std::size_t>(opRange[i])] = 1;
        for (std::size_t r = 0; r < m_ranges.size(); ++r) {
            if (rangeHasOp[r] || rangeRep[r] == kNone || role(static_cast<std::uint32_t>(r)) != RangeRole::Op)
                continue;
            const NvtxRange &rep = m_ranges[static_cast<std::size_t>(rangeRep[r])];
            if (m_rangeRoles[rep.name] != RangeRole::Repetition)
                continue;
            OpRecord op;
            op.hostStartNs = m_ranges[r].start;
            op.hostEndNs = m_ranges[r].end;
            op.hostThread = hostThread(m_ranges[r].globalTid);
            op.nameId = opName(m_ranges[r].name);
            op.kind = OpKind::HostWork;
            op.flags = OpFlagImported;
            m_ops.push_back(op);
            m_opRepetition.push_back(m_rangeRepNumbers[rep.name]);
        }
        m_trace.metadata["nvtx.repetitions"] = "split by StreamScope's \"rep N\" ranges";
        m_trace.metadata["nvtx.dropped_warmup_ops"] = std::to_string(warmup);
        m_trace.metadata["nvtx.dropped_outside_repetitions"] = std::to_string(outside);
        m_trace.metadata["nvtx.dropped_runner_calls"] = std::to_string(runner);
        m_trace.metadata["nvtx.dropped_helper_calls"] = std::to_string(helpers);
    }

    void finishStreams()
    {
        // Lanes in (device, stream id) order, whatever order the tables listed them in.
        std::vector<ImportedStream> keys;
        std::set<std::int64_t> devices;
        for (const auto &k : m_streamKeys) {
            keys.emplace_back(k.device, k.stream);
            devices.insert(k.device);
        }
        const std::size_t first = m_trace.streams.size();
        const std::vector<int> remap = addStreamsInOrder(m_trace, keys, [&](std::int64_t device, std::int64_t stream) {
            auto named = m_nvtxStreamNames.find({device, stream});
            if (named == m_nvtxStreamNames.end())
                named = m_nvtxStreamNames.find({-1, stream});
            if (named != m_nvtxStreamNames.end())
                return named->second;
            return stream == 0 ? std::string("unified memory")
                               : std::string(); // Nsight's pseudo-stream of page migrations
        });
        for (std::size_t i = first; i < m_trace.streams.size(); ++i) {
            StreamInfo &s = m_trace.streams[i];
            if (auto a = m_streamAttrs.find(s.nativeId); a != m_streamAttrs.end()) {
                s.priority = a->second.priority;
                s.nonBlocking = a->second.flag == 2; // ENUM_CUPTI_STREAM_TYPE: 2 = non-blocking, 3 = NULL stream
                s.isDefault = a->second.flag == 3;
            }
            if (m_nullStreams.count(s.nativeId))
                s.isDefault = true;
        }
        for (auto &op : m_ops)
            if (op.stream >= 0)
                op.stream = remap[static_cast<std::size_t>(op.stream)];
        // Devices that ran work but are not described (TARGET_INFO_GPU is missing in some exports).
        for (std::int64_t d : devices)
            if (std::none_of(m_trace.devices.begin(), m_trace.devices.end(),
                             [&](const DeviceInfo &e) { return e.index == d; })) {
                DeviceInfo info;
                info.index = static_cast<int>(d);
                m_trace.devices.push_back(info);
            }
        std::sort(m_trace.devices.begin(), m_trace.devices.end(),
                  [](const DeviceInfo &a, const DeviceInfo &b) { return a.index < b.index; });

        // Thread names from ThreadNames where the export has them.
        if (has("ThreadNames") && !m_threadIndex.empty()) {
            TableQuery q(m_db, "ThreadNames", {"nameId"}, {"globalTid"});
            while (q.step()) {
                const auto tid = q.optionalInteger(1);
                if (!tid)
                    continue;
                auto it = m_threadIndex.find(*tid);
                if (it != m_threadIndex.end())
                    m_trace.hostThreads[static_cast<std::size_t>(it->second)].name =
                        m_trace.strings[stringId(q.integer(0))];
            }
        }
    }

    // An NVTX range as a host range of the trace.
    HostRange hostRangeOf(const NvtxRange &r)
    {
        HostRange h;
        h.startNs = r.start;
        h.endNs = r.end;
        h.hostThread = r.thread;
        h.category = HostRangeCategory::Nvtx;
        auto name = m_rangeNameIds.find(r.name);
        if (name == m_rangeNameIds.end())
            name = m_rangeNameIds.emplace(r.name, m_trace.intern(m_rangeNames[r.name])).first;
        h.nameId = name->second;
        if (r.domain != 0) {
            auto domain = m_domainIds.find(r.domain);
            if (domain == m_domainIds.end()) {
                const auto known = m_domainNames.find(r.domain);
                domain = m_domainIds
                             .emplace(r.domain, m_trace.intern(known != m_domainNames.end()
                                                                   ? known->second
                                                                   : "domain " + std::to_string(r.domain)))
                             .first;
            }
            h.domainId = domain->second;
        }
        return h;
    }

    // The ops (by GPU start; host-only ops by the start of their call, among the GPU ops) with their
    // kernel launches, and the NVTX ranges, into repetitions: one, or for a StreamScope capture each
    // "rep N" with its ops and the ranges inside it.
    void finishOps()
    {
        std::vector<std::int32_t> launchOf(m_ops.size(), -1);
        for (std::size_t l = 0; l < m_launches.size(); ++l)
            launchOf[static_cast<std::size_t>(m_launches[l].op)] = static_cast<std::int32_t>(l);
        const auto byStart = [&](std::uint32_t a, std::uint32_t b) {
            return importOrderKey(m_ops[a]) < importOrderKey(m_ops[b]);
        };
        auto fill = [&](Repetition &rep, std::vector<std::uint32_t> &order) {
            std::stable_sort(order.begin(), order.end(), byStart);
            rep.ops.reserve(order.size());
            for (const std::uint32_t i : order) {
                if (const std::int32_t l = launchOf[i]; l >= 0) {
                    KernelLaunch launch = m_launches[static_cast<std::size_t>(l)];
                    launch.op = static_cast<std::int32_t>(rep.ops.size());
                    rep.kernelLaunches.push_back(launch);
                }
                rep.ops.push_back(m_ops[i]);
            }
        };
        if (!m_splitByRepetition) {
            std::vector<std::uint32_t> order(m_ops.size());
            std::iota(order.begin(), order.end(), 0u);
            Repetition rep;
            rep.index = 0;
            fill(rep, order);
            rep.hostRanges.reserve(m_ranges.size() + m_graphLaunches.size());
            for (const NvtxRange &r : m_ranges)
                rep.hostRanges.push_back(hostRangeOf(r));
            for (const GraphLaunch &l : m_graphLaunches)
                rep.hostRanges.push_back(l.range);
            layoutHostRanges(rep);
            deriveStagedCopyReadiness(rep, m_trace.hostThreads);
            m_trace.repetitions.push_back(std::move(rep));
            m_ops.clear();
            return;
        }
        std::map<int, std::vector<std::uint32_t>> byRepetition;
        for (std::size_t i = 0; i < m_ops.size(); ++i)
            if (m_opRepetition[i] >= 0)
                byRepetition[m_opRepetition[i]].push_back(static_cast<std::uint32_t>(i));
        std::map<int, std::size_t> repIndex;
        for (auto &[number, order] : byRepetition) {
            Repetition rep;
            rep.index = number;
            fill(rep, order);
            repIndex.emplace(number, m_trace.repetitions.size());
            m_trace.repetitions.push_back(std::move(rep));
        }
        m_ops.clear();
        // The ranges of each repetition: "rep N" itself and what it holds (warm-ups and the runner's set-up
        // are left out with their ops).
        for (std::size_t r = 0; r < m_ranges.size(); ++r) {
            if (m_rangeRep[r] < 0)
                continue;
            const NvtxRange &bracket = m_ranges[static_cast<std::size_t>(m_rangeRep[r])];
            if (m_rangeRoles[bracket.name] != RangeRole::Repetition)
                continue;
            if (auto it = repIndex.find(m_rangeRepNumbers[bracket.name]); it != repIndex.end())
                m_trace.repetitions[it->second].hostRanges.push_back(hostRangeOf(m_ranges[r]));
        }
        // A graph's launch goes with its nodes.
        for (const GraphLaunch &l : m_graphLaunches) {
            if (l.firstNode < 0 || std::size_t(l.firstNode) >= m_opRepetition.size())
                continue;
            if (auto it = repIndex.find(m_opRepetition[std::size_t(l.firstNode)]); it != repIndex.end())
                m_trace.repetitions[it->second].hostRanges.push_back(l.range);
        }
        for (Repetition &rep : m_trace.repetitions) {
            layoutHostRanges(rep);
            deriveStagedCopyReadiness(rep, m_trace.hostThreads);
        }
        // The runner's control stream (hold kernel, timing events) ran nothing that was kept: no empty lane.
        std::vector<int> remap(m_trace.streams.size(), -1);
        for (const auto &rep : m_trace.repetitions)
            for (const auto &op : rep.ops)
                if (op.stream >= 0)
                    remap[static_cast<std::size_t>(op.stream)] = 0;
        std::vector<StreamInfo> kept;
        for (std::size_t s = 0; s < m_trace.streams.size(); ++s)
            if (remap[s] == 0) {
                remap[s] = static_cast<int>(kept.size());
                kept.push_back(std::move(m_trace.streams[s]));
            }
        m_trace.streams = std::move(kept);
        for (auto &rep : m_trace.repetitions)
            for (auto &op : rep.ops)
                if (op.stream >= 0)
                    op.stream = remap[static_cast<std::size_t>(op.stream)];
    }

    // NVTX ranges (push/pop and start/end) and what their texts mean to a StreamScope run.
    std::vector<NvtxRange> m_ranges;
    std::vector<std::string> m_rangeNames;
    std::vector<RangeRole> m_rangeRoles; // per m_rangeNames entry
    std::vector<int> m_rangeRepNumbers; // per m_rangeNames entry: N of "rep N" / "warmup N"
    std::unordered_map<std::string, std::uint32_t> m_rangeNameIndex;
    std::unordered_map<std::int64_t, std::uint32_t> m_rangeNameByTextId;
    std::unordered_map<std::uint32_t, std::uint32_t> m_rangeNameIds; // m_rangeNames index -> Trace::strings
    std::unordered_map<std::int64_t, std::string> m_domainNames; // NVTX domainId -> name (NvtxDomainCreate)
    std::unordered_map<std::int64_t, std::uint32_t> m_domainIds; // NVTX domainId -> Trace::strings
    std::vector<std::int32_t> m_rangeRep; // per m_ranges entry: the "rep N"/"warmup N" range it lies in, -1
    bool m_splitByRepetition = false;
    std::vector<int> m_opRepetition; // per m_ops entry when split: rep number, -1 = dropped
};

} // namespace

Trace importNsysSqlite(const std::string &path, const LoadControl &control)
{
    return NsysImporter(path, control).run();
}

} // namespace streamscope::engine
