// WorkloadFieldsModel: the editable fields of one row of the workload tree (the settings, a buffer, a
// stream or an op) as a two-column table, Field and Value. Values are typed as in a workload file
// ("16 MiB", "1.5 ms", "pinned"); a value that does not parse is refused with a message saying what is
// expected, and issues that validation finds later are shown on the field they concern.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>

#include <functional>
#include <vector>

#include "ui/editor/workload_tree_model.h"

namespace streamscope::ui {

class WorkloadFieldsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { FieldColumn, ValueColumn, ColumnCount };
    static constexpr int ChoicesRole = Qt::UserRole + 1; // QStringList of allowed values, empty = free text
    static constexpr int KeyRole = Qt::UserRole + 2; // the field's JSON key

    explicit WorkloadFieldsModel(WorkloadTreeModel *tree, QObject *parent = nullptr);

    // Shows the fields of a tree row (an invalid node clears the table).
    void setNode(const WorkloadTreeModel::Node &node);
    WorkloadTreeModel::Node node() const { return m_node; }
    void setIssues(const std::vector<engine::WorkloadIssue> &issues);
    // The row of a field by JSON key, -1 if the current node has no such field.
    int rowOf(const QString &key) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    // A value was refused: message says which field, what was typed and what is expected.
    void editRejected(const QString &message);
    // A value was accepted (and previewed in the tree's workload): the editor writes it into its text.
    // oldText: the field's value before. removedKeys: fields the edit made disappear (an op's type, a
    // stream's "use the default stream"); fieldsChanged: the row's set of fields changed.
    void fieldEdited(const WorkloadTreeModel::Node &node, const QString &key, const QString &oldText,
                     const QString &text, bool fieldsChanged, const QStringList &removedKeys);

private:
    struct Field {
        QString key;
        QString label;
        std::function<QString()> get;
        // Applies text; returns an empty string on success, else what is expected.
        std::function<QString(const QString &)> set;
        QStringList choices;
    };
    void rebuild();
    void buildSettingsFields();
    void buildBufferFields(int buffer);
    void buildStreamFields(int stream);
    void buildOpFields(int stream, int op);
    // A collective's: its type, size, dtype, and the reduction, root or peer where its type has one.
    void gemmFields(const std::function<engine::OpSpec &()> &op);
    void buildCollectiveFields(const std::function<engine::OpSpec &()> &op);

    WorkloadTreeModel *m_tree;
    WorkloadTreeModel::Node m_node;
    std::vector<Field> m_fields;
    std::vector<engine::WorkloadIssue> m_issues;
};

} // namespace streamscope::ui
