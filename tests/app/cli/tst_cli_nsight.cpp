// `streamscope-cli nsight-compare` as a user meets it: the table on a real capture (a StreamScope run
// under nsys on an H200), and the exit codes of a missing file and of a file that is not a trace.
#include <QtTest>

#include "tests/app/cli/cli_process.h"

namespace {
using Result = streamscope::test::CliResult;
Result cli(const QStringList &args)
{
    return streamscope::test::runCli(args);
}

QString capture(const char *file)
{
    return QStringLiteral(STREAMSCOPE_SOURCE_DIR "/tests/engine/fixtures/nsys-streamscope/") + file;
}

} // namespace

class TestCliNsight : public QObject {
    Q_OBJECT
private slots:
    void compareTable();
    void opRowsLimit();
    void errors();
};

void TestCliNsight::compareTable()
{
    const auto r = cli({"nsight-compare", capture("sync-vs-async.sstrace"), capture("sync-vs-async.sqlite")});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("5 repetitions compared; 50 op instances matched (5 on another stream in Nsight), "
                            "0 only in StreamScope, 0 only in Nsight"),
             qPrintable(r.out));
    // One summary row per kind present and the overall row; the synchronous copy marked as moved lanes.
    for (const char *kind : {"\n  h2d ", "\n  kernel ", "\n  sync ", "\n  host_work ", "\n  all "})
        QVERIFY2(r.out.contains(kind), kind);
    QVERIFY(r.out.contains("H2D 32 MiB pinned (sync)+"));
    QVERIFY(r.out.contains("legacy default stream"));
    QVERIFY(r.err.isEmpty());
}

void TestCliNsight::opRowsLimit()
{
    const auto r = cli({"nsight-compare", capture("overlap.sstrace"), capture("overlap.sqlite"), "--ops", "3"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("... 9 more ops (--ops N to show more)"));
    const auto none = cli({"nsight-compare", capture("overlap.sstrace"), capture("overlap.sqlite"), "--ops", "0"});
    QCOMPARE(none.code, 0);
    QVERIFY(!none.out.contains("H2D 4 MiB pinned [c0]"));
}

void TestCliNsight::errors()
{
    const auto missing = cli({"nsight-compare", capture("overlap.sstrace"), "/no/such/file.sqlite"});
    QCOMPARE(missing.code, 4); // an I/O error, as the help says
    QVERIFY(missing.err.contains("/no/such/file.sqlite"));
    // A workload file is JSON but not a trace: invalid input (3), named in the message.
    const QString workload = QStringLiteral(STREAMSCOPE_SOURCE_DIR "/resources/workloads/overlap.json");
    const auto wrong = cli({"nsight-compare", capture("overlap.sstrace"), workload});
    QCOMPARE(wrong.code, 3);
    QVERIFY2(wrong.err.contains("nsight-compare"), qPrintable(wrong.err));
}

QTEST_GUILESS_MAIN(TestCliNsight)
#include "tst_cli_nsight.moc"
