// JsonTextPane: the workload editor's JSON tab. The text is edited in a QPlainTextEdit, or, when it is longer
// than editableBytes(), shown read-only in a LargeTextView (a QPlainTextEdit of a 27 MB workload of 1M lines
// took about 500 MB: its document, the text as UTF-16 and a QTextLayout for every line, #24). Either way it
// is the editor's one truth: read, marked where issues are, and replaced by structured edits here.
#pragma once

#include <QStackedWidget>

#include <string>
#include <vector>

#include "engine/workload/workload_parser.h"

class QPlainTextEdit;

namespace streamscope::ui {

class LargeTextView;

class JsonTextPane : public QStackedWidget {
    Q_OBJECT
public:
    static constexpr qsizetype kDefaultEditableBytes = qsizetype(8) << 20;

    explicit JsonTextPane(QWidget *parent = nullptr);

    QPlainTextEdit *edit() const { return m_edit; }
    LargeTextView *largeView() const { return m_large; }
    // A text longer than this many bytes (UTF-16 units for a QString) is read-only. Applies to the next text set.
    void setEditableBytes(qsizetype bytes) { m_editableBytes = bytes; }
    qsizetype editableBytes() const { return m_editableBytes; }
    bool isReadOnly() const { return m_readOnly; }

    // Replace the text (the edit's undo history goes with it). The QPlainTextEdit's textChanged fires.
    void setText(const QString &text);
    void setText(std::string utf8);
    QString text() const;
    std::string utf8Text() const; // a copy
    bool isBlank() const;
    // A structured edit: the whole text replaced, as one step Ctrl+Z takes back where the text is editable.
    void replaceText(std::string after);
    // Marks the lines the issues are on.
    void markIssues(const std::vector<engine::WorkloadIssue> &issues);
    // Shows and focuses line `line` (1-based), at `column` where the text is editable.
    void showPosition(int line, int column);

private:
    QPlainTextEdit *m_edit;
    LargeTextView *m_large;
    qsizetype m_editableBytes = kDefaultEditableBytes;
    bool m_readOnly = false;
};

} // namespace streamscope::ui
