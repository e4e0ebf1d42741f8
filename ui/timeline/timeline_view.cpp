// TimelineView: the widget around TimelinePainter: mouse and keyboard navigation, hover tooltips, op
// selection and export; the per-lane image caches (shifted on pure pans, repainted concurrently on a zoom)
// are LanePaintScheduler's, the tooltips' text TimelineToolTips', the lane menus LaneMenus'.
#include "ui/timeline/timeline_view.h"

#include "ui/common/image_export.h"
#include "ui/document/trace_document.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QFileInfo>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPaintEngine>
#include <QPainter>
#include <QRegion>
#include <QScrollBar>
#include <QStyle>
#include <QThread>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "engine/analysis/analysis.h"
#include "engine/analysis/op_description.h"
#include "engine/model/errors.h"
#include "ui/common/format_units.h"
#include "ui/common/host_range_labels.h"
#include "ui/common/op_palette.h"
#include "ui/timeline/lane_menus.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/lane_paint_scheduler.h"
#include "ui/timeline/lane_state_edits.h"
#include "ui/timeline/lane_tree.h"
#include "ui/timeline/time_mapping.h"
#include "ui/timeline/timeline_export.h"
#include "ui/timeline/timeline_input.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/timeline_tooltips.h"
#include "ui/timeline/zoom_control.h"

namespace streamscope::ui {

namespace {

constexpr double kPickPixels = 3; // how far from a bar a click still picks it
constexpr int kEdgeGrabPixels = 3; // how far from the label column's edge a drag resizes it

} // namespace

TimelineView::TimelineView(QWidget *parent) :
    QWidget(parent), m_palette(std::make_unique<OpPalette>()), m_painter(std::make_unique<TimelinePainter>())
{
    m_zoom = new ZoomControl(this);
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(320, 160);
    m_painter->setPalette(m_palette.get());
    applyStyle();
    m_ownZoom = m_zoom;
    attachZoom();
    m_vscroll = new QScrollBar(Qt::Vertical, this);
    m_vscroll->hide();
    m_vscroll->setFocusPolicy(Qt::NoFocus);
    connect(m_vscroll, &QScrollBar::valueChanged, this, [this](int value) {
        if (value == m_painter->scrollY())
            return;
        m_painter->setScrollY(value);
        update();
    });
}

QRect TimelineView::layoutRect() const
{
    QRect r = rect();
    if (!m_model || !m_painter->metrics().scrollable)
        return r;
    // Row heights do not depend on the width: the rows overflow with the scroll bar as without it.
    if (m_painter->layout(r).maxScrollY > 0)
        r.setRight(r.right() - style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this));
    return r;
}

TimelineLayout TimelineView::currentLayout() const
{
    return m_painter->layout(layoutRect());
}

void TimelineView::syncScrollBar()
{
    if (!m_vscroll)
        return; // the constructor's first applyStyle
    const TimelineLayout layout = currentLayout();
    if (layout.maxScrollY <= 0) {
        m_vscroll->hide();
        m_painter->setScrollY(0);
        return;
    }
    const QSignalBlocker quiet(m_vscroll);
    m_vscroll->setGeometry(layout.target.right() + 1, layout.plot.top(), width() - layout.target.width(),
                           layout.plot.height());
    m_vscroll->setRange(0, layout.maxScrollY);
    m_vscroll->setPageStep(std::max(1, layout.plot.height() - m_painter->metrics().readableLaneHeight));
    m_vscroll->setSingleStep(std::max(1, m_painter->metrics().readableLaneHeight));
    m_vscroll->setValue(layout.scrollY);
    m_painter->setScrollY(layout.scrollY);
    m_vscroll->show();
}

int TimelineView::scrollPageStep() const
{
    return m_vscroll->pageStep();
}

int TimelineView::scrollY() const
{
    return currentLayout().scrollY;
}

int TimelineView::maxScrollY() const
{
    return currentLayout().maxScrollY;
}

void TimelineView::setScrollY(int pixels)
{
    m_painter->setScrollY(std::clamp(pixels, 0, std::max(0, maxScrollY())));
    syncScrollBar();
    update();
}

void TimelineView::ensureRowVisible(int row)
{
    const TimelineLayout layout = currentLayout();
    const int y = layout.scrollToShow(row);
    if (y != layout.scrollY)
        setScrollY(y);
}

TimelineView::~TimelineView() = default;

void TimelineView::setTrace(std::shared_ptr<const engine::Trace> trace, int repetition)
{
    m_trace = std::move(trace);
    m_repetition = repetition;
    rebuildModel();
}

void TimelineView::setDocument(TraceDocument *document)
{
    m_documentConnections.clear();
    m_document = document;
    m_arrangement.setDocument(document);
    if (!document)
        return;
    m_documentConnections << connect(document, &TraceDocument::traceChanged, this,
                                     [this] { setTrace(m_document->trace(), m_document->repetition()); });
    m_documentConnections << connect(document, &TraceDocument::repetitionChanged, this,
                                     [this](int repetition) { setRepetition(repetition); });
    m_documentConnections << connect(document, &TraceDocument::selectionChanged, this, [this](int repetition, int op) {
        // Shown, not said back: the document's selection may be several ops, which opSelected would
        // make one again.
        if (repetition == m_repetition) {
            const QSignalBlocker quiet(this);
            selectOp(op);
        }
    });
    m_documentConnections << connect(document, &TraceDocument::matchesChanged, this, [this] { update(); });
    m_documentConnections << connect(document, &TraceDocument::selectedOpsChanged, this, [this] { update(); });
    m_documentConnections << connect(this, &TimelineView::opToggled, document, [this](int repetition, int op) {
        if (m_document && m_document->trace() == m_trace && repetition == m_document->repetition())
            m_document->toggleOpSelected(op);
    });
    m_documentConnections << connect(document, &TraceDocument::laneStateChanged, this, [this] { rebuildRows(); });
    // A range measured here (shift+drag, a drag in the ruler) is the document's; clearing it here too.
    m_documentConnections << connect(this, &TimelineView::rangeSelected, document, [this](qint64 start, qint64 end) {
        if (m_document && m_document->trace() == m_trace && m_document->repetition() == m_repetition)
            m_document->setRange(start, end);
    });
    m_documentConnections << connect(m_zoom, &ZoomControl::selectionChanged, document, [this] {
        if (m_document && !m_zoom->hasSelection())
            m_document->clearRange();
    });
    m_documentConnections << connect(this, &TimelineView::opSelected, document, [this](int repetition, int op) {
        if (m_document && repetition == m_document->repetition())
            m_document->selectOp(op);
    });
    setTrace(document->trace(), document->repetition());
    selectOp(document->selectedOp());
}

void TimelineView::rebuildRows()
{
    const LaneTree *tree = m_arrangement.tree();
    if (!m_model || !tree) {
        m_painter->setModel(m_model.get());
    } else {
        const LaneViewState state = m_arrangement.state();
        std::vector<QString> labels;
        labels.reserve(std::size_t(m_model->laneCount()));
        for (int i = 0; i < m_model->laneCount(); ++i)
            labels.push_back(tree->label(i, state));
        m_painter->setRows(tree, tree->rows(state), std::move(labels));
    }
    m_lanes.painterChanged();
    invalidateCache();
    syncScrollBar();
    update();
}

const std::vector<LaneRow> &TimelineView::rows() const
{
    return m_painter->rows();
}

QRect TimelineView::rowLabelRect(int row) const
{
    const TimelineLayout layout = currentLayout();
    if (row < 0 || std::size_t(row) >= layout.lanes.size())
        return {};
    const QRect lr = layout.lanes[std::size_t(row)];
    return QRect(layout.headers.left(), lr.top(), layout.headers.width(), lr.height());
}

int TimelineView::rowAt(const QPoint &pos) const
{
    if (!m_model)
        return -1;
    const TimelineLayout layout = currentLayout();
    if (pos.x() < layout.target.left() || pos.x() > layout.target.right())
        return -1;
    return layout.laneAt(pos.y());
}

void TimelineView::setLabelWidth(int pixels)
{
    pixels = std::max(0, pixels);
    if (pixels == m_labelWidth)
        return;
    m_labelWidth = pixels;
    m_painter->setLabelWidth(pixels);
    m_lanes.painterChanged();
    invalidateCache();
    update();
}

int TimelineView::labelWidth() const
{
    return currentLayout().headers.width();
}

void TimelineView::fitLabelWidth()
{
    setLabelWidth(m_painter->fittedLabelWidth());
}

bool TimelineView::onLabelEdge(const QPoint &pos) const
{
    if (!m_model)
        return false;
    const TimelineLayout layout = currentLayout();
    return pos.y() >= layout.target.top() && pos.y() <= std::max(layout.headers.bottom(), layout.ruler.bottom())
           && std::abs(pos.x() - (layout.headers.right() + 1)) <= kEdgeGrabPixels;
}

QMenu *TimelineView::createRowMenu(int row, QWidget *parent)
{
    return LaneMenus(m_arrangement, *this, [this] { fitLabelWidth(); }).rowMenu(rows(), row, parent);
}

void TimelineView::fillLanesMenu(QMenu *menu)
{
    LaneMenus(m_arrangement, *this, [this] { fitLabelWidth(); }).fillLanesMenu(menu);
}

void TimelineView::setShowSlowdown(bool on)
{
    if (on == m_painter->showSlowdown())
        return;
    m_painter->setShowSlowdown(on);
    m_lanes.painterChanged(); // the helper threads' painters are copies of this one
    invalidateCache();
    update();
}

bool TimelineView::showSlowdown() const
{
    return m_painter->showSlowdown();
}

void TimelineView::setShowAllFlows(bool on)
{
    if (on == m_showAllFlows)
        return;
    m_showAllFlows = on;
    update();
    emit showAllFlowsChanged(on);
}

int TimelineView::flowsInView(bool *capped) const
{
    if (capped)
        *capped = false;
    if (!m_model)
        return 0;
    const TimelineLayout layout = currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, windowStartNs(), windowEndNs());
    const TimelinePainter::Flows flows = m_painter->flowsInView(layout, mapping);
    if (capped)
        *capped = flows.capped;
    return int(flows.ops.size());
}

TimelineOverlay TimelineView::overlay(bool forExport) const
{
    TimelineOverlay overlay;
    overlay.selectedOp = m_selection.selected().op;
    // Exports show the selection, not where the pointer happened to be.
    overlay.hoveredOp = forExport ? -1 : m_selection.hovered().op;
    overlay.allFlows = m_showAllFlows;
    overlay.selectedEnd = TimelineOverlay::End(int(m_selection.end()));
    overlay.selectionStartNs = (m_zoom->selectionStart() + m_zoomOffsetNs);
    overlay.selectionEndNs = (m_zoom->selectionEnd() + m_zoomOffsetNs);
    addMatches(overlay);
    addKeyFigure(overlay, forExport);
    return overlay;
}

void TimelineView::addMatches(TimelineOverlay &overlay) const
{
    // The document's matches are for its repetition: only drawn when this view shows the same one.
    if (m_document && m_document->hasQuery() && m_document->trace() == m_trace
        && m_document->repetition() == m_repetition) {
        overlay.matches = &m_document->matches();
        overlay.dimOthers = m_document->filtering();
    }
    if (m_document && m_document->trace() == m_trace && m_document->repetition() == m_repetition)
        overlay.selectedOps = &m_document->selectedOps();
}

void TimelineView::setRepetition(int repetition)
{
    if (repetition == m_repetition && m_model)
        return;
    m_repetition = repetition;
    rebuildModel();
}

void TimelineView::rebuildModel()
{
    const bool hadSelection = m_selection.reset();
    m_arrangement.setLanes(nullptr);
    m_model.reset();
    m_painter->setModel(nullptr);
    if (m_trace && !m_trace->repetitions.empty()) {
        m_repetition = std::clamp(m_repetition, 0, int(m_trace->repetitions.size()) - 1);
        m_model = makeLanes();
        m_arrangement.setLanes(m_model.get());
    }
    m_painter->setModel(m_model.get());
    rebuildRows();
    m_lanes.painterChanged();
    updateKeyFigure();
    if (m_zoom == m_ownZoom) { // a shared zoom's extent is its owner's (followZoom)
        m_zoom->clearSelection();
        m_zoom->setExtent(0, m_model ? m_model->durationNs() : 0);
        m_zoom->fitAll();
    }
    invalidateCache();
    if (hadSelection)
        emit opSelected(m_repetition, -1);
    update();
}

void TimelineView::setLaneOptions(const LaneOptions &options)
{
    if (options == m_laneOptions)
        return;
    m_laneOptions = options;
    if (!m_model)
        return;
    // The same repetition with other rows: the window, the selection and the hover stay (op indexes do
    // not change), only the lanes are built again, and the tree over them (it points into the model, and
    // the rows it gives are what the painter draws: without it the groups, pins and names were lost).
    m_arrangement.setLanes(nullptr);
    m_painter->setModel(nullptr);
    m_model = makeLanes();
    m_arrangement.setLanes(m_model.get());
    m_painter->setModel(m_model.get());
    rebuildRows();
}

std::shared_ptr<const LaneModel> TimelineView::makeLanes()
{
    const bool documents = m_document && m_document->trace() == m_trace;
    if (documents) {
        std::shared_ptr<const LaneModel> lanes = m_document->takeLanes();
        if (lanes && &lanes->trace() == m_trace.get() && lanes->repetition() == m_repetition
            && lanes->options() == m_laneOptions)
            return lanes;
    }
    return std::make_shared<const LaneModel>(*m_trace, m_repetition, m_laneOptions,
                                             documents ? m_document->interference().get() : nullptr);
}

LaneBuilder TimelineView::laneBuilder() const
{
    return [options = m_laneOptions](const engine::Trace &trace, int repetition,
                                     const engine::InterferenceReport *interference) {
        return std::make_shared<const LaneModel>(trace, repetition, options, interference);
    };
}

void TimelineView::setProjectNvtx(bool on)
{
    LaneOptions options = m_laneOptions;
    options.projectNvtx = on;
    setLaneOptions(options);
}

void TimelineView::attachZoom()
{
    m_zoomConnections[0] = connect(m_zoom, &ZoomControl::windowChanged, this, [this] { onWindowChanged(); });
    m_zoomConnections[1] = connect(m_zoom, &ZoomControl::selectionChanged, this, [this] { update(); });
}

void TimelineView::followZoom(ZoomControl *shared, qint64 offsetNs)
{
    for (const QMetaObject::Connection &c : m_zoomConnections)
        disconnect(c);
    m_zoomConnections = {};
    m_zoom = shared ? shared : m_ownZoom;
    m_zoomOffsetNs = shared ? offsetNs : 0;
    if (!shared) { // its own zoom got no extent while it followed another
        m_ownZoom->setExtent(0, m_model ? m_model->durationNs() : 0);
        m_ownZoom->fitAll();
    }
    attachZoom();
    if (shared) // a shared zoom may go first when its owner and this view are torn down together
        m_zoomConnections[2] = connect(shared, &QObject::destroyed, this, [this] { followZoom(nullptr); });
    onWindowChanged();
}

qint64 TimelineView::windowStartNs() const
{
    return m_zoom->windowStart() + m_zoomOffsetNs;
}

qint64 TimelineView::windowEndNs() const
{
    return m_zoom->windowEnd() + m_zoomOffsetNs;
}

void TimelineView::setPaintThreads(int threads)
{
    m_lanes.setPaintThreads(threads);
}

void TimelineView::fitAll()
{
    m_zoom->fitAll();
}

void TimelineView::setPresentationMode(bool on)
{
    if (on == m_presentation)
        return;
    m_presentation = on;
    applyStyle();
}

void TimelineView::setDarkPalette(bool dark)
{
    m_darkExplicit = true;
    m_dark = dark;
    applyStyle();
}

void TimelineView::applyStyle()
{
    if (!m_darkExplicit)
        m_dark = palette().color(QPalette::Window).lightness() < 128;
    m_palette->set(m_dark, m_presentation);
    TimelineMetrics metrics = TimelineMetrics::make(m_presentation, font());
    // On a projector the lanes fill the height: few lanes grow instead of leaving the bottom blank.
    metrics.fillHeight = m_presentation;
    // Many rows keep a readable height and scroll. Not on a projector: a lesson's picture is whole
    // there (Hyper-Q's 32 streams at 720p), its rows shrunk to fit as exports are.
    metrics.scrollable = !m_presentation;
    if (m_adjustMetrics)
        m_adjustMetrics(metrics);
    m_painter->setMetrics(metrics);
    m_lanes.painterChanged();
    invalidateCache();
    syncScrollBar();
    update();
}

void TimelineView::invalidateCache()
{
    m_lanes.invalidate();
    m_headerCache.valid = false;
    m_legendCache.valid = false;
}

void TimelineView::onWindowChanged()
{
    // No invalidation here: the caches compare their window with the new one when painted and shift
    // on a pure pan.
    update();
}

TimelinePick TimelineView::pickAt(const QPoint &pos) const
{
    if (!m_model)
        return {};
    const TimelineLayout layout = currentLayout();
    if (!layout.plot.contains(pos))
        return {};
    const int lane = layout.laneOfRow(layout.laneAt(pos.y()));
    if (lane < 0 || !isIntervalLane(m_model->lane(lane).kind))
        return {};
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, windowStartNs(), windowEndNs());
    return {lane, mapping.toNs(double(pos.x()) + 0.5), qint64(std::ceil(kPickPixels * mapping.nsPerPixel()))};
}

TimelineView::OpRef TimelineView::opAt(const QPoint &pos) const
{
    const TimelinePick pick = pickAt(pos);
    if (pick.lane < 0)
        return {};
    const int op = m_model->opAt(pick.lane, pick.ns, pick.toleranceNs);
    return op >= 0 ? OpRef{m_repetition, op} : OpRef{};
}

QString TimelineView::toolTipText(int opIndex) const
{
    return m_model ? TimelineToolTips::opText(*m_model, opIndex) : QString();
}

int TimelineView::rangeAt(const QPoint &pos) const
{
    const TimelinePick pick = pickAt(pos);
    if (pick.lane < 0 || m_model->lane(pick.lane).kind != LaneKind::HostRanges)
        return -1;
    return m_model->rangeAt(pick.lane, pick.ns, pick.toleranceNs);
}

QString TimelineView::rangeToolTipText(int index) const
{
    return m_model ? TimelineToolTips::rangeText(*m_model, index) : QString();
}

void TimelineView::setKeyFigure(const QString &caption, const engine::OpQuery &query)
{
    m_keyCaption = caption;
    m_keyQuery = query;
    updateKeyFigure();
    update();
}

void TimelineView::updateKeyFigure()
{
    m_keyOps.clear();
    if (m_keyCaption.isEmpty() || !m_trace || !m_model || m_keyQuery.isEmpty())
        return;
    try {
        m_keyOps = engine::findOps(*m_trace, m_repetition, m_keyQuery);
    } catch (const std::exception &) {
        // A query the lesson's own data cannot have (checked when the lesson is read): nothing outlined.
    }
}

void TimelineView::addKeyFigure(TimelineOverlay &overlay, bool caption) const
{
    if (m_keyCaption.isEmpty() || !m_model)
        return;
    overlay.keyOps = &m_keyOps;
    overlay.keyCaption = caption ? m_keyCaption : QString();
    // A figure on a host thread (its lane names one) is in the host calls, not the GPU bars only.
    for (const auto &thread : m_trace->hostThreads)
        overlay.keyHost = overlay.keyHost || (!m_keyQuery.lane.empty() && thread.name == m_keyQuery.lane);
}

void TimelineView::setMetricsAdjustment(std::function<void(TimelineMetrics &)> adjust)
{
    m_adjustMetrics = std::move(adjust);
    applyStyle();
}

const TimelineMetrics &TimelineView::metrics() const
{
    return m_painter->metrics();
}

QString TimelineView::exportTitle() const
{
    return TimelineExport::title(m_trace.get(), m_repetition);
}

TimelinePicture TimelineView::picture() const
{
    return {.painter = m_painter.get(),
            .palette = m_palette.get(),
            .trace = m_trace.get(),
            .repetition = m_repetition,
            .hasLanes = m_model != nullptr,
            .windowStartNs = windowStartNs(),
            .windowEndNs = windowEndNs(),
            .overlay = overlay(true),
            .widgetSize = size()};
}

void TimelineView::renderTo(QPainter &painter, const QRect &target)
{
    TimelineExport::render(picture(), painter, target);
}

bool TimelineView::exportImage(const QString &path, QSize size, QString *error)
{
    ImageOptions options;
    options.scale = 1;
    return exportImage(path, size, options, error);
}

bool TimelineView::exportImage(const QString &path, QSize size, const ImageOptions &options, QString *error)
{
    return TimelineExport::exportImage(picture(), path, size, options, error);
}

void TimelineView::paintCached(QPainter &p, AreaCache &cache, const QRect &area,
                               const std::function<void(QPainter &)> &paint)
{
    if (area.isEmpty())
        return;
    const qreal dpr = p.device() ? p.device()->devicePixelRatio() : 1.0;
    if (!cache.valid || cache.rect != area || cache.dpr != dpr) {
        if (cache.pixmap.size() != area.size() * dpr || cache.pixmap.devicePixelRatio() != dpr) {
            cache.pixmap = QPixmap(area.size() * dpr);
            cache.pixmap.setDevicePixelRatio(dpr);
        }
        // What lies under the area in the window: the background (paintEvent fills outside the plot).
        cache.pixmap.fill(m_palette->background());
        QPainter cp(&cache.pixmap);
        cp.translate(-area.topLeft());
        paint(cp);
        cache.rect = area;
        cache.dpr = dpr;
        cache.valid = true;
    }
    p.drawPixmap(area.topLeft(), cache.pixmap);
}

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    if (!m_model) {
        renderTo(p, rect());
        return;
    }
    const TimelineLayout layout = currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, windowStartNs(), windowEndNs());
    const TimelineOverlay overlay = this->overlay(false);
    if (p.paintEngine() && p.paintEngine()->type() != QPaintEngine::Raster) {
        // A vector target (a window rendered into an SVG: a comparison's export): the lanes drawn as
        // vectors, not as the images cached for the screen.
        m_painter->paintAll(p, layout, mapping, overlay);
        return;
    }
    // The background only where no lane picture goes: every lane pixmap is opaque and covers its lane
    // (paintLane fills it first), and the lanes tile the plot, so filling under them is wasted (a
    // fill of the whole 1920x1080 window was a tenth of a frame). That holds when the pixmaps are at the
    // target's own resolution; drawn rescaled (QWidget::render of a high-DPI widget into a plain image)
    // their edges may leave rows uncovered, so there the whole target is filled as before.
    const qreal targetDpr = p.device() ? p.device()->devicePixelRatio() : 1.0;
    if (targetDpr == devicePixelRatioF()) {
        // (The widget's whole rectangle: beside the scroll bar, right of the ruler and the legend, too.)
        const QRegion uncovered = QRegion(rect()).subtracted(QRegion(layout.plot));
        for (const QRect &r : uncovered)
            p.fillRect(r, m_palette->background());
    } else {
        m_painter->paintBackground(p, layout);
    }
    m_lanes.update(*m_painter, layout, mapping, devicePixelRatioF());
    const bool scrolled = layout.contentHeight > layout.plot.height();
    if (scrolled) {
        p.save();
        p.setClipRect(layout.plot);
    }
    m_lanes.draw(p, layout);
    if (scrolled)
        p.restore();
    if (m_headerCacheScroll != layout.scrollY) {
        m_headerCache.valid = false;
        m_headerCacheScroll = layout.scrollY;
    }
    // Cached only at device scale 1: there the copy was checked to be the headers' exact pixels; a
    // high-DPI widget rendered into a plain image (QWidget::render) gave different text edges.
    // paintHeaders draws only inside the headers and the row below them, paintLegend inside the legend
    // (their clips).
    const bool cached = targetDpr == 1 && devicePixelRatioF() == 1;
    if (cached)
        paintCached(p, m_headerCache, layout.headers.adjusted(0, 0, 0, 1),
                    [&](QPainter &cp) { m_painter->paintHeaders(cp, layout); });
    else
        m_painter->paintHeaders(p, layout);
    m_painter->paintTitle(p, layout);
    m_painter->paintRuler(p, layout, mapping, overlay);
    if (cached)
        paintCached(p, m_legendCache, layout.legend, [&](QPainter &cp) { m_painter->paintLegend(cp, layout); });
    else
        m_painter->paintLegend(p, layout);
    m_painter->paintOverlay(p, layout, mapping, overlay);
    m_painter->paintSticky(p, layout);
    if (hasFocus()) {
        // Keys (W/S/A/D/F) act only with focus: show where it is.
        p.setPen(QPen(palette().color(QPalette::Highlight), 1));
        p.drawRect(rect().adjusted(0, 0, -1, -1));
    }
}

void TimelineView::resizeEvent(QResizeEvent *event)
{
    // No invalidation here: each lane cache compares its rectangle with the new layout when painted (and
    // QWidget::render on a hidden widget sends a resize event every time, which must not drop the caches).
    QWidget::resizeEvent(event);
    syncScrollBar();
}

void TimelineView::wheelEvent(QWheelEvent *event)
{
    m_input.wheel(event);
}

void TimelineView::mousePressEvent(QMouseEvent *event)
{
    if (!m_input.press(event))
        QWidget::mousePressEvent(event);
}

void TimelineView::mouseMoveEvent(QMouseEvent *event)
{
    m_input.move(event);
}

void TimelineView::mouseReleaseEvent(QMouseEvent *event)
{
    if (!m_input.release(event))
        QWidget::mouseReleaseEvent(event);
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (!m_input.doubleClick(event))
        QWidget::mouseDoubleClickEvent(event);
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    if (!m_input.key(event))
        QWidget::keyPressEvent(event);
}

void TimelineView::contextMenuEvent(QContextMenuEvent *event)
{
    if (!m_input.contextMenu(event))
        QWidget::contextMenuEvent(event);
}

void TimelineView::leaveEvent(QEvent *event)
{
    m_selection.setHovered({});
    QWidget::leaveEvent(event);
}

void TimelineView::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange
        || event->type() == QEvent::StyleChange)
        applyStyle();
    QWidget::changeEvent(event);
}

int TimelineView::activityAt(const QPoint &pos) const
{
    const TimelinePick pick = pickAt(pos);
    return pick.lane < 0 ? -1 : m_model->activityAt(pick.lane, pick.ns, pick.toleranceNs);
}

QString TimelineView::activityToolTipText(int index) const
{
    return m_model ? TimelineToolTips::activityText(*m_model, index) : QString();
}

bool TimelineView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip)
        return m_input.toolTip(static_cast<QHelpEvent *>(event));
    return QWidget::event(event);
}

} // namespace streamscope::ui
