// The timeline's paint passes, the shape of Qt Creator's tracing library (TimelineRenderPass over a
// shared TimelineRenderState): each pass is an object that paints one part of the picture from the
// shared TimelinePaintContext, and the painter runs them in order.
//
// Lane passes paint one lane's content inside a strip of pixel columns (the widget caches each lane's
// picture and repaints only what a pan exposes, on several threads): which pass paints which lane kind
// is a table (TimelineLanePasses), so a test can run its own reference pass in place of a shipped one.
// Frame passes (timeline_header_pass.h, timeline_ruler_pass.h, timeline_legend_pass.h,
// timeline_overlay_pass.h) paint around and over the lanes from the whole layout.
#pragma once

#include <QColor>
#include <QRect>

#include "ui/timeline/timeline_paint_context.h"

class QPainter;

namespace streamscope::ui {

// One lane strip to paint: the lane, its rectangle in the painter's coordinates (the mapping's x0 must
// match them), its background (already filled, with the grid over it) and the pixel columns
// [clipX0, clipX1) to paint (the exposed strip after a pan).
struct TimelineLaneState {
    const TimelinePaintContext &ctx;
    const Lane &lane;
    QRect rect;
    QColor background;
    const TimeMapping &mapping;
    int clipX0 = 0;
    int clipX1 = 0;
};

class TimelineLanePass {
public:
    TimelineLanePass() = default;
    TimelineLanePass(const TimelineLanePass &) = delete;
    TimelineLanePass &operator=(const TimelineLanePass &) = delete;
    virtual ~TimelineLanePass() = default;

    // Paints the lane's content. Returns true when the picture depends on where the lane's edges are (a
    // label kept inside the visible part of a bar that the edge cuts), so that a cached copy cannot
    // simply be shifted on a pan. Passes are const and hold no state: several threads paint with one.
    virtual bool paint(QPainter &p, const TimelineLaneState &state) const = 0;
};

class ColumnPass;

// Which pass paints which kind of lane; null members take the shipped pass (intervalPass() and so on).
struct TimelineLanePasses {
    const TimelineLanePass *intervals = nullptr; // host threads, streams, copy engines, unified memory
    const ColumnPass *columns = nullptr; // active counts, bandwidth, peer links, collapsed groups
    const TimelineLanePass *ranges = nullptr; // host ranges, NVTX projections
};

} // namespace streamscope::ui
