// The reference lane passes of the painter tests: the shipped passes with their shortcuts turned off, so
// that a test can paint the same picture both ways (TimelinePainter::setLanePasses) and compare the
// pixels. The shortcuts are taken only on the raster engine at whole pixels; these passes take the
// general path there too (the one SVG and high-DPI painting always take).
#pragma once

#include "ui/timeline/timeline_column_pass.h"
#include "ui/timeline/timeline_interval_pass.h"

namespace streamscope::test {

// Every folded mark painted with fillRect at its turn, none deferred into the rows of one-column marks.
class MarksAtTheirTurnPass : public ui::IntervalPass {
protected:
    bool defersMarks(const QPainter &) const override { return false; }
};

// Translucent column layers blended one fill at a time, not painted as the opaque colours they give.
class BlendedColumnsPass : public ui::ColumnPass {
protected:
    bool opaqueLayers(const QPainter &) const override { return false; }
};

} // namespace streamscope::test
