// Collectives through NCCL (see runner_nccl.h).
#include "engine/run/runner_nccl.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string_view>
#include <tuple>

#include "engine/model/errors.h"
#include "engine/model/units.h"
#include "engine/run/cuda_check.h"

#if STREAMSCOPE_HAVE_NCCL
#include <nccl.h>
#endif

namespace streamscope::engine {

namespace {

// The first collective of the workload, as messages name it; none where it has none.
std::optional<std::string> firstCollective(const Workload &workload)
{
    for (const StreamSpec &stream : workload.streams)
        for (std::size_t i = 0; i < stream.ops.size(); ++i)
            if (isCollective(stream.ops[i]))
                return opContext(stream, int(i),
                                 stream.ops[i].name.empty() ? describe(stream.ops[i], workload) : stream.ops[i].name);
    return std::nullopt;
}

} // namespace

#if STREAMSCOPE_HAVE_NCCL

namespace {

// NCCL_ALGO and NCCL_PROTO as this process's NCCL reads them: once, at its first communicator.
void applyNcclEnvironment(const NcclSettings &settings)
{
    static std::mutex mutex;
    static bool started = false;
    static std::string algo, proto;
    const std::lock_guard lock(mutex);
    const auto current = [](const char *name) {
        const char *v = std::getenv(name);
        return std::string(v ? v : "");
    };
    if (!started) {
        if (!settings.algo.empty())
            setenv("NCCL_ALGO", settings.algo.c_str(), 1);
        if (!settings.proto.empty())
            setenv("NCCL_PROTO", settings.proto.c_str(), 1);
        algo = current("NCCL_ALGO");
        proto = current("NCCL_PROTO");
        started = true;
        return;
    }
    for (const auto &[name, asked, inForce] :
         {std::tuple<const char *, const std::string &, const std::string &>{"NCCL_ALGO", settings.algo, algo},
          {"NCCL_PROTO", settings.proto, proto}})
        if (!asked.empty() && asked != inForce)
            throw Error(ErrorKind::InvalidInput,
                        std::string(name) + "=" + asked + " cannot take effect: NCCL already started in this process "
                            + (inForce.empty() ? std::string("with its default") : "with " + inForce)
                            + ", and reads its environment only then; run it in a process of its own "
                              "(streamscope-cli run)");
}

} // namespace

struct CollectiveCall {
    ncclComm_t comm = nullptr;
    CollectiveType type = CollectiveType::AllReduce;
    const void *send = nullptr;
    void *recv = nullptr;
    std::size_t count = 0; // elements, as the NCCL function takes them
    ncclDataType_t datatype = ncclBfloat16;
    ncclRedOp_t reduce = ncclSum;
    int peer = -1; // root or peer rank
};

namespace {

// NCCL's entry points, from the library loaded at first use.
struct Nccl {
    decltype(&::ncclGetVersion) getVersion = nullptr;
    decltype(&::ncclGetUniqueId) getUniqueId = nullptr;
    decltype(&::ncclCommInitRankConfig) initRankConfig = nullptr;
    decltype(&::ncclCommDestroy) destroy = nullptr;
    decltype(&::ncclCommFinalize) finalize = nullptr; // NCCL 2.14 and later
    decltype(&::ncclCommAbort) abort = nullptr;
    decltype(&::ncclGetErrorString) errorString = nullptr;
    decltype(&::ncclGetLastError) lastError = nullptr;
    decltype(&::ncclGroupStart) groupStart = nullptr;
    decltype(&::ncclGroupEnd) groupEnd = nullptr;
    decltype(&::ncclAllReduce) allReduce = nullptr;
    decltype(&::ncclAllGather) allGather = nullptr;
    decltype(&::ncclReduceScatter) reduceScatter = nullptr;
    decltype(&::ncclBroadcast) broadcast = nullptr;
    decltype(&::ncclAlltoAll) allToAll = nullptr; // NCCL 2.28 and later only
    decltype(&::ncclSend) send = nullptr;
    decltype(&::ncclRecv) recv = nullptr;
    // Symmetric windows (NCCL 2.27 and later only)
    decltype(&::ncclMemAlloc) memAlloc = nullptr;
    decltype(&::ncclMemFree) memFree = nullptr;
    decltype(&::ncclCommWindowRegister) windowRegister = nullptr;
    decltype(&::ncclCommWindowDeregister) windowDeregister = nullptr;
    int version = 0;
    std::string error; // why it could not be loaded; empty when it was
};

template <typename F> bool resolve(void *library, const char *symbol, F &function, std::string *error)
{
    function = reinterpret_cast<F>(dlsym(library, symbol));
    if (!function && error && error->empty())
        *error = std::string("the NCCL library has no ") + symbol;
    return function != nullptr;
}

const Nccl &nccl()
{
    static Nccl n;
    static std::once_flag once;
    std::call_once(once, [] {
        void *library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
        if (!library)
            library = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char *why = dlerror();
            n.error = std::string("collectives need NCCL (libnccl.so.2: NVIDIA's libnccl2 package, or the CUDA "
                                  "toolkit's copy on the library path), which could not be loaded: ")
                      + (why ? why : "not found");
            return;
        }
        std::string *e = &n.error;
        resolve(library, "ncclGetVersion", n.getVersion, e);
        resolve(library, "ncclGetUniqueId", n.getUniqueId, e);
        resolve(library, "ncclCommInitRankConfig", n.initRankConfig, e);
        resolve(library, "ncclCommDestroy", n.destroy, e);
        resolve(library, "ncclCommAbort", n.abort, e);
        resolve(library, "ncclGetErrorString", n.errorString, e);
        resolve(library, "ncclGetLastError", n.lastError, e);
        resolve(library, "ncclGroupStart", n.groupStart, e);
        resolve(library, "ncclGroupEnd", n.groupEnd, e);
        resolve(library, "ncclAllReduce", n.allReduce, e);
        resolve(library, "ncclAllGather", n.allGather, e);
        resolve(library, "ncclReduceScatter", n.reduceScatter, e);
        resolve(library, "ncclBroadcast", n.broadcast, e);
        resolve(library, "ncclSend", n.send, e);
        resolve(library, "ncclRecv", n.recv, e);
        resolve(library, "ncclAlltoAll", n.allToAll, nullptr);
        resolve(library, "ncclCommFinalize", n.finalize, nullptr);
        resolve(library, "ncclMemAlloc", n.memAlloc, nullptr);
        resolve(library, "ncclMemFree", n.memFree, nullptr);
        resolve(library, "ncclCommWindowRegister", n.windowRegister, nullptr);
        resolve(library, "ncclCommWindowDeregister", n.windowDeregister, nullptr);
        if (n.error.empty() && n.getVersion(&n.version) != ncclSuccess)
            n.version = 0;
    });
    return n;
}

const Nccl &loaded(const std::string &context)
{
    const Nccl &n = nccl();
    if (!n.error.empty())
        throw Error(ErrorKind::Cuda, context + ": " + n.error);
    return n;
}

// "2.28.3" from NCCL's code (major * 10000 + minor * 100 + patch since 2.9).
std::string versionText(int code)
{
    if (code <= 0)
        return "unknown version";
    return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

void check(ncclResult_t result, const std::string &context, std::string_view call, ncclComm_t comm = nullptr)
{
    if (result == ncclSuccess || result == ncclInProgress)
        return;
    const Nccl &n = nccl();
    std::string why = n.errorString ? n.errorString(result) : "error " + std::to_string(int(result));
    if (comm && n.lastError)
        if (const char *last = n.lastError(comm); last && *last)
            why += " (" + std::string(last) + ")";
    throw Error(ErrorKind::Cuda, context + ": " + std::string(call) + " failed: " + why);
}

ncclDataType_t datatypeOf(CollectiveDtype dtype)
{
    switch (dtype) {
    case CollectiveDtype::Fp32: return ncclFloat32;
    case CollectiveDtype::Fp16: return ncclFloat16;
    case CollectiveDtype::Bf16: return ncclBfloat16;
    case CollectiveDtype::Int8: return ncclInt8;
    }
    return ncclFloat32;
}

ncclRedOp_t reductionOf(ReduceOp op)
{
    switch (op) {
    case ReduceOp::Sum: return ncclSum;
    case ReduceOp::Prod: return ncclProd;
    case ReduceOp::Min: return ncclMin;
    case ReduceOp::Max: return ncclMax;
    case ReduceOp::Avg: return ncclAvg;
    }
    return ncclSum;
}

} // namespace

std::optional<Error> collectivesUnavailable(const Workload &workload)
{
    const auto op = firstCollective(workload);
    if (!op)
        return std::nullopt;
    if (const Nccl &n = nccl(); !n.error.empty())
        return Error(ErrorKind::Cuda, *op + ": " + n.error);
    return std::nullopt;
}

RunCollectives::RunCollectives() = default;

namespace {

// `f` called with each communicator the run made (a rank's part of a job has only its own).
template <typename F> void forEachComm(const std::vector<void *> &comms, F f)
{
    for (void *comm : comms)
        if (comm)
            f(static_cast<ncclComm_t>(comm));
}

} // namespace

RunCollectives::~RunCollectives()
{
    if (m_leaked || m_comms.empty())
        return;
    const Nccl &n = nccl();
    const auto comm = [&](int rank) { return static_cast<ncclComm_t>(m_comms[std::size_t(rank)]); };
    // A run that failed (this runs while its error unwinds the stack) may leave collectives that never end:
    // finalising would wait for them, aborting ends them.
    if (std::uncaught_exceptions() > 0) {
        forEachComm(m_comms, n.abort);
        for (const SymmetricBuffer &b : m_symmetric)
            if (b.bytes)
                n.memFree(b.bytes);
        return;
    }
    // In a group, as the ranks of one process were made: each rank's windows, then each communicator finalised
    // (its peers' still there: destroying one rank first left the other's deregistration without a peer, and
    // NCCL warned on standard error), then destroyed.
    n.groupStart();
    for (const SymmetricBuffer &b : m_symmetric)
        if (b.window)
            n.windowDeregister(comm(b.rank), static_cast<ncclWindow_t>(b.window));
    n.groupEnd();
    if (n.finalize) {
        n.groupStart();
        forEachComm(m_comms, n.finalize);
        n.groupEnd();
    }
    forEachComm(m_comms, n.destroy);
    for (const SymmetricBuffer &b : m_symmetric)
        if (b.bytes)
            n.memFree(b.bytes);
}

namespace {

ncclConfig_t configOf(const NcclSettings &settings)
{
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 1;
    if (settings.minCTAs > 0)
        config.minCTAs = settings.minCTAs;
    if (settings.maxCTAs > 0)
        config.maxCTAs = settings.maxCTAs;
    if (settings.ctaPolicy == "efficiency")
        config.CTAPolicy = NCCL_CTA_POLICY_EFFICIENCY;
    else if (settings.ctaPolicy == "zero")
        config.CTAPolicy = NCCL_CTA_POLICY_ZERO;
    else if (settings.ctaPolicy == "default")
        config.CTAPolicy = NCCL_CTA_POLICY_DEFAULT;
    return config;
}

// cudaSetDevice directly (runner_devices.h's useDevice would make an include cycle with runner_calls).
void useDevice(int device)
{
    STREAMSCOPE_CUDA_CHECK("device " + std::to_string(device) + ": cudaSetDevice", cudaSetDevice(device));
}

} // namespace

std::string newCommunicatorId()
{
    const Nccl &n = loaded("the ranks' NCCL communicator");
    ncclUniqueId id;
    check(n.getUniqueId(&id), "the ranks' NCCL communicator", "ncclGetUniqueId");
    return std::string(id.internal, sizeof(id.internal));
}

void RunCollectives::allocate(const Workload &workload, int override, int rank, int device)
{
    const std::string where = " on GPU " + std::to_string(device);
    // At least one element each: NCCL refuses null buffers, and a rank may have only sends or receives.
    const CollectiveBytes bytes = collectiveBytes(workload, override, device);
    useDevice(device);
    if (workload.nccl.symmetric) {
        const Nccl &n = nccl();
        for (const std::uint64_t asked : {bytes.send, bytes.recv}) {
            const std::size_t size = std::max<std::uint64_t>(asked, 16);
            void *p = nullptr;
            check(n.memAlloc(&p, size), "the collectives' buffers" + where, "ncclMemAlloc (" + formatBytes(size) + ")");
            m_symmetric.push_back({p, nullptr, rank, size});
        }
        return;
    }
    m_send[rank] = cuda::Buffer(BufferKind::Device, std::max<std::uint64_t>(bytes.send, 16),
                                "the collectives' send buffer" + where);
    m_recv[rank] = cuda::Buffer(BufferKind::Device, std::max<std::uint64_t>(bytes.recv, 16),
                                "the collectives' receive buffer" + where);
}

// Every rank's send and receive buffers registered as symmetric windows: a collective call of the
// communicator, so the ranks of one process register in one group.
void RunCollectives::registerWindows(const std::string &context)
{
    if (m_symmetric.empty())
        return;
    const Nccl &n = nccl();
    check(n.groupStart(), context, "ncclGroupStart");
    for (SymmetricBuffer &b : m_symmetric) {
        ncclWindow_t window = nullptr;
        const ncclResult_t result = n.windowRegister(static_cast<ncclComm_t>(m_comms[std::size_t(b.rank)]), b.bytes,
                                                     b.size, &window, NCCL_WIN_COLL_SYMMETRIC);
        if (result != ncclSuccess && result != ncclInProgress) {
            n.groupEnd();
            check(result, context + " (rank " + std::to_string(b.rank) + ")", "ncclCommWindowRegister");
        }
        b.window = window;
    }
    check(n.groupEnd(), context, "ncclGroupEnd (ncclCommWindowRegister on every GPU)");
}

void RunCollectives::setUp(const Workload &workload, int override, const std::string &communicatorId)
{
    const RankOf &job = workload.rankOf;
    const std::vector<int> local = workload.collectiveDevices(override);
    if (local.empty())
        return;
    const NcclSettings &settings = workload.nccl;
    const std::string context = "the collectives' NCCL communicator";
    applyNcclEnvironment(settings);
    const Nccl &n = loaded(context);
    if (settings.symmetric && (!n.memAlloc || !n.memFree || !n.windowRegister || !n.windowDeregister))
        throw Error(ErrorKind::Cuda, context
                                         + ": \"symmetric\" windows need NCCL 2.27 or later (ncclMemAlloc, "
                                           "ncclCommWindowRegister), and this NCCL is "
                                         + versionText(n.version));
    int previous = 0;
    cudaGetDevice(&previous);
    ncclConfig_t config = configOf(settings);

    int ranks = 0;
    if (job.rank >= 0) {
        // One rank of a job of processes: this process's GPU joins the communicator every rank made from
        // rank 0's unique id.
        const auto at = std::find(job.communicator.begin(), job.communicator.end(), job.rank);
        if (at == job.communicator.end())
            return;
        ranks = int(job.communicator.size());
        const int rank = int(at - job.communicator.begin());
        ncclUniqueId id;
        if (communicatorId.size() != sizeof(id.internal))
            throw Error(ErrorKind::InvalidInput, context + ": rank " + std::to_string(job.rank)
                                                     + " was given no NCCL unique id ("
                                                     + std::to_string(communicatorId.size()) + " bytes, not "
                                                     + std::to_string(sizeof(id.internal)) + ")");
        std::copy(communicatorId.begin(), communicatorId.end(), id.internal);
        const int device = local.front();
        m_devices.assign(std::size_t(ranks), -1);
        m_devices[std::size_t(rank)] = device;
        allocate(workload, override, rank, device);
        m_comms.assign(std::size_t(ranks), nullptr);
        ncclComm_t comm = nullptr;
        const ncclResult_t result = n.initRankConfig(&comm, ranks, id, rank, &config);
        m_comms[std::size_t(rank)] = comm;
        check(result,
              context + " (rank " + std::to_string(rank) + " of " + std::to_string(ranks) + ", GPU "
                  + std::to_string(device) + ")",
              "ncclCommInitRankConfig");
        m_description = "NCCL " + versionText(n.version) + ", " + std::to_string(ranks) + " ranks in "
                        + std::to_string(job.ranks) + " processes; this one rank " + std::to_string(rank) + " on GPU "
                        + std::to_string(device);
    } else {
        m_devices = local;
        ranks = int(m_devices.size());
        for (int r = 0; r < ranks; ++r)
            allocate(workload, override, r, m_devices[std::size_t(r)]);
        ncclUniqueId id;
        check(n.getUniqueId(&id), context, "ncclGetUniqueId");
        m_comms.assign(std::size_t(ranks), nullptr);
        // One process, several GPUs: the ranks' initialisations in one group, as nccl-tests does with threads.
        check(n.groupStart(), context, "ncclGroupStart");
        for (int r = 0; r < ranks; ++r) {
            useDevice(m_devices[std::size_t(r)]);
            ncclComm_t comm = nullptr;
            const ncclResult_t result = n.initRankConfig(&comm, ranks, id, r, &config);
            m_comms[std::size_t(r)] = comm;
            if (result != ncclSuccess) {
                n.groupEnd();
                check(result,
                      context + " (rank " + std::to_string(r) + ", GPU " + std::to_string(m_devices[std::size_t(r)])
                          + ")",
                      "ncclCommInitRankConfig");
            }
        }
        check(n.groupEnd(), context, "ncclGroupEnd (ncclCommInitRankConfig on every GPU)");
        m_description = "NCCL " + versionText(n.version) + ", " + std::to_string(ranks)
                        + (ranks == 1 ? " rank: GPU " : " ranks: GPUs ");
        for (int r = 0; r < ranks; ++r)
            m_description += (r == 0           ? ""
                              : r + 1 == ranks ? " and "
                                               : ", ")
                             + std::to_string(m_devices[std::size_t(r)]);
    }
    registerWindows(context);
    useDevice(previous);

    if (settings.symmetric)
        m_description += ", symmetric windows";
    if (settings.minCTAs > 0)
        m_description += ", minCTAs " + std::to_string(settings.minCTAs);
    if (settings.maxCTAs > 0)
        m_description += ", maxCTAs " + std::to_string(settings.maxCTAs);
    if (!settings.ctaPolicy.empty())
        m_description += ", CTA policy " + settings.ctaPolicy;
    if (const char *algo = std::getenv("NCCL_ALGO"); algo && *algo)
        m_description += ", NCCL_ALGO=" + std::string(algo);
    if (const char *proto = std::getenv("NCCL_PROTO"); proto && *proto)
        m_description += ", NCCL_PROTO=" + std::string(proto);
}

const CollectiveCall *RunCollectives::prepare(const PlannedOp &plan)
{
    const CollectiveSpec &c = plan.spec->collective;
    if (plan.rank < 0 || std::size_t(plan.rank) >= m_comms.size() || !m_comms[std::size_t(plan.rank)])
        throw Error(ErrorKind::Cuda, plan.context + ": its GPU has no NCCL communicator");
    if (c.type == CollectiveType::AllToAll && !nccl().allToAll)
        throw Error(ErrorKind::Cuda, plan.context + ": NCCL " + versionText(nccl().version)
                                         + " has no ncclAlltoAll (NCCL 2.28 or later has it)");
    auto call = std::make_unique<CollectiveCall>();
    call->comm = static_cast<ncclComm_t>(m_comms[std::size_t(plan.rank)]);
    call->type = c.type;
    if (m_symmetric.empty()) {
        call->send = m_send.at(plan.rank).bytesAt(0);
        call->recv = m_recv.at(plan.rank).bytesAt(0);
    } else { // the rank's two: send, then receive
        const auto mine = std::find_if(m_symmetric.begin(), m_symmetric.end(),
                                       [&](const SymmetricBuffer &b) { return b.rank == plan.rank; });
        if (mine == m_symmetric.end() || std::next(mine) == m_symmetric.end())
            throw Error(ErrorKind::Cuda, plan.context + ": its GPU has no symmetric buffers");
        call->send = mine->bytes;
        call->recv = std::next(mine)->bytes;
    }
    call->datatype = datatypeOf(c.dtype);
    call->reduce = reductionOf(c.reduce);
    call->peer = plan.peerRank;
    const std::size_t elements = std::size_t(plan.bytes / elementBytes(c.dtype));
    const std::size_t ranks = std::size_t(std::max(plan.ranks, 1));
    // NCCL's count: all of the data for an all-reduce, broadcast, send or receive; one rank's part for an
    // all-gather (what each sends), a reduce-scatter (what each receives) and an all-to-all (per peer).
    const bool perRank = c.type == CollectiveType::AllGather || c.type == CollectiveType::ReduceScatter
                         || c.type == CollectiveType::AllToAll;
    call->count = perRank ? elements / ranks : elements;
    m_calls.push_back(std::move(call));
    return m_calls.back().get();
}

void RunCollectives::leak()
{
    m_leaked = true;
    if (!m_comms.empty()) { // (a run without collectives never loads NCCL, abandoned or not)
        const Nccl &n = nccl();
        // A collective whose peer never came waits on the GPU: aborting its communicator ends the wait.
        forEachComm(m_comms, n.abort);
    }
    for (auto &[rank, b] : m_send)
        b.leak();
    for (auto &[rank, b] : m_recv)
        b.leak();
}

void callCollective(const CollectiveCall &call, cudaStream_t stream, const std::string &context)
{
    const Nccl &n = nccl();
    ncclResult_t result = ncclSuccess;
    switch (call.type) {
    case CollectiveType::AllReduce:
        result = n.allReduce(call.send, call.recv, call.count, call.datatype, call.reduce, call.comm, stream);
        break;
    case CollectiveType::AllGather:
        result = n.allGather(call.send, call.recv, call.count, call.datatype, call.comm, stream);
        break;
    case CollectiveType::ReduceScatter:
        result = n.reduceScatter(call.send, call.recv, call.count, call.datatype, call.reduce, call.comm, stream);
        break;
    case CollectiveType::Broadcast:
        result = n.broadcast(call.send, call.recv, call.count, call.datatype, call.peer, call.comm, stream);
        break;
    case CollectiveType::AllToAll:
        result = n.allToAll(call.send, call.recv, call.count, call.datatype, call.comm, stream);
        break;
    case CollectiveType::Send:
        result = n.send(call.send, call.count, call.datatype, call.peer, call.comm, stream);
        break;
    case CollectiveType::Recv:
        result = n.recv(call.recv, call.count, call.datatype, call.peer, call.comm, stream);
        break;
    }
    check(result, context, ncclFunction(call.type), call.comm);
}

#else // no nccl.h at configure: collectives are refused, naming what is missing

struct CollectiveCall { };

std::optional<Error> collectivesUnavailable(const Workload &workload)
{
    if (const auto op = firstCollective(workload))
        return Error(ErrorKind::InvalidInput,
                     *op
                         + ": this StreamScope was built without NCCL (configure found no "
                           "nccl.h): install NVIDIA's libnccl-dev (or use a CUDA toolkit "
                           "that ships nccl.h) and configure again; docs/building.md says how");
    return std::nullopt;
}

RunCollectives::RunCollectives() = default;
RunCollectives::~RunCollectives() = default;

void RunCollectives::setUp(const Workload &workload, int, const std::string &)
{
    if (const auto op = firstCollective(workload))
        throw Error(ErrorKind::InvalidInput, *op + ": this StreamScope was built without NCCL");
}

std::string newCommunicatorId()
{
    throw Error(ErrorKind::InvalidInput, "the ranks' NCCL communicator: this StreamScope was built without NCCL "
                                         "(configure found no nccl.h); docs/building.md says how to add it");
}

const CollectiveCall *RunCollectives::prepare(const PlannedOp &plan)
{
    throw Error(ErrorKind::InvalidInput, plan.context + ": this StreamScope was built without NCCL");
}

void RunCollectives::leak()
{
    m_leaked = true;
}

void callCollective(const CollectiveCall &, cudaStream_t, const std::string &context)
{
    throw Error(ErrorKind::InvalidInput, context + ": this StreamScope was built without NCCL");
}

#endif

} // namespace streamscope::engine
