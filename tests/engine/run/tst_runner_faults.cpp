// The runner's faults that a process survives, on a real GPU: memory that does not fit is refused before
// anything is allocated, naming the buffer, its size and the free memory; an allocation that fails anyway
// (checked here with the pre-check off) says the same from the call that failed; managed memory is never
// asked for beyond the device's free memory, whatever the options; a kernel that never ends is refused
// without a time limit. After each, the runner works again in the same process. The faults that end a
// process (a time limit over a kernel that never ends, an illegal address) are tested through the CLI
// (tst_cli_faults) and the app (tst_run_faults). Without a usable GPU every test skips, naming why.
#include <QtTest>

#include <string>
#include <vector>

#include "engine/model/errors.h"
#include "engine/model/units.h"
#include "engine/run/runner.h"
#include "engine/workload/workload.h"

using namespace streamscope::engine;

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

OpSpec kernelOp(KernelType type = KernelType::Compute)
{
    OpSpec op;
    op.type = OpType::Kernel;
    op.kernelType = type;
    op.durationNs = 20'000;
    op.jsonPath = "/streams/0/ops/0";
    return op;
}

Workload workload(std::vector<BufferSpec> buffers, OpSpec op = kernelOp())
{
    Workload w;
    w.name = "faults";
    w.buffers = std::move(buffers);
    StreamSpec s;
    s.name = "s0";
    s.ops = {std::move(op)};
    w.streams = {s};
    w.repetitions = 1;
    w.warmup = 0;
    buildSchedule(w);
    return w;
}

QByteArray failure(const Workload &w, const RunOptions &options, ErrorKind expected)
{
    try {
        runWorkload(w, options);
    } catch (const Error &e) {
        if (e.kind() != expected)
            return "wrong kind: " + QByteArray(e.what());
        return e.what();
    }
    return "no error";
}

} // namespace

class TestRunnerFaults : public QObject {
    Q_OBJECT

private:
    std::vector<DeviceInfo> m_devices;
    QByteArray m_noGpu;

    // The runner still runs after the fault, in the same process.
    void stillRuns()
    {
        const Trace t = runWorkload(workload({{"d", BufferKind::Device, kMiB}}), {});
        QCOMPARE(t.repetitions.size(), std::size_t(1));
    }

private slots:
    void initTestCase()
    {
        try {
            m_devices = listDevices();
        } catch (const Error &e) {
            m_noGpu = e.what();
        }
    }

    void init()
    {
        if (!m_noGpu.isEmpty())
            QSKIP(m_noGpu.constData());
    }

    // Before allocating: the buffer that cannot fit is named with its size and the free memory.
    void deviceMemoryRefusedFirst()
    {
        const DeviceInfo &d = m_devices.at(0);
        const std::uint64_t huge = d.totalMemBytes + (4ull << 30);
        const QByteArray what =
            failure(workload({{"small", BufferKind::Device, kMiB}, {"huge", BufferKind::Device, huge}}), {},
                    ErrorKind::OutOfMemory);
        const QByteArray size = QByteArray::fromStdString(formatBytes(huge));
        QVERIFY2(what.contains("buffer 'huge' (device, " + size + ") does not fit in device memory")
                     && what.contains("free of") && what.contains(QByteArray::fromStdString(d.name)),
                 what.constData());
        stillRuns();
    }

    void hostMemoryRefusedFirst()
    {
        const QByteArray what =
            failure(workload({{"pinned", BufferKind::Pinned, 1ull << 50}}), {}, ErrorKind::OutOfMemory);
        QVERIFY2(what.contains("buffer 'pinned' (pinned, 1 PiB) does not fit in host memory")
                     && what.contains("available"),
                 what.constData());
        stillRuns();
    }

    // The allocation itself failing (as when something else took the memory since the check): the
    // call, the buffer and what was free, as Error{OutOfMemory}.
    void deviceAllocationFails()
    {
        const DeviceInfo &d = m_devices.at(0);
        RunOptions options;
        options.checkMemoryFirst = false;
        const std::uint64_t huge = d.totalMemBytes + (4ull << 30);
        const QByteArray what =
            failure(workload({{"huge", BufferKind::Device, huge}}), options, ErrorKind::OutOfMemory);
        QVERIFY2(what.contains("buffer 'huge' (device, ") && what.contains("cudaMalloc: cudaErrorMemoryAllocation")
                     && what.contains("free of"),
                 what.constData());
        stillRuns();
    }

    // cudaMallocHost failing: 1 PiB is beyond any host (and the driver refuses a single pinned allocation
    // of 512 GiB or more, whatever is free), so the driver refuses it at once.
    void pinnedAllocationFails()
    {
        RunOptions options;
        options.checkMemoryFirst = false;
        const QByteArray what =
            failure(workload({{"pinned", BufferKind::Pinned, 1ull << 50}}), options, ErrorKind::OutOfMemory);
        QVERIFY2(what.contains("buffer 'pinned' (pinned, 1 PiB)") && what.contains("cudaMallocHost: cudaError")
                     && what.contains("not GPU memory"),
                 what.constData());
        stillRuns();
    }

    // Managed memory beyond the device's free memory is refused before cudaMallocManaged, with the
    // pre-check on or off: oversubscribing it can hang the GPU.
    void managedNeverOversubscribed()
    {
        const DeviceInfo &d = m_devices.at(0);
        if (!d.managedMemory)
            QSKIP("device 0 has no managed memory");
        const std::uint64_t huge = d.totalMemBytes + (1ull << 30);
        for (const bool check : {true, false}) {
            RunOptions options;
            options.checkMemoryFirst = check;
            const QByteArray what =
                failure(workload({{"m", BufferKind::Managed, huge}}), options, ErrorKind::OutOfMemory);
            QVERIFY2(what.contains("managed buffers 'm' (managed, ")
                         && what.contains("never asks for more managed memory than the device has free")
                         && !what.contains("cudaMallocManaged"),
                     what.constData());
        }
        stillRuns();
    }

    // A hang kernel without a time limit would never end: refused before anything runs.
    void hangNeedsATimeLimit()
    {
        const QByteArray what = failure(workload({}, kernelOp(KernelType::Hang)), {}, ErrorKind::InvalidInput);
        QVERIFY2(what.contains("stream 's0' op 0") && what.contains("hang kernel never ends")
                     && what.contains("--time-limit"),
                 what.constData());
        stillRuns();
    }

    // A run past its time limit whose GPU work ends by itself stops at the next repetition with
    // Error{TimeLimit} and leaves the process usable: many short repetitions, a short limit. Not before
    // the limit (it counts from the call of runWorkload), and soon after it: at the next repetition of
    // 2 ms, with a guard of 4 s for a busy host.
    void timeLimitBetweenRepetitions()
    {
        Workload w = workload({}, kernelOp());
        w.streams[0].ops[0].durationNs = 2'000'000;
        w.repetitions = 1000;
        buildSchedule(w);
        RunOptions options;
        options.timeLimitNs = 1'500'000'000;
        QElapsedTimer timer;
        timer.start();
        const QByteArray what = failure(w, options, ErrorKind::TimeLimit);
        QVERIFY2(what.contains("passed its time limit of 1.5 s (the run's time limit) during repetition "), what);
        const qint64 ms = timer.elapsed();
        QVERIFY2(ms >= 1500 && ms < 4000, qPrintable(QString::number(ms) + " ms; the limit is 1.5 s"));
        stillRuns();
    }
};

QTEST_GUILESS_MAIN(TestRunnerFaults)
#include "tst_runner_faults.moc"
