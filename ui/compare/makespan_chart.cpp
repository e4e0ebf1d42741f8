// MakespanChart: see makespan_chart.h.
#include "ui/compare/makespan_chart.h"

#include "ui/common/format_units.h"
#include <QFontMetricsF>

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QGraphicsSimpleTextItem>
#include <QLegendMarker>
#include <QLineSeries>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>
#include <limits>

#include "ui/common/image_export.h"
#include "ui/compare/chart_style.h"
#include "ui/timeline/time_mapping.h"

namespace streamscope::ui {

namespace {

// One bar set per verdict: a stacked series with each variant's median in the set of its verdict and 0
// in the others gives one colour per verdict and a legend that explains the colours.
enum class BarKind { Baseline, Faster, Slower, Noise };

BarKind barKindOf(int index, const engine::Verdict &verdict)
{
    if (index == 0)
        return BarKind::Baseline;
    switch (verdict.kind) {
    case engine::VerdictKind::Faster: return BarKind::Faster;
    case engine::VerdictKind::Slower: return BarKind::Slower;
    case engine::VerdictKind::Noise:
    case engine::VerdictKind::Unknown: return BarKind::Noise;
    }
    return BarKind::Noise;
}

// "streams=4, order=breadth-first" -> "4, breadth-first": the axis names go in the axis title once, so
// that eight categories' labels fit under their bars.
QString compactLabel(const QString &label)
{
    QStringList values;
    for (const QString &part : label.split(QStringLiteral(", "))) {
        const qsizetype eq = part.indexOf(QLatin1Char('='));
        values << (eq >= 0 ? part.mid(eq + 1) : part);
    }
    return values.join(QStringLiteral(", "));
}

QString axisNames(const QString &label)
{
    QStringList names;
    for (const QString &part : label.split(QStringLiteral(", "))) {
        const qsizetype eq = part.indexOf(QLatin1Char('='));
        if (eq > 0)
            names << part.left(eq);
    }
    return names.join(QStringLiteral(", "));
}

} // namespace

MakespanChart::MakespanChart(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    chart()->setTitle(tr("Makespan per variant: median, whiskers min–max"));
    chart()->legend()->setAlignment(Qt::AlignBottom);
    chart()->setAnimationOptions(QChart::NoAnimation);
}

void MakespanChart::setSummaries(const std::vector<engine::VariantSummary> &summaries)
{
    QChart *c = chart();
    c->removeAllSeries();
    for (QAbstractAxis *axis : c->axes())
        c->removeAxis(axis), delete axis;
    m_whiskers.clear();
    m_categories.clear();
    m_annotations.clear();
    qDeleteAll(m_annotationItems);
    m_annotationItems.clear();
    qDeleteAll(m_labelItems);
    m_labelItems.clear();
    m_bars = nullptr;

    double maxNs = 0;
    for (const auto &v : summaries)
        maxNs = std::max(maxNs, v.summary.makespanNs.max);
    const TimeUnit unit = timeUnitFor(qint64(maxNs));
    m_unitNs = unit.nsPerUnit;
    m_unitName = QString::fromUtf8(unit.suffix);

    m_bars = new QStackedBarSeries;
    auto *baseline = new QBarSet(tr("baseline"));
    auto *faster = new QBarSet(tr("faster than baseline"));
    auto *slower = new QBarSet(tr("slower than baseline"));
    auto *noise = new QBarSet(tr("noise: ranges overlap, no winner"));
    baseline->setColor(QColor(0x4e, 0x79, 0xa7));
    faster->setColor(QColor(0x2e, 0x9e, 0x52));
    slower->setColor(QColor(0xd0, 0x50, 0x40));
    noise->setColor(QColor(0xb8, 0xb8, 0xb8));
    noise->setBorderColor(QColor(0x70, 0x70, 0x70));
    QBarSet *sets[] = {baseline, faster, slower, noise};

    for (std::size_t i = 0; i < summaries.size(); ++i) {
        const auto &v = summaries[i];
        const double median = v.summary.makespanNs.median / m_unitNs;
        const BarKind kind = barKindOf(int(i), v.vsFirst);
        for (int k = 0; k < 4; ++k)
            *sets[k] << (k == int(kind) ? median : 0.0);
        const QString verdict = i == 0 ? tr("baseline") : QString::fromStdString(engine::describe(v.vsFirst));
        m_categories << compactLabel(QString::fromStdString(v.label));
        m_annotations << QStringLiteral("%1\n%2").arg(formatDuration(qint64(v.summary.makespanNs.median)), verdict);
    }
    for (QBarSet *set : sets)
        m_bars->append(set);
    m_bars->setBarWidth(0.6);
    c->addSeries(m_bars);

    auto *axisX = new QBarCategoryAxis;
    // Placeholders that reserve the height of the labels drawn under the bars (placeAnnotations): unique
    // (a category axis needs that), invisible, as many lines as the longest label may take.
    int lines = 1;
    for (const QString &label : m_categories)
        lines = std::max(lines, int(label.count(QLatin1Char(',')) + label.count(QLatin1Char('-')) + 1));
    QStringList placeholders;
    for (int i = 0; i < m_categories.size(); ++i)
        placeholders << QString(i + 1, QChar(0x200b)) + QStringLiteral("<br>&#8203;").repeated(lines - 1);
    axisX->append(placeholders);
    if (!summaries.empty())
        axisX->setTitleText(tr("variant (%1)<br>above each bar: median and verdict against the first")
                                .arg(axisNames(QString::fromStdString(summaries.front().label))));
    // The verdicts go above the whiskers, the labels under the bars (placeAnnotations).
    auto *axisY = new QValueAxis;
    axisY->setTitleText(tr("makespan (%1)").arg(m_unitName));
    axisY->setRange(0, maxNs > 0 ? maxNs / m_unitNs * 1.08 : 1.0);
    axisY->applyNiceNumbers();
    axisY->setLabelFormat(QStringLiteral("%.3g"));
    c->addAxis(axisX, Qt::AlignBottom);
    c->addAxis(axisY, Qt::AlignLeft);
    m_bars->attachAxis(axisX);
    m_bars->attachAxis(axisY);

    // Whiskers: a polyline per variant (bottom cap, vertical min..max, top cap) on the category axis,
    // where category i sits at x = i.
    QPen whiskerPen(QColor(0x30, 0x30, 0x30));
    whiskerPen.setWidthF(1.6);
    for (std::size_t i = 0; i < summaries.size(); ++i) {
        const auto &m = summaries[i].summary.makespanNs;
        const double x = double(i), lo = m.min / m_unitNs, hi = m.max / m_unitNs, cap = 0.12;
        auto *line = new QLineSeries;
        line->setName(tr("min–max"));
        line->append({{x - cap, lo}, {x + cap, lo}, {x, lo}, {x, hi}, {x - cap, hi}, {x + cap, hi}});
        line->setPen(whiskerPen);
        c->addSeries(line);
        line->attachAxis(axisX);
        line->attachAxis(axisY);
        // One legend entry for all whiskers is enough.
        if (i > 0)
            for (QLegendMarker *marker : c->legend()->markers(line))
                marker->setVisible(false);
        m_whiskers.push_back(line);
    }
    // Room above the tallest whisker for its annotation, then place them whenever the plot moves.
    axisY->setRange(0, maxNs > 0 ? maxNs / m_unitNs * 1.2 : 1.0);
    axisY->applyNiceNumbers();
    connect(c, &QChart::plotAreaChanged, this, &MakespanChart::placeAnnotations, Qt::UniqueConnection);
    // The labels under the bars follow the axis' type (applyChartStyle sets it after this).
    connect(axisX, &QAbstractAxis::labelsFontChanged, this, &MakespanChart::placeAnnotations);
    placeAnnotations();
    // Empty verdict sets would still show in the legend: hide them.
    for (QBarSet *set : sets) {
        if (set->sum() > 0)
            continue;
        for (QLegendMarker *marker : c->legend()->markers(m_bars))
            if (marker->label() == set->label())
                marker->setVisible(false);
    }
}

void MakespanChart::placeAnnotations()
{
    if (!m_bars)
        return;
    if (m_annotationItems.size() != m_annotations.size()) {
        qDeleteAll(m_annotationItems);
        m_annotationItems.clear();
        // Type and colour follow the chart's legend and title (light/dark, presentation: chart_style.h).
        QFont font = chart()->legend()->font();
        font.setPointSizeF(font.pointSizeF() * 0.9);
        for (const QString &text : m_annotations) {
            auto *item = new QGraphicsSimpleTextItem(text, chart());
            item->setFont(font);
            item->setBrush(chart()->titleBrush());
            item->setZValue(20);
            m_annotationItems << item;
        }
    }
    // Narrow bars (many variants, presentation type): the makespan is on the axis and in the table, so
    // drop it first, then the word after the ratio, rather than let neighbours overlap.
    const double spacing = m_annotationItems.size() > 1 ? chart()->mapToPosition(QPointF(1, 0), m_bars).x()
                                                              - chart()->mapToPosition(QPointF(0, 0), m_bars).x()
                                                        : chart()->plotArea().width();
    for (int i = 0; i < m_annotationItems.size(); ++i) {
        QGraphicsSimpleTextItem *item = m_annotationItems[i];
        const QString full = m_annotations[i];
        item->setText(full);
        if (item->boundingRect().width() > spacing - 6) {
            const QString verdict = full.section(QLatin1Char('\n'), 1);
            item->setText(verdict);
            if (item->boundingRect().width() > spacing - 6)
                item->setText(verdict.section(QLatin1Char(' '), 0, 0));
        }
        const QPointF top = chart()->mapToPosition(QPointF(i, whisker(i).second), m_bars);
        const QRectF box = item->boundingRect();
        item->setPos(top.x() - box.width() / 2, top.y() - box.height() - 4);
    }

    // The category labels: one value per line; where a value is too wide for its bar every label breaks
    // after its hyphens ("depth-" / "first"), and what is still too wide makes all of them smaller, in one
    // type for every bar (a label shrunk alone read as another kind of text), never with an ellipsis.
    QAbstractAxis *axisX = chart()->axes(Qt::Horizontal).value(0);
    if (!axisX)
        return;
    const QFont axisFont = axisX->labelsFont();
    if (m_labelItems.size() != m_categories.size()) {
        qDeleteAll(m_labelItems);
        m_labelItems.clear();
        for (int i = 0; i < m_categories.size(); ++i) {
            auto *item = new QGraphicsSimpleTextItem(chart());
            item->setZValue(20);
            item->setData(kChartTextRole, QStringLiteral("axis label")); // its type is the axis' (chart_style.h)
            m_labelItems << item;
        }
    }
    const double room = std::max(12.0, spacing - 4);
    const QFontMetricsF fm(axisFont);
    auto widest = [&fm](const QStringList &text) {
        double w = 0;
        for (const QString &line : text)
            w = std::max(w, fm.horizontalAdvance(line));
        return w;
    };
    QList<QStringList> lines;
    bool tooWide = false;
    for (const QString &category : std::as_const(m_categories)) {
        lines << category.split(QStringLiteral(", "));
        tooWide |= widest(lines.back()) > room;
    }
    double widestLabel = 0;
    for (QStringList &label : lines) {
        if (tooWide) {
            QStringList broken;
            for (const QString &line : std::as_const(label))
                broken << line.split(QLatin1Char('-')).join(QStringLiteral("-\n")).split(QLatin1Char('\n'));
            label = broken;
        }
        widestLabel = std::max(widestLabel, widest(label));
    }
    QFont font = axisFont;
    if (widestLabel > room && font.pointSizeF() > 0)
        font.setPointSizeF(std::max(font.pointSizeF() * 0.6, font.pointSizeF() * room / widestLabel));
    for (int i = 0; i < m_labelItems.size(); ++i) {
        QGraphicsSimpleTextItem *item = m_labelItems[i];
        item->setBrush(axisX->labelsBrush());
        item->setFont(font);
        item->setText(lines[i].join(QLatin1Char('\n')));
        const QPointF bottom = chart()->mapToPosition(QPointF(i, 0), m_bars);
        const QRectF box = item->boundingRect();
        item->setPos(bottom.x() - box.width() / 2, chart()->plotArea().bottom() + 4);
    }
}

QFont MakespanChart::drawnLabelFont(int i) const
{
    return i >= 0 && i < m_labelItems.size() ? m_labelItems[i]->font() : QFont();
}

QString MakespanChart::drawnLabel(int i) const
{
    return i >= 0 && i < m_labelItems.size() ? m_labelItems[i]->text() : QString();
}

QRectF MakespanChart::drawnLabelRect(int i) const
{
    return i >= 0 && i < m_labelItems.size() ? m_labelItems[i]->mapRectToParent(m_labelItems[i]->boundingRect())
                                             : QRectF();
}

double MakespanChart::barValue(int variant) const
{
    if (!m_bars)
        return 0;
    double sum = 0;
    for (QBarSet *set : m_bars->barSets())
        if (variant >= 0 && variant < set->count())
            sum += set->at(variant);
    return sum;
}

std::pair<double, double> MakespanChart::whisker(int variant) const
{
    if (variant < 0 || variant >= int(m_whiskers.size()))
        return {0, 0};
    double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
    for (const QPointF &p : m_whiskers[std::size_t(variant)]->points()) {
        lo = std::min(lo, p.y());
        hi = std::max(hi, p.y());
    }
    return {lo, hi};
}

bool MakespanChart::exportImage(const QString &path, QSize size, QString *error)
{
    return exportWidgetImage(this, path, size, error);
}

} // namespace streamscope::ui
