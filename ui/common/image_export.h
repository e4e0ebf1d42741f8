// The one image-export routine: PNG or SVG by the file name's suffix, written atomically (QSaveFile:
// a failed export leaves an existing file as it was). PNG paints into an image of the asked size, SVG
// through QSvgGenerator so that vector drawing stays vector. The timeline (its own painter), charts,
// the stacked timelines and whole windows (QWidget::render) all export through it.
#pragma once

#include <QColor>
#include <QRect>
#include <QSize>
#include <QString>
#include <functional>

class QPainter;
class QWidget;

namespace streamscope::ui {

struct ImageSource {
    QString title; // SVG metadata
    QString description;
    QColor background; // PNG fill before painting (SVG stays transparent where nothing is drawn)
    std::function<void(QPainter &painter, const QRect &target)> paint;
};

// Returns false with *error naming the file and what went wrong (an unknown suffix, a folder that does
// not exist, a full disk).
bool exportImage(const QString &path, QSize size, const ImageSource &source, QString *error = nullptr);

// A widget rendered at size (resized for the render and restored) through exportImage.
bool exportWidgetImage(QWidget *widget, const QString &path, QSize size, QString *error = nullptr);

} // namespace streamscope::ui
