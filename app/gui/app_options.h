// AppOptions: the desktop app's command line (QCommandLineParser): a trace to open, and the headless
// `--export-image out.png [--size WxH]` that renders the timeline without showing a window.
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>
#include <QtGlobal>

namespace streamscope::gui {

struct AppOptions {
    QString tracePath; // positional: a trace (or a workload .json, or a comparison .sscompare) to open
    QString exportImagePath; // --export-image: render the trace's timeline (or the comparison) to PNG/SVG and exit
    QSize size{1920, 1080}; // --size WxH for --export-image and --screenshot
    bool presentation = false;
    int repetition = -1; // --repetition N (1-based on the command line; -1 here = the median)
    bool dark = false; // --dark
    bool transparent = false; // --transparent: exported images leave the background transparent
    QString screenshotPath; // hidden: grab the whole window into a PNG and exit (docs, tests)
    int selectOp = -1; // hidden --select N: select op N of the repetition shown, as a click would (docs)
    bool run = false; // --run: run the opened workload at once (through streamscope-cli)
    bool compare = false; // --compare: run the opened workload's own comparison at once
    bool projectNvtx = false; // --project-nvtx: View > Project NVTX onto GPU lanes, on
    // --window FROM..TO: the timeline shows this window (ns from the repetition's start); -1: all of it
    qint64 windowStartNs = -1;
    qint64 windowEndNs = -1;
    bool helpShown = false; // --help or --version was handled: exit 0
};

// Parses arguments (arguments[0] is the program). On a usage error returns false and sets *error;
// --help and --version print and set helpShown.
bool parseAppOptions(const QStringList &arguments, AppOptions &options, QString *error);

// "1280x720" -> QSize; invalid (or below 64 px, or above 16384 px per side) -> an invalid QSize.
QSize parseSize(const QString &text);

} // namespace streamscope::gui
