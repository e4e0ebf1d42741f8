// The one per-direction byte sum: a copy's bytes go to the sum its kind's ByteBucket names (kOpKinds), in
// any figures that keep h2dBytes, d2hBytes, d2dBytes and p2pBytes members (a repetition's, a device's, a
// time range's). Whole bytes add saturating; prorated (floating-point) bytes add plainly.
#pragma once

#include <type_traits>

#include "engine/model/limits.h"
#include "engine/model/op_kinds.h"

namespace streamscope::engine {

template <typename Sums, typename Bytes> void addCopyBytes(Sums &sums, OpKind kind, Bytes bytes)
{
    const auto add = [bytes](auto &sum) {
        if constexpr (std::is_floating_point_v<std::remove_reference_t<decltype(sum)>>)
            sum += bytes;
        else
            sum = saturatingAdd(sum, bytes);
    };
    switch (opKindInfo(kind).bytes) {
    case ByteBucket::H2D: add(sums.h2dBytes); break;
    case ByteBucket::D2H: add(sums.d2hBytes); break;
    case ByteBucket::D2D: add(sums.d2dBytes); break;
    case ByteBucket::P2P: add(sums.p2pBytes); break;
    case ByteBucket::None: break;
    }
}

} // namespace streamscope::engine
