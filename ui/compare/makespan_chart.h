// MakespanChart: the comparison's makespans as bars (median over repetitions) with min..max whiskers,
// one bar per variant, coloured by the verdict against the first variant (engine::compareSpreads).
// A "noise" verdict is drawn grey and labelled as noise: the chart never calls a winner the data
// cannot tell apart.
#pragma once

#include <QChartView>
#include <QFont>
#include <QString>

#include <vector>

#include "engine/experiment/comparison_file.h"

class QStackedBarSeries;
class QGraphicsSimpleTextItem;
class QLineSeries;

namespace streamscope::ui {

class MakespanChart : public QChartView {
    Q_OBJECT

public:
    explicit MakespanChart(QWidget *parent = nullptr);

    void setSummaries(const std::vector<engine::VariantSummary> &summaries);

    // What the chart draws, in the unit of its value axis (unitNs() nanoseconds per unit), for tests.
    double unitNs() const { return m_unitNs; }
    QString unitName() const { return m_unitName; }
    // The bar drawn for a variant: the sum over the verdict sets at that index.
    double barValue(int variant) const;
    // The whisker of a variant: its vertical line's low and high ends.
    std::pair<double, double> whisker(int variant) const;
    QStringList categories() const { return m_categories; }
    // The text above each bar: its median and its verdict against the first variant.
    QStringList annotations() const { return m_annotations; }
    // The label under bar i as drawn (lines joined by '\n'), and its box in the chart's coordinates.
    QString drawnLabel(int i) const;
    QRectF drawnLabelRect(int i) const;
    // The type of the label under bar i (one for every bar).
    QFont drawnLabelFont(int i) const;
    QStackedBarSeries *bars() const { return m_bars; }

    // Writes the chart as .png or .svg (by suffix) at size.
    bool exportImage(const QString &path, QSize size, QString *error = nullptr);

private:
    void placeAnnotations();

    QStackedBarSeries *m_bars = nullptr;
    std::vector<QLineSeries *> m_whiskers;
    QStringList m_categories;
    QStringList m_annotations;
    QList<QGraphicsSimpleTextItem *> m_annotationItems; // owned by the chart
    // The category labels, drawn by the chart view rather than by the axis: Qt Charts elides category
    // labels to "1,…" under narrow bars; these break into lines and shrink to fit instead.
    QList<QGraphicsSimpleTextItem *> m_labelItems;
    double m_unitNs = 1e6;
    QString m_unitName = QStringLiteral("ms");
};

} // namespace streamscope::ui
