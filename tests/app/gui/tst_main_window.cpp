// Tests of the main window: open a trace written with the engine, select an op, export PNG and SVG,
// failures reported in the window (which keeps working), the no-GPU banner, an unsaved workload kept,
// presentation mode, NVTX ranges (View > Project NVTX onto GPU lanes, the details and the operations
// table), and the command-line options.
#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeView>
#include <QtTest>

#include <set>

#include "app/gui/app_options.h"
#include "app/gui/headless_export.h"
#include "app/gui/main_window.h"
#include "app/gui/op_table.h"
#include "app/gui/resource_paths.h"
#include "engine/experiment/comparison_file.h"
#include "engine/formats/native_format.h"
#include "engine/model/host_ranges.h"
#include "tests/ui/test_traces.h"
#include "ui/compare/comparison_window.h"
#include "ui/editor/workload_editor.h"
#include "ui/editor/workload_fields_model.h"
#include "ui/editor/workload_tree_model.h"
#include "ui/panels/details_panel.h"
#include "ui/panels/lessons_panel.h"
#include "ui/panels/op_table_model.h"
#include "ui/panels/summary_panel.h"
#include "ui/run/experiment_dialog.h"
#include "ui/timeline/lane_model.h"
#include "ui/timeline/timeline_view.h"
#include "ui/timeline/zoom_control.h"

using namespace streamscope;
using gui::MainWindow;

namespace {
QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}
} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_tracePath;

private slots:
    void initTestCase()
    {
        // Keep the developer's settings (recent files, window state) out of it.
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("StreamScopeTest"));
        QApplication::setApplicationName(QStringLiteral("tst_main_window"));
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_tracePath = m_dir.filePath(QStringLiteral("pipeline.sstrace"));
        engine::writeNativeTrace(*test::makePipelineTrace(3), m_tracePath.toStdString());
    }

    // Once a trace is shown, the op table's columns are fitted one per turn of the event loop (no one
    // long pause), to the very widths resizeColumnsToContents() gives at once.
    void opTableFitsItsColumnsInSteps()
    {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *dock = window.findChild<QDockWidget *>(QStringLiteral("opsDock"));
        auto *table = window.findChild<gui::OpTable *>(QStringLiteral("opTable"));
        QVERIFY(dock && table);
        dock->show();
        dock->raise();
        QTRY_VERIFY(table->isVisible());
        QVERIFY2(window.openFile(m_tracePath), qPrintable(window.lastError()));
        QVERIFY2(table->fittingColumns(), "the columns are fitted after the trace is shown, not in its pause");
        QTRY_VERIFY(!table->fittingColumns());
        const int columns = table->model()->columnCount();
        std::vector<int> stepped;
        for (int c = 0; c < columns; ++c)
            stepped.push_back(table->columnWidth(c));
        table->resizeColumnsToContents();
        for (int c = 0; c < columns; ++c)
            QVERIFY2(table->columnWidth(c) == stepped[std::size_t(c)],
                     qPrintable(QStringLiteral("column %1: %2 at once, %3 in steps")
                                    .arg(c)
                                    .arg(table->columnWidth(c))
                                    .arg(stepped[std::size_t(c)])));
        QVERIFY(std::any_of(stepped.begin(), stepped.end(), [](int w) { return w > 0; }));
    }

    void opensTraceSelectsOpAndExportsImages()
    {
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY2(window.openFile(m_tracePath), qPrintable(window.lastError()));
        QVERIFY(window.trace());
        QCOMPARE(window.trace()->repetitions.size(), std::size_t(3));
        QVERIFY(window.windowTitle().contains(QStringLiteral("pipeline-test")));
        // The trace's own "what to look for" is shown beside the timeline, with a usable width.
        auto *explanation = window.findChild<QWidget *>(QStringLiteral("explanation"));
        QVERIFY(explanation && !explanation->isHidden());
        QTRY_VERIFY(explanation->width() >= 200);
        QVERIFY(window.findChild<QTextBrowser *>(QStringLiteral("explanationText"))
                    ->toPlainText()
                    .contains(QStringLiteral("overlapping")));
        QCOMPARE(window.timeline()->repetition(), window.summaryPanel()->medianRepetition());
        QCOMPARE(window.opTableModel()->rowCount(), 6);
        QVERIFY(window.recentFiles().contains(QFileInfo(m_tracePath).absoluteFilePath()));

        // Selecting an op in the timeline fills the details panel.
        window.timeline()->selectOp(1);
        QCOMPARE(window.timeline()->selectedOp().op, 1);
        QTRY_VERIFY(window.detailsPanel()->plainText().contains(QStringLiteral("compute 100 us")));

        // Another repetition from the summary's selector drives the timeline and the op table.
        window.setRepetition(2);
        QCOMPARE(window.timeline()->repetition(), 2);
        QCOMPARE(window.opTableModel()->repetition(), 2);

        const QString png = m_dir.filePath(QStringLiteral("view.png"));
        QString error;
        QVERIFY2(window.exportImage(png, QSize(1280, 720), &error), qPrintable(error));
        QImage image(png);
        QCOMPARE(image.size(), QSize(1280, 720));
        // Non-trivial: the picture has the op colours, not one flat fill.
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 4)
            for (int x = 0; x < image.width(); x += 4)
                colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 8, qPrintable(QString::number(colours.size())));
        QVERIFY(QFileInfo(png).size() > 5000);

        const QString svg = m_dir.filePath(QStringLiteral("view.svg"));
        QVERIFY2(window.exportImage(svg, QSize(1280, 720), &error), qPrintable(error));
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        const QByteArray svgText = svgFile.readAll();
        QVERIFY(svgText.contains("<svg"));
        QVERIFY(svgText.size() > 2000);

        // Save the trace again (atomic native write) and read it back.
        const QString copy = m_dir.filePath(QStringLiteral("copy.sstrace"));
        QVERIFY2(window.saveTrace(copy, &error), qPrintable(error));
        QCOMPARE(engine::readNativeTrace(copy.toStdString()).opCount(), window.trace()->opCount());

        // Screenshot of the window for the docs when asked (not part of the checks).
        if (const QByteArray out = qgetenv("STREAMSCOPE_SCREENSHOT_DIR"); !out.isEmpty())
            window.grab().save(QString::fromLocal8Bit(out) + QStringLiteral("/main-window-test.png"));
    }

    void badFilesAreReportedAndTheWindowKeepsWorking()
    {
        MainWindow window;
        QVERIFY(window.openFile(m_tracePath));
        const auto before = window.trace();

        const QString garbage = m_dir.filePath(QStringLiteral("garbage.sstrace"));
        QFile file(garbage);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("this is not a trace at all");
        file.close();
        QVERIFY(!window.openFile(garbage));
        QVERIFY2(window.lastError().contains(QStringLiteral("garbage.sstrace")), qPrintable(window.lastError()));
        QCOMPARE(window.trace(), before); // what was shown stays

        QVERIFY(!window.openFile(m_dir.filePath(QStringLiteral("missing.sstrace"))));
        QVERIFY(window.lastError().contains(QStringLiteral("missing.sstrace")));

        // Hostile files nested 300,000 levels deep (a trace, a workload): refused with where, not a crash
        // or gigabytes of memory; what was shown stays.
        const QByteArray deep = QByteArray(300'000, '[') + QByteArray(300'000, ']');
        for (const auto &[name, text] :
             {std::pair{QStringLiteral("deep-trace.json"), QByteArray("{\"traceEvents\": ") + deep + "}"},
              std::pair{QStringLiteral("deep-workload.json"),
                        QByteArray("{\"version\": 1, \"streams\": ") + deep + "}"}}) {
            QFile hostile(m_dir.filePath(name));
            QVERIFY(hostile.open(QIODevice::WriteOnly));
            hostile.write(text);
            hostile.close();
            window.openFile(hostile.fileName());
            QVERIFY2(window.lastError().contains(name), qPrintable(window.lastError()));
            QCOMPARE(window.trace(), before);
            if (name.contains(QStringLiteral("trace"))) {
                QVERIFY2(window.lastError().contains(QStringLiteral("nested deeper than 256 levels")),
                         qPrintable(window.lastError()));
            } else {
                // A workload goes to the editor, its problem listed there with the line and column.
                const auto &issues = window.workloadEditor()->issues();
                QCOMPARE(int(issues.size()), 1);
                QVERIFY2(QString::fromStdString(issues.front().message).contains(QStringLiteral("nested deeper")),
                         issues.front().message.c_str());
                QCOMPARE(issues.front().line, 1);
                QVERIFY(issues.front().column > 256);
            }
        }

        QString error;
        QVERIFY(!window.exportImage(QStringLiteral("/nonexistent-dir/x.png"), QSize(640, 480), &error));
        QVERIFY(!error.isEmpty());

        // And it still opens good files.
        QVERIFY(window.openFile(m_tracePath));
    }

    // Every hostile file of tests/data/hostile fails the way it fails in the CLI (exit 3 there): the window
    // names the file and keeps what it showed, a workload's problems are listed with line and column, and
    // the headless export exits 3 as the CLI does (issue #13).
    void hostileFilesFailOneWay()
    {
        MainWindow window;
        QVERIFY(window.openFile(m_tracePath));
        const auto before = window.trace();
        const QDir data(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/tests/data/hostile"));
        const QStringList files = data.entryList({QStringLiteral("*.sstrace"), QStringLiteral("*.json"),
                                                  QStringLiteral("*.sscompare"), QStringLiteral("*.sqlite")},
                                                 QDir::Files);
        QVERIFY(files.size() >= 15);
        for (const QString &name : files) {
            const QString path = data.filePath(name);
            if (name.startsWith(QStringLiteral("workload"))) {
                window.openFile(path);
                const auto &issues = window.workloadEditor()->issues();
                QVERIFY2(!issues.empty(), qPrintable(name));
                QVERIFY2(issues.front().line >= 1 && issues.front().column >= 1, qPrintable(name));
            } else {
                QVERIFY2(!window.openFile(path), qPrintable(name));
                QVERIFY2(window.lastError().contains(name), qPrintable(name + ": " + window.lastError()));
                QVERIFY2(!window.lastError().contains(QStringLiteral("internal error")),
                         qPrintable(window.lastError()));
            }
            QCOMPARE(window.trace(), before);
            if (name.startsWith(QStringLiteral("native")) || name.startsWith(QStringLiteral("chrome"))
                || name.startsWith(QStringLiteral("nsys"))) {
                gui::AppOptions options;
                options.tracePath = path;
                options.exportImagePath = m_dir.filePath(QStringLiteral("hostile.png"));
                options.size = QSize(320, 200);
                QVERIFY2(gui::exportImageHeadless(options) == 3, qPrintable(name));
                QVERIFY(!QFileInfo::exists(options.exportImagePath));
            }
        }
        QVERIFY(window.openFile(m_tracePath)); // and it still opens good files
    }

    void dropOpensTheFile()
    {
        MainWindow window;
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(m_tracePath)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        // A drop opens in the background: the window returns to its event loop at once.
        QVERIFY(window.isOpening());
        QTRY_VERIFY_WITH_TIMEOUT(!window.isOpening(), 20000);
        QVERIFY2(window.trace(), qPrintable(window.lastError()));
        QCOMPARE(window.trace()->repetitions.size(), std::size_t(3));

        // Something that is not a local file is not taken.
        QMimeData remote;
        remote.setUrls({QUrl(QStringLiteral("https://example.com/x.sstrace"))});
        QDragEnterEvent remoteEnter(QPoint(10, 10), Qt::CopyAction, &remote, Qt::LeftButton, Qt::NoModifier);
        remoteEnter.setAccepted(false);
        QApplication::sendEvent(&window, &remoteEnter);
        QVERIFY(!remoteEnter.isAccepted());
    }

    // A PyTorch-sized trace (35,000 kernels, as the 5-stream A100 Kineto trace in ../shared has) opens in
    // the background: progress reaches the status bar, the event loop keeps running (a timer fires
    // many times while it loads), Cancel drops it, and of two opens in a row only the second is shown.
    void largeTraceOpensInTheBackground()
    {
        const QString big = m_dir.filePath(QStringLiteral("kineto-35k.json"));
        {
            QFile f(big);
            QVERIFY(f.open(QIODevice::WriteOnly));
            // Kineto's layout: runtime calls on a host thread, kernels on 5 streams, tied by correlation.
            QJsonArray events;
            events.append(QJsonObject{
                {QStringLiteral("ph"), QStringLiteral("M")},
                {QStringLiteral("name"), QStringLiteral("process_name")},
                {QStringLiteral("pid"), 100},
                {QStringLiteral("tid"), 0},
                {QStringLiteral("args"), QJsonObject{{QStringLiteral("name"), QStringLiteral("python3")}}}});
            for (int i = 0; i < 35000; ++i) {
                const double ts = 1000.0 + i * 20.0;
                events.append(
                    QJsonObject{{QStringLiteral("ph"), QStringLiteral("X")},
                                {QStringLiteral("cat"), QStringLiteral("cuda_runtime")},
                                {QStringLiteral("name"), QStringLiteral("cudaLaunchKernel")},
                                {QStringLiteral("pid"), 100},
                                {QStringLiteral("tid"), 101},
                                {QStringLiteral("ts"), ts},
                                {QStringLiteral("dur"), 3},
                                {QStringLiteral("args"), QJsonObject{{QStringLiteral("correlation"), i + 1}}}});
                events.append(
                    QJsonObject{{QStringLiteral("ph"), QStringLiteral("X")},
                                {QStringLiteral("cat"), QStringLiteral("kernel")},
                                {QStringLiteral("name"), QStringLiteral("void gemm_kernel<%1>()").arg(i % 7)},
                                {QStringLiteral("pid"), 0},
                                {QStringLiteral("tid"), 7 + i % 5},
                                {QStringLiteral("ts"), ts + 4},
                                {QStringLiteral("dur"), 15},
                                {QStringLiteral("args"), QJsonObject{{QStringLiteral("device"), 0},
                                                                     {QStringLiteral("stream"), 7 + i % 5},
                                                                     {QStringLiteral("correlation"), i + 1}}}});
            }
            const QByteArray text = QJsonDocument(QJsonObject{{QStringLiteral("schemaVersion"), 1},
                                                              {QStringLiteral("traceEvents"), events}})
                                        .toJson(QJsonDocument::Compact);
            QVERIFY(f.write(text) == text.size());
        }
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *progress = window.findChild<QProgressBar *>(QStringLiteral("loadProgress"));
        auto *cancel = window.findChild<QPushButton *>(QStringLiteral("loadCancelButton"));
        QVERIFY(progress && cancel);

        // Cancel: what was shown stays shown, nothing of the big trace arrives later.
        QVERIFY(window.openFile(m_tracePath));
        const auto before = window.trace();
        window.openFileInBackground(big);
        QVERIFY(window.isOpening());
        QVERIFY(progress->isVisible() && cancel->isVisible());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY(!window.isOpening());
        QVERIFY(!progress->isVisible());
        QTest::qWait(300);
        QCOMPARE(window.trace(), before);

        // Two opens in a row: the first is abandoned, only the second is shown.
        window.openFileInBackground(big);
        window.openFileInBackground(m_tracePath);
        QTRY_VERIFY_WITH_TIMEOUT(!window.isOpening(), 20000);
        QTest::qWait(200);
        QCOMPARE(window.trace()->repetitions.size(), std::size_t(3));

        // The big one, to the end, with the event loop running all along: the longest the GUI thread went
        // without running a 5 ms timer is what a user would feel as a freeze.
        int ticks = 0;
        int maxPercent = 0;
        std::set<int> percentsSeen; // the progress values the GUI thread showed while it ran the timer
        qint64 longestGap = 0;
        QElapsedTimer clock;
        qint64 lastTick = 0;
        QTimer timer;
        timer.setTimerType(Qt::PreciseTimer);
        connect(&timer, &QTimer::timeout, this, [&] {
            ++ticks;
            const qint64 now = clock.elapsed();
            longestGap = std::max(longestGap, now - lastTick);
            lastTick = now;
            if (progress->isVisible()) {
                maxPercent = std::max(maxPercent, progress->value());
                percentsSeen.insert(progress->value());
            }
            // With STREAMSCOPE_SCREENSHOT_DIR set: the window while it opens (docs/screenshots).
            static bool shot = false;
            const QString dir = qEnvironmentVariable("STREAMSCOPE_SCREENSHOT_DIR");
            if (!shot && !dir.isEmpty() && progress->isVisible() && progress->value() >= 40) {
                shot = true;
                window.grab().save(dir + QStringLiteral("/opening-large-trace.png"));
            }
        });
        clock.start();
        timer.start(5);
        window.openFileInBackground(big);
        QTRY_VERIFY_WITH_TIMEOUT(!window.isOpening(), 60000);
        const qint64 ms = clock.elapsed();
        timer.stop();
        QVERIFY2(window.trace() && window.trace()->opCount() >= 35000, qPrintable(window.lastError()));
        QVERIFY2(maxPercent > 0, "no progress was shown");
        qInfo("35k-kernel trace opened in the background in %lld ms; %d timer ticks, longest gap %lld ms; progress "
              "reached %d %%, %zu values of it seen",
              ms, ticks, longestGap, maxPercent, percentsSeen.size());
        // The event loop ran while the file was read: the timer saw the progress bar at several values, so
        // it fired between the loader's steps, not only before or after the load.
        QVERIFY2(
            percentsSeen.size() >= 3,
            qPrintable(
                QStringLiteral("the timer saw %1 progress values in %2 ticks").arg(percentsSeen.size()).arg(ticks)));
        // And the GUI thread was never held for most of the open (a ratio within this run, not a time:
        // the build machine measured the longest gap at 12-25 % of the open, the showing of the loaded
        // trace; reading the file on the GUI thread holds it for all of the read, 90 % and more). How long
        // it is held is a benchmark's figure: bench/bench_ui_open.
        QVERIFY2(2 * longestGap < ms,
                 qPrintable(QStringLiteral("the GUI thread was held %1 ms of a %2 ms open").arg(longestGap).arg(ms)));
    }

    void unsavedWorkloadIsNotDropped()
    {
        MainWindow window;
        int asked = 0;
        window.setDiscardQuestion([&asked] {
            ++asked;
            return MainWindow::DiscardAnswer::Cancel;
        });
        window.workloadEditor()->setText(ui::WorkloadEditor::templateText(), QStringLiteral("mine.json"));
        window.workloadEditor()->addStream();
        QVERIFY(window.workloadEditor()->isModified());
        const QString edited = window.workloadEditor()->text();

        const QString other = m_dir.filePath(QStringLiteral("other.json"));
        QFile file(other);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(ui::WorkloadEditor::templateText().toUtf8());
        file.close();
        QVERIFY(!window.openFile(other)); // the user said Cancel
        QCOMPARE(asked, 1);
        QCOMPARE(window.workloadEditor()->text(), edited);
        QVERIFY(!window.close()); // closing asks too, and Cancel keeps the window
        QCOMPARE(asked, 2);

        window.setDiscardQuestion([] { return MainWindow::DiscardAnswer::Discard; });
        QVERIFY(window.openFile(other));
        QCOMPARE(window.workloadEditor()->filePath(), other);
        QVERIFY(!window.workloadEditor()->isModified());
    }

    void savingAWorkloadWithProblemsAsksFirst()
    {
        MainWindow window;
        const QString path = m_dir.filePath(QStringLiteral("broken.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(ui::WorkloadEditor::templateText().toUtf8());
        file.close();
        QVERIFY(window.openWorkload(path));
        ui::WorkloadEditor *editor = window.workloadEditor();
        const QString broken =
            editor->text().replace(QStringLiteral("\"src\": \"host\""), QStringLiteral("\"src\": \"nowhere\""));
        QVERIFY(broken != editor->text());
        editor->jsonEdit()->setPlainText(broken);
        int asked = 0;
        window.setSaveInvalidQuestion([&asked] {
            ++asked;
            return false;
        });
        QVERIFY(!window.saveWorkload()); // the question comes even before the pause's validation
        QCOMPARE(asked, 1);
        QVERIFY2(!readAll(path).contains("nowhere"), "the file was written although the user said Cancel");
        window.setSaveInvalidQuestion([&asked] {
            ++asked;
            return true;
        });
        QVERIFY(window.saveWorkload());
        QCOMPARE(asked, 2);
        QVERIFY(readAll(path).contains("nowhere"));
        QVERIFY(!editor->isModified());
        // A valid workload saves without a question.
        editor->jsonEdit()->setPlainText(ui::WorkloadEditor::templateText());
        QVERIFY(window.saveWorkload());
        QCOMPARE(asked, 2);
    }

    void saveWorksFromEveryFocus()
    {
        MainWindow window;
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.setSaveInvalidQuestion([] { return true; });
        const QString path = m_dir.filePath(QStringLiteral("focus.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(ui::WorkloadEditor::templateText().toUtf8());
        file.close();
        QVERIFY(window.openWorkload(path));
        ui::WorkloadEditor *editor = window.workloadEditor();
        auto *dock = window.findChild<QDockWidget *>(QStringLiteral("workloadDock"));
        QVERIFY(dock);
        auto *fields = editor->findChild<QTableView *>(QStringLiteral("workloadFields"));
        QVERIFY(fields);

        int round = 0;
        // Each round changes the workload's name from a different focus, then presses Ctrl+S there.
        auto *tabs = editor->findChild<QTabWidget *>();
        QVERIFY(tabs);
        auto pressSaveIn = [&](QWidget *focus, const char *where) {
            // The editor's tab that holds the widget is shown first, as a user would click it.
            tabs->setCurrentIndex(focus == editor->jsonEdit() ? 1 : 0);
            focus->activateWindow();
            focus->setFocus(Qt::OtherFocusReason);
            QApplication::setActiveWindow(focus->window());
            QTRY_VERIFY2(focus->hasFocus(), where);
            QTest::keyClick(focus, Qt::Key_S, Qt::ControlModifier);
            QTRY_VERIFY2(!editor->isModified(), where);
        };
        auto renameInText = [&] {
            ++round;
            QString text = editor->text();
            text.replace(QRegularExpression(QStringLiteral("\"name\": \"[^\"]*\"")),
                         QStringLiteral("\"name\": \"round-%1\"").arg(round));
            editor->jsonEdit()->setPlainText(text);
            QVERIFY(editor->isModified());
        };
        const struct {
            const char *where;
            QWidget *widget;
        } focuses[] = {{"the JSON text", editor->jsonEdit()},
                       {"the workload tree", editor->treeView()},
                       {"the timeline", window.timeline()},
                       {"the field table", fields}};
        for (const auto &f : focuses) {
            renameInText();
            pressSaveIn(f.widget, f.where);
            QVERIFY2(readAll(path).contains(QStringLiteral("round-%1").arg(round).toUtf8()), f.where);
        }

        // A value still being typed in a field's editor is saved, not lost.
        editor->selectNode({ui::WorkloadTreeModel::NodeType::Settings, -1, -1, -1});
        const int nameRow = editor->fieldsModel()->rowOf(QStringLiteral("name"));
        QVERIFY(nameRow >= 0);
        const QModelIndex cell = editor->fieldsModel()->index(nameRow, 1);
        fields->setCurrentIndex(cell);
        fields->edit(cell);
        auto *line = qobject_cast<QLineEdit *>(fields->indexWidget(cell));
        QVERIFY2(line, "no line editor opened on the name field");
        line->setText(QStringLiteral("typed-not-entered"));
        line->setFocus();
        QTRY_VERIFY(line->hasFocus());
        QTest::keyClick(line, Qt::Key_S, Qt::ControlModifier);
        QTRY_VERIFY2(readAll(path).contains("typed-not-entered"), "Ctrl+S in a field editor lost the typed value");
        QVERIFY(!editor->isModified());

        // From the editor's dock floating in its own window.
        dock->setFloating(true);
        dock->show();
        QVERIFY(QTest::qWaitForWindowExposed(dock));
        renameInText();
        pressSaveIn(editor->jsonEdit(), "the floating editor dock");
        QVERIFY(readAll(path).contains(QStringLiteral("round-%1").arg(round).toUtf8()));
    }

    void editorProblemsMessageClearsWhenFixed()
    {
        MainWindow window;
        const QString path = m_dir.filePath(QStringLiteral("fixme.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(ui::WorkloadEditor::templateText()
                       .replace(QStringLiteral("\"dst\": \"dev\""), QStringLiteral("\"dst\": \"nowhere\""))
                       .toUtf8());
        file.close();
        QVERIFY(window.openWorkload(path));
        auto *bar = window.findChild<QWidget *>(QStringLiteral("errorBar"));
        QVERIFY(bar);
        QVERIFY2(!bar->isHidden(), "opening a workload with problems says so");
        QVERIFY(window.lastError().contains(QStringLiteral("fixme.json")));
        ui::WorkloadEditor *editor = window.workloadEditor();
        editor->jsonEdit()->setPlainText(ui::WorkloadEditor::templateText());
        editor->validateNow();
        QVERIFY(editor->isValid());
        QVERIFY2(bar->isHidden(), "the message about the problems stayed after they were fixed");

        // Another kind of message (a file that could not be read) is not cleared by a valid workload.
        QVERIFY(!window.openFile(m_dir.filePath(QStringLiteral("absent.sstrace"))));
        QVERIFY(!bar->isHidden());
        editor->jsonEdit()->setPlainText(ui::WorkloadEditor::templateText() + QStringLiteral(" "));
        editor->validateNow();
        QVERIFY(!bar->isHidden());
    }

    void presetsOpenInTheEditor()
    {
        // Presets written as a "pipeline" (no "streams" key) are workloads too, not Chrome traces.
        const QString preset = QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads/overlap.json");
        // A committed file: its absence is a broken checkout, not a reason to skip.
        QVERIFY2(QFileInfo::exists(preset), qPrintable(preset + QStringLiteral(" is missing")));
        MainWindow window;
        QVERIFY2(window.openFile(preset), qPrintable(window.lastError()));
        QCOMPARE(window.workloadEditor()->filePath(), preset);
        QVERIFY(window.workloadEditor()->isValid());
        QVERIFY(!window.trace());
        // Its "what to look for" is beside the (empty) timeline before it is even run.
        QVERIFY(!window.findChild<QWidget *>(QStringLiteral("explanation"))->isHidden());
        QVERIFY(window.findChild<QTextBrowser *>(QStringLiteral("explanationText"))
                    ->toPlainText()
                    .contains(QStringLiteral("chunk")));
    }

    void exampleTracesOpenWithTheirLesson()
    {
        const QString example = QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/overlap.sstrace");
        QVERIFY2(QFileInfo::exists(example), qPrintable(example + QStringLiteral(" is missing")));
        MainWindow window;
        QVERIFY2(window.openFile(example), qPrintable(window.lastError()));
        QVERIFY(window.trace()->opCount() > 0);
        // The lesson list follows: the window finds the source tree's resources (STREAMSCOPE_SOURCE_DIR's
        // fallback), so the overlap lesson is there and becomes the current one.
        const int lesson = window.lessonsPanel()->lessonForPath(example);
        QVERIFY2(lesson >= 0, "the overlap example's lesson is not in the lessons panel");
        QCOMPARE(window.lessonsPanel()->currentLesson(), lesson);
        auto *text = window.findChild<QTextBrowser *>(QStringLiteral("explanationText"));
        QVERIFY(!text->toPlainText().isEmpty());

        // A trace that is no lesson's (here a native trace written elsewhere) leaves no lesson selected, and
        // the lesson buttons off: nothing suggests it belongs to the overlap lesson.
        QTemporaryDir dir;
        const QString other = dir.filePath(QStringLiteral("mine.sstrace"));
        QVERIFY(QFile::copy(example, other));
        QVERIFY2(window.openFile(other), qPrintable(window.lastError()));
        QCOMPARE(window.lessonsPanel()->currentLesson(), -1);
        auto *compare = window.lessonsPanel()->findChild<QPushButton *>(QStringLiteral("lessonCompare"));
        QVERIFY(compare);
        QVERIFY(!compare->isEnabled());
        QVERIFY2(window.openFile(example), qPrintable(window.lastError()));
        QCOMPARE(window.lessonsPanel()->currentLesson(), lesson);
    }

    void runFailuresAreShown()
    {
        MainWindow window;
        // A child that crashes: the window says so and stays usable.
        window.runController()->setProgram(
            QStringLiteral("/bin/sh"),
            {QStringLiteral("-c"), QStringLiteral("echo oops >&2; kill -SEGV $$"), QStringLiteral("sh")});
        QVERIFY(!window.runWorkload()); // nothing in the editor yet
        window.workloadEditor()->setText(ui::WorkloadEditor::templateText(), QStringLiteral("w.json"));
        QSignalSpy failed(window.runController(), &ui::RunController::runFailed);
        QVERIFY(window.runWorkload());
        QVERIFY(failed.wait(10000));
        QVERIFY2(window.lastError().contains(QStringLiteral("crashed")), qPrintable(window.lastError()));

        // A child that reports no GPU: the banner explains, Run is refused until a GPU is found.
        window.runController()->setProgram(
            QStringLiteral("/bin/sh"),
            {QStringLiteral("-c"),
             QStringLiteral("echo '{\"event\":\"error\",\"kind\":\"no_gpu\",\"exit_code\":5,\"message\":\"no "
                            "CUDA-capable device is detected\"}'; exit 5"),
             QStringLiteral("sh")});
        failed.clear();
        QVERIFY(window.runWorkload());
        QVERIFY(failed.wait(10000));
        QVERIFY2(window.bannerText().contains(QStringLiteral("no CUDA-capable device")),
                 qPrintable(window.bannerText()));
        QVERIFY(!window.runWorkload());
    }

    void cancelFromTheWindow()
    {
        MainWindow window;
        window.runController()->setCancelGracePeriod(500);
        window.runController()->setProgram(
            QStringLiteral("/bin/sh"),
            {QStringLiteral("-c"),
             QStringLiteral(
                 "echo '{\"event\":\"start\",\"workload\":\"w\",\"repetitions\":5,\"ops\":3}'; exec sleep 30"),
             QStringLiteral("sh")});
        window.workloadEditor()->setText(ui::WorkloadEditor::templateText(), QStringLiteral("w.json"));
        QSignalSpy started(window.runController(), &ui::RunController::runStarted);
        QSignalSpy failed(window.runController(), &ui::RunController::runFailed);
        QVERIFY(window.runWorkload());
        QVERIFY(started.wait(10000));
        QVERIFY(!window.runWorkload()); // one run at a time
        window.cancelRun();
        QVERIFY(failed.wait(10000) || failed.count() > 1);
        QVERIFY2(window.lastError().contains(QStringLiteral("cancelled")), qPrintable(window.lastError()));
        QVERIFY(!window.runController()->isBusy());
    }

    void successfulRunShowsTheTrace()
    {
        MainWindow window;
        // A fake CLI that "runs" by copying a prepared trace to the output path it is given ($4).
        window.runController()->setProgram(
            QStringLiteral("/bin/sh"),
            {QStringLiteral("-c"),
             QStringLiteral("cp '%1' \"$4\" && printf '{\"event\":\"done\",\"output\":\"%s\"}\\n' \"$4\"")
                 .arg(m_tracePath),
             QStringLiteral("sh")});
        window.workloadEditor()->setText(ui::WorkloadEditor::templateText(), QStringLiteral("w.json"));
        QSignalSpy finished(window.runController(), &ui::RunController::runFinished);
        QVERIFY(window.runWorkload());
        QVERIFY(finished.wait(10000));
        QVERIFY2(window.trace(), qPrintable(window.lastError()));
        QCOMPARE(window.trace()->opCount(), std::size_t(18));
    }

    // Run > Compare variants from a lesson: the dialog starts from the lesson's axes, the CLI gets them,
    // and the result opens in a comparison window marked unsaved, which saves to a .sscompare.
    void lessonComparisonFromTheWindow()
    {
        const QString recorded =
            QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/comparisons/overlap.sscompare");
        const QString preset = QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads/overlap.json");
        QVERIFY(QFileInfo::exists(recorded));
        MainWindow window;
        const QString argsFile = m_dir.filePath(QStringLiteral("compare-args"));
        // A fake CLI: records its arguments and "compares" by copying the recorded comparison to -o.
        window.runController()->setProgram(
            QStringLiteral("/bin/sh"),
            {QStringLiteral("-c"),
             QStringLiteral("printf '%s\\n' \"$@\" > '%1'; for a in \"$@\"; do [ \"$p\" = -o ] && o=$a; p=$a; done;"
                            "cp '%2' \"$o\" && printf '{\"event\":\"done\",\"output\":\"%s\"}\\n' \"$o\"")
                 .arg(argsFile, recorded),
             QStringLiteral("sh")});
        QStringList offered;
        window.setExperimentQuestion([&offered](ui::ExperimentDialog &dialog) {
            offered = dialog.varyOptions();
            dialog.setRepetitions(2);
            return true;
        });
        // The lesson's Compare button: loads the workload into the editor, then asks.
        ui::LessonsPanel *lessons = window.lessonsPanel();
        int index = -1;
        for (int i = 0; i < int(lessons->lessons().size()); ++i)
            if (lessons->lessons()[std::size_t(i)].workloadPath.endsWith(QStringLiteral("/overlap.json")))
                index = i;
        QVERIFY(index >= 0);
        lessons->setCurrentLesson(index);
        auto *compareButton = lessons->findChild<QPushButton *>(QStringLiteral("lessonCompare"));
        auto *recordedButton = lessons->findChild<QPushButton *>(QStringLiteral("lessonRecordedComparison"));
        QVERIFY(compareButton && recordedButton);
        QVERIFY(compareButton->isEnabled());
        QVERIFY(recordedButton->isEnabled());
        QSignalSpy finished(window.runController(), &ui::RunController::runFinished);
        compareButton->click();
        QCOMPARE(offered, QStringList({QStringLiteral("chunks=8"), QStringLiteral("streams=1, 2, 4, 8"),
                                       QStringLiteral("order=depth-first, breadth-first")}));
        QVERIFY(finished.wait(10000));
        QFile args(argsFile);
        QVERIFY(args.open(QIODevice::ReadOnly));
        const QStringList passed = QString::fromUtf8(args.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(passed.mid(0, 1), QStringList{QStringLiteral("compare")});
        QVERIFY2(
            passed.join(QLatin1Char(' '))
                .contains(QStringLiteral(
                    "--vary chunks=8 --vary streams=1, 2, 4, 8 --vary order=depth-first, breadth-first --repeat 2")),
            qPrintable(passed.join(QLatin1Char(' '))));
        ui::ComparisonWindow *comparison = window.lastComparison();
        QVERIFY2(comparison, qPrintable(window.lastError()));
        QCOMPARE(int(comparison->comparison().variants.size()), 8);
        QVERIFY(comparison->isUnsaved());
        QVERIFY(comparison->windowTitle().contains(QStringLiteral("not saved")));
        const QString saved = m_dir.filePath(QStringLiteral("saved.sscompare"));
        QString error;
        QVERIFY2(comparison->saveAs(saved, &error), qPrintable(error));
        QVERIFY(!comparison->isUnsaved());
        QCOMPARE(int(engine::readComparison(saved.toStdString()).variants.size()), 8);
        comparison->close();

        // Without a GPU the Compare button is off and says why; the recorded comparison still opens.
        lessons->setCanRun(false);
        QVERIFY(!compareButton->isEnabled());
        QVERIFY(compareButton->toolTip().contains(QStringLiteral("No usable GPU")));
        recordedButton->click();
        QVERIFY(window.lastComparison());
        QCOMPARE(int(window.lastComparison()->comparison().variants.size()), 8);
        // A lesson without a comparison has the button off.
        for (int i = 0; i < int(lessons->lessons().size()); ++i)
            if (lessons->lessons()[std::size_t(i)].compare.isEmpty()) {
                lessons->setCanRun(true);
                lessons->setCurrentLesson(i);
                QVERIFY(!compareButton->isEnabled());
                break;
            }
    }

    void realCliWithoutGpuShowsBanner()
    {
        const QString cli = QStringLiteral(STREAMSCOPE_CLI);
        if (!QFileInfo(cli).isExecutable())
            QSKIP("streamscope-cli is not built");
        MainWindow window;
        window.runController()->setProgram(cli);
        QSignalSpy checked(window.runController(), &ui::RunController::devicesChecked);
        window.checkGpu();
        QVERIFY(checked.wait(30000));
        if (checked.first().first().toBool())
            QSKIP("a GPU is usable here");
        QVERIFY2(window.bannerText().contains(QStringLiteral("No usable GPU")), qPrintable(window.bannerText()));
        // One line that says it once, with the runner's reason and not the CUDA call's error beside it (it
        // read "no usable GPU" twice, "no NVIDIA driver" and "driver version is insufficient" at once, on
        // three lines); the whole message on demand.
        const QString line = window.bannerText();
        QVERIFY2(!line.contains(QLatin1Char('\n')), qPrintable(line));
        QVERIFY2(line.count(QStringLiteral("no usable GPU"), Qt::CaseInsensitive) == 1, qPrintable(line));
        QVERIFY2(!line.contains(QStringLiteral("cuda"), Qt::CaseInsensitive), qPrintable(line));
        QVERIFY2(!(line.contains(QStringLiteral("no NVIDIA driver")) && line.contains(QStringLiteral("insufficient"))),
                 qPrintable(line));
        const QString message = checked.first().at(1).toString().trimmed();
        window.showBannerDetails(true);
        QCOMPARE(window.bannerText(), line + QLatin1Char('\n') + message);
        window.showBannerDetails(false);
        QCOMPARE(window.bannerText(), line);
        // The examples recorded on a real GPU stand in for a run, when there are any.
        if (!gui::exampleTraces().isEmpty()) {
            // Opened in the background, so the window stays usable while it loads.
            QTRY_VERIFY_WITH_TIMEOUT(!window.isOpening(), 20000);
            QVERIFY2(window.trace(), qPrintable(window.lastError()));
            QVERIFY(window.bannerText().contains(QStringLiteral("example traces")));
        } else {
            QVERIFY(window.bannerText().contains(QStringLiteral("No example traces")));
        }
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        if (const QByteArray out = qgetenv("STREAMSCOPE_SCREENSHOT_DIR"); !out.isEmpty()) {
            QTest::qWait(300);
            window.grab().save(QString::fromLocal8Bit(out) + QStringLiteral("/no-gpu-test.png"));
        }
    }

    void presentationMode()
    {
        MainWindow window;
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openFile(m_tracePath));
        const qreal before = window.font().pointSizeF();
        window.setPresentationMode(true);
        QVERIFY(window.timeline()->presentationMode());
        QVERIFY(window.font().pointSizeF() > before);
        // Only the timeline, the explanation and the summary: every other dock is hidden.
        for (const char *dock : {"lessonsDock", "workloadDock", "detailsDock", "opsDock", "rangeDock"})
            QVERIFY2(window.findChild<QDockWidget *>(QLatin1String(dock))->isHidden(), dock);
        QVERIFY(!window.findChild<QDockWidget *>(QStringLiteral("summaryDock"))->isHidden());
        if (const QByteArray out = qgetenv("STREAMSCOPE_SCREENSHOT_DIR"); !out.isEmpty()) {
            QTest::qWait(300); // let the larger fonts lay out
            window.grab().save(QString::fromLocal8Bit(out) + QStringLiteral("/presentation-test.png"));
        }
        window.setPresentationMode(false);
        QVERIFY(!window.timeline()->presentationMode());
        QCOMPARE(window.font().pointSizeF(), before);
        QVERIFY(!window.findChild<QDockWidget *>(QStringLiteral("summaryDock"))->isHidden());
    }

    void headlessExport()
    {
        gui::AppOptions options;
        options.tracePath = m_tracePath;
        options.exportImagePath = m_dir.filePath(QStringLiteral("headless.png"));
        options.size = QSize(800, 450);
        options.repetition = 2;
        options.presentation = true;
        QCOMPARE(gui::exportImageHeadless(options), 0);
        const QImage image(options.exportImagePath);
        QCOMPARE(image.size(), QSize(800, 450));
        QVERIFY(QFileInfo(options.exportImagePath).size() > 3000);

        options.repetition = 7; // the trace has 3
        QCOMPARE(gui::exportImageHeadless(options), 2);
        options.repetition = -1;
        options.tracePath = m_dir.filePath(QStringLiteral("missing.sstrace"));
        QCOMPARE(gui::exportImageHeadless(options), 4);
        // A number beyond a double aborted the headless export (an uncaught nlohmann exception): now
        // invalid input, as in the CLI.
        QFile big(m_dir.filePath(QStringLiteral("big-number.json")));
        QVERIFY(big.open(QIODevice::WriteOnly));
        big.write(R"({"traceEvents":[{"ph":"X","name":"k","ts":1e400,"dur":1,"pid":1,"tid":1}]})");
        big.close();
        options.tracePath = big.fileName();
        QCOMPARE(gui::exportImageHeadless(options), 3);
    }

    void nvtxRangesInTheWindow()
    {
        // The pipeline trace with an NVTX range "forward" around the first stream's launches and a kernel
        // launch recorded for its kernel.
        auto trace = test::makePipelineTrace(1);
        auto &rep = trace->repetitions[0];
        engine::HostRange forward;
        forward.nameId = trace->intern("forward");
        forward.hostThread = 0;
        forward.startNs = rep.ops[0].hostStartNs;
        forward.endNs = rep.ops[1].hostEndNs; // the H2D and the kernel of copy0, nothing of copy1
        rep.hostRanges.push_back(forward);
        engine::KernelLaunch launch;
        launch.op = 1;
        launch.grid[0] = 132;
        launch.grid[1] = launch.grid[2] = 1;
        launch.block[0] = 256;
        launch.block[1] = launch.block[2] = 1;
        launch.sharedBytes = 8192;
        launch.staticSharedBytes = 0;
        launch.dynamicSharedBytes = 8192;
        launch.registersPerThread = 64;
        launch.queuedNs = rep.ops[1].gpuStartNs - 7'000; // CUPTI's latency timestamps, kept with the launch
        launch.submittedNs = rep.ops[1].gpuStartNs - 4'000;
        rep.kernelLaunches.push_back(launch);
        engine::layoutHostRanges(rep);
        QCOMPARE(trace->rangeName(rep, rep.ops[1]), std::string("forward"));
        const QString path = m_dir.filePath(QStringLiteral("ranges.sstrace"));
        engine::writeNativeTrace(*trace, path.toStdString());

        MainWindow window;
        window.resize(1400, 900);
        QVERIFY2(window.openFile(path), qPrintable(window.lastError()));
        // The thread's lane has its NVTX row; no projection until asked.
        const ui::LaneModel *model = window.timeline()->laneModel();
        QVERIFY(model->lane(model->hostLane(0) + 1).kind == ui::LaneKind::HostRanges);
        auto projected = [&] {
            int rows = 0;
            for (const ui::Lane &lane : window.timeline()->laneModel()->lanes())
                rows += lane.kind == ui::LaneKind::NvtxProjection;
            return rows;
        };
        QCOMPARE(projected(), 0);
        auto *action = window.findChild<QAction *>(QStringLiteral("projectNvtxAction"));
        QVERIFY(action && action->isCheckable());
        QCOMPARE(action->text(), QStringLiteral("Project &NVTX onto GPU lanes"));
        action->trigger();
        QVERIFY(window.projectNvtx());
        QCOMPARE(projected(), 1); // only the first stream's ops were launched in a range
        QCOMPARE(QSettings().value(QStringLiteral("timeline/projectNvtx")).toBool(), true);
        action->trigger();
        QCOMPARE(projected(), 0);
        QCOMPARE(QSettings().value(QStringLiteral("timeline/projectNvtx")).toBool(), false);

        // The kernel: its own name, its NVTX range and its launch in the details and the table.
        window.selectOp(1);
        const QString details = window.detailsPanel()->plainText();
        for (const char *part : {"compute 100 us", "NVTX range", "forward", "132 × 1 × 1 (132 blocks)",
                                 "256 × 1 × 1 (256 threads)", "8 KiB per block (0 B static, 8 KiB dynamic)",
                                 "64 per thread", "Kernel launch", "queued ", "submitted ", "later"})
            QVERIFY2(details.contains(QString::fromUtf8(part)), qPrintable(details));
        const ui::OpTableModel *table = window.opTableModel();
        QCOMPARE(table->headerData(ui::OpTableModel::RangeColumn, Qt::Horizontal).toString(),
                 QStringLiteral("NVTX range"));
        QCOMPARE(table->index(1, ui::OpTableModel::NameColumn).data().toString(), QStringLiteral("compute 100 us"));
        QCOMPARE(table->index(1, ui::OpTableModel::RangeColumn).data().toString(), QStringLiteral("forward"));
        QCOMPARE(table->index(1, ui::OpTableModel::LaunchColumn).data().toString(),
                 QStringLiteral("132×1×1 · 256×1×1"));
        QVERIFY(table->index(0, ui::OpTableModel::LaunchColumn).data().isNull());

        // The headless export takes the same options: projection and a window.
        gui::AppOptions options;
        options.tracePath = path;
        options.exportImagePath = m_dir.filePath(QStringLiteral("ranges.png"));
        options.size = QSize(900, 500);
        options.projectNvtx = true;
        options.windowStartNs = 0;
        options.windowEndNs = 100'000;
        QCOMPARE(gui::exportImageHeadless(options), 0);
        QCOMPARE(QImage(options.exportImagePath).size(), QSize(900, 500));
    }

    void nvtxAndWindowOptions()
    {
        gui::AppOptions options;
        QString error;
        QVERIFY(gui::parseAppOptions({QStringLiteral("streamscope"), QStringLiteral("t.sqlite"),
                                      QStringLiteral("--project-nvtx"), QStringLiteral("--window"),
                                      QStringLiteral("120us..135.5 us")},
                                     options, &error));
        QVERIFY(options.projectNvtx);
        QCOMPARE(options.windowStartNs, 120'000);
        QCOMPARE(options.windowEndNs, 135'500);
        for (const char *bad : {"5ms..1ms", "5ms", "..1ms", "a..b", "1ms..1ms"}) {
            gui::AppOptions o;
            QVERIFY2(
                !gui::parseAppOptions(
                    {QStringLiteral("streamscope"), QStringLiteral("--window"), QString::fromLatin1(bad)}, o, &error),
                bad);
            QVERIFY2(error.contains(QStringLiteral("--window")), qPrintable(error));
        }
        gui::AppOptions plain;
        QVERIFY(gui::parseAppOptions({QStringLiteral("streamscope")}, plain, &error));
        QVERIFY(!plain.projectNvtx);
        QCOMPARE(plain.windowStartNs, -1);
    }

    void commandLine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("image");
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("repetition");
        QTest::newRow("trace") << QStringList{QStringLiteral("t.sstrace")} << true << QString() << QSize(1920, 1080)
                               << -1;
        QTest::newRow("export") << QStringList{QStringLiteral("t.sstrace"), QStringLiteral("--export-image"),
                                               QStringLiteral("o.png"),     QStringLiteral("--size"),
                                               QStringLiteral("800x600"),   QStringLiteral("--repetition"),
                                               QStringLiteral("2")}
                                << true << QStringLiteral("o.png") << QSize(800, 600) << 1;
        QTest::newRow("bad size") << QStringList{QStringLiteral("t.sstrace"), QStringLiteral("--size"),
                                                 QStringLiteral("huge")}
                                  << false << QString() << QSize() << -1;
        // Without a trace: the window as a plain launch opens it, saved (README's launch command on a clean machine).
        QTest::newRow("export without trace") << QStringList{QStringLiteral("--export-image"), QStringLiteral("o.png")}
                                              << true << QStringLiteral("o.png") << QSize(1920, 1080) << -1;
        QTest::newRow("repetition 0") << QStringList{QStringLiteral("t.sstrace"), QStringLiteral("--repetition"),
                                                     QStringLiteral("0")}
                                      << false << QString() << QSize() << -1;
        QTest::newRow("compare") << QStringList{QStringLiteral("w.json"), QStringLiteral("--compare")} << true
                                 << QString() << QSize(1920, 1080) << -1;
        QTest::newRow("compare without workload")
            << QStringList{QStringLiteral("--compare")} << false << QString() << QSize() << -1;
        QTest::newRow("compare and run") << QStringList{QStringLiteral("w.json"), QStringLiteral("--compare"),
                                                        QStringLiteral("--run")}
                                         << false << QString() << QSize() << -1;
        QTest::newRow("unknown option") << QStringList{QStringLiteral("--frobnicate")} << false << QString() << QSize()
                                        << -1;
    }
    void commandLine()
    {
        QFETCH(QStringList, args);
        QFETCH(bool, ok);
        gui::AppOptions options;
        QString error;
        QCOMPARE(gui::parseAppOptions(QStringList{QStringLiteral("streamscope")} + args, options, &error), ok);
        if (!ok) {
            QVERIFY(!error.isEmpty());
            return;
        }
        QFETCH(QString, image);
        QFETCH(QSize, size);
        QFETCH(int, repetition);
        QCOMPARE(options.exportImagePath, image);
        QCOMPARE(options.size, size);
        QCOMPARE(options.repetition, repetition);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
