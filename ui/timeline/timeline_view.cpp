// TimelineView: the widget around TimelinePainter: per-lane image caches (shifted on pure pans, repainted
// concurrently on a zoom), mouse and keyboard navigation, hover tooltips, op selection and export.
#include "ui/timeline/timeline_view.h"

#include "ui/common/image_export.h"
#include "ui/document/trace_document.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QFileInfo>
#include <QHelpEvent>
#include <QInputDialog>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPaintEngine>
#include <QPainter>
#include <QRegion>
#include <QRunnable>
#include <QScrollBar>
#include <QStyle>
#include <QThread>
#include <QThreadPool>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <numeric>

#include "engine/analysis/analysis.h"
#include "engine/analysis/queue_analysis.h"
#include "engine/model/errors.h"
#include "ui/common/format_units.h"
#include "ui/common/host_range_labels.h"
#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/lane_tree.h"
#include "ui/timeline/time_mapping.h"
#include "ui/timeline/timeline_painter.h"
#include "ui/timeline/zoom_control.h"

namespace streamscope::ui {

struct TimelineView::LaneCache {
    // A QImage, not a QPixmap: lanes are painted on other threads, where a QPixmap must not be. RGB32 is
    // the format of an opaque raster pixmap, so drawing it into the window is the same blit.
    QImage image;
    QRect rect; // where the lane sits in the widget
    double startNs = 0; // window start the image's content corresponds to
    qint64 durationNs = -1;
    qreal dpr = 0;
    bool valid = false;
    bool edgeDependent = false; // labels pinned to the lane's edges: a pan repaints rather than shifts
};

namespace {

constexpr double kKeyZoomFactor = 1.25; // W / S
constexpr double kKeyPanFraction = 0.15; // A / D: a fraction of the window
constexpr double kPickPixels = 3; // how far from a bar a click still picks it
constexpr int kEdgeGrabPixels = 3; // how far from the label column's edge a drag resizes it
// Below this many pixels in all the lanes to repaint, handing lanes to other threads costs more than it
// saves (a wake-up is some tens of microseconds; a small lane paints in about as long).
constexpr long long kMinConcurrentPixels = 64 * 1024;

// Shifts an image's rows by dx pixels (right when positive), as QPixmap::scroll did for the lane
// pixmaps: the columns uncovered keep their old content, to be painted over.
void scrollRows(QImage &image, int dx)
{
    const int width = image.width();
    if (dx == 0 || std::abs(dx) >= width)
        return;
    const auto bytes = std::size_t(width - std::abs(dx)) * sizeof(QRgb);
    for (int y = 0; y < image.height(); ++y) {
        auto *row = reinterpret_cast<QRgb *>(image.scanLine(y));
        if (dx > 0)
            std::memmove(row + dx, row, bytes);
        else
            std::memmove(row, row - dx, bytes);
    }
}

// Where a concurrent repaint waits for its helpers. A std::mutex and condition variable rather than a
// QSemaphore: ThreadSanitizer sees these, so the hand-over of the lanes (set up before a helper starts,
// read by the GUI thread after it has finished) is checked, not hidden in an uninstrumented Qt library.
struct HelperSync {
    std::mutex mutex;
    std::condition_variable finished;
    int pending = 0; // helpers started and not finished
};

// One helper thread's share of a concurrent repaint: runs `work`, then says it has finished. Not deleted
// by the pool (the repaint owns it and waits for it).
class LaneHelper : public QRunnable {
public:
    LaneHelper(std::function<void()> work, HelperSync &sync) : m_work(std::move(work)), m_sync(sync)
    {
        setAutoDelete(false);
    }
    void run() override
    {
        {
            // Acquires what the GUI thread wrote before it counted the helpers in (under this mutex).
            std::lock_guard lock(m_sync.mutex);
        }
        m_work();
        // Notified under the lock: once it is released the waiting repaint may return and destroy
        // the sync object, so nothing here touches it after that.
        std::lock_guard lock(m_sync.mutex);
        --m_sync.pending;
        m_sync.finished.notify_one();
    }

private:
    std::function<void()> m_work;
    HelperSync &m_sync;
};

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

int TimelineView::rowOfOp(const TimelineLayout &layout, int op, bool host) const
{
    if (!m_model || op < 0 || op >= m_model->opCount())
        return -1;
    const engine::OpRecord &o = m_model->op(op);
    const int threads = int(m_model->trace().hostThreads.size());
    const int hostRow =
        o.hasHost() ? layout.rowOf(m_model->hostLane(o.hostThread >= 0 && o.hostThread < threads ? o.hostThread : -1))
                    : -1;
    const int gpuRow = o.hasGpu() ? layout.rowOf(m_model->streamLane(o.stream)) : -1;
    if (host)
        return hostRow >= 0 ? hostRow : gpuRow;
    return gpuRow >= 0 ? gpuRow : hostRow;
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

LaneViewState TimelineView::laneState() const
{
    return m_document ? m_document->laneState() : m_ownLaneState;
}

void TimelineView::setLaneState(const LaneViewState &state)
{
    if (m_document) {
        m_document->setLaneState(state); // laneStateChanged rebuilds the rows
        return;
    }
    if (state == m_ownLaneState)
        return;
    m_ownLaneState = state;
    rebuildRows();
}

void TimelineView::rebuildRows()
{
    if (!m_model || !m_tree) {
        m_painter->setModel(m_model.get());
    } else {
        const LaneViewState state = laneState();
        std::vector<QString> labels;
        for (int i = 0; i < m_model->laneCount(); ++i)
            labels.push_back(m_tree->label(i, state));
        m_painter->setRows(m_tree.get(), m_tree->rows(state), std::move(labels));
    }
    m_helpersStale = true;
    invalidateCache();
    syncScrollBar();
    update();
}

void TimelineView::setLaneHidden(int lane, bool hidden)
{
    if (!m_tree || lane < 0 || lane >= m_model->laneCount())
        return;
    LaneViewState state = laneState();
    const QString key = m_tree->laneKey(lane);
    if (hidden) {
        state.hidden.insert(key);
        std::erase(state.pinned, key);
    } else {
        state.hidden.erase(key);
    }
    setLaneState(state);
}

void TimelineView::setLanePinned(int lane, bool pinned)
{
    if (!m_tree || lane < 0 || lane >= m_model->laneCount())
        return;
    LaneViewState state = laneState();
    const QString key = m_tree->laneKey(lane);
    std::erase(state.pinned, key);
    if (pinned) {
        state.pinned.push_back(key);
        state.hidden.erase(key);
    }
    setLaneState(state);
}

void TimelineView::renameLane(int lane, const QString &name)
{
    if (!m_tree || lane < 0 || lane >= m_model->laneCount())
        return;
    LaneViewState state = laneState();
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty() || trimmed == m_tree->uniqueLabel(lane))
        state.names.erase(m_tree->laneKey(lane));
    else
        state.names[m_tree->laneKey(lane)] = trimmed;
    setLaneState(state);
}

void TimelineView::setGroupCollapsed(int group, bool collapsed)
{
    if (!m_tree || group < 0 || group >= int(m_tree->groups().size()))
        return;
    LaneViewState state = laneState();
    if (collapsed)
        state.collapsed.insert(m_tree->group(group).key);
    else
        state.collapsed.erase(m_tree->group(group).key);
    setLaneState(state);
}

void TimelineView::setAllGroupsCollapsed(bool collapsed)
{
    if (!m_tree)
        return;
    LaneViewState state = laneState();
    for (const LaneGroup &g : m_tree->groups()) {
        // Collapsing all folds the outermost groups (a folded process hides its devices anyway).
        if (collapsed && g.parent < 0)
            state.collapsed.insert(g.key);
        else if (!collapsed)
            state.collapsed.erase(g.key);
    }
    setLaneState(state);
}

void TimelineView::setRangesFolded(int firstLane, bool folded)
{
    if (!m_tree || firstLane < 0 || firstLane >= m_model->laneCount() || m_tree->rangeRowCount(firstLane) < 2)
        return;
    LaneViewState state = laneState();
    const QString key = m_tree->laneKey(firstLane);
    state.collapsed.erase(LaneTree::rangeFoldKey(key));
    state.collapsed.erase(LaneTree::rangeOpenKey(key));
    LaneViewState plain = state;
    // Only what differs from the default is kept.
    if (m_tree->rangesFolded(firstLane, plain) != folded)
        state.collapsed.insert(folded ? LaneTree::rangeFoldKey(key) : LaneTree::rangeOpenKey(key));
    setLaneState(state);
}

void TimelineView::setAllRangesFolded(bool folded)
{
    if (!m_tree)
        return;
    LaneViewState state = laneState();
    for (const int lane : m_tree->rangeFirstLanes()) {
        const QString key = m_tree->laneKey(lane);
        state.collapsed.erase(LaneTree::rangeFoldKey(key));
        state.collapsed.erase(LaneTree::rangeOpenKey(key));
        if (m_tree->rangesFolded(lane, state) != folded)
            state.collapsed.insert(folded ? LaneTree::rangeFoldKey(key) : LaneTree::rangeOpenKey(key));
    }
    setLaneState(state);
}

void TimelineView::revealLane(int lane)
{
    if (!m_tree || lane < 0)
        return;
    LaneViewState state = laneState();
    state.hidden.erase(m_tree->laneKey(lane));
    for (int g = m_tree->groupOfLane(lane); g >= 0; g = m_tree->group(g).parent)
        state.collapsed.erase(m_tree->group(g).key);
    setLaneState(state);
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
    m_helpersStale = true;
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
    auto *menu = new QMenu(parent ? parent : this);
    const std::vector<LaneRow> current = rows(); // a copy: the actions change the rows
    if (m_tree && row >= 0 && std::size_t(row) < current.size()) {
        const LaneRow r = current[std::size_t(row)];
        if (r.isGroup()) {
            const int group = r.group;
            menu->addAction(r.collapsed ? tr("Expand group") : tr("Collapse group"), this,
                            [this, group, collapsed = r.collapsed] { setGroupCollapsed(group, !collapsed); });
            menu->addAction(tr("Hide the group's lanes"), this, [this, group] {
                LaneViewState state = laneState();
                for (const int lane : m_tree->group(group).allLanes)
                    state.hidden.insert(m_tree->laneKey(lane));
                setLaneState(state);
            });
        } else if (r.lane >= 0) {
            const int lane = r.lane;
            const QString label = m_tree->label(lane, laneState());
            if (r.fold != LaneRow::Fold::None) {
                const bool folded = r.fold == LaneRow::Fold::Folded;
                menu->addAction(folded ? tr("Unfold its NVTX rows (%1)").arg(m_tree->rangeRowCount(r.foldLane))
                                       : tr("Fold its NVTX rows into one"),
                                this, [this, first = r.foldLane, folded] { setRangesFolded(first, !folded); });
            }
            menu->addAction(tr("Hide '%1'").arg(label), this, [this, lane] { setLaneHidden(lane, true); });
            menu->addAction(r.pinned ? tr("Unpin") : tr("Pin to top"), this,
                            [this, lane, pinned = r.pinned] { setLanePinned(lane, !pinned); });
            menu->addAction(tr("Rename…"), this, [this, lane, label] {
                bool ok = false;
                const QString name =
                    QInputDialog::getText(this, tr("Rename lane"), tr("Label for '%1' (empty: its own):").arg(label),
                                          QLineEdit::Normal, label, &ok);
                if (ok)
                    renameLane(lane, name);
            });
            if (laneState().names.count(m_tree->laneKey(lane)))
                menu->addAction(tr("Restore the name '%1'").arg(m_tree->uniqueLabel(lane)), this,
                                [this, lane] { renameLane(lane, {}); });
        }
        menu->addSeparator();
    }
    fillLanesMenu(menu);
    return menu;
}

void TimelineView::fillLanesMenu(QMenu *menu)
{
    const LaneViewState state = laneState();
    const std::vector<int> hidden = m_tree ? m_tree->hiddenLanes(state) : std::vector<int>{};
    QMenu *shown = menu->addMenu(tr("Hidden lanes (%1)").arg(hidden.size()));
    shown->setEnabled(!hidden.empty());
    for (const int lane : hidden)
        shown->addAction(tr("Show '%1'").arg(m_tree->label(lane, state)), this,
                         [this, lane] { setLaneHidden(lane, false); });
    if (!hidden.empty()) {
        shown->addSeparator();
        shown->addAction(tr("Show all"), this, [this] {
            LaneViewState s = laneState();
            s.hidden.clear();
            setLaneState(s);
        });
    }
    const bool groups = m_tree && !m_tree->groups().empty();
    QAction *collapse = menu->addAction(tr("Collapse all groups"), this, [this] { setAllGroupsCollapsed(true); });
    QAction *expand = menu->addAction(tr("Expand all groups"), this, [this] { setAllGroupsCollapsed(false); });
    collapse->setEnabled(groups);
    expand->setEnabled(groups && std::any_of(m_tree->groups().begin(), m_tree->groups().end(), [&](const LaneGroup &g) {
                           return state.collapsed.count(g.key) > 0;
                       }));
    const bool ranges = m_tree && !m_tree->rangeFirstLanes().empty();
    menu->addAction(tr("Fold all NVTX rows"), this, [this] { setAllRangesFolded(true); })->setEnabled(ranges);
    menu->addAction(tr("Unfold all NVTX rows"), this, [this] { setAllRangesFolded(false); })->setEnabled(ranges);
    menu->addAction(tr("Fit the label column"), this, [this] { fitLabelWidth(); })->setEnabled(m_model != nullptr);
    QAction *reset =
        menu->addAction(tr("Reset lanes (show, unpin, restore names)"), this, [this] { setLaneState({}); });
    reset->setEnabled(!(state == LaneViewState{}));
}

void TimelineView::setShowSlowdown(bool on)
{
    if (on == m_painter->showSlowdown())
        return;
    m_painter->setShowSlowdown(on);
    m_helpersStale = true; // the helper threads' painters are copies of this one
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

bool TimelineView::followFlow()
{
    auto refuse = [this](const QString &why) {
        QToolTip::showText(mapToGlobal(rect().center()), why, this);
        return false;
    };
    if (!m_model || !m_selected.isValid())
        return refuse(tr("Select an op first: follow flow goes from its host call to its GPU work and back."));
    const engine::OpRecord &o = m_model->op(m_selected.op);
    if (!o.hasGpu() || !o.hasHost())
        return refuse(o.hasGpu() ? tr("No host call is recorded for this GPU op.")
                                 : tr("This call has no GPU work recorded."));
    const OpEnd target = m_selectedEnd == OpEnd::Gpu ? OpEnd::Host : OpEnd::Gpu;
    const int threads = int(m_model->trace().hostThreads.size());
    const int lane = target == OpEnd::Gpu
                         ? m_model->streamLane(o.stream)
                         : m_model->hostLane(o.hostThread >= 0 && o.hostThread < threads ? o.hostThread : -1);
    revealLane(lane);
    m_selectedEnd = target;
    const qint64 s = target == OpEnd::Gpu ? m_model->gpuStart(o) : m_model->hostStart(o);
    const qint64 e = target == OpEnd::Gpu ? m_model->gpuEnd(o) : m_model->hostEnd(o);
    if (s < windowStartNs() || e > windowEndNs()) {
        const qint64 width = std::max(m_zoom->windowDuration(), (e - s) * 5 / 4);
        const qint64 centre = s + (e - s) / 2;
        m_zoom->setWindow(centre - width / 2 - m_zoomOffsetNs, centre - width / 2 + width - m_zoomOffsetNs);
    }
    ensureRowVisible(currentLayout().rowOf(lane));
    update();
    return true;
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
    const bool hadSelection = m_selected.isValid();
    m_selected = {};
    m_hovered = {};
    m_tree.reset();
    m_model.reset();
    m_painter->setModel(nullptr);
    if (m_trace && !m_trace->repetitions.empty()) {
        m_repetition = std::clamp(m_repetition, 0, int(m_trace->repetitions.size()) - 1);
        m_model = makeLanes();
        m_tree = std::make_unique<LaneTree>(*m_model);
    }
    m_painter->setModel(m_model.get());
    rebuildRows();
    m_helpersStale = true;
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
    m_tree.reset();
    m_painter->setModel(nullptr);
    m_model = makeLanes();
    m_tree = std::make_unique<LaneTree>(*m_model);
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
    m_paintThreads = std::max(0, threads);
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
    m_helpersStale = true;
    invalidateCache();
    syncScrollBar();
    update();
}

void TimelineView::invalidateCache()
{
    for (auto &c : m_caches)
        c.valid = false;
    m_headerCache.valid = false;
    m_legendCache.valid = false;
}

void TimelineView::onWindowChanged()
{
    // No invalidation here: the caches compare their window with the new one when painted and shift
    // on a pure pan.
    update();
}

void TimelineView::selectOp(int op)
{
    OpRef ref;
    if (m_model && op >= 0 && op < m_model->opCount())
        ref = {m_repetition, op};
    if (ref == m_selected)
        return;
    m_selected = ref;
    m_selectedEnd = OpEnd::Both;
    if (ref.isValid()) {
        const auto &o = m_model->op(op);
        // Bring the op into view, keeping the zoom level unless the op is wider than the window.
        qint64 s = o.hasGpu() ? m_model->gpuStart(o) : m_model->hostStart(o);
        qint64 e = o.hasGpu() ? m_model->gpuEnd(o) : m_model->hostEnd(o);
        if (o.hasHost()) {
            s = std::min(s, m_model->hostStart(o));
            e = std::max(e, m_model->hostEnd(o));
        }
        if (o.hasGpu() || o.hasHost()) {
            if (s < windowStartNs() || e > windowEndNs()) {
                const qint64 width = std::max(m_zoom->windowDuration(), (e - s) * 5 / 4);
                const qint64 centre = s + (e - s) / 2;
                m_zoom->setWindow(centre - width / 2 - m_zoomOffsetNs, centre - width / 2 + width - m_zoomOffsetNs);
            }
        }
        // And its GPU row (else its call's): scrolled into view where the rows overflow (the find bar's
        // walk, the table), but never away from an end that was just clicked.
        if (!m_selectingByClick)
            ensureRowVisible(rowOfOp(currentLayout(), op, false));
    }
    emit opSelected(m_repetition, ref.op);
    update();
}

void TimelineView::setHovered(OpRef ref)
{
    if (ref == m_hovered)
        return;
    m_hovered = ref;
    emit opHovered(m_repetition, ref.op);
    update();
}

TimelineView::Pick TimelineView::pickAt(const QPoint &pos) const
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
    const Pick pick = pickAt(pos);
    if (pick.lane < 0)
        return {};
    const int op = m_model->opAt(pick.lane, pick.ns, pick.toleranceNs);
    return op >= 0 ? OpRef{m_repetition, op} : OpRef{};
}

QString TimelineView::toolTipText(int opIndex) const
{
    if (!m_model || opIndex < 0 || opIndex >= m_model->opCount())
        return {};
    const auto &trace = m_model->trace();
    const auto &op = m_model->op(opIndex);
    QStringList lines;
    lines << QString::fromStdString(trace.name(op));
    QString what = OpPalette::label(op.kind);
    if (op.stream >= 0 && std::size_t(op.stream) < trace.streams.size()) {
        const auto &stream = trace.streams[std::size_t(op.stream)];
        what += QStringLiteral(" on stream '%1'").arg(QString::fromStdString(stream.name));
    }
    if (op.opIndex >= 0)
        what += QStringLiteral(" · op #%1").arg(op.opIndex);
    lines << what;
    if (op.hasGpu()) {
        const bool cupti = trace.timing == engine::TimingSource::Cupti && !op.executionFromEvents();
        lines << QStringLiteral("%1: start %2 · duration %3")
                     .arg(cupti ? QStringLiteral("executed") : QStringLiteral("GPU"),
                          formatDuration(m_model->gpuStart(op)), formatDuration(op.gpuDurationNs()));
        if (cupti) {
            const engine::QueueExplanation q = engine::explainQueued(trace, m_model->repetition(), opIndex);
            if (q.cause != engine::QueueCause::None)
                lines << QString::fromStdString(q.text);
        }
    }
    if (op.bytes > 0) {
        QString bytes = formatBytes(op.bytes);
        const double gbs = op.gbPerSecond();
        if (gbs > 0)
            bytes += QStringLiteral(" · %1").arg(formatGBs(gbs));
        lines << bytes;
    }
    if (engine::isCopy(op.kind) && (op.srcMem != engine::MemKind::None || op.dstMem != engine::MemKind::None)) {
        QString mem =
            QStringLiteral("memory: %1 → %2").arg(qs(engine::toString(op.srcMem)), qs(engine::toString(op.dstMem)));
        if (op.api != engine::CopyApi::None)
            mem += QStringLiteral(" (%1)").arg(op.api == engine::CopyApi::Sync ? QStringLiteral("cudaMemcpy")
                                                                               : QStringLiteral("cudaMemcpyAsync"));
        lines << mem;
    }
    if (op.hasHost()) {
        QString host = QStringLiteral("host call: start %1 · held the thread %2")
                           .arg(formatDuration(m_model->hostStart(op)), formatDuration(op.hostDurationNs()));
        if (engine::isHostBlocking(op))
            host += QStringLiteral(" (blocking)");
        lines << host;
    }
    // The range it was launched in (its NVTX range, or the PyTorch op), and a kernel's launch.
    if (const engine::HostRange *range = m_model->rep().enclosingRange(op))
        lines << QStringLiteral("%1: %2").arg(hostRangeCategoryLabel(range->category),
                                              QString::fromStdString(trace.string(range->nameId)));
    if (const engine::KernelLaunch *l = m_model->rep().launchOf(opIndex); l && l->hasGrid() && l->hasBlock())
        lines << QStringLiteral("grid %1×%2×%3 · block %4×%5×%6")
                     .arg(l->grid[0])
                     .arg(l->grid[1])
                     .arg(l->grid[2])
                     .arg(l->block[0])
                     .arg(l->block[1])
                     .arg(l->block[2]);
    return lines.join(QLatin1Char('\n'));
}

int TimelineView::rangeAt(const QPoint &pos) const
{
    const Pick pick = pickAt(pos);
    if (pick.lane < 0 || m_model->lane(pick.lane).kind != LaneKind::HostRanges)
        return -1;
    return m_model->rangeAt(pick.lane, pick.ns, pick.toleranceNs);
}

QString TimelineView::rangeToolTipText(int index) const
{
    if (!m_model || index < 0 || std::size_t(index) >= m_model->rep().hostRanges.size())
        return {};
    const engine::Trace &trace = m_model->trace();
    const engine::HostRange &h = m_model->rep().hostRanges[std::size_t(index)];
    QStringList lines;
    lines << QString::fromStdString(trace.string(h.nameId));
    QString what = hostRangeCategoryLabel(h.category);
    if (h.domainId != engine::kNoString)
        what += tr(" in domain '%1'").arg(QString::fromStdString(trace.string(h.domainId)));
    if (h.hostThread >= 0 && std::size_t(h.hostThread) < trace.hostThreads.size())
        what += tr(" on '%1'").arg(QString::fromStdString(trace.hostThreads[std::size_t(h.hostThread)].name));
    what += tr(" · depth %1").arg(h.depth);
    lines << what;
    lines << tr("start %1 · duration %2")
                 .arg(formatDuration(h.startNs - m_model->originNs()), formatDuration(h.durationNs()));
    // What it launched: the ops tied to it (their call started in it and in no range inside it).
    int launched = 0, gpu = 0;
    for (const engine::OpRecord &op : m_model->rep().ops)
        if (op.hostRange == index) {
            ++launched;
            gpu += op.hasGpu();
        }
    if (launched > 0)
        lines << tr("%n call(s) made directly in it, %1 with GPU work", nullptr, launched).arg(gpu);
    return lines.join(QLatin1Char('\n'));
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

TimelineOverlay TimelineView::exportOverlay() const
{
    TimelineOverlay overlay;
    overlay.selectedOp = m_selected.op;
    overlay.hoveredOp = -1; // exports show the selection, not where the pointer happened to be
    overlay.allFlows = m_showAllFlows;
    overlay.selectedEnd = TimelineOverlay::End(int(m_selectedEnd));
    overlay.selectionStartNs = (m_zoom->selectionStart() + m_zoomOffsetNs);
    overlay.selectionEndNs = (m_zoom->selectionEnd() + m_zoomOffsetNs);
    addMatches(overlay);
    addKeyFigure(overlay, true);
    return overlay;
}

QString TimelineView::exportTitle() const
{
    if (!m_trace)
        return {};
    QStringList parts;
    parts << QString::fromStdString(m_trace->title.empty() ? m_trace->sourcePath : m_trace->title);
    // The GPU, or the GPUs as the summary names them ("2 × NVIDIA H100 80GB HBM3", "2 GPUs"): a slide
    // of a two-GPU run named the first one only.
    QStringList models;
    for (const auto &d : m_trace->devices)
        if (!d.name.empty() && !models.contains(QString::fromStdString(d.name)))
            models << QString::fromStdString(d.name);
    if (m_trace->devices.size() > 1 && models.size() == 1)
        parts << QStringLiteral("%1 × %2").arg(m_trace->devices.size()).arg(models.front());
    else if (m_trace->devices.size() > 1 && models.isEmpty())
        parts << tr("%1 GPUs").arg(m_trace->devices.size());
    else
        parts << models.join(QStringLiteral(" + "));
    if (m_trace->createdUtc.size() >= 10)
        parts << QString::fromStdString(m_trace->createdUtc.substr(0, 10));
    if (m_trace->repetitions.size() > 1)
        parts << tr("repetition %1 of %2").arg(m_repetition + 1).arg(m_trace->repetitions.size());
    parts.removeAll(QString());
    return parts.join(QStringLiteral(" — "));
}

void TimelineView::renderTo(QPainter &painter, const QRect &target)
{
    TimelinePainter painterCopy = m_painter->threadCopy(); // the same rows, labels and column width
    painterCopy.setMetrics(m_painter->metrics());
    const TimelineLayout layout = painterCopy.layout(target);
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, windowStartNs(), windowEndNs());
    const TimelineOverlay overlay = exportOverlay();
    if (!m_model) {
        painter.fillRect(target, m_palette->background());
        painter.setPen(m_palette->mutedText());
        painter.drawText(target, Qt::AlignCenter, tr("No trace loaded: open a trace file or run a workload."));
        return;
    }
    painterCopy.paintAll(painter, layout, mapping, overlay);
}

bool TimelineView::exportImage(const QString &path, QSize size, QString *error)
{
    ImageOptions options;
    options.scale = 1;
    return exportImage(path, size, options, error);
}

bool TimelineView::exportImage(const QString &path, QSize size, const ImageOptions &options, QString *error)
{
    if (!size.isValid() || size.isEmpty())
        size = this->size().isEmpty() ? QSize(1600, 900) : this->size();
    // The window's own painter (its rows: groups, pins, hidden lanes and collapsed groups as the lane
    // state has them, the unique or user-given labels, the label column's width), with the lanes filling
    // the picture and the background as asked; shared by the PNG pass and the SVG layers. What you see
    // is what you export.
    auto exporter = std::make_shared<TimelinePainter>(m_painter->threadCopy());
    TimelineMetrics metrics = m_painter->metrics();
    metrics.fillHeight = true;
    // Every row that is not hidden, however far the window is scrolled: the picture is the whole tree.
    metrics.scrollable = false;
    metrics.transparentBackground = options.transparent;
    exporter->setMetrics(metrics);
    auto overlay = std::make_shared<TimelineOverlay>(exportOverlay());
    ImageSource source;
    source.title = m_trace ? QString::fromStdString(m_trace->title) : QStringLiteral("StreamScope timeline");
    source.description = QStringLiteral("StreamScope timeline, repetition %1").arg(m_repetition + 1);
    source.background = m_palette->background();
    source.text = m_palette->text();
    source.paint = [this, exporter, overlay](QPainter &painter, const QRect &target) {
        if (!m_model) {
            renderTo(painter, target);
            return;
        }
        const TimelineLayout layout = exporter->layout(target);
        exporter->paintAll(painter, layout, TimelinePainter::mappingFor(layout, windowStartNs(), windowEndNs()),
                           *overlay);
    };
    if (m_model) {
        source.layers = [this, exporter, overlay](const QRect &target) {
            const TimelineLayout layout = exporter->layout(target);
            const TimeMapping mapping = TimelinePainter::mappingFor(layout, windowStartNs(), windowEndNs());
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

void TimelineView::updateLaneCaches(const TimelineLayout &layout, const TimeMapping &mapping)
{
    const qreal dpr = devicePixelRatioF();
    m_caches.resize(layout.lanes.size());
    m_lastPaintThreads = 0;
    std::vector<int> whole; // lanes repainted whole, after this loop (concurrently where that pays)
    for (std::size_t i = 0; i < layout.lanes.size(); ++i) {
        LaneCache &c = m_caches[i];
        const QRect lr = layout.lanes[i];
        if (lr.isEmpty() || !lr.intersects(layout.plot))
            continue; // scrolled out of view: painted when it comes back
        auto paintStrip = [&](int x0, int x1) {
            QPainter cp(&c.image);
            cp.translate(-lr.topLeft());
            return m_painter->paintLane(cp, int(i), lr, mapping, x0, x1);
        };
        const qint64 duration = mapping.endNs - mapping.startNs;
        // Where the lane sits does not matter (a vertical scroll moves the picture), only its size.
        if (!c.valid || c.rect.size() != lr.size() || c.dpr != dpr || c.durationNs != duration) {
            // Zoom, resize, new data or style: the whole lane again, at device resolution (the image is
            // kept when only its content changes: every pixel gets painted over).
            if (c.image.size() != lr.size() * dpr || c.image.devicePixelRatio() != dpr) {
                c.image = QImage(lr.size() * dpr, QImage::Format_RGB32);
                c.image.setDevicePixelRatio(dpr);
            }
            c.rect = lr;
            c.dpr = dpr;
            c.durationNs = duration;
            c.startNs = double(mapping.startNs);
            c.valid = true;
            whole.push_back(int(i));
            continue;
        }
        c.rect = lr;
        if (c.startNs == double(mapping.startNs))
            continue;
        // A pure pan: shift what is drawn by whole device pixels and paint only the exposed strip. Less
        // than half a device pixel of motion leaves the picture as it is (and the offset accumulates).
        const double dxLogical = (c.startNs - double(mapping.startNs)) * mapping.pixelsPerNs();
        const int dxDevice = int(std::lround(dxLogical * dpr));
        if (dxDevice == 0)
            continue;
        const int exposed = int(std::ceil(std::abs(dxDevice) / dpr)) + 1;
        if (exposed >= lr.width() || c.edgeDependent) {
            c.startNs = double(mapping.startNs);
            whole.push_back(int(i));
            continue;
        }
        scrollRows(c.image, dxDevice);
        // A label in the new strip that the edge cuts makes the next pan repaint this lane.
        if (dxDevice > 0)
            c.edgeDependent = paintStrip(lr.left(), lr.left() + exposed);
        else
            c.edgeDependent = paintStrip(lr.right() + 1 - exposed, lr.right() + 1);
        c.startNs -= double(dxDevice) / dpr * mapping.nsPerPixel();
    }
    if (!whole.empty())
        repaintLanes(whole, layout, mapping);
}

// Lanes are independent pictures, and a zoom repaints all of them: with a million ops in view one thread
// took most of a frame's 16 ms. So the lanes to repaint are handed out, dearest first, to the GUI thread
// (painting with m_painter) and helper threads (each with its own threadCopy of it: paintLane fills
// caches as it goes), which take the next lane from a shared counter until none is left. Each lane is
// painted by one thread with the same painter state as the sequential path, so the pixels are the same.
void TimelineView::repaintLanes(const std::vector<int> &lanes, const TimelineLayout &layout, const TimeMapping &mapping)
{
    auto paintWhole = [&](const TimelinePainter &painter, int lane) {
        LaneCache &c = m_caches[std::size_t(lane)];
        const QRect lr = layout.lanes[std::size_t(lane)];
        QPainter cp(&c.image);
        cp.translate(-lr.topLeft());
        c.edgeDependent = painter.paintLane(cp, lane, lr, mapping, lr.left(), lr.right() + 1);
    };
    const int count = int(lanes.size());
    long long pixels = 0;
    for (const int lane : lanes)
        pixels += (long long)layout.lanes[std::size_t(lane)].width() * layout.lanes[std::size_t(lane)].height();
    const int threads = std::min(count, m_paintThreads > 0 ? m_paintThreads : QThread::idealThreadCount());
    if (threads < 2 || pixels < kMinConcurrentPixels) {
        for (const int lane : lanes)
            paintWhole(*m_painter, lane);
        m_lastPaintThreads = 1;
        return;
    }

    const int helpers = threads - 1;
    if (m_helpersStale || int(m_helperPainters.size()) < helpers) {
        m_helperPainters.clear();
        for (int h = 0; h < helpers; ++h)
            m_helperPainters.push_back(std::make_unique<TimelinePainter>(m_painter->threadCopy()));
        m_helpersStale = false;
    }
    if (!m_pool)
        m_pool = new QThreadPool(this);
    if (m_pool->maxThreadCount() != helpers)
        m_pool->setMaxThreadCount(helpers);

    // Dearest first, so that the longest lane (the host thread's, with every API call) does not start last.
    std::vector<long long> cost(lanes.size());
    for (std::size_t j = 0; j < lanes.size(); ++j) {
        const QRect lr = layout.lanes[std::size_t(lanes[j])];
        cost[j] = m_painter->laneWorkEstimate(lanes[j], mapping, lr.left(), lr.right() + 1);
    }
    std::vector<int> order(lanes.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return cost[std::size_t(a)] > cost[std::size_t(b)]; });

    std::atomic<int> next{0};
    std::atomic<int> painted{0}; // threads that painted at least one lane
    auto work = [&](const TimelinePainter &painter) {
        bool any = false;
        for (int j = next.fetch_add(1, std::memory_order_relaxed); j < count;
             j = next.fetch_add(1, std::memory_order_relaxed)) {
            paintWhole(painter, lanes[std::size_t(order[std::size_t(j)])]);
            any = true;
        }
        if (any)
            painted.fetch_add(1, std::memory_order_relaxed);
    };
    HelperSync sync;
    std::vector<std::unique_ptr<LaneHelper>> tasks;
    for (int h = 0; h < helpers; ++h) {
        const TimelinePainter *painter = m_helperPainters[std::size_t(h)].get();
        tasks.push_back(std::make_unique<LaneHelper>([&work, painter] { work(*painter); }, sync));
    }
    {
        std::lock_guard lock(sync.mutex);
        sync.pending = helpers;
    }
    for (auto &task : tasks)
        m_pool->start(task.get());
    work(*m_painter);
    // A helper the pool has not started yet has nothing left to do: take it back instead of waiting.
    int notStarted = 0;
    for (auto &task : tasks)
        if (m_pool->tryTake(task.get()))
            ++notStarted;
    {
        std::unique_lock lock(sync.mutex);
        sync.pending -= notStarted;
        sync.finished.wait(lock, [&] { return sync.pending == 0; });
    }
    for (int h = 0; h < helpers; ++h) {
        m_painter->addStats(m_helperPainters[std::size_t(h)]->stats());
        m_helperPainters[std::size_t(h)]->resetStats();
    }
    m_lastPaintThreads = painted.load();
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
    TimelineOverlay overlay;
    overlay.selectedOp = m_selected.op;
    overlay.hoveredOp = m_hovered.op;
    overlay.allFlows = m_showAllFlows;
    overlay.selectedEnd = TimelineOverlay::End(int(m_selectedEnd));
    overlay.selectionStartNs = (m_zoom->selectionStart() + m_zoomOffsetNs);
    overlay.selectionEndNs = (m_zoom->selectionEnd() + m_zoomOffsetNs);
    addMatches(overlay);
    addKeyFigure(overlay, false);
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
    updateLaneCaches(layout, mapping);
    const bool scrolled = layout.contentHeight > layout.plot.height();
    if (scrolled) {
        p.save();
        p.setClipRect(layout.plot);
    }
    for (std::size_t i = 0; i < layout.lanes.size() && i < m_caches.size(); ++i)
        if (m_caches[i].valid && layout.lanes[i].intersects(layout.plot))
            p.drawImage(layout.lanes[i].topLeft(), m_caches[i].image);
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
    if (!m_model)
        return;
    const TimelineLayout layout = currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, windowStartNs(), windowEndNs());
    const QPoint delta = event->angleDelta();
    const double x = std::clamp(event->position().x(), double(layout.plot.left()), double(layout.plot.right()));
    // Vertical scrolling where the rows overflow: Shift+wheel anywhere (some platforms turn a shifted
    // wheel horizontal), or the wheel over the labels, where it has nothing to zoom.
    const bool overLabels = event->position().x() < layout.plot.left();
    if (layout.maxScrollY > 0 && ((event->modifiers() & Qt::ShiftModifier) || overLabels)) {
        const int notches = delta.y() != 0 ? delta.y() : delta.x();
        setScrollY(layout.scrollY - notches * 3 * m_painter->metrics().readableLaneHeight / 120);
        event->accept();
        return;
    }
    if (delta.y() != 0) {
        // 120 units = one notch = 20 % closer, at the cursor.
        m_zoom->zoomAt(mapping.toNs(x) - m_zoomOffsetNs, std::pow(1.2, delta.y() / 120.0));
    } else if (delta.x() != 0) {
        m_zoom->pan(-qint64(delta.x() / 120.0 * kKeyPanFraction * double(m_zoom->windowDuration())));
    }
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_model) {
        QWidget::mousePressEvent(event);
        return;
    }
    const TimelineLayout layout = currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, windowStartNs(), windowEndNs());
    m_pressPos = event->position().toPoint();
    m_dragMoved = false;
    if (onLabelEdge(m_pressPos)) {
        m_drag = DragMode::ResizeLabels;
        m_resizeStartWidth = layout.headers.width();
        event->accept();
        return;
    }
    if (m_pressPos.x() < layout.plot.left()) {
        // The label column: a click on a group's header opens or folds it, on a thread's (the row
        // with the arrow) its NVTX rows.
        const int row = layout.laneAt(m_pressPos.y());
        if (row >= 0 && layout.rows[std::size_t(row)].isGroup())
            setGroupCollapsed(layout.rows[std::size_t(row)].group, !layout.rows[std::size_t(row)].collapsed);
        else if (row >= 0 && layout.rows[std::size_t(row)].fold != LaneRow::Fold::None)
            setRangesFolded(layout.rows[std::size_t(row)].foldLane,
                            layout.rows[std::size_t(row)].fold == LaneRow::Fold::Open);
        event->accept();
        return;
    }
    const bool inRuler = layout.ruler.contains(m_pressPos);
    if (inRuler || (event->modifiers() & Qt::ShiftModifier)) {
        m_drag = DragMode::Select;
        const double x =
            std::clamp(double(m_pressPos.x()), double(layout.plot.left()), double(layout.plot.right() + 1));
        m_selectAnchorNs = mapping.toNs(x);
    } else {
        m_drag = DragMode::Pan;
        m_pressWindowStart = windowStartNs();
        m_pressScrollY = layout.scrollY;
        setCursor(Qt::ClosedHandCursor);
    }
    event->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (m_drag == DragMode::None) {
        setHovered(opAt(pos));
        if (onLabelEdge(pos))
            setCursor(Qt::SplitHCursor);
        else
            unsetCursor();
        return;
    }
    if (m_drag == DragMode::ResizeLabels) {
        setLabelWidth(std::max(60, m_resizeStartWidth + pos.x() - m_pressPos.x()));
        event->accept();
        return;
    }
    if ((pos - m_pressPos).manhattanLength() >= QApplication::startDragDistance())
        m_dragMoved = true;
    if (!m_dragMoved)
        return;
    const TimelineLayout layout = currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, windowStartNs(), windowEndNs());
    if (m_drag == DragMode::Pan) {
        const qint64 delta = qint64(std::llround(double(pos.x() - m_pressPos.x()) * mapping.nsPerPixel()));
        const qint64 start = m_pressWindowStart - delta;
        m_zoom->setWindow(start - m_zoomOffsetNs, start - m_zoomOffsetNs + m_zoom->windowDuration());
        // The rows follow the pointer up and down too where they overflow.
        if (layout.maxScrollY > 0)
            setScrollY(m_pressScrollY - (pos.y() - m_pressPos.y()));
    } else {
        const double x = std::clamp(double(pos.x()), double(layout.plot.left()), double(layout.plot.right() + 1));
        m_zoom->setSelection(m_selectAnchorNs - m_zoomOffsetNs, mapping.toNs(x) - m_zoomOffsetNs);
    }
    event->accept();
}

void TimelineView::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || m_drag == DragMode::None) {
        QWidget::mouseReleaseEvent(event);
        return;
    }
    const DragMode mode = m_drag;
    m_drag = DragMode::None;
    unsetCursor();
    if (mode == DragMode::ResizeLabels) {
        event->accept();
        return;
    }
    if (!m_dragMoved) {
        // A click: select the op under the pointer, or clear everything on empty space; Ctrl+click adds
        // the op to the selection or takes it out (the document measures a selection of several).
        const QPoint pos = event->position().toPoint();
        const OpRef ref = opAt(pos);
        if (ref.isValid() && (event->modifiers() & (Qt::ControlModifier | Qt::MetaModifier))) {
            emit opToggled(ref.repetition, ref.op);
            event->accept();
            return;
        }
        if (mode == DragMode::Select || !ref.isValid())
            m_zoom->clearSelection();
        m_selectingByClick = true;
        if (m_document && m_document->selectedOps().size() > 1 && ref == m_selected)
            emit opSelected(m_repetition, ref.op); // the one op again, out of a multiple selection
        selectOp(ref.op);
        m_selectingByClick = false;
        // Which end was clicked: where follow flow starts from.
        if (ref.isValid()) {
            const Pick pick = pickAt(pos);
            const bool host = pick.lane >= 0 && m_model->lane(pick.lane).kind == LaneKind::HostThread;
            m_selectedEnd = host ? OpEnd::Host : OpEnd::Gpu;
            update();
        }
    } else if (mode == DragMode::Select && m_zoom->hasSelection()) {
        emit rangeSelected((m_zoom->selectionStart() + m_zoomOffsetNs), (m_zoom->selectionEnd() + m_zoomOffsetNs));
    }
    event->accept();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && m_model) {
        const QPoint pos = event->position().toPoint();
        const TimelineLayout layout = currentLayout();
        if (onLabelEdge(pos)) {
            fitLabelWidth();
            event->accept();
            return;
        }
        if (pos.x() < layout.plot.left()) {
            // The second click of a double-click on a group's header folds it back, as a click does.
            const int row = layout.laneAt(pos.y());
            if (row >= 0 && layout.rows[std::size_t(row)].isGroup())
                setGroupCollapsed(layout.rows[std::size_t(row)].group, !layout.rows[std::size_t(row)].collapsed);
            else if (row >= 0 && layout.rows[std::size_t(row)].fold != LaneRow::Fold::None)
                setRangesFolded(layout.rows[std::size_t(row)].foldLane,
                                layout.rows[std::size_t(row)].fold == LaneRow::Fold::Open);
            event->accept();
            return;
        }
    }
    if (event->button() == Qt::LeftButton) {
        fitAll();
        event->accept();
        return;
    }
    QWidget::mouseDoubleClickEvent(event);
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    if (!m_model) {
        QWidget::keyPressEvent(event);
        return;
    }
    const TimelineLayout layout = currentLayout();
    const TimeMapping mapping = TimelinePainter::mappingFor(layout, windowStartNs(), windowEndNs());
    // Zoom keys act at the pointer when it is over the plot (as Perfetto does), else at the centre.
    const QPoint cursorPos = mapFromGlobal(QCursor::pos());
    const qint64 anchor = layout.plot.contains(cursorPos) ? mapping.toNs(double(cursorPos.x()))
                                                          : windowStartNs() + m_zoom->windowDuration() / 2;
    const qint64 panStep = std::max<qint64>(1, qint64(double(m_zoom->windowDuration()) * kKeyPanFraction));
    switch (event->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal: m_zoom->zoomAt(anchor - m_zoomOffsetNs, kKeyZoomFactor); break;
    case Qt::Key_S:
    case Qt::Key_Minus: m_zoom->zoomAt(anchor - m_zoomOffsetNs, 1.0 / kKeyZoomFactor); break;
    case Qt::Key_A:
    case Qt::Key_Left:
        if (event->modifiers() & Qt::AltModifier)
            m_zoom->back(); // the zoom history, as a browser's
        else
            m_zoom->pan(-panStep);
        break;
    case Qt::Key_D:
    case Qt::Key_Right:
        if (event->modifiers() & Qt::AltModifier)
            m_zoom->forward();
        else
            m_zoom->pan(panStep);
        break;
    case Qt::Key_F: // F alone: Ctrl+F is Find
        if (event->modifiers() & (Qt::ControlModifier | Qt::MetaModifier | Qt::AltModifier)) {
            QWidget::keyPressEvent(event);
            return;
        }
        fitAll();
        break;
    case Qt::Key_Home: fitAll(); break;
    case Qt::Key_Up: setScrollY(layout.scrollY - m_painter->metrics().readableLaneHeight); break;
    case Qt::Key_Down: setScrollY(layout.scrollY + m_painter->metrics().readableLaneHeight); break;
    case Qt::Key_PageUp: setScrollY(layout.scrollY - m_vscroll->pageStep()); break;
    case Qt::Key_PageDown: setScrollY(layout.scrollY + m_vscroll->pageStep()); break;
    case Qt::Key_BracketRight: followFlow(); break; // also the View menu's action, where there is one
    case Qt::Key_Escape:
        m_zoom->clearSelection();
        selectOp(-1);
        break;
    default: QWidget::keyPressEvent(event); return;
    }
    event->accept();
}

void TimelineView::contextMenuEvent(QContextMenuEvent *event)
{
    if (!m_model) {
        QWidget::contextMenuEvent(event);
        return;
    }
    const TimelineLayout layout = currentLayout();
    const QPoint pos = event->pos();
    std::unique_ptr<QMenu> menu;
    if (pos.x() < layout.plot.left()) {
        menu.reset(createRowMenu(layout.laneAt(pos.y()), this));
    } else {
        menu = std::make_unique<QMenu>(this);
        const OpRef ref = opAt(pos);
        if (ref.isValid()) {
            const Pick pick = pickAt(pos);
            const bool host = pick.lane >= 0 && m_model->lane(pick.lane).kind == LaneKind::HostThread;
            menu->addAction(host ? tr("Follow flow to the GPU work") : tr("Follow flow to the host call"), this,
                            [this, ref, host] {
                                selectOp(ref.op);
                                m_selectedEnd = host ? OpEnd::Host : OpEnd::Gpu;
                                followFlow();
                            });
        }
        QAction *flows =
            menu->addAction(tr("Flows for everything in view"), this, [this](bool on) { setShowAllFlows(on); });
        flows->setCheckable(true);
        flows->setChecked(m_showAllFlows);
        const int row = layout.laneAt(pos.y());
        if (row >= 0) {
            menu->addSeparator();
            QMenu *lane = createRowMenu(row, menu.get());
            lane->setTitle(tr("Lane"));
            menu->addMenu(lane);
        }
    }
    menu->exec(event->globalPos());
    event->accept();
}

void TimelineView::leaveEvent(QEvent *event)
{
    setHovered({});
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
    const Pick pick = pickAt(pos);
    return pick.lane < 0 ? -1 : m_model->activityAt(pick.lane, pick.ns, pick.toleranceNs);
}

QString TimelineView::activityToolTipText(int index) const
{
    if (!m_model || index < 0 || std::size_t(index) >= m_model->rep().activities.size())
        return {};
    const engine::ActivityRecord &a = m_model->rep().activities[std::size_t(index)];
    QStringList lines;
    const QString cause =
        QString::fromStdString(std::string(engine::toString(a.detail))).replace(QLatin1Char('_'), QLatin1Char(' '));
    switch (a.kind) {
    case engine::ActivityKind::MigrationH2D:
    case engine::ActivityKind::MigrationD2H: {
        lines << tr("Page migration %1: %2")
                     .arg(a.kind == engine::ActivityKind::MigrationH2D ? QStringLiteral("host → GPU")
                                                                       : QStringLiteral("GPU → host"),
                          formatBytes(a.value));
        lines << tr("start %1 · duration %2")
                     .arg(formatDuration(a.startNs - m_model->originNs()), formatDuration(a.durationNs()));
        if (a.durationNs() > 0)
            lines << tr("%1 over the migration").arg(formatGBs(double(a.value) / double(a.durationNs())));
        lines << tr("cause: %1")
                     .arg(a.detail == engine::ActivityDetail::Coherence ? tr("a page fault (on-demand migration)")
                          : a.detail == engine::ActivityDetail::User ? tr("an explicit request (cudaMemPrefetchAsync)")
                          : a.detail == engine::ActivityDetail::Speculative
                              ? tr("the driver's speculative prefetch near a fault")
                              : cause);
        break;
    }
    case engine::ActivityKind::GpuPageFaults:
        lines << tr("%n GPU page fault(s) in one group", nullptr, int(a.value));
        lines << tr("driver took the group at %1, replayed after %2")
                     .arg(formatDuration(a.startNs - m_model->originNs()), formatDuration(a.durationNs()));
        lines << tr("access: %1").arg(cause);
        break;
    default: lines << QString::fromStdString(std::string(engine::toString(a.kind))); break;
    }
    if (a.address)
        lines << tr("address 0x%1").arg(a.address, 0, 16);
    if (a.op >= 0 && a.op < m_model->opCount())
        lines << tr("during '%1' (click to select it)")
                     .arg(QString::fromStdString(m_model->trace().name(m_model->op(a.op))));
    return lines.join(QLatin1Char('\n'));
}

bool TimelineView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        // A label: the whole of it (the column may cut it), and for a group what it holds.
        if (m_model && m_tree && help->pos().x() < currentLayout().plot.left()) {
            const int row = rowAt(help->pos());
            if (row >= 0 && std::size_t(row) < rows().size()) {
                const LaneRow &r = rows()[std::size_t(row)];
                QString text;
                if (r.isGroup()) {
                    const LaneGroup &g = m_tree->group(r.group);
                    text = tr("%1\n%2 · busy %3 % of the repetition\nclick to %4")
                               .arg(g.title, g.subtitle)
                               .arg(g.busyFraction * 100, 0, 'f', 1)
                               .arg(r.collapsed ? tr("expand") : tr("collapse"));
                } else if (r.lane >= 0) {
                    text = tr("%1\n%2\nright-click: hide, pin, rename")
                               .arg(m_tree->label(r.lane, laneState()), m_model->lane(r.lane).subtitle);
                    if (r.fold != LaneRow::Fold::None)
                        text += tr("\nclick to %1 its %2 NVTX rows")
                                    .arg(r.fold == LaneRow::Fold::Folded ? tr("unfold") : tr("fold"))
                                    .arg(m_tree->rangeRowCount(r.foldLane));
                }
                QToolTip::showText(help->globalPos(), text, this);
                return true;
            }
        }
        if (const int activity = activityAt(help->pos()); activity >= 0) {
            QToolTip::showText(help->globalPos(), activityToolTipText(activity), this);
            return true;
        }
        if (const int range = rangeAt(help->pos()); range >= 0) {
            QToolTip::showText(help->globalPos(), rangeToolTipText(range), this);
            return true;
        }
        const OpRef ref = opAt(help->pos());
        if (ref.isValid())
            QToolTip::showText(help->globalPos(), toolTipText(ref.op), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace streamscope::ui
