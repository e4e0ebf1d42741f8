// WorkloadEditor: edits a workload two ways that stay in step: a structure tab (buffers, streams and their
// ops in a tree; add, remove, reorder; fields typed in a table beside it) and a JSON tab (the file's
// text). Every change is validated with engine::validateWorkloadText and each issue is shown where it
// is: on the tree row and field it concerns, as a marked line in the JSON, and in a list that jumps there.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include <QString>
#include <QTimer>
#include <QWidget>

#include <vector>

#include "engine/workload/workload.h"
#include "engine/workload/workload_parser.h"
#include "ui/editor/workload_tree_model.h"

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QTabWidget;
class QTableView;
class QTreeView;
class QToolBar;

namespace streamscope::ui {

class JsonTextPane;
class LargeTextView;
class WorkloadFieldsModel;

class WorkloadEditor : public QWidget {
    Q_OBJECT
public:
    explicit WorkloadEditor(QWidget *parent = nullptr);

    // A small valid workload to start from (one stream: H2D copy, kernel, D2H copy).
    static QString templateText();

    // Loads a workload file. Only an unreadable file fails (error says why); a file with problems is
    // loaded and its issues are shown, so it can be fixed here.
    bool loadFile(const QString &path, QString *error = nullptr);
    // Writes the JSON text atomically (engine::writeFileAtomically) and clears the modified flag.
    bool saveFile(const QString &path, QString *error = nullptr);
    // Replaces the document; fileName is used in messages and is not a path to save to.
    void setText(QString json, const QString &fileName = QString());
    QString text() const;
    // A text over this many bytes is shown read-only (JsonTextPane; the structure tab still edits it); applies
    // to the next text set or loaded.
    void setEditableTextBytes(qsizetype bytes);
    bool isTextReadOnly() const;
    QString filePath() const { return m_filePath; }
    QString displayName() const;
    bool isEmpty() const;
    bool isModified() const { return m_modified; }
    void setModified(bool modified);

    // Validates now (edits are otherwise validated after a short pause in typing).
    void validateNow();
    // Writes a value still being typed in the tree or the field table into the text and validates text
    // still waiting for its pause, so that Save (from any focus) saves what the user sees.
    void commitPendingEdits();
    const std::vector<engine::WorkloadIssue> &issues() const { return m_issues; }
    bool isValid() const { return !isEmpty() && m_issues.empty(); }

    // Structure edits; each regenerates the JSON text from the structure.
    void addBuffer();
    void addStream();
    void addOp(engine::OpType type);
    void removeSelected();
    void moveSelected(int delta); // -1 up, +1 down, within the same parent
    void selectNode(const WorkloadTreeModel::Node &node);
    WorkloadTreeModel::Node selectedNode() const;

    WorkloadTreeModel *treeModel() const { return m_treeModel; }
    WorkloadFieldsModel *fieldsModel() const { return m_fieldsModel; }
    QPlainTextEdit *jsonEdit() const;
    LargeTextView *largeTextView() const;
    QTreeView *treeView() const { return m_tree; }
    QListWidget *issueList() const { return m_issueList; }

signals:
    void modifiedChanged(bool modified);
    void issuesChanged(int count);
    void documentReplaced(); // a file was loaded or new text set

private:
    // What setText and loading a file share once the text is in place.
    void textSet(const QString &fileName);
    void onJsonEdited();
    // Structured edits write into the text, the one truth, changing only what they concern
    // (engine/util/json_edit.h), then the tree and the fields are rebuilt from it.
    void onFieldEdited(const WorkloadTreeModel::Node &node, const QString &key, const QString &oldText,
                       const QString &text, bool fieldsChanged, const QStringList &removedKeys);
    void onNameEdited(const WorkloadTreeModel::Node &node, const QString &oldName, const QString &newName);
    // The JSON pointer in the text of the object a tree row stands for; empty, with why, for rows the
    // text does not spell out (made by a "pipeline").
    // Buffers and streams are found by name (`name`, or the row's own), as the parser may have left out
    // an invalid one and shifted the rest.
    std::string textPointer(const WorkloadTreeModel::Node &node, QString *why, const QString &name = {}) const;
    // Structured edits act on the tree the text last gave: one still waiting for its pause is parsed first.
    void catchUp();
    // Applies an edit of the text (or shows why it cannot be done and puts the tree back as the text
    // says); selects `select` afterwards. Returns whether the text changed.
    bool editText(const std::function<std::string(const std::string &)> &edit, const WorkloadTreeModel::Node &select);
    void refuseEdit(const QString &why);
    // Appends entry to the top-level list ("buffers", "streams"), creating it when the text has none;
    // refused with pipelineRefusal when a "pipeline" makes that list.
    void appendToList(const char *list, const nlohmann::ordered_json &entry, const WorkloadTreeModel::Node &select,
                      const QString &pipelineRefusal);
    void applyIssues();
    void showIssue(int row);
    void updateActions();

    WorkloadTreeModel *m_treeModel;
    WorkloadFieldsModel *m_fieldsModel;
    QToolBar *m_toolbar;
    QTabWidget *m_tabs;
    QTreeView *m_tree;
    QTableView *m_fields;
    QLabel *m_fieldMessage;
    JsonTextPane *m_json;
    QLabel *m_status;
    QListWidget *m_issueList;
    QTimer m_validateTimer;
    QString m_filePath;
    QString m_fileName;
    bool m_modified = false;
    bool m_settingText = false; // the JSON text is being set by code, not typed
    bool m_structureStale = false; // the tree shows the last valid version of a JSON with problems
    std::vector<engine::WorkloadIssue> m_issues;
    QAction *m_addOpAction = nullptr;
    QAction *m_removeAction = nullptr;
    QAction *m_upAction = nullptr;
    QAction *m_downAction = nullptr;
};

} // namespace streamscope::ui
