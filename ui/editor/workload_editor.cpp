// WorkloadEditor: the JSON text is the one truth, the document that is saved and run; the tree and the
// fields are rebuilt from it whenever it parses. A structured edit (a field, a name, a new or removed
// buffer, stream or op, a move) changes the text where that thing is written and nothing else
// (engine/util/json_edit.h): comments, key order, "repeat" groups and size spellings survive, and
// Ctrl+Z in the text undoes it. Rows a "pipeline" makes have no text of their own: their edits are
// refused with that reason. Typing in the JSON re-parses it after a pause.
#include "ui/editor/workload_editor.h"
#include "ui/common/format_units.h"

#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "engine/model/errors.h"
#include "engine/util/file_util.h"
#include "engine/util/json_edit.h"
#include "engine/util/json_locator.h"
#include "engine/workload/workload_names.h"
#include "ui/editor/json_text_pane.h"
#include "ui/editor/large_text_view.h"
#include "ui/editor/workload_fields_model.h"

namespace streamscope::ui {

namespace {

using NodeType = WorkloadTreeModel::NodeType;

// Every row open but the ops of a stream of more than kOpenOps: QTreeView keeps an item for every row shown
// (1M ops: about 40 MB, and seconds to lay out). Such a stream opens when one of its ops is selected (an
// issue's, say), or by hand.
constexpr int kOpenOps = 10'000;
void expandRows(QTreeView &tree, const WorkloadTreeModel &model)
{
    tree.expandToDepth(0);
    const QModelIndex streams = model.indexOf({NodeType::StreamsGroup, -1, -1, -1});
    for (int row = 0; row < model.rowCount(streams); ++row)
        if (const QModelIndex stream = model.index(row, 0, streams); model.rowCount(stream) <= kOpenOps)
            tree.expand(stream);
}

// Fields with a fixed set of values are edited with an editable combo box (buffer names can still be
// typed, so a buffer that does not exist yet can be referenced and shows up as an issue).
class ChoiceDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        const QStringList choices = index.data(WorkloadFieldsModel::ChoicesRole).toStringList();
        if (choices.isEmpty())
            return QStyledItemDelegate::createEditor(parent, option, index);
        auto *combo = new QComboBox(parent);
        combo->setEditable(true);
        combo->addItems(choices);
        return combo;
    }
    void setEditorData(QWidget *editor, const QModelIndex &index) const override
    {
        if (auto *combo = qobject_cast<QComboBox *>(editor)) {
            combo->setCurrentText(index.data(Qt::EditRole).toString());
            return;
        }
        QStyledItemDelegate::setEditorData(editor, index);
    }
    void setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const override
    {
        if (auto *combo = qobject_cast<QComboBox *>(editor)) {
            model->setData(index, combo->currentText());
            return;
        }
        QStyledItemDelegate::setModelData(editor, model, index);
    }
};

// A name not used yet: base, base1, base2, ...
template <typename Range, typename NameOf>
std::string uniqueName(const Range &range, NameOf nameOf, const std::string &base)
{
    for (int n = 0;; ++n) {
        const std::string candidate = n == 0 ? base : base + std::to_string(n);
        bool used = false;
        for (const auto &item : range)
            used = used || nameOf(item) == candidate;
        if (!used)
            return candidate;
    }
}

} // namespace

WorkloadEditor::WorkloadEditor(QWidget *parent) :
    QWidget(parent), m_treeModel(new WorkloadTreeModel(this)),
    m_fieldsModel(new WorkloadFieldsModel(m_treeModel, this)), m_toolbar(new QToolBar(this)),
    m_tabs(new QTabWidget(this)), m_tree(new QTreeView(this)), m_fields(new QTableView(this)),
    m_fieldMessage(new QLabel(this)), m_json(new JsonTextPane(this)), m_status(new QLabel(this)),
    m_issueList(new QListWidget(this))
{
    m_tree->setObjectName(QStringLiteral("workloadTree"));
    m_tree->setModel(m_treeModel);
    m_tree->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_tree->header()->setSectionResizeMode(WorkloadTreeModel::NameColumn, QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(true);
    m_tree->setAlternatingRowColors(true);

    m_fields->setObjectName(QStringLiteral("workloadFields"));
    m_fields->setModel(m_fieldsModel);
    m_fields->setItemDelegate(new ChoiceDelegate(m_fields));
    m_fields->verticalHeader()->hide();
    m_fields->horizontalHeader()->setSectionResizeMode(WorkloadFieldsModel::FieldColumn, QHeaderView::ResizeToContents);
    m_fields->horizontalHeader()->setStretchLastSection(true);
    m_fields->setEditTriggers(QAbstractItemView::AllEditTriggers);
    m_fieldMessage->setWordWrap(true);
    m_fieldMessage->setObjectName(QStringLiteral("fieldMessage"));
    m_fieldMessage->setStyleSheet(QStringLiteral("color: #d55e00"));
    m_fieldMessage->hide();

    // The problem list wraps long messages (a workload's problems name a JSON path, a line and what was
    // expected) and sits in a splitter under the tabs, so it can be made as tall as needed; each entry's
    // tooltip repeats it whole.
    m_issueList->setObjectName(QStringLiteral("workloadIssues"));
    m_issueList->setWordWrap(true);
    m_issueList->setTextElideMode(Qt::ElideNone);
    m_issueList->setResizeMode(QListView::Adjust);
    m_issueList->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_issueList->setMinimumHeight(m_issueList->fontMetrics().lineSpacing() * 5);
    m_status->setObjectName(QStringLiteral("workloadStatus"));
    m_status->setWordWrap(true);

    // Toolbar: structure edits.
    auto *addBufferAction = m_toolbar->addAction(tr("+ Buffer"), this, &WorkloadEditor::addBuffer);
    addBufferAction->setToolTip(tr("Add a buffer"));
    auto *addStreamAction = m_toolbar->addAction(tr("+ Stream"), this, &WorkloadEditor::addStream);
    addStreamAction->setToolTip(tr("Add a stream"));
    auto *opMenu = new QMenu(this);
    for (std::size_t i = 0; i < engine::enumNames<engine::OpType>().size(); ++i) {
        const auto type = engine::OpType(i);
        opMenu->addAction(qs(engine::enumName(type)), this, [this, type] { addOp(type); });
    }
    m_addOpAction = m_toolbar->addAction(tr("+ Op"));
    m_addOpAction->setMenu(opMenu);
    m_addOpAction->setToolTip(tr("Add an operation to the selected stream (after the selected op)"));
    if (auto *button = qobject_cast<QToolButton *>(m_toolbar->widgetForAction(m_addOpAction)))
        button->setPopupMode(QToolButton::InstantPopup);
    m_removeAction = m_toolbar->addAction(tr("Remove"), this, &WorkloadEditor::removeSelected);
    m_upAction = m_toolbar->addAction(tr("Up"), this, [this] { moveSelected(-1); });
    m_downAction = m_toolbar->addAction(tr("Down"), this, [this] { moveSelected(+1); });

    auto *fieldsBox = new QWidget(this);
    auto *fieldsLayout = new QVBoxLayout(fieldsBox);
    fieldsLayout->setContentsMargins(0, 0, 0, 0);
    fieldsLayout->addWidget(m_fields, 1);
    fieldsLayout->addWidget(m_fieldMessage);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tree);
    split->addWidget(fieldsBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *structure = new QWidget(this);
    auto *structureLayout = new QVBoxLayout(structure);
    structureLayout->setContentsMargins(0, 0, 0, 0);
    structureLayout->addWidget(m_toolbar);
    structureLayout->addWidget(split, 1);
    m_tabs->addTab(structure, tr("&Structure"));
    m_tabs->addTab(m_json, tr("&JSON"));

    // A hidden list (no problems) gives its room back to the tabs.
    auto *outer = new QSplitter(Qt::Vertical, this);
    outer->setObjectName(QStringLiteral("workloadIssueSplitter"));
    outer->setChildrenCollapsible(false);
    outer->addWidget(m_tabs);
    outer->addWidget(m_issueList);
    outer->setStretchFactor(0, 4);
    outer->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(outer, 1);
    layout->addWidget(m_status);

    m_validateTimer.setSingleShot(true);
    m_validateTimer.setInterval(400);
    connect(&m_validateTimer, &QTimer::timeout, this, &WorkloadEditor::validateNow);
    connect(m_json->edit(), &QPlainTextEdit::textChanged, this, &WorkloadEditor::onJsonEdited);
    connect(m_treeModel, &WorkloadTreeModel::nameEdited, this, &WorkloadEditor::onNameEdited);
    connect(m_fieldsModel, &WorkloadFieldsModel::fieldEdited, this, &WorkloadEditor::onFieldEdited);
    connect(m_fieldsModel, &WorkloadFieldsModel::editRejected, this, [this](const QString &message) {
        m_fieldMessage->setText(message);
        m_fieldMessage->show();
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex &current) {
        m_fieldsModel->setNode(m_treeModel->nodeAt(current));
        m_fieldMessage->hide();
        updateActions();
    });
    connect(m_issueList, &QListWidget::itemActivated, this,
            [this](QListWidgetItem *item) { showIssue(m_issueList->row(item)); });
    connect(m_issueList, &QListWidget::itemClicked, this,
            [this](QListWidgetItem *item) { showIssue(m_issueList->row(item)); });
    setText(QString());
}

QString WorkloadEditor::templateText()
{
    return QStringLiteral(R"({
  "version": 1,
  "name": "my-workload",
  "description": "Copy in, compute, copy out on one stream: every step waits for the one before.",
  "repetitions": 5,
  "warmup": 1,
  "buffers": [
    {"name": "host", "kind": "pinned", "bytes": "16 MiB"},
    {"name": "dev", "kind": "device", "bytes": "16 MiB"}
  ],
  "streams": [
    {"name": "s0", "ops": [
      {"op": "copy", "direction": "h2d", "src": "host", "dst": "dev", "bytes": "16 MiB"},
      {"op": "kernel", "type": "compute", "duration": "1 ms"},
      {"op": "copy", "direction": "d2h", "src": "dev", "dst": "host", "bytes": "16 MiB"}
    ]}
  ]
}
)");
}

bool WorkloadEditor::loadFile(const QString &path, QString *error)
{
    std::string content;
    try {
        content = engine::readFile(path.toStdString(), engine::limits::kMaxWorkloadFileBytes, "a workload");
    } catch (const engine::Error &e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    if (qsizetype(content.size()) > m_json->editableBytes()) { // kept as read, never as UTF-16
        m_settingText = true;
        m_json->setText(std::move(content));
        m_settingText = false;
        textSet(QFileInfo(path).fileName());
    } else {
        QString json = QString::fromStdString(content);
        std::string().swap(content); // the file's bytes, no longer needed while the text is parsed
        setText(std::move(json), QFileInfo(path).fileName());
    }
    m_filePath = path;
    return true;
}

bool WorkloadEditor::saveFile(const QString &path, QString *error)
{
    try {
        engine::writeFileAtomically(path.toStdString(), text().toStdString());
    } catch (const engine::Error &e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    m_filePath = path;
    m_fileName = QFileInfo(path).fileName();
    setModified(false);
    return true;
}

void WorkloadEditor::setText(QString json, const QString &fileName)
{
    m_settingText = true;
    m_json->setText(json);
    json = QString(); // the document holds its own copy
    m_settingText = false;
    textSet(fileName);
}

void WorkloadEditor::textSet(const QString &fileName)
{
    m_filePath.clear();
    m_fileName = fileName.isEmpty() ? tr("untitled.json") : fileName;
    m_tabs->setTabText(1, m_json->isReadOnly() ? tr("&JSON (read-only)") : tr("&JSON"));
    m_treeModel->setWorkload(engine::Workload{});
    m_structureStale = false;
    validateNow();
    expandRows(*m_tree, *m_treeModel);
    // Start on the settings, so the field table shows what a workload is made of.
    if (!isEmpty())
        selectNode({NodeType::Settings, -1, -1, -1});
    setModified(false);
    emit documentReplaced();
}

QString WorkloadEditor::text() const
{
    return m_json->text();
}

void WorkloadEditor::setEditableTextBytes(qsizetype bytes)
{
    m_json->setEditableBytes(bytes);
}

bool WorkloadEditor::isTextReadOnly() const
{
    return m_json->isReadOnly();
}

QPlainTextEdit *WorkloadEditor::jsonEdit() const
{
    return m_json->edit();
}

LargeTextView *WorkloadEditor::largeTextView() const
{
    return m_json->largeView();
}

QString WorkloadEditor::displayName() const
{
    return m_fileName;
}

bool WorkloadEditor::isEmpty() const
{
    return m_json->isBlank();
}

void WorkloadEditor::setModified(bool modified)
{
    if (m_modified == modified)
        return;
    m_modified = modified;
    emit modifiedChanged(modified);
}

void WorkloadEditor::onJsonEdited()
{
    if (m_settingText)
        return;
    // A refused field edit's message is about a value the text no longer holds.
    m_fieldMessage->hide();
    setModified(true);
    m_validateTimer.start();
}

void WorkloadEditor::validateNow()
{
    m_validateTimer.stop();
    // The document's text once (each toPlainText() is a copy: 54 MB for a 27 MB workload), kept only
    // as UTF-8 for the reader; a read-only text is UTF-8 already.
    const std::string copy = m_json->isReadOnly() ? std::string() : m_json->utf8Text();
    const std::string &text = m_json->isReadOnly() ? m_json->largeView()->text() : copy;
    if (m_json->isBlank()) {
        m_issues.clear();
        m_treeModel->setWorkload(engine::Workload{});
        applyIssues();
        return;
    }
    const std::string fileName = m_fileName.toStdString();
    // One parse: the issues, and the workload as far as it could be read, so that the tree shows what the
    // text says even while it has problems (a stream just added has no ops yet). Only text that is not
    // JSON at all leaves the tree showing the last version that was.
    std::vector<engine::WorkloadIssue> issues;
    bool isJson = false; // the reader says, instead of a second pass over the text
    engine::Workload workload = engine::readWorkloadText(text, fileName, issues, &isJson);
    m_issues = std::move(issues);
    if (isJson) {
        const WorkloadTreeModel::Node keep = selectedNode();
        m_treeModel->setWorkload(std::move(workload)); // the tree keeps it: no second copy
        m_structureStale = false;
        expandRows(*m_tree, *m_treeModel);
        selectNode(keep);
    } else {
        m_structureStale = true;
    }
    applyIssues();
}

void WorkloadEditor::applyIssues()
{
    m_treeModel->setIssues(m_issues);
    m_fieldsModel->setIssues(m_issues);
    m_issueList->clear();
    for (const engine::WorkloadIssue &issue : m_issues) {
        QString text;
        if (issue.line > 0)
            text += tr("line %1").arg(issue.line) + (issue.column > 0 ? tr(", column %1").arg(issue.column) : QString())
                    + QStringLiteral(": ");
        if (!issue.jsonPath.empty())
            text += QString::fromStdString(issue.jsonPath) + QStringLiteral(": ");
        text += QString::fromStdString(issue.message);
        auto *item = new QListWidgetItem(text, m_issueList);
        item->setForeground(QColor(0xd5, 0x5e, 0x00));
        item->setToolTip(text);
    }
    m_json->markIssues(m_issues);
    m_issueList->setVisible(!m_issues.empty());
    if (m_issues.empty())
        m_fieldMessage->hide(); // what it refused cannot still be a problem of a valid workload
    if (isEmpty())
        m_status->setText(
            tr("No workload: open one from the lessons or File > Open, or start with File > New workload."));
    else if (m_issues.empty())
        m_status->setText(tr("✓ Valid: %1 streams, %2 ops.")
                              .arg(m_treeModel->workload().streams.size())
                              .arg(m_treeModel->workload().opCount()));
    else
        m_status->setText(tr("⚠ %n problem(s). ", nullptr, int(m_issues.size()))
                          + (m_structureStale ? tr("The structure tab shows the last valid version.") : QString()));
    updateActions();
    emit issuesChanged(int(m_issues.size()));
}

void WorkloadEditor::showIssue(int row)
{
    if (row < 0 || row >= int(m_issues.size()))
        return;
    const engine::WorkloadIssue &issue = m_issues[std::size_t(row)];
    // Prefer the structure row the issue concerns (a buffer, a stream or an op); fall back to the line in
    // the JSON (the settings' issues too).
    const WorkloadTreeModel::Node node = WorkloadTreeModel::nodeOfPath(QString::fromStdString(issue.jsonPath));
    const bool onARow = node.type == NodeType::Buffer || node.type == NodeType::Stream || node.type == NodeType::Op;
    if (!m_structureStale && onARow && m_treeModel->indexOf(node).isValid() && m_tabs->currentIndex() == 0) {
        selectNode(node);
        return;
    }
    if (issue.line > 0) {
        m_tabs->setCurrentWidget(m_json);
        m_json->showPosition(issue.line, issue.column);
    }
}

WorkloadTreeModel::Node WorkloadEditor::selectedNode() const
{
    return m_treeModel->nodeAt(m_tree->currentIndex());
}

void WorkloadEditor::selectNode(const WorkloadTreeModel::Node &node)
{
    const QModelIndex index = m_treeModel->indexOf(node);
    if (!index.isValid())
        return;
    m_tree->setCurrentIndex(index);
    m_tree->scrollTo(index);
}

void WorkloadEditor::updateActions()
{
    const WorkloadTreeModel::Node node = selectedNode();
    const bool item = node.type == NodeType::Buffer || node.type == NodeType::Stream || node.type == NodeType::Op;
    m_addOpAction->setEnabled(node.type == NodeType::Stream || node.type == NodeType::Op);
    m_removeAction->setEnabled(item);
    m_upAction->setEnabled(item);
    m_downAction->setEnabled(item);
}

namespace {

using Json = nlohmann::ordered_json;

// A typed field value as the text writes it: whole numbers as numbers, everything else ("16 MiB",
// "1.5 ms", "pinned", names) as strings, which is how workload files spell them.
Json typedValue(const QString &key, const QString &text)
{
    static const QStringList kStrings = {
        QStringLiteral("name"),   QStringLiteral("description"), QStringLiteral("src"),   QStringLiteral("dst"),
        QStringLiteral("buffer"), QStringLiteral("event"),       QStringLiteral("stream")};
    if (!kStrings.contains(key)) {
        if (text == QLatin1String("true") || text == QLatin1String("false"))
            return text == QLatin1String("true");
        bool ok = false;
        const qlonglong v = text.toLongLong(&ok);
        if (ok)
            return v;
    }
    return text.toStdString();
}

Json parsedText(const std::string &text)
{
    return Json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
}

bool hasObjectAt(const Json &root, const std::string &pointer)
{
    const Json::json_pointer p(pointer);
    return root.contains(p) && root.at(p).is_object();
}

// Pointers of the objects under `at` (ops inside groups included) whose `key` is `value`.
void collectReferences(const Json &value, const std::string &at, const std::vector<std::string> &keys,
                       const std::string &name, std::vector<std::pair<std::string, std::string>> &out)
{
    if (value.is_object()) {
        for (const auto &[k, v] : value.items()) {
            if (v.is_string() && v.get<std::string>() == name && std::find(keys.begin(), keys.end(), k) != keys.end())
                out.emplace_back(at, k);
            collectReferences(v, engine::JsonLocator::child(at, k), keys, name, out);
        }
    } else if (value.is_array()) {
        for (std::size_t i = 0; i < value.size(); ++i)
            collectReferences(value[i], engine::JsonLocator::child(at, i), keys, name, out);
    }
}

// "/streams/0/ops/3" -> ("/streams/0/ops", 3); none when the last segment is not an index.
std::optional<std::pair<std::string, std::size_t>> arrayElement(const std::string &pointer)
{
    const auto slash = pointer.rfind('/');
    if (slash == std::string::npos || slash + 1 >= pointer.size())
        return std::nullopt;
    const std::string last = pointer.substr(slash + 1);
    if (!std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    return std::pair{pointer.substr(0, slash), std::size_t(std::stoul(last))};
}

} // namespace

void WorkloadEditor::commitPendingEdits()
{
    // An open cell editor (a field value or a name being typed) commits its value as leaving it would.
    for (QAbstractItemView *view :
         {static_cast<QAbstractItemView *>(m_fields), static_cast<QAbstractItemView *>(m_tree)}) {
        const QModelIndex current = view->currentIndex();
        if (!current.isValid())
            continue;
        if (QWidget *editor = view->indexWidget(current)) {
            if (QAbstractItemDelegate *delegate = view->itemDelegateForIndex(current)) {
                emit delegate->commitData(editor);
                emit delegate->closeEditor(editor, QAbstractItemDelegate::NoHint);
            }
        }
    }
    catchUp();
}

void WorkloadEditor::catchUp()
{
    if (m_validateTimer.isActive())
        validateNow();
}

std::string WorkloadEditor::textPointer(const WorkloadTreeModel::Node &node, QString *why, const QString &name) const
{
    const Json root = parsedText(m_json->utf8Text());
    if (!root.is_object()) {
        *why = tr("The JSON text has a problem; fix it there first.");
        return {};
    }
    const engine::Workload &w = m_treeModel->workload();
    switch (node.type) {
    case NodeType::Settings: return "";
    case NodeType::Buffer:
    case NodeType::Stream: {
        const bool buffer = node.type == NodeType::Buffer;
        const int index = buffer ? node.buffer : node.stream;
        const int count = int(buffer ? w.buffers.size() : w.streams.size());
        const char *list = buffer ? "buffers" : "streams";
        if (index >= 0 && index < count && root.contains(list) && root[list].is_array()) {
            // By name: the parser leaves out an entry it cannot read, so indexes may not line up.
            const std::string wanted = !name.isEmpty() ? name.toStdString()
                                       : buffer        ? w.buffers[std::size_t(index)].name
                                                       : w.streams[std::size_t(index)].name;
            const Json &entries = root[list];
            for (std::size_t i = 0; i < entries.size(); ++i)
                if (entries[i].is_object() && entries[i].value("name", std::string()) == wanted)
                    return "/" + std::string(list) + "/" + std::to_string(i);
            // A stream without a name in the text has the name the parser gave it: its index then.
            if (!buffer && std::size_t(index) < entries.size() && entries[std::size_t(index)].is_object()
                && !entries[std::size_t(index)].contains("name"))
                return "/streams/" + std::to_string(index);
        }
        *why = buffer ? tr("This buffer is not written in the JSON text (the workload's \"pipeline\" makes it); "
                           "change it there.")
                      : tr("This stream is not written in the JSON text (the workload's \"pipeline\" makes it); "
                           "change it there.");
        return {};
    }
    case NodeType::Op: {
        if (node.stream >= 0 && node.stream < int(w.streams.size()) && node.op >= 0
            && node.op < int(w.streams[std::size_t(node.stream)].ops.size())) {
            const std::string &pointer = w.streams[std::size_t(node.stream)].ops[std::size_t(node.op)].jsonPath;
            if (pointer.rfind("/streams/", 0) == 0 && hasObjectAt(root, pointer))
                return pointer;
        }
        *why = tr("This op is made by the workload's \"pipeline\"; change the pipeline in the JSON text.");
        return {};
    }
    default: break;
    }
    *why = tr("Select a buffer, a stream or an op.");
    return {};
}

void WorkloadEditor::refuseEdit(const QString &why)
{
    const WorkloadTreeModel::Node keep = selectedNode();
    validateNow(); // the tree shows the text again, not the refused preview
    selectNode(keep);
    // After the tree is rebuilt: a new current row hides the message.
    m_fieldMessage->setText(why);
    m_fieldMessage->show();
}

bool WorkloadEditor::editText(const std::function<std::string(const std::string &)> &edit,
                              const WorkloadTreeModel::Node &select)
{
    const std::string before = m_json->utf8Text();
    std::string after;
    try {
        after = edit(before);
    } catch (const engine::Error &e) {
        refuseEdit(qs(e.what()));
        return false;
    }
    if (after == before) {
        validateNow();
        return false;
    }
    if (!Json::accept(after, /*ignore_comments=*/true)) {
        // A defect of the text edit, never the user's: refuse rather than break their file.
        refuseEdit(
            tr("This edit could not be written into the JSON text without breaking it; make it in the JSON tab."));
        return false;
    }
    m_settingText = true;
    m_json->replaceText(std::move(after)); // one step Ctrl+Z in the text takes back
    m_settingText = false;
    setModified(true);
    validateNow();
    expandRows(*m_tree, *m_treeModel);
    selectNode(select);
    return true;
}

void WorkloadEditor::onFieldEdited(const WorkloadTreeModel::Node &node, const QString &key, const QString &oldText,
                                   const QString &text, bool fieldsChanged, const QStringList &removedKeys)
{
    if (key == QLatin1String("name") && (node.type == NodeType::Buffer || node.type == NodeType::Stream)) {
        onNameEdited(node, oldText, text); // its references follow it
        return;
    }
    QString why;
    const std::string pointer = textPointer(node, &why);
    if (node.type != NodeType::Settings && pointer.empty()) {
        refuseEdit(why);
        return;
    }
    m_fieldMessage->hide();
    if (fieldsChanged && node.type == NodeType::Op) {
        // An op's type changed which fields it has: the op is written anew from the previewed workload,
        // keeping what the expansion does not carry (its own name, a "repeat").
        const Json normalized = Json::parse(engine::workloadToJson(m_treeModel->workload()));
        Json op = normalized.at(
            Json::json_pointer("/streams/" + std::to_string(node.stream) + "/ops/" + std::to_string(node.op)));
        const Json original = parsedText(m_json->utf8Text()).at(Json::json_pointer(pointer));
        if (!original.contains("name"))
            op.erase("name");
        if (original.contains("repeat"))
            op["repeat"] = original["repeat"];
        editText([&](const std::string &t) { return engine::jsonReplaceValue(t, pointer, op); }, node);
        return;
    }
    editText(
        [&](const std::string &t) {
            // An emptied field goes back to its default: the member leaves the text.
            std::string out = text.isEmpty()
                                  ? engine::jsonRemoveMember(t, pointer, key.toStdString())
                                  : engine::jsonSetMember(t, pointer, key.toStdString(), typedValue(key, text));
            for (const QString &gone : removedKeys)
                out = engine::jsonRemoveMember(out, pointer, gone.toStdString());
            return out;
        },
        node);
}

void WorkloadEditor::onNameEdited(const WorkloadTreeModel::Node &node, const QString &oldName, const QString &newName)
{
    QString why;
    const std::string pointer = textPointer(node, &why, oldName);
    if (pointer.empty() || node.type == NodeType::Settings) {
        refuseEdit(why);
        return;
    }
    // The references to a renamed buffer or stream follow it, so the workload stays valid.
    std::vector<std::string> keys;
    if (node.type == NodeType::Buffer)
        keys = {"src", "dst", "buffer"};
    else if (node.type == NodeType::Stream)
        keys = {"stream"};
    editText(
        [&](const std::string &t) {
            std::string out = engine::jsonSetMember(t, pointer, "name", newName.toStdString());
            if (!keys.empty()) {
                std::vector<std::pair<std::string, std::string>> refs;
                const Json root = parsedText(out);
                if (root.contains("streams"))
                    collectReferences(root["streams"], "/streams", keys, oldName.toStdString(), refs);
                for (const auto &[object, key] : refs)
                    out = engine::jsonSetMember(out, object, key, newName.toStdString());
            }
            return out;
        },
        node);
}

void WorkloadEditor::appendToList(const char *list, const Json &entry, const WorkloadTreeModel::Node &select,
                                  const QString &pipelineRefusal)
{
    editText(
        [&](const std::string &t) {
            const Json root = parsedText(t);
            if (root.contains("pipeline"))
                throw engine::Error(engine::ErrorKind::InvalidInput, pipelineRefusal.toStdString());
            return root.contains(list) ? engine::jsonAppendElement(t, std::string("/") + list, entry)
                                       : engine::jsonSetMember(t, "", list, Json::array({entry}));
        },
        select);
}

void WorkloadEditor::addBuffer()
{
    catchUp();
    const engine::Workload &w = m_treeModel->workload();
    const Json buffer = {{"name", uniqueName(
                                      w.buffers, [](const engine::BufferSpec &b) { return b.name; }, "buffer")},
                         {"kind", "device"},
                         {"bytes", "16 MiB"}};
    appendToList("buffers", buffer, {NodeType::Buffer, int(w.buffers.size()), -1, -1},
                 tr("This workload's buffers are made by its \"pipeline\"; add buffers in the JSON text."));
}

void WorkloadEditor::addStream()
{
    catchUp();
    const engine::Workload &w = m_treeModel->workload();
    std::string name = uniqueName(
        w.streams, [](const engine::StreamSpec &s) { return s.name; }, "s");
    if (name == "s")
        name = "s" + std::to_string(w.streams.size());
    appendToList("streams", {{"name", name}, {"ops", Json::array()}}, {NodeType::Stream, -1, int(w.streams.size()), -1},
                 tr("This workload's streams are made by its \"pipeline\"; add streams in the JSON text."));
}

void WorkloadEditor::addOp(engine::OpType type)
{
    catchUp();
    const WorkloadTreeModel::Node selected = selectedNode();
    if (selected.type != NodeType::Stream && selected.type != NodeType::Op)
        return;
    QString why;
    const std::string streamPointer = textPointer({NodeType::Stream, -1, selected.stream, -1}, &why);
    if (streamPointer.empty()) {
        refuseEdit(why);
        return;
    }
    engine::Workload w = m_treeModel->workload();
    engine::StreamSpec &stream = w.streams[std::size_t(selected.stream)];
    engine::OpSpec op;
    op.type = type;
    // Sensible defaults from the buffers at hand, so a new op is usually valid at once.
    const engine::BufferSpec *host = nullptr;
    const engine::BufferSpec *device = nullptr;
    for (const engine::BufferSpec &b : w.buffers) {
        if (!device && (b.kind == engine::BufferKind::Device || b.kind == engine::BufferKind::Managed))
            device = &b;
        if (!host && b.kind != engine::BufferKind::Device)
            host = &b;
    }
    switch (type) {
    case engine::OpType::Copy:
        op.direction = engine::CopyDirection::H2D;
        op.src = host ? host->name : std::string();
        op.dst = device ? device->name : std::string();
        op.bytes = host && device ? std::min(host->bytes, device->bytes) : (1ull << 20);
        break;
    case engine::OpType::Kernel: op.durationNs = 1'000'000; break;
    case engine::OpType::Memset:
    case engine::OpType::Prefetch:
    case engine::OpType::Advise:
    case engine::OpType::Attach:
        op.buffer = device ? device->name : std::string();
        op.bytes = device ? device->bytes : 0;
        break;
    case engine::OpType::EventRecord:
    case engine::OpType::EventWait: op.event = "e0"; break;
    case engine::OpType::HostWork: op.hostNs = 100'000; break;
    case engine::OpType::Sync: op.syncTarget = engine::SyncTarget::Stream; break;
    case engine::OpType::Collective: op.bytes = 64ull << 20; break; // an all-reduce of 64 MiB in bf16
    }
    op.name = engine::describe(op, w);
    stream.ops.push_back(op);
    // The op as the format writes it (the generated name left out: the parser generates it again).
    Json written = Json::parse(engine::workloadToJson(w))
                       .at(Json::json_pointer(streamPointer + "/ops/" + std::to_string(stream.ops.size() - 1)));
    written.erase("name");
    // After the selected op when it is written in this stream's own list, else at the end.
    const std::string opsPointer = streamPointer + "/ops";
    std::size_t at = std::size_t(-1);
    int treePosition = int(stream.ops.size()) - 1;
    if (selected.type == NodeType::Op) {
        const auto element = arrayElement(
            m_treeModel->workload().streams[std::size_t(selected.stream)].ops[std::size_t(selected.op)].jsonPath);
        if (element && element->first == opsPointer) {
            at = element->second + 1;
            treePosition = selected.op + 1;
        }
    }
    editText(
        [&](const std::string &t) {
            const Json root = parsedText(t);
            if (!root.at(Json::json_pointer(streamPointer)).contains("ops"))
                return engine::jsonSetMember(t, streamPointer, "ops", Json::array({written}));
            return at == std::size_t(-1) ? engine::jsonAppendElement(t, opsPointer, written)
                                         : engine::jsonInsertElement(t, opsPointer, at, written);
        },
        {NodeType::Op, -1, selected.stream, treePosition});
}

void WorkloadEditor::removeSelected()
{
    catchUp();
    const WorkloadTreeModel::Node node = selectedNode();
    if (node.type != NodeType::Buffer && node.type != NodeType::Stream && node.type != NodeType::Op)
        return;
    QString why;
    const std::string pointer = textPointer(node, &why);
    const auto element = arrayElement(pointer);
    if (!element) {
        refuseEdit(why.isEmpty() ? tr("This row is not an element of a list in the JSON text.") : why);
        return;
    }
    WorkloadTreeModel::Node next = node;
    const engine::Workload &w = m_treeModel->workload();
    switch (node.type) {
    case NodeType::Buffer:
        next.buffer = std::min(node.buffer, int(w.buffers.size()) - 2);
        if (next.buffer < 0)
            next = {NodeType::BuffersGroup, -1, -1, -1};
        break;
    case NodeType::Stream:
        next.stream = std::min(node.stream, int(w.streams.size()) - 2);
        if (next.stream < 0)
            next = {NodeType::StreamsGroup, -1, -1, -1};
        break;
    default:
        next.op = std::min(node.op, int(w.streams[std::size_t(node.stream)].ops.size()) - 2);
        if (next.op < 0)
            next = {NodeType::Stream, -1, node.stream, -1};
        break;
    }
    editText([&](const std::string &t) { return engine::jsonRemoveElement(t, element->first, element->second); }, next);
}

void WorkloadEditor::moveSelected(int delta)
{
    catchUp();
    const WorkloadTreeModel::Node node = selectedNode();
    if (node.type != NodeType::Buffer && node.type != NodeType::Stream && node.type != NodeType::Op)
        return;
    QString why;
    const std::string pointer = textPointer(node, &why);
    const auto element = arrayElement(pointer);
    if (!element) {
        refuseEdit(why.isEmpty() ? tr("This row is not an element of a list in the JSON text.") : why);
        return;
    }
    const Json root = parsedText(m_json->utf8Text());
    const long long to = (long long)element->second + delta;
    if (to < 0 || to >= (long long)root.at(Json::json_pointer(element->first)).size())
        return; // already first or last in its list
    WorkloadTreeModel::Node moved = node;
    if (node.type == NodeType::Buffer)
        moved.buffer += delta;
    else if (node.type == NodeType::Stream)
        moved.stream += delta;
    else
        moved.op += delta;
    editText(
        [&](const std::string &t) {
            return engine::jsonSwapElements(t, element->first, element->second, std::size_t(to));
        },
        moved);
}

} // namespace streamscope::ui
