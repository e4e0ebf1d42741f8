// Light and dark palettes for the whole application (View > Theme). Fusion style, so both look the
// same on every platform and the dark one does not depend on the desktop's theme.
#pragma once

namespace streamscope::gui {

enum class Theme { Light, Dark };

void applyTheme(Theme theme);

} // namespace streamscope::gui
