// FileActions: see file_actions.h.
#include "app/gui/file_actions.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

#include "app/gui/message_bars.h"
#include "app/gui/window_host.h"
#include "engine/formats/native_format.h"
#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "ui/common/image_export.h"
#include "ui/document/trace_document.h"
#include "ui/editor/workload_editor.h"
#include "ui/panels/lessons_panel.h"
#include "ui/run/run_session.h"

namespace streamscope::gui {

namespace {

constexpr int kMaxRecentFiles = 8;
const char *const kRecentKey = "recentFiles";

} // namespace

FileActions::FileActions(WindowHost *host, ui::RunSession *session, MessageBars *messages) :
    QObject(host->hostWindow()), m_host(host), m_session(session), m_messages(messages)
{
    m_discardQuestion = [this] {
        const auto button = QMessageBox::warning(
            m_host->hostWindow(), tr("Unsaved workload"),
            tr("The workload \"%1\" has changes that are not saved.").arg(m_host->workloadEditor()->displayName()),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
        return button == QMessageBox::Save      ? DiscardAnswer::Save
               : button == QMessageBox::Discard ? DiscardAnswer::Discard
                                                : DiscardAnswer::Cancel;
    };
    m_saveInvalidQuestion = [this] {
        const ui::WorkloadEditor *editor = m_host->workloadEditor();
        const auto button = QMessageBox::question(
            m_host->hostWindow(), tr("Save a workload with problems?"),
            tr("The workload \"%1\" has %n problem(s) and will not run until they are fixed. Save it anyway?", nullptr,
               int(editor->issues().size()))
                .arg(editor->displayName()),
            QMessageBox::Save | QMessageBox::Cancel, QMessageBox::Cancel);
        return button == QMessageBox::Save;
    };
}

QStringList FileActions::recentFiles() const
{
    return QSettings().value(QLatin1String(kRecentKey)).toStringList();
}

void FileActions::addRecentFile(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    // Files of a run live in a temporary folder that goes away: not worth remembering.
    if (m_session->ownsFile(absolute))
        return;
    QStringList files = recentFiles();
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecentFiles)
        files.removeLast();
    QSettings().setValue(QLatin1String(kRecentKey), files);
    updateRecentMenu();
}

void FileActions::setRecentMenu(QMenu *menu)
{
    m_recentMenu = menu;
    updateRecentMenu();
}

void FileActions::updateRecentMenu()
{
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (int i = 0; i < files.size(); ++i) {
        const QString path = files[i];
        QAction *action = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()),
                                                  this, [this, path] { m_host->openFileInBackground(path); });
        action->setToolTip(path);
    }
    if (!files.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear the list"), this, [this] {
            QSettings().remove(QLatin1String(kRecentKey));
            updateRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!files.isEmpty());
}

void FileActions::wrote(const QString &path) const
{
    m_host->hostWindow()->statusBar()->showMessage(tr("Wrote %1").arg(path), 8000);
}

void FileActions::openDialog()
{
    // The formats' names and patterns come from the reader registry (engine/formats/trace_io.h).
    const QString path = QFileDialog::getOpenFileName(m_host->hostWindow(), tr("Open a trace or workload"), QString(),
                                                      QString::fromStdString(engine::traceFileDialogFilter(true)));
    if (!path.isEmpty())
        m_host->openFileInBackground(path);
}

void FileActions::openComparisonDialog()
{
    const QString path =
        QFileDialog::getOpenFileName(m_host->hostWindow(), tr("Open a comparison"), QString(),
                                     QString::fromStdString(engine::fileDialogFilter(engine::FileKind::Comparison)));
    if (!path.isEmpty())
        m_host->openComparison(path);
}

void FileActions::exportImageDialog()
{
    const ui::TraceDocument *document = m_host->document();
    if (!document->trace())
        return;
    QString selectedFilter;
    QString path = QFileDialog::getSaveFileName(m_host->hostWindow(), tr("Export timeline image"),
                                                QFileInfo(document->name()).completeBaseName() + QStringLiteral(".png"),
                                                tr("PNG image (*.png);;SVG drawing (*.svg)"), &selectedFilter);
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive)
        && !path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
        path += selectedFilter.contains(QLatin1String("svg")) ? QStringLiteral(".svg") : QStringLiteral(".png");
    QString error;
    if (!m_host->exportImage(path, m_host->exportImageSize(), m_host->exportImageOptions(), &error))
        m_messages->showError(tr("Could not export the image"), error);
    else
        wrote(path);
}

void FileActions::saveTraceDialog()
{
    const ui::TraceDocument *document = m_host->document();
    if (!document->trace())
        return;
    QString path =
        QFileDialog::getSaveFileName(m_host->hostWindow(), tr("Save trace"),
                                     QFileInfo(document->name()).completeBaseName() + QStringLiteral(".sstrace"),
                                     tr("StreamScope traces (*.sstrace)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".sstrace")))
        path += QStringLiteral(".sstrace");
    QString error;
    if (!saveTrace(path, &error))
        m_messages->showError(tr("Could not save the trace"), error);
    else
        wrote(path);
}

bool FileActions::saveTrace(const QString &path, QString *error)
{
    ui::TraceDocument *document = m_host->document();
    if (!document->trace()) {
        if (error)
            *error = tr("there is no trace to save");
        return false;
    }
    try {
        engine::writeNativeTrace(*document->trace(), path.toStdString());
    } catch (const engine::Error &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    document->setName(document->name(), path);
    addRecentFile(path);
    return true;
}

bool FileActions::exportTrace(const QString &path, QString *error)
{
    const ui::TraceDocument *document = m_host->document();
    if (!document->trace()) {
        if (error)
            *error = tr("there is no trace to export");
        return false;
    }
    const auto format = engine::exportFormatFromPath(path.toStdString());
    if (!format) {
        if (error)
            *error = tr("%1: unknown export format (use .sstrace, .json for Chrome/Perfetto, or .csv)").arg(path);
        return false;
    }
    try {
        engine::exportTrace(*document->trace(), *format, path.toStdString());
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

void FileActions::exportTraceDialog()
{
    const ui::TraceDocument *document = m_host->document();
    if (!document->trace())
        return;
    const QString native = tr("StreamScope trace (*.sstrace)");
    const QString chrome = tr("Chrome trace JSON for Perfetto / chrome://tracing (*.json)");
    const QString csv = tr("CSV, one row per op (*.csv)");
    QString selectedFilter = chrome;
    QString path = QFileDialog::getSaveFileName(
        m_host->hostWindow(), tr("Export trace"),
        QFileInfo(document->name()).completeBaseName() + QStringLiteral(".json"),
        chrome + QStringLiteral(";;") + native + QStringLiteral(";;") + csv, &selectedFilter);
    if (path.isEmpty())
        return;
    if (!engine::exportFormatFromPath(path.toStdString()))
        path += selectedFilter == native ? QStringLiteral(".sstrace")
                : selectedFilter == csv  ? QStringLiteral(".csv")
                                         : QStringLiteral(".json");
    QString error;
    if (!exportTrace(path, &error))
        m_messages->showError(tr("Could not export the trace"), error);
    else
        wrote(path);
}

bool FileActions::maybeKeepWorkload()
{
    if (!m_host->workloadEditor()->isModified())
        return true;
    switch (m_discardQuestion()) {
    case DiscardAnswer::Save: return saveWorkload();
    case DiscardAnswer::Discard: return true;
    case DiscardAnswer::Cancel: return false;
    }
    return false;
}

bool FileActions::confirmSaveWithProblems()
{
    ui::WorkloadEditor *editor = m_host->workloadEditor();
    editor->commitPendingEdits();
    if (editor->isEmpty() || editor->issues().empty())
        return true;
    return m_saveInvalidQuestion();
}

bool FileActions::saveWorkload()
{
    if (!confirmSaveWithProblems())
        return false;
    ui::WorkloadEditor *editor = m_host->workloadEditor();
    if (editor->filePath().isEmpty())
        return saveWorkloadToChosenPath();
    // Lessons are shipped files: save a copy rather than change what every user starts from.
    if (m_host->lessonsPanel()->lessonForPath(editor->filePath()) >= 0 && !QFileInfo(editor->filePath()).isWritable())
        return saveWorkloadToChosenPath();
    QString error;
    if (!editor->saveFile(editor->filePath(), &error)) {
        m_messages->showError(tr("Could not save the workload"), error);
        return false;
    }
    addRecentFile(editor->filePath());
    emit workloadSaved();
    return true;
}

bool FileActions::saveWorkloadAs()
{
    return confirmSaveWithProblems() && saveWorkloadToChosenPath();
}

bool FileActions::saveWorkloadToChosenPath()
{
    ui::WorkloadEditor *editor = m_host->workloadEditor();
    const QString path = QFileDialog::getSaveFileName(m_host->hostWindow(), tr("Save workload"), editor->displayName(),
                                                      tr("Workloads (*.json)"));
    if (path.isEmpty())
        return false;
    QString error;
    if (!editor->saveFile(path, &error)) {
        m_messages->showError(tr("Could not save the workload"), error);
        return false;
    }
    addRecentFile(path);
    emit workloadSaved();
    return true;
}

} // namespace streamscope::gui
