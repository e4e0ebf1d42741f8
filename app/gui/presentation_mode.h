// PresentationMode: the main window for an audience. On: the screen the window is on, filled; every
// dock hidden but the summary, which shrinks to a strip of the key figures; larger type, the explanation
// larger still and given a third of the width; the no-GPU banner (it speaks to the user at the desk)
// hidden. Off: the window's geometry, dock layout and font as they were.
#pragma once

#include <QByteArray>
#include <QFont>

class QMainWindow;
class QSplitter;

namespace streamscope::ui {
class SummaryPanel;
class TimelineView;
} // namespace streamscope::ui

namespace streamscope::gui {

class ChildWindows;
class LessonPane;
class MessageBars;

class PresentationMode {
public:
    struct Parts {
        QMainWindow *window;
        ui::TimelineView *timeline;
        ui::SummaryPanel *summary;
        LessonPane *lessonPane;
        QSplitter *centralSplit; // the timeline beside the lesson pane
        MessageBars *messages;
        ChildWindows *children; // comparison windows follow the mode
    };
    explicit PresentationMode(Parts parts) : m_parts(parts) { }

    // Returns false when the mode was already `on` (nothing changed).
    bool set(bool on);
    bool isOn() const { return m_on; }
    // The dock layout to remember (QMainWindow::saveState): the one from before presentation mode while on.
    QByteArray layoutToKeep() const;

private:
    void enter();
    void leave();

    Parts m_parts;
    bool m_on = false;
    QByteArray m_stateBefore;
    QByteArray m_geometryBefore;
    QFont m_fontBefore;
};

} // namespace streamscope::gui
