// "Linear, not quadratic", asserted without a wall-clock bound: the same input size timed in the shape the
// bug was quadratic in (one line of 1.4 MB, ranges nested 100k or 200k deep) against a shape it never was
// (one op per line, ranges one after another), each the best of three, the two alternating, in one run.
// A busy machine or a sanitizer build slows both alike, so the ratio holds where an absolute time (which
// once failed on a busy build machine) does not. Linear code read 0.9-1.1x on the build machine (a host
// range layout 2.2-3.4x: its stack is deeper); quadratic code n over a small constant (34x for the
// minified workload with its line scan put back, thousands for the layout).
//
// Why not n against 4n (linear 4x, quadratic 16x): where the work's memory outgrows the caches much
// faster than its instructions (a JSON document and its path tables, SQLite's rows, a deep stack), wall
// time on a busy machine is not linear in the size even when the code is. On the build machine linear
// code read 5.4-8.0x for 4x a workload's ops (callgrind counted 3.97x the instructions), 4.5-10x for an
// NVTX import and 3.3-8.3x for a host range layout: too close to 16 to tell the two apart.
#pragma once

#include <QElapsedTimer>

#include <algorithm>
#include <limits>

namespace streamscope::test {

// The quadratic-prone shape against the harmless one, same size: linear gives 1-3.4, quadratic 34 to
// thousands at the tests' sizes.
inline constexpr double kSameSizeLimit = 8.0;

struct Timings {
    qint64 baseNs = std::numeric_limits<qint64>::max(); // best of three of the harmless shape
    qint64 testedNs = std::numeric_limits<qint64>::max(); // best of three of the quadratic-prone shape
    double ratio() const { return double(testedNs) / double(std::max<qint64>(baseNs, 1)); }
};

// `base()` and `tested()` each do their work once and return the nanoseconds of the part being judged
// (their set-up left out: see elapsedNs). Three of each, alternating; the best of each.
template <typename Base, typename Tested> Timings bestOfThree(Base base, Tested tested)
{
    Timings t;
    for (int i = 0; i < 3; ++i) {
        t.baseNs = std::min<qint64>(t.baseNs, base());
        t.testedNs = std::min<qint64>(t.testedNs, tested());
    }
    return t;
}

// How long `work()` takes, in ns.
template <typename Work> qint64 elapsedNs(Work work)
{
    QElapsedTimer timer;
    timer.start();
    work();
    return timer.nsecsElapsed();
}

} // namespace streamscope::test
