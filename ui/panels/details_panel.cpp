// DetailsPanel: an HTML table rebuilt on each selection; names from the trace are escaped.
#include "ui/panels/details_panel.h"
#include "ui/common/display_text.h"

#include "ui/document/trace_document.h"

#include <QLocale>
#include <QStringList>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdlib>
#include <ranges>
#include <vector>

#include "engine/analysis/analysis.h"
#include "engine/analysis/op_description.h"
#include "engine/analysis/op_statistics.h"
#include "ui/common/format_units.h"
#include "ui/common/host_range_labels.h"
#include "ui/timeline/time_mapping.h"

namespace streamscope::ui {

namespace {

// Names from the file in the details: long C++ kernel names read whole (a few hundred characters), a
// megabyte-long one clamped (displayText).
constexpr int kLongName = 2000;

// The ranges around an op's launch on its thread, outermost first ("step › forward › aten::mm"): for
// each depth above the innermost range, the range of that depth that holds the call's start.
QString rangeStack(const engine::Trace &trace, const engine::Repetition &rep, const engine::OpRecord &op,
                   const engine::HostRange &innermost)
{
    std::vector<const engine::HostRange *> stack(std::size_t(innermost.depth) + 1, nullptr);
    stack.back() = &innermost;
    for (const engine::HostRange &h : rep.hostRanges) {
        if (h.startNs > op.hostStartNs)
            break; // sorted by start
        if (h.hostThread == innermost.hostThread && h.depth < innermost.depth && h.endNs >= op.hostStartNs)
            stack[std::size_t(h.depth)] = &h; // the latest-starting one of each depth
    }
    QStringList names;
    for (const engine::HostRange *h : stack)
        if (h)
            names << QString::fromStdString(trace.string(h->nameId));
    return names.join(QStringLiteral(" › "));
}

QString dims(const std::uint32_t (&v)[3])
{
    return QStringLiteral("%1 × %2 × %3").arg(v[0]).arg(v[1]).arg(v[2]);
}

// The rows of the details table, as HTML: row(key, value) adds one.
struct DetailRows {
    QString html;
    void operator()(const QString &key, const QString &value)
    {
        html += QStringLiteral("<tr><td style='padding-right:12px'><b>%1</b></td><td>%2</td></tr>")
                    .arg(key.toHtmlEscaped(), value.toHtmlEscaped());
    }
};

QString tr(const char *text, const char *disambiguation = nullptr, int n = -1)
{
    return DetailsPanel::tr(text, disambiguation, n);
}

// How a kernel was launched, where the source recorded it.
void launchRows(DetailRows &row, const engine::Trace &trace, const engine::KernelLaunch &l, double teraflops,
                double kernelTeraflops)
{
    if (l.fullNameId != engine::kNoString)
        row(tr("Kernel"), displayText(trace.string(l.fullNameId), kLongName));
    if (l.flops > 0) {
        QString text = QString::fromStdString(engine::formatFlops(l.flops));
        if (l.workId != engine::kNoString)
            text = tr("%1: %2").arg(displayText(trace.string(l.workId)), text);
        if (teraflops > 0)
            text += tr(" at %1 TFLOP/s").arg(QLocale().toString(teraflops, 'f', 1));
        if (kernelTeraflops > 0) // its kernel started late: the call's rate and the kernels' differ
            text += tr(" (%1 over its kernels)").arg(QLocale().toString(kernelTeraflops, 'f', 1));
        row(tr("Work"), text);
    }
    if (l.hasGrid() || l.hasBlock()) {
        if (l.hasGrid())
            row(tr("Grid"),
                tr("%1 (%2 blocks)")
                    .arg(dims(l.grid))
                    .arg(QLocale().toString(qulonglong(std::uint64_t(std::max(1u, l.grid[0])) * std::max(1u, l.grid[1])
                                                       * std::max(1u, l.grid[2])))));
        if (l.hasBlock())
            row(tr("Block"), tr("%1 (%2 threads)")
                                 .arg(dims(l.block))
                                 .arg(qulonglong(std::uint64_t(std::max(1u, l.block[0])) * std::max(1u, l.block[1])
                                                 * std::max(1u, l.block[2]))));
    }
    if (l.sharedBytes >= 0) {
        QString text = tr("%1 per block").arg(formatBytes(std::uint64_t(l.sharedBytes)));
        if (l.staticSharedBytes >= 0 && l.dynamicSharedBytes >= 0)
            text += tr(" (%1 static, %2 dynamic)")
                        .arg(formatBytes(std::uint64_t(l.staticSharedBytes)),
                             formatBytes(std::uint64_t(l.dynamicSharedBytes)));
        row(tr("Shared memory"), text);
    }
    if (l.registersPerThread >= 0)
        row(tr("Registers"), tr("%1 per thread").arg(l.registersPerThread));
}

// What the call ran on the GPU, where it ran as several records: what they were, then each piece from the op's
// start (the first 16).
void pieceRows(DetailRows &row, const engine::Trace &trace, const engine::OpDescription &d)
{
    if (d.piecesSummary.empty())
        return;
    row(tr("Ran as"), QString::fromStdString(d.piecesSummary));
    constexpr std::size_t kShown = 16;
    for (std::size_t i = 0; i < d.pieces.size() && i < kShown; ++i) {
        const engine::OpPiece &p = d.pieces[i];
        row(tr("Piece %1").arg(i + 1),
            tr("+%1, %2: %3")
                .arg(formatDuration(p.startNs - d.piecesOriginNs), formatDuration(p.durationNs()),
                     displayText(engine::describePiece(trace, p), kLongName)));
    }
    if (d.pieces.size() > kShown)
        row(QString(), tr("and %1 more").arg(d.pieces.size() - kShown));
}

// The unified memory the op moved or faulted on (the driver's records that belong to it).
void unifiedMemoryRows(DetailRows &row, const engine::UnifiedMemoryStats &um)
{
    auto migrated = [](int count, std::uint64_t bytes, std::int64_t busyNs, double gbs) {
        return tr("%n migration(s), %1 in %2 (%3)", nullptr, count)
            .arg(formatBytes(bytes), formatDuration(busyNs), formatGBs(gbs));
    };
    if (um.h2dMigrations)
        row(tr("Migrated to the GPU"), migrated(um.h2dMigrations, um.h2dBytes, um.h2dBusyNs, um.h2dGBs));
    if (um.d2hMigrations)
        row(tr("Migrated to the host"), migrated(um.d2hMigrations, um.d2hBytes, um.d2hBusyNs, um.d2hGBs));
    if (um.gpuFaultGroups)
        row(tr("GPU page faults"), tr("%1 in %n group(s), the driver handling them for %2", nullptr, um.gpuFaultGroups)
                                       .arg(um.gpuPageFaults)
                                       .arg(formatDuration(um.gpuFaultNs)));
    if (um.cpuPageFaults)
        row(tr("CPU page faults"), QString::number(um.cpuPageFaults));
    if (um.remoteMaps)
        row(tr("Remote maps"), tr("%n (pages mapped where they are, not migrated)", nullptr, um.remoteMaps));
    if (um.thrashing || um.throttling)
        row(tr("Thrashing"), tr("%1 detected, %2 throttled").arg(um.thrashing).arg(um.throttling));
}

// The same op in every repetition: how repeatable this measurement is (engine::opStatistics, the CLI's
// op table's figures too).
void repeatabilityRows(DetailRows &row, const std::vector<engine::OpStatistics> &statistics, int opIndex)
{
    // Sorted by index: the op's row, if it was measured more than once.
    const auto it = std::lower_bound(statistics.begin(), statistics.end(), opIndex,
                                     [](const engine::OpStatistics &s, int index) { return s.index < index; });
    for (const engine::OpStatistics &s : std::ranges::subrange(it, statistics.end())) {
        if (s.index != opIndex)
            break;
        if (s.gpuNs.count < 2)
            continue;
        row(tr("GPU time over %1 repetitions").arg(s.gpuNs.count),
            tr("median %1, min %2, max %3")
                .arg(formatDuration(qint64(s.gpuNs.median)), formatDuration(qint64(s.gpuNs.min)),
                     formatDuration(qint64(s.gpuNs.max))));
        if (s.gbPerSecond.count > 1)
            row(tr("GB/s over %1 repetitions").arg(s.gbPerSecond.count),
                tr("median %1, min %2, max %3")
                    .arg(formatGBs(s.gbPerSecond.median), formatGBs(s.gbPerSecond.min), formatGBs(s.gbPerSecond.max)));
        break;
    }
}

} // namespace

DetailsPanel::DetailsPanel(QWidget *parent) : QWidget(parent), m_text(new QTextBrowser(this))
{
    m_text->setObjectName(QStringLiteral("detailsText"));
    m_text->setOpenLinks(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_text);
    showOp(-1, -1);
}

void DetailsPanel::setTrace(std::shared_ptr<const engine::Trace> trace)
{
    auto statistics = std::make_shared<const std::vector<engine::OpStatistics>>(
        trace ? engine::repeatedOpStatistics(*trace) : std::vector<engine::OpStatistics>{});
    auto interference = trace && !trace->solo.empty()
                            ? std::make_shared<const engine::InterferenceReport>(engine::analyzeInterference(*trace))
                            : nullptr;
    setTrace(std::move(trace), std::move(statistics), std::move(interference));
}

void DetailsPanel::setTrace(std::shared_ptr<const engine::Trace> trace,
                            std::shared_ptr<const std::vector<engine::OpStatistics>> statistics,
                            std::shared_ptr<const engine::InterferenceReport> interference)
{
    m_trace = std::move(trace);
    m_opStatistics = statistics ? std::move(statistics) : std::make_shared<const std::vector<engine::OpStatistics>>();
    m_interference = std::move(interference);
    showOp(-1, -1);
}

void DetailsPanel::setDocument(TraceDocument *document)
{
    m_documentConnections.clear();
    m_document = document;
    if (!document)
        return;
    m_documentConnections << connect(document, &TraceDocument::traceChanged, this, [this] {
        setTrace(m_document->trace(), m_document->opStatistics(), m_document->interference());
    });
    m_documentConnections << connect(document, &TraceDocument::selectionChanged, this, &DetailsPanel::showOp);
    setTrace(document->trace(), document->opStatistics(), document->interference());
    showOp(document->repetition(), document->selectedOp());
}

QString DetailsPanel::plainText() const
{
    return m_text->toPlainText();
}

void DetailsPanel::showOp(int repetition, int opIndex)
{
    if (!m_trace || repetition < 0 || repetition >= int(m_trace->repetitions.size()) || opIndex < 0
        || opIndex >= int(m_trace->repetitions[std::size_t(repetition)].ops.size())) {
        m_text->setHtml(m_trace ? tr("<p>Click an operation in the timeline or the operations table to see "
                                     "its details here.</p>")
                                : tr("<p>Open a trace or run a workload.</p>"));
        return;
    }
    const engine::Repetition &rep = m_trace->repetitions[std::size_t(repetition)];
    const engine::OpRecord &op = rep.ops[std::size_t(opIndex)];
    const std::int64_t origin = m_trace->extent(repetition).first;
    const engine::OpDescription d = engine::describeOp(*m_trace, repetition, opIndex);

    DetailRows row;
    row.html += QStringLiteral("<h3>%1</h3><table>").arg(displayText(d.name, kLongName).toHtmlEscaped());
    row(tr("Kind"), qs(d.kind));
    if (d.stream) {
        const engine::StreamInfo &stream = *d.stream;
        QString text = displayText(stream.name);
        if (stream.isDefault)
            text += tr(" (default stream)");
        else if (stream.nonBlocking)
            text += tr(" (non-blocking)");
        if (stream.priority != 0)
            text += tr(", priority %1").arg(stream.priority);
        row(tr("Stream"), text);
    }
    row(tr("Repetition / op"), tr("%1 / %2").arg(repetition + 1).arg(d.workloadIndex >= 0 ? d.workloadIndex : opIndex));
    // Where it was launched from (its NVTX range, or the PyTorch op), beside its own name.
    if (const engine::HostRange *range = d.range) {
        QString label = hostRangeCategoryLabel(range->category);
        label[0] = label[0].toUpper();
        QString text = displayText(m_trace->string(range->nameId), kLongName);
        if (range->domainId != engine::kNoString)
            text += tr(" (domain %1)").arg(displayText(m_trace->string(range->domainId)));
        row(label, text);
        if (range->depth > 0)
            row(tr("Launched in"), rangeStack(*m_trace, rep, op, *range));
    }
    // How a kernel was launched, where the source recorded it.
    if (const engine::KernelLaunch *l = d.launch)
        launchRows(row, *m_trace, *l, d.teraflops, d.kernelTeraflops);
    // A collective: nccl-tests' two figures (the bus bandwidth compares with the links' peak).
    if (d.launch && d.launch->busBytes > 0) {
        QString text = tr("bus %1, algorithm %2").arg(formatGBs(d.busGbs), formatGBs(d.gbs));
        if (d.launch->workId != engine::kNoString)
            text = tr("%1: %2").arg(displayText(m_trace->string(d.launch->workId)), text);
        row(tr("Communication"), text);
    }
    pieceRows(row, *m_trace, d);
    // The three intervals (trace.h): host call, stream-ready, execution; then what the waiting was.
    const bool cupti = d.cupti;
    if (d.host) {
        row(tr("Host call"), tr("%1 → %2 (held the thread %3)")
                                 .arg(formatDuration(d.host->startNs), formatDuration(d.host->endNs),
                                      formatDuration(d.host->durationNs)));
    }
    if (d.streamReadyNs)
        row(tr("Stream ready"), tr("%1 (CUDA event)").arg(formatDuration(*d.streamReadyNs)));
    if (d.gpu) {
        row(cupti ? tr("Executed") : tr("GPU"),
            tr("%1 → %2 (%3, %4)")
                .arg(formatDuration(d.gpu->startNs), formatDuration(d.gpu->endNs), formatDuration(d.gpu->durationNs),
                     QString::fromStdString(d.timedBy)));
    }
    if (!d.pdl.empty())
        row(tr("PDL"), QString::fromStdString(d.pdl));
    // Solo baselines: this op alone against the mix, and who ran beside it (interference.h).
    if (m_interference && m_interference->known && op.hasGpu() && std::size_t(opIndex) < m_interference->ops.size()) {
        const engine::OpSlowdown &s = m_interference->ops[std::size_t(opIndex)];
        if (s.known())
            row(tr("Against alone"), QString::fromStdString(engine::describeSlowdown(*m_trace, s)));
    }
    if (cupti && d.gpu) {
        row(tr("Queued"), d.queueCause.empty() ? formatDuration(d.queuedNs) : QString::fromStdString(d.queueCause));
        if (op.eventDurationNs() > 0)
            row(tr("Events would say"), tr("%1 (%2 more than execution)")
                                            .arg(formatDuration(op.eventDurationNs()),
                                                 formatDuration(op.eventDurationNs() - op.gpuDurationNs())));
    }
    if (const engine::KernelLaunch *l = d.launch;
        l && l->queuedNs != engine::kNoTime && l->submittedNs != engine::kNoTime && op.hasGpu())
        row(tr("Kernel launch"), tr("queued %1, submitted %2, started %3 later")
                                     .arg(formatDuration(l->queuedNs - origin), formatDuration(l->submittedNs - origin),
                                          formatDuration(op.gpuStartNs - l->queuedNs)));
    if (op.channel >= 0)
        row(tr("Channel"), tr("%1 (%2)")
                               .arg(op.channel)
                               .arg(op.channelType == engine::ChannelType::AsyncCopy ? tr("copy")
                                    : op.channelType == engine::ChannelType::Compute ? tr("compute")
                                                                                     : tr("unknown")));
    if (d.bytes > 0)
        row(tr("Bytes"), tr("%1 (%2 B)").arg(formatBytes(d.bytes)).arg(d.bytes));
    if (d.copy && d.gbs > 0)
        row(tr("Achieved bandwidth"), formatGBs(d.gbs));
    if (!d.srcMem.empty())
        row(tr("Memory"), tr("%1 → %2").arg(qs(d.srcMem), qs(d.dstMem)));
    if (op.driverSrcMem != engine::MemKind::None || op.driverDstMem != engine::MemKind::None)
        row(tr("Memory as the driver saw it"),
            tr("%1 → %2").arg(qs(engine::toString(op.driverSrcMem)), qs(engine::toString(op.driverDstMem))));
    if (op.stagedPeer())
        row(tr("Staged through the host"),
            tr("no peer access between GPU %1 and GPU %2: the driver copied down to host memory and up again. "
               "CUPTI records only two short pieces of such a copy, so it is timed from the stream reaching it "
               "(or its call, if later) to its end event")
                .arg(op.srcDevice)
                .arg(op.dstDevice));
    if (!d.copyCall.empty())
        row(tr("Copy API"), qs(d.copyCall));
    // The driver's records that belong to this op: unified memory it moved or faulted on, and the
    // wait of a synchronisation call.
    if (const engine::UnifiedMemoryStats um = engine::unifiedMemoryStats(rep, opIndex); um.any())
        unifiedMemoryRows(row, um);
    for (const engine::ActivityRecord &a : rep.activities)
        if (a.op == opIndex && a.kind == engine::ActivityKind::Synchronization)
            row(tr("Driver wait"), tr("%1 → %2 (%3, CUPTI synchronisation record)")
                                       .arg(formatDuration(a.startNs - origin), formatDuration(a.endNs - origin),
                                            formatDuration(a.durationNs())));
    row(tr("Blocks the host"), d.hostBlocking ? tr("yes: the host waited for the GPU") : tr("no"));
    if (op.flags & engine::OpFlagImported)
        row(tr("Source"),
            tr("imported (%1)").arg(QString::fromStdString(std::string(engine::toString(m_trace->source)))));
    if (op.correlation != 0)
        row(tr("Correlation id"), QString::number(op.correlation));
    // How far this op's event times (stream-ready, the event end) may sit from the host clock: its
    // device's anchor, after alignment to CUPTI's records where the run had them (trace metadata).
    if (op.stream >= 0 && std::size_t(op.stream) < m_trace->streams.size()) {
        const int device = m_trace->streams[std::size_t(op.stream)].device;
        const auto it = m_trace->metadata.find("clock.device" + std::to_string(device) + ".errorNs");
        if (it != m_trace->metadata.end() && (op.readyNs != engine::kNoTime || !cupti))
            row(tr("Clock error"), tr("GPU %1's events on the host axis: within ±%2")
                                       .arg(device)
                                       .arg(formatDuration(std::atoll(it->second.c_str()))));
    }

    // The same op in every repetition: how repeatable this measurement is (engine::opStatistics, the
    // CLI's op table's figures too).
    if (m_trace->repetitions.size() > 1 && op.hasGpu() && op.opIndex >= 0)
        repeatabilityRows(row, *m_opStatistics, op.opIndex);
    row.html += QStringLiteral("</table>");
    m_text->setHtml(row.html);
}

} // namespace streamscope::ui
