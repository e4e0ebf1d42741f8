// Text from a file, made fit for a widget: a title, a name or a list read from a trace, a workload or a
// comparison may be a megabyte long (a QLabel then asks for millions of pixels and the window follows) or
// carry control characters. Every such text reaches a widget through displayText, which keeps at most
// kMaxDisplayChars characters (the rest elided with "…") and shows control characters as U+FFFD.
#pragma once

#include <QString>

#include <string_view>

namespace streamscope::ui {

inline constexpr int kMaxDisplayChars = 200;

QString displayText(std::string_view utf8, int maxChars = kMaxDisplayChars);
QString displayText(const QString &text, int maxChars = kMaxDisplayChars);

} // namespace streamscope::ui
