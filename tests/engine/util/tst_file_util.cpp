// Tests of engine/util/file_util.h: reads are of regular files only and within a size limit named in
// the error; the atomic writer leaves no temporary file on any failure path.
#include <QtTest>

#include <sys/stat.h>

#include "engine/model/errors.h"
#include "engine/model/limits.h"
#include "engine/util/file_util.h"

using namespace streamscope;
using engine::ErrorKind;

namespace {

struct Failure {
    int kind = -1;
    QString message;
};
template <typename F> Failure failureOf(F f)
{
    try {
        f();
    } catch (const engine::Error &e) {
        return {int(e.kind()), QString::fromStdString(e.what())};
    }
    return {};
}

QStringList temporaryFiles(const QString &dir)
{
    return QDir(dir).entryList({QStringLiteral(".*.tmp*")}, QDir::Files | QDir::Hidden | QDir::System);
}

} // namespace

class TestFileUtil : public QObject {
    Q_OBJECT

private slots:
    void readsWholeFiles()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("a.txt").toStdString();
        engine::writeFileAtomically(path, "hello");
        QCOMPARE(engine::readFile(path), std::string("hello"));
        QCOMPARE(engine::readFileHead(path, 3), std::string("hel"));
        QCOMPARE(engine::readFileHead(path, 100), std::string("hello"));
    }

    void readLeavesRoomForTheJsonParser()
    {
        // simdjson reads past the text: the room is there already, so the Chrome reader does not grow the
        // string (growing a 284 MB trace by 64 bytes doubled its capacity, #24).
        QTemporaryDir dir;
        const std::string path = dir.filePath("big.json").toStdString();
        engine::writeFileAtomically(path, std::string(1 << 20, 'x'));
        const std::string data = engine::readFile(path);
        QCOMPARE(data.size(), std::size_t(1) << 20);
        QVERIFY(data.capacity() >= data.size() + engine::kReadFilePadding);
        QVERIFY(data.capacity() < data.size() + 4096);
    }

    void sizeLimitIsNamed()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("big.json").toStdString();
        engine::writeFileAtomically(path, std::string(2048, ' '));
        const Failure f = failureOf([&] { engine::readFile(path, 1024, "a workload"); });
        QCOMPARE(f.kind, int(ErrorKind::InvalidInput));
        QVERIFY2(
            f.message.contains("big.json: 2048 bytes, larger than StreamScope reads as a workload (at most 1 KiB)"),
            qPrintable(f.message));
        QCOMPARE(engine::readFile(path, 2048, "a workload").size(), std::size_t(2048));
    }

    void onlyRegularFiles_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("expected");
        QTest::newRow("/dev/zero, read without end") << "/dev/zero"
                                                     << "/dev/zero: is a device, not a regular file";
        QTest::newRow("/dev/null") << "/dev/null"
                                   << "is a device";
        QTest::newRow("a folder") << "/tmp"
                                  << "/tmp: is a folder";
        QTest::newRow("missing") << "/no/such/file"
                                 << "/no/such/file: cannot open for reading";
    }
    void onlyRegularFiles()
    {
        QFETCH(QString, path);
        QFETCH(QString, expected);
        for (const auto &read : {std::function<void()>([&] { engine::readFile(path.toStdString()); }),
                                 std::function<void()>([&] { engine::readFileHead(path.toStdString(), 16); })}) {
            const Failure f = failureOf(read);
            QCOMPARE(f.kind, int(ErrorKind::Io));
            QVERIFY2(f.message.contains(expected), qPrintable(f.message));
        }
    }

    void fifoDoesNotBlock()
    {
        // Opening a FIFO for reading waits for a writer: refused at once instead.
        QTemporaryDir dir;
        const QString fifo = dir.filePath("fifo");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        QElapsedTimer timer;
        timer.start();
        const Failure f = failureOf([&] { engine::readFile(fifo.toStdString()); });
        QCOMPARE(f.kind, int(ErrorKind::Io));
        QVERIFY2(f.message.contains("is a FIFO, not a regular file"), qPrintable(f.message));
        QVERIFY(timer.elapsed() < 2000);
    }

    // A file without write permission is not replaced (as cp does not replace it), even by root, for whom
    // any file is writable: one without any write bit counts as protected.
    void writeProtectedFilesAreKept()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("locked.txt").toStdString();
        engine::writeFileAtomically(path, "keep");
        QCOMPARE(::chmod(path.c_str(), 0444), 0);
        const Failure f = failureOf([&] { engine::writeFileAtomically(path, "replaced"); });
        QCOMPARE(f.kind, int(ErrorKind::Io));
        QVERIFY2(f.message.contains(QString::fromStdString(path) + ": is write-protected (mode 0444)"),
                 qPrintable(f.message));
        QCOMPARE(engine::readFile(path), std::string("keep"));
        QVERIFY(temporaryFiles(dir.path()).isEmpty());
        // Writable again: replaced.
        QCOMPARE(::chmod(path.c_str(), 0644), 0);
        engine::writeFileAtomically(path, "replaced");
        QCOMPARE(engine::readFile(path), std::string("replaced"));
    }

    void failedWritesLeaveNoTemporaryFile()
    {
        QTemporaryDir dir;
        // A writer given up without commit.
        {
            engine::AtomicFileWriter w(dir.filePath("a.txt").toStdString());
            w.write("partial");
            QCOMPARE(temporaryFiles(dir.path()).size(), 1);
        }
        QCOMPARE(temporaryFiles(dir.path()), QStringList());
        QVERIFY(!QFileInfo::exists(dir.filePath("a.txt")));
        // A commit whose rename fails (the target became a folder meanwhile).
        {
            engine::AtomicFileWriter w(dir.filePath("b").toStdString());
            w.write("data");
            QVERIFY(QDir(dir.path()).mkdir("b"));
            const Failure f = failureOf([&] { w.commit(); });
            QCOMPARE(f.kind, int(ErrorKind::Io));
            QVERIFY2(f.message.contains("cannot replace the file"), qPrintable(f.message));
        }
        QCOMPARE(temporaryFiles(dir.path()), QStringList());
        // A write after a failure is refused and leaves nothing.
        {
            engine::AtomicFileWriter w(dir.filePath("c.txt").toStdString());
            w.commit();
            QCOMPARE(failureOf([&] { w.write("late"); }).kind, int(ErrorKind::Io));
        }
        QCOMPARE(temporaryFiles(dir.path()), QStringList());
    }
};

QTEST_GUILESS_MAIN(TestFileUtil)
#include "tst_file_util.moc"
