// StackedTimelines: see stacked_timelines.h.
#include "ui/timeline/stacked_timelines.h"

#include <QFontMetrics>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>

#include "ui/common/image_export.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

namespace streamscope::ui {

namespace {

// Compact rows (presentation mode): at most this many thread and stream rows in all the variants, or
// streams alone where a variant has at least kManyStreams of them.
constexpr int kMaxCompactRows = 24;
constexpr int kManyStreams = 16;

} // namespace

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
    m_titles.clear();
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
        m_titles.emplace_back(entries[i].title.isEmpty() ? entries[i].label : entries[i].title, entries[i].subtitle);
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
    m_compact = presentation;
    // What a compact row shows: what the lessons are about, as far as every variant stays readable (at
    // least ten pixels a row at 720p). A few variants with few threads and streams: the host threads
    // and the streams, each labelled (sync vs async: "watch the host row"; the per-thread default
    // stream's two stream lanes). Many streams (Hyper-Q's 32): the streams, whose waves are the lesson.
    // Else (the overlap grid's eight variants): the copy and compute counts.
    enum class Choice { ThreadsAndStreams, Streams, Counts };
    Choice choice = Choice::Counts;
    {
        int rows = 0, streams = 0;
        for (TimelineView *view : m_views)
            if (const LaneModel *model = view->laneModel()) {
                int threadRows = 0, streamRows = 0;
                for (const Lane &lane : model->lanes()) {
                    threadRows += lane.kind == LaneKind::HostThread;
                    streamRows += lane.kind == LaneKind::Stream;
                }
                rows = std::max(rows, threadRows + streamRows);
                streams = std::max(streams, streamRows);
            }
        if (rows * int(m_views.size()) <= kMaxCompactRows)
            choice = Choice::ThreadsAndStreams;
        else if (streams >= kManyStreams)
            choice = Choice::Streams;
    }
    for (std::size_t i = 0; i < m_views.size(); ++i) {
        TimelineView *view = m_views[i];
        const LaneModel *model = view->laneModel();
        if (presentation && model) {
            std::uint32_t kinds = 0;
            for (const Lane &lane : model->lanes())
                if ((choice == Choice::ThreadsAndStreams && lane.kind == LaneKind::HostThread)
                    || (choice != Choice::Counts && lane.kind == LaneKind::Stream))
                    kinds |= 1u << unsigned(lane.kind);
            if ((kinds & (1u << unsigned(LaneKind::Stream))) == 0)
                for (const Lane &lane : model->lanes())
                    if (lane.kind == LaneKind::H2DActivity || lane.kind == LaneKind::D2HActivity
                        || lane.kind == LaneKind::D2DActivity || lane.kind == LaneKind::ComputeActivity
                        || lane.kind == LaneKind::PeerLink)
                        kinds |= 1u << unsigned(lane.kind);
            const bool first = i == 0, last = i + 1 == m_views.size();
            const auto [title, subtitle] = m_titles[i];
            view->setMetricsAdjustment([=](TimelineMetrics &m) {
                m.showRuler = first;
                m.showLegend = last;
                m.laneKinds = kinds;
                m.groupTitle = title;
                m.groupSubtitle = subtitle;
                m.fillHeight = true;
                m.scrollable = false; // every variant in view at once
                m.minLaneHeight = 4;
            });
        } else {
            view->setMetricsAdjustment({});
        }
        view->setPresentationMode(presentation);
        view->setDarkPalette(dark);
        m_labels[i]->setVisible(!presentation);
        if (!model)
            continue;
        if (presentation) {
            // Rows share the height evenly: none scrolls out of sight. Each at least its title band, ten
            // pixels a lane, and the ruler or the legend it carries (a share by stretch alone gave the
            // first and last variants' lanes less than the others').
            const TimelineMetrics &m = view->metrics();
            int lanes = 0;
            for (const Lane &lane : model->lanes())
                lanes += (m.laneKinds >> unsigned(lane.kind)) & 1u;
            QFont bold = m.font;
            bold.setBold(true);
            view->setMinimumHeight(std::max(40, QFontMetrics(bold).height() + 6 + 10 * lanes
                                                    + (m.showRuler ? m.rulerHeight : 0)
                                                    + (m.showLegend ? m.legendHeight : 0)));
            view->setMaximumHeight(QWIDGETSIZE_MAX);
            continue;
        }
        TimelinePainter painter;
        painter.setModel(model);
        painter.setMetrics(TimelineMetrics::make(presentation, view->font()));
        const int natural = painter.layout(QRect(0, 0, 1000, 1 << 20)).legend.bottom() + 1;
        view->setMaximumHeight(natural);
        view->setMinimumHeight(std::min(natural, minHeight));
    }
    m_layout->setSpacing(presentation ? 0 : 2);
    // The first row carries the ruler and the last the legend: they get that much more height.
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        int stretch = 0;
        if (presentation && !m_views.empty()) {
            const TimelineMetrics &m = m_views[i]->metrics();
            stretch = 100 + (i == 0 ? m.rulerHeight : 0) + (i + 1 == m_rows.size() ? m.legendHeight : 0);
        }
        m_layout->setStretchFactor(m_rows[i], stretch);
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
