// Colours per OpKind, shared by every front that draws ops (the GUI timeline, SVG/PNG export, NVTX ranges
// of the runner). The colours themselves are columns of kOpKinds (op_kinds.h), on the Okabe-Ito palette.
#pragma once

#include <cstdint>

#include "engine/model/op_kinds.h"

namespace streamscope::engine {

constexpr std::uint32_t opColor(OpKind kind, bool dark = false)
{
    const OpKindInfo &info = opKindInfo(kind);
    return dark ? info.colorDark : info.colorLight;
}

} // namespace streamscope::engine
