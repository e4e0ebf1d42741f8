// HeaderPass: the frame pass of the label column: each row's header (a group's arrow, title and what it
// holds; a lane's pin, fold arrow, colour key, title, subtitle and scale), a compact view's title band,
// and the sticky group headers over a scrolled view.
#pragma once

#include <QFont>
#include <QFontMetrics>

#include "ui/timeline/timeline_paint_context.h"

namespace streamscope::ui {

class HeaderPass {
public:
    explicit HeaderPass(const TimelinePaintContext &ctx) : m_ctx(ctx) { }

    void paintHeaders(QPainter &p, const TimelineLayout &layout) const;
    // A compact view's title band (layout.title): the title in bold, the subtitle after it.
    void paintTitle(QPainter &p, const TimelineLayout &layout) const;
    // The sticky group headers (layout.sticky), over everything else in their band.
    void paintSticky(QPainter &p, const TimelineLayout &layout) const;

private:
    struct HeaderFonts {
        QFontMetrics fm; // titles
        QFontMetrics sm; // subtitles
        QFontMetrics bm; // group titles
        QFont bold;
    };
    void paintGroupHeader(QPainter &p, const LaneRow &row, const QRect &r, int textLeft,
                          const HeaderFonts &fonts) const;
    void paintLaneHeader(QPainter &p, const LaneRow &row, const QRect &r, int textLeft, const HeaderFonts &fonts) const;

    const TimelinePaintContext &m_ctx;
};

} // namespace streamscope::ui
