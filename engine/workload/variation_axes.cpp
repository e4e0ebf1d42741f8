// The variation axes' names, their values' checks, and --vary options.
#include "engine/workload/variation_axes.h"

#include <algorithm>
#include <initializer_list>
#include <iterator>

#include "engine/model/errors.h"
#include "engine/model/units.h"
#include "engine/workload/workload.h"

namespace streamscope::engine {

namespace {

constexpr std::string_view kAxisNames[] = {"memory",   "api",         "streams",    "order",   "chunks",
                                           "size",     "connections", "peerAccess", "devices", "defaultStream",
                                           "schedule", "maxCTAs",     "ctaPolicy",  "launch",  "pdl"};
static_assert(std::size(kAxisNames) == std::size_t(Axis::Pdl) + 1, "every axis needs its name");
constexpr int kMaxCount = 4096; // the parser's limit on pipeline chunks (and so streams)

} // namespace

// A value of an axis, checked and normalised; `where` starts the message ("--vary api=x: ").
std::string checkedAxisValue(Axis axis, std::string value, const std::string &where)
{
    const std::string name(toString(axis));
    auto oneOf = [&](std::initializer_list<const char *> allowed) {
        std::string list;
        for (const char *a : allowed) {
            if (value == a)
                return;
            list += (list.empty() ? "" : ", ") + std::string(a);
        }
        throw Error(ErrorKind::InvalidInput, where + "\"" + value + "\" is not a value of " + name + " (" + list + ")");
    };
    switch (axis) {
    case Axis::Memory: oneOf({"pageable", "pinned", "registered", "managed"}); break;
    case Axis::Api: oneOf({"sync", "async"}); break;
    case Axis::Order: oneOf({"depth-first", "breadth-first"}); break;
    case Axis::Streams:
    case Axis::Chunks: {
        const bool digits =
            value.size() <= 5 && std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
        const int n = digits ? std::stoi(value) : 0;
        if (n < 1 || n > kMaxCount)
            throw Error(ErrorKind::InvalidInput, where + "\"" + value + "\" is not a count of " + name + " (1.."
                                                     + std::to_string(kMaxCount) + ")");
        value = std::to_string(n);
        break;
    }
    case Axis::Connections: {
        const bool digits = !value.empty() && value.size() <= 2
                            && std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
        const int n = digits ? std::stoi(value) : 0;
        if (n < 1 || n > 32)
            throw Error(ErrorKind::InvalidInput,
                        where + "\"" + value
                            + "\" is not a count of hardware queues (1..32, CUDA_DEVICE_MAX_CONNECTIONS)");
        value = std::to_string(n);
        break;
    }
    case Axis::PeerAccess: oneOf({"on", "off"}); break;
    case Axis::DefaultStream: oneOf({"legacy", "per-thread"}); break;
    case Axis::Launch: oneOf({"streams", "graph"}); break;
    case Axis::Pdl: oneOf({"off", "on"}); break;
    case Axis::Schedule: oneOf({"overlapped", "serial"}); break;
    case Axis::CtaPolicy: oneOf({"default", "efficiency", "zero"}); break;
    case Axis::MaxCtas: {
        if (value == "default")
            break;
        const bool digits = !value.empty() && value.size() <= 2
                            && std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
        const int n = digits ? std::stoi(value) : 0;
        if (n < 1 || n > 64)
            throw Error(ErrorKind::InvalidInput,
                        where + "\"" + value
                            + "\" is not a count of thread blocks for NCCL (default, or 1..64: ncclConfig_t maxCTAs)");
        value = std::to_string(n);
        break;
    }
    case Axis::Devices: {
        const bool digits = !value.empty() && value.size() <= 2
                            && std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
        const int n = digits ? std::stoi(value) : 0;
        if (n < 1 || n > kMaxDeviceIndex + 1)
            throw Error(ErrorKind::InvalidInput, where + "\"" + value + "\" is not a count of GPUs (1.."
                                                     + std::to_string(kMaxDeviceIndex + 1) + ")");
        value = std::to_string(n);
        break;
    }
    case Axis::Size: {
        const auto bytes = parseByteSize(value);
        if (!bytes || *bytes == 0)
            throw Error(ErrorKind::InvalidInput,
                        where + "\"" + value + "\" is not a size above 0 (e.g. 4096, \"64 KiB\", 16MiB, 1GB)");
        // Normalised so that 16MiB and 16777216 are one value; kept exact when the short form rounds.
        const std::string pretty = formatBytes(*bytes);
        value = parseByteSize(pretty) == bytes ? pretty : std::to_string(*bytes);
        break;
    }
    }
    return value;
}

std::string_view toString(Axis axis)
{
    return kAxisNames[static_cast<int>(axis)];
}

std::optional<Axis> axisFromString(std::string_view name)
{
    for (std::size_t i = 0; i < std::size(kAxisNames); ++i)
        if (kAxisNames[i] == name)
            return static_cast<Axis>(i);
    return std::nullopt;
}

std::string axisNameList(std::string_view lastSeparator)
{
    std::string list;
    for (std::size_t i = 0; i < std::size(kAxisNames); ++i)
        list += std::string(i == 0                           ? ""
                            : i + 1 == std::size(kAxisNames) ? lastSeparator
                                                             : ", ")
                + std::string(kAxisNames[i]);
    return list;
}

std::string variantLabel(const std::vector<AxisSetting> &settings)
{
    std::string label;
    for (const auto &s : settings) {
        if (!label.empty())
            label += ", ";
        label += std::string(toString(s.axis)) + "=" + s.value;
    }
    return label.empty() ? std::string("base") : label;
}

AxisValues parseVaryOption(std::string_view text)
{
    const std::string option(text);
    const auto eq = text.find('=');
    if (eq == std::string_view::npos)
        throw Error(ErrorKind::InvalidInput, "--vary " + option + ": expected AXIS=VALUE,VALUE,... (axes: "
                                                 + axisNameList() + "), e.g. --vary memory=pageable,pinned");
    const std::string name(text.substr(0, eq));
    const auto axis = axisFromString(name);
    if (!axis)
        throw Error(ErrorKind::InvalidInput,
                    "--vary " + option + ": unknown axis \"" + name + "\" (" + axisNameList(" or ") + ")");
    AxisValues out;
    out.axis = *axis;
    std::string_view rest = text.substr(eq + 1);
    while (true) {
        const auto comma = rest.find(',');
        std::string value(rest.substr(0, comma));
        // Trim spaces so that "memory=pageable, pinned" (quoted) reads as meant.
        value.erase(0, value.find_first_not_of(' '));
        value.erase(value.find_last_not_of(' ') + 1);
        const std::string where = "--vary " + option + ": ";
        if (value.empty())
            throw Error(ErrorKind::InvalidInput, where + "an empty value; give values separated by commas");
        value = checkedAxisValue(*axis, value, where);
        if (std::find(out.values.begin(), out.values.end(), value) != out.values.end())
            throw Error(ErrorKind::InvalidInput, where + "\"" + value + "\" is given twice");
        out.values.push_back(value);
        if (comma == std::string_view::npos)
            break;
        rest = rest.substr(comma + 1);
    }
    return out;
}

} // namespace streamscope::engine
