// StackedTimelines: the variants of a comparison as timelines stacked on one time scale. Each
// variant shows its median repetition, labelled with the variant's label and median makespan; every
// timeline's extent is the longest variant's, and zooming or panning one moves all of them (their
// ZoomControl windows mirror each other), so equal lengths on screen are equal times.
#pragma once

#include <QString>
#include <QWidget>

#include <memory>
#include <vector>

#include "engine/model/trace.h"

class QLabel;
class QVBoxLayout;

namespace streamscope::ui {

class TimelineView;
class ZoomControl;

class StackedTimelines : public QWidget {
    Q_OBJECT

public:
    struct Entry {
        QString label; // shown above the timeline
        std::shared_ptr<const engine::Trace> trace;
        int repetition = 0; // the repetition shown (the median one)
        QString title; // compact rows (presentation mode): above the lanes, the variant's settings (else label)
        QString subtitle; // and under it its makespan
    };

    explicit StackedTimelines(QWidget *parent = nullptr);
    ~StackedTimelines() override;

    void setEntries(std::vector<Entry> entries);
    int count() const { return int(m_views.size()); }
    TimelineView *view(int i) const { return m_views.at(std::size_t(i)); }
    QLabel *label(int i) const { return m_labels.at(std::size_t(i)); }
    // The common extent: the longest shown repetition, in ns.
    qint64 extentNs() const { return m_extentNs; }
    // The one zoom every timeline follows (one time scale: a shorter variant ends before the right edge).
    ZoomControl *zoom() const { return m_zoom; }

    // Shows [start, end) ns (from each repetition's start) in every timeline.
    void setWindow(qint64 startNs, qint64 endNs);
    void fitAll();
    // Presentation mode and dark palette for every timeline. Each keeps at most its natural height
    // (its lanes and legend in that mode) and at least minHeight, or its natural height if smaller.
    // In presentation mode every variant fits without scrolling: each is one compact row (a title band
    // with its settings and makespan over its labelled host threads and streams, or its streams alone
    // where there are many, or its copy and compute counts where there are many variants; see the .cpp),
    // sharing the height, with one ruler above the first and one legend below the last.
    void setViewModes(bool presentation, bool dark, int minHeight);
    bool compact() const { return m_compact; }

    // Writes the stacked timelines to .png or .svg (by suffix) at size.
    bool exportImage(const QString &path, QSize size, QString *error = nullptr);

private:
    QVBoxLayout *m_layout = nullptr;
    std::vector<TimelineView *> m_views;
    std::vector<QLabel *> m_labels;
    std::vector<QWidget *> m_rows;
    std::vector<std::pair<QString, QString>> m_titles; // per row: title, subtitle (compact rows)
    bool m_compact = false;
    qint64 m_extentNs = 0;
    ZoomControl *m_zoom = nullptr; // child QObject, shared by every view
};

} // namespace streamscope::ui
