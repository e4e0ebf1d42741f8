// The runner's collectives in a build without NCCL (runner_nccl.cpp compiled without nccl.h, as configure
// compiles it where none is found): a workload with a collective is refused before anything runs, naming
// the op, its JSON path and what to install, and the runner's set-up refuses it too. A plain program (the
// real runner in the same build has NCCL, and its symbols would clash with this copy's), run by ctest as
// `nccl-off`; it needs no GPU. Exit 0 when every check holds.
#include <cstdio>
#include <string>

#include "engine/model/errors.h"
#include "engine/run/runner_nccl.h"
#include "engine/workload/workload_parser.h"

using namespace streamscope::engine;

namespace {
int failures = 0;
void check(bool ok, const std::string &what)
{
    if (!ok) {
        std::fprintf(stderr, "FAIL: %s\n", what.c_str());
        ++failures;
    }
}
} // namespace

int main()
{
    const Workload none = parseWorkload(R"({"version": 1, "streams": [{"name": "s", "ops": [
        {"op": "kernel", "duration": "1 us"}]}]})");
    check(!collectivesUnavailable(none), "a workload without collectives lacks nothing");

    const Workload w = parseWorkload(R"({"version": 2, "streams": [
        {"name": "k", "device": 0, "ops": [{"op": "kernel", "duration": "1 us"}]},
        {"name": "comm", "device": 0, "ops": [{"op": "collective", "type": "allreduce", "bytes": "1 MiB"}]}]})",
                                     "c.json");
    const auto missing = collectivesUnavailable(w);
    check(missing.has_value(), "a collective in a build without NCCL is refused");
    if (missing) {
        const std::string m = missing->what();
        check(missing->kind() == ErrorKind::InvalidInput, "refused as invalid input, not as a CUDA error: " + m);
        check(m.find("stream 'comm' op 0 (/streams/1/ops/0, line 3): ncclAllReduce 1 MiB bf16") == 0,
              "the message starts with the op: " + m);
        check(m.find("built without NCCL") != std::string::npos && m.find("libnccl-dev") != std::string::npos,
              "the message says what is missing and what to install: " + m);
    }
    try {
        RunCollectives collectives;
        collectives.setUp(w, -1);
        check(false, "the set-up refuses it too");
    } catch (const Error &e) {
        check(std::string(e.what()).find("built without NCCL") != std::string::npos, e.what());
    }
    std::printf("%s\n", failures == 0 ? "nccl-off: every check passed" : "nccl-off: FAILED");
    return failures == 0 ? 0 : 1;
}
