// Headless rendering for `streamscope TRACE --export-image out.png [--size WxH]`: loads the trace, lays
// out a timeline of the requested size off screen (with the lane tree the window builds on open) and
// writes it, with no window shown. A recorded comparison (.sscompare) is written as its comparison
// window shows it.
#pragma once

#include <QString>

#include "app/gui/app_options.h"

namespace streamscope::gui {

// Returns the process exit code (0 ok, 3 the trace is invalid, 4 a file could not be read or written)
// and prints what went wrong to standard error.
int exportImageHeadless(const AppOptions &options);

} // namespace streamscope::gui
