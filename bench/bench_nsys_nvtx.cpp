// Benchmark of the Nsight import's NVTX alignment: a capture shaped like `nsys profile -t cuda,nvtx
// streamscope-cli run` (every op's call in a named push/pop range, ops grouped in "warmup N" / "rep N"
// ranges) with about 1,000,000 rows, imported with and without its NVTX_EVENTS table. Target: the whole
// import under 2 s, as for a capture without NVTX (bench_formats). Writes its results as JSON (--out).
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "bench_common.h"
#include "engine/formats/nsys_import.h"
#include "engine/model/errors.h"

using namespace streamscope;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kGpuRows = 330'000; // + 330,000 runtime rows + 330,000 op ranges + 3,300 repetition ranges
constexpr int kOpsPerRepetition = 100;
constexpr int kWarmups = 2;
constexpr int kRuns = 3;
constexpr double kTargetS = 2.0;

double seconds(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
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

// withNvtx = false writes the same CUDA rows without NVTX_EVENTS: the import as before this feature.
void buildDatabase(const std::string &path, bool withNvtx)
{
    std::filesystem::remove(path);
    sqlite3 *db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK)
        throw engine::Error(engine::ErrorKind::Io, "cannot create " + path);
    exec(db,
         "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;"
         "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
         "INSERT INTO StringIds VALUES (1,'cudaLaunchKernel'),(2,'cudaMemcpyAsync'),(3,'spin'),(4,'void spin(long)'),"
         "(10,'H2D 1 MiB pinned [c0]'),(11,'kernel 20 us [c0]'),(12,'D2H 1 MiB pinned [c0]');"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT "
         "NULL,"
         " contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
         " demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT "
         "NULL,"
         " contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
         " bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER "
         "NOT NULL,"
         " globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);"
         "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,"
         " category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,"
         " domainId INTEGER);");
    sqlite3_stmt *kernel = nullptr, *memcpy = nullptr, *runtime = nullptr, *range = nullptr;
    sqlite3_prepare_v2(db, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,0,1,?,?,?,4,3)", -1, &kernel, nullptr);
    sqlite3_prepare_v2(db, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?,?,0,1,?,?,?,1048576,?,1,2)", -1, &memcpy,
                       nullptr);
    sqlite3_prepare_v2(db, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,0,?,?,?,0)", -1, &runtime, nullptr);
    sqlite3_prepare_v2(db, "INSERT INTO NVTX_EVENTS VALUES (?,?,59,NULL,NULL,NULL,?,?,NULL,?,0)", -1, &range, nullptr);
    const std::int64_t pid = std::int64_t(4242) << 24, tid = pid | 4243;
    auto addRange = [&](std::int64_t start, std::int64_t end, const std::string *text, std::int64_t textId) {
        sqlite3_bind_int64(range, 1, start);
        sqlite3_bind_int64(range, 2, end);
        if (text)
            sqlite3_bind_text(range, 3, text->c_str(), -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(range, 3);
        sqlite3_bind_int64(range, 4, tid);
        if (textId)
            sqlite3_bind_int64(range, 5, textId);
        else
            sqlite3_bind_null(range, 5);
        sqlite3_step(range);
        sqlite3_reset(range);
    };
    std::int64_t now = 1'000'000;
    std::int64_t groupStart = now;
    for (int i = 0; i < kGpuRows; ++i) {
        const int kind = i % 3; // H2D, kernel, D2H
        const std::int64_t correlation = i + 1;
        sqlite3_stmt *gpu = kind == 1 ? kernel : memcpy;
        sqlite3_bind_int64(gpu, 1, now + 3'000);
        sqlite3_bind_int64(gpu, 2, now + 23'000);
        sqlite3_bind_int64(gpu, 3, 13 + (i / 3) % 4);
        sqlite3_bind_int64(gpu, 4, correlation);
        sqlite3_bind_int64(gpu, 5, pid);
        if (kind != 1)
            sqlite3_bind_int64(gpu, 6, kind == 0 ? 1 : 2);
        sqlite3_step(gpu);
        sqlite3_reset(gpu);
        sqlite3_bind_int64(runtime, 1, now + 100);
        sqlite3_bind_int64(runtime, 2, now + 2'000);
        sqlite3_bind_int64(runtime, 3, tid);
        sqlite3_bind_int64(runtime, 4, correlation);
        sqlite3_bind_int64(runtime, 5, kind == 1 ? 1 : 2);
        sqlite3_step(runtime);
        sqlite3_reset(runtime);
        if (withNvtx)
            addRange(now, now + 2'100, nullptr, 10 + kind);
        now += 5'000;
        if ((i + 1) % kOpsPerRepetition == 0) {
            const int group = i / kOpsPerRepetition;
            const std::string name =
                group < kWarmups ? "warmup " + std::to_string(group) : "rep " + std::to_string(group - kWarmups);
            if (withNvtx)
                addRange(groupStart - 50, now - 2'000, &name, 0);
            now += 10'000;
            groupStart = now;
        }
    }
    sqlite3_finalize(kernel);
    sqlite3_finalize(memcpy);
    sqlite3_finalize(runtime);
    sqlite3_finalize(range);
    exec(db, "COMMIT;");
    sqlite3_close(db);
}

} // namespace

int main(int argc, char **argv)
{
    const auto args = bench::parseArgs(argc, argv, "nsys_nvtx");
    try {
        const std::filesystem::path dir =
            std::filesystem::temp_directory_path() / ("streamscope-bench-nsys-nvtx-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        const std::string withPath = (dir / "nvtx.sqlite").string(), withoutPath = (dir / "plain.sqlite").string();
        auto t0 = Clock::now();
        buildDatabase(withPath, true);
        buildDatabase(withoutPath, false);
        const int reps = kGpuRows / kOpsPerRepetition - kWarmups;
        const int rows = 2 * kGpuRows + kGpuRows + kGpuRows / kOpsPerRepetition;
        std::printf("Nsight databases: %d rows with NVTX (%d GPU, %d runtime, %d ranges), built in %.2f s\n", rows,
                    kGpuRows, kGpuRows, kGpuRows + kGpuRows / kOpsPerRepetition, seconds(t0, Clock::now()));
        std::vector<double> withS, withoutS;
        std::size_t ops = 0, repetitions = 0;
        for (int run = 0; run < kRuns; ++run) {
            auto a = Clock::now();
            const auto plain = engine::importNsysSqlite(withoutPath);
            auto b = Clock::now();
            const auto nvtx = engine::importNsysSqlite(withPath);
            auto c = Clock::now();
            withoutS.push_back(seconds(a, b));
            withS.push_back(seconds(b, c));
            ops = nvtx.opCount();
            repetitions = nvtx.repetitions.size();
            if (plain.repetitions.size() != 1 || plain.opCount() != std::size_t(kGpuRows))
                throw engine::Error(engine::ErrorKind::InvalidInput, "the import without NVTX read the wrong ops");
        }
        std::filesystem::remove_all(dir);
        if (repetitions != std::size_t(reps) || ops != std::size_t(reps) * kOpsPerRepetition)
            throw engine::Error(engine::ErrorKind::InvalidInput, "the NVTX import made " + std::to_string(repetitions)
                                                                     + " repetitions of " + std::to_string(ops)
                                                                     + " ops, expected " + std::to_string(reps) + " of "
                                                                     + std::to_string(reps * kOpsPerRepetition));
        const double with = bench::median(withS), without = bench::median(withoutS);
        std::printf("\n%-46s %10s %10s %8s\n", "", "median s", "target s", "result");
        std::printf("%-46s %10.3f %10.1f %8s\n", "import with NVTX ranges (~1M rows)", with, kTargetS,
                    with <= kTargetS ? "ok" : "MISSED");
        std::printf("%-46s %10.3f %10s %8s\n", "same CUDA rows without NVTX_EVENTS", without, "", "");
        std::printf("(%zu repetitions of %d ops after dropping %d warm-ups)\n\n", repetitions, kOpsPerRepetition,
                    kWarmups);
        nlohmann::json results = {{"benchmark", "nsys_nvtx"},
                                  {"rows", rows},
                                  {"runs", kRuns},
                                  {"with_nvtx_s", withS},
                                  {"with_nvtx_median_s", with},
                                  {"without_nvtx_s", withoutS},
                                  {"without_nvtx_median_s", without},
                                  {"repetitions", repetitions},
                                  {"ops", ops},
                                  {"target_s", kTargetS},
                                  {"ok", with <= kTargetS}};
        bench::writeResults(args.out, results);
        return with <= kTargetS ? 0 : 1;
    } catch (const engine::Error &e) {
        std::fprintf(stderr, "bench_nsys_nvtx: %s\n", e.what());
        return 2;
    }
}
