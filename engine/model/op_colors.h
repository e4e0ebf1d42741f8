// Colours per OpKind, shared by every front that draws ops (the GUI timeline, SVG/PNG export, and the
// Chrome-trace exporter's colour names if it wants them). Built on the Okabe-Ito palette, which stays
// distinguishable under the common colour-vision deficiencies; the direction of copies (H2D blue, D2H
// vermillion) and compute (bluish green) get the three most separable hues. Plain constexpr ARGB, no Qt.
#pragma once

#include <array>
#include <cstdint>

#include "engine/model/trace.h"

namespace streamscope::engine {

// Okabe & Ito (2008), "Color Universal Design".
namespace okabe_ito {
inline constexpr std::uint32_t kBlack = 0xff000000;
inline constexpr std::uint32_t kOrange = 0xffe69f00;
inline constexpr std::uint32_t kSkyBlue = 0xff56b4e9;
inline constexpr std::uint32_t kBluishGreen = 0xff009e73;
inline constexpr std::uint32_t kYellow = 0xfff0e442;
inline constexpr std::uint32_t kBlue = 0xff0072b2;
inline constexpr std::uint32_t kVermillion = 0xffd55e00;
inline constexpr std::uint32_t kReddishPurple = 0xffcc79a7;
} // namespace okabe_ito

inline constexpr std::size_t kOpKindCount = std::size_t(OpKind::CopyP2P) + 1;

// For a light background, indexed by OpKind.
inline constexpr std::array<std::uint32_t, kOpKindCount> kOpColorsLight = {
    okabe_ito::kBlue, // CopyH2D
    okabe_ito::kVermillion, // CopyD2H
    okabe_ito::kReddishPurple, // CopyD2D
    okabe_ito::kSkyBlue, // CopyH2H
    okabe_ito::kBluishGreen, // Kernel
    okabe_ito::kYellow, // Memset
    0xff7f7f7f, // EventRecord: markers, not work, so neutral grey
    0xff5f5f5f, // EventWait
    0xff3a3a3a, // HostSync: near-black, it is where the host waits
    okabe_ito::kOrange, // Prefetch
    0xffa0a0a0, // Advise
    0xffa0a0a0, // Attach
    okabe_ito::kSkyBlue, // HostWork
    0xffb4b4b4, // Other
    0xff7b3f8c, // CopyP2P: a deep purple, the D2D copy's reddish purple darkened (both are GPU-side copies)
};

// For a dark background: the same hues (Okabe-Ito reads well on dark), with the blue lifted so it does
// not sink into the background and the greys inverted.
inline constexpr std::array<std::uint32_t, kOpKindCount> kOpColorsDark = {
    0xff3a9be0, // CopyH2D: lighter blue
    okabe_ito::kVermillion, // CopyD2H
    okabe_ito::kReddishPurple, // CopyD2D
    okabe_ito::kSkyBlue, // CopyH2H
    0xff14b88a, // Kernel: lighter bluish green
    okabe_ito::kYellow, // Memset
    0xff9a9a9a, // EventRecord
    0xffb0b0b0, // EventWait
    0xffd8d8d8, // HostSync
    okabe_ito::kOrange, // Prefetch
    0xff808080, // Advise
    0xff808080, // Attach
    okabe_ito::kSkyBlue, // HostWork
    0xff707070, // Other
    0xffb48ad0, // CopyP2P: lavender, apart from the D2D copy's reddish purple on dark
};

constexpr std::uint32_t opColor(OpKind kind, bool dark = false)
{
    return (dark ? kOpColorsDark : kOpColorsLight)[std::size_t(kind)];
}

} // namespace streamscope::engine
