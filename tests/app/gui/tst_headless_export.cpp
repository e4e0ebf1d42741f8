// Tests of `streamscope FILE --export-image` (app/gui/headless_export): with no window state the slide
// draws the lane tree the window builds on open (a group per GPU of a two-GPU trace, per process of the
// 2xH100 torchrun capture, labels told apart), carries the key figures (peer links' GB/s against their
// peak among them), and a recorded comparison (.sscompare) is written as its comparison window shows it.
#include <QApplication>
#include <QSet>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include "app/gui/app_options.h"
#include "app/gui/headless_export.h"
#include "engine/formats/native_format.h"
#include "engine/run/cli_protocol.h"
#include "tests/engine/trace_fixture.h"

using namespace streamscope;
using namespace streamscope::engine::protocol;

namespace {

QStringList svgTexts(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QStringList texts;
    QXmlStreamReader xml(&file);
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("text"))
            texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
    }
    return xml.hasError() ? QStringList{QStringLiteral("XML error: ") + xml.errorString()} : texts;
}

QString comparison(const char *name)
{
    return QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/examples/comparisons/") + QLatin1String(name)
           + QStringLiteral(".sscompare");
}

// How many distinct colours a sparse grid of the image holds: a picture, not one flat fill.
int colours(const QImage &image)
{
    QSet<QRgb> seen;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            seen.insert(image.pixel(x, y));
    return int(seen.size());
}

} // namespace

class TestHeadlessExport : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_twoGpus;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        m_twoGpus = m_dir.filePath(QStringLiteral("two-gpus.sstrace"));
        engine::writeNativeTrace(test::twoGpuTrace(), m_twoGpus.toStdString());
    }

    // No window, no lane state: the tree the window would build on open, a group per GPU.
    void twoGpuTraceKeepsItsGpuGroups()
    {
        gui::AppOptions options;
        options.tracePath = m_twoGpus;
        options.exportImagePath = m_dir.filePath(QStringLiteral("two-gpus.svg"));
        options.size = QSize(1280, 720);
        QCOMPARE(gui::exportImageHeadless(options), int(ExitOk));
        const QStringList texts = svgTexts(options.exportImagePath);
        for (const char *header : {"GPU 0 · NVIDIA H100 80GB HBM3", "GPU 1 · NVIDIA H100 80GB HBM3"})
            QVERIFY2(texts.count(QString::fromUtf8(header)) == 1, qPrintable(texts.join(QLatin1Char('|'))));
        for (const char *label : {"H2D copies · GPU 0", "compute · GPU 0", "D2H copies · GPU 1", "compute · GPU 1"})
            QVERIFY2(texts.count(QString::fromUtf8(label)) == 1, label);
        QVERIFY(!texts.contains(QStringLiteral("compute")));
        QVERIFY(texts.contains(QStringLiteral("two GPUs — 2 × NVIDIA H100 80GB HBM3")));
        // The key figures under the lanes: each peer link's achieved GB/s against its peak.
        const QString figures = texts.filter(QStringLiteral("Makespan")).join(QLatin1Char(' '));
        QVERIFY2(figures.contains(QStringLiteral("P2P GPU 0\u21921 bandwidth 200 GB/s (44.4 % of NVLink peak)")),
                 qPrintable(figures));
        QVERIFY2(figures.contains(QStringLiteral("GPU 0 H2D bandwidth 50 GB/s")), qPrintable(figures));
    }

    // The 2xH100 torchrun capture: two python3 processes, each with its GPU, exported apart.
    void torchrunKeepsBothProcesses()
    {
        const QString path =
            QStringLiteral(STREAMSCOPE_SHARED_DIR "/data/real-traces/nsys-2026.2.1_2xh100_torchrun_windowed.sqlite");
        if (!QFileInfo::exists(path))
            QSKIP("../shared/data/real-traces is not beside the checkout (CI has it): no real traces to test on");
        gui::AppOptions options;
        options.tracePath = path;
        options.exportImagePath = m_dir.filePath(QStringLiteral("torchrun.svg"));
        options.size = QSize(1920, 1080);
        QCOMPARE(gui::exportImageHeadless(options), int(ExitOk));
        const QStringList texts = svgTexts(options.exportImagePath);
        const QStringList processes = texts.filter(QRegularExpression(QStringLiteral("^python3 \\(pid \\d+\\)$")));
        QCOMPARE(processes.size(), 2);
        QVERIFY(processes[0] != processes[1]);
        for (const char *label : {"H2D copies · GPU 0", "H2D copies · GPU 1", "compute · GPU 0", "compute · GPU 1"})
            QVERIFY2(texts.count(QString::fromUtf8(label)) == 1, label);
        QVERIFY(texts.contains(QStringLiteral("GPU 0")) && texts.contains(QStringLiteral("GPU 1")));
        QVERIFY(!texts.contains(QStringLiteral("python3"))); // the threads are "python3 · pid 144" and 145
    }

    // A recorded comparison: the comparison window's content, at the size asked for.
    void comparisonIsWrittenAsItsWindowShowsIt_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("presentation");
        QTest::newRow("1280x720") << QSize(1280, 720) << false;
        QTest::newRow("1920x1080") << QSize(1920, 1080) << false;
        QTest::newRow("1920x1080 presentation") << QSize(1920, 1080) << true;
    }
    void comparisonIsWrittenAsItsWindowShowsIt()
    {
        QFETCH(QSize, size);
        QFETCH(bool, presentation);
        gui::AppOptions options;
        options.tracePath = comparison("overlap");
        options.exportImagePath = m_dir.filePath(QStringLiteral("overlap-comparison.png"));
        options.size = size;
        options.presentation = presentation;
        QCOMPARE(gui::exportImageHeadless(options), int(ExitOk));
        const QImage image(options.exportImagePath);
        QCOMPARE(image.size(), size);
        QVERIFY2(colours(image) > 40, qPrintable(QString::number(colours(image))));

        options.exportImagePath = m_dir.filePath(QStringLiteral("overlap-comparison.svg"));
        QCOMPARE(gui::exportImageHeadless(options), int(ExitOk));
        const QStringList texts = svgTexts(options.exportImagePath);
        const QString all = texts.join(QLatin1Char('|'));
        // The header, the makespan chart and the variants' timelines.
        QVERIFY2(all.contains(QStringLiteral("Overlap: 4 streams, depth-first")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Makespan per variant")), qPrintable(all));
        QVERIFY2(all.contains(presentation ? QStringLiteral("1, depth-first")
                                           : QStringLiteral("streams=1, order=depth-first — median makespan")),
                 qPrintable(all));
        // The timelines as vectors: their lanes' titles (a compact row's: its makespan) are text.
        QVERIFY2(all.contains(presentation ? QStringLiteral("makespan 1.49 ms") : QStringLiteral("H2D copies")),
                 qPrintable(all));
    }

    void comparisonRefusesTraceOptions()
    {
        gui::AppOptions options;
        options.tracePath = comparison("bandwidth");
        options.exportImagePath = m_dir.filePath(QStringLiteral("refused.png"));
        options.repetition = 1;
        QCOMPARE(gui::exportImageHeadless(options), int(ExitUsage));
        QVERIFY(!QFileInfo::exists(options.exportImagePath));
        // A comparison file that is not one: invalid input, nothing written.
        QFile broken(m_dir.filePath(QStringLiteral("broken.sscompare")));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write(R"({"format": "streamscope-comparison", "version": 1, "variants": 7})");
        broken.close();
        options.repetition = -1;
        options.tracePath = broken.fileName();
        QCOMPARE(gui::exportImageHeadless(options), int(ExitInvalidInput));
        QVERIFY(!QFileInfo::exists(options.exportImagePath));
    }
};

QTEST_MAIN(TestHeadlessExport)
#include "tst_headless_export.moc"
