// WorkloadTreeModel: a workload's structure as a tree for the editor: "Settings", "Buffers" (one row per
// buffer) and "Streams" (one row per stream, its ops as children). Each row knows the JSON pointer it
// stands for (/buffers/2, /streams/1/ops/3), so validation issues are shown on the row they concern.
#pragma once

#include <QAbstractItemModel>

#include <map>
#include <vector>

#include "engine/workload/workload.h"
#include "engine/workload/workload_parser.h"

namespace streamscope::ui {

class WorkloadTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, KindColumn, DetailsColumn, ColumnCount };
    enum class NodeType { Settings, BuffersGroup, StreamsGroup, Buffer, Stream, Op, Invalid };
    struct Node {
        NodeType type = NodeType::Invalid;
        int buffer = -1;
        int stream = -1;
        int op = -1;
    };
    static constexpr int JsonPathRole = Qt::UserRole + 1;
    static constexpr int IssueRole = Qt::UserRole + 2; // the issues on this row (and below), joined

    explicit WorkloadTreeModel(QObject *parent = nullptr);

    // Replaces the whole workload (the tree is reset).
    void setWorkload(engine::Workload workload);
    const engine::Workload &workload() const { return m_workload; }
    // For the field editor: change the workload in place (a preview until the editor's text, the truth, is
    // parsed again), then call rowEdited() for the row it concerns.
    engine::Workload &mutableWorkload() { return m_workload; }
    void rowEdited(const Node &node);
    // Issues from engine::validateWorkloadText, matched to rows by their JSON path.
    void setIssues(const std::vector<engine::WorkloadIssue> &issues);

    Node nodeAt(const QModelIndex &index) const;
    QModelIndex indexOf(const Node &node) const;
    static QString jsonPathOf(const Node &node);
    // The row a JSON pointer (an issue's) falls under: a buffer, a stream, or an op of a stream
    // ("/streams/1/ops/3/bytes"), a group row ("/buffers"), else the settings (the top-level keys, and ""
    // for the whole document).
    static Node nodeOfPath(const QString &jsonPath);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    // A name was edited in place (references to a renamed buffer or stream follow in workload()); the
    // editor writes the change into its text, which stays the truth.
    void nameEdited(const Node &node, const QString &oldName, const QString &newName);

private:
    QString issuesFor(const QString &jsonPath) const;

    engine::Workload m_workload;
    std::vector<engine::WorkloadIssue> m_issues;
};

} // namespace streamscope::ui
