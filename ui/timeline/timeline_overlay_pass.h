// OverlayPass: the frame pass drawn live over the lanes: hover, the selection and its host-to-GPU link,
// a selected range, find's matches, the lesson's key figure and the flows in view.
#pragma once

#include <vector>

#include "ui/timeline/timeline_paint_context.h"

namespace streamscope::ui {

class OverlayPass {
public:
    explicit OverlayPass(const TimelinePaintContext &ctx) : m_ctx(ctx) { }

    void paintOverlay(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                      const TimelineOverlay &overlay) const;

private:
    void paintFlows(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping) const;
    void drawLink(QPainter &p, const QRectF &host, const QRectF &gpu, const QColor &color, double width,
                  double head) const;
    void paintKeyFigure(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                        const std::vector<int> &ops, const QString &caption, bool host) const;
    void paintMatches(QPainter &p, const TimelineLayout &layout, const TimeMapping &mapping,
                      const std::vector<int> &matches, bool dimOthers) const;

    const TimelinePaintContext &m_ctx;
};

} // namespace streamscope::ui
