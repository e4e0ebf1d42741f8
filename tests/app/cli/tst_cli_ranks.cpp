// `mpirun -np 2 streamscope-cli run --ranks` on a host with two GPUs (issue #27 item 4): two processes, one
// per GPU, whose all-reduces join one NCCL communicator, and rank 0's one trace of both. Checked against
// what holds whatever StreamScope does:
//  - both processes run on one machine, whose clock they share: the offset the round trips measured is 0
//    to within the half round trip they say (Cristian's bound), and the trace says the clock is the same;
//  - an all-reduce ends on both GPUs nearly at once (each waits for the other's data): on the merged trace's
//    one time axis the gap between the two ranks' ends is that of one process driving both GPUs (one clock,
//    nothing merged) to within 10 us (the median), and never over 50 us, which a wrong clock or origin breaks;
//  - the bus bandwidth is that of the same all-reduces run by one process driving both GPUs (within 30 %),
//    and never above the link's peak.
// Skips, saying why, without two GPUs, without mpirun, or where this CLI was built without MPI or NCCL.
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "engine/formats/native_format.h"
#include "engine/model/trace.h"
#include "tests/app/cli/cli_process.h"

using namespace streamscope;
using namespace streamscope::engine;

namespace {

const char *kWorkload = R"({
  "version": 2, "name": "two ranks", "warmup": 2, "repetitions": 3,
  "streams": [
    {"name": "gpu0 compute", "device": 0, "part": "compute", "ops": [{"op": "kernel", "duration": "2 ms", "blocks": 8}]},
    {"name": "gpu0 comm", "device": 0, "part": "comm", "ops": [{"op": "collective", "type": "allreduce", "bytes": "256 MiB", "repeat": 3}]},
    {"name": "gpu1 compute", "device": 1, "part": "compute", "ops": [{"op": "kernel", "duration": "2 ms", "blocks": 8}]},
    {"name": "gpu1 comm", "device": 1, "part": "comm", "ops": [{"op": "collective", "type": "allreduce", "bytes": "256 MiB", "repeat": 3}]}
  ],
  "threads": [{"name": "t0", "device": 0, "streams": ["gpu0 compute", "gpu0 comm"]},
              {"name": "t1", "device": 1, "streams": ["gpu1 compute", "gpu1 comm"]}]
})";

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// The all-reduces' bus bandwidth (GB/s, median) and the widest gap between the two GPUs' ends of one.
struct AllReduces {
    double busGbps = 0;
    std::int64_t worstEndGapNs = 0;
    double medianEndGapNs = 0;
    int count = 0;
};

AllReduces allReduces(const Trace &t)
{
    AllReduces a;
    std::vector<double> bus, gaps;
    for (const Repetition &rep : t.repetitions) {
        std::vector<const OpRecord *> perGpu[2];
        for (std::size_t i = 0; i < rep.ops.size(); ++i) {
            const OpRecord &r = rep.ops[i];
            if (r.kind != OpKind::Collective || !r.hasGpu())
                continue;
            if (const KernelLaunch *l = rep.launchOf(int(i)))
                bus.push_back(l->busGbPerSecond(r.gpuDurationNs()));
            perGpu[std::clamp(t.streams.at(std::size_t(r.stream)).device, 0, 1)].push_back(&r);
        }
        for (std::size_t k = 0; k < std::min(perGpu[0].size(), perGpu[1].size()); ++k) {
            const std::int64_t gap = std::abs(perGpu[0][k]->gpuEndNs - perGpu[1][k]->gpuEndNs);
            a.worstEndGapNs = std::max(a.worstEndGapNs, gap);
            gaps.push_back(double(gap));
        }
        a.count += int(perGpu[0].size() + perGpu[1].size());
    }
    a.busGbps = median(bus);
    a.medianEndGapNs = median(gaps);
    return a;
}

// mpirun, or an empty string with why there is none (a CLI built without MPI, no mpirun on the PATH).
QString findMpirun(QString &whyNot)
{
#ifndef STREAMSCOPE_HAVE_MPI
    whyNot = QStringLiteral("this streamscope-cli was built without MPI (configure found no libopenmpi-dev)");
    return {};
#else
    const QString mpirun = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
    if (mpirun.isEmpty())
        whyNot = QStringLiteral("no mpirun on the PATH (Open MPI's openmpi-bin)");
    return mpirun;
#endif
}

// mpirun's arguments for `streamscope-cli run --ranks` as two processes, then `more` (as root, with its consent).
QStringList twoRanks(const QStringList &more)
{
    QStringList args;
    if (geteuid() == 0)
        args << "--allow-run-as-root";
    args << "-np"
         << "2" << test::cliPath() << "run"
         << "--ranks" << more;
    return args;
}

} // namespace

class TestCliRanks : public QObject {
    Q_OBJECT

private slots:
    // The command line's mistakes end `run --ranks` as they end `run`: exit 2, said once (by rank 0), before
    // any GPU is touched. Needs no GPU.
    void commandLineMistakesExitTwo()
    {
        QString whyNot;
        const QString mpirun = findMpirun(whyNot);
        if (mpirun.isEmpty())
            QSKIP(qPrintable(whyNot));
        const std::filesystem::path dir = std::filesystem::temp_directory_path() / "streamscope-ranks-usage";
        std::filesystem::create_directories(dir);
        const QString workload = QString::fromStdString((dir / "two-ranks.json").string());
        std::ofstream(workload.toStdString()) << kWorkload;
        for (const QStringList &mistake : {QStringList{"--time-limit", "5"}, QStringList{"--device", "1"}}) {
            const QStringList args = twoRanks(QStringList{workload} << mistake);
            QProcess job;
            // Under the sanitizer build LeakSanitizer reports Open MPI's own allocations (MPI_Init's components,
            // loaded and unloaded again) as leaks and changes the exit code: not this command's, so not checked.
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            if (env.contains(QStringLiteral("ASAN_OPTIONS")))
                env.insert(QStringLiteral("ASAN_OPTIONS"),
                           env.value(QStringLiteral("ASAN_OPTIONS")) + QStringLiteral(":detect_leaks=0"));
            job.setProcessEnvironment(env);
            job.start(mpirun, args);
            QVERIFY2(job.waitForFinished(120'000), "mpirun did not end within 2 minutes");
            const QString err = QString::fromUtf8(job.readAllStandardError());
            if (!err.contains(QStringLiteral("streamscope-cli")))
                QSKIP(qPrintable("mpirun could not start the two processes here: " + err.left(600)));
            QVERIFY2(job.exitCode() == 2,
                     qPrintable(mistake.join(' ') + ": exit " + QString::number(job.exitCode()) + "\n" + err));
            QCOMPARE(err.count(QStringLiteral("streamscope-cli run: ") + mistake.first()), 1);
        }
    }

    void twoProcessesMakeOneTrace()
    {
        QString whyNot;
        const QString mpirun = findMpirun(whyNot);
        if (mpirun.isEmpty())
            QSKIP(qPrintable(whyNot));
        const test::CliResult devices = test::runCli({"devices", "--json"}, 60'000);
        if (devices.code != 0)
            QSKIP(qPrintable("no GPU: " + devices.err.trimmed()));
        const nlohmann::json topology = nlohmann::json::parse(devices.out.toStdString());
        if (topology.at("devices").size() < 2)
            QSKIP(qPrintable(QStringLiteral("needs 2 GPUs; this host has %1").arg(topology.at("devices").size())));
        double peak = 0;
        for (const auto &l : topology.at("peer_links"))
            if (l.at("src") == 0 && l.at("dst") == 1)
                peak = l.at("peak_gbps").get<double>();

        const std::filesystem::path dir = std::filesystem::temp_directory_path() / "streamscope-ranks-test";
        std::filesystem::create_directories(dir);
        const QString workload = QString::fromStdString((dir / "two-ranks.json").string());
        const QString ranked = QString::fromStdString((dir / "ranks.sstrace").string());
        const QString single = QString::fromStdString((dir / "one-process.sstrace").string());
        std::ofstream(workload.toStdString()) << kWorkload;

        const QStringList args = twoRanks({"--solo", workload, "-o", ranked, "--ops", "0"});
        QProcess job;
        job.setWorkingDirectory(test::sourceDir());
        job.start(mpirun, args);
        QVERIFY2(job.waitForFinished(240'000), "mpirun did not end within 4 minutes");
        const QString out = QString::fromUtf8(job.readAllStandardOutput());
        const QString err = QString::fromUtf8(job.readAllStandardError());
        if (err.contains("could not be loaded") || err.contains("built without NCCL"))
            QSKIP(qPrintable("no NCCL here: " + err.trimmed()));
        QVERIFY2(job.exitStatus() == QProcess::NormalExit && job.exitCode() == 0, qPrintable(out + err));
        qInfo("%s", qPrintable(out.left(1200)));

        const Trace t = readNativeTrace(ranked.toStdString());
        QCOMPARE(t.devices.size(), std::size_t(2));
        QCOMPARE(t.streams.size(), std::size_t(4));
        for (std::size_t s = 0; s < 4; ++s)
            QCOMPARE(t.streams[s].device, int(s / 2));
        QCOMPARE(t.hostThreads.size(), std::size_t(2));
        QVERIFY(t.hostThreads[0].processId > 0 && t.hostThreads[1].processId > 0);
        QVERIFY(t.hostThreads[0].processId != t.hostThreads[1].processId);
        QVERIFY2(t.metadata.at("ranks").rfind("2 processes: rank 0 on ", 0) == 0, t.metadata.at("ranks").c_str());
        QCOMPARE(t.repetitions.size(), std::size_t(3));

        // One machine, one clock: what the round trips measured is 0 within their own bound.
        const std::string clock = t.metadata.at("rank1.clock");
        QVERIFY2(clock.rfind("the same clock as rank 0", 0) == 0, clock.c_str());
        long long measured = 0, bound = 0;
        QVERIFY2(std::sscanf(clock.c_str(),
                             "the same clock as rank 0 (one boot id); %*d round trips measured %lld ns "
                             "+- %lld ns",
                             &measured, &bound)
                     == 2,
                 clock.c_str());
        qInfo("rank 1's clock: %s", clock.c_str());
        QVERIFY2(std::llabs(measured) <= bound, clock.c_str());
        QVERIFY2(bound < 100'000, clock.c_str());

        // Solo baselines: after each repetition each part alone, on both GPUs at once.
        QCOMPARE(t.solo.parts, (std::vector<std::string>{"compute", "comm"}));
        QCOMPARE(t.solo.runs.size(), std::size_t(3 * 2));
        for (const SoloRun &run : t.solo.runs) {
            QCOMPARE(run.ops.size(), std::size_t(run.part == 0 ? 2 : 6));
            int onGpu1 = 0;
            for (const OpRecord &op : run.ops) {
                QVERIFY(op.hasGpu());
                onGpu1 += t.streams.at(std::size_t(op.stream)).device;
            }
            QCOMPARE(onGpu1, int(run.ops.size() / 2));
        }

        const AllReduces ranks = allReduces(t);
        QCOMPARE(ranks.count, 3 * 6);
        qInfo("two processes: all-reduce 256 MiB bus bandwidth %.1f GB/s (median), ends at most %lld ns apart",
              ranks.busGbps, static_cast<long long>(ranks.worstEndGapNs));
        QVERIFY2(ranks.worstEndGapNs <= 50'000, qPrintable(QStringLiteral("%1 ns").arg(ranks.worstEndGapNs)));

        // The same workload in one process driving both GPUs.
        const test::CliResult one = test::runCli({"run", "--solo", workload, "-o", single, "--ops", "0"}, 240'000);
        QVERIFY2(one.code == 0, qPrintable(one.err));
        const AllReduces process = allReduces(readNativeTrace(single.toStdString()));
        qInfo("one process: %.1f GB/s, ends at most %lld ns apart; the link's peak %.0f GB/s", process.busGbps,
              static_cast<long long>(process.worstEndGapNs), peak);
        // The ends' gap is the hardware's where nothing is merged (one process, one clock): the merged trace's
        // must be the same to within issue #27's 10 us (bench_ranks: -0.2 and +0.3 us over five rounds; a merge
        // that moved rank 1 by the ranks' first anchors' difference was 15 us off).
        qInfo("median gap between the GPUs' ends: %.2f us in two processes, %.2f us in one", ranks.medianEndGapNs / 1e3,
              process.medianEndGapNs / 1e3);
        QVERIFY2(std::abs(ranks.medianEndGapNs - process.medianEndGapNs) < 10'000,
                 qPrintable(QStringLiteral("%1 us against %2 us")
                                .arg(ranks.medianEndGapNs / 1e3)
                                .arg(process.medianEndGapNs / 1e3)));
        QVERIFY2(
            ranks.busGbps >= 0.7 * process.busGbps && ranks.busGbps <= 1.3 * process.busGbps,
            qPrintable(QStringLiteral("%1 GB/s in two processes, %2 in one").arg(ranks.busGbps).arg(process.busGbps)));
        if (peak > 0)
            QVERIFY2(ranks.busGbps <= 1.02 * peak,
                     qPrintable(QStringLiteral("%1 GB/s above the link's %2").arg(ranks.busGbps).arg(peak)));
        std::filesystem::remove_all(dir);
    }
};

QTEST_GUILESS_MAIN(TestCliRanks)
#include "tst_cli_ranks.moc"
