// streamscope: the desktop app's entry point. Parses the command line, renders headlessly for
// --export-image, otherwise shows the main window.
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include <cstdio>

#include "app/gui/app_options.h"
#include "app/gui/headless_export.h"
#include "app/gui/main_window.h"
#include "app/gui/theme.h"
#include "ui/experiment_dialog.h"
#include "ui/run_controller.h"

namespace {

// --export-image must work over ssh on a GPU server: without a display, use the offscreen platform
// instead of failing to connect to one.
void chooseHeadlessPlatform(int argc, char **argv)
{
    bool exporting = false;
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        exporting = exporting || arg == "--export-image" || arg.startsWith("--export-image=")
            || arg == "--help" || arg == "-h" || arg == "--version" || arg == "-v";
    }
    if (exporting && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY")
        && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

} // namespace

int main(int argc, char **argv)
{
    chooseHeadlessPlatform(argc, argv);
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
        return 2;
    }
    if (options.helpShown)
        return 0;
    if (!options.exportImagePath.isEmpty())
        return exportImageHeadless(options);

    MainWindow window;
    if (options.dark)
        window.setDarkTheme(true);
    else
        applyTheme(window.darkTheme() ? Theme::Dark : Theme::Light);
    if (!options.tracePath.isEmpty())
        window.openFile(options.tracePath);
    if (options.repetition >= 0)
        window.setRepetition(options.repetition);
    if (options.presentation)
        window.setPresentationMode(true);

    if (options.compare) {
        // The lesson's comparison from the GUI, as a user starts it: the experiment dialog (its answers are
        // the workload's own axes, accepted as shown), progress, then the comparison window. With
        // --screenshot, the dialog goes to NAME-dialog.png and the comparison window to NAME.png.
        auto *runner = window.findChild<streamscope::ui::RunController *>();
        window.setExperimentQuestion([&options](streamscope::ui::ExperimentDialog &dialog) {
            std::fprintf(stderr, "streamscope: comparing %s\n", qPrintable(dialog.varyOptions().join(QLatin1Char(' '))));
            if (!options.screenshotPath.isEmpty()) {
                dialog.show();
                QString path = options.screenshotPath;
                path.insert(path.lastIndexOf(QLatin1Char('.')) < 0 ? path.size() : path.lastIndexOf(QLatin1Char('.')),
                            QStringLiteral("-dialog"));
                dialog.grab().save(path);
                dialog.hide();
            }
            return true;
        });
        auto finish = [&window, &options](bool ran) {
            QTimer::singleShot(1000, &window, [&window, &options, ran] {
                bool ok = true;
                if (!options.screenshotPath.isEmpty()) {
                    QWidget *shown = window.lastComparison() ? static_cast<QWidget *>(window.lastComparison())
                                                             : static_cast<QWidget *>(&window);
                    ok = shown->grab().save(options.screenshotPath);
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
        QObject::connect(runner, &streamscope::ui::RunController::devicesChecked, &window,
                         [&window, finish](bool usable, const QString &message) {
                             if (!usable)
                                 std::fprintf(stderr, "streamscope: no usable GPU: %s\n", qPrintable(message));
                             QTimer::singleShot(0, &window, [&window, finish] {
                                 if (!window.compareWorkload())
                                     finish(false);
                             });
                         }, Qt::SingleShotConnection);
        QObject::connect(runner, &streamscope::ui::RunController::runFinished, &window, [finish] { finish(true); });
        QObject::connect(runner, &streamscope::ui::RunController::runFailed, &window, [finish] { finish(false); });
        if (!options.screenshotPath.isEmpty()) {
            window.resize(options.size);
            // Queued: the main window opens the comparison window on the same signal first.
            QObject::connect(runner, &streamscope::ui::RunController::runFinished, &window, [&window, &options] {
                if (window.lastComparison())
                    window.lastComparison()->resize(options.size);
            }, Qt::QueuedConnection);
        }
        window.show();
        window.checkGpu();
        return app.exec();
    }
    if (options.run) {
        // Check the GPU, run the workload through streamscope-cli as the Run button does, and with
        // --screenshot grab the window once the run has ended (a demo, or a record of a real run).
        auto *runner = window.findChild<streamscope::ui::RunController *>();
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
        QObject::connect(runner, &streamscope::ui::RunController::devicesChecked, &window,
                         [&window, finish](bool usable, const QString &message) {
                             if (!usable)
                                 std::fprintf(stderr, "streamscope: no usable GPU: %s\n", qPrintable(message));
                             QTimer::singleShot(0, &window, [&window, finish] {
                                 if (!window.runWorkload())
                                     finish(false);
                             });
                         }, Qt::SingleShotConnection);
        QObject::connect(runner, &streamscope::ui::RunController::runFinished, &window, [finish] { finish(true); });
        QObject::connect(runner, &streamscope::ui::RunController::runFailed, &window, [finish] { finish(false); });
        if (!options.screenshotPath.isEmpty())
            window.resize(options.size);
        window.show();
        window.checkGpu();
        return app.exec();
    }
    if (!options.screenshotPath.isEmpty()) {
        // Documentation screenshots: a fixed size, no GPU check (its banner would depend on the machine).
        window.resize(options.size);
        window.show();
        // A comparison file opens in its own window: that window is the one to grab.
        if (window.lastComparison())
            window.lastComparison()->resize(options.size);
        QTimer::singleShot(300, &window, [&window, &options] {
            QWidget *shown = window.lastComparison() ? static_cast<QWidget *>(window.lastComparison())
                                                     : static_cast<QWidget *>(&window);
            const bool ok = shown->grab().save(options.screenshotPath);
            std::fprintf(stderr, "streamscope: %s %s\n", ok ? "wrote" : "could not write",
                         qPrintable(options.screenshotPath));
            QApplication::exit(ok ? 0 : 4);
        });
        return app.exec();
    }
    window.show();
    window.checkGpu();
    return app.exec();
}
