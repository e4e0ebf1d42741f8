// JsonTextPane: one text in one of two views; the QPlainTextEdit is empty while the LargeTextView holds it.
#include "ui/editor/json_text_pane.h"

#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

#include <algorithm>
#include <set>

#include "ui/editor/large_text_view.h"

namespace streamscope::ui {

namespace {
bool isBlankText(const QString &text)
{
    return std::all_of(text.begin(), text.end(), [](QChar c) { return c.isSpace(); });
}
} // namespace

JsonTextPane::JsonTextPane(QWidget *parent) :
    QStackedWidget(parent), m_edit(new QPlainTextEdit(this)), m_large(new LargeTextView(this))
{
    m_edit->setObjectName(QStringLiteral("workloadJson"));
    m_edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_edit->setTabChangesFocus(false);
    m_large->setObjectName(QStringLiteral("workloadLargeJson"));
    m_large->setToolTip(tr("A workload this large is shown read-only here; edit it in the Structure tab or in "
                           "another text editor."));
    addWidget(m_edit);
    addWidget(m_large);
}

void JsonTextPane::setText(const QString &text)
{
    if (text.size() > m_editableBytes) {
        setText(text.toStdString());
        return;
    }
    m_readOnly = false;
    m_large->setText({});
    setCurrentWidget(m_edit);
    m_edit->setPlainText(text);
}

void JsonTextPane::setText(std::string utf8)
{
    if (qsizetype(utf8.size()) <= m_editableBytes) {
        setText(QString::fromStdString(utf8));
        return;
    }
    m_readOnly = true;
    m_edit->clear();
    m_large->setText(std::move(utf8)); // kept as UTF-8, never as UTF-16
    setCurrentWidget(m_large);
}

QString JsonTextPane::text() const
{
    return m_readOnly ? QString::fromStdString(m_large->text()) : m_edit->toPlainText();
}

std::string JsonTextPane::utf8Text() const
{
    return m_readOnly ? m_large->text() : m_edit->toPlainText().toStdString();
}

bool JsonTextPane::isBlank() const
{
    if (m_readOnly) {
        const std::string &t = m_large->text();
        return std::all_of(t.begin(), t.end(), [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); });
    }
    // Block by block, up to the first that holds more than white space: toPlainText() would copy the whole
    // document (a tenth of the time a 1M-op workload took to open).
    for (QTextBlock block = m_edit->document()->begin(); block.isValid(); block = block.next())
        if (!isBlankText(block.text()))
            return false;
    return true;
}

void JsonTextPane::replaceText(std::string after)
{
    if (m_readOnly) {
        m_large->setText(std::move(after));
        return;
    }
    // Through a cursor, as one edit block: Ctrl+Z in the text takes the structured edit back.
    QTextCursor cursor(m_edit->document());
    cursor.beginEditBlock();
    cursor.select(QTextCursor::Document);
    cursor.insertText(QString::fromStdString(after));
    cursor.endEditBlock();
}

void JsonTextPane::markIssues(const std::vector<engine::WorkloadIssue> &issues)
{
    QList<QTextEdit::ExtraSelection> marks;
    std::set<int> lines;
    for (const engine::WorkloadIssue &issue : issues) {
        if (issue.line <= 0)
            continue;
        lines.insert(issue.line);
        const QTextBlock block = m_edit->document()->findBlockByNumber(issue.line - 1);
        if (m_readOnly || !block.isValid())
            continue;
        QTextEdit::ExtraSelection mark;
        mark.cursor = QTextCursor(block);
        mark.cursor.select(QTextCursor::LineUnderCursor);
        mark.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
        mark.format.setUnderlineColor(QColor(0xd5, 0x5e, 0x00));
        mark.format.setBackground(QColor(0xd5, 0x5e, 0x00, 40));
        mark.format.setToolTip(QString::fromStdString(issue.message));
        marks << mark;
    }
    m_edit->setExtraSelections(marks);
    m_large->setMarkedLines(m_readOnly ? std::move(lines) : std::set<int>{});
}

void JsonTextPane::showPosition(int line, int column)
{
    if (m_readOnly) {
        m_large->goToLine(line);
        m_large->setFocus();
        return;
    }
    QTextCursor cursor(m_edit->document()->findBlockByNumber(line - 1));
    if (column > 1)
        cursor.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor, column - 1);
    m_edit->setTextCursor(cursor);
    m_edit->setFocus();
}

} // namespace streamscope::ui
