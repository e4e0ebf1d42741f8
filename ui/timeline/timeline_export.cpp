// TimelineExport (see timeline_export.h).
#include "ui/timeline/timeline_export.h"

#include <QPainter>
#include <QStringList>

#include <memory>

#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

namespace streamscope::ui {

TimelineOverlay TimelineExport::overlay(const TimelineView &v)
{
    TimelineOverlay overlay;
    overlay.selectedOp = v.m_selected.op;
    overlay.hoveredOp = -1; // exports show the selection, not where the pointer happened to be
    overlay.allFlows = v.m_showAllFlows;
    overlay.selectedEnd = TimelineOverlay::End(int(v.m_selectedEnd));
    overlay.selectionStartNs = (v.m_zoom->selectionStart() + v.m_zoomOffsetNs);
    overlay.selectionEndNs = (v.m_zoom->selectionEnd() + v.m_zoomOffsetNs);
    v.addMatches(overlay);
    v.addKeyFigure(overlay, true);
    return overlay;
}

QString TimelineExport::title(const TimelineView &v)
{
    if (!v.m_trace)
        return {};
    QStringList parts;
    parts << QString::fromStdString(v.m_trace->title.empty() ? v.m_trace->sourcePath : v.m_trace->title);
    // The GPU, or the GPUs as the summary names them ("2 × NVIDIA H100 80GB HBM3", "2 GPUs"): a slide
    // of a two-GPU run named the first one only.
    QStringList models;
    for (const auto &d : v.m_trace->devices)
        if (!d.name.empty() && !models.contains(QString::fromStdString(d.name)))
            models << QString::fromStdString(d.name);
    if (v.m_trace->devices.size() > 1 && models.size() == 1)
        parts << QStringLiteral("%1 × %2").arg(v.m_trace->devices.size()).arg(models.front());
    else if (v.m_trace->devices.size() > 1 && models.isEmpty())
        parts << TimelineView::tr("%1 GPUs").arg(v.m_trace->devices.size());
    else
        parts << models.join(QStringLiteral(" + "));
    if (v.m_trace->createdUtc.size() >= 10)
        parts << QString::fromStdString(v.m_trace->createdUtc.substr(0, 10));
    if (v.m_trace->repetitions.size() > 1)
        parts << TimelineView::tr("repetition %1 of %2").arg(v.m_repetition + 1).arg(v.m_trace->repetitions.size());
    parts.removeAll(QString());
    return parts.join(QStringLiteral(" — "));
}

void TimelineExport::render(const TimelineView &v, QPainter &painter, const QRect &target)
{
    TimelinePainter painterCopy = v.m_painter->threadCopy(); // the same rows, labels and column width
    painterCopy.setMetrics(v.m_painter->metrics());
    const TimelineLayout layout = painterCopy.layout(target);
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, v.windowStartNs(), v.windowEndNs());
    const TimelineOverlay overlay = TimelineExport::overlay(v);
    if (!v.m_model) {
        painter.fillRect(target, v.m_palette->background());
        painter.setPen(v.m_palette->mutedText());
        painter.drawText(target, Qt::AlignCenter,
                         TimelineView::tr("No trace loaded: open a trace file or run a workload."));
        return;
    }
    painterCopy.paintAll(painter, layout, mapping, overlay);
}

bool TimelineExport::exportImage(const TimelineView &v, const QString &path, QSize size, const ImageOptions &options,
                                 QString *error)
{
    if (!size.isValid() || size.isEmpty())
        size = v.size().isEmpty() ? QSize(1600, 900) : v.size();
    // The window's own painter (its rows: groups, pins, hidden lanes and collapsed groups as the lane
    // state has them, the unique or user-given labels, the label column's width), with the lanes filling
    // the picture and the background as asked; shared by the PNG pass and the SVG layers. What you see
    // is what you export.
    auto exporter = std::make_shared<TimelinePainter>(v.m_painter->threadCopy());
    TimelineMetrics metrics = v.m_painter->metrics();
    metrics.fillHeight = true;
    // Every row that is not hidden, however far the window is scrolled: the picture is the whole tree.
    metrics.scrollable = false;
    metrics.transparentBackground = options.transparent;
    exporter->setMetrics(metrics);
    auto overlay = std::make_shared<TimelineOverlay>(TimelineExport::overlay(v));
    ImageSource source;
    source.title = v.m_trace ? QString::fromStdString(v.m_trace->title) : QStringLiteral("StreamScope timeline");
    source.description = QStringLiteral("StreamScope timeline, repetition %1").arg(v.m_repetition + 1);
    source.background = v.m_palette->background();
    source.text = v.m_palette->text();
    source.paint = [view = &v, exporter, overlay](QPainter &painter, const QRect &target) {
        if (!view->m_model) {
            render(*view, painter, target);
            return;
        }
        const TimelineLayout layout = exporter->layout(target);
        exporter->paintAll(painter, layout,
                           TimelinePainter::mappingFor(layout, view->windowStartNs(), view->windowEndNs()), *overlay);
    };
    if (v.m_model) {
        source.layers = [view = &v, exporter, overlay](const QRect &target) {
            const TimelineLayout layout = exporter->layout(target);
            const TimeMapping mapping = TimelinePainter::mappingFor(layout, view->windowStartNs(), view->windowEndNs());
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
