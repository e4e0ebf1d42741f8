// OpTable: the Operations dock: every op of the repetition shown, sortable, its selection the document's
// (one row selects that op, several make a multiple selection that the Range dock measures; a click in
// the timeline comes back as the selected rows), its rows hidden while the document filters.
#pragma once

#include <QTableView>

namespace streamscope::ui {
class OpTableModel;
class OpTableProxy;
class TraceDocument;
} // namespace streamscope::ui

namespace streamscope::gui {

class OpTable : public QTableView {
    Q_OBJECT
public:
    OpTable(ui::TraceDocument *document, QWidget *parent = nullptr);
    // Binds the rows and the selection to the document.
    void bind();
    // Sizes the columns to their contents (a new trace): right after the trace is shown when the table is
    // on screen, else when it is next shown (its dock is often a tab behind the details). Sizing reads
    // 1000 rows of every column, tens of milliseconds of the GUI thread: not in the same pause as the rest.
    void fitColumns();
    ui::OpTableModel *opModel() const { return m_model; }
    ui::OpTableProxy *proxy() const { return m_proxy; }

protected:
    void showEvent(QShowEvent *event) override;

private:
    void selectionToDocument();
    void selectionFromDocument();
    void scrollToOp(int op);

    ui::TraceDocument *m_document;
    ui::OpTableModel *m_model;
    ui::OpTableProxy *m_proxy;
    bool m_syncing = false; // the document's selection is being shown here
    bool m_columnsStale = false; // fitColumns() waits for the table to be shown
};

} // namespace streamscope::gui
