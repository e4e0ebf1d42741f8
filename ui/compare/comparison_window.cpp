// ComparisonWindow: see comparison_window.h.
#include "ui/compare/comparison_window.h"

#include "ui/common/display_text.h"
#include "ui/common/format_units.h"
#include <QChartView>

#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <set>

#include "engine/experiment/harris_reference.h"
#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "ui/common/image_export.h"
#include "ui/common/screen_fit.h"
#include "ui/compare/bandwidth_size_chart.h"
#include "ui/compare/chart_style.h"
#include "ui/compare/comparison_table_model.h"
#include "ui/compare/makespan_chart.h"
#include "ui/timeline/stacked_timelines.h"
#include "ui/timeline/time_mapping.h"
#include "ui/timeline/timeline_view.h"

namespace streamscope::ui {

namespace {

QString ms(double ns)
{
    return QString::number(ns / 1e6, 'f', ns >= 1e8 ? 1 : 2);
}

// "streams=4, order=breadth-first" -> "4, breadth-first" (the header names the axes): a compact row's title.
QString valuesOnly(const QString &label)
{
    QStringList values;
    for (const QString &part : label.split(QStringLiteral(", ")))
        values << part.mid(part.indexOf(QLatin1Char('=')) + 1);
    return values.join(QStringLiteral(", "));
}

// A stacked timeline is only legible with some height per lane; a row below this scrolls instead.
constexpr int kMinTimelineHeight = 150;

} // namespace

ComparisonWindow::ComparisonWindow(QWidget *parent) : QMainWindow(parent)
{
    // As large as the screen it opens on allows, frame included (ui/common/screen_fit.h).
    resize(1600, 1000);
    keepOnScreen(this);

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(6, 6, 6, 6);
    m_header = new QLabel(central);
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    layout->addWidget(m_header);

    auto *vertical = new QSplitter(Qt::Vertical, central);
    auto *horizontal = new QSplitter(Qt::Horizontal, vertical);

    auto *scroll = new QScrollArea(horizontal);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_timelines = new StackedTimelines(scroll);
    scroll->setWidget(m_timelines);

    m_tabs = new QTabWidget(horizontal);
    m_makespan = new MakespanChart(m_tabs);
    m_bandwidth = new BandwidthSizeChart(m_tabs);
    m_harris = new QTextBrowser(m_tabs);
    m_harris->setOpenExternalLinks(true);
    m_tabs->addTab(m_makespan, tr("Makespan"));
    m_tabs->addTab(m_bandwidth, tr("Bandwidth vs size"));
    m_tabs->addTab(m_harris, tr("Harris's results"));
    horizontal->addWidget(scroll);
    horizontal->addWidget(m_tabs);
    // Explicit sizes: left to their size hints the chart takes nearly all the width.
    horizontal->setSizes({1100, 800});

    m_tableModel = new ComparisonTableModel(this);
    m_table = new QTableView(vertical);
    m_table->setModel(m_tableModel);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    vertical->addWidget(horizontal);
    vertical->addWidget(m_table);
    vertical->setSizes({800, 220});
    layout->addWidget(vertical, 1);
    setCentralWidget(central);

    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open comparison…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open comparison"), {},
            QString::fromStdString(engine::fileDialogFilter(engine::FileKind::Comparison)));
        QString error;
        if (!path.isEmpty() && !openFile(path, &error))
            QMessageBox::warning(this, tr("Could not open the comparison"), error);
    });
    file->addAction(tr("&Save comparison as…"), QKeySequence::SaveAs, this, &ComparisonWindow::saveDialog);
    file->addAction(tr("&Export comparison image…"), QKeySequence(Qt::CTRL | Qt::Key_E), this,
                    &ComparisonWindow::exportComparisonDialog);
    file->addAction(tr("Export &timelines image…"), this, [this] { exportDialog(true); });
    file->addAction(tr("Export &chart image…"), this, [this] { exportDialog(false); });
    file->addSeparator();
    file->addAction(tr("&Close"), QKeySequence::Close, this, &QWidget::close);
    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Fit timelines"), QKeySequence(Qt::Key_F), m_timelines, &StackedTimelines::fitAll);
    m_presentationAction = view->addAction(tr("&Presentation mode"));
    m_presentationAction->setCheckable(true);
    m_presentationAction->setShortcut(QKeySequence(Qt::Key_F11));
    connect(m_presentationAction, &QAction::toggled, this, &ComparisonWindow::setPresentationMode);
}

ComparisonWindow::~ComparisonWindow() = default;

bool ComparisonWindow::openFile(const QString &path, QString *error)
{
    try {
        engine::Comparison comparison = engine::readComparison(path.toStdString());
        setComparison(std::move(comparison), QFileInfo(path).fileName());
        return true;
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
    }
    return false;
}

std::vector<QString> ComparisonWindow::shortLabels(const engine::Comparison &comparison)
{
    // Axes with one value are the same in every variant: they say nothing about the difference.
    std::set<engine::Axis> varying;
    for (const engine::AxisValues &axis : comparison.axes)
        if (axis.values.size() > 1)
            varying.insert(axis.axis);
    std::vector<QString> labels;
    for (const engine::VariantResult &v : comparison.variants) {
        std::vector<engine::AxisSetting> kept;
        for (const engine::AxisSetting &s : v.settings)
            if (varying.count(s.axis))
                kept.push_back(s);
        const std::string label = kept.empty() ? v.label : engine::variantLabel(kept);
        labels.push_back(QString::fromStdString(label.empty() ? std::string("variant") : label));
    }
    return labels;
}

bool ComparisonWindow::isOverlapExperiment(const engine::Comparison &comparison)
{
    return std::any_of(comparison.axes.begin(), comparison.axes.end(),
                       [](const engine::AxisValues &a) { return a.axis == engine::Axis::Order; });
}

QString ComparisonWindow::harrisHtml(const engine::Comparison &comparison,
                                     const std::vector<engine::VariantSummary> &summaries)
{
    QString html = QStringLiteral("<h3>%1</h3><p>%2</p>")
                       .arg(tr("Published results: Harris, “How to Overlap Data Transfers in CUDA C/C++” (2012)"),
                            tr("4 streams, 4 MiB per chunk, pinned memory. Times in ms. Version 1 issues "
                               "H2D, kernel, D2H per chunk (depth-first); version 2 issues every H2D, then "
                               "every kernel, then every D2H (breadth-first)."));
    // The figures in a table of numbers only, the reasons under it as one paragraph per GPU: a text
    // column inside the table was squeezed to a few words per line.
    html += QStringLiteral("<table border=1 cellspacing=0 cellpadding=4><tr><th>%1</th><th>CC</th><th>%2</th>"
                           "<th>%3</th><th>%4</th><th>%5</th></tr>")
                .arg(tr("GPU"), tr("copy engines"), tr("sequential"), tr("V1 depth-first"), tr("V2 breadth-first"));
    QString why;
    for (const engine::HarrisResult &r : engine::harrisResults()) {
        html += QStringLiteral("<tr><td>%1</td><td>%2</td><td align=right>%3</td><td align=right>%4</td>"
                               "<td align=right>%5</td><td align=right>%6</td></tr>")
                    .arg(qs(r.device), qs(r.computeCapability), QString::number(r.copyEngines),
                         QString::number(r.sequentialMs, 'f', 2), QString::number(r.depthFirstMs, 'f', 2),
                         QString::number(r.breadthFirstMs, 'f', 2));
        why += QStringLiteral("<p><b>%1</b>: %2</p>").arg(qs(r.device).toHtmlEscaped(), qs(r.why).toHtmlEscaped());
    }
    html += QStringLiteral("</table>") + QStringLiteral("<p><b>%1</b></p>").arg(tr("Why the order matters")) + why;

    // The user's run: depth-first vs breadth-first per setting of the other varying axes.
    QString device = tr("your GPU");
    int engines = -1;
    for (const auto &v : comparison.variants)
        if (!v.trace.devices.empty()) {
            device = displayText(v.trace.devices.front().name);
            engines = v.trace.devices.front().asyncEngineCount;
            break;
        }
    const std::vector<QString> labels = shortLabels(comparison);
    // key: the other settings' label -> (depth-first index, breadth-first index)
    std::map<std::string, std::pair<int, int>> pairs;
    std::vector<std::string> order;
    for (std::size_t i = 0; i < comparison.variants.size(); ++i) {
        std::vector<engine::AxisSetting> others;
        std::string value;
        for (const engine::AxisSetting &s : comparison.variants[i].settings) {
            if (s.axis == engine::Axis::Order)
                value = s.value;
            else
                others.push_back(s);
        }
        const std::string key = engine::variantLabel(others);
        if (!pairs.count(key)) {
            pairs[key] = {-1, -1};
            order.push_back(key);
        }
        if (value == "depth-first")
            pairs[key].first = int(i);
        else if (value == "breadth-first")
            pairs[key].second = int(i);
    }
    html += QStringLiteral("<h3>%1</h3>")
                .arg(engines >= 0 ? tr("Your run: %1, %2 copy engines").arg(device).arg(engines)
                                  : tr("Your run: %1").arg(device));
    html += QStringLiteral("<table border=1 cellspacing=0 cellpadding=4><tr><th>%1</th><th>%2</th><th>%3</th>"
                           "<th>%4</th></tr>")
                .arg(tr("settings"), tr("V1 depth-first"), tr("V2 breadth-first"), tr("V2 vs V1"));
    auto cell = [&](int i) {
        return i >= 0 && i < int(summaries.size()) ? ms(summaries[std::size_t(i)].summary.makespanNs.median)
                                                   : QStringLiteral("–");
    };
    for (const std::string &key : order) {
        const auto [d, b] = pairs[key];
        QString verdict = QStringLiteral("–");
        if (d >= 0 && b >= 0 && d < int(summaries.size()) && b < int(summaries.size()))
            verdict = QString::fromStdString(engine::describe(engine::compareSpreads(
                summaries[std::size_t(d)].summary.makespanNs, summaries[std::size_t(b)].summary.makespanNs)));
        html += QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td>%4</td></tr>")
                    .arg(QString::fromStdString(key).toHtmlEscaped(), cell(d), cell(b), verdict);
    }
    html += QStringLiteral("</table><p>%1</p>")
                .arg(tr("Why the order matters depends on the copy engines and hardware queues: with one copy "
                        "engine (C1060) H2D and D2H share a queue, so depth-first makes each D2H wait and "
                        "breadth-first wins; with two engines but one hardware queue (C2050) depth-first wins; "
                        "with Hyper-Q (K20c and every later GPU, yours included) both orders overlap alike, "
                        "so the two columns above should differ little."));
    return html;
}

void ComparisonWindow::setComparison(engine::Comparison comparison, const QString &displayName)
{
    m_comparison = std::make_shared<const engine::Comparison>(std::move(comparison));
    const engine::Comparison &c = *m_comparison;
    std::vector<engine::VariantSummary> summaries = engine::summarizeComparison(c);
    const std::vector<QString> labels = shortLabels(c);
    for (std::size_t i = 0; i < summaries.size() && i < labels.size(); ++i)
        summaries[i].label = labels[i].toStdString();
    // A variant that failed has no trace: no timeline and no bar, only its row in the table saying why.
    std::vector<engine::VariantSummary> ran;
    int failed = 0;
    for (const engine::VariantSummary &s : summaries) {
        if (s.failed.empty())
            ran.push_back(s);
        failed += !s.failed.empty();
    }

    std::vector<StackedTimelines::Entry> entries;
    std::vector<const engine::Trace *> raw;
    for (std::size_t i = 0; i < c.variants.size(); ++i) {
        if (!c.variants[i].failed.empty())
            continue;
        // The timelines share the comparison's traces without copying them (aliasing shared_ptr).
        auto trace = std::shared_ptr<const engine::Trace>(m_comparison, &c.variants[i].trace);
        raw.push_back(trace.get());
        const engine::TraceSummary &s = summaries[i].summary;
        entries.push_back({QStringLiteral("%1 — median makespan %2 (rep %3 of %4)")
                               .arg(labels[i], formatDuration(qint64(s.makespanNs.median)))
                               .arg(s.medianRepetition + 1)
                               .arg(trace->repetitions.size()),
                           trace, s.medianRepetition, valuesOnly(labels[i]),
                           tr("makespan %1").arg(formatDuration(qint64(s.makespanNs.median)))});
    }
    m_timelines->setEntries(std::move(entries));
    m_makespan->setSummaries(ran);
    m_bandwidth->setTraces(raw);
    m_tableModel->setSummaries(summaries);

    const bool overlap = isOverlapExperiment(c);
    m_harris->setHtml(overlap ? harrisHtml(c, summaries) : QString());
    m_tabs->setTabVisible(m_tabs->indexOf(m_harris), overlap);
    m_tabs->setTabVisible(m_tabs->indexOf(m_bandwidth), m_bandwidth->hasData());
    // The bandwidth lesson is about the curve; the others about the makespans.
    const bool memoryOnly = c.axes.size() == 1 && c.axes.front().axis == engine::Axis::Memory;
    m_tabs->setCurrentWidget(memoryOnly && m_bandwidth->hasData() ? static_cast<QWidget *>(m_bandwidth)
                                                                  : static_cast<QWidget *>(m_makespan));

    QString device;
    for (const engine::VariantResult &v : c.variants)
        if (v.failed.empty()) {
            if (!v.trace.devices.empty())
                device = displayText(v.trace.devices.front().name);
            break;
        }
    QStringList axes;
    // Values from the file: a header lists at most kShownValues of each axis (a file may list 400,000,
    // which took the label 40 s to lay out), each clamped.
    constexpr std::size_t kShownValues = 12;
    for (const engine::AxisValues &a : c.axes) {
        QStringList values;
        for (std::size_t k = 0; k < a.values.size() && k < kShownValues; ++k)
            values << displayText(a.values[k], 40);
        if (a.values.size() > kShownValues)
            values << tr("… (%1 values)").arg(a.values.size());
        axes << QStringLiteral("%1 = %2").arg(qs(engine::toString(a.axis)), values.join(QStringLiteral(", ")));
    }
    const QString count = failed == 0 ? tr("%1 variants").arg(c.variants.size())
                                      : tr("%1 variants (%2 failed: see the table)").arg(c.variants.size()).arg(failed);
    m_header->setText(QStringLiteral("<b style='font-size:14pt'>%1</b>&nbsp;&nbsp; %2 on %3 · varying %4 · "
                                     "%5 · noise rule: overlapping min–max ranges call no winner")
                          .arg(displayText(c.title).toHtmlEscaped())
                          .arg(count)
                          .arg(device.isEmpty() ? tr("an unknown GPU") : device.toHtmlEscaped(),
                               axes.join(QStringLiteral("; ")).toHtmlEscaped(),
                               QString::fromStdString(c.createdUtc).toHtmlEscaped()));
    setDisplayName(displayName);
    applyStyle();
}

void ComparisonWindow::applyStyle()
{
    const ChartStyle style{m_dark, m_presentation ? 1.35 : 1.0};
    applyChartStyle(m_makespan->chart(), style);
    applyChartStyle(m_bandwidth->chart(), style);
    // Presentation mode: every variant a compact row, all in view; the table gives its height to them (the
    // chart carries the same numbers).
    m_timelines->setViewModes(m_presentation, m_dark, kMinTimelineHeight);
    m_table->setVisible(!m_presentation);
    // Half the width for the charts in presentation mode: eight bars with readable labels need it.
    if (auto *split = qobject_cast<QSplitter *>(m_tabs->parentWidget())) {
        const int total = std::max(split->width(), 1000);
        split->setSizes(m_presentation ? QList<int>{total / 2, total / 2}
                                       : QList<int>{total * 11 / 19, total * 8 / 19});
    }
}

void ComparisonWindow::setPresentationMode(bool on)
{
    if (on == m_presentation)
        return;
    if (on)
        m_normalFont = font();
    m_presentation = on;
    QFont f = m_normalFont;
    if (on)
        f.setPointSizeF(f.pointSizeF() * 1.35);
    setFont(f);
    m_presentationAction->setChecked(on);
    applyStyle();
}

void ComparisonWindow::setDarkPalette(bool dark)
{
    m_dark = dark;
    applyStyle();
}

void ComparisonWindow::updateTitle()
{
    setWindowTitle(m_unsaved ? tr("%1 (not saved) — comparison — StreamScope").arg(m_displayName)
                             : tr("%1 — comparison — StreamScope").arg(m_displayName));
}

void ComparisonWindow::setDisplayName(const QString &name)
{
    m_displayName = name;
    updateTitle();
}

void ComparisonWindow::setUnsaved(bool unsaved)
{
    m_unsaved = unsaved;
    updateTitle();
}

bool ComparisonWindow::saveAs(const QString &path, QString *error)
{
    try {
        engine::writeComparison(*m_comparison, path.toStdString());
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    m_unsaved = false;
    setDisplayName(QFileInfo(path).fileName());
    return true;
}

void ComparisonWindow::saveDialog()
{
    QString suggested = m_displayName;
    if (!suggested.endsWith(QLatin1String(".sscompare")))
        suggested += QStringLiteral(".sscompare");
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save comparison"), suggested, tr("Comparisons (*.sscompare)"));
    if (path.isEmpty())
        return;
    QString error;
    if (saveAs(path, &error))
        statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
    else
        QMessageBox::warning(this, tr("Could not save the comparison"), error);
}

ImageOptions ComparisonWindow::exportOptions() const
{
    ImageOptions options;
    options.scale = 2;
    options.transparent = QSettings().value(QStringLiteral("export/transparent"), false).toBool();
    if (m_comparison) {
        QStringList parts{displayText(m_comparison->title)};
        if (!m_comparison->variants.empty() && !m_comparison->variants.front().trace.devices.empty())
            parts << displayText(m_comparison->variants.front().trace.devices.front().name);
        if (m_comparison->createdUtc.size() >= 10)
            parts << QString::fromStdString(m_comparison->createdUtc.substr(0, 10));
        parts.removeAll(QString());
        options.title = parts.join(QStringLiteral(" — "));
    }
    return options;
}

bool ComparisonWindow::exportTimelines(const QString &path, QSize size, QString *error)
{
    return exportWidgetImage(m_timelines, path, size, exportOptions(), error);
}

QChart *ComparisonWindow::currentChart() const
{
    return m_tabs->currentWidget() == m_makespan    ? m_makespan->chart()
           : m_tabs->currentWidget() == m_bandwidth ? m_bandwidth->chart()
                                                    : nullptr;
}

bool ComparisonWindow::withChartBackground(bool transparent, const std::function<bool()> &export_)
{
    // A chart paints its own background: off for a transparent slide, and back on after.
    QChart *chart = currentChart();
    const bool background = chart && chart->isBackgroundVisible();
    if (chart && transparent)
        chart->setBackgroundVisible(false);
    // So does the view around it (its viewport is filled with the window's colour): off too.
    auto *view = qobject_cast<QChartView *>(m_tabs->currentWidget());
    const QBrush viewBrush = view ? view->backgroundBrush() : QBrush();
    const bool viewportFill = view && view->viewport()->autoFillBackground();
    const bool viewFill = view && view->autoFillBackground();
    if (view && transparent) {
        view->setBackgroundBrush(Qt::transparent);
        view->viewport()->setAutoFillBackground(false);
        view->setAutoFillBackground(false);
    }
    const bool ok = export_();
    if (chart)
        chart->setBackgroundVisible(background);
    if (view && transparent) {
        view->setBackgroundBrush(viewBrush);
        view->viewport()->setAutoFillBackground(viewportFill);
        view->setAutoFillBackground(viewFill);
    }
    return ok;
}

bool ComparisonWindow::exportCurrentChart(const QString &path, QSize size, QString *error)
{
    const ImageOptions options = exportOptions();
    return withChartBackground(options.transparent,
                               [&] { return exportWidgetImage(m_tabs->currentWidget(), path, size, options, error); });
}

bool ComparisonWindow::exportComparison(const QString &path, QSize size, const ImageOptions &options, QString *error)
{
    ImageOptions slide = options;
    slide.title.clear(); // the header says it, larger, with what the variants vary
    return withChartBackground(slide.transparent,
                               [&] { return exportWidgetImage(centralWidget(), path, size, slide, error); });
}

void ComparisonWindow::exportComparisonDialog()
{
    const QString suggested = QFileInfo(m_displayName).completeBaseName() + QStringLiteral(".png");
    const QString path = QFileDialog::getSaveFileName(this, tr("Export comparison image"), suggested,
                                                      tr("PNG image (*.png);;SVG image (*.svg)"));
    if (path.isEmpty())
        return;
    QString error;
    // Twice the window's content at twice the scale: what is on screen, sharp on a slide.
    if (exportComparison(path, centralWidget()->size() * 2, exportOptions(), &error))
        statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
    else
        QMessageBox::warning(this, tr("Export failed"), error);
}

void ComparisonWindow::exportDialog(bool timelines)
{
    const QString path = QFileDialog::getSaveFileName(this, timelines ? tr("Export timelines") : tr("Export chart"), {},
                                                      tr("PNG image (*.png);;SVG image (*.svg)"));
    if (path.isEmpty())
        return;
    QString error;
    // Twice the widget at twice the scale: the picture as on screen, sharp on a slide.
    const QSize size = (timelines ? m_timelines->size() : m_tabs->currentWidget()->size()) * 2;
    const bool ok = timelines ? exportTimelines(path, size, &error) : exportCurrentChart(path, size, &error);
    if (ok)
        statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
    else
        QMessageBox::warning(this, tr("Export failed"), error);
}

} // namespace streamscope::ui
