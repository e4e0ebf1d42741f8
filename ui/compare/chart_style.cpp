// applyChartStyle: background, text and grid colours from the style; series keep their own colours
// (Okabe-Ito-like, legible on both) except near-black lines and labels, which turn light on dark.
#include "ui/compare/chart_style.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLineSeries>
#include <QScatterSeries>

namespace streamscope::ui {

namespace {

bool nearBlack(const QColor &c)
{
    return c.lightnessF() < 0.3;
}
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
    // Lines drawn in (near) black, such as whiskers or the link's peak, stay visible on dark.
    for (QAbstractSeries *series : chart->series()) {
        if (auto *line = qobject_cast<QLineSeries *>(series); line && !qobject_cast<QScatterSeries *>(series)) {
            QPen pen = line->pen();
            if ((style.dark && nearBlack(pen.color())) || (!style.dark && nearWhite(pen.color()))) {
                pen.setColor(style.dark ? QColor(0xc8, 0xc8, 0xc8) : QColor(0x30, 0x30, 0x30));
                line->setPen(pen);
            }
        }
    }
    // Annotations (speedups above the bars) are text items on the chart.
    for (QGraphicsItem *item : chart->childItems())
        if (auto *label = dynamic_cast<QGraphicsSimpleTextItem *>(item)) {
            QFont small = base;
            small.setPointSizeF(base.pointSizeF() * 0.9);
            label->setBrush(text);
            label->setFont(small);
        }
}

} // namespace streamscope::ui
