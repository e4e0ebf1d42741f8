// exportImage and exportWidgetImage: see image_export.h.
#include "ui/common/image_export.h"

#include <QAbstractScrollArea>
#include <QApplication>
#include <QBuffer>
#include <QFileInfo>
#include <QFontMetrics>
#include <QImage>
#include <QPaintEngine>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <QWidget>

#include <algorithm>
#include <cmath>

#include "engine/model/errors.h"
#include "engine/util/file_util.h"

namespace streamscope::ui {

namespace {
bool fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
}

QFont titleFont()
{
    QFont font = QApplication::font();
    font.setPointSizeF(font.pointSizeF() > 0 ? font.pointSizeF() * 1.4 : 13);
    font.setBold(true);
    return font;
}

QFont figuresFont()
{
    QFont font = QApplication::font();
    font.setPointSizeF(font.pointSizeF() > 0 ? font.pointSizeF() * 1.1 : 10);
    return font;
}

// The title band's height in layout pixels (0 without a title).
int titleHeight(const ImageOptions &options)
{
    return options.title.isEmpty() ? 0 : QFontMetrics(titleFont()).height() + 12;
}

constexpr int kFiguresMargin = 8;

// The figures band's height in layout pixels for a picture `width` wide (0 without figures): the
// figures wrapped to the width, between two margins.
int figuresHeight(const ImageOptions &options, int width)
{
    if (options.figures.isEmpty())
        return 0;
    const QRect text = QFontMetrics(figuresFont())
                           .boundingRect(QRect(0, 0, std::max(1, width - 2 * kFiguresMargin), 100000), Qt::TextWordWrap,
                                         options.figures);
    return text.height() + kFiguresMargin;
}

QColor bandText(const ImageSource &source)
{
    if (source.text.isValid())
        return source.text;
    return source.background.isValid() && source.background.lightness() < 128 ? QColor(Qt::white) : QColor(Qt::black);
}

void paintFigures(QPainter &painter, const QRect &band, const ImageSource &source, const ImageOptions &options)
{
    painter.save();
    painter.setFont(figuresFont());
    painter.setPen(bandText(source));
    painter.drawText(band.adjusted(kFiguresMargin, 0, -kFiguresMargin, 0),
                     Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, options.figures);
    painter.restore();
}

void paintTitle(QPainter &painter, const QRect &band, const ImageSource &source, const ImageOptions &options)
{
    const QColor text = bandText(source);
    painter.save();
    painter.setFont(titleFont());
    painter.setPen(text);
    const QFontMetrics fm(titleFont(), painter.device());
    const QRect inner = band.adjusted(8, 0, -8, 0);
    painter.drawText(inner, Qt::AlignLeft | Qt::AlignVCenter,
                     fm.elidedText(options.title, Qt::ElideRight, inner.width()));
    painter.restore();
}

// The drawing inside one QSvgGenerator document: what lies between its <defs> and the closing </svg>,
// with its ids made unique to the layer (gradients and patterns are numbered per generator).
QByteArray svgBody(const QByteArray &document, int layer)
{
    qsizetype from = document.indexOf("</defs>");
    from = from >= 0 ? from + 7 : document.indexOf('>', document.indexOf("<svg")) + 1;
    const qsizetype to = document.lastIndexOf("</svg>");
    QByteArray body = document.mid(from, to - from);
    const QByteArray prefix = "L" + QByteArray::number(layer) + "_";
    body.replace("id=\"", "id=\"" + prefix);
    body.replace("url(#", "url(#" + prefix);
    body.replace("href=\"#", "href=\"#" + prefix);
    QByteArray defs;
    const qsizetype defsFrom = document.indexOf("<defs>");
    if (defsFrom >= 0 && defsFrom < from) {
        defs = document.mid(defsFrom, from - defsFrom);
        defs.replace("id=\"", "id=\"" + prefix);
        defs.replace("url(#", "url(#" + prefix);
    }
    return defs + body;
}

// One layer as its own SVG document of the whole image's size, painted at the scale.
QByteArray layerDocument(QSize size, double scale, const std::function<void(QPainter &)> &paint, bool *ok)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    // The resolution a PNG's QImage has: text as large as in the PNG and on screen, where the
    // generator's own 72 dpi made it a quarter smaller, and a widget laid out for the screen (a label's
    // rich text) spaced its words for glyphs larger than those drawn.
    generator.setResolution(QImage(1, 1, QImage::Format_ARGB32_Premultiplied).logicalDpiX());
    QPainter painter;
    *ok = painter.begin(&generator);
    if (*ok) {
        painter.scale(scale, scale);
        paint(painter);
        *ok = painter.end();
    }
    return buffer.data();
}

QByteArray escaped(const QString &text)
{
    return text.toHtmlEscaped().toUtf8();
}

} // namespace

double imageScale(const ImageOptions &options, QSize size)
{
    if (options.scale > 0)
        return options.scale;
    return std::max(1.0, std::min(size.width() / 1280.0, size.height() / 720.0));
}

bool exportImage(const QString &path, QSize size, const ImageSource &source, QString *error)
{
    ImageOptions options;
    options.scale = 1;
    return exportImage(path, size, source, options, error);
}

bool exportImage(const QString &path, QSize size, const ImageSource &source, const ImageOptions &options,
                 QString *error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg"))
        return fail(
            error,
            QStringLiteral("%1: unknown image format '%2' (the name must end in .png or .svg)").arg(path, suffix));
    if (!size.isValid() || size.isEmpty())
        return fail(error,
                    QStringLiteral("%1: an empty image size (%2x%3)").arg(path).arg(size.width()).arg(size.height()));
    const double scale = imageScale(options, size);
    // The picture's own rectangle in layout pixels, under the title band.
    const QSize logical(int(std::floor(size.width() / scale)), int(std::floor(size.height() / scale)));
    const int band = titleHeight(options);
    const int footer = figuresHeight(options, logical.width());
    const QRect titleRect(0, 0, logical.width(), band);
    const QRect target(0, band, logical.width(), std::max(1, logical.height() - band - footer));
    const QRect figuresRect(0, target.bottom() + 1, logical.width(), footer);
    // The picture is made in memory, then written as every StreamScope file is (engine::writeFileAtomically):
    // only over a regular file or a new path, keeping the target's mode, through a temporary file that a
    // failure, Ctrl-C or SIGTERM never leaves behind.
    QByteArray out;
    if (suffix == QLatin1String("png")) {
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        image.fill(options.transparent           ? QColor(Qt::transparent)
                   : source.background.isValid() ? source.background
                                                 : QColor(Qt::white));
        {
            QPainter painter(&image);
            painter.setRenderHint(QPainter::TextAntialiasing);
            painter.scale(scale, scale);
            if (band > 0)
                paintTitle(painter, titleRect, source, options);
            if (footer > 0)
                paintFigures(painter, figuresRect, source, options);
            painter.save();
            painter.setClipRect(target);
            source.paint(painter, target);
            painter.restore();
        }
        QBuffer buffer(&out);
        buffer.open(QIODevice::WriteOnly);
        if (!image.save(&buffer, "PNG"))
            return fail(error, QStringLiteral("%1: the PNG could not be encoded").arg(path));
    } else {
        // Each layer (the whole picture as one when the source gives none) in a nested <svg> whose
        // viewport clips it, in layout pixels scaled to the image.
        std::vector<ImageSource::Layer> layers;
        if (band > 0)
            layers.push_back({titleRect, [&](QPainter &p) { paintTitle(p, titleRect, source, options); }});
        if (footer > 0)
            layers.push_back({figuresRect, [&](QPainter &p) { paintFigures(p, figuresRect, source, options); }});
        if (source.layers) {
            for (ImageSource::Layer &layer : source.layers(target))
                layers.push_back(std::move(layer));
        } else {
            layers.push_back({target, [&](QPainter &p) { source.paint(p, target); }});
        }
        out += "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
        out +=
            "<svg width=\"" + QByteArray::number(size.width()) + "\" height=\"" + QByteArray::number(size.height())
            + "\" viewBox=\"0 0 " + QByteArray::number(size.width()) + " " + QByteArray::number(size.height())
            + "\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\">\n";
        out += "<title>" + escaped(source.title) + "</title>\n<desc>" + escaped(source.description) + "</desc>\n";
        if (!options.transparent && source.background.isValid())
            out += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"" + source.background.name().toLatin1()
                   + "\"/>\n";
        for (std::size_t i = 0; i < layers.size(); ++i) {
            const QRect clip = layers[i].clip;
            if (clip.isEmpty())
                continue;
            bool ok = false;
            const QByteArray document = layerDocument(size, scale, layers[i].paint, &ok);
            if (!ok)
                return fail(error, QStringLiteral("%1: the SVG could not be drawn").arg(path));
            // The nested viewport sits at the clip rectangle and shows the same coordinates there.
            const auto n = [&](double v) { return QByteArray::number(v, 'g', 10); };
            const double x = clip.x() * scale, y = clip.y() * scale, w = clip.width() * scale,
                         h = clip.height() * scale;
            out += "<svg class=\"clip\" x=\"" + n(x) + "\" y=\"" + n(y) + "\" width=\"" + n(w) + "\" height=\"" + n(h)
                   + "\" viewBox=\"" + n(x) + " " + n(y) + " " + n(w) + " " + n(h) + "\" overflow=\"hidden\">\n";
            out += svgBody(document, int(i));
            out += "</svg>\n";
        }
        out += "</svg>\n";
    }
    try {
        engine::writeFileAtomically(path.toStdString(), std::string_view(out.constData(), std::size_t(out.size())));
    } catch (const engine::Error &e) {
        return fail(error, QString::fromStdString(e.what()));
    }
    return true;
}

bool exportWidgetImage(QWidget *widget, const QString &path, QSize size, QString *error)
{
    ImageOptions options;
    options.scale = 1;
    return exportWidgetImage(widget, path, size, options, error);
}

bool exportWidgetImage(QWidget *widget, const QString &path, QSize size, const ImageOptions &options, QString *error)
{
    if (!size.isValid() || size.isEmpty())
        size = widget->size();
    const QSize oldSize = widget->size();
    const double scale = imageScale(options, size);
    const int width = int(std::floor(size.width() / scale));
    const QSize logical(width,
                        int(std::floor(size.height() / scale)) - titleHeight(options) - figuresHeight(options, width));
    widget->resize(logical);
    ImageSource source;
    source.title = options.title.isEmpty() ? widget->windowTitle() : options.title;
    source.background = widget->palette().window().color();
    source.text = widget->palette().windowText().color();
    // Transparent: the widget's own window background left out (its children keep theirs).
    const QWidget::RenderFlags flags = options.transparent ? QWidget::RenderFlags(QWidget::DrawChildren)
                                                           : QWidget::DrawWindowBackground | QWidget::DrawChildren;
    source.paint = [widget, flags](QPainter &painter, const QRect &target) {
        if (painter.paintEngine() && painter.paintEngine()->type() == QPaintEngine::Raster) {
            // A PNG: rendered into an image of its own at the image's resolution, as grab() renders, and
            // copied pixel for pixel. Each widget then paints under the clip Qt gives it; through a shared
            // painter a child that sets its own clip (the timeline does) replaced it, and the stacked
            // timelines below a scroll area's viewport were drawn over the table under it.
            const QTransform device = painter.deviceTransform();
            const QRect pixels = device.mapRect(QRectF(target)).toAlignedRect();
            QImage picture(pixels.size(), QImage::Format_ARGB32_Premultiplied);
            picture.setDevicePixelRatio(device.m11());
            picture.fill(Qt::transparent);
            widget->render(&picture, QPoint(), QRegion(), flags);
            picture.setDevicePixelRatio(1);
            painter.save();
            painter.resetTransform();
            painter.drawImage(pixels.topLeft(), picture);
            painter.restore();
            return;
        }
        widget->render(&painter, target.topLeft(), QRegion(), flags);
    };
    // SVG keeps no clip, and a scroll area's content reaches beyond its viewport (the stacked timelines
    // below it, over the table): each viewport is a layer clipped to itself, and the rest of the widget,
    // rendered without them, one layer under them.
    source.layers = [widget, flags](const QRect &target) {
        // The outermost viewports: one inside another is drawn, and clipped, with it.
        std::vector<QWidget *> all;
        for (QAbstractScrollArea *area : widget->findChildren<QAbstractScrollArea *>())
            if (QWidget *viewport = area->viewport(); viewport && viewport->isVisibleTo(widget))
                all.push_back(viewport);
        std::vector<QWidget *> viewports;
        for (QWidget *viewport : all)
            if (std::none_of(all.begin(), all.end(),
                             [&](const QWidget *outer) { return outer != viewport && outer->isAncestorOf(viewport); }))
                viewports.push_back(viewport);
        QRegion rest(widget->rect());
        std::vector<QRect> clips;
        for (QWidget *viewport : viewports) {
            const QRect area(viewport->mapTo(widget, QPoint(0, 0)), viewport->size());
            rest -= area;
            clips.push_back(area.translated(target.topLeft()).intersected(target));
        }
        std::vector<ImageSource::Layer> layers;
        layers.push_back({target, [widget, target, rest, flags](QPainter &p) {
                              widget->render(&p, target.topLeft(), rest, flags);
                          }});
        for (std::size_t i = 0; i < viewports.size(); ++i) {
            QWidget *viewport = viewports[i];
            const QPoint at = viewport->mapTo(widget, QPoint(0, 0)) + target.topLeft();
            layers.push_back(
                {clips[i], [viewport, at, flags](QPainter &p) { viewport->render(&p, at, QRegion(), flags); }});
        }
        return layers;
    };
    const bool ok = exportImage(path, size, source, options, error);
    widget->resize(oldSize);
    return ok;
}

} // namespace streamscope::ui
