// Speed of the trace formats, each beside a baseline measured in the same run:
//  - Chrome export of a 1,000,000-op synthetic trace (target <= 1 s) against a raw write of the same
//    bytes to the same folder (what the disk alone costs);
//  - import of an Nsight Systems SQLite export of 1,000,000 rows (500k GPU activity rows: kernels and
//    copies, each with its runtime call; built here with the documented schema; target <= 2 s) against
//    a bare sqlite3 scan that steps through the same rows and columns.
// Medians of 3 runs. Prints a table, writes bench-results/formats.json (or --out FILE), exits 1 on a
// missed target. Needs no GPU.
#include <sqlite3.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.h"
#include "engine/formats/chrome_export.h"
#include "engine/formats/nsys_import.h"
#include "engine/model/errors.h"
#include "engine/util/file_util.h"

using namespace streamscope;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kOps = 1'000'000;
constexpr int kGpuRows = 500'000; // plus one runtime row each: 1,000,000 rows
constexpr int kRuns = 3;
constexpr double kExportTargetS = 1.0;
constexpr double kImportTargetS = 2.0;

double seconds(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}
// Process CPU time: on a shared machine wall time also counts other processes' turns.
double cpuSeconds()
{
    return double(std::clock()) / CLOCKS_PER_SEC;
}

// 4 streams x 10 repetitions x 25,000 ops: H2D, kernel, D2H rounds, every op with its host call.
engine::Trace syntheticTrace()
{
    engine::Trace t;
    t.title = "synthetic 1M ops";
    t.hostThreads = {{"main", 1}};
    engine::DeviceInfo d;
    d.name = "Synthetic GPU";
    t.devices.push_back(d);
    for (int s = 0; s < 4; ++s)
        t.streams.push_back({"stream " + std::to_string(s), 0, s, 0, true, false});
    const std::uint32_t names[3] = {t.intern("H2D 1 MiB pinned"), t.intern("compute 20 us"),
                                    t.intern("D2H 1 MiB pinned")};
    const int reps = 10, perRep = kOps / reps;
    std::int64_t now = 1'000'000;
    for (int r = 0; r < reps; ++r) {
        engine::Repetition rep;
        rep.index = r;
        rep.ops.reserve(perRep);
        std::int64_t streamFree[4] = {now, now, now, now};
        for (int i = 0; i < perRep; ++i) {
            engine::OpRecord op;
            const int kind = i / 4 % 3;
            op.stream = i % 4;
            op.hostThread = 0;
            op.opIndex = i;
            op.nameId = names[kind];
            op.kind = kind == 0   ? engine::OpKind::CopyH2D
                      : kind == 1 ? engine::OpKind::Kernel
                                  : engine::OpKind::CopyD2H;
            if (kind != 1) {
                op.bytes = 1 << 20;
                op.srcMem = kind == 0 ? engine::MemKind::Pinned : engine::MemKind::Device;
                op.dstMem = kind == 0 ? engine::MemKind::Device : engine::MemKind::Pinned;
                op.api = engine::CopyApi::Async;
            }
            op.hostStartNs = now;
            op.hostEndNs = now + 2'345;
            now += 3'001;
            op.gpuStartNs = std::max(streamFree[op.stream], op.hostEndNs + 1'234);
            op.gpuEndNs = op.gpuStartNs + (kind == 1 ? 20'000 : 19'111);
            streamFree[op.stream] = op.gpuEndNs;
            rep.ops.push_back(op);
        }
        for (auto f : streamFree)
            now = std::max(now, f);
        now += 100'000;
        t.repetitions.push_back(std::move(rep));
    }
    return t;
}

void exec(sqlite3 *db, const char *sql)
{
    char *err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "?";
        sqlite3_free(err);
        throw engine::Error(engine::ErrorKind::Io, std::string("bench database: ") + msg);
    }
}

// The tables as nsys 2025.x writes them (column subset that matters, in the documented order).
void buildNsysDatabase(const std::string &path)
{
    std::filesystem::remove(path);
    sqlite3 *db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK)
        throw engine::Error(engine::ErrorKind::Io, "cannot create " + path);
    exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;"
             "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
             "INSERT INTO StringIds VALUES (1,'cudaLaunchKernel'),(2,'cudaMemcpyAsync'),(3,'gemm'),(4,'void "
             "gemm<float>(float*)');"
             "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER "
             "NOT NULL,"
             " contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, "
             "globalPid INTEGER,"
             " demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,"
             " registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, blockX INTEGER NOT NULL);"
             "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER "
             "NOT NULL,"
             " contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, "
             "globalPid INTEGER,"
             " bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind "
             "INTEGER);"
             "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass "
             "INTEGER NOT NULL,"
             " globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, "
             "callchainId INTEGER);");
    sqlite3_stmt *kernel = nullptr, *memcpy = nullptr, *runtime = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,0,1,0,?,?,?,4,3,NULL,1,32,1024,256)", -1,
                       &kernel, nullptr);
    sqlite3_prepare_v2(db, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?,?,0,1,0,?,?,?,1048576,?,NULL,1,2)", -1,
                       &memcpy, nullptr);
    sqlite3_prepare_v2(db, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,0,?,?,?,0,NULL)", -1, &runtime,
                       nullptr);
    const std::int64_t pid = std::int64_t(4242) << 24, tid = pid | 4243;
    std::int64_t now = 1'000'000;
    for (int i = 0; i < kGpuRows; ++i) {
        const bool isKernel = i % 5 < 3;
        const std::int64_t correlation = i + 1;
        sqlite3_stmt *gpu = isKernel ? kernel : memcpy;
        sqlite3_bind_int64(gpu, 1, now + 3'000);
        sqlite3_bind_int64(gpu, 2, now + 23'000);
        sqlite3_bind_int64(gpu, 3, 13 + i % 4);
        sqlite3_bind_int64(gpu, 4, correlation);
        sqlite3_bind_int64(gpu, 5, pid);
        if (!isKernel)
            sqlite3_bind_int64(gpu, 6, i % 2 ? 1 : 2);
        sqlite3_step(gpu);
        sqlite3_reset(gpu);
        sqlite3_bind_int64(runtime, 1, now);
        sqlite3_bind_int64(runtime, 2, now + 2'000);
        sqlite3_bind_int64(runtime, 3, tid);
        sqlite3_bind_int64(runtime, 4, correlation);
        sqlite3_bind_int64(runtime, 5, isKernel ? 1 : 2);
        sqlite3_step(runtime);
        sqlite3_reset(runtime);
        now += 5'000;
    }
    sqlite3_finalize(kernel);
    sqlite3_finalize(memcpy);
    sqlite3_finalize(runtime);
    exec(db, "COMMIT;");
    sqlite3_close(db);
}

// The baseline: open the file and step through the rows and columns the importer reads, nothing else.
std::int64_t bareScan(const std::string &path)
{
    sqlite3 *db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    std::int64_t checksum = 0;
    const char *queries[] = {
        "SELECT rowid, start, end, deviceId, streamId, correlationId, shortName, demangledName, globalPid FROM "
        "CUPTI_ACTIVITY_KIND_KERNEL",
        "SELECT rowid, start, end, deviceId, streamId, bytes, copyKind, correlationId, srcKind, dstKind, globalPid "
        "FROM CUPTI_ACTIVITY_KIND_MEMCPY",
        "SELECT rowid, start, end, nameId, globalTid, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME"};
    for (const char *sql : queries) {
        sqlite3_stmt *s = nullptr;
        sqlite3_prepare_v2(db, sql, -1, &s, nullptr);
        const int columns = sqlite3_column_count(s);
        while (sqlite3_step(s) == SQLITE_ROW)
            for (int c = 0; c < columns; ++c)
                checksum += sqlite3_column_int64(s, c);
        sqlite3_finalize(s);
    }
    sqlite3_close(db);
    return checksum;
}

double loadAverage()
{
    double load = -1;
    if (FILE *f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &load) != 1)
            load = -1;
        std::fclose(f);
    }
    return load;
}

} // namespace

int main(int argc, char **argv)
{
    const auto args = bench::parseArgs(argc, argv, "formats");
    try {
        const std::filesystem::path dir =
            std::filesystem::temp_directory_path() / ("streamscope-bench-formats-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        const std::string chromePath = (dir / "export.json").string(), rawPath = (dir / "raw.json").string();
        const std::string dbPath = (dir / "export.sqlite").string();

        // --- Chrome export ---
        auto t0 = Clock::now();
        const engine::Trace trace = syntheticTrace();
        std::printf("synthetic trace: %zu ops (%.2f s to build)\n", trace.opCount(), seconds(t0, Clock::now()));
        std::vector<double> exportS, serializeS, rawS, exportCpuS, importCpuS;
        std::size_t bytes = 0;
        for (int run = 0; run < kRuns; ++run) {
            // The export as the CLI and the GUI run it: serialise and write atomically.
            const double cpu0 = cpuSeconds();
            auto a = Clock::now();
            engine::writeChromeTrace(trace, chromePath);
            auto b = Clock::now();
            exportCpuS.push_back(cpuSeconds() - cpu0);
            exportS.push_back(seconds(a, b));
            // Serialising alone, into a string (what toChromeJson callers pay).
            auto c = Clock::now();
            const std::string text = engine::toChromeJson(trace);
            serializeS.push_back(seconds(c, Clock::now()));
            bytes = text.size();
            if (bytes != std::filesystem::file_size(chromePath))
                throw engine::Error(engine::ErrorKind::Io, "the exported file and toChromeJson differ in size");
            // Baseline: the same bytes, written the same way (temporary file, fsync, rename).
            auto d = Clock::now();
            engine::writeFileAtomically(rawPath, text);
            rawS.push_back(seconds(d, Clock::now()));
        }

        // --- Nsight import ---
        t0 = Clock::now();
        buildNsysDatabase(dbPath);
        std::printf("Nsight database: %d GPU rows + %d runtime rows (%.2f s to build, %.1f MB)\n", kGpuRows, kGpuRows,
                    seconds(t0, Clock::now()), double(std::filesystem::file_size(dbPath)) / 1e6);
        std::vector<double> importS, scanS;
        std::size_t importedOps = 0;
        std::int64_t checksum = 0;
        for (int run = 0; run < kRuns; ++run) {
            auto a = Clock::now();
            checksum += bareScan(dbPath);
            auto b = Clock::now();
            const double cpu0 = cpuSeconds();
            const auto imported = engine::importNsysSqlite(dbPath);
            importCpuS.push_back(cpuSeconds() - cpu0);
            auto c = Clock::now();
            scanS.push_back(seconds(a, b));
            importS.push_back(seconds(b, c));
            importedOps = imported.opCount();
        }
        std::filesystem::remove_all(dir);
        if (importedOps != std::size_t(kGpuRows))
            throw engine::Error(engine::ErrorKind::InvalidInput, "import read " + std::to_string(importedOps)
                                                                     + " ops, expected " + std::to_string(kGpuRows));

        const double exportMedian = bench::median(exportS), importMedian = bench::median(importS);
        std::printf("\n%-44s %10s %10s %10s %8s\n", "", "median s", "baseline s", "target s", "result");
        std::printf("%-44s %10.3f %10.3f %10.1f %8s\n", "Chrome export, 1M ops (serialise + write)", exportMedian,
                    bench::median(rawS), kExportTargetS, exportMedian <= kExportTargetS ? "ok" : "MISSED");
        std::printf("%-44s %10.3f %10s %10s %8s\n", "  serialising alone, into a string", bench::median(serializeS), "",
                    "", "");
        std::printf("%-44s %10.3f %10s %10s %8s\n", "  process CPU time (serialise + write)", bench::median(exportCpuS),
                    "", "", "");
        std::printf("%-44s %10.3f %10.3f %10.1f %8s\n", "Nsight SQLite import, 1M rows", importMedian,
                    bench::median(scanS), kImportTargetS, importMedian <= kImportTargetS ? "ok" : "MISSED");
        std::printf("%-44s %10.3f %10s %10s %8s\n", "  process CPU time", bench::median(importCpuS), "", "", "");
        std::printf("(1-minute load average %.1f on %u CPUs: wall times include other processes' turns)\n",
                    loadAverage(), std::thread::hardware_concurrency());
        std::printf(
            "(baselines: a raw write of the same %.1f MB; a bare sqlite3 scan of the same rows, checksum %lld)\n\n",
            double(bytes) / 1e6, static_cast<long long>(checksum / kRuns));

        nlohmann::json results = {{"benchmark", "formats"},
                                  {"runs", kRuns},
                                  {"load_average_at_end", loadAverage()},
                                  {"hardware_threads", std::thread::hardware_concurrency()},
                                  {"chrome_export",
                                   {{"ops", kOps},
                                    {"bytes", bytes},
                                    {"seconds", exportS},
                                    {"median_s", exportMedian},
                                    {"serialise_median_s", bench::median(serializeS)},
                                    {"cpu_median_s", bench::median(exportCpuS)},
                                    {"baseline_raw_write_s", rawS},
                                    {"baseline_median_s", bench::median(rawS)},
                                    {"target_s", kExportTargetS},
                                    {"ok", exportMedian <= kExportTargetS}}},
                                  {"nsys_import",
                                   {{"rows", 2 * kGpuRows},
                                    {"gpu_rows", kGpuRows},
                                    {"ops", importedOps},
                                    {"seconds", importS},
                                    {"median_s", importMedian},
                                    {"cpu_median_s", bench::median(importCpuS)},
                                    {"baseline_sqlite_scan_s", scanS},
                                    {"baseline_median_s", bench::median(scanS)},
                                    {"target_s", kImportTargetS},
                                    {"ok", importMedian <= kImportTargetS}}}};
        bench::writeResults(args.out, results);
        return exportMedian <= kExportTargetS && importMedian <= kImportTargetS ? 0 : 1;
    } catch (const engine::Error &e) {
        std::fprintf(stderr, "bench_formats: %s\n", e.what());
        return 2;
    }
}
