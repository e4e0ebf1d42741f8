// Windows that fit the screen they open on, from 1280x720 up: a window's size bounded by its screen's
// available geometry (panels and docks left out) with room for the frame the window manager adds (title
// bar, borders), and its frame moved inside that geometry. A window's frame is known only once the window
// manager has taken it, some time after it is shown; until then a typical frame is left room for, so that
// the last row of a window (a status bar) is not below the screen.
#pragma once

#include <QMargins>
#include <QSize>

class QWidget;

namespace streamscope::ui {

// A title bar and borders as window managers draw them, left room for while a window's own is unknown.
inline constexpr QMargins kTypicalWindowFrame{8, 40, 8, 8};

// The window's frame as the window manager drew it, or kTypicalWindowFrame while that is unknown (not
// shown yet, or not yet framed).
QMargins windowFrameMargins(const QWidget *window);

// Resizes the window to `wanted` (its own size when empty) where its screen has room for it with its
// frame, smaller where not, and moves the frame inside the screen's available geometry. Full-screen and
// maximized windows are the window manager's and are left alone.
void fitToScreen(QWidget *window, QSize wanted = {});

// fitToScreen when the window is shown, and again whenever it grows past its screen while visible (a
// layout that widens its minimum, a restored geometry): the window does not stay larger than the screen.
// The window's size while hidden is left alone (headless exports lay windows out larger than any screen).
void keepOnScreen(QWidget *window);

} // namespace streamscope::ui
