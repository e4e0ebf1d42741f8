// AppOptions: command-line parsing for `streamscope`, kept apart from main() so it is testable.
#include "app/gui/app_options.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QRegularExpression>

#include <cstdio>
#include <optional>

#include "engine/model/units.h"

namespace streamscope::gui {

QSize parseSize(const QString &text)
{
    static const QRegularExpression pattern(QStringLiteral("^(\\d{1,5})[xX×](\\d{1,5})$"));
    const QRegularExpressionMatch match = pattern.match(text.trimmed());
    if (!match.hasMatch())
        return {};
    const int w = match.captured(1).toInt();
    const int h = match.captured(2).toInt();
    if (w < 64 || h < 64 || w > 16384 || h > 16384)
        return {};
    return {w, h};
}

namespace {

// Every option of the command line, declared on the parser.
void declareOptions(QCommandLineParser &parser)
{
    parser.setApplicationDescription(QCoreApplication::translate(
        "main", "StreamScope: see what CUDA streams really do. Opens traces recorded by streamscope-cli, "
                "Nsight Systems SQLite exports and Chrome trace JSON; runs workloads through streamscope-cli."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QCoreApplication::translate("main",
                                                             "A trace to open (or a workload .json to edit, or a "
                                                             "comparison .sscompare)."),
                                 QStringLiteral("[file]"));
    const QCommandLineOption exportImage(
        QStringLiteral("export-image"),
        QCoreApplication::translate("main", "Render the trace's timeline to an image (.png or .svg) without "
                                            "showing a window, then exit; a comparison (.sscompare) as its window "
                                            "shows it. Without a trace: the main window as it opens (the GPU "
                                            "check, and without a GPU the bundled example traces), saved as a PNG."),
        QStringLiteral("out.png"));
    const QCommandLineOption size(
        QStringLiteral("size"),
        QCoreApplication::translate("main", "Image size for --export-image (default 1920x1080); text and lines "
                                            "grow with it (laid out as at 1280x720, larger images scaled up)."),
        QStringLiteral("WxH"));
    const QCommandLineOption presentation(
        QStringLiteral("presentation"),
        QCoreApplication::translate("main", "Presentation mode: larger fonts and lanes, high contrast."));
    const QCommandLineOption repetition(
        QStringLiteral("repetition"),
        QCoreApplication::translate("main", "Show repetition N (1-based; default: the median one)."),
        QStringLiteral("N"));
    const QCommandLineOption dark(QStringLiteral("dark"), QCoreApplication::translate("main", "Use the dark palette."));
    const QCommandLineOption transparent(
        QStringLiteral("transparent"),
        QCoreApplication::translate("main", "With --export-image: leave the image's background transparent (for "
                                            "slides of any colour)."));
    QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Grab the window into a PNG and exit."),
                                  QStringLiteral("out.png"));
    screenshot.setFlags(QCommandLineOption::HiddenFromHelp);
    QCommandLineOption select(QStringLiteral("select"), QStringLiteral("Select op N of the repetition shown."),
                              QStringLiteral("N"));
    select.setFlags(QCommandLineOption::HiddenFromHelp);
    const QCommandLineOption run(
        QStringLiteral("run"),
        QCoreApplication::translate("main", "Run the workload file given at once (needs a GPU); with --screenshot, "
                                            "grab the window when the run has finished."));
    const QCommandLineOption compare(
        QStringLiteral("compare"),
        QCoreApplication::translate("main", "Run the workload file's own comparison (its \"compare\" axes) at once, "
                                            "as Run > Compare variants does (needs a GPU); the result opens in a "
                                            "comparison window."));
    const QCommandLineOption projectNvtx(
        QStringLiteral("project-nvtx"),
        QCoreApplication::translate("main", "Project NVTX ranges onto the GPU lanes (as View > Project NVTX onto "
                                            "GPU lanes): a row above each stream with the range each op was "
                                            "launched in."));
    const QCommandLineOption window(
        QStringLiteral("window"),
        QCoreApplication::translate("main", "Show this part of the repetition, e.g. 120ms..135ms (from the start "
                                            "of the repetition; units ns, us, ms, s), for --export-image and "
                                            "the window."),
        QStringLiteral("FROM..TO"));
    parser.addOptions({exportImage, size, presentation, repetition, dark, transparent, screenshot, select, run, compare,
                       projectNvtx, window});
}

// --window FROM..TO.
bool readWindow(const QString &text, AppOptions &options, QString *error)
{
    const qsizetype dots = text.indexOf(QStringLiteral(".."));
    std::optional<std::int64_t> from, to;
    if (dots > 0) {
        from = engine::parseDuration(text.left(dots).trimmed().toStdString());
        to = engine::parseDuration(text.mid(dots + 2).trimmed().toStdString());
    }
    if (!from || !to || *to <= *from) {
        if (error)
            *error = QCoreApplication::translate("main", "--window: \"%1\" is not a window like 120ms..135ms "
                                                         "(a start before an end; units ns, us, ms, s).")
                         .arg(text);
        return false;
    }
    options.windowStartNs = *from;
    options.windowEndNs = *to;
    return true;
}

// What the parsed command line says, checked.
bool readOptions(const QCommandLineParser &parser, AppOptions &options, QString *error)
{
    const auto value = [&parser](const char *name) { return parser.value(QLatin1String(name)); };
    const auto isSet = [&parser](const char *name) { return parser.isSet(QLatin1String(name)); };
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) {
        if (error)
            *error = QCoreApplication::translate("main", "Only one file can be opened at a time (got %1).")
                         .arg(positional.size());
        return false;
    }
    if (!positional.isEmpty())
        options.tracePath = positional.first();
    options.exportImagePath = value("export-image");
    options.screenshotPath = value("screenshot");
    if (isSet("select")) {
        bool ok = false;
        options.selectOp = value("select").toInt(&ok);
        if (!ok || options.selectOp < 0) {
            if (error)
                *error = QCoreApplication::translate("main", "--select expects an op index (0 or more), not \"%1\".")
                             .arg(value("select"));
            return false;
        }
    }
    options.run = isSet("run");
    if (options.run && options.tracePath.isEmpty()) {
        if (error)
            *error = QCoreApplication::translate("main", "--run needs a workload file to run.");
        return false;
    }
    options.compare = isSet("compare");
    if (options.compare && (options.tracePath.isEmpty() || options.run)) {
        if (error)
            *error = options.run ? QCoreApplication::translate("main", "--run and --compare cannot be combined.")
                                 : QCoreApplication::translate("main", "--compare needs a workload file.");
        return false;
    }
    options.projectNvtx = isSet("project-nvtx");
    if (isSet("window") && !readWindow(value("window"), options, error))
        return false;
    options.presentation = isSet("presentation");
    options.dark = isSet("dark");
    options.transparent = isSet("transparent");
    if (isSet("size")) {
        options.size = parseSize(value("size"));
        if (!options.size.isValid()) {
            if (error)
                *error = QCoreApplication::translate("main", "--size: \"%1\" is not a size like 1920x1080 "
                                                             "(64 to 16384 pixels per side).")
                             .arg(value("size"));
            return false;
        }
    }
    if (isSet("repetition")) {
        bool ok = false;
        const int n = value("repetition").toInt(&ok);
        if (!ok || n < 1) {
            if (error)
                *error = QCoreApplication::translate("main", "--repetition: \"%1\" is not a repetition number "
                                                             "(1, 2, ...).")
                             .arg(value("repetition"));
            return false;
        }
        options.repetition = n - 1;
    }
    return true;
}

} // namespace

bool parseAppOptions(const QStringList &arguments, AppOptions &options, QString *error)
{
    QCommandLineParser parser;
    declareOptions(parser);
    if (!parser.parse(arguments)) {
        if (error)
            *error = parser.errorText();
        return false;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        options.helpShown = true;
        return true;
    }
    if (parser.isSet(QStringLiteral("version"))) {
        std::printf("%s %s\n", qPrintable(QCoreApplication::applicationName()),
                    qPrintable(QCoreApplication::applicationVersion()));
        options.helpShown = true;
        return true;
    }
    return readOptions(parser, options, error);
}

} // namespace streamscope::gui
