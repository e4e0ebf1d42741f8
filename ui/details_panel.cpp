// DetailsPanel: an HTML table rebuilt on each selection; names from the trace are escaped.
#include "ui/details_panel.h"

#include <QTextBrowser>
#include <QVBoxLayout>

#include <vector>

#include "engine/analysis.h"
#include "ui/format_units.h"
#include "ui/time_mapping.h"

namespace streamscope::ui {

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
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
    m_trace = std::move(trace);
    showOp(-1, -1);
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

    QString html;
    auto row = [&html](const QString &key, const QString &value) {
        html += QStringLiteral("<tr><td style='padding-right:12px'><b>%1</b></td><td>%2</td></tr>")
                    .arg(key.toHtmlEscaped(), value.toHtmlEscaped());
    };
    html += QStringLiteral("<h3>%1</h3><table>").arg(QString::fromStdString(m_trace->name(op)).toHtmlEscaped());
    row(tr("Kind"), qs(engine::toString(op.kind)));
    if (op.stream >= 0 && op.stream < int(m_trace->streams.size())) {
        const engine::StreamInfo &stream = m_trace->streams[std::size_t(op.stream)];
        QString text = QString::fromStdString(stream.name);
        if (stream.isDefault)
            text += tr(" (default stream)");
        else if (stream.nonBlocking)
            text += tr(" (non-blocking)");
        if (stream.priority != 0)
            text += tr(", priority %1").arg(stream.priority);
        row(tr("Stream"), text);
    }
    row(tr("Repetition / op"), tr("%1 / %2").arg(repetition + 1).arg(op.opIndex >= 0 ? op.opIndex : opIndex));
    if (op.hasGpu()) {
        row(tr("GPU start"), formatDuration(op.gpuStartNs - origin));
        row(tr("GPU end"), formatDuration(op.gpuEndNs - origin));
        row(tr("GPU time"), formatDuration(op.gpuDurationNs()));
    }
    if (op.hasHost()) {
        row(tr("Host call start"), formatDuration(op.hostStartNs - origin));
        row(tr("Host call held the thread"), formatDuration(op.hostDurationNs()));
    }
    if (op.bytes > 0)
        row(tr("Bytes"), tr("%1 (%2 B)").arg(formatBytes(op.bytes)).arg(op.bytes));
    if (engine::isCopy(op.kind) && op.gbPerSecond() > 0)
        row(tr("Achieved bandwidth"), formatGBs(op.gbPerSecond()));
    if (op.srcMem != engine::MemKind::None || op.dstMem != engine::MemKind::None)
        row(tr("Memory"), tr("%1 → %2").arg(qs(engine::toString(op.srcMem)), qs(engine::toString(op.dstMem))));
    if (op.api != engine::CopyApi::None)
        row(tr("Copy API"), op.api == engine::CopyApi::Sync ? QStringLiteral("cudaMemcpy")
                                                            : QStringLiteral("cudaMemcpyAsync"));
    row(tr("Blocks the host"), engine::isHostBlocking(op) ? tr("yes: the host waited for the GPU") : tr("no"));
    if (op.flags & engine::OpFlagImported)
        row(tr("Source"), tr("imported (%1)").arg(QString::fromStdString(m_trace->source)));
    if (op.correlation != 0)
        row(tr("Correlation id"), QString::number(op.correlation));

    // The same op in every repetition: how repeatable this measurement is.
    if (m_trace->repetitions.size() > 1 && op.hasGpu() && op.opIndex >= 0) {
        std::vector<double> durations;
        for (const engine::Repetition &other : m_trace->repetitions)
            for (const engine::OpRecord &o : other.ops)
                if (o.opIndex == op.opIndex && o.hasGpu()) {
                    durations.push_back(double(o.gpuDurationNs()));
                    break;
                }
        if (durations.size() > 1) {
            const engine::Spread spread = engine::spreadOf(durations);
            row(tr("GPU time over %1 repetitions").arg(spread.count),
                tr("median %1, min %2, max %3")
                    .arg(formatDuration(qint64(spread.median)), formatDuration(qint64(spread.min)),
                         formatDuration(qint64(spread.max))));
        }
    }
    html += QStringLiteral("</table>");
    m_text->setHtml(html);
}

} // namespace streamscope::ui
