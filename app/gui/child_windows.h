// ChildWindows: the windows the main window opens beside itself: comparison windows (a .sscompare, a
// finished `compare` run) and Nsight Systems comparisons (a StreamScope trace beside the Nsight export of
// the same run). Each opens on the main window's screen, fitted to it, in its presentation mode and
// palette, and deletes itself when closed.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

class QWidget;

namespace streamscope::ui {
class ComparisonWindow;
class NsightCompareView;
class TraceDocument;
} // namespace streamscope::ui

namespace streamscope::gui {

class MessageBars;

class ChildWindows : public QObject {
    Q_OBJECT
public:
    // owner: the main window (the windows' parent and screen); document: the trace it shows.
    ChildWindows(QWidget *owner, ui::TraceDocument *document, MessageBars *messages);

    // A comparison window on the file, not shown yet; nullptr (and *error) when the file cannot be read.
    ui::ComparisonWindow *newComparison(const QString &path, QString *error);
    // The comparison window opened last (null once closed).
    ui::ComparisonWindow *lastComparison() const;
    // See MainWindow::compareWithNsight.
    ui::NsightCompareView *compareWithNsight(const QString &nsightPath, const QString &ownPath, QString *error);
    // File > Compare with Nsight Systems: asks for the files (the trace of the run too when none is shown).
    void compareWithNsightDialog();

    // Every comparison window, open and to come, follows these.
    void setPresentationMode(bool on);
    void setDarkPalette(bool dark);

private:
    // On the owner's screen (left alone, it opened on the primary one wherever the owner was), fitted to
    // it before it is shown and kept inside it.
    void placeOnOwnerScreen(QWidget *window) const;

    QWidget *m_owner;
    ui::TraceDocument *m_document;
    MessageBars *m_messages;
    bool m_presentation = false;
    bool m_dark = false;
    QPointer<ui::ComparisonWindow> m_lastComparison;
};

} // namespace streamscope::gui
