// PresentationMode: see presentation_mode.h.
#include "app/gui/presentation_mode.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QScreen>
#include <QSplitter>

#include "app/gui/child_windows.h"
#include "app/gui/lesson_pane.h"
#include "app/gui/message_bars.h"
#include "ui/panels/summary_panel.h"
#include "ui/timeline/timeline_view.h"

namespace streamscope::gui {

bool PresentationMode::set(bool on)
{
    if (on == m_on)
        return false;
    m_on = on;
    m_parts.timeline->setPresentationMode(on);
    m_parts.children->setPresentationMode(on);
    if (on)
        enter();
    else
        leave();
    return true;
}

QByteArray PresentationMode::layoutToKeep() const
{
    return m_on ? m_stateBefore : m_parts.window->saveState();
}

void PresentationMode::enter()
{
    // Only what an audience needs: the timeline, the explanation and a strip of key figures, in large
    // type, on the whole screen the window is on.
    QMainWindow *window = m_parts.window;
    m_stateBefore = window->saveState();
    m_fontBefore = window->font();
    m_geometryBefore = window->saveGeometry();
    QFont large = window->font();
    large.setPointSizeF(large.pointSizeF() * 1.35);
    window->setFont(large);
    QFont explanation = large;
    explanation.setPointSizeF(large.pointSizeF() * 1.1);
    m_parts.lessonPane->setTextFont(explanation);
    for (const char *name : {"lessonsDock", "workloadDock", "detailsDock", "opsDock", "rangeDock"})
        if (auto *dock = window->findChild<QDockWidget *>(QLatin1String(name)))
            dock->hide();
    ui::SummaryPanel *summary = m_parts.summary;
    summary->setCompact(true);
    // The strip takes at most three lines; the timeline gets the rest of the height.
    summary->setMaximumHeight(QFontMetrics(summary->font()).lineSpacing() * 3 + 16);
    if (auto *summaryDock = window->findChild<QDockWidget *>(QStringLiteral("summaryDock")))
        summaryDock->show();
    // The banner speaks to the user at the desk ("pick a lesson on the left", with the lessons hidden).
    m_parts.messages->setBannerSuppressed(true);
    if (window->isVisible())
        window->setWindowState(window->windowState() | Qt::WindowFullScreen);
    else
        window->setGeometry(window->screen() ? window->screen()->geometry() : window->geometry());
    // The explanation gets a third of the width: large type needs the room.
    if (m_parts.lessonPane->isVisible()) {
        const int total = qMax(m_parts.centralSplit->width(), 800);
        m_parts.centralSplit->setSizes({total * 2 / 3, total / 3});
    }
}

void PresentationMode::leave()
{
    QMainWindow *window = m_parts.window;
    window->setWindowState(window->windowState() & ~Qt::WindowFullScreen);
    if (!m_geometryBefore.isEmpty())
        window->restoreGeometry(m_geometryBefore);
    window->setFont(m_fontBefore);
    m_parts.lessonPane->resetTextFont(window->font());
    m_parts.summary->setCompact(false);
    m_parts.summary->setMaximumHeight(QWIDGETSIZE_MAX);
    window->restoreState(m_stateBefore);
    m_parts.messages->setBannerSuppressed(false);
    const int total = qMax(m_parts.centralSplit->width(), 800);
    m_parts.centralSplit->setSizes({total * 3 / 4, total / 4});
}

} // namespace streamscope::gui
