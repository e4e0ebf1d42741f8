// RangePass: the lane pass of host range rows (NVTX ranges, Kineto's CPU ops) and NVTX projection rows:
// flat bars in the colour of the range's name, labelled with it where it fits; ranges narrower than
// kFoldPixels that touch fold into one mark.
#pragma once

#include "ui/timeline/timeline_render_pass.h"

namespace streamscope::ui {

class RangePass : public TimelineLanePass {
public:
    bool paint(QPainter &p, const TimelineLaneState &state) const override;
};

// The pass the painter uses unless told otherwise (TimelineLanePasses).
const RangePass &rangePass();

} // namespace streamscope::ui
