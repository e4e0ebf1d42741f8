// TimelineExport (see timeline_export.h).
#include "ui/timeline/timeline_export.h"

#include <QPainter>
#include <QStringList>

#include <memory>

#include "engine/model/trace.h"
#include "ui/common/op_palette.h"
#include "ui/timeline/timeline_painter.h"

namespace streamscope::ui {

QString TimelineExport::title(const engine::Trace *trace, int repetition)
{
    if (!trace)
        return {};
    QStringList parts;
    parts << QString::fromStdString(trace->title.empty() ? trace->sourcePath : trace->title);
    // The GPU, or the GPUs as the summary names them ("2 × NVIDIA H100 80GB HBM3", "2 GPUs"): a slide
    // of a two-GPU run named the first one only.
    QStringList models;
    for (const auto &d : trace->devices)
        if (!d.name.empty() && !models.contains(QString::fromStdString(d.name)))
            models << QString::fromStdString(d.name);
    if (trace->devices.size() > 1 && models.size() == 1)
        parts << QStringLiteral("%1 × %2").arg(trace->devices.size()).arg(models.front());
    else if (trace->devices.size() > 1 && models.isEmpty())
        parts << tr("%1 GPUs").arg(trace->devices.size());
    else
        parts << models.join(QStringLiteral(" + "));
    if (trace->createdUtc.size() >= 10)
        parts << QString::fromStdString(trace->createdUtc.substr(0, 10));
    if (trace->repetitions.size() > 1)
        parts << tr("repetition %1 of %2").arg(repetition + 1).arg(trace->repetitions.size());
    parts.removeAll(QString());
    return parts.join(QStringLiteral(" — "));
}

void TimelineExport::render(const TimelinePicture &v, QPainter &painter, const QRect &target)
{
    TimelinePainter painterCopy = v.painter->threadCopy(); // the same rows, labels and column width
    painterCopy.setMetrics(v.painter->metrics());
    const TimelineLayout layout = painterCopy.layout(target);
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, v.windowStartNs, v.windowEndNs);
    if (!v.hasLanes) {
        painter.fillRect(target, v.palette->background());
        painter.setPen(v.palette->mutedText());
        painter.drawText(target, Qt::AlignCenter, tr("No trace loaded: open a trace file or run a workload."));
        return;
    }
    painterCopy.paintAll(painter, layout, mapping, v.overlay);
}

bool TimelineExport::exportImage(const TimelinePicture &v, const QString &path, QSize size, const ImageOptions &options,
                                 QString *error)
{
    if (!size.isValid() || size.isEmpty())
        size = v.widgetSize.isEmpty() ? QSize(1600, 900) : v.widgetSize;
    // The window's own painter (its rows: groups, pins, hidden lanes and collapsed groups as the lane
    // state has them, the unique or user-given labels, the label column's width), with the lanes filling
    // the picture and the background as asked; shared by the PNG pass and the SVG layers. What you see
    // is what you export.
    auto exporter = std::make_shared<TimelinePainter>(v.painter->threadCopy());
    TimelineMetrics metrics = v.painter->metrics();
    metrics.fillHeight = true;
    // Every row that is not hidden, however far the window is scrolled: the picture is the whole tree.
    metrics.scrollable = false;
    metrics.transparentBackground = options.transparent;
    exporter->setMetrics(metrics);
    auto overlay = std::make_shared<TimelineOverlay>(v.overlay);
    ImageSource source;
    source.title = v.trace ? QString::fromStdString(v.trace->title) : QStringLiteral("StreamScope timeline");
    source.description = QStringLiteral("StreamScope timeline, repetition %1").arg(v.repetition + 1);
    source.background = v.palette->background();
    source.text = v.palette->text();
    source.paint = [picture = v, exporter, overlay](QPainter &painter, const QRect &target) {
        if (!picture.hasLanes) {
            render(picture, painter, target);
            return;
        }
        const TimelineLayout layout = exporter->layout(target);
        exporter->paintAll(painter, layout,
                           TimelinePainter::mappingFor(layout, picture.windowStartNs, picture.windowEndNs), *overlay);
    };
    if (v.hasLanes) {
        source.layers = [start = v.windowStartNs, end = v.windowEndNs, exporter, overlay](const QRect &target) {
            const TimelineLayout layout = exporter->layout(target);
            const TimeMapping mapping = TimelinePainter::mappingFor(layout, start, end);
            using Layer = ImageSource::Layer;
            std::vector<Layer> layers;
            layers.push_back({layout.corner.united(layout.ruler).adjusted(0, 0, 0, 1),
                              [=](QPainter &p) { exporter->paintRuler(p, layout, mapping, *overlay); }});
            layers.push_back(
                {layout.headers.adjusted(0, 0, 1, 1), [=](QPainter &p) { exporter->paintHeaders(p, layout); }});
            if (!layout.title.isEmpty())
                layers.push_back({layout.title, [=](QPainter &p) { exporter->paintTitle(p, layout); }});
            layers.push_back({layout.plot.adjusted(0, 0, 0, 1), [=](QPainter &p) {
                                  for (int i = 0; i < int(layout.lanes.size()); ++i)
                                      if (!layout.lanes[std::size_t(i)].isEmpty())
                                          exporter->paintLane(p, i, layout.lanes[std::size_t(i)], mapping,
                                                              layout.plot.left(), layout.plot.right() + 1);
                                  exporter->paintOverlay(p, layout, mapping, *overlay);
                              }});
            layers.push_back({layout.legend, [=](QPainter &p) { exporter->paintLegend(p, layout); }});
            return layers;
        };
    }
    return ui::exportImage(path, size, source, options, error);
}

} // namespace streamscope::ui
