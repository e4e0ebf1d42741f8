// streamscope: the desktop app's entry point. Parses the command line, renders headlessly for
// --export-image, otherwise shows the main window.
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QTemporaryFile>
#include <QTimer>

#include <cstdio>
#include <functional>

#include "app/gui/app_options.h"
#include "app/gui/headless_export.h"
#include "app/gui/main_window.h"
#include "app/gui/theme.h"
#include "engine/run/cli_protocol.h"
#include "engine/util/interrupt.h"
#include "ui/run/experiment_dialog.h"
#include "ui/run/run_controller.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

namespace {

// --export-image must work over ssh on a GPU server: without a display, use the offscreen platform
// instead of failing to connect to one.
void chooseHeadlessPlatform(int argc, char **argv)
{
    bool exporting = false;
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        exporting = exporting || arg == "--export-image" || arg.startsWith("--export-image=") || arg == "--help"
                    || arg == "-h" || arg == "--version" || arg == "-v";
    }
    if (exporting && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")
        && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

// --screenshot or --export-image on the offscreen platform (documentation, tests, the plain launch saved
// as an image): the screen is the size asked for, so that the window is laid out as on a real screen of
// that size (presentation mode fills it, the first window fits in it). The offscreen platform reads its
// screens from a JSON file named in QT_QPA_PLATFORM.
void screenOfScreenshotSize(int argc, char **argv, QTemporaryFile &config)
{
    QByteArray size = "1920x1080";
    bool screenshot = false;
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        screenshot = screenshot || arg == "--screenshot" || arg.startsWith("--screenshot=") || arg == "--export-image"
                     || arg.startsWith("--export-image=");
        if (arg == "--size" && i + 1 < argc)
            size = argv[i + 1];
        else if (arg.startsWith("--size="))
            size = arg.mid(7);
    }
    const QSize parsed = streamscope::gui::parseSize(QString::fromLatin1(size));
    if (!screenshot || !parsed.isValid() || qgetenv("QT_QPA_PLATFORM") != "offscreen" || !config.open())
        return;
    config.write(QStringLiteral(R"({"synchronousWindowSystemEvents": true, "windowFrameMargins": false, )"
                                R"("screens": [{"name": "screenshot", "x": 0, "y": 0, "width": %1, "height": %2, )"
                                R"("logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})")
                     .arg(parsed.width())
                     .arg(parsed.height())
                     .toUtf8());
    config.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + QFile::encodeName(config.fileName()));
}

using streamscope::gui::applyTheme;
using streamscope::gui::AppOptions;
using streamscope::gui::MainWindow;
using streamscope::gui::Theme;
using streamscope::ui::RunController;

// What a screenshot shows: the comparison window when one was opened, else the main window.
QWidget *shownWindow(MainWindow &window)
{
    return window.lastComparison() ? static_cast<QWidget *>(window.lastComparison()) : static_cast<QWidget *>(&window);
}

// --run and --compare: check the GPU, then `start` as the button does; `finish` learns whether it ran,
// from the end of the child or from a start that was refused (no GPU, an invalid workload).
int startAtOnce(QApplication &app, MainWindow &window, const AppOptions &options, std::function<bool()> start,
                std::function<void(bool)> finish)
{
    RunController *runner = window.runController();
    QObject::connect(
        runner, &RunController::devicesChecked, &window,
        [&window, start, finish](bool usable, const QString &message) {
            if (!usable)
                std::fprintf(stderr, "streamscope: no usable GPU: %s\n", qPrintable(message));
            QTimer::singleShot(0, &window, [start, finish] {
                if (!start())
                    finish(false);
            });
        },
        Qt::SingleShotConnection);
    QObject::connect(runner, &RunController::runFinished, &window, [finish] { finish(true); });
    QObject::connect(runner, &RunController::runFailed, &window, [finish] { finish(false); });
    if (!options.screenshotPath.isEmpty())
        window.resize(options.size);
    window.show(); // the workload was opened (and waited for) before
    window.checkGpu();
    return app.exec();
}

// No trace: what a plain launch shows, saved and done (README's first command, proven on a clean
// machine): the window, the GPU check, and without a GPU its banner and the example traces.
int exportWindowImage(QApplication &app, const AppOptions &options)
{
    MainWindow window;
    if (options.dark)
        window.setDarkTheme(true);
    else
        applyTheme(window.darkTheme() ? Theme::Dark : Theme::Light);
    window.resize(options.size);
    window.show();
    if (options.presentation)
        window.setPresentationMode(true);
    QObject::connect(
        window.runController(), &RunController::devicesChecked, &window,
        [&window, &options] {
            // After MainWindow's own handler has started opening an example: once it is shown (the
            // open runs in the background), and a moment for the window to lay it out.
            auto *poll = new QTimer(&window);
            poll->start(50);
            QObject::connect(poll, &QTimer::timeout, &window, [&window, &options, poll] {
                if (window.isOpening())
                    return;
                poll->stop();
                poll->deleteLater();
                QTimer::singleShot(500, &window, [&window, &options] {
                    const bool ok = window.grab().save(options.exportImagePath);
                    std::fprintf(stderr, "streamscope: %s %s (%s)\n", ok ? "wrote" : "could not write",
                                 qPrintable(options.exportImagePath),
                                 window.bannerText().isEmpty()
                                     ? "GPU usable"
                                     : qPrintable(window.bannerText().section(QLatin1Char('\n'), 0, 0)));
                    QApplication::exit(ok ? 0 : 4);
                });
            });
        },
        Qt::QueuedConnection);
    window.checkGpu();
    return app.exec();
}

int compareAtOnce(QApplication &app, MainWindow &window, const AppOptions &options)
{
    // The lesson's comparison from the GUI, as a user starts it: the experiment dialog (its answers are
    // the workload's own axes, accepted as shown), progress, then the comparison window. With
    // --screenshot, the dialog goes to NAME-dialog.png, the comparison window to NAME.png and the
    // comparison to NAME.sscompare.
    window.setExperimentQuestion([&options](streamscope::ui::ExperimentDialog &dialog) {
        std::fprintf(stderr, "streamscope: comparing %s\n", qPrintable(dialog.varyOptions().join(QLatin1Char(' '))));
        if (!options.screenshotPath.isEmpty()) {
            const QFileInfo shot(options.screenshotPath);
            dialog.show();
            const QString suffix = shot.suffix().isEmpty() ? QString() : QLatin1Char('.') + shot.suffix();
            dialog.grab().save(shot.dir().filePath(shot.completeBaseName() + QStringLiteral("-dialog") + suffix));
            dialog.hide();
        }
        return true;
    });
    if (!options.screenshotPath.isEmpty()) {
        // Queued: the main window opens the comparison window on the same signal first.
        QObject::connect(
            window.runController(), &RunController::runFinished, &window,
            [&window, &options] {
                if (window.lastComparison())
                    window.lastComparison()->resize(options.size);
            },
            Qt::QueuedConnection);
    }
    auto finish = [&window, &options](bool ran) {
        QTimer::singleShot(1000, &window, [&window, &options, ran] {
            bool ok = true;
            if (!options.screenshotPath.isEmpty()) {
                ok = shownWindow(window)->grab().save(options.screenshotPath);
                std::fprintf(stderr, "streamscope: comparison %s; %s %s\n", ran ? "finished" : "failed",
                             ok ? "wrote" : "could not write", qPrintable(options.screenshotPath));
                // The comparison itself beside the screenshot (File > Save comparison as, done for the user).
                if (window.lastComparison()) {
                    const QFileInfo shot(options.screenshotPath);
                    const QString saved = shot.dir().filePath(shot.completeBaseName() + QStringLiteral(".sscompare"));
                    QString error;
                    const bool savedOk = window.lastComparison()->saveAs(saved, &error);
                    std::fprintf(stderr, "streamscope: %s %s\n", savedOk ? "saved" : "could not save",
                                 qPrintable(savedOk ? saved : error));
                    ok = ok && savedOk;
                }
            }
            if (!ran)
                std::fprintf(stderr, "streamscope: %s\n", qPrintable(window.lastError()));
            if (!options.screenshotPath.isEmpty() || !ran)
                QApplication::exit(ok && ran ? 0 : 4);
        });
    };
    return startAtOnce(
        app, window, options, [&window] { return window.compareWorkload(); }, finish);
}

int runAtOnce(QApplication &app, MainWindow &window, const AppOptions &options)
{
    // Run the workload through streamscope-cli as the Run button does, and with --screenshot grab the
    // window once the run has ended (a demo, or a record of a real run).
    auto finish = [&window, &options](bool ran) {
        if (options.screenshotPath.isEmpty())
            return;
        QTimer::singleShot(800, &window, [&window, &options, ran] {
            const bool ok = window.grab().save(options.screenshotPath);
            std::fprintf(stderr, "streamscope: run %s; %s %s\n", ran ? "finished" : "failed",
                         ok ? "wrote" : "could not write", qPrintable(options.screenshotPath));
            QApplication::exit(ok && ran ? 0 : 4);
        });
    };
    return startAtOnce(
        app, window, options, [&window] { return window.runWorkload(); }, finish);
}

} // namespace

int main(int argc, char **argv)
{
    chooseHeadlessPlatform(argc, argv);
    QTemporaryFile screenConfig(QDir::tempPath() + QStringLiteral("/streamscope-screen-XXXXXX.json"));
    screenOfScreenshotSize(argc, argv, screenConfig);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("StreamScope"));
    QApplication::setApplicationName(QStringLiteral("StreamScope"));
    QApplication::setApplicationVersion(QStringLiteral(STREAMSCOPE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("streamscope"));

    using namespace streamscope::gui;
    AppOptions options;
    QString error;
    if (!parseAppOptions(QApplication::arguments(), options, &error)) {
        std::fprintf(stderr, "streamscope: %s\nTry 'streamscope --help'.\n", qPrintable(error));
        return streamscope::engine::protocol::ExitUsage;
    }
    if (options.helpShown)
        return streamscope::engine::protocol::ExitOk;
    if (!options.exportImagePath.isEmpty() && !options.tracePath.isEmpty()) {
        // As streamscope-cli: Ctrl-C and SIGTERM stop the load with exit 130 (engine/util/interrupt.h).
        streamscope::engine::installInterruptHandlers(streamscope::engine::InterruptMode::Cooperative);
        const int code = exportImageHeadless(options);
        streamscope::engine::interruptibleWorkDone();
        return code != 0 && streamscope::engine::interrupted() ? streamscope::engine::protocol::ExitCancelled : code;
    }
    // The window: a signal still ends it as before, but first removes the temporary files of saves in
    // progress (a workload, a range's CSV).
    streamscope::engine::installInterruptHandlers(streamscope::engine::InterruptMode::CleanUpAndDie);

    if (!options.exportImagePath.isEmpty())
        return exportWindowImage(app, options);

    MainWindow window;
    if (options.dark)
        window.setDarkTheme(true);
    else
        applyTheme(window.darkTheme() ? Theme::Dark : Theme::Light);
    // Scripted launches (a repetition or op to show, a run, a comparison, a screenshot) need the file
    // before they go on: they wait for it. A plain launch shows the window first and opens the file in
    // the background, with its progress in the status bar.
    const bool scripted = options.repetition >= 0 || options.selectOp >= 0 || options.compare || options.run
                          || !options.screenshotPath.isEmpty() || options.windowStartNs >= 0;
    if (options.projectNvtx)
        window.setProjectNvtx(true);
    if (!options.tracePath.isEmpty() && scripted)
        window.openFile(options.tracePath);
    if (options.repetition >= 0)
        window.setRepetition(options.repetition);
    if (options.windowStartNs >= 0)
        window.timeline()->zoom()->setWindow(options.windowStartNs, options.windowEndNs);
    if (options.selectOp >= 0)
        window.selectOp(options.selectOp);
    if (options.presentation)
        window.setPresentationMode(true);

    if (options.compare)
        return compareAtOnce(app, window, options);
    if (options.run)
        return runAtOnce(app, window, options);
    if (!options.screenshotPath.isEmpty()) {
        // Documentation screenshots: a fixed size, no GPU check (its banner would depend on the machine).
        window.resize(options.size);
        window.show();
        // A comparison file opens in its own window: that window is the one to grab.
        if (window.lastComparison())
            window.lastComparison()->resize(options.size);
        QTimer::singleShot(300, &window, [&window, &options] {
            const bool ok = shownWindow(window)->grab().save(options.screenshotPath);
            std::fprintf(stderr, "streamscope: %s %s\n", ok ? "wrote" : "could not write",
                         qPrintable(options.screenshotPath));
            QApplication::exit(ok ? 0 : 4);
        });
        return app.exec();
    }
    window.show();
    if (!options.tracePath.isEmpty())
        window.openFileInBackground(options.tracePath);
    window.checkGpu();
    return app.exec();
}
