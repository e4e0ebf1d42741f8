// SummaryPanel: a heading (what was run, where), the repetition selector and the summary table.
#include "ui/panels/summary_panel.h"
#include "ui/common/display_text.h"

#include "ui/common/format_units.h"
#include "ui/document/trace_document.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableView>
#include <QTextDocument>
#include <QVBoxLayout>

#include "ui/panels/summary_model.h"
#include "ui/timeline/time_mapping.h"

namespace streamscope::ui {

SummaryPanel::SummaryPanel(QWidget *parent) :
    QWidget(parent), m_model(new SummaryModel(this)), m_heading(new QLabel(this)), m_repetitions(new QComboBox(this)),
    m_table(new QTableView(this)), m_strip(new QLabel(this)), m_full(new QWidget(this))
{
    m_strip->setObjectName(QStringLiteral("summaryStrip"));
    m_strip->setTextFormat(Qt::RichText);
    m_strip->setWordWrap(true);
    m_strip->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_strip->hide();
    m_heading->setWordWrap(true);
    m_heading->setTextFormat(Qt::PlainText);
    // The title comes from the file: one long word (even clamped to displayText's 200 characters) must not
    // set the window's width; the heading takes the width the panel has and clips what does not wrap.
    m_heading->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_heading->setText(tr("No trace loaded."));
    m_repetitions->setObjectName(QStringLiteral("repetitionSelector"));
    m_repetitions->setEnabled(false);
    m_repetitions->setToolTip(tr("Which repetition the timeline and the \"Rep.\" column show"));

    m_table->setModel(m_model);
    m_table->setObjectName(QStringLiteral("summaryTable"));
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    // The metric names take the spare width; numbers stay next to them.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(SummaryModel::MetricColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setWordWrap(false);
    // One line per metric: the default row height wastes half the panel.
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);

    auto *selectorRow = new QHBoxLayout;
    auto *selectorLabel = new QLabel(tr("&Repetition:"), this);
    selectorLabel->setBuddy(m_repetitions);
    selectorRow->addWidget(selectorLabel);
    selectorRow->addWidget(m_repetitions, 1);

    auto *full = new QVBoxLayout(m_full);
    full->setContentsMargins(0, 0, 0, 0);
    full->addWidget(m_heading);
    full->addLayout(selectorRow);
    full->addWidget(m_table, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_full, 1);
    layout->addWidget(m_strip);
    connect(m_model, &QAbstractItemModel::modelReset, this, &SummaryPanel::updateStrip);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &SummaryPanel::updateStrip);

    connect(m_repetitions, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index < 0)
            return;
        m_model->setRepetition(index);
        emit repetitionSelected(index);
    });
}

void SummaryPanel::setDocument(TraceDocument *document)
{
    m_documentConnections.clear();
    m_document = document;
    if (!document)
        return;
    m_documentConnections << connect(document, &TraceDocument::traceChanged, this, [this] {
        showTrace(m_document->trace(), m_document->summary(), m_document->summaryMetrics());
    });
    m_documentConnections << connect(document, &TraceDocument::repetitionChanged, this, &SummaryPanel::setRepetition);
    m_documentConnections << connect(this, &SummaryPanel::repetitionSelected, document, &TraceDocument::setRepetition);
    showTrace(document->trace(), document->summary(), document->summaryMetrics());
    setRepetition(document->repetition());
}

void SummaryPanel::setTrace(std::shared_ptr<const engine::Trace> trace)
{
    engine::TraceSummary summary = trace ? engine::summarize(*trace) : engine::TraceSummary{};
    std::vector<engine::SummaryMetric> rows =
        trace ? engine::summaryMetrics(*trace, summary) : std::vector<engine::SummaryMetric>{};
    showTrace(trace, std::move(summary), std::move(rows));
}

void SummaryPanel::showTrace(const std::shared_ptr<const engine::Trace> &trace, engine::TraceSummary computed,
                             std::vector<engine::SummaryMetric> rows)
{
    const QSignalBlocker blocker(m_repetitions);
    m_repetitions->clear();
    m_model->setTrace(trace, std::move(computed), std::move(rows));
    if (!trace) {
        m_heading->setText(tr("No trace loaded."));
        m_repetitions->setEnabled(false);
        return;
    }
    const auto &summary = m_model->summary();
    for (std::size_t i = 0; i < summary.repetitions.size(); ++i) {
        QString text = tr("%1 of %2 — makespan %3")
                           .arg(i + 1)
                           .arg(summary.repetitions.size())
                           .arg(formatDuration(summary.repetitions[i].makespanNs));
        // The repetition nearest the median: with an even count the median itself (the Median column,
        // the mean of the middle two) is no repetition's, so say "nearest", not "median".
        if (int(i) == summary.medianRepetition)
            text += summary.repetitions.size() % 2 == 1 ? tr(" (median)") : tr(" (nearest the median)");
        m_repetitions->addItem(text);
    }
    m_repetitions->setEnabled(m_repetitions->count() > 1);
    m_repetitions->setCurrentIndex(summary.repetitions.empty() ? -1 : summary.medianRepetition);
    // One repetition (most imported captures): its median, min and max are its own figures three more
    // times, so only its column is shown.
    const bool spread = summary.repetitions.size() > 1;
    for (const int column :
         {int(SummaryModel::MedianColumn), int(SummaryModel::MinColumn), int(SummaryModel::MaxColumn)})
        m_table->setColumnHidden(column, !spread);

    // From the file: clamped, so that a megabyte-long title cannot widen the window.
    QString heading = displayText(trace->title.empty() ? trace->sourcePath : trace->title);
    // The GPU, or the GPUs: "2 × NVIDIA H100 80GB HBM3", "2 GPUs" where the source named no model.
    QStringList models;
    for (const auto &d : trace->devices)
        if (!d.name.empty() && !models.contains(displayText(d.name)))
            models << displayText(d.name);
    if (trace->devices.size() == 1 && !models.isEmpty())
        heading += QStringLiteral(" — ") + models.front();
    else if (trace->devices.size() > 1)
        heading += QStringLiteral(" — ")
                   + (models.size() == 1 ? QStringLiteral("%1 × %2").arg(trace->devices.size()).arg(models.front())
                      : models.isEmpty() ? tr("%1 GPUs").arg(trace->devices.size())
                                         : models.join(QStringLiteral(" + ")));
    heading += tr(" — %n repetition(s)", nullptr, int(summary.repetitions.size()));
    switch (trace->timing) {
    case engine::TimingSource::Cupti: heading += tr(" — timed by CUPTI"); break;
    case engine::TimingSource::Events:
        if (trace->source == engine::TraceSource::StreamScope)
            heading += tr(" — timed by CUDA events");
        break;
    case engine::TimingSource::Profiler: break;
    }
    // A graph's capture and instantiation, once before the first repetition: apart from every repetition's figures.
    if (const auto launch = trace->metadata.find("launch");
        launch != trace->metadata.end() && launch->second.starts_with("graph: "))
        heading += QLatin1Char('\n') + tr("Launched as a CUDA graph: %1").arg(displayText(launch->second.substr(7)));
    m_heading->setText(heading);
}

void SummaryPanel::setCompact(bool compact)
{
    m_compact = compact;
    m_full->setVisible(!compact);
    m_strip->setVisible(compact);
    updateStrip();
}

QString SummaryPanel::stripText() const
{
    QTextDocument document;
    document.setHtml(m_strip->text());
    return document.toPlainText();
}

void SummaryPanel::updateStrip()
{
    if (!m_compact)
        return;
    if (!m_model->hasTrace()) {
        m_strip->setText(tr("No trace loaded."));
        return;
    }
    QStringList parts;
    // A figure's name and value stay on one line; a note beside it may wrap ("(44.4 % of NVLink peak)").
    const auto unbroken = [](const QString &text) {
        return text.toHtmlEscaped().replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
    };
    for (const SummaryModel::KeyFigure &figure : m_model->keyFigures()) {
        QString part = QStringLiteral("%1&nbsp;<b>%2</b>").arg(unbroken(figure.name), unbroken(figure.value));
        if (!figure.note.isEmpty())
            part += QStringLiteral(" (%1)").arg(
                figure.note.toHtmlEscaped().replace(QStringLiteral(" %"), QStringLiteral("&nbsp;%")));
        parts << part;
    }
    const int count = int(m_model->summary().repetitions.size());
    if (count > 1)
        parts << tr("repetition&nbsp;%1&nbsp;of&nbsp;%2").arg(m_model->repetition() + 1).arg(count);
    m_strip->setText(parts.join(QStringLiteral(" &nbsp;·&nbsp; ")));
}

int SummaryPanel::repetition() const
{
    return m_model->repetition();
}

int SummaryPanel::medianRepetition() const
{
    return m_model->summary().medianRepetition;
}

void SummaryPanel::setRepetition(int repetition)
{
    if (repetition >= 0 && repetition < m_repetitions->count() && repetition != m_repetitions->currentIndex())
        m_repetitions->setCurrentIndex(repetition);
}

} // namespace streamscope::ui
