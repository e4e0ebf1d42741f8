// OpPalette: every colour the timeline paints, for a light or dark background and for presentation
// mode (higher contrast). Op colours and labels come from the op-kind table (engine/model/op_kinds.h;
// Okabe-Ito, colour-blind safe) so the GUI, exports and the CLI agree.
#pragma once

#include <QColor>
#include <QString>

#include "engine/model/trace.h"

namespace streamscope::ui {

class OpPalette {
public:
    OpPalette(bool dark = false, bool presentation = false) { set(dark, presentation); }
    void set(bool dark, bool presentation);
    bool dark() const { return m_dark; }
    bool presentation() const { return m_presentation; }

    QColor opColor(engine::OpKind kind) const;
    // One of 16 soft colours for host ranges (NVTX, CPU ops), by ui::rangeColorIndex of the name: quieter
    // than the ops' colours, so the rows read as context and the GPU work stays in front.
    QColor rangeColor(int index) const;
    // The name of a kind for people (legend, tooltips, details): "H2D copy", "kernel", "host sync"; the
    // table's label column.
    static QString label(engine::OpKind kind);
    // Black or white, whichever reads better on a bar of the given colour.
    static QColor textOn(const QColor &fill);

    QColor background() const { return m_background; }
    QColor laneBackground(int lane) const { return (lane % 2) ? m_laneAlt : m_background; }
    QColor headerBackground() const { return m_header; }
    QColor text() const { return m_text; }
    QColor mutedText() const { return m_muted; }
    QColor grid() const { return m_grid; }
    QColor separator() const { return m_separator; }
    QColor selectionFill() const { return m_selectionFill; }
    QColor selectionEdge() const { return m_selectionEdge; }
    QColor highlight() const { return m_highlight; }
    QColor hover() const { return m_hover; }
    QColor blockingHatch() const { return m_hatch; }
    QColor h2d() const { return opColor(engine::OpKind::CopyH2D); }
    QColor d2h() const { return opColor(engine::OpKind::CopyD2H); }
    QColor compute() const { return opColor(engine::OpKind::Kernel); }
    QColor peakLine() const { return m_peak; }
    // The lesson's key figure (outline and caption box): a magenta no op colour uses.
    QColor keyFigure() const { return m_dark ? QColor(0xff, 0x6e, 0xd8) : QColor(0xc8, 0x00, 0x8c); }

private:
    bool m_dark = false;
    bool m_presentation = false;
    QColor m_background, m_laneAlt, m_header, m_text, m_muted, m_grid, m_separator;
    QColor m_selectionFill, m_selectionEdge, m_highlight, m_hover, m_hatch, m_peak;
};

} // namespace streamscope::ui
