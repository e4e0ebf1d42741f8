// Tests of ui/common/display_text.h: text from files reaches widgets clamped and without control
// characters (#24 item 6: a 1 MB title widened the window to millions of pixels).
#include <QtTest>

#include <string>

#include "ui/common/display_text.h"

using streamscope::ui::displayText;
using streamscope::ui::kMaxDisplayChars;

class TestDisplayText : public QObject {
    Q_OBJECT

private slots:
    void shortTextIsKept()
    {
        QCOMPARE(displayText(std::string("stream 3")), QStringLiteral("stream 3"));
        QCOMPARE(displayText(std::string("Größe")), QStringLiteral("Größe"));
        QCOMPARE(displayText(std::string()), QString());
    }

    void longTextIsClamped()
    {
        const std::string title(1'000'000, 'T');
        const QString shown = displayText(title);
        QCOMPARE(shown.size(), qsizetype(kMaxDisplayChars));
        QCOMPARE(shown.back(), QChar(0x2026));
        QCOMPARE(shown.left(kMaxDisplayChars - 1), QString(kMaxDisplayChars - 1, QLatin1Char('T')));
        QCOMPARE(displayText(std::string(40, 'x'), 10), QString(9, QLatin1Char('x')) + QChar(0x2026));
        // Exactly at the limit: kept whole.
        QCOMPARE(displayText(std::string(kMaxDisplayChars, 'a')), QString(kMaxDisplayChars, QLatin1Char('a')));
    }

    void multiByteTextIsCutOnCharacters()
    {
        std::string text;
        for (int i = 0; i < 1000; ++i)
            text += "\xF0\x9F\x9A\x80"; // U+1F680, a surrogate pair in UTF-16
        const QString shown = displayText(text, 11);
        QVERIFY(shown.endsWith(QChar(0x2026)));
        QVERIFY(shown.size() <= 11);
        for (qsizetype i = 0; i + 1 < shown.size(); i += 2) {
            QVERIFY(shown.at(i).isHighSurrogate());
            QVERIFY(shown.at(i + 1).isLowSurrogate());
        }
    }

    void controlCharactersAreReplaced()
    {
        const QString shown = displayText(std::string("red\x1b[31m\nbold\x07"));
        QVERIFY(!shown.contains(QChar(0x1b)));
        QVERIFY(!shown.contains(QChar('\n')));
        QVERIFY(!shown.contains(QChar(0x07)));
        QCOMPARE(shown.count(QChar(QChar::ReplacementCharacter)), 3);
        QVERIFY(shown.startsWith(QStringLiteral("red")));
    }
};

QTEST_APPLESS_MAIN(TestDisplayText)
#include "tst_display_text.moc"
