// WorkloadEditor: the structure is the parsed workload (WorkloadTreeModel); the JSON text is the document
// that is saved and run. A structure edit rewrites the text with engine::workloadToJson; typing in the
// JSON re-parses it after a pause and, when it is valid, replaces the structure.
#include "ui/workload_editor.h"

#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableView>
#include <QTextBlock>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include "engine/errors.h"
#include "engine/file_util.h"
#include "engine/workload_names.h"
#include "ui/workload_fields_model.h"

namespace streamscope::ui {

namespace {

using NodeType = WorkloadTreeModel::NodeType;

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

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

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

WorkloadEditor::WorkloadEditor(QWidget *parent)
    : QWidget(parent), m_treeModel(new WorkloadTreeModel(this)),
      m_fieldsModel(new WorkloadFieldsModel(m_treeModel, this)), m_toolbar(new QToolBar(this)),
      m_tabs(new QTabWidget(this)), m_tree(new QTreeView(this)), m_fields(new QTableView(this)),
      m_fieldMessage(new QLabel(this)), m_json(new QPlainTextEdit(this)), m_status(new QLabel(this)),
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

    m_json->setObjectName(QStringLiteral("workloadJson"));
    m_json->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_json->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_json->setTabChangesFocus(false);

    m_issueList->setObjectName(QStringLiteral("workloadIssues"));
    m_issueList->setMaximumHeight(110);
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

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(m_status);
    layout->addWidget(m_issueList);

    m_validateTimer.setSingleShot(true);
    m_validateTimer.setInterval(400);
    connect(&m_validateTimer, &QTimer::timeout, this, &WorkloadEditor::validateNow);
    connect(m_json, &QPlainTextEdit::textChanged, this, &WorkloadEditor::onJsonEdited);
    connect(m_treeModel, &WorkloadTreeModel::workloadEdited, this, &WorkloadEditor::onStructureEdited);
    connect(m_fieldsModel, &WorkloadFieldsModel::editRejected, this, [this](const QString &message) {
        m_fieldMessage->setText(message);
        m_fieldMessage->show();
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex &current) {
        m_fieldsModel->setNode(m_treeModel->nodeAt(current));
        m_fieldMessage->hide();
        updateActions();
    });
    connect(m_issueList, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        showIssue(m_issueList->row(item));
    });
    connect(m_issueList, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) {
        showIssue(m_issueList->row(item));
    });
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
        content = engine::readFile(path.toStdString());
    } catch (const engine::Error &e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    setText(QString::fromStdString(content), QFileInfo(path).fileName());
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

void WorkloadEditor::setText(const QString &json, const QString &fileName)
{
    m_filePath.clear();
    m_fileName = fileName.isEmpty() ? tr("untitled.json") : fileName;
    m_settingText = true;
    m_json->setPlainText(json);
    m_settingText = false;
    m_treeModel->setWorkload(engine::Workload{});
    m_structureStale = false;
    validateNow();
    m_tree->expandAll();
    // Start on the settings, so the field table shows what a workload is made of.
    if (!isEmpty())
        selectNode({NodeType::Settings, -1, -1, -1});
    setModified(false);
    emit documentReplaced();
}

QString WorkloadEditor::text() const
{
    return m_json->toPlainText();
}

QString WorkloadEditor::displayName() const
{
    return m_fileName;
}

bool WorkloadEditor::isEmpty() const
{
    return m_json->toPlainText().trimmed().isEmpty();
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
    setModified(true);
    m_validateTimer.start();
}

void WorkloadEditor::validateNow()
{
    m_validateTimer.stop();
    const std::string text = m_json->toPlainText().toStdString();
    const std::string fileName = m_fileName.toStdString();
    if (m_json->toPlainText().trimmed().isEmpty()) {
        m_issues.clear();
        m_treeModel->setWorkload(engine::Workload{});
        applyIssues();
        return;
    }
    m_issues = engine::validateWorkloadText(text, fileName);
    if (m_issues.empty()) {
        try {
            const WorkloadTreeModel::Node keep = selectedNode();
            m_treeModel->setWorkload(engine::parseWorkload(text, fileName));
            m_structureStale = false;
            m_tree->expandAll();
            selectNode(keep);
        } catch (const engine::WorkloadError &e) {
            m_issues = e.issues();
        } catch (const engine::Error &e) {
            m_issues.push_back({std::string(), 0, 0, e.what()});
        }
    } else {
        m_structureStale = true;
    }
    applyIssues();
}

void WorkloadEditor::onStructureEdited()
{
    // The structure is the truth now: rewrite the text from it and validate that text.
    const std::string json = engine::workloadToJson(m_treeModel->workload());
    m_settingText = true;
    m_json->setPlainText(QString::fromStdString(json));
    m_settingText = false;
    m_structureStale = false;
    m_issues = engine::validateWorkloadText(json, m_fileName.toStdString());
    applyIssues();
    setModified(true);
}

void WorkloadEditor::applyIssues()
{
    m_treeModel->setIssues(m_issues);
    m_fieldsModel->setIssues(m_issues);
    m_issueList->clear();
    QList<QTextEdit::ExtraSelection> marks;
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
        if (issue.line > 0) {
            const QTextBlock block = m_json->document()->findBlockByNumber(issue.line - 1);
            if (block.isValid()) {
                QTextEdit::ExtraSelection mark;
                mark.cursor = QTextCursor(block);
                mark.cursor.select(QTextCursor::LineUnderCursor);
                mark.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
                mark.format.setUnderlineColor(QColor(0xd5, 0x5e, 0x00));
                mark.format.setBackground(QColor(0xd5, 0x5e, 0x00, 40));
                mark.format.setToolTip(QString::fromStdString(issue.message));
                marks << mark;
            }
        }
    }
    m_json->setExtraSelections(marks);
    m_issueList->setVisible(!m_issues.empty());
    if (isEmpty())
        m_status->setText(tr("No workload: open one from the lessons or File > Open, or start with File > New workload."));
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
    // Prefer the structure row the issue concerns; fall back to the line in the JSON.
    const QString path = QString::fromStdString(issue.jsonPath);
    const QStringList parts = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    WorkloadTreeModel::Node node;
    if (!m_structureStale && parts.size() >= 2 && parts[0] == QLatin1String("buffers"))
        node = {NodeType::Buffer, parts[1].toInt(), -1, -1};
    else if (!m_structureStale && parts.size() >= 4 && parts[0] == QLatin1String("streams") && parts[2] == QLatin1String("ops"))
        node = {NodeType::Op, -1, parts[1].toInt(), parts[3].toInt()};
    else if (!m_structureStale && parts.size() >= 2 && parts[0] == QLatin1String("streams"))
        node = {NodeType::Stream, -1, parts[1].toInt(), -1};
    if (node.type != NodeType::Invalid && m_treeModel->indexOf(node).isValid() && m_tabs->currentIndex() == 0) {
        selectNode(node);
        return;
    }
    if (issue.line > 0) {
        m_tabs->setCurrentWidget(m_json);
        QTextCursor cursor(m_json->document()->findBlockByNumber(issue.line - 1));
        if (issue.column > 1)
            cursor.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor, issue.column - 1);
        m_json->setTextCursor(cursor);
        m_json->setFocus();
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

void WorkloadEditor::addBuffer()
{
    engine::Workload &w = m_treeModel->mutableWorkload();
    engine::BufferSpec buffer;
    buffer.name = uniqueName(w.buffers, [](const engine::BufferSpec &b) { return b.name; }, "buffer");
    buffer.kind = engine::BufferKind::Device;
    buffer.bytes = 16ull << 20;
    const WorkloadTreeModel::Node node{NodeType::Buffer, int(w.buffers.size()), -1, -1};
    w.buffers.push_back(std::move(buffer));
    m_treeModel->setWorkload(engine::Workload(w));
    m_tree->expandAll();
    onStructureEdited();
    selectNode(node);
}

void WorkloadEditor::addStream()
{
    engine::Workload &w = m_treeModel->mutableWorkload();
    engine::StreamSpec stream;
    stream.name = uniqueName(w.streams, [](const engine::StreamSpec &s) { return s.name; }, "s");
    if (stream.name == "s")
        stream.name = "s" + std::to_string(w.streams.size());
    const WorkloadTreeModel::Node node{NodeType::Stream, -1, int(w.streams.size()), -1};
    w.streams.push_back(std::move(stream));
    engine::buildSchedule(w);
    m_treeModel->setWorkload(engine::Workload(w));
    m_tree->expandAll();
    onStructureEdited();
    selectNode(node);
}

void WorkloadEditor::addOp(engine::OpType type)
{
    const WorkloadTreeModel::Node selected = selectedNode();
    if (selected.type != NodeType::Stream && selected.type != NodeType::Op)
        return;
    engine::Workload &w = m_treeModel->mutableWorkload();
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
    }
    op.name = engine::describe(op, w);
    const int position = selected.type == NodeType::Op ? selected.op + 1 : int(stream.ops.size());
    stream.ops.insert(stream.ops.begin() + position, std::move(op));
    engine::buildSchedule(w);
    m_treeModel->setWorkload(engine::Workload(w));
    m_tree->expandAll();
    onStructureEdited();
    selectNode({NodeType::Op, -1, selected.stream, position});
}

void WorkloadEditor::removeSelected()
{
    const WorkloadTreeModel::Node node = selectedNode();
    engine::Workload &w = m_treeModel->mutableWorkload();
    WorkloadTreeModel::Node next = node;
    switch (node.type) {
    case NodeType::Buffer:
        w.buffers.erase(w.buffers.begin() + node.buffer);
        next.buffer = std::min(node.buffer, int(w.buffers.size()) - 1);
        if (next.buffer < 0)
            next = {NodeType::BuffersGroup, -1, -1, -1};
        break;
    case NodeType::Stream:
        w.streams.erase(w.streams.begin() + node.stream);
        next.stream = std::min(node.stream, int(w.streams.size()) - 1);
        if (next.stream < 0)
            next = {NodeType::StreamsGroup, -1, -1, -1};
        break;
    case NodeType::Op: {
        auto &ops = w.streams[std::size_t(node.stream)].ops;
        ops.erase(ops.begin() + node.op);
        next.op = std::min(node.op, int(ops.size()) - 1);
        if (next.op < 0)
            next = {NodeType::Stream, -1, node.stream, -1};
        break;
    }
    default: return;
    }
    engine::buildSchedule(w);
    m_treeModel->setWorkload(engine::Workload(w));
    m_tree->expandAll();
    onStructureEdited();
    selectNode(next);
}

void WorkloadEditor::moveSelected(int delta)
{
    const WorkloadTreeModel::Node node = selectedNode();
    engine::Workload &w = m_treeModel->mutableWorkload();
    WorkloadTreeModel::Node moved = node;
    auto swapIn = [delta](auto &vector, int at, int &position) {
        const int to = at + delta;
        if (to < 0 || to >= int(vector.size()))
            return false;
        std::swap(vector[std::size_t(at)], vector[std::size_t(to)]);
        position = to;
        return true;
    };
    bool done = false;
    switch (node.type) {
    case NodeType::Buffer: done = swapIn(w.buffers, node.buffer, moved.buffer); break;
    case NodeType::Stream: done = swapIn(w.streams, node.stream, moved.stream); break;
    case NodeType::Op: done = swapIn(w.streams[std::size_t(node.stream)].ops, node.op, moved.op); break;
    default: break;
    }
    if (!done)
        return;
    engine::buildSchedule(w);
    m_treeModel->setWorkload(engine::Workload(w));
    m_tree->expandAll();
    onStructureEdited();
    selectNode(moved);
}

} // namespace streamscope::ui
