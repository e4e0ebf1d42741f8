// DiffView: see diff_view.h.
#include "ui/compare/diff_view.h"
#include "ui/common/format_units.h"

#include <algorithm>

#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "engine/formats/trace_io.h"
#include "ui/common/screen_fit.h"
#include "ui/compare/nsight_summary_model.h"
#include "ui/compare/op_delta_model.h"
#include "ui/compare/stream_delta_model.h"
#include "ui/timeline/time_mapping.h"

namespace streamscope::ui {

namespace {

// Sortable by a click on a header (sortRole: raw numbers, not the text; -1: not sortable); in the
// engine's order (stream, then position) until then.
QTableView *makeTable(QAbstractItemModel *model, int sortRole, QWidget *parent)
{
    auto *proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(sortRole);
    auto *table = new QTableView(parent);
    table->setModel(proxy);
    table->setSortingEnabled(sortRole >= 0);
    table->sortByColumn(-1, Qt::AscendingOrder);
    table->setAlternatingRowColors(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    table->horizontalHeader()->setStretchLastSection(false);
    return table;
}

} // namespace

DiffView::DiffView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_opModel = new OpDeltaModel(this);
    m_streamModel = new DiffStreamModel(this);
    m_kindModel = new NsightSummaryModel(this);
    auto *split = new QSplitter(Qt::Horizontal, this);
    m_kindTable = makeTable(m_kindModel, NsightSummaryModel::SortRole, split);
    m_kindTable->hide(); // the Nsight comparison's
    m_tabs = new QTabWidget(split);
    m_opTable = makeTable(m_opModel, OpDeltaModel::SortRole, m_tabs);
    m_streamTable = makeTable(m_streamModel, -1, m_tabs);
    m_tabs->addTab(m_opTable, tr("Ops"));
    m_tabs->addTab(m_streamTable, tr("Streams"));
    split->addWidget(m_kindTable);
    split->addWidget(m_tabs);
    // When both show, the summary keeps the width of its columns and the per-op table takes the rest.
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    resize(1200, 700);
}

void DiffView::showOpColumns()
{
    for (int column = 0; column < OpDeltaModel::ColumnCount; ++column)
        m_opTable->setColumnHidden(column, !m_opModel->hasColumn(column));
}

void DiffView::setNsightComparison(const engine::NsightComparison &comparison)
{
    m_diff = {};
    m_opModel->setNsightComparison(comparison);
    m_kindModel->setSummaries(comparison.kinds, comparison.overall);
    m_streamModel->setDiff(m_diff);
    showOpColumns();
    m_summary->clear();
    m_summary->hide();
    m_kindTable->show();
    m_tabs->setTabVisible(m_tabs->indexOf(m_streamTable), false);
    m_tabs->tabBar()->hide(); // one tab left: no tab bar
    for (QTableView *table : {m_kindTable, m_opTable})
        table->resizeColumnsToContents();
    // The summary as wide as its columns, the per-op table the rest.
    if (auto *split = qobject_cast<QSplitter *>(m_tabs->parentWidget())) {
        const int summaryWidth = m_kindTable->horizontalHeader()->length() + m_kindTable->verticalHeader()->width()
                                 + 2 * m_kindTable->frameWidth() + 24;
        split->setSizes({summaryWidth, std::max(summaryWidth, split->width() - summaryWidth)});
    }
}

QString DiffView::summaryText(const engine::TraceDiff &diff, const QString &nameA, const QString &nameB)
{
    const engine::DiffSummary &s = diff.summary;
    QString makespan;
    const QString times =
        QStringLiteral("makespan %1 → %2, median over repetitions")
            .arg(formatDuration(qint64(s.makespanA.median)), formatDuration(qint64(s.makespanB.median)));
    switch (s.makespan.kind) {
    case engine::VerdictKind::Faster:
    case engine::VerdictKind::Slower:
        makespan =
            tr("%1 is %2 than %3 (%4).").arg(nameB, QString::fromStdString(engine::describe(s.makespan)), nameA, times);
        break;
    case engine::VerdictKind::Noise:
        makespan = tr("No winner: the makespans' min–max ranges overlap, %1 (%2).")
                       .arg(QString::fromStdString(engine::describe(s.makespan)), times);
        break;
    case engine::VerdictKind::Unknown: makespan = tr("The makespans cannot be compared (%1).").arg(times); break;
    }
    QString ops = tr("%1 ops matched (%2 by order), %3 only in %4, %5 only in %6.")
                      .arg(s.matched)
                      .arg(s.matchedByOrder)
                      .arg(s.unmatchedA)
                      .arg(nameA)
                      .arg(s.unmatchedB)
                      .arg(nameB);
    if (s.timed > 0)
        ops += QLatin1Char(' ')
               + tr("Over %1 timed ops: starts differ by %2 median (%3 max), durations by %4 median (%5 max).")
                     .arg(s.timed)
                     .arg(formatDuration(qint64(s.medianAbsStartDeltaNs)), formatDuration(qint64(s.maxAbsStartDeltaNs)),
                          formatDuration(qint64(s.medianAbsDurationDeltaNs)),
                          formatDuration(qint64(s.maxAbsDurationDeltaNs)));
    return makespan + QLatin1Char(' ') + ops;
}

QString DiffView::summary() const
{
    return m_summary->text();
}

void DiffView::setTraces(const engine::Trace &a, const engine::Trace &b, const QString &nameA, const QString &nameB)
{
    engine::DiffOptions options;
    // Imports name their ops differently ("H2D 1 MiB [c3]" vs "h2d 1 mib"): compare normalised names.
    options.normalizeName = [](std::string_view name) { return engine::normalizeOpName(name); };
    m_diff = engine::diffTraces(a, b, options);
    m_opModel->setDiff(m_diff);
    m_streamModel->setDiff(m_diff);
    showOpColumns();
    m_summary->show();
    m_kindTable->hide();
    m_tabs->setTabVisible(m_tabs->indexOf(m_streamTable), true);
    m_tabs->tabBar()->show();
    m_summary->setText(QStringLiteral("A = %1, B = %2.\n%3")
                           .arg(nameA, nameB, summaryText(m_diff, QStringLiteral("A"), QStringLiteral("B"))));
    for (int i = 0; i < m_tabs->count(); ++i)
        if (auto *table = qobject_cast<QTableView *>(m_tabs->widget(i)))
            table->resizeColumnsToContents();
    setWindowTitle(tr("%1 vs %2 — diff — StreamScope").arg(nameA, nameB));
}

bool DiffView::openFiles(const QString &pathA, const QString &pathB, QString *error)
{
    engine::Trace a, b;
    QString current = pathA;
    try {
        a = engine::loadTrace(pathA.toStdString());
        current = pathB;
        b = engine::loadTrace(pathB.toStdString());
        setTraces(a, b, QFileInfo(pathA).fileName(), QFileInfo(pathB).fileName());
        return true;
    } catch (const std::exception &e) {
        if (error)
            *error = tr("%1: %2").arg(QFileInfo(current).fileName(), QString::fromUtf8(e.what()));
    }
    return false;
}

DiffView *DiffView::pickAndShow(QWidget *parent)
{
    // Every format the reader registry knows (engine/formats/trace_io.h), not a list of its own.
    const QString filter = QString::fromStdString(engine::traceFileDialogFilter(false));
    const QString a = QFileDialog::getOpenFileName(parent, tr("Diff: first trace (A)"), {}, filter);
    if (a.isEmpty())
        return nullptr;
    const QString b = QFileDialog::getOpenFileName(parent, tr("Diff: second trace (B)"), QFileInfo(a).path(), filter);
    if (b.isEmpty())
        return nullptr;
    auto *view = new DiffView(nullptr);
    view->setAttribute(Qt::WA_DeleteOnClose);
    QString error;
    if (!view->openFiles(a, b, &error)) {
        QMessageBox::warning(parent, tr("Could not diff the traces"), error);
        delete view;
        return nullptr;
    }
    keepOnScreen(view);
    view->show();
    return view;
}

} // namespace streamscope::ui
