// CUDA runtime API names of ops, both ways (see api_names.h). The call of each kind is a column of kOpKinds.
#include "engine/model/api_names.h"

#include "engine/model/op_kinds.h"

namespace streamscope::engine {

std::string_view apiNameOf(const OpRecord &op)
{
    // The runner records which sync it was only in the op's name: one on no stream was the device's.
    if (op.kind == OpKind::HostSync && op.stream < 0)
        return "cudaDeviceSynchronize";
    const OpKindInfo &info = opKindInfo(op.kind);
    return op.api == CopyApi::Sync && !info.cudaApiSync.empty() ? info.cudaApiSync : info.cudaApi;
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
