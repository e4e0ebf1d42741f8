// ColumnPass: the lane pass of the derived lanes (active H2D/D2H/D2D/compute counts, bandwidth, peer
// links) and of collapsed groups' busy summaries: step functions drawn as per-pixel min/max columns,
// translucent layers painted as the opaque colours they blend to where that gives the same pixels.
#pragma once

#include <QRgb>

#include <vector>

#include "ui/timeline/timeline_render_pass.h"

namespace streamscope::ui {

class ColumnPass : public TimelineLanePass {
public:
    bool paint(QPainter &p, const TimelineLaneState &state) const override;
    // A group's header: when collapsed, how many of its lanes were busy at each moment (the summary of
    // the lanes it stands for), in a neutral colour; open, a plain band.
    void paintGroupRow(QPainter &p, const TimelinePaintContext &ctx, const LaneRow &row, const QRect &rect,
                       const QColor &background, const TimeMapping &mapping, int clipX0, int clipX1) const;

protected:
    // Whether translucent layers may be painted as the opaque colours they blend to (drawColumnLayers):
    // on the raster engine at whole pixels. A reference pass in the tests answers false, to compare with
    // the layers blended one fill at a time.
    virtual bool opaqueLayers(const QPainter &p) const;

private:
    // One step function's per-column [lo, hi] drawn as an area in `color` (see drawColumns).
    struct ColumnLayer {
        const std::vector<float> *lo = nullptr;
        const std::vector<float> *hi = nullptr;
        QColor color;
    };
    void paintCounter(QPainter &p, const TimelinePaintContext &ctx, const Lane &lane, const QRect &rect,
                      const QColor &background, const TimeMapping &mapping, int clipX0, int clipX1) const;
    void paintBandwidth(QPainter &p, const TimelinePaintContext &ctx, const Lane &lane, const QRect &rect,
                        const QColor &background, const TimeMapping &mapping, int clipX0, int clipX1) const;
    // A count over time (a counter lane's, a collapsed group's busy lanes) as one layer of `color`,
    // at least one count high; nothing when it never rises above zero.
    void paintSteps(QPainter &p, const TimelinePaintContext &ctx, const StepSeries &s, const QColor &color,
                    const QRect &rect, const QColor &background, const TimeMapping &mapping, int clipX0,
                    int clipX1) const;
    // Draws the layers in order over a lane filled with `background` and its grid, with the pixels that
    // drawing them one by one with translucent fills would give, but as opaque fills (see the .cpp).
    void drawColumnLayers(QPainter &p, const TimelinePaintContext &ctx, const ColumnLayer *layers, int layerCount,
                          const QColor &background, const TimeMapping &mapping, int clipX0, double baseline,
                          double scale) const;
    // The pixel that filling one pixel of colour `under` (opaque) with `src` gives in an image of `format`,
    // found by letting QPainter do it once; kept in the context's caches.
    static QRgb blendedPixel(const TimelinePaintContext &ctx, int format, QRgb under, const QColor &src);
};

// The pass the painter uses unless told otherwise (TimelineLanePasses).
const ColumnPass &columnPass();

} // namespace streamscope::ui
