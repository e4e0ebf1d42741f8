// CUDA runtime API names as the formats see them: which call issued an op (for the host slices of the
// Chrome export) and what kind of op an imported API call with no GPU activity was (Nsight Systems and
// Kineto imports). One table so that export and import agree.
#pragma once

#include <string_view>

#include "engine/model/trace.h"

namespace streamscope::engine {

// The runtime call that issues an op of this kind, e.g. "cudaMemcpyAsync" for an async H2D copy.
std::string_view apiNameOf(const OpRecord &op);

// What an imported runtime call with no GPU op of its own is: HostSync for the *Synchronize calls,
// EventRecord / EventWait for cudaEventRecord / cudaStreamWaitEvent, Other for everything else
// (cudaMalloc, cudaGetDevice, ...). Versioned suffixes such as "_v7000" and "_ptsz" are ignored.
OpKind opKindOfApiCall(std::string_view apiName);

} // namespace streamscope::engine
