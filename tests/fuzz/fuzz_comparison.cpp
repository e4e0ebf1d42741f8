// libFuzzer harness for the comparison file reader (engine/experiment/comparison_file): fromComparisonJson
// on any text, with trace_file paths resolved in a folder of its own that holds one small native trace,
// variant.sstrace (so that references can succeed too). Seeds: tests/fuzz/corpus/comparison/ (recorded
// comparisons trimmed to a variant or two, embedded and by reference).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "engine/experiment/comparison_file.h"
#include "engine/formats/native_format.h"
#include "tests/fuzz/fuzz_common.h"

using namespace streamscope;

namespace {

// A folder of this process's own, removed at exit, with variant.sstrace in it (a trimmed example trace
// from the native corpus).
std::string baseDir()
{
    // Never destroyed: the handler that removes the folder at exit still needs its name.
    static const std::string &dir = *new std::string([] {
        const auto d = std::filesystem::temp_directory_path()
                       / ("streamscope-fuzz-comparison-" + std::to_string(static_cast<long>(getpid())));
        std::filesystem::create_directories(d);
        std::filesystem::copy_file(STREAMSCOPE_FUZZ_VARIANT_TRACE, d / "variant.sstrace",
                                   std::filesystem::copy_options::overwrite_existing);
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(baseDir(), ec);
        });
        return d.string();
    }());
    return dir;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string fileName = "fuzz.sscompare";
    const std::string dir = baseDir();
    fuzz::expectCleanError([&] { engine::fromComparisonJson(fuzz::asText(data, size), fileName, dir); }, fileName,
                           {engine::ErrorKind::InvalidInput, engine::ErrorKind::Io}, dir);
    return 0;
}
