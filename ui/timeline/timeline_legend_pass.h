// LegendPass: the frame pass of the legend: what each colour and mark means, only for what is drawn,
// fitted to its width (a smaller font, then short labels).
#pragma once

#include <QString>

#include <functional>
#include <vector>

#include "ui/timeline/timeline_paint_context.h"

namespace streamscope::ui {

class LegendPass {
public:
    explicit LegendPass(const TimelinePaintContext &ctx) : m_ctx(ctx) { }

    void paintLegend(QPainter &p, const TimelineLayout &layout) const;

private:
    // One entry: its label, its short label (when the legend is narrow) and how its swatch is drawn.
    struct Entry {
        QString label;
        std::function<void(QPainter &, const QRect &)> swatch;
        QString shortLabel;
    };
    // The entries for what the lanes draw, in order.
    std::vector<Entry> entries() const;

    const TimelinePaintContext &m_ctx;
};

} // namespace streamscope::ui
