// libFuzzer harness for gzip decompression (engine/util/gzip): gunzip on any bytes, with a 1 MiB limit
// on what it may inflate to (the reader's own limit is at least 256 MiB, too slow to reach millions of
// times); what comes back must respect the limit. Seeds: tests/fuzz/corpus/gzip/ (small .json.gz files,
// several members, trailing zeros).
#include "engine/util/gzip.h"
#include "tests/fuzz/fuzz_common.h"

using namespace streamscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    constexpr std::size_t kLimit = std::size_t(1) << 20;
    const std::string fileName = "fuzz.json.gz";
    const std::string_view bytes = fuzz::asText(data, size);
    (void)engine::isGzip(bytes);
    fuzz::expectCleanError(
        [&] {
            const std::string out = engine::gunzip(bytes, fileName, kLimit);
            if (out.size() > kLimit)
                fuzz::finding("gunzip returned " + std::to_string(out.size()) + " bytes, over its limit of "
                              + std::to_string(kLimit));
        },
        fileName);
    return 0;
}
