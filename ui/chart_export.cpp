// exportWidgetImage: see chart_export.h.
#include "ui/chart_export.h"

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QWidget>

namespace streamscope::ui {

bool exportWidgetImage(QWidget *widget, const QString &path, QSize size, QString *error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg")) {
        if (error)
            *error = QStringLiteral("%1: unknown image format '%2' (use .png or .svg)").arg(path, suffix);
        return false;
    }
    if (!size.isValid() || size.isEmpty())
        size = widget->size();
    const QSize oldSize = widget->size();
    widget->resize(size);
    bool ok = false;
    if (suffix == QLatin1String("png")) {
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        image.fill(widget->palette().window().color());
        {
            QPainter painter(&image);
            widget->render(&painter);
        }
        ok = image.save(path, "PNG");
    } else {
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setTitle(widget->windowTitle());
        QPainter painter;
        ok = painter.begin(&generator);
        if (ok) {
            widget->render(&painter);
            ok = painter.end();
        }
    }
    widget->resize(oldSize);
    if (!ok && error)
        *error = QStringLiteral("%1: could not be written").arg(path);
    return ok;
}

} // namespace streamscope::ui
