// Tests of engine/run/cli_protocol.h, the one description of what streamscope-cli says to whoever runs
// it: every error kind round-trips through its name and its exit code, names and codes are distinct,
// and docs/cli-protocol.md documents every code and kind the header defines.
#include <QtTest>

#include <QFile>
#include <set>

#include "engine/run/cli_protocol.h"

using namespace streamscope::engine;
namespace protocol = streamscope::engine::protocol;

class TestCliProtocol : public QObject {
    Q_OBJECT

private slots:
    void everyKindRoundTrips()
    {
        std::set<int> codes;
        std::set<std::string_view> names;
        for (const ErrorKind kind : protocol::kErrorKinds) {
            const int code = protocol::exitCodeOf(kind);
            const std::string_view name = protocol::kindName(kind);
            QCOMPARE(protocol::errorKindOfExitCode(code), std::optional(kind));
            QCOMPARE(protocol::errorKindFromName(name), std::optional(kind));
            QVERIFY2(codes.insert(code).second, "two kinds share an exit code");
            QVERIFY2(names.insert(name).second, "two kinds share a name");
            QVERIFY(code != protocol::ExitOk && code != protocol::ExitInternal && code != protocol::ExitUsage);
            QVERIFY(name != protocol::kInternalKindName);
        }
        QCOMPARE(codes.size(), protocol::kErrorKinds.size());
    }

    void theRestIsNoKind()
    {
        for (int code :
             {int(protocol::ExitOk), int(protocol::ExitInternal), int(protocol::ExitUsage), 9, 42, 129, 255, -1})
            QVERIFY2(!protocol::errorKindOfExitCode(code), qPrintable(QString::number(code)));
        QVERIFY(!protocol::errorKindFromName(protocol::kInternalKindName));
        QVERIFY(!protocol::errorKindFromName("a_kind_from_a_later_version"));
        QVERIFY(!protocol::errorKindFromName(""));
        QCOMPARE(int(protocol::ExitCancelled), 130); // 128 + SIGINT, what shells report for ^C
    }

    void documentedInCliProtocolMd()
    {
        QFile doc(QStringLiteral(STREAMSCOPE_SOURCE_DIR "/docs/cli-protocol.md"));
        QVERIFY2(doc.open(QIODevice::ReadOnly), "docs/cli-protocol.md is missing");
        const QString text = QString::fromUtf8(doc.readAll());
        for (const ErrorKind kind : protocol::kErrorKinds) {
            const QString row = QStringLiteral("| %1 |").arg(int(protocol::exitCodeOf(kind)));
            QVERIFY2(text.contains(row), qPrintable(row));
            const QString name = QStringLiteral("`%1`").arg(
                QLatin1String(protocol::kindName(kind).data(), qsizetype(protocol::kindName(kind).size())));
            QVERIFY2(text.contains(name), qPrintable(name));
        }
        for (int code : {int(protocol::ExitOk), int(protocol::ExitInternal), int(protocol::ExitUsage)})
            QVERIFY(text.contains(QStringLiteral("| %1 |").arg(code)));
        for (std::string_view e : {protocol::event::kStart, protocol::event::kDevice, protocol::event::kProgress,
                                   protocol::event::kDone, protocol::event::kError}) {
            const QString event = QStringLiteral("\"event\":\"%1\"").arg(QLatin1String(e.data(), qsizetype(e.size())));
            QVERIFY2(text.contains(event), qPrintable(event));
        }
    }
};

QTEST_APPLESS_MAIN(TestCliProtocol)
#include "tst_cli_protocol.moc"
