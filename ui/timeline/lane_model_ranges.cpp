// LaneModel's host range rows and NVTX projection rows: built after the other lanes and inserted among
// them (under each host thread's lane, above each stream's), then the lane indexes are found again. Kept
// apart from lane_model.cpp: the rows only add lanes, they change none.
#include "ui/common/display_text.h"
#include "ui/timeline/lane_model.h"

#include <QStringList>

#include <algorithm>

#include "engine/model/host_ranges.h"
#include "ui/common/host_range_labels.h"

namespace streamscope::ui {

namespace {

QString fromStd(const std::string &s)
{
    return displayText(s); // a name from the file: clamped
}

void appendRange(IntervalLane &lane, qint64 start, qint64 end, qint32 index, std::uint8_t style)
{
    lane.starts.push_back(start);
    lane.ends.push_back(std::max(start, end));
    lane.ops.push_back(index);
    lane.styles.push_back(style);
}

} // namespace

std::uint8_t rangeColorIndex(std::uint32_t nameId)
{
    // Fibonacci hashing: names interned one after the other land far apart on the colour wheel.
    return std::uint8_t((nameId * 2654435761u) >> 28); // 0..15
}

void LaneModel::buildRangeLanes()
{
    const engine::Repetition &r = rep();
    const auto &ranges = r.hostRanges;
    const int threads = int(m_trace->hostThreads.size());
    m_rangeRowLane.assign(std::size_t(threads) + 1, -1);
    m_rangeRows.assign(std::size_t(threads) + 1, 0);
    if (ranges.empty())
        return;

    // Per thread slot (thread + 1; slot 0: ranges of no known thread), per depth: the row's intervals. A
    // row's ranges never overlap and come in start order (layoutHostRanges), so no sort is needed.
    const auto slotOf = [&](int thread) { return thread >= 0 && thread < threads ? std::size_t(thread) + 1 : 0; };
    std::vector<std::vector<IntervalLane>> rows(std::size_t(threads) + 1);
    std::vector<std::size_t> total(rows.size(), 0), hidden(rows.size(), 0);
    std::vector<std::uint8_t> nvtx(rows.size(), 0), launch(rows.size(), 0);
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        const engine::HostRange &h = ranges[i];
        const std::size_t slot = slotOf(h.hostThread);
        ++total[slot];
        nvtx[slot] |= h.category == engine::HostRangeCategory::Nvtx;
        launch[slot] |= h.category == engine::HostRangeCategory::Launch;
        if (h.depth >= kMaxRangeRows) {
            ++hidden[slot];
            continue;
        }
        auto &threadRows = rows[slot];
        if (threadRows.size() <= std::size_t(h.depth))
            threadRows.resize(std::size_t(h.depth) + 1);
        appendRange(threadRows[std::size_t(h.depth)], h.startNs - m_originNs, h.endNs - m_originNs, qint32(i),
                    rangeColorIndex(h.nameId));
    }

    // The rows of one thread, titled by what they hold; a thread that has no lane of its own (ranges but
    // no CUDA call) gets its name into its first row's title.
    auto rowLanes = [&](std::size_t slot, bool named) {
        std::vector<Lane> out;
        const QString label = launch[slot] && !nvtx[slot] ? hostRangeCategoryLabel(engine::HostRangeCategory::Launch)
                                                          : rangeRowLabel(nvtx[slot] != 0);
        for (std::size_t depth = 0; depth < rows[slot].size(); ++depth) {
            Lane lane;
            lane.kind = LaneKind::HostRanges;
            lane.source = int(slot) - 1;
            lane.depth = int(depth);
            if (depth == 0) {
                QString thread;
                if (named)
                    thread = slot == 0 ? QStringLiteral("host")
                             : m_trace->hostThreads[slot - 1].name.empty()
                                 ? QStringLiteral("host thread %1").arg(slot - 1)
                                 : fromStd(m_trace->hostThreads[slot - 1].name);
                lane.title = thread.isEmpty() ? label : QStringLiteral("%1 · %2").arg(thread, label);
                lane.subtitle = QStringLiteral("%1 ranges").arg(total[slot]);
            } else {
                lane.title = QStringLiteral("%1 · depth %2").arg(label).arg(depth);
            }
            lane.intervals = std::move(rows[slot][depth]);
            if (depth + 1 == rows[slot].size() && hidden[slot] > 0)
                lane.subtitle = QStringLiteral("%1 deeper ranges not drawn").arg(hidden[slot]);
            out.push_back(std::move(lane));
        }
        return out;
    };

    // Projection rows: a stream's ops that were launched in a range, each drawn over its own GPU time in
    // the colour and with the name of that range.
    auto projection = [&](const Lane &stream) {
        Lane lane;
        lane.kind = LaneKind::NvtxProjection;
        lane.source = stream.source;
        const IntervalLane &iv = stream.intervals;
        for (std::size_t k = 0; k < iv.size(); ++k) {
            const engine::HostRange *h = r.enclosingRange(r.ops[std::size_t(iv.ops[k])]);
            if (h)
                appendRange(lane.intervals, iv.starts[k], iv.ends[k], iv.ops[k], rangeColorIndex(h->nameId));
        }
        finishIntervals(lane.intervals);
        lane.title = QStringLiteral("%1 (projected)").arg(rangeRowLabel(true));
        lane.subtitle = QStringLiteral("%1 of %2 ops").arg(lane.intervals.size()).arg(iv.size());
        return lane;
    };

    std::vector<Lane> lanes;
    lanes.reserve(m_lanes.size() + ranges.size() / 64 + 64);
    std::vector<bool> placed(rows.size(), false);
    bool unplacedDone = false;
    auto placeRows = [&](std::size_t slot, bool named) {
        placed[slot] = true;
        std::vector<Lane> threadRows = rowLanes(slot, named);
        if (threadRows.empty())
            return;
        m_rangeRowLane[slot] = int(lanes.size());
        m_rangeRows[slot] = int(threadRows.size());
        for (Lane &l : threadRows)
            lanes.push_back(std::move(l));
    };
    // Threads with ranges but no lane of their own go after the last host thread, in thread order (the
    // unknown thread last), as the host lanes are.
    auto placeUnplaced = [&] {
        unplacedDone = true;
        for (std::size_t k = 1; k <= rows.size(); ++k) {
            const std::size_t slot = k % rows.size();
            if (!placed[slot] && !rows[slot].empty())
                placeRows(slot, true);
        }
    };
    for (Lane &lane : m_lanes) {
        const LaneKind kind = lane.kind;
        const int source = lane.source;
        if (kind != LaneKind::HostThread && !unplacedDone)
            placeUnplaced();
        if (kind == LaneKind::Stream && m_options.projectNvtx) {
            Lane p = projection(lane);
            if (p.intervals.size() > 0)
                lanes.push_back(std::move(p));
        }
        lanes.push_back(std::move(lane));
        if (kind == LaneKind::HostThread)
            placeRows(slotOf(source), false);
    }
    if (!unplacedDone)
        placeUnplaced();
    m_lanes = std::move(lanes);

    // The other lanes moved: find them again.
    std::fill(m_streamLane.begin(), m_streamLane.end(), -1);
    std::fill(m_hostLane.begin(), m_hostLane.end(), -1);
    for (int i = 0; i < int(m_lanes.size()); ++i) {
        const Lane &lane = m_lanes[std::size_t(i)];
        if (lane.kind == LaneKind::Stream && lane.source >= 0 && std::size_t(lane.source) < m_streamLane.size())
            m_streamLane[std::size_t(lane.source)] = i;
        else if (lane.kind == LaneKind::HostThread && std::size_t(lane.source + 1) < m_hostLane.size())
            m_hostLane[std::size_t(lane.source + 1)] = i;
    }
}

int LaneModel::rangeAt(int laneIndex, qint64 ns, qint64 toleranceNs) const
{
    if (laneIndex < 0 || laneIndex >= laneCount())
        return -1;
    const LaneKind kind = m_lanes[std::size_t(laneIndex)].kind;
    if (kind != LaneKind::HostRanges && kind != LaneKind::NvtxProjection)
        return -1;
    qint64 distance = 0;
    const int hit = intervalAt(laneIndex, ns, toleranceNs, distance);
    if (hit < 0 || kind == LaneKind::HostRanges)
        return hit;
    return rep().ops[std::size_t(hit)].hostRange;
}

int LaneModel::rangeLane(int range) const
{
    if (range < 0 || std::size_t(range) >= rep().hostRanges.size() || m_rangeRowLane.empty())
        return -1;
    const engine::HostRange &h = rep().hostRanges[std::size_t(range)];
    const int threads = int(m_trace->hostThreads.size());
    const std::size_t slot = h.hostThread >= 0 && h.hostThread < threads ? std::size_t(h.hostThread) + 1 : 0;
    if (m_rangeRowLane[slot] < 0 || h.depth >= m_rangeRows[slot])
        return -1;
    return m_rangeRowLane[slot] + h.depth;
}

} // namespace streamscope::ui
