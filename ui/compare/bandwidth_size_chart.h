// BandwidthSizeChart: achieved copy bandwidth against transfer size, one line per (host memory kind,
// direction) — pageable H2D, pinned H2D, pageable D2H, pinned D2H, ... — on a log size axis, with the
// link's theoretical peak (engine::DeviceInfo::linkPeakGBs) as a dashed line: what bandwidthTest and
// nvbandwidth print, drawn. Each point is the median GB/s over every repetition's copies of that
// (memory kind, direction, size) across the comparison's variants.
#pragma once

#include <QChartView>
#include <QString>

#include <cstdint>
#include <map>
#include <vector>

#include "engine/model/trace.h"

class QGraphicsSimpleTextItem;
class QLineSeries;

namespace streamscope::ui {

class BandwidthSizeChart : public QChartView {
    Q_OBJECT

public:
    // One line of the plot: the host side's memory kind and the direction, and its points.
    struct Curve {
        engine::MemKind hostMemory = engine::MemKind::Unknown;
        engine::OpKind direction = engine::OpKind::CopyH2D; // CopyH2D or CopyD2H
        std::vector<std::pair<std::uint64_t, double>> points; // (bytes, median GB/s), by size
    };

    explicit BandwidthSizeChart(QWidget *parent = nullptr);

    // The curves of a set of traces: pure data, no drawing (the chart and the tests use it).
    static std::vector<Curve> curvesOf(const std::vector<const engine::Trace *> &traces);

    void setTraces(const std::vector<const engine::Trace *> &traces);
    const std::vector<Curve> &curves() const { return m_curves; }
    double linkPeakGBs() const { return m_peakGBs; }
    // The series drawn for curve i (same order as curves()); nullptr out of range.
    // Where a transfer size sits on the x axis: log2 of the bytes (the axis labels it "16 MiB").
    static double sizeToX(std::uint64_t bytes);
    QLineSeries *series(int i) const;
    // True when there is something to plot (at least one copy with a GPU time).
    bool hasData() const { return !m_curves.empty(); }

    static QString curveName(const Curve &curve);
    // The size labels drawn under the plot for its present width ("4 KiB", "1 MiB", ...).
    QStringList sizeLabels() const;
    bool exportImage(const QString &path, QSize size, QString *error = nullptr);

private:
    void labelSizes();

    std::vector<Curve> m_curves;
    std::vector<std::uint64_t> m_sizes; // every size measured, ascending
    QList<QGraphicsSimpleTextItem *> m_labelItems; // the size labels under the plot, owned by the chart
    std::vector<QLineSeries *> m_series;
    double m_peakGBs = 0;
};

} // namespace streamscope::ui
