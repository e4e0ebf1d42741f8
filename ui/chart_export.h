// Export of any widget (charts, the stacked timelines, the comparison window) to PNG or SVG: PNG
// through QWidget::render into an image of the asked size, SVG through QSvgGenerator, so that vector
// charts stay vector.
#pragma once

#include <QSize>
#include <QString>

class QWidget;

namespace streamscope::ui {

// Renders widget at size (the widget is resized for the render and restored) into path; the format
// follows the suffix (.png or .svg). Returns false with *error set on failure.
bool exportWidgetImage(QWidget *widget, const QString &path, QSize size, QString *error = nullptr);

} // namespace streamscope::ui
