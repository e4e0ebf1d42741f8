// TerminalSafeBuffer: control characters in the CLI's output written as visible escapes (see terminal_text.h).
#include "app/cli/terminal_text.h"

#include <cstdio>
#include <iostream>
#include <string>

namespace streamscope::cli {

namespace {

// Where the first `chars` characters of `text` end (bytes), and how many characters it has in all.
std::size_t prefixBytes(std::string_view text, std::size_t chars, std::size_t *total)
{
    std::size_t count = 0, end = text.size();
    for (std::size_t i = 0; i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80)
            continue; // a continuation byte
        if (count == chars && end == text.size())
            end = i;
        ++count;
    }
    *total = count;
    return end;
}

std::string withThousands(std::size_t n)
{
    std::string digits = std::to_string(n);
    for (std::size_t i = digits.size(); i > 3; i -= 3)
        digits.insert(i - 3, ",");
    return digits;
}

} // namespace

std::string clampText(std::string_view text, std::size_t maxChars)
{
    if (text.size() <= maxChars) // no more bytes than characters allowed
        return std::string(text);
    std::size_t total = 0;
    const std::size_t end = prefixBytes(text, maxChars, &total);
    if (total <= maxChars)
        return std::string(text);
    return std::string(text.substr(0, end)) + "\xE2\x80\xA6 (" + withThousands(total) + " characters)";
}

std::string clampLines(std::string_view text, std::size_t maxChars)
{
    std::string out;
    while (true) {
        const std::size_t eol = text.find('\n');
        out += clampText(text.substr(0, eol), maxChars);
        if (eol == std::string_view::npos)
            return out;
        out += '\n';
        text.remove_prefix(eol + 1);
    }
}

std::string cellText(std::string_view text, std::size_t width)
{
    std::size_t total = 0;
    const std::size_t end = prefixBytes(text, width == 0 ? 0 : width - 1, &total);
    if (total <= width)
        return std::string(text);
    return std::string(text.substr(0, end)) + "~";
}

TerminalSafeBuffer::~TerminalSafeBuffer()
{
    flushLead();
    m_target->pubsync();
}

bool TerminalSafeBuffer::flushLead()
{
    const int count = m_heldCount;
    m_heldCount = 0;
    for (int i = 0; i < count; ++i)
        if (m_target->sputc(char(m_held[i])) == traits_type::eof())
            return false;
    return true;
}

namespace {

bool isBidiControl(char32_t cp)
{
    return cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

} // namespace

bool TerminalSafeBuffer::put(unsigned char c)
{
    char escaped[8];
    const auto escape = [&](char32_t cp) {
        std::snprintf(escaped, sizeof escaped, "\\u%04x", unsigned(cp));
        return m_target->sputn(escaped, 6) == 6;
    };
    if (m_heldCount == 1 && m_held[0] == 0xC2) {
        m_heldCount = 0;
        if (c >= 0x80 && c <= 0x9F) // U+0080..U+009F: a C1 control
            return escape(c);
        if (m_target->sputc(char(0xC2)) == traits_type::eof())
            return false;
    } else if (m_heldCount == 1) { // 0xE2
        if (c == 0x80 || c == 0x81) {
            m_held[m_heldCount++] = c;
            return true;
        }
        if (!flushLead())
            return false;
    } else if (m_heldCount == 2) { // 0xE2 0x80 or 0xE2 0x81
        const char32_t cp = char32_t(0x2000) | char32_t(m_held[1] & 0x3F) << 6 | char32_t(c & 0x3F);
        if ((c & 0xC0) == 0x80 && isBidiControl(cp)) {
            m_heldCount = 0;
            return escape(cp);
        }
        if (!flushLead())
            return false;
    }
    if (c == 0xC2 || c == 0xE2) {
        m_held[0] = c;
        m_heldCount = 1;
        return true;
    }
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
        std::snprintf(escaped, sizeof escaped, "\\x%02x", unsigned(c));
        return m_target->sputn(escaped, 4) == 4;
    }
    return m_target->sputc(char(c)) != traits_type::eof();
}

TerminalSafeBuffer::int_type TerminalSafeBuffer::overflow(int_type ch)
{
    if (traits_type::eq_int_type(ch, traits_type::eof()))
        return traits_type::not_eof(ch);
    return put(static_cast<unsigned char>(traits_type::to_char_type(ch))) ? ch : traits_type::eof();
}

std::streamsize TerminalSafeBuffer::xsputn(const char *s, std::streamsize n)
{
    for (std::streamsize i = 0; i < n; ++i)
        if (!put(static_cast<unsigned char>(s[i])))
            return i;
    return n;
}

int TerminalSafeBuffer::sync()
{
    // Held lead bytes stay held: the next byte decides what they are. They go out at the end in any case.
    return m_target->pubsync();
}

TerminalSafeOutput::TerminalSafeOutput() :
    m_cout(std::cout.rdbuf()), m_cerr(std::cerr.rdbuf()), m_safeOut(m_cout), m_safeErr(m_cerr)
{
    std::cout.rdbuf(&m_safeOut);
    std::cerr.rdbuf(&m_safeErr);
}

TerminalSafeOutput::~TerminalSafeOutput()
{
    std::cout.flush();
    std::cerr.flush();
    std::cout.rdbuf(m_cout);
    std::cerr.rdbuf(m_cerr);
}

} // namespace streamscope::cli
