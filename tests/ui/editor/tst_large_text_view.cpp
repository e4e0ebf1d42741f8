// Tests of ui/editor/large_text_view.h and of the workload editor's read-only text for a workload over its
// size for editing in place (#24): the text as read, its issues marked and shown, structure edits written
// into it, saved as it is.
#include <QFile>
#include <QImage>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include "engine/workload/workload_parser.h"
#include "ui/editor/json_text_pane.h"
#include "ui/editor/large_text_view.h"
#include "ui/editor/workload_editor.h"

using namespace streamscope;
using NodeType = ui::WorkloadTreeModel::NodeType;

class TestLargeTextView : public QObject {
    Q_OBJECT

private slots:
    void linesMarksAndPosition()
    {
        ui::LargeTextView view;
        view.resize(400, 200);
        view.setText("{\r\n  \"\xC2\xB5\": 1,\n\n  \"b\": 2\n}");
        QCOMPARE(view.lineCount(), 5);
        QCOMPARE(view.lineText(1), QStringLiteral("{"));
        QCOMPARE(view.lineText(2), QString::fromUtf8("  \"\xC2\xB5\": 1,"));
        QCOMPARE(view.lineText(3), QString());
        QCOMPARE(view.lineText(5), QStringLiteral("}"));
        QCOMPARE(view.lineText(6), QString());
        view.setMarkedLines({2, 4});
        QCOMPARE(view.markedLines(), (std::set<int>{2, 4}));
        view.goToLine(4);
        QCOMPARE(view.currentLine(), 4);
        view.setText("x");
        QCOMPARE(view.lineCount(), 1);
        QVERIFY(view.markedLines().empty()); // they were the old text's

        // A long text scrolls by line to the line asked for.
        std::string many;
        for (int i = 1; i <= 10'000; ++i)
            many += "line " + std::to_string(i) + "\n";
        view.setText(many);
        QCOMPARE(view.lineCount(), 10'001);
        view.goToLine(9'000);
        QVERIFY2(view.firstVisibleLine() <= 9'000 && view.firstVisibleLine() > 8'900,
                 qPrintable(QString::number(view.firstVisibleLine())));
        QCOMPARE(view.lineText(9'000), QStringLiteral("line 9000"));
    }

    void paintsTheLinesInView()
    {
        // The first line in view at the top, marked lines tinted; nothing below the last line.
        ui::LargeTextView view;
        view.resize(300, 200);
        view.setText("MMMMMMMM\n\nMMMMMMMM");
        view.setMarkedLines({2});
        const QImage image = view.viewport()->grab().toImage();
        const int lineHeight = view.fontMetrics().lineSpacing();
        const auto inkIn = [&](int top, int bottom) {
            const QRgb background = image.pixel(image.width() - 1, bottom - 1);
            int ink = 0;
            for (int y = top; y < bottom; ++y)
                for (int x = 0; x < image.width() / 2; ++x)
                    ink += image.pixel(x, y) != background;
            return ink;
        };
        QVERIFY(inkIn(0, lineHeight) > 0); // "MMMMMMMM"
        QCOMPARE(inkIn(lineHeight, 2 * lineHeight), 0); // an empty line, tinted all across
        QVERIFY(image.pixel(image.width() - 1, lineHeight + 1) != image.pixel(image.width() - 1, 0));
        QVERIFY(inkIn(2 * lineHeight, 3 * lineHeight) > 0);
        QCOMPARE(inkIn(3 * lineHeight, image.height()), 0);
    }

    void editorShowsALargeTextReadOnly()
    {
        ui::WorkloadEditor editor;
        const QString text = ui::WorkloadEditor::templateText();
        editor.setEditableTextBytes(100); // the template is longer
        editor.setText(text, QStringLiteral("t.json"));
        QVERIFY(editor.isTextReadOnly());
        QVERIFY(editor.jsonEdit()->document()->isEmpty()); // no QTextDocument of it
        QCOMPARE(QString::fromStdString(editor.largeTextView()->text()), text);
        QCOMPARE(editor.text(), text);
        QVERIFY(!editor.isEmpty());
        QVERIFY(editor.isValid());
        QCOMPARE(editor.treeModel()->workload().streams.at(0).ops.size(), std::size_t(3));

        // Structure edits are written into the text as before.
        editor.addStream();
        QVERIFY(editor.isModified());
        QVERIFY(editor.isTextReadOnly());
        std::vector<engine::WorkloadIssue> issues; // a new stream has no ops yet
        QCOMPARE(engine::readWorkloadText(editor.text().toStdString(), "t.json", issues).streams.size(),
                 std::size_t(2));
        QCOMPARE(editor.treeModel()->workload().streams.size(), std::size_t(2));
        QCOMPARE(editor.largeTextView()->text(), editor.text().toStdString());

        // Issues: their lines marked; one on the settings is shown at its line.
        QString broken = text;
        broken.replace(QStringLiteral("\"repetitions\": 5"), QStringLiteral("\"repetitions\": \"x\""));
        editor.setText(broken, QStringLiteral("t.json"));
        QVERIFY(editor.isTextReadOnly());
        QCOMPARE(editor.issues().size(), std::size_t(1));
        const int line = editor.issues().front().line;
        QCOMPARE(line, 5);
        QCOMPARE(editor.largeTextView()->markedLines(), std::set<int>{line});
        QListWidgetItem *item = editor.issueList()->item(0);
        QVERIFY(item);
        emit editor.issueList()->itemActivated(item);
        QCOMPARE(editor.largeTextView()->currentLine(), line);

        // A short text is editable again.
        editor.setEditableTextBytes(ui::JsonTextPane::kDefaultEditableBytes);
        editor.setText(text, QStringLiteral("t.json"));
        QVERIFY(!editor.isTextReadOnly());
        QCOMPARE(editor.jsonEdit()->toPlainText(), text);
        QVERIFY(editor.largeTextView()->text().empty());
    }

    void longStreamsStayClosed()
    {
        // A stream of more than 10,000 ops is not opened in the tree (QTreeView keeps an item per row shown);
        // selecting one of its ops opens it.
        ui::WorkloadEditor editor;
        editor.setText(QStringLiteral(R"({"version": 1, "streams": [
            {"name": "long", "ops": [{"repeat": 10001, "ops": [{"op": "kernel", "duration": "1 us"}]}]},
            {"name": "short", "ops": [{"repeat": 10000, "ops": [{"op": "kernel", "duration": "1 us"}]}]}]})"),
                       QStringLiteral("t.json"));
        QVERIFY(editor.isValid());
        const ui::WorkloadTreeModel &model = *editor.treeModel();
        const QModelIndex streams = model.indexOf({NodeType::StreamsGroup, -1, -1, -1});
        QVERIFY(editor.treeView()->isExpanded(streams));
        QVERIFY(!editor.treeView()->isExpanded(model.indexOf({NodeType::Stream, -1, 0, -1})));
        QVERIFY(editor.treeView()->isExpanded(model.indexOf({NodeType::Stream, -1, 1, -1})));
        editor.selectNode({NodeType::Op, -1, 0, 5000});
        QVERIFY(editor.treeView()->isExpanded(model.indexOf({NodeType::Stream, -1, 0, -1})));
        QCOMPARE(editor.selectedNode().op, 5000);
    }

    void loadAndSaveALargeFile()
    {
        QTemporaryDir dir;
        const QString in = dir.filePath(QStringLiteral("big.json"));
        const QString out = dir.filePath(QStringLiteral("saved.json"));
        const QByteArray text = ui::WorkloadEditor::templateText().toUtf8();
        {
            QFile f(in);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        }
        ui::WorkloadEditor editor;
        editor.setEditableTextBytes(text.size() - 1);
        QString error;
        QVERIFY2(editor.loadFile(in, &error), qPrintable(error));
        QVERIFY(editor.isTextReadOnly());
        QVERIFY(editor.isValid());
        QVERIFY2(editor.saveFile(out, &error), qPrintable(error));
        QFile saved(out);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        QCOMPARE(saved.readAll(), text);
        // One byte more allowed: the same file is edited in place.
        editor.setEditableTextBytes(text.size());
        QVERIFY(editor.loadFile(in, &error));
        QVERIFY(!editor.isTextReadOnly());
    }
};

QTEST_MAIN(TestLargeTextView)
#include "tst_large_text_view.moc"
