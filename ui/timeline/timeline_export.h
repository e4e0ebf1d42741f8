// TimelineExport: a TimelineView's picture outside the window: rendered into any painter, and written to
// a .png or .svg file (ui/common/image_export.h) with the window's own rows, labels and column width,
// the lanes filling the picture, the selection but not the hover, the key figure with its caption, and
// "Workload — GPU — date" as the title.
#pragma once

#include <QSize>
#include <QString>

#include "ui/common/image_export.h"
#include "ui/timeline/timeline_paint_context.h"

class QPainter;

namespace streamscope::ui {

class TimelineView;

class TimelineExport {
public:
    // What an export draws over the lanes: the selection, flows, find's matches, the key figure with its
    // caption; not the hovered op.
    static TimelineOverlay overlay(const TimelineView &view);
    // "Workload — GPU — date" of the shown trace, for an export's title.
    static QString title(const TimelineView &view);
    // The whole visible view into target, at any size (an empty view: a line that says so).
    static void render(const TimelineView &view, QPainter &painter, const QRect &target);
    // Writes the visible view to a .png or .svg file (by suffix); see TimelineView::exportImage.
    static bool exportImage(const TimelineView &view, const QString &path, QSize size, const ImageOptions &options,
                            QString *error);
};

} // namespace streamscope::ui
