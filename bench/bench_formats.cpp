// Speed of the trace formats, each beside a baseline measured in the same run:
//  - Chrome export of a 1,000,000-op synthetic trace (target <= 1 s) against a raw write of the same
//    bytes to the same folder (what the disk alone costs);
//  - import of an Nsight Systems SQLite export of 1,000,000 rows (500k GPU activity rows: kernels and
//    copies, each with its runtime call; built here with the documented schema; target <= 2 s) against
//    a bare sqlite3 scan that steps through the same rows and columns;
//  - Chrome/Kineto import (the open as the CLI and the app do it: read, gunzip, import) of the real
//    PyTorch profiler traces in ../shared/data/real-traces (or $STREAMSCOPE_REAL_TRACES) and of a
//    synthetic Kineto-shaped trace of ~30 MB made here, against a bare simdjson on-demand parse of the same
//    text that visits every event and every member: time per MB and peak memory per event, each as a
//    ratio to the bare parse; targets for Kineto traces of 26-35 MB: open <= 0.7 s and peak memory
//    <= 3x the JSON's size (#23 item 9, #24 item 1).
// Medians of 3 runs. Prints a table, writes bench-results/formats.json (or --out FILE), exits 1 on a
// missed target. Needs no GPU.
#include <malloc.h>
#include <simdjson.h>
#include <sqlite3.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.h"
#include "engine/formats/chrome_export.h"
#include "engine/formats/chrome_import.h"
#include "engine/formats/nsys_import.h"
#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "engine/util/file_util.h"
#include "engine/util/gzip.h"

using namespace streamscope;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kOps = 1'000'000;
constexpr int kGpuRows = 500'000; // plus one runtime row each: 1,000,000 rows
constexpr int kRuns = 3;
constexpr double kExportTargetS = 1.0;
constexpr double kImportTargetS = 2.0;
constexpr double kKinetoOpenTargetS = 0.7; // Kineto traces of 26-35 MB of JSON
constexpr double kKinetoMemoryTarget = 3.0; // peak memory of the open, in units of the JSON's size

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

// Peak memory: the kernel's high-water mark of this process's resident set, reset before each measured step
// (/proc/self/clear_refs, "5"), against the resident set just before it.
std::int64_t statusKiB(const char *key)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0)
            return std::atoll(line.c_str() + std::strlen(key));
    return -1;
}
struct PeakMemory {
    std::int64_t before = 0;
    PeakMemory()
    {
        malloc_trim(0); // what earlier steps freed goes back, so that the baseline is this step's
        std::ofstream("/proc/self/clear_refs") << "5";
        before = statusKiB("VmRSS:");
    }
    // Bytes above the resident set at the start.
    double bytes() const { return double(statusKiB("VmHWM:") - before) * 1024.0; }
};

// A Kineto-shaped trace (PyTorch profiler, CUDA activities) of about `targetBytes` of JSON, laid out as the
// profiler writes it: per step an aten operator, its launch (cuda_runtime, with correlation), the kernel
// with launch details, an ac2g flow pair, and every fourth step a copy with its cudaMemcpyAsync.
std::string kinetoLikeJson(std::size_t targetBytes, std::size_t &events)
{
    std::string out = "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0, \"name\": "
                      "\"Synthetic GPU\", \"totalGlobalMem\": 85031714816,\n      \"computeMajor\": 8, "
                      "\"computeMinor\": 0, \"numSms\": 108\n    }\n  ],\n  \"traceEvents\": [\n";
    out.reserve(targetBytes + 4096);
    events = 0;
    std::int64_t ts = 1'700'000'000'000'000, correlation = 1;
    char buf[1024];
    auto add = [&](int n) {
        out.append(buf, std::size_t(n));
        ++events;
    };
    const char *sep = "  ";
    for (std::int64_t i = 0; out.size() < targetBytes; ++i) {
        const int stream = 7 + int(i % 4);
        add(std::snprintf(
            buf, sizeof buf,
            "%s{\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 4242, \"tid\": "
            "4242,\n    \"ts\": %lld.%03d, \"dur\": 12.345,\n    \"args\": {\n      \"External id\": "
            "%lld,\"Record function id\": 0, \"Ev Idx\": %lld\n    }\n  }",
            sep, (long long)ts, int(i % 1000), (long long)i, (long long)i));
        sep = ",\n  ";
        add(std::snprintf(buf, sizeof buf,
                          "%s{\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": "
                          "4242, \"tid\": 4242,\n    \"ts\": %lld.%03d, \"dur\": 4.210,\n    \"args\": {\n      "
                          "\"External id\": %lld, \"cbid\": 211, \"correlation\": %lld\n    }\n  }",
                          sep, (long long)ts + 2, int(i % 1000), (long long)i, (long long)correlation));
        add(std::snprintf(
            buf, sizeof buf,
            "%s{\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void gemm_kernel<float, 128, 64>(float const*, "
            "float const*, float*, int)\", \"pid\": 0, \"tid\": %d,\n    \"ts\": %lld.%03d, \"dur\": 20.5,\n    "
            "\"args\": {\n      \"External id\": %lld,\n      \"queued\": 0, \"device\": 0, \"context\": 1,\n      "
            "\"stream\": %d, \"correlation\": %lld,\n      \"registers per thread\": 128,\n      \"shared memory\": "
            "49152,\n      \"blocks per SM\": 1.185185,\n      \"warps per SM\": 4.740741,\n      \"grid\": [128, 1, "
            "1],\n      \"block\": [256, 1, 1],\n      \"est. achieved occupancy %%\": 12\n    }\n  }",
            sep, stream, (long long)ts + 8, int(i % 1000), (long long)i, stream, (long long)correlation));
        add(std::snprintf(buf, sizeof buf,
                          "%s{\n    \"ph\": \"s\", \"id\": %lld, \"pid\": 4242, \"tid\": 4242, \"ts\": %lld.%03d,\n    "
                          "\"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }",
                          sep, (long long)correlation, (long long)ts + 2, int(i % 1000)));
        add(std::snprintf(buf, sizeof buf,
                          "%s{\n    \"ph\": \"f\", \"id\": %lld, \"pid\": 0, \"tid\": %d, \"ts\": %lld.%03d,\n    "
                          "\"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }",
                          sep, (long long)correlation, stream, (long long)ts + 8, int(i % 1000)));
        ++correlation;
        if (i % 4 == 0) {
            add(std::snprintf(buf, sizeof buf,
                              "%s{\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpyAsync\", "
                              "\"pid\": 4242, \"tid\": 4242,\n    \"ts\": %lld.%03d, \"dur\": 3.1,\n    \"args\": {\n "
                              "     \"cbid\": 41, \"correlation\": %lld\n    }\n  }",
                              sep, (long long)ts + 30, int(i % 1000), (long long)correlation));
            add(std::snprintf(buf, sizeof buf,
                              "%s{\n    \"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> "
                              "Device)\", \"pid\": 0, \"tid\": %d,\n    \"ts\": %lld.%03d, \"dur\": 8.2,\n    "
                              "\"args\": {\n      \"device\": 0, \"context\": 1,\n      \"stream\": %d, "
                              "\"correlation\": %lld,\n      \"bytes\": 1048576, \"memory bandwidth (GB/s)\": 20.1\n "
                              "   }\n  }",
                              sep, stream, (long long)ts + 33, int(i % 1000), stream, (long long)correlation));
            ++correlation;
        }
        ts += 40;
    }
    out += "\n  ],\n  \"traceName\": \"synthetic\"\n}\n";
    return out;
}

// The baseline: simdjson's on-demand parser over the same text, visiting every event and each of its
// members (and each member of its args) without keeping anything: what reading the text costs at least.
std::size_t bareSimdjson(const std::string &text)
{
    namespace od = simdjson::ondemand;
    const simdjson::padded_string padded(text);
    od::parser parser;
    od::document doc = parser.iterate(padded);
    std::size_t members = 0;
    for (auto field : doc.get_object()) {
        if (field.unescaped_key().value() != "traceEvents")
            continue;
        for (auto event : field.value().get_array()) {
            for (auto member : event.get_object()) {
                ++members;
                if (member.unescaped_key().value() == "args")
                    for (auto arg : member.value().get_object()) {
                        (void)arg.value().raw_json_token();
                        ++members;
                    }
                else
                    (void)member.value().raw_json_token();
            }
        }
    }
    return members;
}

struct ChromeRow {
    std::string name;
    double mb = 0; // JSON text, MB (10^6 bytes)
    std::size_t events = 0, ops = 0;
    double openS = 0, importS = 0, bareS = 0; // medians
    double openPeak = 0, importPeak = 0, barePeak = 0; // bytes above the resident set before
    bool judged = false; // a Kineto trace of 26-35 MB: the targets apply
    bool ok = true;
};

ChromeRow measureChrome(const std::string &name, const std::string &path)
{
    ChromeRow row;
    row.name = name;
    std::string text = engine::readFile(path);
    if (engine::isGzip(text))
        text = engine::gunzip(text, path);
    row.mb = double(text.size()) / 1e6;
    std::vector<double> openS, importS, bareS;
    for (int run = 0; run < kRuns; ++run) {
        {
            const PeakMemory peak;
            auto a = Clock::now();
            const std::size_t members = bareSimdjson(text);
            bareS.push_back(seconds(a, Clock::now()));
            row.barePeak = std::max(row.barePeak, peak.bytes());
            if (members == 0)
                throw engine::Error(engine::ErrorKind::InvalidInput, path + ": the bare parse found no events");
        }
        {
            std::string copy = text; // the importer may grow the string's capacity for simdjson's padding
            const PeakMemory peak;
            auto a = Clock::now();
            const engine::Trace t = engine::chromeTraceFromText(copy, path);
            importS.push_back(seconds(a, Clock::now()));
            row.importPeak = std::max(row.importPeak, peak.bytes());
            row.ops = t.opCount();
        }
        {
            const PeakMemory peak;
            auto a = Clock::now();
            const engine::Trace t = engine::loadTrace(path);
            openS.push_back(seconds(a, Clock::now()));
            row.openPeak = std::max(row.openPeak, peak.bytes());
        }
    }
    // Events: the members of traceEvents, counted once by simdjson.
    {
        namespace od = simdjson::ondemand;
        const simdjson::padded_string padded(text);
        od::parser parser;
        od::document doc = parser.iterate(padded);
        for (auto field : doc.get_object())
            if (field.unescaped_key().value() == "traceEvents")
                for (auto event : field.value().get_array()) {
                    (void)event;
                    ++row.events;
                }
    }
    row.openS = bench::median(openS);
    row.importS = bench::median(importS);
    row.bareS = bench::median(bareS);
    row.judged = name.rfind("kineto_", 0) == 0 && row.mb >= 25 && row.mb <= 36; // "26-35 MB": 25.8 and 34.8 MB
    row.ok =
        !row.judged || (row.openS <= kKinetoOpenTargetS && row.openPeak <= kKinetoMemoryTarget * double(text.size()));
    return row;
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
        // --- Chrome/Kineto import ---
        std::vector<ChromeRow> chrome;
        {
            std::size_t events = 0;
            const std::string synthetic = (dir / "kineto_synthetic.json").string();
            engine::writeFileAtomically(synthetic, kinetoLikeJson(30'000'000, events));
            chrome.push_back(measureChrome("kineto_synthetic.json", synthetic));
        }
        const char *realDir = std::getenv("STREAMSCOPE_REAL_TRACES");
        const std::filesystem::path real = realDir ? realDir : "../shared/data/real-traces";
        std::vector<std::filesystem::path> kineto;
        if (std::error_code ec; std::filesystem::is_directory(real, ec))
            for (const auto &entry : std::filesystem::directory_iterator(real))
                if (entry.path().filename().string().rfind("kineto_", 0) == 0)
                    kineto.push_back(entry.path());
        std::sort(kineto.begin(), kineto.end());
        for (const auto &path : kineto)
            chrome.push_back(measureChrome(path.filename().string(), path.string()));
        if (kineto.empty())
            std::printf("(no real Kineto traces in %s: set STREAMSCOPE_REAL_TRACES)\n", real.string().c_str());

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
        std::printf("\n%-40s %7s %8s %8s %8s %8s %8s %8s %8s %8s\n", "Chrome/Kineto import", "MB", "events", "open s",
                    "import s", "bare s", "s/MB x", "peak/MB", "B/event x", "result");
        bool chromeOk = true;
        nlohmann::json chromeJson = nlohmann::json::array();
        for (const ChromeRow &r : chrome) {
            // Ratios against the bare parse of the same text: time per MB, and peak memory per event.
            const double timeRatio = r.importS / r.bareS, memoryRatio = r.importPeak / std::max(1.0, r.barePeak);
            chromeOk = chromeOk && r.ok;
            std::printf("%-40s %7.1f %8zu %8.3f %8.3f %8.3f %8.2f %8.2f %8.2f %8s\n", r.name.c_str(), r.mb, r.events,
                        r.openS, r.importS, r.bareS, timeRatio, r.openPeak / (r.mb * 1e6), memoryRatio,
                        !r.judged ? ""
                        : r.ok    ? "ok"
                                  : "MISSED");
            chromeJson.push_back(
                {{"file", r.name},
                 {"json_mb", r.mb},
                 {"events", r.events},
                 {"ops", r.ops},
                 {"open_median_s", r.openS},
                 {"import_median_s", r.importS},
                 {"bare_simdjson_median_s", r.bareS},
                 {"import_s_per_mb", r.importS / r.mb},
                 {"bare_s_per_mb", r.bareS / r.mb},
                 {"time_ratio_import_to_bare", timeRatio},
                 {"open_peak_bytes", r.openPeak},
                 {"open_peak_per_json_byte", r.openPeak / (r.mb * 1e6)},
                 {"import_peak_bytes_per_event", r.importPeak / double(std::max<std::size_t>(1, r.events))},
                 {"bare_peak_bytes_per_event", r.barePeak / double(std::max<std::size_t>(1, r.events))},
                 {"memory_ratio_import_to_bare", memoryRatio},
                 {"judged", r.judged},
                 {"target_open_s", kKinetoOpenTargetS},
                 {"target_peak_per_json_byte", kKinetoMemoryTarget},
                 {"ok", r.ok}});
        }
        std::printf("(open: loadTrace from the file (read, gunzip, import); import: from the JSON in memory; bare: "
                    "simdjson on-demand visiting every member; s/MB x and B/event x: import / bare; peak/MB: the "
                    "open's peak memory over the JSON's size; targets for 26-35 MB Kineto traces: open <= %.1f s, "
                    "peak <= %.0fx the JSON)\n",
                    kKinetoOpenTargetS, kKinetoMemoryTarget);
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
                                    {"ok", importMedian <= kImportTargetS}}},
                                  {"chrome_import", chromeJson}};
        bench::writeResults(args.out, results);
        return exportMedian <= kExportTargetS && importMedian <= kImportTargetS && chromeOk ? 0 : 1;
    } catch (const engine::Error &e) {
        std::fprintf(stderr, "bench_formats: %s\n", e.what());
        return 2;
    }
}
