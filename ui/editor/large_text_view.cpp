// LargeTextView: only the lines in view are turned into QStrings and painted; scrolling is by line.
#include "ui/editor/large_text_view.h"

#include <QFontDatabase>
#include <QPaintEvent>
#include <QPainter>
#include <QScrollBar>

#include <algorithm>

namespace streamscope::ui {

namespace {
const QColor kMarkColor(0xd5, 0x5e, 0x00, 40); // as the editor's marks in its QPlainTextEdit
} // namespace

LargeTextView::LargeTextView(QWidget *parent) : QAbstractScrollArea(parent)
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setText({});
}

void LargeTextView::setText(std::string text)
{
    m_text = std::move(text);
    m_lineStarts.assign(1, 0);
    m_longestLine = 0;
    for (std::size_t i = 0; i < m_text.size(); ++i) {
        if (m_text[i] != '\n')
            continue;
        m_longestLine = std::max(m_longestLine, i - m_lineStarts.back());
        m_lineStarts.push_back(i + 1);
    }
    m_longestLine = std::max(m_longestLine, m_text.size() - m_lineStarts.back());
    m_lineStarts.shrink_to_fit();
    m_marked.clear();
    m_current = 0;
    updateScrollBars();
    verticalScrollBar()->setValue(0);
    horizontalScrollBar()->setValue(0);
    viewport()->update();
}

QString LargeTextView::lineText(int line) const
{
    if (line < 1 || line > lineCount())
        return {};
    const std::size_t begin = m_lineStarts[std::size_t(line - 1)];
    std::size_t end = std::size_t(line) < m_lineStarts.size() ? m_lineStarts[std::size_t(line)] - 1 : m_text.size();
    if (end > begin && m_text[end - 1] == '\r')
        --end;
    return QString::fromUtf8(m_text.data() + begin, qsizetype(end - begin));
}

void LargeTextView::setMarkedLines(std::set<int> lines)
{
    m_marked = std::move(lines);
    viewport()->update();
}

void LargeTextView::goToLine(int line)
{
    m_current = std::clamp(line, 1, lineCount());
    const int rows = std::max(1, viewport()->height() / lineHeight());
    if (m_current - 1 < verticalScrollBar()->value() || m_current > verticalScrollBar()->value() + rows)
        verticalScrollBar()->setValue(m_current - 1 - rows / 3);
    viewport()->update();
}

int LargeTextView::firstVisibleLine() const
{
    return verticalScrollBar()->value() + 1;
}

int LargeTextView::lineHeight() const
{
    return std::max(1, fontMetrics().lineSpacing());
}

void LargeTextView::updateScrollBars()
{
    const int rows = std::max(1, viewport()->height() / lineHeight());
    verticalScrollBar()->setRange(0, std::max(0, lineCount() - rows));
    verticalScrollBar()->setPageStep(rows);
    verticalScrollBar()->setSingleStep(1);
    // Bytes, not characters, times the widest digit: at least as wide as the longest line of a monospaced font.
    const qint64 width = qint64(std::min<std::size_t>(m_longestLine, 1'000'000)) * fontMetrics().horizontalAdvance('0');
    const int hidden = int(std::min<qint64>(std::max<qint64>(0, width + 8 - viewport()->width()), INT32_MAX));
    horizontalScrollBar()->setRange(0, hidden);
    horizontalScrollBar()->setPageStep(viewport()->width());
    horizontalScrollBar()->setSingleStep(fontMetrics().horizontalAdvance('0') * 4);
}

void LargeTextView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateScrollBars();
}

void LargeTextView::paintEvent(QPaintEvent *)
{
    QPainter painter(viewport());
    const int height = lineHeight();
    const int first = firstVisibleLine();
    const int rows = viewport()->height() / height + 1;
    const int x = 4 - horizontalScrollBar()->value();
    for (int row = 0; row < rows && first + row <= lineCount(); ++row) {
        const int line = first + row;
        const QRect band(0, row * height, viewport()->width(), height);
        if (m_marked.count(line))
            painter.fillRect(band, kMarkColor);
        if (line == m_current)
            painter.fillRect(band, palette().color(QPalette::Highlight).lighter(170));
        painter.drawText(QPoint(x, row * height + fontMetrics().ascent()), lineText(line));
    }
}

} // namespace streamscope::ui
