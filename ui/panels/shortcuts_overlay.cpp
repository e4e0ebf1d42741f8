// ShortcutsOverlay: see shortcuts_overlay.h.
#include "ui/panels/shortcuts_overlay.h"

#include <QAction>
#include <QKeyEvent>
#include <QPainter>
#include <QRegularExpression>

#include <algorithm>

namespace streamscope::ui {

ShortcutsOverlay::ShortcutsOverlay(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("shortcutsOverlay"));
    setFocusPolicy(Qt::StrongFocus);
    hide();
}

std::vector<ShortcutsOverlay::Entry> ShortcutsOverlay::timelineEntries()
{
    return {
        {tr("Wheel, W / S, + / -"), tr("zoom in and out at the pointer")},
        {tr("Drag, A / D, ← / →"), tr("pan")},
        {tr("F, Home, double-click"), tr("fit the whole repetition")},
        {tr("Alt+← / Alt+→"), tr("zoom back and forward")},
        {tr("Click"), tr("select an op (details, host-to-GPU arrow)")},
        {tr("Shift+wheel, wheel over the labels, ↑ / ↓, Page Up / Down"), tr("scroll the rows where they do not fit")},
        {tr("Click a group's header"), tr("collapse or expand it")},
        {tr("Click a thread's header (its arrow)"), tr("fold or unfold its NVTX rows")},
        {tr("Right-click a label"), tr("hide, pin to top, rename; hidden lanes")},
        {tr("Drag the labels' edge"), tr("resize the label column (double-click: fit)")},
        {tr("Shift+drag, drag in the ruler"), tr("measure a range (Range dock)")},
        {tr("Ctrl+click"), tr("add an op to the selection, or take it out: several are measured (Range dock)")},
        {tr("Escape"), tr("clear the selection and the range")},
        {tr("Hover"), tr("what an op or a driver record was")},
        {tr("?"), tr("this card")},
    };
}

std::vector<ShortcutsOverlay::Entry> ShortcutsOverlay::actionEntries(const QList<QAction *> &actions)
{
    std::vector<Entry> out;
    for (const QAction *action : actions) {
        if (!action || action->isSeparator())
            continue;
        QStringList keys;
        for (const QKeySequence &k : action->shortcuts())
            if (!k.isEmpty())
                keys << k.toString(QKeySequence::NativeText);
        if (keys.isEmpty())
            continue;
        QString text = action->text();
        text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
        text.replace(QStringLiteral("&&"), QStringLiteral("&"));
        out.emplace_back(keys.join(QStringLiteral(", ")), text);
    }
    return out;
}

void ShortcutsOverlay::showFor(const QList<QAction *> &actions)
{
    m_entries = timelineEntries();
    m_timelineCount = m_entries.size();
    const auto more = actionEntries(actions);
    m_entries.insert(m_entries.end(), more.begin(), more.end());
    if (parentWidget())
        setGeometry(parentWidget()->rect());
    raise();
    show();
    setFocus(Qt::ShortcutFocusReason);
    update();
}

void ShortcutsOverlay::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), QColor(0, 0, 0, 150));
    QFont title = font();
    title.setBold(true);
    title.setPointSizeF(title.pointSizeF() * 1.2);
    const QFontMetrics fm(font());
    const int line = fm.height() + 4;
    // Two columns of (keys, action) pairs: the timeline's on the left, the menus' on the right.
    const std::vector<Entry> left(m_entries.begin(), m_entries.begin() + std::ptrdiff_t(m_timelineCount));
    const std::vector<Entry> right(m_entries.begin() + std::ptrdiff_t(m_timelineCount), m_entries.end());
    auto width = [&](const std::vector<Entry> &entries, bool keys) {
        int w = 0;
        for (const auto &e : entries)
            w = std::max(w, fm.horizontalAdvance(keys ? e.first : e.second));
        return w;
    };
    const int gap = fm.horizontalAdvance(QStringLiteral("MM"));
    const int leftKeys = width(left, true), leftText = width(left, false);
    const int rightKeys = width(right, true), rightText = width(right, false);
    const int cardWidth = std::min(rect().width() - 20, leftKeys + leftText + rightKeys + rightText + 5 * gap);
    const int rows = int(std::max(left.size(), right.size()));
    const int cardHeight = std::min(rect().height() - 20, QFontMetrics(title).height() + 16 + (rows + 1) * line + 24);
    const QRect card(rect().center().x() - cardWidth / 2, rect().center().y() - cardHeight / 2, cardWidth, cardHeight);
    p.setRenderHint(QPainter::Antialiasing);
    p.setBrush(palette().color(QPalette::Window));
    p.setPen(palette().color(QPalette::Mid));
    p.drawRoundedRect(card, 8, 8);
    p.setPen(palette().color(QPalette::WindowText));
    p.setFont(title);
    int y = card.top() + 12;
    p.drawText(QRect(card.left() + gap, y, card.width() - 2 * gap, QFontMetrics(title).height()), Qt::AlignLeft,
               tr("Keyboard and mouse (any key closes)"));
    y += QFontMetrics(title).height() + 12;
    p.setFont(font());
    const QColor keyColor = palette().color(QPalette::Link);
    auto column = [&](const std::vector<Entry> &entries, const QString &heading, int x, int keysWidth) {
        int yy = y;
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(x, yy + fm.ascent(), heading);
        p.setFont(font());
        yy += line;
        for (const auto &[keys, what] : entries) {
            if (yy + line > card.bottom())
                break;
            p.setPen(keyColor);
            p.drawText(x, yy + fm.ascent(), keys);
            p.setPen(palette().color(QPalette::WindowText));
            p.drawText(x + keysWidth + gap / 2, yy + fm.ascent(), what);
            yy += line;
        }
    };
    column(left, tr("Timeline"), card.left() + gap, leftKeys);
    column(right, tr("Menus"), card.left() + 2 * gap + leftKeys + leftText + gap, rightKeys);
}

void ShortcutsOverlay::keyPressEvent(QKeyEvent *event)
{
    event->accept();
    hide();
}

void ShortcutsOverlay::mousePressEvent(QMouseEvent *event)
{
    event->accept();
    hide();
}

} // namespace streamscope::ui
