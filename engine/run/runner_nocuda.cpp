// The runner of a build without the CUDA toolkit: the data model, formats and viewer work, runs do not.
#include "engine/model/errors.h"
#include "engine/run/runner.h"

namespace streamscope::engine {

namespace {
[[noreturn]] void noCuda()
{
    throw Error(ErrorKind::NoGpu,
                "this StreamScope was built without CUDA (no CUDA toolkit at build time): it can open and "
                "export traces but cannot run workloads; rebuild with the CUDA toolkit installed");
}
} // namespace

bool runnerHasCuda()
{
    return false;
}
std::optional<Error> missingLibraries(const Workload &)
{
    return std::nullopt; // nothing runs without CUDA, and runWorkload says so
}
void applyProcessSettings(const Workload &)
{
}
std::string newCommunicatorId()
{
    noCuda();
}
std::vector<DeviceInfo> listDevices()
{
    noCuda();
}
Trace runWorkload(const Workload &, const RunOptions &, const ProgressCallback &, const std::atomic<bool> *)
{
    noCuda();
}

} // namespace streamscope::engine
