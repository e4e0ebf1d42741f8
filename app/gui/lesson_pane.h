// LessonPane: "What to look for" beside the timeline: the explanation of what is shown (the trace's own
// workload description, else its lesson's, else the editor's workload's) under its title, and the key
// figure, the one thing to look at ("Look at: ..."), which the timeline outlines in the same colour. It
// follows the document, the editor and the lessons by itself; hidden while it has nothing to say.
#pragma once

#include <QWidget>

#include "engine/workload/workload.h"

class QLabel;
class QTextBrowser;

namespace streamscope::ui {
class LessonsPanel;
class TimelineView;
class TraceDocument;
class WorkloadEditor;
} // namespace streamscope::ui

namespace streamscope::gui {

class LessonPane : public QWidget {
    Q_OBJECT
public:
    // The pane goes beside the timeline in a QSplitter, which gives it its width when it shows.
    LessonPane(ui::TraceDocument *document, ui::TimelineView *timeline, QWidget *parent = nullptr);
    // Where the explanation comes from when the trace has none: its lesson, the editor's workload.
    void follow(ui::WorkloadEditor *editor, ui::LessonsPanel *lessons);

    // Shows what is shown now, and the key figure in the timeline.
    void refresh();
    // The key figure of what is shown: the trace's own workload's, else its lesson's (by file, then by
    // name), else the editor's workload's.
    engine::KeyFigure currentKeyFigure() const;
    // Presentation mode: the text, the key figure and the title in `font` (a larger one)...
    void setTextFont(const QFont &font);
    // ... and after it, the window's font again (not one of their own).
    void resetTextFont(const QFont &windowFont);

private:
    ui::TraceDocument *m_document;
    ui::TimelineView *m_timeline;
    ui::WorkloadEditor *m_editor = nullptr;
    ui::LessonsPanel *m_lessons = nullptr;
    QLabel *m_title;
    QLabel *m_keyFigure;
    QTextBrowser *m_text;
};

} // namespace streamscope::gui
