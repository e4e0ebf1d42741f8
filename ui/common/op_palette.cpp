// OpPalette: the light, dark and presentation colour sets.
#include "ui/common/op_palette.h"

#include "engine/model/op_colors.h"

namespace streamscope::ui {

void OpPalette::set(bool dark, bool presentation)
{
    m_dark = dark;
    m_presentation = presentation;
    if (!dark) {
        m_background = QColor(0xff, 0xff, 0xff);
        // Presentation mode drops the zebra tint: projectors wash faint tints out into noise.
        m_laneAlt = presentation ? QColor(0xff, 0xff, 0xff) : QColor(0xf4, 0xf5, 0xf7);
        m_header = QColor(0xea, 0xec, 0xef);
        m_text = QColor(0x10, 0x10, 0x10);
        m_muted = presentation ? QColor(0x30, 0x30, 0x30) : QColor(0x60, 0x64, 0x6a);
        m_grid = presentation ? QColor(0xb0, 0xb0, 0xb0) : QColor(0xdc, 0xde, 0xe2);
        m_separator = presentation ? QColor(0x40, 0x40, 0x40) : QColor(0xc4, 0xc7, 0xcc);
        m_selectionFill = QColor(0x00, 0x72, 0xb2, 40);
        m_selectionEdge = QColor(0x00, 0x50, 0x80);
        m_highlight = QColor(0x00, 0x00, 0x00);
        m_hover = QColor(0x00, 0x00, 0x00, 110);
        m_hatch = QColor(0x00, 0x00, 0x00, presentation ? 200 : 150);
        m_peak = QColor(0x20, 0x20, 0x20);
    } else {
        m_background = QColor(0x1e, 0x1f, 0x22);
        m_laneAlt = presentation ? QColor(0x1e, 0x1f, 0x22) : QColor(0x26, 0x28, 0x2c);
        m_header = QColor(0x2b, 0x2d, 0x31);
        m_text = QColor(0xf0, 0xf0, 0xf0);
        m_muted = presentation ? QColor(0xe0, 0xe0, 0xe0) : QColor(0xa8, 0xac, 0xb2);
        m_grid = presentation ? QColor(0x5a, 0x5a, 0x5a) : QColor(0x36, 0x38, 0x3c);
        m_separator = presentation ? QColor(0xb0, 0xb0, 0xb0) : QColor(0x46, 0x48, 0x4d);
        m_selectionFill = QColor(0x56, 0xb4, 0xe9, 50);
        m_selectionEdge = QColor(0x56, 0xb4, 0xe9);
        m_highlight = QColor(0xff, 0xff, 0xff);
        m_hover = QColor(0xff, 0xff, 0xff, 120);
        m_hatch = QColor(0x00, 0x00, 0x00, presentation ? 210 : 160);
        m_peak = QColor(0xe8, 0xe8, 0xe8);
    }
}

QColor OpPalette::rangeColor(int index) const
{
    // Hues stepped by 5/16 of the wheel, so that neighbouring indexes (and nested ranges) differ.
    const int hue = (((index % 16) + 16) % 16 * 5 % 16) * 360 / 16;
    if (m_dark)
        return QColor::fromHsl(hue, m_presentation ? 120 : 80, m_presentation ? 90 : 72);
    return QColor::fromHsl(hue, m_presentation ? 150 : 110, m_presentation ? 178 : 196);
}

QColor OpPalette::opColor(engine::OpKind kind) const
{
    return QColor::fromRgba(engine::opColor(kind, m_dark));
}

QString OpPalette::label(engine::OpKind kind)
{
    const std::string_view label = engine::opKindInfo(kind).label;
    return QString::fromUtf8(label.data(), qsizetype(label.size()));
}

QColor OpPalette::textOn(const QColor &fill)
{
    // Relative luminance (sRGB weights): above the midpoint, dark text has the higher contrast.
    const double l = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return l > 0.5 ? QColor(0x10, 0x10, 0x10) : QColor(0xff, 0xff, 0xff);
}

} // namespace streamscope::ui
