// The kernel-type table (kernel_types.h): one row per KernelType, checked against the enum at compile time.
#include "engine/workload/kernel_types.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "engine/model/units.h"

namespace streamscope::engine {

namespace {

using F = KernelField;
constexpr std::array kSpin = {F::Duration, F::LaunchShape, F::Pdl};
constexpr std::array kStream = {F::BufferSpan, F::LaunchShape, F::Pdl};
constexpr std::array kShapeOnly = {F::LaunchShape};
constexpr std::array kGemm = {F::Gemm};

std::string describeGemm(const OpSpec &op)
{
    return "GEMM " + std::to_string(op.gemm.m) + "x" + std::to_string(op.gemm.n) + "x" + std::to_string(op.gemm.k) + " "
           + std::string(toString(op.gemm.dtype));
}

constexpr std::array<KernelTypeInfo, std::size_t(KernelType::Count)> kRows = {{
    {KernelType::Compute, "compute", "a compute kernel", kSpin, 1, 128, true,
     [](const OpSpec &op) { return "kernel " + formatDuration(op.durationNs); }},
    {KernelType::Memory, "memory", "a memory kernel", kStream, 256, 256, true,
     [](const OpSpec &op) { return "memory kernel " + formatBytes(op.bytes); }},
    // For lessons and tests of faults: no duration, no buffer; one thread unless told otherwise.
    {KernelType::Hang, "hang", "a hang kernel (it never ends)", kShapeOnly, 1, 1, false,
     [](const OpSpec &) { return std::string("hang kernel"); }},
    {KernelType::Fault, "fault", "a fault kernel (it writes through a bad pointer)", kShapeOnly, 1, 1, false,
     [](const OpSpec &) { return std::string("fault kernel"); }},
    // cuBLAS chooses its kernels' blocks and threads.
    {KernelType::Gemm, "gemm", "a GEMM kernel", kGemm, 0, 0, false, describeGemm},
    // Returns at once: its time on the GPU and its call on the host are what any launch costs.
    {KernelType::Empty, "empty", "an empty kernel (it does nothing)", kShapeOnly, 1, 1, false,
     [](const OpSpec &) { return std::string("empty kernel"); }},
}};

constexpr bool rowsInEnumOrder()
{
    for (std::size_t i = 0; i < kRows.size(); ++i) {
        const KernelTypeInfo &row = kRows[i];
        if (std::size_t(row.type) != i || row.name.empty() || row.what.empty() || row.fields.empty()
            || row.describe == nullptr)
            return false;
        const bool shaped = std::find(row.fields.begin(), row.fields.end(), F::LaunchShape) != row.fields.end();
        if (shaped != (row.blocks > 0 && row.threads > 0 && row.threads <= 1024))
            return false;
    }
    return true;
}
static_assert(kRows.size() == std::size_t(KernelType::Count), "every KernelType needs its row, and no more");
static_assert(rowsInEnumOrder(),
              "the rows follow KernelType's order, each complete; a launch shape where it takes one");

constexpr std::array<std::string_view, kRows.size()> namesOf()
{
    std::array<std::string_view, kRows.size()> names{};
    for (std::size_t i = 0; i < kRows.size(); ++i)
        names[i] = kRows[i].name;
    return names;
}
constexpr std::array<std::string_view, kRows.size()> kNames = namesOf();

constexpr std::array<std::string_view, 1> kDurationKeys = {"duration"};
constexpr std::array<std::string_view, 3> kSpanKeys = {"buffer", "offset", "bytes"};
constexpr std::array<std::string_view, 4> kGemmKeys = {"m", "n", "k", "dtype"};
constexpr std::array<std::string_view, 2> kShapeKeys = {"blocks", "threads"};
constexpr std::array<std::string_view, 1> kPdlKeys = {"pdl"};

} // namespace

std::span<const KernelTypeInfo> kernelTypes()
{
    return kRows;
}

const KernelTypeInfo &kernelTypeInfo(KernelType type)
{
    if (std::size_t(type) >= kRows.size())
        throw std::out_of_range("kernel type " + std::to_string(int(type)) + " has no row");
    return kRows[std::size_t(type)];
}

std::span<const std::string_view> kernelTypeNames()
{
    return kNames;
}

std::string describeKernel(const OpSpec &op)
{
    return kernelTypeInfo(op.kernelType).describe(op);
}

bool takes(KernelType type, KernelField field)
{
    const auto fields = kernelTypeInfo(type).fields;
    return std::find(fields.begin(), fields.end(), field) != fields.end();
}

std::optional<KernelType> kernelTypeFromKeys(bool hasDuration, bool hasBuffer)
{
    if (hasDuration)
        return KernelType::Compute;
    if (hasBuffer)
        return KernelType::Memory;
    return std::nullopt;
}

std::span<const std::string_view> fieldKeys(KernelField field)
{
    switch (field) {
    case F::Duration: return kDurationKeys;
    case F::BufferSpan: return kSpanKeys;
    case F::Gemm: return kGemmKeys;
    case F::LaunchShape: return kShapeKeys;
    case F::Pdl: return kPdlKeys;
    }
    return {};
}

std::vector<std::string> kernelKeys(KernelType type)
{
    std::vector<std::string> keys = {"op", "name", "repeat", "type"};
    for (const KernelField field : kernelTypeInfo(type).fields)
        for (const std::string_view key : fieldKeys(field))
            keys.emplace_back(key);
    return keys;
}

} // namespace streamscope::engine
