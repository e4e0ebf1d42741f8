// displayText(): file text clamped and cleaned for widgets (see display_text.h).
#include "ui/common/display_text.h"

namespace streamscope::ui {

QString displayText(std::string_view utf8, int maxChars)
{
    // Only what can be shown is converted: a few bytes per character at most (UTF-8 takes up to four).
    const std::size_t keep = std::min(utf8.size(), std::size_t(maxChars + 1) * 4);
    QString text = QString::fromUtf8(utf8.data(), qsizetype(keep));
    if (keep < utf8.size() && text.size() <= maxChars)
        text += QChar(0x2026); // cut inside the bytes: still shorter than it was
    return displayText(text, maxChars);
}

QString displayText(const QString &text, int maxChars)
{
    QString out = text.size() > maxChars ? text.left(maxChars - 1) + QChar(0x2026) : text;
    // A surrogate pair cut in two by left() is dropped rather than shown as a broken character.
    if (text.size() > maxChars && out.size() >= 2 && out.at(out.size() - 2).isHighSurrogate())
        out.remove(out.size() - 2, 1);
    for (QChar &c : out)
        if (c.category() == QChar::Other_Control)
            c = QChar(QChar::ReplacementCharacter);
    return out;
}

} // namespace streamscope::ui
