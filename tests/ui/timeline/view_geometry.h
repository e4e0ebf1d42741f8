// Where a TimelineView draws things, for tests that click or probe pixels: the painter's layout and
// time mapping for the view's current window, laid out in a target rectangle (the widget's, or an
// image's of the same size).
#pragma once

#include <QRect>

#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_view.h"

namespace streamscope::test {

struct ViewGeometry {
    ui::TimelinePainter painter; // for the bar rectangles (gpuBarRect, hostBarRect)
    ui::TimelineLayout layout;
    ui::TimeMapping mapping;
};

inline ViewGeometry viewGeometry(const ui::TimelineView &view, const QRect &target)
{
    ViewGeometry g;
    g.painter.setModel(view.laneModel());
    g.painter.setMetrics(ui::TimelineMetrics::make(view.presentationMode(), view.font()));
    // The view's rows (its lane tree, hidden, pinned and collapsed lanes) and label column.
    if (view.laneTree())
        g.painter.setRows(view.laneTree(), view.rows(), {});
    g.painter.setLabelWidth(view.labelWidth());
    // The widget's own layout where the target is the widget (its rows scrolled, the scroll bar's width
    // left out), else the same rows laid out in the target.
    g.layout = target == view.rect() ? view.currentLayout() : g.painter.layout(target);
    g.mapping = ui::TimelinePainter::mappingFor(g.layout, view.windowStartNs(), view.windowEndNs());
    return g;
}

} // namespace streamscope::test
