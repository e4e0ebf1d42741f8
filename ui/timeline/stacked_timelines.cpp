// StackedTimelines: see stacked_timelines.h.
#include "ui/timeline/stacked_timelines.h"

#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/common/image_export.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

namespace streamscope::ui {

StackedTimelines::StackedTimelines(QWidget *parent) : QWidget(parent)
{
    m_layout = new QVBoxLayout(this);
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(2);
    m_zoom = new ZoomControl(this);
}

StackedTimelines::~StackedTimelines() = default;

void StackedTimelines::setEntries(std::vector<Entry> entries)
{
    // The layout's items (rows and the closing stretch) go first, then the rows themselves.
    while (QLayoutItem *item = m_layout->takeAt(0))
        delete item;
    for (QWidget *row : m_rows)
        delete row;
    m_rows.clear();
    m_views.clear();
    m_labels.clear();
    m_extentNs = 0;

    for (std::size_t i = 0; i < entries.size(); ++i) {
        auto *row = new QWidget(this);
        auto *rowLayout = new QVBoxLayout(row);
        rowLayout->setContentsMargins(0, 0, 0, 0);
        rowLayout->setSpacing(0);
        auto *label = new QLabel(entries[i].label, row);
        label->setStyleSheet(QStringLiteral("font-weight: bold; padding: 2px 4px;"));
        auto *view = new TimelineView(row);
        view->setTrace(entries[i].trace, entries[i].repetition);
        rowLayout->addWidget(label);
        rowLayout->addWidget(view, 1);
        m_layout->addWidget(row);
        m_rows.push_back(row);
        m_views.push_back(view);
        m_labels.push_back(label);
        if (const LaneModel *model = view->laneModel()) {
            m_extentNs = std::max<qint64>(m_extentNs, model->durationNs());
            // No taller than its lanes at their natural height: extra room goes below the last
            // timeline instead of blank bands between them.
            TimelinePainter painter;
            painter.setModel(model);
            painter.setMetrics(TimelineMetrics::make(view->presentationMode(), view->font()));
            view->setMaximumHeight(painter.layout(QRect(0, 0, 1000, 1 << 20)).legend.bottom() + 1);
        }
    }
    m_layout->addStretch(0);
    // One time scale: every timeline follows one zoom whose extent is the longest variant's, so a shorter
    // variant ends before the right edge instead of being stretched to fill it.
    m_zoom->clearSelection();
    m_zoom->setExtent(0, m_extentNs);
    m_zoom->fitAll();
    for (TimelineView *view : m_views)
        view->followZoom(m_zoom);
}

void StackedTimelines::setWindow(qint64 startNs, qint64 endNs)
{
    m_zoom->setWindow(startNs, endNs);
}

void StackedTimelines::setViewModes(bool presentation, bool dark, int minHeight)
{
    for (TimelineView *view : m_views) {
        view->setPresentationMode(presentation);
        view->setDarkPalette(dark);
        const LaneModel *model = view->laneModel();
        if (!model)
            continue;
        TimelinePainter painter;
        painter.setModel(model);
        painter.setMetrics(TimelineMetrics::make(presentation, view->font()));
        const int natural = painter.layout(QRect(0, 0, 1000, 1 << 20)).legend.bottom() + 1;
        view->setMaximumHeight(natural);
        view->setMinimumHeight(std::min(natural, minHeight));
    }
}

void StackedTimelines::fitAll()
{
    m_zoom->fitAll();
}

bool StackedTimelines::exportImage(const QString &path, QSize size, QString *error)
{
    return exportWidgetImage(this, path, size, error);
}

} // namespace streamscope::ui
