// Chart styling shared by the comparison charts (Qt Charts): light or dark, and the larger type of
// presentation mode. Applied after a chart's series and axes are (re)built, since Qt Charts gives new
// axes its defaults; applying it twice gives the same result.
#pragma once

class QChart;

namespace streamscope::ui {

struct ChartStyle {
    bool dark = false;
    double fontScale = 1.0; // presentation mode: 1.35, as the main window
};

// QGraphicsItem::data key of a chart's own text items: "axis label" marks one drawn in place of an axis'
// label, which keeps the axis' type (its owner sizes it to fit); other text items are annotations.
inline constexpr int kChartTextRole = 0x5353;

void applyChartStyle(QChart *chart, const ChartStyle &style);

} // namespace streamscope::ui
