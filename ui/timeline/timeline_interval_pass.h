// IntervalPass: the lane pass of host threads, streams, copy engines and unified-memory lanes: each op's
// bar (host calls that do not block half height, blocking ones hatched), folded marks for ops narrower
// than a few pixels, queued time before the bars, the slowdown marks of solo baselines, the pieces of ops
// that ran as several records (a band along the bottom of the bar), and bar labels.
#pragma once

#include "ui/timeline/timeline_render_pass.h"

namespace streamscope::ui {

class IntervalPass : public TimelineLanePass {
public:
    bool paint(QPainter &p, const TimelineLaneState &state) const override;

protected:
    // Whether folded marks wider than a pixel column are collected with the one-column marks and
    // painted late (where that gives the same pixels: the raster engine at whole pixels). A reference
    // pass in the tests answers false, to compare with every mark painted at its turn.
    virtual bool defersMarks(const QPainter &p) const;

private:
    // A stream lane's queued time: light, outlined segments before the bars (drawn under them).
    static void paintQueued(QPainter &p, const TimelineLaneState &state);
    bool paintBars(QPainter &p, const TimelineLaneState &state) const;
    static void paintSlowed(QPainter &p, const TimelineLaneState &state);
    static void paintPieces(QPainter &p, const TimelineLaneState &state);
};

// The pass the painter uses unless told otherwise (TimelineLanePasses).
const IntervalPass &intervalPass();

} // namespace streamscope::ui
