// libFuzzer harness for the Chrome trace and PyTorch/Kineto importer (engine/formats/chrome_import):
// chromeTraceFromJson on any text. Seeds: tests/fuzz/corpus/chrome/ (StreamScope's own Chrome export of
// the examples and Kineto traces, trimmed).
#include "engine/formats/chrome_import.h"
#include "tests/fuzz/fuzz_common.h"

using namespace streamscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string fileName = "fuzz.json";
    fuzz::expectCleanError([&] { engine::chromeTraceFromJson(fuzz::asText(data, size), fileName); }, fileName);
    return 0;
}
