// Tests of the workload editor: its two item models under QAbstractItemModelTester, structure edits
// rewriting the JSON, JSON edits re-parsing the structure, and issues shown on the row and field they
// concern; every bundled preset loads without issues.
#include <QAbstractItemModelTester>
#include <QDir>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include "engine/workload_parser.h"
#include "ui/lessons_panel.h"
#include "ui/workload_editor.h"
#include "ui/workload_fields_model.h"
#include "ui/workload_tree_model.h"

using namespace streamscope;
using Node = ui::WorkloadTreeModel::Node;
using NodeType = ui::WorkloadTreeModel::NodeType;

class TestWorkloadEditor : public QObject {
    Q_OBJECT

private slots:
    void modelsUnderTester()
    {
        ui::WorkloadEditor editor;
        QAbstractItemModelTester treeTester(editor.treeModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester fieldTester(editor.fieldsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        editor.setText(ui::WorkloadEditor::templateText(), QStringLiteral("t.json"));
        QVERIFY2(editor.isValid(), editor.issues().empty() ? "" : editor.issues().front().message.c_str());
        QCOMPARE(editor.treeModel()->rowCount(), 3);
        const QModelIndex streams = editor.treeModel()->indexOf({NodeType::StreamsGroup, -1, -1, -1});
        QCOMPARE(editor.treeModel()->rowCount(streams), 1);
        QCOMPARE(editor.treeModel()->rowCount(editor.treeModel()->index(0, 0, streams)), 3);
        // Walk every kind of row through the fields model.
        for (const Node &node : {Node{NodeType::Settings, -1, -1, -1}, Node{NodeType::Buffer, 0, -1, -1},
                                 Node{NodeType::Stream, -1, 0, -1}, Node{NodeType::Op, -1, 0, 0},
                                 Node{NodeType::Op, -1, 0, 1}}) {
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
        QVERIFY(engine::parseWorkload(editor.text().toStdString(), "t.json").streams[0].ops[0].type == engine::OpType::Kernel);

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
                     QStringLiteral("\"streams\": [\n    {\"name\": \"extra\", \"ops\": [{\"op\": \"kernel\", \"type\": \"compute\", \"duration\": \"5 us\"}]},"));
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
        if (files.isEmpty())
            QSKIP("no presets in resources/workloads yet");
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
        // Missing folders are not an error, just no lessons.
        panel.load(dir.filePath(QStringLiteral("missing")), QString());
        QVERIFY(panel.lessons().empty());
    }
};

QTEST_MAIN(TestWorkloadEditor)
#include "tst_workload_editor.moc"
