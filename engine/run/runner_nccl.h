// Collectives (OpType::Collective) through NCCL: one call per op, on the op's stream, as a program whose
// ranks are the threads of one process makes them. NCCL is loaded (dlopen libnccl.so.2) when a run first
// sets up a communicator, so that the app and every run without a collective never load it, and a
// machine without it runs everything else; a collective run there ends with a message naming the library.
// A build whose configure found no nccl.h refuses collectives the same way, naming the header.
//
// The communicator: every GPU whose streams hold collectives (Workload::collectiveDevices), rank by device
// order, made as nccl-tests makes it in one process: one unique id, then a group of ncclCommInitRankConfig
// calls, one per GPU, with the workload's ncclConfig_t settings (NcclSettings: minCTAs, maxCTAs,
// CTAPolicy). NCCL_ALGO and NCCL_PROTO are NCCL's environment, read once per process: the first run sets
// them, a later run in the same process that asks for others is refused (a run in a fresh process, as
// streamscope-cli run and the app's runs are, gets what it asks for).
//
// The buffers are the runner's: per GPU one send and one receive buffer of the largest its collectives need
// (run_plan.h collectiveBuffers), shared by its collectives as nccl-tests' loops share theirs. What a
// collective launches (kernels, or a copy-engine collective's copies) is tied to its op by CUPTI's external
// correlation, never by a kernel's name. Private to streamscope_runner.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "engine/model/errors.h"
#include "engine/run/cuda_raii.h"
#include "engine/run/run_plan.h"

namespace streamscope::engine {

struct CollectiveCall; // one op's NCCL call: its communicator, buffers, count, datatype and reduction

class RunCollectives {
public:
    RunCollectives();
    ~RunCollectives();
    RunCollectives(const RunCollectives &) = delete;
    RunCollectives &operator=(const RunCollectives &) = delete;

    // The communicator and buffers of the workload's collectives (none: nothing is loaded), with its NCCL
    // settings and buffer sizes (collectiveBytes, as the memory check counted them; ranks in the order of
    // Workload::collectiveDevices, as the plan's; `override`: the CLI's --device). Throws Error{Cuda} naming the NCCL
    // error (or the library or header that is missing), Error{InvalidInput} for NCCL environment settings another run
    // of this process already fixed, Error{OutOfMemory}. The current device is left as it was.
    // One rank's part (Workload::rankOf): its GPU alone joins the job's communicator with `communicatorId`
    // (RunOptions::communicatorId, rank 0's ncclGetUniqueId).
    void setUp(const Workload &workload, int override, const std::string &communicatorId = {});
    // The call of collective op `plan` (after setUp).
    const CollectiveCall *prepare(const PlannedOp &plan);
    // NCCL's version and the communicator, for the trace's metadata ("2.28.3, 2 ranks: GPUs 0 and 1,
    // maxCTAs 4"); empty without collectives.
    const std::string &description() const { return m_description; }
    // An abandoned run: the communicators are aborted (ncclCommAbort ends their kernels' waits), the memory
    // is left as it is (see RunObjects::leak).
    void leak();

private:
    void allocate(const Workload &workload, int override, int rank, int device);
    void registerWindows(const std::string &context);

    std::vector<void *> m_comms; // per rank: its ncclComm_t
    std::vector<int> m_devices; // per rank: its device
    std::map<int, cuda::Buffer> m_send, m_recv; // per rank (cudaMalloc), or
    // with symmetric windows (NcclSettings::symmetric): ncclMemAlloc's, and their windows (ncclWindow_t)
    struct SymmetricBuffer {
        void *bytes = nullptr;
        void *window = nullptr;
        int rank = 0;
        std::size_t size = 0;
    };
    std::vector<SymmetricBuffer> m_symmetric; // per rank: send, then receive
    std::vector<std::unique_ptr<CollectiveCall>> m_calls;
    std::string m_description;
    bool m_leaked = false;
};

// What the workload's collectives lack here, naming the first collective: Error{InvalidInput} where this
// build has no NCCL (no nccl.h at configure), Error{Cuda} where libnccl.so.2 cannot be loaded; none where the
// workload has no collective or NCCL is there. Checked before a run allocates anything, and by `validate`.
std::optional<Error> collectivesUnavailable(const Workload &workload);

// The op's NCCL call on `stream` (its device is current); throws Error{Cuda} naming `context` and NCCL's error.
void callCollective(const CollectiveCall &call, cudaStream_t stream, const std::string &context);

} // namespace streamscope::engine
