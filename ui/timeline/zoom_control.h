// ZoomControl: the timeline's zoom state as an object, not widget state (Qt Creator's TimelineZoomControl,
// hotspot's FilterAndZoomStack). It keeps extent ⊇ visible window ⊇ selection, in nanoseconds relative to
// the repetition start, and signals each change so the view, the ruler and other panels follow.
#pragma once

#include <QObject>
#include <QTimer>

#include <utility>
#include <vector>

namespace streamscope::ui {

class ZoomControl : public QObject {
    Q_OBJECT

public:
    // Narrower than this the ruler has nothing left to say (1 ns ticks already at ~20 px each).
    static constexpr qint64 kMinWindowNs = 20;

    explicit ZoomControl(QObject *parent = nullptr);

    qint64 extentStart() const { return m_extentStart; }
    qint64 extentEnd() const { return m_extentEnd; }
    qint64 windowStart() const { return m_windowStart; }
    qint64 windowEnd() const { return m_windowEnd; }
    qint64 windowDuration() const { return m_windowEnd - m_windowStart; }
    bool hasSelection() const { return m_selectionEnd > m_selectionStart; }
    qint64 selectionStart() const { return m_selectionStart; }
    qint64 selectionEnd() const { return m_selectionEnd; }
    qint64 selectionDuration() const { return m_selectionEnd - m_selectionStart; }

    // Sets what can be shown (end < start is swapped); the window and selection are clamped into it and
    // the window is reset to the whole extent when it no longer fits.
    void setExtent(qint64 start, qint64 end);
    // Shows [start, end), clamped into the extent and widened to kMinWindowNs (or the extent if narrower).
    void setWindow(qint64 start, qint64 end);
    // Zooms by factor (> 1 zooms in) keeping anchorNs at the same place on screen.
    void zoomAt(qint64 anchorNs, double factor);
    // Moves the window by deltaNs (clamped so it stays inside the extent, keeping its width).
    void pan(qint64 deltaNs);
    // Shows the whole extent.
    void fitAll();
    // Selects [start, end) (ordered and clamped into the extent); an empty range clears the selection.
    void setSelection(qint64 start, qint64 end);
    void clearSelection();

    // Zoom history, as a browser's: every window the user settled on (kept still for kSettleMs, or
    // left by back/forward) is remembered; back() and forward() return to them. A new extent (another
    // trace) starts a new history. At most kHistorySize windows.
    static constexpr int kSettleMs = 400;
    static constexpr int kHistorySize = 100;
    bool canGoBack() const;
    bool canGoForward() const;
    void back();
    void forward();
    // Remembers the window now, without waiting for it to settle.
    void commitHistory();
    int historySize() const { return int(m_history.size()); }

signals:
    void extentChanged(qint64 start, qint64 end);
    void windowChanged(qint64 start, qint64 end);
    void selectionChanged(qint64 start, qint64 end); // start == end: cleared
    void historyChanged();

private:
    void applyWindow(qint64 start, qint64 end);
    void applySelection(qint64 start, qint64 end);

    qint64 m_extentStart = 0;
    qint64 m_extentEnd = 0;
    qint64 m_windowStart = 0;
    qint64 m_windowEnd = 0;
    qint64 m_selectionStart = 0;
    qint64 m_selectionEnd = 0;

    void goTo(int index);
    std::vector<std::pair<qint64, qint64>> m_history;
    int m_historyIndex = -1;
    bool m_navigating = false;
    QTimer m_settle;
};

} // namespace streamscope::ui
