// CUDA runtime API names of ops, both ways (see api_names.h).
#include "engine/model/api_names.h"

namespace streamscope::engine {

std::string_view apiNameOf(const OpRecord &op)
{
    switch (op.kind) {
    case OpKind::CopyH2D:
    case OpKind::CopyD2H:
    case OpKind::CopyD2D:
    case OpKind::CopyH2H: return op.api == CopyApi::Sync ? "cudaMemcpy" : "cudaMemcpyAsync";
    case OpKind::Kernel: return "cudaLaunchKernel";
    case OpKind::Memset: return "cudaMemsetAsync";
    case OpKind::EventRecord: return "cudaEventRecord";
    case OpKind::EventWait: return "cudaStreamWaitEvent";
    case OpKind::HostSync:
        // The runner records which sync it was only in the op's name; the stream form is the common one.
        return op.stream >= 0 ? "cudaStreamSynchronize" : "cudaDeviceSynchronize";
    case OpKind::Prefetch: return "cudaMemPrefetchAsync";
    case OpKind::Advise: return "cudaMemAdvise";
    case OpKind::Attach: return "cudaStreamAttachMemAsync";
    case OpKind::CopyP2P: return op.api == CopyApi::Sync ? "cudaMemcpyPeer" : "cudaMemcpyPeerAsync";
    case OpKind::HostWork: return "host work";
    case OpKind::Other: break;
    }
    return "CUDA API call";
}

OpKind opKindOfApiCall(std::string_view apiName)
{
    // "cudaLaunchKernel_v7000", "cudaMemcpyAsync_ptsz": the suffix names an ABI, not another call.
    if (const auto pos = apiName.find('_'); pos != std::string_view::npos)
        apiName = apiName.substr(0, pos);
    if (apiName.ends_with("Synchronize"))
        return OpKind::HostSync; // cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize, cuCtxSynchronize
    if (apiName == "cudaEventRecord" || apiName == "cudaEventRecordWithFlags" || apiName == "cuEventRecord"
        || apiName == "cuEventRecordWithFlags")
        return OpKind::EventRecord;
    if (apiName == "cudaStreamWaitEvent" || apiName == "cuStreamWaitEvent")
        return OpKind::EventWait;
    if (apiName == "cudaMemAdvise" || apiName == "cuMemAdvise")
        return OpKind::Advise;
    if (apiName == "cudaStreamAttachMemAsync" || apiName == "cuStreamAttachMemAsync")
        return OpKind::Attach;
    return OpKind::Other;
}

} // namespace streamscope::engine
