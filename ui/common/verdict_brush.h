// The colour of a noise verdict's text (engine/analysis/verdict.h) in every table that shows one:
// faster green, slower red, noise and unknown grey, so that a table never looks like it calls a winner
// where the runs' min..max ranges overlap.
#pragma once

#include <QBrush>
#include <QColor>

#include "engine/analysis/verdict.h"

namespace streamscope::ui {

inline QBrush verdictBrush(engine::VerdictKind kind)
{
    switch (kind) {
    case engine::VerdictKind::Faster: return QBrush(QColor(0x1b, 0x7f, 0x3b));
    case engine::VerdictKind::Slower: return QBrush(QColor(0xb0, 0x30, 0x30));
    case engine::VerdictKind::Noise:
    case engine::VerdictKind::Unknown: break;
    }
    return QBrush(QColor(0x80, 0x80, 0x80));
}

} // namespace streamscope::ui
