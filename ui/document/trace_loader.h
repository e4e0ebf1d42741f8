// TraceLoader: opens files on a background thread, so that a large trace (a 35k-op PyTorch trace, a
// million-op recording) never freezes the window. A trace is analysed on the same thread (analyzeTrace:
// summary, metrics, statistics, interference and, given a LaneBuilder, the first lanes), so that showing
// it costs the GUI thread no analysis either. One load at a time: starting another, or cancel(),
// abandons the one under way (its thread stops at its next check, and whatever it still produces is
// dropped, never shown). Progress comes as percent and stage; the result as opened() or failed(), on the
// GUI thread, exactly once per load that was not abandoned. The model is hotspot's background parser.
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "engine/formats/trace_io.h"
#include "ui/document/trace_analysis.h"

namespace streamscope::ui {

class TraceLoader : public QObject {
    Q_OBJECT
public:
    explicit TraceLoader(QObject *parent = nullptr);
    ~TraceLoader() override; // cancels its loads; waits up to 3 s for them, then lets them end unheard

    // Starts opening path (engine::openFile). Returns the load's id; opened/failed carry it.
    int open(const QString &path);
    // How the loads started from now on build the lanes of the trace they read (TimelineView::laneBuilder);
    // none (the default): the analysis comes without lanes.
    void setLaneBuilder(LaneBuilder builder) { m_laneBuilder = std::move(builder); }
    // Abandons the load under way, if any: failed(id, path, "cancelled", true) follows at once.
    void cancel();
    bool isLoading() const { return m_current != 0; }
    QString currentPath() const { return m_currentPath; }
    // Runs the event loop (the window stays responsive) until load `id` has ended; true when it opened.
    bool waitFor(int id);

signals:
    void progressChanged(int id, int percent, const QString &stage);
    // kind: what the file is; trace: set for the trace kinds, with its analysis (computed on the loader's
    // thread; the receiver may move from it: TraceDocument::setTrace takes it whole).
    void opened(int id, const QString &path, engine::FileKind kind, std::shared_ptr<const engine::Trace> trace,
                std::shared_ptr<TraceAnalysis> analysis);
    void failed(int id, const QString &path, const QString &message, bool cancelled);
    void loadingChanged(bool loading);

private:
    struct Job;
    struct Link; // the threads' way back to the loader, cut when it is destroyed
    void finish(const std::shared_ptr<Job> &job);
    void reapThreads();

    LaneBuilder m_laneBuilder;
    int m_nextId = 1;
    int m_current = 0; // 0: none
    QString m_currentPath;
    std::shared_ptr<Job> m_job;
    std::shared_ptr<Link> m_link;
    std::vector<std::pair<std::shared_ptr<Job>, std::thread>> m_threads;
    std::vector<int> m_ended; // ids of loads that have ended (for waitFor), the last few
};

} // namespace streamscope::ui
