// FileActions: the main window's files apart from the window: the file dialogs (open, open a comparison,
// save and export the trace, export the timeline image), the recent files, the trace written to disk, and
// the workload's save policy (save or save as, asking first about problems, never dropping unsaved edits
// without asking). Failures go to the window's message bar; what was written to its status bar.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

class QMenu;

namespace streamscope::ui {
class RunSession;
} // namespace streamscope::ui

namespace streamscope::gui {

class MessageBars;
class WindowHost;

class FileActions : public QObject {
    Q_OBJECT
public:
    FileActions(WindowHost *host, ui::RunSession *session, MessageBars *messages);
    // File > Open recent, which this object fills.
    void setRecentMenu(QMenu *menu);

    // The recent files, newest first (QSettings), and a file to put at their head (not a run's own
    // files, which live in a folder that goes away).
    QStringList recentFiles() const;
    void addRecentFile(const QString &path);
    void updateRecentMenu();

    // The dialogs of the File menu.
    void openDialog();
    void openComparisonDialog();
    void exportImageDialog();
    void saveTraceDialog();
    void exportTraceDialog();

    // See MainWindow::saveTrace and MainWindow::exportTrace.
    bool saveTrace(const QString &path, QString *error);
    bool exportTrace(const QString &path, QString *error);

    // The save policy: see MainWindow::maybeKeepWorkload, saveWorkload and saveWorkloadAs.
    enum class DiscardAnswer { Save, Discard, Cancel };
    void setDiscardQuestion(std::function<DiscardAnswer()> question) { m_discardQuestion = std::move(question); }
    void setSaveInvalidQuestion(std::function<bool()> question) { m_saveInvalidQuestion = std::move(question); }
    bool maybeKeepWorkload();
    bool saveWorkload();
    bool saveWorkloadAs();

signals:
    // The editor's workload was written to a file.
    void workloadSaved();

private:
    // Whether to go on saving: true for a workload without problems, else the question's answer.
    bool confirmSaveWithProblems();
    bool saveWorkloadToChosenPath(); // Save as, without asking about problems again
    void wrote(const QString &path) const; // says so in the status bar

    WindowHost *m_host;
    ui::RunSession *m_session;
    MessageBars *m_messages;
    QMenu *m_recentMenu = nullptr;
    std::function<DiscardAnswer()> m_discardQuestion;
    std::function<bool()> m_saveInvalidQuestion;
};

} // namespace streamscope::gui
