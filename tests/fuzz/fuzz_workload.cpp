// libFuzzer harness for the workload reader (engine/workload/workload_parser): parseWorkload and
// readWorkloadHeader on any text. A valid workload must also survive its own round trip: workloadToJson
// of it parses again. Seeds: tests/fuzz/corpus/workload/ (the lessons and hand-made edge cases).
#include "engine/workload/workload_parser.h"
#include "tests/fuzz/fuzz_common.h"

using namespace streamscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text = fuzz::asText(data, size);
    const std::string fileName = "fuzz.json";
    fuzz::expectCleanError([&] { engine::readWorkloadHeader(text, fileName); }, fileName);
    fuzz::expectCleanError(
        [&] {
            const engine::Workload w = engine::parseWorkload(text, fileName);
            const std::string normalised = engine::workloadToJson(w);
            try {
                engine::parseWorkload(normalised, "normalised.json");
            } catch (const engine::Error &e) {
                fuzz::finding(std::string("a valid workload's workloadToJson does not parse again: ") + e.what()
                              + "\n--- normalised text:\n" + normalised);
            }
        },
        fileName);
    return 0;
}
