// RangePanel: see range_panel.h.
#include "ui/panels/range_panel.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include "engine/util/file_util.h"
#include "ui/common/format_units.h"

namespace streamscope::ui {

namespace {

QStandardItem *textItem(const QString &text)
{
    auto *item = new QStandardItem(text);
    item->setData(text, RangePanel::RawRole);
    item->setEditable(false);
    return item;
}

QStandardItem *numberItem(const QString &text, double raw)
{
    auto *item = new QStandardItem(text);
    item->setData(raw, RangePanel::RawRole);
    item->setData(int(Qt::AlignRight | Qt::AlignVCenter), Qt::TextAlignmentRole);
    item->setEditable(false);
    return item;
}

QTableView *makeTable(QStandardItemModel *model, QWidget *parent)
{
    auto *proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(RangePanel::RawRole);
    auto *table = new QTableView(parent);
    table->setModel(proxy);
    table->setSortingEnabled(true);
    table->sortByColumn(-1, Qt::AscendingOrder);
    table->setAlternatingRowColors(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setWordWrap(false);
    return table;
}

} // namespace

RangePanel::RangePanel(QWidget *parent) :
    QWidget(parent), m_heading(new QLabel(this)), m_totals(new QLabel(this)), m_names(new QStandardItemModel(this)),
    m_lanes(new QStandardItemModel(this)), m_nameTable(makeTable(m_names, this)), m_laneTable(makeTable(m_lanes, this)),
    m_zoom(new QPushButton(tr("&Zoom to range"), this)), m_export(new QPushButton(tr("E&xport CSV…"), this))
{
    m_heading->setWordWrap(true);
    m_totals->setWordWrap(true);
    m_totals->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_totals->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_names->setHorizontalHeaderLabels(
        {tr("Name"), tr("Kind"), tr("Count"), tr("Total"), tr("Mean"), tr("Min"), tr("Max"), tr("Share")});
    m_lanes->setHorizontalHeaderLabels({tr("Lane"), tr("Ops"), tr("Busy"), tr("Busy %")});
    // The range's heading, totals and buttons in a column beside the two tables, so that the tables
    // have the dock's whole height (above them, at 1280x720, they kept room for two rows).
    auto *info = new QWidget(this);
    auto *column = new QVBoxLayout(info);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(m_heading);
    column->addWidget(m_totals, 1);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_zoom);
    buttons->addWidget(m_export);
    buttons->addStretch(1);
    column->addLayout(buttons);
    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->addWidget(info);
    m_split->addWidget(m_nameTable);
    m_split->addWidget(m_laneTable);
    m_split->setStretchFactor(0, 2);
    m_split->setStretchFactor(1, 5);
    m_split->setStretchFactor(2, 2);
    m_split->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_split, 1);
    connect(m_zoom, &QPushButton::clicked, this, [this] {
        if (m_document && m_document->hasRange())
            emit zoomToRangeRequested(m_document->rangeStatistics().startNs, m_document->rangeStatistics().endNs);
    });
    connect(m_export, &QPushButton::clicked, this, &RangePanel::exportDialog);
    refresh();
}

void RangePanel::setDocument(TraceDocument *document)
{
    m_connections.clear();
    m_document = document;
    if (document)
        m_connections << connect(document, &TraceDocument::rangeChanged, this, &RangePanel::refresh);
    refresh();
}

QString RangePanel::headingText() const
{
    return m_heading->text();
}

QString RangePanel::totalsText() const
{
    return m_totals->text();
}

void RangePanel::refresh()
{
    m_names->removeRows(0, m_names->rowCount());
    m_lanes->removeRows(0, m_lanes->rowCount());
    const bool have = m_document && m_document->hasRange();
    m_zoom->setEnabled(have);
    m_export->setEnabled(have);
    m_totals->setVisible(have);
    if (!have) {
        m_heading->setText(tr("Shift+drag in the timeline (or drag in its ruler) to measure a range: what ran in it, "
                              "how busy each lane was, bytes moved, overlap and concurrency. Ctrl+click ops (or "
                              "select several rows of the operations table) to measure just those."));
        return;
    }
    const engine::RangeStatistics &s = m_document->rangeStatistics();
    if (s.selectedOps > 0)
        m_heading->setText(tr("<b>%1 selected ops</b>, from %2 to %3 (%4)")
                               .arg(s.selectedOps)
                               .arg(formatDuration(s.startNs), formatDuration(s.endNs), formatDuration(s.lengthNs())));
    else
        m_heading->setText(tr("<b>Range %1 → %2</b> (%3), %n op(s) in it", nullptr, s.ops)
                               .arg(formatDuration(s.startNs), formatDuration(s.endNs), formatDuration(s.lengthNs())));
    QStringList totals;
    auto bytes = [&](const QString &label, double b, double gbs) {
        if (b > 0)
            totals << tr("%1 %2 (%3 over the range)").arg(label, formatBytes(std::uint64_t(b + 0.5)), formatGBs(gbs));
    };
    bytes(tr("H2D"), s.h2dBytes, s.h2dGBs);
    bytes(tr("D2H"), s.d2hBytes, s.d2hGBs);
    bytes(tr("D2D"), s.d2dBytes, s.d2dGBs);
    bytes(tr("P2P"), s.p2pBytes, s.p2pGBs);
    totals << tr("copies %1, compute %2, both at once %3")
                  .arg(formatDuration(s.copyNs), formatDuration(s.computeNs), formatDuration(s.overlapNs));
    totals << tr("two GPU ops or more at once %1, at most %2").arg(formatDuration(s.concurrentNs)).arg(s.maxConcurrent);
    m_totals->setText(totals.join(QLatin1Char('\n')));

    for (const auto &n : s.names)
        m_names->appendRow(
            {textItem(QString::fromStdString(n.name)), textItem(qs(engine::toString(n.kind))),
             numberItem(QString::number(n.count), n.count), numberItem(formatDuration(n.totalNs), double(n.totalNs)),
             numberItem(formatDuration(qint64(n.meanNs)), n.meanNs),
             numberItem(formatDuration(n.minNs), double(n.minNs)), numberItem(formatDuration(n.maxNs), double(n.maxNs)),
             numberItem(formatPercent(n.share), n.share)});
    for (const auto &l : s.lanes)
        m_lanes->appendRow({textItem(QString::fromStdString(l.lane) + (l.host ? tr(" (host)") : QString())),
                            numberItem(QString::number(l.ops), l.ops),
                            numberItem(formatDuration(l.busyNs), double(l.busyNs)),
                            numberItem(formatPercent(l.busyFraction), l.busyFraction)});
    m_nameTable->resizeColumnsToContents();
    m_laneTable->resizeColumnsToContents();
}

int RangePanel::visibleNameRows() const
{
    const int rowHeight = m_nameTable->verticalHeader()->defaultSectionSize();
    return rowHeight > 0 ? m_nameTable->viewport()->height() / rowHeight : 0;
}

bool RangePanel::exportCsv(const QString &path, QString *error) const
{
    if (!m_document || !m_document->hasRange()) {
        if (error)
            *error = tr("no range is measured");
        return false;
    }
    try {
        engine::writeFileAtomically(path.toStdString(), engine::rangeStatisticsCsv(m_document->rangeStatistics()));
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

void RangePanel::exportDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export range statistics"), QStringLiteral("range.csv"),
                                                      tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportCsv(path, &error))
        QMessageBox::warning(this, tr("Could not export the range statistics"), error);
}

} // namespace streamscope::ui
