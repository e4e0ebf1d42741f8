// RulerPass: the frame pass of the time axis: ticks and their labels, the window's width in the corner,
// and a selected range's band and length.
#pragma once

#include "ui/timeline/timeline_paint_context.h"

namespace streamscope::ui {

class RulerPass {
public:
    explicit RulerPass(const TimelinePaintContext &ctx) : m_ctx(ctx) { }

    void paintRuler(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                    const TimelineOverlay &overlay) const;

private:
    const TimelinePaintContext &m_ctx;
};

} // namespace streamscope::ui
