// LargeTextView: a read-only view of a long text (the JSON of a workload over WorkloadEditor's size for
// editing in place), painted line by line from its UTF-8 bytes. A QPlainTextEdit of a 27 MB workload of 1M
// lines took about 500 MB: a QTextDocument block and 2 bytes a character for the text, and a QTextLayout for
// every line once its width changed (#24). Here: the text itself and 8 bytes a line where it starts.
#pragma once

#include <QAbstractScrollArea>

#include <set>
#include <string>
#include <vector>

namespace streamscope::ui {

class LargeTextView : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit LargeTextView(QWidget *parent = nullptr);

    // Shows `text` (UTF-8); kept until the next call.
    void setText(std::string text);
    const std::string &text() const { return m_text; }
    int lineCount() const { return static_cast<int>(m_lineStarts.size()); }
    // Line `line` (1-based) without its line break, as UTF-16.
    QString lineText(int line) const;

    // Lines (1-based) shown marked, as the editor marks the lines of a workload's issues.
    void setMarkedLines(std::set<int> lines);
    const std::set<int> &markedLines() const { return m_marked; }
    // Scrolls so that `line` (1-based) is shown, and marks it as the current line.
    void goToLine(int line);
    int currentLine() const { return m_current; }
    int firstVisibleLine() const; // 1-based

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void updateScrollBars();
    int lineHeight() const;

    std::string m_text;
    std::vector<std::size_t> m_lineStarts; // byte offset where each line starts
    std::size_t m_longestLine = 0; // in bytes, for the horizontal scroll range
    std::set<int> m_marked;
    int m_current = 0;
};

} // namespace streamscope::ui
