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
    // on screen, one column per turn of the event loop, else all at once when it is next shown (its dock
    // is often a tab behind the details). Sizing reads up to 1000 rows of a column; the whole table at
    // once held the GUI thread 30-60 ms on a 35k-op trace. The widths are resizeColumnsToContents()'s.
    void fitColumns();
    // Whether columns are waiting to be fitted (tests wait for it).
    bool fittingColumns() const { return m_columnsStale; }
    ui::OpTableModel *opModel() const { return m_model; }
    ui::OpTableProxy *proxy() const { return m_proxy; }

protected:
    void showEvent(QShowEvent *event) override;

private:
    void selectionToDocument();
    void selectionFromDocument();
    void scrollToOp(int op);
    void fitColumnFrom(int column, int generation);

    ui::TraceDocument *m_document;
    ui::OpTableModel *m_model;
    ui::OpTableProxy *m_proxy;
    bool m_syncing = false; // the document's selection is being shown here
    bool m_columnsStale = false; // fitColumns() waits for the table to be shown, or is under way
    int m_fitGeneration = 0; // a newer fitColumns() ends the one under way
};

} // namespace streamscope::gui
