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
        QTimer::singleShot(300, &window, [&window, &options] {
            const bool ok = window.grab().save(options.screenshotPath);
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
