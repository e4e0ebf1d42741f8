#!/usr/bin/env bash
# Everything StreamScope checks on a real GPU, in one go (the GPU host is lent by the minute):
# the GPU tests, every preset run and recorded as an example trace, the benchmarks, and an Nsight
# Systems profile + SQLite export of presets for the Nsight comparison.
#
#   bench/gpu-session.sh BUILD_DIR OUT_DIR [steps...]    steps: tests presets bench nsys (default: all)
#
# BUILD_DIR is a build made with the CUDA toolkit (tests, app, bench). Results land in OUT_DIR:
# gpu-session.log, examples/*.sstrace, bench/*.json and nsys/*.sqlite, packed into one archive too.
set -uo pipefail
build=$(realpath "${1:?usage: $0 BUILD_DIR OUT_DIR [steps]}"); out=$(realpath -m "${2:?}"); shift 2
steps=${*:-tests presets bench nsys}
mkdir -p "$out"/examples "$out"/bench "$out"/nsys
log="$out/gpu-session.log"
exec > >(tee -a "$log") 2>&1
cli="$build/app/streamscope-cli"
echo "== $(date -u +%FT%TZ) on $(hostname)"
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,clocks.sm,pcie.link.gen.current,pcie.link.width.current --format=csv 2>&1 || true
"$cli" devices

has() { [[ " $steps " == *" $1 "* ]]; }

if has tests; then
  echo "== GPU tests"
  for t in "$build"/tests/tst_runner_gpu "$build"/tests/tst_cli; do
    [ -x "$t" ] && { echo "-- $(basename "$t")"; "$t" -o "$out/$(basename "$t").txt,txt" -o -,txt 2>&1 | grep -vE '^(PASS|QDEBUG|QINFO .*initTestCase)'; echo "rc=${PIPESTATUS[0]}"; }
  done
fi

if has presets; then
  echo "== presets (recorded as examples)"
  for w in resources/workloads/*.json; do
    name=$(basename "$w" .json)
    echo "-- $name"
    /usr/bin/time -f "wall %es" "$cli" run "$w" -o "$out/examples/$name.sstrace" --ops 24 || echo "FAILED: $name rc=$?"
  done
fi

if has bench; then
  echo "== benchmarks"
  for b in bench_engine_bandwidth bench_overhead bench_harris; do
    [ -x "$build/bench/$b" ] && { echo "-- $b"; "$build/bench/$b" --out "$out/bench/$b.json" || echo "FAILED: $b rc=$?"; }
  done
fi

if has nsys && [ -x .gpu/nsys-profile.sh ]; then
  echo "== Nsight Systems"
  for name in ${NSYS_PRESETS:-overlap overlap-breadth-first sync-vs-async concurrent-kernels}; do
    .gpu/nsys-profile.sh .gpu/nsyslibs "$out/nsys/$name" "$cli" run "resources/workloads/$name.json" \
      -o "$out/nsys/$name.sstrace" --ops 0 > "$out/nsys/$name.log" 2>&1 && echo "ok $name" || { echo "FAILED nsys $name"; tail -5 "$out/nsys/$name.log"; }
    rm -f "$out/nsys/$name.nsys-rep"
  done
fi

( cd "$out" && tar czf results.tgz examples bench nsys gpu-session.log $(ls *.txt *.png 2>/dev/null) 2>/dev/null )
ls -la "$out" "$out"/*/ | head -60
