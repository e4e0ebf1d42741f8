// Everything the workload layer knows of each kernel type (KernelType), in one row per type: its name in
// workload files, how messages call it, the fields it takes, its default launch shape, whether a pipeline
// may use it, and its short display name. The parser, the writer, describe(), the run plan, the hold policy
// and the workload editor read the row and hold no list of types of their own. A new kernel type is an
// enumerator in workload.h, a row in kernel_types.cpp (checked against the enum at compile time), its kernel
// in kernels/ and its launch in runner_calls.cpp (docs/architecture.md, "A new kernel type").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/workload/workload.h"

namespace streamscope::engine {

// What a kernel op of a type reads, writes and shows, each as its keys in the file (and the editor's rows):
//  Duration: "duration", the time a calibrated spin kernel runs (OpSpec::durationNs);
//  BufferSpan: "buffer", "offset", "bytes", the device or managed memory it streams (OpSpec::buffer,
//              dstOffset, bytes);
//  Gemm: "m", "n", "k", "dtype" (OpSpec::gemm);
//  LaunchShape: "blocks", "threads" (OpSpec::blocks, threadsPerBlock); a type without it lets its library
//               choose (both 0);
//  Pdl: "pdl", launched with programmatic dependent launch (OpSpec::pdl); a type takes it where its kernel
//       waits for its predecessor (cudaGridDependencySynchronize) before its work and triggers its dependents
//       (cudaTriggerProgrammaticLaunchCompletion) after it.
enum class KernelField : std::uint8_t { Duration, BufferSpan, Gemm, LaunchShape, Pdl };

struct KernelTypeInfo {
    KernelType type;
    std::string_view name; // in workload files: "compute"
    std::string_view what; // in messages: "a compute kernel"
    std::span<const KernelField> fields; // in the order the file, the writer and the editor give them
    int blocks = 1; // the launch shape where the file gives none (LaunchShape)
    int threads = 1;
    bool pipeline = false; // a pipeline's kernel ("pipeline": {"kernel": {"type": ...}}) may be one
    // The op's display name where the file gives none: "kernel 1 ms", "GEMM 8192x8192x8192 bf16".
    std::string (*describe)(const OpSpec &op) = nullptr;
};

// Every row, in KernelType's order.
std::span<const KernelTypeInfo> kernelTypes();
const KernelTypeInfo &kernelTypeInfo(KernelType type);
// The names, indexed by the type (workload_names.h's enumNames<KernelType>).
std::span<const std::string_view> kernelTypeNames();
bool takes(KernelType type, KernelField field);
// The keys a kernel op of the type may have: "op", "name", "repeat", "type", then its fields' keys.
std::vector<std::string> kernelKeys(KernelType type);
// The type of a kernel op that names none, from the keys it has: compute with a "duration", memory with a
// "buffer"; none otherwise.
std::optional<KernelType> kernelTypeFromKeys(bool hasDuration, bool hasBuffer);
// A field's keys, in order.
std::span<const std::string_view> fieldKeys(KernelField field);

} // namespace streamscope::engine
