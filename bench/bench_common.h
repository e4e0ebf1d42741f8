// What the runner benchmarks share: their command line (--out FILE, --workload FILE, --reps N), medians,
// reading the per-repetition GPU spans the runner keeps in Trace::metadata, a plain table on stdout
// and the JSON results file (./bench-results/<name>.json unless --out says otherwise).
// Header-only, for the runner benchmarks (bench_harris, bench_p2p, ...); see bench/NOTES.md for the method.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/analysis/analysis.h"
#include "engine/model/errors.h"
#include "engine/model/trace.h"
#include "engine/util/file_util.h"

namespace streamscope::bench {

struct Args {
    std::string out; // results file
    std::string workload; // preset to run (the benchmarks that use one)
    int reps = 0; // 0 = the benchmark's default
};

inline Args parseArgs(int argc, char **argv, const std::string &name, const std::string &defaultWorkload = {})
{
    Args args;
    args.out = "bench-results/" + name + ".json";
    args.workload = defaultWorkload;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s: %s needs a value\n", name.c_str(), a.c_str());
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--out" || a == "-o")
            args.out = value();
        else if (a == "--workload" || a == "-w")
            args.workload = value();
        else if (a == "--reps")
            args.reps = std::atoi(value().c_str());
        else if (a == "--help" || a == "-h") {
            std::printf("usage: %s [--out FILE] [--workload FILE] [--reps N]\n"
                        "  --out       results file (default bench-results/%s.json)\n"
                        "  --workload  preset to run (default %s)\n"
                        "  --reps      measured repetitions\n",
                        name.c_str(), name.c_str(), defaultWorkload.empty() ? "none" : defaultWorkload.c_str());
            std::exit(0);
        } else if (args.out == "bench-results/" + name + ".json" && a.rfind('-', 0) != 0) {
            args.out = a; // a bare argument is the results file
        } else {
            std::fprintf(stderr, "%s: unknown argument '%s' (try --help)\n", name.c_str(), a.c_str());
            std::exit(2);
        }
    }
    return args;
}

inline double median(std::vector<double> v)
{
    return engine::spreadOf(std::move(v)).median;
}

// Runs `a` and `b` back to back, `a` first in even rounds and `b` first in odd ones, so that a drifting
// clock or a neighbour's burst on the host hits both alike.
template <typename A, typename B> void alternated(int round, A &&a, B &&b)
{
    if (round % 2 == 0) {
        a();
        b();
    } else {
        b();
        a();
    }
}

// An engine / plain comparison in rounds: each round's two figures, and the ratio as the median of the
// rounds' paired ratios (each pair ran back to back, so slow drift cancels in it).
struct PairedRounds {
    std::vector<double> engine, plain, ratios;

    void add(double e, double p)
    {
        engine.push_back(e);
        plain.push_back(p);
        if (p > 0)
            ratios.push_back(e / p);
    }
    double engineMedian() const { return median(engine); }
    double plainMedian() const { return median(plain); }
    double ratio() const { return ratios.empty() ? 0 : median(ratios); }
};

inline double minOf(const std::vector<double> &v)
{
    return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}
inline double maxOf(const std::vector<double> &v)
{
    return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

// The runner's per-repetition GPU span (start event to the last stream's end event), in ns.
inline std::vector<double> repetitionSpans(const engine::Trace &trace)
{
    std::vector<double> spans;
    const auto it = trace.metadata.find("repetition_gpu_span_ns");
    if (it == trace.metadata.end())
        throw engine::Error(engine::ErrorKind::InvalidInput, "the trace has no repetition_gpu_span_ns metadata");
    std::size_t pos = 0;
    const std::string &s = it->second;
    while (pos < s.size()) {
        const std::size_t comma = s.find(',', pos);
        spans.push_back(std::atof(s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos).c_str()));
        if (comma == std::string::npos)
            break;
        pos = comma + 1;
    }
    return spans;
}

inline nlohmann::json deviceJson(const engine::Trace &trace)
{
    nlohmann::json j = nlohmann::json::object();
    const auto it = trace.metadata.find("device");
    const std::size_t index = it == trace.metadata.end() ? 0 : std::size_t(std::atoi(it->second.c_str()));
    if (index < trace.devices.size()) {
        const engine::DeviceInfo &d = trace.devices[index];
        j = {{"name", d.name},
             {"cc", std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor)},
             {"pcie_generation", d.pcieGeneration},
             {"pcie_width", d.pcieWidth},
             {"link_peak_GBs", d.linkPeakGBs},
             {"driver", d.driverVersion},
             {"runtime", d.runtimeVersion}};
    }
    return j;
}

inline void writeResults(const std::string &path, const nlohmann::json &results)
{
    const std::filesystem::path p(path);
    if (p.has_parent_path())
        std::filesystem::create_directories(p.parent_path());
    engine::writeFileAtomically(path, results.dump(2) + "\n");
    std::printf("results written to %s\n", path.c_str());
}

} // namespace streamscope::bench
