// Resource look-up: candidates in order of how specific they are to this executable.
#include "app/gui/resource_paths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace streamscope::gui {

QString resourcesDir()
{
    const QString appDir = QCoreApplication::applicationDirPath();
    QStringList candidates{appDir + QStringLiteral("/../../resources"),
                           appDir + QStringLiteral("/../share/streamscope/resources"),
                           appDir + QStringLiteral("/resources")};
#ifdef STREAMSCOPE_SOURCE_DIR_FALLBACK
    candidates << QStringLiteral(STREAMSCOPE_SOURCE_DIR_FALLBACK "/resources");
#endif
    for (const QString &candidate : candidates) {
        // A folder named resources alone is not enough: it must hold what we look for.
        if (QFileInfo(candidate + QStringLiteral("/workloads")).isDir()
            || QFileInfo(candidate + QStringLiteral("/examples")).isDir())
            return QDir::cleanPath(QFileInfo(candidate).absoluteFilePath());
    }
    return {};
}

QString workloadsDir()
{
    const QString root = resourcesDir();
    return root.isEmpty() ? QString() : root + QStringLiteral("/workloads");
}

QString examplesDir()
{
    const QString root = resourcesDir();
    return root.isEmpty() ? QString() : root + QStringLiteral("/examples");
}

QStringList exampleTraces()
{
    const QString dir = examplesDir();
    if (dir.isEmpty())
        return {};
    QStringList out;
    const QDir folder(dir);
    for (const QString &name : folder.entryList({QStringLiteral("*.sstrace")}, QDir::Files, QDir::Name))
        out << folder.filePath(name);
    return out;
}

} // namespace streamscope::gui
