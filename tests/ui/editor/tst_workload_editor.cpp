// Tests of the workload editor: its two item models under QAbstractItemModelTester, structure edits
// rewriting the JSON, JSON edits re-parsing the structure, and issues shown on the row and field they
// concern; every bundled preset loads without issues.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSplitter>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <set>
#include <string>
#include <utility>

#include "engine/workload/workload_parser.h"
#include "ui/editor/workload_editor.h"
#include "ui/editor/workload_fields_model.h"
#include "ui/editor/workload_tree_model.h"
#include "ui/panels/lessons_panel.h"

using namespace streamscope;
using Node = ui::WorkloadTreeModel::Node;
using NodeType = ui::WorkloadTreeModel::NodeType;

namespace {
// The top-level rows of the tree (WorkloadTreeModel's order).
constexpr int kSettingsRow = 0;
constexpr int kBuffersGroupRow = 1;
constexpr int kStreamsGroupRow = 2;

// Every row of the tree, depth first.
void collectNodes(const ui::WorkloadTreeModel &model, const QModelIndex &parent, std::vector<Node> &out)
{
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        const Node node = model.nodeAt(index);
        if (node.type != NodeType::Invalid)
            out.push_back(node);
        collectNodes(model, index, out);
    }
}
} // namespace

class TestWorkloadEditor : public QObject {
    Q_OBJECT

private slots:
    void modelsUnderTester()
    {
        ui::WorkloadEditor editor;
        QAbstractItemModelTester treeTester(editor.treeModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester fieldTester(editor.fieldsModel(),
                                             QAbstractItemModelTester::FailureReportingMode::QtTest);
        editor.setText(ui::WorkloadEditor::templateText(), QStringLiteral("t.json"));
        QVERIFY2(editor.isValid(), editor.issues().empty() ? "" : editor.issues().front().message.c_str());
        QCOMPARE(editor.treeModel()->rowCount(), 3);
        const QModelIndex streams = editor.treeModel()->indexOf({NodeType::StreamsGroup, -1, -1, -1});
        QCOMPARE(editor.treeModel()->rowCount(streams), 1);
        QCOMPARE(editor.treeModel()->rowCount(editor.treeModel()->index(0, 0, streams)), 3);
        // Walk every kind of row through the fields model.
        for (const Node &node :
             {Node{NodeType::Settings, -1, -1, -1}, Node{NodeType::Buffer, 0, -1, -1},
              Node{NodeType::Stream, -1, 0, -1}, Node{NodeType::Op, -1, 0, 0}, Node{NodeType::Op, -1, 0, 1}}) {
            editor.selectNode(node);
            QVERIFY(editor.fieldsModel()->rowCount() > 0);
        }
        editor.addStream();
        editor.addBuffer();
        editor.selectNode({NodeType::Stream, -1, 1, -1});
        editor.addOp(engine::OpType::Kernel);
        editor.moveSelected(-1);
        editor.removeSelected();
        editor.setText(QString());
        QCOMPARE(editor.treeModel()->rowCount(editor.treeModel()->indexOf({NodeType::StreamsGroup, -1, -1, -1})), 0);
    }

    void structureEditsRewriteJson()
    {
        ui::WorkloadEditor editor;
        editor.setText(ui::WorkloadEditor::templateText(), QStringLiteral("t.json"));
        QSignalSpy modified(&editor, &ui::WorkloadEditor::modifiedChanged);
        QVERIFY(!editor.isModified());
        editor.addStream();
        QVERIFY(editor.isModified());
        QCOMPARE(modified.count(), 1);
        editor.selectNode({NodeType::Stream, -1, 1, -1});
        editor.addOp(engine::OpType::Kernel);
        const engine::Workload parsed = engine::parseWorkload(editor.text().toStdString(), "t.json");
        QCOMPARE(parsed.streams.size(), std::size_t(2));
        QCOMPARE(parsed.streams[1].ops.size(), std::size_t(1));
        QVERIFY(parsed.streams[1].ops[0].type == engine::OpType::Kernel);
        QVERIFY(editor.isValid());

        // Reorder: the kernel of stream 0 moves before its H2D copy.
        editor.selectNode({NodeType::Op, -1, 0, 1});
        editor.moveSelected(-1);
        const engine::Workload moved = engine::parseWorkload(editor.text().toStdString(), "t.json");
        QVERIFY(moved.streams[0].ops[0].type == engine::OpType::Kernel);
        QVERIFY(moved.streams[0].ops[1].type == engine::OpType::Copy);
        QCOMPARE(editor.selectedNode().op, 0);
        editor.moveSelected(-1); // already first: nothing changes
        QVERIFY(engine::parseWorkload(editor.text().toStdString(), "t.json").streams[0].ops[0].type
                == engine::OpType::Kernel);

        editor.removeSelected();
        QCOMPARE(engine::parseWorkload(editor.text().toStdString(), "t.json").streams[0].ops.size(), std::size_t(2));
    }

    void fieldEditsValidateInPlace()
    {
        ui::WorkloadEditor editor;
        editor.setText(ui::WorkloadEditor::templateText(), QStringLiteral("t.json"));
        editor.selectNode({NodeType::Op, -1, 0, 0}); // the H2D copy
        ui::WorkloadFieldsModel *fields = editor.fieldsModel();
        const int bytes = fields->rowOf(QStringLiteral("bytes"));
        QVERIFY(bytes >= 0);
        QCOMPARE(fields->index(bytes, 1).data().toString(), QStringLiteral("16 MiB"));

        // A value that does not parse is refused with what is expected.
        QSignalSpy rejected(fields, &ui::WorkloadFieldsModel::editRejected);
        QVERIFY(!fields->setData(fields->index(bytes, 1), QStringLiteral("lots")));
        QCOMPARE(rejected.count(), 1);
        QVERIFY(rejected.first().first().toString().contains(QStringLiteral("MiB")));

        // A value that parses is applied to the JSON.
        QVERIFY(fields->setData(fields->index(bytes, 1), QStringLiteral("4 MiB")));
        QCOMPARE(engine::parseWorkload(editor.text().toStdString(), "t.json").streams[0].ops[0].bytes, 4ull << 20);

        // A buffer that does not exist parses but is invalid: the issue lands on the op's row and field.
        const int src = fields->rowOf(QStringLiteral("src"));
        QVERIFY(fields->setData(fields->index(src, 1), QStringLiteral("nowhere")));
        QVERIFY(!editor.isValid());
        QVERIFY(!editor.issueList()->isHidden());
        QVERIFY(editor.issueList()->count() >= 1);
        const QModelIndex opRow = editor.treeModel()->indexOf({NodeType::Op, -1, 0, 0});
        QVERIFY2(!opRow.data(ui::WorkloadTreeModel::IssueRole).toString().isEmpty(), "the op row shows its issue");
        QVERIFY(!fields->index(src, 1).data(Qt::ToolTipRole).toString().isEmpty());
        // Other rows stay clean.
        const QModelIndex kernelRow = editor.treeModel()->indexOf({NodeType::Op, -1, 0, 1});
        QVERIFY(kernelRow.data(ui::WorkloadTreeModel::IssueRole).toString().isEmpty());

        // Changing the op type changes which fields exist.
        const int type = fields->rowOf(QStringLiteral("op"));
        QVERIFY(fields->setData(fields->index(type, 1), QStringLiteral("host")));
        QCOMPARE(fields->rowOf(QStringLiteral("src")), -1);
        QVERIFY(fields->rowOf(QStringLiteral("duration")) >= 0);
    }

    // Issues repaint the rows they name and the stream above an op, old and new, not every row: a tree
    // view measures each row it is told about again, minutes for a workload of a million ops.
    void issuesTouchOnlyTheRowsTheyName()
    {
        std::string text = R"({"version": 1, "buffers": [{"name": "d", "kind": "device", "bytes": "1 MiB"}],
            "streams": [{"name": "a", "ops": [)";
        for (int i = 0; i < 2000; ++i)
            text += std::string(i ? "," : "") + R"({"op": "memset", "buffer": "d", "bytes": "4 KiB"})";
        text += R"(]}, {"name": "b", "ops": [{"op": "memset", "buffer": "d", "bytes": "4 KiB"}]}]})";
        ui::WorkloadTreeModel model;
        model.setWorkload(engine::parseWorkload(text, "many.json"));
        QCOMPARE(model.rowCount(model.indexOf({NodeType::Stream, -1, 0, -1})), 2000);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        const auto touched = [&] {
            std::set<std::pair<int, int>> rows; // (parent's row or -1, row)
            for (const QList<QVariant> &args : changed) {
                const QModelIndex first = args[0].value<QModelIndex>();
                const QModelIndex last = args[1].value<QModelIndex>();
                for (int r = first.row(); r <= last.row(); ++r)
                    rows.insert({first.parent().row(), r});
            }
            changed.clear();
            return rows;
        };
        model.setIssues({{"/streams/0/ops/1500/bytes", 3, 4, "too many bytes"}});
        QCOMPARE(touched(), (std::set<std::pair<int, int>>{{0, 1500}, {kStreamsGroupRow, 0}}));
        QVERIFY(
            !model.indexOf({NodeType::Op, -1, 0, 1500}).data(ui::WorkloadTreeModel::IssueRole).toString().isEmpty());
        // The next validation moves the issue to a buffer and the name: the op and its stream lose their marks.
        model.setIssues({{"/buffers/0/kind", 1, 1, "no such kind"}, {"/name", 1, 1, "empty"}});
        QCOMPARE(touched(), (std::set<std::pair<int, int>>{
                                {0, 1500}, {kStreamsGroupRow, 0}, {kBuffersGroupRow, 0}, {-1, kSettingsRow}}));
        QVERIFY(model.indexOf({NodeType::Op, -1, 0, 1500}).data(ui::WorkloadTreeModel::IssueRole).toString().isEmpty());
        // No issues before or after: nothing to repaint.
        model.setIssues({});
        touched();
        model.setIssues({});
        QVERIFY(touched().empty());
    }

    void renamingABufferRenamesItsUses()
    {
        ui::WorkloadEditor editor;
        editor.setText(ui::WorkloadEditor::templateText(), QStringLiteral("t.json"));
        const QModelIndex buffer = editor.treeModel()->indexOf({NodeType::Buffer, 1, -1, -1}); // "dev"
        QVERIFY(editor.treeModel()->setData(buffer, QStringLiteral("gpu")));
        QVERIFY(editor.isValid());
        const engine::Workload w = engine::parseWorkload(editor.text().toStdString(), "t.json");
        QCOMPARE(w.streams[0].ops[0].dst, std::string("gpu"));
        QCOMPARE(w.streams[0].ops[2].src, std::string("gpu"));
    }

    void jsonEditsReparse()
    {
        ui::WorkloadEditor editor;
        editor.setText(ui::WorkloadEditor::templateText(), QStringLiteral("t.json"));
        // Broken JSON: the issue has a line, the structure keeps the last valid version.
        QString text = editor.text();
        text.replace(QStringLiteral("\"repetitions\": 5,"), QStringLiteral("\"repetitions\": 5"));
        editor.jsonEdit()->setPlainText(text);
        QVERIFY(editor.isModified());
        editor.validateNow();
        QVERIFY(!editor.issues().empty());
        QVERIFY(editor.issues().front().line > 0);
        QCOMPARE(editor.treeModel()->workload().streams.size(), std::size_t(1));
        QVERIFY(!editor.jsonEdit()->extraSelections().isEmpty());

        // Fixed, with a second stream: the structure follows.
        text = ui::WorkloadEditor::templateText();
        text.replace(QStringLiteral("\"streams\": ["),
                     QStringLiteral("\"streams\": [\n    {\"name\": \"extra\", \"ops\": [{\"op\": \"kernel\", "
                                    "\"type\": \"compute\", \"duration\": \"5 us\"}]},"));
        editor.jsonEdit()->setPlainText(text);
        editor.validateNow();
        QVERIFY2(editor.issues().empty(), editor.issues().empty() ? "" : editor.issues().front().message.c_str());
        QCOMPARE(editor.treeModel()->workload().streams.size(), std::size_t(2));
        QCOMPARE(editor.treeModel()->workload().streams[0].name, std::string("extra"));
        QVERIFY(editor.jsonEdit()->extraSelections().isEmpty());
    }

    void saveIsAtomicAndClearsModified()
    {
        QTemporaryDir dir;
        ui::WorkloadEditor editor;
        editor.setText(ui::WorkloadEditor::templateText(), QStringLiteral("t.json"));
        editor.addStream();
        editor.selectNode({NodeType::Stream, -1, 1, -1});
        editor.addOp(engine::OpType::Kernel);
        QVERIFY(editor.isModified());
        QVERIFY(editor.isValid());
        const QString path = dir.filePath(QStringLiteral("w.json"));
        QString error;
        QVERIFY2(editor.saveFile(path, &error), qPrintable(error));
        QVERIFY(!editor.isModified());
        QCOMPARE(editor.filePath(), path);
        ui::WorkloadEditor reopened;
        QVERIFY(reopened.loadFile(path, &error));
        QVERIFY(reopened.isValid());
        QCOMPARE(reopened.treeModel()->workload().streams.size(), std::size_t(2));
        // No temporary files left next to it.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);
        // An unwritable place fails with a message that names it.
        QVERIFY(!editor.saveFile(QStringLiteral("/nonexistent-dir/w.json"), &error));
        QVERIFY(error.contains(QStringLiteral("/nonexistent-dir")));
        QVERIFY(!editor.loadFile(QStringLiteral("/nonexistent-dir/w.json"), &error));
    }

    void everyPresetLoads()
    {
        const QDir dir(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads"));
        const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files);
        QVERIFY2(
            files.size() >= 10,
            qPrintable(
                QStringLiteral("%1 presets in %2: the bundled lessons are missing").arg(files.size()).arg(dir.path())));
        ui::LessonsPanel lessons;
        lessons.load(dir.path(), QString());
        QCOMPARE(int(lessons.lessons().size()), files.size());
        for (const QString &file : files) {
            ui::WorkloadEditor editor;
            QString error;
            QVERIFY2(editor.loadFile(dir.filePath(file), &error), qPrintable(error));
            QVERIFY2(editor.isValid(), qPrintable(file));
            const ui::Lesson lesson = ui::LessonsPanel::readLesson(dir.filePath(file), QString());
            QVERIFY2(lesson.error.isEmpty(), qPrintable(lesson.error));
            QVERIFY2(!lesson.description.isEmpty(), qPrintable(file + QStringLiteral(" has no description")));
        }
    }

    void openingAndClosingAnEditorChangesNothing()
    {
        // Every field and every name of every preset: an editor opened and closed (Enter, or leaving it)
        // without typing leaves the text as it was and the file unmodified.
        const QDir dir(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads"));
        const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files);
        QVERIFY(!files.isEmpty());
        int opened = 0;
        for (const QString &file : files) {
            ui::WorkloadEditor editor;
            editor.resize(900, 700);
            editor.show();
            QVERIFY(QTest::qWaitForWindowExposed(&editor));
            QVERIFY(editor.loadFile(dir.filePath(file)));
            const QString before = editor.text();
            auto *fields = editor.findChild<QTableView *>(QStringLiteral("workloadFields"));
            QVERIFY(fields);
            std::vector<Node> nodes;
            collectNodes(*editor.treeModel(), QModelIndex(), nodes);
            for (const Node &node : nodes) {
                editor.selectNode(node);
                for (int row = 0; row < editor.fieldsModel()->rowCount(); ++row) {
                    const QModelIndex cell = editor.fieldsModel()->index(row, 1);
                    if (!(editor.fieldsModel()->flags(cell) & Qt::ItemIsEditable))
                        continue;
                    fields->setCurrentIndex(cell); // opens its editor: the table edits on any trigger
                    if (!fields->indexWidget(cell))
                        fields->edit(cell);
                    QWidget *cellEditor = fields->indexWidget(cell);
                    QVERIFY2(cellEditor, qPrintable(file + QStringLiteral(": no editor for field ")
                                                    + cell.siblingAtColumn(0).data().toString()));
                    ++opened;
                    emit fields->itemDelegateForIndex(cell)->commitData(cellEditor);
                    emit fields->itemDelegateForIndex(cell)->closeEditor(cellEditor, QAbstractItemDelegate::NoHint);
                    QVERIFY2(!editor.isModified() && editor.text() == before,
                             qPrintable(file + QStringLiteral(": opening and closing field \"")
                                        + cell.siblingAtColumn(0).data().toString()
                                        + QStringLiteral("\" without a change modified the workload")));
                    editor.selectNode(node); // a field of a kernel's type rebuilds the rows
                }
                const QModelIndex nameCell = editor.treeModel()->indexOf(node);
                if (editor.treeModel()->flags(nameCell) & Qt::ItemIsEditable) {
                    editor.treeView()->setCurrentIndex(nameCell);
                    editor.treeView()->edit(nameCell);
                    if (QWidget *nameEditor = editor.treeView()->indexWidget(nameCell)) {
                        ++opened;
                        emit editor.treeView()->itemDelegateForIndex(nameCell)->commitData(nameEditor);
                        emit editor.treeView()->itemDelegateForIndex(nameCell)->closeEditor(
                            nameEditor, QAbstractItemDelegate::NoHint);
                        QVERIFY2(!editor.isModified() && editor.text() == before,
                                 qPrintable(file + QStringLiteral(": renaming a row to its own name modified it")));
                    }
                }
            }
        }
        qInfo("%d editors opened and closed over %lld presets", opened, qlonglong(files.size()));
        QVERIFY(opened > 100);
    }

    void refusedEditMessageClearsWithItsCause()
    {
        ui::WorkloadEditor editor;
        editor.setText(ui::WorkloadEditor::templateText(), QStringLiteral("t.json"));
        editor.show();
        editor.selectNode({NodeType::Op, -1, 0, 0});
        ui::WorkloadFieldsModel *fields = editor.fieldsModel();
        auto *message = editor.findChild<QLabel *>(QStringLiteral("fieldMessage"));
        QVERIFY(message);
        const int bytes = fields->rowOf(QStringLiteral("bytes"));
        QVERIFY(!fields->setData(fields->index(bytes, 1), QStringLiteral("lots")));
        QVERIFY(message->isVisible());
        QVERIFY(fields->setData(fields->index(bytes, 1), QStringLiteral("8 MiB")));
        QVERIFY2(!message->isVisible(), "the refusal stayed after a good value was entered");

        QVERIFY(!fields->setData(fields->index(bytes, 1), QStringLiteral("lots")));
        QVERIFY(message->isVisible());
        editor.jsonEdit()->setPlainText(editor.text().replace(QStringLiteral("8 MiB"), QStringLiteral("2 MiB")));
        QVERIFY2(!message->isVisible(), "the refusal stayed after the value was fixed in the JSON");

        // A problem found by validation goes from the list and the rows once its cause is fixed.
        editor.jsonEdit()->setPlainText(ui::WorkloadEditor::templateText().replace(
            QStringLiteral("\"dst\": \"dev\""), QStringLiteral("\"dst\": \"gone\"")));
        editor.validateNow();
        QVERIFY(!editor.isValid());
        QVERIFY(editor.issueList()->count() > 0);
        editor.jsonEdit()->setPlainText(ui::WorkloadEditor::templateText());
        editor.validateNow();
        QVERIFY(editor.isValid());
        QCOMPARE(editor.issueList()->count(), 0);
        QVERIFY(editor.issueList()->isHidden());
        QVERIFY(editor.treeModel()
                    ->indexOf({NodeType::Op, -1, 0, 0})
                    .data(ui::WorkloadTreeModel::IssueRole)
                    .toString()
                    .isEmpty());
    }

    void problemListIsReadable()
    {
        ui::WorkloadEditor editor;
        editor.resize(360, 600); // a narrow dock
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        QString text = ui::WorkloadEditor::templateText();
        text.replace(QStringLiteral("\"dst\": \"dev\""),
                     QStringLiteral("\"dst\": \"a-buffer-name-that-is-long-enough-to-need-wrapping\""));
        text.replace(QStringLiteral("\"duration\": \"1 ms\""), QStringLiteral("\"duration\": \"soon\""));
        editor.jsonEdit()->setPlainText(text);
        editor.validateNow();
        QListWidget *list = editor.issueList();
        QVERIFY(list->count() >= 2);
        QVERIFY(list->wordWrap());
        QCOMPARE(list->horizontalScrollBarPolicy(), Qt::ScrollBarAlwaysOff);
        for (int i = 0; i < list->count(); ++i) {
            QListWidgetItem *item = list->item(i);
            QCOMPARE(item->toolTip(), item->text());
            // Wrapped, a long message takes more than one line and is not cut at the right edge.
            const QRect rect = list->visualItemRect(item);
            QVERIFY2(rect.right() <= list->viewport()->width(),
                     qPrintable(QStringLiteral("item %1 is %2 px wide in a %3 px list")
                                    .arg(i)
                                    .arg(rect.width())
                                    .arg(list->viewport()->width())));
            if (list->fontMetrics().horizontalAdvance(item->text()) > list->viewport()->width())
                QVERIFY2(rect.height() > list->fontMetrics().lineSpacing() * 3 / 2, qPrintable(item->text()));
        }
        // The list can be made taller: it sits in a splitter with the tabs.
        auto *splitter = editor.findChild<QSplitter *>(QStringLiteral("workloadIssueSplitter"));
        QVERIFY(splitter);
        QVERIFY(splitter->indexOf(list) >= 0);
    }

    void fieldEditsChangeOneLineOfALesson()
    {
        // The overlap lesson: 16 lines with a "pipeline" its comparison needs. An edit of one field
        // changes that line and nothing else (it once rewrote the file as 173 lines without the pipeline).
        ui::WorkloadEditor editor;
        QString error;
        QVERIFY2(editor.loadFile(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads/overlap.json"), &error),
                 qPrintable(error));
        const QStringList before = editor.text().split(QLatin1Char('\n'));
        editor.selectNode({NodeType::Settings, -1, -1, -1});
        ui::WorkloadFieldsModel *fields = editor.fieldsModel();
        const int repetitions = fields->rowOf(QStringLiteral("repetitions"));
        QVERIFY(repetitions >= 0);
        QVERIFY(fields->setData(fields->index(repetitions, 1), QStringLiteral("20")));
        const QStringList after = editor.text().split(QLatin1Char('\n'));
        QCOMPARE(after.size(), before.size());
        int changed = 0;
        for (int i = 0; i < before.size(); ++i)
            if (before[i] != after[i]) {
                ++changed;
                QCOMPARE(after[i], QStringLiteral("  \"repetitions\": 20,"));
            }
        QCOMPARE(changed, 1);
        QVERIFY(editor.isValid());
        QCOMPARE(engine::parseWorkload(editor.text().toStdString(), "overlap.json").repetitions, 20);

        // Ops the pipeline makes have no text of their own: the edit is refused, saying so, and nothing
        // changes (the tree shows the text again, not the refused value).
        const QString text = editor.text();
        editor.selectNode({NodeType::Op, -1, 0, 1});
        const int duration = fields->rowOf(QStringLiteral("duration"));
        QVERIFY(duration >= 0);
        fields->setData(fields->index(duration, 1), QStringLiteral("80 us"));
        QCOMPARE(editor.text(), text);
        auto *message = editor.findChild<QLabel *>(QStringLiteral("fieldMessage"));
        QVERIFY(message && !message->isHidden());
        QVERIFY2(message->text().contains(QStringLiteral("pipeline")), qPrintable(message->text()));
        QCOMPARE(editor.treeModel()->workload().streams[0].ops[1].durationNs, 60'000);

        // Undo in the text takes a structured edit back.
        editor.jsonEdit()->undo();
        QCOMPARE(editor.text().split(QLatin1Char('\n')), before);
    }

    void structuredEditsKeepCommentsAndRepeats()
    {
        ui::WorkloadEditor editor;
        editor.setText(
            QStringLiteral(
                "{\n"
                "  // annotated for class\n"
                "  \"version\": 1,\n"
                "  \"buffers\": [\n"
                "    {\"name\": \"h\", \"kind\": \"pinned\", \"bytes\": \"4 MiB\"},\n"
                "    {\"name\": \"d\", \"kind\": \"device\", \"bytes\": \"4 MiB\"} /* the GPU side */\n"
                "  ],\n"
                "  \"streams\": [\n"
                "    {\"name\": \"s0\", \"ops\": [\n"
                "      {\"op\": \"copy\", \"src\": \"h\", \"dst\": \"d\", \"bytes\": \"4 MiB\"},\n"
                "      {\"repeat\": 3, \"ops\": [{\"op\": \"kernel\", \"duration\": \"10 us\"}]} // three launches\n"
                "    ]}\n"
                "  ]\n"
                "}\n"),
            QStringLiteral("annotated.json"));
        QVERIFY(editor.isValid());
        QCOMPARE(editor.treeModel()->workload().streams[0].ops.size(), std::size_t(4));
        auto comments = [&] {
            const QString t = editor.text();
            return t.contains(QStringLiteral("// annotated for class"))
                   && t.contains(QStringLiteral("/* the GPU side */"))
                   && t.contains(QStringLiteral("// three launches"));
        };

        // An op of a repeat group: its template changes, so all three launches do; the group stays.
        editor.selectNode({NodeType::Op, -1, 0, 2});
        ui::WorkloadFieldsModel *fields = editor.fieldsModel();
        QVERIFY(fields->setData(fields->index(fields->rowOf(QStringLiteral("duration")), 1), QStringLiteral("25 us")));
        QVERIFY2(editor.text().contains(
                     QStringLiteral("{\"repeat\": 3, \"ops\": [{\"op\": \"kernel\", \"duration\": \"25 us\"}]}")),
                 qPrintable(editor.text()));
        QVERIFY(comments());
        for (int i = 1; i <= 3; ++i)
            QCOMPARE(editor.treeModel()->workload().streams[0].ops[std::size_t(i)].durationNs, 25'000);

        // A renamed buffer takes its references along.
        QVERIFY(editor.treeModel()->setData(editor.treeModel()->indexOf({NodeType::Buffer, 0, -1, -1}),
                                            QStringLiteral("host")));
        QVERIFY2(editor.isValid(), qPrintable(editor.text()));
        QVERIFY(editor.text().contains(QStringLiteral("{\"op\": \"copy\", \"src\": \"host\", \"dst\": \"d\"")));
        QVERIFY(comments());

        // A new op after the copy, then removed again: the text is as it was.
        const QString beforeAdd = editor.text();
        editor.selectNode({NodeType::Op, -1, 0, 0});
        editor.addOp(engine::OpType::Memset);
        QVERIFY(editor.isValid());
        QVERIFY(editor.treeModel()->workload().streams[0].ops[1].type == engine::OpType::Memset);
        QVERIFY(comments());
        editor.selectNode({NodeType::Op, -1, 0, 1});
        editor.removeSelected();
        QCOMPARE(editor.text(), beforeAdd);

        // A new buffer and a new stream go into their lists, each on a line of its own.
        editor.addBuffer();
        editor.addStream();
        QCOMPARE(editor.treeModel()->workload().buffers.size(), std::size_t(3));
        QCOMPARE(editor.treeModel()->workload().streams.size(), std::size_t(2));
        QVERIFY(comments());
    }

    void editsFindTheirEntryWhenTheParserLeftOneOut()
    {
        // The first buffer has a bad size, so the parser leaves it out and the tree's buffer 0 is the
        // text's buffer 1: removing it must remove "d", not "h".
        ui::WorkloadEditor editor;
        editor.setText(QStringLiteral("{\"version\": 1,\n"
                                      " \"buffers\": [\n"
                                      "  {\"name\": \"h\", \"kind\": \"pinned\", \"bytes\": \"16 lots\"},\n"
                                      "  {\"name\": \"d\", \"kind\": \"device\", \"bytes\": \"16 MiB\"}\n"
                                      " ],\n"
                                      " \"streams\": [{\"name\": \"s0\", \"ops\": [\n"
                                      "  {\"op\": \"kernel\", \"duration\": \"1 ms\", \"repeat\": 4}\n"
                                      " ]}]\n"
                                      "}\n"),
                       QStringLiteral("shifted.json"));
        QCOMPARE(editor.treeModel()->workload().buffers.size(), std::size_t(1));
        QCOMPARE(editor.treeModel()->workload().buffers[0].name, std::string("d"));
        editor.selectNode({NodeType::Buffer, 0, -1, -1});
        editor.removeSelected();
        QVERIFY2(editor.text().contains(QStringLiteral("\"h\"")) && !editor.text().contains(QStringLiteral("\"d\"")),
                 qPrintable(editor.text()));

        // A repeated op whose type changes keeps its "repeat".
        QCOMPARE(editor.treeModel()->workload().streams[0].ops.size(), std::size_t(4));
        editor.selectNode({NodeType::Op, -1, 0, 0});
        ui::WorkloadFieldsModel *fields = editor.fieldsModel();
        QVERIFY(fields->setData(fields->index(fields->rowOf(QStringLiteral("op")), 1), QStringLiteral("host")));
        QVERIFY2(editor.text().contains(QStringLiteral("\"repeat\": 4")), qPrintable(editor.text()));
        QCOMPARE(editor.treeModel()->workload().streams[0].ops.size(), std::size_t(4));
    }

    void booleanFieldsAreWrittenAsBooleans()
    {
        ui::WorkloadEditor editor;
        editor.setText(ui::WorkloadEditor::templateText(), QStringLiteral("t.json"));
        editor.selectNode({NodeType::Stream, -1, 0, -1});
        ui::WorkloadFieldsModel *fields = editor.fieldsModel();
        int row = -1;
        for (int r = 0; r < fields->rowCount(); ++r) {
            const QStringList choices = fields->index(r, 1).data(ui::WorkloadFieldsModel::ChoicesRole).toStringList();
            if (choices.contains(QStringLiteral("true")))
                row = r;
        }
        if (row < 0)
            QFAIL("a stream has no true/false field");
        QVERIFY(fields->setData(fields->index(row, 1), QStringLiteral("true")));
        const QString key = fields->index(row, 1).data(ui::WorkloadFieldsModel::KeyRole).toString();
        QVERIFY2(editor.text().contains(QStringLiteral("\"%1\": true").arg(key)), qPrintable(editor.text()));
        QVERIFY2(editor.isValid(), qPrintable(editor.text()));
    }

    void lessonsPanelReportsBrokenFiles()
    {
        QTemporaryDir dir;
        QFile good(dir.filePath(QStringLiteral("a.json")));
        QVERIFY(good.open(QIODevice::WriteOnly));
        good.write(R"({"name":"Lesson A","description":"Look at the gap."})");
        good.close();
        QFile bad(dir.filePath(QStringLiteral("b.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{ not json");
        bad.close();
        QDir().mkpath(dir.filePath(QStringLiteral("examples")));
        QFile example(dir.filePath(QStringLiteral("examples/a.sstrace")));
        QVERIFY(example.open(QIODevice::WriteOnly));
        example.close();

        ui::LessonsPanel panel;
        panel.load(dir.path(), dir.filePath(QStringLiteral("examples")));
        QCOMPARE(int(panel.lessons().size()), 2);
        QCOMPARE(panel.lessons()[0].name, QStringLiteral("Lesson A"));
        QCOMPARE(panel.lessons()[0].description, QStringLiteral("Look at the gap."));
        QVERIFY(panel.lessons()[0].examplePath.endsWith(QStringLiteral("examples/a.sstrace")));
        QVERIFY(panel.lessons()[1].error.contains(QStringLiteral("b.json")));
        QVERIFY(panel.lessons()[1].examplePath.isEmpty());
        QCOMPARE(panel.lessonForPath(dir.filePath(QStringLiteral("examples/a.sstrace"))), 0);
        // The recorded lesson is marked by an icon, its text its name alone (so it wraps as a name).
        auto *list = panel.findChild<QListWidget *>(QStringLiteral("lessonList"));
        QCOMPARE(list->item(0)->text(), QStringLiteral("Lesson A"));
        QVERIFY(list->item(0)->data(Qt::UserRole).toBool());
        QVERIFY(!list->item(1)->data(Qt::UserRole).toBool());
        QVERIFY(!list->item(0)->icon().isNull());
        QCOMPARE(list->textElideMode(), Qt::ElideNone);
        // Missing folders are not an error, just no lessons.
        panel.load(dir.filePath(QStringLiteral("missing")), QString());
        QVERIFY(panel.lessons().empty());
    }

    // The bundled two-GPU lessons on a machine with fewer GPUs: each one's item says what it needs and
    // whether a recording is bundled (a second line, the whole note in its tooltip; never a note under the
    // list, which moved the list under a click), and its comparison is not offered to run; with two GPUs
    // they are ordinary lessons.
    void lessonsPanelSaysWhatATwoGpuLessonNeeds()
    {
        ui::LessonsPanel panel;
        panel.load(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads"),
                   QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples"));
        const int peer =
            panel.lessonForPath(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads/peer-copies.json"));
        const int perThread = panel.lessonForPath(
            QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads/per-thread-default-stream.json"));
        QVERIFY(peer >= 0 && perThread >= 0);
        QCOMPARE(panel.lessons()[std::size_t(peer)].gpusNeeded, 2);
        QCOMPARE(panel.lessons()[std::size_t(perThread)].gpusNeeded, 1);
        const bool recorded = !panel.lessons()[std::size_t(peer)].examplePath.isEmpty();
        auto *list = panel.findChild<QListWidget *>(QStringLiteral("lessonList"));
        auto *status = panel.findChild<QLabel *>(QStringLiteral("lessonStatus"));
        auto *compare = panel.findChild<QPushButton *>(QStringLiteral("lessonCompare"));
        panel.setCanRun(true);
        panel.setGpuCount(1);
        panel.setCurrentLesson(peer);
        const QString note = panel.note(peer);
        QVERIFY2(note.contains(QStringLiteral("needs 2 GPUs; this machine has 1")), qPrintable(note));
        QVERIFY2(recorded ? note.contains(QStringLiteral("recorded on a host with 2 GPUs"))
                          : note.contains(QStringLiteral("No recording of it is bundled yet")),
                 qPrintable(note));
        QVERIFY2(list->item(peer)->toolTip().contains(note), qPrintable(list->item(peer)->toolTip()));
        QCOMPARE(list->item(peer)->text(), panel.lessons()[std::size_t(peer)].name + QLatin1Char('\n')
                                               + (recorded ? QStringLiteral("2 GPUs: shows its recording")
                                                           : QStringLiteral("2 GPUs: no recording yet")));
        QVERIFY(status->isHidden());
        QVERIFY(!compare->isEnabled());
        QVERIFY2(compare->toolTip().contains(QStringLiteral("needs 2 GPUs")), qPrintable(compare->toolTip()));
        // A one-GPU lesson on the same machine: nothing to say, and its comparison runs.
        panel.setCurrentLesson(perThread);
        QVERIFY(panel.note(perThread).isEmpty());
        QCOMPARE(list->item(perThread)->text(), panel.lessons()[std::size_t(perThread)].name);
        QVERIFY(compare->isEnabled());
        // Without a usable GPU at all, the two-GPU lesson still says what it needs.
        panel.setCanRun(false);
        panel.setGpuCount(0);
        panel.setCurrentLesson(peer);
        QVERIFY2(panel.note(peer).contains(QStringLiteral("this machine has none usable")),
                 qPrintable(panel.note(peer)));
        QVERIFY(status->isHidden());
        // With two GPUs it is an ordinary lesson.
        panel.setCanRun(true);
        panel.setGpuCount(2);
        QVERIFY(panel.note(peer).isEmpty());
        QCOMPARE(list->item(peer)->text(), panel.lessons()[std::size_t(peer)].name);
        QVERIFY(compare->isEnabled());
    }

    void lessonsPanelReadsCommentedLessons()
    {
        // docs/workload-format.md allows comments in workload files, and teachers annotate lessons: the
        // panel reads them as the engine does, comparison axes included (Qt's JSON reader once called
        // such a lesson "not valid JSON" and lost its axes).
        QTemporaryDir dir;
        QFile lesson(dir.filePath(QStringLiteral("annotated.json")));
        QVERIFY(lesson.open(QIODevice::WriteOnly));
        lesson.write(R"({
  // Shown in class on Tuesday.
  "name": "Annotated lesson",
  /* what the students should find */
  "description": "Find the staircase.",
  "compare": ["streams=1,4", /* and */ "order=depth-first,breadth-first"],
  "pipeline": {"bytes": "16 MiB", "chunks": 4, "streams": 4, "kernel": "60 us"}
})");
        lesson.close();
        QFile wrong(dir.filePath(QStringLiteral("wrong.json")));
        QVERIFY(wrong.open(QIODevice::WriteOnly));
        wrong.write("{\n  \"name\": \"x\",\n  \"compare\": [\"colour=red\"]\n}");
        wrong.close();

        ui::LessonsPanel panel;
        panel.load(dir.path(), QString());
        QCOMPARE(int(panel.lessons().size()), 2);
        const ui::Lesson &a = panel.lessons()[0];
        QVERIFY2(a.error.isEmpty(), qPrintable(a.error));
        QCOMPARE(a.name, QStringLiteral("Annotated lesson"));
        QCOMPARE(a.description, QStringLiteral("Find the staircase."));
        QCOMPARE(a.compare,
                 QStringList({QStringLiteral("streams=1,4"), QStringLiteral("order=depth-first,breadth-first")}));
        // A wrong axis: the file, its line and the JSON path are named.
        const QString error = panel.lessons()[1].error;
        QVERIFY2(error.contains(QStringLiteral("wrong.json:3")) && error.contains(QStringLiteral("/compare/0"))
                     && error.contains(QStringLiteral("colour")),
                 qPrintable(error));
    }
};

QTEST_MAIN(TestWorkloadEditor)
#include "tst_workload_editor.moc"
