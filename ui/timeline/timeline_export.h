// TimelineExport: a timeline's picture outside the window: rendered into any painter, and written to a
// .png or .svg file (ui/common/image_export.h) with the window's own rows, labels and column width, the
// lanes filling the picture, the selection but not the hover, the key figure with its caption, and
// "Workload — GPU — date" as the title. It takes what the view shows as plain data (TimelinePicture).
#pragma once

#include <QCoreApplication>
#include <QSize>
#include <QString>

#include "ui/common/image_export.h"
#include "ui/timeline/timeline_paint_context.h"

class QPainter;

namespace streamscope::engine {
struct Trace;
}

namespace streamscope::ui {

class OpPalette;
class TimelinePainter;

// What a view shows, for an export: everything is the view's, and must outlive the export's calls.
struct TimelinePicture {
    const TimelinePainter *painter = nullptr; // the view's (its rows, labels, column width and metrics)
    const OpPalette *palette = nullptr;
    const engine::Trace *trace = nullptr; // nullptr: no trace shown
    int repetition = 0;
    bool hasLanes = false; // false: the picture is a line that says nothing is loaded
    qint64 windowStartNs = 0;
    qint64 windowEndNs = 0;
    // What the export draws over the lanes: the selection, flows, find's matches, the key figure with
    // its caption; not the hovered op.
    TimelineOverlay overlay;
    QSize widgetSize; // the size an export takes when none is given
};

class TimelineExport {
    // The view's translation context, where these strings have always been.
    Q_DECLARE_TR_FUNCTIONS(streamscope::ui::TimelineView)

public:
    // "Workload — GPU — date" of a trace's repetition, for an export's title (empty without a trace).
    static QString title(const engine::Trace *trace, int repetition);
    // The whole picture into target, at any size (no lanes: a line that says so).
    static void render(const TimelinePicture &picture, QPainter &painter, const QRect &target);
    // Writes the picture to a .png or .svg file (by suffix); see TimelineView::exportImage.
    static bool exportImage(const TimelinePicture &picture, const QString &path, QSize size,
                            const ImageOptions &options, QString *error);
};

} // namespace streamscope::ui
