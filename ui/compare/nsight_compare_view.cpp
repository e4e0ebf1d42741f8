// NsightCompareView: loading and pairing both traces, the two aligned timelines kept on one time
// window, and the delta tables.
#include "ui/compare/nsight_compare_view.h"
#include "ui/common/format_units.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "ui/compare/diff_view.h"
#include "ui/compare/nsight_summary_model.h"
#include "ui/compare/op_delta_model.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/time_mapping.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

namespace streamscope::ui {

namespace {

// The earliest GPU start of a repetition, or its origin when it has no GPU op (host work only).
qint64 firstGpuStartNs(const engine::Trace &trace, int repetition, qint64 fallback)
{
    qint64 first = std::numeric_limits<qint64>::max();
    for (const auto &op : trace.repetitions[std::size_t(repetition)].ops)
        if (op.hasGpu())
            first = std::min<qint64>(first, op.gpuStartNs);
    return first == std::numeric_limits<qint64>::max() ? fallback : first;
}

// The op of one repetition in a lane (a stream's name, "host" for host-only ops) with a name, the
// occurrence-th of that name in the lane in issue order: how engine::compareWithNsight names a slot.
int findOp(const engine::Trace &trace, int repetition, const std::string &lane, const std::string &name, int occurrence)
{
    const auto &ops = trace.repetitions[std::size_t(repetition)].ops;
    int seen = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const engine::OpRecord &op = ops[i];
        // As the engine: a host-only op is on "host" even when it names a stream (Nsight ties a
        // synchronisation to the stream waited on).
        const bool onStream = op.hasGpu() && op.stream >= 0 && std::size_t(op.stream) < trace.streams.size();
        const std::string &opLane = onStream ? trace.streams[std::size_t(op.stream)].name : std::string("host");
        if (opLane != lane || trace.name(op) != name)
            continue;
        if (seen++ == occurrence)
            return int(i);
    }
    return -1;
}

} // namespace

NsightCompareView::NsightCompareView(QWidget *parent) : QWidget(parent)
{
    setWindowTitle(tr("StreamScope vs Nsight Systems"));

    m_headline = new QLabel(this);
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_repetitionBox = new QSpinBox(this);
    m_repetitionBox->setPrefix(tr("repetition "));
    m_repetitionBox->setEnabled(false);
    // Counted from 1, as the summary's selector and the CLI count them.
    connect(m_repetitionBox, &QSpinBox::valueChanged, this, [this](int value) { setRepetition(value - 1); });
    auto *top = new QHBoxLayout;
    top->addWidget(m_headline, 1);
    top->addWidget(m_repetitionBox);

    m_ownTitle = new QLabel(this);
    m_nsightTitle = new QLabel(this);
    for (QLabel *label : {m_ownTitle, m_nsightTitle}) {
        QFont f = label->font();
        f.setBold(true);
        label->setFont(f);
    }
    m_ownTimeline = new TimelineView(this);
    m_nsightTimeline = new TimelineView(this);
    // One zoom, in StreamScope's time; the Nsight timeline follows it at the offset that aligns the two.
    m_zoom = new ZoomControl(this);
    m_ownTimeline->followZoom(m_zoom);
    m_nsightTimeline->followZoom(m_zoom, m_offsetNs);

    auto wrap = [this](QLabel *title, TimelineView *view) {
        auto *box = new QWidget(this);
        auto *layout = new QVBoxLayout(box);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->setSpacing(2);
        layout->addWidget(title);
        layout->addWidget(view, 1);
        return box;
    };

    m_deltas = new DiffView(this);
    m_deltas->layout()->setContentsMargins(0, 0, 0, 0);
    connect(m_deltas->opTable()->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                const auto *proxy = static_cast<const QSortFilterProxyModel *>(m_deltas->opTable()->model());
                if (current.isValid())
                    selectSlot(proxy->mapToSource(current).row());
            });

    auto *explanation = new QLabel(
        tr("Why they differ: StreamScope times an op with CUDA events on its stream, so its interval opens when "
           "the stream reaches the op and includes the event's own cost, the gap after the previous op and any "
           "wait for a busy copy engine; Nsight's CUPTI timestamps are when the engine really ran it. Events "
           "therefore read longer (Δ < 0), most for copies queued behind other streams' copies. See "
           "docs/nsight.md."),
        this);
    explanation->setWordWrap(true);

    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(wrap(m_ownTitle, m_ownTimeline));
    split->addWidget(wrap(m_nsightTitle, m_nsightTimeline));
    split->addWidget(m_deltas);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 2);
    split->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    layout->addWidget(explanation);
}

NsightCompareView::~NsightCompareView() = default;

OpDeltaModel *NsightCompareView::deltaModel() const
{
    return m_deltas->opModel();
}

NsightSummaryModel *NsightCompareView::summaryModel() const
{
    return m_deltas->kindModel();
}

QTableView *NsightCompareView::deltaTable() const
{
    return m_deltas->opTable();
}

bool NsightCompareView::openFiles(const QString &ownPath, const QString &nsightPath, QString *error)
{
    std::shared_ptr<const engine::Trace> own;
    std::shared_ptr<const engine::Trace> nsight;
    try {
        own = std::make_shared<engine::Trace>(engine::loadTrace(ownPath.toStdString()));
        nsight = std::make_shared<engine::Trace>(engine::loadTrace(nsightPath.toStdString()));
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    return setTraces(std::move(own), std::move(nsight), QFileInfo(ownPath).fileName(), QFileInfo(nsightPath).fileName(),
                     error);
}

bool NsightCompareView::setTraces(std::shared_ptr<const engine::Trace> own, std::shared_ptr<const engine::Trace> nsight,
                                  const QString &ownName, const QString &nsightName, QString *error)
{
    if (!own || !nsight) {
        if (error)
            *error = tr("nsight comparison: both a StreamScope trace and an Nsight capture are needed");
        return false;
    }
    engine::NsightComparison comparison;
    try {
        comparison = engine::compareWithNsight(*own, *nsight);
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    m_own = std::move(own);
    m_nsight = std::move(nsight);
    m_comparison = std::move(comparison);
    m_deltas->setNsightComparison(m_comparison);

    m_ownTitle->setText(tr("StreamScope (CUDA events): %1").arg(ownName));
    m_nsightTitle->setText(tr("Nsight Systems (CUPTI timestamps): %1, aligned on the first GPU start").arg(nsightName));
    m_headline->setText(headline());
    setWindowTitle(tr("%1 vs %2 — StreamScope").arg(ownName, nsightName));

    const QSignalBlocker block(m_repetitionBox);
    m_repetitionBox->setRange(1, std::max(1, int(m_own->repetitions.size())));
    m_repetitionBox->setSuffix(tr(" of %1").arg(m_own->repetitions.size()));
    m_repetitionBox->setValue(1);
    m_repetitionBox->setEnabled(m_own->repetitions.size() > 1);
    m_repetition = -1;
    setRepetition(0);
    return true;
}

QString NsightCompareView::headline() const
{
    if (!m_own)
        return {};
    const engine::NsightComparison &c = m_comparison;
    QString text = tr("%1 repetitions compared; %2 op instances matched").arg(c.repetitions).arg(c.matched);
    if (c.matchedAcrossStreams > 0)
        text += tr(" (%1 on another stream in Nsight)").arg(c.matchedAcrossStreams);
    if (c.matchedByOrder > 0)
        text += tr(", %1 by order").arg(c.matchedByOrder);
    text += tr("; %1 only in StreamScope, %2 only in Nsight. Overall median |duration Δ| %3, max %4; median "
               "|start Δ| %5 (Δ = Nsight - StreamScope).")
                .arg(c.unmatchedOwn)
                .arg(c.unmatchedNsight)
                .arg(formatDuration(qint64(c.overall.medianAbsDurationDeltaNs)),
                     formatDuration(qint64(c.overall.maxAbsDurationDeltaNs)),
                     formatDuration(qint64(c.overall.medianAbsStartDeltaNs)));
    return text;
}

bool NsightCompareView::selectSlot(int row)
{
    if (!m_own || row < 0 || std::size_t(row) >= m_comparison.ops.size())
        return false;
    const engine::NsightOpDelta &slot = m_comparison.ops[std::size_t(row)];
    const int own = findOp(*m_own, m_repetition, slot.lane, slot.name, slot.occurrence);
    // Nsight's occurrence is counted the same way; a slot paired by order (no shared name) or moved to
    // another stream still finds its op when it is the only one of its name there.
    const int nsight = findOp(*m_nsight, m_nsightRepetition, slot.nsightLane, slot.nsightName, slot.occurrence);
    m_ownTimeline->selectOp(own);
    m_nsightTimeline->selectOp(nsight);
    return own >= 0 && nsight >= 0;
}

void NsightCompareView::setRepetition(int repetition)
{
    if (!m_own || m_own->repetitions.empty())
        return;
    repetition = std::clamp(repetition, 0, int(m_own->repetitions.size()) - 1);
    if (repetition == m_repetition)
        return;
    m_repetition = repetition;
    {
        const QSignalBlocker block(m_repetitionBox);
        m_repetitionBox->setValue(repetition + 1);
    }
    // The engine pairs repetitions by Repetition::index when both traces hold the same indices, else
    // by position; the timelines follow the same rule.
    std::vector<int> ownIndices, nsightIndices;
    for (const auto &r : m_own->repetitions)
        ownIndices.push_back(r.index);
    for (const auto &r : m_nsight->repetitions)
        nsightIndices.push_back(r.index);
    std::sort(ownIndices.begin(), ownIndices.end());
    std::sort(nsightIndices.begin(), nsightIndices.end());
    int partner = std::min(repetition, int(m_nsight->repetitions.size()) - 1);
    if (ownIndices == nsightIndices) {
        const int wanted = m_own->repetitions[std::size_t(repetition)].index;
        for (std::size_t i = 0; i < m_nsight->repetitions.size(); ++i)
            if (m_nsight->repetitions[i].index == wanted)
                partner = int(i);
    }
    m_nsightRepetition = partner;

    m_ownTimeline->setTrace(m_own, repetition);
    m_nsightTimeline->setTrace(m_nsight, partner);
    updateAlignment();
}

void NsightCompareView::updateAlignment()
{
    const LaneModel *ownModel = m_ownTimeline->laneModel();
    const LaneModel *nsightModel = m_nsightTimeline->laneModel();
    if (!ownModel || !nsightModel)
        return;
    const qint64 ownFirst = firstGpuStartNs(*m_own, m_repetition, ownModel->originNs()) - ownModel->originNs();
    const qint64 nsightFirst =
        firstGpuStartNs(*m_nsight, m_nsightRepetition, nsightModel->originNs()) - nsightModel->originNs();
    m_offsetNs = nsightFirst - ownFirst;

    // One extent for both, in StreamScope's coordinates: everything of either repetition stays reachable.
    const qint64 start = std::min<qint64>(0, -m_offsetNs);
    const qint64 end = std::max<qint64>(ownModel->durationNs(), nsightModel->durationNs() - m_offsetNs);
    m_nsightTimeline->followZoom(m_zoom, m_offsetNs);
    m_zoom->clearSelection(); // a range chosen in another repetition means nothing in this one
    m_zoom->setExtent(start, end);
    m_zoom->setWindow(start, end);
}

} // namespace streamscope::ui
