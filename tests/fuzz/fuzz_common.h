// What every reader's fuzzer checks (tests/fuzz/, docs/fuzzing.md): a reader given any bytes returns a
// trace or throws engine::Error of an expected kind whose message names the file. Anything else is a
// finding and stops the fuzzer: a signal or a sanitizer report (libFuzzer's own), an exception of another
// type (what the CLI reports as "internal error"), an error of another kind, or a message without the file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <string>
#include <string_view>

#include "engine/model/errors.h"

namespace streamscope::fuzz {

inline std::string_view asText(const std::uint8_t *data, std::size_t size)
{
    return {reinterpret_cast<const char *>(data), size};
}

[[noreturn]] inline void finding(const std::string &what)
{
    std::fprintf(stderr, "\n==streamscope-fuzz== FINDING: %s\n", what.c_str());
    std::abort();
}

// Runs `read` and lets through only engine::Error of one of `allowed` kinds naming `fileName` (or, when
// given, `otherName`: a file the input refers to).
template <typename Read>
void expectCleanError(Read &&read, const std::string &fileName,
                      std::initializer_list<engine::ErrorKind> allowed = {engine::ErrorKind::InvalidInput},
                      const std::string &otherName = {})
{
    try {
        read();
    } catch (const engine::Error &e) {
        bool ok = false;
        for (auto kind : allowed)
            ok = ok || e.kind() == kind;
        if (!ok)
            finding("engine::Error of an unexpected kind (" + std::to_string(static_cast<int>(e.kind()))
                    + "): " + e.what());
        const std::string_view message = e.what();
        if (message.find(fileName) == std::string_view::npos
            && (otherName.empty() || message.find(otherName) == std::string_view::npos))
            finding("the error does not name the file '" + fileName + "': " + e.what());
    } catch (const std::exception &e) {
        finding(std::string("an exception that is not engine::Error (the CLI's 'internal error'): ") + e.what());
    }
}

} // namespace streamscope::fuzz
