// ShortcutsOverlay: every key and mouse gesture on one card over the window (`?`, or Help > Keyboard and
// mouse), as Perfetto and Tracy show theirs: the timeline's own keys and gestures, then every menu
// action that has a shortcut, read from the actions themselves so the card never disagrees with the
// menus. Any key or click closes it.
#pragma once

#include <QList>
#include <QString>
#include <QWidget>

#include <utility>
#include <vector>

class QAction;

namespace streamscope::ui {

class ShortcutsOverlay : public QWidget {
    Q_OBJECT
public:
    using Entry = std::pair<QString, QString>; // (keys, what they do)

    explicit ShortcutsOverlay(QWidget *parent);

    // The timeline's keys and gestures (TimelineView).
    static std::vector<Entry> timelineEntries();
    // "Ctrl+F" -> "Find ops…" for each action with a shortcut (menus' '&' markers removed).
    static std::vector<Entry> actionEntries(const QList<QAction *> &actions);

    // Shows the card over the whole parent, listing these actions' shortcuts.
    void showFor(const QList<QAction *> &actions);
    const std::vector<Entry> &entries() const { return m_entries; }

protected:
    void paintEvent(QPaintEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;

private:
    std::vector<Entry> m_entries; // the timeline's, then the actions'
    std::size_t m_timelineCount = 0;
};

} // namespace streamscope::ui
