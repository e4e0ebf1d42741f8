// exportImage and exportWidgetImage: see image_export.h.
#include "ui/common/image_export.h"

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace streamscope::ui {

namespace {
bool fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
    return false;
}
} // namespace

bool exportImage(const QString &path, QSize size, const ImageSource &source, QString *error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg"))
        return fail(
            error,
            QStringLiteral("%1: unknown image format '%2' (the name must end in .png or .svg)").arg(path, suffix));
    if (!size.isValid() || size.isEmpty())
        return fail(error,
                    QStringLiteral("%1: an empty image size (%2x%3)").arg(path).arg(size.width()).arg(size.height()));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(error, QStringLiteral("%1: cannot be written: %2").arg(path, file.errorString()));
    const QRect target(QPoint(0, 0), size);
    if (suffix == QLatin1String("png")) {
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        image.fill(source.background.isValid() ? source.background : QColor(Qt::white));
        {
            QPainter painter(&image);
            source.paint(painter, target);
        }
        if (!image.save(&file, "PNG"))
            return fail(error, QStringLiteral("%1: the PNG could not be written: %2").arg(path, file.errorString()));
    } else {
        QSvgGenerator generator;
        generator.setOutputDevice(&file);
        generator.setSize(size);
        generator.setViewBox(target);
        generator.setTitle(source.title);
        generator.setDescription(source.description);
        QPainter painter;
        if (!painter.begin(&generator))
            return fail(error, QStringLiteral("%1: the SVG could not be started").arg(path));
        source.paint(painter, target);
        if (!painter.end())
            return fail(error, QStringLiteral("%1: the SVG could not be finished").arg(path));
    }
    if (!file.commit())
        return fail(error, QStringLiteral("%1: cannot be written: %2").arg(path, file.errorString()));
    return true;
}

bool exportWidgetImage(QWidget *widget, const QString &path, QSize size, QString *error)
{
    if (!size.isValid() || size.isEmpty())
        size = widget->size();
    const QSize oldSize = widget->size();
    widget->resize(size);
    ImageSource source;
    source.title = widget->windowTitle();
    source.background = widget->palette().window().color();
    source.paint = [widget](QPainter &painter, const QRect &) { widget->render(&painter); };
    const bool ok = exportImage(path, size, source, error);
    widget->resize(oldSize);
    return ok;
}

} // namespace streamscope::ui
