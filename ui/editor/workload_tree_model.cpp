// WorkloadTreeModel: internal ids encode the parent (1: a top-level row, 2: a buffer, 3: a stream,
// 4 + s: an op of stream s), so the tree needs no node objects and a reset is all an edit costs.
#include "ui/editor/workload_tree_model.h"
#include "ui/common/format_units.h"

#include <QBrush>
#include <QColor>
#include <QIcon>

#include <set>
#include <tuple>
#include <utility>

#include "engine/model/units.h"
#include "engine/workload/workload_names.h"

namespace streamscope::ui {

namespace {

constexpr quintptr kTopId = 1;
constexpr quintptr kBufferId = 2;
constexpr quintptr kStreamId = 3;
constexpr quintptr kOpBaseId = 4;
constexpr int kSettingsRow = 0;
constexpr int kBuffersRow = 1;
constexpr int kStreamsRow = 2;

} // namespace

WorkloadTreeModel::WorkloadTreeModel(QObject *parent) : QAbstractItemModel(parent)
{
}

void WorkloadTreeModel::setWorkload(engine::Workload workload)
{
    beginResetModel();
    m_workload = std::move(workload);
    m_issues.clear();
    endResetModel();
}

void WorkloadTreeModel::setIssues(const std::vector<engine::WorkloadIssue> &issues)
{
    // Only the rows an issue names (the old issues' and the new ones'), and the stream above an op, can
    // change their marks: touching every row made a tree view measure every row again, minutes for a
    // workload of a million ops.
    std::set<std::tuple<NodeType, int, int, int>> rows;
    const auto collect = [&rows](const std::vector<engine::WorkloadIssue> &from) {
        for (const engine::WorkloadIssue &issue : from) {
            const Node node = nodeOfPath(QString::fromStdString(issue.jsonPath));
            rows.insert({node.type, node.buffer, node.stream, node.op});
            if (node.type == NodeType::Op)
                rows.insert({NodeType::Stream, -1, node.stream, -1});
        }
    };
    collect(m_issues);
    m_issues = issues;
    collect(m_issues);
    for (const auto &[type, buffer, stream, op] : rows) {
        if (type == NodeType::BuffersGroup || type == NodeType::StreamsGroup)
            continue; // group rows show no marks
        const QModelIndex row = indexOf(Node{type, buffer, stream, op});
        if (row.isValid())
            emit dataChanged(row, row.siblingAtColumn(ColumnCount - 1));
    }
}

WorkloadTreeModel::Node WorkloadTreeModel::nodeOfPath(const QString &jsonPath)
{
    // "/streams/1/ops/3/bytes" splits into "streams", "1", "ops", "3", "bytes"
    const QStringList parts = jsonPath.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    const QString top = parts.isEmpty() ? QString() : parts[0];
    const bool buffers = top == QLatin1String("buffers");
    if (!buffers && top != QLatin1String("streams"))
        return {NodeType::Settings, -1, -1, -1};
    bool ok = false;
    const int item = parts.size() > 1 ? parts[1].toInt(&ok) : -1;
    if (!ok)
        return {buffers ? NodeType::BuffersGroup : NodeType::StreamsGroup, -1, -1, -1};
    if (buffers)
        return {NodeType::Buffer, item, -1, -1};
    const int op = parts.size() > 3 && parts[2] == QLatin1String("ops") ? parts[3].toInt(&ok) : -1;
    if (ok && op >= 0)
        return {NodeType::Op, -1, item, op};
    return {NodeType::Stream, -1, item, -1};
}

void WorkloadTreeModel::rowEdited(const Node &node)
{
    const QModelIndex first = indexOf(node);
    if (first.isValid())
        emit dataChanged(first, first.siblingAtColumn(ColumnCount - 1));
    if (node.type == NodeType::Op || node.type == NodeType::Stream) {
        // A stream's details count its ops; an op's details can depend on buffer kinds.
        const QModelIndex stream = indexOf(Node{NodeType::Stream, -1, node.stream, -1});
        if (stream.isValid())
            emit dataChanged(stream, stream.siblingAtColumn(ColumnCount - 1));
    }
}

QString WorkloadTreeModel::jsonPathOf(const Node &node)
{
    switch (node.type) {
    case NodeType::Settings: return QString();
    case NodeType::BuffersGroup: return QStringLiteral("/buffers");
    case NodeType::StreamsGroup: return QStringLiteral("/streams");
    case NodeType::Buffer: return QStringLiteral("/buffers/%1").arg(node.buffer);
    case NodeType::Stream: return QStringLiteral("/streams/%1").arg(node.stream);
    case NodeType::Op: return QStringLiteral("/streams/%1/ops/%2").arg(node.stream).arg(node.op);
    case NodeType::Invalid: break;
    }
    return QString();
}

QString WorkloadTreeModel::issuesFor(const QString &jsonPath) const
{
    QStringList messages;
    for (const engine::WorkloadIssue &issue : m_issues) {
        const QString path = QString::fromStdString(issue.jsonPath);
        bool matches;
        if (jsonPath.isEmpty()) {
            // Settings: the top-level scalar keys (/name, /warmup, ...) and document-wide problems.
            matches = !path.startsWith(QLatin1String("/buffers")) && !path.startsWith(QLatin1String("/streams"));
        } else {
            matches = path == jsonPath || path.startsWith(jsonPath + QLatin1Char('/'));
        }
        if (matches)
            messages << (issue.line > 0 ? tr("line %1: %2").arg(issue.line).arg(qs(issue.message)) : qs(issue.message));
    }
    return messages.join(QLatin1Char('\n'));
}

WorkloadTreeModel::Node WorkloadTreeModel::nodeAt(const QModelIndex &index) const
{
    Node node;
    if (!index.isValid())
        return node;
    const quintptr id = index.internalId();
    if (id == kTopId) {
        node.type = index.row() == kSettingsRow  ? NodeType::Settings
                    : index.row() == kBuffersRow ? NodeType::BuffersGroup
                                                 : NodeType::StreamsGroup;
    } else if (id == kBufferId) {
        node.type = NodeType::Buffer;
        node.buffer = index.row();
    } else if (id == kStreamId) {
        node.type = NodeType::Stream;
        node.stream = index.row();
    } else {
        node.type = NodeType::Op;
        node.stream = int(id - kOpBaseId);
        node.op = index.row();
    }
    return node;
}

QModelIndex WorkloadTreeModel::indexOf(const Node &node) const
{
    switch (node.type) {
    case NodeType::Settings: return index(kSettingsRow, 0);
    case NodeType::BuffersGroup: return index(kBuffersRow, 0);
    case NodeType::StreamsGroup: return index(kStreamsRow, 0);
    case NodeType::Buffer: return index(node.buffer, 0, index(kBuffersRow, 0));
    case NodeType::Stream: return index(node.stream, 0, index(kStreamsRow, 0));
    case NodeType::Op: return index(node.op, 0, index(node.stream, 0, index(kStreamsRow, 0)));
    case NodeType::Invalid: break;
    }
    return {};
}

QModelIndex WorkloadTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount || row >= rowCount(parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, kTopId);
    const Node p = nodeAt(parent);
    switch (p.type) {
    case NodeType::BuffersGroup: return createIndex(row, column, kBufferId);
    case NodeType::StreamsGroup: return createIndex(row, column, kStreamId);
    case NodeType::Stream: return createIndex(row, column, kOpBaseId + quintptr(p.stream));
    default: return {};
    }
}

QModelIndex WorkloadTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const quintptr id = child.internalId();
    if (id == kTopId)
        return {};
    if (id == kBufferId)
        return createIndex(kBuffersRow, 0, kTopId);
    if (id == kStreamId)
        return createIndex(kStreamsRow, 0, kTopId);
    return createIndex(int(id - kOpBaseId), 0, kStreamId);
}

int WorkloadTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return 3;
    if (parent.column() != 0)
        return 0;
    const Node node = nodeAt(parent);
    switch (node.type) {
    case NodeType::BuffersGroup: return int(m_workload.buffers.size());
    case NodeType::StreamsGroup: return int(m_workload.streams.size());
    case NodeType::Stream:
        return node.stream < int(m_workload.streams.size())
                   ? int(m_workload.streams[std::size_t(node.stream)].ops.size())
                   : 0;
    default: return 0;
    }
}

int WorkloadTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant WorkloadTreeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Node node = nodeAt(index);
    const QString path = jsonPathOf(node);
    if (role == JsonPathRole)
        return path;
    // Group rows carry only their own issues' marks through their children, except Settings.
    const QString issues =
        node.type == NodeType::BuffersGroup || node.type == NodeType::StreamsGroup ? QString() : issuesFor(path);
    if (role == IssueRole)
        return issues;
    if (role == Qt::ToolTipRole)
        return issues.isEmpty() ? QVariant() : QVariant(issues);
    if (role == Qt::ForegroundRole && !issues.isEmpty())
        return QBrush(QColor(0xd5, 0x5e, 0x00));
    if (role == Qt::DecorationRole && index.column() == 0 && !issues.isEmpty())
        return QIcon::fromTheme(QStringLiteral("dialog-warning"));
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};

    switch (node.type) {
    case NodeType::Settings:
        if (index.column() == NameColumn)
            return tr("Settings");
        if (index.column() == DetailsColumn)
            return tr("%1: %2 warm-up + %3 measured repetitions, %4 issue order")
                .arg(QString::fromStdString(m_workload.name))
                .arg(m_workload.warmup)
                .arg(m_workload.repetitions)
                .arg(qs(engine::enumName(m_workload.issueOrder)));
        return {};
    case NodeType::BuffersGroup:
        return index.column() == NameColumn ? QVariant(tr("Buffers (%1)").arg(m_workload.buffers.size())) : QVariant();
    case NodeType::StreamsGroup:
        return index.column() == NameColumn ? QVariant(tr("Streams (%1)").arg(m_workload.streams.size())) : QVariant();
    case NodeType::Buffer: {
        const engine::BufferSpec &b = m_workload.buffers[std::size_t(node.buffer)];
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(b.name);
        case KindColumn: return qs(engine::enumName(b.kind));
        case DetailsColumn: return QString::fromStdString(engine::formatBytes(b.bytes));
        }
        return {};
    }
    case NodeType::Stream: {
        const engine::StreamSpec &s = m_workload.streams[std::size_t(node.stream)];
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(s.name);
        case KindColumn: return s.useDefaultStream ? tr("default stream") : qs(engine::enumName(s.flags));
        case DetailsColumn:
            return tr("%n op(s)", nullptr, int(s.ops.size()))
                   + (s.priority != 0 ? tr(", priority %1").arg(s.priority) : QString());
        }
        return {};
    }
    case NodeType::Op: {
        const engine::OpSpec &op = m_workload.streams[std::size_t(node.stream)].ops[std::size_t(node.op)];
        switch (index.column()) {
        case NameColumn: return QString::fromStdString(op.name);
        case KindColumn: return qs(engine::enumName(op.type));
        case DetailsColumn: return QString::fromStdString(engine::describe(op, m_workload));
        }
        return {};
    }
    case NodeType::Invalid: break;
    }
    return {};
}

bool WorkloadTreeModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable))
        return false;
    const std::string name = value.toString().trimmed().toStdString();
    if (name.empty())
        return false;
    const Node node = nodeAt(index);
    const QString oldName = data(index.siblingAtColumn(NameColumn), Qt::EditRole).toString();
    if (QString::fromStdString(name) == oldName)
        return true; // an editor opened and closed without a change changes nothing
    switch (node.type) {
    case NodeType::Buffer: {
        // Renaming a buffer renames every reference to it, so the workload stays valid.
        std::string &current = m_workload.buffers[std::size_t(node.buffer)].name;
        const std::string old = current;
        current = name;
        for (engine::StreamSpec &s : m_workload.streams)
            for (engine::OpSpec &op : s.ops) {
                for (std::string *ref : {&op.src, &op.dst, &op.buffer})
                    if (*ref == old)
                        *ref = name;
            }
        break;
    }
    case NodeType::Stream: {
        std::string &current = m_workload.streams[std::size_t(node.stream)].name;
        const std::string old = current;
        current = name;
        for (engine::StreamSpec &s : m_workload.streams)
            for (engine::OpSpec &op : s.ops)
                if (op.syncStream == old)
                    op.syncStream = name;
        break;
    }
    case NodeType::Op: m_workload.streams[std::size_t(node.stream)].ops[std::size_t(node.op)].name = name; break;
    default: return false;
    }
    emit dataChanged(index, index);
    emit nameEdited(node, oldName, QString::fromStdString(name));
    return true;
}

Qt::ItemFlags WorkloadTreeModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    const NodeType type = nodeAt(index).type;
    if (index.column() == NameColumn && (type == NodeType::Buffer || type == NodeType::Stream || type == NodeType::Op))
        f |= Qt::ItemIsEditable;
    if (type == NodeType::Settings || type == NodeType::Buffer || type == NodeType::Op)
        f |= Qt::ItemNeverHasChildren;
    return f;
}

QVariant WorkloadTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case KindColumn: return tr("Kind");
    case DetailsColumn: return tr("Details");
    }
    return {};
}

} // namespace streamscope::ui
