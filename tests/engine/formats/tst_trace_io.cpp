// Tests of engine/formats/trace_io.h: the one file-kind detection (every file the app and the CLI open,
// told apart by content), loadTrace's dispatch and errors, and export by format name and suffix.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include "engine/formats/trace_io.h"
#include "engine/model/errors.h"
#include "engine/util/file_util.h"
#include "tests/engine/gzip_fixture.h"

using namespace streamscope::engine;
using streamscope::testing::gzipped;

namespace {

QString source(const char *relative)
{
    return QStringLiteral(STREAMSCOPE_SOURCE_DIR "/") + QLatin1String(relative);
}

} // namespace

class TestTraceIo : public QObject {
    Q_OBJECT

private slots:
    void committedFilesByKind_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("kind");
        const QDir workloads(source("resources/workloads"));
        for (const QString &f : workloads.entryList({QStringLiteral("*.json")}, QDir::Files))
            QTest::newRow(qPrintable(QStringLiteral("workload ") + f))
                << workloads.filePath(f) << int(FileKind::Workload);
        const QDir examples(source("resources/examples"));
        for (const QString &f : examples.entryList({QStringLiteral("*.sstrace")}, QDir::Files))
            QTest::newRow(qPrintable(QStringLiteral("example ") + f))
                << examples.filePath(f) << int(FileKind::NativeTrace);
        const QDir comparisons(source("resources/examples/comparisons"));
        for (const QString &f : comparisons.entryList({QStringLiteral("*.sscompare")}, QDir::Files))
            QTest::newRow(qPrintable(QStringLiteral("comparison ") + f))
                << comparisons.filePath(f) << int(FileKind::Comparison);
        QTest::newRow("nsys export") << source("tests/engine/fixtures/nsys-streamscope/overlap.sqlite")
                                     << int(FileKind::NsysSqlite);
        QTest::newRow("kineto json") << source("tests/engine/fixtures/kineto_minimal.json")
                                     << int(FileKind::ChromeJson);
    }
    void committedFilesByKind()
    {
        QFETCH(QString, path);
        QFETCH(int, kind);
        QVERIFY2(QFileInfo::exists(path), qPrintable(path + QStringLiteral(" is missing")));
        QCOMPARE(int(detectFileKind(path.toStdString())), kind);
    }

    void everyBundledFileIsCovered()
    {
        // The rows above come from the folders themselves; this says the folders are not empty, so the
        // test above cannot pass by checking nothing.
        QVERIFY(QDir(source("resources/workloads")).entryList({QStringLiteral("*.json")}, QDir::Files).size() >= 10);
        QVERIFY(QDir(source("resources/examples")).entryList({QStringLiteral("*.sstrace")}, QDir::Files).size() >= 10);
        QVERIFY(QDir(source("resources/examples/comparisons"))
                    .entryList({QStringLiteral("*.sscompare")}, QDir::Files)
                    .size()
                >= 4);
    }

    void contentDecidesNotTheName_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("kind");
        QTest::newRow("workload with comments")
            << QByteArray("// a lesson\n{\n  /* pipeline */ \"pipeline\": {\"bytes\": \"1 MiB\"}\n}")
            << int(FileKind::Workload);
        QTest::newRow("workload with buffers only") << QByteArray(R"({"buffers": []})") << int(FileKind::Workload);
        QTest::newRow("broken workload being written")
            << QByteArray("{\n  \"streams\": [ {\"ops\": [ }\n") << int(FileKind::Workload);
        QTest::newRow("chrome object") << QByteArray(R"({"traceEvents": [], "streams": 1})")
                                       << int(FileKind::ChromeJson);
        QTest::newRow("chrome array") << QByteArray(R"([{"ph": "X", "ts": 1, "dur": 2}])") << int(FileKind::ChromeJson);
        QTest::newRow("broken chrome") << QByteArray(R"({"traceEvents": [ {"ph": )") << int(FileKind::ChromeJson);
        QTest::newRow("native") << QByteArray(R"({"format": "streamscope-trace", "version": 3})")
                                << int(FileKind::NativeTrace);
        QTest::newRow("comparison embedding traces") << QByteArray(
            R"({"format": "streamscope-comparison", "variants": [{"trace": {"format": "streamscope-trace"}}]})")
                                                     << int(FileKind::Comparison);
        QTest::newRow("byte order mark") << QByteArray("\xEF\xBB\xBF{\"streams\": []}") << int(FileKind::Workload);
        QTest::newRow("plain text") << QByteArray("hello, world\n") << int(FileKind::Unknown);
        QTest::newRow("empty") << QByteArray() << int(FileKind::Unknown);
        QTest::newRow("sqlite magic") << QByteArray("SQLite format 3\0rest", 20) << int(FileKind::NsysSqlite);
        const std::string packed = gzipped(R"({"format": "streamscope-trace"})");
        QTest::newRow("gzip native") << QByteArray(packed.data(), qsizetype(packed.size()))
                                     << int(FileKind::NativeTrace);
        QTest::newRow("corrupt gzip") << QByteArray("\x1f\x8b\x08\x00garbage", 12) << int(FileKind::Unknown);
        // Larger than a DOM was once built for (4 MiB), within the workload limit (64 MiB): told by its keys,
        // where it was taken for a Chrome trace ("not a Chrome trace" for a valid workload).
        const QByteArray filler(5 << 20, 'x');
        const QByteArray large = "{\"name\": \"large\", \"description\": \"" + filler
                                 + "\", \"streams\": [{\"ops\": [{\"op\": \"kernel\", \"duration\": \"1 us\"}]}]}";
        QTest::newRow("workload over 4 MiB") << large << int(FileKind::Workload);
        const QByteArray largeChrome = "{\"otherData\": \"" + filler + "\", \"traceEvents\": [], \"streams\": 1}";
        QTest::newRow("chrome over 4 MiB, keys after") << largeChrome << int(FileKind::ChromeJson);
        // A workload is told by its first top-level "streams" or "pipeline" key without reading on, where
        // nothing further on can change the answer; these can, or only look like one.
        QTest::newRow("workload key first, traceEvents last")
            << QByteArray("{\"streams\": [], \"otherData\": \"" + filler + "\", \"traceEvents\": []}")
            << int(FileKind::ChromeJson);
        QTest::newRow("traceEvents spelled with an escape, last")
            << QByteArray("{\"streams\": [], \"trace\\u0045vents\": []}") << int(FileKind::ChromeJson);
        QTest::newRow("streams nested, not a top-level key")
            << QByteArray(R"({"otherData": {"streams": [], "pipeline": {}}})") << int(FileKind::ChromeJson);
        QTest::newRow("streams as a value")
            << QByteArray(R"({"name": "streams", "x": ["pipeline"]})") << int(FileKind::ChromeJson);
        QTest::newRow("streams in a string")
            << QByteArray("{\"a\": \"\\\"streams\\\": [1]\"}") << int(FileKind::ChromeJson);
        QTest::newRow("streams in comments")
            << QByteArray("{/* \"streams\": [] */ \"a\": 1 // \"pipeline\": {\n}") << int(FileKind::ChromeJson);
        QTest::newRow("streams in an array root") << QByteArray(R"([{"streams": []}])") << int(FileKind::ChromeJson);
        QTest::newRow("streams spelled with an escape")
            << QByteArray("{\"str\\u0065ams\": []}") << int(FileKind::Workload);
        QTest::newRow("workload key after a large buffers list")
            << QByteArray("{\"buffers\": [\"" + filler + "\"], \"streams\": [{\"ops\": []}]}")
            << int(FileKind::Workload);
        QTest::newRow("workload key, then broken")
            << QByteArray(R"({"pipeline": {}, "x": tru)") << int(FileKind::Workload);
        QTest::newRow("workload key, then too deep")
            << QByteArray("{\"streams\": " + QByteArray(300, '[') + QByteArray(300, ']') + "}")
            << int(FileKind::Workload);
    }
    void contentDecidesNotTheName()
    {
        QFETCH(QByteArray, content);
        QFETCH(int, kind);
        QCOMPARE(
            int(detectFileKindOfContent(std::string_view(content.constData(), std::size_t(content.size())), "x.json")),
            kind);
        // The same through a file, whatever its suffix says.
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("named.sstrace")).toStdString();
        writeFileAtomically(path, std::string(content.constData(), std::size_t(content.size())));
        QCOMPARE(int(detectFileKind(path)), kind);
    }

    void unreadableFileIsIo()
    {
        try {
            detectFileKind("/nonexistent/streamscope/x.json");
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), ErrorKind::Io);
            QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("/nonexistent/streamscope/x.json")));
        }
    }

    void loadTraceNamesWhatItFound()
    {
        QTemporaryDir dir;
        const std::string text = dir.filePath(QStringLiteral("notes.txt")).toStdString();
        writeFileAtomically(text, "hello, world\n");
        try {
            loadTrace(text);
            QFAIL("no error");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), ErrorKind::InvalidInput);
            const QString what = QString::fromUtf8(e.what());
            // What it is, in words, never its bytes (issue #13: a comparison could name any file).
            QVERIFY2(what.contains(QStringLiteral("notes.txt")) && what.contains(QStringLiteral("it is text, not JSON"))
                         && !what.contains(QStringLiteral("hello")),
                     e.what());
        }
        const std::string empty = dir.filePath(QStringLiteral("empty.json")).toStdString();
        writeFileAtomically(empty, "  \n");
        QVERIFY_THROWS_EXCEPTION(Error, loadTrace(empty));
    }

    // A workload or a comparison handed to loadTrace is named for what it is, with what opens it.
    void loadTraceNamesWorkloadsAndComparisons()
    {
        for (const auto &[file, words] :
             {std::pair{"resources/workloads/overlap.json", "it is a workload (open it in the app, or run it"},
              std::pair{"resources/examples/comparisons/overlap.sscompare",
                        "it is a comparison (open it in the app"}}) {
            try {
                loadTrace(source(file).toStdString());
                QFAIL(file);
            } catch (const Error &e) {
                QCOMPARE(e.kind(), ErrorKind::InvalidInput);
                QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String(words)), e.what());
            }
        }
    }

    // The reader registry: one entry per trace kind detectFileKind gives, each read through its entry, and
    // the Open dialog's filter built from it.
    void registryCoversEveryTraceKind()
    {
        std::vector<FileKind> kinds;
        for (const TraceFormat &f : traceFormats()) {
            QVERIFY(f.read != nullptr);
            QVERIFY(!f.name.empty() && f.patterns.starts_with("*."));
            kinds.push_back(f.kind);
        }
        QVERIFY(kinds == (std::vector{FileKind::NativeTrace, FileKind::NsysSqlite, FileKind::ChromeJson}));
        const QString traces = QString::fromStdString(traceFileDialogFilter(false));
        QVERIFY2(traces.startsWith(QStringLiteral("Traces (*.sstrace *.sstrace.gz *.sqlite *.sqlite3 *.json ")),
                 qPrintable(traces));
        QVERIFY(traces.contains(QStringLiteral(";;Nsight Systems SQLite export (*.sqlite *.sqlite3);;")));
        QVERIFY(!traces.contains(QStringLiteral("sscompare")));
        QVERIFY(traces.endsWith(QStringLiteral(";;All files (*)")));
        const QString all = QString::fromStdString(traceFileDialogFilter(true));
        QVERIFY2(all.startsWith(QStringLiteral("Traces and workloads ("))
                     && all.contains(QStringLiteral("*.sscompare)")),
                 qPrintable(all));
        QCOMPARE(all.count(QStringLiteral("*.json ")), 2); // once in the first group, once for Chrome
        // One kind's filter (the Nsight comparison's and the comparison windows' Open dialogs): its entry
        // as the whole filter lists it, then every file.
        QCOMPARE(QString::fromStdString(fileDialogFilter(FileKind::NativeTrace)),
                 QStringLiteral("StreamScope trace (*.sstrace *.sstrace.gz);;All files (*)"));
        QCOMPARE(QString::fromStdString(fileDialogFilter(FileKind::Comparison)),
                 QStringLiteral("StreamScope comparison (*.sscompare);;All files (*)"));
        QCOMPARE(QString::fromStdString(fileDialogFilter(FileKind::Unknown)), QStringLiteral("All files (*)"));
        for (const FileKind kind : {FileKind::NativeTrace, FileKind::NsysSqlite, FileKind::ChromeJson,
                                    FileKind::Workload, FileKind::Comparison}) {
            const QString entry = QString::fromStdString(fileDialogFilter(kind)).section(QStringLiteral(";;"), 0, 0);
            QVERIFY2(all.contains(QStringLiteral(";;") + entry + QStringLiteral(";;")), qPrintable(entry));
        }
    }

    void exportFormats()
    {
        QCOMPARE(exportFormatFromString("native"), std::optional(ExportFormat::Native));
        QCOMPARE(exportFormatFromString("perfetto"), std::optional(ExportFormat::Chrome));
        QCOMPARE(exportFormatFromString("csv"), std::optional(ExportFormat::Csv));
        QVERIFY(!exportFormatFromString("CSV"));
        QCOMPARE(exportFormatFromPath("a/b.sstrace"), std::optional(ExportFormat::Native));
        QCOMPARE(exportFormatFromPath("b.json"), std::optional(ExportFormat::Chrome));
        QCOMPARE(exportFormatFromPath("b.csv"), std::optional(ExportFormat::Csv));
        QVERIFY(!exportFormatFromPath("b.txt"));

        // Export and load back: what was written is what detection and loading see.
        const Trace example = loadTrace(source("resources/examples/overlap.sstrace").toStdString());
        QTemporaryDir dir;
        for (const auto &[format, name, kind] : {std::tuple{ExportFormat::Native, "t.sstrace", FileKind::NativeTrace},
                                                 std::tuple{ExportFormat::Chrome, "t.json", FileKind::ChromeJson}}) {
            const std::string path = dir.filePath(QLatin1String(name)).toStdString();
            exportTrace(example, format, path);
            QCOMPARE(int(detectFileKind(path)), int(kind));
            QCOMPARE(loadTrace(path).opCount(), example.opCount());
        }
        const std::string csv = dir.filePath(QStringLiteral("t.csv")).toStdString();
        exportTrace(example, ExportFormat::Csv, csv);
        QVERIFY(readFile(csv).find("\n") != std::string::npos);
        // A folder that does not exist: Error{Io}, and nothing is left behind.
        QVERIFY_THROWS_EXCEPTION(Error, exportTrace(example, ExportFormat::Native, "/nonexistent/dir/t.sstrace"));
    }
};

QTEST_APPLESS_MAIN(TestTraceIo)
#include "tst_trace_io.moc"
