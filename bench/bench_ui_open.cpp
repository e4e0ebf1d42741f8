// How long the GUI thread is held while a large trace opens: ui::TraceLoader (the app's way, on a
// thread of its own) against engine::openFile called on the GUI thread (the way it was), in the same run;
// and the whole open as the window does it (gui::MainWindow::openFileInBackground: reading, the document's
// summaries and statistics, the lanes, the panels, the first paint), to the window showing the trace.
// A 5 ms timer on the GUI thread measures the longest pause between its ticks during the open.
// Input: a Kineto-style trace of 35,000 kernels on 5 streams with their runtime calls (the size of the
// 5-stream A100 trace in ../shared/data/real-traces), generated, or --trace FILE.
// Prints a table, writes bench-results/ui_open.json (or --out FILE); exits 1 when the background open
// holds the GUI thread for more than 10 % of what the foreground open does, or the window's open holds it
// for more than 50 ms (the targets), or when an open did not load the trace (the loader failed, or opened fewer ops
// than the GUI-thread open: a loader that fails at once would read as a freeze-free open); 2 on bad usage. Usage:
// QT_QPA_PLATFORM=offscreen bench_ui_open [--out FILE] [--trace FILE] [--rounds N]
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/main_window.h"
#include "bench_common.h"
#include "engine/formats/trace_io.h"
#include "ui/document/trace_document.h"
#include "ui/document/trace_loader.h"

using namespace streamscope;

namespace {

std::string makeTrace(const QString &path)
{
    nlohmann::json events = nlohmann::json::array();
    events.push_back(
        {{"ph", "M"}, {"name", "process_name"}, {"pid", 100}, {"tid", 0}, {"args", {{"name", "python3"}}}});
    for (int i = 0; i < 35000; ++i) {
        const double ts = 1000.0 + i * 20.0;
        events.push_back({{"ph", "X"},
                          {"cat", "cuda_runtime"},
                          {"name", "cudaLaunchKernel"},
                          {"pid", 100},
                          {"tid", 101},
                          {"ts", ts},
                          {"dur", 3},
                          {"args", {{"correlation", i + 1}}}});
        events.push_back({{"ph", "X"},
                          {"cat", "kernel"},
                          {"name", "void gemm_kernel<" + std::to_string(i % 7) + ">()"},
                          {"pid", 0},
                          {"tid", 7 + i % 5},
                          {"ts", ts + 4},
                          {"dur", 15},
                          {"args", {{"device", 0}, {"stream", 7 + i % 5}, {"correlation", i + 1}}}});
    }
    const std::string text = nlohmann::json{{"schemaVersion", 1}, {"traceEvents", events}}.dump();
    engine::writeFileAtomically(path.toStdString(), text);
    return path.toStdString();
}

struct Sample {
    qint64 totalMs = 0;
    qint64 longestGapMs = 0;
    std::size_t ops = 0;
};

// Runs `start` with the timer ticking, until `done` says the open has ended.
template <typename Start, typename Done> Sample measure(Start start, Done done)
{
    Sample s;
    QElapsedTimer clock;
    qint64 last = 0;
    QTimer timer;
    timer.setTimerType(Qt::PreciseTimer);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        s.longestGapMs = std::max(s.longestGapMs, now - last);
        last = now;
    });
    clock.start();
    timer.start(5);
    start();
    while (!done()) // the 5 ms timer wakes the loop at least that often; no spinning against the loader
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    const qint64 now = clock.elapsed();
    s.longestGapMs = std::max(s.longestGapMs, now - last);
    s.totalMs = now;
    return s;
}

qint64 median(std::vector<qint64> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    // The window remembers recent files: keep the developer's settings out of it.
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("StreamScopeBench"));
    QApplication::setApplicationName(QStringLiteral("bench_ui_open"));
    QSettings().clear();
    std::string out = "bench-results/ui_open.json";
    QString tracePath;
    int rounds = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if ((a == "--out" || a == "-o") && i + 1 < argc)
            out = argv[++i];
        else if (a == "--trace" && i + 1 < argc)
            tracePath = QString::fromLocal8Bit(argv[++i]);
        else if (a == "--rounds" && i + 1 < argc)
            rounds = std::max(1, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: bench_ui_open [--out FILE] [--trace FILE] [--rounds N]\n");
            return 2;
        }
    }
    QTemporaryDir dir;
    const std::string path =
        tracePath.isEmpty() ? makeTrace(dir.filePath(QStringLiteral("kineto-35k.json"))) : tracePath.toStdString();

    std::vector<qint64> fgTotal, fgGap, bgTotal, bgGap, winTotal, winGap;
    std::size_t ops = 0;
    ui::TraceLoader loader;
    // What each background open delivered: the ops of the trace it opened, or its failure.
    std::vector<std::size_t> bgOps;
    std::vector<std::string> bgFailures, fgFailures;
    QObject::connect(&loader, &ui::TraceLoader::opened,
                     [&](int, const QString &, engine::FileKind, std::shared_ptr<const engine::Trace> trace) {
                         bgOps.push_back(trace ? trace->opCount() : 0);
                     });
    QObject::connect(&loader, &ui::TraceLoader::failed, [&](int, const QString &, const QString &message, bool) {
        bgFailures.push_back(message.toStdString());
    });
    for (int r = 0; r < rounds; ++r) {
        // Alternate which goes first, so that the page cache and clocks favour neither.
        for (int k = 0; k < 2; ++k) {
            const bool background = (r + k) % 2 == 1;
            if (!background) {
                bool finished = false;
                const Sample s = measure(
                    [&] {
                        try {
                            ops = engine::openFile(path).trace->opCount();
                        } catch (const std::exception &e) {
                            fgFailures.push_back(e.what());
                        }
                        finished = true;
                    },
                    [&] { return finished; });
                fgTotal.push_back(s.totalMs);
                fgGap.push_back(s.longestGapMs);
            } else {
                const Sample s =
                    measure([&] { loader.open(QString::fromStdString(path)); }, [&] { return !loader.isLoading(); });
                bgTotal.push_back(s.totalMs);
                bgGap.push_back(s.longestGapMs);
            }
        }
    }
    // The window's open, to the trace on screen: the loader's signal, the document and every view bound to
    // it, then 300 ms more of the event loop, so that the first paints fall inside the measurement.
    std::vector<std::size_t> winOps;
    {
        gui::MainWindow window;
        window.resize(1280, 720);
        window.show();
        QCoreApplication::processEvents();
        for (int r = 0; r < rounds; ++r) {
            window.document()->setTrace(nullptr);
            QCoreApplication::processEvents();
            QElapsedTimer since;
            bool shown = false;
            const auto connection = QObject::connect(window.document(), &ui::TraceDocument::traceChanged,
                                                     [&](const std::shared_ptr<const engine::Trace> &trace) {
                                                         if (trace) {
                                                             shown = true;
                                                             since.start();
                                                         }
                                                     });
            qint64 toShownMs = 0;
            QElapsedTimer clock;
            clock.start();
            const Sample s = measure([&] { window.openFileInBackground(QString::fromStdString(path)); },
                                     [&] {
                                         if (!shown && !window.isOpening())
                                             return true; // failed: counted below
                                         if (shown && toShownMs == 0)
                                             toShownMs = std::max<qint64>(1, clock.elapsed());
                                         return shown && since.elapsed() >= 300;
                                     });
            QObject::disconnect(connection);
            winTotal.push_back(toShownMs);
            winGap.push_back(s.longestGapMs);
            winOps.push_back(window.trace() ? window.trace()->opCount() : 0);
        }
    }
    const double ratio = double(median(bgGap)) / double(std::max<qint64>(1, median(fgGap)));
    // Every background open must have loaded what the GUI-thread open did, else its pauses measure nothing.
    std::vector<std::string> problems = bgFailures;
    problems.insert(problems.end(), fgFailures.begin(), fgFailures.end());
    if (ops == 0)
        problems.push_back("the GUI-thread open found no ops in " + path);
    if (bgOps.size() + bgFailures.size() != bgTotal.size())
        problems.push_back(std::to_string(bgTotal.size()) + " background opens gave " + std::to_string(bgOps.size())
                           + " traces and " + std::to_string(bgFailures.size()) + " failures");
    for (const std::size_t n : bgOps)
        if (n != ops)
            problems.push_back("a background open loaded " + std::to_string(n) + " ops of " + std::to_string(ops));
    for (const std::size_t n : winOps)
        if (n != ops)
            problems.push_back("the window's open showed " + std::to_string(n) + " ops of " + std::to_string(ops));
    const bool loaded = problems.empty();
    constexpr qint64 kWindowTargetMs = 50;
    const bool ratioMet = ratio <= 0.10;
    const bool windowMet = median(winGap) <= kWindowTargetMs;
    const bool met = loaded && ratioMet && windowMet;
    std::printf("bench_ui_open: %s (%zu ops), %d rounds, medians\n\n", path.c_str(), ops, rounds);
    std::printf("  %-34s %12s %22s\n", "open", "total", "GUI thread held (max)");
    std::printf("  %-34s %9lld ms %19lld ms\n", "engine::openFile on the GUI thread", (long long)median(fgTotal),
                (long long)median(fgGap));
    std::printf("  %-34s %9lld ms %19lld ms\n", "ui::TraceLoader (background)", (long long)median(bgTotal),
                (long long)median(bgGap));
    std::printf("  %-34s %9lld ms %19lld ms\n", "MainWindow: open and show", (long long)median(winTotal),
                (long long)median(winGap));
    for (const std::string &p : problems)
        std::printf("  NOT LOADED: %s\n", p.c_str());
    std::printf("\n  held: background / GUI thread = %.3f (target <= 0.10): %s\n", ratio,
                !loaded    ? "NOT JUDGED (the opens did not load the trace)"
                : ratioMet ? "met"
                           : "MISSED");
    std::printf("  window's open, GUI thread held %lld ms (target <= %lld ms): %s\n", (long long)median(winGap),
                (long long)kWindowTargetMs,
                !loaded     ? "NOT JUDGED"
                : windowMet ? "met"
                            : "MISSED");
    bench::writeResults(out, {{"benchmark", "ui_open"},
                              {"trace", path},
                              {"ops", ops},
                              {"rounds", rounds},
                              {"foreground_total_ms", median(fgTotal)},
                              {"foreground_held_ms", median(fgGap)},
                              {"background_total_ms", median(bgTotal)},
                              {"background_held_ms", median(bgGap)},
                              {"window_to_shown_ms", median(winTotal)},
                              {"window_held_ms", median(winGap)},
                              {"window_held_samples_ms", winGap},
                              {"held_ratio", ratio},
                              {"target", 0.10},
                              {"window_target_ms", kWindowTargetMs},
                              {"background_ops", bgOps},
                              {"problems", problems},
                              {"met", met}});
    return met ? 0 : 1;
}
