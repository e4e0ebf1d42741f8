// BandwidthSizeChart: see bandwidth_size_chart.h.
#include "ui/compare/bandwidth_size_chart.h"

#include <QCategoryAxis>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <cmath>

#include <algorithm>
#include <tuple>

#include "engine/analysis/analysis.h"
#include "ui/common/format_units.h"
#include "ui/common/image_export.h"

namespace streamscope::ui {

namespace {

QColor curveColor(const BandwidthSizeChart::Curve &curve)
{
    // Same hue per memory kind, darker for D2H, so the pairs read together.
    QColor c;
    switch (curve.hostMemory) {
    case engine::MemKind::Pageable: c = QColor(0xe1, 0x57, 0x59); break;
    case engine::MemKind::Pinned: c = QColor(0x4e, 0x79, 0xa7); break;
    case engine::MemKind::Registered: c = QColor(0x59, 0xa1, 0x4f); break;
    case engine::MemKind::Managed: c = QColor(0xb0, 0x7a, 0xa1); break;
    default: c = QColor(0x9c, 0x75, 0x5f); break;
    }
    return curve.direction == engine::OpKind::CopyD2H ? c.darker(150) : c;
}

} // namespace

BandwidthSizeChart::BandwidthSizeChart(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    chart()->setTitle(tr("Achieved bandwidth by transfer size (median over repetitions)"));
    chart()->legend()->setAlignment(Qt::AlignBottom);
    chart()->setAnimationOptions(QChart::NoAnimation);
}

std::vector<BandwidthSizeChart::Curve> BandwidthSizeChart::curvesOf(const std::vector<const engine::Trace *> &traces)
{
    // (host memory, direction, bytes) -> every repetition's GB/s.
    std::map<std::tuple<engine::MemKind, engine::OpKind, std::uint64_t>, std::vector<double>> samples;
    for (const engine::Trace *trace : traces) {
        for (const engine::Repetition &rep : trace->repetitions) {
            for (const engine::OpRecord &op : rep.ops) {
                if ((op.kind != engine::OpKind::CopyH2D && op.kind != engine::OpKind::CopyD2H) || op.bytes == 0)
                    continue;
                const double gbs = op.gbPerSecond();
                if (gbs <= 0)
                    continue;
                const engine::MemKind host = op.kind == engine::OpKind::CopyH2D ? op.srcMem : op.dstMem;
                samples[{host, op.kind, op.bytes}].push_back(gbs);
            }
        }
    }
    std::vector<Curve> curves;
    for (auto &[key, values] : samples) {
        const auto &[host, kind, bytes] = key;
        if (curves.empty() || curves.back().hostMemory != host || curves.back().direction != kind)
            curves.push_back({host, kind, {}});
        curves.back().points.emplace_back(bytes, engine::spreadOf(std::move(values)).median);
    }
    return curves;
}

QString BandwidthSizeChart::curveName(const Curve &curve)
{
    return QStringLiteral("%1 %2").arg(QString::fromUtf8(engine::toString(curve.hostMemory).data(),
                                                         qsizetype(engine::toString(curve.hostMemory).size())),
                                       curve.direction == engine::OpKind::CopyH2D ? QStringLiteral("H2D")
                                                                                  : QStringLiteral("D2H"));
}

void BandwidthSizeChart::setTraces(const std::vector<const engine::Trace *> &traces)
{
    QChart *c = chart();
    c->removeAllSeries();
    for (QAbstractAxis *axis : c->axes())
        c->removeAxis(axis), delete axis;
    m_series.clear();
    m_curves = curvesOf(traces);
    m_peakGBs = 0;
    for (const engine::Trace *trace : traces)
        for (const engine::DeviceInfo &d : trace->devices)
            m_peakGBs = std::max(m_peakGBs, d.linkPeakGBs);
    if (m_curves.empty()) {
        c->setTitle(tr("No host↔device copies with GPU times to plot"));
        return;
    }
    c->setTitle(tr("Achieved bandwidth by transfer size (median over repetitions)"));

    std::uint64_t minBytes = UINT64_MAX, maxBytes = 0;
    double maxGBs = m_peakGBs;
    for (const Curve &curve : m_curves)
        for (const auto &[bytes, gbs] : curve.points) {
            minBytes = std::min(minBytes, bytes);
            maxBytes = std::max(maxBytes, bytes);
            maxGBs = std::max(maxGBs, gbs);
        }

    // A log scale labelled in units ("16 MiB", not 16777216): x is log2 of the size, and a category
    // axis puts a label on every power of four (one per two doublings stays legible).
    auto *axisX = new QCategoryAxis;
    axisX->setTitleText(tr("transfer size (log scale)"));
    axisX->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    const double lo = std::log2(double(minBytes)) - 0.6, hi = std::log2(double(maxBytes)) + 0.6;
    axisX->setRange(lo, hi);
    axisX->setStartValue(lo);
    for (int power = int(std::ceil(lo)); power <= int(std::floor(hi)); ++power)
        if (power % 2 == 0 && power >= 0 && power < 63)
            axisX->append(formatBytes(std::uint64_t(1) << power), power);
    auto *axisY = new QValueAxis;
    axisY->setTitleText(tr("GB/s (1e9 B/s)"));
    axisY->setRange(0, maxGBs * 1.1);
    axisY->applyNiceNumbers();
    c->addAxis(axisX, Qt::AlignBottom);
    c->addAxis(axisY, Qt::AlignLeft);

    for (const Curve &curve : m_curves) {
        auto *line = new QLineSeries;
        line->setName(curveName(curve));
        QPen pen(curveColor(curve));
        pen.setWidthF(2.2);
        if (curve.direction == engine::OpKind::CopyD2H)
            pen.setStyle(Qt::DashDotLine);
        line->setPen(pen);
        line->setPointsVisible(true);
        for (const auto &[bytes, gbs] : curve.points)
            line->append(sizeToX(bytes), gbs);
        c->addSeries(line);
        line->attachAxis(axisX);
        line->attachAxis(axisY);
        m_series.push_back(line);
    }
    if (m_peakGBs > 0) {
        auto *peak = new QLineSeries;
        peak->setName(tr("link peak %1").arg(formatGBs(m_peakGBs)));
        QPen pen(QColor(0x40, 0x40, 0x40));
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(1.5);
        peak->setPen(pen);
        peak->append(lo, m_peakGBs);
        peak->append(hi, m_peakGBs);
        c->addSeries(peak);
        peak->attachAxis(axisX);
        peak->attachAxis(axisY);
    }
    // Hovering a line gives the point's figures.
    for (QLineSeries *line : m_series)
        connect(line, &QLineSeries::hovered, this, [this, line](const QPointF &p, bool state) {
            setToolTip(state ? QStringLiteral("%1: %2 at %3")
                                   .arg(line->name(), formatGBs(p.y()),
                                        formatBytes(std::uint64_t(std::llround(std::exp2(p.x())))))
                             : QString());
        });
}

double BandwidthSizeChart::sizeToX(std::uint64_t bytes)
{
    return std::log2(double(std::max<std::uint64_t>(bytes, 1)));
}

QLineSeries *BandwidthSizeChart::series(int i) const
{
    return i >= 0 && i < int(m_series.size()) ? m_series[std::size_t(i)] : nullptr;
}

bool BandwidthSizeChart::exportImage(const QString &path, QSize size, QString *error)
{
    return exportWidgetImage(this, path, size, error);
}

} // namespace streamscope::ui
