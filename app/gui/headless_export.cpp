// Headless export: the same TimelineView and painter as the window (a comparison: the same comparison
// window), never shown.
#include "app/gui/headless_export.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include "app/gui/resource_paths.h"
#include "app/gui/theme.h"
#include "engine/experiment/comparison_file.h"
#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "engine/run/cli_protocol.h"
#include "ui/compare/comparison_window.h"
#include "ui/panels/lessons_panel.h"
#include "ui/panels/summary_model.h"
#include "ui/timeline/stacked_timelines.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

namespace streamscope::gui {

using namespace engine::protocol; // the exit codes: the same as streamscope-cli's

namespace {

// A recorded comparison (.sscompare): the comparison window, laid out off screen at the slide's layout
// size in the mode and palette asked for, and exported as it shows (ComparisonWindow::exportComparison).
int exportComparisonHeadless(const AppOptions &options)
{
    // Every variant shows its own median repetition, and its rows are the window's: nothing to pick.
    if (options.repetition >= 0 || options.projectNvtx) {
        std::fprintf(stderr, "streamscope: %s is a comparison: %s applies to a trace\n", qPrintable(options.tracePath),
                     options.repetition >= 0 ? "--repetition" : "--project-nvtx");
        return ExitUsage;
    }
    engine::Comparison comparison;
    try {
        comparison = engine::readComparison(options.tracePath.toStdString());
    } catch (const engine::Error &e) {
        std::fprintf(stderr, "streamscope: %s\n", e.what());
        return exitCodeOf(e.kind());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "streamscope: %s: %s\n", qPrintable(options.tracePath), e.what());
        return ExitInternal;
    }
    if (comparison.variants.empty()) {
        std::fprintf(stderr, "streamscope: %s holds no variants: nothing to draw\n", qPrintable(options.tracePath));
        return ExitInvalidInput;
    }
    // The application's palette as the window's theme sets it (the header, tabs and table follow it).
    applyTheme(options.dark ? Theme::Dark : Theme::Light);
    ui::ImageOptions image;
    image.transparent = options.transparent;
    const double scale = ui::imageScale(image, options.size);
    ui::ComparisonWindow window;
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.setComparison(std::move(comparison), QFileInfo(options.tracePath).fileName());
    window.setDarkPalette(options.dark);
    // Shown (never on screen) at the slide's size, so that its splitters and layouts share out that size
    // as on a screen; presentation mode after, as the window's F11 is (its split follows the width).
    window.resize(options.size / scale);
    window.show();
    QCoreApplication::sendPostedEvents();
    if (options.presentation)
        window.setPresentationMode(true);
    if (options.windowStartNs >= 0)
        window.timelines()->setWindow(options.windowStartNs, options.windowEndNs);
    QCoreApplication::sendPostedEvents();
    QString error;
    if (!window.exportComparison(options.exportImagePath, options.size, image, &error)) {
        std::fprintf(stderr, "streamscope: %s\n", qPrintable(error));
        return ExitIo;
    }
    std::fprintf(stderr, "streamscope: wrote %s (%dx%d)\n", qPrintable(options.exportImagePath), options.size.width(),
                 options.size.height());
    return ExitOk;
}

} // namespace

int exportImageHeadless(const AppOptions &options)
{
    try {
        if (engine::detectFileKind(options.tracePath.toStdString()) == engine::FileKind::Comparison)
            return exportComparisonHeadless(options);
    } catch (const engine::Error &) {
        // Unreadable: loadTrace below says so as it does for every file.
    }
    std::shared_ptr<engine::Trace> trace;
    try {
        trace = std::make_shared<engine::Trace>(engine::loadTrace(options.tracePath.toStdString()));
    } catch (const engine::Error &e) {
        std::fprintf(stderr, "streamscope: %s\n", e.what());
        return exitCodeOf(e.kind());
    } catch (const std::exception &e) {
        // What a reader did not turn into an engine::Error: reported as the window would, never an abort.
        std::fprintf(stderr, "streamscope: %s: %s\n", qPrintable(options.tracePath), e.what());
        return ExitInternal;
    }
    if (trace->repetitions.empty()) {
        std::fprintf(stderr, "streamscope: %s holds no repetitions: nothing to draw\n", qPrintable(options.tracePath));
        return ExitInvalidInput;
    }
    int repetition = options.repetition;
    if (repetition >= int(trace->repetitions.size())) {
        std::fprintf(stderr, "streamscope: --repetition %d: %s has only %zu repetitions\n", repetition + 1,
                     qPrintable(options.tracePath), trace->repetitions.size());
        return ExitUsage;
    }
    if (repetition < 0) {
        // The median repetition, as the window shows first.
        std::vector<std::pair<std::int64_t, int>> spans;
        for (int i = 0; i < int(trace->repetitions.size()); ++i) {
            const auto [start, end] = trace->extent(i);
            spans.push_back({end - start, i});
        }
        std::sort(spans.begin(), spans.end());
        repetition = spans[(spans.size() - 1) / 2].second;
    }
    ui::ImageOptions image;
    image.transparent = options.transparent;
    const double scale = ui::imageScale(image, options.size);
    ui::TimelineView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(options.size / scale);
    view.setPresentationMode(options.presentation);
    view.setDarkPalette(options.dark);
    view.setProjectNvtx(options.projectNvtx);
    view.setTrace(trace, repetition);
    // A lesson's example trace carries its lesson's key figure onto the slide.
    const QString workload =
        QDir(workloadsDir()).filePath(QFileInfo(options.tracePath).completeBaseName() + QStringLiteral(".json"));
    if (!workloadsDir().isEmpty() && QFileInfo::exists(workload)) {
        const ui::Lesson lesson = ui::LessonsPanel::readLesson(workload, examplesDir());
        if (!lesson.keyFigure.caption.empty() && !lesson.examplePath.isEmpty()
            && QFileInfo(lesson.examplePath).canonicalFilePath() == QFileInfo(options.tracePath).canonicalFilePath()) {
            engine::OpQuery query;
            query.text = lesson.keyFigure.name;
            query.lane = lesson.keyFigure.lane;
            if (const auto kind = engine::opKindFromString(lesson.keyFigure.kind))
                query.kind = *kind;
            view.setKeyFigure(QString::fromStdString(lesson.keyFigure.caption), query);
        }
    }
    view.fitAll();
    if (options.windowStartNs >= 0)
        view.zoom()->setWindow(options.windowStartNs, options.windowEndNs);
    image.title = view.exportTitle();
    // The key figures of the repetition shown, as the window's summary gives them.
    ui::SummaryModel summary;
    summary.setTrace(trace);
    summary.setRepetition(repetition);
    image.figures = summary.keyFiguresText();
    QString error;
    if (!view.exportImage(options.exportImagePath, options.size, image, &error)) {
        std::fprintf(stderr, "streamscope: %s\n", qPrintable(error));
        return ExitIo;
    }
    std::fprintf(stderr, "streamscope: wrote %s (%dx%d)\n", qPrintable(options.exportImagePath), options.size.width(),
                 options.size.height());
    return ExitOk;
}

} // namespace streamscope::gui
