// TimelineView: the widget around TimelinePainter: mouse and keyboard navigation, hover tooltips, op
// selection and export; the per-lane image caches (shifted on pure pans, repainted concurrently on a zoom)
// are LanePaintScheduler's, the tooltips' text TimelineToolTips', the lane menus LaneMenus'.
#include "ui/timeline/timeline_view.h"

#include "ui/common/image_export.h"
#include "ui/document/trace_document.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPaintEngine>
#include <QPainter>
#include <QScrollBar>
#include <QStyle>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "ui/common/op_palette.h"
#include "ui/timeline/lane_menus.h"
#include "ui/timeline/lane_model.h"
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
    connect(&m_source, &TimelineSource::lanesChanged, this, &TimelineView::onLanesChanged);
    connect(&m_source, &TimelineSource::arrangementChanged, this, [this] { rebuildRows(); });
    connect(&m_source, &TimelineSource::documentOverlayChanged, this, [this] { update(); });
    connect(&m_source, &TimelineSource::documentSelected, this, [this](int repetition, int op) {
        // Shown, not said back: the document's selection may be several ops, which opSelected would
        // make one again.
        if (repetition == this->repetition()) {
            const QSignalBlocker quiet(this);
            selectOp(op);
        }
    });
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
    if (!laneModel() || !m_painter->metrics().scrollable)
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

void TimelineView::setDocument(TraceDocument *document)
{
    m_documentConnections.clear();
    m_source.setDocument(document);
    if (!document)
        return;
    // What the user does here goes to the document: a toggled op, a range measured (shift+drag, a drag in
    // the ruler) or cleared, a selected op.
    m_documentConnections << connect(this, &TimelineView::opToggled, document, [this](int repetition, int op) {
        TraceDocument *document = m_source.document();
        if (document && document->trace() == trace() && repetition == document->repetition())
            document->toggleOpSelected(op);
    });
    m_documentConnections << connect(this, &TimelineView::rangeSelected, document, [this](qint64 start, qint64 end) {
        if (m_source.showsDocument())
            m_source.document()->setRange(start, end);
    });
    m_documentConnections << connect(m_zoom, &ZoomControl::selectionChanged, document, [this] {
        if (m_source.document() && !m_zoom->hasSelection())
            m_source.document()->clearRange();
    });
    m_documentConnections << connect(this, &TimelineView::opSelected, document, [this](int repetition, int op) {
        if (m_source.document() && repetition == m_source.document()->repetition())
            m_source.document()->selectOp(op);
    });
    setTrace(document->trace(), document->repetition());
    selectOp(document->selectedOp());
}

void TimelineView::rebuildRows()
{
    const LaneTree *tree = m_source.arrangement().tree();
    if (!laneModel() || !tree) {
        m_painter->setModel(laneModel());
    } else {
        const LaneViewState state = m_source.arrangement().state();
        std::vector<QString> labels;
        labels.reserve(std::size_t(laneModel()->laneCount()));
        for (int i = 0; i < laneModel()->laneCount(); ++i)
            labels.push_back(tree->label(i, state));
        m_painter->setRows(tree, tree->rows(state), std::move(labels));
    }
    m_frame.painterChanged();
    m_frame.invalidate();
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
    if (!laneModel())
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
    m_frame.painterChanged();
    m_frame.invalidate();
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
    if (!laneModel())
        return false;
    const TimelineLayout layout = currentLayout();
    return pos.y() >= layout.target.top() && pos.y() <= std::max(layout.headers.bottom(), layout.ruler.bottom())
           && std::abs(pos.x() - (layout.headers.right() + 1)) <= kEdgeGrabPixels;
}

QMenu *TimelineView::createRowMenu(int row, QWidget *parent)
{
    return LaneMenus(m_source.arrangement(), *this, [this] { fitLabelWidth(); }).rowMenu(rows(), row, parent);
}

void TimelineView::fillLanesMenu(QMenu *menu)
{
    LaneMenus(m_source.arrangement(), *this, [this] { fitLabelWidth(); }).fillLanesMenu(menu);
}

void TimelineView::setShowSlowdown(bool on)
{
    if (on == m_painter->showSlowdown())
        return;
    m_painter->setShowSlowdown(on);
    m_frame.painterChanged(); // the helper threads' painters are copies of this one
    m_frame.invalidate();
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
    if (!laneModel())
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
    // The key figure's caption only in exports: on screen it stands beside the timeline, in the explanation.
    m_keyFigure.addTo(overlay, trace().get(), laneModel() != nullptr, forExport);
    return overlay;
}

void TimelineView::addMatches(TimelineOverlay &overlay) const
{
    // The document's matches and selection are for its repetition: only drawn when this view shows it.
    if (!m_source.showsDocument())
        return;
    const TraceDocument *document = m_source.document();
    if (document->hasQuery()) {
        overlay.matches = &document->matches();
        overlay.dimOthers = document->filtering();
    }
    overlay.selectedOps = &document->selectedOps();
}

void TimelineView::onLanesChanged(bool reset)
{
    // Other lane options keep the window, the selection and the hover (op indexes do not change).
    const bool hadSelection = reset && m_selection.reset();
    m_painter->setModel(laneModel());
    rebuildRows();
    if (!reset)
        return;
    m_frame.painterChanged();
    m_keyFigure.update(trace().get(), repetition(), laneModel() != nullptr);
    if (m_zoom == m_ownZoom) { // a shared zoom's extent is its owner's (followZoom)
        m_zoom->clearSelection();
        m_zoom->setExtent(0, laneModel() ? laneModel()->durationNs() : 0);
        m_zoom->fitAll();
    }
    m_frame.invalidate();
    if (hadSelection)
        emit opSelected(repetition(), -1);
    update();
}

void TimelineView::setProjectNvtx(bool on)
{
    LaneOptions options = m_source.laneOptions();
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
        m_ownZoom->setExtent(0, laneModel() ? laneModel()->durationNs() : 0);
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
    m_frame.lanes().setPaintThreads(threads);
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
    m_frame.painterChanged();
    m_frame.invalidate();
    syncScrollBar();
    update();
}

void TimelineView::onWindowChanged()
{
    // No invalidation here: the caches compare their window with the new one when painted and shift
    // on a pure pan.
    update();
}

TimelinePick TimelineView::pickAt(const QPoint &pos) const
{
    if (!laneModel())
        return {};
    const TimelineLayout layout = currentLayout();
    if (!layout.plot.contains(pos))
        return {};
    const int lane = layout.laneOfRow(layout.laneAt(pos.y()));
    if (lane < 0 || !isIntervalLane(laneModel()->lane(lane).kind))
        return {};
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, windowStartNs(), windowEndNs());
    return {lane, mapping.toNs(double(pos.x()) + 0.5), qint64(std::ceil(kPickPixels * mapping.nsPerPixel()))};
}

TimelineView::OpRef TimelineView::opAt(const QPoint &pos) const
{
    const TimelinePick pick = pickAt(pos);
    if (pick.lane < 0)
        return {};
    const int op = laneModel()->opAt(pick.lane, pick.ns, pick.toleranceNs);
    return op >= 0 ? OpRef{repetition(), op} : OpRef{};
}

QString TimelineView::toolTipText(int opIndex) const
{
    return laneModel() ? TimelineToolTips::opText(*laneModel(), opIndex) : QString();
}

int TimelineView::rangeAt(const QPoint &pos) const
{
    const TimelinePick pick = pickAt(pos);
    if (pick.lane < 0 || laneModel()->lane(pick.lane).kind != LaneKind::HostRanges)
        return -1;
    return laneModel()->rangeAt(pick.lane, pick.ns, pick.toleranceNs);
}

QString TimelineView::rangeToolTipText(int index) const
{
    return laneModel() ? TimelineToolTips::rangeText(*laneModel(), index) : QString();
}

void TimelineView::setKeyFigure(const QString &caption, const engine::OpQuery &query)
{
    m_keyFigure.set(caption, query);
    m_keyFigure.update(trace().get(), repetition(), laneModel() != nullptr);
    update();
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
    return TimelineExport::title(m_source.trace().get(), repetition());
}

TimelinePicture TimelineView::picture() const
{
    return {.painter = m_painter.get(),
            .palette = m_palette.get(),
            .trace = m_source.trace().get(),
            .repetition = repetition(),
            .hasLanes = laneModel() != nullptr,
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

void TimelineView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    if (!laneModel()) {
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
    m_frame.paint(p, *m_painter, layout, mapping, overlay, rect(), devicePixelRatioF(), m_palette->background());
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
    return pick.lane < 0 ? -1 : laneModel()->activityAt(pick.lane, pick.ns, pick.toleranceNs);
}

QString TimelineView::activityToolTipText(int index) const
{
    return laneModel() ? TimelineToolTips::activityText(*laneModel(), index) : QString();
}

bool TimelineView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip)
        return m_input.toolTip(static_cast<QHelpEvent *>(event));
    return QWidget::event(event);
}

} // namespace streamscope::ui
