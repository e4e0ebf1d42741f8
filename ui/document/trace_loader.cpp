// TraceLoader: see trace_loader.h.
#include "ui/document/trace_loader.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QMetaObject>
#include <QThread>

#include <algorithm>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "ui/common/format_units.h"

namespace streamscope::ui {

namespace {

void releaseFreedMemory()
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

} // namespace

// One load: what the thread reads and writes, shared with the loader.
struct TraceLoader::Job {
    int id = 0;
    QString path;
    std::atomic<bool> cancel{false};
    std::atomic<bool> done{false};
    // Written by the thread before `done`, read on the GUI thread after it.
    engine::FileKind kind = engine::FileKind::Unknown;
    std::shared_ptr<const engine::Trace> trace;
    std::shared_ptr<TraceAnalysis> analysis;
    LaneBuilder lanes; // the loader's when the load started
    QString error;
    bool cancelled = false;
    int lastPercent = -1; // the thread's own

    // Progress waiting for the GUI thread: at most one post is in its queue at a time, and it shows the
    // newest figure when it runs. (A post per percent piles up while the GUI thread is busy, then each
    // repaints the progress bar in turn: tens of milliseconds held at once on a large file.)
    std::mutex progressMutex;
    int pendingPercent = 0;
    QString pendingStage;
    bool progressPosted = false;
};

// How a load's thread reaches the loader: under the mutex, the loader is either alive (and stays so until
// the post is made: its destructor takes the mutex first) or null. Posted calls to a loader destroyed
// later are dropped by Qt with the loader's pending events.
struct TraceLoader::Link {
    std::mutex mutex;
    TraceLoader *loader = nullptr;

    template <typename Fn> void post(Fn fn)
    {
        const std::lock_guard<std::mutex> lock(mutex);
        if (loader)
            QMetaObject::invokeMethod(
                loader, [self = loader, fn = std::move(fn)] { fn(self); }, Qt::QueuedConnection);
    }
};

TraceLoader::TraceLoader(QObject *parent) : QObject(parent), m_link(std::make_shared<Link>())
{
    m_link->loader = this;
}

TraceLoader::~TraceLoader()
{
    // Cancelled loads stop at their next check; the readers of native and SQLite files check only between
    // stages, so a window closed during a long load waits at most a few seconds, then lets the thread end
    // on its own (its results go nowhere: the link it posts through is cut first).
    {
        const std::lock_guard<std::mutex> lock(m_link->mutex);
        m_link->loader = nullptr;
    }
    for (auto &[job, thread] : m_threads)
        job->cancel = true;
    QElapsedTimer waited;
    waited.start();
    for (auto &[job, thread] : m_threads) {
        while (!job->done && waited.elapsed() < 3000)
            QThread::msleep(5);
        if (job->done)
            thread.join();
        else
            thread.detach();
    }
}

int TraceLoader::open(const QString &path)
{
    cancel();
    reapThreads();
    auto job = std::make_shared<Job>();
    job->id = m_nextId++;
    job->path = path;
    job->lanes = m_laneBuilder;
    m_job = job;
    m_current = job->id;
    m_currentPath = path;
    emit loadingChanged(true);
    emit progressChanged(job->id, 0, tr("reading"));
    std::thread thread([job, link = m_link] {
        engine::LoadControl control;
        control.cancel = &job->cancel;
        control.progress = [job, link](std::string_view stage, double fraction) {
            const int percent = std::clamp(int(fraction * 100), 0, 100);
            if (percent == job->lastPercent)
                return;
            job->lastPercent = percent;
            const std::lock_guard<std::mutex> lock(job->progressMutex);
            job->pendingPercent = percent;
            job->pendingStage = qs(stage);
            if (job->progressPosted)
                return;
            job->progressPosted = true;
            link->post([job](TraceLoader *self) {
                int newest = 0;
                QString text;
                {
                    const std::lock_guard<std::mutex> lock(job->progressMutex);
                    job->progressPosted = false;
                    newest = job->pendingPercent;
                    text = job->pendingStage;
                }
                if (self->m_current == job->id)
                    emit self->progressChanged(job->id, newest, text);
            });
        };
        try {
            engine::OpenedFile opened = engine::openFile(job->path.toStdString(), control);
            job->kind = opened.kind;
            if (opened.trace) {
                job->trace = std::make_shared<const engine::Trace>(std::move(*opened.trace));
                releaseFreedMemory(); // the reader's, before the analysis allocates its own
                link->post([id = job->id](TraceLoader *self) {
                    if (self->m_current == id)
                        emit self->progressChanged(id, 100, tr("analysing"));
                });
                job->analysis = std::make_shared<TraceAnalysis>(analyzeTrace(*job->trace, job->lanes, &job->cancel));
            }
        } catch (const engine::Error &e) {
            job->cancelled = e.kind() == engine::ErrorKind::Cancelled;
            job->error = QString::fromUtf8(e.what());
        } catch (const std::exception &e) {
            job->error =
                QCoreApplication::translate("TraceLoader", "unexpected error: %1").arg(QString::fromUtf8(e.what()));
        }
        // What the reader freed (its text, its index, a failed load's all) stays in this thread's malloc
        // arena, which the GUI thread's allocations do not reuse: given back now, it is not counted twice
        // at the window's peak (3M Kineto kernels: 1,225 MB peak without this, 897 MB in one arena).
        releaseFreedMemory();
        job->done = true;
        link->post([job](TraceLoader *self) { self->finish(job); });
    });
    m_threads.emplace_back(job, std::move(thread));
    return job->id;
}

void TraceLoader::cancel()
{
    if (!m_job)
        return;
    const std::shared_ptr<Job> job = std::move(m_job);
    job->cancel = true; // the thread stops at its next check; its result is dropped in finish()
    m_current = 0;
    m_currentPath.clear();
    m_ended.push_back(job->id);
    emit failed(job->id, job->path, tr("cancelled"), true);
    emit loadingChanged(false);
}

void TraceLoader::finish(const std::shared_ptr<Job> &job)
{
    reapThreads();
    if (job != m_job)
        return; // abandoned: cancelled, or replaced by a newer load
    m_job.reset();
    m_current = 0;
    m_currentPath.clear();
    m_ended.push_back(job->id);
    if (m_ended.size() > 64)
        m_ended.erase(m_ended.begin(), m_ended.begin() + 32);
    emit loadingChanged(false);
    if (job->error.isEmpty())
        emit opened(job->id, job->path, job->kind, job->trace, job->analysis);
    else
        emit failed(job->id, job->path, job->error, job->cancelled);
}

void TraceLoader::reapThreads()
{
    for (auto it = m_threads.begin(); it != m_threads.end();) {
        if (it->first->done) {
            it->second.join();
            it = m_threads.erase(it);
        } else {
            ++it;
        }
    }
}

bool TraceLoader::waitFor(int id)
{
    bool ok = false;
    bool ended = std::find(m_ended.begin(), m_ended.end(), id) != m_ended.end();
    if (ended)
        return false; // ended before anyone waited: callers wait right after open(), so this is a cancel
    QEventLoop loop;
    const auto onOpened = connect(this, &TraceLoader::opened, &loop, [&](int done) {
        if (done == id) {
            ok = true;
            loop.quit();
        }
    });
    const auto onFailed = connect(this, &TraceLoader::failed, &loop, [&](int done) {
        if (done == id)
            loop.quit();
    });
    loop.exec(QEventLoop::ExcludeUserInputEvents);
    disconnect(onOpened);
    disconnect(onFailed);
    return ok;
}

} // namespace streamscope::ui
