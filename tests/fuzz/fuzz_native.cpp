// libFuzzer harness for the native trace reader (engine/formats/native_format): fromNativeJson on any
// text. A trace it accepts must survive its own round trip: toNativeJson of it reads again. Seeds:
// tests/fuzz/corpus/native/ (the recorded examples, trimmed to a repetition or two).
#include "engine/formats/native_format.h"
#include "tests/fuzz/fuzz_common.h"

using namespace streamscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string fileName = "fuzz.sstrace";
    fuzz::expectCleanError(
        [&] {
            const engine::Trace trace = engine::fromNativeJson(fuzz::asText(data, size), fileName);
            const std::string written = engine::toNativeJson(trace);
            try {
                engine::fromNativeJson(written, "written.sstrace");
            } catch (const engine::Error &e) {
                fuzz::finding(std::string("a trace the reader accepted cannot be read back once written: ") + e.what());
            }
        },
        fileName);
    return 0;
}
