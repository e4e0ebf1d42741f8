// The one image-export routine: PNG or SVG by the file name's suffix, written atomically
// (engine::writeFileAtomically: a failed or interrupted export leaves an existing file as it was and no
// temporary file; it replaces only a regular file, keeping its mode). PNG paints into an image of the asked size, SVG
// through QSvgGenerator so that vector drawing stays vector. The timeline (its own painter), charts,
// the stacked timelines and whole windows (QWidget::render) all export through it.
//
// Slides: the picture is laid out at the image size divided by a scale (text and lines grow with the
// image instead of staying 9 pt on a 4K slide), under an optional title band and over an optional band
// of figures, on an optional transparent background. SVG keeps no clip a painter sets (QSvgGenerator
// drops them), so a source that relies on clipping gives its picture as layers, each written inside a
// nested <svg> viewport that clips it (a widget's scroll areas are such layers).
#pragma once

#include <QColor>
#include <QRect>
#include <QSize>
#include <QString>
#include <functional>
#include <vector>

class QPainter;
class QWidget;

namespace streamscope::ui {

struct ImageOptions {
    // Device pixels per layout pixel; 0: from the size, so that the picture is laid out at about
    // 1280x720 (1920x1080 -> 1.5, 3840x2160 -> 3) and never below 1.
    double scale = 0;
    bool transparent = false; // no background: PNG pixels left transparent, no SVG background rectangle
    QString title; // not empty: a title band across the top (workload, GPU, date)
    // Not empty: a band of figures across the bottom, wrapped to the width (a timeline slide's key
    // figures, the strip presentation mode shows under the timeline: makespan, bandwidth, ...).
    QString figures;
};

// The scale `options` asks for at `size` (resolving 0 as described above).
double imageScale(const ImageOptions &options, QSize size);

struct ImageSource {
    QString title; // SVG metadata
    QString description;
    QColor background; // PNG fill before painting (SVG stays transparent where nothing is drawn)
    QColor text; // the title band's text; invalid: black, or white on a dark background
    // Paints the picture into target (in layout pixels: the image size over the scale, less the title).
    std::function<void(QPainter &painter, const QRect &target)> paint;
    // Optional, for SVG: the same picture as layers, each clipped to its rectangle.
    struct Layer {
        QRect clip;
        std::function<void(QPainter &painter)> paint;
    };
    std::function<std::vector<Layer>(const QRect &target)> layers;
};

// Returns false with *error naming the file and what went wrong (an unknown suffix, a folder that does
// not exist, a full disk).
bool exportImage(const QString &path, QSize size, const ImageSource &source, QString *error = nullptr);
bool exportImage(const QString &path, QSize size, const ImageSource &source, const ImageOptions &options,
                 QString *error = nullptr);

// A widget rendered at size (resized to size over the scale for the render and restored) through exportImage.
bool exportWidgetImage(QWidget *widget, const QString &path, QSize size, QString *error = nullptr);
bool exportWidgetImage(QWidget *widget, const QString &path, QSize size, const ImageOptions &options,
                       QString *error = nullptr);

} // namespace streamscope::ui
