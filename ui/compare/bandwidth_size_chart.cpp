// BandwidthSizeChart: see bandwidth_size_chart.h.
#include "ui/compare/bandwidth_size_chart.h"

#include <QCategoryAxis>
#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <cmath>

#include <algorithm>
#include <tuple>

#include "engine/analysis/analysis.h"
#include "ui/common/format_units.h"
#include "ui/common/image_export.h"
#include "ui/compare/chart_style.h"

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
    chart()->setTitle(tr("Achieved bandwidth by transfer size"));
    // At the right, one entry a line: at the bottom five entries shared one line and each was cut
    // ("pageable…", "pinned H…"), so that H2D could not be told from D2H.
    chart()->legend()->setAlignment(Qt::AlignRight);
    chart()->setAnimationOptions(QChart::NoAnimation);
    connect(chart(), &QChart::plotAreaChanged, this, &BandwidthSizeChart::labelSizes);
}

void BandwidthSizeChart::labelSizes()
{
    auto *axisX = qobject_cast<QCategoryAxis *>(chart()->axes(Qt::Horizontal).value(0));
    const QRectF plot = chart()->plotArea();
    if (!axisX || m_sizes.empty() || m_series.empty() || plot.width() <= 0)
        return;
    // Drawn by the chart view, not by the axis: Qt Charts gives a label on a value the room between it and
    // the previous category and cut or dropped the rest ("16 …", only "4 KiB" left at 720p). Every
    // step-th size, the smallest step whose labels keep a gap of a few pixels; one type for all.
    const double pxPerUnit = plot.width() / (axisX->max() - axisX->min());
    const QFontMetricsF fm(axisX->labelsFont());
    double widest = 0;
    for (const std::uint64_t bytes : m_sizes)
        widest = std::max(widest, fm.horizontalAdvance(formatBytes(bytes)));
    int step = 1;
    for (; step < int(m_sizes.size()); ++step) {
        bool fits = true;
        for (std::size_t i = std::size_t(step); i < m_sizes.size() && fits; i += std::size_t(step))
            fits = (sizeToX(m_sizes[i]) - sizeToX(m_sizes[i - std::size_t(step)])) * pxPerUnit >= widest + 8;
        if (fits)
            break;
    }
    qDeleteAll(m_labelItems);
    m_labelItems.clear();
    for (std::size_t i = 0; i < m_sizes.size(); i += std::size_t(step)) {
        auto *item = new QGraphicsSimpleTextItem(formatBytes(m_sizes[i]), chart());
        item->setData(kChartTextRole, QStringLiteral("axis label")); // its type is the axis' (chart_style.h)
        item->setFont(axisX->labelsFont());
        item->setBrush(axisX->labelsBrush());
        item->setZValue(20);
        const double x = chart()->mapToPosition(QPointF(sizeToX(m_sizes[i]), 0), m_series.front()).x();
        const QRectF box = item->boundingRect();
        item->setPos(std::clamp(x - box.width() / 2, 0.0, std::max(0.0, chart()->size().width() - box.width())),
                     plot.bottom() + 4);
        m_labelItems << item;
    }
}

QStringList BandwidthSizeChart::sizeLabels() const
{
    QStringList labels;
    for (const QGraphicsSimpleTextItem *item : m_labelItems)
        labels << item->text();
    return labels;
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
    qDeleteAll(m_labelItems);
    m_labelItems.clear();
    m_curves = curvesOf(traces);
    m_peakGBs = 0;
    for (const engine::Trace *trace : traces)
        for (const engine::DeviceInfo &d : trace->devices)
            m_peakGBs = std::max(m_peakGBs, d.linkPeakGBs);
    if (m_curves.empty()) {
        c->setTitle(tr("No host↔device copies with GPU times to plot"));
        return;
    }
    c->setTitle(tr("Achieved bandwidth by transfer size"));

    std::uint64_t minBytes = UINT64_MAX, maxBytes = 0;
    double maxGBs = m_peakGBs;
    for (const Curve &curve : m_curves)
        for (const auto &[bytes, gbs] : curve.points) {
            minBytes = std::min(minBytes, bytes);
            maxBytes = std::max(maxBytes, bytes);
            maxGBs = std::max(maxGBs, gbs);
        }

    // A log scale labelled in units ("16 MiB", not 16777216): x is log2 of the size; the labels sit on
    // the sizes measured, as many of them as fit the plot's width (labelSizes, again whenever it changes).
    // One size alone (a comparison of streams at a fixed chunk) gets room on both sides.
    auto *axisX = new QCategoryAxis;
    // Labels measured in the axis' type: presentation mode's larger one needs fewer of them.
    connect(axisX, &QAbstractAxis::labelsFontChanged, this, &BandwidthSizeChart::labelSizes);
    axisX->setTitleText(tr("transfer size (log scale)"));
    axisX->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    const double pad = minBytes == maxBytes ? 2.0 : 1.0;
    const double lo = std::log2(double(minBytes)) - pad, hi = std::log2(double(maxBytes)) + pad;
    axisX->setRange(lo, hi);
    axisX->setStartValue(lo);
    m_sizes.clear();
    for (const Curve &curve : m_curves)
        for (const auto &point : curve.points)
            m_sizes.push_back(point.first);
    std::sort(m_sizes.begin(), m_sizes.end());
    m_sizes.erase(std::unique(m_sizes.begin(), m_sizes.end()), m_sizes.end());
    // A grid line at every size measured; the axis' labels are placeholders (unique, invisible) that
    // reserve the height of the ones labelSizes draws.
    for (std::size_t i = 0; i < m_sizes.size(); ++i)
        axisX->append(QString(qsizetype(i) + 1, QChar(0x200b)), sizeToX(m_sizes[i]));
    auto *axisY = new QValueAxis;
    axisY->setTitleText(tr("median GB/s (1e9 B/s)"));
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
    labelSizes();
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
