// applyChartStyle: background, text and grid colours from the style; series keep their own hues, dark
// lines lifted to light ones of the same hue on dark.
#include "ui/compare/chart_style.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLineSeries>
#include <QScatterSeries>
#include <QVariant>

#include <algorithm>

namespace streamscope::ui {

namespace {

bool nearWhite(const QColor &c)
{
    return c.lightnessF() > 0.7;
}

} // namespace

void applyChartStyle(QChart *chart, const ChartStyle &style)
{
    if (!chart)
        return;
    const QColor background = style.dark ? QColor(0x23, 0x26, 0x29) : QColor(Qt::white);
    const QColor text = style.dark ? QColor(0xe8, 0xe8, 0xe8) : QColor(0x20, 0x20, 0x20);
    const QColor grid = style.dark ? QColor(0x4a, 0x4e, 0x52) : QColor(0xd8, 0xd8, 0xd8);
    chart->setBackgroundBrush(background);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(text);

    QFont base = QApplication::font();
    base.setPointSizeF(base.pointSizeF() * style.fontScale);
    QFont title = base;
    title.setBold(true);
    title.setPointSizeF(base.pointSizeF() * 1.15);
    chart->setTitleFont(title);
    chart->legend()->setFont(base);
    chart->legend()->setLabelColor(text);

    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsFont(base);
        axis->setLabelsColor(text);
        axis->setTitleFont(base);
        axis->setTitleBrush(text);
        axis->setGridLineColor(grid);
        axis->setMinorGridLineColor(grid.lighter(style.dark ? 80 : 110));
        axis->setLinePenColor(text);
    }
    // Lines keep their hue, but on dark every line is lifted into the light half (the whiskers' and the
    // link peak's near-black, the darker shade a D2H curve gets beside its H2D one), keeping their order,
    // and on light a near-white one darkened: every line stays legible on both. Computed from the colour the
    // series was built with (kept on it), so switching back and forth gives the same colours.
    for (QAbstractSeries *series : chart->series()) {
        auto *line = qobject_cast<QLineSeries *>(series);
        if (!line || qobject_cast<QScatterSeries *>(series))
            continue;
        QVariant stored = line->property("streamscopeBuiltColor");
        if (!stored.isValid()) {
            stored = line->pen().color();
            line->setProperty("streamscopeBuiltColor", stored);
        }
        const QColor built = stored.value<QColor>();
        QColor shown = built;
        if (style.dark) // lightness 0..1 onto 0.5..0.9: all light, and in the same order (a D2H curve built
                        // darker than its H2D one stays the darker of the two)
            shown = QColor::fromHslF(std::max(0.0f, built.hslHueF()), built.hslSaturationF(),
                                     0.5f + built.lightnessF() * 0.4f);
        else if (nearWhite(built))
            shown = QColor(0x30, 0x30, 0x30);
        QPen pen = line->pen();
        if (pen.color() != shown) {
            pen.setColor(shown);
            line->setPen(pen);
        }
    }
    // Annotations (speedups above the bars) are text items on the chart.
    for (QGraphicsItem *item : chart->childItems())
        if (auto *label = dynamic_cast<QGraphicsSimpleTextItem *>(item)) {
            label->setBrush(text);
            if (label->data(kChartTextRole).toString() == QLatin1String("axis label"))
                continue;
            QFont small = base;
            small.setPointSizeF(base.pointSizeF() * 0.9);
            label->setFont(small);
        }
}

} // namespace streamscope::ui
