// `streamscope-cli run --ranks`: one process per rank under MPI (see ranks_command.h). Only this file calls
// MPI; what the bytes mean (the parts, the clock offsets, the merge) is the engine's (engine/run/ranks.h).
#include "app/cli/ranks_command.h"

#include <chrono>
#include <climits>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include "app/cli/table_format.h"
#include "engine/formats/native_format.h"
#include "engine/model/errors.h"
#include "engine/run/ranks.h"
#include "engine/run/runner.h"
#include "engine/run/topology.h"
#include "engine/workload/rank_part.h"
#include "engine/workload/solo_parts.h"
#include "engine/workload/workload_parser.h"

#if STREAMSCOPE_HAVE_MPI
// MPI's C interface only (Open MPI and MPICH would otherwise bring their deprecated C++ bindings along).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace streamscope::cli {

using engine::Error;
using engine::ErrorKind;

#if STREAMSCOPE_HAVE_MPI

namespace {

std::int64_t steadyNowNs()
{
    // The runner's clock (runner_calls.h hostNowNs): the traces' times are on it.
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::string readBootId()
{
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string id;
    std::getline(in, id);
    return id;
}

std::string hostName()
{
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0)
        return "unknown host";
    return name;
}

class Job {
public:
    Job()
    {
        int provided = 0;
        // Only the thread that runs the workload calls MPI (the barrier before each repetition included).
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
        MPI_Comm_size(MPI_COMM_WORLD, &m_size);
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &m_node);
        MPI_Comm_rank(m_node, &m_localRank);
        MPI_Comm_size(m_node, &m_localSize);
    }
    ~Job()
    {
        MPI_Comm_free(&m_node);
        MPI_Finalize();
    }
    Job(const Job &) = delete;
    Job &operator=(const Job &) = delete;

    int rank() const { return m_rank; }
    int size() const { return m_size; }
    int localRank() const { return m_localRank; }
    int localSize() const { return m_localSize; }

    void barrier() const { MPI_Barrier(MPI_COMM_WORLD); }
    // A rank failed where the others cannot know (inside the run): the whole job ends with its code.
    [[noreturn]] void abort(int code) const
    {
        MPI_Abort(MPI_COMM_WORLD, code);
        std::_Exit(code);
    }

    // Rank 0's text on every rank.
    std::string broadcast(std::string text) const
    {
        long long size = static_cast<long long>(text.size());
        MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        text.resize(std::size_t(size));
        if (size > 0)
            MPI_Bcast(text.data(), int(size), MPI_CHAR, 0, MPI_COMM_WORLD);
        return text;
    }

    // Every rank's text on rank 0 (index = rank); empty on the others. Error{InvalidInput} on every rank where
    // one text is past MPI's 2 GiB count.
    std::vector<std::string> gather(const std::string &text) const
    {
        long long size = static_cast<long long>(text.size());
        std::vector<long long> sizes(static_cast<std::size_t>(m_size));
        MPI_Allgather(&size, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD);
        long long total = 0;
        for (int r = 0; r < m_size; ++r) {
            if (sizes[std::size_t(r)] > INT_MAX || total + sizes[std::size_t(r)] > INT_MAX)
                throw Error(ErrorKind::InvalidInput, "rank " + std::to_string(r)
                                                         + "'s trace is too large to send to rank 0 ("
                                                         + std::to_string(sizes[std::size_t(r)])
                                                         + " bytes; MPI counts up to 2 GiB in all): "
                                                           "run fewer repetitions");
            total += sizes[std::size_t(r)];
        }
        std::vector<int> counts(static_cast<std::size_t>(m_size)), offsets(static_cast<std::size_t>(m_size));
        for (int r = 0, at = 0; r < m_size; ++r) {
            counts[std::size_t(r)] = int(sizes[std::size_t(r)]);
            offsets[std::size_t(r)] = at;
            at += counts[std::size_t(r)];
        }
        std::string all(m_rank == 0 ? std::size_t(total) : 0, '\0');
        MPI_Gatherv(text.data(), int(size), MPI_CHAR, all.data(), counts.data(), offsets.data(), MPI_CHAR, 0,
                    MPI_COMM_WORLD);
        std::vector<std::string> texts;
        if (m_rank == 0)
            for (int r = 0; r < m_size; ++r)
                texts.push_back(all.substr(std::size_t(offsets[std::size_t(r)]), std::size_t(counts[std::size_t(r)])));
        return texts;
    }

    // Rank 0 and each other rank in turn: round trips of rank 0's clock against the rank's (ranks.h). Each
    // rank's samples on rank 0, index = rank (none for rank 0 itself).
    std::vector<std::vector<engine::ClockSample>> clockSamples(int trips) const
    {
        std::vector<std::vector<engine::ClockSample>> samples(static_cast<std::size_t>(m_size));
        for (int r = 1; r < m_size; ++r) {
            for (int i = 0; i < trips; ++i) {
                long long reading = 0;
                if (m_rank == 0) {
                    engine::ClockSample s;
                    s.sentNs = steadyNowNs();
                    MPI_Send(&reading, 1, MPI_LONG_LONG, r, kClockTag, MPI_COMM_WORLD);
                    MPI_Recv(&reading, 1, MPI_LONG_LONG, r, kClockTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    s.receivedNs = steadyNowNs();
                    s.remoteNs = reading;
                    samples[std::size_t(r)].push_back(s);
                } else if (m_rank == r) {
                    MPI_Recv(&reading, 1, MPI_LONG_LONG, 0, kClockTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    reading = steadyNowNs();
                    MPI_Send(&reading, 1, MPI_LONG_LONG, 0, kClockTag, MPI_COMM_WORLD);
                }
            }
        }
        return samples;
    }

private:
    static constexpr int kClockTag = 7001;
    int m_rank = 0, m_size = 1, m_localRank = 0, m_localSize = 1;
    MPI_Comm m_node = MPI_COMM_NULL;
};

// This rank's GPU: its place among the ranks of its machine, or the one GPU its launcher left it.
int localDevice(const Job &job)
{
    const std::vector<engine::DeviceInfo> devices = engine::listDevices();
    const int count = int(devices.size());
    if (count >= job.localSize())
        return job.localRank();
    if (count == 1)
        return 0; // the launcher gave each rank its own GPU (CUDA_VISIBLE_DEVICES)
    throw Error(ErrorKind::InvalidInput, "rank " + std::to_string(job.rank()) + " is one of "
                                             + std::to_string(job.localSize()) + " ranks on " + hostName()
                                             + ", which has " + std::to_string(count)
                                             + " CUDA devices: start at most one rank per GPU on each machine");
}

// The round trips of the clock offsets, per rank.
constexpr int kClockTrips = 64;

// After every rank's run: each rank's clock against rank 0's, then every trace to rank 0, which makes them
// one (ranks.h). The trace on rank 0, none on the others; throws Error on every rank where a trace cannot be
// sent, on rank 0 where the traces cannot be merged. Rank 0 keeps its own trace as it is (it sends nothing).
std::optional<engine::Trace> gatherTraces(const Job &job, const engine::Workload &workload, engine::Trace trace,
                                          int localDevice, bool measureClocks)
{
    job.barrier();
    const auto samples = job.clockSamples(kClockTrips);
    const std::vector<std::string> bootIds = job.gather(readBootId());
    const nlohmann::json about = {{"host", hostName()}, {"pid", std::int64_t(getpid())}, {"device", localDevice}};
    const std::vector<std::string> abouts = job.gather(about.dump());
    const std::vector<std::string> traces = job.gather(job.rank() == 0 ? std::string() : engine::toNativeJson(trace));
    if (job.rank() != 0)
        return std::nullopt;
    std::vector<engine::RankTrace> ranks;
    // One machine (one boot id for all): its links between the ranks' GPUs, against which the collectives'
    // bus bandwidth is read.
    std::vector<int> gpus;
    bool oneMachine = !bootIds[0].empty();
    for (int r = 0; r < job.size(); ++r) {
        engine::RankTrace rank;
        rank.trace = r == 0 ? std::move(trace)
                            : engine::fromNativeJson(std::string_view(traces[std::size_t(r)]),
                                                     "rank " + std::to_string(r) + "'s trace");
        const nlohmann::json a = nlohmann::json::parse(abouts[std::size_t(r)]);
        rank.host = a.at("host").get<std::string>();
        rank.pid = a.at("pid").get<std::int64_t>();
        rank.localDevice = a.at("device").get<int>();
        const bool sameClock = !bootIds[0].empty() && bootIds[std::size_t(r)] == bootIds[0];
        if (r > 0)
            rank.clock = engine::estimateClockOffset(samples[std::size_t(r)], sameClock && !measureClocks);
        gpus.push_back(rank.localDevice);
        oneMachine = oneMachine && sameClock;
        ranks.push_back(std::move(rank));
    }
    engine::Trace merged = engine::mergeRankTraces(workload, std::move(ranks));
    if (oneMachine)
        merged.peerLinks = engine::rankLinks(engine::queryTopology().peerLinks(), gpus);
    return merged;
}

} // namespace

int cmdRunRanks(const RunArgs &args, const std::atomic<bool> &cancel, std::ostream &out, std::ostream &err)
{
    // The workload first: what it fixes for the process (CUDA_DEVICE_MAX_CONNECTIONS) must be set before CUDA
    // starts, and a CUDA-aware MPI starts it in MPI_Init. Its errors are said once the job knows rank 0.
    engine::Workload workload;
    std::optional<Error> unreadable;
    try {
        workload = engine::loadWorkloadFile(args.workload);
        engine::applyProcessSettings(workload);
    } catch (const Error &e) {
        unreadable = e;
    }
    Job job;
    const bool jsonMode = args.progress == "json";
    std::ostream &human = jsonMode ? err : out;
    const bool lead = job.rank() == 0;
    const std::string me = "rank " + std::to_string(job.rank()) + " of " + std::to_string(job.size());
    // What every rank meets alike (the workload, its split): rank 0 says it, every rank ends with its code.
    auto failTogether = [&](const Error &e) {
        std::ostringstream quiet;
        const int code = reportError(e, "run", jsonMode, lead ? out : quiet, lead ? err : quiet);
        return code;
    };
    // What one rank meets alone (inside its run): it says so, and the job ends.
    auto failAlone = [&](const Error &e) {
        const Error named(e.kind(), me + ": " + e.what());
        job.abort(reportError(named, "run", jsonMode, out, err));
    };

    engine::RankPart part;
    engine::RunOptions options;
    // The command line's mistakes, as `run` says them (exit 2): every rank has the same arguments, so every
    // rank ends alike, and rank 0 alone says why.
    std::string usage;
    if (args.device)
        usage = "--device with --ranks: each rank runs on the GPU of its place among its machine's ranks (or the "
                "one its launcher left it)";
    if (!args.timeLimit.empty() && usage.empty()) {
        const auto limit = parseTimeLimit(args.timeLimit, &usage);
        if (limit)
            options.timeLimitNs = *limit;
    }
    if (!usage.empty()) {
        if (lead)
            err << "streamscope-cli run: " << usage << "\n";
        return ExitUsage;
    }
    try {
        if (unreadable)
            throw *unreadable;
        engine::checkRankSplit(workload, job.size());
        // Parts that cannot run alone are refused here, by rank 0 for all (each rank's part cannot tell).
        if ((args.solo || workload.solo) && engine::countSoloParts(workload) >= 2)
            engine::soloParts(workload);
        if (const auto missing = engine::missingLibraries(workload))
            throw *missing;
    } catch (const Error &e) {
        return failTogether(e);
    }

    try {
        part = engine::rankPart(workload, job.rank(), job.size(), localDevice(job));
        options.repetitions = args.repetitions.value_or(-1);
        options.warmup = args.warmup.value_or(-1);
        options.nvtx = args.nvtx;
        options.timing = engine::timingModeFromString(args.timing).value_or(engine::TimingMode::Cupti);
        options.kernelLatency = args.kernelLatency;
        options.solo = args.solo;
        options.onAbandon = [&](const Error &e) { failAlone(e); };
        options.onError = [&](const Error &e) { failAlone(e); };
        options.beforeRepetition = [&job] { job.barrier(); };
    } catch (const Error &e) {
        failAlone(e);
    }

    // The communicator's unique id: rank 0 makes it, or says why it cannot.
    if (!workload.collectiveDevices().empty()) {
        std::string id, why;
        if (lead) {
            try {
                id = engine::newCommunicatorId();
            } catch (const Error &e) {
                why = e.what();
            }
        }
        why = job.broadcast(why);
        if (!why.empty())
            return failTogether(Error(ErrorKind::Cuda, why));
        options.communicatorId = job.broadcast(id);
    }

    if (lead)
        human << "running '" << workload.name << "' as " << job.size() << " ranks (" << workload.opCount() << " ops on "
              << workload.streams.size() << " streams)...\n";
    engine::Trace trace;
    try {
        trace = engine::runWorkload(part.workload, options, {}, &cancel);
    } catch (const Error &e) {
        failAlone(e);
    } catch (const std::exception &e) {
        failAlone(Error(ErrorKind::InvalidInput, std::string("internal error: ") + e.what()));
    }

    std::optional<engine::Trace> gathered;
    try {
        gathered = gatherTraces(job, workload, std::move(trace), part.workload.device, args.measureClocks);
    } catch (const Error &e) {
        return failTogether(e);
    }
    if (!lead)
        return ExitOk;
    try {
        finishRun(*gathered, workload, args, human);
        return ExitOk;
    } catch (const Error &e) {
        return reportError(e, "run", jsonMode, out, err);
    } catch (const std::exception &e) {
        return reportInternalError(e, "run", jsonMode, out, err);
    }
}

bool ranksAvailable()
{
    return true;
}

#else // configure found no MPI

int cmdRunRanks(const RunArgs &args, const std::atomic<bool> &, std::ostream &out, std::ostream &err)
{
    return reportError(
        Error(ErrorKind::InvalidInput,
              "--ranks: this streamscope-cli was built without MPI (configure found none): install "
              "Open MPI (the Debian package libopenmpi-dev) and configure again; docs/building.md says how"),
        "run", args.progress == "json", out, err);
}

bool ranksAvailable()
{
    return false;
}

#endif

} // namespace streamscope::cli
