// TimelineToolTips (see timeline_tooltips.h).
#include "ui/timeline/timeline_tooltips.h"

#include <QStringList>

#include "engine/analysis/analysis.h"
#include "engine/analysis/op_description.h"
#include "engine/analysis/queue_analysis.h"
#include "ui/common/format_units.h"
#include "ui/common/host_range_labels.h"
#include "ui/common/op_palette.h"
#include "ui/timeline/lane_model.h"

namespace streamscope::ui {

QString TimelineToolTips::opText(const LaneModel &model, int opIndex)
{
    if (opIndex < 0 || opIndex >= model.opCount())
        return {};
    const engine::OpDescription d = engine::describeOp(model.trace(), model.repetition(), opIndex);
    QStringList lines;
    lines << QString::fromStdString(d.name);
    QString what = qs(d.kind);
    if (d.stream)
        what += QStringLiteral(" on stream '%1'").arg(QString::fromStdString(d.stream->name));
    if (d.workloadIndex >= 0)
        what += QStringLiteral(" · op #%1").arg(d.workloadIndex);
    lines << what;
    if (d.gpu) {
        lines << QStringLiteral("%1: start %2 · duration %3")
                     .arg(d.cupti ? QStringLiteral("executed") : QStringLiteral("GPU"), formatDuration(d.gpu->startNs),
                          formatDuration(d.gpu->durationNs));
        if (!d.queueCause.empty())
            lines << QString::fromStdString(d.queueCause);
        if (!d.piecesSummary.empty())
            lines << QStringLiteral("ran as %1").arg(QString::fromStdString(d.piecesSummary));
        if (!d.pdl.empty())
            lines << QString::fromStdString(d.pdl);
    }
    if (d.bytes > 0) {
        QString bytes = formatBytes(d.bytes);
        if (d.gbs > 0)
            bytes += QStringLiteral(" · %1").arg(formatGBs(d.gbs));
        lines << bytes;
    }
    if (d.copy && !d.srcMem.empty()) {
        QString mem = QStringLiteral("memory: %1 → %2").arg(qs(d.srcMem), qs(d.dstMem));
        if (!d.copyCall.empty())
            mem += QStringLiteral(" (%1)").arg(qs(d.copyCall));
        lines << mem;
    }
    if (d.host) {
        QString host = QStringLiteral("host call: start %1 · held the thread %2")
                           .arg(formatDuration(d.host->startNs), formatDuration(d.host->durationNs));
        if (d.hostBlocking)
            host += QStringLiteral(" (blocking)");
        lines << host;
    }
    // The range it was launched in (its NVTX range, or the PyTorch op), and a kernel's launch.
    if (d.range)
        lines << QStringLiteral("%1: %2").arg(hostRangeCategoryLabel(d.range->category),
                                              QString::fromStdString(model.trace().string(d.range->nameId)));
    if (const engine::KernelLaunch *l = d.launch; l && l->hasGrid() && l->hasBlock())
        lines << QStringLiteral("grid %1×%2×%3 · block %4×%5×%6")
                     .arg(l->grid[0])
                     .arg(l->grid[1])
                     .arg(l->grid[2])
                     .arg(l->block[0])
                     .arg(l->block[1])
                     .arg(l->block[2]);
    return lines.join(QLatin1Char('\n'));
}

QString TimelineToolTips::rangeText(const LaneModel &model, int index)
{
    if (index < 0 || std::size_t(index) >= model.rep().hostRanges.size())
        return {};
    const engine::Trace &trace = model.trace();
    const engine::HostRange &h = model.rep().hostRanges[std::size_t(index)];
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
                 .arg(formatDuration(h.startNs - model.originNs()), formatDuration(h.durationNs()));
    // What it launched: the ops tied to it (their call started in it and in no range inside it).
    int launched = 0, gpu = 0;
    for (const engine::OpRecord &op : model.rep().ops)
        if (op.hostRange == index) {
            ++launched;
            gpu += op.hasGpu();
        }
    if (launched > 0)
        lines << tr("%n call(s) made directly in it, %1 with GPU work", nullptr, launched).arg(gpu);
    return lines.join(QLatin1Char('\n'));
}

QString TimelineToolTips::activityText(const LaneModel &model, int index)
{
    if (index < 0 || std::size_t(index) >= model.rep().activities.size())
        return {};
    const engine::ActivityRecord &a = model.rep().activities[std::size_t(index)];
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
                     .arg(formatDuration(a.startNs - model.originNs()), formatDuration(a.durationNs()));
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
                     .arg(formatDuration(a.startNs - model.originNs()), formatDuration(a.durationNs()));
        lines << tr("access: %1").arg(cause);
        break;
    default: lines << QString::fromStdString(std::string(engine::toString(a.kind))); break;
    }
    if (a.address)
        lines << tr("address 0x%1").arg(a.address, 0, 16);
    if (a.op >= 0 && a.op < model.opCount())
        lines << tr("during '%1' (click to select it)").arg(QString::fromStdString(model.trace().name(model.op(a.op))));
    return lines.join(QLatin1Char('\n'));
}

QString TimelineToolTips::rowText(const LaneModel &model, const LaneTree &tree, const LaneRow &r,
                                  const LaneViewState &state)
{
    QString text;
    if (r.isGroup()) {
        const LaneGroup &g = tree.group(r.group);
        text = tr("%1\n%2 · busy %3 % of the repetition\nclick to %4")
                   .arg(g.title, g.subtitle)
                   .arg(g.busyFraction * 100, 0, 'f', 1)
                   .arg(r.collapsed ? tr("expand") : tr("collapse"));
    } else if (r.lane >= 0) {
        text = tr("%1\n%2\nright-click: hide, pin, rename").arg(tree.label(r.lane, state), model.lane(r.lane).subtitle);
        if (r.fold != LaneRow::Fold::None)
            text += tr("\nclick to %1 its %2 NVTX rows")
                        .arg(r.fold == LaneRow::Fold::Folded ? tr("unfold") : tr("fold"))
                        .arg(tree.rangeRowCount(r.foldLane));
    }
    return text;
}

} // namespace streamscope::ui
