// LessonPane: see lesson_pane.h.
#include "app/gui/lesson_pane.h"

#include <QLabel>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "engine/analysis/op_query.h"
#include "engine/model/errors.h"
#include "engine/workload/workload_parser.h"
#include "ui/document/trace_document.h"
#include "ui/editor/workload_editor.h"
#include "ui/editor/workload_tree_model.h"
#include "ui/panels/lessons_panel.h"
#include "ui/timeline/timeline_view.h"

namespace streamscope::gui {

LessonPane::LessonPane(ui::TraceDocument *document, ui::TimelineView *timeline, QWidget *parent) :
    QWidget(parent), m_document(document), m_timeline(timeline), m_title(new QLabel(tr("What to look for"), this)),
    m_keyFigure(new QLabel(this)), m_text(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("explanation"));
    m_title->setObjectName(QStringLiteral("explanationTitle"));
    // Bold through the style sheet, not setFont(), so it still follows presentation mode's larger font.
    m_title->setStyleSheet(QStringLiteral("font-weight: bold"));
    m_title->setWordWrap(true);
    // The lesson's key figure: the one thing to look at, outlined in the timeline in the same colour.
    m_keyFigure->setObjectName(QStringLiteral("keyFigure"));
    m_keyFigure->setWordWrap(true);
    m_keyFigure->setTextFormat(Qt::PlainText);
    m_keyFigure->setStyleSheet(
        QStringLiteral("font-weight: bold; border-left: 4px solid #c8008c; padding: 2px 0px 2px 6px;"));
    m_keyFigure->hide();
    m_text->setObjectName(QStringLiteral("explanationText"));
    m_text->setFrameShape(QFrame::NoFrame);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addWidget(m_keyFigure);
    layout->addWidget(m_text, 1);
}

void LessonPane::follow(ui::WorkloadEditor *editor, ui::LessonsPanel *lessons)
{
    m_editor = editor;
    m_lessons = lessons;
}

void LessonPane::refresh()
{
    // The lesson's explanation beside its timeline: the trace's own workload description first (it says
    // what this very run shows), else the lesson the trace or the editor's workload came from.
    QString title;
    QString text;
    if (m_document->trace() && !m_document->trace()->workloadJson.empty()) {
        try {
            const engine::WorkloadHeader header = engine::readWorkloadHeader(m_document->trace()->workloadJson);
            text = QString::fromStdString(header.description);
            title = QString::fromStdString(header.name);
        } catch (const engine::Error &) {
            // A trace whose embedded workload is broken still opens; the lesson's own text is used below.
        }
    }
    if (text.isEmpty() && !m_document->trace() && m_editor->isValid()) {
        // Nothing run yet: explain the workload about to be run.
        text = QString::fromStdString(m_editor->treeModel()->workload().description);
        title = QString::fromStdString(m_editor->treeModel()->workload().name);
    }
    if (text.isEmpty()) {
        const int lesson = m_lessons->lessonForPath(m_document->trace() ? m_document->path() : m_editor->filePath());
        if (lesson >= 0) {
            text = m_lessons->lessons()[std::size_t(lesson)].description;
            title = m_lessons->lessons()[std::size_t(lesson)].name;
        }
    }
    m_text->setPlainText(text);
    m_title->setText(title.isEmpty() ? tr("What to look for") : tr("What to look for: %1").arg(title));
    const engine::KeyFigure figure = currentKeyFigure();
    m_keyFigure->setText(figure.caption.empty() ? QString()
                                                : tr("Look at: %1").arg(QString::fromStdString(figure.caption)));
    m_keyFigure->setVisible(!figure.caption.empty());
    engine::OpQuery query;
    query.text = figure.name;
    query.lane = figure.lane;
    if (const auto kind = engine::opKindFromString(figure.kind))
        query.kind = *kind;
    m_timeline->setKeyFigure(QString::fromStdString(figure.caption), query);
    const bool wasHidden = isHidden();
    setVisible(!text.isEmpty());
    auto *split = qobject_cast<QSplitter *>(parentWidget());
    if (wasHidden && !text.isEmpty() && split) {
        // A pane shown after the splitter was laid out gets no width of its own: give it a quarter.
        const int total = qMax(split->width(), 800);
        split->setSizes({total * 3 / 4, total / 4});
    }
}

engine::KeyFigure LessonPane::currentKeyFigure() const
{
    const std::shared_ptr<const engine::Trace> shown = m_document->trace();
    std::string name;
    if (shown && !shown->workloadJson.empty()) {
        try {
            const engine::WorkloadHeader header = engine::readWorkloadHeader(shown->workloadJson);
            if (!header.keyFigure.caption.empty())
                return header.keyFigure;
            name = header.name;
        } catch (const engine::Error &) {
            // Broken embedded workload: the lesson's own figure below.
        }
    }
    int lesson = m_lessons->lessonForPath(shown ? m_document->path() : m_editor->filePath());
    if (lesson < 0 && shown)
        for (std::size_t i = 0; i < m_lessons->lessons().size() && lesson < 0; ++i)
            if (!name.empty() && m_lessons->lessons()[i].name == QString::fromStdString(name))
                lesson = int(i);
    if (lesson >= 0)
        return m_lessons->lessons()[std::size_t(lesson)].keyFigure;
    if (!shown && m_editor->isValid())
        return m_editor->treeModel()->workload().keyFigure;
    return {};
}

void LessonPane::setTextFont(const QFont &font)
{
    m_text->setFont(font);
    m_keyFigure->setFont(font);
    // The heading as large as what it heads (its style sheet keeps it from following the window's font).
    m_title->setFont(font);
}

void LessonPane::resetTextFont(const QFont &windowFont)
{
    for (QWidget *w :
         {static_cast<QWidget *>(m_text), static_cast<QWidget *>(m_keyFigure), static_cast<QWidget *>(m_title)}) {
        w->setFont(QFont());
        w->setFont(windowFont);
    }
}

} // namespace streamscope::gui
