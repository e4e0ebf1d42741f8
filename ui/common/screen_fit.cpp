// Fitting windows to their screen: see screen_fit.h.
#include "ui/common/screen_fit.h"

#include <QEvent>
#include <QGuiApplication>
#include <QPointer>
#include <QScreen>
#include <QTimer>
#include <QWidget>

#include <algorithm>

namespace streamscope::ui {

namespace {

QScreen *screenOf(const QWidget *window)
{
    QScreen *screen = window->screen();
    return screen ? screen : QGuiApplication::primaryScreen();
}

bool leftToWindowManager(const QWidget *window)
{
    return window->windowState() & (Qt::WindowFullScreen | Qt::WindowMaximized | Qt::WindowMinimized);
}

// Watches one window: a fit when it is shown (again once the window manager has framed it), and one
// whenever it grows past its screen.
class ScreenKeeper : public QObject {
public:
    explicit ScreenKeeper(QWidget *window) : QObject(window), m_window(window) { }

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == m_window && m_window->isWindow()) {
            if (event->type() == QEvent::Show) {
                // Now, before the window is mapped (a window moved once it is framed can leave its title
                // bar above the screen), and again once the window manager has framed it.
                fitToScreen(m_window);
                fitSoon();
            } else if (event->type() == QEvent::Resize && m_window->isVisible() && tooLarge())
                fitSoon();
        }
        return QObject::eventFilter(watched, event);
    }

private:
    bool tooLarge() const
    {
        if (leftToWindowManager(m_window))
            return false;
        const QSize room = screenOf(m_window)->availableGeometry().size().shrunkBy(windowFrameMargins(m_window));
        return m_window->width() > room.width() || m_window->height() > room.height();
    }

    // Queued: a resize inside a resize event is lost, and the frame comes from the window manager later.
    void fitSoon()
    {
        if (m_pending)
            return;
        m_pending = true;
        QTimer::singleShot(0, this, [this] {
            m_pending = false;
            if (m_window && m_window->isVisible())
                fitToScreen(m_window);
        });
    }

    QPointer<QWidget> m_window;
    bool m_pending = false;
};

} // namespace

QMargins windowFrameMargins(const QWidget *window)
{
    if (window->isVisible()) {
        const QRect inner = window->geometry();
        const QRect outer = window->frameGeometry();
        const QMargins frame(inner.left() - outer.left(), inner.top() - outer.top(), outer.right() - inner.right(),
                             outer.bottom() - inner.bottom());
        if (!frame.isNull())
            return frame;
    }
    return kTypicalWindowFrame;
}

void fitToScreen(QWidget *window, QSize wanted)
{
    QScreen *screen = screenOf(window);
    if (!screen || leftToWindowManager(window))
        return;
    const QRect available = screen->availableGeometry();
    const QMargins frame = windowFrameMargins(window);
    const QSize room = available.size().shrunkBy(frame);
    if (wanted.isEmpty())
        wanted = window->size();
    const QSize size(
        std::clamp(wanted.width(), window->minimumWidth(), std::max(window->minimumWidth(), room.width())),
        std::clamp(wanted.height(), window->minimumHeight(), std::max(window->minimumHeight(), room.height())));
    if (size != window->size())
        window->resize(size);
    // The frame inside the screen: its top-left where the whole frame fits, else at the screen's top-left.
    QRect outer(window->pos(), window->size().grownBy(frame));
    if (!available.contains(outer)) {
        outer.moveLeft(std::clamp(outer.left(), available.left(),
                                  std::max(available.left(), available.right() - outer.width() + 1)));
        outer.moveTop(std::clamp(outer.top(), available.top(),
                                 std::max(available.top(), available.bottom() - outer.height() + 1)));
        window->move(outer.topLeft());
    }
}

void keepOnScreen(QWidget *window)
{
    if (window->findChild<QObject *>(QStringLiteral("screenKeeper"), Qt::FindDirectChildrenOnly))
        return; // kept already
    window->installEventFilter(new ScreenKeeper(window));
}

} // namespace streamscope::ui
