// `run --ranks` in a build without MPI (app/cli/ranks_command.cpp compiled without mpi.h, as configure
// compiles it where no MPI is found): refused with exit code 3 and a message that names what is missing and
// what to install, in the human and the JSON form. A plain program (the CLI of the same build has MPI), run by
// ctest as `mpi-off`; it needs no GPU and no MPI. Exit 0 when every check holds.
#include <cstdio>
#include <sstream>
#include <string>

#include "app/cli/ranks_command.h"

using namespace streamscope::cli;

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
    check(!ranksAvailable(), "this copy says it has no MPI");
    RunArgs args;
    args.workload = "w.json";
    args.ranks = true;
    const std::atomic<bool> cancel{false};
    for (const std::string progress : {"none", "json"}) {
        args.progress = progress;
        std::ostringstream out, err;
        const int code = cmdRunRanks(args, cancel, out, err);
        const std::string said = out.str() + err.str();
        check(code == 3, progress + ": exit code 3 (invalid input), not " + std::to_string(code));
        check(said.find("--ranks") != std::string::npos && said.find("built without MPI") != std::string::npos
                  && said.find("libopenmpi-dev") != std::string::npos,
              progress + ": the message names the option, what is missing and the package: " + said);
        if (progress == "json")
            check(out.str().find("\"event\":\"error\"") != std::string::npos,
                  "json: the error is a protocol line on stdout: " + out.str());
    }
    if (failures == 0)
        std::puts("mpi-off: run --ranks without MPI is refused, naming what to install");
    return failures == 0 ? 0 : 1;
}
