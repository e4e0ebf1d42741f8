// What the CLI prints goes to a terminal, and names in it come from files: a stream named
// "\x1b]0;pwned\x07" or "\x1b[2J" would retitle or clear the user's terminal. TerminalSafeBuffer sits in
// front of standard output and standard error and writes every control character (C0 but newline and tab,
// DEL, and the C1 controls U+0080..U+009F, which some terminals obey too) as a visible escape ("\x1b",
// "\u009b"), and so the bidirectional controls (U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), which
// reorder what a line shows ("Trojan Source"). The CLI's own output has none, and its JSON escapes them.
//
// Names and titles from files can also be of any length (a 1 MB title was printed whole, #24): what the CLI
// prints of them goes through clampText (a name or title), clampLines (a message that quotes them) or
// cellText (a table cell).
#pragma once

#include <cstddef>
#include <streambuf>
#include <string>
#include <string_view>

namespace streamscope::cli {

inline constexpr std::size_t kMaxPrintedName = 120; // characters of a title or name from a file
inline constexpr std::size_t kMaxPrintedLine = 1000; // characters of one line of a message

// `text` when it has at most `maxChars` characters (UTF-8 code points); else its first maxChars characters,
// "…" and its full length: "WWWW… (1,000,000 characters)". Never cuts a character in two.
std::string clampText(std::string_view text, std::size_t maxChars = kMaxPrintedName);
// Each line of `text` clamped to `maxChars` characters as clampText does.
std::string clampLines(std::string_view text, std::size_t maxChars = kMaxPrintedLine);
// A table cell's text: at most `width` characters, the last one "~" where it was cut.
std::string cellText(std::string_view text, std::size_t width);

class TerminalSafeBuffer : public std::streambuf {
public:
    explicit TerminalSafeBuffer(std::streambuf *target) : m_target(target) { }
    ~TerminalSafeBuffer() override;

protected:
    int_type overflow(int_type ch) override;
    std::streamsize xsputn(const char *s, std::streamsize n) override;
    int sync() override;

private:
    bool put(unsigned char c);
    bool flushLead(); // held bytes that turned out not to begin a control

    std::streambuf *m_target;
    // The first bytes of a character that may be a control, waiting for the next: 0xC2 (U+0080..U+00BF),
    // or 0xE2 and then 0x80 or 0x81 (U+2000..U+207F).
    unsigned char m_held[2] = {};
    int m_heldCount = 0;
};

// Puts a TerminalSafeBuffer in front of std::cout and std::cerr for as long as it lives.
class TerminalSafeOutput {
public:
    TerminalSafeOutput();
    ~TerminalSafeOutput();
    TerminalSafeOutput(const TerminalSafeOutput &) = delete;
    TerminalSafeOutput &operator=(const TerminalSafeOutput &) = delete;

private:
    std::streambuf *m_cout;
    std::streambuf *m_cerr;
    TerminalSafeBuffer m_safeOut;
    TerminalSafeBuffer m_safeErr;
};

} // namespace streamscope::cli
