// OpTable: see op_table.h.
#include "app/gui/op_table.h"

#include <QHeaderView>
#include <QTimer>

#include <algorithm>
#include <vector>

#include "ui/document/trace_document.h"
#include "ui/panels/op_table_model.h"

namespace streamscope::gui {

OpTable::OpTable(ui::TraceDocument *document, QWidget *parent) :
    QTableView(parent), m_document(document), m_model(new ui::OpTableModel(this)), m_proxy(new ui::OpTableProxy(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setDocument(m_document);
    setObjectName(QStringLiteral("opTable"));
    setModel(m_proxy);
    setSortingEnabled(true);
    sortByColumn(ui::OpTableModel::IndexColumn, Qt::AscendingOrder);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::ExtendedSelection); // several rows: the Range dock measures them
    verticalHeader()->hide();
    horizontalHeader()->setStretchLastSection(true);
    setAlternatingRowColors(true);
    // "vs alone" only where the trace has solo baselines to compare with (run --solo).
    const auto showAlone = [this] {
        const auto trace = m_document->trace();
        setColumnHidden(ui::OpTableModel::AloneColumn, !trace || trace->solo.empty());
    };
    connect(m_document, &ui::TraceDocument::traceChanged, this, showAlone);
    showAlone();
}

void OpTable::bind()
{
    m_model->setDocument(m_document);
    // The table's selection is the document's; the document's selection (a click or Ctrl+click in the
    // timeline) comes back to it.
    connect(selectionModel(), &QItemSelectionModel::selectionChanged, this, &OpTable::selectionToDocument);
    connect(m_document, &ui::TraceDocument::selectedOpsChanged, this, &OpTable::selectionFromDocument);
    connect(m_document, &ui::TraceDocument::selectionChanged, this, [this](int, int op) { scrollToOp(op); });
}

void OpTable::fitColumns()
{
    m_columnsStale = true;
    // On screen: once the trace is shown (pauses of their own, not added to the one that shows it).
    if (isVisible()) {
        const int generation = ++m_fitGeneration;
        QTimer::singleShot(0, this, [this, generation] { fitColumnFrom(0, generation); });
    }
}

void OpTable::fitColumnFrom(int column, int generation)
{
    if (generation != m_fitGeneration || !m_columnsStale)
        return; // a newer fit, or the table was shown and fitted at once
    if (!isVisible())
        return; // hidden meanwhile: showEvent fits what is left, all at once
    const int columns = model()->columnCount();
    while (column < columns && isColumnHidden(column))
        ++column; // resizeColumnsToContents() leaves hidden columns as they are
    if (column >= columns) {
        m_columnsStale = false;
        return;
    }
    resizeColumnToContents(column);
    QTimer::singleShot(0, this, [this, column, generation] { fitColumnFrom(column + 1, generation); });
}

void OpTable::showEvent(QShowEvent *event)
{
    QTableView::showEvent(event);
    if (m_columnsStale) {
        m_columnsStale = false;
        resizeColumnsToContents();
    }
}

void OpTable::selectionToDocument()
{
    if (m_syncing)
        return;
    std::vector<int> ops;
    for (const QModelIndex &row : selectionModel()->selectedRows())
        ops.push_back(m_proxy->mapToSource(row).row());
    const QModelIndex current = currentIndex();
    const int primary = current.isValid() ? m_proxy->mapToSource(current).row() : -1;
    if (ops.size() > 1) {
        // The op under the cursor is the one the details show: it goes last.
        if (const auto at = std::find(ops.begin(), ops.end(), primary); at != ops.end())
            std::rotate(at, at + 1, ops.end());
        m_document->selectOps(ops);
    } else if (ops.size() == 1) {
        m_document->selectOp(ops.front());
    }
}

void OpTable::scrollToOp(int op)
{
    if (op < 0)
        return; // selectionFromDocument() clears the rows
    const QModelIndex row = m_proxy->mapFromSource(m_model->index(op, 0));
    if (row.isValid())
        scrollTo(row);
}

void OpTable::selectionFromDocument()
{
    QItemSelection rows;
    for (const int op : m_document->selectedOps()) {
        const QModelIndex row = m_proxy->mapFromSource(m_model->index(op, 0));
        if (row.isValid())
            rows.select(row, row);
    }
    m_syncing = true;
    QItemSelectionModel *selection = selectionModel();
    const QModelIndex current = m_proxy->mapFromSource(m_model->index(m_document->selectedOp(), 0));
    if (current.isValid() && current.row() != currentIndex().row())
        selection->setCurrentIndex(current, QItemSelectionModel::NoUpdate);
    selection->select(rows, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_syncing = false;
}

} // namespace streamscope::gui
