// Tests of engine/util/gzip.h: the magic-byte check, inflating one member and several concatenated
// ones (as gzip(1) and PyTorch write them), zero padding, and corrupt, truncated and trailing data
// refused with Error{InvalidInput} naming the file.
#include <QtTest>

#include <cstdlib>
#include <string>

#include <zlib.h>

#include "engine/model/errors.h"
#include "engine/model/units.h"
#include "engine/util/gzip.h"
#include "tests/engine/gzip_fixture.h"

using namespace streamscope::engine;

using streamscope::testing::gzipped;

namespace {

const std::string kFile = "traces/run.pt.trace.json.gz";

// Deterministic bytes that do not compress much, NULs included.
std::string noise(std::size_t n, unsigned seed = 1)
{
    std::string s(n, '\0');
    unsigned x = seed;
    for (auto &c : s) {
        x = x * 1103515245u + 12345u;
        c = static_cast<char>(x >> 23);
    }
    return s;
}

// gunzip's error, or kind -1 when it accepted the data.
struct Failure {
    int kind = -1;
    QString message;
};
Failure failureOf(const std::string &data, const std::string &fileName = kFile)
{
    try {
        gunzip(data, fileName);
    } catch (const Error &e) {
        return {int(e.kind()), QString::fromStdString(e.what())};
    }
    return {};
}

} // namespace

class TestGzip : public QObject {
    Q_OBJECT

private slots:
    void magic_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<bool>("gzip");
        QTest::newRow("empty") << QByteArray() << false;
        QTest::newRow("first byte only") << QByteArray("\x1f") << false;
        QTest::newRow("magic only") << QByteArray("\x1f\x8b") << true;
        QTest::newRow("magic and method") << QByteArray("\x1f\x8b\x08") << true;
        QTest::newRow("swapped") << QByteArray("\x8b\x1f\x08") << false;
        QTest::newRow("zlib stream") << QByteArray("\x78\x9c\x03\x00") << false;
        QTest::newRow("json") << QByteArray("{\"traceEvents\": []}") << false;
        QTest::newRow("sqlite") << QByteArray("SQLite format 3") << false;
        const std::string real = gzipped("hello");
        QTest::newRow("real member") << QByteArray(real.data(), qsizetype(real.size())) << true;
    }
    void magic()
    {
        QFETCH(QByteArray, data);
        QFETCH(bool, gzip);
        QCOMPARE(isGzip(std::string_view(data.constData(), std::size_t(data.size()))), gzip);
    }

    void singleMember_data()
    {
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<int>("level");
        QTest::newRow("empty payload") << QByteArray() << int(Z_DEFAULT_COMPRESSION);
        QTest::newRow("one byte") << QByteArray("x") << int(Z_DEFAULT_COMPRESSION);
        QTest::newRow("json") << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"kernel\"}]}")
                              << int(Z_BEST_COMPRESSION);
        const std::string bin = noise(300'000);
        QTest::newRow("binary with NULs")
            << QByteArray(bin.data(), qsizetype(bin.size())) << int(Z_DEFAULT_COMPRESSION);
        QTest::newRow("stored blocks") << QByteArray(bin.data(), qsizetype(bin.size())) << 0;
        // Far more than six times the compressed size: the output grows several times.
        QTest::newRow("highly compressible") << QByteArray(8 << 20, 'a') << 9;
    }
    void singleMember()
    {
        QFETCH(QByteArray, payload);
        QFETCH(int, level);
        const std::string data(payload.constData(), std::size_t(payload.size()));
        const std::string gz = gzipped(data, level);
        QVERIFY(!gz.empty());
        QVERIFY(isGzip(gz));
        const std::string out = gunzip(gz, kFile);
        QCOMPARE(out.size(), data.size());
        QVERIFY(out == data);
    }

    void headerWithFileName()
    {
        const std::string data = "{\"traceEvents\": []}";
        const std::string gz = gzipped(data, 6, "trace.json");
        QVERIFY(gz.size() > gzipped(data, 6).size()); // the name is in the header
        QCOMPARE(gunzip(gz, kFile), data);
    }

    void concatenatedMembers()
    {
        const std::string a = "{\"traceEvents\": [";
        const std::string b = noise(70'000, 7);
        const std::string c = "]}";
        const std::string gz = gzipped(a) + gzipped(b, 1) + gzipped(std::string()) + gzipped(c, 0);
        const std::string out = gunzip(gz, kFile);
        QCOMPARE(out.size(), a.size() + b.size() + c.size());
        QVERIFY(out == a + b + c);
    }

    void zeroPadding()
    {
        const std::string a = "first", b = "second";
        // After the last member, as some writers leave it, and between members.
        QCOMPARE(gunzip(gzipped(a) + std::string(512, '\0'), kFile), a);
        QCOMPARE(gunzip(gzipped(a) + std::string(3, '\0') + gzipped(b), kFile), a + b);
    }

    void emptyInput()
    {
        // No member at all: nothing to inflate, and nothing corrupt either.
        QCOMPARE(gunzip(std::string_view(), kFile), std::string());
    }

    void truncated_data()
    {
        QTest::addColumn<int>("keep"); // bytes kept; negative: counted from the end
        QTest::addColumn<bool>("secondMember");
        QTest::newRow("magic only") << 2 << false;
        QTest::newRow("header only") << 10 << false;
        QTest::newRow("half") << -5000 << false;
        QTest::newRow("no trailer") << -8 << false;
        QTest::newRow("last byte missing") << -1 << false;
        QTest::newRow("second member cut") << -100 << true;
        QTest::newRow("second member magic only") << 2 << true;
    }
    void truncated()
    {
        QFETCH(int, keep);
        QFETCH(bool, secondMember);
        const std::string first = gzipped("the first member");
        const std::string whole = gzipped(noise(20'000, 3), 0);
        QVERIFY(whole.size() > 10'000);
        const std::size_t n = keep >= 0 ? std::size_t(keep) : whole.size() - std::size_t(-keep);
        const std::string data = (secondMember ? first : std::string()) + whole.substr(0, n);
        const Failure f = failureOf(data);
        QCOMPARE(f.kind, int(ErrorKind::InvalidInput));
        QVERIFY2(f.message.startsWith(QString::fromStdString(kFile) + ": "), qPrintable(f.message));
        QVERIFY2(f.message.contains("truncated"), qPrintable(f.message));
    }

    void corrupt_data()
    {
        QTest::addColumn<int>("at"); // byte to change; negative: counted from the end
        QTest::addColumn<int>("value"); // new value, or -1 to flip every bit
        QTest::addColumn<QString>("reason"); // what zlib says
        QTest::newRow("compression method") << 2 << 7 << "unknown compression method";
        QTest::newRow("reserved flag") << 3 << 0xe0 << "unknown header flags set";
        QTest::newRow("crc") << -8 << -1 << "incorrect data check";
        QTest::newRow("length") << -4 << -1 << "incorrect length check";
        QTest::newRow("deflate block type") << 10 << 0x07 << "invalid block type";
    }
    void corrupt()
    {
        QFETCH(int, at);
        QFETCH(int, value);
        QFETCH(QString, reason);
        std::string gz = gzipped("{\"traceEvents\": [], \"displayTimeUnit\": \"ns\"}");
        const std::size_t i = at >= 0 ? std::size_t(at) : gz.size() - std::size_t(-at);
        gz[i] = value < 0 ? char(~gz[i]) : char(value);
        const Failure f = failureOf(gz);
        QCOMPARE(f.kind, int(ErrorKind::InvalidInput));
        QVERIFY2(f.message.startsWith(QString::fromStdString(kFile) + ": corrupt gzip data"), qPrintable(f.message));
        QVERIFY2(f.message.contains(reason), qPrintable(f.message));
    }

    // A bad second member is reported at its own position, after the first member's bytes.
    void corruptSecondMember()
    {
        const std::string first = gzipped(noise(5000, 9));
        std::string second = gzipped("second");
        second[second.size() - 8] = char(~second[second.size() - 8]);
        const Failure f = failureOf(first + second, "x.gz");
        QCOMPARE(f.kind, int(ErrorKind::InvalidInput));
        QVERIFY2(f.message.startsWith("x.gz: corrupt gzip data at compressed byte "), qPrintable(f.message));
        const qsizetype from = f.message.indexOf("byte ") + 5;
        const int byte = f.message.mid(from, f.message.indexOf(':', from) - from).toInt();
        QVERIFY2(byte > int(first.size()) && byte <= int(first.size() + second.size()), qPrintable(f.message));
    }

    void trailingBytes_data()
    {
        QTest::addColumn<QByteArray>("tail");
        QTest::newRow("text") << QByteArray("garbage");
        QTest::newRow("newline") << QByteArray("\n");
        QTest::newRow("half a magic") << QByteArray("\x1f");
        QTest::newRow("zeros then text") << QByteArray("\0\0xyz", 5);
    }
    void trailingBytes()
    {
        QFETCH(QByteArray, tail);
        const std::string gz = gzipped("payload");
        const Failure f = failureOf(gz + std::string(tail.constData(), std::size_t(tail.size())));
        QCOMPARE(f.kind, int(ErrorKind::InvalidInput));
        QVERIFY2(f.message.startsWith(QString::fromStdString(kFile) + ": unexpected bytes after the gzip data"),
                 qPrintable(f.message));
        const std::size_t zeros = tail.startsWith('\0') ? 2 : 0;
        QVERIFY2(f.message.endsWith(QStringLiteral("at byte %1").arg(gz.size() + zeros)), qPrintable(f.message));
    }

    void decompressionBomb()
    {
        // 64 MiB of zeros gzips to about 64 KB: with a 16 MiB limit it is refused, saying why and the file's
        // size, before the whole of it is inflated; at the limit exactly it is read.
        const std::string zeros(std::size_t(64) << 20, '\0');
        const std::string gz = gzipped(zeros);
        QVERIFY(gz.size() < zeros.size() / 500);
        try {
            gunzip(gz, kFile, std::size_t(16) << 20);
            QFAIL("a bomb was inflated past the limit");
        } catch (const Error &e) {
            QCOMPARE(e.kind(), ErrorKind::InvalidInput);
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.contains(QStringLiteral("decompresses to more than 16 MiB")), e.what());
            QVERIFY2(what.contains(QString::fromStdString(kFile)), e.what());
            QVERIFY2(what.contains(QString::fromStdString(formatBytes(gz.size()))), e.what());
        }
        QCOMPARE(gunzip(gz, kFile, zeros.size()).size(), zeros.size());
        // The documented default: 100 times the file, at least 256 MiB, at most 2 GiB.
        QCOMPARE(gunzipLimit(1000), std::size_t(256) << 20);
        QCOMPARE(gunzipLimit(std::size_t(10) << 20), std::size_t(1000) << 20);
        QCOMPARE(gunzipLimit(std::size_t(100) << 20), std::size_t(2) << 30);
        QCOMPARE(gunzipLimit(~std::size_t(0)), std::size_t(2) << 30); // no overflow
    }

    void notGzipAtAll()
    {
        const Failure f = failureOf("{\"traceEvents\": []}", "plain.json");
        QCOMPARE(f.kind, int(ErrorKind::InvalidInput));
        QVERIFY2(f.message.startsWith("plain.json: "), qPrintable(f.message));
    }

    // A member of more than 1 GiB of compressed data must be inflated whole. Needs about 2.3 GB of
    // memory and a few seconds, so it runs only with STREAMSCOPE_LARGE_TESTS=1: the GPU host's session
    // sets it (tests/gpu/faults-session.sh, step "large"), the 2-core build machine does not.
    void memberOverOneGiB()
    {
        if (qEnvironmentVariableIntValue("STREAMSCOPE_LARGE_TESTS") != 1)
            QSKIP("set STREAMSCOPE_LARGE_TESTS=1 to inflate a 1.1 GB member (tests/gpu/faults-session.sh does)");
        const std::size_t total = (1ull << 30) + (64ull << 20);
        const std::string block = noise(1 << 20, 5);
        std::string gz;
        {
            z_stream z{};
            QCOMPARE(deflateInit2(&z, 0, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
            gz.resize(deflateBound(&z, uLong(total)) + 64);
            z.next_out = reinterpret_cast<Bytef *>(gz.data());
            z.avail_out = uInt(gz.size());
            for (std::size_t done = 0; done < total; done += block.size()) {
                z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(block.data()));
                z.avail_in = uInt(block.size());
                QCOMPARE(deflate(&z, done + block.size() >= total ? Z_FINISH : Z_NO_FLUSH),
                         done + block.size() >= total ? Z_STREAM_END : Z_OK);
            }
            gz.resize(z.total_out);
            deflateEnd(&z);
        }
        QVERIFY(gz.size() > (1ull << 30));
        std::string out;
        QString error;
        try {
            out = gunzip(gz, kFile);
        } catch (const Error &e) {
            error = QString::fromStdString(e.what());
        }
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(out.size(), total);
        QVERIFY(out.compare(out.size() - block.size(), block.size(), block) == 0);
    }
};

QTEST_APPLESS_MAIN(TestGzip)
#include "tst_gzip.moc"
