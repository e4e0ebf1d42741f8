// ChildWindows: see child_windows.h.
#include "app/gui/child_windows.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QScreen>

#include "app/gui/message_bars.h"
#include "engine/formats/trace_io.h"
#include "ui/common/screen_fit.h"
#include "ui/compare/comparison_window.h"
#include "ui/compare/nsight_compare_view.h"
#include "ui/document/trace_document.h"

namespace streamscope::gui {

ChildWindows::ChildWindows(QWidget *owner, ui::TraceDocument *document, MessageBars *messages) :
    QObject(owner), m_owner(owner), m_document(document), m_messages(messages)
{
}

ui::ComparisonWindow *ChildWindows::newComparison(const QString &path, QString *error)
{
    auto *window = new ui::ComparisonWindow(m_owner);
    window->setAttribute(Qt::WA_DeleteOnClose);
    if (!window->openFile(path, error)) {
        delete window;
        return nullptr;
    }
    window->setPresentationMode(m_presentation);
    window->setDarkPalette(m_dark);
    placeOnOwnerScreen(window);
    m_lastComparison = window;
    return window;
}

ui::ComparisonWindow *ChildWindows::lastComparison() const
{
    return m_lastComparison;
}

void ChildWindows::placeOnOwnerScreen(QWidget *window) const
{
    // Where on the screen is the window manager's to decide: a position set before the frame is known
    // put the title bar above the screen under openbox.
    QScreen *mine = m_owner->screen();
    window->setScreen(mine);
    if (mine && !mine->geometry().contains(window->pos()))
        window->move(mine->availableGeometry().topLeft());
    ui::fitToScreen(window);
    ui::keepOnScreen(window);
}

void ChildWindows::setPresentationMode(bool on)
{
    m_presentation = on;
    for (ui::ComparisonWindow *window : m_owner->findChildren<ui::ComparisonWindow *>())
        window->setPresentationMode(on);
}

void ChildWindows::setDarkPalette(bool dark)
{
    m_dark = dark;
    for (ui::ComparisonWindow *window : m_owner->findChildren<ui::ComparisonWindow *>())
        window->setDarkPalette(dark);
}

ui::NsightCompareView *ChildWindows::compareWithNsight(const QString &nsightPath, const QString &ownPath,
                                                       QString *error)
{
    auto *view = new ui::NsightCompareView(m_owner);
    view->setWindowFlag(Qt::Window);
    view->setAttribute(Qt::WA_DeleteOnClose);
    bool ok = false;
    if (ownPath.isEmpty()) {
        std::shared_ptr<const engine::Trace> nsight;
        try {
            nsight = std::make_shared<engine::Trace>(engine::loadTrace(nsightPath.toStdString()));
            ok = true;
        } catch (const std::exception &e) {
            if (error)
                *error = QString::fromUtf8(e.what());
        }
        ok = ok
             && view->setTraces(m_document->trace(), nsight, m_document->name(), QFileInfo(nsightPath).fileName(),
                                error);
    } else {
        ok = view->openFiles(ownPath, nsightPath, error);
    }
    if (!ok) {
        delete view;
        return nullptr;
    }
    view->resize(1600, 1000);
    placeOnOwnerScreen(view);
    view->show();
    return view;
}

void ChildWindows::compareWithNsightDialog()
{
    QString ownPath;
    if (!m_document->trace()) {
        ownPath = QFileDialog::getOpenFileName(
            m_owner, tr("StreamScope trace of the run"), {},
            QString::fromStdString(engine::fileDialogFilter(engine::FileKind::NativeTrace)));
        if (ownPath.isEmpty())
            return;
    }
    const QString nsightPath =
        QFileDialog::getOpenFileName(m_owner, tr("Nsight Systems export of the same run"), {},
                                     QString::fromStdString(engine::fileDialogFilter(engine::FileKind::NsysSqlite)));
    if (nsightPath.isEmpty())
        return;
    QString error;
    if (!compareWithNsight(nsightPath, ownPath, &error))
        m_messages->showError(tr("Could not compare with %1").arg(QFileInfo(nsightPath).fileName()), error);
}

} // namespace streamscope::gui
