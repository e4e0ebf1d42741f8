// libFuzzer harness for the Nsight Systems SQLite importer (engine/formats/nsys_import), structure-aware:
// an input is not a database but a list of SQL-level edits to one of a few small seed databases (made in
// memory from tests/fuzz/nsys/*.sql, trimmed from StreamScope's own Nsight captures). The edits rewrite
// values (integers at the edges of their range, text, reals, blobs, NULL), rowids, rows (deleted,
// duplicated, inserted), columns (dropped, renamed, added, whole columns set) and tables (dropped,
// renamed, created with the names the importer looks for), and can damage one byte of the file SQLite
// writes; the importer then reads the result from a temporary file. A custom mutator
// (LLVMFuzzerCustomMutator) mutates the edit list, not its bytes, so that almost every input is a
// database the importer gets far into. The encoding is in docs/fuzzing.md; everything is deterministic.
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <vector>

#include "engine/formats/nsys_import.h"
#include "tests/fuzz/fuzz_common.h"

using namespace streamscope;

extern "C" size_t LLVMFuzzerMutate(std::uint8_t *data, size_t size, size_t maxSize);

namespace {

// ---- the encoding: byte 0 picks the seed, then records of kRecordSize bytes -------------------------

constexpr std::size_t kRecordSize = 16;
constexpr std::size_t kMaxRecords = 64;

enum Op : std::uint8_t {
    SetValue, // table, row, column := value
    SetColumn, // table, every row's column := value
    DeleteRow,
    DuplicateRow, // a copy of the row under a new rowid
    SetRowid, // the row's rowid := value (integer kinds)
    InsertRow, // a new row, every column := value
    DropTable,
    RenameTable, // to a name from kTableNames
    CreateTable, // a table from kTableNames with columns from kColumnNames (bits of the value), one row
    DropColumn,
    RenameColumn, // to a name from kColumnNames
    AddColumn, // a column from kColumnNames, filled with value
    DamageByte, // after the edits: the file's byte (value mod size) := extra
    GenerateColumn, // the column replaced by a generated one (an expression from kExpressions) of its name
    ReplaceByView, // the table renamed aside and a view of its name in its place (plain or costly)
    OpCount
};

enum ValueKind : std::uint8_t { Null, Interesting, RawInteger, Delta, Real, Text, Blob, KindCount };

struct Record {
    std::uint8_t op = 0, table = 0, row = 0, column = 0, kind = 0, extra = 0, spare1 = 0, spare2 = 0;
    std::int64_t value = 0;
};

Record decode(const std::uint8_t *p)
{
    Record r;
    r.op = p[0];
    r.table = p[1];
    r.row = p[2];
    r.column = p[3];
    r.kind = p[4];
    r.extra = p[5];
    r.spare1 = p[6];
    r.spare2 = p[7];
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[8 + i];
    std::memcpy(&r.value, &v, sizeof v);
    return r;
}

void encode(const Record &r, std::uint8_t *p)
{
    p[0] = r.op;
    p[1] = r.table;
    p[2] = r.row;
    p[3] = r.column;
    p[4] = r.kind;
    p[5] = r.extra;
    p[6] = r.spare1;
    p[7] = r.spare2;
    std::uint64_t v;
    std::memcpy(&v, &r.value, sizeof v);
    for (int i = 0; i < 8; ++i)
        p[8 + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

const std::array<std::int64_t, 24> kInteresting = {0,
                                                   1,
                                                   -1,
                                                   2,
                                                   59, // NvtxPushPopRange
                                                   60, // NvtxStartEndRange
                                                   std::numeric_limits<std::int64_t>::max(),
                                                   std::numeric_limits<std::int64_t>::min(),
                                                   std::numeric_limits<std::int64_t>::max() - 1,
                                                   std::numeric_limits<std::int64_t>::min() + 1,
                                                   std::numeric_limits<std::int32_t>::max(),
                                                   std::int64_t(std::numeric_limits<std::int32_t>::max()) + 1,
                                                   std::numeric_limits<std::int32_t>::min(),
                                                   std::numeric_limits<std::uint32_t>::max(),
                                                   std::int64_t(1) << 32,
                                                   std::int64_t(1) << 53,
                                                   std::int64_t(1) << 62,
                                                   -(std::int64_t(1) << 62),
                                                   1000000000,
                                                   std::int64_t(1) << 40,
                                                   7,
                                                   8,
                                                   16,
                                                   -2};

const std::array<const char *, 26> kTexts = {"",
                                             "rep 0",
                                             "rep 1",
                                             "rep 99999999999999999999",
                                             "rep -1",
                                             "warmup 0",
                                             "rep ",
                                             "CUDA_MEMCPY_KIND_HTOD",
                                             "CUDA_MEMCPY_KIND_DTOH",
                                             "CUDA_MEMCPY_KIND_",
                                             "CUDA_MEMOPR_MEMORY_KIND_PINNED",
                                             "CUDA_MEM_KIND_MANAGED",
                                             "NvtxPushPopRange",
                                             "NvtxStartEndRange",
                                             "EXPORT_PRODUCT_VERSION",
                                             "EXPORT_SCHEMA_VERSION",
                                             "DERIVED_WINDOW_NS",
                                             "cudaMemcpyAsync_v3020",
                                             "cudaLaunchKernel_v7000",
                                             "cudaStreamSynchronize",
                                             "\xff\xfe not UTF-8 \xc3",
                                             "name with \"quotes\" and \\ and \n",
                                             "kernel 60 \xc2\xb5s [c0]",
                                             "%s%s%n",
                                             "0",
                                             "9223372036854775808"};

// Names the importer looks for, and a few it does not.
const std::array<const char *, 26> kTableNames = {"StringIds",
                                                  "CUPTI_ACTIVITY_KIND_KERNEL",
                                                  "CUPTI_ACTIVITY_KIND_MEMCPY",
                                                  "CUPTI_ACTIVITY_KIND_MEMSET",
                                                  "CUPTI_ACTIVITY_KIND_RUNTIME",
                                                  "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                                                  "NVTX_EVENTS",
                                                  "ThreadNames",
                                                  "TARGET_INFO_GPU",
                                                  "TARGET_INFO_CUDA_DEVICE",
                                                  "TARGET_INFO_CUDA_STREAM",
                                                  "TARGET_INFO_CUDA_NULL_STREAM",
                                                  "TARGET_INFO_CUDA_CONTEXT_INFO",
                                                  "TARGET_INFO_NVTX_CUDA_STREAM",
                                                  "META_DATA_EXPORT",
                                                  "EXPORT_META_DATA",
                                                  "ENUM_CUDA_MEMCPY_OPER",
                                                  "ENUM_CUDA_MEM_KIND",
                                                  "ENUM_NSYS_EVENT_TYPE",
                                                  "PROCESSES",
                                                  "sqlite_sequence_x",
                                                  "a\"quote",
                                                  "Other",
                                                  "StringIds2",
                                                  "NVTX_EVENTS ",
                                                  "cupti_activity_kind_kernel"};

const std::array<const char *, 40> kColumnNames = {
    "id",           "value",          "start",        "end",
    "deviceId",     "streamId",       "contextId",    "correlationId",
    "globalPid",    "globalTid",      "shortName",    "demangledName",
    "nameId",       "bytes",          "copyKind",     "srcKind",
    "dstKind",      "memKind",        "syncType",     "eventType",
    "text",         "textId",         "rangeId",      "name",
    "busLocation",  "totalMemory",    "smCount",      "clockRate",
    "computeMajor", "computeMinor",   "cudaId",       "numMultiprocessors",
    "priority",     "flag",           "nullStreamId", "l2CacheSize",
    "asyncEngines", "migrationCause", "x\"y",         "rowid"};

// ---- the seeds -----------------------------------------------------------------------------------------

struct Seed {
    std::string name;
    std::vector<unsigned char> bytes; // sqlite3_serialize of the database the .sql file makes
};

[[noreturn]] void setupFailed(const std::string &what)
{
    std::fprintf(stderr, "fuzz_nsys: %s\n", what.c_str());
    std::exit(2);
}

std::vector<Seed> makeSeeds()
{
    std::vector<Seed> seeds;
    std::vector<std::filesystem::path> files;
    for (const auto &e : std::filesystem::directory_iterator(STREAMSCOPE_FUZZ_NSYS_SEEDS))
        if (e.path().extension() == ".sql")
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto &f : files) {
        std::ifstream in(f);
        std::stringstream sql;
        sql << in.rdbuf();
        sqlite3 *db = nullptr;
        sqlite3_open(":memory:", &db);
        char *error = nullptr;
        if (sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, &error) != SQLITE_OK)
            setupFailed(f.string() + ": " + (error ? error : "?"));
        sqlite3_int64 size = 0;
        unsigned char *bytes = sqlite3_serialize(db, "main", &size, 0);
        if (!bytes)
            setupFailed(f.string() + ": sqlite3_serialize failed");
        seeds.push_back({f.filename().string(), std::vector<unsigned char>(bytes, bytes + size)});
        sqlite3_free(bytes);
        sqlite3_close(db);
    }
    if (seeds.empty())
        setupFailed(std::string("no seed databases (*.sql) in ") + STREAMSCOPE_FUZZ_NSYS_SEEDS);
    return seeds;
}

const std::vector<Seed> &seeds()
{
    static const std::vector<Seed> s = makeSeeds();
    return s;
}

// ---- applying the edits --------------------------------------------------------------------------------

std::string quoted(const std::string &name)
{
    std::string q = "\"";
    for (char c : name)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::vector<std::string> strings(sqlite3 *db, const std::string &sql, int column)
{
    std::vector<std::string> out;
    sqlite3_stmt *s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK)
        while (sqlite3_step(s) == SQLITE_ROW)
            if (const unsigned char *t = sqlite3_column_text(s, column))
                out.emplace_back(reinterpret_cast<const char *>(t));
    sqlite3_finalize(s);
    return out;
}

template <typename T, std::size_t N> const T &pick(const std::array<T, N> &a, std::uint64_t i)
{
    return a[i % N];
}

// Binds the record's value as its kind says to parameter `index`.
void bindValue(sqlite3_stmt *s, int index, const Record &r)
{
    switch (r.kind % KindCount) {
    case Null: sqlite3_bind_null(s, index); break;
    case Interesting: sqlite3_bind_int64(s, index, pick(kInteresting, static_cast<std::uint64_t>(r.value))); break;
    case RawInteger:
    case Delta: sqlite3_bind_int64(s, index, r.value); break;
    case Real: {
        double d;
        std::memcpy(&d, &r.value, sizeof d);
        sqlite3_bind_double(s, index, d);
        break;
    }
    case Text: sqlite3_bind_text(s, index, pick(kTexts, r.extra), -1, SQLITE_STATIC); break;
    case Blob: sqlite3_bind_blob(s, index, &r.value, sizeof r.value, SQLITE_TRANSIENT); break;
    }
}

// Runs one statement with the record's value (when given) as its first parameter and the rowid (when
// given) as the next. An edit that does not apply (a name that clashes, the last column of a table, a
// constraint) is skipped: what it leaves is still a database to read.
void run(sqlite3 *db, const std::string &sql, const Record *value = nullptr,
         std::optional<std::int64_t> rowid = std::nullopt)
{
    sqlite3_stmt *s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK) {
        int index = 1;
        if (value)
            bindValue(s, index++, *value);
        if (rowid)
            sqlite3_bind_int64(s, index, *rowid);
        while (sqlite3_step(s) == SQLITE_ROW) { }
    }
    sqlite3_finalize(s);
}

// The rowid of the row-th row (in rowid order, wrapping), or nothing for an empty table.
std::optional<std::int64_t> rowidAt(sqlite3 *db, const std::string &table, int row)
{
    sqlite3_stmt *s = nullptr;
    std::optional<std::int64_t> id;
    const std::string sql = "SELECT _rowid_ FROM " + quoted(table)
                            + " ORDER BY _rowid_ LIMIT 1 OFFSET (? % max(1, (SELECT " + "count(*) FROM " + quoted(table)
                            + ")))";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK) {
        sqlite3_bind_int(s, 1, row);
        if (sqlite3_step(s) == SQLITE_ROW)
            id = sqlite3_column_int64(s, 0);
    }
    sqlite3_finalize(s);
    return id;
}

// Expressions a generated column or a view computes: cheap, and costly ones that the importer must refuse
// without evaluating them (#24). The costly ones print more than a name may hold (limits::kMaxTextBytes, 16 MiB) on
// every read, and no more: SQLite builds a printf's text one character at a time even past its length limit, so 400M
// characters cost the harness 15 s to make the database (a fuzz-smoke timeout in the harness, kept as
// regressions/nsys/harness-generated-column-timeout), where the reader must refuse them before a read.
const std::array<const char *, 5> kExpressions = {"1", "rowid + 1", "printf('%.*c', 20000000, 'x')",
                                                  "zeroblob(500000000)", "length(printf('%.*c', 20000000, 'y'))"};

// Rows are addressed by _rowid_, the table's own rowid even where a column is named "rowid" (one of the
// names a column may take): by that column, a duplicated row matched every copy of itself, and a few
// duplications grew a table to a billion rows (a long run's timeout, kept as regressions/nsys/).
void apply(sqlite3 *db, const Record &r)
{
    const auto tables = strings(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", 0);
    const Op op = static_cast<Op>(r.op % OpCount);
    if (op == CreateTable) {
        std::string sql = "CREATE TABLE " + quoted(pick(kTableNames, r.table)) + " (";
        std::string insert;
        std::uint64_t bits = static_cast<std::uint64_t>(r.value) | 1;
        bool first = true;
        for (std::size_t i = 0; i < kColumnNames.size() - 1; ++i)
            if (bits & (std::uint64_t(1) << i)) {
                sql += (first ? "" : ", ") + quoted(kColumnNames[i]);
                insert += first ? "?1" : ", ?1";
                first = false;
            }
        run(db, sql + ")");
        Record v = r;
        v.kind = r.extra % 2 ? Interesting : Null;
        v.value = r.column;
        run(db, "INSERT INTO " + quoted(pick(kTableNames, r.table)) + " VALUES (" + insert + ")", &v);
        return;
    }
    if (tables.empty() || op == DamageByte)
        return;
    const std::string table = tables[r.table % tables.size()];
    const std::string t = quoted(table);
    const auto columns = strings(db, "PRAGMA table_info(" + t + ")", 1);
    const std::string column = columns.empty() ? std::string("rowid") : columns[r.column % columns.size()];
    const std::string c = quoted(column);
    const auto rowid = rowidAt(db, table, r.row);
    switch (op) {
    case SetValue:
        if (rowid)
            run(db,
                "UPDATE " + t + " SET " + c + " = " + (r.kind % KindCount == Delta ? c + " + ?" : std::string("?"))
                    + " WHERE _rowid_ = ?",
                &r, rowid);
        break;
    case SetColumn:
        run(db, "UPDATE " + t + " SET " + c + " = " + (r.kind % KindCount == Delta ? c + " + ?" : std::string("?")),
            &r);
        break;
    case DeleteRow:
        if (rowid)
            run(db, "DELETE FROM " + t + " WHERE _rowid_ = ?", nullptr, rowid);
        break;
    case DuplicateRow:
        if (rowid)
            run(db, "INSERT INTO " + t + " SELECT * FROM " + t + " WHERE _rowid_ = ?", nullptr, rowid);
        break;
    case SetRowid:
        if (rowid) {
            Record v = r;
            v.kind = static_cast<std::uint8_t>(v.kind % KindCount);
            if (v.kind != Interesting && v.kind != Delta)
                v.kind = RawInteger;
            run(db,
                "UPDATE " + t + " SET _rowid_ = " + (v.kind == Delta ? std::string("_rowid_ + ?") : std::string("?"))
                    + " WHERE _rowid_ = ?",
                &v, rowid);
        }
        break;
    case InsertRow: {
        std::string values;
        for (std::size_t i = 0; i < columns.size(); ++i)
            values += i ? ", ?1" : "?1";
        if (!values.empty())
            run(db, "INSERT INTO " + t + " VALUES (" + values + ")", &r);
        break;
    }
    case DropTable: run(db, "DROP TABLE " + t); break;
    case RenameTable: run(db, "ALTER TABLE " + t + " RENAME TO " + quoted(pick(kTableNames, r.extra))); break;
    case DropColumn: run(db, "ALTER TABLE " + t + " DROP COLUMN " + c); break;
    case RenameColumn:
        run(db, "ALTER TABLE " + t + " RENAME COLUMN " + c + " TO " + quoted(pick(kColumnNames, r.extra)));
        break;
    case AddColumn:
        run(db, "ALTER TABLE " + t + " ADD COLUMN " + quoted(pick(kColumnNames, r.extra)));
        run(db, "UPDATE " + t + " SET " + quoted(pick(kColumnNames, r.extra)) + " = ?", &r);
        break;
    case GenerateColumn:
        // SQLite adds only VIRTUAL generated columns to a table that exists; a column that cannot be
        // dropped (the last one, a key) stays and the addition then clashes: skipped.
        run(db, "ALTER TABLE " + t + " DROP COLUMN " + c);
        run(db, "ALTER TABLE " + t + " ADD COLUMN " + c + " GENERATED ALWAYS AS (" + pick(kExpressions, r.extra)
                    + ") VIRTUAL");
        break;
    case ReplaceByView: {
        const std::string aside = quoted(table + "_stored");
        run(db, "ALTER TABLE " + t + " RENAME TO " + aside);
        run(db, "CREATE VIEW " + t + " AS SELECT *"
                    + (r.extra % 2 ? ", " + std::string(pick(kExpressions, r.column)) + " AS computed" : std::string())
                    + " FROM " + aside);
        break;
    }
    case CreateTable:
    case DamageByte:
    case OpCount: break;
    }
}

// The file the importer reads, this process's own, removed at exit.
std::string tempPath()
{
    // Never destroyed: the handler that removes the file at exit still needs its name. In /dev/shm where
    // there is one: the file is written and read once per input.
    static const std::string &path = *new std::string([] {
        std::atexit([] { std::remove(tempPath().c_str()); });
        std::error_code ec;
        const std::filesystem::path dir =
            std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : std::filesystem::temp_directory_path();
        return (dir / ("streamscope-fuzz-nsys-" + std::to_string(static_cast<long>(getpid())) + ".sqlite")).string();
    }());
    return path;
}

// ---- the custom mutator's random edits -------------------------------------------------------------

Record randomRecord(std::minstd_rand &rng)
{
    Record r;
    r.op = static_cast<std::uint8_t>(rng() % OpCount);
    r.table = static_cast<std::uint8_t>(rng());
    r.row = static_cast<std::uint8_t>(rng() % 4 ? rng() % 8 : rng());
    r.column = static_cast<std::uint8_t>(rng());
    r.kind = static_cast<std::uint8_t>(rng() % KindCount);
    r.extra = static_cast<std::uint8_t>(rng());
    r.value = rng() % 2 ? static_cast<std::int64_t>(rng() % kInteresting.size())
                        : static_cast<std::int64_t>((std::uint64_t(rng()) << 33) ^ rng());
    if (r.op == SetRowid && rng() % 2)
        r.kind = Interesting;
    return r;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const auto &all = seeds();
    const Seed &seed = all[size ? data[0] % all.size() : 0];
    sqlite3 *db = nullptr;
    sqlite3_open(":memory:", &db);
    auto *copy = static_cast<unsigned char *>(sqlite3_malloc64(seed.bytes.size()));
    std::memcpy(copy, seed.bytes.data(), seed.bytes.size());
    if (sqlite3_deserialize(db, "main", copy, static_cast<sqlite3_int64>(seed.bytes.size()),
                            static_cast<sqlite3_int64>(seed.bytes.size()),
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE)
        != SQLITE_OK)
        setupFailed("sqlite3_deserialize failed");
    // The edits make the database; they must not compute it. A generated column or view whose expression
    // prints hundreds of megabytes is evaluated here too by an edit that reads the table (an UPDATE, an
    // INSERT ... SELECT), which the fuzz-smoke run once took for a timeout of the reader: only the reader's
    // defences are under test. A length cap and a step budget make such an edit fail, and it is skipped.
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
    int steps = 0;
    sqlite3_progress_handler(
        db, 1000, [](void *counter) { return ++*static_cast<int *>(counter) > 20'000 ? 1 : 0; }, &steps);
    const std::size_t records = size ? std::min((size - 1) / kRecordSize, kMaxRecords) : 0;
    std::vector<Record> damage;
    for (std::size_t i = 0; i < records; ++i) {
        const Record r = decode(data + 1 + i * kRecordSize);
        if (r.op % OpCount == DamageByte)
            damage.push_back(r);
        else
            apply(db, r);
    }
    sqlite3_progress_handler(db, 0, nullptr, nullptr);
    sqlite3_int64 dbSize = 0;
    unsigned char *bytes = sqlite3_serialize(db, "main", &dbSize, 0);
    sqlite3_close(db);
    if (!bytes)
        setupFailed("sqlite3_serialize failed");
    for (const Record &r : damage)
        if (dbSize > 0)
            bytes[static_cast<std::uint64_t>(r.value) % static_cast<std::uint64_t>(dbSize)] = r.extra;
    const std::string path = tempPath();
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char *>(bytes), dbSize);
    }
    sqlite3_free(bytes);
    fuzz::expectCleanError([&] { engine::importNsysSqlite(path); }, path);
    return 0;
}

// Mutates the edit list: adds, removes, duplicates or swaps records, changes one field of one, picks
// another seed, or leaves a record's value bytes to libFuzzer's own mutator.
extern "C" size_t LLVMFuzzerCustomMutator(std::uint8_t *data, size_t size, size_t maxSize, unsigned int seed)
{
    std::minstd_rand rng(seed);
    if (maxSize < 1 + kRecordSize)
        return size;
    std::vector<Record> records;
    const std::uint8_t seedByte = size ? data[0] : static_cast<std::uint8_t>(rng());
    for (std::size_t i = 0; size && i < (size - 1) / kRecordSize && i < kMaxRecords; ++i)
        records.push_back(decode(data + 1 + i * kRecordSize));
    const std::size_t capacity = std::min(kMaxRecords, (maxSize - 1) / kRecordSize);
    std::uint8_t newSeed = seedByte;
    const unsigned choice = rng() % 10;
    if (records.empty() || (choice <= 2 && records.size() < capacity)) {
        records.insert(records.begin() + static_cast<long>(records.empty() ? 0 : rng() % (records.size() + 1)),
                       randomRecord(rng));
    } else if (choice == 3) {
        records.erase(records.begin() + static_cast<long>(rng() % records.size()));
    } else if (choice == 4 && records.size() < capacity) {
        const Record r = records[rng() % records.size()];
        records.insert(records.begin() + static_cast<long>(rng() % (records.size() + 1)), r);
    } else if (choice == 5 && records.size() > 1) {
        std::swap(records[rng() % records.size()], records[rng() % records.size()]);
    } else if (choice == 6) {
        newSeed = static_cast<std::uint8_t>(rng());
    } else if (choice == 7) {
        Record &r = records[rng() % records.size()];
        std::uint8_t bytes[8];
        std::memcpy(bytes, &r.value, 8);
        LLVMFuzzerMutate(bytes, 8, 8);
        std::memcpy(&r.value, bytes, 8);
    } else {
        Record &r = records[rng() % records.size()];
        const Record fresh = randomRecord(rng);
        switch (rng() % 7) {
        case 0: r.op = fresh.op; break;
        case 1: r.table = fresh.table; break;
        case 2: r.row = fresh.row; break;
        case 3: r.column = fresh.column; break;
        case 4: r.kind = fresh.kind; break;
        case 5: r.extra = fresh.extra; break;
        default: r.value = rng() % 2 ? fresh.value : r.value + static_cast<std::int64_t>(rng() % 33) - 16; break;
        }
    }
    data[0] = newSeed;
    for (std::size_t i = 0; i < records.size(); ++i)
        encode(records[i], data + 1 + i * kRecordSize);
    return 1 + records.size() * kRecordSize;
}

// Crossing two edit lists: the first's records up to a point, then the second's from a point.
extern "C" size_t LLVMFuzzerCustomCrossOver(const std::uint8_t *data1, size_t size1, const std::uint8_t *data2,
                                            size_t size2, std::uint8_t *out, size_t maxOutSize, unsigned int seed)
{
    std::minstd_rand rng(seed);
    if (size1 < 1 || maxOutSize < 1)
        return 0;
    const std::size_t n1 = (size1 - 1) / kRecordSize, n2 = size2 ? (size2 - 1) / kRecordSize : 0;
    const std::size_t capacity = std::min(kMaxRecords, (maxOutSize - 1) / kRecordSize);
    const std::size_t take1 = n1 ? rng() % (n1 + 1) : 0;
    const std::size_t from2 = n2 ? rng() % (n2 + 1) : 0;
    out[0] = data1[0];
    std::size_t n = 0;
    for (std::size_t i = 0; i < take1 && n < capacity; ++i, ++n)
        std::memcpy(out + 1 + n * kRecordSize, data1 + 1 + i * kRecordSize, kRecordSize);
    for (std::size_t i = from2; i < n2 && n < capacity; ++i, ++n)
        std::memcpy(out + 1 + n * kRecordSize, data2 + 1 + i * kRecordSize, kRecordSize);
    return 1 + n * kRecordSize;
}
