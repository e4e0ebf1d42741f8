// compareSpreads(): the noise rule shared by comparisons and diffs (see verdict.h).
#include "engine/analysis/verdict.h"

#include <cstdio>

namespace streamscope::engine {

Verdict compareSpreads(const Spread &baseline, const Spread &candidate)
{
    Verdict v;
    if (baseline.count == 0 || candidate.count == 0)
        return v;
    v.deltaNs = candidate.median - baseline.median;
    if (baseline.median <= 0 || candidate.median <= 0)
        return v;
    v.ratio = baseline.median / candidate.median;
    // Every sample is kept, so min..max is the honest range of what a run gives; a difference whose
    // ranges overlap could come out either way on the next run.
    if (candidate.max < baseline.min)
        v.kind = VerdictKind::Faster;
    else if (candidate.min > baseline.max)
        v.kind = VerdictKind::Slower;
    else
        v.kind = VerdictKind::Noise;
    return v;
}

std::string_view toString(VerdictKind kind)
{
    switch (kind) {
    case VerdictKind::Faster: return "faster";
    case VerdictKind::Slower: return "slower";
    case VerdictKind::Noise: return "noise";
    case VerdictKind::Unknown: break;
    }
    return "unknown";
}

std::string describe(const Verdict &verdict)
{
    char buf[64];
    switch (verdict.kind) {
    case VerdictKind::Faster: std::snprintf(buf, sizeof buf, "%.2fx faster", verdict.ratio); return buf;
    case VerdictKind::Slower:
        std::snprintf(buf, sizeof buf, "%.2fx slower", verdict.ratio > 0 ? 1.0 / verdict.ratio : 0.0);
        return buf;
    case VerdictKind::Noise: std::snprintf(buf, sizeof buf, "noise (%.2fx)", verdict.ratio); return buf;
    case VerdictKind::Unknown: break;
    }
    return "-";
}

} // namespace streamscope::engine
