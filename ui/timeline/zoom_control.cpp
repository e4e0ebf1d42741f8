// ZoomControl: clamping rules that keep extent ⊇ window ⊇ selection, and their signals.
#include "ui/timeline/zoom_control.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace streamscope::ui {

ZoomControl::ZoomControl(QObject *parent) : QObject(parent)
{
    m_settle.setSingleShot(true);
    m_settle.setInterval(kSettleMs);
    connect(&m_settle, &QTimer::timeout, this, &ZoomControl::commitHistory);
}

bool ZoomControl::canGoBack() const
{
    const bool pending = m_settle.isActive() && m_historyIndex >= 0
                         && m_history[std::size_t(m_historyIndex)] != std::make_pair(m_windowStart, m_windowEnd);
    return m_historyIndex > 0 || (pending && m_historyIndex >= 0);
}

bool ZoomControl::canGoForward() const
{
    return !m_settle.isActive() && m_historyIndex >= 0 && m_historyIndex + 1 < int(m_history.size());
}

void ZoomControl::commitHistory()
{
    m_settle.stop();
    const std::pair<qint64, qint64> now{m_windowStart, m_windowEnd};
    if (m_historyIndex >= 0 && m_history[std::size_t(m_historyIndex)] == now)
        return;
    // A new window after going back drops the windows ahead, as a browser does.
    m_history.resize(std::size_t(m_historyIndex + 1));
    m_history.push_back(now);
    if (int(m_history.size()) > kHistorySize)
        m_history.erase(m_history.begin());
    m_historyIndex = int(m_history.size()) - 1;
    emit historyChanged();
}

void ZoomControl::goTo(int index)
{
    m_historyIndex = index;
    m_navigating = true;
    applyWindow(m_history[std::size_t(index)].first, m_history[std::size_t(index)].second);
    m_navigating = false;
    emit historyChanged();
}

void ZoomControl::back()
{
    commitHistory(); // a window not yet settled is where forward() comes back to
    if (m_historyIndex > 0)
        goTo(m_historyIndex - 1);
}

void ZoomControl::forward()
{
    commitHistory();
    if (m_historyIndex + 1 < int(m_history.size()))
        goTo(m_historyIndex + 1);
}

void ZoomControl::setExtent(qint64 start, qint64 end)
{
    if (end < start)
        std::swap(start, end);
    if (start == m_extentStart && end == m_extentEnd)
        return;
    m_extentStart = start;
    m_extentEnd = end;
    emit extentChanged(start, end);
    // A window that no longer fits (a new trace) starts again from everything.
    if (m_windowStart < start || m_windowEnd > end || m_windowEnd <= m_windowStart)
        applyWindow(start, end);
    else
        applyWindow(m_windowStart, m_windowEnd);
    applySelection(m_selectionStart, m_selectionEnd);
    // Another extent, another history: the windows of the last one mean nothing here.
    m_settle.stop();
    m_history.assign(1, {m_windowStart, m_windowEnd});
    m_historyIndex = 0;
    emit historyChanged();
}

void ZoomControl::setWindow(qint64 start, qint64 end)
{
    if (end < start)
        std::swap(start, end);
    applyWindow(start, end);
}

void ZoomControl::applyWindow(qint64 start, qint64 end)
{
    const qint64 extent = m_extentEnd - m_extentStart;
    qint64 width = std::min(std::max(end - start, kMinWindowNs), extent);
    if (width <= 0) {
        start = m_extentStart;
        width = 0;
    } else if (end - start < width) {
        // Widen around the centre of the asked range.
        const qint64 centre = start + (end - start) / 2;
        start = centre - width / 2;
    }
    start = std::clamp(start, m_extentStart, m_extentEnd - width);
    end = start + width;
    if (start == m_windowStart && end == m_windowEnd)
        return;
    m_windowStart = start;
    m_windowEnd = end;
    emit windowChanged(start, end);
    if (!m_navigating)
        m_settle.start(); // remembered once it stays put
}

void ZoomControl::zoomAt(qint64 anchorNs, double factor)
{
    if (!(factor > 0) || !std::isfinite(factor))
        return;
    const double duration = double(windowDuration());
    const double newDuration = duration / factor;
    const double fraction = duration > 0 ? double(anchorNs - m_windowStart) / duration : 0.5;
    const double newStart = double(anchorNs) - fraction * newDuration;
    const qint64 start = qint64(std::llround(newStart));
    qint64 width = qint64(std::llround(newDuration));
    // Zooming in further at the minimum width, or out at the full extent, must not drift the window.
    const qint64 extent = m_extentEnd - m_extentStart;
    if (width < kMinWindowNs && windowDuration() <= kMinWindowNs)
        return;
    if (width >= extent) {
        applyWindow(m_extentStart, m_extentEnd);
        return;
    }
    applyWindow(start, start + width);
}

void ZoomControl::pan(qint64 deltaNs)
{
    applyWindow(m_windowStart + deltaNs, m_windowEnd + deltaNs);
}

void ZoomControl::fitAll()
{
    applyWindow(m_extentStart, m_extentEnd);
}

void ZoomControl::setSelection(qint64 start, qint64 end)
{
    if (end < start)
        std::swap(start, end);
    applySelection(start, end);
}

void ZoomControl::clearSelection()
{
    applySelection(0, 0);
}

void ZoomControl::applySelection(qint64 start, qint64 end)
{
    start = std::clamp(start, m_extentStart, m_extentEnd);
    end = std::clamp(end, m_extentStart, m_extentEnd);
    if (end <= start)
        start = end = 0; // one canonical "no selection"
    if (start == m_selectionStart && end == m_selectionEnd)
        return;
    m_selectionStart = start;
    m_selectionEnd = end;
    emit selectionChanged(start, end);
}

} // namespace streamscope::ui
