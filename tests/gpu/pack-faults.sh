#!/usr/bin/env bash
# Here, before a GPU session: copies what tests/gpu/faults-session.sh runs into DEST (default .gpu/faults,
# an ignored folder to carry to the GPU host): streamscope-cli and the fault tests, stripped of debug
# information (RelWithDebInfo binaries would not fit the 64 MiB that travel), the test libraries they
# load by path, and the Qt runtime the QtTest programs need there (../shared/gpu-host/pack-qt-runtime.sh);
# tst_gzip for the session's large step (STREAMSCOPE_LARGE_TESTS=1).
#
#   [TESTS="tst_a tst_b"] tests/gpu/pack-faults.sh BUILD_DIR [DEST]   (TESTS: other test programs)
set -euo pipefail
build=$(realpath "${1:?usage: $0 BUILD_DIR [DEST]}"); dest=${2:-.gpu/faults}
root=$(cd "$(dirname "$0")/../.." && pwd)
tests=${TESTS:-"tst_runner_faults tst_cli_faults tst_run_faults tst_run_watchdog tst_host_memory tst_runner_gpu tst_gzip"}
rm -rf "$dest"; mkdir -p "$dest/app" "$dest/tests"
strip --strip-debug -o "$dest/app/streamscope-cli" "$build/app/streamscope-cli"
bins=("$dest/app/streamscope-cli")
for t in $tests; do
  strip --strip-debug -o "$dest/tests/$t" "$build/tests/$t"
  bins+=("$dest/tests/$t")
done
# Libraries the tests load by their build path (tst_topology's fake NVML): the GPU session links the
# build directory to DEST, so they must sit where they were built.
for lib in "$build"/tests/lib*.so; do
  [ -e "$lib" ] && cp "$lib" "$dest/tests/"
done
pack=$root/../shared/gpu-host/pack-qt-runtime.sh
[ -x "$pack" ] || { echo "no $pack: copy the Qt runtime to $dest/qt-runtime.tgz yourself"; exit 1; }
"$pack" "$dest/qt-runtime.tgz" "${bins[@]}" >/dev/null
du -sh "$dest" "${bins[@]}" "$dest/qt-runtime.tgz"
