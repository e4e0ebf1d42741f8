// LaneTree: grouping, keys and unique labels of a LaneModel's lanes (see lane_tree.h).
#include "ui/timeline/lane_tree.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <QRegularExpression>
#include <QStringList>

namespace streamscope::ui {

namespace {

bool isThreadOrStream(LaneKind kind)
{
    return kind == LaneKind::HostThread || kind == LaneKind::Stream;
}

// Kinds the tree places by what they are; a lane of any other kind hangs under the lane before it.
bool isPlacedKind(LaneKind kind)
{
    switch (kind) {
    case LaneKind::HostThread:
    case LaneKind::Stream:
    case LaneKind::H2DActivity:
    case LaneKind::D2HActivity:
    case LaneKind::D2DActivity:
    case LaneKind::ComputeActivity:
    case LaneKind::Bandwidth:
    case LaneKind::CopyEngine:
    case LaneKind::Migration:
    case LaneKind::PageFaults:
    case LaneKind::PeerLink: return true;
    case LaneKind::HostRanges: // under their thread
    case LaneKind::NvtxProjection: return false; // with their stream
    }
    return false;
}

// The OS process of a host thread, -1 when unknown.
qint64 threadProcess(const engine::Trace &trace, int thread)
{
    return thread >= 0 && std::size_t(thread) < trace.hostThreads.size()
               ? qint64(trace.hostThreads[std::size_t(thread)].processId)
               : -1;
}

// The process whose threads issued most of a stream lane's ops, -1 when none is known.
qint64 streamProcess(const LaneModel &model, const Lane &lane)
{
    std::map<qint64, int> votes;
    for (const qint32 op : lane.intervals.ops)
        ++votes[threadProcess(model.trace(), model.op(op).hostThread)];
    votes.erase(-1);
    if (votes.empty())
        return -1;
    return std::max_element(votes.begin(), votes.end(),
                            [](const auto &a, const auto &b) { return a.second < b.second; })
        ->first;
}

// The processes of the thread and stream lanes, sorted.
std::vector<qint64> processesOf(const std::vector<int> &threads, const std::vector<int> &streams,
                                const std::vector<qint64> &process)
{
    std::vector<qint64> processes;
    for (const std::vector<int> *lanes : {&threads, &streams})
        for (const int i : *lanes)
            if (process[std::size_t(i)] >= 0
                && std::find(processes.begin(), processes.end(), process[std::size_t(i)]) == processes.end())
                processes.push_back(process[std::size_t(i)]);
    std::sort(processes.begin(), processes.end());
    return processes;
}

int streamDevice(const LaneModel &model, int lane)
{
    const engine::Trace &trace = model.trace();
    const int s = model.lane(lane).source;
    return s >= 0 && std::size_t(s) < trace.streams.size() ? trace.streams[std::size_t(s)].device : -1;
}

QString deviceTitle(const engine::Trace &trace, int device)
{
    QString title = QStringLiteral("GPU %1").arg(device);
    for (const auto &d : trace.devices)
        if (d.index == device && !d.name.empty())
            title += QStringLiteral(" · ") + QString::fromStdString(d.name);
    return title;
}

// A process is called by its main thread's name (Linux names a process so), else by its first.
QString processName(const LaneModel &model, const std::vector<int> &threads, const std::vector<qint64> &process,
                    qint64 pid)
{
    const engine::Trace &trace = model.trace();
    QString name;
    for (const int i : threads)
        if (process[std::size_t(i)] == pid) {
            const int t = model.lane(i).source;
            const bool main = t >= 0 && qint64(trace.hostThreads[std::size_t(t)].nativeId) == pid;
            if (name.isEmpty() || main)
                name = model.lane(i).title;
            if (main)
                break;
        }
    // Kineto names a thread "thread 3113936 (python3.8)": the process is python3.8, the number its pid.
    static const QRegularExpression kinetoThread(QStringLiteral("^thread \\d+ \\((.+)\\)$"));
    if (const auto m = kinetoThread.match(name); m.hasMatch())
        name = m.captured(1);
    return name;
}

// Every lane under each group (sub-rows with their anchors), and each lane's innermost group.
void indexGroups(std::vector<LaneGroup> &groups, const std::vector<std::vector<int>> &attached,
                 std::vector<int> &groupOfLane)
{
    std::function<void(int, int)> collect = [&](int g, int into) {
        for (const int lane : groups[std::size_t(g)].lanes) {
            groups[std::size_t(into)].allLanes.push_back(lane);
            for (const int a : attached[std::size_t(lane)])
                groups[std::size_t(into)].allLanes.push_back(a);
        }
        for (const int c : groups[std::size_t(g)].children)
            collect(c, into);
    };
    for (int g = 0; g < int(groups.size()); ++g) {
        collect(g, g);
        for (const int lane : groups[std::size_t(g)].lanes) {
            groupOfLane[std::size_t(lane)] = g;
            for (const int a : attached[std::size_t(lane)])
                groupOfLane[std::size_t(a)] = g;
        }
    }
}

QString derivedKey(const Lane &lane)
{
    // A derived lane of one GPU of several: the same key per device ("h2d@gpu1").
    if (lane.device >= 0 && lane.kind != LaneKind::HostThread && lane.kind != LaneKind::Stream) {
        Lane whole = lane;
        whole.device = -1;
        return derivedKey(whole) + QStringLiteral("@gpu%1").arg(lane.device);
    }
    switch (lane.kind) {
    case LaneKind::H2DActivity: return QStringLiteral("h2d");
    case LaneKind::D2HActivity: return QStringLiteral("d2h");
    case LaneKind::D2DActivity: return QStringLiteral("d2d");
    case LaneKind::ComputeActivity: return QStringLiteral("compute");
    case LaneKind::Bandwidth: return QStringLiteral("bandwidth");
    case LaneKind::CopyEngine: return QStringLiteral("channel:%1").arg(lane.source);
    case LaneKind::Migration: return QStringLiteral("migration");
    case LaneKind::PageFaults: return QStringLiteral("faults");
    case LaneKind::HostThread: return QStringLiteral("thread:%1").arg(lane.source);
    case LaneKind::Stream: return QStringLiteral("stream:%1").arg(lane.source);
    case LaneKind::PeerLink: return QStringLiteral("p2p:%1>%2").arg(lane.peerSrc).arg(lane.peerDst);
    default: break;
    }
    return QStringLiteral("lane%1:%2:%3").arg(int(lane.kind)).arg(lane.source).arg(lane.title);
}

QString plural(qsizetype n, const char *one, const char *many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

// What a process group holds: its threads and streams, and its GPU when its streams are on one.
QString processSubtitle(const LaneModel &model, int threadCount, const std::vector<int> &streams)
{
    QStringList parts{plural(threadCount, "thread", "threads"), plural(qsizetype(streams.size()), "stream", "streams")};
    std::set<int> devices;
    for (const int i : streams)
        devices.insert(streamDevice(model, i));
    if (devices.size() == 1 && *devices.begin() >= 0)
        parts << QStringLiteral("GPU %1").arg(*devices.begin());
    return parts.join(QStringLiteral(" · "));
}

} // namespace

LaneTree::LaneTree(const LaneModel &model) : m_model(&model)
{
    const int n = model.laneCount();
    m_groupOfLane.assign(std::size_t(n), -1);
    m_anchor.assign(std::size_t(n), -1);
    m_attached.assign(std::size_t(n), {});
    m_process.assign(std::size_t(n), -1);
    m_keys.resize(std::size_t(n));
    for (int i = 0; i < n; ++i)
        m_keys[std::size_t(i)] = derivedKey(model.lane(i));
    placeLanes();
    labelLanes();
    // A thread's NVTX rows: consecutive range rows of one thread under the same lane.
    m_rangeBlock.assign(std::size_t(n), 0);
    for (int i = 0; i < n; ++i) {
        const std::vector<int> &attached = m_attached[std::size_t(i)];
        for (std::size_t k = 0; k < attached.size();) {
            const Lane &first = model.lane(attached[k]);
            std::size_t e = k + 1;
            if (first.kind == LaneKind::HostRanges)
                while (e < attached.size() && model.lane(attached[e]).kind == LaneKind::HostRanges
                       && model.lane(attached[e]).source == first.source && model.lane(attached[e]).depth > 0)
                    ++e;
            if (first.kind == LaneKind::HostRanges)
                m_rangeBlock[std::size_t(attached[k])] = int(e - k);
            k = e;
        }
    }
    for (LaneGroup &g : m_groups)
        buildSummary(g);
}

void LaneTree::placeLanes()
{
    const LaneModel &model = *m_model;
    const engine::Trace &trace = model.trace();
    const int n = model.laneCount();
    // What each lane is and which process it belongs to. A stream belongs to the process whose threads
    // issued most of its ops (a profiler's GPU rows carry a device, not always a process).
    std::vector<int> threads, streams, derived;
    // NVTX rows go with their own thread's lane, a projection row with its stream's, wherever the model
    // put them; any other lane the tree does not place hangs under the lane before it.
    std::map<int, int> threadLane, streamLane;
    for (int i = 0; i < n; ++i) {
        if (model.lane(i).kind == LaneKind::HostThread)
            threadLane.emplace(model.lane(i).source, i);
        else if (model.lane(i).kind == LaneKind::Stream)
            streamLane.emplace(model.lane(i).source, i);
    }
    int lastPlaced = -1;
    for (int i = 0; i < n; ++i) {
        const Lane &lane = model.lane(i);
        if (!isPlacedKind(lane.kind)) {
            int anchor = lastPlaced;
            const auto &owners = lane.kind == LaneKind::NvtxProjection ? streamLane : threadLane;
            if (lane.kind == LaneKind::HostRanges || lane.kind == LaneKind::NvtxProjection)
                if (const auto it = owners.find(lane.source); it != owners.end())
                    anchor = it->second;
            if (anchor >= 0) {
                m_anchor[std::size_t(i)] = anchor;
                m_attached[std::size_t(anchor)].push_back(i);
                continue;
            }
        }
        lastPlaced = i;
        if (lane.kind == LaneKind::HostThread) {
            m_process[std::size_t(i)] = threadProcess(trace, lane.source);
            threads.push_back(i);
        } else if (lane.kind == LaneKind::Stream) {
            m_process[std::size_t(i)] = streamProcess(model, lane);
            streams.push_back(i);
        } else {
            derived.push_back(i);
        }
    }
    // Sub-rows share their anchor's process.
    for (int i = 0; i < n; ++i)
        if (m_anchor[std::size_t(i)] >= 0)
            m_process[std::size_t(i)] = m_process[std::size_t(m_anchor[std::size_t(i)])];

    const std::vector<qint64> processes = processesOf(threads, streams, m_process);
    const auto rankIt = trace.metadata.find("rank");
    const QString rank = rankIt != trace.metadata.end() ? QString::fromStdString(rankIt->second) : QString();
    const bool byProcess = processes.size() >= 2 || (processes.size() == 1 && !rank.isEmpty());

    auto streamDevice = [&](int lane) { return ui::streamDevice(model, lane); };
    auto addGroup = [&](LaneGroup g, int parent) {
        g.parent = parent;
        g.depth = parent >= 0 ? m_groups[std::size_t(parent)].depth + 1 : 0;
        m_groups.push_back(std::move(g));
        const int index = int(m_groups.size()) - 1;
        if (parent >= 0)
            m_groups[std::size_t(parent)].children.push_back(index);
        else
            m_top.push_back({-1, index});
        return index;
    };
    // Streams of one scope: in device groups when they are on more than one device, or when the trace's
    // streams are (a group per GPU, which also holds that GPU's derived lanes); else as lanes of `parent`
    // (or loose at the top level).
    const bool multiDevice = !model.devices().empty();
    std::map<int, int> deviceGroup; // device -> its first group, where its derived lanes go
    auto placeStreams = [&](const std::vector<int> &scopeStreams, int parent, qint64 pid) {
        std::vector<int> devices;
        for (const int i : scopeStreams)
            if (std::find(devices.begin(), devices.end(), streamDevice(i)) == devices.end())
                devices.push_back(streamDevice(i));
        if (devices.empty() || (devices.size() < 2 && !multiDevice)) {
            for (const int i : scopeStreams) {
                if (parent >= 0)
                    m_groups[std::size_t(parent)].lanes.push_back(i);
                else
                    m_top.push_back({i, -1});
            }
            return;
        }
        std::sort(devices.begin(), devices.end());
        for (const int device : devices) {
            LaneGroup g;
            g.level = LaneGroup::Level::Device;
            g.key = pid >= 0 ? QStringLiteral("device:%1@%2").arg(device).arg(pid)
                             : QStringLiteral("device:%1").arg(device);
            g.title = deviceTitle(trace, device);
            for (const int i : scopeStreams)
                if (streamDevice(i) == device)
                    g.lanes.push_back(i);
            g.subtitle = plural(qsizetype(g.lanes.size()), "stream", "streams");
            deviceGroup.emplace(device, addGroup(std::move(g), parent));
        }
    };

    if (byProcess) {
        for (const qint64 pid : processes) {
            LaneGroup g;
            g.level = LaneGroup::Level::Process;
            g.key = QStringLiteral("process:%1").arg(pid);
            const QString name = processName(model, threads, m_process, pid);
            g.title =
                name.isEmpty() ? QStringLiteral("pid %1").arg(pid) : QStringLiteral("%1 (pid %2)").arg(name).arg(pid);
            if (processes.size() == 1 && !rank.isEmpty())
                g.title = QStringLiteral("rank %1 · %2").arg(rank, g.title);
            const int index = addGroup(std::move(g), -1);
            std::vector<int> own;
            int threadCount = 0;
            for (const int i : threads)
                if (m_process[std::size_t(i)] == pid) {
                    m_groups[std::size_t(index)].lanes.push_back(i);
                    ++threadCount;
                }
            for (const int i : streams)
                if (m_process[std::size_t(i)] == pid)
                    own.push_back(i);
            placeStreams(own, index, pid);
            m_groups[std::size_t(index)].subtitle = processSubtitle(model, threadCount, own);
        }
        // Threads and streams of no known process: loose, after the processes.
        for (const int i : threads)
            if (m_process[std::size_t(i)] < 0)
                m_top.push_back({i, -1});
        for (const int i : streams)
            if (m_process[std::size_t(i)] < 0)
                m_top.push_back({i, -1});
    } else {
        for (const int i : threads)
            m_top.push_back({i, -1});
        placeStreams(streams, -1, -1);
    }
    // Derived lanes of one GPU go with its streams; the rest, trace-wide, below every group.
    for (const int i : derived) {
        const auto it = deviceGroup.find(model.lane(i).device);
        if (model.lane(i).device >= 0 && it != deviceGroup.end())
            m_groups[std::size_t(it->second)].lanes.push_back(i);
        else
            m_top.push_back({i, -1});
    }
    indexGroups(m_groups, m_attached, m_groupOfLane);
}

void LaneTree::labelLanes()
{
    const LaneModel &model = *m_model;
    const engine::Trace &trace = model.trace();
    const int n = model.laneCount();
    m_labels.resize(std::size_t(n));
    std::map<QString, std::vector<int>> byTitle;
    for (int i = 0; i < n; ++i) {
        // A derived lane of one GPU of several says which ("compute · GPU 1"), also pinned out of its group.
        const Lane &lane = model.lane(i);
        m_labels[std::size_t(i)] = lane.device >= 0 && !isThreadOrStream(lane.kind)
                                       ? QStringLiteral("%1 · GPU %2").arg(lane.title).arg(lane.device)
                                       : lane.title;
        byTitle[m_labels[std::size_t(i)]].push_back(i);
    }
    for (const auto &[title, lanes] : byTitle) {
        if (lanes.size() < 2)
            continue;
        std::set<qint64> pids;
        std::set<int> devices;
        for (const int i : lanes) {
            pids.insert(m_process[std::size_t(i)]);
            const Lane &lane = model.lane(i);
            if (lane.kind == LaneKind::Stream && lane.source >= 0)
                devices.insert(trace.streams[std::size_t(lane.source)].device);
        }
        for (const int i : lanes) {
            const Lane &lane = model.lane(i);
            QString &label = m_labels[std::size_t(i)];
            if (lane.kind == LaneKind::Stream && devices.size() > 1)
                label += QStringLiteral(" · GPU %1").arg(trace.streams[std::size_t(lane.source)].device);
            else if (isThreadOrStream(lane.kind) && pids.size() > 1 && m_process[std::size_t(i)] >= 0)
                label += QStringLiteral(" · pid %1").arg(m_process[std::size_t(i)]);
        }
        // Still alike (threads of one process): the thread id as the OS prints it.
        std::map<QString, int> seen;
        for (const int i : lanes)
            ++seen[m_labels[std::size_t(i)]];
        for (const int i : lanes) {
            const Lane &lane = model.lane(i);
            if (seen[m_labels[std::size_t(i)]] < 2 || lane.kind != LaneKind::HostThread || lane.source < 0)
                continue;
            const std::uint64_t tid = trace.hostThreads[std::size_t(lane.source)].nativeId;
            if (tid != 0)
                m_labels[std::size_t(i)] += QStringLiteral(" · tid %1").arg(tid);
        }
    }
    // A sub-row (NVTX rows under a thread, a projection row over a stream) alike another takes what
    // told its lane apart: "NVTX · depth 1 · pid 145" under "python3 · pid 145", not "#1" by model order.
    {
        std::map<QString, int> seen;
        for (int i = 0; i < n; ++i)
            ++seen[m_labels[std::size_t(i)]];
        for (int i = 0; i < n; ++i) {
            const int anchor = m_anchor[std::size_t(i)];
            if (anchor < 0 || seen[m_labels[std::size_t(i)]] < 2)
                continue;
            const QString &anchorTitle = model.lane(anchor).title;
            const QString &anchorLabel = m_labels[std::size_t(anchor)];
            const Lane &lane = model.lane(i);
            const Lane &owner = model.lane(anchor);
            if (lane.kind == LaneKind::HostRanges && lane.source >= 0
                && std::size_t(lane.source) < trace.hostThreads.size()
                && !(owner.kind == LaneKind::HostThread && owner.source == lane.source)) {
                // The rows of a thread that made no CUDA call hang under another thread's lane: they
                // take their own thread's id, not that lane's ("pt_thread_pool · NVTX · tid 51306").
                if (const std::uint64_t tid = trace.hostThreads[std::size_t(lane.source)].nativeId; tid != 0)
                    m_labels[std::size_t(i)] += QStringLiteral(" · tid %1").arg(tid);
            } else if (anchorLabel.startsWith(anchorTitle) && anchorLabel.size() > anchorTitle.size())
                m_labels[std::size_t(i)] += anchorLabel.mid(anchorTitle.size());
            else if (model.lane(anchor).kind == LaneKind::Stream && model.lane(anchor).source >= 0)
                m_labels[std::size_t(i)] += QStringLiteral(" · %1").arg(anchorLabel);
        }
    }
    // Whatever is still alike is numbered in model order.
    std::map<QString, std::vector<int>> byLabel;
    for (int i = 0; i < n; ++i)
        byLabel[m_labels[std::size_t(i)]].push_back(i);
    for (const auto &[label, lanes] : byLabel)
        if (lanes.size() > 1)
            for (std::size_t k = 0; k < lanes.size(); ++k)
                m_labels[std::size_t(lanes[k])] += QStringLiteral(" #%1").arg(k + 1);
}

void LaneTree::buildSummary(LaneGroup &group) const
{
    // Each lane's intervals merged (an import's nested calls count once), then the lanes' busy spans
    // counted together.
    std::vector<std::pair<qint64, int>> edges;
    for (const int laneIndex : group.allLanes) {
        const Lane &lane = m_model->lane(laneIndex);
        if (!isThreadOrStream(lane.kind) || lane.intervals.size() == 0)
            continue;
        ++group.busyLanes;
        const IntervalLane &iv = lane.intervals;
        qint64 start = iv.starts[0], end = iv.ends[0];
        for (std::size_t k = 1; k < iv.size(); ++k) {
            if (iv.starts[k] > end) {
                edges.emplace_back(start, +1);
                edges.emplace_back(end, -1);
                start = iv.starts[k];
                end = iv.ends[k];
            } else {
                end = std::max(end, iv.ends[k]);
            }
        }
        edges.emplace_back(start, +1);
        edges.emplace_back(end, -1);
    }
    std::sort(edges.begin(), edges.end());
    StepSeries &s = group.busy;
    int active = 0;
    qint64 busySince = 0, busyNs = 0;
    for (const auto &[t, delta] : edges) {
        const int before = active;
        active += delta;
        if (before == 0 && active > 0)
            busySince = t;
        else if (before > 0 && active == 0)
            busyNs += t - busySince;
        const float v = float(active);
        if (!s.values.empty() && s.values.back() == v)
            continue;
        if (!s.times.empty() && s.times.back() == t) {
            s.values.back() = v;
            if (s.values.size() >= 2 && s.values[s.values.size() - 2] == v) {
                s.values.pop_back();
                s.times.pop_back();
            }
            continue;
        }
        s.times.push_back(t);
        s.values.push_back(v);
        s.maxValue = std::max(s.maxValue, v);
    }
    s.finish();
    group.busyFraction = double(busyNs) / double(std::max<qint64>(1, m_model->durationNs()));
}

int LaneTree::groupByKey(const QString &key) const
{
    for (std::size_t g = 0; g < m_groups.size(); ++g)
        if (m_groups[g].key == key)
            return int(g);
    return -1;
}

int LaneTree::laneByKey(const QString &key) const
{
    const auto it = std::find(m_keys.begin(), m_keys.end(), key);
    return it == m_keys.end() ? -1 : int(it - m_keys.begin());
}

QString LaneTree::label(int lane, const LaneViewState &state) const
{
    const auto it = state.names.find(m_keys[std::size_t(lane)]);
    return it != state.names.end() && !it->second.isEmpty() ? it->second : m_labels[std::size_t(lane)];
}

std::vector<int> LaneTree::rangeFirstLanes() const
{
    std::vector<int> out;
    for (int i = 0; i < int(m_rangeBlock.size()); ++i)
        if (m_rangeBlock[std::size_t(i)] >= 2)
            out.push_back(i);
    return out;
}

bool LaneTree::rangesFolded(int firstLane, const LaneViewState &state) const
{
    if (firstLane < 0 || std::size_t(firstLane) >= m_rangeBlock.size() || m_rangeBlock[std::size_t(firstLane)] < 2)
        return false;
    const QString &key = m_keys[std::size_t(firstLane)];
    if (state.collapsed.count(rangeFoldKey(key)))
        return true;
    if (state.collapsed.count(rangeOpenKey(key)))
        return false;
    return m_rangeBlock[std::size_t(firstLane)] > kOpenRangeRows;
}

std::vector<int> LaneTree::hiddenLanes(const LaneViewState &state) const
{
    std::vector<int> out;
    for (int i = 0; i < int(m_keys.size()); ++i)
        if (state.hidden.count(m_keys[std::size_t(i)]))
            out.push_back(i);
    return out;
}

std::vector<LaneRow> LaneTree::rows(const LaneViewState &state) const
{
    const int n = int(m_keys.size());
    std::vector<char> hidden(std::size_t(n), 0), pinned(std::size_t(n), 0);
    for (int i = 0; i < n; ++i) {
        const int root = m_anchor[std::size_t(i)] >= 0 ? m_anchor[std::size_t(i)] : i;
        hidden[std::size_t(i)] =
            state.hidden.count(m_keys[std::size_t(i)]) || state.hidden.count(m_keys[std::size_t(root)]);
    }
    std::vector<LaneRow> rows;
    auto emitLane = [&](int lane, int depth, bool pin) {
        const std::size_t laneRow = rows.size();
        rows.push_back({lane, m_groupOfLane[std::size_t(lane)], depth, pin, false});
        const std::vector<int> &attached = m_attached[std::size_t(lane)];
        for (std::size_t k = 0; k < attached.size(); ++k) {
            const int a = attached[k];
            const int block = m_rangeBlock[std::size_t(a)];
            if (block < 2) {
                if (!hidden[std::size_t(a)])
                    rows.push_back({a, m_groupOfLane[std::size_t(a)], depth + 1, pin, false});
                continue;
            }
            // A thread's NVTX rows: all of them, or folded into the outermost. The thread's own lane
            // carries the fold where the rows are its own, else their outermost row does.
            const bool folded = rangesFolded(a, state);
            const Lane &first = m_model->lane(a);
            const Lane &owner = m_model->lane(lane);
            const bool onOwner = owner.kind == LaneKind::HostThread && owner.source == first.source;
            const LaneRow::Fold fold = folded ? LaneRow::Fold::Folded : LaneRow::Fold::Open;
            if (onOwner) {
                rows[laneRow].fold = fold;
                rows[laneRow].foldLane = a;
            }
            for (int j = 0; j < block; ++j) {
                const int r = attached[k + std::size_t(j)];
                if (hidden[std::size_t(r)] || (folded && j > 0))
                    continue;
                LaneRow row{r, m_groupOfLane[std::size_t(r)], depth + 1, pin, false};
                if (j == 0) {
                    if (!onOwner) {
                        row.fold = fold;
                        row.foldLane = a;
                    }
                    if (folded)
                        row.foldedRows = block - 1;
                }
                rows.push_back(row);
            }
            k += std::size_t(block) - 1;
        }
    };
    for (const QString &key : state.pinned) {
        const int lane = laneByKey(key);
        if (lane < 0 || hidden[std::size_t(lane)] || pinned[std::size_t(lane)] || m_anchor[std::size_t(lane)] >= 0)
            continue;
        pinned[std::size_t(lane)] = 1;
        emitLane(lane, 0, true);
    }
    auto shown = [&](int lane) { return !hidden[std::size_t(lane)] && !pinned[std::size_t(lane)]; };
    std::function<void(int)> emitGroup = [&](int g) {
        const LaneGroup &group = m_groups[std::size_t(g)];
        if (std::none_of(group.allLanes.begin(), group.allLanes.end(),
                         [&](int lane) { return m_anchor[std::size_t(lane)] < 0 && shown(lane); }))
            return;
        const bool collapsed = state.collapsed.count(group.key) > 0;
        rows.push_back({-1, g, group.depth, false, collapsed});
        if (collapsed)
            return;
        for (const int lane : group.lanes)
            if (shown(lane))
                emitLane(lane, group.depth + 1, false);
        for (const int c : group.children)
            emitGroup(c);
    };
    // A lane of an unknown kind before any placed lane hangs under nothing: first.
    for (int i = 0; i < n; ++i)
        if (m_anchor[std::size_t(i)] < 0 && !isPlacedKind(m_model->lane(i).kind) && shown(i))
            emitLane(i, 0, false);
    for (const TopItem &item : m_top) {
        if (item.group >= 0)
            emitGroup(item.group);
        else if (shown(item.lane))
            emitLane(item.lane, 0, false);
    }
    return rows;
}

} // namespace streamscope::ui
