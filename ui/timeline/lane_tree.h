// LaneTree: the lanes of a LaneModel arranged as Nsight Systems and Perfetto arrange them: process (or
// rank), then device, then the threads and streams, as collapsible groups. It also gives every lane a
// stable key (for what the user hid, pinned or renamed: LaneViewState) and a label that tells it from
// its namesakes ("python3 · pid 145", "pt_thread_pool · tid 5012").
//
// A level is drawn only where it separates something: process groups when the lanes come from more
// than one process or the trace names its rank (PyTorch's distributedInfo), device groups ("GPU 1 ·
// NVIDIA H100") when the trace's streams are on more than one device. A single-GPU run therefore looks
// as it always did: its derived lanes (active copies, compute, bandwidth, copy channels) are trace-wide
// and stay ungrouped, below the groups. In a trace of several GPUs each GPU's derived lanes
// (LaneModel builds them per device) sit in its group, under its streams (in the first group of that
// GPU where several processes drive it); unified memory and peer links stay below the groups.
//
// Lanes are placed generically: a thread or stream by what the trace says about it, a derived lane at
// the bottom, and a lane of a kind the tree does not know (a sub-row of another lane, such as NVTX
// ranges under their thread) right below the lane before it in the model, wherever that one goes:
// hidden, pinned and collapsed with its group. rows() turns the tree and a LaneViewState into the
// rows the timeline draws.
#pragma once

#include <QString>

#include <vector>

#include "ui/document/trace_document.h"
#include "ui/timeline/lane_model.h"

namespace streamscope::ui {

struct LaneGroup {
    enum class Level : std::uint8_t { Process, Device };
    Level level = Level::Process;
    QString key; // "process:145", "device:1@145" (device 1 of process 145), "device:0"
    QString title; // "rank 0 · python3 (pid 4515)", "GPU 1 · NVIDIA H100"
    QString subtitle; // "2 threads · 1 stream"
    int parent = -1; // the enclosing group, -1 at the top
    int depth = 0;
    std::vector<int> lanes; // lanes directly in it, in order (attached sub-rows included)
    std::vector<int> children; // nested groups, in order (drawn after its lanes)
    std::vector<int> allLanes; // every lane under it, nested ones too
    // How many of its thread and stream lanes are busy at once, over the repetition, and the share
    // of the repetition when any is: what a collapsed group draws in its one row.
    StepSeries busy;
    int busyLanes = 0; // thread and stream lanes counted
    double busyFraction = 0;
};

// One row of the timeline, top to bottom: a lane, or a group's header (a collapsed group's header is
// its one-row summary).
struct LaneRow {
    int lane = -1; // index into LaneModel::lanes(), or -1 for a group header
    int group = -1; // a header: index into LaneTree::groups(); a lane: its innermost group, -1 for none
    int depth = 0; // indentation
    bool pinned = false;
    bool collapsed = false; // a header of a collapsed group
    // A thread's NVTX rows fold into their outermost one (LaneTree::rows). The row that folds them (the
    // thread's lane, or that outermost row where the thread has no lane of its own) says so here:
    enum class Fold : std::uint8_t { None, Open, Folded };
    Fold fold = Fold::None;
    int foldLane = -1; // the rows' first lane (depth 0), what LaneTree::rangeFoldKey names
    int foldedRows = 0; // on the outermost row of folded rows: how many deeper rows it stands for
    bool isGroup() const { return lane < 0 && group >= 0; }
};

class LaneTree {
public:
    // The model (and its trace) must outlive the tree.
    explicit LaneTree(const LaneModel &model);

    const LaneModel &model() const { return *m_model; }
    const std::vector<LaneGroup> &groups() const { return m_groups; }
    const LaneGroup &group(int index) const { return m_groups[std::size_t(index)]; }
    // The group index whose key is `key`, -1 when none.
    int groupByKey(const QString &key) const;
    // The innermost group a lane sits in, -1 for an ungrouped lane.
    int groupOfLane(int lane) const { return m_groupOfLane[std::size_t(lane)]; }

    // A key that names the lane in every repetition of the trace ("thread:2", "stream:5", "h2d", ...).
    QString laneKey(int lane) const { return m_keys[std::size_t(lane)]; }
    int laneByKey(const QString &key) const;
    // The lane's title, made unique among lanes of the same title (pid, tid, device or a number added).
    QString uniqueLabel(int lane) const { return m_labels[std::size_t(lane)]; }
    // What the timeline calls the lane: the user's name for it, else the unique label.
    QString label(int lane, const LaneViewState &state) const;
    // For a thread or stream lane, the OS process id it belongs to (-1 unknown); for a stream the
    // process whose threads issued most of its ops.
    qint64 processOfLane(int lane) const { return m_process[std::size_t(lane)]; }

    // The rows for a state: pinned lanes first (in pin order), then the tree with hidden lanes left out
    // and collapsed groups as one row; a group whose lanes are all hidden is left out too. A thread's
    // NVTX rows (two or more) show only the outermost where they are folded: by default when there are
    // more than kOpenRangeRows of them, else as the state says (rangeFoldKey).
    std::vector<LaneRow> rows(const LaneViewState &state) const;
    static constexpr int kOpenRangeRows = 3;
    // A thread's NVTX rows, by their first lane (depth 0): how many there are (0: not a first row), and
    // the keys in LaneViewState::collapsed that fold or open them against the default.
    int rangeRowCount(int firstLane) const { return m_rangeBlock[std::size_t(firstLane)]; }
    std::vector<int> rangeFirstLanes() const;
    bool rangesFolded(int firstLane, const LaneViewState &state) const;
    static QString rangeFoldKey(const QString &laneKey) { return QStringLiteral("nvtx-folded:") + laneKey; }
    static QString rangeOpenKey(const QString &laneKey) { return QStringLiteral("nvtx-open:") + laneKey; }
    // The lanes hidden in `state` that exist here, in model order.
    std::vector<int> hiddenLanes(const LaneViewState &state) const;

private:
    void placeLanes();
    void buildSummary(LaneGroup &group) const;
    void labelLanes();

    const LaneModel *m_model;
    std::vector<LaneGroup> m_groups;
    struct TopItem {
        int lane = -1; // an ungrouped lane, or
        int group = -1; // a group at the top level
    };
    std::vector<TopItem> m_top; // the top level, in order (derived lanes last)
    std::vector<int> m_groupOfLane;
    std::vector<int> m_anchor; // a lane of an unknown kind: the lane it hangs under; else -1
    std::vector<std::vector<int>> m_attached; // lanes hanging under each lane, in model order
    std::vector<int> m_rangeBlock; // by lane: a thread's first NVTX row: how many rows it has; else 0
    std::vector<qint64> m_process;
    std::vector<QString> m_keys;
    std::vector<QString> m_labels;
};

} // namespace streamscope::ui
