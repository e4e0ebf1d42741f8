// FindBar: find ops in the shown repetition, as a developer used to Nsight Systems or Perfetto expects.
// A name (substring without case, or a regular expression), a kind, a lane and a duration range
// ("50 us", "1.5 ms"); the matches are outlined on the timeline and walked with Enter and Shift+Enter (or
// the arrows), each one selected and brought into view; "Filter" dims everything else on the timeline
// and hides it from the operations table. Escape closes the bar and clears the query. The bar edits the
// document's query (TraceDocument::setQuery); the views follow the document.
#pragma once

#include <QBoxLayout>
#include <QPointer>
#include <QWidget>

#include "ui/common/connection_list.h"
#include "ui/document/trace_document.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QToolButton;

namespace streamscope::ui {

class FindBar : public QWidget {
    Q_OBJECT
public:
    explicit FindBar(QWidget *parent = nullptr);

    void setDocument(TraceDocument *document);
    // Shows the bar and puts the cursor in the name field, its text selected (Ctrl+F).
    void activate();
    // Selects the next (previous) match, wrapping around.
    void findNext();
    void findPrevious();
    // Hides the bar and clears the query (Escape): the durations, kind, lane and Filter go back to none;
    // the name (and Regex) is kept for the next search.
    void close();

    // "3 of 12", "12 matches", "No match", or why the query cannot run.
    QString statusText() const;

    QLineEdit *nameField() const { return m_name; }
    QCheckBox *regexBox() const { return m_regex; }
    QComboBox *kindBox() const { return m_kind; }
    QComboBox *laneBox() const { return m_lane; }
    QLineEdit *minDurationField() const { return m_min; }
    QLineEdit *maxDurationField() const { return m_max; }
    QCheckBox *filterBox() const { return m_filter; }
    // The bar's query and its walk side by side, or one above the other where the bar is narrower than both.
    bool isOneRow() const { return m_rows->direction() == QBoxLayout::LeftToRight; }
    QSize minimumSizeHint() const override;
    // The width a duration field leaves its text (inside its frame and margins).
    static int durationTextRoom(const QLineEdit *field);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void applyQuery();
    void updateStatus();
    void fillLanes();
    void fitDurationFields();
    int oneRowWidth() const; // the narrowest the bar can be with its two groups side by side

    QPointer<TraceDocument> m_document;
    ConnectionList m_connections;
    QLineEdit *m_name;
    QCheckBox *m_regex;
    QComboBox *m_kind;
    QComboBox *m_lane;
    QLineEdit *m_min;
    QLineEdit *m_max;
    QCheckBox *m_filter;
    QToolButton *m_previous;
    QToolButton *m_next;
    QLabel *m_status;
    QBoxLayout *m_rows = nullptr;
    QString m_inputError; // a duration field that does not parse
};

} // namespace streamscope::ui
