// Tests of engine/util/interrupt.h in a process of its own (an interrupt is never undone): a signal
// removes the temporary files of writes in progress at once, and every reader and writer then stops
// with Error{Cancelled}. The CLI's exit 130 within a second is tests/app/cli/tst_cli_hostile.cpp's.
#include <QtTest>

#include <csignal>

#include "engine/model/errors.h"
#include "engine/util/file_util.h"
#include "engine/util/interrupt.h"
#include "engine/util/load_control.h"

using namespace streamscope;

class TestInterrupt : public QObject {
    Q_OBJECT

private slots:
    void signalRemovesTemporaryFilesAndStopsTheWork()
    {
        QTemporaryDir dir;
        const std::string source = dir.filePath("in.txt").toStdString();
        engine::writeFileAtomically(source, "data");
        // A long grace: this test is the work, and says it is done before the watchdog would exit.
        engine::installInterruptHandlers(engine::InterruptMode::Cooperative, 600000);
        QVERIFY(!engine::interrupted());
        engine::LoadControl{}.checkCancelled(); // nothing yet

        auto writer = std::make_unique<engine::AtomicFileWriter>(dir.filePath("out.txt").toStdString());
        writer->write("partial");
        const auto temps = [&] {
            return QDir(dir.path()).entryList({QStringLiteral(".*.tmp*")}, QDir::Files | QDir::Hidden);
        };
        QCOMPARE(temps().size(), 1);

        std::raise(SIGTERM);
        engine::interruptibleWorkDone();
        QVERIFY(engine::interrupted());
        QCOMPARE(temps(), QStringList()); // removed by the handler itself, before anything unwinds

        const auto kindOf = [](const std::function<void()> &f) {
            try {
                f();
            } catch (const engine::Error &e) {
                return int(e.kind());
            }
            return -1;
        };
        const int cancelled = int(engine::ErrorKind::Cancelled);
        QCOMPARE(kindOf([&] { writer->write("more"); }), cancelled);
        QCOMPARE(kindOf([&] { writer->commit(); }), int(engine::ErrorKind::Io)); // already given up
        writer.reset();
        QVERIFY(!QFileInfo::exists(dir.filePath("out.txt")));
        QCOMPARE(kindOf([&] { engine::readFile(source); }), cancelled);
        QCOMPARE(kindOf([&] { engine::LoadControl{}.checkCancelled(); }), cancelled);
        QCOMPARE(kindOf([&] { engine::writeFileAtomically(dir.filePath("new.txt").toStdString(), "x"); }), cancelled);
        QCOMPARE(temps(), QStringList());
        QVERIFY(!QFileInfo::exists(dir.filePath("new.txt")));
    }
};

QTEST_GUILESS_MAIN(TestInterrupt)
#include "tst_interrupt.moc"
