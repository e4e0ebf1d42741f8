// The trace header's fields, listed once with their two spellings. A trace file says what it is beside
// its ops: title, tool, host, the devices, streams and host threads. StreamScope writes that header in two
// formats: the native format (snake_case: native_format.cpp, nativeHeader and readNativeHeader) and the
// "streamscope" block of its Chrome export (camelCase: chrome_export.cpp writes it, chrome_import.cpp reads
// it back). Each format's one header writer and one header reader go through these lists, so a field is
// added, renamed or dropped here, in one place, for both. What only one format has, or writes otherwise
// (the native format's compute capability as "MAJOR.MINOR", its calibration and peer links; the Chrome
// block's origin), stays in that format's routines. docs/formats.md describes the header.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

#include "engine/model/trace.h"

namespace streamscope::engine::header {

// What the Chrome block's reader asks of a field (the native reader takes each one as optional): present,
// and for a device index one the model holds (import_common.h's deviceIdProblem).
enum class Need : std::uint8_t { Optional, Required, DeviceIndex };
// When a writer leaves a field out (readers then keep the member's default).
enum class Omit : std::uint8_t { Never, WhenNegative, WhenEmpty };

// One member of a header record: its native and its Chrome spelling (nullptr: not in that format).
template <typename Record, typename Value> struct Field {
    using ValueType = Value;
    const char *native;
    const char *chrome;
    Value Record::*member;
    Need need = Need::Optional;
    Omit omit = Omit::Never;

    // Whether a writer leaves this field of `record` out.
    bool omitted(const Record &record) const
    {
        if constexpr (std::is_same_v<Value, bool> || std::is_unsigned_v<Value>)
            return false; // never negative, never empty
        else if constexpr (std::is_arithmetic_v<Value>)
            return omit == Omit::WhenNegative && record.*member < 0;
        else
            return omit == Omit::WhenEmpty && (record.*member).empty();
    }
};

// The trace's description. Both formats' readers keep the defaults for what is absent.
inline constexpr auto kTraceFields = std::tuple{
    Field<Trace, std::string>{"title", "title", &Trace::title},
    Field<Trace, std::string>{"tool_version", "toolVersion", &Trace::toolVersion},
    Field<Trace, std::string>{"host", "hostName", &Trace::hostName},
    Field<Trace, std::string>{"created_utc", "createdUtc", &Trace::createdUtc},
    // The file a trace was imported from; a Chrome file's reader sets it to that file itself.
    Field<Trace, std::string>{"source_path", nullptr, &Trace::sourcePath, Need::Optional, Omit::WhenEmpty},
};

// /streams (native) and /streamscope/streams (Chrome), one object per stream.
inline constexpr auto kStreamFields = std::tuple{
    Field<StreamInfo, std::string>{"name", "name", &StreamInfo::name, Need::Required},
    Field<StreamInfo, int>{"device", "device", &StreamInfo::device, Need::DeviceIndex},
    Field<StreamInfo, std::int64_t>{"native_id", "nativeId", &StreamInfo::nativeId, Need::Required},
    Field<StreamInfo, int>{"priority", "priority", &StreamInfo::priority},
    Field<StreamInfo, bool>{"non_blocking", "nonBlocking", &StreamInfo::nonBlocking},
    Field<StreamInfo, bool>{"default", "isDefault", &StreamInfo::isDefault},
};

// /host_threads (native) and /streamscope/hostThreads (Chrome).
inline constexpr auto kHostThreadFields = std::tuple{
    Field<HostThreadInfo, std::string>{"name", "name", &HostThreadInfo::name, Need::Required},
    Field<HostThreadInfo, std::uint64_t>{"native_id", "nativeId", &HostThreadInfo::nativeId},
    Field<HostThreadInfo, std::int64_t>{"pid", "processId", &HostThreadInfo::processId, Need::Optional,
                                        Omit::WhenNegative},
};

// /devices (native) and /streamscope/devices (Chrome): what identifies a device, then its properties. The
// native format writes the compute capability between the two, as one "MAJOR.MINOR" string; the Chrome
// block carries a subset of the properties.
inline constexpr auto kDeviceIdentityFields = std::tuple{
    Field<DeviceInfo, int>{"index", "index", &DeviceInfo::index, Need::DeviceIndex},
    Field<DeviceInfo, std::string>{"name", "name", &DeviceInfo::name},
    Field<DeviceInfo, int>{nullptr, "ccMajor", &DeviceInfo::ccMajor},
    Field<DeviceInfo, int>{nullptr, "ccMinor", &DeviceInfo::ccMinor},
};
inline constexpr auto kDevicePropertyFields = std::tuple{
    Field<DeviceInfo, int>{"sm_count", "smCount", &DeviceInfo::smCount},
    Field<DeviceInfo, int>{"async_engine_count", "asyncEngineCount", &DeviceInfo::asyncEngineCount},
    Field<DeviceInfo, bool>{"concurrent_kernels", nullptr, &DeviceInfo::concurrentKernels},
    Field<DeviceInfo, bool>{"managed_memory", nullptr, &DeviceInfo::managedMemory},
    Field<DeviceInfo, bool>{"concurrent_managed_access", nullptr, &DeviceInfo::concurrentManagedAccess},
    Field<DeviceInfo, std::uint64_t>{"total_mem_bytes", "totalMemBytes", &DeviceInfo::totalMemBytes},
    Field<DeviceInfo, std::uint64_t>{"l2_bytes", nullptr, &DeviceInfo::l2Bytes},
    Field<DeviceInfo, int>{"sm_clock_khz", nullptr, &DeviceInfo::smClockKHz},
    Field<DeviceInfo, int>{"mem_clock_khz", nullptr, &DeviceInfo::memClockKHz},
    Field<DeviceInfo, int>{"mem_bus_width_bits", nullptr, &DeviceInfo::memBusWidthBits},
    Field<DeviceInfo, std::string>{"pci_bus_id", "pciBusId", &DeviceInfo::pciBusId},
    Field<DeviceInfo, int>{"pcie_generation", nullptr, &DeviceInfo::pcieGeneration},
    Field<DeviceInfo, int>{"pcie_width", nullptr, &DeviceInfo::pcieWidth},
    Field<DeviceInfo, double>{"link_peak_gbs", nullptr, &DeviceInfo::linkPeakGBs},
    Field<DeviceInfo, int>{"priority_least", nullptr, &DeviceInfo::priorityLeast},
    Field<DeviceInfo, int>{"priority_greatest", nullptr, &DeviceInfo::priorityGreatest},
    Field<DeviceInfo, int>{"driver_version", nullptr, &DeviceInfo::driverVersion},
    Field<DeviceInfo, int>{"runtime_version", nullptr, &DeviceInfo::runtimeVersion},
};

// The Chrome block has integers, strings and booleans only (its reader reads no fractions).
template <typename Fields> constexpr bool chromeHasNoFractions(const Fields &fields)
{
    return std::apply(
        [](const auto &...field) {
            return ((!std::is_floating_point_v<
                         typename std::remove_cvref_t<decltype(field)>::ValueType> || field.chrome == nullptr)
                    && ...);
        },
        fields);
}
static_assert(chromeHasNoFractions(kTraceFields) && chromeHasNoFractions(kStreamFields)
              && chromeHasNoFractions(kHostThreadFields) && chromeHasNoFractions(kDeviceIdentityFields)
              && chromeHasNoFractions(kDevicePropertyFields));

// Calls fn(field) for each field of a list, in its order (the order the formats write them in).
template <typename Fields, typename Fn> void forEachField(const Fields &fields, Fn &&fn)
{
    std::apply([&fn](const auto &...field) { (fn(field), ...); }, fields);
}

} // namespace streamscope::engine::header
